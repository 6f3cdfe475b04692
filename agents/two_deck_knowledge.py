"""How a rule agent reads the trick rules of two decks (RULES.md 6.11) from the legal mask.

A follower to a pair lead plays two cards, one action at a time; the engine gives only the legal
first cards (and, once one is played, the legal second ones). ``candidate_plays`` infers the
two-card plays from that mask and the hand, and ``first_card`` picks the action that starts
(or completes) one. Everything else a seat knows, copy by copy, is the one ``Situation`` of
``agents.knowledge``, and worlds consistent with it are dealt by ``gongzhu_env.worlds``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents.knowledge import Situation
from gongzhu_env.cards import (
    FULL_DECK,
    SUIT_MASKS,
    cards_of,
)

if TYPE_CHECKING:
    pass


# ---------------------------------------------------------------------- plays at the table
def candidate_plays(s: Situation) -> list[tuple[int, ...]]:
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
    plays: list[tuple[int, ...]] = [(a, b) for i, a in enumerate(pool) for b in pool[i + 1:]]
    return plays + [(c, c) for c in cards_of(legal & s.hand2)]


def first_card(s: Situation, play: tuple[int, ...]) -> int:
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
