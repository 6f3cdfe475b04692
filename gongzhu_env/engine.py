"""The Gong Zhu game state machine: deal, declaration, tricks, scoring, for every table.

``Game`` is the single source of truth for the rules: which actions are legal, who moves, who
wins a trick and what each seat scores. It knows nothing of PettingZoo or observations; the env,
the agents, the arena and the CLI all drive it through ``legal_actions()`` and ``step()``.

State is kept as a few integers per seat (52-bit card masks, see ``gongzhu_env.cards``), so a
step is a handful of integer operations and ``clone()`` copies a few short lists. Every card set
(a hand, a seat's exposures, captures and plays) is a multiset ``(once, twice)`` of two masks:
with one deck the ``twice`` masks are simply empty, with two decks (RULES.md 6.11) a card may be
there twice. Decks and seats are data of the game (``rules.decks``, ``rules.players``): one
class plays every table.

Phases and actions (one flat action space of 53):

* ``"declare"``: each seat in turn, starting at the first leader, exposes its exposable cards
  (SQ, DJ, C10, HA) one action at a time and ends its turn with ``DONE`` (52). When all four
  turns are over and exactly three of the four exposable cards are exposed, the fourth is
  exposed by its holder (auto-exposure).
* ``"play"``: thirteen tricks. The first leader (the C2 holder) leads C2; others follow suit if
  they can, else discard anything. An exposed card may not be played to the first trick led in
  its suit unless it is its holder's only card of that suit. The highest card of the led suit
  wins and its taker leads next.
* ``"over"``: ``scores()`` gives the four raw hand scores.

Two decks differ in the rules of a trick only (pair leads, two-card follows, which play wins):
those rules are ``gongzhu_env.pair_tricks``, pure functions of masks, and the state only two
decks have (the second copies, the pair trick in progress) is one ``pair_tricks.PairState``
that a two-deck game holds in ``_two``; a one-deck game holds ``None`` there, so it carries
nothing of two decks. Actions there are ``0..51`` one copy of a card, ``52 + k`` the pair
lead of card ``k`` and ``104`` DONE (``gongzhu_env.cards.ActionCodec`` has the layout and
the text of every action).

Rule variants (``gongzhu_env.rules``) are decided once, in ``_setup``: which exposed cards are
restricted in play (``_restrict``), whether strict exposure or exposed leads apply (``_strict``,
``_may_lead``), whether discards are checked for colour (``_colour``) and how hands are scored.
Legality is written once: ``_declare_legal``, and for play ``_lead_legal`` and
``_follow_legal`` (``PairState.legal`` at two decks); ``step`` checks every action against it.

Outside this module a game is read only through its public surface (``gongzhu_env.state``
describes it: ``GameState``); the private slots below are free to change.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import SupportsIndex, cast

import numpy as np
from numpy.typing import NDArray

from gongzhu_env.cards import (
    C10,
    DJ,
    DONE,
    EXPOSABLE,
    EXPOSABLE_MASK,
    HA,
    NUM_CARDS,
    SCORING_MASK,
    SQ,
    SUIT_MASKS,
    SUIT_TABLES,
    TWO_DECKS,
    ActionCodec,
    card_index,
    card_str,
    cards_of,
    multiset_cards,
    multiset_masks,
    parse_card,
)
from gongzhu_env.deal import shuffled_deck
from gongzhu_env.html import game_html
from gongzhu_env.pair_tricks import PairState
from gongzhu_env.render import render_game
from gongzhu_env.rules import Rules, count_word
from gongzhu_env.scoring import score_masks, score_two_decks
from gongzhu_env.state import PHASES, Phase, Trick
from gongzhu_env.view import PlayerView, encode_observation

__all__ = ["Game", "IllegalActionError", "Phase", "Trick", "DONE"]

NUM_SEATS = 4
_DONE_BIT = 1 << DONE
_SQ_BIT = 1 << SQ
_RANKS = (1 << 13) - 1
_T0, _T1, _T2, _T3 = SUIT_TABLES
# Dealing: ``np.add.reduceat`` sums each seat's block of the shuffled deck (as card bits) into
# its hand mask in one call.
_BLOCK_STARTS = {n: np.arange(0, NUM_CARDS // n * n, NUM_CARDS // n) for n in range(3, 9)}
# The empty second masks of a one-deck table, as the public properties give them.
_NO_PAIRS = {n: (0,) * n for n in range(3, 9)}
# The legal declaration actions for each subset of the exposable cards (DONE is always legal).
_DECLARE_ACTIONS = {
    m | _DONE_BIT: (*cards_of(m), DONE)
    for m in (sum(1 << c for i, c in enumerate(EXPOSABLE) if k >> i & 1) for k in range(16))
}
_new_tuple = tuple.__new__
# Card c's bit, looked up: ``1 << c`` builds a new multi-digit int for most cards.
_BIT = tuple(1 << c for c in range(NUM_CARDS))
# Card c's bit if it is a scoring card, else 0.
_SCORING_BIT = tuple(SCORING_MASK & 1 << c for c in range(NUM_CARDS))

# Phase codes used on the hot path; the public ``phase`` property returns ``Phase`` members.
_DECLARE, _PLAY, _OVER = 0, 1, 2
# Play under the trick rules of two decks: its own code, so that ``step`` finds out which trick
# rules apply from the one phase test it makes anyway.
_PLAY_PAIRS = 3
_PHASE_OF = (*PHASES, Phase.PLAY)
# ``_DECLARED[first][turns]``: mask of the seats whose declaration turn is over.
_DECLARED = tuple(tuple(sum(1 << ((first + i) & 3) for i in range(turns)) for turns in range(5))
                  for first in range(NUM_SEATS))


class IllegalActionError(ValueError):
    """An action that is malformed or not legal in the current state. The state is unchanged."""


def winning_play(trick: Sequence[int] | NDArray[np.int64], top: int) -> int:
    """Return which play of a single-card trick wins it: 0 (the lead) up, in play order.

    The highest card of the led suit wins. Indices order ranks within a suit and the led
    suit's cards are the block of 13 indices below ``top`` (``led suit * 13 + 13``) that holds
    ``trick[0]``, so a later card beats the best so far if it lies above it and still inside
    that block. Plain integers and indexing only: the batched engine compiles this same
    function (``gongzhu_env.batch.tricks``), so the rule is written once for every table.
    """
    best, w = trick[0], 0
    for i in range(1, len(trick)):
        c = trick[i]
        if best < c < top:
            best, w = c, i
    return w


def winning_play4(c0: int, c1: int, c2: int, c3: int, top: int) -> int:
    """``winning_play`` of a four-card trick, unrolled: the engine's hot path at four seats.

    Held to ``winning_play`` by a test over every four-card trick of a suit pattern; the
    batched engine compiles it for its two-deck single-card tricks.
    """
    best, w = c0, 0
    if best < c1 < top:
        best, w = c1, 1
    if best < c2 < top:
        best, w = c2, 2
    if best < c3 < top:
        w = 3
    return w


def _legal_text(mask: int, codec: ActionCodec) -> str:
    return "[" + ", ".join(codec.text(a) for a in codec.actions_of(mask)) + "]"


def _multisets(once: Sequence[int], twice: Sequence[int] | None) -> tuple[tuple[int, ...], ...]:
    """Each seat's multiset as a sorted tuple; ``twice`` is ``None`` with one deck."""
    if twice is None:
        return tuple(cards_of(m) for m in once)
    return tuple(multiset_cards(a, b) for a, b in zip(once, twice, strict=True))


class Game:
    """One hand of Gong Zhu, at any table the rules allow (one or two decks, 3 to 8 seats).

    ``Game(rules, seed=...)`` deals at random from a seeded ``numpy.random.Generator`` (pass
    ``rng=`` to reuse one across many hands; ``gongzhu_env.deal`` is the deal); and
    ``Game.from_hands(hands, rules)`` starts from a given deal. ``leader`` makes that seat lead
    the first trick with any card (a later hand of a match); by default the holder of the lead
    card (C2 at four seats) leads it.
    """

    __slots__ = (
        "rules", "_two", "_hand", "_exposed", "_exposed_all", "_captured", "_played_by",
        "_voids",
        "_phase", "_current", "_first_leader", "_free_first_lead", "_declare_turns",
        "_declarations", "_trick", "_trick_leader", "_led_suit", "_led_mask", "_suits_led",
        "_tricks", "_actions", "_legal", "_deal", "_prov",
        "_restrict", "_restrictable", "_strict", "_may_lead", "_colour", "_wrong",
        "_first_drawn", "_doubled", "_teams", "_seats", "_lead_bit", "_num_tricks",
        "_first_pig", "_done",
    )
    # ``_two``: the state of two decks (``PairState``: the second copies, the exposed copies
    # held, the pair trick in progress), ``None`` with one deck. Its trick keeps its own led
    # suit: ``_led_suit``/``_led_mask`` stay -1/0 at two decks, as they belong to the one-deck
    # trick rules and their fast paths.

    def __init__(self, rules: Rules | str | None = None, seed: int | None = None, *,
                 rng: np.random.Generator | None = None, leader: int | None = None) -> None:
        if rng is None:
            rng = np.random.default_rng(seed)
        elif seed is not None:
            raise ValueError("pass either seed= or rng=, not both")
        if type(rules) is not Rules:
            rules = Rules.coerce(rules)
        size = rules.hand_size
        if rules.decks == 1:
            # Each hand's mask is the sum of its card bits (one copy each), summed in numpy.
            deck = shuffled_deck(rules, rng, bits=True)
            hands = np.add.reduceat(deck, _BLOCK_STARTS[rules.players]).tolist()
            first = tuple(b.bit_length() - 1 for b in deck[::size].tolist()) \
                if rules.first_drawn_exposure else None
            self._setup(rules, hands, None, leader, first)
        else:
            deck = shuffled_deck(rules, rng)
            first = tuple(deck[::size].tolist()) if rules.first_drawn_exposure else None
            self._setup_multisets(rules, deck.reshape(rules.players, size).tolist(), leader,
                                  first)

    @classmethod
    def from_hands(cls, hands: Sequence[Sequence[int | str]], rules: Rules | str | None = None,
                   *, leader: int | None = None,
                   first_drawn: Sequence[int | str] | None = None) -> Game:
        """Start a hand from a given deal: one hand per seat covering the deck.

        Four hands of 13 cards for four players; ``rules.players`` hands of ``rules.hand_size``
        cards, none of them a removed card (``rules.removed_cards``), at other table sizes;
        four hands of 26 in which every card appears twice with two decks.

        Cards may be indices or text (``"SQ"``). ``hands[i]`` is seat ``i``'s hand.
        ``first_drawn[i]`` is the first card dealt to seat ``i`` (only used by
        ``first_drawn_exposure``); by default it is ``hands[i][0]`` as given.
        """
        rules = Rules.coerce(rules)
        cards = _validate_hands(hands, rules)
        first: tuple[int, ...] | None = None
        if first_drawn is not None and not rules.first_drawn_exposure:
            raise ValueError("first_drawn only applies to first_drawn_exposure, which these "
                             "rules do not have")
        if rules.first_drawn_exposure:
            if first_drawn is None:
                first_drawn = [h[0] for h in hands]
            if isinstance(first_drawn, str) or len(first_drawn) != len(cards):
                raise ValueError(f"first_drawn must be {len(cards)} cards, one per seat; got "
                                 f"{first_drawn!r}")
            first = tuple(parse_card(c) if isinstance(c, str) else c for c in first_drawn)
            for seat, c in enumerate(first):
                if type(c) is not int or not 0 <= c < NUM_CARDS or c not in cards[seat]:
                    raise ValueError(f"first_drawn[{seat}] = {first_drawn[seat]!r} is not a card "
                                     f"of seat {seat}'s hand")
        game = object.__new__(cls)
        game._setup_multisets(rules, cards, leader, first)
        return game

    @classmethod
    def replay(cls, hands: Sequence[Sequence[int | str]], actions: Sequence[int],
               rules: Rules | str | None = None, *, leader: int | None = None,
               first_drawn: Sequence[int | str] | None = None) -> Game:
        """Start from a deal and apply a sequence of actions (each checked for legality)."""
        game = cls.from_hands(hands, rules, leader=leader, first_drawn=first_drawn)
        for i, a in enumerate(actions):
            try:
                game.step(a)
            except IllegalActionError as e:
                raise IllegalActionError(f"replay failed at action #{i}: {e}") from None
        return game

    def _setup_multisets(self, rules: Rules, hands: list[list[int]], leader: int | None,
                         first_drawn: tuple[int, ...] | None) -> None:
        """Start from checked hands of card indices: each becomes its ``(once, twice)`` masks."""
        masks = [multiset_masks(hand) for hand in hands]
        twice = [b for _, b in masks] if rules.pair_leads else None
        self._setup(rules, [a for a, _ in masks], twice, leader, first_drawn)

    def _setup(self, rules: Rules, hands: list[int], hands2: list[int] | None,
               leader: int | None, first_drawn: tuple[int, ...] | None = None) -> None:
        """Start the hand: ``hands`` the cards each seat holds, ``hands2`` those held twice.

        ``hands2`` is ``None`` for one deck, whose second masks stay empty.
        """
        self.rules = rules
        self._hand = hands
        n = self._seats = rules.players
        if n == 4:
            self._exposed = [0, 0, 0, 0]
            self._captured = [0, 0, 0, 0]
            self._played_by = [0, 0, 0, 0]
            self._voids = [0, 0, 0, 0]
        else:
            self._exposed = [0] * n
            self._captured = [0] * n
            self._played_by = [0] * n
            self._voids = [0] * n
        self._lead_bit = lead = 1 << rules.lead_card
        self._num_tricks = rules.hand_size
        self._exposed_all = 0
        self._done = rules.done_action
        self._two = None if hands2 is None else PairState(hands2)
        self._deal = tuple(hands)
        self._first_pig = -1
        if leader is None:
            # The holder of the lead card (C2 at four; the lowest such seat with two decks).
            self._first_leader = 0 if hands[0] & lead else 1 if hands[1] & lead else \
                2 if hands[2] & lead else next(s for s in range(3, n) if hands[s] & lead)
            self._free_first_lead = rules.first_lead == "any"
        else:
            leader = seat_index(leader, n, "leader")
            self._first_leader = leader
            self._free_first_lead = True
        self._phase = _DECLARE
        self._current = self._first_leader
        self._declare_turns = 0
        self._declarations: list[tuple[int, int]] = []
        self._trick: list[int] = []
        self._trick_leader = self._first_leader
        self._led_suit = -1
        self._led_mask = 0
        self._suits_led = 0
        self._tricks: list[Trick] = []
        self._actions: list[int] = []
        self._legal = -1
        self._prov: list[int] | None = None
        self._restrict = 0
        self._doubled = 0
        self._wrong = -1
        self._first_drawn = first_drawn
        if rules.is_standard:
            self._restrictable = EXPOSABLE_MASK
            self._strict = self._may_lead = self._colour = False
            self._teams: tuple[tuple[int, ...], ...] | None = None
            return
        self._setup_variants(rules, hands, first_drawn)

    def _setup_variants(self, rules: Rules, hands: list[int],
                        first_drawn: tuple[int, ...] | None) -> None:
        """Decide once what a non-standard rule set changes; the hot path then reads flags."""
        # Exposed cards under the play restriction: none if exposures are hidden; a first-drawn
        # card exposed by its holder is free too. (With two decks the restriction is per copy:
        # ``PairState`` keeps the exposed copies each seat holds, ``xheld``.)
        restrictable = 0 if rules.hidden_exposure or self._two is not None else EXPOSABLE_MASK
        if first_drawn is not None:
            for c in first_drawn:
                restrictable &= ~(1 << c)
        self._restrictable = restrictable
        self._strict = rules.strict_exposure
        self._may_lead = rules.exposed_may_lead
        self._colour = rules.discard_colour
        self._teams = None
        if rules.team_play:
            self._teams = rules.fixed_teams
        elif rules.pig_sheep_team:
            pig = next(s for s in range(NUM_SEATS) if hands[s] >> SQ & 1)
            sheep = next(s for s in range(NUM_SEATS) if hands[s] >> DJ & 1)
            team = tuple(sorted({pig, sheep}))
            self._teams = (team, tuple(s for s in range(NUM_SEATS) if s not in team))
        if rules.declaration != "free":
            # No declaration decisions: forced exposures are made now by their holders.
            if rules.declaration != "none":
                forced = EXPOSABLE if rules.declaration == "all" else (SQ, C10, HA)
                for c in forced:
                    holder = next(s for s in range(self._seats) if hands[s] >> c & 1)
                    self._expose(holder, c)
            self._phase = _PLAY if self._two is None else _PLAY_PAIRS

    def _expose(self, seat: int, card: int) -> None:
        """Record ``seat``'s exposure of one copy of ``card`` with every effect it has."""
        bit = 1 << card
        two = self._two
        if two is None:
            self._exposed[seat] |= bit
            self._exposed_all |= bit
        else:
            self._exposed[seat], self._exposed_all = two.expose(
                seat, bit, self._exposed[seat], self._exposed_all)
        self._restrict |= bit & self._restrictable
        first = self._first_drawn
        if first is not None and first[seat] == card:
            self._doubled |= bit
        self._declarations.append((seat, card))
        self._prov = None

    # ------------------------------------------------------------------ public state
    @property
    def phase(self) -> Phase:
        """``Phase.DECLARE``, ``Phase.PLAY`` or ``Phase.OVER`` (each equal to its string)."""
        return _PHASE_OF[self._phase]

    @property
    def current_player(self) -> int:
        """The seat to act (the last trick's winner once the hand is over)."""
        return self._current

    @property
    def first_leader(self) -> int:
        """The seat that declares first and leads the first trick."""
        return self._first_leader

    @property
    def free_first_lead(self) -> bool:
        """Whether the first trick may be led with any card, not only C2.

        True under ``first_lead="any"`` and for a later hand of a match, which the previous
        hand's pig taker leads.
        """
        return self._free_first_lead

    @property
    def hands(self) -> tuple[tuple[int, ...], ...]:
        """Each seat's remaining cards, as sorted tuples (a card held twice appears twice)."""
        return _multisets(self._hand, None if self._two is None else self._two.hand2)

    @property
    def deal(self) -> tuple[tuple[int, ...], ...]:
        """Each seat's cards as dealt, sorted (``from_hands(game.deal, rules)`` restores it).

        Under ``first_drawn_exposure`` each seat's first dealt card comes first, so that
        ``Game.from_hands(game.deal, rules)`` (which takes ``hands[i][0]`` as the first dealt
        card) restores it.
        """
        if self._two is not None:
            return _multisets(self._deal, self._two.deal2)
        hands = tuple(cards_of(m) for m in self._deal)
        first = self._first_drawn
        if first is None:
            return hands
        return tuple((f, *(c for c in h if c != f)) for f, h in zip(first, hands, strict=True))

    @property
    def exposed(self) -> tuple[tuple[int, ...], ...]:
        """The copies each seat exposed (including an auto-exposed card)."""
        return _multisets(self._exposed, None if self._two is None else self._two.exposed2)

    @property
    def captured(self) -> tuple[tuple[int, ...], ...]:
        """The scoring cards each seat has taken so far (a card twice if it took both)."""
        return _multisets(self._captured,
                               None if self._two is None else self._two.captured2)


    @property
    def first_drawn(self) -> tuple[int, ...] | None:
        """Each seat's first dealt card (recorded only under ``first_drawn_exposure``)."""
        return self._first_drawn

    @property
    def doubled(self) -> tuple[int, ...]:
        """Exposed cards whose effect is doubled again as their holder's first dealt card."""
        return cards_of(self._doubled)

    @property
    def teams(self) -> tuple[tuple[int, ...], ...] | None:
        """The teams of this hand, else ``None``.

        Two with ``pig_sheep_team`` (or ``team_play`` at four), ``players / 2`` pairs with
        ``team_play`` (``Rules.fixed_teams``).
        """
        return self._teams

    @property
    def num_seats(self) -> int:
        """Seats at the table (``rules.players``)."""
        return self._seats

    def partners(self, seat: int) -> tuple[int, ...]:
        """Return the other members of ``seat``'s team (empty without teams or when alone)."""
        seat = seat_index(seat, self._seats)
        if self._teams is None:
            return ()
        team = next(t for t in self._teams if seat in t)
        return tuple(s for s in team if s != seat)

    @property
    def declarations(self) -> tuple[tuple[int, int], ...]:
        """Exposures in the order they happened, as ``(seat, card)``; auto-exposure last."""
        return tuple(self._declarations)

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """The completed tricks, in order."""
        return tuple(self._tricks)

    @property
    def current_trick(self) -> tuple[int, tuple[int, ...]]:
        """``(leader, cards played so far in play order)`` of the trick in progress."""
        return self._trick_leader, tuple(self._trick)

    @property
    def actions(self) -> tuple[int, ...]:
        """Every action taken so far; with the deal it replays the hand exactly."""
        return tuple(self._actions)

    @property
    def voids(self) -> tuple[frozenset[int], ...]:
        """Suits each seat has shown to hold no unexposed card of.

        Shown by failing to follow, or by a play of an exposed card that the play restriction
        allows only as its holder's last card of the suit (see ``_restricted_played``).
        """
        return tuple(frozenset(s for s in range(4) if v >> s & 1) for v in self._voids)

    # The same facts as card masks (bit c is card c), for the views, search and encoders,
    # which read them at every step. Each returns a fresh tuple or an int: nothing that could
    # change the game.
    @property
    def hand_masks(self) -> tuple[int, ...]:
        """Each seat's remaining cards as a mask."""
        return tuple(self._hand)

    @property
    def exposed_masks(self) -> tuple[int, ...]:
        """The cards each seat exposed, as masks."""
        return tuple(self._exposed)

    @property
    def captured_masks(self) -> tuple[int, ...]:
        """The scoring cards each seat has taken, as masks."""
        return tuple(self._captured)

    @property
    def played_masks(self) -> tuple[int, ...]:
        """Every card each seat has played this hand, as masks."""
        return tuple(self._played_by)

    @property
    def void_masks(self) -> tuple[int, ...]:
        """The suits of ``voids`` as masks (bit ``s`` for suit ``s``)."""
        return tuple(self._voids)

    # The second masks of the multisets: the cards held, exposed, taken or played twice, so a
    # reader counts copies the same way at any table. With one deck they are all empty.
    @property
    def hand_pair_masks(self) -> tuple[int, ...]:
        """Cards each seat holds twice (none with one deck)."""
        two = self._two
        return _NO_PAIRS[self._seats] if two is None else tuple(two.hand2)

    @property
    def exposed_pair_masks(self) -> tuple[int, ...]:
        """Cards each seat exposed both copies of (none with one deck)."""
        two = self._two
        return _NO_PAIRS[self._seats] if two is None else tuple(two.exposed2)

    @property
    def captured_pair_masks(self) -> tuple[int, ...]:
        """Scoring cards each seat took both copies of (none with one deck)."""
        two = self._two
        return _NO_PAIRS[self._seats] if two is None else tuple(two.captured2)

    @property
    def played_pair_masks(self) -> tuple[int, ...]:
        """Cards each seat has played both copies of (none with one deck)."""
        two = self._two
        return _NO_PAIRS[self._seats] if two is None else tuple(two.played2)

    @property
    def pair_lead(self) -> bool:
        """Whether the trick in progress was led with a pair (never with one deck)."""
        return self._two is not None and self._two.pair_lead

    @property
    def first_pig_taker(self) -> int | None:
        """The seat that took SQ (the first SQ with two decks) this hand, if any has.

        It leads the next hand of a match.
        """
        return None if self._first_pig < 0 else self._first_pig

    @property
    def doubled_mask(self) -> int:
        """``doubled`` as a mask."""
        return self._doubled

    @property
    def declared_seats(self) -> int:
        """Mask of the seats whose declaration turn is over (every seat once play starts)."""
        n = self._seats
        if self._phase:
            return (1 << n) - 1
        if n == 4:
            return _DECLARED[self._first_leader][self._declare_turns]
        return sum(1 << ((self._first_leader + i) % n) for i in range(self._declare_turns))

    @property
    def trick_leader(self) -> int:
        """The seat that led (or is to lead) the trick in progress."""
        return self._trick_leader

    @property
    def trick_cards(self) -> tuple[int, ...]:
        """The cards played to the trick in progress, in play order."""
        return tuple(self._trick)

    @property
    def tricks_played(self) -> int:
        """How many tricks are complete."""
        return len(self._tricks)

    def is_over(self) -> bool:
        """Whether every trick of the hand has been played (thirteen at four seats)."""
        return self._phase == _OVER

    def scores(self) -> list[int]:
        """Return every seat's raw hand score; only once the hand is over."""
        if self._phase != _OVER:
            raise RuntimeError(
                f"scores() is only available once the hand is over; phase is {self.phase.value!r}"
            )
        # What each seat has taken is final: the provisional scores are the hand scores.
        return self.provisional_scores()

    def scores_settled(self) -> bool:
        """Whether nothing still to be played can change a score (true once the hand is over).

        A seat's score is a function of the scoring cards it has taken and of the exposures,
        which are all made before the first card; the other cards only decide who wins tricks.
        So once no scoring card is left in a hand or on the table, ``provisional_scores()`` are
        the hand's final scores and a search's play-out can stop there (about one step in
        fifteen of an expert play-out comes after that point).
        """
        phase = self._phase
        if phase == _OVER:
            return True
        if phase != _PLAY:
            # Declaring; or a two-deck hand, whose second copies and pair plays are not worth
            # a cheaper test: its play-outs run to the end.
            return False
        sb = _SCORING_BIT
        for c in self._trick:
            if sb[c]:
                return False
        left = 0
        for h in self._hand:
            left |= h
        return not left & SCORING_MASK

    def provisional_scores(self) -> list[int]:
        """Return what each seat would score if the hand ended now with what it has taken."""
        prov = self._prov
        if prov is None:
            exp, rules, two = self._exposed_all, self.rules, self._two
            if two is not None:
                exposed = (exp, two.exposed_all2)
                prov = [score_two_decks((c, c2), exposed)
                        for c, c2 in zip(self._captured, two.captured2, strict=True)]
            elif rules.is_standard:
                prov = [score_masks(c, exp) for c in self._captured]
            else:
                d, own = self._doubled, self._exposed
                prov = [score_masks(c, exp, rules, own_exposed=own[s], doubled=d)
                        for s, c in enumerate(self._captured)]
            self._prov = prov
        return prov[:]

    # ------------------------------------------------------------------ legality
    # Legality is decided here and nowhere else: ``step`` checks an action against the same
    # mask that ``legal_actions`` lists, and each rule of play is one clause of ``_lead_legal`` or
    # ``_follow_legal``.
    def legal_mask(self) -> int:
        """Legal actions of the seat to move as a mask: bit ``a`` is action ``a``.

        53 bits (bit 52 DONE) with one deck; 105 with two (bits ``52 + k`` the pair leads,
        bit 104 DONE).
        """
        legal = self._legal
        if legal < 0:
            legal = self._legal = self._compute_legal()
        return legal

    def legal_actions(self) -> list[int]:
        """Legal actions of the seat to move, sorted; empty once the hand is over."""
        legal = self._legal
        if legal < 0:
            legal = self._legal = self._compute_legal()
        suit = self._led_suit
        if suit >= 0 and legal & self._led_mask:
            # Following suit (the common case): the legal cards lie in the led suit. (A seat
            # that can follow must; one that cannot holds none of it.) Never at two decks,
            # whose led suit is ``PairState.suit``.
            return [*SUIT_TABLES[suit][legal >> suit * 13]]
        if self._two is not None:
            return TWO_DECKS.actions_of(legal)
        if legal & _DONE_BIT:
            # Declaring: some of the four exposable cards, then DONE.
            return [*_DECLARE_ACTIONS[legal]]
        return [*_T0[legal & _RANKS], *_T1[legal >> 13 & _RANKS], *_T2[legal >> 26 & _RANKS],
                *_T3[legal >> 39]]

    def _compute_legal(self) -> int:
        """Work out the legal mask of the seat to move, by phase (cached until the next step)."""
        phase = self._phase
        if phase == _PLAY:
            hand = self._hand[self._current]
            return self._follow_legal(hand) if self._trick else self._lead_legal(hand)
        if phase == _DECLARE:
            return self._declare_legal()
        two = self._two
        if phase == _PLAY_PAIRS and two is not None:
            p = self._current
            first_lead = 0 if self._tricks or self._free_first_lead else self._lead_bit
            return two.legal(p, self._hand[p], self._suits_led, first_lead, self._may_lead)
        return 0

    def _declare_legal(self) -> int:
        """Expose one more copy of an exposable card held and not yet exposed, or end the turn."""
        p = self._current
        held = self._hand[p] & ~self._exposed[p]
        two = self._two
        if two is not None:
            # A card held twice and exposed once has one more copy to expose.
            held |= two.hand2[p] & ~two.exposed2[p]
        return held & EXPOSABLE_MASK | 1 << self._done

    # The rules of play, clause by clause; each clause returns. ``hand`` is the hand of the
    # seat to move. ``_restrict`` holds the exposed cards under the play restriction (none
    # under hidden exposure or for a first-drawn card); ``_strict`` and ``_may_lead`` are the
    # two variants that change it (``Rules.strict_exposure``, ``Rules.exposed_may_lead``).
    def _follow_legal(self, hand: int) -> int:
        """Return what the seat to move may play to the trick in progress."""
        # Follow suit if possible.
        legal = hand & self._led_mask
        if legal:
            # An exposed card may not be played to the first trick led in its suit unless it
            # is its holder's only card of that suit (a suit holds one exposable card).
            restricted = legal & self._restrict
            if restricted and legal != restricted and not self._suits_led >> self._led_suit & 1:
                legal ^= restricted
            return legal
        # Void in the led suit: discard anything; under strict exposure no exposed card whose
        # suit has not been led, unless nothing else is left.
        if self._strict:
            return hand & ~self._unled_restricted(hand) or hand
        return hand

    def _lead_legal(self, hand: int) -> int:
        """Return what the seat to move may lead."""
        # The hand's first trick is led with the lead card (C2 at four seats), unless this
        # hand's leader leads freely.
        if not self._tricks and not self._free_first_lead:
            return self._lead_bit
        unled = self._unled_restricted(hand) if hand & self._restrict else 0
        if not unled or self._may_lead:
            return hand
        if self._strict:
            # Strict: no exposed card opens its suit while anything else is in hand.
            return hand & ~unled or hand
        # An exposed card may not open its suit unless it is the only card of that suit in hand.
        legal = hand
        while unled:
            bit = unled & -unled
            unled ^= bit
            if hand & SUIT_MASKS[(bit.bit_length() - 1) // 13] != bit:
                legal ^= bit
        return legal

    def _unled_restricted(self, hand: int) -> int:
        """Restricted exposed cards in ``hand`` whose suit has not been led yet."""
        out = 0
        restricted = hand & self._restrict
        while restricted:
            bit = restricted & -restricted
            restricted ^= bit
            if not self._suits_led >> ((bit.bit_length() - 1) // 13) & 1:
                out |= bit
        return out

    # ------------------------------------------------------------------ acting
    def step(self, action: int) -> None:
        """Apply the action of the seat to move. Raises ``IllegalActionError`` if not legal.

        The action is checked against ``legal_mask()``, and the next seat's legal set is
        worked out by the same functions right after the action is applied.
        """
        if type(action) is not int:
            action = self._coerce_action(action)
        legal = self._legal
        if legal < 0:
            legal = self._legal = self._compute_legal()
        # ``legal`` has no bit above DONE, so this also rejects actions > 52.
        if action < 0 or not legal >> action & 1:
            raise self._illegal(action, legal)
        self._actions.append(action)
        if self._phase != 1:  # _PLAY
            # Declaration, or play under the two-deck trick rules (no action is legal once
            # the hand is over, so the phase is not OVER).
            if self._phase:
                self._play_pairs(action)
            else:
                self._declare(action)
            return
        # Play a card. Inlined here, because this is the hottest path of every rollout.
        p = self._current
        bit = _BIT[action]
        hands = self._hand
        hands[p] ^= bit
        self._played_by[p] |= bit
        trick = self._trick
        trick.append(action)
        n = len(trick)
        if n == 1:
            # A lead: its suit is the led suit of this trick.
            self._trick_leader = p
            self._led_suit = suit = action // 13
            self._led_mask = SUIT_MASKS[suit]
        elif not bit & self._led_mask:
            # Not following suit: the seat is now known to be void in the led suit.
            self._voids[p] |= 1 << self._led_suit
            if self._colour and self._wrong < 0:
                self._colour_discard(p, action)
        if bit & self._restrict:
            self._restricted_played(p, action, n)
        seats = self._seats
        if n < seats:
            p = self._current = (p + 1) % seats
            self._legal = self._follow_legal(hands[p])
            return
        # Trick complete: the highest card of the led suit wins. Indices order ranks within a
        # suit and the led suit's cards are c0's suit's block of 13 indices, so a later card
        # beats the best so far if it lies above it and still inside that block.
        suit = self._led_suit
        top = suit * 13 + 13
        leader = self._trick_leader
        sb = _SCORING_BIT
        if n == 4:
            # Four seats, unrolled: this runs once per trick of every rollout.
            c0, c1, c2, c3 = trick
            winner = (leader + winning_play4(c0, c1, c2, c3, top)) & 3
            taken = sb[c0] | sb[c1] | sb[c2] | sb[c3]
            cards: tuple[int, ...] = (c0, c1, c2, c3)
        else:
            taken = 0
            for c in trick:
                taken |= sb[c]
            winner = (leader + winning_play(trick, top)) % n
            cards = tuple(trick)
        wrong = self._wrong
        if taken:
            # Discard colour: the first wrong-colour discarder takes the cards, not the winner.
            taker = winner if wrong < 0 else wrong
            self._captured[taker] |= taken
            self._prov = None
            if taken & _SQ_BIT:
                self._first_pig = taker
        if wrong >= 0:
            self._wrong = -1
        tricks = self._tricks
        tricks.append(_new_tuple(Trick, (leader, cards, winner)))
        self._suits_led |= 1 << suit
        self._trick = []
        self._led_suit = -1
        self._led_mask = 0
        self._current = self._trick_leader = winner
        if len(tricks) == self._num_tricks:
            self._phase = _OVER
            self._legal = 0
        else:
            self._legal = self._lead_legal(hands[winner])

    def _play_pairs(self, action: int) -> None:
        """Two decks: apply a legal play (``PairState.play``) and end the trick when complete."""
        two = self._two
        if two is None:  # never: only two decks reach the _PLAY_PAIRS phase
            raise RuntimeError("_play_pairs at one deck")
        p = self._current
        if not two.plays:
            self._trick_leader = p
        if two.play(p, action, self._hand, self._played_by, self._voids, self._trick,
                    self._suits_led):
            # The first card of a two-card follow: the same seat plays the second.
            self._legal = two.second
            return
        seats = self._seats
        if len(two.plays) < seats:
            # The next seat follows (the hand's first lead, the one rule ``PairState.legal``
            # needs the game's history for, is behind us).
            p = self._current = (p + 1) % seats
            self._legal = two.legal(p, self._hand[p], self._suits_led, 0, self._may_lead)
            return
        # The trick is complete: its winner takes it and leads next.
        suit, leader, trick = two.suit, self._trick_leader, self._trick
        winner, taken = two.end_trick(leader, seats, self._captured, trick)
        if taken:
            self._prov = None
            if self._first_pig < 0 and SQ in trick:
                self._first_pig = winner
        self._tricks.append(_new_tuple(Trick, (leader, tuple(trick), winner)))
        self._suits_led |= 1 << suit
        self._trick = []
        self._current = self._trick_leader = winner
        hand = self._hand[winner]
        if not hand:
            # Pair tricks take two cards a seat: the hand ends when the cards do, whatever
            # the number of tricks.
            self._phase = _OVER
            self._legal = 0
        else:
            self._legal = two.legal(winner, hand, self._suits_led, 0, self._may_lead)

    def _declare(self, action: int) -> None:
        """Expose a card for the seat to move, or end its declaration turn with DONE."""
        if action != self._done:
            self._expose(self._current, action)
        else:
            self._declare_turns += 1
            if self._declare_turns == self._seats:
                self._end_declaration()
            else:
                self._current = (self._current + 1) % self._seats
        self._legal = self._compute_legal()

    def _coerce_action(self, action: object) -> int:
        if isinstance(action, (bool, np.bool_)) or action is None:
            raise self._illegal(action, self.legal_mask())
        try:
            return operator.index(cast(SupportsIndex, action))  # numpy integers are fine
        except TypeError:
            raise self._illegal(action, self.legal_mask()) from None

    def _illegal(self, action: object, legal: int) -> IllegalActionError:
        seat = self._current
        if self._phase == _OVER:
            return IllegalActionError(
                f"the hand is over: no action is legal (got {action!r}); start a new hand"
            )
        phase = _PHASE_OF[self._phase].value
        codec, two = ActionCodec.for_rules(self.rules), self._two
        if type(action) is not int or not codec.is_action(action):
            what = (f"{action!r} (type {type(action).__name__}) is not an action; expected an "
                    f"int in 0..{codec.done} ({codec.layout()})")
        else:
            what = f"{codec.text(action)} ({action}) is not legal"
            if codec.is_done(action):
                what += ": DONE only ends a declaration turn"
            elif self._phase == _DECLARE:
                what += (": in declaration only an exposable card (SQ DJ C10 HA) in hand, "
                         "not yet exposed, may be exposed" if two is None else
                         ": in declaration only a copy of SQ DJ C10 HA that is held and not yet "
                         "exposed may be exposed")
            elif two is not None and codec.is_pair(action):
                what += two.why_pair_illegal(seat, codec.pair_card(action))
            elif not self._hand[seat] >> action & 1:
                what += f": seat {seat} does not hold it"
            elif two is not None:
                what += two.why_follow_illegal(seat, self._hand[seat], self._suits_led)
        return IllegalActionError(
            f"{what} in the {phase} phase for seat {seat}; legal actions: "
            f"{_legal_text(legal, codec)}"
        )

    def _end_declaration(self) -> None:
        # Auto-exposure: three of the four exposable cards exposed exposes the fourth.
        missing = EXPOSABLE_MASK & ~self._exposed_all
        if missing and missing & (missing - 1) == 0 and self.rules.auto_expose:
            holder = next(s for s in range(self._seats) if self._hand[s] & missing)
            self._expose(holder, missing.bit_length() - 1)
        self._phase = _PLAY if self._two is None else _PLAY_PAIRS
        self._current = self._first_leader

    def _colour_discard(self, p: int, c: int) -> None:
        """Under discard colour, note whether seat ``p``'s discard ``c`` is of the wrong colour.

        It is if ``c`` is off the led colour while ``p`` held that colour's other suit; the
        trick's first such discarder takes its scoring cards.
        """
        led = self._led_suit
        if (c // 13 in (1, 2)) != (led in (1, 2)) \
                and (self._hand[p] | 1 << c) & SUIT_MASKS[3 - led]:
            self._wrong = p

    def _restricted_played(self, p: int, c: int, n: int) -> None:
        """Record what playing a restricted exposed card tells everyone about its holder's hand.

        The play restriction makes some plays of an exposed card possible only when its holder
        has no other choice; those plays are public evidence, kept with the voids: the seat holds
        no unexposed card of that suit (or, under strict exposure, none at all). Search agents
        that sample hidden hands rely on it.
        """
        suit = c // 13
        if self._suits_led >> suit & 1:
            return  # the restriction is over for this suit; the play says nothing
        strict = self.rules.strict_exposure
        if n == 1:
            # Leading it into its unled suit: allowed only as the last card of its suit, or
            # (strict) only when every card in hand is a restricted exposed card.
            if self.rules.exposed_may_lead:
                return
            self._voids[p] |= 0b1111 if strict else 1 << suit
        elif suit == self._led_suit:
            # Following to the first trick of its suit: only as the last card of that suit.
            self._voids[p] |= 1 << suit
        elif strict:
            # A strict discard of it: every card in hand was a restricted exposed card.
            self._voids[p] |= 0b1111

    # ------------------------------------------------------------------ copies and views
    def clone(self) -> Game:
        """Return an independent copy of this game (for search): a few short lists are copied."""
        g = object.__new__(Game)
        g.rules = self.rules
        g._hand = self._hand[:]
        g._deal = self._deal
        g._exposed = self._exposed[:]
        g._exposed_all = self._exposed_all
        g._captured = self._captured[:]
        g._played_by = self._played_by[:]
        g._voids = self._voids[:]
        g._phase = self._phase
        g._current = self._current
        g._first_leader = self._first_leader
        g._free_first_lead = self._free_first_lead
        g._declare_turns = self._declare_turns
        g._declarations = self._declarations[:]
        g._trick = self._trick[:]
        g._trick_leader = self._trick_leader
        g._led_suit = self._led_suit
        g._led_mask = self._led_mask
        g._suits_led = self._suits_led
        g._tricks = self._tricks[:]
        g._actions = self._actions[:]
        g._legal = self._legal
        g._prov = self._prov
        g._restrict = self._restrict
        g._restrictable = self._restrictable
        g._strict = self._strict
        g._may_lead = self._may_lead
        g._colour = self._colour
        g._wrong = self._wrong
        g._first_drawn = self._first_drawn
        g._doubled = self._doubled
        g._teams = self._teams
        g._seats = self._seats
        g._lead_bit = self._lead_bit
        g._num_tricks = self._num_tricks
        g._first_pig = self._first_pig
        g._done = self._done
        two = self._two
        g._two = None if two is None else two.clone()
        return g

    def view(self, seat: int) -> PlayerView:
        """Return what ``seat`` may know of this hand, and nothing more."""
        return PlayerView.from_game(self, seat if type(seat) is int else
                                    seat_index(seat, self._seats))

    def observation(self, seat: int) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
        """``seat``'s observation vector and action mask: ``view(seat).observation()``, fast.

        The env calls this at every step. Under the standard rules it encodes straight from
        the game's state (the facts ``view`` copies, and no more) without building the view;
        rule sets that hide or add facts go through the view.
        """
        if not self.rules.is_standard:
            return self.view(seat).observation()
        phase = self._phase
        current = self._current
        prov = self._prov
        if prov is None:
            prov = self.provisional_scores()
        return encode_observation(
            seat, phase, current, self._hand[seat], self._trick_leader, self._trick,
            len(self._tricks), self._played_by, self._exposed, self._captured, self._voids,
            self.declared_seats, self._first_leader,
            self.legal_mask() if current == seat else 0, prov)

    def __repr__(self) -> str:
        return (f"Game(phase={self.phase.value!r}, current_player={self._current}, "
                f"tricks_played={len(self._tricks)})")

    def render(self, seat: int | None = None) -> str:
        """Return a readable table of the hand; ``seat`` shows only that seat's cards."""
        return render_game(self, seat)

    def _repr_html_(self) -> str:
        """Jupyter's rich display: a spectator's HTML table (``gongzhu_env.html``)."""
        return game_html(self)


def seat_index(seat: object, seats: int, what: str = "seat") -> int:
    """Return ``seat`` as an int seat of a table of ``seats``, or raise naming the problem.

    Python and numpy integers are seats; a bool, a float or text is not.
    """
    if not isinstance(seat, (bool, np.bool_)):
        try:
            index = operator.index(cast(SupportsIndex, seat))
        except TypeError:
            pass
        else:
            if 0 <= index < seats:
                return index
    raise ValueError(f"{what} must be a seat 0..{seats - 1}; got {seat!r}")


def deal_cards(hands: Sequence[Sequence[int | str]], what: str,
               seats: int = NUM_SEATS) -> list[list[int]]:
    """Read a deal's hands as card indices (each card given as an index or as text).

    The shape checks of every deal, one deck or two: one hand per seat (``seats``), each a
    list of cards. ``what`` names the deal in the error (``"a deal is four hands of 13
    cards"``). How often a card may appear, and how many cards a hand holds, the caller checks.
    """
    if isinstance(hands, (str, bytes)) or not isinstance(hands, Sequence | np.ndarray) \
            or len(hands) != seats:
        raise ValueError(f"{what}; got {hands!r}")
    out = []
    for seat, hand in enumerate(hands):
        if isinstance(hand, str):
            raise ValueError(f"hand of seat {seat} must be a list of cards, got the string "
                             f"{hand!r}; use parse_cards() first")
        if not isinstance(hand, Sequence | np.ndarray | set | frozenset):
            raise ValueError(f"hand of seat {seat} must be a list of cards; got {hand!r}")
        out.append([card_index(c, f"seat {seat}") for c in hand])
    return out


_DECK_WORDS = {1: ("", "one deck holds one copy"), 2: ("two-deck ", "two decks hold two copies")}
"""Per deck count: how errors name a deal or hand of it, and how many copies of a card exist."""


def _validate_hands(hands: Sequence[Sequence[int | str]], rules: Rules) -> list[list[int]]:
    """Check a deal and return its hands as card indices, or raise a ``ValueError`` saying why.

    One hand per seat of ``rules.hand_size`` cards, no card more often than there are decks,
    none a removed card: with the sizes dividing the deck, that covers every card in play
    ``rules.decks`` times.
    """
    n, size, decks = rules.players, rules.hand_size, rules.decks
    kind, copies = _DECK_WORDS[decks]
    what = f"a {kind}deal is {count_word(n)} hands of {size} cards"
    if n != 4:
        what += f" (players={n})"
    removed = ~rules.deck_mask
    out = deal_cards(hands, what, n)
    total = [0] * NUM_CARDS
    for seat, hand in enumerate(out):
        for idx in hand:
            total[idx] += 1
            if total[idx] > decks:
                times = "twice" if total[idx] == 2 else f"{total[idx]} times"
                raise ValueError(f"seat {seat}: card {card_str(idx)} appears {times} in the "
                                 f"deal; {copies} of each card")
            if 1 << idx & removed:
                gone = " ".join(card_str(c) for c in rules.removed_cards)
                raise ValueError(f"seat {seat}: card {card_str(idx)} is not in the deck at "
                                 f"{n} players (removed: {gone})")
        if len(hand) != size:
            raise ValueError(f"seat {seat} has {len(hand)} cards; every {kind}hand must have "
                             f"{size}")
    return out
