"""The trick rules of two decks (拱双猪, RULES.md 6.11): pair leads and two-card follows.

This is the one part of a hand that differs between one deck and two: which plays are legal,
and which play wins a trick. The functions take masks and return masks, so the rules of play
read here as rules and not as state keeping. ``PairState`` is the state only two decks have
(the second copies of every multiset ``(once, twice)``, ``gongzhu_env.cards.Multiset``, and
the pair trick in progress): a two-deck ``Game`` holds one and asks it, a one-deck game holds
none.

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
    SCORING_MASK,
    SUIT_MASKS,
    card_str,
    cards_of,
    ms_put,
    ms_size,
    ms_take,
    multiset_cards,
)

__all__ = ["PAIR", "PairState", "play_key", "trick_winner", "unled_cards", "restricted",
           "lead_legal", "follow_legal", "follow_plays", "first_cards", "second_cards", "rule_text"]

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



class PairState:
    """What only a two-deck hand keeps: the second copies and the pair trick in progress.

    A two-deck ``Game`` holds one (``Game._two``); a one-deck game holds ``None``, so its
    state, its ``clone`` and its hot path carry nothing of two decks. ``Game`` keeps the cards
    held, exposed, taken and played at least once (its one-deck masks); this object keeps the
    second masks of those multisets (``hand2`` ...: the cards held twice ...) and the rules'
    state of a trick: the plays so far, whether it was led with a pair, a follower's first
    card of two (``pending``) with the cards that may complete it (``second``), and the led
    suit (``suit``). The methods take the game's once-masks as arguments (lists are updated
    in place) and apply the functions above, so the two-deck rules of play live in this
    module.
    """

    __slots__ = ("deal2", "hand2", "exposed2", "exposed_all2", "captured2", "played2",
                 "xheld", "xheld2", "plays", "pair_lead", "pending", "second", "suit")

    deal2: tuple[int, ...]
    """The cards each seat was dealt twice (``Game.deal`` joins them to the once-masks)."""
    hand2: list[int]
    exposed2: list[int]
    exposed_all2: int
    captured2: list[int]
    played2: list[int]
    xheld: list[int]
    """With ``xheld2``: the multiset of exposed copies each seat still holds."""
    xheld2: list[int]
    plays: list[tuple[int, ...]]
    """The trick's plays in order: one card each, or two after a pair lead (sorted)."""
    pair_lead: bool
    pending: int
    second: int
    suit: int

    def __init__(self, hands2: list[int]) -> None:
        n = len(hands2)
        self.deal2 = tuple(hands2)
        self.hand2 = hands2
        self.exposed2 = [0] * n
        self.exposed_all2 = 0
        self.captured2 = [0] * n
        self.played2 = [0] * n
        self.xheld = [0] * n
        self.xheld2 = [0] * n
        self.plays = []
        self.pair_lead = False
        self.pending = -1
        self.second = 0
        self.suit = -1

    def clone(self) -> PairState:
        """Return an independent copy (the lists are copied)."""
        c = object.__new__(PairState)
        c.deal2 = self.deal2
        c.hand2 = self.hand2[:]
        c.exposed2 = self.exposed2[:]
        c.exposed_all2 = self.exposed_all2
        c.captured2 = self.captured2[:]
        c.played2 = self.played2[:]
        c.xheld = self.xheld[:]
        c.xheld2 = self.xheld2[:]
        c.plays = self.plays[:]
        c.pair_lead = self.pair_lead
        c.pending = self.pending
        c.second = self.second
        c.suit = self.suit
        return c

    def expose(self, seat: int, bit: int, exposed: int, exposed_all: int) -> tuple[int, int]:
        """Record ``seat``'s exposure of one copy of the card ``bit``.

        ``exposed`` and ``exposed_all`` are the game's once-masks of the seat's and everyone's
        exposures; their new values are returned. The copy also joins the exposed copies the
        seat holds, which the first-round restriction reads.
        """
        exposed, self.exposed2[seat] = ms_put(exposed, self.exposed2[seat], bit)
        exposed_all, self.exposed_all2 = ms_put(exposed_all, self.exposed_all2, bit)
        self.xheld[seat], self.xheld2[seat] = ms_put(self.xheld[seat], self.xheld2[seat], bit)
        return exposed, exposed_all

    def legal(self, p: int, hand: int, suits_led: int, first_lead: int, may_lead: bool) -> int:
        """Return what seat ``p``, holding ``hand`` once, may play now.

        ``first_lead`` is the lead card's bit when this is the hand's first lead and it must
        contain that card (alone, or as the pair), else 0.
        """
        hand2 = self.hand2[p]
        if not self.plays:
            if first_lead:
                return first_lead | (hand2 & first_lead) << NUM_CARDS
            return lead_legal(hand, hand2, self.xheld[p], self.xheld2[p], suits_led, may_lead)
        if not self.pair_lead:
            only_exposed = restricted(hand2, self.xheld[p], self.xheld2[p], suits_led)
            return follow_legal(hand, SUIT_MASKS[self.suit], only_exposed)
        if self.pending >= 0:
            return self.second
        return first_cards(self.follow_plays(p, hand, suits_led))

    def follow_plays(self, p: int, hand: int, suits_led: int) -> list[tuple[int, int]]:
        """Every legal two-card play of seat ``p`` (holding ``hand`` once) to the pair lead."""
        return follow_plays(hand, self.hand2[p], self.xheld[p], self.xheld2[p], self.suit,
                            suits_led)

    def play(self, p: int, action: int, hands: list[int], played: list[int], voids: list[int],
             trick: list[int], suits_led: int) -> bool:
        """Apply seat ``p``'s legal ``action``: a single card, a pair lead, one card of two.

        ``hands``, ``played`` and ``voids`` are the game's per-seat once-masks and void
        masks, ``trick`` its cards on the table; all are updated in place. Returns whether
        ``p`` still owes the second card of a two-card follow (``second`` holds what may
        complete it).
        """
        plays = self.plays
        if not plays:
            # A lead: one card, or a pair (``PAIR + k``).
            pair = action >= PAIR
            card = action - PAIR if pair else action
            self.pair_lead = pair
            self.suit = card // 13
            self._take_copy(p, card, hands, played, voids, trick)
            if pair:
                self._take_copy(p, card, hands, played, voids, trick)
                plays.append((card, card))
            else:
                plays.append((card,))
        elif not self.pair_lead:
            self._take_copy(p, action, hands, played, voids, trick)
            plays.append((action,))
        elif self.pending < 0:
            # The first card of a two-card follow. An off-suit card here does not yet show a
            # void (the seat may still hold one card of the suit): the completed play does.
            self.second = second_cards(self.follow_plays(p, hands[p], suits_led), action)
            self._take_copy(p, action, hands, played, voids, trick, shows_void=False)
            self.pending = action
            return True
        else:
            self._take_copy(p, action, hands, played, voids, trick, shows_void=False)
            suit, first = self.suit, self.pending
            if action // 13 != suit or first // 13 != suit:
                # A discard in a two-card follow: the seat had at most one card of the suit
                # and has played it (the follow rule), so it holds none now.
                voids[p] |= 1 << suit
            plays.append((min(first, action), max(first, action)))
            self.pending = -1
            self.second = 0
        return False

    def _take_copy(self, p: int, card: int, hands: list[int], played: list[int],
                   voids: list[int], trick: list[int], shows_void: bool = True) -> None:
        """Move one copy of ``card`` from seat ``p``'s hand to the trick.

        The copy is the unexposed one when the card follows or leads its suit and the exposed
        one when it is discarded (6.11); an off-suit card also shows the seat void in the led
        suit (``shows_void``; a two-card follow decides that once both cards are played).
        """
        bit = 1 << card
        in_suit = card // 13 == self.suit
        x1, x2 = self.xheld[p], self.xheld2[p]
        if x1 & bit and (not in_suit or (x2 & bit) == (self.hand2[p] & bit)):
            # An exposed copy leaves: every copy held is exposed, or the card is discarded.
            self.xheld[p], self.xheld2[p] = ms_take(x1, x2, bit)
        hands[p], self.hand2[p] = ms_take(hands[p], self.hand2[p], bit)
        played[p], self.played2[p] = ms_put(played[p], self.played2[p], bit)
        trick.append(card)
        if not in_suit and shows_void:
            voids[p] |= 1 << self.suit

    def end_trick(self, leader: int, seats: int, captured: list[int], trick: list[int]
                  ) -> tuple[int, bool]:
        """Give the complete trick to its winner and clear it for the next lead.

        ``captured`` is the game's once-masks of taken scoring cards (updated in place).
        Returns the winning seat and whether it took any scoring card.
        """
        winner = (leader + trick_winner(self.plays, self.suit, self.pair_lead)) % seats
        cap, cap2 = captured[winner], self.captured2[winner]
        for c in trick:
            bit = 1 << c
            if bit & SCORING_MASK:
                cap, cap2 = ms_put(cap, cap2, bit)
        taken = cap != captured[winner] or cap2 != self.captured2[winner]
        captured[winner], self.captured2[winner] = cap, cap2
        self.plays = []
        self.pair_lead = False
        self.suit = -1
        return winner, taken

    def why_pair_illegal(self, seat: int, card: int) -> str:
        """Why seat ``seat`` may not lead the pair of ``card`` now (for ``IllegalActionError``)."""
        if self.plays:
            return (": only the leader may lead a pair; a follower plays its two cards one "
                    "action at a time")
        if not self.hand2[seat] >> card & 1:
            return f": seat {seat} does not hold two copies of {card_str(card)}"
        return ""

    def why_follow_illegal(self, seat: int, hand: int, suits_led: int) -> str:
        """Why a held card is refused to a pair lead, naming the follow rule; else ``""``."""
        if self.pending < 0 and not self.pair_lead:
            return ""
        suit = self.suit
        rule = rule_text(hand, self.hand2[seat], self.pending, suit,
                         bool(self.xheld[seat] & SUIT_MASKS[suit])
                         and not suits_led >> suit & 1)
        if self.pending >= 0:
            return (f": with {card_str(self.pending)} it would not make a legal play to the "
                    f"pair lead ({rule})")
        return f": no legal play to the pair lead starts with it ({rule})"
