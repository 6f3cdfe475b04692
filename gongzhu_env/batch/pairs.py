"""The batched engine's two-deck tables (拱双猪): the layout ``GameBatch`` plays two decks with.

``GameBatch(n, rules)`` with two-deck rules holds ``n`` four-seat, two-deck tables as one int64
array and steps all of them with one call. ``step(actions)`` takes one action per table (for
that table's seat to move) and writes, into arrays allocated once, the observation and legal-
action mask of the seat to move at every table, the rewards and raw scores of the hands that
just ended, which tables ended a hand, and the seat to move. The scalar two-deck engine plays a
few thousand decisions a second; this one exists because it plays an order of magnitude more.
Numba compiles its kernels; only the ``gongzhu_env.batch`` package imports it, and ``import
gongzhu_env`` loads neither.

A second statement of the two-deck rules, held to the first
------------------------------------------------------------
``gongzhu_env.engine.Game`` with ``gongzhu_env.pair_tricks`` is the reference. The kernels
below restate, as loops over integer masks, what those say about two decks: the declaration per
copy, pair leads, the two-action pair follow, the first-round restriction on exposed copies,
which copy leaves the hand, voids, trick winners, ``scoring.score_two_decks`` and the
1,153-value observation of ``PlayerView.encode``. ``gongzhu_env.batch.differential``
(``benchmarks/check_vector.py``, and on fewer hands ``tests/gongzhu_env/test_vector_pairs.py``)
plays the same deals and actions on both engines and compares the seat to move, legal sets,
observations, masks, rewards and scores at every step; a rule change goes into ``Game`` first
and the check then shows what to change here. The rules a two-deck hand shares with one deck
(the winner of single-card tricks, the restriction of exposed copies, the single-card lead and
follow, the hand score, the results) are ``gongzhu_env.batch.tricks``, called here as at one
deck; what is written below is what only two decks have. The values the kernels need (heart
sums, the squashed-score curve, the observation layout) are built from the reference modules
when a batch is made, and the constants frozen into the kernels are checked against them at
import, so a stale numba cache cannot play old values.

What it covers
--------------
Two decks at four seats, with the options two decks allow that change a hand: ``team_play``
(the ``"two_decks"`` preset), ``exposed_may_lead``, ``first_lead`` (``"club2"`` or
``"any"``) and ``declaration`` (``"free"`` or ``"none"``), in any combination (``COVERED``).
Options that only change settlement or matches are accepted. Anything else is refused with
an error naming the option (``check_covered``); one deck belongs to ``GameBatch``.

Actions are those of ``Rules(decks=2)`` (105): ``0..51`` one copy of a card (expose it while
declaring, play it), ``52 + k`` lead the pair of card ``k``, ``104`` DONE. A follower to a
pair lead plays its two cards as two actions in a row and stays the seat to move between
them, exactly as in ``Game``.

Deals
-----
As in ``GameBatch``, each table has its own counter-based stream: hand ``j`` of table ``i``
under ``reset(seed)`` is ``deal(seed, i, j)``, independent of the other tables. With
SplitMix64's increment ``G = 0x9E3779B97F4A7C15`` and its output scramble ``mix``
(``gongzhu_env.batch.base._mix``), all arithmetic modulo 2**64:

1. ``x = mix(mix(mix(seed + G) + i) + j)`` (the one-deck key);
2. ``deck = [0, 1, ..., 51, 0, 1, ..., 51]`` (104 cards, each card twice, in the order of
   ``gongzhu_env.deal``); for ``k`` from 103 down to 1, draw ``j_k`` uniform in ``0..k`` by
   Lemire's method (``x += G``, ``m = (mix(x) >> 32) * (k + 1)``, redrawn while
   ``m % 2**32 < 2**32 % (k + 1)``, ``j_k = m >> 32``) and swap ``deck[k]`` and
   ``deck[j_k]``;
3. seat ``s`` gets ``deck[26 s : 26 s + 26]``.

``deal_of(t)`` returns table ``t``'s hand in progress as sorted cards (a card held twice
appears twice), which ``Game.from_hands(deal, rules)`` plays on the reference.

Arrays (overwritten in place by every ``reset`` and ``step``):

==============  ==================  =======================================================
attribute       shape, dtype        meaning
==============  ==================  =======================================================
observations    (n, obs_size) f32   ``PlayerView.encode()`` of the seat to move (a uint8
                or u8               array with ``obs_dtype=np.uint8``: each value x as the byte
                                    ``rint(x * 255)``)
action_masks    (n, 105) int8       its legal actions (``PlayerView.action_mask()``)
current_player  (n,) int64          the seat to move
terminated      (n,) bool           the table's hand ended in this step (it is then dealt
                                    its next hand at once, and the outputs are the new one's)
rewards         (n, 4) f32          hand results (``reward_mode`` / ``reward_scale`` as in
                                    the env); 0 where not terminated
scores          (n, 4) int32        raw hand scores; 0 where not terminated
==============  ==================  =======================================================

``step(actions, active)`` moves only the tables where ``active`` is True, as ``GameBatch``
does. ``snapshot()`` copies every table's position and ``restore(snapshot)`` puts it back,
after checking each table of it (the kernels index arrays with a position's numbers, so one
that play could not have produced is refused with nothing changed).

Card masks are int64 throughout (numba turns a mix of signed and unsigned 64-bit
integers into floats); a two-deck card set is a multiset of two masks ``(once, twice)``
(``gongzhu_env.cards.Multiset``), and the 105-bit legal set is kept as the card bits with
DONE at bit 52, plus a second mask of the pair leads.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from gongzhu_env.batch.base import (
    _CARD_BITS,
    DECLARE,
    PLAY,
    REWARD_CODES,
    GameBatch,
    RowColumns,
    TrickPlays,
    _outside_unit,
    _unit,
    _unsigned,
    check_options,
    in_obs_dtype,
)

# numba before the rest: mypy reads its own annotations; a run without it is told who needs it.
if TYPE_CHECKING:
    import numba
else:
    from gongzhu_env.batch.base import _load_numba

    numba = _load_numba("gongzhu_env.batch (the batched engine, two decks)")

from gongzhu_env.batch.base import _shuffle
from gongzhu_env.batch.encoding import clear, exposable_bits, put_bits, scoring_bits
from gongzhu_env.batch.tricks import (
    follow_mask,
    hand_results,
    lead_mask,
    popcount,
    put,
    restricted,
    score,
    take,
    unled,
    winning_play4,
)
from gongzhu_env.cards import C2, C10, DJ, EXPOSABLE, HA, SCORING_MASK, SQ, action_str
from gongzhu_env.engine import IllegalActionError
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import (
    HEART_SUMS,
    PIG_VALUE,
    SHEEP_VALUE,
    TWO_DECK_ALL_HEARTS,
    TWO_DECK_C10_ALONE,
    TWO_DECK_C10_FACTORS,
)
from gongzhu_env.view import _SCORE_DIVISORS, _SCORE_SCALE, layout
from gongzhu_env.view import EXPOSABLE as VIEW_EXPOSABLE

__all__ = ["PairTables", "COVERED", "MAX_TABLES", "check_covered", "deal"]

# ---------------------------------------------------------------------------------------------
# Constants frozen into the kernels, checked against the reference modules just below.
_C2, _C10, _DJ, _HA, _SQ = 0, 8, 22, 38, 49
_NUM_ACTIONS, _DONE_ACTION = 105, 104
_DONE_BIT = 52  # where DONE sits in the legal column (the cards use bits 0..51)
_SUIT = (1 << 13) - 1
_FULL = (1 << 52) - 1
_EXPOSABLE_MASK = (1 << _SQ) | (1 << _DJ) | (1 << _C10) | (1 << _HA)
_SCORING = (_SUIT << 26) | (1 << _SQ) | (1 << _DJ) | (1 << _C10)
_OTHER_SCORING = _SCORING & ~(1 << _C10)
_PIG, _SHEEP, _ALL_HEARTS2, _ALONE2 = -100, 100, 400, 25

_two = Rules(decks=2)
_EXPECTED = {
    "C2": (C2, _C2), "C10": (C10, _C10), "DJ": (DJ, _DJ), "HA": (HA, _HA), "SQ": (SQ, _SQ),
    "actions": (_two.num_actions, _NUM_ACTIONS), "DONE": (_two.done_action, _DONE_ACTION),
    "exposable": (EXPOSABLE, (_SQ, _DJ, _C10, _HA)),
    "view exposable order": (VIEW_EXPOSABLE, (_SQ, _DJ, _C10, _HA)),
    "scoring cards": (SCORING_MASK, _SCORING), "pig": (PIG_VALUE, _PIG),
    "sheep": (SHEEP_VALUE, _SHEEP), "all hearts": (TWO_DECK_ALL_HEARTS, _ALL_HEARTS2),
    "transformer alone": (TWO_DECK_C10_ALONE, _ALONE2), "score divisor": (_SCORE_DIVISORS[2], 4),
    "hand size": (_two.hand_size, 26), "lead card": (_two.lead_card, _C2),
}
for _name, (_reference, _here) in _EXPECTED.items():
    if _reference != _here:  # a real check, not an assert: it must also run under python -O
        raise RuntimeError(f"gongzhu_env.batch.pairs is out of date with the reference "
                           f"modules: {_name} is {_reference!r} there and {_here!r} here")

# Columns of a table's state row: scalars, the trick in progress (up to 8 cards, in play
# order), then blocks of four columns, one per absolute seat.
(_PHASE, _CUR, _FIRST, _TURNS, _TLEN, _TLEAD, _LED, _SLED, _NPLAYS, _PAIR, _PEND, _SECOND,
 _CARDS_DONE, _EXPALL, _EXPALL2, _LEGAL, _LEGALP, _DEALT) = range(18)
_TRICK = 18
# A card set of a seat is two blocks, the cards it has at least once and those it has twice;
# ``_XHELD`` is the exposed copies each seat still holds, as such a multiset.
(_HAND, _HAND2, _PLAYED, _PLAYED2, _EXPOSED, _EXPOSED2, _XHELD, _XHELD2, _CAPT, _CAPT2, _VOIDS,
 _PROV, _DEAL, _DEAL2, _NCOL) = range(_TRICK + 8, _TRICK + 8 + 15 * 4, 4)
_DECLARE, _PLAY = 0, 1

# Rule parameters (an int64 array every kernel reads).
_R_MAY_LEAD, _R_FREE_FIRST, _R_DECLARE, _R_TEAM, _R_REWARD, _R_OFFSET = range(6)

# Observation blocks the kernels write, in the order of their offsets array.
_OBS_BLOCKS = ("phase", "hand", "to_move", "trick_leader", "trick_cards", "played", "exposed",
               "captured", "voids", "declared", "first_leader", "trick_number", "scores",
               "hand_twice", "trick_twice", "played_twice", "exposed_twice", "captured_twice",
               "pair_lead", "partners")
(_OB_PHASE, _OB_HAND, _OB_TO_MOVE, _OB_TRICK_LEADER, _OB_TRICK_CARDS, _OB_PLAYED, _OB_EXPOSED,
 _OB_CAPTURED, _OB_VOIDS, _OB_DECLARED, _OB_FIRST_LEADER, _OB_TRICK_NUMBER, _OB_SCORES,
 _OB_HAND2, _OB_TRICK2, _OB_PLAYED2, _OB_EXPOSED2, _OB_CAPTURED2, _OB_PAIR_LEAD,
 _OB_PARTNERS) = range(20)

MAX_TABLES = 1 << 18
"""Most two-deck tables one ``GameBatch`` holds: a table's arrays take about 5 KB, so this is
about 1.3 GB; training and the benchmarks run a few thousand at most."""

COVERED: dict[str, tuple[object, ...]] = {
    "decks": (2,),
    "players": (4,),
    "team_play": (True, False),
    "exposed_may_lead": (False, True),
    "first_lead": ("club2", "any"),
    "declaration": ("free", "none"),
}
"""Rule option -> the values ``GameBatch`` plays at two decks; other hand options stay at their
two-deck default (most of them are refused by ``Rules`` itself at two decks)."""


def check_covered(rules: Rules | str | None) -> Rules:
    """Return ``rules`` as a ``Rules`` if the two-deck tables play them, else raise ``ValueError``.

    ``base.check_options`` over ``COVERED``, other options at their two-deck defaults (most of
    them are refused by ``Rules`` itself at two decks).
    """
    return check_options(Rules.coerce(rules), COVERED, Rules(decks=2), "at two decks")


# ---------------------------------------------------------------------------------------------
# Deals.
@numba.njit(cache=True)
def _deal_pairs(seed: np.uint64, table: np.int64, hand: np.int64, deck: np.ndarray,
                once: np.ndarray, twice: np.ndarray) -> None:
    """Write the ``(once, twice)`` hand masks of hand ``hand`` of ``table`` (recipe above)."""
    for c in range(104):
        deck[c] = c % 52
    _shuffle(deck, 104, seed, table, hand)
    for s in range(4):
        a = np.int64(0)
        b = np.int64(0)
        for c in range(26 * s, 26 * s + 26):
            bit = np.int64(1) << deck[c]
            if a & bit:
                b |= bit
            else:
                a |= bit
        once[s] = a
        twice[s] = b


def _cards_of(once: int, twice: int) -> tuple[int, ...]:
    """Return the sorted cards of a multiset, a card twice where held twice."""
    return tuple(sorted([c for c in range(52) if once >> c & 1]
                        + [c for c in range(52) if twice >> c & 1]))


def deal(seed: int, table: int, hand: int) -> tuple[tuple[int, ...], ...]:
    """Return the four hands (sorted cards) of hand ``hand`` of ``table`` under ``reset(seed)``.

    The deal stream of a batch reproduced outside it ("Deals" in the module docstring).
    """
    seed, table, hand = (_unsigned(seed, "seed"), _unsigned(table, "table"),
                         _unsigned(hand, "hand"))
    once, twice = np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64)
    _deal_pairs(np.uint64(seed), np.int64(table), np.int64(hand),
                np.zeros(104, dtype=np.int64), once, twice)
    return tuple(_cards_of(int(a), int(b)) for a, b in zip(once, twice, strict=True))


# ---------------------------------------------------------------------------------------------
# The rules, as kernels over one state row.
@numba.njit(cache=True, inline="always")
def _score2(cap: np.int64, cap2: np.int64, e1: np.int64, e2: np.int64,
            heart_sums: np.ndarray) -> np.int64:
    """One seat's two-deck hand score (``tricks.score``, ``scoring.score_two_decks``)."""
    return score(cap, cap2, e1, e2, np.int64(0), np.int64(0), 2, heart_sums, _ALL_HEARTS2, 0)


@numba.njit(cache=True)
def _follow_cards(once: np.int64, twice: np.int64, x1: np.int64, x2: np.int64, led: np.int64,
                  sled: np.int64, card: np.int64) -> np.int64:
    """Return the two-card follow to a pair lead as masks (``pair_tricks.follow_plays``).

    ``card < 0``: the cards that may start a legal play (``first_cards``); else the cards that
    complete one whose first card is ``card`` (``second_cards``), from the hand before it.
    """
    sm = np.int64(_SUIT) << (13 * led)
    s1 = once & sm
    s2 = twice & sm
    bit = np.int64(1) << card if card >= 0 else np.int64(0)
    if s2:
        # Holding a pair of the led suit: a pair, with the fewest exposed copies.
        cands = s2
        if not sled >> led & 1:
            a = s2 & ~x1
            b = s2 & ~x2
            cands = a if a else (b if b else s2)
        if card < 0:
            return cands
        return cands & bit
    n = popcount(s1)
    if n >= 2:
        only = restricted(twice, x1, x2, sled) & sm
        free = s1 & ~only
        if popcount(free) >= 2:
            return free if card < 0 else (free & ~bit if free & bit else np.int64(0))
        if free:
            if card < 0:
                return free | only
            if bit == free:
                return only
            return free if only & bit else np.int64(0)
        return only if card < 0 else (only & ~bit if only & bit else np.int64(0))
    r1 = once & ~sm
    r2 = twice & ~sm
    if n == 1:
        if card < 0:
            return s1 | r1
        if bit == s1:
            return r1
        return s1 if r1 & bit else np.int64(0)
    # Void in the led suit: any two cards of the hand.
    if card < 0:
        return r1
    return (r1 & ~bit) | (r2 & bit)


@numba.njit(cache=True)
def _compute_legal(st: np.ndarray, rp: np.ndarray) -> None:
    """Set the legal columns for the seat to move (``Game._pair_legal``, ``_declare_legal``)."""
    p = st[_CUR]
    hand = st[_HAND + p]
    hand2 = st[_HAND2 + p]
    pairs = np.int64(0)
    if st[_PHASE] == _DECLARE:
        legal = ((hand & ~st[_EXPOSED + p]) | (hand2 & ~st[_EXPOSED2 + p])) & _EXPOSABLE_MASK
        legal |= np.int64(1) << _DONE_BIT
    elif st[_NPLAYS] == 0:
        x1 = st[_XHELD + p]
        x2 = st[_XHELD2 + p]
        sled = st[_SLED]
        if st[_CARDS_DONE] == 0 and not rp[_R_FREE_FIRST]:
            # The first lead contains C2: alone, or as a pair.
            legal = np.int64(1) << _C2
            pairs = hand2 & legal
        else:
            may_lead = bool(rp[_R_MAY_LEAD])
            legal = lead_mask(hand, restricted(hand2, x1, x2, sled), False, may_lead)
            pairs = hand2
            if not may_lead and x1:
                # A pair of which a copy is exposed waits for its suit to be led.
                pairs &= ~(x1 & hand2 & unled(sled))
    elif not st[_PAIR]:
        only = restricted(hand2, st[_XHELD + p], st[_XHELD2 + p], st[_SLED])
        legal = follow_mask(hand, st[_LED], only, False)
    elif st[_PEND] >= 0:
        legal = st[_SECOND]
    else:
        legal = _follow_cards(hand, hand2, st[_XHELD + p], st[_XHELD2 + p], st[_LED],
                              st[_SLED], np.int64(-1))
    st[_LEGAL] = legal
    st[_LEGALP] = pairs


@numba.njit(cache=True)
def _take_copy(st: np.ndarray, p: np.int64, card: np.int64, shows_void: bool) -> None:
    """Move one copy of ``card`` from seat ``p``'s hand to the trick (``Game._take_copy``)."""
    bit = np.int64(1) << card
    in_suit = card // 13 == st[_LED]
    x1 = st[_XHELD + p]
    x2 = st[_XHELD2 + p]
    if x1 & bit and (not in_suit or (x2 & bit) == (st[_HAND2 + p] & bit)):
        # An exposed copy leaves: every copy held is exposed, or the card is discarded.
        st[_XHELD + p], st[_XHELD2 + p] = take(x1, x2, bit)
    st[_HAND + p], st[_HAND2 + p] = take(st[_HAND + p], st[_HAND2 + p], bit)
    st[_PLAYED + p], st[_PLAYED2 + p] = put(st[_PLAYED + p], st[_PLAYED2 + p], bit)
    st[_TRICK + st[_TLEN]] = card
    st[_TLEN] += 1
    if not in_suit and shows_void:
        st[_VOIDS + p] |= np.int64(1) << st[_LED]


@numba.njit(cache=True, inline="always")
def _play_key(a: np.int64, b: np.int64, suit: np.int64) -> np.int64:
    """Rank of a two-card play to a pair-led trick, -1 for a discard (``play_key``)."""
    if a // 13 != suit or b // 13 != suit:
        return np.int64(-1)
    hi = max(a, b)
    lo = min(a, b)
    paired = np.int64(1) if a == b else np.int64(0)
    klass = paired if suit == 1 else 1 - paired
    return klass * 10000 + hi * 100 + lo


@numba.njit(cache=True)
def _end_trick(st: np.ndarray, rp: np.ndarray, heart_sums: np.ndarray) -> bool:
    """Give the complete trick to its winner, who leads next; return whether the hand ended."""
    suit = st[_LED]
    w = 0
    if st[_PAIR]:
        best = _play_key(st[_TRICK], st[_TRICK + 1], suit)
        for i in range(1, 4):
            key = _play_key(st[_TRICK + 2 * i], st[_TRICK + 2 * i + 1], suit)
            if key >= 0 and best >= 0 and key > best:
                best = key
                w = i
    else:
        # Single cards: the rule of every four-card trick, ``engine.winning_play4``.
        w = winning_play4(st[_TRICK], st[_TRICK + 1], st[_TRICK + 2], st[_TRICK + 3],
                           suit * 13 + 13)
    winner = (st[_TLEAD] + w) & 3
    cap = st[_CAPT + winner]
    cap2 = st[_CAPT2 + winner]
    n = st[_TLEN]
    for k in range(n):
        bit = np.int64(1) << st[_TRICK + k]
        if bit & _SCORING:
            cap, cap2 = put(cap, cap2, bit)
    if cap != st[_CAPT + winner] or cap2 != st[_CAPT2 + winner]:
        st[_CAPT + winner] = cap
        st[_CAPT2 + winner] = cap2
        st[_PROV + winner] = _score2(cap, cap2, st[_EXPALL], st[_EXPALL2], heart_sums)
    st[_SLED] |= np.int64(1) << suit
    st[_CARDS_DONE] += n
    st[_TLEN] = 0
    st[_NPLAYS] = 0
    st[_PAIR] = 0
    st[_LED] = -1
    st[_CUR] = winner
    st[_TLEAD] = winner
    if not st[_HAND + winner]:
        st[_LEGAL] = 0
        st[_LEGALP] = 0
        return True
    _compute_legal(st, rp)
    return False


@numba.njit(cache=True)
def _apply(st: np.ndarray, a: np.int64, rp: np.ndarray, heart_sums: np.ndarray) -> bool:
    """Apply one legal action at one table (``Game.step``); return whether its hand ended."""
    p = st[_CUR]
    if st[_PHASE] == _DECLARE:
        if a != _DONE_ACTION:
            bit = np.int64(1) << a
            st[_EXPOSED + p], st[_EXPOSED2 + p] = put(st[_EXPOSED + p], st[_EXPOSED2 + p], bit)
            st[_EXPALL], st[_EXPALL2] = put(st[_EXPALL], st[_EXPALL2], bit)
            st[_XHELD + p], st[_XHELD2 + p] = put(st[_XHELD + p], st[_XHELD2 + p], bit)
            for s in range(4):
                st[_PROV + s] = _score2(st[_CAPT + s], st[_CAPT2 + s], st[_EXPALL],
                                        st[_EXPALL2], heart_sums)
        else:
            st[_TURNS] += 1
            if st[_TURNS] == 4:
                # No auto-exposure with two decks: play starts at the first leader.
                st[_PHASE] = _PLAY
                st[_CUR] = st[_FIRST]
            else:
                st[_CUR] = (p + 1) & 3
        _compute_legal(st, rp)
        return False
    if st[_NPLAYS] == 0:
        # A lead: one card, or a pair (``52 + k``).
        pair = a >= 52
        card = a - 52 if pair else a
        st[_PAIR] = 1 if pair else 0
        st[_LED] = card // 13
        st[_TLEAD] = p
        _take_copy(st, p, card, True)
        if pair:
            _take_copy(st, p, card, True)
        st[_NPLAYS] = 1
    elif not st[_PAIR]:
        _take_copy(st, p, a, True)
        st[_NPLAYS] += 1
    elif st[_PEND] < 0:
        # The first card of a two-card follow: the seat stays to move for the second.
        st[_SECOND] = _follow_cards(st[_HAND + p], st[_HAND2 + p], st[_XHELD + p],
                                    st[_XHELD2 + p], st[_LED], st[_SLED], a)
        _take_copy(st, p, a, False)
        st[_PEND] = a
        st[_LEGAL] = st[_SECOND]
        st[_LEGALP] = 0
        return False
    else:
        _take_copy(st, p, a, False)
        suit = st[_LED]
        if a // 13 != suit or st[_PEND] // 13 != suit:
            # A discard in a two-card follow: the seat holds no card of the suit now.
            st[_VOIDS + p] |= np.int64(1) << suit
        st[_NPLAYS] += 1
        st[_PEND] = -1
        st[_SECOND] = 0
    if st[_NPLAYS] == 4:
        return _end_trick(st, rp, heart_sums)
    st[_CUR] = (p + 1) & 3
    _compute_legal(st, rp)
    return False


@numba.njit(cache=True)
def _start_hand(st: np.ndarray, table: np.int64, seed: np.uint64, rp: np.ndarray,
                deck: np.ndarray) -> None:
    """Deal the table's next hand of its stream and set it up to its first decision."""
    _deal_pairs(seed, table, st[_DEALT], deck, st[_DEAL:_DEAL + 4], st[_DEAL2:_DEAL2 + 4])
    st[_DEALT] += 1
    first = -1
    for s in range(4):
        st[_HAND + s] = st[_DEAL + s]
        st[_HAND2 + s] = st[_DEAL2 + s]
        for b in (_PLAYED, _PLAYED2, _EXPOSED, _EXPOSED2, _XHELD, _XHELD2, _CAPT, _CAPT2,
                  _VOIDS, _PROV):
            st[b + s] = 0
        if first < 0 and st[_DEAL + s] >> _C2 & 1:
            first = s  # the lowest seat holding a C2
    st[_FIRST] = first
    st[_CUR] = first
    st[_TLEAD] = first
    st[_TURNS] = 0
    st[_TLEN] = 0
    st[_LED] = -1
    st[_SLED] = 0
    st[_NPLAYS] = 0
    st[_PAIR] = 0
    st[_PEND] = -1
    st[_SECOND] = 0
    st[_CARDS_DONE] = 0
    st[_EXPALL] = 0
    st[_EXPALL2] = 0
    st[_PHASE] = _DECLARE if rp[_R_DECLARE] else _PLAY
    _compute_legal(st, rp)


# ---------------------------------------------------------------------------------------------
# The observation (``PlayerView.encode``) and the action mask.
@numba.njit(cache=True)
def _write_outputs(st: np.ndarray, obs: np.ndarray, mask: np.ndarray, squash: np.ndarray,
                   oo: np.ndarray, rp: np.ndarray) -> None:
    """Write the seat to move's ``PlayerView.encode()`` and its 105-entry action mask."""
    me = st[_CUR]
    put_bits(obs, oo[_OB_PHASE], np.int64(1) << st[_PHASE], 3)
    put_bits(obs, oo[_OB_HAND], st[_HAND + me], 52)
    put_bits(obs, oo[_OB_HAND2], st[_HAND2 + me], 52)
    put_bits(obs, oo[_OB_TO_MOVE], np.int64(1), 4)  # the observer is the seat to move
    put_bits(obs, oo[_OB_TRICK_NUMBER], np.int64(1) << (st[_CARDS_DONE] // 8), 13)
    exposed = np.int64(0)
    exposed2 = np.int64(0)
    captured = np.int64(0)
    captured2 = np.int64(0)
    voids = np.int64(0)
    for r in range(4):
        s = (me + r) & 3
        put_bits(obs, oo[_OB_PLAYED] + 52 * r, st[_PLAYED + s], 52)
        put_bits(obs, oo[_OB_PLAYED2] + 52 * r, st[_PLAYED2 + s], 52)
        exposed |= exposable_bits(st[_EXPOSED + s]) << (4 * r)
        exposed2 |= exposable_bits(st[_EXPOSED2 + s]) << (4 * r)
        captured |= scoring_bits(st[_CAPT + s]) << (16 * r)
        captured2 |= scoring_bits(st[_CAPT2 + s]) << (16 * r)
        voids |= st[_VOIDS + s] << (4 * r)
        obs[oo[_OB_SCORES] + r] = squash[st[_PROV + s] + rp[_R_OFFSET]]
    put_bits(obs, oo[_OB_EXPOSED], exposed, 16)
    put_bits(obs, oo[_OB_EXPOSED2], exposed2, 16)
    put_bits(obs, oo[_OB_CAPTURED], captured, 64)
    put_bits(obs, oo[_OB_CAPTURED2], captured2, 64)
    put_bits(obs, oo[_OB_VOIDS], voids, 16)
    if st[_PHASE] == _DECLARE:
        declared = ((np.int64(1) << st[_TURNS]) - 1) << st[_FIRST]
        declared = (declared | declared >> 4) & 15
    else:
        declared = np.int64(15)
    put_bits(obs, oo[_OB_DECLARED], ((declared | declared << 4) >> me) & 15, 4)
    put_bits(obs, oo[_OB_FIRST_LEADER], np.int64(1) << ((st[_FIRST] - me) & 3), 4)
    # The trick in progress: a pair-led trick takes two cards a seat.
    n = st[_TLEN]
    pair = st[_PAIR]
    clear(obs, oo[_OB_TRICK_CARDS], oo[_OB_TRICK_CARDS] + 208)
    clear(obs, oo[_OB_TRICK2], oo[_OB_TRICK2] + 208)
    if n:
        rel = (st[_TLEAD] - me) & 3
        put_bits(obs, oo[_OB_TRICK_LEADER], np.int64(1) << rel, 4)
        for k in range(n):
            seat = (rel + (k >> 1 if pair else k)) & 3
            obs[oo[_OB_TRICK_CARDS] + 52 * seat + st[_TRICK + k]] = _unit(obs)
        if pair:
            for k in range(0, n - 1, 2):
                if st[_TRICK + k] == st[_TRICK + k + 1]:
                    seat = (rel + (k >> 1)) & 3
                    obs[oo[_OB_TRICK2] + 52 * seat + st[_TRICK + k]] = _unit(obs)
    else:
        put_bits(obs, oo[_OB_TRICK_LEADER], np.int64(0), 4)
    obs[oo[_OB_PAIR_LEAD]] = _unit(obs) if pair else 0
    if oo[_OB_PARTNERS] >= 0:
        put_bits(obs, oo[_OB_PARTNERS], np.int64(4), 4)  # the partner sits across
    put_bits(mask, 0, st[_LEGAL], 52)
    put_bits(mask, 52, st[_LEGALP], 52)
    mask[_DONE_ACTION] = (st[_LEGAL] >> _DONE_BIT) & 1


@numba.njit(cache=True)
def _reset_kernel(state: np.ndarray, seed: np.uint64, rp: np.ndarray, deck: np.ndarray,
                  squash: np.ndarray, oo: np.ndarray, obs: np.ndarray, mask: np.ndarray,
                  current: np.ndarray) -> None:
    """Deal hand 0 of every table and write the first outputs."""
    for i in range(state.shape[0]):
        st = state[i]
        st[_DEALT] = 0
        _start_hand(st, np.int64(i), seed, rp, deck)
        _write_outputs(st, obs[i], mask[i], squash, oo, rp)
        current[i] = st[_CUR]


@numba.njit(cache=True, inline="always")
def _is_legal(st: np.ndarray, a: np.int64) -> bool:
    """Whether action ``a`` is in the table's legal set (cards, pair leads, DONE)."""
    if a < 0 or a > _DONE_ACTION:
        return False
    if a < 52:
        return bool((st[_LEGAL] >> a) & 1)
    if a < _DONE_ACTION:
        return bool((st[_LEGALP] >> (a - 52)) & 1)
    return bool((st[_LEGAL] >> _DONE_BIT) & 1)


@numba.njit(cache=True)
def _step_kernel(state: np.ndarray, actions: np.ndarray, active: np.ndarray, seed: np.uint64,
                 rp: np.ndarray, reward_scale: np.float64, deck: np.ndarray,
                 heart_sums: np.ndarray, squash: np.ndarray, oo: np.ndarray,
                 obs: np.ndarray, mask: np.ndarray, current: np.ndarray,
                 terminated: np.ndarray, rewards: np.ndarray, scores: np.ndarray) -> int:
    """Check every active table's action, then apply them; return the first bad table or -1.

    Nothing changes unless every active table's action is legal.
    """
    n = state.shape[0]
    for i in range(n):
        if active[i] and not _is_legal(state[i], actions[i]):
            return i
    for i in range(n):
        terminated[i] = False
        for s in range(4):
            scores[i, s] = 0
            rewards[i, s] = 0.0
        if not active[i]:
            continue
        st = state[i]
        if _apply(st, np.int64(actions[i]), rp, heart_sums):
            terminated[i] = True
            # Reward mode 2 (teams) pairs the seats across the table, as at one deck.
            hand_results(st[_PROV:_PROV + 4], rp[_R_REWARD], 1, np.int64(0), reward_scale,
                         rewards[i], scores[i])
            _start_hand(st, np.int64(i), seed, rp, deck)
        _write_outputs(st, obs[i], mask[i], squash, oo, rp)
        current[i] = st[_CUR]
    return -1


@numba.njit(cache=True)
def _sample_kernel(state: np.ndarray, uniforms: np.ndarray, out: np.ndarray) -> int:
    """For each table, the legal action at position ``int(u * count)`` of its sorted legal set.

    Returns the first table whose uniform is not in [0, 1) (``_outside_unit``), before
    sampling any, or -1.
    """
    bad = _outside_unit(uniforms)
    if bad >= 0:
        return bad
    for i in range(state.shape[0]):
        cards = state[i, _LEGAL] & _FULL
        pairs = state[i, _LEGALP]
        done = (state[i, _LEGAL] >> _DONE_BIT) & 1
        nc = popcount(cards)
        count = nc + popcount(pairs) + done
        k = min(np.int64(uniforms[i] * count), count - 1)
        if k >= nc + popcount(pairs):
            out[i] = _DONE_ACTION
            continue
        legal = cards
        base = 0
        if k >= nc:
            k -= nc
            legal = pairs
            base = 52
        for _ in range(k):
            legal &= legal - 1  # drop the lowest legal action
        out[i] = base + popcount((legal & -legal) - 1)
    return -1


@numba.njit(cache=True)
def _refresh_kernel(state: np.ndarray, squash: np.ndarray, oo: np.ndarray, rp: np.ndarray,
                    obs: np.ndarray, mask: np.ndarray, current: np.ndarray) -> None:
    """Write every table's outputs from its state (after ``GameBatch.restore``)."""
    for i in range(state.shape[0]):
        _write_outputs(state[i], obs[i], mask[i], squash, oo, rp)
        current[i] = state[i, _CUR]


@numba.njit(cache=True)
def _derived_kernel(state: np.ndarray, rp: np.ndarray, heart_sums: np.ndarray,
                    legal: np.ndarray, legalp: np.ndarray,
                    second: np.ndarray, scores: np.ndarray) -> None:
    """Recompute every table's legal sets and scores from the rest of its (checked) state.

    After the first card of a two-card follow, ``second[i]`` gets the two sets of cards that
    could complete it: from the hand with that card put back, with the exposed copies held
    as they are (the card left as an unexposed copy) or with one exposed copy of it put back
    too (it left as the exposed one); the row's cards to complete it must be one of them.
    """
    for i in range(state.shape[0]):
        row = state[i]
        second[i, 0] = second[i, 1] = 0
        if row[_PHASE] == _PLAY and row[_NPLAYS] > 0 and row[_PAIR] and row[_PEND] >= 0:
            p = row[_CUR]
            bit = np.int64(1) << row[_PEND]
            once, twice = put(row[_HAND + p], row[_HAND2 + p], bit)
            x1, x2 = row[_XHELD + p], row[_XHELD2 + p]
            second[i, 0] = _follow_cards(once, twice, x1, x2, row[_LED], row[_SLED],
                                         row[_PEND])
            x1, x2 = put(x1, x2, bit)
            second[i, 1] = _follow_cards(once, twice, x1, x2, row[_LED], row[_SLED],
                                         row[_PEND])
        _compute_legal(row, rp)  # (into the caller's copy of the state)
        legal[i], legalp[i] = row[_LEGAL], row[_LEGALP]
        for s in range(4):
            scores[i, s] = _score2(row[_CAPT + s], row[_CAPT2 + s], row[_EXPALL],
                                   row[_EXPALL2], heart_sums)


def _column_names() -> tuple[str, ...]:
    """Name each column of a state row, for the errors of ``GameBatch.restore``."""
    scalars = ["phase", "seat to move", "first leader", "declaration turns taken",
               "cards in the trick", "trick leader", "suit led", "suits led so far",
               "plays made to the trick", "the trick was led with a pair",
               "first card of a two-card follow", "cards that complete it",
               "cards in finished tricks", "exposed cards", "cards exposed twice",
               "legal cards and DONE", "legal pair leads", "hands dealt"]
    blocks = ["hand", "cards held twice", "played cards", "cards played twice",
              "exposed cards", "cards exposed twice", "exposed copies held",
              "exposed cards held twice", "captured cards", "cards captured twice",
              "void suits", "score", "deal", "cards dealt twice"]
    return tuple(scalars + [f"trick card {k}" for k in range(8)]
                 + [f"{what} of seat {s}" for what in blocks for s in range(4)])


_COLUMN_NAMES = _column_names()
_ROW_COLUMNS = RowColumns(
    names=_COLUMN_NAMES, phase=_PHASE, cur=_CUR, first=_FIRST, turns=_TURNS, tlen=_TLEN,
    tlead=_TLEAD, led=_LED, sled=_SLED, done=_CARDS_DONE, expall=_EXPALL, expall2=_EXPALL2,
    legal=_LEGAL, trick=_TRICK, trick_width=8, hand=_HAND, hand2=_HAND2, played=_PLAYED,
    played2=_PLAYED2, exposed=_EXPOSED, exposed2=_EXPOSED2, capt=_CAPT, capt2=_CAPT2, deal=_DEAL,
    deal2=_DEAL2, voids=_VOIDS, prov=_PROV)
"""Where a two-deck row keeps what every table holds (``GameBatch._check_snapshot``)."""
if (_DECLARE, _PLAY) != (DECLARE, PLAY):
    raise RuntimeError("gongzhu_env.batch.pairs: the phase codes are not base.DECLARE/PLAY")


# ---------------------------------------------------------------------------------------------
def _score_bound() -> int:
    """Return an offset beyond every two-deck hand score: a slam, every factor largest."""
    top = (TWO_DECK_ALL_HEARTS * 4 + 2 * (abs(PIG_VALUE) + SHEEP_VALUE) * 4)
    return top * max(TWO_DECK_C10_FACTORS.values()) + 1


_SQUASH: list[np.ndarray] = []


def _squash_table() -> np.ndarray:
    """Return the view's squashed value of every score within the bound (float32), once.

    The same arithmetic as ``view._squash`` of ``score / 4`` (the two-deck view divides), so
    the values are the view's to the last bit.
    """
    if not _SQUASH:
        b, div = _score_bound(), _SCORE_DIVISORS[2]
        _SQUASH.append(np.array([0.5 + 0.5 * math.tanh((s / div) / _SCORE_SCALE)
                                 for s in range(-b, b + 1)], dtype=np.float32))
    return _SQUASH[0]


def _obs_offsets(rules: Rules) -> tuple[np.ndarray, int]:
    """Where each block of ``view.layout(rules)`` starts (``-1`` if absent), and the size.

    Read from the reference layout; a block the kernels do not write refuses the rules.
    """
    starts, at = {}, 0
    for name, shape, _ in layout(rules):
        starts[name] = at
        at += math.prod(shape)
    unknown = set(starts) - set(_OBS_BLOCKS)
    missing = set(_OBS_BLOCKS) - set(starts) - {"partners"}
    if unknown or missing:
        raise RuntimeError(f"gongzhu_env.batch.pairs does not write the observation of {rules}: "
                           f"blocks {sorted(unknown)} are new, {sorted(missing)} are gone")
    return np.array([starts.get(name, -1) for name in _OBS_BLOCKS], dtype=np.int64), at


class PairTables(GameBatch, decks=2):
    """The two-deck table layout of ``GameBatch`` (see the module docstring).

    Made by ``GameBatch(n, rules)`` for rules with two decks; ``reward_mode`` and
    ``reward_scale`` are those of ``GameBatch``. It keeps no views of finished hands yet, so
    ``final_observations=True`` is refused.
    """

    _layout_name = "pairs"
    _max_tables = MAX_TABLES
    _table_bytes = 5000
    _keeps_final_views = False
    _dealt_column = _DEALT
    _max_action = _DONE_ACTION
    _action_hint = "one action 0..104 per table"
    _say_what_came = True

    def _covered(self, rules: Rules | str | None) -> Rules:
        return check_covered("two_decks" if rules is None else rules)

    def _obs_size(self) -> int:
        return _obs_offsets(self.rules)[1]

    def _build(self, num_tables: int) -> None:
        n, r = num_tables, self.rules
        self._oo = _obs_offsets(r)[0]
        rp = self._rp = np.zeros(6, dtype=np.int64)
        rp[_R_MAY_LEAD] = r.exposed_may_lead
        rp[_R_FREE_FIRST] = r.first_lead == "any"
        rp[_R_DECLARE] = r.declaration == "free"
        rp[_R_TEAM] = r.team_play
        rp[_R_REWARD] = REWARD_CODES[self.reward_mode]
        rp[_R_OFFSET] = _score_bound()
        self._heart_sums = np.array(HEART_SUMS, dtype=np.int64)
        self._squash = in_obs_dtype(_squash_table(), self.obs_dtype)
        self._state = np.zeros((n, _NCOL), dtype=np.int64)
        self._deck = np.zeros(104, dtype=np.int64)
        self._stream = np.uint64(0)

    def _deal_first(self, seed: np.uint64) -> None:
        """Run the reset kernel, keeping ``seed`` for the step kernel's next deals."""
        self._stream = seed
        _reset_kernel(self._state, seed, self._rp, self._deck, self._squash, self._oo,
                      self.observations, self.action_masks, self.current_player)

    def _step_tables(self, actions: np.ndarray, active: np.ndarray) -> int:
        """Run the two-deck step kernel on the checked actions."""
        return int(_step_kernel(self._state, actions, active, self._stream, self._rp,
                                np.float64(self.reward_scale), self._deck, self._heart_sums,
                                self._squash, self._oo, self.observations,
                                self.action_masks, self.current_player, self.terminated,
                                self.rewards, self.scores))

    def _sample(self, uniforms: np.ndarray, out: np.ndarray) -> int:
        """Run the two-deck sampling kernel (single cards, then pair leads, then DONE)."""
        return int(_sample_kernel(self._state, uniforms, out))

    def _refresh(self) -> None:
        """Rewrite the outputs from the state rows with the two-deck refresh kernel."""
        _refresh_kernel(self._state, self._squash, self._oo, self._rp, self.observations,
                        self.action_masks, self.current_player)

    # ------------------------------------------------------------------ snapshot checks
    # (``GameBatch._check_snapshot`` checks the rows; these say where this layout keeps what.)
    def _row_columns(self) -> RowColumns:
        return _ROW_COLUMNS

    def _snapshot_ranges(self) -> list[tuple[int, int, int, int, str]]:
        free = self.rules.declaration == "free"
        bound = int(self._rp[_R_OFFSET])
        out = [(_PHASE, 1, 0 if free else _PLAY, _PLAY,
                "0 (declaring) or 1 (playing)" if free else "1: these rules have no declaration")]
        out += [(column, 1, 0, 3, "a seat, 0..3") for column in (_CUR, _FIRST, _TLEAD)]
        out += [
            (_TURNS, 1, 0, 4, "0..4"), (_TLEN, 1, 0, 7, "0..7 (a full trick is taken at once)"),
            (_LED, 1, -1, 3, "a suit 0..3, or -1 between tricks"),
            (_SLED, 1, 0, 15, "a mask of the four suits"), (_NPLAYS, 1, 0, 3, "0..3"),
            (_PAIR, 1, 0, 1, "0 or 1"), (_PEND, 1, -1, 51, "a card 0..51, or -1"),
            (_CARDS_DONE, 1, 0, 100, "0..100 cards in finished tricks"),
            (_LEGAL, 1, 0, (1 << 53) - 1, "a mask of the 52 cards and DONE"),
            (_LEGALP, 1, 0, _FULL, "a mask of the 52 pair leads"),
            (_SECOND, 1, 0, _FULL, "a mask of the 52 cards"),
            (_EXPALL, 1, 0, _FULL, "a mask of the 52 cards"),
            (_EXPALL2, 1, 0, _FULL, "a mask of the 52 cards"),
            (_DEALT, 1, 1, 1 << 62, "1 (reset deals the first hand) to 2**62"),
            (_TRICK, 8, 0, 51, "a card, 0..51")]
        out += [(b, 4, 0, _FULL, "a mask of the 52 cards") for b in range(_HAND, _VOIDS, 4)]
        out += [(_VOIDS, 4, 0, 15, "a mask of the four suits"),
                (_PROV, 4, -bound, bound, f"a hand score within -{bound}..{bound}"),
                (_DEAL, 8, 0, _FULL, "a mask of the 52 cards")]
        return out

    def _trick_plays(self, snap: np.ndarray) -> TrickPlays:
        tlen, tlead, pair = snap[:, _TLEN], snap[:, _TLEAD], snap[:, _PAIR]
        done = snap[:, _CARDS_DONE]
        k = np.arange(8)[None, :]
        owner = (tlead[:, None] + np.where(pair[:, None] == 1, k >> 1, k)) % 4
        rel = (np.arange(4)[None, :] - tlead[:, None]) % 4
        held = np.where(pair[:, None] == 1, np.clip(tlen[:, None] - 2 * rel, 0, 2),
                        (rel < tlen[:, None]).astype(np.int64))
        return TrickPlays(plays=snap[:, _NPLAYS], owner=owner, live=k < tlen[:, None],
                          held=held, finished=done // 4, tricks=done // 4)

    def _forced_exposures(self) -> int | None:
        return None if self.rules.declaration == "free" else 0

    def _check_layout(self, snap: np.ndarray, need: Callable[[np.ndarray, int, str], None],
                      counts: Callable[[int], np.ndarray]) -> None:
        """Check what only two decks keep: pair leads, two-card follows, exposed copies held."""
        tlen, nplays = snap[:, _TLEN], snap[:, _NPLAYS]
        pair, pend = snap[:, _PAIR], snap[:, _PEND]
        need(np.where(pair == 1, tlen == 2 * nplays + (pend >= 0), (tlen == nplays) & (pend < 0)),
             _TLEN, "the cards of the plays made to the trick (two a play after a pair lead)")
        need((nplays > 0) | ((pair == 0) & (pend < 0)), _PAIR, "0 between tricks")
        need(snap[:, _CARDS_DONE] % 4 == 0, _CARDS_DONE, "a multiple of four")
        trick = snap[:, _TRICK:_TRICK + 8]
        last = np.take_along_axis(trick, np.maximum(tlen - 1, 0)[:, None], axis=1)[:, 0]
        need(np.asarray((pend < 0) | (pend == last)), _PEND, "the last card of the trick")
        x1, x2 = snap[:, _XHELD:_XHELD + 4], snap[:, _XHELD2:_XHELD2 + 4]
        need((x2 & ~x1) == 0, _XHELD2,
             f"cards also in {_COLUMN_NAMES[_XHELD]} (a card twice is a card once too)")
        held = ((x1[:, :, None] >> _CARD_BITS) & 1) + ((x2[:, :, None] >> _CARD_BITS) & 1)
        need(np.all((held <= counts(_EXPOSED)) & (held <= counts(_HAND)), axis=2), _XHELD,
             "exposed copies the seat still holds")

    def _derived(self, snap: np.ndarray) -> list[tuple[int, np.ndarray, str]]:
        n = len(snap)
        legal = np.zeros(n, dtype=np.int64)
        legalp = np.zeros(n, dtype=np.int64)
        second = np.zeros((n, 2), dtype=np.int64)
        score = np.zeros((n, 4), dtype=np.int64)
        # (The kernel reads a copy: it works out the legal sets in the rows it is given.)
        _derived_kernel(snap.copy(), self._rp, self._heart_sums, legal, legalp,
                        second, score)
        pend, got = snap[:, _PEND], snap[:, _SECOND]
        return [
            (_SECOND, np.where(pend >= 0, (got == second[:, 0]) | (got == second[:, 1]),
                               got == 0),
             "the cards that complete the two-card follow begun with the pending card (0 when "
             "none is pending)"),
            (_LEGAL, snap[:, _LEGAL] == legal, "the legal actions of the seat to move"),
            (_LEGALP, snap[:, _LEGALP] == legalp, "the legal pair leads of the seat to move"),
            (_PROV, snap[:, _PROV:_PROV + 4] == score, "the score of the seat's captured cards")]

    def _illegal(self, table: int, action: int) -> IllegalActionError:
        st = self._state[table]
        phase = "declare" if st[_PHASE] == _DECLARE else "play"
        legal = ", ".join(action_str(a, 2) for a in self.legal_actions(table))
        seat = int(st[_CUR])
        if 0 <= action <= _DONE_ACTION:
            what = f"{action_str(action, 2)} ({action})"
            # Why, where it is plain (as ``Game`` says it).
            if action == _DONE_ACTION and st[_PHASE] != _DECLARE:
                why = "DONE only ends a declaration turn"
            elif st[_PHASE] == _DECLARE:
                why = "in declaration only a copy of SQ DJ C10 HA that is held and not yet " \
                      "exposed may be exposed"
            elif action >= 52 and st[_NPLAYS]:
                why = "only the leader may lead a pair; a follower plays its two cards one " \
                      "action at a time"
            elif action >= 52 and not int(st[_HAND2 + seat]) >> (action - 52) & 1:
                why = f"seat {seat} does not hold two copies of {action_str(action - 52, 2)}"
            elif action < 52 and not int(st[_HAND + seat]) >> action & 1:
                why = f"seat {seat} does not hold it"
            else:
                why = ""
            if why:
                what += f" ({why})"
        else:
            what = (f"{action}, not an action (0..51 one card, 52+k the pair of card k, "
                    f"104 DONE),")
        return IllegalActionError(
            f"table {table}: {what} is not legal for seat {seat} in the {phase} "
            f"phase; legal actions: [{legal}]; no table was changed")

    # ------------------------------------------------------------------ reading tables
    def _deal_in(self, row: np.ndarray) -> tuple[tuple[int, ...], ...]:
        """Return a row's four dealt hands, each card once or twice, sorted."""
        return tuple(_cards_of(int(row[_DEAL + s]), int(row[_DEAL2 + s])) for s in range(4))

    def _legal_in(self, row: np.ndarray) -> list[int]:
        """Return a row's legal actions in ``Game`` order: cards, pair leads, then DONE."""
        legal, pairs = int(row[_LEGAL]), int(row[_LEGALP])
        out = [c for c in range(52) if legal >> c & 1]
        out += [52 + c for c in range(52) if pairs >> c & 1]
        if legal >> _DONE_BIT & 1:
            out.append(_DONE_ACTION)
        return out
