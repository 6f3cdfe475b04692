"""The agent contract over every kind: legal actions in many seeded games, same seed same play."""

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
        assert len(game.tricks) == 13
    assert games == 2000


@pytest.mark.parametrize("spec", ["random", "greedy", "expert", "pimc:worlds=3"])
def test_same_seed_same_play(spec):
    def run(seed):
        agents = [make_agent(spec, seed=seed + k) for k in range(4)]
        return play_hand(Game(seed=5), agents)

    assert run(1) == run(1)

