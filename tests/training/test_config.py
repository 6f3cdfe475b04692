"""Training configurations: validation and presets (training.config)."""

from __future__ import annotations

import json

import pytest

from gongzhu_env.rules import Rules
from training.config import ConfigError, DMCConfig, load_config, make_config, save_config


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
    ({"episode": "season"}, "episode"),
    ({"rules_mix": "standard"}, "rules_mix"),
    ({"rules_mix": ["standard", "nosuch"]}, "rules_mix"),
    ({"rules_mix": ["standard", "standard"]}, "rules_mix"),
    ({"rules_mix": ["huapai", "online"]}, "rules_mix"),
    ({"rules_mix": ["standard", "huapai"], "episode": "match"}, "rules_mix"),
    ({"rules_mix": ["standard", "huapai"], "select_last": 2}, "rules_mix"),
    ({"episode": "match", "max_hands": 0}, "max_hands"),
    ({"episode": "match", "rollout_share": 0.5}, "rollout_share"),
    ({"episode": "match", "rollout_share_final": 0.2}, "rollout_share"),
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
    import dataclasses

    for cls in (DMCConfig, SB3Config):
        # A field may be declared in the trainer's class or in the base both share
        # (TrainerConfig); wherever it is declared, a docstring stands under it.
        documented = set()
        for klass in cls.__mro__:
            if not dataclasses.is_dataclass(klass):
                continue
            body = ast.parse(textwrap.dedent(inspect.getsource(klass))).body[0].body
            documented |= {
                stmt.target.id for stmt, nxt in zip(body, body[1:], strict=False)
                if isinstance(stmt, ast.AnnAssign) and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str)
            }
        fields = {f.name for f in dataclasses.fields(cls)}
        assert fields <= documented, f"{cls.__name__}: undocumented {fields - documented}"


# What each preset produced before the defaults became the quick preset, written out once from
# that code: the quick run field by field, the other presets as their changes to it.
DMC_QUICK = {
    "preset": "quick", "seed": 0, "rules": "standard", "rules_mix": [], "episode": "hand",
    "max_hands": 100, "hidden": [256, 256],
    "card_features": True, "holder_features": False, "init_policy": "", "num_tables": 128,
    "engine": "auto", "obs_dtype": "uint8",
    "epsilon_start": 0.05, "epsilon_end": 0.01, "epsilon_decay_decisions": 1_000_000,
    "reward_mode": "zero_sum", "reward_scale": 400.0, "reward_clip": 4.0, "td_lambda": 0.8,
    "rollout_share": 0.0, "rollout_share_final": None, "rollout_policy": "expert",
    "rollout_level_weight": 0.25, "lr": 0.001, "lr_final_fraction": 1.0, "batch_size": 1024,
    "replay_size": 131_072, "sample_reuse": 1.0, "min_replay": 4096, "max_grad_norm": 10.0,
    "opponent_mix": {"self": 0.55, "snapshot": 0.2, "random": 0.05, "greedy": 0.1,
                     "expert": 0.1},
    "snapshot_interval_s": 45.0, "snapshot_pool_size": 8, "time_budget_s": 210.0,
    "total_decisions": 0, "checkpoint_interval_s": 60.0, "log_interval_s": 10.0,
    "eval_interval_s": 70.0, "eval_deals": 60, "eval_opponents": ["random", "greedy", "expert"],
    "final_eval_deals": 300, "select_last": 0, "select_deals": 1000, "select_opponent": "expert",
    "select_average": True, "num_actors": 1, "sync_interval_s": 1.0, "actor_chunk": 1024,
    "torch_threads": 1, "device": "auto", "precision": "float32", "search_labels": "",
    "search_label_share": 0.0,
}
DMC_CHANGES = {
    "quick": {},
    "full": {"time_budget_s": 5400.0, "hidden": [512, 256], "lr_final_fraction": 0.1,
             "min_replay": 8192, "epsilon_decay_decisions": 4_000_000, "num_actors": 2,
             "opponent_mix": {"self": 0.4, "snapshot": 0.15, "expert": 0.3, "greedy": 0.1,
                              "random": 0.05},
             "snapshot_interval_s": 300.0, "checkpoint_interval_s": 180.0,
             "eval_interval_s": 600.0, "eval_deals": 150, "final_eval_deals": 1000,
             "precision": "auto"},
    "tiny": {"time_budget_s": 4.0, "hidden": [32, 32], "card_features": False, "num_tables": 8,
             "num_actors": 0, "actor_chunk": 64, "lr": 0.0003, "batch_size": 64,
             "replay_size": 2048, "min_replay": 128, "sample_reuse": 2.0, "epsilon_start": 0.2,
             "epsilon_end": 0.02, "epsilon_decay_decisions": 1000,
             "opponent_mix": {"self": 0.5, "snapshot": 0.25, "random": 0.25},
             "snapshot_interval_s": 1.0, "checkpoint_interval_s": 1.0, "log_interval_s": 0.5,
             "eval_interval_s": 2.0, "eval_deals": 2, "eval_opponents": ["random"],
             "final_eval_deals": 2},
}
SB3_QUICK = {
    "preset": "quick", "seed": 0, "rules": "standard", "episode": "hand", "max_hands": 100,
    "hidden": [256, 256], "n_envs": 8,
    "subproc": False, "engine": "scalar", "n_steps": 256, "batch_size": 512, "n_epochs": 4,
    "lr": 0.0003,
    "gamma": 1.0, "ent_coef": 0.01, "reward_mode": "zero_sum", "reward_scale": 400.0,
    "opponent_mix": {"self": 0.4, "snapshot": 0.3, "random": 0.1, "greedy": 0.2},
    "snapshot_interval_steps": 50_000, "snapshot_pool_size": 5, "total_timesteps": 300_000,
    "time_budget_s": 240.0, "checkpoint_interval_steps": 50_000, "eval_interval_steps": 50_000,
    "eval_deals": 100, "eval_opponents": ["random", "greedy", "expert"], "final_eval_deals": 500,
    "torch_threads": 1, "device": "auto",
}
SB3_CHANGES = {
    "quick": {},
    "full": {"total_timesteps": 5_000_000, "time_budget_s": 3600.0, "n_envs": 16},
    "tiny": {"total_timesteps": 256, "n_envs": 2, "n_steps": 64, "batch_size": 64,
             "n_epochs": 1, "hidden": [32], "snapshot_interval_steps": 128,
             "checkpoint_interval_steps": 128, "eval_interval_steps": 128, "eval_deals": 2,
             "final_eval_deals": 2, "eval_opponents": ["random"], "time_budget_s": 60.0,
             "opponent_mix": {"self": 0.5, "snapshot": 0.25, "random": 0.25}},
}


def _as_json(cfg) -> dict:
    return json.loads(json.dumps(cfg.to_dict()))


@pytest.mark.parametrize("trainer", ["dmc", "sb3"])
@pytest.mark.parametrize("preset", ["quick", "full", "tiny"])
def test_presets_make_the_configurations_they_always_made(trainer, preset):
    quick, changes = (DMC_QUICK, DMC_CHANGES) if trainer == "dmc" else (SB3_QUICK, SB3_CHANGES)
    want = {"trainer": trainer, **quick, **changes[preset], "preset": preset}
    assert _as_json(make_config(preset, trainer)) == want


def test_the_defaults_are_the_quick_preset_and_presets_name_only_changes():
    from training.config import _DMC_PRESETS, _SB3_PRESETS, SB3Config

    assert make_config("quick") == DMCConfig()
    assert make_config("quick", "sb3") == SB3Config()
    for table, cls in ((_DMC_PRESETS, DMCConfig), (_SB3_PRESETS, SB3Config)):
        defaults = cls()
        for preset, changes in table.items():
            same = [k for k, v in changes.items() if getattr(defaults, k) == v]
            assert not same, f"preset {preset!r} repeats defaults: {same}"


@pytest.mark.parametrize("trainer", ["dmc", "sb3"])
@pytest.mark.parametrize("preset", ["quick", "full", "tiny"])
def test_a_saved_config_loads_back_unchanged(tmp_path, trainer, preset):
    from training.config import load_config, save_config

    cfg = make_config(preset, trainer)
    save_config(cfg, str(tmp_path / "config.json"))
    assert load_config(str(tmp_path / "config.json")) == cfg


def test_a_config_saved_before_a_field_existed_keeps_the_value_it_meant(tmp_path):
    from training.config import load_config

    # A run directory from before the per-card features: its network had none, although
    # the defaults now have them.
    data = make_config("full").to_dict()
    del data["card_features"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    cfg = load_config(str(path))
    assert cfg.card_features is False and cfg.hidden == (512, 256) and cfg.preset == "full"
    data = make_config("quick", "sb3").to_dict()
    del data["total_timesteps"]
    path.write_text(json.dumps(data))
    assert load_config(str(path)).total_timesteps == 200_000


def test_rules_are_a_preset_name_or_a_dict_of_options_and_round_trip(tmp_path):
    cfg = make_config("tiny", "dmc", rules={"team_play": True})
    assert Rules.coerce(cfg.rules) == Rules(team_play=True)
    path = tmp_path / "config.json"
    save_config(cfg, str(path))
    assert load_config(str(path)).rules == {"team_play": True}
    # A config.json of before (rules as a preset name) still loads.
    data = json.loads(path.read_text())
    data.update(rules="huapai", reward_mode="zero_sum")
    path.write_text(json.dumps(data))
    assert Rules.coerce(load_config(str(path)).rules) == Rules.preset("huapai")


@pytest.mark.parametrize("trainer", ["dmc", "sb3"])
def test_team_rules_train_on_the_team_result_unless_told_otherwise(trainer):
    assert make_config("tiny", trainer, rules="scrofazero").reward_mode == "team"
    assert make_config("tiny", trainer, rules="scrofazero",
                       reward_mode="zero_sum").reward_mode == "zero_sum"
    assert make_config("tiny", trainer, rules="huapai").reward_mode == "zero_sum"
    with pytest.raises(ConfigError, match="^reward_mode: 'team' needs rules with teams"):
        make_config("tiny", trainer, rules="huapai", reward_mode="team")


def test_the_shared_fields_are_declared_once_and_redeclared_only_to_change_a_default():
    import dataclasses

    from training.config import SB3Config, TrainerConfig, field_docs

    shared = {f.name for f in dataclasses.fields(TrainerConfig)}
    assert {"preset", "seed", "rules", "episode", "max_hands", "hidden", "engine", "lr",
            "batch_size", "opponent_mix", "time_budget_s", "torch_threads"} <= shared
    base = TrainerConfig()
    for cls in (DMCConfig, SB3Config):
        own = cls.__dict__["__annotations__"]
        for name in shared & set(own):
            assert getattr(cls(), name) != getattr(base, name), f"{cls.__name__}.{name}"
    # A redeclared field's docstring is the trainer's own; the others read the base's.
    assert "stable-baselines3" in field_docs(SB3Config)["lr"]
    assert field_docs(DMCConfig)["lr"] == field_docs(TrainerConfig)["lr"]
    assert set(field_docs(SB3Config)) == {f.name for f in dataclasses.fields(SB3Config)}


def test_game_rules_are_resolved_once_and_again_when_rules_is_set():
    cfg = make_config("tiny", "dmc")
    first = cfg.game_rules
    assert first == Rules() and cfg.game_rules is first
    cfg.rules = {"team_play": True}
    assert cfg.game_rules == Rules(team_play=True)
    cfg.rules = "standard"
    assert cfg.game_rules == Rules()
    assert make_config("tiny", "sb3", rules="huapai").game_rules == Rules.preset("huapai")


def test_the_recipes_settings_are_configs_of_the_same_kind():
    import dataclasses

    from training.config import ConfigBase, field_docs
    from training.expert_iteration import Recipe
    from training.expert_iteration.labels import LabelError, LabelSpec
    from training.expert_iteration.recipe import LEG_RECIPE, Leg, Settings

    for cfg in (Recipe(), Settings(), Leg(1, 0.3), LabelSpec()):
        assert isinstance(cfg, ConfigBase)
        cls = type(cfg)
        assert set(field_docs(cls)) == {f.name for f in dataclasses.fields(cls)}, cls
        assert cls.from_dict(cfg.to_dict()) == cfg
        with pytest.raises(ConfigError, match=f"^nope: not a field of {cls.__name__}"):
            cls.from_dict({**cfg.to_dict(), "nope": 1})
    assert Settings().to_dict()["leg"] == LEG_RECIPE.to_dict()
    # Bad values name the field, the value and what is expected.
    with pytest.raises(ConfigError, match=r"^lr: must be a number above 0 and at most 1; got 5"):
        Recipe(lr=5).validate()
    with pytest.raises(ConfigError, match=r"^keep_labels: must be true or false; got 'yes'"):
        Recipe(keep_labels="yes").validate()
    with pytest.raises(ConfigError, match=r"^share: must be in \(0, 1\]; got 0"):
        Leg(1, 0).validate()
    with pytest.raises(LabelError, match=r"^chunk_hands: must be an integer from 1 to 10,000; "
                                         r"got 0"):
        LabelSpec(chunk_hands=0)
