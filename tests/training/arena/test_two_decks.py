"""The arena under two-deck rules: 26-card deal sets, 1v3 and 2v2 matches, the command line."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from gongzhu_env.records import load_records, replay_record
from gongzhu_env.rules import Rules
from training.arena import DealSet, HandRecord, duplicate_match, generate_deals, load_deals
from training.arena.cli import main

TWO = Rules.preset("two_decks")


def test_two_deck_deals_hold_every_card_twice_and_are_prefixes():
    deals = generate_deals(6, seed=3, decks=2)
    assert deals.hands.shape == (6, 4, 26) and deals.decks == 2
    for d in range(6):
        counts = Counter(int(c) for c in deals.hands[d].ravel())
        assert sorted(counts) == list(range(52)) and set(counts.values()) == {2}
    # A smaller set for the same seed is the first deals of a larger one, as with one deck.
    assert np.array_equal(generate_deals(3, seed=3, decks=2).hands, deals.hands[:3])
    assert generate_deals(2, seed=3).decks == 1
    with pytest.raises(ValueError, match="decks must be 1 or 2"):
        generate_deals(2, seed=3, decks=3)


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_two_deck_deal_files_round_trip(tmp_path, suffix):
    deals = generate_deals(4, seed=1, decks=2)
    back = load_deals(deals.save(tmp_path / f"deals{suffix}"))
    assert back == deals and back.decks == 2


def test_a_bad_two_deck_deal_is_refused_by_the_engine():
    deal = generate_deals(1, seed=0, decks=2)[0]
    deal[0][0], deal[1][0] = deal[1][0], deal[0][0]
    assert DealSet.from_hands([deal]).decks == 2  # swapping cards keeps a valid deal
    deal[0][1] = deal[0][0] if deal[0][1] != deal[0][0] else deal[0][2]
    with pytest.raises(ValueError, match="deal 0 is not a valid deal"):
        DealSet.from_hands([deal])


def test_deals_for_the_other_number_of_decks_are_refused_before_play():
    with pytest.raises(ValueError, match="hands of 13 cards .* rules play 2 decks"):
        duplicate_match("random", "random", generate_deals(2, seed=0), rules=TWO)
    with pytest.raises(ValueError, match="hands of 26 cards .* rules play 1 deck"):
        duplicate_match("random", "random", generate_deals(2, seed=0, decks=2))


@pytest.mark.parametrize("mode", ["1v3", "2v2"])
@pytest.mark.parametrize("candidate, opponent", [("greedy", "random"), ("expert", "greedy")])
def test_two_deck_matches_play_every_hand_to_the_engines_scores(mode, candidate, opponent):
    deals = generate_deals(3, seed=7, decks=2)
    records: list[HandRecord] = []
    res = duplicate_match(candidate, opponent, deals, mode=mode, rules=TWO, seed=2,
                          on_game=records.append)
    plays = 4 if mode == "1v3" else 2
    assert res.scores.shape == (3, plays, 4) and len(records) == 3 * plays
    for r in records:
        assert r.game.is_over() and len(r.game.tricks) > 13  # two decks: up to 26 tricks
        assert [list(h) for h in r.game.deal] == deals[r.deal_index]
        assert r.game.scores() == list(res.scores[r.deal_index, r.play])
    assert res.unit == ("team points/deal" if mode == "2v2" else "points/hand")
    again = duplicate_match(candidate, opponent, deals, mode=mode, rules=TWO, seed=2)
    assert np.array_equal(res.scores, again.scores)


def test_cli_two_deck_team_match_with_records_and_deal_file(tmp_path, capsys):
    out, rec, dealfile = tmp_path / "out", tmp_path / "hands.jsonl", tmp_path / "deals.json"
    assert main(["--rules", "two_decks", "--teams", "--candidate", "expert", "--opponents",
                 "random", "--deals", "2", "--seed", "4", "--workers", "1", "--no-progress",
                 "--no-plot", "--out", str(out), "--record", str(rec),
                 "--save-deals", str(dealfile)]) == 0
    (res,) = json.loads((out / "eval.json").read_text())["results"]
    assert res["mode"] == "2v2" and res["rules"] == TWO.to_dict() and len(res["diffs"]) == 2
    records = load_records(rec)
    assert len(records) == 4
    for r in records:
        game = replay_record(r)
        assert game.rules == TWO and game.is_over() and game.scores() == r["scores"]
    # The saved 26-card deals replay the same match; under one-deck rules they are refused.
    again = tmp_path / "again"
    assert main(["--rules", "two_decks", "--teams", "--candidate", "expert", "--opponents",
                 "random", "--deal-file", str(dealfile), "--seed", "4", "--workers", "1",
                 "--no-progress", "--no-plot", "--out", str(again)]) == 0
    assert json.loads((again / "eval.json").read_text())["results"][0]["diffs"] == res["diffs"]
    capsys.readouterr()
    assert main(["--candidate", "expert", "--opponents", "random", "--deal-file",
                 str(dealfile), "--workers", "1", "--no-progress"]) == 2
    assert "hands of 26 cards (2 decks), but the rules play 1 deck" in capsys.readouterr().err
