"""Bradley–Terry ratings fitted to the per-deal outcomes of a round robin.

Each deal of a duplicate match is one game between the two agents: won by the side with the
positive paired difference, half a win each on a tie. ``fit_bradley_terry`` turns a table of such
results into ratings on the Elo scale (see its docstring for why a fit rather than Elo updates).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class RatingTable:
    """Bradley–Terry ratings on the Elo scale (400 points = 10:1 odds), anchored at 0."""

    names: tuple[str, ...]
    ratings: tuple[float, ...]
    anchor: str

    def ranking(self) -> list[tuple[str, float]]:
        """``(name, rating)`` from strongest to weakest."""
        return sorted(zip(self.names, self.ratings, strict=True), key=lambda t: -t[1])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"model": "bradley-terry", "scale": "elo (400 * log10 odds)",
                "anchor": self.anchor, "ratings": dict(zip(self.names, self.ratings, strict=True))}


def fit_bradley_terry(names: Sequence[str],
                      results: Iterable[tuple[int, int, float, float]], *,
                      prior_ties: float = 1.0, anchor: int = 0, iterations: int = 10_000,
                      tol: float = 1e-10) -> RatingTable:
    """Fit Bradley–Terry strengths to pairwise results and return them on the Elo scale.

    ``results`` holds ``(i, j, wins_i, wins_j)`` (a tie counted as half a win to each side):
    here, the deals of a duplicate match in which each agent had the positive paired difference.
    The model is ``P(i beats j) = p_i / (p_i + p_j)``; the ratings are
    ``400 * log10(p_i / p_anchor)``, so a 400-point gap means 10:1 odds on a deal, as in Elo.

    Why Bradley–Terry and not Elo updates: Elo is an online rule whose result depends on the
    order of the games and a step size; for a fixed table of results the maximum-likelihood
    Bradley–Terry fit of the same logistic model is order-free and deterministic. ``prior_ties``
    virtual ties per pair keep the fit finite when one agent wins every deal. Solved with
    Hunter's MM iteration, which converges monotonically.
    """
    k = len(names)
    if k < 2:
        raise ValueError(f"a rating needs at least two agents; got {list(names)}")
    if not 0 <= anchor < k:
        raise ValueError(f"anchor must index one of the {k} agents; got {anchor}")
    wins = np.zeros((k, k))
    for i, j, wi, wj in results:
        if i == j or not (0 <= i < k and 0 <= j < k):
            raise ValueError(f"bad pair ({i}, {j}) for {k} agents")
        if wi < 0 or wj < 0:
            raise ValueError(f"win counts must be non-negative; got {wi}, {wj}")
        wins[i, j] += wi
        wins[j, i] += wj
    games = wins + wins.T
    played = games > 0
    wins = wins + prior_ties / 2 * played
    games = wins + wins.T
    total_wins = wins.sum(axis=1)
    if np.any(total_wins == 0):
        lonely = [names[i] for i in np.flatnonzero(total_wins == 0)]
        raise ValueError(f"agents {lonely} have no results against anyone; cannot rate them")
    p = np.ones(k)
    for _ in range(iterations):
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1)
        new = total_wins / denom
        new /= np.exp(np.mean(np.log(new)))
        if np.max(np.abs(np.log(new) - np.log(p))) < tol:
            p = new
            break
        p = new
    ratings = 400 * np.log10(p / p[anchor])
    return RatingTable(tuple(names), tuple(float(r) for r in ratings), names[anchor])
