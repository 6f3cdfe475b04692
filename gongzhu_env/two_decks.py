"""Two decks (拱双猪, RULES.md 6.11): 104 cards, 26 per seat, pairs led and followed.

``TwoDeckGame`` is what ``Game(rules)`` and ``Game.from_hands(hands, rules)`` build when
``rules.decks == 2``; it is a ``Game`` with the same public surface, so the env, the views,
``Match``, the renderers and the agents drive it the same way. Only the rules that differ from
the one-deck game are written here; scoring is ``gongzhu_env.scoring.score_two_decks``.

State: every multiset of cards (a hand, a seat's exposures, captures and plays) is a pair of
52-bit masks, ``once`` (the card is there at least once) and ``twice`` (it is there twice).
The one-deck mask accessors (``hand_masks`` ...) give the ``once`` masks and the
``*_pair_masks`` accessors the ``twice`` ones, so a reader that only asks "which cards" keeps
working and one that needs counts adds the two.

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
* The first leader (unless the first lead is free) is the lowest seat holding a C2 (``Game``
  deals the shuffled 104 cards to the seats in blocks of 26, so it is also the first seat dealt
  a C2); its lead must contain C2: C2 alone or the pair of C2.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gongzhu_env.cards import (
    C2,
    EXPOSABLE_MASK,
    NUM_CARDS,
    SCORING_MASK,
    SQ,
    SUIT_MASKS,
    action_str,
    actions_of,
    card_str,
    cards_of,
    multiset_cards,
)
from gongzhu_env.engine import IMPLEMENTATIONS, Game, IllegalActionError, deal_cards
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import score_two_decks
from gongzhu_env.state import PHASES, Trick

__all__ = ["TwoDeckGame", "play_key", "PAIR", "DONE2", "NUM_ACTIONS2", "HAND_SIZE2"]

NUM_SEATS = 4
_RULES2 = Rules(decks=2)
HAND_SIZE2 = _RULES2.hand_size
PAIR = NUM_CARDS
"""``PAIR + k`` is the action "lead the pair of card ``k``"."""
DONE2 = _RULES2.done_action
"""The DONE action of the two-deck game (104)."""
NUM_ACTIONS2 = _RULES2.num_actions
_DONE_BIT = 1 << DONE2
_C2_BIT = 1 << C2
_DECLARE, _PLAY, _OVER = 0, 1, 2


def _take(once: int, twice: int, bit: int) -> tuple[int, int]:
    """Remove one copy of the card ``bit`` from the multiset ``(once, twice)``."""
    if twice & bit:
        return once, twice ^ bit
    return once ^ bit, twice


def _put(once: int, twice: int, bit: int) -> tuple[int, int]:
    """Add one copy of the card ``bit`` to the multiset ``(once, twice)``."""
    if once & bit:
        return once, twice | bit
    return once | bit, twice


def _count(once: int, twice: int) -> int:
    return once.bit_count() + twice.bit_count()


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


class TwoDeckGame(Game):
    """One hand of the two-deck game. Build it through ``Game`` (see the module docstring)."""

    __slots__ = (
        "_hand2", "_exposed2", "_exposed_all2", "_captured2", "_played2", "_xheld", "_xheld2",
        "_plays", "_pair_lead", "_pending", "_second", "_first_pig",
    )

    def __init__(self, rules: Rules | str | None = None, seed: int | None = None, *,
                 rng: np.random.Generator | None = None, leader: int | None = None) -> None:
        if rng is None:
            rng = np.random.default_rng(seed)
        elif seed is not None:
            raise ValueError("pass either seed= or rng=, not both")
        rules = Rules.coerce(rules)
        # Copies 0..103 stand for card ``i % 52``; seat s gets block s of 26 copies.
        deck = rng.permutation(2 * NUM_CARDS) % NUM_CARDS
        hands = [[int(c) for c in deck[s * HAND_SIZE2:(s + 1) * HAND_SIZE2]]
                 for s in range(NUM_SEATS)]
        self._setup2(rules, _validate_two_deck_hands(hands), leader)

    @classmethod
    def from_hands(cls, hands: Sequence[Sequence[int | str]], rules: Rules | str | None = None,
                   *, leader: int | None = None,
                   first_drawn: Sequence[int | str] | None = None) -> TwoDeckGame:
        """Start from a given deal: four hands of 26 in which every card appears twice."""
        rules = Rules.coerce(rules)
        if rules.decks != 2:
            raise ValueError("TwoDeckGame needs rules with decks=2")
        if first_drawn is not None:
            raise ValueError("first_drawn only applies to first_drawn_exposure, which two "
                             "decks do not have")
        game = object.__new__(cls)
        game._setup2(rules, _validate_two_deck_hands(hands), leader)
        return game

    def _setup2(self, rules: Rules, hands: list[tuple[int, int]], leader: int | None) -> None:
        first_leader = leader if leader is not None else \
            next(s for s in range(NUM_SEATS) if hands[s][0] & _C2_BIT)
        self._setup(rules, [h[0] for h in hands], leader, None)
        self._first_leader = self._current = self._trick_leader = first_leader
        self._hand2 = [h[1] for h in hands]
        self._deal = tuple(hands)  # type: ignore[assignment]
        self._exposed2 = [0, 0, 0, 0]
        self._exposed_all2 = 0
        self._captured2 = [0, 0, 0, 0]
        self._played2 = [0, 0, 0, 0]
        self._xheld = [0, 0, 0, 0]
        self._xheld2 = [0, 0, 0, 0]
        self._plays: list[tuple[int, ...]] = []
        self._pair_lead = False
        self._pending = -1
        self._second = 0
        self._first_pig = -1

    def _setup_variants(self, rules: Rules, hands: list[int],
                        first_drawn: tuple[int, ...] | None) -> None:
        # Two decks allow only team play, the first-lead, declaration and exposed-lead options
        # (``Rules`` refuses the rest), so only these flags are needed.
        self._restrictable = EXPOSABLE_MASK
        self._strict = self._colour = False
        self._may_lead = rules.exposed_may_lead
        self._teams = ((0, 2), (1, 3)) if rules.team_play else None
        if rules.declaration != "free":
            self._phase = _PLAY

    def _expose(self, seat: int, card: int) -> None:
        bit = 1 << card
        self._exposed[seat], self._exposed2[seat] = _put(self._exposed[seat],
                                                         self._exposed2[seat], bit)
        self._exposed_all, self._exposed_all2 = _put(self._exposed_all, self._exposed_all2, bit)
        self._xheld[seat], self._xheld2[seat] = _put(self._xheld[seat], self._xheld2[seat], bit)
        self._declarations.append((seat, card))
        self._prov = None

    # ------------------------------------------------------------------ public state
    @property
    def hands(self) -> tuple[tuple[int, ...], ...]:
        """Each seat's remaining cards, sorted; a card held twice appears twice."""
        return tuple(multiset_cards(a, b) for a, b in zip(self._hand, self._hand2, strict=True))

    @property
    def deal(self) -> tuple[tuple[int, ...], ...]:
        """Each seat's 26 cards as dealt, sorted (``from_hands(game.deal, rules)`` restores it)."""
        return tuple(multiset_cards(a, b) for a, b in self._deal)  # type: ignore[misc]

    @property
    def exposed(self) -> tuple[tuple[int, ...], ...]:
        """The copies each seat exposed (a card twice if it exposed both)."""
        return tuple(multiset_cards(a, b) for a, b in zip(self._exposed, self._exposed2,
                                                          strict=True))

    @property
    def captured(self) -> tuple[tuple[int, ...], ...]:
        """The scoring cards each seat has taken, a card twice if it took both copies."""
        return tuple(multiset_cards(a, b) for a, b in zip(self._captured, self._captured2,
                                                          strict=True))

    @property
    def hand_pair_masks(self) -> tuple[int, ...]:
        """Cards each seat holds twice."""
        return tuple(self._hand2)

    @property
    def exposed_pair_masks(self) -> tuple[int, ...]:
        """Cards each seat exposed both copies of."""
        return tuple(self._exposed2)

    @property
    def captured_pair_masks(self) -> tuple[int, ...]:
        """Scoring cards each seat took both copies of."""
        return tuple(self._captured2)

    @property
    def played_pair_masks(self) -> tuple[int, ...]:
        """Cards each seat has played both copies of."""
        return tuple(self._played2)

    @property
    def pair_lead(self) -> bool:
        """Whether the trick in progress was led with a pair."""
        return self._pair_lead

    @property
    def first_pig_taker(self) -> int | None:
        """The seat that took the first SQ of this hand (it leads a match's next hand)."""
        return None if self._first_pig < 0 else self._first_pig

    def provisional_scores(self) -> list[int]:
        """Return what each seat would score if the hand ended now (two-deck scoring)."""
        prov = self._prov
        if prov is None:
            exposed = (self._exposed_all, self._exposed_all2)
            prov = self._prov = [score_two_decks((c, c2), exposed)
                                 for c, c2 in zip(self._captured, self._captured2, strict=True)]
        return prov[:]

    # ------------------------------------------------------------------ legality
    def legal_actions(self) -> list[int]:
        """Legal actions of the seat to move, sorted; empty once the hand is over."""
        return actions_of(self.legal_mask(), 2)

    def _compute_legal(self) -> int:
        phase = self._phase
        if phase == _PLAY:
            if not self._plays:
                return self._lead_legal(self._hand[self._current])
            if not self._pair_lead:
                return self._follow_legal(self._hand[self._current])
            return self._second if self._pending >= 0 else self._pair_follow()
        if phase == _DECLARE:
            return self._declare_legal()
        return 0

    def _declare_legal(self) -> int:
        """Expose one more copy of an exposable card held, or end the turn."""
        p = self._current
        return (self._hand[p] & ~self._exposed[p] | self._hand2[p] & ~self._exposed2[p]) \
            & EXPOSABLE_MASK | _DONE_BIT

    def _unled_suits(self) -> int:
        """Return the cards of the suits not led yet (the first-round restriction's reach)."""
        led = self._suits_led
        return sum(SUIT_MASKS[s] for s in range(4) if not led >> s & 1)

    def _restricted(self, p: int) -> int:
        """Return the cards seat ``p`` could play in their suit only with an exposed copy.

        Only suits not led yet count: the restriction covers the first round of a suit.
        """
        x1 = self._xheld[p]
        if not x1:
            return 0
        return (x1 & ~self._hand2[p] | self._xheld2[p]) & self._unled_suits()

    def _lead_legal(self, hand: int) -> int:
        p = self._current
        pairs = self._hand2[p]
        if not self._tricks and not self._free_first_lead:
            # The first lead contains C2: C2 alone, or the pair of C2.
            return _C2_BIT | (pairs & _C2_BIT) << NUM_CARDS
        legal = hand | pairs << NUM_CARDS
        if self._may_lead or not self._xheld[p]:
            return legal
        # A lead in a suit not led yet uses the fewest exposed copies a lead of that suit can
        # (6.11). A pair with an exposed copy never does: one copy of the same card uses one
        # exposed copy fewer. A single card whose every copy in hand is exposed is legal only
        # when every card of its suit in hand is such a card (as one deck's only-card rule).
        unled = self._unled_suits()
        legal &= ~((self._xheld[p] & pairs & unled) << NUM_CARDS)
        restricted = self._restricted(p)
        for suit in SUIT_MASKS:
            if restricted & suit and hand & suit & ~restricted:
                legal &= ~(restricted & suit)
        return legal

    def _follow_legal(self, hand: int) -> int:
        """Return what a follower to a single-card lead may play (one card, as with one deck)."""
        legal = hand & self._led_mask
        if not legal:
            return hand
        restricted = legal & self._restricted(self._current)
        if restricted and legal != restricted:
            legal ^= restricted
        return legal

    def _pair_follow(self) -> int:
        """Return the cards that may start a follower's two-card play to a pair lead.

        The second card's mask depends on the first; ``step`` works it out (``_second_mask``)
        once the first is played.
        """
        first = 0
        for a, b in self._follow_plays():
            first |= 1 << a | 1 << b
        return first

    def _follow_plays(self) -> list[tuple[int, int]]:
        """Every legal two-card play of the follower to a pair lead, as sorted card pairs."""
        p = self._current
        once, twice = self._hand[p], self._hand2[p]
        suit = self._led_mask
        s_once, s_twice = once & suit, twice & suit
        restricted = self._restricted(p) & suit
        if s_twice:
            # Holding a pair of the led suit: a pair, with the fewest exposed copies.
            cands = s_twice
            if not self._suits_led >> self._led_suit & 1:
                x1, x2 = self._xheld[p], self._xheld2[p]
                cands = s_twice & ~x1 or s_twice & ~x2 or s_twice
            return [(c, c) for c in cards_of(cands)]
        n = _count(s_once, s_twice)
        if n >= 2:
            # Two cards of the suit (all different here), with the fewest exposed copies.
            free = s_once & ~restricted
            if free.bit_count() >= 2:
                pool = cards_of(free)
                return [(a, b) for i, a in enumerate(pool) for b in pool[i + 1:]]
            if free:
                u = cards_of(free)[0]
                return [tuple(sorted((u, r))) for r in cards_of(restricted)]  # type: ignore[misc]
            pool = cards_of(restricted)
            return [(a, b) for i, a in enumerate(pool) for b in pool[i + 1:]]
        rest = multiset_cards(once & ~suit, twice & ~suit)
        if n == 1:
            u = cards_of(s_once)[0]
            return [tuple(sorted((u, d))) for d in set(rest)]  # type: ignore[misc]
        # Void in the led suit: any two cards.
        out = set()
        for i, a in enumerate(rest):
            for b in rest[i + 1:]:
                out.add((a, b))
        return sorted(out)

    def _second_mask(self, first: int) -> int:
        """Return the cards that complete a legal two-card play whose first card is ``first``."""
        out = 0
        for a, b in self._follow_plays():
            if a == first:
                out |= 1 << b
            elif b == first:
                out |= 1 << a
        return out

    # ------------------------------------------------------------------ acting
    def step(self, action: int) -> None:
        """Apply the action of the seat to move. Raises ``IllegalActionError`` if not legal."""
        if type(action) is not int:
            action = self._coerce_action(action)
        legal = self.legal_mask()
        if action < 0 or not legal >> action & 1:
            raise self._illegal(action, legal)
        self._actions.append(action)
        if self._phase == _DECLARE:
            if action != DONE2:
                self._expose(self._current, action)
            else:
                self._declare_turns += 1
                if self._declare_turns == NUM_SEATS:
                    self._phase = _PLAY
                    self._current = self._first_leader
                else:
                    self._current = (self._current + 1) & 3
            self._legal = self._compute_legal()
            return
        p = self._current
        if not self._plays:
            self._lead(p, action)
        elif not self._pair_lead:
            self._remove(p, action)
            self._plays.append((action,))
        elif self._pending < 0:
            # The first card of a two-card follow. An off-suit card here does not yet show a
            # void (the seat may still hold one card of the suit): the completed play does.
            self._second = self._second_mask(action)
            self._remove(p, action, shows_void=False)
            self._pending = action
            self._legal = self._second
            return
        else:
            self._remove(p, action, shows_void=False)
            led = self._led_mask
            if not (led >> action & 1 and led >> self._pending & 1):
                # A discard in a two-card follow: the seat had at most one card of the suit
                # and has played it (the follow rule), so it holds none now.
                self._voids[p] |= 1 << self._led_suit
            self._plays.append(tuple(sorted((self._pending, action))))
            self._pending = -1
            self._second = 0
        if len(self._plays) == NUM_SEATS:
            self._end_trick()
        else:
            self._current = (p + 1) & 3
            self._legal = self._compute_legal()

    def _lead(self, p: int, action: int) -> None:
        if action >= PAIR:
            card = action - PAIR
            self._pair_lead = True
            self._led_suit = card // 13
            self._led_mask = SUIT_MASKS[self._led_suit]
            self._remove(p, card)
            self._remove(p, card)
            self._plays.append((card, card))
        else:
            self._pair_lead = False
            self._led_suit = action // 13
            self._led_mask = SUIT_MASKS[self._led_suit]
            self._remove(p, action)
            self._plays.append((action,))
        self._trick_leader = p

    def _remove(self, p: int, card: int, shows_void: bool = True) -> None:
        """Take one copy of ``card`` from seat ``p``'s hand into the trick.

        The copy is the unexposed one when the card follows or leads its suit and the exposed
        one when it is discarded (6.11); an off-suit card also shows the seat void in the led
        suit (``shows_void``; a two-card follow decides that once both cards are played).
        """
        bit = 1 << card
        in_suit = bool(bit & self._led_mask)
        held = 1 + (1 if self._hand2[p] & bit else 0)
        x1, x2 = self._xheld[p], self._xheld2[p]
        exposed = (1 if x1 & bit else 0) + (1 if x2 & bit else 0)
        if exposed and (not in_suit or exposed == held):
            self._xheld[p], self._xheld2[p] = _take(x1, x2, bit)
        self._hand[p], self._hand2[p] = _take(self._hand[p], self._hand2[p], bit)
        self._played_by[p], self._played2[p] = _put(self._played_by[p], self._played2[p], bit)
        self._trick.append(card)
        if not in_suit and shows_void:
            self._voids[p] |= 1 << self._led_suit

    def _end_trick(self) -> None:
        suit = self._led_suit
        leader = self._trick_leader
        if self._pair_lead:
            best, w = play_key(self._plays[0], suit), 0
            for i in (1, 2, 3):
                key = play_key(self._plays[i], suit)
                if key is not None and best is not None and key > best:
                    best, w = key, i
        else:
            top = suit * 13 + 13
            best_card, w = self._plays[0][0], 0
            for i in (1, 2, 3):
                c = self._plays[i][0]
                if best_card < c < top:
                    best_card, w = c, i
        winner = (leader + w) & 3
        cap, cap2 = self._captured[winner], self._captured2[winner]
        for c in self._trick:
            bit = 1 << c
            if bit & SCORING_MASK:
                cap, cap2 = _put(cap, cap2, bit)
                if c == SQ and self._first_pig < 0:
                    self._first_pig = winner
        if cap != self._captured[winner] or cap2 != self._captured2[winner]:
            self._captured[winner], self._captured2[winner] = cap, cap2
            self._prov = None
        self._tricks.append(Trick(leader, tuple(self._trick), winner))
        self._suits_led |= 1 << suit
        self._trick = []
        self._plays = []
        self._pair_lead = False
        self._led_suit = -1
        self._led_mask = 0
        self._current = self._trick_leader = winner
        if not self._hand[winner]:
            self._phase = _OVER
            self._legal = 0
        else:
            self._legal = self._lead_legal(self._hand[winner])

    def _illegal(self, action: object, legal: int) -> IllegalActionError:
        seat = self._current
        if self._phase == _OVER:
            return IllegalActionError(
                f"the hand is over: no action is legal (got {action!r}); start a new hand")
        phase = PHASES[self._phase].value
        shown = "[" + ", ".join(_action_str(a) for a in self.legal_actions()) + "]"
        if type(action) is not int or not 0 <= action < NUM_ACTIONS2:
            what = (f"{action!r} (type {type(action).__name__}) is not an action; expected an "
                    "int in 0..104 (0..51 one card, 52+k the pair of card k, 104 DONE)")
        else:
            what = f"{_action_str(action)} ({action}) is not legal"
            if action == DONE2:
                what += ": DONE only ends a declaration turn"
            elif self._phase == _DECLARE:
                what += (": in declaration only a copy of SQ DJ C10 HA that is held and not yet "
                         "exposed may be exposed")
            elif action >= PAIR:
                card = action - PAIR
                if self._plays:
                    what += ": only the leader may lead a pair; a follower plays its two cards " \
                            "one action at a time"
                elif not self._hand2[seat] >> card & 1:
                    what += f": seat {seat} does not hold two copies of {card_str(card)}"
            elif not self._hand[seat] >> action & 1:
                what += f": seat {seat} does not hold it"
            elif self._pending >= 0:
                what += (f": with {card_str(self._pending)} it would not make a legal play to "
                         f"the pair lead ({self._pair_rule_text()})")
            elif self._pair_lead:
                what += (": no legal play to the pair lead starts with it "
                         f"({self._pair_rule_text()})")
        return IllegalActionError(
            f"{what} in the {phase} phase for seat {seat}; legal actions: {shown}")

    def _pair_rule_text(self) -> str:
        """Say what the follow rule asks of the seat to move on a pair lead (for errors)."""
        p, suit = self._current, self._led_mask
        once, twice = self._hand[p] & suit, self._hand2[p] & suit
        if self._pending >= 0:
            # Count the pending card back in: the rule applies to the hand before the play.
            once, twice = _put(once, twice, 1 << self._pending & suit)
        name = "CDHS"[self._led_suit]
        if twice:
            rule = f"holding a pair of {name}, a pair of {name} is required"
        elif _count(once, twice) >= 2:
            rule = f"holding two or more {name} and no pair, two {name} are required"
        else:
            rule = f"short of {name}, every {name} held is played, the rest discards"
        if self._xheld[p] & suit and not self._suits_led >> self._led_suit & 1:
            rule += "; on the suit's first round an exposed copy only if no play avoids it"
        return rule

    # ------------------------------------------------------------------ copies and views
    def scores_settled(self) -> bool:
        """Whether nothing still to be played can change a score: here, only once it is over.

        A two-deck hand's second copies and pair plays are not worth a cheaper test: its
        play-outs run to the end.
        """
        return self.is_over()

    def clone(self) -> TwoDeckGame:
        """Return an independent copy of this game (for search)."""
        g = object.__new__(TwoDeckGame)
        for name in Game.__slots__ + TwoDeckGame.__slots__:
            value = getattr(self, name)
            setattr(g, name, value[:] if type(value) is list else value)
        return g


def _action_str(action: int) -> str:
    return action_str(action, 2)


def _validate_two_deck_hands(hands: Sequence[Sequence[int | str]]) -> list[tuple[int, int]]:
    """Check a two-deck deal and return each hand as ``(once, twice)`` masks."""
    out = []
    total = [0] * NUM_CARDS
    for seat, hand in enumerate(deal_cards(hands, "a two-deck deal is four hands of 26 cards")):
        once = twice = 0
        for idx in hand:
            total[idx] += 1
            if total[idx] > 2:
                raise ValueError(f"card {card_str(idx)} appears {total[idx]} times in the deal; "
                                 "two decks hold two copies of each card")
            once, twice = _put(once, twice, 1 << idx)
        if len(hand) != HAND_SIZE2:
            raise ValueError(f"seat {seat} has {len(hand)} cards; every two-deck hand must "
                             "have 26")
        out.append((once, twice))
    return out


IMPLEMENTATIONS[2] = TwoDeckGame
