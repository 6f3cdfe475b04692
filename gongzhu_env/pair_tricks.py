"""The trick rules of two decks (拱双猪, RULES.md 6.11): pair leads and two-card follows.

This is the one part of a hand that differs between one deck and two: which plays are legal,
and which play wins a trick. ``Game`` keeps the state (every card set there is a multiset
``(once, twice)``, ``gongzhu_env.cards.Multiset``) and asks these functions, which take masks
and return masks, so the rules of play read here as rules and not as state keeping.

Actions (``rules.num_actions`` = 105): ``0..51`` one copy of that card (expose it while
declaring, play it); ``52 + k`` lead a pair of card ``k``; ``104`` DONE. A follower to a pair
lead plays its two cards as two actions in a row and stays ``current_player`` in between.

Readings of 6.11 that the rule book leaves open, as implemented:

* The exposed-copy restriction. On the first trick led in its suit, a play, led or followed,
  uses the fewest exposed copies that the rules allow: a lead that uses an exposed copy is
  legal only when every card of that suit in hand is an exposed copy, and then only as one
  card, never as the pair of both exposed copies (``exposed_may_lead`` lifts the lead
  restriction); a follower plays, among the plays the follow rule allows, those that use the
  fewest exposed copies. Which copy a play uses is fixed by 6.11: a play in
  the led suit takes the unexposed copy first, a discard the exposed one.
* Following a pair lead: holding a pair of the led suit, a pair of the led suit (any); else,
  holding two or more cards of the suit, two of them; else every card of the suit plus
  discards. Either card of a two-card play may come first.
* Voids: a seat that plays a card of another suit to a trick has shown that it holds no card
  of the led suit. In a two-card follow that is recorded once both cards are played: after a
  discard as the first card the seat may still hold one card of the suit.
* The first leader (unless the first lead is free) is the lowest seat holding a C2 (the deal
  gives the shuffled 104 cards to the seats in blocks of 26, so it is also the first seat
  dealt a C2); its lead must contain C2: C2 alone or the pair of C2.
"""

from __future__ import annotations

from gongzhu_env.cards import (
    NUM_CARDS,
    SUIT_MASKS,
    cards_of,
    ms_put,
    ms_size,
    multiset_cards,
)

__all__ = ["PAIR", "play_key", "trick_winner", "unled_cards", "restricted", "lead_legal",
           "follow_legal", "follow_plays", "first_cards", "second_cards", "rule_text"]

PAIR = NUM_CARDS
"""``PAIR + k`` is the action "lead the pair of card ``k``"."""


def play_key(cards: tuple[int, ...], suit: int) -> tuple[int, int, int] | None:
    """Rank of a two-card play to a pair-led trick of ``suit``; ``None`` for a discard.

    Two unpaired cards compare by the higher card, then the lower. A pair ranks below any two
    unpaired cards in clubs, hearts and spades and above them in diamonds (6.11).
    """
    a, b = cards
    if a // 13 != suit or b // 13 != suit:
        return None
    hi, lo = max(a, b), min(a, b)
    paired = a == b
    klass = int(paired) if suit == 1 else int(not paired)
    return klass, hi, lo


def trick_winner(plays: list[tuple[int, ...]], suit: int, pair_lead: bool) -> int:
    """Return the index (in play order) of the play that wins a complete trick.

    A single-card trick goes to the highest card of the led suit; a pair-led trick to the
    best two-card play by ``play_key``; between equal keys the earlier play keeps it.
    """
    w = 0
    if pair_lead:
        best = play_key(plays[0], suit)
        for i in range(1, len(plays)):
            key = play_key(plays[i], suit)
            if key is not None and best is not None and key > best:
                best, w = key, i
        return w
    top = suit * 13 + 13
    best_card = plays[0][0]
    for i in range(1, len(plays)):
        c = plays[i][0]
        if best_card < c < top:
            best_card, w = c, i
    return w


def unled_cards(suits_led: int) -> int:
    """Return the cards of the suits not led yet (the first-round restriction's reach)."""
    return sum(SUIT_MASKS[s] for s in range(4) if not suits_led >> s & 1)


def restricted(hand2: int, xheld: int, xheld2: int, suits_led: int) -> int:
    """Return the cards a seat could play in their suit only with an exposed copy.

    ``(xheld, xheld2)`` is the multiset of exposed copies the seat still holds, ``hand2`` the
    cards it holds twice. Only suits not led yet count: the restriction covers the first
    round of a suit.
    """
    if not xheld:
        return 0
    return (xheld & ~hand2 | xheld2) & unled_cards(suits_led)


def lead_legal(hand: int, hand2: int, xheld: int, xheld2: int, suits_led: int,
               may_lead: bool) -> int:
    """Return the leads allowed from ``(hand, hand2)``: single cards, and pairs at ``PAIR + k``.

    (The first lead of a hand, which must contain C2, is the caller's: it knows the hand's
    history.)
    """
    legal = hand | hand2 << NUM_CARDS
    if may_lead or not xheld:
        return legal
    # A lead in a suit not led yet uses the fewest exposed copies a lead of that suit can
    # (6.11). A pair with an exposed copy never does: one copy of the same card uses one
    # exposed copy fewer. A single card whose every copy in hand is exposed is legal only
    # when every card of its suit in hand is such a card (as one deck's only-card rule).
    legal &= ~((xheld & hand2 & unled_cards(suits_led)) << NUM_CARDS)
    only_exposed = restricted(hand2, xheld, xheld2, suits_led)
    for suit in SUIT_MASKS:
        if only_exposed & suit and hand & suit & ~only_exposed:
            legal &= ~(only_exposed & suit)
    return legal


def follow_legal(hand: int, led_mask: int, only_exposed: int) -> int:
    """Return what a follower to a single-card lead may play (one card, as with one deck).

    ``only_exposed`` is ``restricted(...)`` of the follower.
    """
    legal = hand & led_mask
    if not legal:
        return hand
    restricted_here = legal & only_exposed
    if restricted_here and legal != restricted_here:
        legal ^= restricted_here
    return legal


def follow_plays(once: int, twice: int, xheld: int, xheld2: int, led_suit: int,
                 suits_led: int) -> list[tuple[int, int]]:
    """Every legal two-card play of a follower holding ``(once, twice)`` to a pair lead.

    Each play is a sorted card pair.
    """
    suit = SUIT_MASKS[led_suit]
    s_once, s_twice = once & suit, twice & suit
    only_exposed = restricted(twice, xheld, xheld2, suits_led) & suit
    if s_twice:
        # Holding a pair of the led suit: a pair, with the fewest exposed copies.
        cands = s_twice
        if not suits_led >> led_suit & 1:
            cands = s_twice & ~xheld or s_twice & ~xheld2 or s_twice
        return [(c, c) for c in cards_of(cands)]
    n = ms_size(s_once, s_twice)
    if n >= 2:
        # Two cards of the suit (all different here), with the fewest exposed copies.
        free = s_once & ~only_exposed
        if free.bit_count() >= 2:
            pool = cards_of(free)
            return [(a, b) for i, a in enumerate(pool) for b in pool[i + 1:]]
        if free:
            u = cards_of(free)[0]
            return [(min(u, r), max(u, r)) for r in cards_of(only_exposed)]
        pool = cards_of(only_exposed)
        return [(a, b) for i, a in enumerate(pool) for b in pool[i + 1:]]
    rest = multiset_cards(once & ~suit, twice & ~suit)
    if n == 1:
        u = cards_of(s_once)[0]
        return [(min(u, d), max(u, d)) for d in set(rest)]
    # Void in the led suit: any two cards.
    out = set()
    for i, a in enumerate(rest):
        for b in rest[i + 1:]:
            out.add((a, b))
    return sorted(out)


def first_cards(plays: list[tuple[int, int]]) -> int:
    """Return the cards that may start one of ``plays`` (either card may come first)."""
    first = 0
    for a, b in plays:
        first |= 1 << a | 1 << b
    return first


def second_cards(plays: list[tuple[int, int]], first: int) -> int:
    """Return the cards that complete one of ``plays`` whose first card is ``first``."""
    out = 0
    for a, b in plays:
        if a == first:
            out |= 1 << b
        elif b == first:
            out |= 1 << a
    return out


def rule_text(once: int, twice: int, pending: int, led_suit: int, exposed_restricts: bool
              ) -> str:
    """Say what the follow rule asks of a seat holding ``(once, twice)`` (for error messages).

    ``pending`` is the first card of its two already played (counted back in: the rule applies
    to the hand before the play), else -1; ``exposed_restricts`` whether the first-round
    restriction on exposed copies applies to it.
    """
    suit = SUIT_MASKS[led_suit]
    once, twice = once & suit, twice & suit
    if pending >= 0:
        once, twice = ms_put(once, twice, 1 << pending & suit)
    name = "CDHS"[led_suit]
    if twice:
        rule = f"holding a pair of {name}, a pair of {name} is required"
    elif ms_size(once, twice) >= 2:
        rule = f"holding two or more {name} and no pair, two {name} are required"
    else:
        rule = f"short of {name}, every {name} held is played, the rest discards"
    if exposed_restricts:
        rule += "; on the suit's first round an exposed copy only if no play avoids it"
    return rule

