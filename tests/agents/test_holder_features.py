"""The "who may hold each card" features agree with the game, and are never wrong."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.holder_features import NUM_HOLDER_FEATURES, HolderFeatures
from agents.policy import QNetwork, load_policy_file, save_policy
from gongzhu_env.cards import NUM_CARDS, NUM_RANKS
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules


def _expected(game: Game, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """``may_hold`` and ``holds`` for the three other seats, read card by card from the view."""
    view = game.view(seat)
    seen = view.hand_mask
    for m in view.played_masks:
        seen |= m
    for c in view.current_trick:
        seen |= 1 << c
    may = np.zeros((3, NUM_CARDS), np.float32)
    for r in range(1, 4):
        other = (seat + r) % 4
        for c in range(NUM_CARDS):
            if seen >> c & 1 or c // NUM_RANKS in view.voids[other]:
                continue
            exposer = [s for s in range(4) if c in view.exposed[s]]
            if exposer and exposer[0] != other:
                continue
            may[r - 1, c] = 1.0
    holds = may * (may.sum(0, keepdims=True) == 1)
    return may, holds


def test_holder_features_match_the_view_and_the_true_holders():
    feats = HolderFeatures()
    checked = known = 0
    for seed, agent in [(0, "greedy"), (1, "expert"), (2, "random"), (3, "expert"),
                        (4, "expert")]:
        game = Game("standard", seed=seed)
        players = [make_agent(agent, seed=seed + i) for i in range(4)]
        while not game.is_over():
            seat = game.current_player
            view = game.view(seat)
            got = feats(torch.from_numpy(view.encode()).unsqueeze(0))[0].numpy()
            assert got.shape == (NUM_HOLDER_FEATURES,)
            may, holds = got.reshape(2, 3, NUM_CARDS)
            want_may, want_holds = _expected(game, seat)
            np.testing.assert_array_equal(may, want_may)
            np.testing.assert_array_equal(holds, want_holds)
            # Sound on the real deal: a card's true holder may always hold it, and a known
            # holder is the true one.
            for r in range(1, 4):
                hand = set(game.hands[(seat + r) % 4])
                for c in range(NUM_CARDS):
                    if c in hand:
                        assert may[r - 1, c] == 1.0
                    elif holds[r - 1, c]:
                        pytest.fail(f"card {c} marked as held by relative seat {r}, who lacks it")
            known += int(holds.sum())
            checked += 1
            game.step(players[seat].act(view))
    assert checked >= 5 * 52 and known > 0  # exposures and late voids make some holders known


def test_a_holder_feature_network_round_trips(tmp_path):
    torch.manual_seed(0)
    net = QNetwork(hidden=(16,), card_features=True, holder_features=True)
    path = save_policy(tmp_path / "h.pt", net, Rules())
    loaded, data = load_policy_file(path)
    assert data["architecture"]["holder_features"] is True and loaded.holder_features
    assert net.net[0].in_features == net.obs_size + 520 + NUM_HOLDER_FEATURES
    x = torch.rand(4, net.obs_size)
    torch.testing.assert_close(loaded(x), net(x))
    # Files without the flag (the shipped policy's era) load as networks without the features.
    arch = {k: v for k, v in net.architecture().items() if k != "holder_features"}
    assert not QNetwork.from_architecture(arch).holder_features
