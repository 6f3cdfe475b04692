"""Arena journals refuse damaged or edited content with the line named (training.arena.journal).

Every bad-input class of the journal reader: edited, duplicated, reordered, removed and
replaced lines (caught by the digest chain); well-chained lines of the wrong schema (strings,
bools, nulls, wrong shapes, out-of-range values); unreadable files (a directory, non-UTF-8, deep
nesting, huge numbers, random bytes); files beyond the reader's bounds (a device, a FIFO, a
line or a file too long); and the one tolerated damage, a cut last line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.helpers import unreadable_json
from tests.strategies import json_values
from tests.training.arena.spies import count_played
from training.arena.duplicate import duplicate_match, journal_path
from training.arena.journal import (
    FORMAT,
    MAX_FILE_BYTES,
    JournalError,
    line_digest,
    spec_fingerprint,
)

ROOT = Path(__file__).resolve().parents[3]
MATCH = dict(candidate="random", opponent="greedy", deals=4, seed=3)
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> tuple[bytes, np.ndarray]:
    """A complete journal of a four-deal match (header + four deal lines) and its diffs."""
    path = tmp_path_factory.mktemp("journal") / "j.jsonl"
    res = duplicate_match(**MATCH, chunk_size=1, journal=path)
    return path.read_bytes(), res.diffs


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")[:-1]


def _join(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def _rechain(docs: list[dict]) -> bytes:
    """Write ``docs`` as a journal whose digest chain is intact (a forged but consistent file).

    Used to reach the schema checks behind the chain: what a buggy writer or a careful forger
    would produce.
    """
    previous, out = "", []
    for i, doc in enumerate(docs, start=1):
        fields = {k: v for k, v in doc.items() if k != "digest"}
        previous = line_digest(i, previous, fields)
        out.append(json.dumps({**fields, "digest": previous}).encode())
    return _join(out)


def _resume(path: Path):
    return duplicate_match(**MATCH, chunk_size=1, journal=path, resume=True)


def _refused(path: Path, data: bytes, pattern: str) -> JournalError:
    """Write ``data``, resume, and check the refusal names ``pattern``; the file is unchanged."""
    path.write_bytes(data)
    with pytest.raises(JournalError, match=pattern) as err:
        _resume(path)
    assert path.read_bytes() == data  # nothing dropped, repaired or restarted
    assert "\n" not in str(err.value) and str(path) in str(err.value)
    return err.value


def test_an_intact_journal_resumes_without_playing(tmp_path, written, monkeypatch):
    data, diffs = written
    path = tmp_path / "j.jsonl"
    path.write_bytes(data)
    played = count_played(monkeypatch)
    assert np.array_equal(_resume(path).diffs, diffs)
    assert played == []
    assert all("digest" in json.loads(line) for line in _lines(data))
    assert json.loads(_lines(data)[0])["journal"] == FORMAT


def test_an_edited_score_is_refused_with_its_line(tmp_path, written):
    lines = _lines(written[0])
    doc = json.loads(lines[2])
    doc["scores"][0][0] += 100
    lines[2] = json.dumps(doc).encode()
    _refused(tmp_path / "j.jsonl", _join(lines), r"line 3 fails its integrity check")


def test_every_line_edited_is_refused_at_the_first(tmp_path, written):
    lines = _lines(written[0])
    for i in range(1, len(lines)):
        doc = json.loads(lines[i])
        doc["scores"] = [[s + 1 for s in play] for play in doc["scores"]]
        lines[i] = json.dumps(doc).encode()
    _refused(tmp_path / "j.jsonl", _join(lines), r"line 2 fails its integrity check")


def test_an_edited_header_is_refused(tmp_path, written):
    lines = _lines(written[0])
    doc = json.loads(lines[0])
    doc["digest"] = "0" * 64
    lines[0] = json.dumps(doc).encode()
    _refused(tmp_path / "j.jsonl", _join(lines), r"line 1 fails its integrity check")


@pytest.mark.parametrize("change, line", [
    (lambda ls: ls[:3] + [ls[2]] + ls[3:], 4),   # a deal line duplicated in place
    (lambda ls: ls + [ls[1]], 6),                # a deal line repeated at the end
    (lambda ls: ls[:2] + ls[3:], 3),             # a line removed from the middle
    (lambda ls: [ls[0], ls[2], ls[1], *ls[3:]], 2),  # two lines swapped
    (lambda ls: [ls[0], *ls[2:]], 2),            # the first deal removed
    (lambda ls: [ls[0], ls[0], *ls[1:]], 2),     # the header repeated
])
def test_duplicated_moved_and_removed_lines_are_refused(tmp_path, written, change, line):
    _refused(tmp_path / "j.jsonl", _join(change(_lines(written[0]))),
             rf"line {line} fails its integrity check")


def test_removing_the_last_lines_only_replays_those_deals(tmp_path, written, monkeypatch):
    # A chain cannot tell a journal cut at a line boundary from one that was interrupted
    # there, and need not: the deals are simply played again, with the same numbers.
    path = tmp_path / "j.jsonl"
    path.write_bytes(_join(_lines(written[0])[:3]))
    played = count_played(monkeypatch)
    assert np.array_equal(_resume(path).diffs, written[1])
    assert sorted(played) == [2, 3]


def test_a_cut_last_line_resumes_at_every_cut(tmp_path, written, monkeypatch):
    lines = _lines(written[0])
    last = lines[-1]
    path = tmp_path / "j.jsonl"
    played = count_played(monkeypatch)
    for cut in (1, 5, 9, len(last) // 2, len(last) - 1, len(last)):
        played.clear()
        path.write_bytes(_join(lines[:-1]) + last[:cut])
        assert np.array_equal(_resume(path).diffs, written[1])
        assert played == [3]
        assert path.read_bytes() == written[0]  # the chunk is written again, whole


def test_a_cut_header_starts_afresh(tmp_path, written, monkeypatch):
    header = _lines(written[0])[0] + b"\n"
    path = tmp_path / "j.jsonl"
    played = count_played(monkeypatch)
    for cut in (0, 1, len(header) // 2, len(header) - 1):
        played.clear()
        path.write_bytes(header[:cut])
        assert np.array_equal(_resume(path).diffs, written[1])
        assert sorted(played) == [0, 1, 2, 3]
        assert path.read_bytes() == written[0]


def test_garbage_in_place_of_a_cut_last_line_is_refused(tmp_path, written):
    lines = _lines(written[0])
    data = _join(lines[:-1]) + b"\x00\x00\x00\x00"  # not the start of a deal line
    _refused(tmp_path / "j.jsonl", data, r"line 5 \(the last, without a newline\)")


def _forged(written: bytes, **changes) -> bytes:
    docs = [json.loads(line) for line in _lines(written)]
    docs[2] = {**docs[2], **changes}
    for key, value in changes.items():
        if value is _DROP:
            del docs[2][key]
    return _rechain(docs)


_DROP = object()


@pytest.mark.parametrize("changes, message", [
    (dict(scores=None), "'scores' must be 4 lists"),
    (dict(scores=[["0", "0", "0", "0"]] * 4), "'scores' must be"),
    (dict(scores=[[True, False, 0, 0]] * 4), "'scores' must be"),
    (dict(scores=[[0.5, 0, 0, 0]] * 4), "'scores' must be"),
    (dict(scores=[[0, 0, 0]] * 4), "'scores' must be"),
    (dict(scores=[[0, 0, 0, 0]] * 3), "'scores' must be"),
    (dict(scores=[[10**7, 0, 0, 0]] * 4), "'scores' must be"),
    (dict(scores={"a": 1}), "'scores' must be"),
    (dict(actions=[[53]] * 4), "'actions' must be null or 4 lists"),
    (dict(actions=[[-1]] * 4), "'actions' must be"),
    (dict(actions=[["C2"]] * 4), "'actions' must be"),
    (dict(actions=[[True]] * 4), "'actions' must be"),
    (dict(actions="none"), "'actions' must be"),
    (dict(deal=-1), "'deal' must be a non-negative integer"),
    (dict(deal="1"), "'deal' must be a non-negative integer"),
    (dict(deal=True), "'deal' must be a non-negative integer"),
    (dict(deal=1.0), "'deal' must be a non-negative integer"),
    (dict(deal=0), "records deal 0 a second time"),
    (dict(hands="not a digest"), "'hands' must be a digest"),
    (dict(hands="0" * 16), "other hands than deal 1"),
    (dict(extra=1), "fields"),
    (dict(scores=_DROP), "fields"),
])
def test_well_chained_lines_of_the_wrong_schema_are_refused(tmp_path, written, changes,
                                                            message):
    err = _refused(tmp_path / "j.jsonl", _forged(written[0], **changes), message)
    assert "line 3" in str(err)


@pytest.mark.parametrize("header, message", [
    ({"journal": 1, "match": {}}, "format-1 journal"),
    ({"journal": True, "match": {}, "digest": ""}, "not an arena journal header"),
    ({"journal": FORMAT, "match": "x", "digest": ""}, "'match' of type string"),
    ({"journal": FORMAT, "match": {}, "digest": "", "x": 1}, "not an arena journal header"),
    ({"something": "else"}, "not an arena journal header"),
])
def test_a_bad_header_is_refused(tmp_path, header, message):
    err = _refused(tmp_path / "j.jsonl", json.dumps(header).encode() + b"\n", message)
    assert "line 1" in str(err) or "different match" in str(err)


@pytest.mark.parametrize("line, message", [
    *unreadable_json("deal", "line 3 is ", "line 3 cannot be read: "),
    (b"[1, 2]", "line 3 is not a JSON object"),
    (b"{oops", "line 3 is not valid JSON"),
    (b"", "line 3 is not valid JSON"),
])
def test_unreadable_lines_are_refused_with_their_number(tmp_path, written, line, message):
    lines = _lines(written[0])
    lines[2] = line
    _refused(tmp_path / "j.jsonl", _join(lines), message)


def test_a_directory_as_journal_is_refused(tmp_path):
    path = tmp_path / "j.jsonl"
    path.mkdir()
    with pytest.raises(JournalError, match="is a directory"):
        _resume(path)
    with pytest.raises(JournalError, match="is a directory"):
        duplicate_match(**MATCH, journal=path)


@SETTINGS
@given(junk=st.binary(min_size=1, max_size=300))
def test_random_bytes_as_a_journal_are_refused(tmp_path, written, junk):
    assume(not written[0].startswith(junk))  # the start of the header is a cut header
    path = tmp_path / "j.jsonl"
    _refused(path, junk, r"line \d+")


@SETTINGS
@given(junk=st.binary(min_size=1, max_size=200), where=st.integers(1, 3))
def test_random_bytes_in_place_of_a_line_are_refused(tmp_path, written, junk, where):
    lines = _lines(written[0])
    lines[where] = junk.replace(b"\n", b" ")
    _refused(tmp_path / "j.jsonl", _join(lines), rf"line {where + 1} ")


JSON = json_values(max_leaves=12, max_size=4)


@SETTINGS
@given(doc=JSON, where=st.integers(1, 4))
def test_random_json_inserted_anywhere_is_refused(tmp_path, written, doc, where):
    lines = _lines(written[0])
    lines.insert(where, json.dumps(doc).encode())
    _refused(tmp_path / "j.jsonl", _join(lines), rf"line {where + 1} ")


@SETTINGS
@given(doc=st.dictionaries(st.sampled_from(["deal", "hands", "scores", "actions", "x"]), JSON,
                           max_size=5))
def test_random_well_chained_deal_lines_are_refused(tmp_path, written, doc):
    header = json.loads(_lines(written[0])[0])
    _refused(tmp_path / "j.jsonl", _rechain([header, doc]), r"line 2 ")


# ---- through the command line --------------------------------------------------------------

CLI = ["--candidate", "random", "--opponents", "greedy", "--deals", "4", "--seed", "3",
       "--workers", "1", "--no-progress", "--no-plot"]


def _gongzhu_eval(out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gongzhu_cli", "eval", *CLI, "--out", str(out),
                           *extra], cwd=ROOT, capture_output=True, text=True, timeout=120)


def _cli_journal(out: Path) -> Path:
    """Write the journal ``gongzhu eval`` keeps for CLI's match, as an interrupted run leaves."""
    path = journal_path(out / "journal", "random", "greedy", "1v3")
    duplicate_match("random", "greedy", 4, seed=3, chunk_size=1, journal=path)
    return path


def test_cli_resume_of_an_edited_journal_exits_2_with_one_line(tmp_path):
    out = tmp_path / "run"
    path = _cli_journal(out)
    lines = _lines(path.read_bytes())
    doc = json.loads(lines[1])
    doc["scores"][1][2] -= 30
    lines[1] = json.dumps(doc).encode()
    path.write_bytes(_join(lines))
    before = path.read_bytes()
    res = _gongzhu_eval(out, "--resume")
    assert res.returncode == 2
    assert "Traceback" not in res.stdout + res.stderr
    (message,) = res.stderr.strip().splitlines()
    assert "line 2 fails its integrity check" in message and path.name in message
    assert path.read_bytes() == before and not (out / "eval.json").exists()


def test_cli_resume_of_an_interrupted_journal_finishes(tmp_path, written):
    out = tmp_path / "run"
    path = _cli_journal(out)
    data = path.read_bytes()
    path.write_bytes(data[:len(data) - 40])  # the last deal's line cut short
    res = _gongzhu_eval(out, "--resume")
    assert res.returncode == 0, res.stderr
    doc = json.loads((out / "eval.json").read_text())
    assert doc["results"][0]["diffs"] == written[1].tolist()
    assert not (out / "journal").exists()


# ---- bounded reading -----------------------------------------------------------------------

@pytest.mark.parametrize("resume", [True, False])
def test_a_device_as_journal_is_refused_without_reading_it(resume):
    # /dev/zero never ends: read whole, it filled memory.
    with pytest.raises(JournalError, match="/dev/zero is a character device, not a regular "
                                           "file; remove it or use another --out"):
        duplicate_match(**MATCH, journal="/dev/zero", resume=resume)


def test_a_fifo_as_journal_is_refused_without_opening_it(tmp_path):
    path = tmp_path / "j.jsonl"
    os.mkfifo(path)  # an open for reading would wait for a writer that never comes
    with pytest.raises(JournalError, match=r"is a FIFO \(named pipe\), not a regular file"):
        _resume(path)


def test_a_huge_line_is_refused_with_its_number_and_the_limit(tmp_path, written):
    lines = _lines(written[0])
    lines[2] = b'{"deal": ' + b" " * 1_200_000 + b"2}"
    err = _refused(tmp_path / "j.jsonl", _join(lines), "line 3 is longer than 1,000,000 bytes; "
                                                       "at most 1,000,000 are read per line")
    assert "not an arena journal" in str(err)


def test_an_endless_regular_file_is_refused_at_its_first_line(tmp_path):
    path = tmp_path / "j.jsonl"
    with path.open("wb") as f:  # 3 GiB of NUL bytes, sparse: no disk used for the hole
        f.truncate(3 * 2**30)
    with pytest.raises(JournalError, match="line 1 is longer than 1,000,000 bytes"):
        _resume(path)


def test_a_journal_over_the_size_limit_is_refused_before_reading(tmp_path):
    path = tmp_path / "j.jsonl"
    with path.open("wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(JournalError, match=rf"j\.jsonl is {MAX_FILE_BYTES + 1:,} bytes; at most "
                                           rf"{MAX_FILE_BYTES:,} are read"):
        _resume(path)
    assert path.stat().st_size == MAX_FILE_BYTES + 1  # left as it was


def test_a_device_as_policy_file_has_no_fingerprint():
    with pytest.raises(JournalError, match="policy file /dev/zero is a character device"):
        spec_fingerprint("policy:/dev/zero")
