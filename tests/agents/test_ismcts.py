"""OpenSpiel's IS-MCTS as a player (``agents.ismcts``, spec ``"ismcts:sims=N"``)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

try:
    import pyspiel  # noqa: F401 - the [openspiel] extra must be installed for these tests
except ImportError as error:
    raise ImportError("these tests need OpenSpiel: pip install -e '.[openspiel]' "
                      "(open_spiel 2.0.2)") from error

from agents import AgentError, make_agent
from agents.ismcts import IsmctsAgent
from gongzhu_env import openspiel as gs
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules


def _play(rules: Rules, seed: int, spec: str = "ismcts:sims=6") -> tuple[int, ...]:
    """One hand with IS-MCTS in every seat; return its actions."""
    agents = [make_agent(spec, seed=seed * 10 + s) for s in range(rules.players)]
    game = Game(rules, seed=seed)
    for s, a in enumerate(agents):
        a.reset(s, rules)
    while not game.is_over():
        view = game.view(game.current_player)
        action = agents[game.current_player].act(view)
        assert action in view.legal_actions
        game.step(action)
    return game.actions


@pytest.mark.parametrize("rules", [Rules(), Rules(players=3), Rules.preset("two_decks")],
                         ids=["standard", "three", "two-decks"])
def test_plays_whole_hands_legally_and_the_same_seed_repeats_them(rules):
    first = _play(rules, 1)
    assert first == _play(rules, 1)


def test_the_spec_builds_the_agent_with_its_options_and_refuses_bad_ones():
    agent = make_agent("ismcts:sims=12,uct=1.5,worlds=4", seed=0)
    assert isinstance(agent, IsmctsAgent)
    assert (agent.sims, agent.uct, agent.worlds) == (12, 1.5, 4)
    assert agent.name == "ismcts:sims=12,uct=1.5,worlds=4"
    assert make_agent("ismcts", seed=0).name == "ismcts:sims=64"
    for spec, message in [("ismcts:sims=0", "sims must be"), ("ismcts:uct=-1", "uct must be"),
                          ("ismcts:rollouts=0", "rollouts must be"),
                          ("ismcts:returns=team", "returns must be"),
                          ("ismcts:worlds=-2", "worlds must be")]:
        with pytest.raises(AgentError, match=message):
            make_agent(spec, seed=0)


def test_a_deep_copy_per_seat_and_a_reseed_give_the_same_decisions():
    agent = make_agent("ismcts:sims=10", seed=5)
    game = Game(Rules(), seed=8)
    while game.phase == "declare":
        game.step(game.legal_actions()[-1])
    for _ in range(3):
        game.step(game.legal_actions()[0])
    view = game.view(game.current_player)
    twin = copy.deepcopy(agent)
    assert agent.act(view) == twin.act(view)
    agent.reseed(5)
    again = make_agent("ismcts:sims=10", seed=5)
    assert agent.act(view) == again.act(view)


def test_the_search_starts_from_a_state_the_seat_cannot_tell_from_its_own():
    rules = Rules()
    game = Game(rules, seed=3)
    rng = np.random.default_rng(0)
    while game.phase == "declare" or len(game.tricks) < 4:
        legal = game.legal_actions()
        game.step(legal[int(rng.integers(len(legal)))])
    seat = game.current_player
    adapter = gs.load()
    real = adapter.new_initial_state()
    for card in gs.deal_actions([list(h) for h in game.deal]):
        real.apply_action(card)
    for a in game.actions:
        real.apply_action(a)
    built = gs.state_from_view(adapter, game.view(seat), rng)
    assert built.information_state_string(seat) == real.information_state_string(seat)
    assert built.information_state_tensor(seat) == real.information_state_tensor(seat)
    assert built.engine.hands != game.hands  # the others' cards were sampled


def test_hidden_exposure_tables_are_refused_with_the_reason():
    rules = Rules(hidden_exposure=True)
    agent = make_agent("ismcts:sims=4", seed=0)
    game = Game(rules, seed=2)
    while game.phase == "declare":
        game.step(game.legal_actions()[0])
    with pytest.raises(AgentError, match="hidden_exposure"):
        agent.reset(0, rules)
    with pytest.raises(AgentError, match="hidden_exposure"):
        while not game.is_over():
            game.step(agent.act(game.view(game.current_player)))


def test_the_arena_plays_it_by_its_spec_with_the_same_numbers_for_a_seed():
    from training.arena import against

    first = against("ismcts:sims=4", ["random"], 2, seed=3, workers=1)
    again = against("ismcts:sims=4", ["random"], 2, seed=3, workers=1)
    assert first[0].candidate == "ismcts:sims=4" and len(first[0].diffs) == 2
    assert first[0].hands_played == 8  # two deals, the candidate in each of four seats
    assert list(first[0].diffs) == list(again[0].diffs)
