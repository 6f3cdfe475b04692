"""Worlds: hidden hands consistent with what one seat has seen, for every table.

A search agent (``pimc``, ``search``) that wants to look ahead deals the cards it has not seen to
the other seats at random, consistently with everything public, and plays the hand out in that
*world*. What "consistent" means is knowledge of the rules, so it lives next to them: one
sampler for every table, one deck or two, three to eight seats.

Every card set is a multiset ``(once, twice)`` (``gongzhu_env.cards.Multiset``); a seat may hold
at most ``rules.decks`` copies of a card. The constraints, per other seat ``s`` and card ``c``,
are a floor and a cap on the copies ``s`` holds now:

* hand sizes: ``rules.hand_size`` minus the copies ``s`` played;
* only cards in play are dealt (``rules.deck_mask``: a card removed at another table size goes
  to nobody), each as often as copies are unseen;
* shown voids (``PlayerView.void_masks``: a seat that did not follow suit, or whose play of an
  exposed card the restriction allows only as its last card of the suit, holds none of it);
* exposed copies not yet played stay with their exposer (a floor);
* a hand's first leader (not a match's later leader) is the lowest seat dealt the lead card,
  so a seat before it holds none and the leader holds one (when it has not played it);
* two decks (what the pair rules of ``gongzhu_env.pair_tricks`` reveal): a follower who
  answered a pair lead with two unpaired cards of the suit held no pair of it then; one who
  played an exposed copy on the first round of its suit had no other card of the suit.

``sample_hands`` places the copies of the most constrained cards first, each on a random seat
with room for it (weighted by the room left); after ``tries`` dead ends the exact path places
each copy only where the rest can still be completed (the cut condition of the flow problem
over the sets of other seats), so it succeeds on any consistent view and never bends a
constraint. ``build_world`` then deals each seat its sampled hand plus what it already played
and replays the view's public history through the engine (``Game.replay``), so every rule the
sampler does not model is still the engine's: a world the engine refuses is not used, and
``sample_world`` draws again.

A world depends on the seat's view only: its own hand, the public record and the random
generator, never on another seat's hidden cards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gongzhu_env.cards import NUM_CARDS, Multiset, ms_add, ms_copies, multiset_cards
from gongzhu_env.engine import Game, IllegalActionError

if TYPE_CHECKING:
    from gongzhu_env.view import PlayerView

__all__ = ["Constraints", "constraints", "sample_hands", "world_deal", "build_world",
           "sample_world"]

Constraints = tuple[list[list[int]], list[list[int]], list[int], list[int]]
"""``(floor, cap, unseen, room)``: ``floor[s][c]`` / ``cap[s][c]`` bound the copies of card ``c``
seat ``s`` holds now, ``unseen[c]`` counts the copies of ``c`` the observer has not seen and
``room[s]`` the cards seat ``s`` holds (0 for the observer, whose hand is known)."""


def constraints(view: PlayerView) -> Constraints:
    """Work out the floors and caps of every other seat's hand (see the module docstring)."""
    rules = view.rules
    n, copies, me = rules.players, rules.decks, view.seat
    hand: Multiset = (view.hand_mask, view.hand_pair_mask)
    played = [(view.played_masks[s], view.played_pair_masks[s]) for s in range(n)]
    seen = hand
    for s in range(n):
        seen = ms_add(seen, played[s])
    deck = rules.deck_mask
    unseen = [copies - ms_copies(seen[0], seen[1], 1 << c) if deck >> c & 1 else 0
              for c in range(NUM_CARDS)]
    room = [0 if s == me else rules.hand_size - played[s][0].bit_count()
            - played[s][1].bit_count() for s in range(n)]
    floor = [[0] * NUM_CARDS for _ in range(n)]
    cap = [[0] * NUM_CARDS if s == me else [copies] * NUM_CARDS for s in range(n)]
    for s in range(n):
        if s == me:
            continue
        voids = view.void_masks[s]
        for suit in range(4):
            if voids >> suit & 1:
                cap[s][suit * 13:suit * 13 + 13] = [0] * 13
        once, twice = view.exposed_masks[s], view.exposed_pair_masks[s]
        m = once
        while m:
            b = m & -m
            m ^= b
            c = b.bit_length() - 1
            left = ms_copies(once, twice, b) - ms_copies(played[s][0], played[s][1], b)
            floor[s][c] = max(0, left)
    if copies > 1:
        _no_pair_caps(view, cap)
        _restricted_play_caps(view, cap, hand, played)
    if view.hand_number == 0:
        # A hand's first leader (not a match's pig taker) is the lowest seat dealt the lead card.
        lead, first = rules.lead_card, view.first_leader
        for s in range(first):
            cap[s][lead] = 0
        if first != me:
            have = ms_copies(played[first][0], played[first][1], 1 << lead)
            floor[first][lead] = max(floor[first][lead], 1 - have)
    return floor, cap, unseen, room


def _tricks_of(view: PlayerView) -> list[tuple[int, tuple[int, ...], bool]]:
    """Every trick of the hand so far as ``(leader, cards, pair_lead)``, the one in progress last.

    A complete two-deck trick has four cards after a single lead and eight after a pair lead.
    """
    seats = view.rules.players
    out = [(t.leader, tuple(t.cards), len(t.cards) == 2 * seats) for t in view.tricks]
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
    me, n = view.seat, view.rules.players
    may_lead = view.rules.exposed_may_lead
    led = 0
    for leader, cards, pair in _tricks_of(view):
        suit = cards[0] // 13
        if led >> suit & 1:
            continue
        led |= 1 << suit
        per = 2 if pair else 1
        for j in range(0, len(cards) - per + 1, per):
            seat = (leader + j // per) % n
            c = cards[j]
            if seat == me or c // 13 != suit or (pair and j) or (j == 0 and may_lead):
                continue
            b = 1 << c
            e = ms_copies(view.exposed_masks[seat], view.exposed_pair_masks[seat], b)
            if not e:
                continue
            if e == 1 and not pair:
                elsewhere = ms_copies(hand[0], hand[1], b) + sum(
                    ms_copies(played[t][0], played[t][1], b) for t in range(n) if t != seat)
                if not elsewhere:
                    continue  # it may have held the unexposed twin and played that
            for c2 in range(suit * 13, suit * 13 + 13):
                if c2 != c:
                    cap[seat][c2] = 0


def _held_at_most_one(tricks: list[tuple[int, tuple[int, ...], bool]], i: int, seat: int,
                      cards: range, cap: list[list[int]], seats: int, skip: int = -1) -> None:
    """Cap ``seat``, which held at most one copy of each of ``cards`` when trick ``i`` began.

    What it holds now plus what it has played of a card from then on is at most one
    (``skip``: a card left out of the statement).
    """
    later = [0] * NUM_CARDS
    for leader, cards2, pair in tricks[i:]:
        per = 2 if pair else 1
        for j, c in enumerate(cards2):
            if (leader + j // per) % seats == seat:
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
    me, n = view.seat, view.rules.players
    led = 0
    for i, (leader, cards, pair) in enumerate(tricks):
        suit = cards[0] // 13
        first_round = not led >> suit & 1
        led |= 1 << suit
        if not pair:
            continue
        suit_cards = range(suit * 13, suit * 13 + 13)
        for k in range(1, len(cards) // 2):
            seat = (leader + k) % n
            a, b = cards[2 * k], cards[2 * k + 1]
            if seat == me or a // 13 != suit or b // 13 != suit:
                continue
            if a != b:
                _held_at_most_one(tricks, i, seat, suit_cards, cap, n)
            elif first_round and (view.exposed_masks[seat] >> a & 1):
                _held_at_most_one(tricks, i, seat, suit_cards, cap, n, skip=a)


def sample_hands(view: PlayerView, rng: np.random.Generator, tries: int = 4) -> list[Multiset]:
    """Deal the unseen copies to the other seats consistently with the view.

    Returns every seat's current hand as a multiset ``(once, twice)``, the observer's own as it
    is (see the module docstring for the constraints and the two paths). Raises ``ValueError``
    when the view itself is inconsistent (its unseen cards cannot be dealt at all).
    """
    floor, cap, unseen, room = constraints(view)
    me, n, copies = view.seat, view.rules.players, view.rules.decks
    others = [s for s in range(n) if s != me]
    base = [[0] * NUM_CARDS for _ in range(n)]
    left = unseen[:]
    for s in others:
        row = floor[s]
        for c in range(NUM_CARDS):
            f = row[c]
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
        counts = _fast(cards, left, cap, room, others, copies, rng)
        if counts is not None:
            break
    if counts is None:
        counts = _exact(cards, left, cap, room, others, rng)
    out: list[Multiset] = []
    for s in range(n):
        if s == me:
            out.append((view.hand_mask, view.hand_pair_mask))
            continue
        once = twice = 0
        for c in range(NUM_CARDS):
            k = base[s][c] + counts[s][c]
            if k:
                once |= 1 << c
                if k == 2:
                    twice |= 1 << c
        out.append((once, twice))
    return out


def _fast(cards: list[int], left: list[int], cap: list[list[int]], room0: list[int],
          others: list[int], copies: int, rng: np.random.Generator) -> list[list[int]] | None:
    """One greedy random placement, most constrained cards first; ``None`` at a dead end."""
    ties = rng.random(len(cards)).tolist()
    order = sorted(range(len(cards)),
                   key=lambda i: (sum(1 for s in others if cap[s][cards[i]]), ties[i]))
    room = room0[:]
    counts = [[0] * NUM_CARDS for _ in range(len(room0))]
    # Drawn up front, one per copy a card can have: the same draws for the same seed whatever
    # the path through the loop.
    draws = rng.random(copies * len(cards)).tolist()
    j = 0
    for i in order:
        c = cards[i]
        for _ in range(left[c]):
            cand = [s for s in others if room[s] > 0 and counts[s][c] < cap[s][c]]
            if not cand:
                return None
            seat = cand[-1]
            if len(cand) > 1:
                # A seat with more room left is proportionally more likely to hold the card.
                r = draws[j] * sum(room[s] for s in cand)
                for s in cand:
                    r -= room[s]
                    if r < 0:
                        seat = s
                        break
            j += 1
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
        raise ValueError("the view is inconsistent: its unseen cards cannot be dealt to the "
                         "other seats under their hand sizes, voids and shown pairs")
    counts = [[0] * NUM_CARDS for _ in range(len(room0))]
    pool = [c for c in cards for _ in range(left[c])]
    for i in rng.permutation(len(pool)).tolist():
        c = pool[i]
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


def world_deal(view: PlayerView, hands: list[Multiset]
               ) -> tuple[list[list[int]], list[int | None]]:
    """Return a sampled world's deal and the first-trick leaders to try when replaying it.

    The deal is each seat's current hand (``hands``) plus the cards it already played. The
    leaders are ``leader=`` arguments of ``Game.from_hands``, in the order ``build_world`` tries
    them: ``None`` (the lead card's holder leads it, forced) when that holder is the view's
    first leader in the hand's first deal, then the view's first leader with a free lead (a
    later hand of a match).
    """
    n = view.rules.players
    if len(hands) != n:
        raise ValueError(f"a world needs one hand per seat ({n}); got {len(hands)}")
    deal = []
    for s in range(n):
        once, twice = ms_add(hands[s], (view.played_masks[s], view.played_pair_masks[s]))
        deal.append(list(multiset_cards(once, twice)))
    lead = view.rules.lead_card
    holder = next(s for s in range(n) if lead in deal[s])
    leaders: list[int | None] = [view.first_leader]
    if holder == view.first_leader and view.hand_number == 0:
        leaders.insert(0, None)
    return deal, leaders


def build_world(view: PlayerView, hands: list[Multiset]) -> Game | None:
    """Build the engine game of a sampled world at the present; ``None`` if it cannot be.

    The view's public action history (declarations included) replays on the world's deal
    (``world_deal``) through ``Game.replay``, so every rule is the engine's. The world is kept
    only if the replay is legal throughout and ends with the observer to move with the legal
    actions it sees (the second card of a follow to a pair lead included).
    """
    deal, leaders = world_deal(view, hands)
    for leader in leaders:
        try:
            world = Game.replay(deal, view.actions, view.rules, leader=leader)
        except IllegalActionError:
            continue
        if world.current_player == view.seat and world.legal_mask() == view.legal_mask:
            return world
    return None


def sample_world(view: PlayerView, rng: np.random.Generator, attempts: int = 8
                 ) -> Game | None:
    """Sample hands and build their world; ``None`` if no draw of ``attempts`` fits."""
    for _ in range(attempts):
        world = build_world(view, sample_hands(view, rng))
        if world is not None:
            return world
    return None
