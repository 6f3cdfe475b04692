"""Sampled worlds (``gongzhu_env.worlds.sample_hands``) agree with everything the seat knows."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.knowledge import Situation
from gongzhu_env.cards import mask_of
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
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


@pytest.mark.parametrize("rules", [Rules(), Rules(players=5), Rules(players=3),
                                   Rules(decks=2), Rules.preset("two_decks")],
                         ids=["four", "five", "three", "two_decks_solo", "two_decks"])
def test_a_situation_counts_every_copy_at_every_table(rules):
    # One formula reads both deck counts: the copies of a card unseen by the seat to move are
    # the copies dealt minus those it holds and those played, counted here from the deal and
    # the tricks as lists; from_view and from_game agree on every derived mask.
    rng = np.random.default_rng(3)
    g = Game(rules, rng=rng)
    deck = rules.deck_mask
    while not g.is_over():
        me = g.current_player
        if g.phase == "play":
            a = Situation.from_view(g.view(me))
            b = Situation.from_game(g)
            played = [c for t in g.tricks for c in t.cards] + list(g.trick_cards)
            for c in range(52):
                dealt = rules.decks if deck >> c & 1 else 0
                want = dealt - g.hands[me].count(c) - played.count(c)
                assert a.unseen_count(c) == b.unseen_count(c) == want
                assert a.held(c) == g.hands[me].count(c)
            for name in ("played", "exposed", "exposed2", "unseen", "unseen2", "hand2"):
                assert getattr(a, name) == getattr(b, name), name
            assert a.pair_lead == b.pair_lead == g.pair_lead
        legal = g.legal_actions()
        g.step(legal[int(rng.integers(len(legal)))])
