"""Deal files: schema, bounds and the content digest checked on load (training.arena.deals).

Walks the bad-input classes of ``load_deals``: random bytes and random JSON, wrong dtypes (floats
with NaN, bools), out-of-range and duplicated cards, unknown or missing arrays and keys, huge
arrays or members that inflate (refused from the array header, before decompression), devices
and FIFOs named like deal files, an edited file whose digest no longer matches, and older
(version 1) files, which still load.
"""

from __future__ import annotations

import json
import os
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gongzhu_env.cards import card_str
from gongzhu_env.rules import Rules
from tests.strategies import json_values
from training.arena.cli import main
from training.arena.deals import (
    FORMAT_VERSION,
    MAX_DEALS,
    DealFileError,
    deals_digest,
    generate_deals,
    load_deals,
)

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
GOOD = generate_deals(3, seed=0)


def _refused(path: Path, pattern: str) -> DealFileError:
    with pytest.raises(DealFileError, match=pattern) as err:
        load_deals(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)
    return err.value


def _npz(path: Path, **arrays) -> Path:
    base = dict(hands=GOOD.hands, seed=np.int64(0), format_version=np.int64(FORMAT_VERSION),
                digest=np.array(deals_digest(GOOD.hands, 0)))
    np.savez(path, **{k: v for k, v in {**base, **arrays}.items() if v is not None})
    return path


def _json(path: Path, **changes) -> Path:
    doc = {"format": "gongzhu-deals", "format_version": FORMAT_VERSION, "seed": 0,
           "digest": deals_digest(GOOD.hands, 0),
           "deals": [[[card_str(int(c)) for c in h] for h in d] for d in GOOD.hands]}
    doc.update(changes)
    path.write_text(json.dumps({k: v for k, v in doc.items() if v is not None}))
    return path


@pytest.mark.parametrize("suffix", [".npz", ".json"])
def test_saved_files_carry_the_digest_and_load(tmp_path, suffix):
    path = GOOD.save(tmp_path / f"d{suffix}")
    assert load_deals(path) == GOOD
    assert load_deals(_npz(tmp_path / "x.npz")) == GOOD
    assert load_deals(_json(tmp_path / "x.json")) == GOOD
    seven = generate_deals(4, seed=2, players=7)
    assert load_deals(seven.save(tmp_path / f"seven{suffix}"), Rules(players=7)) == seven


def test_version_1_files_without_digest_still_load(tmp_path):
    v1 = _npz(tmp_path / "v1.npz", format_version=np.int64(1), digest=None)
    assert load_deals(v1) == GOOD
    doc = _json(tmp_path / "v1.json", format_version=1, digest=None)
    assert load_deals(doc) == GOOD


def test_an_edited_json_file_is_refused_by_its_digest(tmp_path):
    doc = json.loads(GOOD.save(tmp_path / "d.json").read_text())
    # Swap one card between two seats of deal 1: still a valid deal, but not the saved one.
    a, b = doc["deals"][1][0][0], doc["deals"][1][1][0]
    doc["deals"][1][0][0], doc["deals"][1][1][0] = b, a
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    _refused(path, "do not match the digest")
    path.write_text(json.dumps({**doc, "deals": doc["deals"][:2]}))  # a deal removed
    _refused(path, "do not match the digest")
    original = json.loads((tmp_path / "d.json").read_text())
    path.write_text(json.dumps({**original, "seed": 1}))  # the seed changed
    _refused(path, "do not match the digest")


def test_an_edited_npz_file_is_refused_by_its_digest(tmp_path):
    hands = GOOD.hands.copy()
    hands[[0, 1]] = hands[[1, 0]]  # two deals swapped
    _refused(_npz(tmp_path / "swapped.npz", hands=hands), "do not match the digest")
    _refused(_npz(tmp_path / "seed.npz", seed=np.int64(5)), "do not match the digest")


@pytest.mark.parametrize("arrays, message", [
    (dict(hands=GOOD.hands.astype(np.float64)), "integer card indices; got dtype float64"),
    (dict(hands=np.full((3, 4, 13), np.nan)), "integer card indices"),
    (dict(hands=GOOD.hands.astype(bool)), "integer card indices; got dtype bool"),
    (dict(hands=np.where(GOOD.hands == 0, 60, GOOD.hands)), "out of range"),
    (dict(hands=np.where(GOOD.hands == 1, 0, GOOD.hands)), "deal 0.*twice"),
    (dict(hands=np.zeros((3, 4, 12), np.int8)), r"shape \(n, 4, 13\)"),
    (dict(hands=np.zeros((0, 4, 13), np.int8)), "holds no deals"),
    (dict(seed=np.float64(np.nan)), "'seed' must be one integer"),
    (dict(seed=np.array([1, 2])), "'seed' must be one integer"),
    (dict(seed=np.int64(-5)), "seed must be -1"),
    (dict(format_version=np.float64(2.0)), "'format_version' must be one integer"),
    (dict(format_version=np.int64(7)), "format version 7"),
    (dict(digest=None), "missing: \\['digest'\\]"),
    (dict(digest=np.array("0" * 10)), "'digest' must be one string of 64"),
    (dict(digest=np.int64(1)), "'digest' must be one string"),
    (dict(extra=np.zeros(3)), r"unknown: \['extra'\]"),
    (dict(seed=None), "lacks"),
])
def test_bad_npz_content_is_refused(tmp_path, arrays, message):
    _refused(_npz(tmp_path / "bad.npz", **arrays), message)


def test_a_huge_npz_array_is_refused_before_it_is_read(tmp_path):
    # A zip bomb: a compressed array far larger than any deal set, refused from its header.
    path = tmp_path / "huge.npz"
    hands = np.zeros((MAX_DEALS + 1, 4, 13), np.int8)
    np.savez_compressed(path, hands=hands, seed=np.int64(0), format_version=np.int64(2),
                        digest=np.array("0" * 64))
    assert path.stat().st_size < 2**20
    _refused(path, "holds 1,000,001 deals; at most")


def test_pickled_and_foreign_npz_members_are_refused(tmp_path):
    path = tmp_path / "obj.npz"
    np.savez(path, hands=np.array([[["x"]]], dtype=object), seed=np.int64(0),
             format_version=np.int64(2), digest=np.array("0" * 64))
    _refused(path, "integer card indices; got dtype object")
    other = tmp_path / "other.npz"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("hands.npy", b"not an array")
        z.writestr("readme.txt", b"hello")
    _refused(other, "members that are not arrays")
    bad = tmp_path / "bad.npz"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("hands.npy", b"\x93NUMPY garbage")
    _refused(bad, "not a readable .npz")


@pytest.mark.parametrize("changes, message", [
    (dict(format_version=True), "format version True"),
    (dict(format_version="2"), "format version '2'"),
    (dict(seed="0"), "seed must be a non-negative int"),
    (dict(seed=True), "seed must be a non-negative int"),
    (dict(seed=1.5), "seed must be a non-negative int"),
    (dict(digest=None), r"must hold exactly the keys"),
    (dict(digest=12), "'digest' must be a string of 64"),
    (dict(extra=[]), "must hold exactly the keys"),
    (dict(deals="x"), "'deals' must be a list"),
    (dict(deals=[]), "holds no deals"),
    (dict(deals=[[[True] * 13] * 4]), "deal 0: a card must be card text.*true"),
    (dict(deals=[[[1.0] * 13] * 4]), "deal 0: a card must be card text.*1.0"),
    (dict(deals=[[[None] * 13] * 4]), "deal 0: a card must be card text"),
    (dict(deals=[[list(range(13))] * 4]), "deal 0.*twice"),
    (dict(deals=[[[99] * 13] * 4]), "out of range"),
    (dict(deals=[[["C2"] * 13]]), "deal 0"),
])
def test_bad_json_content_is_refused(tmp_path, changes, message):
    _refused(_json(tmp_path / "bad.json", **changes), message)


@pytest.mark.parametrize("text, message", [
    ("[" * 50000 + "]" * 50000, "nested deeper"),
    ('{"format": "gongzhu-deals", "seed": ' + "1" * 5000 + "}", "a number of 5000 digits"),
    ('{"format": "gongzhu-deals", "seed": NaN}', "NaN"),
    ('{"format": "gongzhu-deals", "format": "gongzhu-deals"}', "appears twice"),
])
def test_unreadable_json_is_refused(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    _refused(path, message)
    path.write_bytes(b"\xff\xfe\x00")
    _refused(path, "not UTF-8")


def test_a_directory_is_refused(tmp_path):
    (tmp_path / "d.npz").mkdir()
    with pytest.raises(DealFileError, match="is a directory"):
        load_deals(tmp_path / "d.npz")


@SETTINGS
@given(junk=st.binary(max_size=400), suffix=st.sampled_from([".npz", ".json"]))
def test_random_bytes_are_refused(tmp_path, junk, suffix):
    path = tmp_path / f"junk{suffix}"
    path.write_bytes(junk)
    _refused(path, ".")


JSON = json_values(max_leaves=20, max_size=5)


@SETTINGS
@given(key=st.sampled_from(["format_version", "seed", "digest", "deals"]), value=JSON)
def test_random_json_in_any_field_is_refused(tmp_path, key, value):
    _refused(_json(tmp_path / "r.json", **{key: value}), ".")


@SETTINGS
@given(doc=JSON)
def test_random_json_documents_are_refused(tmp_path, doc):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    _refused(path, ".")


def test_cli_refuses_a_damaged_deal_file_with_exit_2(tmp_path, capsys):
    path = GOOD.save(tmp_path / "d.json")
    doc = json.loads(path.read_text())
    doc["seed"] = 4
    path.write_text(json.dumps(doc))
    code = main(["--candidate", "random", "--opponents", "random", "--deal-file", str(path),
                 "--workers", "1", "--no-progress"])
    assert code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "do not match the digest" in line and "d.json" in line


# ---- bounded reading -----------------------------------------------------------------------

@pytest.mark.parametrize("suffix", [".npz", ".json"])
def test_a_device_or_fifo_is_refused_as_what_it_is(tmp_path, suffix):
    # Named like a deal file, but /dev/zero would be read without end and a FIFO would block.
    device = tmp_path / f"zero{suffix}"
    device.symlink_to("/dev/zero")
    _refused(device, "is a character device, not a regular file")
    fifo = tmp_path / f"fifo{suffix}"
    os.mkfifo(fifo)
    _refused(fifo, r"is a FIFO \(named pipe\), not a regular file")


@pytest.mark.parametrize("arrays, message", [
    (dict(seed=np.zeros(64 * 2**20, np.int8)), "'seed' must be one integer"),
    (dict(hands=np.zeros((3, 4, 16 * 2**20), np.int8)), r"'hands' must have shape"),
    (dict(digest=np.array("0" * 16 * 2**20)), "'digest' must be one string of 64"),
])
def test_an_npz_member_that_inflates_is_refused_from_its_header(tmp_path, arrays, message):
    # Tens of megabytes of zeros compress to a few hundred kilobytes; the member is refused
    # from its header, before anything of that size is allocated.
    path = tmp_path / "bomb.npz"
    base = dict(hands=GOOD.hands, seed=np.int64(0), format_version=np.int64(FORMAT_VERSION),
                digest=np.array(deals_digest(GOOD.hands, 0)))
    np.savez_compressed(path, **{**base, **arrays})
    assert path.stat().st_size < 2**20
    tracemalloc.start()
    try:
        _refused(path, message)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20, f"{peak:,} bytes allocated to refuse the file"
