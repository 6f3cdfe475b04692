"""A run's config.json read back on resume: damage is a ConfigError naming the file.

Random bytes, random JSON, wrong field types and unreadable files (a directory, non-UTF-8,
deep nesting, huge numbers) all give a ``ConfigError``, never another exception, and ``gongzhu
train --resume`` on such a run exits 2 with one line.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import unreadable_json
from tests.strategies import json_values
from training.config import ConfigError, load_config, make_config, save_config

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def _good(tmp_path) -> dict:
    path = tmp_path / "config.json"
    save_config(make_config("quick", "dmc"), str(path))
    return json.loads(path.read_text(encoding="utf-8"))


def _refused(path, pattern: str) -> None:
    with pytest.raises(ConfigError, match=pattern) as err:
        load_config(str(path))
    assert str(path) in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("change, message", [
    (dict(seed="3"), "seed"),
    (dict(seed=True), "seed"),
    (dict(hidden=5), "hidden|iterable"),
    (dict(hidden=["64"]), "hidden"),
    (dict(trainer="nope"), "trainer"),
    (dict(no_such_field=1), "no_such_field: not a field"),
    (dict(rules="nope"), "rules"),
])
def test_fields_of_the_wrong_type_are_refused(tmp_path, change, message):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**_good(tmp_path), **change}), encoding="utf-8")
    _refused(path, message)


@pytest.mark.parametrize("data, message", [
    *unreadable_json("seed"),
    (b"[1]", "JSON object"),
    (b"{", "not valid JSON"),
    (b" " * (2**20 + 1), "larger than"),
])
def test_unreadable_files_are_refused(tmp_path, data, message):
    path = tmp_path / "config.json"
    path.write_bytes(data)
    _refused(path, message)


def test_a_directory_is_refused(tmp_path):
    (tmp_path / "config.json").mkdir()
    _refused(tmp_path / "config.json", "cannot read")


@SETTINGS
@given(junk=st.binary(max_size=300))
def test_random_bytes_are_refused(tmp_path, junk):
    path = tmp_path / "config.json"
    path.write_bytes(junk)
    _refused(path, ".")


JSON = json_values(max_leaves=12, max_size=4)


@SETTINGS
@given(key=st.sampled_from(["seed", "hidden", "rules", "reward_mode", "episode", "max_hands",
                            "trainer", "preset", "rules_mix", "eval_opponents"]), value=JSON)
def test_random_values_in_a_field_load_or_are_refused_cleanly(tmp_path, key, value):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**_good(tmp_path), key: value}), encoding="utf-8")
    try:
        load_config(str(path))
    except ConfigError as e:
        assert str(path) in str(e) and "\n" not in str(e)


def test_train_resume_on_a_damaged_config_exits_2(tmp_path, capsys):
    from training.train import main

    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_bytes(b"\x00garbage")
    assert main(["--out", str(run), "--resume"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "config.json" in line and "not valid JSON" in line
