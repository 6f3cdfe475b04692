"""The per-card features a network may read agree with a plain reading of the game."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.card_features import FEATURE_NAMES, CardFeatures
from agents.policy import QNetwork, load_policy_file, save_policy
from gongzhu_env.cards import NUM_CARDS
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from tests.agents.helpers import expected_card_features


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
        want = expected_card_features(game, seat)
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
