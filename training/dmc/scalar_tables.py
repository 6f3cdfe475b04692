"""The acting side of Deep Monte-Carlo on the reference engine (``DMCConfig.engine = "scalar"``).

``TableSimulator`` plays ``num_tables`` games of ``gongzhu_env.engine.Game`` in lockstep, one
``PlayerView`` per decision: every rule set, match episodes, mixed rules and rollout labels,
which the batched engine (``batch_tables``) does not cover. At each step every table's seat to
move is the learner (epsilon-greedy on Q), a frozen snapshot (greedy on its Q) or a rule agent;
all learner seats of all tables are scored by one batched forward pass, each snapshot in use by
one more. Forced moves (a single legal action) are played without the network and give no
sample. Each learner seat learns from its own trajectory and its own result.

Rollout labels (``rollout_share``): a share of the learner's decisions is labelled by playing
every distinct legal card on a copy of the real table and finishing the hand with a rule policy
at every seat; each card gets its own outcome as target. The copy keeps the real hidden cards,
so over many samples the network learns the expectation given what the seat saw: Q(s, a) of
"play a, then continue like the rule policy", a one-step improvement on the rule policy.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.knowledge import Situation
from agents.pimc import ROLLOUTS, card_runs, rollout
from agents.policy import QNetwork
from gongzhu_env.engine import Game
from gongzhu_env.match import Match
from gongzhu_env.players import play_turn
from gongzhu_env.scoring import hand_results
from gongzhu_env.view import PlayerView, obs_size
from training.config import DMCConfig
from training.dmc.acting import ActingSide
from training.dmc.networks import mixed_input
from training.dmc.targets import action_targets, clip_target, clip_targets, lambda_returns

_LEARNER, _SNAPSHOT, _AGENT = 0, 1, 2


@dataclass
class _Table:
    """One game in progress and who sits where."""

    game: Game
    """The hand in play (with match episodes, the match's current hand)."""
    match: Match | None
    """With match episodes, the match the hand belongs to; else ``None``."""
    kinds: list[int]
    """Per seat: learner, snapshot or agent."""
    refs: list[Any]
    """Per seat: None (learner), a snapshot index, or an ``Agent``."""
    traj_obs: list[list[np.ndarray]]
    traj_act: list[list[int]]
    traj_val: list[list[float]]
    """Per seat: max legal Q of the acting network at each of its decisions."""
    traj_rew: list[list[float]]
    """Per seat (match episodes): the scaled hand results that arrived after each of its
    decisions before its next one; all zero within a hand."""

    def view(self, seat: int) -> PlayerView:
        """``seat``'s view of the hand, with the match blocks in a match."""
        return self.game.view(seat) if self.match is None else self.match.view(seat)

    def is_over(self) -> bool:
        """Whether the episode (the hand, or the whole match) is over."""
        return self.game.is_over() if self.match is None else self.match.is_over()



class TableSimulator(ActingSide):
    """The acting side: tables in lockstep, the acting network and the snapshot pool.

    Labelled decisions go to ``sink(obs, targets)`` (uint8 observation rows, float32 rows of
    per-action targets, NaN where an action has none): a seat's trajectory when its episode
    (a hand, or a whole match with ``cfg.episode == "match"``) ends, a rollout-labelled
    decision at once.

    In single-process mode the trainer's own network is shared with it; in an actor process it
    holds a copy refreshed from the learner.
    """

    def __init__(self, cfg: DMCConfig, net: QNetwork, seed: int,
                 sink: Callable[[np.ndarray, np.ndarray], None]) -> None:
        super().__init__(cfg, net, seed, sink)
        self.mixed = mixed_input(cfg)
        self.match = cfg.episode == "match"
        self._rollout_policy = ROLLOUTS[cfg.rollout_policy]
        self.tables = [self._new_table() for _ in range(cfg.num_tables)]
        width = self.mixed.width if self.mixed is not None else \
            obs_size(self.rules, self.match)
        self._obs = np.empty((cfg.num_tables, width), dtype=np.float32)
        self._mask = np.zeros((cfg.num_tables, self.num_actions), dtype=bool)

    def _new_table(self) -> _Table:
        rules = self.rules
        if self.mixed is not None:
            rules = self.mixed.mix[int(self.rng.integers(len(self.mixed.mix)))]
        match = Match(rules, rng=self.rng, max_hands=self.cfg.max_hands) \
            if self.match else None
        game = match.game if match is not None else Game(rules, rng=self.rng)
        n = rules.players
        kinds = [_LEARNER] * n
        refs: list[Any] = [None] * n
        others = self.draw_seating(rules)
        for seat, (kind, value) in others.items():
            kinds[seat] = _SNAPSHOT if kind == "snapshot" else _AGENT
            refs[seat] = value
        return _Table(game, match, kinds, refs, [[] for _ in range(n)], [[] for _ in range(n)],
                      [[] for _ in range(n)], [[] for _ in range(n)])

    def reset_tables(self) -> None:
        """Abandon the games in progress and deal new ones (after the snapshot pool changed)."""
        self.tables = [self._new_table() for _ in range(self.cfg.num_tables)]

    def set_snapshots(self, snapshots: list[QNetwork]) -> None:
        """Replace the snapshot pool; tables pointing past its end are re-dealt."""
        self.snapshots = snapshots
        n = len(snapshots)
        for i, t in enumerate(self.tables):
            if any(k == _SNAPSHOT and r >= n for k, r in zip(t.kinds, t.refs, strict=True)):
                self.tables[i] = self._new_table()

    @property
    def rollout_share(self) -> float:
        """Current share of learner decisions labelled by rollouts (see the config)."""
        c = self.cfg
        if c.rollout_share_final is None:
            return c.rollout_share
        return c.rollout_share + self.progress * (c.rollout_share_final - c.rollout_share)

    def _label(self, target: float) -> float:
        return clip_target(self.cfg, target / self.cfg.reward_scale)

    def _rollout_samples(self, g: Game, obs: np.ndarray) -> None:
        """Label every legal card of the seat to move by a rollout; send the sample.

        The copy keeps the real hidden cards: the outcomes are samples of the true
        distribution given the seat's observation, which is what the network averages over.
        """
        seat = g.current_player
        situation = Situation.from_game(g)
        mode = self.cfg.reward_mode
        targets = np.full((1, self.num_actions), np.nan, dtype=np.float32)
        for run in card_runs(g.legal_actions(), situation.unseen):
            # Equivalent cards lead to the same outcome: one rollout labels the whole run, so
            # no legal card is left without a target (the greedy policy ranks them all).
            c = g.clone()
            c.step(run[-1])
            sc = rollout(c, self._rollout_policy)
            targets[0, run] = self._label(hand_results(sc, mode, c.teams)[seat])
        self.sink(obs[None, :], targets)
        self.samples += 1

    def _finish(self, t: _Table) -> None:
        """Label every learner seat's samples with its own result and hand them on.

        A hand: each decision's target is the lambda-return towards the seat's hand result.
        A match: the hand results already arrived, hand by hand, in ``traj_rew``; the target
        is the lambda-return of everything the seat scores from that decision to the end of
        the match, which is what the env's ``episode="match"`` rewards add up to.
        """
        c = self.cfg
        n = len(t.kinds)
        res: list[float] = [0.0] * n
        if t.match is None:
            res = hand_results(t.game.scores(), c.reward_mode, t.game.teams)
            self._count_results(t, res)
        for seat in range(n):
            if t.kinds[seat] != _LEARNER or not t.traj_act[seat]:
                continue
            if t.match is None:
                targets = lambda_returns(t.traj_val[seat], self._label(res[seat]), c.td_lambda)
            else:
                targets = lambda_returns(t.traj_val[seat], 0.0, c.td_lambda,
                                         rewards=t.traj_rew[seat])
            clip_targets(c, targets)
            self.sink(np.stack(t.traj_obs[seat]),
                      action_targets(np.asarray(t.traj_act[seat]), targets, self.num_actions))
            self.samples += len(targets)

    def _count_results(self, t: _Table, res: list[float]) -> None:
        """Count a finished hand and its learner seats' results (for the metrics)."""
        for seat in range(len(t.kinds)):
            if t.kinds[seat] == _LEARNER and t.traj_act[seat]:
                self.ret_sum += res[seat]
                self.ret_n += 1
        self.games += 1

    def _play(self, t: _Table, action: int) -> None:
        """Apply one action to a match table: book a finished hand and deal the next."""
        match = t.match
        assert match is not None, "single-hand tables step their game directly"
        scores = match.step(action)
        if scores is None:
            return
        res = hand_results(scores, self.cfg.reward_mode, t.game.teams)
        self._count_results(t, res)
        for seat in range(len(t.kinds)):
            # The hand's result follows the seat's latest decision (a seat that has not
            # decided anything yet in the match had no say in it).
            if t.kinds[seat] == _LEARNER and t.traj_rew[seat]:
                t.traj_rew[seat][-1] += self._label(res[seat])
        if not match.is_over():
            t.game = match.game
            for seat in range(len(t.kinds)):
                if t.kinds[seat] == _AGENT:
                    t.refs[seat].reset(seat, t.game.rules)

    def step_tables(self) -> None:
        """Advance every table by one action (one batched forward pass for the learner)."""
        t0 = time.perf_counter()
        before = self.seconds_inference
        self._step_tables()
        self.seconds_env += time.perf_counter() - t0 - (self.seconds_inference - before)

    def _step_tables(self) -> None:
        learner_rows: list[int] = []
        snap_rows: dict[int, list[int]] = {}
        obs, mask = self._obs, self._mask
        for i, t in enumerate(self.tables):
            g = t.game
            seat = g.current_player
            legal = g.legal_actions()
            if len(legal) == 1:
                if t.match is None:
                    g.step(legal[0])  # the hot path stays a plain step
                else:
                    self._play(t, legal[0])
                self.forced += 1
                continue
            kind = t.kinds[seat]
            if kind == _AGENT:
                if t.match is None:
                    play_turn(g, t.refs[seat])
                else:
                    self._play(t, t.refs[seat].act(t.view(seat)))
                continue
            if self.mixed is not None:
                self.mixed.write(t.view(seat), obs[i])
            else:
                t.view(seat).encode(out=obs[i])
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
            if t.is_over():
                self._finish(t)
                self.tables[i] = self._new_table()

    def _act_rows(self, rows: list[int], net: nn.Module, eps: float, record: bool) -> None:
        idx = np.asarray(rows)
        t0 = time.perf_counter()
        with torch.inference_mode():
            q = net(torch.from_numpy(self._obs[idx])).numpy()
        self.seconds_inference += time.perf_counter() - t0
        q = np.where(self._mask[idx], q, -np.inf)
        acts = q.argmax(axis=1)
        best = q[np.arange(len(rows)), acts]
        if eps > 0:
            explore = self.rng.random(len(rows)) < eps
            for j in np.flatnonzero(explore):
                legal = np.flatnonzero(self._mask[rows[j]])
                acts[j] = legal[self.rng.integers(len(legal))]
        share = self.rollout_share if record else 0.0
        for j, i in enumerate(rows):
            t = self.tables[i]
            g = t.game
            seat = g.current_player
            a = int(acts[j])
            if record:
                packed = np.rint(self._obs[i] * 255.0).astype(np.uint8)
                if share > 0.0 and g.phase == "play" and self.rng.random() < share:
                    # Labelled here and now; the seat's later lambda-returns skip it (no
                    # reward falls between its neighbours, so their targets stay valid).
                    self._rollout_samples(g, packed)
                else:
                    t.traj_obs[seat].append(packed)
                    t.traj_act[seat].append(a)
                    t.traj_val[seat].append(float(best[j]))
                    t.traj_rew[seat].append(0.0)
                self.decisions += 1
                self.global_decisions += 1
            if t.match is None:
                g.step(a)
            else:
                self._play(t, a)


Simulator = Any
