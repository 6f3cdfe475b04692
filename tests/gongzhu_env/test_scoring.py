"""Scoring of one hand and zero-sum settlement (RULES.md sections 4 and 5).

Expected values come from the rule book's worked examples or are derived by hand in a comment;
the property test compares ``score_hand`` with ``reference_score``, a deliberately plain
re-reading of section 4 written here without the engine's bit tricks.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gongzhu_env import Rules
from gongzhu_env.cards import parse_cards
from gongzhu_env.scoring import coin_results, score_hand, settle, zero_sum

ALL_HEARTS = "H2 H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK HA"


def score(captured: str, exposed: str = "") -> int:
    return score_hand(parse_cards(captured), parse_cards(exposed))


# ------------------------------------------------------------------ worked examples, section 4
@pytest.mark.parametrize(
    ("captured", "exposed", "expected"),
    [
        ("SQ H6 H8 H10 HJ C10", "HA", -400),
        ("HA H6 H9 H7 H10", "", -90),
        ("H2 H3 H4 H5 H8 HJ HQ HK C10", "", -220),
        (ALL_HEARTS + " SQ", "", 100),
        ("C10", "", 50),
        ("C10", "C10", 100),
        ("C10 DJ", "", 200),
    ],
)
def test_rule_book_examples(captured: str, exposed: str, expected: int) -> None:
    assert score(captured, exposed) == expected


def test_slams() -> None:
    everything = ALL_HEARTS + " SQ DJ C10"
    assert score(everything) == 800
    assert score(everything, "SQ DJ C10 HA") == 3200


def test_slam_with_some_exposures() -> None:
    # Exposed SQ and HA, DJ and C10 not: hearts all taken -> +200 x 2 = +400; slam pig turns
    # positive and exposed -> +200; sheep +100; subtotal 700; C10 unexposed x2 -> 1400.
    assert score(ALL_HEARTS + " SQ DJ C10", "SQ HA") == 1400
    # Only C10 exposed: (200 + 100 + 100) x 4 = 1600.
    assert score(ALL_HEARTS + " SQ DJ C10", "C10") == 1600


def test_all_hearts_variants() -> None:
    assert score(ALL_HEARTS) == 200
    assert score(ALL_HEARTS, "HA") == 400
    # All hearts and SQ without the slam: the pig stays negative, exposed -200: 400 - 200.
    assert score(ALL_HEARTS + " SQ", "HA SQ") == 200
    # All hearts, SQ, DJ but no C10 is not a slam: 200 - 100 + 100.
    assert score(ALL_HEARTS + " SQ DJ") == 200


def test_missing_only_h2_is_not_all_hearts() -> None:
    # H3..HA sum to -200 since H2 is worth 0; no bonus.
    assert score("H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK HA") == -200
    assert score("H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK HA", "HA") == -400


def test_transformer_with_zero_value_hearts_scores_zero() -> None:
    assert score("C10 H2 H3") == 0
    assert score("C10 H4", "C10") == 0


def test_pig_and_sheep_values() -> None:
    assert score("SQ") == -100
    assert score("SQ", "SQ") == -200
    assert score("DJ") == 100
    assert score("DJ", "DJ") == 200
    assert score("SQ DJ", "SQ") == -100
    # Exposure of a card nobody here took changes nothing for this player.
    assert score("DJ", "SQ HA C10") == 100
    assert score("C10 SQ DJ", "SQ DJ C10") == 0
    assert score("C10 SQ", "SQ C10") == -800


def test_heart_values() -> None:
    assert score("H2 H3 H4") == 0
    assert score("H5 H10") == -20
    assert score("HJ HQ HK HA") == -140
    assert score("HK", "HA") == -80
    assert score("") == 0
    # Non-scoring cards are ignored.
    assert score("S2 SA CA D3") == 0
    assert score("SA HA") == -50


# ------------------------------------------------------------------ a plain reference
HEART_TABLE = {2: 0, 3: 0, 4: 0, 5: -10, 6: -10, 7: -10, 8: -10, 9: -10, 10: -10,
               11: -20, 12: -30, 13: -40, 14: -50}
SQ, DJ, C10, HA = 49, 22, 8, 38
HEARTS = set(range(26, 39))
SCORING = HEARTS | {SQ, DJ, C10}


def reference_score(captured: set[int], exposed: set[int]) -> int:
    """RULES.md section 4, step by step, read literally."""
    taken = captured & SCORING
    ha = HA in exposed
    hearts_taken = taken & HEARTS
    if hearts_taken == HEARTS:
        hearts = 400 if ha else 200
    else:
        hearts = sum(HEART_TABLE[c - 26 + 2] * (2 if ha else 1) for c in hearts_taken)
    pig = 0
    if SQ in taken:
        pig = -200 if SQ in exposed else -100
        if taken == SCORING:
            pig = -pig
    sheep = (200 if DJ in exposed else 100) if DJ in taken else 0
    subtotal = hearts + pig + sheep
    if C10 not in taken:
        return subtotal
    if taken == {C10}:
        return 100 if C10 in exposed else 50
    return subtotal * (4 if C10 in exposed else 2)


# Bias towards the scoring cards so that all-hearts and slams come up.
_scoring_subsets = st.sets(st.sampled_from(sorted(SCORING)))
_any_subsets = st.sets(st.integers(0, 51), max_size=20)


@settings(max_examples=600, deadline=None)
@given(
    scoring=_scoring_subsets,
    others=_any_subsets,
    full_hearts=st.booleans(),
    exposed=st.sets(st.sampled_from([SQ, DJ, C10, HA])),
)
def test_score_matches_reference(scoring: set[int], others: set[int], full_hearts: bool,
                                 exposed: set[int]) -> None:
    captured = scoring | others | (HEARTS if full_hearts else set())
    assert score_hand(sorted(captured), sorted(exposed)) == reference_score(captured, exposed)


def test_reference_agrees_with_rule_book() -> None:
    # Guard the reference itself against the worked examples.
    assert reference_score(set(parse_cards("SQ H6 H8 H10 HJ C10")), {HA}) == -400
    assert reference_score(SCORING, set()) == 800
    assert reference_score(SCORING, {SQ, DJ, C10, HA}) == 3200


# ------------------------------------------------------------------ settlement, section 5
def test_settlement_example() -> None:
    raw = [-120, -280, 0, 160]
    # Seat 0: the others sum to -120, so -120 - (-120 / 3) = -80; seat 1: -280 - 40 / 3 = -293.3.
    assert [round(v) for v in zero_sum(raw)] == [-80, -293, 80, 293]
    assert settle(raw) == [-960, -3516, 960, 3516]


def test_zero_sum_is_unrounded_and_sums_to_zero() -> None:
    z = zero_sum([-120, -280, 0, 160])
    assert z[1] == pytest.approx(-280 - (-120 + 0 + 160) / 3)
    assert sum(z) == pytest.approx(0)


def test_settle_multiplier_option_and_rounding() -> None:
    assert settle([-120, -280, 0, 160], Rules(settlement_multiplier=1)) == [-80, -293, 80, 293]
    # raw (3, 0, 0, 1): 3 - 1/3 = 2.67 -> 3; 0 - 4/3 = -1.33 -> -1 (twice); 1 - 3/3 = 0.
    # The results sum to 1, not 0: rounding may leave a point, as the rule book says.
    assert settle([3, 0, 0, 1], Rules(settlement_multiplier=1)) == [3, -1, -1, 0]
    assert settle([3, 0, 0, 1]) == [36, -12, -12, 0]


def test_settle_needs_four_scores() -> None:
    with pytest.raises(ValueError, match="four"):
        settle([1, 2, 3])


# ------------------------------------------------------------------ coin settlement, section 5
COIN = Rules(settlement="yuanbao")


@pytest.mark.parametrize("raw", [
    [100, 0, -200, -200],
    [100.0, 0.0, -200.0, -200.0],
    [np.float64(100), np.float32(0), np.float64(-200), np.float64(-200)],
    np.array([100.0, 0.0, -200.0, -200.0]),
    np.array([100, 0, -200, -200], dtype=np.int32),
], ids=["ints", "floats", "numpy-floats", "float-array", "int-array"])
def test_coin_settlement_takes_whole_numbers_of_any_kind(raw) -> None:
    # RULES.md section 5: B pays 100, C and D 300 each, to A: (+700, -100, -300, -300), x12.
    out = settle(raw, COIN)
    assert out == [8400, -1200, -3600, -3600]
    assert all(type(v) is int for v in out)


def test_coin_amounts_are_ints_where_whole_and_fractions_only_where_not() -> None:
    # Three top scorers split 301: 301/3 each, not whole, stays exact.
    split = settle([100, 100, 100, -201], Rules(settlement="yuanbao", settlement_multiplier=1))
    assert split == [Fraction(301, 3)] * 3 + [-301]
    # Times a multiplier of 3 the share is 301, whole: an int, not Fraction(301, 1).
    tripled = settle([100, 100, 100, -201], Rules(settlement="yuanbao", settlement_multiplier=3))
    assert tripled == [301, 301, 301, -903] and all(type(v) is int for v in tripled)
    # Two top scorers split 600: 300 each, an int.
    assert [type(v) for v in coin_results([100, 100, -200, -200])] == [int] * 4


@pytest.mark.parametrize("raw", [[100.5, 0, -200, -200], [0.1, 0, 0, 0]])
def test_coin_settlement_refuses_a_score_that_is_not_whole(raw) -> None:
    with pytest.raises(ValueError, match=r"whole points; got (100\.5|0\.1)"):
        settle(raw, COIN)


def test_zero_sum_settlement_takes_floats_as_their_values() -> None:
    assert settle([-120.0, -280.0, 0.0, 160.0]) == settle([-120, -280, 0, 160])
    assert settle(np.array([-120.0, -280.0, 0.0, 160.0])) == [-960, -3516, 960, 3516]
