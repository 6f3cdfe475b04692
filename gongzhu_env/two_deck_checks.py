"""Invariants of a finished two-deck hand (RULES.md 6.11), for ``gongzhu_env.checks``.

Read from the public record (the deal, the declarations, the tricks and the captures) and checked
against the rule book without the engine's bookkeeping: every copy is played once by the seat
dealt it, the first leader is the lowest seat holding a C2 and leads one, leads and follows obey
the pair rules and the per-copy exposure restriction (a play takes the unexposed copy first, a
discard the exposed one), the best play takes the trick, the taker of each trick takes its
scoring cards and the scores are the two-deck scoring of what was taken.
"""

from __future__ import annotations

from collections import Counter

from gongzhu_env.cards import C2, EXPOSABLE, NUM_CARDS, SCORING_MASK, SQ, multiset_masks
from gongzhu_env.scoring import score_two_decks
from gongzhu_env.state import GameState

__all__ = ["check_two_deck_hand"]


def _plays(cards: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Split a trick's cards into the four seats' plays (pairs when the lead was a pair)."""
    if len(cards) == 4:
        return [(c,) for c in cards]
    assert len(cards) == 8 and cards[0] == cards[1], "a trick is four single cards or a pair lead"
    return [cards[i:i + 2] for i in range(0, 8, 2)]


def _rank(play: tuple[int, ...], suit: int) -> tuple[int, int, int] | None:
    """How strong a play is in a trick led in ``suit``; ``None`` for a discard."""
    if any(c // 13 != suit for c in play):
        return None
    if len(play) == 1:
        return 0, play[0], 0
    paired = play[0] == play[1]
    # Diamonds: a pair beats two unpaired cards; elsewhere it loses to them.
    return int(paired if suit == 1 else not paired), max(play), min(play)


def _check_follow(hand: Counter[int], play: tuple[int, ...], led: int, pair_lead: bool) -> None:
    in_suit = [c for c in play if c // 13 == led]
    held = Counter({c: n for c, n in hand.items() if c // 13 == led and n})
    if not pair_lead:
        if held:
            assert in_suit, "a follower to a single lead follows suit if it can"
        return
    if any(n == 2 for n in held.values()):
        assert play[0] == play[1] and play[0] // 13 == led, \
            "a follower holding a pair of the led suit plays a pair"
    elif sum(held.values()) >= 2:
        assert len(in_suit) == 2, "a follower with two cards of the led suit plays two of them"
    else:
        assert len(in_suit) == sum(held.values()), \
            "a follower short of the led suit plays all it has of it"


def _exposed_used(play: tuple[int, ...], hand: Counter[int], exposed: Counter[int],
                  led: int) -> tuple[int, Counter[int]]:
    """How many exposed copies ``play`` uses in the led suit, and every exposed copy it uses.

    6.11: a card played in the led suit (or led) is its unexposed copy first, a discard its
    exposed copy first.
    """
    used: Counter[int] = Counter()
    in_suit = 0
    for c, n in Counter(play).items():
        if c // 13 == led:
            used[c] = max(0, n - (hand[c] - exposed[c]))
            in_suit += used[c]
        else:
            used[c] = min(n, exposed[c])
    return in_suit, used


def _follow_plays(hand: Counter[int], led: int) -> list[tuple[int, int]]:
    """Every two-card play the follow rule allows a follower to a pair lead (exposure aside)."""
    cards = sorted(hand.elements())
    plays = {(a, b) for i, a in enumerate(cards) for b in cards[i + 1:]}
    suit = {c: n for c, n in hand.items() if c // 13 == led and n}
    if any(n == 2 for n in suit.values()):
        return [p for p in plays if p[0] == p[1] and p[0] // 13 == led]
    need = min(2, sum(suit.values()))
    return [p for p in plays if sum(c // 13 == led for c in p) == need]


def _check_restriction(hand: Counter[int], exposed: Counter[int], play: tuple[int, ...],
                       led: int, leading: bool, pair_lead: bool, may_lead: bool) -> None:
    """On its suit's first round an exposed copy is played only when no allowed play avoids it."""
    uses, _ = _exposed_used(play, hand, exposed, led)
    if not uses:
        return
    if leading:
        if may_lead:
            return
        assert all(hand[c] == exposed[c] for c in hand if c // 13 == led and hand[c]), \
            "an exposed copy opens its suit only when every card of the suit held is exposed"
        return
    if pair_lead:
        options = _follow_plays(hand, led)
    else:
        options = [(c,) for c in hand if c // 13 == led and hand[c]]
    fewest = min(_exposed_used(p, hand, exposed, led)[0] for p in options)
    assert uses == fewest, "an exposed copy is held back on its suit's first round"


def check_two_deck_hand(g: GameState) -> None:
    """Every invariant of a finished two-deck hand that the public record lets one verify."""
    assert g.is_over() and g.legal_actions() == [], "the hand is over"
    deal = [Counter(h) for h in g.deal]
    assert all(sum(h.values()) == 26 for h in deal), "every seat is dealt 26 cards"
    assert sum(deal, Counter()) == Counter({c: 2 for c in range(NUM_CARDS)}), "every card twice"
    exposed = [Counter(e) for e in g.exposed]
    for seat in range(4):
        for c, n in exposed[seat].items():
            assert c in EXPOSABLE and n <= deal[seat][c], "a seat exposes only copies it holds"
    hands = [h.copy() for h in deal]
    # The exposed copies each seat still holds, for the per-copy restriction.
    held_exposed = [e.copy() for e in exposed]
    may_lead = g.rules.exposed_may_lead
    captured: list[Counter[int]] = [Counter() for _ in range(4)]
    tricks = g.tricks
    if not g.free_first_lead:
        assert g.first_leader == min(s for s in range(4) if deal[s][C2]), \
            "the first leader is the lowest seat holding a C2"
        assert C2 in tricks[0].cards[:2] and tricks[0].cards[0] == C2, "the first lead holds C2"
    assert tricks[0].leader == g.first_leader
    first_pig = None
    suits_led: set[int] = set()
    for i, t in enumerate(tricks):
        plays = _plays(t.cards)
        pair_lead = len(plays[0]) == 2
        led = plays[0][0] // 13
        for k, play in enumerate(plays):
            seat = (t.leader + k) % 4
            hand = hands[seat]
            assert all(hand[c] >= play.count(c) for c in play), "a play comes from the hand"
            if k:
                _check_follow(hand, play, led, pair_lead)
            if led not in suits_led:
                _check_restriction(hand, held_exposed[seat], play, led, k == 0, pair_lead,
                                   may_lead)
            held_exposed[seat].subtract(_exposed_used(play, hand, held_exposed[seat], led)[1])
            hand.subtract(play)
        suits_led.add(led)
        ranks = [_rank(p, led) for p in plays]
        best = max(r for r in ranks if r is not None)
        assert t.winner == (t.leader + ranks.index(best)) % 4, "the best play (the earlier of " \
            "equals) takes the trick"
        if i + 1 < len(tricks):
            assert tricks[i + 1].leader == t.winner, "the winner leads next"
        scoring = [c for c in t.cards if SCORING_MASK >> c & 1]
        captured[t.winner].update(scoring)
        if first_pig is None and SQ in scoring:
            first_pig = t.winner
    assert all(not +h for h in hands), "every card is played"
    for seat in range(4):
        assert Counter(g.captured[seat]) == captured[seat], "the taker takes the scoring cards"
    table = multiset_masks(c for e in g.exposed for c in e)
    expected = [score_two_decks(multiset_masks(captured[s].elements()), table) for s in range(4)]
    assert g.scores() == expected, "scores are the two-deck scoring of what was taken"
    assert g.first_pig_taker == first_pig, "the first SQ's taker is recorded"
    assert g.teams == (((0, 2), (1, 3)) if g.rules.team_play else None)
