"""What a seat can know in the two-deck game (RULES.md 6.11), and worlds consistent with it.

Every card exists twice, so a card set is a multiset: here, as in the engine, a pair of masks
``(once, twice)`` (the card is there at least once / twice). ``TwoDeckSituation`` is the
two-deck ``Situation``: it adds the copies held twice, the copies still unseen, the plays of the
trick in progress (a pair lead makes every seat play two cards) and the two-deck score of a
capture. The rule agents read it exactly as they read a one-deck ``Situation``.

Worlds (hidden hands consistent with the view) are dealt by ``gongzhu_env.worlds``, which
reads the two-deck constraints (copies, shown pairs) beside the one-deck ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents.knowledge import Situation
from gongzhu_env.cards import (
    FULL_DECK,
    SCORING_MASK,
    SUIT_MASKS,
    Multiset,
    cards_of,
    ms_add,
    ms_copies,
    multiset_masks,
)
from gongzhu_env.pair_tricks import play_key as pair_play_key
from gongzhu_env.scoring import score_two_decks

if TYPE_CHECKING:
    from gongzhu_env.rules import Rules
    from gongzhu_env.state import GameState
    from gongzhu_env.view import PlayerView


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


class TwoDeckSituation(Situation):
    """A ``Situation`` of the two-deck game (see the module docstring).

    The one-deck fields keep their meaning card by card: ``hand``, ``played_by``, ``exposed_by``
    and ``captured`` hold the cards present at least once, ``unseen`` the cards with at least
    one copy unseen. The ``*2`` fields hold the cards present twice; ``legal`` has the pair
    leads at bits ``52 + k`` and DONE at bit 104.
    """

    __slots__ = ("hand2", "unseen2", "played2_by", "exposed2", "captured2", "pair_lead",
                 "plays", "pending", "suit", "seen_count")

    hand2: int
    unseen2: int
    played2_by: tuple[int, ...]
    exposed2: int
    captured2: tuple[int, ...]
    pair_lead: bool
    plays: list[tuple[int, ...]]
    pending: int
    suit: int

    @classmethod
    def from_view(cls, view: PlayerView) -> TwoDeckSituation:
        """Snapshot of a two-deck seat's view (the seat must be the one to move)."""
        return cls._of2(view.seat, view.rules, view.hand_mask, view.hand_pair_mask,
                        view.legal_mask, view.current_trick, view.trick_leader,
                        view.played_masks, view.played_pair_masks, view.void_masks,
                        view.exposed_masks, view.exposed_pair_masks, view.captured_masks,
                        view.captured_pair_masks, len(view.tricks), view.pair_lead,
                        getattr(view, "partners", ()))

    @classmethod
    def from_game(cls, game: GameState) -> TwoDeckSituation:
        """Snapshot for the seat to move in a two-deck ``game`` (search rollouts)."""
        seat = game.current_player
        rules = game.rules
        return cls._of2(seat, rules, game.hand_masks[seat], game.hand_pair_masks[seat],
                        game.legal_mask(), game.trick_cards, game.trick_leader,
                        game.played_masks, game.played_pair_masks, game.void_masks,
                        game.exposed_masks, game.exposed_pair_masks, game.captured_masks,
                        game.captured_pair_masks, game.tricks_played, game.pair_lead,
                        game.partners(seat) if rules.has_teams else ())

    @classmethod
    def _of2(cls, seat: int, rules: Rules, hand: int, hand2: int, legal: int,
             trick: tuple[int, ...], leader: int, played_by: tuple[int, ...],
             played2_by: tuple[int, ...], voids: tuple[int, ...], exposed_by: tuple[int, ...],
             exposed2_by: tuple[int, ...], captured: tuple[int, ...],
             captured2: tuple[int, ...], n_tricks: int, pair_lead: bool,
             partners: tuple[int, ...]) -> TwoDeckSituation:
        s = cls.__new__(cls)
        s.seat, s.rules, s.hand, s.hand2, s.legal = seat, rules, hand, hand2, legal
        s.trick, s.leader, s.voids, s.n_tricks, s.partners = trick, leader, voids, n_tricks, \
            partners
        s.seats = 4  # two decks are played by four seats only
        s.played_by, s.played2_by, s.exposed_by, s.captured, s.captured2 = \
            played_by, played2_by, exposed_by, captured, captured2
        played: Multiset = (0, 0)
        exposed: Multiset = (0, 0)
        for p in range(4):
            played = ms_add(played, (played_by[p], played2_by[p]))
            exposed = ms_add(exposed, (exposed_by[p], exposed2_by[p]))
        s.played = played[0]
        s.exposed, s.exposed2 = exposed
        seen = ms_add(played, (hand, hand2))
        s.seen_count = seen
        s.unseen = FULL_DECK & ~seen[1]
        s.unseen2 = FULL_DECK & ~seen[0]
        s.pair_lead = pair_lead
        s.plays, s.pending = split_plays(trick, pair_lead)
        s.suit = trick[0] // 13 if trick else -1
        return s

    # ------------------------------------------------------------------ derived facts
    def unseen_count(self, card: int) -> int:
        """Count the copies of ``card`` neither in this hand nor played (the others hold them)."""
        return 2 - ms_copies(*self.seen_count, 1 << card)

    def held(self, card: int) -> int:
        """Count the copies of ``card`` in this seat's hand."""
        return (self.hand >> card & 1) + (self.hand2 >> card & 1)

    def score_if_taken(self, seat: int, cards: int, cards2: int = 0) -> int:
        """Change of ``seat``'s provisional score if it took the multiset ``(cards, cards2)``.

        ``cards`` alone (a plain mask) adds one copy of each card, as the one-deck call does.
        """
        add = (cards & SCORING_MASK, cards2 & SCORING_MASK)
        if not add[0]:
            return 0
        cap = (self.captured[seat], self.captured2[seat])
        exposed = (self.exposed, self.exposed2)
        return score_two_decks(ms_add(cap, add), exposed) - score_two_decks(cap, exposed)

    def trick_multiset(self) -> Multiset:
        """Return the cards of the trick in progress as a multiset."""
        return multiset_masks(self.trick)

    def heading(self) -> tuple[int, tuple[int, ...] | None]:
        """``(seat, key)`` of the play heading the trick in progress (it leads on a tie)."""
        suit = self.suit
        best_i, best = 0, play_key(self.plays[0], suit, self.pair_lead)
        for i in range(1, len(self.plays)):
            k = play_key(self.plays[i], suit, self.pair_lead)
            if k is not None and best is not None and k > best:
                best_i, best = i, k
        return (self.leader + best_i) & 3, best

    def seats_after(self) -> list[int]:
        """Return the seats still to play to the trick in progress after the seat to move."""
        return [(self.seat + k) & 3 for k in range(1, 4 - len(self.plays))]


# ---------------------------------------------------------------------- plays at the table
def candidate_plays(s: TwoDeckSituation) -> list[tuple[int, ...]]:
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
    plays = [(a, b) for i, a in enumerate(pool) for b in pool[i + 1:]]
    return plays + [(c, c) for c in cards_of(legal & s.hand2)]


def first_card(s: TwoDeckSituation, play: tuple[int, ...]) -> int:
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
