"""The learner's number format: bfloat16 products where asked, float32 everything that is kept."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agents.policy import QNetwork
from training.config import ConfigError, load_config, make_config
from training.dmc import DMCTrainer, precision, q_values, resolve_precision


def test_named_formats_resolve_to_their_dtype_and_auto_asks_the_cpu(monkeypatch):
    assert resolve_precision("float32") == torch.float32
    assert resolve_precision("bfloat16") == torch.bfloat16
    monkeypatch.setattr(precision, "native_bfloat16", lambda device_type="cpu": True)
    assert resolve_precision("auto") == torch.bfloat16
    monkeypatch.setattr(precision, "native_bfloat16", lambda device_type="cpu": False)
    assert resolve_precision("auto") == torch.float32
    with pytest.raises(ValueError, match="precision: must be one of"):
        resolve_precision("float16")


def test_config_refuses_an_unknown_precision_naming_the_field():
    with pytest.raises(ConfigError, match=r"precision: must be one of .*'half'"):
        make_config("tiny", "dmc", precision="half")


def test_a_config_written_before_the_field_existed_keeps_float32(tmp_path):
    path = tmp_path / "config.json"
    data = make_config("tiny", "dmc").to_dict()
    del data["precision"]
    path.write_text(json.dumps(data))
    assert load_config(path).precision == "float32"


def test_bfloat16_scores_are_float32_close_to_the_exact_ones_and_carry_gradients():
    torch.manual_seed(0)
    net = QNetwork(hidden=(64, 32), card_features=True)
    obs = (torch.rand(256, net.obs_size) < 0.1).float()
    exact = q_values(net, obs, torch.float32)
    fast = q_values(net, obs, torch.bfloat16)
    assert fast.dtype == torch.float32 and fast.shape == exact.shape
    # Products with 8-bit mantissas: close, but not the same numbers.
    scale = exact.abs().max().item()
    assert torch.allclose(fast, exact, atol=0.05 * scale)
    assert not torch.equal(fast, exact)
    fast.sum().backward()
    first = net.net[0].weight
    assert first.grad is not None and first.grad.dtype == torch.float32
    assert torch.isfinite(first.grad).all() and first.grad.abs().sum() > 0


def _trained_weights(precision_name: str) -> dict[str, torch.Tensor]:
    cfg = make_config("tiny", "dmc", precision=precision_name, seed=5, card_features=True)
    trainer = DMCTrainer(cfg)
    trainer.run_for(600.0, should_stop=lambda: trainer.train_steps >= 3)
    assert np.isfinite(trainer.pop_stats()["loss"])
    return {k: v.clone() for k, v in trainer.net.state_dict().items()}


def test_a_bfloat16_run_keeps_float32_weights_and_repeats_for_a_seed():
    """Only the products change format: weights (and so policy files) stay float32, and a
    seeded single-process run gives the same weights twice."""
    a = _trained_weights("bfloat16")
    b = _trained_weights("bfloat16")
    assert all(v.dtype == torch.float32 for v in a.values())
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
