"""``make_agent``: specs parsed into agents, bad specs refused with a reason."""

from __future__ import annotations

import copy
import pickle
import sys

import pytest

from agents import AgentError, ExpertAgent, GreedyAgent, PimcAgent, make_agent
from agents.factory import TableAgent, _for_table
from agents.random_agent import RandomAgent
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules


def test_make_agent_parses_specs():
    assert make_agent("greedy").name == "greedy"
    assert make_agent("expert").name == "expert"
    p = make_agent("pimc:worlds=8,rollout=greedy", seed=1, rules=Rules())
    assert isinstance(p, PimcAgent)
    assert (p.worlds, p.rollout_name, p.objective) == (8, "greedy", "zero_sum")
    q = make_agent(" pimc : worlds = 5 , objective = raw ")
    assert (q.worlds, q.objective) == (5, "raw")
    d = make_agent("pimc")
    assert d.worlds >= 1 and d.rollout_name == "expert"


@pytest.mark.parametrize("spec, words", [
    ("alphazero", ["unknown agent", "alphazero", "expert"]),
    ("", ["non-empty"]),
    ("pimc:depth=3", ["bad option", "depth"]),
    ("pimc:worlds=0", ["worlds", "positive"]),
    ("pimc:worlds=many", ["worlds", "positive"]),
    ("pimc:rollout=minimax", ["rollout", "minimax", "greedy"]),
    ("pimc:objective=win", ["objective", "win"]),
    ("pimc:worlds", ["key=value"]),
    ("greedy:level=2", ["bad option", "level"]),
    ("policy:", ["checkpoint path"]),
    ("pimc:worlds=1000000000", ["worlds", "at most 4096", "1000000000"]),
    ("pimc:worlds=2,worlds=3", ["'worlds'", "given twice"]),
    ("pimc:=3", ["no name"]),
    ("pimc:seed=5", ["'seed' is not an option", "--seed"]),
    ("greedy:seed=5", ["'seed' is not an option"]),
    ("random:rules=huapai", ["'rules' is not an option", "--rules"]),
])
def test_make_agent_rejects_bad_specs(spec, words):
    with pytest.raises(AgentError) as e:
        make_agent(spec)
    for w in words:
        assert w in str(e.value)


def test_policy_spec_without_policy_module_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "agents.policy", None)
    with pytest.raises(AgentError, match="agents.policy"):
        make_agent("policy:some/file.pt")


def test_policy_spec_with_missing_file_fails_clearly(tmp_path):
    missing = tmp_path / "nope.pt"
    with pytest.raises(Exception) as e:
        make_agent(f"policy:{missing}")
    assert "nope.pt" in str(e.value)


@pytest.mark.parametrize("rules", ["two_decks", '{"decks": 2}'])
def test_every_agent_kind_plays_a_full_two_deck_hand_legally(rules):
    from gongzhu_env.engine import Game
    from gongzhu_env.rules import Rules
    from tests.agents.helpers import play_hand

    table = Rules.preset("two_decks") if rules == "two_decks" else Rules(decks=2)
    specs = ["random", "greedy", "expert", "pimc:worlds=2"]
    for shift in range(2):
        agents = [make_agent(specs[(k + shift) % 4], seed=k) for k in range(4)]
        g = Game(table, seed=shift)
        actions = play_hand(g, agents)
        assert g.is_over() and sum(len(h) for h in g.hands) == 0
        assert sum(1 if a < 52 else 2 for a in actions if a != table.done_action) == 104


class OneDeckOnly(RandomAgent):
    """A strategy that plays one-deck tables only (``decks = 1``)."""

    name = "solo"
    decks = 1


@pytest.mark.parametrize("name, cls", [("greedy", GreedyAgent), ("expert", ExpertAgent),
                                       ("pimc", PimcAgent)])
def test_a_rule_agent_is_one_class_at_every_table(name, cls):
    # The rule agents and pimc read copies, so one class plays one deck, two, any table size.
    tables = [Rules(), Rules(players=5), Rules(decks=2), Rules.preset("two_decks")]
    for rules in tables:
        agent = make_agent(name, seed=1, rules=rules)
        assert type(agent) is cls
        agent.check_table(rules)  # refuses none of them
    assert type(make_agent(name, seed=1)) is cls  # no table needed to pick a strategy
    assert cls.decks is None


def test_a_table_agent_plays_as_the_strategy_of_the_table_it_meets():
    # A name with a builder per deck count (search's networks) builds a TableAgent; here two
    # stand-in strategies show which one acts: the one-deck one up front, the other when a
    # two-deck table is met, each with the agent's seed.
    agent = TableAgent("mixed", {1: GreedyAgent, 2: RandomAgent}, 3, {})
    assert set(agent.strategies) == {1}
    two = Rules.preset("two_decks")
    g = Game(two, seed=1)
    for _ in range(8):  # into the play: the random strategy has a choice to make
        g.step(g.legal_actions()[0])
    view = g.view(g.current_player)
    assert agent.act(view) == RandomAgent(seed=3).act(view)
    assert set(agent.strategies) == {1, 2} and type(agent.strategies[2]) is RandomAgent
    agent.reseed(7)
    assert all(s.seed == 7 for s in agent.strategies.values())
    # The arena copies agents for every seat and sends them to worker processes.
    for twin in (copy.deepcopy(agent), pickle.loads(pickle.dumps(agent))):
        assert set(twin.strategies) == {1, 2}
        twin.reseed(3)
        assert twin.act(view) == RandomAgent(seed=3).act(view)


def test_a_strategy_refuses_a_table_it_does_not_play_by_name():
    with pytest.raises(AgentError, match="solo agent plays one-deck tables only; these "
                                         "rules have decks=2"):
        _for_table("solo", {1: ExpertAgent}, 2)
    with pytest.raises(AgentError, match="solo agent plays one-deck tables only"):
        OneDeckOnly().check_table(Rules(decks=2))
