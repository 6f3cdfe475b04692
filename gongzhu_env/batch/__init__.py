"""The batched engine: many Gong Zhu tables stepped in lockstep by compiled kernels.

``GameBatch(num_tables, rules)`` is the one class, for every table the batch covers: one deck
at three to eight seats (every hand option) and two decks at four seats
(``check_covered`` says which rule sets, and why not). The modules of this folder:

* ``base``: ``GameBatch`` itself (argument checks, outputs, snapshots, reading tables) and the
  snapshots' digest;
* ``tricks``: the trick rules every table plays by, compiled pure functions of card masks
  (the trick winner, the restriction of exposed cards, what may be led and followed, the
  hand score of one or two decks, the results);
* ``one_deck`` and ``pairs``: the two table layouts (bit masks of the 52 cards; two decks as
  once/twice masks with pair leads), picked by ``GameBatch`` from the rules: where a row keeps
  what, the step kernels, the view writers;
* ``encoding``: the observation's bit writers, which both view writers use;
* ``vector_env``: the Gymnasium vector envs over a batch (``SingleSeatVectorEnv``,
  ``SelfPlayBatch``);
* ``differential``: the check that plays a batch and ``engine.Game`` side by side;
* ``fuzz``: the check that damaged snapshots are refused.

Importing this package loads numba; ``import gongzhu_env`` does not. ``gongzhu_env.vector``
and ``gongzhu_env.vector_env`` re-export the public names under their older addresses.
"""

from __future__ import annotations

from gongzhu_env.batch import one_deck, pairs
from gongzhu_env.batch.base import BatchStep, GameBatch
from gongzhu_env.batch.one_deck import COVERED, MAX_TABLES
from gongzhu_env.rules import Rules

Batch = GameBatch
"""The type of a batch of any rules (kept for callers that named the union of two classes)."""


def check_covered(rules: Rules | str | None) -> Rules:
    """Return ``rules`` if ``GameBatch`` plays them, else raise ``ValueError`` naming why."""
    rules = Rules.coerce(rules)
    return pairs.check_covered(rules) if rules.decks == 2 else one_deck.check_covered(rules)


check_batched = check_covered
"""The older name of ``check_covered``."""


def deal(seed: int, table: int, hand: int,
         rules: Rules | str | None = None) -> tuple[tuple[int, ...], ...]:
    """Return the hands (sorted cards) of hand ``hand`` of ``table`` under ``reset(seed)``.

    A batch's deal stream under ``rules`` (the standard game by default) reproduced outside
    it; one sorted hand a seat, a card held twice appearing twice at two decks.
    """
    rules = Rules.coerce(rules)
    if rules.decks == 2:
        return pairs.deal(seed, table, hand)
    return one_deck.deal(seed, table, hand, rules)


def new_batch(num_tables: int, rules: Rules | str | None, *, reward_mode: str = "raw",
              reward_scale: float = 1.0) -> GameBatch:
    """Return ``GameBatch(num_tables, rules, ...)``: the older way to make a batch of any rules.

    Kept for one release for callers written when two decks had a class of their own.
    """
    return GameBatch(num_tables, check_covered(rules), reward_mode=reward_mode,
                     reward_scale=reward_scale)


__all__ = ["Batch", "BatchStep", "COVERED", "GameBatch", "MAX_TABLES", "check_batched",
           "check_covered", "deal", "new_batch"]
