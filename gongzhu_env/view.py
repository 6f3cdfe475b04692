"""``PlayerView``: everything one seat may know about a hand, and nothing more.

A view is the only thing an agent ever sees. Rule-based agents read its fields; neural agents
read ``view.encode()``, the flat observation vector. Both come from the same object, so they see
the same facts. A view holds copies of the public state and of its own seat's hand; it keeps no
reference to the ``Game`` and so cannot reach another seat's cards.

Observation layout
------------------
``encode()`` returns a ``float32`` vector of ``OBS_SIZE`` values in ``[0, 1]``. Seats are
*relative to the observer*: 0 = self, 1 = next to play after self, 2 = across, 3 = previous.
Card blocks use the canonical card index (``gongzhu_env.cards``). Exposable order is
SQ, DJ, C10, HA; scoring-card order is H2..HA, SQ, DJ, C10.

=================  ======  ===========================================================
name               size    meaning
=================  ======  ===========================================================
phase              3       one-hot: declare, play, over
hand               52      cards in the observer's hand
to_move            4       relative seat to act (all zero once the hand is over)
trick_leader       4       relative seat that led the trick in progress (zero if none)
trick_cards        4 x 52  card each relative seat has played to the trick in progress
played             4 x 52  every card each relative seat has played this hand
exposed            4 x 4   exposable cards each relative seat exposed
captured           4 x 16  scoring cards each relative seat has taken
voids              4 x 4   suits (C, D, H, S) each relative seat has shown to be out of
declared           4       relative seats whose declaration turn is over
first_leader       4       relative seat that declared first and led the first trick
trick_number       13      one-hot index of the trick in progress (zero once over)
scores             4       provisional score of each relative seat, 0.5 + 0.5 tanh(s / 400)
=================  ======  ===========================================================

``SLICES[name]`` is the slice of each block; ``decode(vector)`` splits a vector back into named,
reshaped blocks.

Variant blocks
--------------
The table above is the whole observation of the standard rules and of every rule set that
makes nothing new public (``OBS_SIZE`` = 600). Rule sets and match episodes that do make
something public append blocks after ``scores``, in this order, each only when it applies
(``layout(rules, match)`` gives the table, ``obs_size(rules, match)`` its size):

=================  ======  ===========================================  =====================
name               size    meaning                                      when
=================  ======  ===========================================  =====================
partners           4       relative seats on the observer's team        team_play,
                           (the observer excluded)                      pig_sheep_team
exposed_count      4       how many cards each relative seat exposed,   hidden_exposure
                           divided by 4
first_drawn        52      the observer's own first dealt card          first_drawn_exposure
doubled            4       exposed cards (SQ DJ C10 HA) doubled again   first_drawn_exposure
                           as their holder's first dealt card
match_scores       4       cumulative raw score of each relative seat   match episodes
                           before this hand, 0.5 + 0.5 tanh(s / 1000)
hand_number        1       hands already played in the match, n/(n+10)  match episodes
=================  ======  ===========================================  =====================

So: ``"scrofazero"`` 604, hidden exposure 604, first-drawn exposure 656, a standard match
605, a ``"scrofazero"`` match 609; ``"standard"``, ``"huapai"``, ``"online"``,
``"all_but_sheep"`` 600.

Two decks (``decks=2``) keep every block above for the cards held, played, exposed or taken
at least once, count tricks in ``trick_number`` by the pairs of cards each seat has played
(0..12), squash scores as ``0.5 + 0.5 tanh(s / 1600)`` (two-deck scores run four times
wider), and append, before any other variant block, what the second copies add:

=================  ======  ===========================================================
name               size    meaning
=================  ======  ===========================================================
hand_twice         52      cards the observer holds twice
trick_twice        4 x 52  card each relative seat played twice to the trick in progress
played_twice       4 x 52  cards each relative seat has played both copies of
exposed_twice      4 x 4   exposable cards each relative seat exposed both copies of
captured_twice     4 x 16  scoring cards each relative seat has taken both copies of
pair_lead          1       the trick in progress was led with a pair
=================  ======  ===========================================================

``"two_decks"`` (team play) is 1153 values; its action mask has 105 entries.

Under ``hidden_exposure`` another seat's exposed cards are not in ``exposed_masks`` (nor in the
``exposed`` block): only their number is (``exposed_counts``), its exposure actions appear in
``actions`` as ``HIDDEN_ACTION`` (-1), and the provisional ``scores`` count only the
exposures the observer knows (its own).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from gongzhu_env.cards import (
    C10,
    DJ,
    DONE,
    EXPOSABLE,
    HA,
    NUM_ACTIONS,
    NUM_CARDS,
    SQ,
    actions_of,
    multiset_cards,
)
from gongzhu_env.html import view_html
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import score_masks
from gongzhu_env.state import PHASES, GameState, SeatView

Layout = tuple[tuple[str, tuple[int, ...], str], ...]


def _base_layout(seats: int, tricks: int) -> Layout:
    """Return (name, shape, meaning) in vector order for a table of ``seats`` seats.

    The single description of the base layout (``LAYOUT`` is the one of four seats);
    ``tricks`` is the number of tricks of a hand.
    """
    n = seats
    return (
        ("phase", (3,), "one-hot: declare, play, over"),
        ("hand", (52,), "cards in the observer's hand"),
        ("to_move", (n,), "relative seat to act"),
        ("trick_leader", (n,), "relative seat that led the trick in progress"),
        ("trick_cards", (n, 52), "card each relative seat played to the trick in progress"),
        ("played", (n, 52), "every card each relative seat has played this hand"),
        ("exposed", (n, 4), "exposable cards (SQ DJ C10 HA) each relative seat exposed"),
        ("captured", (n, 16), "scoring cards (H2..HA SQ DJ C10) each relative seat has taken"),
        ("voids", (n, 4), "suits (C D H S) each relative seat has shown to be out of"),
        ("declared", (n,), "relative seats whose declaration turn is over"),
        ("first_leader", (n,), "relative seat that declared first and led the first trick"),
        ("trick_number", (tricks,), "one-hot index of the trick in progress"),
        ("scores", (n,), "provisional score of each relative seat, 0.5 + 0.5 tanh(s / 400)"),
    )


LAYOUT: Layout = _base_layout(4, 13)


def _slices(blocks: Layout = LAYOUT) -> dict[str, slice]:
    out, start = {}, 0
    for name, shape, _ in blocks:
        size = math.prod(shape)
        out[name] = slice(start, start + size)
        start += size
    return out


SLICES: dict[str, slice] = _slices()
OBS_SIZE: int = SLICES["scores"].stop
_NUM_BITS = SLICES["scores"].start  # every block before the scores is 0/1
_O: dict[str, int] = {name: s.start for name, s in SLICES.items()}
_SCORE_SCALE = 400.0
# Hot-path constants for encode(): block offsets, lookup tables and seat orders.
_NUM_BYTES = (_NUM_BITS + 7) // 8
_OBS_MASK_BYTES = (OBS_SIZE + NUM_CARDS + 1 + 7) // 8
_HAND, _TO_MOVE, _TRICK_LEADER, _TRICK_CARDS, _PLAYED, _EXPOSED, _CAPTURED, _VOIDS = (
    _O["hand"], _O["to_move"], _O["trick_leader"], _O["trick_cards"], _O["played"],
    _O["exposed"], _O["captured"], _O["voids"])
_DECLARED_OFF, _FIRST_LEADER, _TRICK_NUMBER = _O["declared"], _O["first_leader"], _O["trick_number"]
_PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}
_ORDER = tuple(tuple((me + r) & 3 for r in range(4)) for me in range(4))
"""``_ORDER[me][r]``: the absolute seat at relative position ``r`` from observer ``me``."""
_SQUASHED: dict[float, float] = {}
HIDDEN_ACTION = -1
"""Stands in ``PlayerView.actions`` for another seat's hidden exposure (``hidden_exposure``)."""

# Variant blocks appended after the scores: (name, shape, meaning).
_EXTRA_BLOCKS: dict[str, tuple[tuple[int, ...], str]] = {
    "partners": ((4,), "relative seats on the observer's team (the observer excluded)"),
    "exposed_count": ((4,), "how many cards each relative seat exposed, / 4"),
    "first_drawn": ((52,), "the observer's own first dealt card"),
    "doubled": ((4,), "exposed cards (SQ DJ C10 HA) doubled again as a first dealt card"),
    "hand_twice": ((52,), "cards the observer holds twice (two decks)"),
    "trick_twice": ((4, 52), "card each relative seat played twice to the trick in progress"),
    "played_twice": ((4, 52), "cards each relative seat has played both copies of"),
    "exposed_twice": ((4, 4), "exposable cards each relative seat exposed both copies of"),
    "captured_twice": ((4, 16), "scoring cards each relative seat has taken both copies of"),
    "pair_lead": ((1,), "the trick in progress was led with a pair"),
    "match_scores": ((4,), "cumulative raw score of each relative seat, 0.5 + 0.5 tanh(s/1000)"),
    "hand_number": ((1,), "hands already played in the match, n / (n + 10)"),
}
_SEAT_BLOCKS = ("partners", "exposed_count", "match_scores")
"""Variant blocks with one value per relative seat (four at a table of four)."""
_EXTRAS: dict[tuple[Rules, bool], tuple[str, ...]] = {}
_TWO_DECK_BLOCKS = ("hand_twice", "trick_twice", "played_twice", "exposed_twice",
                    "captured_twice", "pair_lead")
_COPY_BLOCKS = {1: (), 2: _TWO_DECK_BLOCKS}
"""The blocks of the second copies, by deck count (none with one deck)."""
_SCORE_DIVISORS = {1: 1, 2: 4}
"""Two-deck scores run four times wider; the view squashes ``s / 4`` (``tanh(s / 1600)``)."""


def _extra_names(rules: Rules, match: bool) -> tuple[str, ...]:
    """Names of the variant blocks that ``rules`` (in a match or not) appends, memoised."""
    key = (rules, match)
    names = _EXTRAS.get(key)
    if names is None:
        out = []
        out += list(_COPY_BLOCKS[rules.decks])
        if rules.has_teams:
            out.append("partners")
        if rules.hidden_exposure:
            out.append("exposed_count")
        if rules.first_drawn_exposure:
            out += ["first_drawn", "doubled"]
        if match:
            out += ["match_scores", "hand_number"]
        names = _EXTRAS[key] = tuple(out)
    return names


def _extra_block(name: str, seats: int) -> tuple[str, tuple[int, ...], str]:
    shape, meaning = _EXTRA_BLOCKS[name]
    return name, ((seats,) if name in _SEAT_BLOCKS else shape), meaning


def layout(rules: Rules | str | None = None, match: bool = False) -> Layout:
    """Return the observation layout of a rule set.

    The base layout of its table size (``LAYOUT`` at four seats) plus the variant blocks it
    needs.
    """
    rules = Rules.coerce(rules)
    n = rules.players
    base = LAYOUT if n == 4 else _base_layout(n, rules.hand_size)
    return base + tuple(_extra_block(name, n) for name in _extra_names(rules, match))


def obs_size(rules: Rules | str | None = None, match: bool = False) -> int:
    """Length of the observation vector for a rule set (``OBS_SIZE`` for the standard one)."""
    return sum(math.prod(shape) for _, shape, _ in layout(rules, match))


_SCORE_ROWS: dict[tuple[float, ...], tuple[np.ndarray, ...]] = {}


class _Table(NamedTuple):
    """Where the base blocks of a table of ``seats`` seats lie (the other sizes' ``_O``)."""

    seats: int
    offsets: dict[str, int]
    num_bits: int
    size: int
    order: tuple[tuple[int, ...], ...]


_TABLES: dict[int, _Table] = {}


def _table(seats: int) -> _Table:
    t = _TABLES.get(seats)
    if t is None:
        sl = _slices(_base_layout(seats, NUM_CARDS // seats))
        t = _TABLES[seats] = _Table(
            seats, {name: v.start for name, v in sl.items()}, sl["scores"].start,
            sl["scores"].stop,
            tuple(tuple((me + r) % seats for r in range(seats)) for me in range(seats)))
    return t


def decode(vector: np.ndarray, rules: Rules | str | None = None,
           match: bool = False) -> dict[str, np.ndarray]:
    """Split an observation vector into its named blocks, each reshaped to its layout shape.

    ``rules`` and ``match`` select the layout of a variant rule set (see ``layout``).
    """
    vector = np.asarray(vector)
    blocks = layout(rules, match)
    size = sum(math.prod(shape) for _, shape, _ in blocks)
    if vector.shape != (size,):
        raise ValueError(f"expected an observation of shape ({size},), got {vector.shape}")
    out, start = {}, 0
    for name, shape, _ in blocks:
        n = math.prod(shape)
        out[name] = vector[start:start + n].reshape(shape)
        start += n
    return out


def _mask_row(mask: int, width: int = NUM_CARDS) -> np.ndarray:
    """Return the low ``width`` bits of ``mask`` as a float32 0/1 row."""
    return np.unpackbits(np.frombuffer(mask.to_bytes(7, "little"), dtype=np.uint8),
                         count=width, bitorder="little").astype(np.float32)


def _exposable_bits(m: int) -> int:
    """Project a card mask onto 4 bits in EXPOSABLE order (SQ, DJ, C10, HA)."""
    return (m >> SQ & 1) | (m >> DJ & 1) << 1 | (m >> C10 & 1) << 2 | (m >> HA & 1) << 3


def _scoring_bits(m: int) -> int:
    """Project a card mask onto 16 bits: H2..HA, SQ, DJ, C10."""
    return (m >> 26 & 0x1FFF) | (m >> SQ & 1) << 13 | (m >> DJ & 1) << 14 | (m >> C10 & 1) << 15


# An exposed mask only ever holds exposable cards, so these 16 projections cover every case.
_EXPOSABLE_BITS = {m: _exposable_bits(m) for m in (
    sum(1 << c for i, c in enumerate(EXPOSABLE) if k >> i & 1) for k in range(16))}
# Captured cards beyond the hearts (SQ, DJ, C10): 8 combinations, each projected once.
_EXTRA_MASK = (1 << SQ) | (1 << DJ) | (1 << C10)
_SCORING_EXTRA = {m: _scoring_bits(m) for m in (
    sum(1 << c for i, c in enumerate((SQ, DJ, C10)) if k >> i & 1) for k in range(8))}


def _squash(score: float) -> float:
    """``0.5 + 0.5 tanh(score / 400)``, memoised: a hand has only a few hundred distinct scores."""
    v = _SQUASHED.get(score)
    if v is None:
        v = _SQUASHED[score] = 0.5 + 0.5 * math.tanh(score / _SCORE_SCALE)
    return v


def _score_row(me: int, scores: tuple[float, ...] | list[int]) -> np.ndarray:
    """Return the squashed provisional scores by relative seat, as a cached float32 row.

    Scores change only when scoring cards are taken, so the same few rows recur all hand long;
    the four observers' rotations of one set of scores are cached together.
    """
    rows = _SCORE_ROWS.get(tuple(scores))
    if rows is None:
        if len(_SCORE_ROWS) > 50_000:  # bound the memory of a very long run
            _SCORE_ROWS.clear()
        squashed = [_squash(v) for v in scores]
        rows = _SCORE_ROWS[tuple(scores)] = tuple(
            np.array([squashed[s] for s in _ORDER[seat]], dtype=np.float32) for seat in range(4))
    return rows[me]


def _obs_bits(me: int, phase: int, current: int, hand: int, lead: int,
              trick: tuple[int, ...] | list[int], n_tricks: int,
              played: tuple[int, ...] | list[int], exposed: tuple[int, ...] | list[int],
              captured: tuple[int, ...] | list[int], voids: tuple[int, ...] | list[int],
              declared: int, first_leader: int, pair: bool = False) -> int:
    """Every 0/1 block of ``me``'s observation as one integer (bit ``i`` is element ``i``).

    The single implementation of the layout's 0/1 blocks: ``PlayerView.encode`` and
    ``encode_observation`` call it. Per-seat lists are by absolute seat; ``phase`` is 0, 1, 2 for
    declare, play, over. Blocks that are still empty (no exposure, capture or void yet) are
    skipped, which is most of them early in a hand. ``pair`` (two decks): the trick was led with a
    pair, so every seat plays two cards to it.
    """
    s0, s1, s2, s3 = _ORDER[me]
    x = (1 << phase | hand << _HAND
         | (played[s0] | played[s1] << 52 | played[s2] << 104 | played[s3] << 156) << _PLAYED
         | 1 << (_FIRST_LEADER + ((first_leader - me) & 3)))
    if phase != 2:
        x |= 1 << (_TO_MOVE + ((current - me) & 3)) | 1 << (_TRICK_NUMBER + n_tricks)
    if trick:
        x |= 1 << (_TRICK_LEADER + ((lead - me) & 3))
        if pair:
            # Cards 2i and 2i + 1 are the play of the i-th seat from the leader.
            for i, c in enumerate(trick):
                x |= 1 << (_TRICK_CARDS + 52 * ((lead - me + (i >> 1)) & 3) + c)
        else:
            base = _TRICK_CARDS + 52 * ((lead - me) & 3)
            for c in trick:
                x |= 1 << (base + c)
                base += 52
                if base >= _PLAYED:  # wrap from relative seat 3 back to seat 0
                    base -= 208
    if exposed[0] | exposed[1] | exposed[2] | exposed[3]:
        e = _EXPOSABLE_BITS
        x |= (e[exposed[s0]] | e[exposed[s1]] << 4 | e[exposed[s2]] << 8
              | e[exposed[s3]] << 12) << _EXPOSED
    if captured[0] | captured[1] | captured[2] | captured[3]:
        se, em = _SCORING_EXTRA, _EXTRA_MASK
        c0, c1, c2, c3 = captured[s0], captured[s1], captured[s2], captured[s3]
        x |= ((c0 >> 26 & 0x1FFF | se[c0 & em]) | (c1 >> 26 & 0x1FFF | se[c1 & em]) << 16
              | (c2 >> 26 & 0x1FFF | se[c2 & em]) << 32
              | (c3 >> 26 & 0x1FFF | se[c3 & em]) << 48) << _CAPTURED
    if voids[0] | voids[1] | voids[2] | voids[3]:
        x |= (voids[s0] | voids[s1] << 4 | voids[s2] << 8 | voids[s3] << 12) << _VOIDS
    if declared:
        # Rotate the 4-bit seat mask so that bit r is relative seat r.
        x |= ((declared | declared << 4) >> me & 15) << _DECLARED_OFF
    return x


def _obs_bits_table(t: _Table, me: int, phase: int, current: int, hand: int, lead: int,
                    trick: tuple[int, ...] | list[int], n_tricks: int,
                    played: tuple[int, ...] | list[int], exposed: tuple[int, ...] | list[int],
                    captured: tuple[int, ...] | list[int], voids: tuple[int, ...] | list[int],
                    declared: int, first_leader: int) -> int:
    """``_obs_bits`` for a table of any size ``t.seats`` (one deck), a loop over the seats.

    ``_obs_bits`` is this, unrolled for four seats (the hot path of every standard rollout);
    a test holds the two to the same vector at four seats.
    """
    n, o = t.seats, t.offsets
    x = (1 << phase | hand << o["hand"]
         | 1 << (o["first_leader"] + (first_leader - me) % n))
    if phase != 2:
        x |= 1 << (o["to_move"] + (current - me) % n) | 1 << (o["trick_number"] + n_tricks)
    if trick:
        x |= 1 << (o["trick_leader"] + (lead - me) % n)
        for i, c in enumerate(trick):
            x |= 1 << (o["trick_cards"] + 52 * ((lead - me + i) % n) + c)
    po, eo, co, vo, do = o["played"], o["exposed"], o["captured"], o["voids"], o["declared"]
    for r, s in enumerate(t.order[me]):
        x |= played[s] << (po + 52 * r) | voids[s] << (vo + 4 * r)
        if exposed[s]:
            x |= _EXPOSABLE_BITS[exposed[s]] << (eo + 4 * r)
        c = captured[s]
        if c:
            x |= (c >> 26 & 0x1FFF | _SCORING_EXTRA[c & _EXTRA_MASK]) << (co + 16 * r)
        if declared >> s & 1:
            x |= 1 << (do + r)
    return x


def _unpack(x: int, legal: int, scores: np.ndarray, num_actions: int = NUM_ACTIONS,
            size: int = OBS_SIZE, num_bits: int = _NUM_BITS) -> tuple[np.ndarray, np.ndarray]:
    """Unpack the observation vector and action mask from their bits in one numpy call.

    ``size`` and ``num_bits`` are the base layout's length and its 0/1 part (those of four
    seats by default).
    """
    nbytes = _OBS_MASK_BYTES if num_actions == NUM_ACTIONS and size == OBS_SIZE else \
        (size + num_actions + 7) // 8
    bits = np.unpackbits(
        np.frombuffer((x | legal << size).to_bytes(nbytes, "little"), dtype=np.uint8),
        count=size + num_actions, bitorder="little",
    )
    out = bits[:size].astype(np.float32)
    out[num_bits:] = scores
    return out, bits[size:].view(np.int8)


class MatchContext(NamedTuple):
    """What a match adds to the view of one of its hands (``gongzhu_env.match.Match``)."""

    scores: tuple[int, ...]
    """Cumulative raw score of each seat before this hand."""
    hand_number: int
    """Hands already played before this one."""
    result: tuple[tuple[int, ...], tuple[int, ...]] | None
    """``(winners, losers)`` once the match is over, else ``None``."""


def encode_observation(me: int, phase: int, current: int, hand: int, lead: int,
                       trick: tuple[int, ...] | list[int], n_tricks: int,
                       played: tuple[int, ...] | list[int], exposed: tuple[int, ...] | list[int],
                       captured: tuple[int, ...] | list[int], voids: tuple[int, ...] | list[int],
                       declared: int, first_leader: int, legal: int,
                       scores: tuple[int, ...] | list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Encode a standard-rules observation and action mask from the facts a view holds.

    ``Game.observation`` calls this with its own state at every env step, so that the hot
    path builds no ``PlayerView``; ``PlayerView.observation`` encodes the same facts with the
    same ``_obs_bits``, and a test holds the two together. Arguments are as in ``_obs_bits``,
    plus ``me``'s legal mask (0 off turn) and the provisional scores by absolute seat.
    """
    return _unpack(
        _obs_bits(me, phase, current, hand, lead, trick, n_tricks, played, exposed, captured,
                  voids, declared, first_leader),
        legal, _score_row(me, scores))


class PlayerView(SeatView):
    """What one seat knows. Seat-indexed fields are by absolute seat (0..3).

    Attributes hold plain ints, tuples and the rules; card sets are available both as sorted
    tuples (``hand``, ``exposed``, ``captured``) and as 52-bit masks (``*_mask``) for speed.
    The fields every renderer reads are declared on ``SeatView`` (``gongzhu_env.state``);
    the rest are declared here.
    """

    __slots__ = (
        "seat", "rules", "phase", "current_player", "first_leader", "hand_mask",
        "legal_mask", "trick_leader", "current_trick", "tricks", "exposed_masks",
        "captured_masks", "played_masks", "void_masks", "declared_seats", "actions",
        "scores", "exposed_counts", "first_drawn", "doubled_mask", "teams", "partners",
        "match_scores", "hand_number", "match_result", "hand_pair_mask", "exposed_pair_masks",
        "captured_pair_masks", "played_pair_masks", "pair_lead",
    )

    rules: Rules
    first_leader: int
    void_masks: tuple[int, ...]
    declared_seats: int
    actions: tuple[int, ...]
    first_drawn: int | None
    """The observer's own first dealt card (``first_drawn_exposure`` only), else ``None``."""
    doubled_mask: int
    """Exposed cards doubled again as their holder's first dealt card (public)."""
    teams: tuple[tuple[int, ...], ...] | None
    """The teams of this hand (team rules), else ``None``."""
    partners: tuple[int, ...]
    """The observer's partners (empty without teams)."""
    match_scores: tuple[int, ...] | None
    """In a match: cumulative raw scores before this hand; ``None`` for a single hand."""
    hand_number: int
    """In a match: hands already played before this one (0 for the first or a single hand)."""
    match_result: tuple[tuple[int, ...], tuple[int, ...]] | None
    """In a finished match: ``(winners, losers)``; else ``None``."""
    hand_pair_mask: int
    """Two decks: the observer's cards held twice (``hand_mask`` has every card held)."""
    exposed_pair_masks: tuple[int, ...]
    """Two decks: cards each seat exposed both copies of (0 with one deck)."""
    captured_pair_masks: tuple[int, ...]
    """Two decks: scoring cards each seat took both copies of."""
    played_pair_masks: tuple[int, ...]
    """Two decks: cards each seat played both copies of."""
    pair_lead: bool
    """Two decks: the trick in progress was led with a pair."""

    @classmethod
    def from_game(cls, game: GameState, seat: int, match: MatchContext | None = None
                  ) -> PlayerView:
        """Copy out of ``game`` what ``seat`` may see (and ``match``, the hand's match)."""
        rules = game.rules
        n = rules.players
        if type(seat) is not int or not 0 <= seat < n:
            if isinstance(seat, np.integer) and 0 <= seat < n:
                seat = int(seat)
            else:
                raise ValueError(f"seat must be 0..{n - 1}, got {seat!r}")
        v = cls.__new__(cls)
        v.seat = seat
        v.rules = rules
        v.phase = game.phase
        current = v.current_player = game.current_player
        v.first_leader = game.first_leader
        v.hand_mask = game.hand_masks[seat]
        v.legal_mask = game.legal_mask() if current == seat else 0
        v.trick_leader = game.trick_leader
        v.current_trick = game.trick_cards
        v.tricks = game.tricks
        ex = v.exposed_masks = game.exposed_masks
        v.captured_masks = game.captured_masks
        v.played_masks = game.played_masks
        v.void_masks = game.void_masks
        v.declared_seats = game.declared_seats
        v.actions = game.actions
        v.scores = tuple(game.provisional_scores())
        v.exposed_counts = (ex[0].bit_count(), ex[1].bit_count(), ex[2].bit_count(),
                            ex[3].bit_count()) if n == 4 else tuple(m.bit_count() for m in ex)
        v.doubled_mask = game.doubled_mask
        teams = v.teams = game.teams
        v.partners = () if teams is None else game.partners(seat)
        if match is None:
            v.match_scores, v.hand_number, v.match_result = None, 0, None
        else:
            v.match_scores, v.hand_number, v.match_result = match
        first = game.first_drawn
        v.first_drawn = None if first is None else first[seat]
        # The second copies (all empty with one deck, where the engine hands out one shared
        # tuple of zeros, so reading them costs next to nothing).
        v.hand_pair_mask = game.hand_pair_masks[seat]
        v.exposed_pair_masks = game.exposed_pair_masks
        v.captured_pair_masks = game.captured_pair_masks
        v.played_pair_masks = game.played_pair_masks
        v.pair_lead = game.pair_lead
        if rules.hidden_exposure:
            v._hide_exposures()
        return v

    def _hide_exposures(self) -> None:
        """Hide which cards the other seats exposed: counts stay, cards and actions do not."""
        seat = self.seat
        own = self.exposed_masks[seat]
        # (Annotated here too: mypy cannot infer a slot of a protocol base reassigned from itself.)
        self.exposed_masks: tuple[int, ...] = tuple(
            m if s == seat else 0 for s, m in enumerate(self.exposed_masks))
        self.doubled_mask &= own
        actions = list(self.actions)
        # Walk the declaration phase: a card is an exposure by the seat whose turn it is.
        turn, i = self.first_leader, 0
        done, n = 0, self.rules.players
        while i < len(actions) and done < n:
            a = actions[i]
            if a == DONE:
                done += 1
                turn = (turn + 1) % n
            elif turn != seat:
                actions[i] = HIDDEN_ACTION
            i += 1
        self.actions = tuple(actions)
        rules = self.rules
        self.scores = tuple(
            score_masks(c, own, rules, own_exposed=own if s == seat else 0,
                        doubled=self.doubled_mask)
            for s, c in enumerate(self.captured_masks))

    # ------------------------------------------------------------------ readable fields
    @property
    def hand(self) -> tuple[int, ...]:
        """The observer's cards, sorted; with two decks a card held twice appears twice."""
        return multiset_cards(self.hand_mask, self.hand_pair_mask)

    @property
    def legal_actions(self) -> list[int]:
        """The observer's legal actions (empty when it is not the observer's turn).

        Two decks: ``52 + k`` leads the pair of card ``k`` and DONE is 104.
        """
        return actions_of(self.legal_mask, self.rules.decks)

    @property
    def exposed(self) -> tuple[tuple[int, ...], ...]:
        """Cards each seat exposed (two decks: a card twice if both copies were exposed)."""
        return tuple(multiset_cards(m, m2) for m, m2 in
                     zip(self.exposed_masks, self.exposed_pair_masks, strict=True))

    @property
    def exposed_all(self) -> int:
        """Mask of every exposed card at the table."""
        out = 0
        for m in self.exposed_masks:
            out |= m
        return out

    @property
    def captured(self) -> tuple[tuple[int, ...], ...]:
        """Scoring cards each seat has taken (two decks: a card twice if both were taken)."""
        return tuple(multiset_cards(m, m2) for m, m2 in
                     zip(self.captured_masks, self.captured_pair_masks, strict=True))

    @property
    def voids(self) -> tuple[frozenset[int], ...]:
        """Suits each seat has shown to be out of."""
        return tuple(frozenset(s for s in range(4) if v >> s & 1) for v in self.void_masks)

    @property
    def played_mask(self) -> int:
        """Every card played so far this hand (completed tricks and the trick in progress)."""
        p = self.played_masks
        if len(p) == 4:
            return p[0] | p[1] | p[2] | p[3]
        out = 0
        for m in p:
            out |= m
        return out

    @property
    def unseen_mask(self) -> int:
        """Cards in play the observer has not seen: neither in its hand nor played.

        A card removed from the deck at another table size is in nobody's hand.
        """
        return self.rules.deck_mask & ~self.hand_mask & ~self.played_mask

    @property
    def led_suit(self) -> int | None:
        """Suit of the trick in progress, or ``None`` when the observer is to lead."""
        return self.current_trick[0] // 13 if self.current_trick else None

    def relative(self, seat: int) -> int:
        """Relative position of an absolute seat: 0 self, 1 next, 2 across, 3 previous.

        At other table sizes: the number of turns from the observer to that seat.
        """
        return (seat - self.seat) % self.rules.players

    # ------------------------------------------------------------------ encoding
    @property
    def obs_size(self) -> int:
        """Length of this view's observation (``OBS_SIZE`` unless a variant adds blocks)."""
        return self._base_size() + self._extra_size()

    def _base_size(self) -> int:
        n = self.rules.players
        return OBS_SIZE if n == 4 else _table(n).size

    def _extra_names(self) -> tuple[str, ...]:
        return _extra_names(self.rules, self.match_scores is not None)

    def _extra_size(self) -> int:
        n = self.rules.players
        return sum(math.prod(_extra_block(name, n)[1]) for name in self._extra_names())

    def _extras(self) -> np.ndarray:
        """Return the variant blocks after the scores ("Variant blocks" in the module docstring)."""
        parts: list[np.ndarray] = []
        n = self.rules.players
        order = _ORDER[self.seat] if n == 4 else _table(n).order[self.seat]
        for name in self._extra_names():
            if name == "partners":
                parts.append(np.array([r != 0 and order[r] in self.partners for r in range(n)],
                                      dtype=np.float32))
            elif name == "exposed_count":
                parts.append(np.array([self.exposed_counts[s] / 4 for s in order],
                                      dtype=np.float32))
            elif name == "first_drawn":
                row = np.zeros(NUM_CARDS, dtype=np.float32)
                if self.first_drawn is not None:
                    row[self.first_drawn] = 1.0
                parts.append(row)
            elif name == "doubled":
                parts.append(np.array([self.doubled_mask >> c & 1 for c in EXPOSABLE],
                                      dtype=np.float32))
            elif name in _TWO_DECK_BLOCKS:
                parts.append(self._two_deck_block(name, order))
            elif name == "match_scores":
                ms = self.match_scores or (0,) * n
                parts.append(np.array([0.5 + 0.5 * math.tanh(ms[s] / 1000) for s in order],
                                      dtype=np.float32))
            else:  # hand_number
                n = self.hand_number
                parts.append(np.array([n / (n + 10)], dtype=np.float32))
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)

    def _two_deck_block(self, name: str, order: tuple[int, ...]) -> np.ndarray:
        """One of the two-deck blocks: the copies held, played, exposed or taken twice."""
        if name == "pair_lead":
            return np.array([float(self.pair_lead)], dtype=np.float32)
        if name == "hand_twice":
            return _mask_row(self.hand_pair_mask)
        if name == "trick_twice":
            twice = [0, 0, 0, 0]
            if self.pair_lead:
                cards = self.current_trick
                for i in range(0, len(cards) - 1, 2):
                    if cards[i] == cards[i + 1]:
                        twice[(self.trick_leader + i // 2) & 3] = 1 << cards[i]
            return np.concatenate([_mask_row(twice[s]) for s in order])
        if name == "played_twice":
            return np.concatenate([_mask_row(self.played_pair_masks[s]) for s in order])
        if name == "exposed_twice":
            return np.array([self.exposed_pair_masks[s] >> c & 1 for s in order
                             for c in EXPOSABLE], dtype=np.float32)
        return np.concatenate([_mask_row(_scoring_bits(self.captured_pair_masks[s]), 16)
                               for s in order])

    def encode(self, out: NDArray[np.float32] | None = None) -> NDArray[np.float32]:
        """Return the flat observation vector (see the module docstring for the layout).

        All 0/1 blocks are assembled as one Python integer and unpacked in a single numpy call.
        Pass ``out`` (float32, shape ``(obs_size,)``) to fill a preallocated buffer.
        """
        n = self.rules.players
        if n == 4:
            size, num_bits = OBS_SIZE, _NUM_BITS
        else:
            size, num_bits = _table(n).size, _table(n).num_bits
        bits = np.unpackbits(
            np.frombuffer(self._bits().to_bytes((num_bits + 7) // 8, "little"),
                          dtype=np.uint8),
            count=num_bits, bitorder="little",
        )
        extra = self._extra_names()
        if out is None:
            out = np.empty(self.obs_size if extra else size, dtype=np.float32)
        out[:num_bits] = bits
        out[num_bits:size] = self._squashed_scores()
        if extra:
            out[size:] = self._extras()
        return out

    def _bits(self) -> int:
        """Every 0/1 block of the observation as one integer (bit ``i`` is element ``i``)."""
        n = self.rules.players
        n_tricks = len(self.tricks)
        if self.rules.pair_leads:
            # Up to 26 tricks: the trick number block counts pairs of cards each seat played
            # (a pair-led trick takes two cards a seat).
            n_tricks = sum(len(t.cards) for t in self.tricks) // (2 * n)
        if n != 4:
            return _obs_bits_table(
                _table(n), self.seat, _PHASE_INDEX[self.phase], self.current_player,
                self.hand_mask, self.trick_leader, self.current_trick, n_tricks,
                self.played_masks, self.exposed_masks, self.captured_masks, self.void_masks,
                self.declared_seats, self.first_leader)
        return _obs_bits(
            self.seat, _PHASE_INDEX[self.phase], self.current_player, self.hand_mask,
            self.trick_leader, self.current_trick, n_tricks, self.played_masks,
            self.exposed_masks, self.captured_masks, self.void_masks, self.declared_seats,
            self.first_leader, self.pair_lead,
        )

    def _squashed_scores(self) -> np.ndarray:
        """Provisional scores by relative seat, squashed into [0, 1]."""
        scores: tuple[float, ...] = self.scores
        divisor = _SCORE_DIVISORS[self.rules.decks]
        if divisor != 1:
            scores = tuple(v / divisor for v in scores)
        n = self.rules.players
        if n != 4:
            return np.array([_squash(scores[s]) for s in _table(n).order[self.seat]],
                            dtype=np.float32)
        return _score_row(self.seat, scores)

    def observation(self) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
        """``(encode(), action_mask())`` built together with a single unpacking of bits."""
        n = self.rules.players
        if n == 4:
            obs, mask = _unpack(self._bits(), self.legal_mask, self._squashed_scores(),
                                self.rules.num_actions)
        else:
            t = _table(n)
            obs, mask = _unpack(self._bits(), self.legal_mask, self._squashed_scores(),
                                self.rules.num_actions, t.size, t.num_bits)
        if self._extra_names():
            obs = np.concatenate([obs, self._extras()])
        return obs, mask

    def action_mask(self) -> NDArray[np.int8]:
        """Return the legal-action mask as an int8 vector, zeros off turn.

        Its length is ``rules.num_actions``: 53, or 105 with two decks.
        """
        n = self.rules.num_actions
        return np.unpackbits(
            np.frombuffer(self.legal_mask.to_bytes((n + 7) // 8, "little"), dtype=np.uint8),
            count=n, bitorder="little",
        ).view(np.int8)

    def __repr__(self) -> str:
        return (f"PlayerView(seat={self.seat}, phase={self.phase.value!r}, "
                f"current_player={self.current_player}, hand={len(self.hand)} cards)")

    def _repr_html_(self) -> str:
        """Jupyter's rich display: this seat's HTML table (``gongzhu_env.html``)."""
        return view_html(self)


__all__ = ["PlayerView", "MatchContext", "encode_observation", "LAYOUT", "SLICES", "OBS_SIZE",
           "decode", "EXPOSABLE", "HIDDEN_ACTION", "layout", "obs_size"]
