"""Bradley–Terry ratings (training.arena.ratings)."""

from __future__ import annotations

import math

import pytest

from training.arena import (
    fit_bradley_terry,
)


def test_bradley_terry_ranks_the_stronger_agent_first():
    names = ["weak", "strong", "middle"]
    # strong beats middle 70:30, middle beats weak 70:30, strong beats weak 90:10.
    table = fit_bradley_terry(names, [(1, 2, 70, 30), (2, 0, 70, 30), (1, 0, 90, 10)])
    assert [n for n, _ in table.ranking()] == ["strong", "middle", "weak"]
    assert table.ratings[0] == 0.0 and table.anchor == "weak"


def test_bradley_terry_two_agents_match_closed_form():
    # With two agents the MLE odds are the win ratio, here with one virtual tie added.
    table = fit_bradley_terry(["a", "b"], [(0, 1, 30, 10)], prior_ties=1.0)
    assert table.ratings[1] == pytest.approx(-400 * math.log10(30.5 / 10.5), abs=1e-6)
    sweep = fit_bradley_terry(["a", "b"], [(0, 1, 50, 0)])
    assert math.isfinite(sweep.ratings[1]) and sweep.ratings[1] < -400
