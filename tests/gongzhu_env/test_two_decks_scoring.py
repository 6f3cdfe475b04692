"""Two-deck scoring (RULES.md 6.11): every worked example, through ``score_hand`` and in play.

The expected numbers are written out from the rule book, not taken from the scoring module.
"""

from __future__ import annotations

import pytest

from gongzhu_env import Game, Rules
from gongzhu_env.cards import parse_cards
from gongzhu_env.scoring import score_hand, settle
from tests.gongzhu_env.two_deck_deals import act, deal2, declare, legal_text

R2 = Rules(decks=2)
ALL_HEARTS = " ".join(f"H{r} H{r}" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J",
                                              "Q", "K", "A"))
BOTH_EXPOSED = "C10 C10 HA HA SQ SQ"


def score(captured: str, exposed: str = "") -> int:
    return score_hand(parse_cards(captured), parse_cards(exposed), R2)


def test_the_two_big_examples_of_the_rule_book() -> None:
    # Both C10, both HA and both SQ exposed.
    assert score("HA C10 C10", BOTH_EXPOSED) == -50 * 4 * 16 == -3200
    assert score("SQ SQ C10 C10", BOTH_EXPOSED) == -400 * 2 * 16 == -12800


@pytest.mark.parametrize(("exposed", "expected"), [("", 400), ("HA", 800), ("HA HA", 1600)])
def test_all_26_hearts(exposed: str, expected: int) -> None:
    assert score(ALL_HEARTS, exposed) == expected


def test_13_different_hearts_are_not_all_hearts() -> None:
    # One copy of every heart is half the hearts: the table, -200, not a bonus.
    assert score("H2 H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK HA") == -200
    assert score(ALL_HEARTS.replace("HA HA", "HA")) == -400 + 50


@pytest.mark.parametrize(("captured", "exposed", "expected"), [
    ("SQ", "", -100), ("SQ", "SQ", -200), ("SQ", "SQ SQ", -400),
    ("SQ SQ", "", -200), ("SQ SQ", "SQ", -400), ("SQ SQ", "SQ SQ", -800),
    ("DJ", "", 100), ("DJ", "DJ", 200), ("DJ", "DJ DJ", 400),
    ("DJ DJ", "", 200), ("DJ DJ", "DJ", 400), ("DJ DJ", "DJ DJ", 800),
    ("H5", "HA", -20), ("H5", "HA HA", -40), ("HA HA", "HA", -200),
])
def test_exposure_is_per_copy_for_everyone_who_takes_the_card(captured: str, exposed: str,
                                                              expected: int) -> None:
    # One exposed SQ makes both SQ -200, both exposed -400 each; DJ likewise; HA doubles and
    # quadruples hearts. The exposer need not be the taker.
    assert score(captured, exposed) == expected


# (copies exposed at the table, copies taken) -> factor, as 6.11 lists them.
C10_FACTORS = [(0, 1, 2), (0, 2, 4), (1, 1, 4), (1, 2, 8), (2, 1, 4), (2, 2, 16)]


@pytest.mark.parametrize(("exposed", "taken", "factor"), C10_FACTORS)
def test_transformer_factor_table(exposed: int, taken: int, factor: int) -> None:
    captured = " ".join(["C10"] * taken + ["H5", "HJ"])  # -30 of hearts
    assert score(captured, " ".join(["C10"] * exposed)) == -30 * factor


@pytest.mark.parametrize(("exposed", "taken", "factor"), C10_FACTORS)
def test_transformer_alone_counts_25_before_its_factor(exposed: int, taken: int,
                                                       factor: int) -> None:
    assert score(" ".join(["C10"] * taken), " ".join(["C10"] * exposed)) == 25 * factor


def test_transformer_alone_readings() -> None:
    assert score("C10") == 50  # as with one deck
    assert score("C10 C10", "C10 C10") == 400
    # With scoring cards worth nothing it is not alone: 0, not 25 x factor.
    assert score("C10 H2 H3") == 0


def test_slam_of_all_32_scoring_cards() -> None:
    # All hearts +400, the two pigs turn positive (+200), the two sheep +200, both C10 x4.
    assert score(ALL_HEARTS + " SQ SQ DJ DJ C10 C10") == (400 + 200 + 200) * 4


def test_scoring_refuses_a_third_copy() -> None:
    with pytest.raises(ValueError, match="SQ appears three times"):
        score("SQ SQ SQ")
    with pytest.raises(ValueError, match="exposed"):
        score_hand([], [49, 49, 49], R2)
    with pytest.raises(ValueError, match="not a card index"):
        score_hand([52], [], R2)


def test_settlement_has_no_x12() -> None:
    assert settle([-120, -280, 0, 160], R2) == [-80, -293, 80, 293]
    assert settle([-190, 50, -10, 0], Rules.preset("two_decks")) == [-125, 125, -125, 125]
    assert settle([-3200, 0, 400, 0], Rules.preset("two_decks")) == [-1400, 1400, -1400, 1400]
    # The multiplier is still an option.
    assert settle([-120, -280, 0, 160], Rules(decks=2, settlement_multiplier=3)) == [
        -240, -879, 240, 879]


CLUBS_BUT_C10 = " ".join(f"C{r} C{r}" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "J", "Q",
                                                 "K", "A"))


def _exposed_table() -> Game:
    """Seat 0 holds every club but the two C10; seats 1 and 2 hold one C10 each (their only
    club), seat 3 no club and both HA and both SQ; the C10s, HAs and SQs are exposed."""
    hands = deal2(CLUBS_BUT_C10, "C10", "C10", "HA HA SQ SQ")
    game = Game.from_hands(hands, R2, leader=0)
    return declare(game, {1: "C10", 2: "C10", 3: "HA HA SQ SQ"})


def _plain_discard(game: Game) -> str:
    """A legal card of no score outside clubs (so the taker's score stays the example's)."""
    return next(t for t in legal_text(game) if t[0] in "DS" and t not in ("DJ", "SQ"))


def test_minus_3200_in_play() -> None:
    game = _exposed_table()
    act(game, "CA")
    assert legal_text(game) == ["C10"]  # its only club, so the exposed copy may follow
    act(game, "C10", "C10", "HA")
    assert game.tricks[0].winner == 0
    assert game.captured[0] == tuple(parse_cards("C10 C10 HA"))
    assert game.provisional_scores()[0] == -3200


def test_minus_12800_in_play() -> None:
    game = _exposed_table()
    act(game, "CA+CA")
    # Seats 1 and 2 hold one club: it and a discard; seat 3 none: two discards.
    for _ in (1, 2):
        act(game, "C10")
        act(game, _plain_discard(game))
    act(game, "SQ", "SQ")
    assert game.tricks[0].winner == 0
    assert game.captured[0] == tuple(parse_cards("C10 C10 SQ SQ"))
    assert game.provisional_scores()[0] == -12800
