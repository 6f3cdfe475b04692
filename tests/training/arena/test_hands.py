"""One hand at an arena table: seeding, and errors that name the hand (training.arena.hands)."""

from __future__ import annotations

import pytest

from agents import Agent, AgentError
from gongzhu_env.rules import Rules
from gongzhu_env.view import PlayerView, obs_size
from tests.training.arena.scripted_agents import Cheater
from training.arena import IllegalAgentActionError, agent_seed, duplicate_match
from training.arena.hands import seat_agent, validate_agents


def test_illegal_action_names_agent_deal_seat_and_action():
    with pytest.raises(IllegalAgentActionError) as info:
        duplicate_match(Cheater(), "random", 3, seed=0)
    msg = str(info.value)
    assert "'cheater'" in msg
    assert "deal 0" in msg and "seat" in msg
    assert "legal actions: [" in msg
    assert isinstance(info.value, AgentError)


class Crasher(Agent):
    """Raises inside act once the play phase starts."""

    name = "crasher"

    def act(self, view: PlayerView) -> int:
        if view.phase == "play":
            raise KeyError("boom")
        return view.legal_actions[-1]


def test_agent_exception_names_the_hand():
    with pytest.raises(AgentError, match=r"'crasher' failed in deal 0 \(play 0\), seat 0.*boom"):
        duplicate_match(Crasher(), "random", 2, seed=0)


class SeedRecorder(Agent):
    """Plays the first legal action and records every seed it is re-seeded with."""

    name = "recorder"
    seen: list[int | None] = []  # class-level: the arena plays deep copies of the instance

    def reseed(self, seed: int | None) -> None:
        super().reseed(seed)
        SeedRecorder.seen.append(seed)

    def act(self, view: PlayerView) -> int:
        return view.legal_actions[0]


def test_an_agent_instance_is_reseeded_for_every_hand_with_its_own_reseed():
    SeedRecorder.seen.clear()
    duplicate_match(SeedRecorder(), "random", 2, seed=5)
    # One hand per play, the candidate in seat ``play``: the seed is that seat's agent_seed.
    assert SeedRecorder.seen == [agent_seed(5, d, play, play) for d in range(2)
                                 for play in range(4)]


def test_specs_are_built_for_the_table_rules(tmp_path):
    from agents.policy import PolicyLoadError, QNetwork, save_policy

    team = Rules.preset("scrofazero")
    path = save_policy(tmp_path / "team.pt", QNetwork(obs_size(team), hidden=(8,)), team)
    spec = f"policy:{path}"
    assert seat_agent(spec, 1, {}, 0, Rules.preset("scrofazero")).rules.team_play
    validate_agents([spec, "random"], Rules.preset("scrofazero"))
    with pytest.raises(PolicyLoadError, match=r"team_play=True \(table: False\)"):
        validate_agents([spec], Rules())
    with pytest.raises(PolicyLoadError, match="team_play"):
        seat_agent(spec, 1, {}, 0, Rules())
