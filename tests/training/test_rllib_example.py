"""The RLlib example: masked PPO on the PettingZoo env, exported into our policy format.

A short run cannot show strength (docs/distributed.md reports a ten-minute run against
``random``); these tests hold the plumbing: the mask, the shared policy, the export that must
give RLlib's own logits, the checkpoint loader and the arena reading the result.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.policy import load_policy_file
from gongzhu_env import env
from gongzhu_env.rules import Rules
from tests.helpers import random_views
from tests.training.ray_support import RAY_GROUP, require_ray
from training import rllib_example

pytestmark = RAY_GROUP


def _module(hidden=(16,)):
    require_ray()
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from training.rllib_module import MaskedPPOModule

    e = env()
    e.reset(seed=0)
    spec = RLModuleSpec(module_class=MaskedPPOModule,
                        observation_space=e.observation_space("player_0"),
                        action_space=e.action_space("player_0"),
                        model_config={"fcnet_hiddens": list(hidden), "fcnet_activation": "relu",
                                      "head_fcnet_hiddens": [], "vf_share_layers": False})
    return spec.build(), e


def test_the_mask_leaves_only_legal_actions_and_the_export_gives_the_same_logits(tmp_path):
    from ray.rllib.core.columns import Columns

    module, e = _module()
    obs, *_ = e.last()
    batch = {Columns.OBS: {"observation": torch.from_numpy(obs["observation"][None]),
                           "action_mask": torch.from_numpy(obs["action_mask"][None])}}
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS][0]
    probs = torch.softmax(logits, dim=0).detach().numpy()
    legal = np.flatnonzero(obs["action_mask"])
    assert probs[legal].sum() == pytest.approx(1.0) and len(legal) < 53
    values = module.compute_values(batch)
    assert values.shape == (1,)
    # The exported network scores the observation exactly as RLlib's actor does.
    net = rllib_example.actor_network(module, Rules())
    ours = net(torch.from_numpy(obs["observation"][None]))[0]
    assert torch.allclose(ours[legal], logits[legal], atol=1e-5)


def test_a_short_run_trains_exports_and_plays_in_the_arena(tmp_path, capsys):
    ray = require_ray()
    out = tmp_path / "rllib"
    assert rllib_example.main(["--out", str(out), "--iterations", "1", "--batch-size", "256",
                               "--env-runners", "0", "--envs-per-runner", "2",
                               "--hidden", "16", "--eval-deals", "4",
                               "--eval-opponents", "random"]) == 0
    assert not ray.is_initialized()  # the private instance it started is stopped
    printed = capsys.readouterr().out
    assert "| random |" in printed and (out / "arena.md").is_file()
    net, data = load_policy_file(out / "policy.pt")
    assert data["kind"] == "logits" and data["trainer"] == "rllib-ppo"
    assert data["architecture"]["hidden"] == [16]
    agent = make_agent(f"policy:{out / 'policy.pt'}", seed=0)
    for view in random_views(20, 1):
        assert agent.act(view) in view.legal_actions
    # The saved RLlib checkpoint exports to the same policy.
    again = tmp_path / "again.pt"
    rllib_example.export_checkpoint(out / "rllib_checkpoint", again)
    net2, _ = load_policy_file(again)
    for (k, a), (_, b) in zip(net.state_dict().items(), net2.state_dict().items(), strict=True):
        assert torch.equal(a, b), k
    with pytest.raises(FileNotFoundError, match="not an RLlib checkpoint"):
        rllib_example.export_checkpoint(tmp_path, tmp_path / "x.pt")
