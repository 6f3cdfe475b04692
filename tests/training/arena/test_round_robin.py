"""Round robins (training.arena.round_robin)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.training.arena.scripted_agents import FirstLegal
from training.arena import (
    round_robin,
)


def test_round_robin_on_synthetic_strengths():
    rr = round_robin([FirstLegal(), "random"], 20, seed=0)
    assert len(rr.matches) == 1 and rr.pairs == [(0, 1)]
    m = rr.mean_matrix()
    assert m[0, 1] == pytest.approx(rr.matches[0].stats.mean) and m[1, 0] == -m[0, 1]
    # The fitted order follows the sign of the head-to-head win balance.
    d = rr.matches[0].diffs
    first_better = np.sum(d > 0) > np.sum(d < 0)
    assert (rr.ratings.ratings[1] < 0) == first_better
    with pytest.raises(ValueError, match="distinct"):
        round_robin(["random", "random"], 3)
