"""``TrainerConfig``: the fields and checks both trainers' configs share, declared once.

Both trainers (``DMCConfig``, ``SB3Config``) train one network for one game's rules from a
preset and a seed, against a mix of opponents, for a time budget, with periodic and final arena
evaluations, on one engine: those fields live here, each with one docstring, one default and one
check. A trainer's class redeclares a field only where its default differs, and says why under
it. The defaults here are the Deep Monte-Carlo trainer's (the ``quick`` preset of the trainer
the README starts with).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from gongzhu_env.match import EPISODES
from gongzhu_env.rules import Rules
from training.config.base import ConfigBase
from training.config.checks import (
    ConfigError,
    check_mix,
    check_specs,
    network_plan,
    nonneg_int,
    one_of,
    positive_float,
    positive_int,
    quoted,
)
from training.config.choices import ENGINES, PRESETS, REWARD_MODES

if TYPE_CHECKING:
    import torch

T = TypeVar("T", bound="TrainerConfig")


@dataclass
class TrainerConfig(ConfigBase):
    """What every trainer's config holds: identity, rules, network, rewards, opponents, budget.

    Use ``DMCConfig`` or ``SB3Config``; this class holds what they share, so that each shared
    field has one docstring and one check, and ``engine`` means the same for both.
    """

    trainer: ClassVar[str] = ""
    """The trainer's name in ``config.json`` (``TRAINERS``); not a field, each class has one."""

    # ------------------------------------------------------------------ identity
    preset: str = "quick"
    """Name of the preset this config started from (recorded in the run directory)."""

    seed: int = 0
    """Seeds Python's ``random``, numpy and torch, the deals (SB3: its envs) and every agent
    (one block, ``training.run.seed_everything``)."""

    rules: str | dict[str, Any] = "standard"
    """Rules the policy is trained for: a preset name (``gongzhu_env.rules.PRESETS``) or a
    dict of options (``Rules.from_dict``). The observation size, and with it the network's
    input, follows from them (``gongzhu_env.view.obs_size``). ``game_rules`` is the resolved
    ``Rules``."""

    episode: str = "hand"
    """``"hand"``: every game is one hand. ``"match"``: every game is a whole match
    (``gongzhu_env.match.Match``, to ``rules.match_threshold``); the observation adds the
    match blocks (cumulative scores, hands played) and what a decision earns runs to the end of
    the match, as the env's ``episode="match"`` rewards (DMC: a decision's target is everything
    its seat scores from there to the end; SB3: the learner keeps its seat to the end). With
    ``max_hands`` it decides what an episode is."""

    max_hands: int = 100
    """Match episodes only: a match still going after this many hands ends there (the env's
    safety cap, ``gongzhu_env.match.DEFAULT_MAX_HANDS``)."""

    # ------------------------------------------------------------------ network
    hidden: tuple[int, ...] = (256, 256)
    """Hidden layer widths of the network (DMC: the Q network, observation -> 53 action
    values; SB3: the policy and the value MLPs). In the DMC quick-preset measurements
    (docs/training.md, q2 and q6) the bigger 512-256 net trained about 30 % fewer decisions in
    the same minutes and was not better; the DMC full preset's 90 minutes use (512, 256)."""

    # ------------------------------------------------------------------ acting
    engine: str = "auto"
    """What plays the learner's tables: ``"batch"``, the compiled batched engine
    (``gongzhu_env.vector``: every table's observation written at once in compiled code,
    several times the decisions/s; DMC through ``training.dmc.batch_tables``, SB3 through
    ``training.sb3.vec_env.BatchVecEnv``); ``"scalar"``, one reference ``Game`` per table
    (every rule set, match episodes, and each trainer's own extras: DMC's mixed rules and
    rollout labels, SB3's rule agents at the table and envs in subprocesses); ``"auto"``: the
    batched engine wherever it covers the run, else the scalar one (``uses_batch_engine``).
    The shipped policies were trained on ``"scalar"``. Seeded runs of the two engines deal
    different hands (the batch has its own deal stream)."""

    # ------------------------------------------------------------------ targets
    reward_mode: str = "zero_sum"
    """``"zero_sum"``: own raw score minus the others' mean; ``"raw"``: own raw score;
    ``"team"`` (team rules only, and their default in ``make_config``): the team's result,
    which is what partners play for. With ``reward_scale`` (and DMC's ``reward_clip``) it fixes
    the targets' unit: a target is the result in this mode, divided by the scale."""

    reward_scale: float = 400.0
    """Results are divided by this (typical |zero-sum| is 100-400 points a hand)."""

    # ------------------------------------------------------------------ learning
    lr: float = 1e-3
    """Adam learning rate (DMC: at the start, see ``lr_final_fraction``; 3e-4 -> 1e-3 was part
    of the q1 -> q2 step of the quick measurements in docs/training.md)."""

    batch_size: int = 1024
    """Samples per gradient step (DMC: state, action, return; with ``sample_reuse`` it sets
    how many new samples pay for one step, ``batch_size / sample_reuse``)."""

    # ------------------------------------------------------------------ opponents
    opponent_mix: dict[str, float] = field(default_factory=lambda: {
        "self": 0.55, "snapshot": 0.2, "random": 0.05, "greedy": 0.1, "expert": 0.1})
    """Who fills the other seats next to the learner's own seat each game, by weight:
    ``"self"`` (the learner; in DMC it then learns from that seat too), ``"snapshot"`` (a
    frozen earlier copy, taken every ``snapshot_interval_s`` in DMC, ``snapshot_interval_steps``
    in SB3; before the first one those seats are the learner), or any agent spec for
    ``agents.make_agent`` (e.g. ``"greedy"``)."""

    snapshot_pool_size: int = 8
    """Most recent snapshots kept in the pool."""

    # ------------------------------------------------------------------ budget
    time_budget_s: float = 210.0
    """Wall-clock training budget in seconds (evaluations excluded); the run stops after it
    (SB3: at the first rollout boundary past it)."""

    # ------------------------------------------------------------------ evaluation
    eval_deals: int = 60
    """Deals per baseline in each periodic evaluation (duplicate: 4 seats each; 0: none).
    Evaluations run outside the training budget, so they are kept short."""

    eval_opponents: tuple[str, ...] = ("random", "greedy", "expert")
    """Baselines of the periodic and final evaluations (agent specs)."""

    final_eval_deals: int = 300
    """Deals per baseline in the evaluation at the end of training (0: skip)."""

    # ------------------------------------------------------------------ processes
    torch_threads: int = 1
    """Threads torch may use in the learner. 1: on a shared 2-core machine OpenMP threads
    spin-wait against the actor and other processes and run many times slower."""

    device: str = "auto"
    """Where the learner's network, optimiser and gradient steps run: ``"auto"`` (a CUDA GPU
    when torch sees one, else the CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``
    (``agents.devices``). Asking for CUDA where torch sees none is refused at once, naming what
    it found. The actors and the evaluations always play on the CPU (they score a few dozen
    rows at a time, too few for a GPU to pay off), with CPU copies of the weights; saved
    policies and checkpoints hold CPU tensors, so they load on either kind of machine. On a
    CPU the runs are the same as before the field existed."""

    def __setattr__(self, name: str, value: Any) -> None:
        """Set a field; a new ``rules`` value forgets the ``Rules`` resolved from the old one."""
        object.__setattr__(self, name, value)
        if name == "rules":
            self.__dict__.pop("game_rules", None)

    @functools.cached_property
    def game_rules(self) -> Rules:
        """The ``Rules`` that ``rules`` names, resolved once (again after ``rules`` is set).

        Every part of a run reads the rules from here instead of resolving ``rules`` itself.
        Assign a new value to ``rules`` rather than changing its dict in place: the
        assignment is what tells this property to resolve it again (``validate`` always
        does).
        """
        return Rules.coerce(self.rules)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict, with the trainer named (``config_from_dict`` reads it back)."""
        return {"trainer": self.trainer, **super().to_dict()}

    @classmethod
    def from_dict(cls: type[T], data: Mapping[str, Any]) -> T:
        """Rebuild a validated config of this trainer from ``to_dict()`` output.

        ``"trainer"``, if the dict names one, must be this class's: a run's ``config.json``
        read with the other trainer's class would be checked against the wrong fields.
        """
        if isinstance(data, Mapping) and "trainer" in data:
            data = dict(data)
            trainer = data.pop("trainer")
            if trainer != cls.trainer:
                raise ConfigError(f"trainer: {cls.__name__} is the {cls.trainer!r} trainer's "
                                  f"config; got {quoted(trainer)}")
        return super().from_dict(data)

    # ------------------------------------------------------------------ checks
    def validate(self) -> None:
        """Raise ``ConfigError`` naming the first invalid field.

        Every number is checked against its type, its lower bound and its upper bound
        (``training.config.bounds``), the network's shape against
        ``agents.policy.plan_network``, the opponents by building them and the engine against
        what it can play, so a config that passes builds and runs. The shared fields are
        checked first, then the trainer's own (``check_own``), then what depends on both.
        """
        self.__dict__.pop("game_rules", None)  # resolve the rules as they are now
        self.check_shared()
        self.check_own()
        self.check_network()
        self.check_opponents()
        self.check_engine()

    def check_shared(self) -> None:
        """Check the fields every trainer has that stand alone (identity, rewards, numbers)."""
        one_of(self, "preset", PRESETS)
        nonneg_int(self, "seed")
        try:
            rules = self.game_rules
        except (ValueError, TypeError) as e:
            raise ConfigError(f"rules: {e}") from None
        one_of(self, "reward_mode", REWARD_MODES)
        if self.reward_mode == "team" and not rules.has_teams:
            raise ConfigError("reward_mode: 'team' needs rules with teams (team_play or "
                              f"pig_sheep_team); the rules {self.rules!r} have none")
        one_of(self, "episode", EPISODES)
        positive_int(self, "max_hands")
        for name in ("batch_size", "snapshot_pool_size", "torch_threads"):
            positive_int(self, name)
        for name in ("eval_deals", "final_eval_deals"):
            nonneg_int(self, name)
        for name in ("lr", "reward_scale", "time_budget_s"):
            positive_float(self, name)
        self.torch_device()

    def torch_device(self) -> torch.device:
        """Return the ``torch.device`` that ``device`` names (``ConfigError`` if it is missing).

        Resolved by ``agents.devices.resolve_device``, the one resolver of device settings.
        """
        from agents.devices import DeviceError, resolve_device

        try:
            return resolve_device(self.device, "device")
        except DeviceError as e:
            raise ConfigError(str(e)) from None

    def check_own(self) -> None:
        """Check the fields of the trainer's own class (each trainer says what)."""
        raise NotImplementedError(f"{type(self).__name__} does not say how its fields are "
                                  "checked")

    def check_network(self) -> dict[str, Any]:
        """Check the network's widths and size; return the architecture a fresh one has.

        The input is the rules' observation (with the match blocks for match episodes); a
        trainer whose network reads more says so by overriding this.
        """
        from gongzhu_env.view import obs_size

        rules = self.game_rules
        return network_plan(self.hidden, obs_size(rules, self.episode == "match"),
                            rules.num_actions)

    def check_opponents(self) -> None:
        """Check who may sit at the table in training and in the evaluations."""
        check_mix(self.opponent_mix, "opponent_mix")
        check_specs(self.eval_opponents, "eval_opponents")
        if not self.eval_opponents:
            raise ConfigError("eval_opponents: must name at least one baseline (to skip the "
                              "evaluations set eval_deals and final_eval_deals to 0)")

    def check_engine(self) -> None:
        """Refuse an unknown engine, and ``"batch"`` where the batched engine cannot play.

        ``"auto"`` is never refused: it falls back on the scalar engine.
        """
        one_of(self, "engine", ENGINES)
        if self.engine == "batch":
            why = self.batch_engine_obstacle()
            if why is not None:
                raise ConfigError(f"engine: the batched engine cannot play this run: {why}; "
                                  "use engine='scalar' (or 'auto', which picks the batched "
                                  "engine only where it can)")

    # ------------------------------------------------------------------ engine
    def batch_engine_obstacle(self) -> str | None:
        """Say why the batched engine cannot play this run, or return ``None`` if it can.

        It plays single hands of the rules ``gongzhu_env.batch.check_covered``
        accepts (one deck or two); each trainer adds what its own side of the batched engine
        cannot do.
        """
        from gongzhu_env.batch import check_covered as check_batched

        try:
            check_batched(self.game_rules)
        except ValueError as e:
            return f"the rules {self.rules!r} are outside it ({e})"
        if self.episode != "hand":
            return f"it plays single hands, not match episodes (episode={self.episode!r})"
        return None

    def uses_batch_engine(self) -> bool:
        """Whether the learner's tables are played by the batched engine (``engine``, resolved).

        ``"auto"`` resolves to the batched engine exactly where ``"batch"`` would be accepted.
        """
        return self.engine == "batch" or (self.engine == "auto"
                                          and self.batch_engine_obstacle() is None)
