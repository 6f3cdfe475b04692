"""Which batched engine plays a table: ``GameBatch`` (one deck) or ``PairGameBatch`` (two).

The two batched engines share an interface (``reset``, ``step``, ``sample_legal``, the output
arrays, ``deal_of``) but not their kernels: one deck is bit masks of 52 cards, two decks are
pairs of masks with pair leads and two-action pair follows. Code that runs "the batched engine"
for any rules (the Deep Monte-Carlo trainer) asks here, so that the choice, and the question
whether a rule set is covered at all, is made in one place. Importing this module loads numba
(through the two engines); ``import gongzhu_env`` does not.
"""

from __future__ import annotations

from gongzhu_env.rules import Rules
from gongzhu_env.vector import GameBatch
from gongzhu_env.vector import check_covered as check_one_deck
from gongzhu_env.vector_pairs import PairGameBatch
from gongzhu_env.vector_pairs import check_covered as check_two_decks

Batch = GameBatch | PairGameBatch
"""A batch of tables of either engine."""


def check_batched(rules: Rules | str | None) -> Rules:
    """Return ``rules`` if a batched engine plays them, else raise ``ValueError`` naming why."""
    rules = Rules.coerce(rules)
    return check_two_decks(rules) if rules.decks == 2 else check_one_deck(rules)


def new_batch(num_tables: int, rules: Rules | str | None, *, reward_mode: str = "raw",
              reward_scale: float = 1.0) -> Batch:
    """Build the batch of ``num_tables`` tables of the engine that plays ``rules``."""
    rules = check_batched(rules)
    cls = PairGameBatch if rules.decks == 2 else GameBatch
    return cls(num_tables, rules, reward_mode=reward_mode, reward_scale=reward_scale)


__all__ = ["Batch", "check_batched", "new_batch"]
