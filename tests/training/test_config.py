"""Training configurations: validation and presets (training.config)."""

from __future__ import annotations

import pytest

from training.config import ConfigError, DMCConfig, make_config


@pytest.mark.parametrize("overrides, field", [
    ({"num_tables": -1}, "num_tables"),
    ({"batch_size": 0}, "batch_size"),
    ({"hidden": (64, -2)}, "hidden"),
    ({"lr": -1e-3}, "lr"),
    ({"epsilon_start": 1.5}, "epsilon_start"),
    ({"reward_mode": "team"}, "reward_mode"),
    ({"opponent_mix": {"self": 1.0, "nosuchagent": 1.0}}, "opponent_mix"),
    ({"opponent_mix": {"self": -1.0}}, "opponent_mix"),
    ({"eval_opponents": ("greedy", "grandmaster")}, "eval_opponents"),
    ({"rules": "nosuchrules"}, "rules"),
    ({"no_such_field": 1}, "no_such_field"),
    ({"rollout_share": 1.5}, "rollout_share"),
    ({"rollout_share_final": -0.1}, "rollout_share_final"),
    ({"rollout_policy": "oracle"}, "rollout_policy"),
    ({"select_last": -1}, "select_last"),
    ({"select_opponent": "nobody"}, "select_opponent"),
    ({"select_average": "yes"}, "select_average"),
])
def test_bad_config_values_are_refused_naming_the_field(overrides, field):
    with pytest.raises(ConfigError, match=f"^{field}:"):
        make_config("quick", "dmc", **overrides)


def test_bad_sb3_config_and_unknown_preset_or_trainer_are_refused():
    with pytest.raises(ConfigError, match="^n_envs:"):
        make_config("quick", "sb3", n_envs=0)
    with pytest.raises(ConfigError, match="^preset:"):
        make_config("huge", "dmc")
    with pytest.raises(ConfigError, match="^trainer:"):
        make_config("quick", "a3c")


def test_presets_are_valid_and_documented():
    import ast
    import inspect
    import textwrap

    from training.config import SB3Config

    for trainer in ("dmc", "sb3"):
        for preset in ("quick", "full", "tiny"):
            assert make_config(preset, trainer).preset == preset
    for cls in (DMCConfig, SB3Config):
        body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0].body
        documented = {
            stmt.target.id for stmt, nxt in zip(body, body[1:], strict=False)
            if isinstance(stmt, ast.AnnAssign) and isinstance(nxt, ast.Expr)
            and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str)
        }
        import dataclasses

        fields = {f.name for f in dataclasses.fields(cls)}
        assert fields == documented, f"{cls.__name__}: undocumented {fields - documented}"
