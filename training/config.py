"""Training configurations: one documented dataclass per trainer, named presets, validation.

Every field carries a docstring saying what it does and why its default is what it is; the
defaults *are* the ``quick`` run, so the docstrings describe a run people actually train. A
config is validated as a whole before any work starts (``validate()``), so a negative size, an
unknown preset or an opponent spec that names no agent fails at once with the field's name,
never an hour into a run. ``to_dict``/``config_from_dict`` round-trip through the run
directory's ``config.json`` (resume reads it back with ``load_config``).

Presets (``make_config("quick" | "full" | "tiny", trainer=...)``), each written as the fields it
changes from the defaults:

* ``quick``: the defaults. About 4 minutes of Deep Monte-Carlo on 2 cores; enough to beat
  ``random`` and ``greedy`` clearly. What the README's first command runs.
* ``full``: the shipped policy: 90 minutes of training (wall clock, evaluations excluded) on
  2 cores; the issue allows up to two hours, the session that trained the shipped weights had
  about one and a half.
* ``tiny``: a few seconds in one process, for tests and smoke runs.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gongzhu_env.match import EPISODES

PRESETS = ("quick", "full", "tiny")
TRAINERS = ("dmc", "sb3")
REWARD_MODES = ("zero_sum", "raw", "team")
SPECIAL_OPPONENTS = ("self", "snapshot")
ENGINES = ("scalar", "batch")
PRECISIONS = ("auto", "float32", "bfloat16")
"""``DMCConfig.precision`` values (``training.precision`` resolves them)."""
BATCH_OPPONENTS = ("random", "self", "snapshot")
"""Who can sit at the tables of the batched engine (``SB3Config.engine = "batch"``)."""
BATCH_OPPONENT_MIX = {"self": 0.5, "snapshot": 0.375, "random": 0.125}
"""``SB3Config.opponent_mix`` when ``engine="batch"`` and no mix is given: the default mix
without its rule agent (which cannot play in the batched engine), in the same proportions."""


class ConfigError(ValueError):
    """A configuration value is invalid; the message names the field and what is expected."""


@dataclass
class DMCConfig:
    """Deep Monte-Carlo self-play (``training.dmc``): all seats share one Q network.

    The defaults are the ``quick`` preset: about four minutes on two cores, the run the README's
    first command trains. Fields are grouped by what they decide; a group's fields only make
    sense together, and the first field of each group says how.
    """

    # ------------------------------------------------------------------ identity
    preset: str = "quick"
    """Name of the preset this config started from (recorded in the run directory)."""

    seed: int = 0
    """Seeds Python's ``random``, numpy and torch, the deals and every agent (one block)."""

    rules: str | dict[str, Any] = "standard"
    """Rules the policy is trained for: a preset name (``gongzhu_env.rules.PRESETS``) or a
    dict of options (``Rules.from_dict``). The observation size, and with it the network's
    input, follows from them (``gongzhu_env.view.obs_size``)."""

    rules_mix: tuple[str | dict[str, Any], ...] = ()
    """Several rule sets for one network: each table's rules are drawn uniformly from these
    (preset names or option dicts), and the network reads the table's observation padded to
    the longest of them followed by the rule features (``agents.rule_features``), so one
    policy plays them all. ``rules`` must be one of them (the periodic evaluations use it).
    Empty: the one rule set ``rules``. All entries one deck or all two, all with teams or
    none; single hands only, no ``init_policy`` and no checkpoint selection."""

    episode: str = "hand"
    """``"hand"``: every game is one hand. ``"match"``: every game is a whole match
    (``gongzhu_env.match.Match``, to ``rules.match_threshold``); the observation adds the
    match blocks (cumulative scores, hands played) and a decision's target is everything its
    seat scores from there to the end of the match, as the env's ``episode="match"`` rewards.
    With ``max_hands`` it decides what an episode is."""

    max_hands: int = 100
    """Match episodes only: a match still going after this many hands ends there (the env's
    safety cap, ``gongzhu_env.match.DEFAULT_MAX_HANDS``)."""

    # ------------------------------------------------------------------ network
    hidden: tuple[int, ...] = (256, 256)
    """Hidden layer widths of the Q network (observation -> 53 action values). In the
    quick-preset measurements (docs/training.md, q2 and q6) the bigger 512-256 net trained
    about 30 % fewer decisions in the same minutes and was not better; the full preset's 90
    minutes use (512, 256)."""

    card_features: bool = True
    """Feed the network the per-card trick features of ``agents.card_features`` (which card
    wins the trick now, which is the highest still out, ...) next to the observation. They are
    computed from the observation, so the policy still reads only the env's vector. They cost
    about a third of the decisions/s and learn more per minute (docs/training.md)."""

    holder_features: bool = False
    """Also feed it, for each other seat and card, whether that seat may still hold the card
    and whether it is the only one that may (``agents.holder_features``: from shown voids and
    exposed cards). Computed from the observation like ``card_features``; off until it is
    measured to help (docs/training.md)."""

    init_policy: str = ""
    """Policy file (``policy:`` spec path, or ``"pretrained"``) whose weights start the
    network instead of a random initialisation: fine-tuning a trained policy, e.g. with
    rollout labels. Its architecture must match ``hidden``, ``card_features`` and
    ``holder_features``, and its rules ``rules``. Empty: start from scratch."""

    # ------------------------------------------------------------------ acting
    num_tables: int = 128
    """Games stepped in lockstep; one batched forward pass scores all their seats to move."""

    engine: str = "auto"
    """What plays the tables: ``"batch"``, the compiled batched engine
    (``gongzhu_env.vector.GameBatch`` through ``training.dmc_batch``: every table's
    observation written at once in compiled code, several times the decisions/s);
    ``"scalar"``, one reference ``Game`` and ``PlayerView`` per table (every rule set, match
    episodes, mixed rules and rollout labels); ``"auto"``: the batch engine wherever it
    covers the run, else the scalar one. The shipped policies were trained on ``"scalar"``.
    Seeded runs of the two engines deal different hands (the batch has its own deal stream)."""

    epsilon_start: float = 0.05
    """Exploration rate of the learner seats at the start (uniform legal action). With
    ``epsilon_end`` and ``epsilon_decay_decisions`` it makes one linear schedule. The quick
    measurements moved from 0.2 -> 0.02 to 0.05 -> 0.01 together with the smaller network and
    the higher learning rate, and learnt faster (docs/training.md, q1 -> q2)."""

    epsilon_end: float = 0.01
    """Exploration rate after ``epsilon_decay_decisions``."""

    epsilon_decay_decisions: int = 1_000_000
    """Learner decisions over which epsilon decays linearly (about a third of a quick run)."""

    # ------------------------------------------------------------------ targets
    reward_mode: str = "zero_sum"
    """``"zero_sum"``: own raw score minus the others' mean; ``"raw"``: own raw score;
    ``"team"`` (team rules only, and their default in ``make_config``): the team's result,
    which is what partners play for. With
    ``reward_scale`` and ``reward_clip`` it fixes the targets' unit: a target is the result in
    this mode, divided by the scale and clipped."""

    reward_scale: float = 400.0
    """Returns are divided by this (typical |zero-sum| is 100-400 points)."""

    reward_clip: float = 4.0
    """Scaled returns are clipped to [-clip, clip] (slams would otherwise dominate the loss)."""

    td_lambda: float = 0.8
    """Lambda of the targets over a seat's own decisions: 1 = pure Monte-Carlo (the hand
    result, DouZero's target); below 1 mixes in the network's own value of the seat's next
    decision. 0.8 learnt clearly faster than 1.0 in the quick preset (docs/training.md)."""

    # ------------------------------------------------------------------ rollout labels
    rollout_share: float = 0.0
    """Share of the learner's decisions labelled by *rollouts* instead of by the hand's
    result: every distinct legal card is tried on a copy of the real table and the hand is
    finished by ``rollout_policy`` at all four seats; each card gets its own outcome as target.
    This teaches Q(s, a) of every card at once, with far less noise than one Monte-Carlo return
    (the rest of the hand is played by a fixed, decent policy), and the greedy policy on it is
    a one-step improvement over ``rollout_policy`` (what ``pimc`` does by search, learnt).
    0 is pure self-play Deep Monte-Carlo, and then the other three fields of this group are
    unused. See ``rollout_share_final`` for a schedule."""

    rollout_share_final: float | None = None
    """``rollout_share`` moves linearly to this value over the time budget (None: constant), so
    a run can start from the rule player's one-step improvement and hand over to self-play."""

    rollout_policy: str = "expert"
    """Policy that finishes the hands of the rollouts (``agents.pimc.ROLLOUTS``)."""

    rollout_level_weight: float = 0.25
    """Weight of the common level of a rollout-labelled decision's targets in the loss, next
    to their differences (``training.dmc.q_loss``). The outcomes of one decision share the
    deal, so their level is noisy and their differences are not; below 1 the network spends
    its capacity on telling the cards apart."""

    search_labels: str = ""
    """Directory of a label set of ``training.search_labels`` (the search agent's value of
    every legal card at its decisions), or several joined with ``os.pathsep`` (``:`` on
    Linux and macOS), whose labels are pooled: expert iteration. A share ``search_label_share`` of
    every minibatch is drawn from these labels, the rest from self-play, and the labels' rows
    count in the loss like rollout labels (``rollout_level_weight``). Empty: none."""

    search_label_share: float = 0.0
    """Share of each minibatch drawn from ``search_labels`` (in ``(0, 1]`` when it is set)."""

    # ------------------------------------------------------------------ learning
    lr: float = 1e-3
    """Adam learning rate at the start (3e-4 -> 1e-3 was part of the q1 -> q2 step of the
    quick measurements in docs/training.md). See ``lr_final_fraction`` for its decay."""

    lr_final_fraction: float = 1.0
    """The learning rate decays linearly to ``lr * lr_final_fraction`` over the time budget
    (1: constant). Late, smaller steps average out the noise of Monte-Carlo targets; worth it
    in a long run (the full preset's 0.1), not in four minutes."""

    batch_size: int = 1024
    """Samples (state, action, return) per gradient step. With ``sample_reuse`` it sets how
    many new samples pay for one step (``batch_size / sample_reuse``)."""

    replay_size: int = 131_072
    """Most recent samples kept; minibatches are drawn uniformly from them. Must hold at
    least ``batch_size`` and ``min_replay``."""

    sample_reuse: float = 1.0
    """Average number of gradient steps each sample takes part in (sets the update rate)."""

    min_replay: int = 4096
    """Samples collected before the first gradient step (four batches)."""

    precision: str = "float32"
    """Number format of the matrix products in the learner's gradient steps: ``"float32"``,
    ``"bfloat16"`` (autocast: weights, optimiser state and loss stay float32) or ``"auto"``
    (bfloat16 where the CPU has native bfloat16 dot products, else float32;
    ``training.precision``). The actors' forward passes stay float32 (their batches of a few
    hundred rows gain little or lose), and saved policies are float32 either way."""

    max_grad_norm: float = 10.0
    """Gradient-norm clip; guards against the rare huge returns (slams)."""

    # ------------------------------------------------------------------ opponents
    opponent_mix: dict[str, float] = field(default_factory=lambda: {
        "self": 0.55, "snapshot": 0.2, "random": 0.05, "greedy": 0.1, "expert": 0.1})
    """Who fills the three seats next to the learner's own seat each game, by weight:
    ``"self"`` (the learner, which then learns from that seat too), ``"snapshot"`` (a frozen
    earlier copy, see ``snapshot_interval_s``), or any agent spec for ``agents.make_agent``
    (e.g. ``"greedy"``)."""

    snapshot_interval_s: float = 45.0
    """Wall-clock seconds between frozen snapshots added to the opponent pool (used only when
    ``opponent_mix`` names ``"snapshot"``; before the first one those seats are the learner).
    About four snapshots in a quick run."""

    snapshot_pool_size: int = 8
    """Most recent snapshots kept in the pool."""

    # ------------------------------------------------------------------ budget and schedule
    time_budget_s: float = 210.0
    """Wall-clock training budget in seconds (evaluations excluded); the run stops after it.
    The interval fields below are wall-clock seconds of the same budget."""

    total_decisions: int = 0
    """Stop after this many learner decisions (0: only the time budget stops the run)."""

    checkpoint_interval_s: float = 60.0
    """Wall-clock seconds between checkpoints (``checkpoints/latest.pt`` for resume and a
    periodic ``policy_<decisions>.pt``): an interruption loses at most this much training."""

    log_interval_s: float = 10.0
    """Seconds between rows of ``metrics.csv`` / TensorBoard scalars."""

    # ------------------------------------------------------------------ evaluation
    eval_interval_s: float = 70.0
    """Wall-clock seconds between quick arena evaluations for the learning curve (two in a
    quick run between the first and the last). Each costs ``eval_deals`` deals per opponent
    in ``eval_opponents``, outside the training budget."""

    eval_deals: int = 60
    """Deals per baseline in each periodic evaluation (duplicate: 4 seats each; 0: none)."""

    eval_opponents: tuple[str, ...] = ("random", "greedy", "expert")
    """Baselines of the periodic and final evaluations (agent specs)."""

    final_eval_deals: int = 300
    """Deals per baseline in the evaluation at the end of training (0: skip)."""

    # ------------------------------------------------------------------ checkpoint selection
    select_last: int = 0
    """At the end, play the last this-many periodic policies against ``select_opponent`` on
    held-out deals and keep the best as ``policy.pt`` (``training.select``); late
    checkpoints differ by more than the policy improves between them. 0: keep the final
    weights, and the other ``select_*`` fields are unused."""

    select_deals: int = 1000
    """Duplicate deals each candidate plays in the selection."""

    select_opponent: str = "expert"
    """Agent spec the candidates are selected against."""

    select_average: bool = True
    """Add the mean of the candidates' weights as one more candidate (weight averaging)."""

    # ------------------------------------------------------------------ processes
    num_actors: int = 1
    """Actor processes playing the tables (0: play in the learner's process, deterministic).
    With ``sync_interval_s`` and ``actor_chunk`` it sets how actors and learner talk; one actor
    and the learner fill two cores."""

    sync_interval_s: float = 1.0
    """Seconds between weight updates sent from the learner to the actors."""

    actor_chunk: int = 1024
    """Samples an actor gathers before sending them to the learner."""

    torch_threads: int = 1
    """Threads torch may use in the learner. 1: on a shared 2-core machine OpenMP threads
    spin-wait against the actor and other processes and run many times slower."""

    def validate(self) -> None:
        """Raise ``ConfigError`` naming the first invalid field."""
        _check_common(self)
        for name in ("num_tables", "batch_size", "replay_size", "snapshot_pool_size",
                     "torch_threads", "actor_chunk"):
            _positive_int(self, name)
        for name in ("min_replay", "epsilon_decay_decisions", "total_decisions",
                     "eval_deals", "final_eval_deals", "num_actors", "select_last"):
            _nonneg_int(self, name)
        _positive_int(self, "select_deals")
        _check_specs((self.select_opponent,), "select_opponent")
        for name in ("lr", "sample_reuse", "max_grad_norm", "reward_scale", "reward_clip",
                     "snapshot_interval_s", "time_budget_s", "checkpoint_interval_s",
                     "eval_interval_s", "log_interval_s", "sync_interval_s",
                     "rollout_level_weight"):
            _positive_float(self, name)
        if self.rollout_share_final is None:
            pass
        elif isinstance(self.rollout_share_final, bool) or not isinstance(
                self.rollout_share_final, (int, float)) \
                or not 0.0 <= self.rollout_share_final <= 1.0:
            raise ConfigError(f"rollout_share_final: must be None or a probability in [0, 1]; "
                              f"got {self.rollout_share_final!r}")
        _check_search_labels(self)
        if type(self.select_average) is not bool:
            raise ConfigError(f"select_average: must be true or false; got "
                              f"{self.select_average!r}")
        if not isinstance(self.init_policy, str):
            raise ConfigError(f"init_policy: must be a policy file path or 'pretrained'; got "
                              f"{self.init_policy!r}")
        if self.init_policy:
            from agents.policy import PolicyLoadError, resolve_policy_path

            try:
                path = resolve_policy_path(self.init_policy)
            except PolicyLoadError as e:
                raise ConfigError(f"init_policy: {e}") from None
            if not path.is_file():
                raise ConfigError(f"init_policy: no policy file at {path}")
        if self.rules_mix:
            _check_rules_mix(self)
        if self.episode == "match" and (self.rollout_share or self.rollout_share_final):
            raise ConfigError("rollout_share: rollout labels value a card by finishing the "
                              "hand, not the match; with episode='match' set rollout_share and "
                              "rollout_share_final to 0")
        from agents.pimc import ROLLOUTS

        if self.rollout_policy not in ROLLOUTS:
            raise ConfigError(f"rollout_policy: must be one of {sorted(ROLLOUTS)}; got "
                              f"{self.rollout_policy!r}")
        for name in ("epsilon_start", "epsilon_end", "td_lambda", "lr_final_fraction",
                     "rollout_share"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0:
                raise ConfigError(f"{name}: must be a probability in [0, 1]; got {v!r}")
        if self.batch_size > self.replay_size:
            raise ConfigError(f"batch_size: {self.batch_size} exceeds replay_size "
                              f"{self.replay_size}")
        if self.min_replay > self.replay_size:
            raise ConfigError(f"min_replay: {self.min_replay} exceeds replay_size "
                              f"{self.replay_size}")
        if self.precision not in PRECISIONS:
            raise ConfigError(f"precision: must be one of {PRECISIONS}; got {self.precision!r}")
        _check_opponents(self)
        _check_engine(self)

    def uses_batch_engine(self) -> bool:
        """Whether the tables are played by the batched engine (``engine``, resolved)."""
        return self.engine == "batch" or (self.engine == "auto"
                                          and batch_engine_obstacle(self) is None)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict, with the trainer named."""
        return {"trainer": "dmc", **dataclasses.asdict(self)}


@dataclass
class SB3Config:
    """MaskablePPO (sb3-contrib) on the single-seat env, against an opponent pool.

    The defaults are the ``quick`` preset, like ``DMCConfig``'s.
    """

    preset: str = "quick"
    """Name of the preset this config started from (recorded in the run directory)."""

    seed: int = 0
    """Seeds Python's ``random``, numpy, torch, the envs and every agent (one block)."""

    rules: str | dict[str, Any] = "standard"
    """Rules the policy is trained for: a preset name or a dict of options (as ``DMCConfig``)."""

    episode: str = "hand"
    """``"hand"`` or ``"match"``: what one episode of the single-seat env is (as
    ``DMCConfig.episode``; in a match the learner keeps its seat to the end)."""

    max_hands: int = 100
    """Match episodes only: the cap on a match's hands (as ``DMCConfig.max_hands``)."""

    hidden: tuple[int, ...] = (256, 256)
    """Hidden widths of the policy and value MLPs."""

    n_envs: int = 8
    """Vectorised single-seat envs."""

    subproc: bool = False
    """Run the envs in subprocesses (``SubprocVecEnv``) instead of in this process."""

    engine: str = "scalar"
    """Where the learner's tables are played. ``"scalar"``: ``n_envs`` single-seat envs of the
    Python engine (``gongzhu_env.wrappers.SingleSeatEnv``) in a ``DummyVecEnv`` or
    ``SubprocVecEnv``; every opponent spec can sit there. ``"batch"``: the ``n_envs`` tables
    of one ``gongzhu_env.vector_env.SingleSeatVectorEnv`` on the compiled batched engine
    (``training.sb3_vec.BatchVecEnv``), in this process, the opponents played in batch: only
    ``"random"``, ``"self"`` and ``"snapshot"`` (rule agents need Python views), single hands
    only, and rules the batched engine covers. Its default mix is ``BATCH_OPPONENT_MIX``.
    Many tables and short rollouts suit it (e.g. ``n_envs=64``, ``n_steps=32``)."""

    n_steps: int = 256
    """Learner steps per env per PPO rollout."""

    batch_size: int = 512
    """PPO minibatch size."""

    n_epochs: int = 4
    """PPO epochs per rollout."""

    lr: float = 3e-4
    """Adam learning rate."""

    gamma: float = 1.0
    """Discount; 1 because only the hand result counts."""

    ent_coef: float = 0.01
    """Entropy bonus."""

    reward_mode: str = "zero_sum"
    """Reward of the learner seat at hand end: ``"zero_sum"``, ``"raw"`` or (team rules only,
    and their default in ``make_config``) ``"team"``."""

    reward_scale: float = 400.0
    """Hand results are divided by this."""

    opponent_mix: dict[str, float] = field(default_factory=lambda: {
        "self": 0.4, "snapshot": 0.3, "random": 0.1, "greedy": 0.2})
    """Who fills the three other seats, by weight: ``"self"`` (the current policy acting
    greedily), ``"snapshot"`` (a frozen earlier copy) or any agent spec."""

    snapshot_interval_steps: int = 50_000
    """Learner steps between snapshots added to the opponent pool."""

    snapshot_pool_size: int = 5
    """Most recent snapshots kept."""

    total_timesteps: int = 300_000
    """Learner steps to train for (the time budget usually stops a quick run first)."""

    time_budget_s: float = 240.0
    """Wall-clock budget; training stops at the first rollout boundary past it."""

    checkpoint_interval_steps: int = 50_000
    """Learner steps between checkpoints."""

    eval_interval_steps: int = 50_000
    """Learner steps between arena evaluations (learning curve)."""

    eval_deals: int = 100
    """Deals per baseline in each periodic evaluation (0: none)."""

    eval_opponents: tuple[str, ...] = ("random", "greedy", "expert")
    """Baselines of the periodic and final evaluations."""

    final_eval_deals: int = 500
    """Deals per baseline at the end (0: skip)."""

    torch_threads: int = 1
    """Threads torch may use."""

    def validate(self) -> None:
        """Raise ``ConfigError`` naming the first invalid field."""
        _check_common(self)
        for name in ("n_envs", "n_steps", "batch_size", "n_epochs", "snapshot_pool_size",
                     "snapshot_interval_steps", "total_timesteps", "checkpoint_interval_steps",
                     "eval_interval_steps", "torch_threads"):
            _positive_int(self, name)
        for name in ("eval_deals", "final_eval_deals"):
            _nonneg_int(self, name)
        for name in ("lr", "reward_scale", "time_budget_s"):
            _positive_float(self, name)
        if not isinstance(self.gamma, (int, float)) or not 0.0 < self.gamma <= 1.0:
            raise ConfigError(f"gamma: must be in (0, 1]; got {self.gamma!r}")
        if not isinstance(self.ent_coef, (int, float)) or self.ent_coef < 0:
            raise ConfigError(f"ent_coef: must be >= 0; got {self.ent_coef!r}")
        _check_opponents(self)
        if self.engine not in ENGINES:
            raise ConfigError(f"engine: must be one of {ENGINES}; got {self.engine!r}")
        if self.engine == "batch":
            _check_batch_engine(self)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict, with the trainer named."""
        return {"trainer": "sb3", **dataclasses.asdict(self)}


Config = DMCConfig | SB3Config

# The quick preset is the dataclass defaults; every other preset names only what it changes.
_DMC_PRESETS: dict[str, dict[str, Any]] = {
    "quick": {},
    # 90 minutes instead of 3.5: a bigger network, a learning rate that decays to a tenth,
    # slower exploration decay, sparser snapshots, checkpoints and evaluations, and bfloat16
    # products in the learner where the CPU has them (benchmarks/bench_precision.py). Two actor
    # processes feed the learner (benchmarks/bench_train.py); a third of the seats next to the
    # learner are the expert, the strongest fast player, so the policy meets its play often.
    "full": {"time_budget_s": 5400.0, "hidden": (512, 256), "lr_final_fraction": 0.1,
             "min_replay": 8192, "epsilon_decay_decisions": 4_000_000, "num_actors": 2,
             "opponent_mix": {"self": 0.4, "snapshot": 0.15, "expert": 0.3, "greedy": 0.1,
                              "random": 0.05},
             "snapshot_interval_s": 300.0, "checkpoint_interval_s": 180.0,
             "eval_interval_s": 600.0, "eval_deals": 150, "final_eval_deals": 1000,
             "precision": "auto"},
    # A few seconds in one process, for tests and smoke runs: small everything, no features.
    "tiny": {"time_budget_s": 4.0, "hidden": (32, 32), "card_features": False,
             "num_tables": 8, "num_actors": 0, "actor_chunk": 64, "lr": 3e-4,
             "batch_size": 64, "replay_size": 2048, "min_replay": 128, "sample_reuse": 2.0,
             "epsilon_start": 0.2, "epsilon_end": 0.02, "epsilon_decay_decisions": 1000,
             "opponent_mix": {"self": 0.5, "snapshot": 0.25, "random": 0.25},
             "snapshot_interval_s": 1.0, "checkpoint_interval_s": 1.0, "log_interval_s": 0.5,
             "eval_interval_s": 2.0, "eval_deals": 2, "eval_opponents": ("random",),
             "final_eval_deals": 2},
}
_SB3_PRESETS: dict[str, dict[str, Any]] = {
    "quick": {},
    "full": {"total_timesteps": 5_000_000, "time_budget_s": 3600.0, "n_envs": 16},
    "tiny": {"total_timesteps": 256, "n_envs": 2, "n_steps": 64, "batch_size": 64,
             "n_epochs": 1, "hidden": (32,), "snapshot_interval_steps": 128,
             "checkpoint_interval_steps": 128, "eval_interval_steps": 128, "eval_deals": 2,
             "final_eval_deals": 2, "eval_opponents": ("random",), "time_budget_s": 60.0,
             "opponent_mix": {"self": 0.5, "snapshot": 0.25, "random": 0.25}},
}

_FORMER_DMC_DEFAULTS: dict[str, Any] = {
    "hidden": (512, 512, 256), "card_features": False, "lr": 3e-4, "sample_reuse": 2.0,
    "min_replay": 8192, "epsilon_start": 0.2, "epsilon_end": 0.02,
    "epsilon_decay_decisions": 2_000_000, "snapshot_interval_s": 120.0,
    "time_budget_s": 240.0, "eval_interval_s": 60.0, "eval_deals": 100, "final_eval_deals": 500,
    "engine": "scalar", "precision": "float32",
}
"""``DMCConfig`` defaults before they became the quick preset. A ``config.json`` written before
one of these fields existed meant this value, so ``load_config`` fills it in."""
_FORMER_SB3_DEFAULTS: dict[str, Any] = {"total_timesteps": 200_000}
"""``SB3Config`` defaults before they became the quick preset (see ``_FORMER_DMC_DEFAULTS``)."""


def make_config(preset: str = "quick", trainer: str = "dmc", **overrides: Any) -> Config:
    """Build and validate the config of a preset, with field overrides.

    Under team rules the reward is the team's result unless ``reward_mode`` is given: a seat
    that learns its own score would learn to play against its partner. An SB3 config with
    ``engine="batch"`` whose preset's mix names a rule agent takes ``BATCH_OPPONENT_MIX``
    instead, unless ``opponent_mix`` is given.
    """
    if trainer not in TRAINERS:
        raise ConfigError(f"trainer: unknown trainer {trainer!r}; expected one of {TRAINERS}")
    if preset not in PRESETS:
        raise ConfigError(f"preset: unknown preset {preset!r}; expected one of {PRESETS}")
    table = _DMC_PRESETS if trainer == "dmc" else _SB3_PRESETS
    values = {**table[preset], **overrides, "preset": preset}
    if "reward_mode" not in values and _has_teams(values.get("rules")):
        values["reward_mode"] = "team"
    if trainer == "sb3" and values.get("engine") == "batch" and "opponent_mix" not in overrides \
            and any(s not in BATCH_OPPONENTS for s in values.get("opponent_mix",
                                                                 SB3Config().opponent_mix)):
        # The preset's mix names a rule agent, which the batched engine cannot seat.
        values["opponent_mix"] = dict(BATCH_OPPONENT_MIX)
    return config_from_dict({"trainer": trainer, **values})


def config_from_dict(data: Mapping[str, Any]) -> Config:
    """Rebuild a config from ``to_dict()`` output (e.g. a run's ``config.json``), validated."""
    data = dict(data)
    trainer = data.pop("trainer", "dmc")
    if trainer not in TRAINERS:
        raise ConfigError(f"trainer: unknown trainer {trainer!r}; expected one of {TRAINERS}")
    cls = DMCConfig if trainer == "dmc" else SB3Config
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ConfigError(f"{unknown[0]}: not a field of {cls.__name__}; valid fields: "
                          f"{sorted(names)}")
    for key in ("hidden", "eval_opponents", "rules_mix"):
        if key in data and isinstance(data[key], list):
            data[key] = tuple(data[key])
    cfg = cls(**data)
    cfg.validate()
    return cfg


def save_config(cfg: Config, path: str) -> None:
    """Write ``config.json``."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(cfg.to_dict(), f, indent=2, sort_keys=True)


def load_config(path: str) -> Config:
    """Read a run's ``config.json``; a damaged or foreign file raises ``ConfigError`` naming it.

    A field the file lacks (it was written before the field existed) takes the value that file
    meant: the default of that time, which for a few fields is not today's default. The file is
    read within the bounds of ``gongzhu_env.integrity.strict_loads`` and every field is
    validated (``config_from_dict``) before a resumed run uses it.
    """
    from gongzhu_env.integrity import StrictJSONError, printable, strict_loads

    name = printable(path)
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
        if len(raw) > MAX_CONFIG_BYTES:
            raise ConfigError(f"{name}: larger than {MAX_CONFIG_BYTES:,} bytes; not a run's "
                              "config.json")
        data = strict_loads(raw.decode("utf-8"))
    except OSError as e:
        raise ConfigError(f"cannot read {name}: {printable(e.strerror or e)}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{name} is not UTF-8 text; expected a run's config.json") from None
    except StrictJSONError as e:
        raise ConfigError(f"{name} is damaged: {e}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{name} must hold a JSON object of config fields, got "
                          f"{type(data).__name__}")
    former = _FORMER_SB3_DEFAULTS if data.get("trainer") == "sb3" else _FORMER_DMC_DEFAULTS
    try:
        return config_from_dict({**former, **data})
    except (ValueError, TypeError) as e:  # ConfigError, or a value no check foresaw
        raise ConfigError(f"{name}: {printable(e, 400)}") from None


MAX_CONFIG_BYTES = 2**20
"""Largest ``config.json`` read (a real one is a few kilobytes)."""


# ---------------------------------------------------------------------------- checks
def _check_common(cfg: DMCConfig | SB3Config) -> None:
    """Check the fields every trainer's config has (preset, seed, rules, rewards, network)."""
    if cfg.preset not in PRESETS:
        raise ConfigError(f"preset: unknown preset {cfg.preset!r}; expected one of {PRESETS}")
    if type(cfg.seed) is not int or cfg.seed < 0:
        raise ConfigError(f"seed: must be a non-negative integer; got {cfg.seed!r}")
    from gongzhu_env.rules import Rules

    try:
        rules = Rules.coerce(cfg.rules)
    except (ValueError, TypeError) as e:
        raise ConfigError(f"rules: {e}") from None
    if cfg.reward_mode not in REWARD_MODES:
        raise ConfigError(f"reward_mode: must be one of {REWARD_MODES}; got "
                          f"{cfg.reward_mode!r}")
    if cfg.reward_mode == "team" and not rules.has_teams:
        raise ConfigError("reward_mode: 'team' needs rules with teams (team_play or "
                          f"pig_sheep_team); the rules {cfg.rules!r} have none")
    if not cfg.hidden or any(type(h) is not int or h <= 0 for h in cfg.hidden):
        raise ConfigError(f"hidden: layer widths must be positive integers; got "
                          f"{list(cfg.hidden)}")
    if cfg.episode not in EPISODES:
        raise ConfigError(f"episode: must be one of {EPISODES}; got {cfg.episode!r}")
    _positive_int(cfg, "max_hands")


def _check_search_labels(cfg: DMCConfig) -> None:
    """Labels need a share of the batch, and a share needs labels (one hand, one rule set)."""
    if not isinstance(cfg.search_labels, str):
        raise ConfigError(f"search_labels: must be a label directory or empty; got "
                          f"{cfg.search_labels!r}")
    share = cfg.search_label_share
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0.0 <= share <= 1.0:
        raise ConfigError(f"search_label_share: must be a share in [0, 1]; got {share!r}")
    if bool(cfg.search_labels) != (share > 0):
        raise ConfigError("search_labels and search_label_share go together: a label directory "
                          "needs a share in (0, 1] and a share needs a directory; got "
                          f"search_labels={cfg.search_labels!r}, search_label_share={share!r}")
    if cfg.search_labels and (cfg.episode != "hand" or cfg.rules_mix):
        raise ConfigError("search_labels: labels are of single hands of one rule set; they "
                          "cannot be combined with match episodes or a rules_mix")


def _check_rules_mix(cfg: DMCConfig) -> None:
    """Check a rules mix: valid rule sets of one kind, with ``rules`` among them.

    Options that need a single rule set (match episodes, a starting policy, selection) are
    refused next to it.
    """
    from agents.rule_features import MixedInput
    from gongzhu_env.rules import Rules

    if isinstance(cfg.rules_mix, (str, dict)):
        raise ConfigError(f"rules_mix: must be a list of rule sets; got {cfg.rules_mix!r}")
    try:
        mix = [Rules.coerce(r) for r in cfg.rules_mix]
        MixedInput(mix)
    except (ValueError, TypeError) as e:
        raise ConfigError(f"rules_mix: {e}") from None
    if len(set(mix)) != len(mix):
        raise ConfigError(f"rules_mix: a rule set is named twice in {list(cfg.rules_mix)}")
    sizes = sorted({r.players for r in mix})
    if len(sizes) > 1:
        raise ConfigError(f"rules_mix: every rule set must be for one table size (a network's "
                          f"input has one layout per size); got players {sizes}")
    if Rules.coerce(cfg.rules) not in mix:
        raise ConfigError(f"rules_mix: rules {cfg.rules!r} must be one of the mix (the "
                          "periodic evaluations play at its tables)")
    for name, bad in (("episode", cfg.episode != "hand"), ("init_policy", cfg.init_policy),
                      ("select_last", cfg.select_last > 0)):
        if bad:
            raise ConfigError(f"rules_mix: cannot be combined with {name}={getattr(cfg, name)!r}")


ENGINES = ("auto", "batch", "scalar")


def batch_engine_obstacle(cfg: DMCConfig) -> str | None:
    """Why the batched engine cannot play ``cfg``'s tables, or ``None`` if it can."""
    from gongzhu_env.rules import Rules
    from gongzhu_env.vector import check_covered

    try:
        check_covered(Rules.coerce(cfg.rules))
    except ValueError as e:
        return f"the rules are outside it ({e})"
    if cfg.episode != "hand":
        return "it plays single hands, not match episodes (episode='match')"
    if cfg.rules_mix:
        return "it plays one rule set, not a rules_mix"
    if cfg.rollout_share or cfg.rollout_share_final:
        return "rollout labels need a reference Game per table (rollout_share)"
    return None


def _check_engine(cfg: DMCConfig) -> None:
    if cfg.engine not in ENGINES:
        raise ConfigError(f"engine: must be one of {ENGINES}; got {cfg.engine!r}")
    if cfg.engine == "batch":
        why = batch_engine_obstacle(cfg)
        if why is not None:
            raise ConfigError(f"engine: the batched engine cannot play this run: {why}; "
                              "use engine='scalar' (or 'auto', which picks it)")


def _has_teams(rules: Any) -> bool:
    """Whether a config's rules value names rules with teams (False if it is not valid)."""
    from gongzhu_env.rules import Rules

    try:
        return Rules.coerce(rules).has_teams
    except (ValueError, TypeError):
        return False  # validation names the bad value


def _check_opponents(cfg: DMCConfig | SB3Config) -> None:
    """Check who may sit at the table in training and in the evaluations (both trainers)."""
    _check_mix(cfg.opponent_mix, "opponent_mix")
    _check_specs(cfg.eval_opponents, "eval_opponents")


def _check_batch_engine(cfg: SB3Config) -> None:
    """Check what ``engine="batch"`` cannot do: rule agents, matches, processes, rules."""
    for spec in cfg.opponent_mix:
        if spec not in BATCH_OPPONENTS:
            raise ConfigError(
                f"opponent_mix: {spec!r} cannot play with engine='batch': rule agents read "
                f"Python views one seat at a time, and the batched engine plays "
                f"{', '.join(repr(s) for s in BATCH_OPPONENTS)} only. Remove {spec!r} from "
                f"the mix (e.g. --set opponent_mix='{json.dumps(BATCH_OPPONENT_MIX)}') or "
                f"train with engine='scalar'")
    if cfg.episode != "hand":
        raise ConfigError(f"episode: engine='batch' plays single hands; got "
                          f"{cfg.episode!r} (use engine='scalar' for match episodes)")
    if cfg.subproc:
        raise ConfigError("subproc: engine='batch' runs every table in this process; set "
                          "subproc to false")
    from gongzhu_env.vector import check_covered

    try:
        check_covered(cfg.rules)
    except ValueError as e:
        raise ConfigError(f"rules: {e} (or train with engine='scalar')") from None


def _positive_int(cfg: object, name: str) -> None:
    v = getattr(cfg, name)
    if type(v) is not int or v <= 0:
        raise ConfigError(f"{name}: must be a positive integer; got {v!r}")


def _nonneg_int(cfg: object, name: str) -> None:
    v = getattr(cfg, name)
    if type(v) is not int or v < 0:
        raise ConfigError(f"{name}: must be a non-negative integer; got {v!r}")


def _positive_float(cfg: object, name: str) -> None:
    v = getattr(cfg, name)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        raise ConfigError(f"{name}: must be a positive number; got {v!r}")


def _check_specs(specs: tuple[str, ...], name: str) -> None:
    from agents import make_agent
    from agents.base import AgentError

    if isinstance(specs, str):
        raise ConfigError(f"{name}: must be a list of agent specs, not the string {specs!r}")
    for spec in specs:
        try:
            make_agent(spec, seed=0)
        except (AgentError, ValueError, TypeError) as e:
            raise ConfigError(f"{name}: unknown opponent spec {spec!r} ({e})") from None


def _check_mix(mix: Mapping[str, float], name: str) -> None:
    if not isinstance(mix, Mapping) or not mix:
        raise ConfigError(f"{name}: must be a non-empty mapping of opponent spec -> weight; "
                          f"got {mix!r}")
    for spec, w in mix.items():
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) \
                or w < 0:
            raise ConfigError(f"{name}: weight of {spec!r} must be a non-negative number; "
                              f"got {w!r}")
    if sum(mix.values()) <= 0:
        raise ConfigError(f"{name}: weights must not all be zero")
    _check_specs(tuple(s for s in mix if s not in SPECIAL_OPPONENTS), name)
