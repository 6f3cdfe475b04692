"""Scoring of one hand and settlement of a table's hand scores (RULES.md sections 4 and 5).

``score_hand`` is the only place a hand is valued: the engine, the env's rewards, the agents'
provisional scores and the tests all call it (or ``score_masks``, its bitmask form).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction

import numpy as np

from gongzhu_env.cards import (
    C10,
    DJ,
    HA,
    HEARTS,
    NUM_RANKS,
    SCORING_MASK,
    SQ,
    card_index,
    card_str,
    ms_copies,
    multiset_masks,
    parse_cards,
)
from gongzhu_env.rules import Rules, count_word

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

# Alternative heart tables (RULES.md 6.9), by rank offset 2..A.
BOOK_HEART_VALUES = (-2, -3, -10, -5, -6, -7, -8, -9, -10, -20, -30, -40, -50)
POSITIVE_HEART_VALUES = (10, 10, 10, 10, 10, 10, 10, 10, 10, 20, 30, 40, 50)
# hearts_table -> (sums by 13-bit mask, value of all 13 hearts before the exposed-HA factor).
_HEART_TABLES: dict[str, tuple[tuple[int, ...], int]] = {
    "standard": (HEART_SUMS, ALL_HEARTS_BONUS),
    "book": (_heart_sums(BOOK_HEART_VALUES), ALL_HEARTS_BONUS),
    "positive": (_heart_sums(POSITIVE_HEART_VALUES),
                 sum(POSITIVE_HEART_VALUES) + ALL_HEARTS_BONUS),
}


def score_masks(captured: int, exposed: int, rules: Rules | None = None, *,
                own_exposed: int = 0, doubled: int = 0) -> int:
    """Score one player's hand from bitmasks of the scoring cards taken and the cards exposed.

    ``exposed`` is the set of every exposed card at the table (any seat's): exposure changes a
    card's value for whoever takes it. ``own_exposed`` (the cards this player exposed) matters
    only with ``self_capture_double``; ``doubled`` (exposed cards that were their holder's first
    dealt card) only with ``first_drawn_exposure``.
    """
    if rules is not None and not rules.is_standard:
        return _score_variant(captured, exposed, rules, own_exposed, doubled)
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


def _score_variant(captured: int, exposed: int, rules: Rules, own: int, doubled: int) -> int:
    """``score_masks`` under any rule set: the standard formula with every variant's factors.

    Each special card has a factor: 1, x2 if exposed, x2 again if it was its holder's first
    dealt card (first-drawn exposure), x2 again if the scorer took back its own exposed card
    (self-capture). The pig and sheep values, the hearts and the transformer scale by their
    card's factor.
    """
    if not rules.first_drawn_exposure:
        doubled = 0
    if not rules.self_capture_double:
        own = 0
    own &= captured

    def factor(bit: int) -> int:
        if not exposed & bit:
            return 1
        return 2 * (2 if doubled & bit else 1) * (2 if own & bit else 1)

    sums, all_hearts = _HEART_TABLES[rules.hearts_table]
    hearts_taken = (captured >> _HEART_SHIFT) & _ALL_HEARTS
    heart_factor = factor(_HA_BIT)
    slam = (captured & SCORING_MASK) == SCORING_MASK
    swap = hearts_taken == _ALL_HEARTS and rules.pig_sheep_swap and not slam
    if hearts_taken == _ALL_HEARTS:
        subtotal = all_hearts * heart_factor
    else:
        subtotal = sums[hearts_taken] * heart_factor
    if captured & _SQ_BIT:
        pig = PIG_VALUE * factor(_SQ_BIT)
        subtotal += -pig if slam or swap else pig
    if captured & _DJ_BIT:
        sheep = SHEEP_VALUE * factor(_DJ_BIT)
        subtotal += -sheep if swap else sheep
    if captured & _C10_BIT:
        f = factor(_C10_BIT)
        if not captured & _OTHER_SCORING:
            return TRANSFORMER_ALONE * f
        return subtotal * 2 * f
    return subtotal


# Two decks (RULES.md 6.11): the transformer's factor by (copies exposed at the table, copies
# taken), and what a transformer taken with no other scoring card counts before that factor.
TWO_DECK_C10_FACTORS = {(0, 1): 2, (0, 2): 4, (1, 1): 4, (1, 2): 8, (2, 1): 4, (2, 2): 16}
TWO_DECK_C10_ALONE = 25
TWO_DECK_ALL_HEARTS = 400


def score_two_decks(taken: tuple[int, int], exposed: tuple[int, int]) -> int:
    """Score one player's two-deck hand (RULES.md 6.11) from multisets as ``(once, twice)``.

    ``taken``: the scoring cards this player took; ``exposed``: every copy exposed at the table
    (by anyone). Each exposed copy of SQ, DJ or HA doubles that card's value (both copies: x4),
    for whoever takes it. All 26 hearts are worth +400 before the HA factor; all 32 scoring
    cards also turn the pigs positive (the slam). The transformers multiply by
    ``TWO_DECK_C10_FACTORS``; taken with no other scoring card they count 25 before it.
    """
    once, twice = taken
    e1, e2 = exposed
    hearts_once = (once >> _HEART_SHIFT) & _ALL_HEARTS
    hearts_twice = (twice >> _HEART_SHIFT) & _ALL_HEARTS
    heart_factor = 1 << ms_copies(e1, e2, _HA_BIT)
    all_hearts = hearts_twice == _ALL_HEARTS
    slam = twice & SCORING_MASK == SCORING_MASK
    if all_hearts:
        subtotal = TWO_DECK_ALL_HEARTS * heart_factor
    else:
        subtotal = (HEART_SUMS[hearts_once] + HEART_SUMS[hearts_twice]) * heart_factor
    pigs = ms_copies(once, twice, _SQ_BIT)
    if pigs:
        pig = PIG_VALUE * (1 << ms_copies(e1, e2, _SQ_BIT))
        subtotal += pigs * (-pig if slam else pig)
    sheep = ms_copies(once, twice, _DJ_BIT)
    if sheep:
        subtotal += sheep * SHEEP_VALUE * (1 << ms_copies(e1, e2, _DJ_BIT))
    transformers = ms_copies(once, twice, _C10_BIT)
    if transformers:
        factor = TWO_DECK_C10_FACTORS[ms_copies(e1, e2, _C10_BIT), transformers]
        if not once & _OTHER_SCORING:
            return TWO_DECK_C10_ALONE * factor
        return subtotal * factor
    return subtotal


def _card_list(cards: Iterable[int | str] | str, what: str) -> list[int]:
    """Read a list of cards (``cards.card_index`` each), or one string of cards (``"SQ H6"``)."""
    if isinstance(cards, str):
        try:
            return parse_cards(cards)
        except ValueError as e:
            raise ValueError(f"{what}: {e}") from None
    try:
        items = list(cards)
    except TypeError:
        raise TypeError(f"{what} must be a list of cards (indices 0..51 or text such as "
                        f"'SQ'); got {cards!r}") from None
    return [card_index(c, what) for c in items]


def _multiset(cards: Iterable[int | str] | str, what: str) -> tuple[int, int]:
    """Check a two-deck card list (at most two copies of a card) and return its masks."""
    try:
        return multiset_masks(_card_list(cards, what))
    except ValueError as e:
        if str(e).startswith(what):
            raise
        raise ValueError(f"{what}: {e}") from None


def _card_set(cards: Iterable[int | str] | str, what: str) -> int:
    """Check a one-deck card list (each card once) and return its mask."""
    mask = 0
    for c in _card_list(cards, what):
        if mask >> c & 1:
            raise ValueError(f"{what}: card {card_str(c)} appears twice; one deck has one copy "
                             f"of each card")
        mask |= 1 << c
    return mask


def score_hand(captured: Iterable[int], exposed: Iterable[int] = (),
               rules: Rules | None = None, *, own_exposed: Iterable[int] = (),
               first_drawn: Iterable[int] = ()) -> int:
    """Raw score of one player's hand.

    ``captured``: the cards this player took (non-scoring cards are ignored); ``exposed``: every
    card exposed at the table during declaration. ``rules`` defaults to the standard game.
    ``own_exposed``: the cards this player exposed (for ``self_capture_double``);
    ``first_drawn``: exposed cards that were their holder's first dealt card (for
    ``first_drawn_exposure``).

    With two decks (``Rules(decks=2)``) ``captured`` and ``exposed`` are multisets: a card may
    appear twice (``score_two_decks``).

    >>> from gongzhu_env.cards import parse_cards
    >>> score_hand(parse_cards("SQ H6 H8 H10 HJ C10"), parse_cards("HA"))
    -400
    >>> score_hand(parse_cards("SQ SQ C10 C10"), parse_cards("SQ SQ C10 C10"), Rules(decks=2))
    -12800
    """
    rules = Rules.coerce(rules)
    if rules.decks == 2:
        return score_two_decks(_multiset(captured, "captured"), _multiset(exposed, "exposed"))
    return score_masks(_card_set(captured, "captured"), _card_set(exposed, "exposed"), rules,
                       own_exposed=_card_set(own_exposed, "own_exposed"),
                       doubled=_card_set(first_drawn, "first_drawn"))


def _round_half_away(x: float) -> int:
    """Round to the nearest integer, halves away from zero (no banker's rounding)."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def zero_sum(raw_scores: Sequence[float]) -> list[float]:
    """Each seat's raw score minus the mean of the others', unrounded and unmultiplied.

    ``raw_i - (sum of the other N - 1) / (N - 1)`` for a table of ``N`` seats. This is the
    env's ``"zero_sum"`` reward; the results always sum to zero.
    """
    others = len(raw_scores) - 1
    if others < 1:
        raise ValueError(f"zero-sum results need at least two seats; got {list(raw_scores)!r}")
    total = sum(raw_scores)
    return [s - (total - s) / others for s in raw_scores]


FIXED_TEAMS: tuple[tuple[int, ...], tuple[int, ...]] = ((0, 2), (1, 3))
"""The partners of team play at four seats (RULES.md section 5; ``Rules.fixed_teams``)."""


REWARD_MODES = ("raw", "zero_sum", "team")
"""What a seat's hand result is measured as, for rewards and training targets."""


def hand_results(raw_scores: Sequence[float], mode: str,
                 teams: Sequence[Sequence[int]] | None = None) -> list[float]:
    """Each seat's result of a finished hand in a reward mode (``REWARD_MODES``).

    ``"raw"``: the raw score; ``"zero_sum"``: ``zero_sum``; ``"team"``: ``team_results`` over
    the hand's ``teams`` (``Game.teams``), which team rules must have set. The env, the
    single-seat wrapper and the trainers all ask here, so a reward means the same everywhere.
    """
    if mode == "raw":
        return [float(s) for s in raw_scores]
    if mode == "zero_sum":
        return zero_sum(raw_scores)
    if mode == "team":
        if teams is None:
            raise ValueError("reward mode 'team' needs the hand's teams; these rules have none "
                             "(team_play=True or pig_sheep_team=True)")
        return team_results(raw_scores, teams)
    raise ValueError(f"reward mode must be one of {REWARD_MODES}; got {mode!r}")


def check_reward_mode(mode: str, rules: Rules) -> None:
    """Refuse an unknown reward mode, and ``"team"`` under rules without teams."""
    if mode not in REWARD_MODES:
        raise ValueError(f"reward_mode must be one of {REWARD_MODES}; got {mode!r}")
    if mode == "team" and not rules.has_teams:
        raise ValueError("reward_mode='team' needs team rules (team_play=True or "
                         "pig_sheep_team=True)")


def check_reward_scale(scale: object) -> float:
    """Return a reward scale as a float: a finite positive number (numpy scalars too).

    An infinite scale would make every reward 0, and a bool is not a number here.
    """
    if isinstance(scale, (bool, np.bool_)) or not isinstance(scale, (int, float, np.integer,
                                                                      np.floating)) \
            or not math.isfinite(scale) or not scale > 0:
        raise ValueError(f"reward_scale must be a finite positive number; got {scale!r}")
    return float(scale)


def _check_teams(teams: Sequence[Sequence[int]], seats: int) -> tuple[tuple[int, ...], ...]:
    if isinstance(teams, (str, bytes)) or len(teams) < 2 or not all(teams) \
            or sorted(s for t in teams for s in t) != list(range(seats)):
        raise ValueError(f"teams must split seats 0..{seats - 1} into at least two non-empty "
                         f"teams; got {teams!r}")
    return tuple(tuple(t) for t in teams)


def team_results(raw_scores: Sequence[float],
                 teams: Sequence[Sequence[int]] = FIXED_TEAMS) -> list[float]:
    """Each seat's team result, unrounded and unmultiplied (the env's ``"team"`` reward).

    Teams of two: each member gets (its team's score minus the mean of the other teams') / 2
    (RULES.md 6.14); at four seats that is the ``(A - B) / 2`` of section 5. One against three
    (pig-sheep team with both cards in one hand): the lone seat gets its score minus the mean
    of the other three, ``S - T / 3``, and each of the three gets minus a third of that, so the
    four always sum to zero.
    """
    split = _check_teams(teams, len(raw_scores))
    out = [0.0] * len(raw_scores)
    if len(split) == 2 and len(split[0]) != len(split[1]):
        a, b = sorted(split, key=len)
        lone = sum(raw_scores[s] for s in a) - sum(raw_scores[s] for s in b) / len(b)
        for s in a:
            out[s] = lone
        for s in b:
            out[s] = -lone / len(b)
        return out
    if any(len(t) != 2 for t in split):
        raise ValueError(f"team results are defined for teams of two, or one against three; "
                         f"got {teams!r}")
    sums = [sum(raw_scores[s] for s in t) for t in split]
    total, others = sum(sums), len(sums) - 1
    for t, own in zip(split, sums, strict=True):
        for s in t:
            out[s] = (own - (total - own) / others) / 2
    return out


def _whole_points(raw_scores: Sequence[float]) -> list[int]:
    """Return raw scores as ints: any integer type, or a float with a whole value (``100.0``).

    Raw scores are whole points. A float that is not whole has no exact payment (its binary
    value is not the decimal one typed: 0.1 is not a tenth), so it is refused, naming it.
    """
    out = []
    for s in raw_scores:
        if isinstance(s, (int, np.integer)) and not isinstance(s, (bool, np.bool_)):
            out.append(int(s))
        elif isinstance(s, (float, np.floating)) and float(s).is_integer():
            out.append(int(s))
        else:
            raise ValueError(f"coin settlement pays exact differences of raw scores, which are "
                             f"whole points; got {s!r} in {list(raw_scores)!r}")
    return out


def _exact(value: int | Fraction) -> int | Fraction:
    """Return an exact amount as an ``int`` when it is whole, else as the ``Fraction`` it is."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return int(value)
    return value


def coin_results(raw_scores: Sequence[float]) -> list[int | Fraction]:
    """Coin-room (元宝场) results before the room multiplier (RULES.md section 5).

    Every seat below the top score pays the difference to the top scorer; several top scorers
    split each payment evenly and pay each other nothing. Every whole amount is an ``int``;
    only a split share that is not whole stays an exact ``Fraction``. The results always sum
    to zero. Raw scores are whole points: ints of any kind, or floats with a whole value
    (``100.0``); another float is refused (``ValueError``).

    >>> coin_results([100, 0, -200, -200])
    [700, -100, -300, -300]
    """
    raw = _whole_points(raw_scores)
    top = max(raw)
    winners = sum(1 for s in raw if s == top)
    won = _exact(Fraction(sum(top - s for s in raw), winners))
    return [won if s == top else s - top for s in raw]


def settle(raw_scores: Sequence[float], rules: Rules | None = None,
           teams: Sequence[Sequence[int]] | None = None) -> list[int | Fraction]:
    """Settlement of a hand's raw scores, one per seat, as rooms pay it out.

    Individual (``settlement="zero_sum"``): ``final_i = round(raw_i - mean of the others) *
    settlement_multiplier``. Rounding can leave the results a point off zero, as it does in
    the rooms. With team rules (``team_play``: fixed partners; ``pig_sheep_team``: pass the
    hand's ``teams``, e.g. ``game.teams``) each seat gets its rounded ``team_results`` times
    the multiplier. ``settlement="yuanbao"``: ``coin_results`` times the multiplier, exact:
    an ``int`` wherever the amount is whole, a ``Fraction`` only for a split share that is not.

    Raw scores may be any finite real numbers (ints, floats, numpy scalars or an array); a
    whole float counts as its int. Zero-sum and team results are rounded, so any value goes;
    coin settlement is exact and refuses a float that is not whole.

    >>> settle([-120, -280, 0, 160])
    [-960, -3516, 960, 3516]
    >>> settle([-190, 50, -10, 0], Rules(team_play=True))
    [-1500, 1500, -1500, 1500]
    >>> settle([100, 0, -200, -200], Rules(settlement="yuanbao", settlement_multiplier=1))
    [700, -100, -300, -300]
    """
    rules = Rules.coerce(rules)
    n = rules.players
    if isinstance(raw_scores, (str, bytes)) or not isinstance(raw_scores, Sequence | np.ndarray) \
            or len(raw_scores) != n:
        raise ValueError(f"settle needs {count_word(n)} raw scores, one per seat "
                         f"(players={n}); got {raw_scores!r}")
    for s in raw_scores:
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, float, np.integer,
                                                                  np.floating)) \
                or not math.isfinite(s):
            raise ValueError(f"settle: raw scores must be finite numbers; got {s!r} in "
                             f"{list(raw_scores)!r}")
    if rules.has_teams:
        if teams is None:
            if rules.pig_sheep_team:
                raise ValueError("pig_sheep_team settlement needs the hand's teams "
                                 "(teams=game.teams): they are formed by the deal")
            teams = rules.fixed_teams
        results = team_results(raw_scores, teams)
    elif teams is not None:
        raise ValueError("teams= only applies to team rules (team_play or pig_sheep_team)")
    elif rules.settlement == "yuanbao":
        return [_exact(v * rules.settlement_multiplier) for v in coin_results(raw_scores)]
    else:
        results = zero_sum(raw_scores)
    return [_round_half_away(v) * rules.settlement_multiplier for v in results]
