"""Hand-record files: schema, bounds and digests checked before use (gongzhu_env.records).

Walks the bad-input classes of the record reader: a field of the wrong type or shape (``meta``
and ``meta.players`` included), unreadable lines (non-UTF-8, deep nesting, 5,000-digit numbers,
NaN, duplicated keys), random bytes and random JSON; the digest written by ``save_records``
(an edit is refused, a record without a digest still loads); and terminal escapes in player
names, which ``gongzhu replay`` must show as text.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gongzhu_env.engine import Game
from gongzhu_env.integrity import (
    ReadLimitError,
    check_regular,
    printable,
    read_bounded,
    read_lines,
)
from gongzhu_env.records import (
    RecordError,
    load_records,
    record_hand,
    replay_record,
    save_records,
)
from gongzhu_env.rules import Rules
from tests.helpers import HANG_S, random_playout, unreadable_json
from tests.strategies import json_values

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def _record(seed: int = 1, seats: int = 4, meta: dict | None = None) -> dict:
    rng = np.random.default_rng(seed)
    game = random_playout(Game(Rules(players=seats), rng=rng), rng)
    return record_hand(game, meta=meta)


def _write(path: Path, *records: dict) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _refused(path: Path, pattern: str, line: int = 1) -> RecordError:
    with pytest.raises(RecordError, match=pattern) as err:
        load_records(path)
    text = str(err.value)
    assert f"{path}, line {line}" in text and "\n" not in text
    return err.value


def test_saved_records_carry_a_digest_and_load_back_without_it(tmp_path):
    rec = _record(seats=5, seed=3)
    path = tmp_path / "r.jsonl"
    save_records(path, [rec])
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert len(stored["digest"]) == 64
    assert load_records(path) == [rec]


def test_records_without_a_digest_still_load(tmp_path):
    rec = _record(3)
    assert load_records(_write(tmp_path / "old.jsonl", rec)) == [rec]


@pytest.mark.parametrize("edit", [
    lambda r: r["meta"].__setitem__("players", ["Mallory", "B", "C", "D"]),
    lambda r: r["meta"].__setitem__("seed", 99),
    lambda r: r.__setitem__("leader", None if r["leader"] is not None else 0),
    lambda r: r["scores"].__setitem__(0, r["scores"][0] + 1),
    lambda r: r.pop("tricks"),
])
def test_an_edited_record_with_a_digest_is_refused(tmp_path, edit):
    path = tmp_path / "r.jsonl"
    save_records(path, [_record(2), _record(4, meta={"players": ["A", "B", "C", "D"], "seed": 1})])
    lines = path.read_text(encoding="utf-8").splitlines()
    doc = json.loads(lines[1])
    edit(doc)
    lines[1] = json.dumps(doc)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _refused(path, "does not match its digest", line=2)


@pytest.mark.parametrize("change, message", [
    (dict(meta="x"), "'meta' must be an object"),
    (dict(meta=["x"]), "'meta' must be an object"),
    (dict(meta={"players": 5}), "'meta.players' must be a list of four names"),
    (dict(meta={"players": ["a", "b", "c"]}), "'meta.players' must be a list of four"),
    (dict(meta={"players": ["a", "b", "c", 4]}), "'meta.players'"),
    (dict(meta={"players": ["a", "b", "c", "d" * 300]}), "'meta.players'"),
    (dict(meta={"players": ["a", "b", "c", None]}), "'meta.players'"),
    (dict(version=True), "unsupported record version true"),
    (dict(version="1"), "unsupported record version"),
    (dict(format=None), "'format' must be"),
    (dict(rules=[]), "'rules' must be an object"),
    (dict(rules={"players": "4"}), "players="),
    (dict(rules={"players": True}), "players=true"),
    (dict(rules={"no_such": 1}), "'rules': .*unknown rule option"),
    (dict(deal="x"), "'deal' must be a list of four lists"),
    (dict(deal=[["C2"]] * 4), "'deal' seat 0 must hold 13 cards"),
    (dict(deal=[[1] * 13] * 4), r"'deal' seat 0\[0\] must be card text"),
    (dict(leader=True), "'leader' .*must be a seat 0..3, got true"),
    (dict(leader=4), "'leader'"),
    (dict(leader="0"), "'leader'"),
    (dict(first_leader=None), "'first_leader' must be a seat"),
    (dict(actions="DONE"), "'actions' must be a list"),
    (dict(actions=[52]), r"'actions'\[0\] must be card text"),
    (dict(actions=["DONE"] * 1000), "'actions' holds 1000 entries"),
    (dict(actions=["x" * 100]), r"'actions'\[0\]"),
    (dict(declarations=[[0]]), r"'declarations'\[0\] must be \[seat, card\]"),
    (dict(declarations=[["0", "SQ"]]), r"'declarations'\[0\] seat"),
    (dict(declarations="SQ"), "'declarations' must be a list"),
    (dict(tricks=[{"leader": 0}]), r"'tricks'\[0\] must be an object"),
    (dict(tricks=[{"leader": 0, "cards": ["C2"], "winner": 9}]), r"'tricks'\[0\] winner"),
    (dict(tricks=[{"leader": 0, "cards": "C2", "winner": 0}]), r"'tricks'\[0\] cards"),
    (dict(tricks=[[]] * 20), "'tricks' must be a list of at most 13"),
    (dict(complete=1), "'complete' must be true or false"),
    (dict(scores=["0", 0, 0, 0]), "'scores' must be null or four integers"),
    (dict(scores=[True, 0, 0, 0]), "'scores'"),
    (dict(scores=[0.0, 0, 0, 0]), "'scores'"),
    (dict(scores=[10**7, 0, 0, 0]), "'scores'"),
    (dict(scores=[0, 0, 0]), "'scores'"),
    (dict(digest=5), "'digest' must be 64 hex digits"),
    (dict(extra=1), r"unknown key\(s\) \[\"extra\"\]"),
])
def test_fields_of_the_wrong_type_or_shape_are_refused(tmp_path, change, message):
    rec = {**_record(5), **change}
    _refused(_write(tmp_path / "r.jsonl", _record(6), rec), message, line=2)


def test_five_seat_records_check_against_five_seats(tmp_path):
    rec = _record(7, seats=5)
    assert load_records(_write(tmp_path / "ok.jsonl", rec)) == [rec]
    bad = {**rec, "meta": {"players": ["a", "b", "c", "d"]}}
    _refused(_write(tmp_path / "bad.jsonl", bad), "list of five names")
    bad = {**rec, "scores": rec["scores"][:4]}
    _refused(_write(tmp_path / "bad.jsonl", bad), "five integers")
    bad = {**rec, "deal": rec["deal"][:4]}
    _refused(_write(tmp_path / "bad.jsonl", bad), "list of five lists")


@pytest.mark.parametrize("line, message", [
    *unreadable_json("format"),
    (b'{"format": 1e999}', "overflows"),
    (b"{not json", "not valid JSON"),
    (b"x" * 1_000_001, "is longer than 1,000,000 bytes; at most 1,000,000 are read per line"),
])
def test_unreadable_lines_are_named(tmp_path, line, message):
    path = tmp_path / "r.jsonl"
    path.write_bytes(json.dumps(_record(1)).encode() + b"\n" + line + b"\n")
    _refused(path, message, line=2)


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(RecordError, match="is a directory"):
        load_records(tmp_path)


@SETTINGS
@given(junk=st.binary(min_size=1, max_size=300))
def test_random_bytes_are_refused(tmp_path, junk):
    path = tmp_path / "junk.jsonl"
    path.write_bytes(junk)
    with pytest.raises(RecordError, match="junk.jsonl") as err:
        load_records(path)
    assert "\n" not in str(err.value)


JSON = json_values(max_leaves=16, max_size=4)


@SETTINGS
@given(doc=JSON)
def test_random_json_is_refused(tmp_path, doc):
    path = _write(tmp_path / "r.jsonl", doc)
    _refused(path, ".")


@SETTINGS
@given(key=st.sampled_from(["format", "version", "rules", "deal", "leader", "first_leader",
                            "declarations", "actions", "tricks", "complete", "scores", "meta"]),
       value=JSON)
def test_random_values_in_any_field_load_or_are_refused_cleanly(tmp_path, key, value):
    # Whatever a field holds, the reader either accepts it or names the line, and a record it
    # accepts either replays or is refused as a RecordError: never another exception. (A few
    # random values are valid, e.g. "complete": true.)
    rec = {**_record(8), key: value}
    try:
        (loaded,) = load_records(_write(tmp_path / "r.jsonl", rec))
    except RecordError as e:
        assert "line 1" in str(e) and "\n" not in str(e)
        return
    try:
        replay_record(loaded)
    except RecordError as e:
        assert "\n" not in str(e)


def test_escape_sequences_in_player_names_are_escaped_when_replayed(tmp_path):
    evil = ["\x1b[2J\x1b[31mMallory", "Bob\r", "Carol\u202e", "Dave\x07"]
    path = tmp_path / "evil.jsonl"
    save_records(path, [_record(9, meta={"players": evil})])
    out = subprocess.run([sys.executable, "-m", "gongzhu_cli", "replay", str(path), "--all",
                          "--no-color"], cwd=ROOT, capture_output=True, text=True,
                         encoding="utf-8", timeout=HANG_S)
    assert out.returncode == 0, out.stderr
    assert not any(c in out.stdout for c in "\x1b\r\x07\u202e")
    assert "\\x1b[2J\\x1b[31mMallory" in out.stdout and "Carol\\u202e" in out.stdout
    assert "=== evil.jsonl: hand 1 of 1 ===" in out.stdout


def test_escape_sequences_in_a_bad_record_are_escaped_in_the_error(tmp_path):
    rec = {**_record(10), "format": "\x1b]0;owned\x07"}
    path = _write(tmp_path / "bad.jsonl", rec)
    out = subprocess.run([sys.executable, "-m", "gongzhu_cli", "replay", str(path), "--all"],
                         cwd=ROOT, capture_output=True, text=True, encoding="utf-8", timeout=HANG_S)
    assert out.returncode == 2
    assert "\x1b" not in out.stdout + out.stderr and "\\u001b]0;owned" in out.stderr
    assert "Traceback" not in out.stdout + out.stderr


@pytest.mark.parametrize("change", [dict(meta="x"), dict(meta={"players": 5}),
                                    dict(deal=[[{"a": [[[[]]]]}]])])
def test_replay_of_a_bad_meta_exits_2_without_traceback(tmp_path, change):
    path = _write(tmp_path / "bad.jsonl", {**_record(11), **change})
    out = subprocess.run([sys.executable, "-m", "gongzhu_cli", "replay", str(path), "--all"],
                         cwd=ROOT, capture_output=True, text=True, encoding="utf-8", timeout=HANG_S)
    assert out.returncode == 2
    assert "bad.jsonl, line 1" in out.stderr and "Traceback" not in out.stdout + out.stderr


def test_printable_keeps_text_and_escapes_controls():
    assert printable("拱猪 ♠Q Seat 0") == "拱猪 ♠Q Seat 0"
    assert printable("a\x1bb\nc\u202e") == "a\\x1bb\\nc\\u202e"
    assert printable("x" * 50, 10) == "x" * 10 + "..."


# ------------------------------------------------------------------ bounded reading
def test_an_endless_stream_of_records_is_cut_at_the_file_limit(tmp_path, monkeypatch):
    # A pipe has no size to check first: the reader counts what it reads and stops at the
    # limit (lowered here from a gigabyte), whatever the writer would go on sending.
    import gongzhu_env.records as records

    monkeypatch.setattr(records, "MAX_FILE_BYTES", 100_000)
    line = (json.dumps(_record(12)) + "\n").encode()
    r, w = os.pipe()
    sent = []

    def write_forever() -> None:
        try:
            while True:  # until the reader closes its end
                sent.append(os.write(w, line))
        except BrokenPipeError:
            pass
        finally:
            os.close(w)

    writer = threading.Thread(target=write_forever, daemon=True)
    writer.start()
    try:
        with pytest.raises(RecordError, match=r"holds more than 100,000 bytes; at most "
                                              r"100,000 are read"):
            load_records(f"/dev/fd/{r}")
    finally:
        os.close(r)
    writer.join(timeout=120)
    assert not writer.is_alive()
    assert sum(sent) > 100_000  # the stream did go on past the limit


@pytest.mark.parametrize("limit, content, pattern", [
    (10, b"0123456789\n0123456789", None),  # lines of exactly the limit are read
    (10, b"0123456789\n01234567890", "line 2 is longer than 10 bytes"),
    (10, b"01234567890\n", "line 1 is longer than 10 bytes"),
])
def test_read_lines_bounds_each_line(limit, content, pattern):
    f = io.BytesIO(content)
    if pattern is None:
        assert [line for _, line, _ in read_lines(f, max_bytes=100, max_line=limit)] == \
            [b"0123456789", b"0123456789"]
        return
    with pytest.raises(ReadLimitError, match=pattern):
        list(read_lines(f, max_bytes=100, max_line=limit))


def test_read_bounded_and_check_regular(tmp_path):
    assert read_bounded(io.BytesIO(b"x" * 10), max_bytes=10) == b"x" * 10
    with pytest.raises(ReadLimitError, match="holds more than 9 bytes"):
        read_bounded(io.BytesIO(b"x" * 10), max_bytes=9)
    with open("/dev/zero", "rb") as f, pytest.raises(ReadLimitError, match="more than 1,000"):
        read_bounded(f, max_bytes=1000)
    check_regular(__file__)
    for path, kind in (("/dev/zero", "a character device"), (tmp_path, "a directory")):
        with pytest.raises(ReadLimitError, match=f"is {kind}, not a regular file"):
            check_regular(path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ReadLimitError, match="is a FIFO"):
        check_regular(fifo)  # refused without opening it (an open would wait for a writer)
