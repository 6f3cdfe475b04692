"""What a seat can know in the two-deck game (RULES.md 6.11), and worlds consistent with it.

Every card exists twice, so a card set is a multiset: here, as in the engine, a pair of masks
``(once, twice)`` (the card is there at least once / twice). ``TwoDeckSituation`` is the
two-deck ``Situation``: it adds the copies held twice, the copies still unseen, the plays of the
trick in progress (a pair lead makes every seat play two cards) and the two-deck score of a
capture. The rule agents read it exactly as they read a one-deck ``Situation``.

``sample_two_deck_hands`` deals the unseen copies to the other seats consistently with all
that is public:

* hand sizes (26 minus the copies each seat played);
* shown voids (a seat that played off-suit holds no card of that suit);
* exposed copies not yet played stay with their exposer (a seat that exposed ``e`` copies of
  a card and played ``p`` of them still holds at least ``e - p``);
* a follower who answered a pair lead with two unpaired cards of the suit held no pair of
  that suit then, so it cannot now hold both copies of a card of that suit, nor even one copy
  of a card of that suit it played a copy of later;
* the first leader of a hand with the C2 lead is the lowest seat dealt a C2, so a seat below
  it was dealt none.

What the sampler does not model (the exposed-copy restriction of the first round can hide a
little more), the search agent catches by replaying the public history on each sampled world
through the engine and drawing again when the engine refuses it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from agents.knowledge import Situation
from gongzhu_env.cards import (
    C2,
    FULL_DECK,
    NUM_CARDS,
    SCORING_MASK,
    SUIT_MASKS,
    cards_of,
    multiset_cards,
)
from gongzhu_env.engine import Game, IllegalActionError
from gongzhu_env.pair_tricks import play_key as pair_play_key
from gongzhu_env.scoring import score_two_decks

if TYPE_CHECKING:
    from gongzhu_env.rules import Rules
    from gongzhu_env.state import GameState
    from gongzhu_env.view import PlayerView

Multiset = tuple[int, int]
"""``(once, twice)``: the cards present at least once, and twice."""


def ms_add(a: Multiset, b: Multiset) -> Multiset:
    """Sum of two multisets whose counts add up to at most two per card."""
    return a[0] | b[0], a[1] | b[1] | (a[0] & b[0])


def ms_of(cards: tuple[int, ...] | list[int]) -> Multiset:
    """Return the multiset of a list of cards (each at most twice)."""
    once = twice = 0
    for c in cards:
        b = 1 << c
        if once & b:
            twice |= b
        else:
            once |= b
    return once, twice


def ms_count(m: Multiset, card: int) -> int:
    """Count the copies of ``card`` in the multiset ``m``."""
    return (m[0] >> card & 1) + (m[1] >> card & 1)


def ms_size(m: Multiset) -> int:
    """Count the cards in the multiset ``m``."""
    return m[0].bit_count() + m[1].bit_count()


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
        return 2 - ms_count(self.seen_count, card)

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
        return ms_of(self.trick)

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


# ---------------------------------------------------------------------- world sampling
def _constraints(view: PlayerView) -> tuple[list[list[int]], list[list[int]], list[int],
                                            list[int]]:
    """Per seat and card: the fewest and most copies it may hold now; copies left to deal.

    Returns ``(floor, cap, unseen, room)``: ``floor[s][c]``/``cap[s][c]`` bound the copies of
    card ``c`` seat ``s`` holds, ``unseen[c]`` counts the copies the observer has not seen and
    ``room[s]`` the cards seat ``s`` holds (0 for the observer, whose hand is known).
    """
    me = view.seat
    hand: Multiset = (view.hand_mask, view.hand_pair_mask)
    played = [(view.played_masks[s], view.played_pair_masks[s]) for s in range(4)]
    seen = hand
    for s in range(4):
        seen = ms_add(seen, played[s])
    unseen = [2 - ms_count(seen, c) for c in range(NUM_CARDS)]
    room = [0 if s == me else view.rules.hand_size - ms_size(played[s]) for s in range(4)]
    floor = [[0] * NUM_CARDS for _ in range(4)]
    cap = [[0] * NUM_CARDS if s == me else [2] * NUM_CARDS for s in range(4)]
    for s in range(4):
        if s == me:
            continue
        for suit in range(4):
            if view.void_masks[s] >> suit & 1:
                for c in range(suit * 13, suit * 13 + 13):
                    cap[s][c] = 0
        exposed = (view.exposed_masks[s], view.exposed_pair_masks[s])
        m = exposed[0]
        while m:
            b = m & -m
            m ^= b
            c = b.bit_length() - 1
            floor[s][c] = max(0, ms_count(exposed, c) - ms_count(played[s], c))
    _no_pair_caps(view, cap)
    _restricted_play_caps(view, cap, hand, played)
    if view.hand_number == 0:
        # A hand's first leader (not a match's pig taker) is the lowest seat dealt a C2.
        for s in range(view.first_leader):
            cap[s][C2] = 0
        fl = view.first_leader
        if fl != me:
            floor[fl][C2] = max(floor[fl][C2], 1 - ms_count(played[fl], C2))
    return floor, cap, unseen, room


def _tricks_of(view: PlayerView) -> list[tuple[int, tuple[int, ...], bool]]:
    """Every trick of the hand so far as ``(leader, cards, pair_lead)``, the one in progress last.

    A complete two-deck trick has four cards after a single lead and eight after a pair lead.
    """
    out = [(t.leader, tuple(t.cards), len(t.cards) == 8) for t in view.tricks]
    if view.current_trick:
        out.append((view.trick_leader, tuple(view.current_trick), bool(view.pair_lead)))
    return out


def _restricted_play_caps(view: PlayerView, cap: list[list[int]], hand: Multiset,
                          played: list[Multiset]) -> None:
    """Lower ``cap`` for seats that played an exposed copy on the first round of its suit.

    The engine allows that only when the seat had no other card of the suit (RULES.md 6.11:
    the exposed copy is restricted on that round, its twin is not, and a play in the suit
    uses the unexposed copy first). The copy played was surely an exposed one when the seat
    exposed both copies, or exposed one and cannot have held the other (it is seen
    elsewhere). Single leads, single follows and pair leads are read; a follow to a pair lead
    is left to the engine's replay.
    """
    me = view.seat
    may_lead = view.rules.exposed_may_lead
    led = 0
    for leader, cards, pair in _tricks_of(view):
        suit = cards[0] // 13
        if led >> suit & 1:
            continue
        led |= 1 << suit
        per = 2 if pair else 1
        for j in range(0, len(cards) - per + 1, per):
            seat = (leader + j // per) & 3
            c = cards[j]
            if seat == me or c // 13 != suit or (pair and j) or (j == 0 and may_lead):
                continue
            exposed = (view.exposed_masks[seat], view.exposed_pair_masks[seat])
            e = ms_count(exposed, c)
            if not e:
                continue
            if e == 1 and not pair:
                elsewhere = ms_count(hand, c) + sum(ms_count(played[t], c)
                                                    for t in range(4) if t != seat)
                if not elsewhere:
                    continue  # it may have held the unexposed twin and played that
            for c2 in range(suit * 13, suit * 13 + 13):
                if c2 != c:
                    cap[seat][c2] = 0


def _held_at_most_one(tricks: list[tuple[int, tuple[int, ...], bool]], i: int, seat: int,
                      cards: range, cap: list[list[int]], skip: int = -1) -> None:
    """Cap ``seat``, which held at most one copy of each of ``cards`` when trick ``i`` began.

    What it holds now plus what it has played of a card from then on is at most one
    (``skip``: a card left out of the statement).
    """
    later = [0] * NUM_CARDS
    for leader, cards2, pair in tricks[i:]:
        per = 2 if pair else 1
        for j, c in enumerate(cards2):
            if (leader + j // per) & 3 == seat:
                later[c] += 1
    for c in cards:
        if c != skip:
            cap[seat][c] = min(cap[seat][c], max(0, 1 - later[c]))


def _no_pair_caps(view: PlayerView, cap: list[list[int]]) -> None:
    """Lower ``cap`` for followers who showed they held no pair of a pair-led suit.

    Two unpaired cards of the suit show it: a follower holding a pair must play one. So does
    a pair that uses an exposed copy on the first round of the suit (the engine plays the pair
    with the fewest exposed copies, so the follower had no other pair of the suit).
    """
    tricks = _tricks_of(view)
    me = view.seat
    led = 0
    for i, (leader, cards, pair) in enumerate(tricks):
        suit = cards[0] // 13
        first_round = not led >> suit & 1
        led |= 1 << suit
        if not pair:
            continue
        suit_cards = range(suit * 13, suit * 13 + 13)
        for k in range(1, len(cards) // 2):
            seat = (leader + k) & 3
            a, b = cards[2 * k], cards[2 * k + 1]
            if seat == me or a // 13 != suit or b // 13 != suit:
                continue
            if a != b:
                _held_at_most_one(tricks, i, seat, suit_cards, cap)
            elif first_round and (view.exposed_masks[seat] >> a & 1):
                _held_at_most_one(tricks, i, seat, suit_cards, cap, skip=a)


def sample_two_deck_hands(view: PlayerView, rng: np.random.Generator, tries: int = 4
                          ) -> list[Multiset]:
    """Deal the unseen copies to the other seats consistently with the view.

    Returns the four current hands as ``(once, twice)`` multisets, the observer's own as it is.
    The constraints are those of the module docstring. The fast path places the copies of the
    most constrained cards first, each to a random seat with room for it (weighted by the room
    left); after ``tries`` dead ends the exact path places each copy only where the rest can
    still be completed (the cut condition of the flow problem, over the seven sets of other
    seats), so it succeeds on any consistent view and never bends a constraint.
    """
    floor, cap, unseen, room = _constraints(view)
    me = view.seat
    others = [s for s in range(4) if s != me]
    base = [[0] * NUM_CARDS for _ in range(4)]
    left = unseen[:]
    for s in others:
        for c in range(NUM_CARDS):
            f = floor[s][c]
            if f:
                base[s][c] = f
                left[c] -= f
                room[s] -= f
                cap[s][c] -= f
    if min(left) < 0 or min(room) < 0:
        raise ValueError("the view is inconsistent: more exposed copies are held than unseen")
    cards = [c for c in range(NUM_CARDS) if left[c]]
    counts = None
    for _ in range(tries):
        counts = _fast(cards, left, cap, room, others, rng)
        if counts is not None:
            break
    if counts is None:
        counts = _exact(cards, left, cap, room, others, rng)
    out: list[Multiset] = []
    for s in range(4):
        if s == me:
            out.append((view.hand_mask, view.hand_pair_mask))
            continue
        once = twice = 0
        for c in range(NUM_CARDS):
            n = base[s][c] + counts[s][c]
            if n:
                once |= 1 << c
                if n == 2:
                    twice |= 1 << c
        out.append((once, twice))
    return out


def _fast(cards: list[int], left: list[int], cap: list[list[int]], room0: list[int],
          others: list[int], rng: np.random.Generator) -> list[list[int]] | None:
    """One greedy random placement, most constrained cards first; ``None`` at a dead end."""
    ties = rng.random(len(cards)).tolist()
    order = sorted(range(len(cards)),
                   key=lambda i: (sum(1 for s in others if cap[s][cards[i]]), ties[i]))
    room = room0[:]
    counts = [[0] * NUM_CARDS for _ in range(4)]
    draws = rng.random(2 * len(cards)).tolist()
    j = 0
    for i in order:
        c = cards[i]
        for _ in range(left[c]):
            cand = [s for s in others if room[s] > 0 and counts[s][c] < cap[s][c]]
            if not cand:
                return None
            seat = cand[-1]
            r = draws[j] * sum(room[s] for s in cand)
            j += 1
            for s in cand:
                r -= room[s]
                if r < 0:
                    seat = s
                    break
            counts[seat][c] += 1
            room[seat] -= 1
    return counts


def _feasible(cards: list[int], left: list[int], cap: list[list[int]], room: list[int],
              others: list[int]) -> bool:
    """Whether the copies ``left`` can still be dealt within ``cap`` and ``room``.

    Max-flow min-cut: for every set ``T`` of seats, the copies that can reach ``T`` (each card
    at most its copies left, at most the caps of ``T`` for it) must cover ``T``'s room.
    """
    n = len(others)
    for subset in range(1, 1 << n):
        seats = [others[k] for k in range(n) if subset >> k & 1]
        need = sum(room[s] for s in seats)
        have = 0
        for c in cards:
            if left[c]:
                have += min(left[c], sum(cap[s][c] for s in seats))
        if have < need:
            return False
    return True


def _exact(cards: list[int], left0: list[int], cap0: list[list[int]], room0: list[int],
           others: list[int], rng: np.random.Generator) -> list[list[int]]:
    """Place copies one by one, each only where the rest can still be completed."""
    left, room = left0[:], room0[:]
    cap = [row[:] for row in cap0]
    if not _feasible(cards, left, cap, room, others):
        raise ValueError("the view is inconsistent: its unseen copies cannot be dealt to the "
                         "other seats under their hand sizes, voids and shown pairs")
    counts = [[0] * NUM_CARDS for _ in range(4)]
    copies = [c for c in cards for _ in range(left[c])]
    for i in rng.permutation(len(copies)).tolist():
        c = copies[i]
        cand = [s for s in others if room[s] > 0 and cap[s][c] > 0]
        weights = np.array([room[s] for s in cand], dtype=float)
        for k in rng.choice(len(cand), size=len(cand), replace=False, p=weights / weights.sum()):
            seat = cand[int(k)]
            left[c] -= 1
            room[seat] -= 1
            cap[seat][c] -= 1
            if _feasible(cards, left, cap, room, others):
                break
            left[c] += 1
            room[seat] += 1
            cap[seat][c] += 1
        else:  # pragma: no cover - impossible when the start was feasible
            raise RuntimeError("exact sampling reached a dead end")
        counts[seat][c] += 1
    return counts


def build_two_deck_world(view: PlayerView, hands: list[Multiset]) -> Game | None:
    """Build the engine game of a sampled world at the present; ``None`` if it cannot be.

    The world's deal is each current hand plus the copies that seat already played; the view's
    public action history (declarations included) replays on it through ``Game.replay``, so
    every rule is the engine's. The C2 lead is tried first when the rules and the deal allow
    it, then a free lead from the view's first leader (a later hand of a match). The world is
    kept only if the replay is legal throughout and ends with the observer to move with the
    legal actions it sees, the second action of a follow to a pair lead included.
    """
    deal = []
    for s in range(4):
        once, twice = ms_add(hands[s], (view.played_masks[s], view.played_pair_masks[s]))
        deal.append(list(multiset_cards(once, twice)))
    leaders: list[int | None] = [view.first_leader]
    c2_holder = next(s for s in range(4) if C2 in deal[s])
    if c2_holder == view.first_leader and view.hand_number == 0:
        leaders.insert(0, None)
    for leader in leaders:
        try:
            world = Game.replay(deal, view.actions, view.rules, leader=leader)
        except IllegalActionError:
            continue
        if world.current_player == view.seat and world.legal_mask() == view.legal_mask:
            return world
    return None


def sample_two_deck_world(view: PlayerView, rng: np.random.Generator, attempts: int = 8
                          ) -> Game | None:
    """Sample hands and build their world; ``None`` if no draw fits.

    Draws again (``sample_two_deck_hands``) up to ``attempts`` times when the engine refuses
    the replay of the view's history on the sampled deal.
    """
    for _ in range(attempts):
        world = build_two_deck_world(view, sample_two_deck_hands(view, rng))
        if world is not None:
            return world
    return None


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
