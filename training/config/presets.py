"""Named presets, and building a validated config from a preset or from a dict.

Presets (``make_config("quick" | "full" | "tiny", trainer=...)``), each written as the fields it
changes from the class defaults, so that a preset reads as what makes it different:

* ``quick``: the defaults. About 4 minutes of Deep Monte-Carlo on 2 cores; enough to beat
  ``random`` and ``greedy`` clearly. What the README's first command runs.
* ``full``: the shipped policy: 90 minutes of training (wall clock, evaluations excluded) on
  2 cores; the issue allows up to two hours, the session that trained the shipped weights had
  about one and a half.
* ``tiny``: a few seconds in one process, for tests and smoke runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from training.config.checks import ConfigError, quoted
from training.config.choices import BATCH_OPPONENT_MIX, BATCH_OPPONENTS, PRESETS, TRAINERS
from training.config.dmc import DMCConfig
from training.config.sb3 import SB3Config

Config = DMCConfig | SB3Config
"""A config of either trainer."""

CONFIGS: dict[str, type[DMCConfig] | type[SB3Config]] = {"dmc": DMCConfig, "sb3": SB3Config}
"""The config class of each trainer, by the name ``config.json`` gives it."""

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
_PRESETS = {"dmc": _DMC_PRESETS, "sb3": _SB3_PRESETS}

_FORMER_DMC_DEFAULTS: dict[str, Any] = {
    "hidden": (512, 512, 256), "card_features": False, "lr": 3e-4, "sample_reuse": 2.0,
    "min_replay": 8192, "epsilon_start": 0.2, "epsilon_end": 0.02,
    "epsilon_decay_decisions": 2_000_000, "snapshot_interval_s": 120.0,
    "time_budget_s": 240.0, "eval_interval_s": 60.0, "eval_deals": 100, "final_eval_deals": 500,
    "engine": "scalar", "precision": "float32", "obs_dtype": "float32",
}
"""``DMCConfig`` defaults before they became the quick preset. A ``config.json`` written before
one of these fields existed meant this value, so ``load_config`` fills it in."""
_FORMER_SB3_DEFAULTS: dict[str, Any] = {"total_timesteps": 200_000}
"""``SB3Config`` defaults before they became the quick preset (see ``_FORMER_DMC_DEFAULTS``)."""
FORMER_DEFAULTS = {"dmc": _FORMER_DMC_DEFAULTS, "sb3": _FORMER_SB3_DEFAULTS}
"""Each trainer's former defaults, by trainer name (``load_config`` reads them)."""


def _has_teams(rules: Any) -> bool:
    """Whether a rules value names rules with teams (False if it is not valid).

    ``make_config`` asks before any config exists (to pick the reward), so the value is
    resolved here rather than by a config's ``game_rules``.
    """
    from gongzhu_env.rules import Rules

    try:
        return Rules.coerce(rules).has_teams
    except (ValueError, TypeError):
        return False  # validation names the bad value


def _choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    """Refuse a trainer or preset name outside ``choices``, by name, before a class is picked."""
    if not isinstance(value, str) or value not in choices:
        raise ConfigError(f"{name}: must be one of {choices}; got {quoted(value)}")


def make_config(preset: str = "quick", trainer: str = "dmc", **overrides: Any) -> Config:
    """Build and validate the config of a preset, with field overrides.

    Under team rules the reward is the team's result unless ``reward_mode`` is given: a seat
    that learns its own score would learn to play against its partner. An SB3 config with
    ``engine="batch"`` whose preset's mix names a rule agent takes ``BATCH_OPPONENT_MIX``
    instead, unless ``opponent_mix`` is given (``engine="auto"`` keeps the mix, and picks the
    scalar engine for it).
    """
    _choice("trainer", trainer, TRAINERS)
    _choice("preset", preset, PRESETS)
    values = {**_PRESETS[trainer][preset], **overrides, "preset": preset}
    if "reward_mode" not in values and _has_teams(values.get("rules")):
        values["reward_mode"] = "team"
    if trainer == "sb3" and values.get("engine") == "batch" and "opponent_mix" not in overrides \
            and any(s not in BATCH_OPPONENTS for s in values.get("opponent_mix",
                                                                 SB3Config().opponent_mix)):
        # The preset's mix names a rule agent, which the batched engine cannot seat.
        values["opponent_mix"] = dict(BATCH_OPPONENT_MIX)
    return config_from_dict({"trainer": trainer, **values})


def config_from_dict(data: Mapping[str, Any]) -> Config:
    """Rebuild a config from ``to_dict()`` output (e.g. a run's ``config.json``), validated.

    ``"trainer"`` picks the class (``"dmc"`` when absent, as in the oldest files).
    """
    trainer = data.get("trainer", "dmc")
    _choice("trainer", trainer, TRAINERS)
    return CONFIGS[trainer].from_dict({**data, "trainer": trainer})
