"""Scoring of one hand and settlement of four hand scores (RULES.md sections 4 and 5).

``score_hand`` is the only place a hand is valued: the engine, the env's rewards, the agents'
provisional scores and the tests all call it (or ``score_masks``, its bitmask form).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from gongzhu_env.cards import C10, DJ, HA, HEARTS, NUM_RANKS, SCORING_MASK, SQ, mask_of
from gongzhu_env.rules import Rules

# Value of each heart by rank offset (2..A), unexposed. All 13 sum to -200.
HEART_VALUES = (0, 0, 0, -10, -10, -10, -10, -10, -10, -20, -30, -40, -50)
ALL_HEARTS_BONUS = 200
PIG_VALUE = -100
SHEEP_VALUE = 100
TRANSFORMER_ALONE = 50

_HEART_SHIFT = HEARTS * NUM_RANKS
_ALL_HEARTS = (1 << NUM_RANKS) - 1
_SQ_BIT, _DJ_BIT, _C10_BIT, _HA_BIT = 1 << SQ, 1 << DJ, 1 << C10, 1 << HA
_OTHER_SCORING = SCORING_MASK & ~_C10_BIT


def _heart_sums(values: Sequence[int]) -> tuple[int, ...]:
    """Table from a 13-bit mask of hearts taken to the sum of their values."""
    sums = [0] * (1 << NUM_RANKS)
    for m in range(1, 1 << NUM_RANKS):
        low = (m & -m).bit_length() - 1
        sums[m] = sums[m & (m - 1)] + values[low]
    return tuple(sums)


HEART_SUMS = _heart_sums(HEART_VALUES)


def score_masks(captured: int, exposed: int, rules: Rules | None = None) -> int:
    """Score one player's hand from bitmasks of the scoring cards taken and the cards exposed.

    ``exposed`` is the set of every exposed card at the table (any seat's): exposure changes a
    card's value for whoever takes it.
    """
    hearts_taken = (captured >> _HEART_SHIFT) & _ALL_HEARTS
    heart_factor = 2 if exposed & _HA_BIT else 1
    slam = (captured & SCORING_MASK) == SCORING_MASK
    if hearts_taken == _ALL_HEARTS:
        # All hearts turn positive.
        subtotal = ALL_HEARTS_BONUS * heart_factor
    else:
        subtotal = HEART_SUMS[hearts_taken] * heart_factor
    if captured & _SQ_BIT:
        pig = PIG_VALUE * (2 if exposed & _SQ_BIT else 1)
        # In a grand slam the pig turns positive too.
        subtotal += -pig if slam else pig
    if captured & _DJ_BIT:
        subtotal += SHEEP_VALUE * (2 if exposed & _DJ_BIT else 1)
    if captured & _C10_BIT:
        c10_exposed = exposed & _C10_BIT
        if not captured & _OTHER_SCORING:
            # The transformer taken alone is worth a fixed amount.
            return TRANSFORMER_ALONE * (2 if c10_exposed else 1)
        # With any other scoring card it multiplies, even a subtotal of 0.
        return subtotal * (4 if c10_exposed else 2)
    return subtotal


def score_hand(captured: Iterable[int], exposed: Iterable[int] = (),
               rules: Rules | None = None) -> int:
    """Raw score of one player's hand.

    ``captured``: the cards this player took (non-scoring cards are ignored); ``exposed``: every
    card exposed at the table during declaration. ``rules`` defaults to the standard game.

    >>> from gongzhu_env.cards import parse_cards
    >>> score_hand(parse_cards("SQ H6 H8 H10 HJ C10"), parse_cards("HA"))
    -400
    """
    return score_masks(mask_of(captured), mask_of(exposed), rules)


def _round_half_away(x: float) -> int:
    """Round to the nearest integer, halves away from zero (no banker's rounding)."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def zero_sum(raw_scores: Sequence[float]) -> list[float]:
    """Each seat's raw score minus the mean of the other three, unrounded and unmultiplied.

    This is the env's ``"zero_sum"`` reward; the four results always sum to zero.
    """
    total = sum(raw_scores)
    return [s - (total - s) / 3 for s in raw_scores]


def settle(raw_scores: Sequence[int], rules: Rules | None = None) -> list[int]:
    """Zero-sum settlement of four raw hand scores, as online rooms pay it out.

    ``final_i = round(raw_i - sum(others) / 3) * settlement_multiplier``. Rounding can leave the
    four results a point off zero, as it does in the rooms.

    >>> settle([-120, -280, 0, 160])
    [-960, -3516, 960, 3516]
    """
    rules = rules or Rules()
    if len(raw_scores) != 4:
        raise ValueError(f"settle needs four raw scores, one per seat; got {len(raw_scores)}")
    return [_round_half_away(v) * rules.settlement_multiplier for v in zero_sum(raw_scores)]
