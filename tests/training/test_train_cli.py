"""``gongzhu train``: every config field is an option, with its docstring as its help."""

from __future__ import annotations

import dataclasses

import pytest

from training.config import DMCConfig, SB3Config, field_docs, make_config
from training.train import NAMED_FLAGS, _overrides, build_parser, config_fields, main


def _help() -> str:
    return " ".join(build_parser().format_help().split())


def test_help_lists_every_config_field_with_its_docstring() -> None:
    text = _help()
    names = {f.name for cls in (DMCConfig, SB3Config) for f in dataclasses.fields(cls)}
    assert set(config_fields()) == names
    for name, (trainers, doc) in config_fields().items():
        assert doc, f"{name} has no docstring"
        flag = NAMED_FLAGS.get(name, f"--{name.replace('_', '-')}")
        assert flag in text, name
        if name not in NAMED_FLAGS:
            # The docstring's first words stand right after the trainers that have the field.
            assert f"({trainers}) {' '.join(doc.split()[:6])}" in text, name


def test_field_docs_reads_the_string_under_each_field() -> None:
    docs = field_docs(DMCConfig)
    assert docs["seed"].startswith("Seeds Python's ``random``, numpy and torch")
    assert "\n" not in docs["rules_mix"] and "  " not in docs["rules_mix"]


def test_a_field_option_sets_the_field_as_set_would() -> None:
    parser = build_parser()
    by_flag = _overrides(parser.parse_args(["--num-tables", "64", "--opponent-mix",
                                            '{"self": 1}', "--precision", "float32"]))
    by_set = _overrides(parser.parse_args(["--set", "num_tables=64", "--set",
                                           'opponent_mix={"self": 1}', "--set",
                                           "precision=float32"]))
    assert by_flag == by_set == {"num_tables": 64, "opponent_mix": {"self": 1},
                                 "precision": "float32"}
    cfg = make_config("tiny", "dmc", **by_flag)
    assert (cfg.num_tables, cfg.precision) == (64, "float32")


def test_a_field_given_twice_is_refused_by_name(tmp_path, capsys) -> None:
    assert main(["--preset", "tiny", "--out", str(tmp_path / "r"), "--lr", "0.001", "--set",
                 "lr=0.002"]) == 2
    err = capsys.readouterr().err
    assert "--set lr=0.002: lr is already given by --lr 0.001" in err


@pytest.mark.parametrize("argv, words", [
    (["--num-tables", "-4"], "num_tables"),
    (["--n-envs", "0", "--trainer", "sb3"], "n_envs"),
    (["--engine", "gpu", "--trainer", "sb3"], "engine"),
])
def test_a_bad_field_value_is_refused_naming_the_field(tmp_path, capsys, argv, words) -> None:
    assert main(["--preset", "tiny", "--out", str(tmp_path / "r"), *argv]) == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_actors_auto_is_one_actor_per_core_and_a_bad_count_is_refused(tmp_path, capsys,
                                                                       monkeypatch) -> None:
    import os

    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    args = build_parser().parse_args(["--actors", "auto"])
    assert _overrides(args)["num_actors"] == 16
    assert _overrides(build_parser().parse_args(["--actors", "3"]))["num_actors"] == 3
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as stop:
        main(["--actors", "many", "--out", str(out)])
    assert stop.value.code == 2
    assert "expected a count of actors or 'auto'; got 'many'" in capsys.readouterr().err
    assert not out.exists()
