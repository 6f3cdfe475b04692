"""``gongzhu replay`` of good, damaged and tampered record files (gongzhu_cli.replay)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from gongzhu_env.engine import Game
from gongzhu_env.records import record_hand, save_records
from tests.gongzhu_cli.session import ENV, ROOT, finish, spawn
from tests.helpers import HANG_S, random_playout


def test_replay_all(tmp_path):
    rng = np.random.default_rng(1)
    games = [random_playout(Game(rng=rng), rng) for _ in range(2)]
    path = tmp_path / "two.jsonl"
    save_records(path, games)
    out = subprocess.run([sys.executable, "-m", "gongzhu_cli", "replay", str(path), "--all",
                          "--no-color"], cwd=ROOT, env=ENV, capture_output=True, text=True,
                         timeout=HANG_S)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert text.count(" plays ") == 104
    assert text.count("wins the trick") == 26
    assert text.count("over ===") == 2
    out = subprocess.run([sys.executable, "-m", "gongzhu_cli", "replay", str(path), "--all",
                          "--hand", "2", "--no-color"], cwd=ROOT, env=ENV, capture_output=True,
                         text=True, timeout=HANG_S)
    assert "hand 2 of 2" in out.stdout and out.stdout.count("wins the trick") == 13
    for line in out.stdout.splitlines():
        m = re.match(r"Seat (\d)\s+(-?\d+)\s+(-?\d+)   ", line)
        if m:
            assert int(m.group(2)) == games[1].scores()[int(m.group(1))]


def test_replay_steps_and_quits(tmp_path):
    rng = np.random.default_rng(2)
    path = tmp_path / "one.jsonl"
    save_records(path, [random_playout(Game(rng=rng), rng)])
    child = spawn("replay", str(path), "--no-color")
    child.expect_exact("Enter: next action")
    for _ in range(3):
        child.expect(r"(is done declaring|exposes|plays)")
        child.sendline("")
    child.sendline("q")
    finish(child)
    assert "wins the trick" not in child.before


@pytest.mark.parametrize("content, message", [
    (None, "does not exist"),
    ("{broken\n", "line 1: not valid JSON"),
    ('{"format": "gongzhu-hand"}\n', "line 1: missing key(s)"),
])
def test_bad_replay_files(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "gongzhu_cli", "replay", str(path), "--all"],
                         cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=HANG_S)
    assert out.returncode == 2 and out.stdout == ""
    assert message in out.stderr and "bad.jsonl" in out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_replay_of_a_tampered_record_and_bad_hand_number(tmp_path):
    rng = np.random.default_rng(3)
    rec = record_hand(random_playout(Game(rng=rng), rng))
    rec["scores"][0] += 10
    path = tmp_path / "tampered.jsonl"
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "gongzhu_cli", "replay", str(path), "--all"],
                         cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=HANG_S)
    assert out.returncode == 2 and "hand 1: stored scores" in out.stderr
    out = subprocess.run([sys.executable, "-m", "gongzhu_cli", "replay", str(path), "--hand",
                          "4"], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=HANG_S)
    assert out.returncode == 2 and "--hand must be 1..1, got 4" in out.stderr


# ------------------------------------------------------------------ bounded reading
def _replay_refused(path: str) -> str:
    out = subprocess.run([sys.executable, "-m", "gongzhu_cli", "replay", path, "--all"],
                         cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stdout == "", (out.returncode, out.stdout[-500:])
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr[-2000:]
    return out.stderr


def test_replay_of_dev_zero_stops_at_the_line_limit():
    # /dev/zero has no end and no newline: it used to be read until memory ran out.
    said = _replay_refused("/dev/zero")
    assert said.startswith("gongzhu replay: /dev/zero, line 1 is longer than 1,000,000 bytes; "
                           "at most 1,000,000 are read per line")


def test_replay_of_a_file_with_one_huge_line_names_the_line_and_the_limit(tmp_path):
    rng = np.random.default_rng(4)
    path = tmp_path / "long.jsonl"
    save_records(path, [random_playout(Game(rng=rng), rng)])
    with path.open("ab") as f:
        f.write(b"[" + b" " * 1_200_000 + b"]\n")
    said = _replay_refused(str(path))
    assert f"{path}, line 2 is longer than 1,000,000 bytes" in said


def test_replay_of_a_file_over_the_size_limit_is_refused_before_reading(tmp_path):
    from gongzhu_env.records import MAX_FILE_BYTES

    path = tmp_path / "huge.jsonl"
    with path.open("wb") as f:  # sparse: no disk is used for the hole
        f.truncate(MAX_FILE_BYTES + 1)
    said = _replay_refused(str(path))
    assert f"{path} is {MAX_FILE_BYTES + 1:,} bytes; at most {MAX_FILE_BYTES:,} are read" in said
