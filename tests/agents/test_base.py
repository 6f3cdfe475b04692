"""The agent contract over every kind: legal actions in seeded games, seeding and reseed."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from gongzhu_env.engine import Game
from gongzhu_env.rules import PRESETS, Rules
from tests.agents.helpers import RULE_AGENTS, play_hand


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_rule_agents_only_play_legal_actions(preset):
    rules = Rules.preset(preset)
    rng = np.random.default_rng(7)
    games = 0
    for i in range(2000):
        # Mixed tables, so every agent meets every kind of trick (and random exposures).
        specs = [RULE_AGENTS[(i + k) % 3] if k != i % 4 else RULE_AGENTS[i % 3]
                 for k in range(4)]
        agents = [make_agent(s, seed=i * 4 + k) for k, s in enumerate(specs)]
        leader = None if i % 5 else i % 4  # some later-hand-of-a-match free leads
        game = Game(rules, rng=rng, leader=leader)
        play_hand(game, agents)
        games += 1
        # Every card of every deck is played (two decks: 13 to 26 tricks, pairs taking two).
        assert sum(len(t.cards) for t in game.tricks) == 52 * rules.decks
        assert not any(game.hands)
    assert games == 2000


@pytest.mark.parametrize("spec", ["random", "greedy", "expert", "pimc:worlds=3"])
def test_same_seed_same_play(spec):
    def run(seed):
        agents = [make_agent(spec, seed=seed + k) for k in range(4)]
        return play_hand(Game(seed=5), agents)

    assert run(1) == run(1)


# ---------------------------------------------------------------------- reseed
def _policy(temperature: float):
    """A builder of the pretrained policy; sampling (temperature > 0) draws from its rng."""
    pytest.importorskip("torch")
    from agents.policy import load_policy_agent

    return lambda seed: load_policy_agent("pretrained", seed=seed, temperature=temperature)


def _spec(spec: str):
    return lambda seed: make_agent(spec, seed=seed)


def _torch_spec(spec: str):
    """A builder of an agent that needs torch (the network-guided search)."""
    pytest.importorskip("torch")
    return _spec(spec)


RESEED_KINDS = {
    "random": lambda: _spec("random"),
    "greedy": lambda: _spec("greedy"),
    "expert": lambda: _spec("expert"),
    "pimc": lambda: _spec("pimc:worlds=3"),
    "pimc-greedy-rollout": lambda: _spec("pimc:worlds=2,rollout=greedy,objective=raw"),
    "policy": lambda: _policy(0.0),
    "policy-sampling": lambda: _policy(0.7),
    "search": lambda: _torch_spec("search:worlds=2"),
}


def _reseeded_play(build, reseed: bool) -> tuple[list[list[int]], list[list[int]]]:
    """Play two seeded hands with used-then-reseeded agents and with fresh ones of the seeds."""
    used = [build(100 + k) for k in range(4)]
    play_hand(Game(seed=1), used)  # runs their generators on
    if reseed:
        for k, agent in enumerate(used):
            agent.reseed(20 + k)
    fresh = [build(20 + k) for k in range(4)]
    games = (Game(seed=2), Game(seed=3))
    return ([play_hand(g.clone(), used) for g in games],
            [play_hand(g.clone(), fresh) for g in games])


@pytest.mark.parametrize("kind", sorted(RESEED_KINDS))
def test_a_reseeded_agent_plays_like_a_fresh_one_with_that_seed(kind):
    build = RESEED_KINDS[kind]()
    used, fresh = _reseeded_play(build, reseed=True)
    assert used == fresh
    agent = build(5)
    agent.reseed(9)
    assert agent.seed == 9


@pytest.mark.parametrize("kind", ["random", "pimc", "policy-sampling", "search"])
def test_the_reseed_check_would_notice_an_agent_left_unseeded(kind):
    # Guard: without reseed, used agents that draw random numbers play other cards than fresh
    # ones, so the check above tests the re-seeding, not only determinism.
    used, fresh = _reseeded_play(RESEED_KINDS[kind](), reseed=False)
    assert used != fresh
