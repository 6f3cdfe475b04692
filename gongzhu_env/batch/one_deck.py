"""The batched engine's one-deck tables: the layout ``GameBatch`` plays one deck with.

``GameBatch(n, rules)`` with one-deck rules holds ``n`` tables of three to eight seats as numpy
arrays and steps all of them with one call: ``step(actions)`` takes one action per table (for that
table's seat to move) and writes, into arrays allocated once, the observation and the
legal-action mask of the seat to move at every table, the rewards and raw scores of the hands
that just ended, which tables ended a hand, and the seat to move. The kernels are compiled
with numba, which the ``gongzhu_env.batch`` package alone imports: ``import gongzhu_env``
does not load it.

One rule, one place -- and this is the one exception
----------------------------------------------------
``gongzhu_env.engine.Game`` is the reference: the single readable statement of the rules.
This module is the one allowed second implementation of them (legality, trick taking, the
exposure restrictions, scoring and the observation encoding), written again as loops over
integer arrays so that it compiles. It is held to the reference by a differential test
(``gongzhu_env.batch.differential``: ``tests/gongzhu_env/test_vector.py`` runs it on a few
hands, ``benchmarks/check_vector.py`` on 100,000 and more) that
plays the same deals and actions on both and compares legal sets, observations, rewards and
scores at every step. A rule change goes into ``Game`` first; the differential test then
shows what to change here. The tables it reads (heart values, the squashed-score curve, the
observation layout, card indices) come from the reference modules; they are passed to the
kernels as arguments or checked against them when this module is imported, so a numba cache
compiled from an older version can never silently use old values.

What it covers
--------------
Every one-deck game: three to eight seats (``players``, with the reduced deck, the lead card
and the tricks of ``players`` cards of ``Rules``) and every option that changes a hand, in any
combination ``Rules`` accepts (``COVERED``): the exposure restrictions (``exposed_may_lead``,
``strict_exposure``), ``first_lead``, every ``declaration`` (free, none, all but the sheep,
all), ``auto_expose`` on or off, ``hidden_exposure`` (the view shows other seats' exposures
as counts and scores with the observer's own exposures only), ``first_drawn_exposure`` (the
first card dealt to each seat is kept; ``first_drawn_of``), ``self_capture_double``,
``discard_colour``, every ``hearts_table``, ``pig_sheep_swap``, ``team_play`` (partners ``i``
and ``i + players / 2``) and ``pig_sheep_team`` (four seats only, as ``Rules`` says). Options
that only change settlement or matches (``settlement``, ``settlement_multiplier``,
``match_threshold``, ``double_pig``, ``match_end``, ``next_leader``) do not change a hand and
are accepted. Refused, with an error naming the option (``check_covered``): any option added
to ``Rules`` later and not yet written here. Two decks are the other layout's
(``gongzhu_env.batch.pairs``); ``GameBatch(n, rules)`` picks the layout from the rules.

One set of kernels plays these rules at every table size: the seat count, the observation
layout (read from ``view.layout(rules)``) and the options are arguments (``_rule_params``,
``_obs_offsets``), and the step kernel is compiled once per seat count with that count a
constant (``_step_kernel_for``). The trick rules themselves (the winner, the restriction of
exposed cards, what may be led and followed, the hand score and the results) are the
functions of ``gongzhu_env.batch.tricks``, which the two-deck layout calls too. (Four seats
once had kernels of their own; by 2026-12 they were no faster than these, and went.)

Deals
-----
Every table has its own stream of deals: hand ``j`` of table ``i`` under ``reset(seed)`` is
``deal(seed, i, j)``. So the same seed gives the same deals, a table's deals do not depend on
how many tables there are or on how fast the others finish, and a finished table starts the
next deal of its own stream at once. The recipe, all arithmetic modulo 2**64, with SplitMix64's
increment ``G = 0x9E3779B97F4A7C15`` and its output scramble ``mix``:

1. ``x = mix(mix(mix(seed + G) + i) + j)``;
2. ``deck`` = the ``K`` cards in play in increasing order (``[0, 1, ..., 51]`` at four seats;
   at other sizes the cards of ``rules.deck_mask``: ``rules.removed_cards`` left out, so
   ``K = players * hand_size``); for ``k`` from ``K - 1`` down to 1, draw ``j_k`` uniform in
   ``0..k`` and swap ``deck[k]`` and ``deck[j_k]`` (Fisher-Yates). A draw below ``b = k + 1``
   is Lemire's: ``x += G``, ``m = (mix(x) >> 32) * b``; while ``m % 2**32`` is below
   ``2**32 % b``, draw ``m`` again the same way; the result is ``m >> 32`` (unbiased);
3. with ``h = rules.hand_size`` (13 at four seats), seat ``s`` gets ``deck[h s : h s + h]``,
   and ``deck[h s]`` is its first dealt card (what ``first_drawn_exposure`` reads).

At four seats this is the stream of the first version of this module, unchanged: the same seed
gives the same hands. ``deal(seed, i, j, rules)`` reproduces it for any table size.

Steps and resets
----------------
A table whose hand ends during ``step`` reports it in that step (``terminated``, ``rewards``,
``scores``) and is dealt its next hand in the same call: the observation written for it is
that of the first seat to act in the new hand. Rewards are zero for every other table.

``step(actions, active)`` moves only the tables where the bool array ``active`` is True; the
others keep their position and their outputs (``terminated`` False, zero rewards and scores),
and their entries of ``actions`` are not read. A caller that lets different players act at
different tables (``gongzhu_env.vector_env`` holds a learner's tables while the opponents play
at the others) steps the tables each player is to move at. ``snapshot()`` copies every table's
position (one small int64 array) and ``restore(snapshot)`` puts them back, outputs included,
so a caller can undo a series of steps that went wrong halfway. ``restore`` checks every table
of the snapshot first (ranges and the bookkeeping between columns) and refuses, with nothing
changed, one that no play could have produced: the kernels index with those numbers. Each
snapshot row ends with a digest of the rest under the batch's rules, so a change that still
looks like a position of play (a count of hands dealt, a stale card) is refused too.

A batch holds at most ``MAX_TABLES`` (2**20) tables, about 3 GB of arrays at four seats (an
eight-seat observation is about twice as long).

Arrays (overwritten in place by every ``reset`` and ``step``; ``torch.from_numpy`` on them
shares the memory):

==================  ==================  =====================================================
attribute           shape, dtype        meaning
==================  ==================  =====================================================
observations        (n, obs_size) f32   ``PlayerView.encode()`` of the seat to move (a uint8
                    or u8               array with ``obs_dtype=np.uint8``: each value x as the byte
                                        ``rint(x * 255)``)
action_masks        (n, 53) int8        its legal actions (``PlayerView.action_mask()``)
current_player      (n,) int64          the seat to move
terminated          (n,) bool           the table's hand ended in this step
rewards             (n, s) f32          hand results by absolute seat (``reward_mode``,
                                        ``reward_scale`` as in the env); 0 if not terminated
scores              (n, s) int32        raw hand scores by absolute seat; 0 if not terminated
final_observations  (n, s, obs) f32/u8  only with ``GameBatch(..., final_observations=True)``
                                        (else ``None``): where ``terminated``, every seat's
                                        ``PlayerView.encode()`` of the finished hand (phase
                                        "over"), by absolute seat; other rows keep old values
==================  ==================  =====================================================

``s`` is the number of seats, ``rules.players`` (``GameBatch.num_seats``).

Card masks are stored as ``int64`` (a hand needs 52 bits, the legal mask 53): numba promotes a
mix of signed and unsigned 64-bit integers to floating point, so one signed type throughout
keeps every bit operation exact.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from gongzhu_env.batch.base import (
    REWARD_CODES,
    GameBatch,
    RowColumns,
    TrickPlays,
    _bit_counts,
    _fraction,
    _outside_unit,
    _shuffle,
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

    numba = _load_numba("gongzhu_env.batch (the batched engine)")

from gongzhu_env.batch.encoding import clear, exposable_bits, put_bits, scoring_bits
from gongzhu_env.batch.tricks import (
    follow_mask,
    hand_results,
    lead_mask,
    popcount,
    restricted,
    score,
    winning_play,
)
from gongzhu_env.cards import C2, C10, DJ, DONE, EXPOSABLE, HA, NUM_ACTIONS, SQ, card_str
from gongzhu_env.engine import IllegalActionError
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import (
    _HEART_TABLES,
    PIG_VALUE,
    SHEEP_VALUE,
    TRANSFORMER_ALONE,
)
from gongzhu_env.view import _squash, layout, obs_size

__all__ = ["OneDeckTables", "COVERED", "MAX_TABLES", "check_covered", "deal"]

# ---------------------------------------------------------------------------------------------
# Constants of the kernels. Numba freezes module constants into compiled (and cached) code, so
# they are literals here, checked against the reference modules at import just below. What
# varies with the rules (the table size, the observation layout, the heart values) is passed
# to the kernels as arrays built from the reference modules (``_rule_params``).
_C2, _C10, _DJ, _HA, _SQ, _DONE = 0, 8, 22, 38, 49, 52
_EXPOSABLE_MASK = (1 << _SQ) | (1 << _DJ) | (1 << _C10) | (1 << _HA)
_HEARTS_MASK = ((1 << 13) - 1) << 26
_SCORING_MASK = _HEARTS_MASK | (1 << _SQ) | (1 << _DJ) | (1 << _C10)
_OTHER_SCORING = _SCORING_MASK & ~(1 << _C10)
_SUIT = (1 << 13) - 1
_PIG, _SHEEP, _ALONE = -100, 100, 50
# Squashed scores are looked up in a table indexed by ``score + offset``. Hand scores lie
# within -2400..3200 under the standard values at any table size; the doubling options (first
# drawn, self capture) and the positive heart table reach further (``_score_bound``).
_SCORE_OFFSET = 4000
_MAX_SEATS = 8

_EXPECTED = {
    "C2": (C2, _C2), "C10": (C10, _C10), "DJ": (DJ, _DJ), "HA": (HA, _HA), "SQ": (SQ, _SQ),
    "DONE": (DONE, _DONE), "actions": (NUM_ACTIONS, _DONE + 1),
    "exposable": (EXPOSABLE, (_SQ, _DJ, _C10, _HA)),
    "pig": (PIG_VALUE, _PIG), "sheep": (SHEEP_VALUE, _SHEEP), "alone": (TRANSFORMER_ALONE, _ALONE),
    "seats": (max(Rules.choices()["players"]), _MAX_SEATS),
}
for _name, (_reference, _here) in _EXPECTED.items():
    if _reference != _here:  # a real check, not an assert: it must also run under python -O
        raise RuntimeError(f"gongzhu_env.batch.one_deck is out of date with the reference modules: "
                           f"{_name} is {_reference!r} there and {_here!r} here")

# Columns of the per-table state array (one int64 row per table): the scalar columns, then
# blocks of one column per seat (by absolute seat), then three more scalars; a row of ``n``
# seats has ``_NSCALAR + _NBLOCKS * n + 3`` columns (``_col(block, n)`` is where a block
# starts, ``_xcol(k, n)`` where extra scalar ``k`` is).
_PHASE, _CUR, _FIRST, _TURNS, _TLEN, _TLEAD, _LED, _SLED, _NTR, _EXPALL, _LEGAL, _DEALT = \
    range(12)
_NSCALAR = 12
# The extra scalars: the exposed cards under the play restriction, those doubled as their
# holder's first dealt card, and the trick's first wrong-colour discarder (-1 if none).
_RESTR, _DOUBLED, _WRONG = range(3)
# The blocks: the trick in progress in play order (the first _TLEN are cards), then by seat
# the hand, the cards played, exposed and captured, the void suits, the provisional score, the
# deal and the first card dealt.
_B_TRICK, _B_HAND, _B_PLAYED, _B_EXPOSED, _B_CAPT, _B_VOIDS, _B_PROV, _B_DEAL, _B_FIRST = \
    range(9)
_NBLOCKS = 9
_DECLARE, _PLAY = 0, 1


def _ncol(seats: int) -> int:
    """Columns of a state row of the general kernels at a table of ``seats`` seats."""
    return _NSCALAR + _NBLOCKS * seats + 3


def _column_names(seats: int) -> tuple[str, ...]:
    """Name each column of a general state row, for the errors of ``GameBatch.restore``."""
    return tuple(
        ["phase", "seat to move", "first leader", "declaration turns taken",
         "cards in the trick", "trick leader", "suit led", "suits led so far", "tricks taken",
         "exposed cards", "legal actions", "hands dealt"]
        + [f"trick card {k}" for k in range(seats)]
        + [f"{what} of seat {s}" for what in ("hand", "played cards", "exposed cards",
                                               "captured cards", "void suits", "score", "deal",
                                               "first dealt card")
           for s in range(seats)]
        + ["exposed cards under the play restriction", "exposed cards doubled as first dealt",
           "wrong-colour discarder"])


_FULL_DECK = (1 << 52) - 1
MAX_TABLES = 1 << 20
"""Most tables one ``GameBatch`` holds. A four-seat table's arrays take about 2.8 KB (12 KB
with ``final_observations``), so the largest batch already needs about 3 GB; the benchmarks
run 4,096 tables at most and training 128."""
# Declaration modes and reward modes as the kernels see them.
_DECL_FREE, _DECL_NONE, _DECL_FORCED = 0, 1, 2
# Indices of the rule parameters (``_rule_params``), an int64 array every kernel reads.
(_R_SEATS, _R_HAND_SIZE, _R_LEAD, _R_DECL, _R_FORCED, _R_STRICT, _R_MAY_LEAD, _R_FREE_FIRST,
 _R_TEAM, _R_PIG_SHEEP, _R_AUTO, _R_ALL_HEARTS, _R_SWAP, _R_SELF, _R_FIRST_DRAWN, _R_COLOUR,
 _R_HIDDEN, _R_OFFSET, _R_REWARD) = range(19)
_NPARAMS = 19
# Indices of the observation offsets (``_obs_offsets``): where each block of the layout of
# ``view.layout(rules)`` starts, -1 for a block these rules do not have. The phase is at 0.
(_OB_HAND, _OB_TO_MOVE, _OB_TRICK_LEADER, _OB_TRICK_CARDS, _OB_PLAYED, _OB_EXPOSED,
 _OB_CAPTURED, _OB_VOIDS, _OB_DECLARED, _OB_FIRST_LEADER, _OB_TRICK_NUMBER, _OB_SCORES,
 _OB_PARTNERS, _OB_EXPOSED_COUNT, _OB_FIRST_DRAWN, _OB_DOUBLED) = range(16)
_OBS_BLOCKS = ("hand", "to_move", "trick_leader", "trick_cards", "played", "exposed",
               "captured", "voids", "declared", "first_leader", "trick_number", "scores",
               "partners", "exposed_count", "first_drawn", "doubled")

# ---------------------------------------------------------------------------------------------
# What is covered.
COVERED: dict[str, tuple[object, ...]] = {
    "exposed_may_lead": (False, True),
    "strict_exposure": (False, True),
    "first_lead": ("club2", "any"),
    "declaration": ("free", "none", "all_but_sheep", "all"),
    "auto_expose": (True, False),
    "team_play": (False, True),
    "hidden_exposure": (False, True),
    "first_drawn_exposure": (False, True),
    "self_capture_double": (False, True),
    "discard_colour": (False, True),
    "hearts_table": ("standard", "book", "positive"),
    "pig_sheep_swap": (False, True),
    "pig_sheep_team": (False, True),
    "decks": (1,),
    "players": (3, 4, 5, 6, 7, 8),
}
"""Rule option -> the values ``GameBatch`` plays. Options not listed change no hand."""
_DECL_CODES = {"free": _DECL_FREE, "none": _DECL_NONE, "all_but_sheep": _DECL_FORCED,
               "all": _DECL_FORCED}
_FORCED_MASKS = {"free": 0, "none": 0, "all_but_sheep": (1 << _SQ) | (1 << _C10) | (1 << _HA),
                 "all": _EXPOSABLE_MASK}


def check_covered(rules: Rules | str | None) -> Rules:
    """Return ``rules`` as a ``Rules`` if the one-deck tables play them, else raise ``ValueError``.

    ``base.check_options`` over ``COVERED``, other options at the standard game's values.
    """
    return check_options(Rules.coerce(rules), COVERED, Rules(), "at one deck")


# ---------------------------------------------------------------------------------------------
# Deals: the shuffle of ``base._shuffle`` (SplitMix64 and an unbiased Fisher-Yates shuffle).
@numba.njit(cache=True)
def _deal_into(seed: np.uint64, table: int | np.int64, hand: np.int64, cards: np.ndarray,
               deck: np.ndarray, out: np.ndarray, first: np.ndarray) -> None:
    """Write the hand masks of hand ``hand`` of ``table`` into ``out`` (one per seat).

    ``cards`` holds the cards in play in increasing order (all 52 at four seats); ``deck`` is
    scratch space as long. Each seat gets ``len(cards) // len(out)`` cards of the shuffled
    deck (``_shuffle``); ``first[s]`` is the first card dealt to seat ``s``.
    """
    size = cards.shape[0]
    for c in range(size):
        deck[c] = cards[c]
    _shuffle(deck, size, seed, table, hand)
    seats = out.shape[0]
    per = size // seats
    for s in range(seats):
        mask = np.int64(0)
        for c in range(per * s, per * s + per):
            mask |= np.int64(1) << deck[c]
        out[s] = mask
        first[s] = deck[per * s]


def _cards_in_play(rules: Rules) -> np.ndarray:
    """Return the cards of ``rules.deck_mask`` in increasing order, as int64 (what is shuffled)."""
    return np.array([c for c in range(52) if rules.deck_mask >> c & 1], dtype=np.int64)


def deal(seed: int, table: int, hand: int,
         rules: Rules | str | None = None) -> tuple[tuple[int, ...], ...]:
    """Return the hands (sorted cards) of hand ``hand`` of ``table`` under ``reset(seed)``.

    The deal stream of a batch under ``rules`` (four seats by default), reproduced outside it
    (see "Deals" in the module docstring); one hand per seat.
    """
    seed, table, hand = _unsigned(seed, "seed"), _unsigned(table, "table"), \
        _unsigned(hand, "hand")
    rules = Rules.coerce(rules)
    cards = _cards_in_play(rules)
    out = np.zeros(rules.players, dtype=np.int64)
    _deal_into(np.uint64(seed), np.int64(table), np.int64(hand), cards,
               np.zeros(len(cards), dtype=np.int64), out, np.zeros_like(out))
    return tuple(tuple(c for c in range(52) if int(m) >> c & 1) for m in out)


# ---------------------------------------------------------------------------------------------
# The rules, as kernels over one row of the state array. ``rp`` is the rule parameters array.
@numba.njit(cache=True, inline="always")
def _col(block: int, seats: int | np.int64) -> int | np.int64:
    """First column of a per-seat block in a row of ``seats`` seats."""
    return _NSCALAR + block * seats


@numba.njit(cache=True, inline="always")
def _xcol(k: int, seats: int | np.int64) -> int | np.int64:
    """Column of extra scalar ``k`` (``_RESTR``, ``_DOUBLED``, ``_WRONG``)."""
    return _NSCALAR + _NBLOCKS * seats + k


@numba.njit(cache=True, inline="always")
def _wrap(x: np.int64, seats: np.int64) -> np.int64:
    """``x % seats`` for ``x`` in ``-seats .. 2 * seats - 1`` (no division).

    At four or eight seats (the seat count is a constant of the step kernel) a mask, with no
    branch: two's complement makes ``x & (seats - 1)`` the remainder of a negative ``x`` too.
    """
    if seats & (seats - 1) == 0:
        return x & (seats - 1)
    if x >= seats:
        return x - seats
    if x < 0:
        return x + seats
    return x


@numba.njit(cache=True, inline="always")
def _seat_score(st: np.ndarray, s: np.int64, rp: np.ndarray,
                heart_sums: np.ndarray) -> np.int64:
    """Seat ``s``'s provisional score from what it has taken and every exposure."""
    ns = rp[_R_SEATS]
    own = st[_col(_B_EXPOSED, ns) + s] if rp[_R_SELF] else np.int64(0)
    return score(st[_col(_B_CAPT, ns) + s], 0, st[_EXPALL], 0, own, st[_xcol(_DOUBLED, ns)], 1,
                 heart_sums, rp[_R_ALL_HEARTS], rp[_R_SWAP])


@numba.njit(cache=True, inline="always")
def _held_back(st: np.ndarray, hand: np.int64, rp: np.ndarray) -> np.int64:
    """Return the exposed cards of ``hand`` the first-round restriction holds back."""
    return restricted(np.int64(0), hand & st[_xcol(_RESTR, rp[_R_SEATS])], np.int64(0),
                      st[_SLED])


@numba.njit(cache=True, inline="always")
def _follow_legal(st: np.ndarray, hand: np.int64, rp: np.ndarray) -> np.int64:
    """Return what may be played to the trick in progress (``Game._follow_legal``)."""
    return follow_mask(hand, st[_LED], _held_back(st, hand, rp), bool(rp[_R_STRICT]))


@numba.njit(cache=True, inline="always")
def _lead_legal(st: np.ndarray, hand: np.int64, rp: np.ndarray) -> np.int64:
    """Return what may be led (``Game._lead_legal``)."""
    if st[_NTR] == 0 and not rp[_R_FREE_FIRST]:
        return np.int64(np.int64(1) << rp[_R_LEAD])
    return lead_mask(hand, _held_back(st, hand, rp), bool(rp[_R_STRICT]),
                     bool(rp[_R_MAY_LEAD]))


@numba.njit(cache=True, inline="always")
def _compute_legal(st: np.ndarray, rp: np.ndarray) -> np.int64:
    """Return the legal mask of the seat to move, by phase (bit 52 is DONE)."""
    hand: np.int64 = st[_col(_B_HAND, rp[_R_SEATS]) + st[_CUR]]
    if st[_PHASE] == _DECLARE:
        exposed: np.int64 = st[_EXPALL]
        return (hand & _EXPOSABLE_MASK & ~exposed) | (np.int64(1) << _DONE)
    if st[_TLEN]:
        return _follow_legal(st, hand, rp)
    return _lead_legal(st, hand, rp)


@numba.njit(cache=True, inline="always")
def _expose(st: np.ndarray, seat: int | np.int64, card: int | np.int64, rp: np.ndarray) -> None:
    """Record an exposure with its effects (``Game._expose``).

    A first-drawn card exposed by its holder is doubled and unrestricted; a hidden exposure
    restricts nothing.
    """
    ns = rp[_R_SEATS]
    bit = np.int64(1) << card
    st[_col(_B_EXPOSED, ns) + seat] |= bit
    st[_EXPALL] |= bit
    if rp[_R_FIRST_DRAWN] and st[_col(_B_FIRST, ns) + seat] == card:
        st[_xcol(_DOUBLED, ns)] |= bit
    elif not rp[_R_HIDDEN]:
        st[_xcol(_RESTR, ns)] |= bit


@numba.njit(cache=True)
def _start_hand(st: np.ndarray, table: int, seed: np.uint64, rp: np.ndarray, cards: np.ndarray,
                deck: np.ndarray, heart_sums: np.ndarray) -> None:
    """Deal the table's next hand of its stream and set it up to its first decision."""
    ns = rp[_R_SEATS]
    hand0, played0, exposed0 = _col(_B_HAND, ns), _col(_B_PLAYED, ns), _col(_B_EXPOSED, ns)
    capt0, voids0, prov0 = _col(_B_CAPT, ns), _col(_B_VOIDS, ns), _col(_B_PROV, ns)
    deal0, first0 = _col(_B_DEAL, ns), _col(_B_FIRST, ns)
    _deal_into(seed, table, st[_DEALT], cards, deck, st[deal0:deal0 + ns],
               st[first0:first0 + ns])
    st[_DEALT] += 1
    first = 0
    lead = rp[_R_LEAD]
    for s in range(ns):
        st[hand0 + s] = st[deal0 + s]
        st[played0 + s] = 0
        st[exposed0 + s] = 0
        st[capt0 + s] = 0
        st[voids0 + s] = 0
        st[prov0 + s] = 0
        if st[deal0 + s] >> lead & 1:
            first = s
    st[_FIRST] = first
    st[_CUR] = first
    st[_TURNS] = 0
    st[_TLEN] = 0
    st[_TLEAD] = first
    st[_LED] = -1
    st[_SLED] = 0
    st[_NTR] = 0
    st[_EXPALL] = 0
    st[_xcol(_RESTR, ns)] = 0
    st[_xcol(_DOUBLED, ns)] = 0
    st[_xcol(_WRONG, ns)] = -1
    if rp[_R_DECL] == _DECL_FREE:
        st[_PHASE] = _DECLARE
    else:
        st[_PHASE] = _PLAY
        # Forced exposures, made by their holders right after the deal.
        forced = rp[_R_FORCED]
        for c in (_SQ, _DJ, _C10, _HA):
            if forced >> c & 1:
                for s in range(ns):
                    if st[hand0 + s] >> c & 1:
                        _expose(st, s, c, rp)
    # Nothing is taken yet, so every provisional score is that of no card: 0.
    for s in range(ns):
        st[prov0 + s] = _seat_score(st, np.int64(s), rp, heart_sums)
    st[_LEGAL] = _compute_legal(st, rp)


@numba.njit(cache=True, inline="always")
def _restricted_played(st: np.ndarray, p: np.int64, c: np.int64, n: np.int64,
                       rp: np.ndarray) -> None:
    """Record what playing a restricted exposed card shows (``Game._restricted_played``)."""
    suit = c // 13
    if st[_SLED] >> suit & 1:
        return
    voids = _col(_B_VOIDS, rp[_R_SEATS]) + p
    if n == 1:
        if rp[_R_MAY_LEAD]:
            return
        st[voids] |= 15 if rp[_R_STRICT] else 1 << suit
    elif suit == st[_LED]:
        st[voids] |= 1 << suit
    elif rp[_R_STRICT]:
        st[voids] |= 15


@numba.njit(cache=True, inline="always")
def _end_declaration(st: np.ndarray, rp: np.ndarray) -> None:
    """Auto-exposure of a lone unexposed exposable card, then play from the first leader."""
    missing = _EXPOSABLE_MASK & ~st[_EXPALL]
    if missing and missing & (missing - 1) == 0 and rp[_R_AUTO]:
        ns = rp[_R_SEATS]
        hand0 = _col(_B_HAND, ns)
        for s in range(ns):
            if st[hand0 + s] & missing:
                c = 0
                while not (missing >> c) & 1:
                    c += 1
                _expose(st, s, c, rp)
    st[_PHASE] = _PLAY
    st[_CUR] = st[_FIRST]


@numba.njit(cache=True, inline="always")
def _apply(st: np.ndarray, a: np.int64, rp: np.ndarray, heart_sums: np.ndarray) -> bool:
    """Apply one legal action to one table; return whether its hand is over."""
    ns = rp[_R_SEATS]
    p = st[_CUR]
    if st[_PHASE] == _DECLARE:
        if a != _DONE:
            _expose(st, p, a, rp)
        else:
            st[_TURNS] += 1
            if st[_TURNS] == ns:
                _end_declaration(st, rp)
            else:
                st[_CUR] = _wrap(p + 1, ns)
        st[_LEGAL] = _compute_legal(st, rp)
        return False
    hand0 = _col(_B_HAND, ns)
    trick0 = _NSCALAR  # _col(_B_TRICK, ns)
    bit = np.int64(1) << a
    st[hand0 + p] ^= bit
    st[_col(_B_PLAYED, ns) + p] |= bit
    n = st[_TLEN]
    st[trick0 + n] = a
    n += 1
    st[_TLEN] = n
    if n == 1:
        st[_TLEAD] = p
        st[_LED] = a // 13
    elif a // 13 != st[_LED]:
        led = st[_LED]
        st[_col(_B_VOIDS, ns) + p] |= 1 << led
        if rp[_R_COLOUR] and st[_xcol(_WRONG, ns)] < 0:
            # Discard colour (``Game._colour_discard``): off the led colour while holding the
            # led colour's other suit (before this play).
            suit = a // 13
            if (suit == 1 or suit == 2) != (led == 1 or led == 2) and \
                    (st[hand0 + p] | bit) & (np.int64(_SUIT) << (13 * (3 - led))):
                st[_xcol(_WRONG, ns)] = p
    if bit & st[_xcol(_RESTR, ns)]:
        _restricted_played(st, p, a, n, rp)
    if n < ns:
        nxt = _wrap(p + 1, ns)
        st[_CUR] = nxt
        st[_LEGAL] = _follow_legal(st, st[hand0 + nxt], rp)
        return False
    # The trick is complete: ``engine.winning_play`` names its winner.
    led = st[_LED]
    winner = _wrap(st[_TLEAD] + winning_play(st[trick0:trick0 + ns], led * 13 + 13), ns)
    taken = np.int64(0)
    for k in range(ns):
        taken |= np.int64(1) << st[trick0 + k]
    taken &= _SCORING_MASK
    if taken:
        # Discard colour: the first wrong-colour discarder takes the cards, not the winner.
        wrong = st[_xcol(_WRONG, ns)]
        taker = winner if wrong < 0 else wrong
        cap0 = _col(_B_CAPT, ns)
        st[cap0 + taker] |= taken
        st[_col(_B_PROV, ns) + taker] = _seat_score(st, taker, rp, heart_sums)
    st[_xcol(_WRONG, ns)] = -1
    st[_SLED] |= 1 << led
    st[_TLEN] = 0
    st[_LED] = -1
    st[_CUR] = winner
    st[_TLEAD] = winner
    st[_NTR] += 1
    if st[_NTR] == rp[_R_HAND_SIZE]:
        st[_LEGAL] = 0
        return True
    st[_LEGAL] = _lead_legal(st, st[hand0 + winner], rp)
    return False


@numba.njit(cache=True, inline="always")
def _write_outputs(st: np.ndarray, obs: np.ndarray, mask: np.ndarray, squash: np.ndarray,
                   rp: np.ndarray, oo: np.ndarray, heart_sums: np.ndarray) -> None:
    """Write the observation and the action mask of the seat to move (``PlayerView``)."""
    _write_view(st, st[_CUR], False, obs, squash, rp, oo, heart_sums)
    put_bits(mask, 0, st[_LEGAL], 53)


@numba.njit(cache=True, inline="always")
def _pig_sheep_team(st: np.ndarray, ns: np.int64) -> np.int64:
    """Return the seats of the SQ holder's and the DJ holder's team, as a mask of seats."""
    deal0 = _col(_B_DEAL, ns)
    team = np.int64(0)
    for s in range(ns):
        if st[deal0 + s] >> _SQ & 1 or st[deal0 + s] >> _DJ & 1:
            team |= np.int64(1) << s
    return team


@numba.njit(cache=True)
def _write_partners(st: np.ndarray, me: np.int64, obs: np.ndarray, rp: np.ndarray,
                    oo: np.ndarray) -> None:
    """Write the partners block of seat ``me`` (team play or the pig-sheep teams).

    Kept out of line on purpose: inlined into ``_write_view``, its branches keep the compiler
    from vectorising the view's loops (a fifth of the steps per second at six seats).
    """
    ns = rp[_R_SEATS]
    full = (np.int64(1) << ns) - 1
    if rp[_R_TEAM]:
        # The partner sits half the table away.
        team = np.int64(1) << (ns // 2)
    else:
        team = _pig_sheep_team(st, ns)
        if not team >> me & 1:
            team = full & ~team
        team &= ~(np.int64(1) << me)
        team = ((team | team << ns) >> me) & full
    put_bits(obs, oo[_OB_PARTNERS], team, ns)


@numba.njit(cache=True, inline="always")
def _write_view(st: np.ndarray, me: np.int64, over: bool, obs: np.ndarray, squash: np.ndarray,
                rp: np.ndarray, oo: np.ndarray, heart_sums: np.ndarray) -> None:
    """Write ``PlayerView.encode()`` of seat ``me``.

    ``me`` is the seat to move, or (``over``) any seat once the hand's last trick is taken,
    before the next deal. ``oo`` holds where each block of the layout starts.

    Every value of the row is written (the 0/1 blocks whole), so the row needs no clearing
    first, except the trick cards and the first-drawn card, of which only a few are set.
    """
    ns = rp[_R_SEATS]
    hand0, played0 = _col(_B_HAND, ns), _col(_B_PLAYED, ns)
    # The 52-card blocks: the observer's hand, then the cards each relative seat played.
    # Written as one loop over the blocks, which the compiler vectorises; separate calls
    # get unrolled into scalar code that is several times slower.
    o_hand, o_played = oo[_OB_HAND], oo[_OB_PLAYED]
    for q in range(ns + 1):
        col = hand0 + me if q == 0 else played0 + _wrap(me + q - 1, ns)
        off = o_hand if q == 0 else o_played + 52 * (q - 1)
        put_bits(obs, off, st[col], 52)
    if over:
        # The hand is over: phase "over", nobody to move, no trick in progress.
        put_bits(obs, 0, np.int64(4), 3)
        put_bits(obs, oo[_OB_TO_MOVE], np.int64(0), ns)
        put_bits(obs, oo[_OB_TRICK_NUMBER], np.int64(0), rp[_R_HAND_SIZE])
    else:
        put_bits(obs, 0, np.int64(1) << st[_PHASE], 3)
        # The observer is the seat to move: relative seat 0.
        put_bits(obs, oo[_OB_TO_MOVE], np.int64(1), ns)
        put_bits(obs, oo[_OB_TRICK_NUMBER], np.int64(1) << st[_NTR], rp[_R_HAND_SIZE])
    n = st[_TLEN]
    o_cards = oo[_OB_TRICK_CARDS]
    clear(obs, o_cards, o_played)
    if n:
        rel = _wrap(st[_TLEAD] - me, ns)
        put_bits(obs, oo[_OB_TRICK_LEADER], np.int64(1) << rel, ns)
        for k in range(n):
            obs[o_cards + 52 * _wrap(rel + k, ns) + st[_NSCALAR + k]] = _unit(obs)
    else:
        put_bits(obs, oo[_OB_TRICK_LEADER], np.int64(0), ns)
    full = (np.int64(1) << ns) - 1
    if st[_PHASE] == _DECLARE:
        # Seats first .. first + turns - 1 have finished their declaration turn.
        declared = ((np.int64(1) << st[_TURNS]) - 1) << st[_FIRST]
        declared = (declared | declared >> ns) & full
    else:
        declared = full
    # Rotate the seat masks so that bit r is relative seat r.
    put_bits(obs, oo[_OB_DECLARED], ((declared | declared << ns) >> me) & full, ns)
    put_bits(obs, oo[_OB_FIRST_LEADER], np.int64(1) << _wrap(st[_FIRST] - me, ns), ns)
    # Exposed (4 per seat), captured (16 per seat) and voids (4 per seat), gathered by
    # relative seat into masks (captured: four seats a mask) and written in few loops
    # (vectorised, as above).
    exposed0, capt0 = _col(_B_EXPOSED, ns), _col(_B_CAPT, ns)
    voids0, prov0 = _col(_B_VOIDS, ns), _col(_B_PROV, ns)
    hidden = rp[_R_HIDDEN]
    mine = st[exposed0 + me]
    offset = rp[_R_OFFSET]
    o_scores = oo[_OB_SCORES]
    exposed = np.int64(0)
    voids = np.int64(0)
    cap_low = np.int64(0)
    cap_high = np.int64(0)
    for r in range(ns):
        s = _wrap(me + r, ns)
        e = st[exposed0 + s]
        if hidden and r != 0:
            e = 0
        exposed |= exposable_bits(e) << (4 * r)
        cap = st[capt0 + s]
        if r < 4:
            cap_low |= scoring_bits(cap) << (16 * r)
        else:
            cap_high |= scoring_bits(cap) << (16 * (r - 4))
        voids |= st[voids0 + s] << (4 * r)
        if hidden:
            # Scores with only the exposures the observer knows: its own.
            own = mine if rp[_R_SELF] and r == 0 else np.int64(0)
            score_ = score(cap, 0, mine, 0, own, st[_xcol(_DOUBLED, ns)] & mine, 1,
                           heart_sums, rp[_R_ALL_HEARTS], rp[_R_SWAP])
        else:
            score_ = st[prov0 + s]
        obs[o_scores + r] = squash[score_ + offset]
    put_bits(obs, oo[_OB_EXPOSED], exposed, 4 * ns)
    o_capt = oo[_OB_CAPTURED]
    if ns <= 4:
        put_bits(obs, o_capt, cap_low, 16 * ns)
    else:
        put_bits(obs, o_capt, cap_low, 64)
        put_bits(obs, o_capt + 64, cap_high, 16 * (ns - 4))
    put_bits(obs, oo[_OB_VOIDS], voids, 4 * ns)
    if rp[_R_TEAM] or rp[_R_PIG_SHEEP]:
        _write_partners(st, me, obs, rp, oo)
    if hidden:
        o_count = oo[_OB_EXPOSED_COUNT]
        for r in range(ns):
            e = st[exposed0 + _wrap(me + r, ns)]
            obs[o_count + r] = _fraction(obs, popcount(e), 4)
    if rp[_R_FIRST_DRAWN]:
        o_first = oo[_OB_FIRST_DRAWN]
        clear(obs, o_first, o_first + 52)
        obs[o_first + st[_col(_B_FIRST, ns) + me]] = _unit(obs)
        doubled = st[_xcol(_DOUBLED, ns)]
        if hidden:
            doubled &= mine
        put_bits(obs, oo[_OB_DOUBLED], exposable_bits(doubled), 4)


@numba.njit(cache=True, inline="always")
def _write_results(st: np.ndarray, rp: np.ndarray, reward_scale: np.float64,
                   rewards: np.ndarray, scores: np.ndarray) -> None:
    """Write a finished hand's raw scores and rewards (``tricks.hand_results``)."""
    ns = rp[_R_SEATS]
    prov0 = _col(_B_PROV, ns)
    mode = rp[_R_REWARD]
    team = _pig_sheep_team(st, ns) if mode == 2 and rp[_R_PIG_SHEEP] else np.int64(0)
    hand_results(st[prov0:prov0 + ns], mode, rp[_R_TEAM], team, reward_scale, rewards, scores)


@numba.njit(cache=True)
def _reset_kernel(state: np.ndarray, seed: np.uint64, rp: np.ndarray, cards: np.ndarray,
                  deck: np.ndarray, heart_sums: np.ndarray, squash: np.ndarray, oo: np.ndarray,
                  obs: np.ndarray, mask: np.ndarray, current: np.ndarray) -> None:
    for i in range(state.shape[0]):
        st = state[i]
        st[_DEALT] = 0
        _start_hand(st, i, seed, rp, cards, deck, heart_sums)
        _write_outputs(st, obs[i], mask[i], squash, rp, oo, heart_sums)
        current[i] = st[_CUR]


@numba.njit(cache=True, inline="always")
def _step_rows(state: np.ndarray, actions: np.ndarray, active: np.ndarray, seed: np.uint64,
               rp: Any, reward_scale: np.float64, cards: np.ndarray,
               deck: np.ndarray, heart_sums: np.ndarray, squash: np.ndarray, oo: Any,
               obs: np.ndarray, mask: np.ndarray, current: np.ndarray,
               terminated: np.ndarray, rewards: np.ndarray, scores: np.ndarray, final: bool,
               final_obs: np.ndarray) -> int:
    """Check every active table's action, then apply them; return the first bad table or -1.

    Nothing changes unless every active table's action is legal. An inactive table keeps its
    state and its outputs (``terminated`` False, zero rewards and scores). With ``final``, a
    table whose hand ends writes every seat's view of the finished hand into ``final_obs``
    before it is dealt the next. ``rp`` and ``oo`` are the arrays of the rule parameters and
    the observation offsets, or the tuples the step kernel of ``_step_kernel_for`` builds
    from them (the kernels index both alike).
    """
    n = state.shape[0]
    ns = rp[_R_SEATS]
    for i in range(n):
        if not active[i]:
            continue
        a = actions[i]
        if a < 0 or a > _DONE or not (state[i, _LEGAL] >> a) & 1:
            return i
    for i in range(n):
        if not active[i]:
            terminated[i] = False
            for s in range(ns):
                scores[i, s] = 0
                rewards[i, s] = 0.0
            continue
        st = state[i]
        over = _apply(st, np.int64(actions[i]), rp, heart_sums)
        if over:
            terminated[i] = True
            _write_results(st, rp, reward_scale, rewards[i], scores[i])
            if final:
                for s in range(ns):
                    _write_view(st, np.int64(s), True, final_obs[i, s], squash, rp, oo,
                                heart_sums)
            _start_hand(st, i, seed, rp, cards, deck, heart_sums)
        else:
            terminated[i] = False
            for s in range(ns):
                scores[i, s] = 0
                rewards[i, s] = 0.0
        _write_outputs(st, obs[i], mask[i], squash, rp, oo, heart_sums)
        current[i] = st[_CUR]
    return -1


@numba.njit(cache=True, inline="always")
def _with_seats(rp: np.ndarray, seats: int, hand_size: int, plain: bool) -> tuple[int, ...]:
    """Return the rule parameters as a tuple whose seat count and hand size are constants.

    ``plain`` (a constant of the kernel too) says the rules have none of the options that
    only some tables play (``_plain``): those parameters are then constant zeros, and the
    compiler drops their branches from the step. Every other parameter is still read from
    ``rp`` at run time.
    """
    if plain:
        return (seats, hand_size, rp[2], rp[3], rp[4], rp[5], rp[6], rp[7], rp[8], 0, rp[10],
                rp[11], 0, 0, 0, 0, 0, rp[17], rp[18])
    return (seats, hand_size, rp[2], rp[3], rp[4], rp[5], rp[6], rp[7], rp[8], rp[9], rp[10],
            rp[11], rp[12], rp[13], rp[14], rp[15], rp[16], rp[17], rp[18])


_PLAIN_ZEROS = (9, 12, 13, 14, 15, 16)
"""The parameters ``_with_seats`` fixes at 0 for plain rules (its literal zeros)."""


def _plain(rp: np.ndarray) -> bool:
    """Whether the rule parameters ``rp`` are plain: every ``_PLAIN_ZEROS`` parameter is 0.

    Plain rules have no pig-sheep teams, pig-sheep swap, self-capture doubling, first-drawn
    exposure, discard colour or hidden exposure: the presets' rules and most training runs.
    """
    return not any(int(rp[k]) for k in _PLAIN_ZEROS)


if _NPARAMS != 19 or (_R_SEATS, _R_HAND_SIZE) != (0, 1) or _PLAIN_ZEROS != (
        _R_PIG_SHEEP, _R_SWAP, _R_SELF, _R_FIRST_DRAWN, _R_COLOUR, _R_HIDDEN):
    raise RuntimeError("_with_seats lists 19 rule parameters, the seats and the hand size "
                       "first; _NPARAMS or their order changed")
_BASE_BLOCKS = _OB_SCORES + 1
"""The observation blocks ``_OB_HAND`` .. ``_OB_SCORES``: the base layout of a table size,
where they start depends on the seat count alone (``view.layout``); the variant blocks after
them move with the rules."""


def _base_offsets(seats: int) -> tuple[int, ...]:
    """Where the base blocks start at a table of ``seats`` seats (``_obs_offsets``' first ones)."""
    return tuple(int(x) for x in _obs_offsets(Rules(players=seats))[:_BASE_BLOCKS])


@functools.cache
def _step_kernel_for(seats: int, plain: bool) -> Any:
    """Return the step kernel compiled for tables of ``seats`` seats, plain rules or not.

    With the seat count, the hand size and where the base observation blocks start constants,
    the compiler unrolls and vectorises the loops over seats and the writes of the
    observation's blocks: 1.35 to 1.6 times the steps a second of one kernel that reads the
    count at run time (``benchmarks/bench_env.py``), and the constant offsets are what let
    the byte writes of compact observations vectorise like the four-seat kernels' once did.
    Numba caches each on disk like the other kernels (a closure is cached by the values it
    closes over). Only the step kernel is specialised: the others run once per reset or
    restore. ``OneDeckTables`` checks that a batch's offsets start with ``_base_offsets``.
    ``plain`` (``_plain``) compiles away the branches of the options plain rules lack.
    """
    hand_size = Rules(players=seats).hand_size
    o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10, o11 = _base_offsets(seats)

    @numba.njit(cache=True)
    def step(state: np.ndarray, actions: np.ndarray, active: np.ndarray, seed: np.uint64,
             rp: np.ndarray, reward_scale: np.float64, cards: np.ndarray, deck: np.ndarray,
             heart_sums: np.ndarray, squash: np.ndarray, oo: np.ndarray, obs: np.ndarray,
             mask: np.ndarray, current: np.ndarray, terminated: np.ndarray,
             rewards: np.ndarray, scores: np.ndarray, final: bool,
             final_obs: np.ndarray) -> int:
        offsets = (o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10, o11, oo[12], oo[13], oo[14],
                   oo[15])
        return _step_rows(state, actions, active, seed,
                          _with_seats(rp, seats, hand_size, plain),
                          reward_scale, cards, deck, heart_sums, squash, offsets, obs, mask,
                          current, terminated, rewards, scores, final, final_obs)

    return step


if len(_OBS_BLOCKS) != 16 or _BASE_BLOCKS != 12:
    raise RuntimeError("_step_kernel_for lists 12 base and 4 variant observation blocks; "
                       "_OBS_BLOCKS changed")


@numba.njit(cache=True)
def _refresh_kernel(state: np.ndarray, rp: np.ndarray, heart_sums: np.ndarray,
                    squash: np.ndarray, oo: np.ndarray, obs: np.ndarray, mask: np.ndarray,
                    current: np.ndarray) -> None:
    """Write every table's outputs from its state (after ``GameBatch.restore``)."""
    for i in range(state.shape[0]):
        _write_outputs(state[i], obs[i], mask[i], squash, rp, oo, heart_sums)
        current[i] = state[i, _CUR]


@numba.njit(cache=True)
def _derived_kernel(state: np.ndarray, rp: np.ndarray, heart_sums: np.ndarray,
                    legal: np.ndarray, scores: np.ndarray) -> None:
    """Recompute every table's legal mask and provisional scores from the rest of its state.

    Only for a state whose other columns ``_check_snapshot`` has already found in range: the
    seat to move and the suit led are used as indices and shifts here.
    """
    for i in range(state.shape[0]):
        st = state[i]
        legal[i] = _compute_legal(st, rp)
        for s in range(rp[_R_SEATS]):
            scores[i, s] = _seat_score(st, np.int64(s), rp, heart_sums)


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
        legal = state[i, _LEGAL]
        count = popcount(legal)
        k = min(np.int64(uniforms[i] * count), count - 1)
        for _ in range(k):
            legal &= legal - 1  # drop the lowest legal action
        out[i] = popcount((legal & -legal) - 1)
    return -1


# ---------------------------------------------------------------------------------------------
def _squash_table(offset: int) -> np.ndarray:
    """``view._squash`` of every score in ``-offset..offset``, as float32 (what the view writes)."""
    return np.array([_squash(s) for s in range(-offset, offset + 1)], dtype=np.float32)


_SQUASH_TABLES: dict[int, np.ndarray] = {}


def _squash_for(offset: int) -> np.ndarray:
    """Return the squash table of ``offset``, built once per offset."""
    table = _SQUASH_TABLES.get(offset)
    if table is None:
        table = _SQUASH_TABLES[offset] = _squash_table(offset)
    return table


def _score_bound(rules: Rules) -> int:
    """Return an offset beyond every hand score the rules allow (the squash table's half width).

    The largest magnitude is a slam's: all hearts plus the pig and the sheep, each times its
    factor (x2 exposed, x2 first drawn, x2 taken back), then the transformer's x2 times its own.
    """
    f = 2 * (2 if rules.first_drawn_exposure else 1) * (2 if rules.self_capture_double else 1)
    all_hearts = _HEART_TABLES[rules.hearts_table][1]
    return max(_SCORE_OFFSET, (max(all_hearts, 230) + 2 * _SHEEP) * f * 2 * f + 1)


def _rule_params(rules: Rules, reward_mode: str) -> np.ndarray:
    """Return the rule parameters the general kernels read (indices ``_R_*``), as int64."""
    rp = np.zeros(_NPARAMS, dtype=np.int64)
    rp[_R_SEATS] = rules.players
    rp[_R_HAND_SIZE] = rules.hand_size
    rp[_R_LEAD] = rules.lead_card
    rp[_R_DECL] = _DECL_CODES[rules.declaration]
    rp[_R_FORCED] = _FORCED_MASKS[rules.declaration]
    rp[_R_STRICT] = rules.strict_exposure
    rp[_R_MAY_LEAD] = rules.exposed_may_lead
    rp[_R_FREE_FIRST] = rules.first_lead == "any"
    rp[_R_TEAM] = rules.team_play
    rp[_R_PIG_SHEEP] = rules.pig_sheep_team
    rp[_R_AUTO] = rules.auto_expose
    rp[_R_ALL_HEARTS] = _HEART_TABLES[rules.hearts_table][1]
    rp[_R_SWAP] = rules.pig_sheep_swap
    rp[_R_SELF] = rules.self_capture_double
    rp[_R_FIRST_DRAWN] = rules.first_drawn_exposure
    rp[_R_COLOUR] = rules.discard_colour
    rp[_R_HIDDEN] = rules.hidden_exposure
    rp[_R_OFFSET] = _score_bound(rules)
    rp[_R_REWARD] = REWARD_CODES[reward_mode]
    return rp


def _obs_offsets(rules: Rules) -> np.ndarray:
    """Where each block of ``view.layout(rules)`` starts (indices ``_OB_*``; -1 if absent).

    Read from the reference layout, so the kernels write what ``PlayerView.encode`` does at
    every table size; the blocks the kernels do not write are refused here.
    """
    starts, at = {}, 0
    for name, shape, _ in layout(rules):
        starts[name] = at
        at += math.prod(shape)
    unknown = set(starts) - set(_OBS_BLOCKS) - {"phase"}
    if unknown or starts["phase"] != 0:
        raise RuntimeError(f"gongzhu_env.batch.one_deck does not write the observation blocks "
                           f"{sorted(unknown)} of {rules}")
    return np.array([starts.get(name, -1) for name in _OBS_BLOCKS], dtype=np.int64)


def _heart_sums_of(rules: Rules) -> np.ndarray:
    """Return the heart table's sums by 13-bit mask of hearts taken (``scoring``), as int64."""
    return np.array(_HEART_TABLES[rules.hearts_table][0], dtype=np.int64)


class OneDeckTables(GameBatch, decks=1):
    """The one-deck table layout of ``GameBatch`` (see the module docstring).

    Made by ``GameBatch(n, rules)`` for rules with one deck; ``reward_mode``,
    ``reward_scale`` and ``final_observations`` are those of ``GameBatch``.
    """

    _layout_name = "one_deck"
    _max_tables = MAX_TABLES
    _table_bytes = 2800
    _dealt_column = _DEALT
    _max_action = _DONE

    def _covered(self, rules: Rules | str | None) -> Rules:
        return check_covered(rules)

    def _obs_size(self) -> int:
        return obs_size(self.rules)

    def _build(self, num_tables: int) -> None:
        n, r = num_tables, self.rules
        seats = r.players
        self._decl = _DECL_CODES[r.declaration]
        self._rp = _rule_params(r, self.reward_mode)
        self._oo = _obs_offsets(r)
        self._heart_sums = _heart_sums_of(r)
        # The squashed scores in the observations' dtype: the kernels copy them as they are.
        self._squash = in_obs_dtype(_squash_for(int(self._rp[_R_OFFSET])), self.obs_dtype)
        self._cards = _cards_in_play(r)
        self._state = np.zeros((n, _ncol(seats)), dtype=np.int64)
        # Scratch of the shuffle.
        self._deck = np.zeros(len(self._cards) + 8, dtype=np.int64)
        self._final = self.final_observations is not None
        # (What each argument must be is the step kernel's signature.)
        self._step_fn: Any = None
        self._step_args: tuple[Any, ...] = ()
        self._stream = np.uint64(0)

    def _deal_first(self, seed: np.uint64) -> None:
        """Run the reset kernel of this batch's rules and build the step kernel's arguments."""
        seed_ = self._stream = seed
        final_obs = self.final_observations if self._final else \
            np.zeros((1, self.num_seats, self.obs_size), dtype=self.obs_dtype)
        _reset_kernel(self._state, seed_, self._rp, self._cards, self._deck,
                      self._heart_sums, self._squash, self._oo, self.observations,
                      self.action_masks, self.current_player)
        # Everything the step kernel takes after the actions, built once: a step then costs
        # the kernel call and the checks of the actions, and little else in Python.
        if tuple(int(x) for x in self._oo[:_BASE_BLOCKS]) != _base_offsets(self.num_seats):
            raise RuntimeError(f"the observation layout of {self.rules} does not start with "
                               f"the base blocks of {self.num_seats} seats; the step kernel "
                               f"writes them at fixed places")
        self._step_fn = _step_kernel_for(self.num_seats, _plain(self._rp))
        self._step_args = (
            seed_, self._rp, self.reward_scale, self._cards, self._deck, self._heart_sums,
            self._squash, self._oo, self.observations, self.action_masks, self.current_player,
            self.terminated, self.rewards, self.scores, self._final, final_obs)

    def _step_tables(self, actions: np.ndarray, active: np.ndarray) -> int:
        """Run the step kernel chosen at ``reset`` with the arguments built there."""
        return int(self._step_fn(self._state, actions, active, *self._step_args))

    def _sample(self, uniforms: np.ndarray, out: np.ndarray) -> int:
        """Run the sampling kernel (one for every table size: it reads the legal mask only)."""
        return int(_sample_kernel(self._state, uniforms, out))

    def _refresh(self) -> None:
        """Rewrite the outputs from the state rows with the kernel of this batch's layout."""
        _refresh_kernel(self._state, self._rp, self._heart_sums, self._squash, self._oo,
                        self.observations, self.action_masks, self.current_player)

    # ------------------------------------------------------------------ snapshot checks
    # (``GameBatch._check_snapshot`` checks the rows; these say where this layout keeps what.)
    def _row_columns(self) -> RowColumns:
        ns = self.num_seats

        def block(b: int) -> int:
            return _NSCALAR + b * ns

        return RowColumns(
            names=_column_names(ns)[:self._state.shape[1]], phase=_PHASE, cur=_CUR,
            first=_FIRST, turns=_TURNS, tlen=_TLEN, tlead=_TLEAD, led=_LED, sled=_SLED,
            done=_NTR, expall=_EXPALL, expall2=-1, legal=_LEGAL, trick=block(_B_TRICK),
            trick_width=ns, hand=block(_B_HAND), hand2=-1, played=block(_B_PLAYED), played2=-1,
            exposed=block(_B_EXPOSED), exposed2=-1, capt=block(_B_CAPT), capt2=-1,
            deal=block(_B_DEAL), deal2=-1, voids=block(_B_VOIDS), prov=block(_B_PROV))

    def _snapshot_ranges(self) -> list[tuple[int, int, int, int, str]]:
        ns, rules = self.num_seats, self.rules
        c = self._row_columns()
        free = self._decl == _DECL_FREE
        deck = rules.deck_mask
        offset = int(self._rp[_R_OFFSET])
        out = [(_PHASE, 1, 0 if free else _PLAY, _PLAY,
                "0 (declaring) or 1 (playing)" if free else
                "1 (playing): these rules have no declaration phase")]
        out += [(column, 1, 0, ns - 1, f"a seat, 0..{ns - 1}")
                for column in (_CUR, _FIRST, _TLEAD)]
        out += [
            (_TURNS, 1, 0, ns, f"0..{ns}"),
            (_TLEN, 1, 0, ns - 1, f"0..{ns - 1} (a full trick is taken at once)"),
            (_LED, 1, -1, 3, "a suit 0..3, or -1 between tricks"),
            (_SLED, 1, 0, 15, "a mask of the four suits, 0..15"),
            (_NTR, 1, 0, rules.hand_size - 1,
             f"0..{rules.hand_size - 1} (the last trick ends the hand)"),
            (_EXPALL, 1, 0, _FULL_DECK, "a mask of the 52 cards"),
            (_LEGAL, 1, 0, (1 << NUM_ACTIONS) - 1, "a mask of the 53 actions"),
            (_DEALT, 1, 1, 1 << 62, "1 (reset deals the first hand) to 2**62 (far more hands "
             "than a batch plays, and room to count on without overflow)")]
        wrong = int(_xcol(_WRONG, ns))
        out.append((wrong, 1, -1, ns - 1 if rules.discard_colour else -1,
                    f"-1, or a seat 0..{ns - 1} under discard_colour"))
        out.append((c.trick, ns, 0, 51, "a card, 0..51"))
        out += [(b, ns, 0, deck, "a mask of the cards in play")
                for b in (c.hand, c.played, c.exposed, c.capt, c.deal)]
        out.append((int(_col(_B_FIRST, ns)), ns, 0, 51, "a card, 0..51"))
        out += [(c.voids, ns, 0, 15, "a mask of the four suits, 0..15"),
                (c.prov, ns, -offset, offset, f"a hand score within -{offset}..{offset}")]
        return out

    def _trick_plays(self, snap: np.ndarray) -> TrickPlays:
        ns = self.num_seats
        tlen, tlead, ntr = snap[:, _TLEN], snap[:, _TLEAD], snap[:, _NTR]
        k = np.arange(ns)[None, :]
        return TrickPlays(plays=tlen, owner=(tlead[:, None] + k) % ns, live=k < tlen[:, None],
                          held=(((k - tlead[:, None]) % ns) < tlen[:, None]).astype(np.int64),
                          finished=ntr, tricks=ntr)

    def _forced_exposures(self) -> int | None:
        return None if self._decl == _DECL_FREE else _FORCED_MASKS[self.rules.declaration]

    def _check_layout(self, snap: np.ndarray, need: Callable[[np.ndarray, int, str], None],
                      counts: Callable[[int], np.ndarray]) -> None:
        """Check the one-deck rules' own columns.

        Auto-exposure, the wrong-colour discarder, the first dealt cards and the exposures
        they double or leave restricting play.
        """
        ns, rules = self.num_seats, self.rules
        c = self._row_columns()
        phase, expall = snap[:, _PHASE], snap[:, _EXPALL]
        if rules.auto_expose and self._decl == _DECL_FREE:
            need((phase == _DECLARE) | (_bit_counts(_EXPOSABLE_MASK & ~expall) != 1), _EXPALL,
                 "never all exposable cards but one once the play has begun (the last one is "
                 "exposed automatically)")
        wrong, first0 = int(_xcol(_WRONG, ns)), int(_col(_B_FIRST, ns))
        doubled_col, restr_col = int(_xcol(_DOUBLED, ns)), int(_xcol(_RESTR, ns))
        need((snap[:, _TLEN] > 0) | (snap[:, wrong] == -1), wrong, "-1 between tricks")
        deal = snap[:, c.deal:c.deal + ns]
        exposed = snap[:, c.exposed:c.exposed + ns]
        firsts = snap[:, first0:first0 + ns]
        need((deal >> firsts) & 1 == 1, first0, "a card of the seat's deal")
        # Which exposures are doubled and which restrict play follow from the rest.
        doubled = np.bitwise_or.reduce(exposed & (np.int64(1) << firsts), axis=1) \
            if rules.first_drawn_exposure else 0 * expall
        need(snap[:, doubled_col] == doubled, doubled_col,
             "the exposed cards that were their holder's first dealt card")
        restr = 0 * expall if rules.hidden_exposure else expall & ~doubled
        need(snap[:, restr_col] == restr, restr_col,
             "the exposed cards under the play restriction")

    def _derived(self, snap: np.ndarray) -> list[tuple[int, np.ndarray, str]]:
        n, ns = len(snap), self.num_seats
        legal = np.zeros(n, dtype=np.int64)
        score = np.zeros((n, ns), dtype=np.int64)
        _derived_kernel(snap, self._rp, self._heart_sums, legal, score)
        prov = int(_col(_B_PROV, ns))
        return [(_LEGAL, snap[:, _LEGAL] == legal,
                 "the legal actions of the seat to move under these rules"),
                (prov, snap[:, prov:prov + ns] == score, "the score of the seat's captured cards")]

    def _illegal(self, table: int, action: int) -> IllegalActionError:
        st = self._state[table]
        legal = int(st[_LEGAL])
        names = [card_str(c) for c in range(52) if legal >> c & 1]
        if legal >> _DONE & 1:
            names.append("DONE")
        phase = "declare" if st[_PHASE] == _DECLARE else "play"
        what = (f"{card_str(action)} ({action})" if 0 <= action < 52 else
                "DONE (52)" if action == _DONE else
                f"({action}), not an action (0..51 a card, 52 DONE),")
        return IllegalActionError(
            f"table {table}: {what} is not legal for seat {int(st[_CUR])} in the {phase} phase; "
            f"legal actions: [{', '.join(names)}]; no table was changed")

    # ------------------------------------------------------------------ reading tables
    def _deal_in(self, row: np.ndarray) -> tuple[tuple[int, ...], ...]:
        """Return the hands of a row's deal block, one sorted tuple of cards a seat."""
        deal0 = _col(_B_DEAL, self.num_seats)
        return tuple(tuple(c for c in range(52) if int(m) >> c & 1)
                     for m in row[deal0:deal0 + self.num_seats])

    def _legal_in(self, row: np.ndarray) -> list[int]:
        """Return the actions of a row's legal mask (cards, then DONE)."""
        legal = int(row[_LEGAL])
        return [a for a in range(NUM_ACTIONS) if legal >> a & 1]

    def first_drawn_of(self, table: int) -> tuple[int, ...]:
        """Return the first card dealt to each seat in ``table``'s hand in progress.

        What ``first_drawn_exposure`` reads (``Game.from_hands(..., first_drawn=)``): the
        first card of each seat's block of the shuffled deck.
        """
        self.hands_started(table)  # checks the batch was reset and the table
        t = operator.index(table)
        first0 = _col(_B_FIRST, self.num_seats)
        return tuple(int(c) for c in self._state[t, first0:first0 + self.num_seats])
