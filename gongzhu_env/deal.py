"""The one deal: how a seed becomes the hands of a table, for every rule set.

A deal is the cards in play (``Rules.deck_mask``, each card ``rules.decks`` times) in index
order, shuffled by one ``Generator.shuffle`` call and cut into ``rules.players`` blocks of
``rules.hand_size``: seat ``s`` gets block ``s``, and the first card of a block is the first
card dealt to that seat (``first_drawn_exposure``). The engine (``Game(rules, seed=...)``) and
the arena's deal sets (``training.arena.deals.generate_deals``) both deal through
``shuffled_deck``, so the same seed gives the same hands everywhere a scalar game is played.

The batched engine (``gongzhu_env.vector.GameBatch``) is the one exception: it shuffles inside
its compiled kernels from a counter-based stream keyed by ``(seed, hand number)``, so that
any table of a batch can be re-dealt without replaying the others. Its hands for a seed are
therefore not these: ``gongzhu_env.vector.deal(seed, table, hand)`` reproduces any hand of its
stream, and ``Game.from_hands`` of those hands plays it on the engine, which is how the
differential test (``benchmarks/check_vector.py``) holds the batch to the engine.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from gongzhu_env.cards import NUM_CARDS
from gongzhu_env.rules import Rules

__all__ = ["shuffled_deck", "deal_hands"]

_DECKS: dict[tuple[int, int, bool], NDArray[np.int64]] = {}


def _cards_in_play(rules: Rules, bits: bool) -> NDArray[np.int64]:
    """Return the cards in play in index order, each ``rules.decks`` times (cached).

    As card indices, or as the cards' one-bit masks (``bits``; 52-bit masks fit in int64).
    """
    key = (rules.players, rules.decks, bits)
    cards = _DECKS.get(key)
    if cards is None:
        one = [1 << c if bits else c for c in range(NUM_CARDS) if rules.deck_mask >> c & 1]
        cards = _DECKS[key] = np.array(one * rules.decks, dtype=np.int64)
    return cards


def shuffled_deck(rules: Rules, rng: np.random.Generator, *,
                  bits: bool = False) -> NDArray[np.int64]:
    """Return the cards in play in dealing order (int64): seat ``s`` gets block ``s``.

    One ``rng.shuffle`` of the cards in index order, so the draws taken from ``rng`` depend only
    on the number of cards in play. ``bits=True`` gives each card as its one-bit mask (the same
    order from the same draws), which the engine sums into hand masks without a lookup.
    """
    deck: NDArray[np.int64] = _cards_in_play(rules, bits).copy()
    rng.shuffle(deck)
    return deck


def deal_hands(rules: Rules | str | None = None, seed: int | None = None, *,
               rng: np.random.Generator | None = None) -> list[list[int]]:
    """Return the hands ``Game(rules, seed=seed)`` deals, in dealing order (unsorted).

    ``Game.from_hands(deal_hands(rules, seed), rules)`` is the same hand as
    ``Game(rules, seed=seed)``, first-drawn cards included.
    """
    if rng is None:
        rng = np.random.default_rng(seed)
    elif seed is not None:
        raise ValueError("pass either seed= or rng=, not both")
    rules = Rules.coerce(rules)
    deck = shuffled_deck(rules, rng)
    return deck.reshape(rules.players, rules.hand_size).tolist()
