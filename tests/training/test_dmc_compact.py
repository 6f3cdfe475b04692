"""Deep Monte-Carlo with compact observations (``DMCConfig.obs_dtype``).

The bytes go from the batch to the replay without a float copy on the way, the network reads
``byte / 255`` on the device that computes with it, and a seed gives the same training numbers
with the compact batch as with the float32 one.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agents.policy import QNetwork
from gongzhu_env.view import obs_size
from training.config import ConfigError, DMCConfig, load_config, make_config
from training.dmc import DMCTrainer, ReplayBuffer, batch_tables, learner, network_input


def _tiny(**kw) -> DMCConfig:
    base = {"num_actors": 0, "engine": "batch", "device": "cpu", "final_eval_deals": 0}
    return make_config("tiny", "dmc", **{**base, **kw})  # type: ignore[return-value]


def _train(cfg: DMCConfig, steps: int) -> tuple[DMCTrainer, list[float]]:
    """Train in one process until ``steps`` gradient steps are taken; return every loss.

    The stop is a count, not a time, so the run is the same for a seed whatever the machine
    (one table step may pay for two gradient steps, so the count may overshoot by one).
    """
    trainer = DMCTrainer(cfg)
    losses: list[float] = []
    step = trainer.train_step

    def counted() -> float:
        losses.append(step())
        return losses[-1]

    trainer.train_step = counted  # type: ignore[method-assign]
    trainer.run_for(600.0, should_stop=lambda: trainer.train_steps >= steps)
    assert trainer.train_steps >= steps and len(losses) == trainer.train_steps
    return trainer, losses


# ------------------------------------------------------------------ the same numbers
@pytest.mark.parametrize("rules", ["standard", "two_decks"])
def test_a_seed_gives_the_same_training_numbers_with_compact_and_float32_batches(rules) -> None:
    runs = {}
    for dtype in ("uint8", "float32"):
        cfg = _tiny(rules=rules, obs_dtype=dtype, td_lambda=0.8)
        trainer, losses = _train(cfg, steps=25)
        assert trainer.sim is not None
        assert trainer.sim.batch.observations.dtype == np.dtype(dtype)  # type: ignore[attr-defined]
        runs[dtype] = (trainer, losses)
    (a, la), (b, lb) = runs["uint8"], runs["float32"]
    assert len(la) >= 25 and la == lb  # every loss, to the last bit
    for (name, p), q in zip(a.net.named_parameters(), b.net.parameters(), strict=True):
        assert torch.equal(p, q), name
    assert a.decisions == b.decisions and a.replay.size == b.replay.size
    n = a.replay.size
    assert np.array_equal(a.replay.obs[:n], b.replay.obs[:n])
    assert np.array_equal(a.replay.tgt[:n], b.replay.tgt[:n], equal_nan=True)
    # And the run learnt something: the parameters moved from the seed's initial ones.
    torch.manual_seed(0)
    start = DMCTrainer(_tiny(rules=rules))
    assert any(not torch.equal(p, q) for p, q in zip(a.net.parameters(),
                                                     start.net.parameters(), strict=True))


# ------------------------------------------------------------------ the dtypes on the way
def test_bytes_go_from_the_batch_to_the_replay_with_no_float_copy(monkeypatch) -> None:
    """Compact path: the batch, the seats' trajectories, every sink call and the replay hold
    uint8, and the one place that rounds floats to bytes (``in_obs_dtype``, the float32
    option's) is never called. The network's own input is the only float made, for its
    forward pass."""
    rounded: list[str] = []

    def refuse(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
        rounded.append(str(values.dtype))
        raise AssertionError("a compact batch's observations were rounded from floats")

    monkeypatch.setattr(batch_tables, "in_obs_dtype", refuse)
    cfg = _tiny(obs_dtype="uint8", opponent_mix={"self": 0.5, "snapshot": 0.5})
    trainer = DMCTrainer(cfg)
    sim = trainer.sim
    assert isinstance(sim, batch_tables.BatchTableSimulator)
    assert sim.batch.observations.dtype == np.uint8
    assert sim._traj_obs.dtype == np.uint8
    assert trainer.replay.obs.dtype == np.uint8
    sent: list[np.dtype] = []
    sink = sim.sink

    def spy(obs: np.ndarray, tgt: np.ndarray) -> None:
        sent.append(obs.dtype)
        assert obs.base is None or obs.base.dtype == np.uint8  # not a view of float memory
        sink(obs, tgt)

    sim.sink = spy
    trainer.add_snapshot()  # snapshot seats act too: their forward passes read bytes as well
    trainer.run_for(600.0, should_stop=lambda: trainer.train_steps >= 3)
    assert sent and set(sent) == {np.dtype(np.uint8)}
    assert rounded == []
    assert trainer.replay.obs[:trainer.replay.size].max() == 255


def test_the_float32_option_rounds_once_at_the_actor_and_sends_the_same_bytes(monkeypatch):
    calls: list[tuple[str, str]] = []
    real = batch_tables.in_obs_dtype

    def spy(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
        calls.append((str(values.dtype), str(np.dtype(dtype))))
        return real(values, dtype)

    monkeypatch.setattr(batch_tables, "in_obs_dtype", spy)
    trainer = DMCTrainer(_tiny(obs_dtype="float32"))
    assert trainer.sim.batch.observations.dtype == np.float32  # type: ignore[union-attr]
    trainer.run_for(600.0, should_stop=lambda: trainer.replay.size > 0)
    assert calls and set(calls) == {("float32", "uint8")}
    assert trainer.replay.obs.dtype == np.uint8


def test_the_learner_converts_the_bytes_on_its_own_device(monkeypatch) -> None:
    """``train_step`` hands ``network_input`` the minibatch's bytes where the network is (the
    CPU here; a GPU learner moves the bytes first), and the input is ``byte * (1 / 255)``."""
    seen: list[tuple[torch.dtype, torch.device]] = []
    real = learner.network_input

    def spy(obs: torch.Tensor) -> torch.Tensor:
        seen.append((obs.dtype, obs.device))
        out = real(obs)
        assert out.dtype == torch.float32 and out.device == obs.device
        return out

    monkeypatch.setattr(learner, "network_input", spy)
    trainer, _ = _train(_tiny(), steps=2)
    assert seen == [(torch.uint8, trainer.device)] * trainer.train_steps
    obs, _ = trainer.minibatch()
    assert obs.dtype == torch.uint8


def test_network_input_is_the_replays_old_conversion_and_refuses_floats() -> None:
    every = torch.arange(256, dtype=torch.uint8)
    got = network_input(every)
    assert got.dtype == torch.float32
    assert torch.equal(got, every.float().mul_(1.0 / 255.0))
    assert got[0] == 0.0 and got[255] == 1.0
    with pytest.raises(TypeError, match="takes observation bytes .*got torch.float32"):
        network_input(got)


def test_the_replay_refuses_float_rows_and_counts_its_bytes() -> None:
    buf = ReplayBuffer(8, np.random.default_rng(0), obs_size("standard"), 53)
    with pytest.raises(TypeError, match="uint8 observation rows .*got float32"):
        buf.add(np.zeros((2, 600), np.float32), np.zeros((2, 53), np.float32))
    assert buf.size == 0
    assert buf.bytes_per_sample == 600 + 53 * 4
    buf.add(np.full((3, 600), 7, np.uint8), np.zeros((3, 53), np.float32))
    obs, tgt = buf.sample(4)
    assert obs.dtype == torch.uint8 and tgt.dtype == torch.float32 and (obs == 7).all()
    two = ReplayBuffer(8, np.random.default_rng(0), obs_size("two_decks"), 105)
    assert two.bytes_per_sample == 1153 + 105 * 4


# ------------------------------------------------------------------ the config field
def test_obs_dtype_is_a_checked_field_whose_default_is_compact(tmp_path) -> None:
    assert DMCConfig().obs_dtype == "uint8"
    assert make_config("full", "dmc").obs_dtype == "uint8"
    for bad in ("float64", "int8", 8, None):
        with pytest.raises(ConfigError, match=r"^obs_dtype: must be one of \('uint8', "
                                              r"'float32'\)"):
            make_config("tiny", "dmc", obs_dtype=bad)
    # A run's config.json from before the field existed meant float32 batches.
    old = make_config("tiny", "dmc").to_dict()
    del old["obs_dtype"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(old))
    assert load_config(str(path)).obs_dtype == "float32"


def test_the_scalar_engine_ignores_it_and_still_sends_bytes() -> None:
    sent: list[np.ndarray] = []
    from training.dmc import make_simulator

    cfg = _tiny(engine="scalar", obs_dtype="float32")
    sim = make_simulator(cfg, QNetwork(hidden=(32, 32)), 0, lambda o, t: sent.append(o))
    for _ in range(60):
        sim.step_tables()
    assert sent and all(o.dtype == np.uint8 for o in sent)
