"""The interface between the Deep Monte-Carlo actors and the tables they play.

A simulator plays ``num_tables`` tables in lockstep with the acting network and hands every
labelled decision to its sink (``sink(obs uint8 rows, targets float32 rows)``). Two implement
it: ``scalar_tables.TableSimulator`` (the reference engine: every rule set and option) and
``batch_tables.BatchTableSimulator`` (the compiled batched engine, several times faster where
it covers the run). ``make_simulator`` picks one from ``DMCConfig.engine``; the learner in
one process and every actor (``actors.Actor``, local or on Ray) drive it only through
``Simulator``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from agents.policy import QNetwork
from training.config import DMCConfig
from training.dmc.batch_tables import BatchTableSimulator
from training.dmc.scalar_tables import TableSimulator

Sink = Callable[[np.ndarray, np.ndarray], None]
"""Where a simulator sends labelled decisions: uint8 observation rows and float32 rows of
per-action targets (NaN: no target)."""


class Simulator(Protocol):
    """What the learner and the actors use of a table simulator."""

    rng: np.random.Generator
    """The simulator's generator (deals, seats, exploration); saved in checkpoints."""
    decisions: int
    """Learner decisions made so far (non-forced moves of learner seats)."""
    forced: int
    """Forced moves played so far (one legal action: no decision, no sample)."""
    games: int
    """Episodes finished so far."""
    samples: int
    """Samples sent to the sink so far."""
    ret_sum: float
    """Sum of the learner seats' results since the owner last cleared it (with ``ret_n``)."""
    ret_n: int
    """Learner seats counted in ``ret_sum``."""
    global_decisions: int
    """Decisions of the whole run, set by the owner: the exploration rate follows it."""
    progress: float
    """Fraction of the time budget spent, set by the owner: the rollout share follows it."""

    def step_tables(self) -> None:
        """Advance every table by one action."""

    def set_snapshots(self, snapshots: list[QNetwork]) -> None:
        """Replace the pool of frozen snapshots the snapshot seats play."""

    def reset_tables(self) -> None:
        """Abandon the episodes in progress and deal new ones (after a resume)."""

    def timings(self) -> dict[str, float]:
        """Seconds spent so far in the engine and bookkeeping, and in forward passes."""


def make_simulator(cfg: DMCConfig, net: QNetwork, seed: int, sink: Sink) -> Simulator:
    """Build the simulator ``cfg.engine`` asks for: the batched engine or the reference one."""
    if cfg.uses_batch_engine():
        return BatchTableSimulator(cfg, net, seed, sink)
    return TableSimulator(cfg, net, seed, sink)
