"""The per-card features a network may read agree with a plain reading of the game."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.card_features import FEATURE_NAMES, CardFeatures
from agents.policy import QNetwork, load_policy_file, save_policy
from gongzhu_env.cards import NUM_CARDS, NUM_RANKS
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules


def _expected(game: Game, seat: int) -> dict[str, np.ndarray]:
    """The features of ``seat``'s view, worked out card by card from the game's public facts."""
    view = game.view(seat)
    hand = view.hand_mask
    played = 0
    for m in view.played_masks:
        played |= m
    trick = list(view.current_trick)
    for c in trick:
        played |= 1 << c
    unseen = ((1 << NUM_CARDS) - 1) & ~hand & ~played
    bit = lambda mask, c: (mask >> c) & 1  # noqa: E731
    out = {name: np.zeros(NUM_CARDS, np.float32) for name in FEATURE_NAMES}
    led_suit = trick[0] // NUM_RANKS if trick else None
    leading = view.phase == "play" and not trick and view.current_player == seat
    for c in range(NUM_CARDS):
        s = c // NUM_RANKS
        same = range(s * NUM_RANKS, (s + 1) * NUM_RANKS)
        hi = [d for d in same if d > c]
        n_hi = sum(bit(unseen, d) for d in hi)
        out["unseen"][c] = bit(unseen, c)
        out["higher_unseen"][c] = n_hi / 12
        out["lower_unseen"][c] = sum(bit(unseen, d) for d in same if d < c) / 12
        out["higher_own"][c] = sum(bit(hand, d) for d in hi) / 12
        out["suit_unseen"][c] = sum(bit(unseen, d) for d in same) / 13
        out["top_unseen"][c] = float(n_hi == 0)
        follows = led_suit == s
        out["follows"][c] = float(follows)
        wins = follows and all(d < c for d in trick if d // NUM_RANKS == s)
        out["wins_now"][c] = float(wins)
        out["wins_surely"][c] = float(wins and (len(trick) == 3 or n_hi == 0))
        out["leads_top"][c] = float(leading and n_hi == 0 and bit(hand, c))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_features_match_a_card_by_card_reading(seed):
    game = Game("standard", seed=seed)
    agents = [make_agent("greedy", seed=seed + i) for i in range(4)]
    feats = CardFeatures()
    checked = 0
    while not game.is_over():
        seat = game.current_player
        view = game.view(seat)
        got = feats(torch.from_numpy(view.encode()).unsqueeze(0))[0].numpy()
        got = got.reshape(len(FEATURE_NAMES), NUM_CARDS)
        want = _expected(game, seat)
        for i, name in enumerate(FEATURE_NAMES):
            np.testing.assert_allclose(got[i], want[name], atol=1e-6, err_msg=name)
        checked += 1
        game.step(agents[seat].act(view))
    assert checked >= 52


def test_a_feature_network_round_trips_and_keeps_its_flag(tmp_path):
    torch.manual_seed(0)
    net = QNetwork(hidden=(16,), card_features=True)
    path = save_policy(tmp_path / "f.pt", net, Rules())
    loaded, data = load_policy_file(path)
    assert data["architecture"]["card_features"] is True and loaded.card_features
    # The constant tables are not weights: a file holds only the MLP's parameters.
    assert set(data["state_dict"]) == set(QNetwork(hidden=(16,)).state_dict())
    x = torch.rand(5, net.obs_size)
    torch.testing.assert_close(loaded(x), net(x))
    plain = QNetwork(hidden=(16,))
    assert not load_policy_file(save_policy(tmp_path / "p.pt", plain, Rules()))[0].card_features
