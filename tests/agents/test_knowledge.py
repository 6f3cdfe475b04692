"""Sampled worlds (``gongzhu_env.worlds.sample_hands``) agree with everything the seat knows."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.knowledge import Situation
from gongzhu_env.cards import mask_of
from gongzhu_env.engine import Game
from gongzhu_env.worlds import build_world, sample_hands
from tests.helpers import one_deck_masks


@pytest.mark.parametrize("tries", [0, 4])
def test_sampled_worlds_respect_voids_exposures_and_sizes(tries):
    # tries=0 exercises the exact sampler at every step; random play shows many voids.
    rng = np.random.default_rng(tries)
    for seed in range(25):
        g = Game(seed=seed)
        agents = [make_agent("random", seed=seed * 4 + k) for k in range(4)]
        steps = 0
        while not g.is_over():
            p = g.current_player
            view = g.view(p)
            if g.phase == "play" and (tries == 0 or steps % 3 == 0):
                hands = one_deck_masks(sample_hands(view, rng, tries=tries))
                truth = [mask_of(h) for h in g.hands]
                assert hands[p] == truth[p]
                for s in range(4):
                    assert hands[s].bit_count() == truth[s].bit_count()
                    assert hands[s] & view.played_mask == 0
                    for suit in g.voids[s]:
                        assert not any(c // 13 == suit for c in _cards(hands[s]))
                    exposed_unplayed = mask_of(g.exposed[s]) & truth[s]
                    assert hands[s] & exposed_unplayed == exposed_unplayed
                assert sum(h.bit_count() for h in hands) == sum(len(h) for h in g.hands)
                world = build_world(view, [(h, 0) for h in hands])
                assert world.actions == g.actions and world.legal_mask() == g.legal_mask()
                assert Situation.from_game(world).legal == Situation.from_view(view).legal
            g.step(agents[p].act(view))
            steps += 1


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]
