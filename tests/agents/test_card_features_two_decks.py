"""Per-card features of two-deck observations count copies (agents.card_features)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import torch

from agents.card_features import FEATURE_NAMES, CardFeatures
from agents.policy import QNetwork
from gongzhu_env import Game, Rules
from gongzhu_env.view import obs_size

RULES = Rules.preset("two_decks")


def _positions(n: int, seed: int) -> list[Game]:
    """Games stopped at random points of play (some in the middle of a pair follow)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        g = Game(RULES, rng=rng)
        stop = int(rng.integers(1, 100))
        while not g.is_over() and len(g.actions) < stop:
            legal = g.legal_actions()
            g.step(legal[int(rng.integers(len(legal)))])
        if not g.is_over():
            out.append(g)
    return out


def test_two_deck_features_count_the_copies_still_in_other_hands():
    feats = CardFeatures(two_decks=True)
    col = {name: i for i, name in enumerate(FEATURE_NAMES)}
    for g in _positions(40, 1):
        seat = g.current_player
        x = torch.from_numpy(g.view(seat).encode())[None]
        f = feats(x)[0].reshape(len(FEATURE_NAMES), 52).numpy()
        # The truth from the engine: every copy not ours and not played is in another hand.
        others = Counter(c for s in range(4) if s != seat for c in g.hands[s])
        for c in range(52):
            assert f[col["unseen"], c] == others[c] / 2
            above = sum(others[d] for d in range(c + 1, (c // 13 + 1) * 13))
            assert f[col["higher_unseen"], c] * 24 == np.float32(above)
            assert f[col["top_unseen"], c] == (above == 0)


def test_a_pair_lead_counts_plays_not_cards_for_who_plays_last():
    feats = CardFeatures(two_decks=True)
    col = FEATURE_NAMES.index("wins_surely")
    seen_last = 0
    for g in _positions(300, 2):
        if not g.pair_lead:
            continue
        seat = g.current_player
        x = torch.from_numpy(g.view(seat).encode())[None]
        f = feats(x)[0].reshape(len(FEATURE_NAMES), 52).numpy()
        plays_done = len(g.trick_cards) // 2
        if plays_done == 3:
            seen_last += 1
            # Playing last, a winning card wins surely.
            np.testing.assert_array_equal(f[col], f[FEATURE_NAMES.index("wins_now")])
    assert seen_last > 0


def test_a_two_deck_network_uses_the_copy_counting_features():
    net = QNetwork(obs_size(RULES), RULES.num_actions, (16,), card_features=True)
    assert net.features is not None and net.features.two_decks
    one = QNetwork(obs_size(Rules()), Rules().num_actions, (16,), card_features=True)
    assert one.features is not None and not one.features.two_decks
