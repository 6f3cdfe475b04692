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

``sample_hands`` deals the unseen cards to the other seats at random, consistently with
everything public: hand sizes, shown voids and exposed cards not yet played (an exposed card is
known to sit in its exposer's hand until it is played).

Table sizes: everything here reads the number of seats from the rules (``rules.players``, 3 to
8), the hand size from ``rules.hand_size`` and the cards in play from ``rules.deck_mask``, so a
card taken out of the deck at a table of five (D2, C2) is never "unseen" and is never dealt to
anyone. At four seats the masks are the full deck's and every result is what it always was.

The two-deck game (every card twice, pair leads) has its own snapshot and sampler in
``agents.two_deck_knowledge`` (``TwoDeckSituation``, ``sample_two_deck_world``); this module is
the one-deck one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gongzhu_env.cards import (
    C10,
    DJ,
    EXPOSABLE_MASK,
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


def sample_hands(view: PlayerView, rng: np.random.Generator, tries: int = 4) -> list[int]:
    """Deal the unseen cards to the other seats consistently with the public facts.

    Returns one hand mask per seat (the observer's own hand as it is). Constraints: each other
    seat gets exactly as many cards as it still holds (``rules.hand_size`` minus what it has
    played), never a card of a suit it has shown to be out of, and every exposed, unplayed card
    stays with its exposer. Only cards in play are dealt: a card removed from the deck at
    another table size (``rules.deck_mask``) goes to nobody.

    The fast path places cards most constrained first, each to a random seat with room
    (weighted by the room left); it can reach a dead end when voids and hand sizes are tight.
    After ``tries`` dead ends the exact path takes over: it places each card only where the
    rest can still be completed (Hall's condition over the seats' room), so it always succeeds
    on a consistent view and never bends a constraint.
    """
    me = view.seat
    rules = view.rules
    n = rules.players
    seats = range(n)
    sizes = hand_sizes(view.played_masks, rules.hand_size)
    unseen = deck_of(rules) & ~view.hand_mask & ~view.played_mask
    # Exposed cards still in play sit with their exposer.
    fixed = [0] * n
    for seat in seats:
        if seat != me:
            fixed[seat] = view.exposed_masks[seat] & EXPOSABLE_MASK & unseen
    placed = 0
    for m in fixed:
        placed |= m
    free = unseen & ~placed
    room0 = [0 if seat == me else sizes[seat] - fixed[seat].bit_count() for seat in seats]
    # allowed[suit]: bit mask of the other seats that may hold a card of that suit.
    allowed = [sum(1 << seat for seat in seats
                   if seat != me and not view.void_masks[seat] >> suit & 1)
               for suit in range(4)]
    cards = []
    m = free
    while m:
        b = m & -m
        m ^= b
        c = b.bit_length() - 1
        cards.append((allowed[c // 13].bit_count(), c))
    count = len(cards)
    for _ in range(tries):
        out = _sample_fast(cards, allowed, room0, fixed, rng)
        if out is not None:
            out[me] = view.hand_mask
            return out
    out = _sample_exact([c for _, c in cards], allowed, room0, fixed, rng)
    out[me] = view.hand_mask
    assert count == sum((out[t] & ~fixed[t]).bit_count() for t in seats if t != me)
    return out


def _sample_fast(cards: list[tuple[int, int]], allowed: list[int], room0: list[int],
                 fixed: list[int], rng: np.random.Generator) -> list[int] | None:
    n = len(cards)
    seats = range(len(room0))
    ties = rng.random(n).tolist()
    draws = rng.random(n).tolist()
    order = sorted(range(n), key=lambda i: (cards[i][0], ties[i]))
    room = room0[:]
    out = fixed[:]
    for j, i in enumerate(order):
        c = cards[i][1]
        ok = allowed[c // 13]
        cand = [t for t in seats if ok >> t & 1 and room[t] > 0]
        if not cand:
            return None
        seat = cand[0]
        if len(cand) > 1:
            # A seat with more room left is proportionally more likely to hold the card.
            r = draws[j] * sum(room[t] for t in cand)
            for t in cand:
                r -= room[t]
                if r < 0:
                    seat = t
                    break
            else:
                seat = cand[-1]
        out[seat] |= 1 << c
        room[seat] -= 1
    return out


def _feasible(counts: dict[int, int], room: list[int]) -> bool:
    """Hall's condition: cards that only fit in a set of seats never outnumber its room.

    A card's "kind" is the set of seats that may hold it (one per suit, so at most four kinds).
    It is enough to check the unions of kinds: for any set of seats, the union of the kinds
    inside it needs as many cards and has no more room. That is at most 15 sets whatever the
    table size (checking every set of seats would be 255 at a table of eight).
    """
    kinds = list(counts)
    for pick in range(1, 1 << len(kinds)):
        union = 0
        for i, kind in enumerate(kinds):
            if pick >> i & 1:
                union |= kind
        need = sum(k for kind, k in counts.items() if kind & ~union == 0)
        have = 0
        t = 0
        while union >> t:
            if union >> t & 1:
                have += room[t]
            t += 1
        if need > have:
            return False
    return True


def _sample_exact(cards: list[int], allowed: list[int], room0: list[int], fixed: list[int],
                  rng: np.random.Generator) -> list[int]:
    counts: dict[int, int] = {}
    for c in cards:
        kind = allowed[c // 13]
        counts[kind] = counts.get(kind, 0) + 1
    if not _feasible(counts, room0):
        raise ValueError("the view is inconsistent: its unseen cards cannot be dealt to the "
                         "other seats under their hand sizes and shown voids")
    seats = range(len(room0))
    room = room0[:]
    out = fixed[:]
    for i in rng.permutation(len(cards)).tolist():
        c = cards[i]
        kind = allowed[c // 13]
        counts[kind] -= 1
        cand = [t for t in seats if kind >> t & 1 and room[t] > 0]
        weights = np.array([room[t] for t in cand], dtype=float)
        for j in rng.choice(len(cand), size=len(cand), replace=False, p=weights / weights.sum()):
            seat = cand[int(j)]
            room[seat] -= 1
            if _feasible(counts, room):
                break
            room[seat] += 1
        else:  # pragma: no cover - impossible when the start was feasible
            raise RuntimeError("exact sampling reached a dead end")
        out[seat] |= 1 << c
    return out
