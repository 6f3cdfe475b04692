"""Every number of a training config is bounded on both sides and typed (training.config).

A value past a bound is refused by ``validate()`` with the field's name, on a new config and on
a run's ``config.json`` read back for ``--resume``: before the fix a thread count of a million
crashed torch, a billion-wide layer or a trillion tables reached the allocator, and a string
for a flag read as true.
"""

from __future__ import annotations

import dataclasses
import json
import math

import pytest

from training.config import (
    MAX_BATCH,
    MAX_REPLAY,
    MAX_SEED,
    MAX_TABLES,
    MAX_THREADS,
    ConfigError,
    DMCConfig,
    SB3Config,
    load_config,
    make_config,
    save_config,
)

TRAINERS = {"dmc": DMCConfig, "sb3": SB3Config}


def _numeric_fields(cls: type) -> list[str]:
    """Names of the fields that hold a number (the annotations are strings here)."""
    return [f.name for f in dataclasses.fields(cls)
            if f.type in ("int", "float", "float | None")]


NUMERIC = [(trainer, name) for trainer, cls in TRAINERS.items()
           for name in _numeric_fields(cls)]
ZERO_ALLOWED = {"seed", "min_replay", "epsilon_decay_decisions", "total_decisions",
                "eval_deals", "final_eval_deals", "num_actors", "select_last", "epsilon_start",
                "epsilon_end", "td_lambda", "rollout_share", "rollout_share_final",
                "search_label_share", "lr_final_fraction", "ent_coef"}
"""Fields where 0 means something (none, off, from the start); every other number must be
above 0."""


def test_the_numeric_fields_are_found():
    # The sweep below covers every number of both configs, not an empty list.
    assert len(NUMERIC) > 45
    assert ("dmc", "torch_threads") in NUMERIC and ("sb3", "n_envs") in NUMERIC


@pytest.mark.parametrize("trainer, name", NUMERIC)
@pytest.mark.parametrize("value", [-1, 10**30, 1e300, math.nan, math.inf, "7", [7], True])
def test_every_numeric_field_refuses_negative_huge_and_wrongly_typed_values(trainer, name,
                                                                            value):
    with pytest.raises(ConfigError, match=f"^{name}:"):
        make_config("tiny", trainer, **{name: value})


@pytest.mark.parametrize("trainer, name", [n for n in NUMERIC if n[1] not in ZERO_ALLOWED])
def test_fields_that_count_something_refuse_zero(trainer, name):
    with pytest.raises(ConfigError, match=f"^{name}:"):
        make_config("tiny", trainer, **{name: 0})


@pytest.mark.parametrize("trainer, overrides", [
    ("dmc", {"torch_threads": MAX_THREADS}),
    ("dmc", {"num_tables": MAX_TABLES}),
    ("dmc", {"replay_size": MAX_REPLAY, "batch_size": MAX_BATCH, "actor_chunk": MAX_BATCH}),
    ("dmc", {"seed": MAX_SEED}),
    ("sb3", {"torch_threads": MAX_THREADS, "seed": MAX_SEED, "n_envs": 64, "n_steps": 4096}),
])
def test_the_bounds_themselves_are_accepted(trainer, overrides):
    cfg = make_config("tiny", trainer, **overrides)
    assert all(getattr(cfg, k) == v for k, v in overrides.items())


@pytest.mark.parametrize("trainer, overrides, field, why", [
    ("dmc", {"torch_threads": 1_000_000}, "torch_threads", "from 1 to 256"),
    ("sb3", {"torch_threads": 1_000_000}, "torch_threads", "from 1 to 256"),
    ("dmc", {"num_tables": 10**12}, "num_tables", "from 1 to 16,384"),
    ("dmc", {"num_actors": 100_000}, "num_actors", "from 0 to 256"),
    ("dmc", {"seed": 2**32}, "seed", "from 0 to 4,294,967,295"),
    ("sb3", {"n_envs": 10_000, "n_steps": 10_000}, "n_steps", "at most 262,144"),
    # Layer widths: by type, by width, by count and by the weights they make together.
    ("dmc", {"hidden": [10**9]}, "hidden", "up to 16,384"),
    ("dmc", {"hidden": [1e9]}, "hidden", "up to 16,384"),
    ("sb3", {"hidden": [10**9]}, "hidden", "up to 16,384"),
    ("dmc", {"hidden": [16] * 17}, "hidden", "at most 16 hidden layers"),
    ("dmc", {"hidden": [16384, 16384]}, "hidden", "at most 20,000,000"),
    ("dmc", {"hidden": "wide"}, "hidden", "non-empty list"),
    ("dmc", {"hidden": 7}, "hidden", "non-empty list"),
    ("dmc", {"hidden": []}, "hidden", "non-empty list"),
    # Flags, lists and names of the wrong type.
    ("dmc", {"card_features": "no"}, "card_features", "true or false"),
    ("dmc", {"holder_features": 1}, "holder_features", "true or false"),
    ("sb3", {"subproc": "no"}, "subproc", "true or false"),
    ("dmc", {"rules_mix": 0}, "rules_mix", "list of rule sets"),
    ("dmc", {"rollout_policy": ["expert"]}, "rollout_policy", "must be one of"),
    # Both trainers take the same engines (ENGINES), "auto" included.
    ("sb3", {"engine": "gpu"}, "engine", "must be one of ('auto', 'batch', 'scalar')"),
    ("dmc", {"engine": "gpu"}, "engine", "must be one of ('auto', 'batch', 'scalar')"),
    ("dmc", {"eval_opponents": 5}, "eval_opponents", "list of agent specs"),
    ("sb3", {"eval_opponents": []}, "eval_opponents", "at least one baseline"),
    ("dmc", {"eval_opponents": ["random"] * 65}, "eval_opponents", "at most 64"),
    ("dmc", {"opponent_mix": {"self": 1e308, "random": 1e308}}, "opponent_mix", "finite"),
])
def test_sizes_counts_and_types_are_refused_naming_the_bound(trainer, overrides, field, why):
    with pytest.raises(ConfigError, match=f"^{field}:") as e:
        make_config("tiny", trainer, **overrides)
    assert why in str(e.value)


def test_a_starting_policy_must_be_a_policy_file(tmp_path):
    text = tmp_path / "passwd"
    text.write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="^init_policy: cannot read policy file"):
        make_config("tiny", "dmc", init_policy=str(text))
    with pytest.raises(ConfigError, match="^init_policy: policy file not found"):
        make_config("tiny", "dmc", init_policy=str(tmp_path))


def test_a_label_set_is_checked_by_its_manifest_before_a_run(tmp_path):
    with pytest.raises(ConfigError, match="^search_labels: .*not a label set"):
        make_config("tiny", "dmc", search_labels=str(tmp_path), search_label_share=0.5)


@pytest.mark.parametrize("trainer", ["dmc", "sb3"])
@pytest.mark.parametrize("field, value", [("torch_threads", 1_000_000),
                                          ("hidden", [1_000_000_000]),
                                          ("seed", -5), ("batch_size", 10**12)])
def test_a_config_json_read_back_for_resume_is_held_to_the_same_bounds(tmp_path, trainer,
                                                                        field, value):
    path = tmp_path / "config.json"
    save_config(make_config("tiny", trainer), str(path))
    data = json.loads(path.read_text(encoding="utf-8"))
    data[field] = value
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ConfigError, match=f"config.json: {field}:"):
        load_config(str(path))
