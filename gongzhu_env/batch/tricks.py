"""The trick rules of every batched table, as compiled pure functions of card masks.

Both table layouts of ``GameBatch`` (``one_deck`` and ``pairs``) call these functions for the
rules a hand is played by: who wins a single-card trick, which exposed cards are still held
back by the first-round restriction, what may be led and followed, a seat's hand score, and
a finished hand's results. A card set is a multiset of two 52-bit masks ``(once, twice)``, as
``engine.Game`` holds it (``gongzhu_env.cards.Multiset``); one deck passes ``twice = 0``. So a
rule lives here once, for three to eight seats and for one or two decks, and the layouts keep
only what is theirs: where a row keeps each mask, and the pair leads of two decks.

Where the reference is a plain integer function, the batch compiles that very function
(``engine.winning_play``, ``engine.winning_play4``); the others restate ``engine.Game`` and
``scoring`` as mask arithmetic, and the differential (``gongzhu_env.batch.differential``) holds
them to it at every step of every covered table. The values they need are checked against the
reference modules when this module is imported, under ``python -O`` too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gongzhu_env import engine
from gongzhu_env.cards import C10, DJ, HA, SCORING_MASK, SQ
from gongzhu_env.scoring import (
    PIG_VALUE,
    SHEEP_VALUE,
    TRANSFORMER_ALONE,
    TWO_DECK_C10_ALONE,
    TWO_DECK_C10_FACTORS,
    score_masks,
)

if TYPE_CHECKING:
    import numba
else:
    from gongzhu_env.batch.base import _load_numba

    numba = _load_numba("gongzhu_env.batch (the batched engine)")

Mask = int | np.int64
"""A 52-bit card mask: an int64 in the kernels, a literal 0 where a layout has no such set."""

__all__ = ["C10_FACTORS", "C10_ALONE", "winning_play", "winning_play4", "popcount", "copies",
           "put", "take", "unled", "restricted", "follow_mask", "lead_mask", "score",
           "hand_results"]

# Constants frozen into the kernels, checked against the reference just below.
_C10, _DJ, _HA, _SQ = 8, 22, 38, 49
_SUIT = (1 << 13) - 1
_SCORING = (_SUIT << 26) | (1 << _SQ) | (1 << _DJ) | (1 << _C10)
_OTHER_SCORING = _SCORING & ~(1 << _C10)
_PIG, _SHEEP = -100, 100


def _c10_factors() -> np.ndarray:
    """Return the transformer's factor by (decks - 1, copies exposed, copies taken).

    Two decks: ``TWO_DECK_C10_FACTORS``. One deck: what ``score_masks`` multiplies a pig by
    when the transformer comes with it, unexposed and exposed (2 and 4).
    """
    out = np.zeros((2, 3, 3), dtype=np.int64)
    for e in (0, 1):
        exposed = (1 << C10) if e else 0
        out[0, e, 1] = score_masks((1 << C10) | (1 << SQ), exposed) // PIG_VALUE
    for (e, t), f in TWO_DECK_C10_FACTORS.items():
        out[1, e, t] = f
    return out


C10_FACTORS = _c10_factors()
"""``C10_FACTORS[decks - 1, copies exposed, copies taken]``: what the transformer multiplies."""
C10_ALONE = np.array([TRANSFORMER_ALONE // C10_FACTORS[0, 0, 1], TWO_DECK_C10_ALONE],
                     dtype=np.int64)
"""``C10_ALONE[decks - 1]``: a transformer taken with no other scoring card, before its factor
(one deck: 50 is 25 times the unexposed factor 2; two decks: 25, as ``scoring`` states it)."""

_EXPECTED = {
    "C10": (C10, _C10), "DJ": (DJ, _DJ), "HA": (HA, _HA), "SQ": (SQ, _SQ),
    "scoring cards": (SCORING_MASK, _SCORING), "pig": (PIG_VALUE, _PIG),
    "sheep": (SHEEP_VALUE, _SHEEP),
    "lone transformer": (TRANSFORMER_ALONE, int(C10_ALONE[0] * C10_FACTORS[0, 0, 1])),
}
for _name, (_reference, _here) in _EXPECTED.items():
    if _reference != _here:  # a real check, not an assert: it must also run under python -O
        raise RuntimeError(f"gongzhu_env.batch.tricks is out of date with the reference "
                           f"modules: {_name} is {_reference!r} there and {_here!r} here")

winning_play = numba.njit(cache=True, inline="always")(engine.winning_play)
"""``engine.winning_play`` compiled: the winner of a single-card trick at any table."""
winning_play4 = numba.njit(cache=True, inline="always")(engine.winning_play4)
"""``engine.winning_play4`` compiled: the same rule for four plays, unrolled."""


@numba.njit(cache=True, inline="always")
def popcount(x: np.int64) -> np.int64:
    """Bits set in a non-negative ``x`` (the SWAR sum of bit pairs, nibbles, bytes)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x += x >> 8
    x += x >> 16
    x += x >> 32
    return x & 127


@numba.njit(cache=True, inline="always")
def copies(once: Mask, twice: Mask, card: int | np.int64) -> np.int64:
    """Count the copies (0, 1, 2) of ``card`` in the multiset ``(once, twice)``."""
    return np.int64((once >> card & 1) + (twice >> card & 1))


@numba.njit(cache=True, inline="always")
def put(once: np.int64, twice: np.int64, bit: np.int64) -> tuple[np.int64, np.int64]:
    """Add one copy of ``bit`` to ``(once, twice)`` (``cards.ms_put``)."""
    if once & bit:
        return once, twice | bit
    return once | bit, twice


@numba.njit(cache=True, inline="always")
def take(once: np.int64, twice: np.int64, bit: np.int64) -> tuple[np.int64, np.int64]:
    """Remove one copy of ``bit`` from ``(once, twice)`` (``cards.ms_take``)."""
    if twice & bit:
        return once, twice ^ bit
    return once ^ bit, twice


@numba.njit(cache=True, inline="always")
def unled(suits_led: np.int64) -> np.int64:
    """Return the cards of the suits not led yet (``pair_tricks.unled_cards``)."""
    out = np.int64(0)
    for s in range(4):
        if not suits_led >> s & 1:
            out |= np.int64(_SUIT) << (13 * s)
    return out


@numba.njit(cache=True, inline="always")
def restricted(held2: np.int64, x1: np.int64, x2: np.int64, suits_led: np.int64) -> np.int64:
    """Return the held exposed cards that the first-round restriction still holds back.

    ``x1``/``x2`` are the exposed copies a seat still holds (a multiset), ``held2`` the cards it
    holds twice. A card is held back while its suit has not been led, unless one copy of it
    in the hand is unexposed (``pair_tricks.restricted``; one deck: ``Game._restrict`` of the
    cards held).
    """
    if not x1:
        return np.int64(0)
    return ((x1 & ~held2) | x2) & unled(suits_led)


@numba.njit(cache=True, inline="always")
def follow_mask(hand: np.int64, led: np.int64, only: np.int64, strict: bool) -> np.int64:
    """Return the single cards that may follow suit ``led`` (``Game._follow_legal``).

    ``only`` is ``restricted`` of the seat: an exposed card of the led suit waits while the
    seat has another card of that suit. Void in the suit, any card may be discarded, except
    (``strict``) a held-back exposed card while another card is left.
    """
    legal = hand & (np.int64(_SUIT) << (13 * led))
    if legal:
        r = legal & only
        if r and legal != r:
            legal ^= r
        return legal
    if strict and only:
        rest = hand & ~only
        return rest if rest else hand
    return hand


@numba.njit(cache=True, inline="always")
def lead_mask(hand: np.int64, only: np.int64, strict: bool, may_lead: bool) -> np.int64:
    """Return the single cards that may be led after the first trick (``Game._lead_legal``).

    ``only`` is ``restricted`` of the seat. A held-back exposed card may not be led while its
    suit holds another card (``strict``: while the hand holds another card), unless
    ``may_lead``.
    """
    if not only or may_lead:
        return hand
    if strict:
        rest = hand & ~only
        return rest if rest else hand
    legal = hand
    for s in range(4):
        suit = np.int64(_SUIT) << (13 * s)
        o = only & suit
        if o and hand & suit & ~o:
            legal &= ~o
    return legal


@numba.njit(cache=True, inline="always")
def _factor(e1: Mask, e2: Mask, own: Mask, doubled: Mask, card: int) -> np.int64:
    """Return a special card's factor: x2 a copy exposed, x2 first drawn, x2 taken back."""
    n = copies(e1, e2, card)
    if not n:
        return np.int64(1)
    f = np.int64(1) << n
    if doubled >> card & 1:
        f *= 2
    if own >> card & 1:
        f *= 2
    return f


@numba.njit(cache=True, inline="always")
def score(taken: Mask, taken2: Mask, e1: Mask, e2: Mask, own: Mask, doubled: Mask,
          decks: int | np.int64, heart_sums: np.ndarray,
          all_hearts: int | np.int64, swap_rule: int | np.int64) -> np.int64:
    """One seat's raw hand score (``scoring.score_masks``, ``scoring.score_two_decks``).

    ``(taken, taken2)`` the scoring cards it took, ``(e1, e2)`` every copy exposed at the
    table, ``own`` the seat's own exposed cards (0 unless ``self_capture_double``), ``doubled``
    the first-drawn exposures (0 unless ``first_drawn_exposure``); ``heart_sums`` and
    ``all_hearts`` the heart table's values, ``swap_rule`` ``pig_sheep_swap``. All hearts and
    the slam mean every copy: the ``twice`` layer full at two decks, the ``once`` one at one.
    """
    full = taken2 if decks == 2 else taken
    own &= taken
    h1 = (taken >> 26) & _SUIT
    slam = (full & _SCORING) == _SCORING
    all_taken = (full >> 26) & _SUIT == _SUIT
    swap = all_taken and swap_rule != 0 and not slam
    hf = _factor(e1, e2, own, doubled, _HA)
    if all_taken:
        sub = np.int64(all_hearts) * hf
    else:
        sub = (heart_sums[h1] + heart_sums[(taken2 >> 26) & _SUIT]) * hf
    pigs = copies(taken, taken2, _SQ)
    if pigs:
        pig = _PIG * _factor(e1, e2, own, doubled, _SQ)
        sub += pigs * (-pig if slam or swap else pig)
    sheep = copies(taken, taken2, _DJ)
    if sheep:
        v = _SHEEP * _factor(e1, e2, own, doubled, _DJ)
        sub += sheep * (-v if swap else v)
    t = copies(taken, taken2, _C10)
    if t:
        n = copies(e1, e2, _C10)
        f = C10_FACTORS[decks - 1, n, t]
        if n:
            if doubled >> _C10 & 1:
                f *= 2
            if own >> _C10 & 1:
                f *= 2
        if not taken & _OTHER_SCORING:
            return np.int64(C10_ALONE[decks - 1] * f)
        return np.int64(sub * f)
    return np.int64(sub)


@numba.njit(cache=True, inline="always")
def hand_results(prov: np.ndarray, mode: int | np.int64, team_play: int | np.int64,
                 pig_sheep: np.int64, reward_scale: float | np.float64, rewards: np.ndarray,
                 scores: np.ndarray) -> None:
    """Write a finished hand's raw scores and rewards (``scoring.hand_results``).

    ``prov`` holds each seat's hand score; ``mode`` is the reward mode (0 raw, 1 zero-sum,
    2 teams): the partners of ``team_play`` sit half the table apart, else ``pig_sheep`` is
    the mask of the seats that were dealt the pig or the sheep (the pig-sheep teams).
    """
    ns = prov.shape[0]
    total = 0.0
    for s in range(ns):
        scores[s] = prov[s]
        total += prov[s]
    for s in range(ns):
        raw = float(prov[s])
        if mode == 0:
            r = raw
        elif mode == 1:
            r = raw - (total - raw) / (ns - 1)
        elif team_play:
            half = ns // 2
            own = float(prov[s] + prov[(s + half) % ns])
            r = (own - (total - own) / (half - 1)) / 2.0
        elif pig_sheep & (pig_sheep - 1):
            # Two against two.
            own = 0.0
            for t in range(ns):
                if (pig_sheep >> t & 1) == (pig_sheep >> s & 1):
                    own += prov[t]
            r = (own - (total - own) / 1.0) / 2.0
        else:
            # One seat holds both: it plays alone against the others.
            lone = 0
            for t in range(ns):
                if pig_sheep >> t & 1:
                    lone = t
            alone = float(prov[lone])
            result = alone - (total - alone) / (ns - 1)
            r = result if s == lone else -result / (ns - 1)
        rewards[s] = r / reward_scale
