"""The public vocabulary of a hand in progress, and the read-only surface ``Game`` offers.

Everything outside the engine — the seat views, the text and HTML renderers, the env, ``Match``,
the agents and the checkers — reads a game through the surface described here and nothing
else. The engine keeps its state however it likes (52-bit card masks, caches) and is free to
change that layout; only this surface is a promise.

This module sits below both the engine and the modules that read it: the view and the renderers
type the game they read as ``GameState`` instead of importing the engine, so the engine can
offer ``game.view(seat)`` and ``game.render()`` without an import circle.

Card sets come in two forms: sorted tuples of card indices for people (``hands``, ``exposed``,
``captured``) and 52-bit masks for speed (``hand_masks``, ``exposed_masks``, ...; bit ``c`` is
card ``c``, see ``gongzhu_env.cards``). Per-seat values are tuples indexed by absolute seat.
With two decks a card set is a multiset: the tuples hold a card twice where there are two
copies, the masks hold the cards present at least once and the ``*_pair_masks`` those present
twice.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, NamedTuple, Protocol

if TYPE_CHECKING:
    from gongzhu_env.rules import Rules

__all__ = ["GameState", "Phase", "PHASES", "SeatView", "Trick"]


class Phase(str, Enum):
    """Phase of a hand. Members compare equal to their strings (``Phase.PLAY == "play"``)."""

    DECLARE = "declare"
    PLAY = "play"
    OVER = "over"

    def __str__(self) -> str:
        return self.value


PHASES: tuple[Phase, Phase, Phase] = (Phase.DECLARE, Phase.PLAY, Phase.OVER)
"""The phases in the order of a hand; ``PHASES.index(p)`` is the phase code the view encodes."""


class Trick(NamedTuple):
    """A completed trick: who led, the four cards in play order (leader first), who took it."""

    leader: int
    cards: tuple[int, ...]
    winner: int


class GameState(Protocol):
    """What anyone may read of a ``Game``: the public facts, plus every seat's hand.

    The hands are here because spectator renderings, the env and search need them; a *seat*
    only ever sees ``game.view(seat)``, which copies its own hand and the public facts.
    Nothing here changes the game.
    """

    rules: Rules

    @property
    def phase(self) -> Phase:
        """``Phase.DECLARE``, ``Phase.PLAY`` or ``Phase.OVER``."""

    @property
    def current_player(self) -> int:
        """The seat to act (the last trick's winner once the hand is over)."""

    @property
    def first_leader(self) -> int:
        """The seat that declares first and leads the first trick."""

    @property
    def hand_masks(self) -> tuple[int, ...]:
        """Each seat's remaining cards as a mask."""

    @property
    def exposed_masks(self) -> tuple[int, ...]:
        """The cards each seat exposed, as masks (hidden exposures included: see the view)."""

    @property
    def captured_masks(self) -> tuple[int, ...]:
        """The scoring cards each seat has taken, as masks."""

    @property
    def played_masks(self) -> tuple[int, ...]:
        """Every card each seat has played this hand, as masks."""

    @property
    def void_masks(self) -> tuple[int, ...]:
        """Suits (bit ``s`` for suit ``s``) each seat has shown to hold no unexposed card of."""

    @property
    def hand_pair_masks(self) -> tuple[int, ...]:
        """Two decks: the cards each seat holds twice (all 0 with one deck)."""

    @property
    def exposed_pair_masks(self) -> tuple[int, ...]:
        """Two decks: the cards each seat exposed both copies of."""

    @property
    def captured_pair_masks(self) -> tuple[int, ...]:
        """Two decks: the scoring cards each seat took both copies of."""

    @property
    def played_pair_masks(self) -> tuple[int, ...]:
        """Two decks: the cards each seat has played both copies of."""

    @property
    def pair_lead(self) -> bool:
        """Two decks: whether the trick in progress was led with a pair."""

    @property
    def doubled_mask(self) -> int:
        """Exposed cards whose effect is doubled again as their holder's first dealt card."""

    @property
    def declared_seats(self) -> int:
        """Mask of the seats whose declaration turn is over (all four once play starts)."""

    @property
    def trick_leader(self) -> int:
        """The seat that led (or is to lead) the trick in progress."""

    @property
    def trick_cards(self) -> tuple[int, ...]:
        """The cards played to the trick in progress, in play order."""

    @property
    def tricks_played(self) -> int:
        """How many tricks are complete."""

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """The completed tricks, in order."""

    @property
    def actions(self) -> tuple[int, ...]:
        """Every action taken so far; with the deal it replays the hand exactly."""

    @property
    def first_drawn(self) -> tuple[int, ...] | None:
        """Each seat's first dealt card (only under ``first_drawn_exposure``), else ``None``."""

    @property
    def teams(self) -> tuple[tuple[int, ...], ...] | None:
        """The teams of this hand (team rules), else ``None``."""

    def partners(self, seat: int) -> tuple[int, ...]:
        """Return the other members of ``seat``'s team (empty without teams)."""

    def legal_mask(self) -> int:
        """Legal actions of the seat to move as a 53-bit mask (bit 52 is DONE)."""

    def is_over(self) -> bool:
        """Whether all tricks have been played."""

    def provisional_scores(self) -> list[int]:
        """Return what each seat would score if the hand ended now."""

    def scores(self) -> list[int]:
        """Return the raw hand scores, once the hand is over."""

    def view(self, seat: int) -> SeatView:
        """Everything ``seat`` may know of the hand, and nothing more."""


class SeatView(Protocol):
    """The core of what one seat knows, as the renderers read it.

    ``gongzhu_env.view.PlayerView`` derives from it and adds the rest (the rules, voids,
    history, variant and match facts) and the observation encoding.
    """

    __slots__ = ()

    seat: int
    """The observer."""
    rules: Rules
    phase: Phase
    current_player: int
    hand_mask: int
    """The observer's own cards."""
    legal_mask: int
    """The observer's legal actions (0 when it is not the observer's turn)."""
    trick_leader: int
    current_trick: tuple[int, ...]
    """Cards played to the trick in progress, in play order."""
    tricks: tuple[Trick, ...]
    exposed_masks: tuple[int, ...]
    """Cards each seat exposed (another seat's hidden exposures are not shown)."""
    exposed_counts: tuple[int, ...]
    """How many cards each seat exposed (public even when exposures are hidden)."""
    captured_masks: tuple[int, ...]
    played_masks: tuple[int, ...]
    hand_pair_mask: int
    """Two decks: the observer's cards held twice (0 with one deck)."""
    exposed_pair_masks: tuple[int, ...]
    captured_pair_masks: tuple[int, ...]
    played_pair_masks: tuple[int, ...]
    pair_lead: bool
    scores: tuple[int, ...]
    """Provisional score of each seat, as far as the observer can tell."""
