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

Deck counts: every card set is read copy by copy, as a multiset of two masks ``(once,
twice)`` (``gongzhu_env.cards``). With one deck the second masks are empty, so the same
snapshot, the same sums and the same questions ("how many copies are unseen?") serve both deck
counts. What pairs add to a trick (a pair lead, two-card follows) is a fact of the trick in
progress (``Situation.pair_lead``), and ``candidate_plays`` / ``first_card`` read a two-card
follow out of the engine's legal mask.
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
    Multiset,
    cards_of,
    ms_add,
    ms_copies,
)
from gongzhu_env.pair_tricks import play_key as pair_play_key
from gongzhu_env.scoring import score_masks, score_two_decks

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
_EMPTY = {n: (0,) * n for n in range(3, 9)}
"""Empty second masks for a table of ``n`` seats, shared."""


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


def play_key(cards: tuple[int, ...], suit: int, pair_lead: bool) -> tuple[int, ...] | None:
    """Rank of one seat's play to a trick of ``suit``; ``None`` for a discard.

    A single card ranks by itself; a two-card play to a pair lead by the engine's own order
    (``gongzhu_env.pair_tricks``: pairs below unpaired cards except in diamonds). Between equal
    keys the earlier play wins, so a later play must rank strictly higher to take the lead.
    """
    if pair_lead:
        return pair_play_key(cards, suit)
    c = cards[0]
    return (c,) if c // 13 == suit else None


def split_plays(trick: tuple[int, ...] | list[int], pair_lead: bool
                ) -> tuple[list[tuple[int, ...]], int]:
    """Split a trick's cards into the complete plays of each seat, and a pending first card.

    After a pair lead every seat plays two cards; an odd number of cards means the seat to move
    has played the first of its two (``pending``, else -1).
    """
    if not pair_lead:
        return [(c,) for c in trick], -1
    n = len(trick)
    plays = [tuple(sorted(trick[i:i + 2])) for i in range(0, n - 1, 2)]
    return plays, (trick[-1] if n % 2 else -1)


class Situation:
    """What the seat to move knows, as integer masks (see the module docstring).

    ``played`` includes the cards of the trick in progress; ``unseen`` is every card in play
    with a copy neither in the hand nor played, i.e. the cards the other seats hold between
    them (a card removed from the deck at another table size is not one of them). ``seats``
    is the table size.

    Copies: every card set is a multiset. ``hand``, ``played_by``, ``exposed_by`` and
    ``captured`` hold the cards present at least once, the ``*2`` fields those present twice
    (all empty with one deck), ``unseen2`` the cards with both copies unseen. At a two-deck
    table ``legal`` has the pair leads at bits ``52 + k`` and DONE at bit 104, and a trick
    led with a pair takes two cards from every seat (``plays``, ``pending``).
    """

    __slots__ = ("seat", "rules", "hand", "legal", "trick", "leader", "played", "played_by",
                 "voids", "exposed", "exposed_by", "captured", "n_tricks", "unseen", "partners",
                 "seats", "hand2", "unseen2", "played2_by", "exposed2", "captured2",
                 "pair_lead")

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
    hand2: int
    unseen2: int
    played2_by: tuple[int, ...]
    exposed2: int
    captured2: tuple[int, ...]
    pair_lead: bool

    @classmethod
    def from_view(cls, view: PlayerView) -> Situation:
        """Snapshot of a seat's view (the seat must be the one to move)."""
        return cls._of(view.seat, view.rules, view.hand_mask, view.hand_pair_mask,
                       view.legal_mask, view.current_trick, view.trick_leader,
                       view.played_masks, view.played_pair_masks, view.void_masks,
                       view.exposed_masks, view.exposed_pair_masks, view.captured_masks,
                       view.captured_pair_masks, len(view.tricks),
                       getattr(view, "partners", ()), view.pair_lead)

    @classmethod
    def from_game(cls, game: GameState) -> Situation:
        """Snapshot for the seat to move in ``game``, read without building a ``PlayerView``.

        Used by search rollouts, where a view per step would dominate the cost. It reads the
        same public facts a view carries, plus that seat's own hand, and nothing else.
        """
        seat = game.current_player
        rules = game.rules
        n = rules.players
        if deck_of(rules)[1]:
            hand2, played2_by = game.hand_pair_masks[seat], game.played_pair_masks
            exposed2_by, captured2 = game.exposed_pair_masks, game.captured_pair_masks
        else:  # no card has a second copy: the engine's second masks are all empty
            hand2, played2_by = 0, _EMPTY[n]
            exposed2_by = captured2 = played2_by
        return cls._of(seat, rules, game.hand_masks[seat], hand2,
                       game.legal_mask(), game.trick_cards, game.trick_leader,
                       game.played_masks, played2_by, game.void_masks,
                       game.exposed_masks, exposed2_by, game.captured_masks,
                       captured2, game.tricks_played,
                       game.partners(seat) if rules.has_teams else (), game.pair_lead)

    @classmethod
    def _of(cls, seat: int, rules: Rules, hand: int, hand2: int, legal: int,
            trick: tuple[int, ...], leader: int, played_by: tuple[int, ...],
            played2_by: tuple[int, ...], voids: tuple[int, ...], exposed_by: tuple[int, ...],
            exposed2_by: tuple[int, ...], captured: tuple[int, ...],
            captured2: tuple[int, ...], n_tricks: int, partners: tuple[int, ...],
            pair_lead: bool) -> Situation:
        """Build a snapshot from the facts both sources give; the derived masks are made here.

        Every card set is summed copy by copy (``ms_add``); with one deck the second masks are
        empty and the sums are plain unions, so one formula serves both deck counts. A card is
        unseen while fewer of its copies are seen (held or played) than the deck has.
        """
        s = cls.__new__(cls)
        s.seat = seat
        s.rules = rules
        s.hand = hand
        s.hand2 = hand2
        s.legal = legal
        s.trick = trick
        s.leader = leader
        s.played_by = played_by
        s.played2_by = played2_by
        s.voids = voids
        s.exposed_by = exposed_by
        s.captured = captured
        s.captured2 = captured2
        s.n_tricks = n_tricks
        s.partners = partners
        s.pair_lead = pair_lead
        n = s.seats = len(played_by)
        deck, deck2 = deck_of(rules)
        if n == 4:  # the common table, unrolled: this runs at every rollout step
            p0, p1, p2, p3 = played_by
            e0, e1, e2, e3 = exposed_by
            played = p0 | p1 | p2 | p3
            exposed = e0 | e1 | e2 | e3
            if deck2:
                # ``ms_add`` seat by seat, written out: a card twice is a card twice in one
                # seat's set, or once in two seats' sets.
                q0, q1, q2, q3 = played2_by
                x0, x1, x2, x3 = exposed2_by
                p01, e01 = p0 | p1, e0 | e1
                played2 = q0 | q1 | q2 | q3 | (p0 & p1) | (p01 & p2) | ((p01 | p2) & p3)
                exposed2 = x0 | x1 | x2 | x3 | (e0 & e1) | (e01 & e2) | ((e01 | e2) & e3)
            else:  # no card has a second copy: the sums are plain unions
                played2 = exposed2 = 0
        else:
            played = played2 = exposed = exposed2 = 0
            for p in range(n):
                played, played2 = ms_add((played, played2), (played_by[p], played2_by[p]))
                exposed, exposed2 = ms_add((exposed, exposed2), (exposed_by[p], exposed2_by[p]))
        s.played, s.exposed, s.exposed2 = played, exposed, exposed2
        seen = played | hand
        # A card is unseen while fewer of its copies are seen than the deck has.
        s.unseen = (deck & ~seen) | (deck2 & ~(played2 | hand2 | (played & hand)))
        s.unseen2 = deck2 & ~seen
        return s

    # ------------------------------------------------------------------ copies and plays
    @property
    def plays(self) -> list[tuple[int, ...]]:
        """The complete plays of the trick in progress (two cards each after a pair lead)."""
        return split_plays(self.trick, self.pair_lead)[0]

    @property
    def pending(self) -> int:
        """The first card of the seat to move's two-card follow, once played; else -1."""
        return split_plays(self.trick, self.pair_lead)[1]

    @property
    def suit(self) -> int:
        """The led suit of the trick in progress, -1 before its lead."""
        return self.trick[0] // 13 if self.trick else -1

    def unseen_count(self, card: int) -> int:
        """Count the copies of ``card`` neither in this hand nor played (the others hold them)."""
        return ms_copies(self.unseen, self.unseen2, 1 << card)

    def held(self, card: int) -> int:
        """Count the copies of ``card`` in this seat's hand."""
        return ms_copies(self.hand, self.hand2, 1 << card)

    def heading(self) -> tuple[int, tuple[int, ...] | None]:
        """``(seat, key)`` of the play heading the trick in progress (it leads on a tie)."""
        suit = self.suit
        plays = self.plays
        best_i, best = 0, play_key(plays[0], suit, self.pair_lead)
        for i in range(1, len(plays)):
            k = play_key(plays[i], suit, self.pair_lead)
            if k is not None and best is not None and k > best:
                best_i, best = i, k
        return (self.leader + best_i) % self.seats, best

    # ------------------------------------------------------------------ derived facts
    def score_if_taken(self, seat: int, cards: int, cards2: int = 0) -> int:
        """Change of ``seat``'s provisional score if it took the scoring cards in ``cards``.

        ``cards2``: with two decks, the cards it would take twice (``(cards, cards2)`` is a
        multiset; ``cards`` alone adds one copy of each).
        """
        add = cards & SCORING_MASK
        if not add:
            return 0
        if self.rules.pair_leads:
            add2 = (add, cards2 & SCORING_MASK)
            cap2 = (self.captured[seat], self.captured2[seat])
            exposed = (self.exposed, self.exposed2)
            return score_two_decks(ms_add(cap2, add2), exposed) - score_two_decks(cap2, exposed)
        cap = self.captured[seat]
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
        played = len(self.trick) // 2 if self.pair_lead else len(self.trick)
        return [(self.seat + k) % n for k in range(1, n - played)]

    def last_to_play(self) -> bool:
        """Whether the seat to move plays the trick's last card (every other seat has played)."""
        return len(self.trick) == self.seats - 1


_DECKS: dict[tuple[int, int], Multiset] = {}


def deck_of(rules: Rules) -> Multiset:
    """Return the cards in play at a table of ``rules``, as a multiset ``(once, twice)``.

    ``once`` is ``rules.deck_mask`` (a card a smaller deck leaves out is never in play);
    ``twice`` holds the cards dealt a second copy: every card with two decks, none with one.
    Memoised by deck count and table size: the rule agents read it at every decision and
    ``deck_mask`` is computed, not stored.
    """
    key = (rules.decks, rules.players)
    deck = _DECKS.get(key)
    if deck is None:
        once = rules.deck_mask
        deck = _DECKS[key] = (once, once if rules.decks > 1 else 0)
    return deck


def hand_sizes(played_by: tuple[int, ...] | list[int], hand_size: int = 13) -> list[int]:
    """Cards left in each seat's hand: the cards dealt (``hand_size``) minus those played."""
    return [hand_size - m.bit_count() for m in played_by]


# ---------------------------------------------------------------------- two-card follows
def candidate_plays(s: Situation) -> list[tuple[int, ...]]:
    """List the two-card plays a follower to a pair lead can aim for, from the engine's mask.

    The engine gives only the legal first cards (and, once one is played, the legal second
    ones), so the plays are inferred from that mask and the hand: first cards that are all
    held twice in the led suit mean a pair is required; first cards all in the led suit, two
    of them; one card of the suit among discards, that card with one discard; else any two
    cards. They guide the choice of the first card; the second is always picked from the
    engine's own mask (``pending``), so an inference the engine disagrees with costs nothing
    but a worse guess.
    """
    legal = s.legal & FULL_DECK
    if s.pending >= 0:
        return [tuple(sorted((s.pending, b))) for b in cards_of(legal)]
    suit = SUIT_MASKS[s.suit]
    in_suit = legal & suit
    if not legal & ~suit:
        if legal & s.hand2:
            return [(c, c) for c in cards_of(legal & s.hand2)]
        pool = cards_of(legal)
        return [(a, b) for i, a in enumerate(pool) for b in pool[i + 1:]]
    if in_suit:
        u = cards_of(in_suit)[0]
        return [tuple(sorted((u, d))) for d in cards_of(legal & ~suit)]
    pool = cards_of(legal)
    plays: list[tuple[int, ...]] = [(a, b) for i, a in enumerate(pool) for b in pool[i + 1:]]
    return plays + [(c, c) for c in cards_of(legal & s.hand2)]


def first_card(s: Situation, play: tuple[int, ...]) -> int:
    """Return the action that starts (or completes, if one card is pending) ``play``."""
    if s.pending >= 0:
        a, b = play
        return b if a == s.pending else a
    legal = s.legal
    a, b = play
    # Prefer the card of the led suit first: whatever the second must be, the engine shows it.
    if legal >> a & 1 and a // 13 == s.suit:
        return a
    return b if legal >> b & 1 else a
