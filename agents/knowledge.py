"""Card counting and hidden-hand sampling shared by the rule-based and search agents.

``Situation`` is a compact, mask-based snapshot of what the seat to move knows: its hand, its
legal actions, the trick in progress, every card played, the shown voids, the exposures and what
each seat has taken. The rule agents read a ``Situation`` instead of a ``PlayerView`` so that the
same decision code runs both at the table (``Situation.from_view``) and inside the fast rollouts
of the search agent (``Situation.from_game``, which reads the state of a sampled world without
building a full view).

Nothing here decides legality or scores a hand: legal actions always come from the engine
(``legal_mask``) and values from ``gongzhu_env.scoring.score_masks``. What is computed here is
*knowledge*: which cards are still out, who may hold them, which card currently leads a trick.

Hidden hands consistent with a seat's view (the worlds of the search agents) are rules
knowledge and live beside the rules: ``gongzhu_env.worlds``.

Table sizes: everything here reads the number of seats from the rules (``rules.players``, 3 to
8), the hand size from ``rules.hand_size`` and the cards in play from ``rules.deck_mask``, so a
card taken out of the deck at a table of five (D2, C2) is never "unseen" and is never dealt to
anyone. At four seats the masks are the full deck's and every result is what it always was.

The two-deck game (every card twice, pair leads) has its own snapshot in
``agents.two_deck_knowledge`` (``TwoDeckSituation``); this module is the one-deck one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gongzhu_env.cards import (
    C10,
    DJ,
    FULL_DECK,
    HA,
    HEARTS_MASK,
    SCORING_MASK,
    SQ,
    SUIT_MASKS,
)
from gongzhu_env.scoring import score_masks

if TYPE_CHECKING:
    from gongzhu_env.rules import Rules
    from gongzhu_env.state import GameState
    from gongzhu_env.view import PlayerView

SQ_BIT, DJ_BIT, C10_BIT, HA_BIT = 1 << SQ, 1 << DJ, 1 << C10, 1 << HA
SK_BIT, SA_BIT = 1 << (SQ + 1), 1 << (SQ + 2)
PIG_CAGES = SK_BIT | SA_BIT
"""SK and SA: the spades that beat the pig."""
SHEEP_CAGES = (1 << (DJ + 1)) | (1 << (DJ + 2)) | (1 << (DJ + 3))
"""DQ, DK, DA: the diamonds that beat the sheep."""
SPADES, HEARTS, DIAMONDS, CLUBS = SUIT_MASKS[3], HEARTS_MASK, SUIT_MASKS[1], SUIT_MASKS[0]


def lowest(mask: int) -> int:
    """Lowest card index in a non-empty mask (the lowest rank of the lowest suit)."""
    return (mask & -mask).bit_length() - 1


def highest(mask: int) -> int:
    """Highest card index in a non-empty mask."""
    return mask.bit_length() - 1


def above(card: int) -> int:
    """Mask of the cards of ``card``'s suit ranked above it."""
    return SUIT_MASKS[card // 13] & ~((2 << card) - 1)


def below(card: int) -> int:
    """Mask of the cards of ``card``'s suit ranked below it."""
    return SUIT_MASKS[card // 13] & ((1 << card) - 1)


def trick_lead(trick: tuple[int, ...] | list[int]) -> tuple[int, int]:
    """``(position, card)`` of the card currently heading a trick in progress.

    The highest card of the led suit heads the trick: that is what a player reads off the table
    when deciding whether it can still duck. (Who finally takes a trick is decided by the engine.)
    """
    led = SUIT_MASKS[trick[0] // 13]
    best_i, best = 0, trick[0]
    for i in range(1, len(trick)):
        c = trick[i]
        if led >> c & 1 and c > best:
            best_i, best = i, c
    return best_i, best


class Situation:
    """What the seat to move knows, as integer masks (see the module docstring).

    ``played`` includes the cards of the trick in progress; ``unseen`` is every card in play
    neither in the hand nor played, i.e. the cards the other seats hold between them (a card
    removed from the deck at another table size is not one of them). ``seats`` is the table
    size.
    """

    __slots__ = ("seat", "rules", "hand", "legal", "trick", "leader", "played", "played_by",
                 "voids", "exposed", "exposed_by", "captured", "n_tricks", "unseen", "partners",
                 "seats")

    seat: int
    seats: int
    rules: Rules
    hand: int
    legal: int
    trick: tuple[int, ...] | list[int]
    leader: int
    played: int
    played_by: tuple[int, ...] | list[int]
    voids: tuple[int, ...] | list[int]
    exposed: int
    exposed_by: tuple[int, ...] | list[int]
    captured: tuple[int, ...] | list[int]
    n_tricks: int
    unseen: int
    partners: tuple[int, ...]

    @classmethod
    def from_view(cls, view: PlayerView) -> Situation:
        """Snapshot of a seat's view (the seat must be the one to move)."""
        return cls._of(view.seat, view.rules, view.hand_mask, view.legal_mask,
                       view.current_trick, view.trick_leader, view.played_masks, view.void_masks,
                       view.exposed_masks, view.captured_masks, len(view.tricks),
                       getattr(view, "partners", ()))

    @classmethod
    def from_game(cls, game: GameState) -> Situation:
        """Snapshot for the seat to move in ``game``, read without building a ``PlayerView``.

        Used by search rollouts, where a view per step would dominate the cost. It reads the
        same public facts a view carries, plus that seat's own hand, and nothing else.
        """
        seat = game.current_player
        rules = game.rules
        return cls._of(seat, rules, game.hand_masks[seat], game.legal_mask(), game.trick_cards,
                       game.trick_leader, game.played_masks, game.void_masks,
                       game.exposed_masks, game.captured_masks, game.tricks_played,
                       game.partners(seat) if rules.has_teams else ())

    @classmethod
    def _of(cls, seat: int, rules: Rules, hand: int, legal: int, trick: tuple[int, ...],
            leader: int, played_by: tuple[int, ...], voids: tuple[int, ...],
            exposed_by: tuple[int, ...], captured: tuple[int, ...], n_tricks: int,
            partners: tuple[int, ...]) -> Situation:
        """Build a snapshot from the facts both sources give; the derived masks are made here."""
        s = cls.__new__(cls)
        s.seat = seat
        s.rules = rules
        s.hand = hand
        s.legal = legal
        s.trick = trick
        s.leader = leader
        s.played_by = played_by
        s.voids = voids
        s.exposed_by = exposed_by
        n = s.seats = len(played_by)
        if n == 4:  # the common table, unrolled: this runs at every rollout step
            s.played = played = played_by[0] | played_by[1] | played_by[2] | played_by[3]
            s.exposed = exposed_by[0] | exposed_by[1] | exposed_by[2] | exposed_by[3]
            s.unseen = FULL_DECK & ~hand & ~played
        else:
            played = exposed = 0
            for m in played_by:
                played |= m
            for m in exposed_by:
                exposed |= m
            s.played, s.exposed = played, exposed
            s.unseen = deck_of(rules) & ~hand & ~played
        s.captured = captured
        s.n_tricks = n_tricks
        s.partners = partners
        return s

    # ------------------------------------------------------------------ derived facts
    def score_if_taken(self, seat: int, cards: int) -> int:
        """Change of ``seat``'s provisional score if it took the scoring cards in ``cards``."""
        cap = self.captured[seat]
        add = cards & SCORING_MASK
        if not add:
            return 0
        return score_masks(cap | add, self.exposed, self.rules) - score_masks(
            cap, self.exposed, self.rules)

    def hearts_all_with(self) -> int:
        """Return the seat that has taken every heart taken so far (at least one), else -1."""
        owner = -1
        for s in range(len(self.captured)):
            if self.captured[s] & HEARTS:
                if owner >= 0:
                    return -1
                owner = s
        return owner

    def seats_after(self) -> list[int]:
        """Return the seats still to play to the trick in progress after the seat to move.

        A trick has one card per seat, so at a table of ``n`` these are the next
        ``n - 1 - len(trick)`` seats in turn order.
        """
        n = self.seats
        return [(self.seat + k) % n for k in range(1, n - len(self.trick))]

    def last_to_play(self) -> bool:
        """Whether the seat to move plays the trick's last card (every other seat has played)."""
        return len(self.trick) == self.seats - 1


_DECKS: dict[tuple[int, int], int] = {}


def deck_of(rules: Rules) -> int:
    """Mask of the cards in play at a one-deck table of ``rules`` (``rules.deck_mask``).

    Memoised by deck count and table size: the rule agents read it at every decision and
    ``deck_mask`` is computed, not stored.
    """
    key = (rules.decks, rules.players)
    deck = _DECKS.get(key)
    if deck is None:
        deck = _DECKS[key] = rules.deck_mask
    return deck


def hand_sizes(played_by: tuple[int, ...] | list[int], hand_size: int = 13) -> list[int]:
    """Cards left in each seat's hand: the cards dealt (``hand_size``) minus those played."""
    return [hand_size - m.bit_count() for m in played_by]
