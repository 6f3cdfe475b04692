"""The learning side of Deep Monte-Carlo: network, optimiser, replay buffer, snapshot pool.

``DMCTrainer`` plays its tables in this process (``num_actors=0``: one simulator, deterministic
for a seed) or takes chunks of labelled decisions from actors (``actors``), and takes one Adam
step on a uniform minibatch (``loss.q_loss``) every ``batch_size / sample_reuse`` new samples,
so that each sample is used about ``sample_reuse`` times. Every ``snapshot_interval_s`` (driven
by ``train.train_dmc``) a frozen copy of the network joins the opponent pool.

The network, the optimiser and the gradient steps run on ``cfg.device`` (a CUDA GPU where
asked for and present); everything that plays runs on the CPU: the actors and the in-process
simulator score a few dozen rows a call, too few for a GPU to pay back the transfers, and the
simulators read numpy arrays. So what leaves the learner is a CPU copy: the actors' weights,
the snapshots, the checkpoints and, with a CUDA learner and ``num_actors=0``, the acting
network of the in-process simulator, refreshed every ``sync_interval_s`` like an actor's.
On the CPU the learner's network is the acting network itself, as it always was.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.devices import cpu_state_dict
from agents.policy import QNetwork
from gongzhu_env.rules import Rules
from training.config import ConfigError, DMCConfig
from training.dmc.acting import epsilon_at
from training.dmc.actors import ActorPool, Chunk, LocalActors
from training.dmc.loss import q_loss
from training.dmc.networks import fresh_network, frozen_network, network_input
from training.dmc.precision import q_values, resolve_precision
from training.dmc.replay import ReplayBuffer
from training.dmc.simulator import Simulator, make_simulator
from training.run import seed_everything


def _label_buffer(cfg: DMCConfig, rules: Rules, width: int) -> ReplayBuffer | None:
    """Load ``cfg.search_labels`` into a buffer to sample from (None without labels)."""
    if not cfg.search_labels:
        return None
    from training.label_sets import LabelError, load_label_sets

    try:
        obs, tgt = load_label_sets(cfg.search_labels, rules, width)
    except LabelError as e:
        raise ConfigError(f"search_labels: {e}") from None
    buf = ReplayBuffer(len(obs), np.random.default_rng(cfg.seed + 2), width, rules.num_actions)
    buf.add(obs, tgt)
    return buf



class DMCTrainer:
    """The learning side: network, optimiser, replay buffer, snapshot pool, counters.

    ``cfg.num_actors == 0`` plays the tables in this process (deterministic for a seed: the
    tests and the tiny preset use it). ``num_actors >= 1`` starts that many actor processes
    that play with a copy of the network refreshed every ``sync_interval_s`` and send their
    samples back through a bounded queue, while this process only learns; this uses both
    cores, at the price of bit-for-bit reproducibility (the interleaving of processes is not
    deterministic, although every generator is seeded).

    ``actor_pool`` says where the actors run: called with the config, it starts them and
    returns their ``actors.ActorPool``. The default is ``actors.LocalActors`` (processes on
    this machine); ``ray_actors.RayActors`` places them on a Ray cluster. Everything else is
    the same.
    """

    def __init__(self, cfg: DMCConfig,
                 actor_pool: Callable[[DMCConfig], ActorPool] | None = None) -> None:
        cfg.validate()
        self.cfg = cfg
        self._actor_pool = actor_pool or LocalActors
        self._actors: ActorPool | None = None
        """The running actors, if any."""
        self.rules = cfg.game_rules
        seed_everything(cfg.seed)
        torch.set_num_threads(cfg.torch_threads)
        self.device = cfg.torch_device()
        """Where the network, the optimiser and the gradient steps run (``cfg.device``)."""
        self.net = fresh_network(cfg)
        if cfg.init_policy:
            self._load_init_policy(cfg.init_policy)
        self.net.to(self.device)
        self.dtype = resolve_precision(cfg.precision, self.device.type)
        """Format of the learner's products (``DMCConfig.precision``)."""
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.lr)
        self.replay = ReplayBuffer(cfg.replay_size, np.random.default_rng(cfg.seed + 1),
                                   self.net.obs_size, self.net.num_actions)
        self.labels = _label_buffer(cfg, self.rules, self.net.obs_size)
        """The expert-iteration labels (``cfg.search_labels``), or None."""
        self.snapshots: list[QNetwork] = []
        self.decisions = 0
        self.forced = 0
        self.games = 0
        self.train_steps = 0
        self.samples = 0
        """Samples added to the replay buffer (what the learner consumes)."""
        self.elapsed_s = 0.0
        self.seconds_learning = 0.0
        """Wall-clock seconds of gradient steps in this process (for the benchmarks)."""
        self._since_train = 0.0
        self._loss_sum = 0.0
        self._loss_n = 0
        self._ret_sum = 0.0
        self._ret_n = 0
        self.sim: Simulator | None = None
        self.acting_net: QNetwork | None = None
        """The in-process simulator's CPU copy of the network when the learner's is not on the
        CPU (refreshed every ``sync_interval_s``); ``None`` when the simulator plays with
        ``net`` itself or actors play."""
        if cfg.num_actors == 0:
            acting = self.net
            if self.device.type != "cpu":
                acting = self.acting_net = fresh_network(cfg).eval()
                self.acting_net.load_state_dict(cpu_state_dict(self.net))
            self.sim = make_simulator(cfg, acting, cfg.seed, self._add)
        self._last_sync = 0.0

    def _load_init_policy(self, spec: str) -> None:
        """Start from a trained policy's weights (checked for rules and shape)."""
        from agents.policy import PolicyLoadError, load_policy_file

        net, data = load_policy_file(spec, self.rules)
        want = self.net.architecture()
        if data.get("kind", "q") != "q" or net.architecture() != want:
            raise PolicyLoadError(f"init_policy {spec!r}: a {data.get('kind')!r} network "
                                  f"{net.architecture()}; this run needs a 'q' network {want}")
        self.net.load_state_dict(net.state_dict())

    def _add(self, obs: np.ndarray, tgt: np.ndarray) -> None:
        self.replay.add(obs, tgt)
        self._since_train += len(tgt)
        self.samples += len(tgt)

    @property
    def progress(self) -> float:
        """Fraction of the time budget spent (drives the learning-rate and rollout schedules)."""
        return min(1.0, self.elapsed_s / self.cfg.time_budget_s)

    # ---------------------------------------------------------------- actors
    def start_actors(self) -> None:
        """Start the actors (no-op with ``num_actors == 0`` or if they are running).

        Returns once their first chunk is in: starting processes (importing torch in each)
        is not billed as training time.
        """
        if self.cfg.num_actors == 0 or self._actors is not None:
            return
        self._actors = self._actor_pool(self.cfg)
        self._broadcast_snapshots()
        self._sync(force=True)
        for chunk in self._actors.first():
            self._take(chunk)

    def stop_actors(self) -> None:
        """Stop the actors (local processes or Ray actors)."""
        if self._actors is not None:
            self._actors.close()
            self._actors = None

    def _sync(self, force: bool = False) -> None:
        """Send the actors (or the CPU acting network) the weights, every ``sync_interval_s``."""
        now = time.perf_counter()
        if (self._actors is None and self.acting_net is None) or (
                not force and now - self._last_sync < self.cfg.sync_interval_s):
            return
        self._last_sync = now
        sd = cpu_state_dict(self.net)
        if self.acting_net is not None:
            self.acting_net.load_state_dict(sd)
        if self._actors is not None:
            self._actors.set_weights(sd, self.decisions, self.progress)

    def cpu_network(self) -> QNetwork:
        """Return the network on the CPU: ``net`` itself there, else a copy of its weights now.

        What plays outside the learner (the evaluations, a returned policy) runs on the CPU.
        """
        if self.device.type == "cpu":
            return self.net
        net = fresh_network(self.cfg)
        net.load_state_dict(cpu_state_dict(self.net))
        return net.eval()

    def _broadcast_snapshots(self) -> None:
        if self.sim is not None:
            self.sim.set_snapshots(self.snapshots)
        elif self._actors is not None:
            self._actors.set_snapshots([s.state_dict() for s in self.snapshots])

    def _drain(self, block: bool) -> None:
        """Move the actors' finished chunks into the replay buffer."""
        assert self._actors is not None, "start_actors() first"
        for chunk in self._actors.get(timeout=0.2 if block else 0.0):
            self._take(chunk)

    def _take(self, chunk: Chunk) -> None:
        """Add an actor's chunk: its samples to the buffer, its counters to the run's."""
        obs, tgt, st = chunk
        self._add(obs, tgt)
        self._count(st)

    def _count(self, st: dict[str, Any]) -> None:
        """Add an actor's counters to the run's."""
        self.decisions += st["decisions"]
        self.forced += st["forced"]
        self.games += st["games"]
        self._ret_sum += st["ret_sum"]
        self._ret_n += st["ret_n"]

    # ---------------------------------------------------------------- learning
    def maybe_train(self) -> None:
        """Take the gradient steps the new samples pay for (``sample_reuse`` per sample)."""
        c = self.cfg
        if self.replay.size < c.min_replay:
            return
        per_step = c.batch_size / c.sample_reuse
        t0 = time.perf_counter()
        while self._since_train >= per_step:
            self._since_train -= per_step
            self.train_step()
        self.seconds_learning += time.perf_counter() - t0

    def minibatch(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Draw a training batch: self-play decisions and, with expert iteration, labels.

        ``search_label_share`` of the rows come from the search labels (``self.labels``), the
        rest from the replay buffer. CPU tensors: uint8 observations (``train_step`` converts
        them on the learner's device) and float32 targets.
        """
        c = self.cfg
        k = round(c.batch_size * c.search_label_share) if self.labels is not None else 0
        obs, tgt = self.replay.sample(c.batch_size - k)
        if k == 0:
            return obs, tgt
        lo, lt = self.labels.sample(k)  # type: ignore[union-attr]
        return torch.cat([obs, lo]), torch.cat([tgt, lt])

    def train_step(self) -> float:
        """One Adam step on a uniform minibatch of decisions (``q_loss``)."""
        obs, tgt = self.minibatch()
        if self.device.type != "cpu":  # the bytes cross, not floats four times their size
            obs, tgt = _to_device(obs, self.device), _to_device(tgt, self.device)
        q = q_values(self.net, network_input(obs), self.dtype, self.device.type)
        loss = q_loss(q, tgt, self.cfg.rollout_level_weight)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(self.net.parameters(), self.cfg.max_grad_norm)
        self.opt.step()
        self.train_steps += 1
        value = float(loss.item())
        self._loss_sum += value
        self._loss_n += 1
        return value

    @property
    def epsilon(self) -> float:
        """Exploration rate the learner seats use now."""
        return epsilon_at(self.cfg, self.decisions)

    def add_snapshot(self) -> None:
        """Freeze a copy of the current network into the opponent pool (oldest drops out)."""
        self.snapshots.append(frozen_network(cpu_state_dict(self.net), self.cfg))
        del self.snapshots[:-self.cfg.snapshot_pool_size]
        self._broadcast_snapshots()

    def pop_stats(self) -> dict[str, float]:
        """Mean loss and mean learner-seat result since the last call."""
        if self.sim is not None:
            self._ret_sum += self.sim.ret_sum
            self._ret_n += self.sim.ret_n
            self.sim.ret_sum, self.sim.ret_n = 0.0, 0
        out = {
            "loss": self._loss_sum / self._loss_n if self._loss_n else math.nan,
            "mean_return": self._ret_sum / self._ret_n if self._ret_n else math.nan,
        }
        self._loss_sum = self._ret_sum = 0.0
        self._loss_n = self._ret_n = 0
        return out

    # ---------------------------------------------------------------- state
    def state_dict(self) -> dict[str, Any]:
        """Everything a resumed run needs (the replay buffer refills and is not saved)."""
        on_cpu = self.device.type == "cpu"
        out: dict[str, Any] = {
            "net": self.net.state_dict() if on_cpu else cpu_state_dict(self.net),
            "opt": self.opt.state_dict() if on_cpu else _to_cpu(self.opt.state_dict()),
            "snapshots": [s.state_dict() for s in self.snapshots],
            "counters": {"decisions": self.decisions, "forced": self.forced,
                         "games": self.games, "train_steps": self.train_steps,
                         "samples": self.samples, "elapsed_s": self.elapsed_s},
            "torch_rng": torch.get_rng_state(),
            "replay_rng": _rng_state(self.replay.rng),
        }
        if self.sim is not None:
            out["rng"] = _rng_state(self.sim.rng)
        return out

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore from ``state_dict()`` output."""
        self.net.load_state_dict(state["net"])
        self.opt.load_state_dict(state["opt"])
        self.snapshots = [frozen_network(sd, self.cfg) for sd in state["snapshots"]]
        c = state["counters"]
        self.decisions = int(c["decisions"])
        self.forced = int(c["forced"])
        self.games = int(c["games"])
        self.train_steps = int(c["train_steps"])
        self.samples = int(c.get("samples", 0))
        self.elapsed_s = float(c["elapsed_s"])
        torch.set_rng_state(state["torch_rng"])
        _set_rng_state(self.replay.rng, state["replay_rng"])
        if self.sim is not None:
            if "rng" in state:
                _set_rng_state(self.sim.rng, state["rng"])
            self.sim.global_decisions = self.decisions
            self.sim.set_snapshots(self.snapshots)
            self.sim.reset_tables()
            self._sync(force=True)
        else:
            self._broadcast_snapshots()
            self._sync(force=True)

    def run_for(self, seconds: float, should_stop: Callable[[], bool] | None = None) -> None:
        """Act and learn for ``seconds`` of wall clock (added to ``elapsed_s``).

        Starting the actor processes (importing torch in each) is not counted.
        """
        sim = self.sim
        if sim is None:
            self.start_actors()
        start = time.perf_counter()
        end = start + seconds
        c = self.cfg
        frac = self.progress
        for group in self.opt.param_groups:
            group["lr"] = c.lr * (1.0 - frac * (1.0 - c.lr_final_fraction))
        if sim is not None:
            sim.progress = frac
        while time.perf_counter() < end:
            if sim is not None:
                before = sim.decisions, sim.forced, sim.games
                sim.step_tables()
                self.decisions += sim.decisions - before[0]
                self.forced += sim.forced - before[1]
                self.games += sim.games - before[2]
                sim.global_decisions = self.decisions
                if self.acting_net is not None:
                    self._sync()
            else:
                self._drain(block=self._since_train < self.cfg.batch_size / self.cfg.sample_reuse)
                self._sync()
            self.maybe_train()
            if should_stop is not None and should_stop():
                break
        self.elapsed_s += time.perf_counter() - start


def _to_device(t: torch.Tensor, device: torch.device) -> torch.Tensor:
    """Move a CPU minibatch tensor to ``device``: through pinned memory, without waiting.

    Pinned (page-locked) memory lets the copy run as DMA while the GPU works on what it was
    given before, so the host need not wait for it.
    """
    return t.pin_memory().to(device, non_blocking=True)


def _to_cpu(value: Any) -> Any:
    """Return ``value`` with every tensor in it (nested dicts, lists, tuples) moved to the CPU.

    The optimiser's state lives where the weights do; a checkpoint holds CPU tensors so that
    it loads on any machine (``load_state_dict`` moves them back to the weights' device).
    """
    if isinstance(value, torch.Tensor):
        return value.detach().to("cpu", copy=True)
    if isinstance(value, dict):
        return {k: _to_cpu(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_cpu(v) for v in value)
    return value


def _rng_state(rng: np.random.Generator) -> dict[str, Any]:
    """Return a numpy generator's state as strings (safe for ``torch.load(weights_only=True)``)."""
    st = rng.bit_generator.state
    return {"bit_generator": st["bit_generator"], "state": str(st["state"]["state"]),
            "inc": str(st["state"]["inc"]), "has_uint32": int(st["has_uint32"]),
            "uinteger": int(st["uinteger"])}


def _set_rng_state(rng: np.random.Generator, s: dict[str, Any]) -> None:
    rng.bit_generator.state = {
        "bit_generator": s["bit_generator"],
        "state": {"state": int(s["state"]), "inc": int(s["inc"])},
        "has_uint32": int(s["has_uint32"]), "uinteger": int(s["uinteger"]),
    }
