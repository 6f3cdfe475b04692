"""Summary statistics of paired differences (training.arena.stats)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from training.arena import (
    summarize,
)


def test_summarize_counts_and_moments():
    s = summarize([1.0, -1.0, 0.0, 2.0], seed=0)
    assert s.n == 4
    assert s.mean == pytest.approx(0.5)
    assert s.std == pytest.approx(np.std([1, -1, 0, 2], ddof=1))
    assert (s.win_rate, s.tie_rate, s.loss_rate) == (0.5, 0.25, 0.25)
    assert -1.0 <= s.ci_low <= s.mean <= s.ci_high <= 2.0
    # A constant sample has no spread: the interval collapses onto the value.
    c = summarize([3.0] * 10, seed=0)
    assert c.ci_low == c.ci_high == 3.0 and c.std == 0.0
    assert summarize([1.0, 5.0, -2.0], seed=4) == summarize([1.0, 5.0, -2.0], seed=4)
    with pytest.raises(ValueError, match="non-empty"):
        summarize([])


def test_bootstrap_interval_matches_normal_theory_on_large_sample():
    x = np.random.default_rng(0).normal(10.0, 4.0, size=4000)
    s = summarize(x, seed=1)
    half = 1.96 * x.std(ddof=1) / math.sqrt(x.size)
    assert s.ci_low == pytest.approx(x.mean() - half, abs=0.25 * half)
    assert s.ci_high == pytest.approx(x.mean() + half, abs=0.25 * half)
