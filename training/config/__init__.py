"""Training configurations: one documented dataclass per trainer, named presets, validation.

Every field carries a docstring saying what it does and why its default is what it is; the
defaults *are* the ``quick`` run, so the docstrings describe a run people actually train. A
config is validated as a whole before any work starts (``validate()``), so a negative size, an
unknown preset or an opponent spec that names no agent fails at once with the field's name,
never an hour into a run. ``to_dict``/``config_from_dict`` round-trip through the run
directory's ``config.json`` (resume reads it back with ``load_config``).

==============  ==========================================================================
``base``        ``ConfigBase`` (field docstrings, ``to_dict``, ``from_dict``, ``validate``)
                and ``add_field_options``: what every settings dataclass of ``training``
                builds on, the expert-iteration recipes and label specs included
``checks``      ``ConfigError`` and the checkers of single values
``bounds``      the upper bound of every number (``MAX_*``)
``choices``     the fixed lists text fields choose from (``PRESETS``, ``ENGINES`` ...)
``trainer``     ``TrainerConfig``: the fields and checks both trainers share, once
``dmc``         ``DMCConfig``, Deep Monte-Carlo's own fields and checks
``sb3``         ``SB3Config``, MaskablePPO's own fields and the defaults it changes
``presets``     the presets, ``make_config`` and ``config_from_dict``
``files``       ``save_config`` and ``load_config`` (a run's ``config.json``)
==============  ==========================================================================

Everything is imported from here (``from training.config import make_config``); the modules
are this package's own layout.
"""

from training.config.base import ConfigBase, add_field_options, field_docs
from training.config.bounds import (
    MAX_ACTORS,
    MAX_BATCH,
    MAX_CANDIDATES,
    MAX_EPOCHS,
    MAX_FACTOR,
    MAX_MATCH_HANDS,
    MAX_OPPONENTS,
    MAX_REPLAY,
    MAX_REUSE,
    MAX_ROLLOUT,
    MAX_SECONDS,
    MAX_SEED,
    MAX_SNAPSHOTS,
    MAX_STEPS,
    MAX_TABLES,
    MAX_THREADS,
)
from training.config.checks import ConfigError
from training.config.choices import (
    BATCH_OPPONENT_MIX,
    BATCH_OPPONENTS,
    ENGINES,
    PRECISIONS,
    PRESETS,
    REWARD_MODES,
    SPECIAL_OPPONENTS,
    TRAINERS,
)
from training.config.dmc import DMCConfig
from training.config.files import MAX_CONFIG_BYTES, load_config, save_config
from training.config.presets import _DMC_PRESETS as _DMC_PRESETS
from training.config.presets import _FORMER_DMC_DEFAULTS as _FORMER_DMC_DEFAULTS
from training.config.presets import _FORMER_SB3_DEFAULTS as _FORMER_SB3_DEFAULTS
from training.config.presets import _SB3_PRESETS as _SB3_PRESETS
from training.config.presets import (
    CONFIGS,
    Config,
    config_from_dict,
    make_config,
)
from training.config.sb3 import SB3Config
from training.config.trainer import TrainerConfig

__all__ = [
    "BATCH_OPPONENTS", "BATCH_OPPONENT_MIX", "CONFIGS", "Config", "ConfigBase", "ConfigError",
    "DMCConfig", "ENGINES", "MAX_ACTORS", "MAX_BATCH", "MAX_CANDIDATES", "MAX_CONFIG_BYTES",
    "MAX_EPOCHS", "MAX_FACTOR", "MAX_MATCH_HANDS", "MAX_OPPONENTS", "MAX_REPLAY", "MAX_REUSE",
    "MAX_ROLLOUT", "MAX_SECONDS", "MAX_SEED", "MAX_SNAPSHOTS", "MAX_STEPS", "MAX_TABLES",
    "MAX_THREADS", "PRECISIONS", "PRESETS", "REWARD_MODES", "SB3Config", "SPECIAL_OPPONENTS",
    "TRAINERS", "TrainerConfig", "add_field_options", "config_from_dict", "field_docs",
    "load_config", "make_config", "save_config",
]
# The private preset tables imported above ("X as X": re-exported) are for the tests that hold
# the presets to the defaults and old config.json files to their former defaults; not the API.
