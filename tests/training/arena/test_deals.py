"""Fixed, seeded deal sets and their files (training.arena.deals)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from training.arena import (
    DealFileError,
    DealSet,
    generate_deals,
    load_deals,
)


def test_generated_deals_are_valid_seeded_and_prefix_stable():
    a = generate_deals(30, seed=5)
    assert len(a) == 30 and a.seed == 5
    for deal in a:
        assert sorted(c for hand in deal for c in hand) == list(range(52))
        assert all(len(hand) == 13 for hand in deal)
    assert generate_deals(30, seed=5) == a
    assert generate_deals(30, seed=6) != a
    # The first k deals of a longer set are the k-deal set of the same seed.
    assert np.array_equal(generate_deals(10, seed=5).hands, a.hands[:10])
    assert a.head(10) == generate_deals(10, seed=5)


@pytest.mark.parametrize("suffix", [".npz", ".json"])
def test_deal_set_save_load_round_trip(tmp_path, suffix):
    deals = generate_deals(12, seed=3)
    path = deals.save(tmp_path / f"deals{suffix}")
    back = load_deals(path)
    assert back == deals
    assert back.seed == 3


def test_deal_set_without_seed_round_trips(tmp_path):
    deals = DealSet.from_hands(list(generate_deals(3, seed=1)))
    assert deals.seed is None
    assert load_deals(deals.save(tmp_path / "d.npz")) == deals
    assert load_deals(deals.save(tmp_path / "d.json")) == deals


def _json_doc(deals):
    from gongzhu_env.cards import card_str

    return {"format": "gongzhu-deals", "format_version": 1, "seed": deals.seed,
            "deals": [[[card_str(c) for c in h] for h in d] for d in deals]}


def test_bad_deal_files_give_clear_errors(tmp_path):
    with pytest.raises(DealFileError, match="does not exist"):
        load_deals(tmp_path / "missing.npz")
    txt = tmp_path / "deals.txt"
    txt.write_text("x")
    with pytest.raises(DealFileError, match=r"\.npz or \.json"):
        load_deals(txt)
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    with pytest.raises(DealFileError, match="not valid JSON"):
        load_deals(garbage)
    foreign = tmp_path / "foreign.json"
    foreign.write_text(json.dumps({"hello": 1}))
    with pytest.raises(DealFileError, match="gongzhu-deals"):
        load_deals(foreign)

    good = generate_deals(3, seed=0)
    doc = _json_doc(good)
    # A card dealt twice (seat 1's first card replaced by seat 0's first card).
    doc["deals"][2][1][0] = doc["deals"][2][0][0]
    dup = tmp_path / "dup.json"
    dup.write_text(json.dumps(doc))
    with pytest.raises(DealFileError, match="deal 2.*twice"):
        load_deals(dup)
    doc = _json_doc(good)
    doc["deals"][1][3].pop()
    short = tmp_path / "short.json"
    short.write_text(json.dumps(doc))
    with pytest.raises(DealFileError, match="deal 1.*12 cards"):
        load_deals(short)
    doc = _json_doc(good)
    doc["deals"][0][0][0] = "SX"
    badcard = tmp_path / "badcard.json"
    badcard.write_text(json.dumps(doc))
    with pytest.raises(DealFileError, match="deal 0.*SX"):
        load_deals(badcard)
    doc = _json_doc(good)
    doc["format_version"] = 99
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps(doc))
    with pytest.raises(DealFileError, match="version 99"):
        load_deals(newer)

    shape = tmp_path / "shape.npz"
    np.savez(shape, hands=np.zeros((2, 4, 12), dtype=np.int8), seed=np.int64(0),
             format_version=np.int64(1))
    with pytest.raises(DealFileError, match=r"shape \(n, 4, 13\)"):
        load_deals(shape)
    lacking = tmp_path / "lacking.npz"
    np.savez(lacking, hands=good.hands)
    with pytest.raises(DealFileError, match="lacks"):
        load_deals(lacking)
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(good.save(tmp_path / "ok.npz").read_bytes()[:40])
    with pytest.raises(DealFileError, match="not a readable"):
        load_deals(truncated)


def test_generate_deals_rejects_bad_arguments():
    with pytest.raises(ValueError, match="positive"):
        generate_deals(0, seed=0)
    with pytest.raises(ValueError, match="seed"):
        generate_deals(5, seed=-1)
