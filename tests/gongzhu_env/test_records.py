import json

import numpy as np
import pytest

from gongzhu_env.cards import C2, SQ, parse_cards
from gongzhu_env.engine import Game
from gongzhu_env.records import (
    RecordError,
    append_problem,
    load_records,
    record_hand,
    replay_record,
    save_records,
    sq_taker,
)
from gongzhu_env.rules import PRESETS, Rules
from tests.helpers import random_playout


def _random_hands(n: int, seed: int) -> list[Game]:
    """Seeded random hands; every third one starts with a free lead by a random seat."""
    rng = np.random.default_rng(seed)
    games = []
    for i in range(n):
        leader = int(rng.integers(4)) if i % 3 == 2 else None
        games.append(random_playout(Game(rng=rng, leader=leader), rng))
    return games


def test_round_trip_of_many_random_hands(tmp_path):
    games = _random_hands(60, seed=11)
    path = tmp_path / "hands.jsonl"
    assert save_records(path, games) == 60
    assert len(path.read_text(encoding="utf-8").splitlines()) == 60
    records = load_records(path)
    assert len(records) == 60
    for game, rec in zip(games, records, strict=True):
        replayed = replay_record(rec)
        assert replayed.actions == game.actions
        assert replayed.scores() == game.scores()
        assert replayed.deal == game.deal
        assert replayed.tricks == game.tricks
        assert replayed.exposed == game.exposed
        assert rec["scores"] == game.scores()
        assert rec["complete"] is True


def test_record_content_is_readable_card_text():
    game = _random_hands(1, seed=3)[0]
    rec = json.loads(json.dumps(record_hand(game)))
    # The deal is written as text: 52 distinct cards, 13 a seat, matching the game's deal.
    assert [parse_cards(h) for h in rec["deal"]] == [list(h) for h in game.deal]
    assert sorted(c for h in rec["deal"] for c in parse_cards(h)) == list(range(52))
    assert len(rec["tricks"]) == 13
    assert all(len(t["cards"]) == 4 for t in rec["tricks"])
    # Four declaration turns end with DONE; every other action is an exposure or one of 52 plays.
    assert rec["actions"].count("DONE") == 4
    exposing = len(rec["actions"]) - 4 - 52
    # An auto-exposure is a declaration without an action, and only happens when all four
    # exposable cards end up exposed.
    assert len(rec["declarations"]) in (exposing, exposing + 1)
    if len(rec["declarations"]) == exposing + 1:
        assert len(rec["declarations"]) == 4
    assert rec["rules"] == game.rules.to_dict()
    assert rec["leader"] is None and rec["first_leader"] == game.first_leader


def test_free_lead_with_c2_held_is_recorded_and_replays():
    # Seat 0 holds C2 but, as the SQ taker of a previous hand, leads freely with something else.
    rng = np.random.default_rng(5)
    while True:
        game = Game(rng=rng, leader=None)
        if C2 in game.deal[0]:
            break
    game = Game.from_hands(game.deal, leader=0)
    while game.phase == "declare":
        game.step(52)
    other = [c for c in game.legal_actions() if c != C2][0]
    game.step(other)
    random_playout(game, rng)
    rec = record_hand(game)
    assert rec["leader"] == 0
    assert replay_record(rec).actions == game.actions


def test_interrupted_hand_round_trip(tmp_path):
    rng = np.random.default_rng(8)
    game = random_playout(Game(rng=rng), rng, stop_after=17)
    assert not game.is_over()
    path = tmp_path / "partial.jsonl"
    save_records(path, [record_hand(game, meta={"note": "interrupted"})])
    (rec,) = load_records(path)
    assert rec["complete"] is False and rec["scores"] is None
    assert rec["meta"] == {"note": "interrupted"}
    again = replay_record(rec)
    assert again.actions == game.actions and not again.is_over()


def test_append_adds_hands(tmp_path):
    games = _random_hands(3, seed=2)
    path = tmp_path / "match.jsonl"
    save_records(path, games[:1])
    save_records(path, games[1:], append=True)
    assert [r["actions"] for r in load_records(path)] == [record_hand(g)["actions"]
                                                          for g in games]


@pytest.mark.parametrize("cut", [1, 200])
def test_append_refuses_a_file_whose_last_line_is_cut_and_leaves_it(tmp_path, cut):
    # Before: the new record was glued onto the cut line, and the file no longer loaded.
    games = _random_hands(3, seed=5)
    path = tmp_path / "match.jsonl"
    save_records(path, games[:2])
    damaged = path.read_bytes()[:-cut]  # 1: a whole record without its newline
    path.write_bytes(damaged)
    with pytest.raises(RecordError) as refused:
        save_records(path, games[2:], append=True)
    message = str(refused.value)
    assert f"cannot append hand records to {path}: its last line does not end with a " \
           "newline" in message
    assert "Nothing was written" in message and "delete the cut last line" in message
    assert path.read_bytes() == damaged
    # Repaired as the message says, the file takes the record and reads back whole.
    path.write_bytes(damaged[:damaged.rindex(b"\n") + 1] if cut > 1 else damaged + b"\n")
    assert append_problem(path) is None
    save_records(path, games[2:], append=True)
    assert len(load_records(path)) == (2 if cut > 1 else 3)


def test_append_problem_names_what_is_in_the_way(tmp_path):
    assert append_problem(tmp_path / "new.jsonl") is None  # created on the first append
    (tmp_path / "empty.jsonl").write_bytes(b"")
    assert append_problem(tmp_path / "empty.jsonl") is None
    assert append_problem(tmp_path) == "it is not a regular file"
    with pytest.raises(RecordError, match="it is not a regular file"):
        save_records(tmp_path, _random_hands(1, seed=6), append=True)


def test_sq_taker_agrees_between_game_and_record():
    for game in _random_hands(10, seed=4):
        seat = sq_taker(game)
        assert SQ in game.captured[seat]
        assert sq_taker(record_hand(game)) == seat


def test_missing_file_is_named(tmp_path):
    path = tmp_path / "nope.jsonl"
    with pytest.raises(RecordError, match="nope.jsonl.*does not exist"):
        load_records(path)


def test_bad_json_line_names_file_and_line(tmp_path):
    good = json.dumps(record_hand(_random_hands(1, seed=1)[0]))
    path = tmp_path / "bad.jsonl"
    path.write_text(good + "\n\n" + "{not json\n", encoding="utf-8")
    with pytest.raises(RecordError, match=r"bad.jsonl, line 3: not valid JSON"):
        load_records(path)


def test_wrong_shape_names_the_problem(tmp_path):
    rec = record_hand(_random_hands(1, seed=1)[0])
    del rec["deal"]
    path = tmp_path / "shape.jsonl"
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    with pytest.raises(RecordError, match=r"line 1: missing key\(s\) \['deal'\]"):
        load_records(path)
    path.write_text("[1, 2, 3]\n", encoding="utf-8")
    with pytest.raises(RecordError, match="must be a JSON object"):
        load_records(path)
    rec = record_hand(_random_hands(1, seed=1)[0]) | {"version": 99}
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    with pytest.raises(RecordError, match="unsupported record version 99"):
        load_records(path)


def test_empty_file_is_an_error(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(RecordError, match="no hand records"):
        load_records(path)


def test_tampered_scores_are_detected():
    rec = record_hand(_random_hands(1, seed=6)[0])
    rec["scores"] = [s + 10 for s in rec["scores"]]
    with pytest.raises(RecordError, match="stored scores"):
        replay_record(rec)


def test_illegal_action_in_record_is_detected():
    game = _random_hands(1, seed=7)[0]
    rec = record_hand(game)
    first_play = rec["actions"].index("C2")  # the C2 holder must lead C2
    holder = next(s for s, h in enumerate(game.deal) if C2 in h)
    other = next(c for c in rec["deal"][holder] if c != "C2")
    rec["actions"][first_play] = other
    with pytest.raises(RecordError, match="does not replay.*action #"):
        replay_record(rec)


def test_bad_card_text_and_unknown_rule_are_reported():
    rec = record_hand(_random_hands(1, seed=9)[0])
    bad = dict(rec, actions=["XX"] + rec["actions"][1:])
    with pytest.raises(RecordError, match="bad card token 'XX'"):
        replay_record(bad)
    bad = dict(rec, rules={"no_such_rule": 1})
    with pytest.raises(RecordError, match="unknown rule option"):
        replay_record(bad)


def test_tampered_tricks_are_detected():
    rec = record_hand(_random_hands(1, seed=10)[0])
    rec["tricks"][0]["winner"] = (rec["tricks"][0]["winner"] + 1) % 4
    with pytest.raises(RecordError, match="'tricks' differ"):
        replay_record(rec)


VARIANT_RULES = [
    *(Rules.preset(name) for name in sorted(PRESETS)),
    Rules(hidden_exposure=True),
    Rules(first_drawn_exposure=True),
    Rules(self_capture_double=True, discard_colour=True),
    Rules(declaration="all", hearts_table="positive", pig_sheep_swap=True),
    Rules(first_lead="any", exposed_may_lead=True, hearts_table="book"),
]


@pytest.mark.parametrize("rules", VARIANT_RULES, ids=lambda r: str(sorted(
    k for k, v in r.to_dict().items() if v != getattr(Rules(), k))))
def test_round_trip_under_every_rule_set(rules, tmp_path):
    rng = np.random.default_rng(31)
    games = [random_playout(Game(rules, rng=rng), rng) for _ in range(12)]
    path = tmp_path / "variant.jsonl"
    save_records(path, games)
    for game, rec in zip(games, load_records(path), strict=True):
        assert Rules.from_dict(rec["rules"]) == rules
        again = replay_record(rec)
        assert again.rules == rules
        assert again.actions == game.actions
        assert again.deal == game.deal
        assert again.scores() == game.scores()
