"""``SB3Config``: the MaskablePPO trainer's config (``training.sb3``).

The fields both trainers have, and their checks, are ``TrainerConfig``'s; this class adds PPO's
own (envs, rollouts, epochs, discount, entropy, schedules counted in learner steps), redeclares
the shared fields whose default differs for PPO, and says what its side of the batched engine
(``training.sb3.vec_env.BatchVecEnv``) cannot play.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import ClassVar

from training.config.bounds import MAX_ROLLOUT
from training.config.checks import (
    ConfigError,
    flag,
    fraction,
    nonneg_float,
    positive_int,
)
from training.config.choices import BATCH_OPPONENT_MIX, BATCH_OPPONENTS
from training.config.trainer import TrainerConfig


@dataclass
class SB3Config(TrainerConfig):
    """MaskablePPO (sb3-contrib) on the single-seat env, against an opponent pool.

    The defaults are the ``quick`` preset, like ``DMCConfig``'s. The fields both trainers have
    are ``TrainerConfig``'s; those redeclared here are the ones whose default differs for PPO.
    """

    trainer: ClassVar[str] = "sb3"
    """MaskablePPO (``training.sb3``)."""

    # ------------------------------------------------------------------ envs
    n_envs: int = 8
    """Vectorised single-seat envs."""

    subproc: bool = False
    """Run the envs in subprocesses (``SubprocVecEnv``) instead of in this process."""

    engine: str = "scalar"
    """Where the learner's tables are played (as ``TrainerConfig.engine``). ``"scalar"``:
    ``n_envs`` single-seat envs of the Python engine (``gongzhu_env.wrappers.SingleSeatEnv``)
    in a ``DummyVecEnv`` or ``SubprocVecEnv``; every opponent spec can sit there.
    ``"batch"``: the ``n_envs`` tables of one ``gongzhu_env.vector_env.SingleSeatVectorEnv`` on
    the compiled batched engine (``training.sb3.vec_env.BatchVecEnv``), in this process, the
    opponents played in batch: only ``"random"``, ``"self"`` and ``"snapshot"`` (rule agents
    need Python views), single hands only, and rules the batched engine covers. Its default mix
    is ``BATCH_OPPONENT_MIX``. Many tables and short rollouts suit it (e.g. ``n_envs=64``,
    ``n_steps=32``). ``"auto"``: the batched engine wherever it covers the run. The default is
    ``"scalar"``, not DMC's ``"auto"``: the quick and full presets' mix seats ``greedy``, which
    the batched engine cannot, and seeded runs keep dealing the hands they always dealt (the
    batched engine has its own deal stream)."""

    # ------------------------------------------------------------------ PPO
    n_steps: int = 256
    """Learner steps per env per PPO rollout."""

    batch_size: int = 512
    """PPO minibatch size, where DMC's is a gradient step drawn from its replay buffer: a
    quick rollout of ``n_envs * n_steps`` = 2,048 samples makes four minibatches an epoch."""

    n_epochs: int = 4
    """PPO epochs per rollout."""

    lr: float = 3e-4
    """Adam learning rate: 3e-4, stable-baselines3's PPO default and the rate both trainers
    started from; the quick measurements that raised DMC's to 1e-3 (docs/training.md, q1 ->
    q2) did not cover PPO."""

    gamma: float = 1.0
    """Discount; 1 because only the hand result counts."""

    ent_coef: float = 0.01
    """Entropy bonus."""

    # ------------------------------------------------------------------ opponents
    opponent_mix: dict[str, float] = field(default_factory=lambda: {
        "self": 0.4, "snapshot": 0.3, "random": 0.1, "greedy": 0.2})
    """Who fills the three other seats, by weight (as ``TrainerConfig.opponent_mix``;
    ``"self"`` is the current policy acting greedily). PPO keeps its own mix: the quick
    measurements that settled DMC's (docs/training.md, q5) did not cover PPO."""

    snapshot_interval_steps: int = 50_000
    """Learner steps between snapshots added to the opponent pool."""

    snapshot_pool_size: int = 5
    """Most recent snapshots kept. PPO takes one every ``snapshot_interval_steps``, at most
    six in a quick run's ``total_timesteps``, so five keep nearly all of them; DMC, which
    snapshots by the clock, keeps more."""

    # ------------------------------------------------------------------ budget and schedule
    total_timesteps: int = 300_000
    """Learner steps to train for (the time budget usually stops a quick run first)."""

    time_budget_s: float = 240.0
    """Wall-clock budget; training stops at the first rollout boundary past it. Four minutes:
    the quick budget both trainers had (``_FORMER_DMC_DEFAULTS``) until DMC's quick preset was
    measured at 210 s (docs/training.md); PPO's was not re-measured."""

    checkpoint_interval_steps: int = 50_000
    """Learner steps between checkpoints."""

    eval_interval_steps: int = 50_000
    """Learner steps between arena evaluations (learning curve)."""

    # ------------------------------------------------------------------ evaluation
    eval_deals: int = 100
    """Deals per baseline in each periodic evaluation (0: none): the size both trainers had
    (``_FORMER_DMC_DEFAULTS``) before DMC's quick preset took 60."""

    final_eval_deals: int = 500
    """Deals per baseline at the end (0: skip): the size both trainers had
    (``_FORMER_DMC_DEFAULTS``) before DMC's quick preset took 300."""

    # ------------------------------------------------------------------ checks
    def check_own(self) -> None:
        """Check PPO's own fields: sizes, schedules, discount, entropy, subprocesses."""
        for name in ("n_envs", "n_steps", "n_epochs", "snapshot_interval_steps",
                     "total_timesteps", "checkpoint_interval_steps", "eval_interval_steps"):
            positive_int(self, name)
        if self.n_envs * self.n_steps > MAX_ROLLOUT:
            raise ConfigError(f"n_steps: a rollout of n_envs * n_steps = "
                              f"{self.n_envs * self.n_steps:,} samples is held in memory at "
                              f"once; at most {MAX_ROLLOUT:,}")
        fraction(self, "gamma", above_zero=True)
        nonneg_float(self, "ent_coef")
        flag(self, "subproc")

    def batch_engine_obstacle(self) -> str | None:
        """Say why the batched engine cannot play this run, or return ``None`` if it can.

        Besides the rules (one deck or two) and single hands (``TrainerConfig``), the batched env
        plays every table in this process, and seats only ``BATCH_OPPONENTS``: a rule agent
        reads a Python view one seat at a time, which the batched engine does not make.
        """
        for spec in self.opponent_mix:
            if spec not in BATCH_OPPONENTS:
                return (f"{spec!r} cannot play with engine='batch' (opponent_mix names it): "
                        f"rule agents read Python views one seat at a time, and the batched "
                        f"engine plays "
                        f"{', '.join(repr(s) for s in BATCH_OPPONENTS)} only. Remove {spec!r} "
                        f"from the mix (e.g. --set opponent_mix="
                        f"'{json.dumps(BATCH_OPPONENT_MIX)}')")
        why = super().batch_engine_obstacle()
        if why is not None:
            return why
        if self.subproc:
            return "it runs every table in this process, not in subprocesses (subproc=true)"
        return None
