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
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from gongzhu_env.cards import (
    C10,
    DJ,
    DONE,
    EXPOSABLE,
    FULL_DECK,
    HA,
    NUM_CARDS,
    SQ,
    cards_of,
)
from gongzhu_env.rules import Rules

if TYPE_CHECKING:
    from gongzhu_env.engine import Game, Phase, Trick

# (name, shape, meaning) in vector order; the single description of the layout.
LAYOUT: tuple[tuple[str, tuple[int, ...], str], ...] = (
    ("phase", (3,), "one-hot: declare, play, over"),
    ("hand", (52,), "cards in the observer's hand"),
    ("to_move", (4,), "relative seat to act"),
    ("trick_leader", (4,), "relative seat that led the trick in progress"),
    ("trick_cards", (4, 52), "card each relative seat played to the trick in progress"),
    ("played", (4, 52), "every card each relative seat has played this hand"),
    ("exposed", (4, 4), "exposable cards (SQ DJ C10 HA) each relative seat exposed"),
    ("captured", (4, 16), "scoring cards (H2..HA SQ DJ C10) each relative seat has taken"),
    ("voids", (4, 4), "suits (C D H S) each relative seat has shown to be out of"),
    ("declared", (4,), "relative seats whose declaration turn is over"),
    ("first_leader", (4,), "relative seat that declared first and led the first trick"),
    ("trick_number", (13,), "one-hot index of the trick in progress"),
    ("scores", (4,), "provisional score of each relative seat, 0.5 + 0.5 tanh(s / 400)"),
)


def _slices() -> dict[str, slice]:
    out, start = {}, 0
    for name, shape, _ in LAYOUT:
        size = math.prod(shape)
        out[name] = slice(start, start + size)
        start += size
    return out


SLICES: dict[str, slice] = _slices()
OBS_SIZE: int = SLICES["scores"].stop
_NUM_BITS = SLICES["scores"].start  # every block before the scores is 0/1
_O = {name: s.start for name, s in SLICES.items()}
_SCORE_SCALE = 400.0


def decode(vector: np.ndarray) -> dict[str, np.ndarray]:
    """Split an observation vector into its named blocks, each reshaped to its layout shape."""
    vector = np.asarray(vector)
    if vector.shape != (OBS_SIZE,):
        raise ValueError(f"expected an observation of shape ({OBS_SIZE},), got {vector.shape}")
    return {name: vector[SLICES[name]].reshape(shape) for name, shape, _ in LAYOUT}


def _exposable_bits(m: int) -> int:
    """Project a card mask onto 4 bits in EXPOSABLE order (SQ, DJ, C10, HA)."""
    return (m >> SQ & 1) | (m >> DJ & 1) << 1 | (m >> C10 & 1) << 2 | (m >> HA & 1) << 3


def _scoring_bits(m: int) -> int:
    """Project a card mask onto 16 bits: H2..HA, SQ, DJ, C10."""
    return (m >> 26 & 0x1FFF) | (m >> SQ & 1) << 13 | (m >> DJ & 1) << 14 | (m >> C10 & 1) << 15


class PlayerView:
    """What one seat knows. Seat-indexed fields are by absolute seat (0..3).

    Attributes hold plain ints, tuples and the rules; card sets are available both as sorted
    tuples (``hand``, ``exposed``, ``captured``) and as 52-bit masks (``*_mask``) for speed.
    """

    __slots__ = (
        "seat", "rules", "phase", "current_player", "first_leader", "hand_mask",
        "legal_mask", "trick_leader", "current_trick", "tricks", "exposed_masks",
        "captured_masks", "played_masks", "void_masks", "declared_seats", "actions",
        "scores",
    )

    seat: int
    rules: Rules
    phase: Phase
    current_player: int
    first_leader: int
    hand_mask: int
    legal_mask: int
    trick_leader: int
    current_trick: tuple[int, ...]
    tricks: tuple[Trick, ...]
    exposed_masks: tuple[int, ...]
    captured_masks: tuple[int, ...]
    played_masks: tuple[int, ...]
    void_masks: tuple[int, ...]
    declared_seats: int
    actions: tuple[int, ...]
    scores: tuple[int, ...]

    @classmethod
    def from_game(cls, game: Game, seat: int) -> PlayerView:
        """Copy out of ``game`` what ``seat`` may see."""
        if type(seat) is not int or not 0 <= seat < 4:
            raise ValueError(f"seat must be 0..3, got {seat!r}")
        v = cls.__new__(cls)
        v.seat = seat
        v.rules = game.rules
        v.phase = game.phase
        v.current_player = game._current
        v.first_leader = game._first_leader
        v.hand_mask = game._hand[seat]
        v.legal_mask = game.legal_mask() if game._current == seat else 0
        v.trick_leader = game._trick_leader
        v.current_trick = tuple(game._trick)
        v.tricks = tuple(game._tricks)
        v.exposed_masks = tuple(game._exposed)
        v.captured_masks = tuple(game._captured)
        v.played_masks = tuple(game._played_by)
        v.void_masks = tuple(game._voids)
        turns = game._declare_turns if game._phase == 0 else 4
        v.declared_seats = sum(1 << ((game._first_leader + i) & 3) for i in range(turns))
        v.actions = tuple(game._actions)
        v.scores = tuple(game.provisional_scores())
        return v

    # ------------------------------------------------------------------ readable fields
    @property
    def hand(self) -> tuple[int, ...]:
        """The observer's cards, sorted."""
        return cards_of(self.hand_mask)

    @property
    def legal_actions(self) -> list[int]:
        """The observer's legal actions (empty when it is not the observer's turn)."""
        acts = list(cards_of(self.legal_mask & FULL_DECK))
        if self.legal_mask >> DONE & 1:
            acts.append(DONE)
        return acts

    @property
    def exposed(self) -> tuple[tuple[int, ...], ...]:
        """Cards each seat exposed."""
        return tuple(cards_of(m) for m in self.exposed_masks)

    @property
    def exposed_all(self) -> int:
        """Mask of every exposed card at the table."""
        return self.exposed_masks[0] | self.exposed_masks[1] | self.exposed_masks[2] \
            | self.exposed_masks[3]

    @property
    def captured(self) -> tuple[tuple[int, ...], ...]:
        """Scoring cards each seat has taken."""
        return tuple(cards_of(m) for m in self.captured_masks)

    @property
    def voids(self) -> tuple[frozenset[int], ...]:
        """Suits each seat has shown to be out of."""
        return tuple(frozenset(s for s in range(4) if v >> s & 1) for v in self.void_masks)

    @property
    def played_mask(self) -> int:
        """Every card played so far this hand (completed tricks and the trick in progress)."""
        p = self.played_masks
        return p[0] | p[1] | p[2] | p[3]

    @property
    def unseen_mask(self) -> int:
        """Cards the observer has not seen: neither in its hand nor played."""
        return FULL_DECK & ~self.hand_mask & ~self.played_mask

    @property
    def led_suit(self) -> int | None:
        """Suit of the trick in progress, or ``None`` when the observer is to lead."""
        return self.current_trick[0] // 13 if self.current_trick else None

    def relative(self, seat: int) -> int:
        """Relative position of an absolute seat: 0 self, 1 next, 2 across, 3 previous."""
        return (seat - self.seat) & 3

    # ------------------------------------------------------------------ encoding
    def encode(self, out: np.ndarray | None = None) -> np.ndarray:
        """The flat observation vector (see the module docstring for the layout).

        All 0/1 blocks are assembled as one Python integer and unpacked in a single numpy call.
        Pass ``out`` (float32, shape ``(OBS_SIZE,)``) to fill a preallocated buffer.
        """
        me = self.seat
        o = _O
        phase_i = ("declare", "play", "over").index(self.phase)
        x = (1 << (o["phase"] + phase_i)) | (self.hand_mask << o["hand"])
        if phase_i != 2:
            x |= 1 << (o["to_move"] + ((self.current_player - me) & 3))
            x |= 1 << (o["trick_number"] + len(self.tricks))
        trick = self.current_trick
        if trick:
            lead = self.trick_leader
            x |= 1 << (o["trick_leader"] + ((lead - me) & 3))
            base = o["trick_cards"]
            for i, c in enumerate(trick):
                x |= 1 << (base + 52 * ((lead + i - me) & 3) + c)
        for r in range(4):
            s = (me + r) & 3
            x |= self.played_masks[s] << (o["played"] + 52 * r)
            x |= _exposable_bits(self.exposed_masks[s]) << (o["exposed"] + 4 * r)
            x |= _scoring_bits(self.captured_masks[s]) << (o["captured"] + 16 * r)
            x |= self.void_masks[s] << (o["voids"] + 4 * r)
            x |= (self.declared_seats >> s & 1) << (o["declared"] + r)
        x |= 1 << (o["first_leader"] + ((self.first_leader - me) & 3))
        bits = np.unpackbits(
            np.frombuffer(x.to_bytes((_NUM_BITS + 7) // 8, "little"), dtype=np.uint8),
            count=_NUM_BITS, bitorder="little",
        )
        if out is None:
            out = np.empty(OBS_SIZE, dtype=np.float32)
        out[:_NUM_BITS] = bits
        sc = self.scores
        for r in range(4):
            out[_NUM_BITS + r] = 0.5 + 0.5 * math.tanh(sc[(me + r) & 3] / _SCORE_SCALE)
        return out

    def action_mask(self) -> np.ndarray:
        """The legal-action mask as an int8 vector of length 53 (zeros off turn)."""
        return np.unpackbits(
            np.frombuffer(self.legal_mask.to_bytes(7, "little"), dtype=np.uint8),
            count=NUM_CARDS + 1, bitorder="little",
        ).view(np.int8)

    def __repr__(self) -> str:
        return (f"PlayerView(seat={self.seat}, phase={self.phase.value!r}, "
                f"current_player={self.current_player}, hand={len(self.hand)} cards)")


__all__ = ["PlayerView", "LAYOUT", "SLICES", "OBS_SIZE", "decode", "EXPOSABLE"]
