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

import ast
import dataclasses
import inspect
import json
import math
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gongzhu_env.match import EPISODES

PRESETS = ("quick", "full", "tiny")
TRAINERS = ("dmc", "sb3")
REWARD_MODES = ("zero_sum", "raw", "team")
SPECIAL_OPPONENTS = ("self", "snapshot")
SB3_ENGINES = ("scalar", "batch")
"""``SB3Config.engine`` values (the DMC trainer's, with ``"auto"``, are ``ENGINES``)."""
PRECISIONS = ("auto", "float32", "bfloat16")
"""``DMCConfig.precision`` values (``training.dmc.precision`` resolves them)."""
BATCH_OPPONENTS = ("random", "self", "snapshot")
"""Who can sit at the tables of the batched engine (``SB3Config.engine = "batch"``)."""
BATCH_OPPONENT_MIX = {"self": 0.5, "snapshot": 0.375, "random": 0.125}
"""``SB3Config.opponent_mix`` when ``engine="batch"`` and no mix is given: the default mix
without its rule agent (which cannot play in the batched engine), in the same proportions."""


class ConfigError(ValueError):
    """A configuration value is invalid; the message names the field and what is expected."""


# ---------------------------------------------------------------------------- bounds
# Every number of a config has an upper bound as well as a lower one. A value past it cannot
# be meant (or would take the machine down rather than train), and validation refuses it at
# once, on a new config and on a run's config.json read back for --resume alike.
MAX_SEED = 2**32 - 1
"""Largest seed: numpy's global generator (``training.run.seed_everything``) and
stable-baselines3 take seeds below 2**32."""
MAX_THREADS = 256
"""Most torch threads. torch starts one operating-system thread per count the first time it
runs a parallel product; past the machine's cores they only spin against each other (see
``DMCConfig.torch_threads``), and a count in the hundreds of thousands exhausts the system's
thread limit and kills the process with a segmentation fault. 256 covers the largest single
machines; a config stays valid on every machine, so the bound does not follow this one's
core count."""
MAX_ACTORS = 256
"""Most actors. Each is a process (or a Ray actor) with its own copy of the network and its
``num_tables`` tables; one or two fill a two-core machine, and 256 is more than a cluster of
this project's size runs."""
MAX_TABLES = 16_384
"""Most tables played in lockstep (``num_tables``, SB3's ``n_envs``). Every table's
observations go through one forward pass at a time: 16,384 tables of four seats of the
standard game's 1,120 network inputs are about 300 MB of float32 per pass, 128 times the
quick preset's tables."""
MAX_REPLAY = 2**20
"""Most samples in the replay buffer: at the standard game's 812 bytes a sample (600 observation
bytes and 53 float32 targets) about 850 MB, more at the largest tables; eight times the
presets' 131,072."""
MAX_BATCH = 65_536
"""Most samples in one gradient step or one actor message (``batch_size``, ``actor_chunk``):
a batch's activations are held for the backward pass, about 300 MB at this size for the
standard game, 64 times the quick preset's minibatch."""
MAX_ROLLOUT = 2**18
"""Most samples of one PPO rollout (SB3's ``n_steps * n_envs``), all held in its buffer as
float32 observations: about 650 MB for the standard game, 128 times the quick preset's."""
MAX_EPOCHS = 100
"""Most PPO epochs per rollout (the presets use 1 to 4); more would spend a run's budget
relearning one rollout."""
MAX_SNAPSHOTS = 64
"""Most frozen networks in the opponent pool (each a full copy of the network; the presets
keep 5 to 8)."""
MAX_CANDIDATES = 64
"""Most periodic policies compared by checkpoint selection (each plays ``select_deals``)."""
MAX_MATCH_HANDS = 10_000
"""Highest cap on a match's hands; a match to the threshold ends in a few dozen hands."""
MAX_STEPS = 10**12
"""Highest count of decisions or steps (budgets, schedules, intervals counted in steps):
months of training at the fastest measured rate, past any run."""
MAX_SECONDS = 30 * 24 * 3600.0
"""Longest time budget or interval, a month: the longest preset trains 90 minutes."""
MAX_FACTOR = 1e6
"""Largest scale, clip, weight or norm (``reward_scale``, ``reward_clip``, ``max_grad_norm``,
``rollout_level_weight``, ``ent_coef``): past it the float32 targets, losses and gradients
lose their precision or overflow."""
MAX_REUSE = 100.0
"""Most gradient steps per sample on average (``sample_reuse``; the presets use 1 or 2)."""
MAX_OPPONENTS = 64
"""Most entries of an opponent mix or an evaluation's baselines (each builds its agent)."""


def _bound_of(name: str) -> float | None:
    """Upper bound of a numeric field by its name (``None``: the caller bounds it)."""
    if name.endswith("_deals"):
        from training.arena.deals import MAX_DEALS  # the most deals the arena reads

        return MAX_DEALS
    return _BOUNDS.get(name)


_BOUNDS: dict[str, float] = {
    "seed": MAX_SEED, "torch_threads": MAX_THREADS, "num_actors": MAX_ACTORS,
    "num_tables": MAX_TABLES, "n_envs": MAX_TABLES, "replay_size": MAX_REPLAY,
    "min_replay": MAX_REPLAY, "batch_size": MAX_BATCH, "actor_chunk": MAX_BATCH,
    "n_steps": MAX_ROLLOUT, "n_epochs": MAX_EPOCHS, "snapshot_pool_size": MAX_SNAPSHOTS,
    "select_last": MAX_CANDIDATES, "max_hands": MAX_MATCH_HANDS,
    **dict.fromkeys(("epsilon_decay_decisions", "total_decisions", "total_timesteps",
                     "snapshot_interval_steps", "checkpoint_interval_steps",
                     "eval_interval_steps"), MAX_STEPS),
    **dict.fromkeys(("time_budget_s", "snapshot_interval_s", "checkpoint_interval_s",
                     "log_interval_s", "eval_interval_s", "sync_interval_s"), MAX_SECONDS),
    **dict.fromkeys(("reward_scale", "reward_clip", "max_grad_norm", "rollout_level_weight",
                     "ent_coef"), MAX_FACTOR),
    "sample_reuse": MAX_REUSE, "lr": 1.0,
}
"""The upper bound of each bounded numeric field (deal counts take the arena's
``MAX_DEALS``; a learning rate above 1 makes Adam diverge at the first step)."""


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
    (``gongzhu_env.vector.GameBatch`` through ``training.dmc.batch_tables``: every table's
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
    """Directory of a label set of ``training.expert_iteration.labels`` (the search agent's value of
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
    ``training.dmc.precision``). The actors' forward passes stay float32 (their batches of a few
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
        """Raise ``ConfigError`` naming the first invalid field.

        Every number is checked against its type, its lower bound and its upper bound
        (``_BOUNDS``), the network's shape against ``agents.policy.plan_network`` and a
        starting policy by loading it, so a config that passes builds and runs.
        """
        _check_common(self)
        for name in ("num_tables", "batch_size", "replay_size", "snapshot_pool_size",
                     "torch_threads", "actor_chunk", "select_deals"):
            _positive_int(self, name)
        for name in ("min_replay", "epsilon_decay_decisions", "total_decisions",
                     "eval_deals", "final_eval_deals", "num_actors", "select_last"):
            _nonneg_int(self, name)
        _check_specs((self.select_opponent,), "select_opponent")
        for name in ("lr", "sample_reuse", "max_grad_norm", "reward_scale", "reward_clip",
                     "snapshot_interval_s", "time_budget_s", "checkpoint_interval_s",
                     "eval_interval_s", "log_interval_s", "sync_interval_s",
                     "rollout_level_weight"):
            _positive_float(self, name)
        for name in ("epsilon_start", "epsilon_end", "td_lambda", "lr_final_fraction",
                     "rollout_share"):
            _probability(self, name)
        if self.rollout_share_final is not None:
            _probability(self, "rollout_share_final")
        for name in ("card_features", "holder_features", "select_average"):
            _flag(self, name)
        _check_search_labels(self)
        if not isinstance(self.rules_mix, (list, tuple)):
            raise ConfigError(f"rules_mix: must be a list of rule sets; got "
                              f"{_quoted(self.rules_mix)}")
        if self.rules_mix:
            _check_rules_mix(self)
        if self.episode == "match" and (self.rollout_share or self.rollout_share_final):
            raise ConfigError("rollout_share: rollout labels value a card by finishing the "
                              "hand, not the match; with episode='match' set rollout_share and "
                              "rollout_share_final to 0")
        from agents.pimc import ROLLOUTS

        if not isinstance(self.rollout_policy, str) or self.rollout_policy not in ROLLOUTS:
            raise ConfigError(f"rollout_policy: must be one of {sorted(ROLLOUTS)}; got "
                              f"{_quoted(self.rollout_policy)}")
        if self.batch_size > self.replay_size:
            raise ConfigError(f"batch_size: {self.batch_size} exceeds replay_size "
                              f"{self.replay_size}")
        if self.min_replay > self.replay_size:
            raise ConfigError(f"min_replay: {self.min_replay} exceeds replay_size "
                              f"{self.replay_size}")
        if self.precision not in PRECISIONS:
            raise ConfigError(f"precision: must be one of {PRECISIONS}; got "
                              f"{_quoted(self.precision)}")
        _check_init_policy(self, _check_network(self))
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
    (``training.sb3.vec_env.BatchVecEnv``), in this process, the opponents played in batch: only
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
        """Raise ``ConfigError`` naming the first invalid field (bounds as ``DMCConfig``)."""
        _check_common(self)
        for name in ("n_envs", "n_steps", "batch_size", "n_epochs", "snapshot_pool_size",
                     "snapshot_interval_steps", "total_timesteps", "checkpoint_interval_steps",
                     "eval_interval_steps", "torch_threads"):
            _positive_int(self, name)
        if self.n_envs * self.n_steps > MAX_ROLLOUT:
            raise ConfigError(f"n_steps: a rollout of n_envs * n_steps = "
                              f"{self.n_envs * self.n_steps:,} samples is held in memory at "
                              f"once; at most {MAX_ROLLOUT:,}")
        for name in ("eval_deals", "final_eval_deals"):
            _nonneg_int(self, name)
        for name in ("lr", "reward_scale", "time_budget_s"):
            _positive_float(self, name)
        if isinstance(self.gamma, bool) or not isinstance(self.gamma, (int, float)) \
                or not 0.0 < self.gamma <= 1.0:
            raise ConfigError(f"gamma: must be in (0, 1]; got {_quoted(self.gamma)}")
        if isinstance(self.ent_coef, bool) or not isinstance(self.ent_coef, (int, float)) \
                or not 0 <= self.ent_coef <= MAX_FACTOR:
            raise ConfigError(f"ent_coef: must be a number from 0 to {MAX_FACTOR:,.0f}; got "
                              f"{_quoted(self.ent_coef)}")
        _flag(self, "subproc")
        _check_network(self)
        _check_opponents(self)
        if self.engine not in SB3_ENGINES:
            raise ConfigError(f"engine: must be one of {SB3_ENGINES}; got "
                              f"{_quoted(self.engine)}")
        if self.engine == "batch":
            _check_batch_engine(self)

    def uses_batch_engine(self) -> bool:
        """Whether the learner's tables are played by the batched engine (``engine``)."""
        return self.engine == "batch"

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


def field_docs(cls: type) -> dict[str, str]:
    """Return each field's docstring (the string under it in the class body), spaces folded.

    The docstrings are the fields' documentation everywhere: in the source, in the API
    reference and in ``gongzhu train --help``, which lists every field as an option.
    """
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for node, after in zip(body, body[1:], strict=False):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant) \
                and isinstance(after.value.value, str):
            docs[node.target.id] = " ".join(after.value.value.split())
    return docs


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
    _nonneg_int(cfg, "seed")
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
    if cfg.episode not in EPISODES:
        raise ConfigError(f"episode: must be one of {EPISODES}; got {cfg.episode!r}")
    _positive_int(cfg, "max_hands")


def _check_network(cfg: DMCConfig | SB3Config) -> dict[str, Any]:
    """Check the network's widths and size; return the architecture a fresh one has.

    The sizes come from ``agents.policy.plan_network``, the checks every network is built
    with, on the input this config's tables give (the rules' observation, a rules mix's
    padded one, plus the features): a width of a billion or a network of gigabytes is
    refused here, before a run directory is made, not by the allocator.
    """
    from agents.policy import plan_network
    from gongzhu_env.rules import Rules
    from gongzhu_env.view import obs_size

    rules = Rules.coerce(cfg.rules)
    mix = getattr(cfg, "rules_mix", ())
    if mix:
        from agents.rule_features import MixedInput

        width = MixedInput([Rules.coerce(r) for r in mix]).width
    else:
        width = obs_size(rules, cfg.episode == "match")
    card = getattr(cfg, "card_features", False)
    holder = getattr(cfg, "holder_features", False)
    try:
        hidden, players, _ = plan_network(width, rules.num_actions, cfg.hidden,
                                          card_features=card, holder_features=holder)
    except ValueError as e:
        raise ConfigError(f"hidden: {e}") from None
    arch: dict[str, Any] = {"obs_size": width, "num_actions": rules.num_actions,
                            "hidden": hidden, "card_features": card,
                            "holder_features": holder}
    if players is not None:
        arch["players"] = players
    return arch


def _check_init_policy(cfg: DMCConfig, arch: Mapping[str, Any]) -> None:
    """Refuse a starting policy that is not a ``q`` policy of the run's rules and network.

    The file is loaded here (``agents.policy.load_policy_file`` checks it whole, and caches
    it for the trainer), so a file that is not a policy, such as a system file, or one of
    another shape is refused before a run directory is made.
    """
    if not isinstance(cfg.init_policy, str):
        raise ConfigError(f"init_policy: must be a policy file path or 'pretrained'; got "
                          f"{_quoted(cfg.init_policy)}")
    if not cfg.init_policy:
        return
    from agents.policy import PolicyLoadError, load_policy_file
    from gongzhu_env.rules import Rules

    try:
        net, data = load_policy_file(cfg.init_policy, Rules.coerce(cfg.rules))
    except PolicyLoadError as e:
        raise ConfigError(f"init_policy: {e}") from None
    if data.get("kind", "q") != "q" or net.architecture() != dict(arch):
        raise ConfigError(f"init_policy: {cfg.init_policy!r} holds a {data.get('kind')!r} "
                          f"network {net.architecture()}; this run needs a 'q' network "
                          f"{dict(arch)} (set hidden, card_features and holder_features to "
                          "the file's)")


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
    if cfg.search_labels:
        # Each set's manifest now (its chunks are checked when the trainer loads them), so a
        # mistyped directory is refused before a run directory is made.
        from gongzhu_env.rules import Rules
        from training.expert_iteration.labels import LabelError, check_label_set, label_dirs

        dirs = label_dirs(cfg.search_labels)
        try:
            if not dirs:
                raise LabelError(f"no label directory in {cfg.search_labels!r}")
            for d in dirs:
                check_label_set(d, Rules.coerce(cfg.rules))
        except LabelError as e:
            raise ConfigError(f"search_labels: {e}") from None


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
"""``DMCConfig.engine`` values."""


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
    if not cfg.eval_opponents:
        raise ConfigError("eval_opponents: must name at least one baseline (to skip the "
                          "evaluations set eval_deals and final_eval_deals to 0)")


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


def _int_field(cfg: object, name: str, least: int) -> None:
    """Refuse a field that is not an integer from ``least`` to its bound (``_bound_of``)."""
    v = getattr(cfg, name)
    most = _bound_of(name)
    if type(v) is not int or v < least or (most is not None and v > most):
        span = f"from {least} to {int(most):,}" if most is not None else \
            ("positive" if least > 0 else "non-negative")
        raise ConfigError(f"{name}: must be an integer {span}; got {_quoted(v)}")


def _positive_int(cfg: object, name: str) -> None:
    _int_field(cfg, name, 1)


def _nonneg_int(cfg: object, name: str) -> None:
    _int_field(cfg, name, 0)


def _positive_float(cfg: object, name: str) -> None:
    """Refuse a field that is not a finite number above 0 and at most its bound."""
    v = getattr(cfg, name)
    most = _bound_of(name)
    if isinstance(v, bool) or not isinstance(v, (int, float)) \
            or (isinstance(v, float) and not math.isfinite(v)) or v <= 0 \
            or (most is not None and v > most):
        upto = "" if most is None else f" up to {most:,.0f}" if most >= 1000 else \
            f" up to {most:g}"
        raise ConfigError(f"{name}: must be a positive number{upto}; got {_quoted(v)}")


def _quoted(value: object) -> str:
    """``repr(value)`` cut short and escaped: an error quotes the bad value, not megabytes."""
    from gongzhu_env.integrity import printable

    return printable(repr(value), 80)


def _probability(cfg: object, name: str) -> None:
    """Refuse a field that is not a number in [0, 1] (bools are not numbers here)."""
    v = getattr(cfg, name)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0:
        raise ConfigError(f"{name}: must be a probability in [0, 1]; got {_quoted(v)}")


def _flag(cfg: object, name: str) -> None:
    """Refuse a field that is not ``true`` or ``false`` (a string "no" would read as true)."""
    v = getattr(cfg, name)
    if type(v) is not bool:
        raise ConfigError(f"{name}: must be true or false; got {_quoted(v)}")


def _check_specs(specs: tuple[str, ...], name: str) -> None:
    """Every spec must build its agent; a list of at most ``MAX_OPPONENTS`` of them."""
    from agents import make_agent
    from agents.base import AgentError

    if not isinstance(specs, (list, tuple)):
        raise ConfigError(f"{name}: must be a list of agent specs; got {_quoted(specs)}")
    if len(specs) > MAX_OPPONENTS:
        raise ConfigError(f"{name}: at most {MAX_OPPONENTS} agent specs; got {len(specs):,}")
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
    if len(mix) > MAX_OPPONENTS:
        raise ConfigError(f"{name}: at most {MAX_OPPONENTS} opponents; got {len(mix):,}")
    total = sum(mix.values())
    if not 0 < total < math.inf:
        raise ConfigError(f"{name}: weights must not all be zero, and their sum must be "
                          f"finite; got {total!r}")
    _check_specs(tuple(s for s in mix if s not in SPECIAL_OPPONENTS), name)
