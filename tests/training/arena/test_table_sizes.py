"""The arena at other table sizes (RULES.md 6.14): N-seat deal sets, seatings and differences.

Expected values are computed here from the definitions (RULES.md 6.14 for the deck, the
formats module's docstring for the differences) with exact fractions, never copied from a run.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from agents import Agent
from gongzhu_env.cards import parse_card
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import settle
from tests.training.arena.scripted_agents import FirstLegal, LastLegal
from tests.training.arena.spies import count_played
from training.arena import (
    DealFileError,
    DealSet,
    HandRecord,
    duplicate_match,
    generate_deals,
    load_deals,
    round_robin,
)
from training.arena.cli import main
from training.arena.formats import check_format, format_label, paired_differences, seatings
from training.arena.journal import JournalError

SIZES = (3, 5, 6)
REMOVAL = ("D2", "C2", "S2", "D3")
"""RULES.md 6.14: the low cards that leave the deck, in order, until it divides evenly."""

TEAM6 = Rules(players=6, team_play=True)


def cards_in_play(players: int) -> list[int]:
    """The deck of a table of ``players`` by the rule book: 52 cards less 52 % N low cards."""
    removed = {parse_card(c) for c in REMOVAL[:52 % players]}
    return [c for c in range(52) if c not in removed]


def play_by_hand(deal: list[list[int]], players: list[Agent], rules: Rules) -> list[int]:
    """Play a deal with the given seating outside the arena; return the raw scores."""
    game = Game.from_hands(deal, rules)
    for seat, p in enumerate(players):
        p.reset(seat, rules)
    while not game.is_over():
        game.step(players[game.current_player].act(game.view(game.current_player)))
    return game.scores()


def mean(values: list[Fraction]) -> Fraction:
    return sum(values, start=Fraction(0)) / len(values)


def one_vs_rest(rows: list[list[int]]) -> Fraction:
    """1 vs N-1: the candidate's score in play r (seat r) minus the others' mean, averaged."""
    n = len(rows)
    return mean([row[r] - Fraction(sum(row) - row[r], n - 1) for r, row in enumerate(rows)])


def team_margin(rows: list[list[int]], teams: list[tuple[int, int]]) -> Fraction:
    """Team format: candidate team p's sum minus the mean of the other teams' sums, averaged."""
    out = []
    for p, row in enumerate(rows):
        sums = [row[a] + row[b] for a, b in teams]
        others = [t for i, t in enumerate(sums) if i != p]
        out.append(sums[p] - mean([Fraction(t) for t in others]))
    return mean(out)


# ----------------------------------------------------------------------------- deal sets

@pytest.mark.parametrize("players", [3, 5, 6, 7, 8])
def test_deal_sets_hold_exactly_the_cards_in_play(players):
    deals = generate_deals(25, seed=4, players=players)
    size = 52 // players
    assert deals.hands.shape == (25, players, size)
    assert (deals.players, deals.hand_size, deals.decks) == (players, size, 1)
    deck = cards_in_play(players)
    assert len(deck) == players * size
    for deal in deals:
        assert all(len(hand) == size for hand in deal)
        assert sorted(c for hand in deal for c in hand) == deck  # no removed card, none twice
        Game.from_hands(deal, Rules(players=players))  # and the engine takes it
    # Seeded and prefix-stable, as at four seats.
    assert generate_deals(25, seed=4, players=players) == deals
    assert generate_deals(25, seed=5, players=players) != deals
    assert generate_deals(10, seed=4, players=players) == deals.head(10)


def test_four_seat_deals_are_still_one_permutation_of_the_deck_per_deal():
    """The same seed gives the deals it gave before other table sizes existed."""
    rng = np.random.default_rng(12)
    expected = np.sort(np.stack([rng.permutation(52).reshape(4, 13) for _ in range(8)]), axis=2)
    assert np.array_equal(generate_deals(8, seed=12).hands, expected)
    assert generate_deals(8, seed=12, players=4) == generate_deals(8, seed=12)


@pytest.mark.parametrize("players", SIZES)
@pytest.mark.parametrize("suffix", [".npz", ".json"])
def test_deal_files_round_trip_at_other_sizes(tmp_path, players, suffix):
    deals = generate_deals(6, seed=2, players=players)
    path = deals.save(tmp_path / f"deals{suffix}")
    back = load_deals(path, Rules(players=players))
    assert back == deals and back.players == players
    assert DealSet.from_hands(list(deals)).players == players  # the shape tells the table


def test_a_deal_set_for_another_table_size_is_refused_naming_both(tmp_path):
    four = generate_deals(3, seed=0).save(tmp_path / "four.json")
    with pytest.raises(DealFileError, match=r"four\.json.*four hands of 13 cards \(players=4\)"
                                            r".*five hands of 10 cards \(players=5\)"):
        load_deals(four, Rules(players=5))
    with pytest.raises(ValueError, match=r"four hands of 13 cards.*players=5"):
        duplicate_match("random", "random", load_deals(four), rules=Rules(players=5))
    with pytest.raises(ValueError, match=r"six hands of 8 cards \(players=6\).*four hands of 13"):
        duplicate_match("random", "random", generate_deals(2, seed=0, players=6))
    with pytest.raises(ValueError, match=r"five hands of 10 cards.*\(players=5\) in each deal.*"
                                         r"three hands of 17 cards \(players=3\)"):
        DealSet.from_hands(list(generate_deals(1, seed=0, players=5)), rules=Rules(players=3))


def test_bad_deals_at_other_sizes_give_clear_errors(tmp_path):
    deal = generate_deals(1, seed=3, players=5)[0]
    deal[2][0] = parse_card("D2")  # a card that left the five-seat deck
    with pytest.raises(ValueError, match="deal 0 is not a valid deal.*D2"):
        DealSet.from_hands([deal])
    with pytest.raises(ValueError, match=r"shape .*got shape \(2, 5, 13\)"):
        DealSet(np.zeros((2, 5, 13), dtype=np.int8))
    with pytest.raises(ValueError, match=r"players must be one of \[3, 4, 5, 6, 7, 8\].*9"):
        generate_deals(2, seed=0, players=9)
    with pytest.raises(ValueError, match="decks=2 cannot be combined with players=6"):
        generate_deals(2, seed=0, decks=2, players=6)
    bad_shape = tmp_path / "shape.npz"
    np.savez(bad_shape, hands=np.zeros((2, 6, 10), dtype=np.int8), seed=np.int64(0),
             format_version=np.int64(1))
    with pytest.raises(DealFileError, match=r"shape\.npz.*\(n, 5, 10\).*got \(2, 6, 10\)"):
        load_deals(bad_shape)
    doc = json.loads(generate_deals(2, seed=1, players=6).save(tmp_path / "six.json")
                     .read_text())
    doc["deals"][1].pop()  # deal 1 has five hands where deal 0 has six
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps(doc))
    with pytest.raises(DealFileError, match="deal 1 must be a list of six hands"):
        load_deals(mixed)


# ----------------------------------------------------------------------------- seatings

class SeatLog(FirstLegal):
    """FirstLegal that notes every seat it is dealt into (one shared log for all its copies)."""

    name = "logged"
    log: list[tuple[int, int]] = []

    def reset(self, seat: int, rules: Rules) -> None:
        SeatLog.log.append((seat, rules.players))


@pytest.mark.parametrize("rules, mode", [(Rules(players=n), "1v3") for n in SIZES]
                         + [(TEAM6, "2v2")])
def test_the_candidate_sits_in_every_seat_once_per_deal(rules, mode):
    n = rules.players
    SeatLog.log = []
    records: list[HandRecord] = []
    deals = generate_deals(3, seed=8, players=n)
    res = duplicate_match(SeatLog(), LastLegal(), deals, mode=mode, rules=rules, seed=1,
                          on_game=records.append)
    if mode == "1v3":
        expected = [(r,) for r in range(n)]  # one play per seat
    else:
        half = n // 2
        expected = [(p, p + half) for p in range(half)]  # one play per pair of partners
    assert res.scores.shape == (3, len(expected), n)
    assert res.hands_played == 3 * len(expected)
    # The candidate's copies were dealt into exactly these seats, deal after deal.
    assert SeatLog.log == [(s, n) for _ in range(3) for seats in expected for s in seats]
    for rec in records:
        assert [list(h) for h in rec.game.deal] == deals[rec.deal_index]
        assert rec.seats == tuple("logged" if s in expected[rec.play] else "last"
                                  for s in range(n))
        assert rec.game.scores() == list(res.scores[rec.deal_index, rec.play])


@pytest.mark.parametrize("players", SIZES)
def test_differences_follow_the_definition_on_real_play(players):
    rules = Rules(players=players)
    deals = generate_deals(4, seed=21, players=players)
    res = duplicate_match(LastLegal(), FirstLegal(), deals, rules=rules, seed=0)
    for d, deal in enumerate(deals):
        rows = []
        for r in range(players):
            seated = [LastLegal() if s == r else FirstLegal() for s in range(players)]
            rows.append(play_by_hand(deal, seated, rules))
        assert res.scores[d].tolist() == rows
        assert res.diffs[d] == float(one_vs_rest(rows))


def test_team_differences_follow_the_definition_on_real_play():
    deals = generate_deals(4, seed=22, players=6)
    teams = [(0, 3), (1, 4), (2, 5)]
    res = duplicate_match(LastLegal(), FirstLegal(), deals, mode="2v2", rules=TEAM6, seed=0)
    assert res.unit == "team points/deal" and res.format == "2v2v2"
    for d, deal in enumerate(deals):
        rows = []
        for team in teams:
            seated = [LastLegal() if s in team else FirstLegal() for s in range(6)]
            rows.append(play_by_hand(deal, seated, TEAM6))
        assert res.scores[d].tolist() == rows
        assert res.diffs[d] == float(team_margin(rows, teams))


@pytest.mark.parametrize("rules, mode", [(Rules(players=n), "1v3") for n in SIZES]
                         + [(TEAM6, "2v2")])
def test_a_candidate_identical_to_its_opponents_scores_exactly_zero(rules, mode):
    """Deterministic identical agents play the same hand in every play, so D is exactly 0.

    (Random agents are seeded per deal, play and seat, so random against random plays a
    different hand in each play and is zero only on average.) The zero is not trivial: the
    seats' scores differ, so a candidate left in one seat would not score zero.
    """
    res = duplicate_match(FirstLegal(), FirstLegal(), generate_deals(12, seed=3,
                                                                      players=rules.players),
                          mode=mode, rules=rules, seed=0)
    assert np.all(res.diffs == 0.0) and res.stats.tie_rate == 1.0
    assert any(len(set(row)) > 1 for row in res.scores[:, 0].tolist())


def test_random_agents_are_seeded_per_hand_at_other_sizes():
    rules = Rules(players=5)
    a = duplicate_match("random", "random", 6, rules=rules, seed=3)
    assert np.array_equal(a.scores, duplicate_match("random", "random", 6, rules=rules,
                                                    seed=3).scores)
    assert not np.array_equal(a.scores, duplicate_match("random", "random", 6, rules=rules,
                                                        seed=4).scores)


# ----------------------------------------------------------------------------- formats

def test_one_vs_rest_arithmetic_on_a_hand_made_three_seat_array():
    rows = [[-100, 40, -300], [10, -200, 50], [0, 0, -60]]
    expected = one_vs_rest(rows)
    # Worked by hand as well: (-100 + 130) + (-200 - 30) + (-60 - 0), over 3 -> -260 / 3.
    assert expected == Fraction(-260, 3)
    got = paired_differences(np.array([rows]), "1v3", "raw", Rules(players=3))
    assert got[0] == float(expected)


@pytest.mark.parametrize("players", [3, 5, 7])
def test_raw_and_zero_sum_differences_on_seeded_score_arrays(players):
    rules = Rules(players=players)
    rng = np.random.default_rng(players)
    scores = rng.integers(-400, 200, size=(20, players, players)) // 10 * 10
    raw = paired_differences(scores, "1v3", "raw", rules)
    payout = paired_differences(scores, "1v3", "zero_sum", rules)
    for d, deal in enumerate(scores.tolist()):
        assert raw[d] == float(one_vs_rest(deal))
        assert payout[d] == float(mean([Fraction(settle(row, rules)[r])
                                        for r, row in enumerate(deal)]))


def test_team_format_arithmetic_on_seeded_six_seat_arrays():
    rng = np.random.default_rng(6)
    scores = rng.integers(-300, 150, size=(15, 3, 6)) // 10 * 10
    teams = [(0, 3), (1, 4), (2, 5)]
    raw = paired_differences(scores, "2v2", "raw", TEAM6)
    payout = paired_differences(scores, "2v2", "zero_sum", TEAM6)
    for d, deal in enumerate(scores.tolist()):
        assert raw[d] == float(team_margin(deal, teams))
        team_pay = [Fraction(sum(settle(row, TEAM6)[s] for s in teams[p]))
                    for p, row in enumerate(deal)]
        assert payout[d] == float(mean(team_pay))


def coin_payout(row: list[int], seat: int) -> Fraction:
    """The coin room of RULES.md section 5: the top scorers share what every other seat pays."""
    top = max(row)
    winners = [s for s, v in enumerate(row) if v == top]
    if seat in winners:
        return Fraction(sum(top - v for v in row), len(winners))
    return Fraction(row[seat] - top)


def test_coin_room_split_payments_stay_exact():
    """Two top scorers split each payment; an odd pot must not be truncated to an integer."""
    rules = Rules(players=3, settlement="yuanbao", settlement_multiplier=1)
    for rows in ([[0, 0, -10], [50, -30, 50], [-20, -20, -20]],
                 [[0, 0, -15], [0, 0, -15], [-15, 0, 0]]):
        expected = mean([coin_payout(row, r) for r, row in enumerate(rows)])
        got = paired_differences(np.array([rows]), "1v3", "zero_sum", rules)
        assert got[0] == float(expected)
    # The second deal by hand: the candidate shares the top in every play, 15 / 2 each time.
    assert expected == Fraction(15, 2)


def test_seatings_labels_and_refused_formats():
    assert seatings("1v3", Rules(players=5)) == ((0,), (1,), (2,), (3,), (4,))
    assert seatings("2v2", TEAM6) == ((0, 3), (1, 4), (2, 5))
    assert seatings("2v2", Rules()) == ((0, 2), (1, 3))
    assert format_label("1v3", Rules(players=3)) == "1v2"
    assert format_label("1v3", Rules()) == "1v3" and format_label("2v2", Rules()) == "2v2"
    assert format_label("2v2", Rules(players=8, team_play=True)) == "2v2v2v2"
    for n in (5, 6):
        with pytest.raises(ValueError, match=f"only a table of four has; got players={n}"):
            check_format("2v2", "raw", Rules(players=n))
    with pytest.raises(ValueError, match="zero_sum.*opponent copy"):
        check_format("1v3", "zero_sum", TEAM6)
    with pytest.raises(ValueError, match=r"at players=5 must be integers of shape \(deals, 5, "
                                         r"5\); got int64 \(1, 4, 4\)"):
        paired_differences(np.zeros((1, 4, 4), dtype=np.int64), "1v3", "raw", Rules(players=5))


def test_round_robin_at_five_seats():
    rules = Rules(players=5)
    rr = round_robin([FirstLegal(), LastLegal(), "random"], 4, rules=rules, seed=2,
                     resamples=50)
    assert [m.scores.shape for m in rr.matches] == [(4, 5, 5)] * 3
    assert all(m.format == "1v4" for m in rr.matches)


def test_a_five_seat_journal_resumes_to_the_same_numbers(tmp_path, monkeypatch):

    rules = Rules(players=5)
    path = tmp_path / "j.jsonl"
    fresh = duplicate_match("random", "random", 8, rules=rules, seed=6, chunk_size=2,
                            journal=path)
    lines = path.read_text().splitlines()
    assert len(lines) == 1 + 8
    assert all(len(json.loads(line)["scores"]) == 5 for line in lines[1:])  # five plays a deal
    path.write_text("\n".join(lines[:5]) + "\n")  # keep the header and deals 0..3
    played = count_played(monkeypatch)
    resumed = duplicate_match("random", "random", 8, rules=rules, seed=6, chunk_size=2,
                              journal=path, resume=True)
    assert sorted(played) == [4, 5, 6, 7]
    assert np.array_equal(resumed.scores, fresh.scores)
    assert np.array_equal(resumed.diffs, fresh.diffs)
    with pytest.raises(JournalError, match="different match: .*rules"):
        duplicate_match("random", "random", 8, seed=6, journal=path, resume=True)


# ----------------------------------------------------------------------------- command line

def test_cli_plays_five_seats_and_refuses_a_four_seat_deal_file(tmp_path, capsys):
    out, saved = tmp_path / "out", tmp_path / "five.npz"
    five = '{"players": 5}'
    assert main(["--rules", five, "--candidate", "random", "--opponents", "random",
                 "--deals", "6", "--seed", "3", "--workers", "1", "--no-progress",
                 "--no-plot", "--out", str(out), "--save-deals", str(saved)]) == 0
    (res,) = json.loads((out / "eval.json").read_text())["results"]
    assert (res["players"], res["format"], res["mode"]) == (5, "1v4", "1v3")
    assert np.array(res["scores"]).shape == (6, 5, 5) and res["hands_played"] == 30
    assert "1v4" in capsys.readouterr().out
    assert load_deals(saved) == generate_deals(6, seed=3, players=5)
    # The saved deals replay the same match.
    again = tmp_path / "again"
    assert main(["--rules", five, "--candidate", "random", "--opponents", "random",
                 "--deal-file", str(saved), "--seed", "3", "--workers", "1", "--no-progress",
                 "--no-plot", "--out", str(again)]) == 0
    assert json.loads((again / "eval.json").read_text())["results"][0]["diffs"] == res["diffs"]
    four = generate_deals(2, seed=0).save(tmp_path / "four.json")
    capsys.readouterr()
    assert main(["--rules", five, "--candidate", "random", "--opponents", "random",
                 "--deal-file", str(four), "--workers", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "four hands of 13 cards (players=4)" in err and "(players=5)" in err
    assert main(["--rules", five, "--mode", "2v2", "--candidate", "random", "--opponents",
                 "random", "--deals", "2", "--workers", "1", "--no-progress"]) == 2
    assert "--mode 2v2 is the team match and needs team rules" in capsys.readouterr().err
