"""The fixed lists a config's text fields choose from, each written once for every trainer.

A value outside its list is refused by name when the config is validated; keeping the lists here,
apart from the classes, lets the checks, the presets and the command line quote the same tuple.
"""

from __future__ import annotations

PRESETS = ("quick", "full", "tiny")
"""Named starting points of a config (``make_config``): ``quick`` is the dataclass defaults."""
TRAINERS = ("dmc", "sb3")
"""The trainers, as ``config.json``'s ``"trainer"`` names them."""
REWARD_MODES = ("zero_sum", "raw", "team")
"""What a seat's result is (``TrainerConfig.reward_mode``)."""
SPECIAL_OPPONENTS = ("self", "snapshot")
"""Opponent names that are not agent specs: the learner, and a frozen copy of it."""
ENGINES = ("auto", "batch", "scalar")
"""``TrainerConfig.engine`` values, the same for both trainers: ``"auto"`` is the batched
engine wherever it covers the run (``TrainerConfig.uses_batch_engine``)."""
PRECISIONS = ("auto", "float32", "bfloat16")
"""``DMCConfig.precision`` values (``training.dmc.precision`` resolves them)."""
OBS_DTYPES = ("uint8", "float32")
"""``DMCConfig.obs_dtype`` values: the numpy dtype the batched engine writes observations in
(``gongzhu_env.batch.GameBatch(obs_dtype=...)``)."""
BATCH_OPPONENTS = ("random", "self", "snapshot")
"""Who can sit at the SB3 learner's tables on the batched engine: rule agents read Python
views one seat at a time, which the batched engine does not make."""
BATCH_OPPONENT_MIX = {"self": 0.5, "snapshot": 0.375, "random": 0.125}
"""``SB3Config.opponent_mix`` when ``engine="batch"`` and no mix is given: the default mix
without its rule agent (which cannot play in the batched engine), in the same proportions."""
