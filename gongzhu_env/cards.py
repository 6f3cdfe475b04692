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
from collections.abc import Iterable
from typing import SupportsIndex, cast

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


def actions_of(mask: int, decks: int = 1) -> list[int]:
    """Return the actions of a legal-action mask, sorted (bit ``a`` is action ``a``).

    ``0..51`` cards; with two decks ``52 + k`` the pair lead of card ``k``; DONE last (52, or
    104 with two decks).
    """
    acts = list(cards_of(mask & FULL_DECK))
    done = NUM_CARDS * decks
    # The pair leads lie between the cards and DONE: none with one deck.
    pairs = mask >> NUM_CARDS & ((1 << (done - NUM_CARDS)) - 1)
    if pairs:
        acts += [NUM_CARDS + c for c in cards_of(pairs)]
    if mask >> done & 1:
        acts.append(done)
    return acts


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


def action_str(action: int, decks: int = 1) -> str:
    """Return the text of an action: a card (``"SQ"``), ``"DONE"`` or a pair lead.

    A pair lead exists with two decks only: action ``52 + k`` is ``"SQ+SQ"`` for ``k`` = SQ, and
    DONE is then 104.
    """
    done = NUM_CARDS * decks
    if action == done:
        return "DONE"
    if NUM_CARDS <= action < done:  # a pair lead (none with one deck)
        c = card_str(action - NUM_CARDS)
        return f"{c}+{c}"
    return card_str(action)


def parse_action(text: str, decks: int = 1) -> int:
    """Parse the text of an action (``action_str``'s inverse): a card, ``"DONE"`` or a pair."""
    if not isinstance(text, str):
        raise ValueError(f"an action must be card text or 'DONE', got {text!r}")
    if text.strip().upper() == "DONE":
        return NUM_CARDS * decks
    first, plus, second = text.partition("+")
    if not plus:
        return parse_card(text)
    a, b = parse_card(first), parse_card(second)
    if a != b or NUM_CARDS + a >= NUM_CARDS * decks:
        raise ValueError(f"bad action {text!r}: a pair lead is two copies of one card ('SQ+SQ') "
                         "and exists only with two decks")
    return NUM_CARDS + a


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
