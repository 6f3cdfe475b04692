"""Statistics over a match's per-deal paired differences.

One number per deal is all a duplicate match yields (``training.arena.formats``), so the summary
is plain: mean, sample standard deviation, a seeded bootstrap percentile confidence interval of
the mean (95 % by default), and the shares of deals won, tied and lost. The bootstrap draws from
its own ``numpy.random.default_rng(seed)``, so the same differences and seed give the same
interval on every machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Stats:
    """Summary of per-deal paired differences."""

    n: int
    mean: float
    std: float
    ci_low: float
    ci_high: float
    win_rate: float
    tie_rate: float
    loss_rate: float
    confidence: float
    resamples: int
    bootstrap_seed: int

    @property
    def ci_half_width(self) -> float:
        """Half the width of the confidence interval (for ``mean ± x`` displays)."""
        return (self.ci_high - self.ci_low) / 2

    def to_dict(self) -> dict[str, float | int]:
        """Plain-number form for JSON."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def summarize(diffs: Sequence[float] | np.ndarray, *, seed: int = 0, resamples: int = 2000,
              confidence: float = 0.95) -> Stats:
    """Mean, standard deviation, bootstrap CI of the mean and win/tie/loss rates of ``diffs``.

    The CI is the percentile interval of ``resamples`` bootstrap means drawn with
    ``numpy.random.default_rng(seed)``, so the same diffs and seed give the same interval.
    """
    x = np.asarray(diffs, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"summarize needs a non-empty 1-D sequence of differences; got shape "
                         f"{x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("summarize: the differences contain NaN or infinity")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1); got {confidence}")
    if type(resamples) is not int or resamples < 1:
        raise ValueError(f"resamples must be a positive int; got {resamples!r}")
    n = x.size
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    # Resample in blocks so memory stays bounded for large deal sets.
    block = max(1, 4_000_000 // n)
    for start in range(0, resamples, block):
        k = min(block, resamples - start)
        means[start:start + k] = x[rng.integers(0, n, size=(k, n))].mean(axis=1)
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(means, [alpha, 1 - alpha])
    return Stats(
        n=n, mean=float(x.mean()), std=float(x.std(ddof=1)) if n > 1 else 0.0,
        ci_low=float(lo), ci_high=float(hi),
        win_rate=float(np.mean(x > 0)), tie_rate=float(np.mean(x == 0)),
        loss_rate=float(np.mean(x < 0)), confidence=confidence, resamples=resamples,
        bootstrap_seed=seed,
    )
