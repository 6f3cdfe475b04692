"""Deep Monte-Carlo self-play: one Q network shared by every seat, Monte-Carlo targets.

Why this algorithm: a Gong Zhu hand is short (about 30 real decisions per seat), the only
reward is the hand result, and the value of a card depends on what the other three seats do
later. Monte-Carlo targets (the seat's own final result, no bootstrapping) are unbiased for such
short episodes, and a Q network over the 53 actions needs no critic, no advantage estimation and
no on-policy bookkeeping, so samples from many seats and many tables can be pooled freely. It is
the approach DouZero showed to work for card games with large discrete action sets.

How it runs (``num_actors`` actor processes play, the learner process learns):

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
* Optionally (``rollout_share``), a share of the learner's decisions is labelled by rollouts
  instead: each distinct legal card is played on a copy of the real table and the hand finished
  by a rule policy at every seat, and every card gets its own outcome as its target. The
  hidden cards of the copy are the real ones, so over many samples the network learns the
  expectation given what the seat saw, which is exactly Q(s, a) of "play a, then continue like
  the rule policy" under the true distribution of deals. Its greedy policy is a one-step
  improvement on the rule policy (approximate policy iteration); the self-play returns then
  take over as the share decays.

The trainer is a class with small methods so the tests can drive it for a few seconds;
``training.train_dmc`` runs it through a time budget, and the run directory, seeding and logs are
the shared ones of ``training.run``.
"""

from __future__ import annotations

import math
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
from agents.rule_features import MixedInput
from gongzhu_env.engine import Game
from gongzhu_env.match import Match
from gongzhu_env.players import play_turn
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import hand_results
from gongzhu_env.view import PlayerView, obs_size
from training.acting import ActingSide, actor_seed, clip_target, clip_targets, epsilon_at
from training.config import ConfigError, DMCConfig, config_from_dict
from training.dmc_batch import BatchTableSimulator
from training.precision import q_values, resolve_precision
from training.run import seed_everything
from training.targets import action_targets, lambda_returns

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


class ReplayBuffer:
    """Ring buffer of the most recent decisions: observation and a target per action.

    A self-play decision has one target (the action taken, its return); a rollout-labelled
    decision has one per distinct legal card. Actions without a target hold NaN.
    """

    def __init__(self, capacity: int, rng: np.random.Generator, obs_len: int,
                 num_actions: int) -> None:
        # Both sizes come from the rules (gongzhu_env.view.obs_size, rules.num_actions).
        self.capacity = capacity
        self.obs = np.zeros((capacity, obs_len), dtype=np.uint8)
        self.tgt = np.full((capacity, num_actions), np.nan, dtype=np.float32)
        self.size = 0
        self.pos = 0
        self.rng = rng

    def add(self, obs: np.ndarray, tgt: np.ndarray) -> None:
        """Append decisions (``obs`` uint8 rows, ``tgt`` float32 rows, a target per action)."""
        n = len(tgt)
        idx = (self.pos + np.arange(n)) % self.capacity
        self.obs[idx] = obs
        self.tgt[idx] = tgt
        self.pos = int((self.pos + n) % self.capacity)
        self.size = min(self.capacity, self.size + n)

    def sample(self, batch: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Draw a uniform minibatch as tensors (observations back to floats in [0, 1])."""
        idx = self.rng.integers(self.size, size=batch)
        obs = torch.from_numpy(self.obs[idx]).float().mul_(1.0 / 255.0)
        return obs, torch.from_numpy(self.tgt[idx])


def q_loss(q: torch.Tensor, tgt: torch.Tensor, level_weight: float) -> torch.Tensor:
    """Squared error of Q against the targets, split into a relative and a level part.

    Over a decision's labelled actions L, ``sum (q - y)^2 / |L|`` equals the error of the
    *differences* between actions (each centred on its mean over L) plus the error of the
    *mean*. Rollout outcomes of one decision share the same hidden cards, so their
    differences are nearly noise-free while their common level carries all the luck of the
    deal; ``level_weight`` (applied to decisions with several targets) keeps that luck from
    drowning what tells the cards apart. With one target the loss is the plain squared error.
    """
    mask = ~torch.isnan(tgt)
    y = torch.nan_to_num(tgt)
    m = mask.float()
    n = m.sum(1)
    q_bar = (q * m).sum(1) / n
    y_bar = (y * m).sum(1) / n
    rel = ((((q - q_bar[:, None]) - (y - y_bar[:, None])) ** 2) * m).sum(1) / n
    level = (q_bar - y_bar) ** 2
    w = torch.where(n > 1, torch.full_like(n, level_weight), torch.ones_like(n))
    return (rel + w * level).mean()


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
"""``TableSimulator`` or ``training.dmc_batch.BatchTableSimulator`` (one interface)."""


def make_simulator(cfg: DMCConfig, net: QNetwork, seed: int,
                   sink: Callable[[np.ndarray, np.ndarray], None]) -> Simulator:
    """Build the simulator ``cfg.engine`` asks for: the batched engine or the reference one."""
    if cfg.uses_batch_engine():
        return BatchTableSimulator(cfg, net, seed, sink)
    return TableSimulator(cfg, net, seed, sink)


def mixed_input(cfg: DMCConfig) -> MixedInput | None:
    """Return the input of a network for ``cfg.rules_mix`` (``None`` for one rule set)."""
    if not cfg.rules_mix:
        return None
    return MixedInput([Rules.coerce(r) for r in cfg.rules_mix])


def fresh_network(cfg: DMCConfig) -> QNetwork:
    """Build a fresh Q network of the config's architecture, reading its rules' observation."""
    rules = Rules.coerce(cfg.rules)
    mixed = mixed_input(cfg)
    width = mixed.width if mixed is not None else obs_size(rules, cfg.episode == "match")
    return QNetwork(width, rules.num_actions, cfg.hidden,
                    card_features=cfg.card_features, holder_features=cfg.holder_features)


def _label_buffer(cfg: DMCConfig, rules: Rules, width: int) -> ReplayBuffer | None:
    """Load ``cfg.search_labels`` into a buffer to sample from (None without labels)."""
    if not cfg.search_labels:
        return None
    from training.search_labels import LabelError, load_label_sets

    try:
        obs, tgt = load_label_sets(cfg.search_labels, rules, width)
    except LabelError as e:
        raise ConfigError(f"search_labels: {e}") from None
    buf = ReplayBuffer(len(obs), np.random.default_rng(cfg.seed + 2), width, rules.num_actions)
    buf.add(obs, tgt)
    return buf


def frozen_network(state_dict: dict[str, torch.Tensor], cfg: DMCConfig) -> QNetwork:
    """Build a network of ``cfg`` holding ``state_dict``, for inference only (snapshots)."""
    net = fresh_network(cfg)
    net.load_state_dict(state_dict)
    net.eval()
    for p in net.parameters():
        p.requires_grad_(False)
    return net


def _actor_main(cfg_dict: dict[str, Any], actor_id: int, samples: Any, commands: Any,
                stop: Any) -> None:
    """Body of an actor process: play tables, ship finished trajectories to the learner.

    Messages in: ``("weights", state_dict, run_decisions, budget_fraction)``,
    ``("snapshots", [state_dict])``.
    Messages out: ``(obs uint8[n, obs_size], targets float32[n, num_actions], stats dict)``.
    """
    import os
    import queue

    torch.set_num_threads(1)
    parent = os.getppid()
    cfg = config_from_dict(cfg_dict)
    seed = actor_seed(cfg, actor_id)
    seed_everything(seed)
    box_obs: list[np.ndarray] = []
    box_tgt: list[np.ndarray] = []

    def sink(obs: np.ndarray, tgt: np.ndarray) -> None:
        box_obs.append(obs)
        box_tgt.append(tgt)

    net = fresh_network(cfg).eval()
    sim = make_simulator(cfg, net, seed, sink)
    pending = 0
    last_dec = last_forced = last_games = 0
    while not stop.is_set():
        if os.getppid() != parent:
            return  # the learner died without stopping us (e.g. SIGKILL): do not linger
        while True:
            try:
                msg = commands.get_nowait()
            except queue.Empty:
                break
            if msg[0] == "weights":
                net.load_state_dict(msg[1])
                sim.global_decisions = int(msg[2])
                sim.progress = float(msg[3])
            elif msg[0] == "snapshots":
                sim.set_snapshots([frozen_network(sd, cfg) for sd in msg[1]])
        sim.step_tables()
        pending = sum(len(a) for a in box_tgt)
        if pending >= cfg.actor_chunk:
            stats = {"decisions": sim.decisions - last_dec, "forced": sim.forced - last_forced,
                     "games": sim.games - last_games, "ret_sum": sim.ret_sum,
                     "ret_n": sim.ret_n}
            last_dec, last_forced, last_games = sim.decisions, sim.forced, sim.games
            sim.ret_sum, sim.ret_n = 0.0, 0
            chunk = (np.concatenate(box_obs), np.concatenate(box_tgt), stats)
            box_obs.clear()
            box_tgt.clear()
            while not stop.is_set():
                try:
                    samples.put(chunk, timeout=0.5)
                    break
                except queue.Full:
                    continue


class DMCTrainer:
    """The learning side: network, optimiser, replay buffer, snapshot pool, counters.

    ``cfg.num_actors == 0`` plays the tables in this process (deterministic for a seed: the
    tests and the tiny preset use it). ``num_actors >= 1`` starts that many actor processes
    that play with a copy of the network refreshed every ``sync_interval_s`` and send their
    samples back through a bounded queue, while this process only learns; this uses both
    cores, at the price of bit-for-bit reproducibility (the interleaving of processes is not
    deterministic, although every generator is seeded).

    ``remote_actors`` replaces the actor processes by another transport: called with the
    config, it starts the actors and returns an object with ``first()``, ``get(timeout)``
    (lists of the batches an actor process would send), ``set_weights(state_dict,
    decisions, progress)``, ``set_snapshots(state_dicts)`` and ``close()``;
    ``training.dmc_ray.RayActors`` is the one for Ray actors. Everything else is the same.
    """

    def __init__(self, cfg: DMCConfig,
                 remote_actors: Callable[[DMCConfig], Any] | None = None) -> None:
        cfg.validate()
        self.cfg = cfg
        self._remote_actors = remote_actors
        self._remote: Any = None
        """The running ``remote_actors`` transport, if any."""
        self.rules = Rules.coerce(cfg.rules)
        seed_everything(cfg.seed)
        torch.set_num_threads(cfg.torch_threads)
        self.net = fresh_network(cfg)
        self.dtype = resolve_precision(cfg.precision)
        """Format of the learner's products (``DMCConfig.precision``)."""
        if cfg.init_policy:
            self._load_init_policy(cfg.init_policy)
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
        self._procs: list[Any] = []
        self._commands: list[Any] = []
        if cfg.num_actors == 0:
            self.sim = make_simulator(cfg, self.net, cfg.seed, self._add)
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
        """Start the actor processes (no-op with ``num_actors == 0`` or if already running)."""
        if self.cfg.num_actors == 0 or self._procs or self._remote is not None:
            return
        if self._remote_actors is not None:
            self._remote = self._remote_actors(self.cfg)
            self._broadcast_snapshots()
            self._sync(force=True)
            for obs, tgt, st in self._remote.first():
                self._add(obs, tgt)
                self._count(st)
            return
        import multiprocessing as mp

        ctx = mp.get_context("spawn")  # fork after torch's thread pools start can hang
        self._samples = ctx.Queue(maxsize=4 * self.cfg.num_actors)
        self._stop = ctx.Event()
        self._commands = []
        for k in range(self.cfg.num_actors):
            cq = ctx.Queue()
            p = ctx.Process(target=_actor_main, args=(self.cfg.to_dict(), k, self._samples,
                                                      cq, self._stop), daemon=True)
            self._commands.append(cq)
            p.start()
            self._procs.append(p)
        self._broadcast_snapshots()
        self._sync(force=True)
        # Wait for the first samples, so that process start-up is not billed as training time.
        import queue

        deadline = time.perf_counter() + 300
        while time.perf_counter() < deadline:
            try:
                obs, tgt, st = self._samples.get(timeout=1.0)
            except queue.Empty:
                if not all(p.is_alive() for p in self._procs):
                    raise RuntimeError("an actor process died while starting; see its "
                                       "traceback above") from None
                continue
            self._add(obs, tgt)
            self._count(st)
            return
        raise RuntimeError("the actor processes sent no samples within 300 s of starting")

    def stop_actors(self) -> None:
        """Stop and join the actor processes (or the Ray actors)."""
        if self._remote is not None:
            self._remote.close()
            self._remote = None
        if not self._procs:
            return
        self._stop.set()
        import queue

        deadline = time.perf_counter() + 10
        while any(p.is_alive() for p in self._procs) and time.perf_counter() < deadline:
            try:
                self._samples.get(timeout=0.1)  # unblock a put
            except queue.Empty:
                pass
        for p in self._procs:
            p.join(timeout=1)
            if p.is_alive():
                p.terminate()
        self._procs = []

    def _sync(self, force: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self._last_sync < self.cfg.sync_interval_s:
            return
        self._last_sync = now
        sd = {k: v.detach().clone() for k, v in self.net.state_dict().items()}
        if self._remote is not None:
            self._remote.set_weights(sd, self.decisions, self.progress)
        for cq in self._commands:
            cq.put(("weights", sd, self.decisions, self.progress))

    def _broadcast_snapshots(self) -> None:
        if self.sim is not None:
            self.sim.set_snapshots(self.snapshots)
            return
        sds = [s.state_dict() for s in self.snapshots]
        if self._remote is not None:
            self._remote.set_snapshots(sds)
        for cq in self._commands:
            cq.put(("snapshots", sds))

    def _drain(self, block: bool) -> None:
        """Move the actors' finished samples into the replay buffer."""
        if self._remote is not None:
            for obs, tgt, st in self._remote.get(timeout=0.2 if block else 0.0):
                self._add(obs, tgt)
                self._count(st)
            return
        import queue

        first = True
        while True:
            try:
                if block and first:
                    obs, tgt, st = self._samples.get(timeout=0.2)
                else:
                    obs, tgt, st = self._samples.get_nowait()
            except queue.Empty:
                for p in self._procs:
                    if not p.is_alive():
                        raise RuntimeError(f"actor process {p.pid} died (exit code "
                                           f"{p.exitcode}); see its traceback above") from None
                return
            first = False
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
        rest from the replay buffer.
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
        q = q_values(self.net, obs, self.dtype)
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
        self.snapshots.append(frozen_network(self.net.state_dict(), self.cfg))
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
        out: dict[str, Any] = {
            "net": self.net.state_dict(),
            "opt": self.opt.state_dict(),
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
            else:
                self._drain(block=self._since_train < self.cfg.batch_size / self.cfg.sample_reuse)
                self._sync()
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


__all__ = ["DMCTrainer", "ReplayBuffer", "TableSimulator", "action_targets",
           "lambda_returns", "q_loss"]
