"""Cards: the canonical index, text notation and card-set helpers.

A card is an ``int`` in ``0..51``: ``index = suit * 13 + (rank - 2)`` with suits ordered
clubs, diamonds, hearts, spades (``C=0, D=1, H=2, S=3``) and ranks ``2..14`` (J=11, Q=12, K=13,
A=14). So ``C2=0``, ``C10=8``, ``DJ=22``, ``H2=26``, ``HA=38``, ``SQ=49``, ``SA=51``.

A *set* of cards is stored as a 52-bit ``int`` mask (bit ``i`` set means card ``i`` is in the
set). Masks make the engine's hot paths (follow suit, capture, legality) a handful of integer
operations instead of per-card Python loops; ``cards_of`` turns a mask back into a sorted tuple
through per-suit lookup tables.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import Protocol, SupportsIndex, cast

import numpy as np

NUM_CARDS = 52
NUM_SUITS = 4
NUM_RANKS = 13
SUIT_LETTERS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS = "♣♦♥♠"
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
RED_SUITS = (DIAMONDS, HEARTS)

_RANK_TEXT = {2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10",
              11: "J", 12: "Q", 13: "K", 14: "A"}
_TEXT_RANK = {text: rank for rank, text in _RANK_TEXT.items()} | {"T": 10}
# Black and white suit symbols are both accepted on input.
_SYMBOL_SUIT = {"♣": 0, "♧": 0, "♦": 1, "♢": 1, "♥": 2, "♡": 2, "♠": 3, "♤": 3}


def card(suit: int, rank: int) -> int:
    """Return the index of the card of ``suit`` (0..3) and ``rank`` (2..14)."""
    return suit * NUM_RANKS + rank - 2


def suit_of(c: int) -> int:
    """Suit of card ``c`` (0=C, 1=D, 2=H, 3=S)."""
    return c // NUM_RANKS


def rank_of(c: int) -> int:
    """Rank of card ``c`` (2..14, ace high)."""
    return c % NUM_RANKS + 2


# Named cards the rules talk about.
C2 = card(CLUBS, 2)
C10 = card(CLUBS, 10)
DJ = card(DIAMONDS, 11)
HA = card(HEARTS, 14)
SQ = card(SPADES, 12)
EXPOSABLE = (SQ, DJ, C10, HA)
"""The four cards that may be exposed (declared), in the order the observation encodes them."""

DONE = NUM_CARDS
"""The action that ends a declaration turn."""
NUM_ACTIONS = NUM_CARDS + 1

FULL_DECK = (1 << NUM_CARDS) - 1
SUIT_MASKS = tuple(((1 << NUM_RANKS) - 1) << (s * NUM_RANKS) for s in range(NUM_SUITS))
HEARTS_MASK = SUIT_MASKS[HEARTS]
EXPOSABLE_MASK = sum(1 << c for c in EXPOSABLE)
SCORING_MASK = HEARTS_MASK | (1 << SQ) | (1 << DJ) | (1 << C10)
"""The 16 scoring cards: every heart, the pig, the sheep and the transformer."""
SCORING_CARDS = tuple(c for c in range(NUM_CARDS) if SCORING_MASK >> c & 1)


def _build_suit_tables() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For each suit, a table from a 13-bit rank mask to the sorted tuple of card indices."""
    tables = []
    for s in range(NUM_SUITS):
        base = s * NUM_RANKS
        table: list[tuple[int, ...]] = [()] * (1 << NUM_RANKS)
        for m in range(1, 1 << NUM_RANKS):
            low = (m & -m).bit_length() - 1
            table[m] = (base + low,) + table[m & (m - 1)]
        tables.append(tuple(table))
    return tuple(tables)


SUIT_TABLES = _build_suit_tables()
"""``SUIT_TABLES[s][m]``: the sorted cards of suit ``s`` whose rank bits are ``m``."""
_RANK_MASK = (1 << NUM_RANKS) - 1


def cards_of(mask: int) -> tuple[int, ...]:
    """Return the cards of a 52-bit mask as a sorted tuple."""
    t = SUIT_TABLES
    return (t[0][mask & _RANK_MASK] + t[1][(mask >> 13) & _RANK_MASK]
            + t[2][(mask >> 26) & _RANK_MASK] + t[3][mask >> 39])


def mask_of(cards: Iterable[int]) -> int:
    """Return the 52-bit mask of an iterable of card indices."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


Multiset = tuple[int, int]
"""A multiset of cards as two masks ``(once, twice)``: the cards present at least once, and
those present twice. Every card set of the game is one: with one deck ``twice`` is simply
empty, with two decks a card may be held, exposed, taken or played twice. These helpers are
the only place that counts copies."""


def ms_put(once: int, twice: int, bit: int) -> Multiset:
    """Add one copy of the card ``bit`` (a one-bit mask) to the multiset ``(once, twice)``."""
    if once & bit:
        return once, twice | bit
    return once | bit, twice


def ms_take(once: int, twice: int, bit: int) -> Multiset:
    """Remove one copy of the card ``bit`` (a one-bit mask) from ``(once, twice)``."""
    if twice & bit:
        return once, twice ^ bit
    return once ^ bit, twice


def ms_add(a: Multiset, b: Multiset) -> Multiset:
    """Return the sum of two multisets whose counts add up to at most two per card."""
    return a[0] | b[0], a[1] | b[1] | (a[0] & b[0])


def ms_copies(once: int, twice: int, bit: int) -> int:
    """Count the copies (0, 1 or 2) of the card ``bit`` (a one-bit mask) in ``(once, twice)``."""
    return (1 if once & bit else 0) + (1 if twice & bit else 0)


def ms_size(once: int, twice: int) -> int:
    """Count the cards of the multiset ``(once, twice)``."""
    return once.bit_count() + twice.bit_count()


def multiset_masks(cards: Iterable[int]) -> Multiset:
    """Return a multiset of cards of two decks as two masks: ``(once, twice)``.

    ``once`` holds every card present at least once, ``twice`` those present twice (so
    ``twice`` is a subset of ``once``). A card given three times or more raises ``ValueError``:
    two decks have two copies of each card.
    """
    once = twice = 0
    for c in cards:
        bit = 1 << c
        if twice & bit:
            raise ValueError(f"card {card_str(c)} appears three times; two decks hold two copies")
        if once & bit:
            twice |= bit
        else:
            once |= bit
    return once, twice


def multiset_cards(once: int, twice: int) -> tuple[int, ...]:
    """Return a ``(once, twice)`` multiset as a sorted tuple, a card twice where held twice."""
    if not twice:
        return cards_of(once)
    return tuple(sorted(cards_of(once) + cards_of(twice)))


def count(mask: int) -> int:
    """Count the cards in a mask."""
    return mask.bit_count()


def card_str(c: int) -> str:
    """Text of a card: ``49 -> "SQ"``, ``8 -> "C10"``, ``52 -> "DONE"``."""
    if c == DONE:
        return "DONE"
    if not 0 <= c < NUM_CARDS:
        raise ValueError(f"card index {c!r} is out of range; expected 0..51 (or 52 for DONE)")
    return SUIT_LETTERS[c // NUM_RANKS] + _RANK_TEXT[c % NUM_RANKS + 2]


def card_symbol(c: int) -> str:
    """Card text with a suit symbol: ``49 -> "♠Q"``."""
    if c == DONE:
        return "DONE"
    return SUIT_SYMBOLS[c // NUM_RANKS] + _RANK_TEXT[c % NUM_RANKS + 2]


def cards_str(cards: Iterable[int]) -> str:
    """Space-separated text of several cards."""
    return " ".join(card_str(c) for c in cards)


def parse_card(token: str) -> int:
    """Parse one card token.

    Accepts a suit letter or symbol (black or white) followed by a rank (``2``..``10``, ``T``,
    ``J``, ``Q``, ``K``, ``A``), or a rank followed by a suit symbol, in any case: ``SQ``,
    ``c10``, ``CT``, ``♠Q``, ``♡10``, ``Q♠``.
    """
    if not isinstance(token, str):
        raise ValueError(f"expected a card as text such as 'SQ' or '♠Q', got {token!r}")
    t = token.strip().upper()
    suit = None
    rank_text = ""
    if t[:1] in _SYMBOL_SUIT:
        suit, rank_text = _SYMBOL_SUIT[t[0]], t[1:]
    elif t[-1:] in _SYMBOL_SUIT:
        suit, rank_text = _SYMBOL_SUIT[t[-1]], t[:-1]
    elif t[:1] and t[0] in SUIT_LETTERS:
        suit, rank_text = SUIT_LETTERS.index(t[0]), t[1:]
    rank = _TEXT_RANK.get(rank_text)
    if suit is None or rank is None:
        raise ValueError(
            f"bad card token {token!r}: expected a suit (C D H S or ♣ ♦ ♥ ♠) and a rank "
            "(2-10, T, J, Q, K, A), e.g. 'SQ', 'C10', 'CT', '♠Q'"
        )
    return card(suit, rank)


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Parse cards from text (``"SQ DJ C10"`` or ``"SQ,DJ,C10"``) or an iterable of tokens.

    Returns the card indices in the order given: ``"SQ DJ C10" -> [49, 22, 8]``. A bad token
    raises ``ValueError`` naming it.
    """
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(tok) for tok in tokens]


def card_index(card: object, where: str) -> int:
    """Return one card given as an index (a Python or numpy int) or as text (``"SQ"``).

    Raises ``ValueError`` starting with ``where`` (``"seat 2"``, ``"captured"``) and saying
    what was wrong: text that is no card, a bool, anything else that is not an int, or an
    index outside 0..51. The deal checks and the scoring functions read cards through it.
    """
    if isinstance(card, str):
        try:
            return parse_card(card)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
    if isinstance(card, (bool, np.bool_)):
        raise ValueError(f"{where}: {card!r} is a bool, not a card")
    try:
        idx = operator.index(cast(SupportsIndex, card))  # numpy integers are fine
    except TypeError:
        raise ValueError(f"{where}: {card!r} is not a card (an index 0..51 or text such as "
                         f"'SQ')") from None
    if not 0 <= idx < NUM_CARDS:
        raise ValueError(f"{where}: card index {idx} is out of range 0..51 (not a card index)")
    return idx


# ---------------------------------------------------------------------------- actions
# The action space of a table, as one object per deck count: ``ActionCodec``.
#
# An action is an ``int``. With one deck there are 53: ``0..51`` the card with that index
# (expose it while declaring, play it) and ``52`` DONE (end a declaration turn). Two decks
# (RULES.md 6.11) add the 52 pair leads between the cards and DONE: ``52 + k`` leads both
# copies of card ``k``, and DONE moves to ``104``. Everything that turns actions into words or
# words into actions (records, the renderers, the players' errors, the command line, the web
# table) asks the codec of its rules (``ActionCodec.for_rules(rules)``) instead of working the
# layout out from ``rules.decks``: the numbers above, the text of a pair (``"SQ+SQ"``) and the
# errors for text that names no action are written here and nowhere else. ``action_str``,
# ``parse_action`` and ``actions_of`` are thin wrappers over it, for callers that hold a deck
# count rather than rules. (It lives beside the card notation it extends: ``rules`` imports
# this module, and nothing here may import back.)

PAIR_JOIN = "+"
"""What joins the two copies of a pair lead in its text: ``"SQ+SQ"``, ``"♠Q+♠Q"``."""

DONE_TEXT = "DONE"


class ActionCodec:
    """The actions of a table with ``decks`` decks: their number, their text and their kinds.

    One instance per deck count (``ONE_DECK``, ``TWO_DECKS``); get it with ``for_rules`` or
    ``for_decks``. Attributes: ``decks``; ``num_actions`` (53 or 105); ``done`` (the DONE
    action, 52 or 104); ``pairs`` (whether pair-lead actions exist: exactly with two decks,
    ``Rules.pair_leads``).
    """

    __slots__ = ("decks", "num_actions", "done", "pairs")

    decks: int
    num_actions: int
    done: int
    pairs: bool

    def __init__(self, decks: int) -> None:
        if type(decks) is not int or decks not in (1, 2):
            raise ValueError(f"decks must be 1 or 2; got {decks!r}")
        self.decks = decks
        self.done = NUM_CARDS * decks
        self.num_actions = self.done + 1
        self.pairs = decks == 2

    @staticmethod
    def for_decks(decks: int) -> ActionCodec:
        """Return the codec of ``decks`` decks (1 or 2); anything else raises ``ValueError``."""
        if decks == 1 and type(decks) is int:
            return ONE_DECK
        if decks == 2 and type(decks) is int:
            return TWO_DECKS
        raise ValueError(f"decks must be 1 or 2; got {decks!r}")

    @staticmethod
    def for_rules(rules: _HasDecks) -> ActionCodec:
        """Return the codec of the table ``rules`` (a ``Rules``) describe."""
        return ActionCodec.for_decks(rules.decks)

    def __repr__(self) -> str:
        return f"ActionCodec(decks={self.decks})"

    def __reduce__(self) -> tuple[Callable[[int], ActionCodec], tuple[int]]:
        # Unpickled as the shared instance of its deck count.
        return ActionCodec.for_decks, (self.decks,)

    # ------------------------------------------------------------------ kinds of action
    def is_action(self, action: object) -> bool:
        """Whether ``action`` is an action of this space (an int, or a numpy int, in range)."""
        a = _as_int(action)
        return a is not None and 0 <= a < self.num_actions

    def is_card(self, action: int) -> bool:
        """Whether ``action`` is one card (``0..51``): exposed while declaring, else played."""
        return 0 <= action < NUM_CARDS

    def is_pair(self, action: int) -> bool:
        """Whether ``action`` leads a pair (``52 + k``; never with one deck)."""
        return NUM_CARDS <= action < self.done

    def is_done(self, action: int) -> bool:
        """Whether ``action`` is DONE."""
        return action == self.done

    def pair_action(self, card: int) -> int:
        """Return the action that leads both copies of ``card``; raises without pair leads."""
        if not self.pairs:
            raise ValueError(f"there are no pair leads with {self.decks} deck: a pair lead "
                             "exists only with two decks")
        if type(card) is not int or not 0 <= card < NUM_CARDS:
            raise ValueError(f"a pair lead is of a card index 0..51; got {card!r}")
        return NUM_CARDS + card

    def pair_card(self, action: int) -> int:
        """Return the card whose two copies the pair-lead ``action`` leads; raises otherwise."""
        if not self.is_pair(action):
            raise ValueError(f"action {action!r} is not a pair lead; pair leads are "
                             f"{self._pair_range()}")
        return action - NUM_CARDS

    def cards(self, action: int) -> tuple[int, ...]:
        """Return the cards ``action`` puts down: one card, a pair's two copies, none for DONE."""
        if 0 <= action < NUM_CARDS:
            return (action,)
        if self.is_pair(action):
            c = action - NUM_CARDS
            return c, c
        if action == self.done:
            return ()
        raise ValueError(self._not_an_action(action))

    def actions_of(self, mask: int) -> list[int]:
        """Return the actions of a legal-action mask, sorted (bit ``a`` is action ``a``).

        Cards first, then the pair leads, then DONE.
        """
        acts = list(cards_of(mask & FULL_DECK))
        if self.pairs:
            pairs = mask >> NUM_CARDS & FULL_DECK
            if pairs:
                acts += [NUM_CARDS + c for c in cards_of(pairs)]
        if mask >> self.done & 1:
            acts.append(self.done)
        return acts

    def layout(self) -> str:
        """Say how the actions are numbered, for error messages."""
        if self.pairs:
            return f"0..51 one card, 52+k the pair of card k, {self.done} DONE"
        return f"0..51 a card index, {self.done} DONE"

    # ------------------------------------------------------------------ text
    def text(self, action: int, card_text: Callable[[int], str] = card_str) -> str:
        """Return the text of ``action``: a card (``"SQ"``), ``"DONE"`` or a pair (``"SQ+SQ"``).

        ``card_text`` writes one card (``cards.card_symbol`` gives ``"♠Q+♠Q"``). Anything that
        is not an action of this space raises ``ValueError`` saying what the actions are.
        """
        if 0 <= action < NUM_CARDS:
            return card_text(action)
        if action == self.done:
            return DONE_TEXT
        if self.is_pair(action):
            return self.pair_text(action - NUM_CARDS, card_text)
        raise ValueError(self._not_an_action(action))

    @staticmethod
    def pair_text(card: int, card_text: Callable[[int], str] = card_str) -> str:
        """Return the text of the pair of ``card`` (``"SQ+SQ"``): the one way a pair is written."""
        c = card_text(card)
        return f"{c}{PAIR_JOIN}{c}"

    def parse(self, text: str) -> int:
        """Return the action that ``text`` names (``text``'s inverse).

        A card in any notation ``parse_card`` reads, ``"DONE"`` in any case, or with two decks
        a pair ``"SQ+SQ"``. Anything else raises ``ValueError`` naming the text and what was
        expected.
        """
        if not isinstance(text, str):
            raise ValueError(f"an action must be card text or 'DONE', got {text!r}")
        if text.strip().upper() == DONE_TEXT:
            return self.done
        first, join, second = text.partition(PAIR_JOIN)
        if not join:
            return parse_card(text)
        a, b = parse_card(first), parse_card(second)
        if a != b or not self.pairs:
            raise ValueError(f"bad action {text!r}: a pair lead is two copies of one card "
                             "('SQ+SQ') and exists only with two decks")
        return NUM_CARDS + a

    def _pair_range(self) -> str:
        return f"52..{self.done - 1}" if self.pairs else "none with one deck"

    def _not_an_action(self, action: object) -> str:
        return (f"{action!r} is not an action with {self.decks} deck{'s' * (self.decks - 1)}; "
                f"expected an int in 0..{self.done} ({self.layout()})")


class _HasDecks(Protocol):
    """What ``ActionCodec.for_rules`` reads of a ``Rules`` (which imports this module)."""

    @property
    def decks(self) -> int: ...


def _as_int(action: object) -> int | None:
    """Return ``action`` as an int if it is a Python or numpy integer (no bool), else ``None``."""
    if isinstance(action, (bool, np.bool_)):
        return None
    try:
        return operator.index(cast(SupportsIndex, action))
    except TypeError:
        return None


ONE_DECK = ActionCodec(1)
"""The 53 actions of one deck."""
TWO_DECKS = ActionCodec(2)
"""The 105 actions of two decks."""


def action_str(action: int, decks: int = 1) -> str:
    """Return the text of an action: a card (``"SQ"``), ``"DONE"`` or a pair lead (``"SQ+SQ"``).

    A pair lead exists with two decks only, where DONE is 104. A wrapper over
    ``ActionCodec.text``, kept for its callers: code that knows its
    rules asks ``ActionCodec.for_rules(rules)`` once.
    """
    return ActionCodec.for_decks(decks).text(action)


def parse_action(text: str, decks: int = 1) -> int:
    """Parse the text of an action (``action_str``'s inverse): a card, ``"DONE"`` or a pair.

    A wrapper over ``ActionCodec.parse``; bad text raises
    ``ValueError`` naming it.
    """
    return ActionCodec.for_decks(decks).parse(text)


def actions_of(mask: int, decks: int = 1) -> list[int]:
    """Return the actions of a legal-action mask, sorted (bit ``a`` is action ``a``).

    ``0..51`` cards; with two decks ``52 + k`` the pair lead of card ``k``; DONE last (52, or
    104 with two decks). A wrapper over ``ActionCodec.actions_of``,
    which owns the layout of the action space.
    """
    return ActionCodec.for_decks(decks).actions_of(mask)
