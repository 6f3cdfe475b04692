"""Deep Monte-Carlo self-play: one Q network shared by every seat, Monte-Carlo targets.

Why this algorithm: a Gong Zhu hand is short (about 30 real decisions per seat), the only
reward is the hand result, and the value of a card depends on what the other three seats do
later. Monte-Carlo targets (the seat's own final result, no bootstrapping) are unbiased for such
short episodes, and a Q network over the 53 actions needs no critic, no advantage estimation and
no on-policy bookkeeping, so samples from many seats and many tables can be pooled freely. It is
the approach DouZero showed to work for card games with large discrete action sets.

How it runs (single process, two cores):

* ``num_tables`` games are stepped in lockstep. At each step every table's seat to move is
  either the learner (epsilon-greedy on Q), a frozen snapshot of it (greedy on its Q) or a rule
  agent. All learner seats of all tables are scored by *one* batched forward pass; each snapshot
  in use gets one more. Forced moves (a single legal action) are played without the network
  and produce no sample.
* Each game, one seat is the learner; each other seat is drawn from ``opponent_mix``
  (``"self"`` makes it a learner seat too). Every learner seat learns from its *own* trajectory:
  each of its (observation, action) pairs is labelled with that seat's final result (zero-sum
  by default, scaled and clipped). Seats never share rewards, which is the mix-up the common
  "one agent acts for every seat" recipe makes.
* Samples go into a ring buffer of the most recent ``replay_size``; one Adam step on a uniform
  minibatch is taken every ``batch_size / sample_reuse`` new samples, so each sample is used
  about ``sample_reuse`` times. Observations are stored as ``uint8`` (x255) to keep the
  buffer small; every observation value is a 0/1 bit except four scores in [0, 1].
* Every ``snapshot_interval_s`` a frozen copy of the network joins the opponent pool.

The trainer is a class with small methods so the tests can drive it for a few seconds;
``training/train.py`` owns the run directory, the evaluations and the command line.
"""

from __future__ import annotations

import copy
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from agents import make_agent
from agents.base import Agent
from agents.policy import QNetwork
from gongzhu_env.cards import NUM_ACTIONS
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import zero_sum
from gongzhu_env.view import OBS_SIZE
from training.config import DMCConfig

_LEARNER, _SNAPSHOT, _AGENT = 0, 1, 2


def seed_everything(seed: int) -> None:
    """Seed everything in one block: Python's ``random``, numpy's global state and torch."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


@dataclass
class _Table:
    """One game in progress and who sits where."""

    game: Game
    kinds: list[int]
    """Per seat: learner, snapshot or agent."""
    refs: list[Any]
    """Per seat: None (learner), a snapshot index, or an ``Agent``."""
    traj_obs: list[list[np.ndarray]]
    traj_act: list[list[int]]


class ReplayBuffer:
    """Ring buffer of the most recent (observation, action, return) samples."""

    def __init__(self, capacity: int, rng: np.random.Generator) -> None:
        self.capacity = capacity
        self.obs = np.zeros((capacity, OBS_SIZE), dtype=np.uint8)
        self.act = np.zeros(capacity, dtype=np.int64)
        self.ret = np.zeros(capacity, dtype=np.float32)
        self.size = 0
        self.pos = 0
        self.rng = rng

    def add(self, obs: np.ndarray, act: np.ndarray, ret: float) -> None:
        """Append one seat's trajectory, all labelled with its return ``ret``."""
        n = len(act)
        idx = (self.pos + np.arange(n)) % self.capacity
        self.obs[idx] = obs
        self.act[idx] = act
        self.ret[idx] = ret
        self.pos = int((self.pos + n) % self.capacity)
        self.size = min(self.capacity, self.size + n)

    def sample(self, batch: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Draw a uniform minibatch as tensors (observations back to floats in [0, 1])."""
        idx = self.rng.integers(self.size, size=batch)
        obs = torch.from_numpy(self.obs[idx]).float().mul_(1.0 / 255.0)
        return obs, torch.from_numpy(self.act[idx]), torch.from_numpy(self.ret[idx])


class DMCTrainer:
    """Owns the network, the optimiser, the tables, the replay buffer and the snapshot pool."""

    def __init__(self, cfg: DMCConfig) -> None:
        cfg.validate()
        self.cfg = cfg
        self.rules = Rules.coerce(cfg.rules)
        seed_everything(cfg.seed)
        torch.set_num_threads(cfg.torch_threads)
        self.rng = np.random.default_rng(cfg.seed)
        self.net = QNetwork(OBS_SIZE, NUM_ACTIONS, cfg.hidden)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.lr)
        self.replay = ReplayBuffer(cfg.replay_size, np.random.default_rng(cfg.seed + 1))
        self.snapshots: list[QNetwork] = []
        mix = {k: float(v) for k, v in cfg.opponent_mix.items() if v > 0}
        self._mix_specs = list(mix)
        w = np.array(list(mix.values()))
        self._mix_p = w / w.sum()
        self.decisions = 0
        self.forced = 0
        self.games = 0
        self.train_steps = 0
        self.elapsed_s = 0.0
        self._since_train = 0.0
        self._loss_sum = 0.0
        self._loss_n = 0
        self._ret_sum = 0.0
        self._ret_n = 0
        self.tables = [self._new_table() for _ in range(cfg.num_tables)]
        self._obs = np.empty((cfg.num_tables, OBS_SIZE), dtype=np.float32)
        self._mask = np.zeros((cfg.num_tables, NUM_ACTIONS), dtype=bool)

    # ---------------------------------------------------------------- tables
    def _agent(self, spec: str) -> Agent:
        """Build a freshly seeded rule agent for ``spec``."""
        return make_agent(spec, seed=int(self.rng.integers(2**31)))

    def _new_table(self) -> _Table:
        game = Game(self.rules, rng=self.rng)
        kinds = [_LEARNER] * 4
        refs: list[Any] = [None] * 4
        me = int(self.rng.integers(4))
        for seat in range(4):
            if seat == me:
                continue
            spec = self._mix_specs[int(self.rng.choice(len(self._mix_specs), p=self._mix_p))]
            if spec == "snapshot" and self.snapshots:
                kinds[seat] = _SNAPSHOT
                refs[seat] = int(self.rng.integers(len(self.snapshots)))
            elif spec not in ("self", "snapshot"):
                agent = self._agent(spec)
                agent.reset(seat, self.rules)
                kinds[seat] = _AGENT
                refs[seat] = agent
        return _Table(game, kinds, refs, [[] for _ in range(4)], [[] for _ in range(4)])

    @property
    def epsilon(self) -> float:
        """Current exploration rate (linear decay over learner decisions)."""
        c = self.cfg
        frac = min(1.0, self.decisions / max(1, c.epsilon_decay_decisions))
        return c.epsilon_start + frac * (c.epsilon_end - c.epsilon_start)

    def _finish(self, t: _Table) -> None:
        """Label every learner seat's samples with its own result and store them."""
        c = self.cfg
        raw = t.game.scores()
        res = zero_sum(raw) if c.reward_mode == "zero_sum" else [float(s) for s in raw]
        for seat in range(4):
            if t.kinds[seat] != _LEARNER or not t.traj_act[seat]:
                continue
            g = max(-c.reward_clip, min(c.reward_clip, res[seat] / c.reward_scale))
            obs = np.stack(t.traj_obs[seat])
            self.replay.add(obs, np.asarray(t.traj_act[seat]), g)
            self._since_train += len(t.traj_act[seat])
            self._ret_sum += res[seat]
            self._ret_n += 1
        self.games += 1

    # ---------------------------------------------------------------- acting
    def step_tables(self) -> None:
        """Advance every table by one action (one batched forward pass for the learner)."""
        learner_rows: list[int] = []
        snap_rows: dict[int, list[int]] = {}
        obs, mask = self._obs, self._mask
        for i, t in enumerate(self.tables):
            g = t.game
            seat = g.current_player
            legal = g.legal_actions()
            if len(legal) == 1:
                g.step(legal[0])
                self.forced += 1
                continue
            kind = t.kinds[seat]
            if kind == _AGENT:
                g.step(t.refs[seat].act(g.view(seat)))
                continue
            g.view(seat).encode(out=obs[i])
            mask[i] = False
            mask[i, legal] = True
            if kind == _LEARNER:
                learner_rows.append(i)
            else:
                snap_rows.setdefault(t.refs[seat], []).append(i)
        if learner_rows:
            self._act_rows(learner_rows, self.net, self.epsilon, record=True)
        for k, rows in snap_rows.items():
            self._act_rows(rows, self.snapshots[k], 0.0, record=False)
        for i, t in enumerate(self.tables):
            if t.game.is_over():
                self._finish(t)
                self.tables[i] = self._new_table()

    def _act_rows(self, rows: list[int], net: nn.Module, eps: float, record: bool) -> None:
        idx = np.asarray(rows)
        with torch.inference_mode():
            q = net(torch.from_numpy(self._obs[idx])).numpy()
        q = np.where(self._mask[idx], q, -np.inf)
        acts = q.argmax(axis=1)
        if eps > 0:
            explore = self.rng.random(len(rows)) < eps
            for j in np.flatnonzero(explore):
                legal = np.flatnonzero(self._mask[rows[j]])
                acts[j] = legal[self.rng.integers(len(legal))]
        for j, i in enumerate(rows):
            t = self.tables[i]
            g = t.game
            seat = g.current_player
            a = int(acts[j])
            if record:
                t.traj_obs[seat].append(np.rint(self._obs[i] * 255.0).astype(np.uint8))
                t.traj_act[seat].append(a)
                self.decisions += 1
            g.step(a)

    # ---------------------------------------------------------------- learning
    def maybe_train(self) -> None:
        """Take the gradient steps the new samples pay for (``sample_reuse`` per sample)."""
        c = self.cfg
        if self.replay.size < c.min_replay:
            return
        per_step = c.batch_size / c.sample_reuse
        while self._since_train >= per_step:
            self._since_train -= per_step
            self.train_step()

    def train_step(self) -> float:
        """One Adam step on a uniform minibatch: MSE between Q(s, a) and the seat's return."""
        obs, act, ret = self.replay.sample(self.cfg.batch_size)
        q = self.net(obs).gather(1, act.unsqueeze(1)).squeeze(1)
        loss = nn.functional.mse_loss(q, ret)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(self.net.parameters(), self.cfg.max_grad_norm)
        self.opt.step()
        self.train_steps += 1
        value = float(loss.item())
        self._loss_sum += value
        self._loss_n += 1
        return value

    def add_snapshot(self) -> None:
        """Freeze a copy of the current network into the opponent pool (oldest drops out)."""
        snap = copy.deepcopy(self.net).eval()
        for p in snap.parameters():
            p.requires_grad_(False)
        self.snapshots.append(snap)
        if len(self.snapshots) > self.cfg.snapshot_pool_size:
            self.snapshots.pop(0)
            # Tables holding an index past the end are re-seated at their next game.
            for t in self.tables:
                for s in range(4):
                    if t.kinds[s] == _SNAPSHOT:
                        t.refs[s] = min(t.refs[s], len(self.snapshots) - 1)

    def pop_stats(self) -> dict[str, float]:
        """Mean loss and mean learner-seat result since the last call."""
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
        return {
            "net": self.net.state_dict(),
            "opt": self.opt.state_dict(),
            "snapshots": [s.state_dict() for s in self.snapshots],
            "counters": {"decisions": self.decisions, "forced": self.forced,
                         "games": self.games, "train_steps": self.train_steps,
                         "elapsed_s": self.elapsed_s},
            "rng": _rng_state(self.rng),
            "torch_rng": torch.get_rng_state(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore from ``state_dict()`` output."""
        self.net.load_state_dict(state["net"])
        self.opt.load_state_dict(state["opt"])
        self.snapshots = []
        for sd in state["snapshots"]:
            snap = QNetwork(OBS_SIZE, NUM_ACTIONS, self.cfg.hidden)
            snap.load_state_dict(sd)
            snap.eval()
            for p in snap.parameters():
                p.requires_grad_(False)
            self.snapshots.append(snap)
        c = state["counters"]
        self.decisions = int(c["decisions"])
        self.forced = int(c["forced"])
        self.games = int(c["games"])
        self.train_steps = int(c["train_steps"])
        self.elapsed_s = float(c["elapsed_s"])
        _set_rng_state(self.rng, state["rng"])
        torch.set_rng_state(state["torch_rng"])
        # Start fresh tables so no table references a snapshot that is not there.
        self.tables = [self._new_table() for _ in range(self.cfg.num_tables)]

    def run_for(self, seconds: float, should_stop: Callable[[], bool] | None = None) -> None:
        """Step and train for ``seconds`` of wall clock (added to ``elapsed_s``)."""
        start = time.perf_counter()
        end = start + seconds
        while time.perf_counter() < end:
            self.step_tables()
            self.maybe_train()
            if should_stop is not None and should_stop():
                break
        self.elapsed_s += time.perf_counter() - start


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


__all__ = ["DMCTrainer", "ReplayBuffer", "seed_everything"]
