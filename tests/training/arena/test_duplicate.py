"""Duplicate matches: determinism, parallel workers, accounting (training.arena.duplicate)."""

from __future__ import annotations

import numpy as np
import pytest

from agents import AgentError
from gongzhu_env.rules import Rules
from tests.training.arena.scripted_agents import Cheater, FirstLegal
from training.arena import (
    ArenaError,
    HandRecord,
    IllegalAgentActionError,
    duplicate_match,
    generate_deals,
    round_robin,
)


def test_match_is_deterministic_for_a_seed():
    deals = generate_deals(40, seed=0)
    a = duplicate_match("random", "random", deals, seed=7)
    b = duplicate_match("random", "random", deals, seed=7)
    c = duplicate_match("random", "random", deals, seed=8)
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.diffs, b.diffs)
    assert a.stats == b.stats
    assert not np.array_equal(a.scores, c.scores)


@pytest.mark.parametrize("mode", ["1v3", "2v2"])
def test_two_workers_equal_one_worker_exactly(mode):
    deals = generate_deals(30, seed=2)
    one = duplicate_match("random", "random", deals, seed=3, mode=mode, workers=1)
    two = duplicate_match("random", "random", deals, seed=3, mode=mode, workers=2,
                          chunk_size=7)
    assert np.array_equal(one.scores, two.scores)
    assert np.array_equal(one.diffs, two.diffs)
    assert one.stats == two.stats


def test_random_against_itself_has_ci_covering_zero():
    res = duplicate_match("random", "random", 400, seed=0)
    assert res.stats.n == 400
    assert res.stats.ci_low < 0 < res.stats.ci_high
    assert res.stats.std > 0


@pytest.mark.parametrize("mode", ["1v3", "2v2"])
def test_identical_deterministic_players_tie_every_deal(mode):
    # Same deterministic agent everywhere: every play of a deal is the same game, so whichever
    # seats the candidate takes, its average over the plays equals the opponents' exactly.
    res = duplicate_match(FirstLegal(), FirstLegal(), 15, seed=0, mode=mode)
    assert np.all(res.diffs == 0)
    assert res.stats.tie_rate == 1.0 and res.stats.win_rate == 0.0


def test_every_deal_is_accounted_for_and_recorded():
    deals = generate_deals(9, seed=4)
    records: list[HandRecord] = []
    res = duplicate_match("random", "random", deals, seed=1, workers=2, chunk_size=2,
                          on_game=records.append)
    assert len(res.diffs) == 9 and res.scores.shape == (9, 4, 4)
    assert [(r.deal_index, r.play) for r in records] == [(d, p) for d in range(9)
                                                         for p in range(4)]
    for r in records:
        assert r.game.is_over()
        assert [list(h) for h in r.game.deal] == deals[r.deal_index]
        assert r.game.scores() == list(res.scores[r.deal_index, r.play])
        assert r.seats.count("random") == 4


def test_illegal_action_in_a_worker_reaches_the_caller():
    with pytest.raises(IllegalAgentActionError, match="cheater"):
        duplicate_match("random", Cheater(), 4, seed=0, workers=2, chunk_size=1)


def test_unknown_spec_fails_before_any_hand():
    with pytest.raises(AgentError, match="nonsense"):
        duplicate_match("random", "nonsense", 3)
    with pytest.raises(AgentError, match="nonsense"):
        round_robin(["random", "nonsense"], 3)
    with pytest.raises(ValueError, match="mode"):
        duplicate_match("random", "random", 3, mode="3v1")


def test_arena_error_is_raised_for_a_bad_result_count(monkeypatch):
    import training.arena.duplicate as ev

    real = ev._run_task
    monkeypatch.setattr(ev, "_run_task", lambda t: real(t)[:-1])
    with pytest.raises(ArenaError, match="missing deals"):
        ev.duplicate_match("random", "random", 5, chunk_size=5)


def test_swapping_the_teams_cancels_the_luck_of_the_deal():
    # The same deterministic agent in every seat plays the same game in both plays, so the
    # swap must cancel each deal's team margin exactly; the guard shows there was one to cancel.
    team = Rules.preset("scrofazero")
    res = duplicate_match(FirstLegal(), FirstLegal(), 15, seed=0, mode="2v2", rules=team)
    margins = res.scores[:, 0, [0, 2]].sum(axis=1) - res.scores[:, 0, [1, 3]].sum(axis=1)
    assert np.count_nonzero(margins) >= 10
    assert np.array_equal(res.scores[:, 0], res.scores[:, 1])
    assert np.all(res.diffs == 0) and res.stats.tie_rate == 1.0
    assert res.unit == "team points/deal" and res.to_dict()["unit"] == "team points/deal"


def test_team_match_is_seeded_and_equal_with_one_and_two_workers():
    deals = generate_deals(24, seed=5)
    kw = dict(mode="2v2", rules="scrofazero", seed=4)
    one = duplicate_match("random", "greedy", deals, workers=1, **kw)
    again = duplicate_match("random", "greedy", deals, workers=1, **kw)
    two = duplicate_match("random", "greedy", deals, workers=2, chunk_size=5, **kw)
    assert np.array_equal(one.scores, again.scores) and one.stats == again.stats
    assert np.array_equal(one.scores, two.scores) and np.array_equal(one.diffs, two.diffs)
    assert one.stats == two.stats
