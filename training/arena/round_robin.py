"""Round robin: every pair of agents plays one duplicate match, then one rating per agent.

All pairs meet on the same deals (one ``DealSet``), the earlier-listed agent as candidate, and
the per-deal outcomes of all matches feed one Bradley–Terry fit (``training.arena.ratings``)
anchored at the first agent. One process pool serves every match when ``workers > 1`` (or the
caller's ``executor``, e.g. Ray's).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gongzhu_env.rules import Rules
from training.arena.deals import DealSet
from training.arena.duplicate import (
    MatchResult,
    coerce_deals,
    duplicate_match,
    journal_path,
    make_executor,
)
from training.arena.hands import AgentLike, HandRecord, label_of, validate_agents
from training.arena.ratings import RatingTable, fit_bradley_terry


@dataclass
class RoundRobinResult:
    """Every pairwise duplicate match of a list of agents and the fitted ratings."""

    names: tuple[str, ...]
    matches: list[MatchResult]
    ratings: RatingTable
    pairs: list[tuple[int, int]] = field(default_factory=list)

    def mean_matrix(self) -> np.ndarray:
        """``M[i, j]``: mean paired difference of agent i against agent j (antisymmetrized)."""
        k = len(self.names)
        m = np.full((k, k), np.nan)
        for (i, j), res in zip(self.pairs, self.matches, strict=True):
            m[i, j] = res.stats.mean
            m[j, i] = -res.stats.mean
        np.fill_diagonal(m, 0.0)
        return m

    @property
    def unit(self) -> str:
        """The unit of the mean matrix: every match of a round robin shares its format."""
        return self.matches[0].unit

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record."""
        return {"agents": list(self.names), "unit": self.unit,
                "ratings": self.ratings.to_dict(),
                "matches": [m.to_dict() for m in self.matches],
                "mean_matrix": [[None if math.isnan(v) else v for v in row]
                                for row in self.mean_matrix().tolist()]}


def round_robin(agents: Sequence[AgentLike], deals: DealSet | int, *, mode: str = "1v3",
                scoring: str = "raw", rules: Rules | str | None = None, seed: int = 0,
                workers: int = 1, progress: bool = False, resamples: int = 2000,
                prior_ties: float = 1.0, journal_dir: str | Path | None = None,
                resume: bool = False,
                on_game: Callable[[HandRecord], None] | None = None,
                executor: Executor | None = None, anchor: str | None = None
                ) -> RoundRobinResult:
    """Play every pair once (the earlier-listed agent as candidate) and fit Bradley–Terry.

    Each pair's per-deal outcomes (positive, zero or negative paired difference) are the
    Bradley–Terry games. Ratings are anchored at ``anchor`` (an agent's name; default the
    first agent). The order still decides who is the candidate: listing a slow search player
    first seats one copy of it, not three, in its matches.
    ``journal_dir`` keeps one journal per pair there (see ``duplicate_match``); ``on_game``
    receives every hand of every pair, as in ``duplicate_match``. ``executor`` (left open)
    runs every match's chunks instead of a pool of ``workers`` processes.
    """
    agents = list(agents)
    names = tuple(label_of(a) for a in agents)
    if len(agents) < 2:
        raise ValueError(f"a round robin needs at least two agents; got {list(names)}")
    if len(set(names)) != len(names):
        raise ValueError(f"round-robin agents need distinct names; got {list(names)}")
    if anchor is not None and anchor not in names:
        raise ValueError(f"anchor: must be one of the round robin's agents {list(names)}; "
                         f"got {anchor!r}")
    rules = Rules.coerce(rules)
    validate_agents(agents, rules)
    dealset = coerce_deals(deals, seed, rules)
    pairs = [(i, j) for i in range(len(agents)) for j in range(i + 1, len(agents))]
    matches = []
    own = executor is None and workers > 1
    pool = make_executor(workers) if own else executor
    try:
        for i, j in pairs:
            matches.append(duplicate_match(
                agents[i], agents[j], dealset, mode=mode, scoring=scoring, rules=rules,
                seed=seed, workers=workers, progress=progress, resamples=resamples,
                executor=pool, resume=resume, on_game=on_game,
                journal=None if journal_dir is None else journal_path(
                    journal_dir, agents[i], agents[j], mode)))
    finally:
        if own and pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    results = [(i, j, float(np.sum(m.diffs > 0) + 0.5 * np.sum(m.diffs == 0)),
                float(np.sum(m.diffs < 0) + 0.5 * np.sum(m.diffs == 0)))
               for (i, j), m in zip(pairs, matches, strict=True)]
    ratings = fit_bradley_terry(names, results, prior_ties=prior_ties,
                                anchor=0 if anchor is None else names.index(anchor))
    return RoundRobinResult(names, matches, ratings, pairs)
