"""The acting side of Deep Monte-Carlo on the batched engine (``DMCConfig.engine = "batch"``).

``BatchTableSimulator`` does what ``scalar_tables.TableSimulator`` does -- tables in lockstep,
one batched forward pass for the learner seats, one per snapshot in use, each learner seat
learning from its own trajectory and its own result -- but the tables live in one batch of the
batched engine (``gongzhu_env.batch.GameBatch``, one deck or two): the compiled kernels
apply the moves and write every table's observation and mask into one preallocated array.
Python then touches a table only when one of its hands ends (to label the learner seats'
decisions and draw the next hand's seats).

Observations travel as bytes (``DMCConfig.obs_dtype``, ``"uint8"`` by default): the batch
writes each value ``x`` as ``rint(x * 255)``, the rows of the seats to move are copied as bytes
into the seats' trajectories and on to the sink and the replay, and only the network's input is
float (``networks.network_input``, ``byte / 255``). No float32 copy of an observation is made
on the way from the batch to the replay. With ``obs_dtype="float32"`` the batch writes the
encoded floats and the actors round them to the same bytes before anything else reads them,
so both options give the same moves, samples and training numbers for a seed.

Why it is a second simulator and not a faster engine behind the first: the scalar simulator
spends most of its time building a ``PlayerView`` and encoding it for every decision, one
table at a time; here that work is done for all tables at once in compiled code, so the
per-decision Python disappears and what is left is the network (measured in
``benchmarks/bench_train.py``, which reports the split).

Seats and opponents, per table and per hand, drawn from ``opponent_mix`` as the scalar
simulator does: the learner (``"self"``, and always one seat), a frozen snapshot, ``"random"``
(a uniform legal move, sampled by the engine's compiled sampler for every table at once), or
any other agent spec (``"greedy"``, ``"expert"``, ...). Rule agents need a ``PlayerView``,
which only the reference engine makes: a table with such a seat keeps a *shadow*
``gongzhu_env.engine.Game`` of the same deal (``Game.from_hands`` of ``GameBatch.deal_of``)
that follows every move, and the agent acts on the shadow's view. The differential test of the
batched engine is what makes the shadow and the batch the same game.

What it does not cover (refused by ``DMCConfig.validate`` with the reason): rule sets the
batched engine does not cover (``gongzhu_env.batch.check_covered``), match episodes, mixed
rules, rollout labels.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import torch
from torch import nn

from agents.base import Agent
from agents.policy import QNetwork
from gongzhu_env.batch import GameBatch
from gongzhu_env.batch.base import in_obs_dtype
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from training.config import DMCConfig
from training.dmc.acting import ActingSide
from training.dmc.networks import network_input
from training.dmc.targets import action_targets, clip_target, clip_targets, lambda_returns

_LEARNER, _SNAPSHOT, _RANDOM, _AGENT = 0, 1, 2, 3


def max_decisions(rules: Rules) -> int:
    """Room for one seat's decisions in a hand: its plays and its declaration moves.

    A seat plays at most its hand (a pair lead is one action for two cards, a pair follow two
    actions for two cards) and declares at most every exposable copy and DONE: 18 at a
    standard table, 22 at three seats, 35 at two decks. Overflowing it is a bug and raises.
    """
    return rules.hand_size + 4 * rules.decks + 1


class BatchTableSimulator(ActingSide):
    """Tables of a ``GameBatch`` played by the learner, snapshots and other agents.

    The interface is ``TableSimulator``'s (``step_tables``, ``set_snapshots``,
    ``reset_tables`` and the counters), so ``DMCTrainer`` and the actor processes drive
    either one. ``seconds_env`` and ``seconds_inference`` add up where the time goes (the
    engine and the bookkeeping, against the forward passes).
    """

    def __init__(self, cfg: DMCConfig, net: QNetwork, seed: int,
                 sink: Callable[[np.ndarray, np.ndarray], None]) -> None:
        super().__init__(cfg, net, seed, sink)
        n = cfg.num_tables
        seats = self.rules.players  # 3 to 8: every size the batched engine covers
        self.batch = GameBatch(n, self.rules, reward_mode=cfg.reward_mode,
                               reward_scale=cfg.reward_scale, obs_dtype=np.dtype(cfg.obs_dtype))
        self._compact = self.batch.obs_dtype == np.uint8
        """Whether the batch writes the bytes itself (else the float rows are rounded here)."""
        self._max_decisions = max_decisions(self.rules)
        self._actions = np.empty(n, dtype=np.int64)
        self._uniforms = np.empty(n, dtype=np.float64)
        self._rows = np.arange(n)
        self.kinds = np.zeros((n, seats), dtype=np.int64)
        """Per table and seat: learner, snapshot, random or agent (this hand)."""
        self.refs = np.zeros((n, seats), dtype=np.int64)
        """Per table and seat: the snapshot index of a snapshot seat."""
        self._agents: list[list[Agent | None]] = [[None] * seats for _ in range(n)]
        self._shadows: list[Game | None] = [None] * n
        obs_len = self.batch.obs_size
        self._traj_obs = np.zeros((n, seats, self._max_decisions, obs_len), dtype=np.uint8)
        self._traj_act = np.zeros((n, seats, self._max_decisions), dtype=np.int64)
        self._traj_val = np.zeros((n, seats, self._max_decisions), dtype=np.float64)
        self._traj_len = np.zeros((n, seats), dtype=np.int64)
        self._deal_seed = 0
        self.reset_tables()

    # ---------------------------------------------------------------- tables
    def reset_tables(self) -> None:
        """Deal new hands at every table from a fresh deal stream, and draw every seat."""
        self._deal_seed = int(self.rng.integers(2**63))
        self.batch.reset(self._deal_seed)
        self._traj_len[:] = 0
        for t in range(self.cfg.num_tables):
            self._seat_table(t)

    def _seat_table(self, t: int) -> None:
        """Draw who plays table ``t``'s hand in progress (one learner seat, the rest by mix)."""
        kinds, refs, agents = self.kinds[t], self.refs[t], self._agents[t]
        kinds[:] = _LEARNER
        refs[:] = 0
        agents[:] = [None] * len(agents)
        others = self.draw_seating(self.rules, native=("random",))
        shadow = False
        for seat, (kind, value) in others.items():
            if kind == "snapshot":
                kinds[seat] = _SNAPSHOT
                refs[seat] = value
            elif kind == "random":
                kinds[seat] = _RANDOM
            else:
                kinds[seat] = _AGENT
                agents[seat] = value  # type: ignore[assignment]
                shadow = True
        first = self.batch.first_drawn_of(t) if self.rules.first_drawn_exposure else None
        self._shadows[t] = Game.from_hands(self.batch.deal_of(t), self.rules,
                                           first_drawn=first) if shadow else None

    def set_snapshots(self, snapshots: list[QNetwork]) -> None:
        """Replace the snapshot pool; tables seating a snapshot past its end are re-seated.

        A re-seated table keeps its hand in progress; its learner seats keep their decisions
        (they were the learner's, whoever sits next to them from now on).
        """
        self.snapshots = snapshots
        stale = np.flatnonzero(((self.kinds == _SNAPSHOT) & (self.refs >= len(snapshots)))
                               .any(axis=1))
        for t in stale:
            gone = (self.kinds[t] == _SNAPSHOT) & (self.refs[t] >= len(snapshots))
            self.kinds[t, gone] = _LEARNER
            self.refs[t, gone] = 0

    # ---------------------------------------------------------------- one step of every table
    def step_tables(self) -> None:
        """Choose one action at every table (batched by who acts) and step the batch."""
        t0 = time.perf_counter()
        b = self.batch
        n = self.cfg.num_tables
        acts = self._actions
        # A uniform legal move everywhere first: it is the random seats' move, the forced
        # move of every table with one legal action, and the learner's exploration move.
        self._uniforms[:] = self.rng.random(n)
        b.sample_legal(self._uniforms, out=acts)
        counts = b.action_masks.sum(axis=1)
        kind_now = self.kinds[self._rows, b.current_player]
        choosing = counts > 1
        self.forced += int(n - np.count_nonzero(choosing))
        learner = np.flatnonzero(choosing & (kind_now == _LEARNER))
        snap = np.flatnonzero(choosing & (kind_now == _SNAPSHOT))
        agent_rows = np.flatnonzero(choosing & (kind_now == _AGENT))
        for t in agent_rows:
            seat = int(b.current_player[t])
            shadow = self._shadows[t]
            agent = self._agents[t][seat]
            assert shadow is not None and agent is not None, "agent seats have a shadow game"
            acts[t] = agent.act(shadow.view(seat))
        inference = 0.0
        if len(learner):
            inference += self._act_learner(learner)
        if len(snap):
            refs_now = self.refs[snap, b.current_player[snap]]
            for k in np.unique(refs_now):
                rows = snap[refs_now == k]
                t1 = time.perf_counter()
                acts[rows] = self._greedy(self.snapshots[int(k)], rows)
                inference += time.perf_counter() - t1
        for t in np.flatnonzero([s is not None for s in self._shadows]):
            self._shadows[t].step(int(acts[t]))  # type: ignore[union-attr]
        b.step(acts)
        for t in np.flatnonzero(b.terminated):
            self._finish(int(t))
        self.seconds_inference += inference
        self.seconds_env += time.perf_counter() - t0 - inference

    def _greedy(self, net: nn.Module, rows: np.ndarray) -> np.ndarray:
        """Return the masked argmax of ``net``'s Q at ``rows`` (a frozen snapshot's moves)."""
        return self._q(net, self._bytes(rows), rows).argmax(axis=1)

    def _bytes(self, rows: np.ndarray) -> np.ndarray:
        """Return the observations of ``rows`` as bytes, a new uint8 array (``rint(x * 255)``).

        A compact batch holds them already; a float32 batch's rows are rounded here, once, to
        what a compact batch would hold (``in_obs_dtype``), so the network sees the same input
        with either option.
        """
        obs = self.batch.observations[rows]
        return obs if self._compact else in_obs_dtype(obs, np.dtype(np.uint8))

    def _q(self, net: nn.Module, obs: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Q of the observation bytes ``obs`` of ``rows``, illegal actions at -inf."""
        with torch.inference_mode():
            q = net(network_input(torch.from_numpy(obs))).numpy()
        return np.where(self.batch.action_masks[rows].astype(bool), q, -np.inf)

    def _act_learner(self, rows: np.ndarray) -> float:
        """Choose the learner's moves at ``rows`` (epsilon-greedy) and record them."""
        b = self.batch
        obs = self._bytes(rows)
        t1 = time.perf_counter()
        q = self._q(self.net, obs, rows)
        spent = time.perf_counter() - t1
        best_a = q.argmax(axis=1)
        best = q[np.arange(len(rows)), best_a]
        eps = self.epsilon
        explore = self.rng.random(len(rows)) < eps if eps > 0 else np.zeros(len(rows), bool)
        # Exploring rows keep the uniform legal move already in ``_actions``.
        chosen = np.where(explore, self._actions[rows], best_a)
        self._actions[rows] = chosen
        seats = b.current_player[rows]
        k = self._traj_len[rows, seats]
        if k.size and int(k.max()) >= self._max_decisions:
            raise RuntimeError(f"a seat made more than {self._max_decisions} decisions in one "
                               "hand")
        self._traj_obs[rows, seats, k] = obs
        self._traj_act[rows, seats, k] = chosen
        self._traj_val[rows, seats, k] = best
        self._traj_len[rows, seats] = k + 1
        self.decisions += len(rows)
        self.global_decisions += len(rows)
        return spent

    def _finish(self, t: int) -> None:
        """Table ``t`` ended a hand: label its learner seats' decisions, seat the next hand."""
        c = self.cfg
        b = self.batch
        res = b.rewards[t]  # the hand results under reward_mode, already divided by the scale
        for seat in range(self.rules.players):
            m = int(self._traj_len[t, seat])
            if self.kinds[t, seat] == _LEARNER and m:
                final = clip_target(c, float(res[seat]))
                targets = clip_targets(c, lambda_returns(self._traj_val[t, seat, :m].tolist(),
                                                         final, c.td_lambda))
                self.sink(self._traj_obs[t, seat, :m].copy(),
                          action_targets(self._traj_act[t, seat, :m], targets,
                                         self.num_actions))
                self.samples += m
                self.ret_sum += float(res[seat]) * c.reward_scale
                self.ret_n += 1
        self.games += 1
        self._traj_len[t] = 0
        self._seat_table(t)
