"""Who sits next to a learner: one opponent mix for every trainer and every single-seat env.

An ``OpponentMix`` is a list of entries with weights. An entry is whatever the user of the mix
seats: an agent spec such as ``"greedy"`` or ``"policy:PATH"`` (a rule agent or a frozen
policy), an agent object, a batched policy of ``gongzhu_env.vector_env``, or one of the two
special names a trainer resolves itself:

* ``"self"``: the learner's current policy (Deep Monte-Carlo makes that seat a learner seat
  too; the PPO trainer seats its live policy, acting greedily);
* ``"snapshot"``: one of the frozen earlier copies of the learner kept by the trainer, drawn
  uniformly among them. **Before the first snapshot exists, a snapshot seat is the learner's
  current policy** (``"self"``): a snapshot taken now would be exactly that.

The one sampling rule, used by ``training.dmc``, ``training.sb3``,
``gongzhu_env.wrappers.SingleSeatEnv`` and ``gongzhu_env.vector_env.SingleSeatVectorEnv``:
each seat draws an entry with probability proportional to its weight, independently of the
other seats, from the seated table's own seeded generator. One draw is one uniform double
looked up in the cumulative weights (what ``numpy.random.Generator.choice(n, p=...)`` does);
for a plain list without weights it is one ``integers(n)`` draw instead, which is the same
distribution and the draw the single-seat env has always made for a list of opponents, so
seeded episodes stay what they were. ``draw_seat`` then adds what a seat needs: the
snapshot's index, or the seed of the agent built for the seat.

This module imports neither torch nor any agent: the mix says *who*, its users build them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

SELF = "self"
"""The learner's current policy."""
SNAPSHOT = "snapshot"
"""A frozen earlier copy of the learner (the learner's current policy before the first)."""
SPECIAL = (SELF, SNAPSHOT)
"""Entries a trainer resolves itself; every other spec is built by ``agents.make_agent``."""
AGENT_SEED_BOUND = 2**31
"""Seeds drawn for the agents a seat builds are below this (every agent takes them)."""


class SeatDraw(NamedTuple):
    """Who sits in one seat, as ``OpponentMix.draw_seat`` drew it."""

    kind: str
    """``"self"`` (the learner, also for a snapshot seat while the pool is empty),
    ``"snapshot"`` or ``"entry"`` (any other entry of the mix)."""
    entry: int
    """Index of the drawn entry in ``OpponentMix.entries``."""
    value: int
    """A snapshot seat: the snapshot's index in the pool. An entry seat: the seed of the
    agent built for it. A learner seat: 0."""


class OpponentMix:
    """Entries and their weights; see the module docstring.

    ``OpponentMix({"self": 0.5, "greedy": 0.5})`` or ``OpponentMix(["random", agent])``
    (equal weights) or ``OpponentMix(entries, weights)``. Weights are non-negative finite
    numbers, not all zero; an entry of weight 0 is never drawn. ``what`` names the mix in
    error messages (a config field, an argument).
    """

    def __init__(self, entries: Mapping[Any, float] | Sequence[Any],
                 weights: Sequence[float] | None = None, *, what: str = "opponents") -> None:
        if isinstance(entries, Mapping):
            if weights is not None:
                raise TypeError(f"{what}: give the weights either as a mapping or as "
                                "weights=, not both")
            weights = list(entries.values())
            entries = list(entries.keys())
        elif isinstance(entries, (str, bytes)) or not isinstance(entries, Sequence):
            raise TypeError(f"{what} must be a list of opponents or a mapping of them to "
                            f"weights; got {entries!r}")
        self.entries: list[Any] = list(entries)
        if not self.entries:
            raise ValueError(f"{what} must not be empty: someone has to fill the other seats")
        if weights is None:
            w = np.ones(len(self.entries))
        else:
            if isinstance(weights, (str, bytes)) or not isinstance(weights, Sequence) \
                    or len(weights) != len(self.entries):
                raise ValueError(f"{what}: weights must be a list of {len(self.entries)} "
                                 f"numbers, one per opponent; got {weights!r}")
            for x in weights:
                if isinstance(x, bool) or not isinstance(x, (int, float, np.number)) \
                        or not math.isfinite(x) or x < 0:
                    raise ValueError(f"{what}: weights must be non-negative numbers; got "
                                     f"{x!r}")
            w = np.array(weights, dtype=np.float64)
            if not 0 < w.sum() < math.inf:
                raise ValueError(f"{what}: weights must not all be zero, and their sum must "
                                 f"be finite; got {list(weights)!r}")
        self.weights: np.ndarray = w
        """The weight of each entry, as given."""
        self.probabilities: np.ndarray = w / w.sum()
        """The chance of each entry at each seat."""
        cdf = self.probabilities.cumsum()
        cdf /= cdf[-1]
        self._cdf = cdf
        self._uniform = weights is None

    def __len__(self) -> int:
        return len(self.entries)

    def __repr__(self) -> str:
        pairs = ", ".join(f"{e!r}: {float(w):g}" for e, w in zip(self.entries, self.weights,
                                                                 strict=True))
        return f"OpponentMix({{{pairs}}})"

    # ------------------------------------------------------------------ the sampling rule
    def draw(self, rng: np.random.Generator) -> int:
        """Draw one entry's index by weight (one generator draw; module docstring)."""
        if self._uniform:
            return int(rng.integers(len(self.entries)))
        return min(int(self._cdf.searchsorted(rng.random(), side="right")),
                   len(self.entries) - 1)

    def draw_many(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """Draw an array of entry indices by weight, one uniform double each (batched seats).

        A list without weights uses the cumulative lookup too: the batched drivers' streams have
        always been drawn this way.
        """
        picks: np.ndarray = self._cdf.searchsorted(rng.random(shape), side="right")
        out: np.ndarray = np.minimum(picks, len(self.entries) - 1)
        return out

    def draw_seat(self, rng: np.random.Generator, snapshots: int = 0) -> SeatDraw:
        """Draw who sits in one seat, with ``snapshots`` frozen copies in the trainer's pool.

        The entry first (``draw``); then a snapshot's index (uniform among the pool), or the
        seed of the agent to build; ``"self"``, and ``"snapshot"`` while the pool is empty,
        draw nothing more.
        """
        i = self.draw(rng)
        entry = self.entries[i]
        if isinstance(entry, str) and entry == SNAPSHOT and snapshots > 0:
            return SeatDraw(SNAPSHOT, i, int(rng.integers(snapshots)))
        if isinstance(entry, str) and entry in SPECIAL:
            return SeatDraw(SELF, i, 0)
        return SeatDraw("entry", i, int(rng.integers(AGENT_SEED_BOUND)))


__all__ = ["AGENT_SEED_BOUND", "SELF", "SNAPSHOT", "SPECIAL", "OpponentMix", "SeatDraw"]
