"""Invariants of a finished two-deck hand (RULES.md 6.11), for ``gongzhu_env.checks``.

Read from the public record (the deal, the declarations, the tricks and the captures) and checked
against the rule book without the engine's bookkeeping: every copy is played once by the seat
dealt it, the first leader is the lowest seat holding a C2 and leads one, leads and follows obey
the pair rules and the per-copy exposure restriction (a play takes the unexposed copy first, a
discard the exposed one, and on a suit's first round a play uses the fewest exposed copies the
rules allow), the best play takes the trick, the taker of each trick takes its scoring cards
and the scores are the two-deck scoring of what was taken.

A broken fact raises ``InvariantViolation`` by an explicit test, never by ``assert``: the checks
must hold under ``python -O`` too, which strips assert statements. ``gongzhu_env.checks``
shares the exception and ``require`` (they live here, the lower of the two modules).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from gongzhu_env.cards import C2, EXPOSABLE, NUM_CARDS, SCORING_MASK, SQ, multiset_masks
from gongzhu_env.engine import Game
from gongzhu_env.scoring import score_two_decks

__all__ = ["InvariantViolation", "check_two_deck_hand", "require"]


class InvariantViolation(AssertionError):
    """A finished hand (or a step of one) breaks a fact of the rule book.

    An ``AssertionError`` so that code written for the checks' earlier ``assert`` form still
    catches it; raised explicitly, so ``python -O`` does not remove it.
    """


def require(ok: object, fact: str) -> None:
    """Raise ``InvariantViolation`` naming ``fact`` unless ``ok`` holds."""
    if not ok:
        raise InvariantViolation(fact)


def _plays(cards: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Split a trick's cards into the four seats' plays (pairs when the lead was a pair)."""
    if len(cards) == 4:
        return [(c,) for c in cards]
    require(len(cards) == 8 and cards[0] == cards[1],
            f"a trick is four single cards or a pair lead; got {len(cards)} cards")
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
            require(in_suit, "a follower to a single lead follows suit if it can")
        return
    if any(n == 2 for n in held.values()):
        require(play[0] == play[1] and play[0] // 13 == led,
                "a follower holding a pair of the led suit plays a pair")
    elif sum(held.values()) >= 2:
        require(len(in_suit) == 2, "a follower with two cards of the led suit plays two of them")
    else:
        require(len(in_suit) == sum(held.values()),
                "a follower short of the led suit plays all it has of it")


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
    """On its suit's first round a play uses the fewest exposed copies an allowed play can.

    A lead is compared with every lead of its suit (a single card or a pair), a follow with
    every play the follow rule allows. So an exposed copy opens its suit only when every card
    of the suit held is exposed, and two exposed copies never open it as a pair (6.11).
    """
    uses, _ = _exposed_used(play, hand, exposed, led)
    if not uses or (leading and may_lead):
        return
    suit = [c for c in hand if c // 13 == led and hand[c]]
    options: Sequence[tuple[int, ...]]
    if leading:
        options = [(c,) for c in suit] + [(c, c) for c in suit if hand[c] == 2]
    elif pair_lead:
        options = _follow_plays(hand, led)
    else:
        options = [(c,) for c in suit]
    fewest = min(_exposed_used(p, hand, exposed, led)[0] for p in options)
    require(uses == fewest, f"on its suit's first round a {'lead' if leading else 'follow'} "
            f"uses the fewest exposed copies it can ({fewest}); this one uses {uses}")


def check_two_deck_hand(g: Game) -> None:
    """Every invariant of a finished two-deck hand that the public record lets one verify.

    Raises ``InvariantViolation`` naming the first broken fact.
    """
    require(g.is_over() and g.legal_actions() == [], "the hand is over")
    deal = [Counter(h) for h in g.deal]
    require(all(sum(h.values()) == 26 for h in deal), "every seat is dealt 26 cards")
    require(sum(deal, Counter()) == Counter({c: 2 for c in range(NUM_CARDS)}),
            "every card is dealt twice")
    exposed = [Counter(e) for e in g.exposed]
    for seat in range(4):
        for c, n in exposed[seat].items():
            require(c in EXPOSABLE and n <= deal[seat][c],
                    f"a seat exposes only copies it holds (seat {seat}, {n} x card {c})")
    hands = [h.copy() for h in deal]
    # The exposed copies each seat still holds, for the per-copy restriction.
    held_exposed = [e.copy() for e in exposed]
    may_lead = g.rules.exposed_may_lead
    captured: list[Counter[int]] = [Counter() for _ in range(4)]
    tricks = g.tricks
    if not g.free_first_lead:
        require(g.first_leader == min(s for s in range(4) if deal[s][C2]),
                "the first leader is the lowest seat holding a C2")
        require(tricks[0].cards[0] == C2, "the first lead holds C2")
    require(tricks[0].leader == g.first_leader, "the first leader leads the first trick")
    first_pig = None
    suits_led: set[int] = set()
    for i, t in enumerate(tricks):
        plays = _plays(t.cards)
        pair_lead = len(plays[0]) == 2
        led = plays[0][0] // 13
        for k, play in enumerate(plays):
            seat = (t.leader + k) % 4
            hand = hands[seat]
            require(all(hand[c] >= play.count(c) for c in play),
                    f"a play comes from the hand (trick {i}, seat {seat})")
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
        require(t.winner == (t.leader + ranks.index(best)) % 4,
                f"the best play (the earlier of equals) takes the trick (trick {i})")
        if i + 1 < len(tricks):
            require(tricks[i + 1].leader == t.winner, f"the winner leads next (trick {i + 1})")
        scoring = [c for c in t.cards if SCORING_MASK >> c & 1]
        captured[t.winner].update(scoring)
        if first_pig is None and SQ in scoring:
            first_pig = t.winner
    require(all(not +h for h in hands), "every card is played")
    for seat in range(4):
        require(Counter(g.captured[seat]) == captured[seat],
                f"the taker takes the scoring cards (seat {seat})")
    table = multiset_masks(c for e in g.exposed for c in e)
    expected = [score_two_decks(multiset_masks(captured[s].elements()), table) for s in range(4)]
    require(g.scores() == expected, f"scores are the two-deck scoring of what was taken: "
            f"expected {expected}, the hand says {g.scores()}")
    require(g.first_pig_taker == first_pig, "the first SQ's taker is recorded")
    require(g.teams == (((0, 2), (1, 3)) if g.rules.team_play else None),
            "the teams are the fixed partners with team play, none without")
