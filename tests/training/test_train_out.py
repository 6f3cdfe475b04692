"""``gongzhu train --out``: a run already there is kept unless the person says otherwise.

Before, a new run into the directory of a finished one wrote its ``policy.pt`` and
``config.json`` over the old ones and exited 0. Now it is refused (exit 2, one line) and every
file is left byte for byte; ``--resume`` continues the run and ``--overwrite`` replaces it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import torch

import gongzhu_cli.main as cli
from tests.helpers import one_line_error
from training import train
from training.outdir import taken_problem
from training.run import RunDir, TrainingError
from training.train import check_out

SHORT = ["--preset", "tiny", "--quiet", "--time-budget", "0.5", "--final-eval-deals", "0",
         "--set", "eval_interval_s=100"]
"""A run of about a second: the tiny preset, no evaluation."""


def snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` (its path from ``root``) and the SHA-256 of its bytes."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def decisions(run: Path) -> int:
    """Learner decisions recorded in the run's last checkpoint."""
    state = torch.load(run / "checkpoints" / "latest.pt", weights_only=True)
    return int(state["trainer"]["counters"]["decisions"])


def test_a_finished_run_is_kept_unless_resumed_or_overwritten(tmp_path, capsys):
    run = tmp_path / "run"
    assert train.main([*SHORT, "--out", str(run), "--seed", "1"]) == 0
    assert (run / "policy.pt").is_file() and (run / "config.json").is_file()
    (run / "notes.txt").write_text("the person's own file\n", encoding="utf-8")
    before = snapshot(run)
    capsys.readouterr()

    # A new run onto it, through the gongzhu command, as a person would type it.
    assert cli.main(["train", *SHORT, "--out", str(run), "--seed", "2"]) == 2
    err = one_line_error(capsys)
    assert f"--out {run} already holds a training run (policy.pt, config.json" in err
    assert "--resume" in err and "new --out" in err and "--overwrite" in err
    assert snapshot(run) == before
    # Asked to both continue and replace it: neither is guessed.
    assert train.main([*SHORT, "--out", str(run), "--resume", "--overwrite"]) == 2
    assert "give one of them" in one_line_error(capsys)
    assert snapshot(run) == before

    # --resume continues it: the same seed, more decisions, the person's file untouched.
    first = decisions(run)
    assert train.main(["--out", str(run), "--resume", "--quiet", "--time-budget", "1"]) == 0
    assert decisions(run) > first
    assert json.loads((run / "config.json").read_text())["seed"] == 1

    # --overwrite replaces it: the old run's files go (a periodic policy of the old run
    # included), a new run with the new seed takes their place, other files stay.
    stale = RunDir(run).periodic_policy(10**9)
    stale.write_bytes(b"a periodic policy of the old run")
    assert train.main([*SHORT, "--out", str(run), "--seed", "2", "--overwrite"]) == 0
    assert json.loads((run / "config.json").read_text())["seed"] == 2
    assert not stale.exists() and decisions(run) > 0
    assert (run / "notes.txt").read_text(encoding="utf-8") == "the person's own file\n"


def test_an_out_that_holds_nothing_of_a_run_is_used_as_it_is(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("x", encoding="utf-8")
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "checkpoints").mkdir()  # made by a start that stopped at once
    for out in (tmp_path / "new", empty, tmp_path / "other", tmp_path / "half"):
        check_out(str(out), resume=False, overwrite=False)
    names = [p.name for p in RunDir(tmp_path).entries()]
    assert taken_problem(tmp_path / "other", names, what="training run") is None
    (tmp_path / "half" / "checkpoints" / "latest.pt").write_bytes(b"x")
    with pytest.raises(TrainingError, match=r"already holds a training run \(checkpoints\)"):
        check_out(str(tmp_path / "half"), resume=False, overwrite=False)
    check_out(str(tmp_path / "half"), resume=False, overwrite=True)


def test_a_run_is_refused_before_the_config_is_read(tmp_path, capsys):
    # The directory's own config.json is not even read: a damaged one is refused the same way.
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text("{not json", encoding="utf-8")
    assert train.main(["--preset", "tiny", "--out", str(run)]) == 2
    assert "already holds a training run (config.json)" in one_line_error(capsys)
    assert snapshot(run) == {"config.json": hashlib.sha256(b"{not json").hexdigest()}


@pytest.mark.parametrize("mix, words", [
    ("", "--rules-mix '': expected rule set names separated by commas"),
    (" ", "--rules-mix ' ': expected rule set names"),
    ("standard,,huapai", "and no empty name"),
    ("standard,huapai,", "and no empty name"),
])
def test_a_rules_mix_with_an_empty_name_is_refused(tmp_path, capsys, mix, words):
    # Before: the empty names were dropped, and '' trained for the standard rules alone.
    out = tmp_path / "never"
    assert train.main([*SHORT, "--rules-mix", mix, "--out", str(out)]) == 2
    assert words in one_line_error(capsys)
    assert not out.exists()


@pytest.mark.parametrize("extra, words", [
    (["--rules", "huapai"], "--rules huapai and --rules-mix standard,huapai: give one of them"),
    (["--set", "rules=huapai"],
     "rules is already given by --rules-mix standard,huapai (its first rule set)"),
])
def test_rules_beside_a_rules_mix_are_refused(tmp_path, capsys, extra, words):
    # Before: accepted, the periodic evaluations quietly playing huapai rather than the first.
    out = tmp_path / "never"
    assert train.main([*SHORT, "--rules-mix", "standard,huapai", *extra,
                       "--out", str(out)]) == 2
    assert words in one_line_error(capsys)
    assert not out.exists()
