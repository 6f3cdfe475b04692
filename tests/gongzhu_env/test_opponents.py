"""The one opponent mix: its draw, the rule before the first snapshot, and its bad input."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from gongzhu_env.opponents import SELF, SNAPSHOT, OpponentMix
from gongzhu_env.wrappers import SingleSeatEnv


def test_a_weighted_draw_is_numpys_weighted_choice_draw_for_draw():
    # DMC drew seats with Generator.choice(n, p=...) before the mix existed; the mix makes the
    # same draws from the same generator, so seeded runs did not move.
    weights = {"self": 0.55, "snapshot": 0.2, "random": 0.05, "greedy": 0.1, "expert": 0.1}
    mix = OpponentMix(weights)
    p = np.array(list(weights.values()))
    a, b = np.random.default_rng(3), np.random.default_rng(3)
    assert [mix.draw(a) for _ in range(2000)] == \
        [int(b.choice(len(p), p=p / p.sum())) for _ in range(2000)]


def test_a_plain_list_draws_one_integer_as_the_single_seat_env_always_did():
    mix = OpponentMix(["random", "greedy", "expert"])
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    assert [mix.draw(a) for _ in range(500)] == [int(b.integers(3)) for _ in range(500)]


def test_draws_follow_the_weights_and_a_zero_weight_is_never_drawn():
    mix = OpponentMix({"a": 3.0, "b": 0.0, "c": 1.0})
    rng = np.random.default_rng(0)
    picks = np.array([mix.draw(rng) for _ in range(20_000)])
    assert not (picks == 1).any()
    assert abs((picks == 0).mean() - 0.75) < 0.02
    many = mix.draw_many(rng, (5000, 4))
    assert many.shape == (5000, 4) and not (many == 1).any()
    assert abs((many == 0).mean() - 0.75) < 0.02
    assert mix.probabilities.tolist() == [0.75, 0.0, 0.25]


def test_a_snapshot_seat_before_the_first_snapshot_is_the_learner():
    mix = OpponentMix({SNAPSHOT: 1.0})
    rng = np.random.default_rng(1)
    assert {mix.draw_seat(rng, snapshots=0).kind for _ in range(50)} == {SELF}
    seats = [mix.draw_seat(rng, snapshots=3) for _ in range(300)]
    assert {s.kind for s in seats} == {SNAPSHOT}
    assert {s.value for s in seats} == {0, 1, 2}  # uniform among the pool
    agent = OpponentMix({"greedy": 1.0}).draw_seat(rng)
    assert agent.kind == "entry" and agent.entry == 0 and 0 <= agent.value < 2**31
    assert OpponentMix({SELF: 1.0}).draw_seat(rng, snapshots=5).kind == SELF


@pytest.mark.parametrize(("entries", "weights", "error", "match"), [
    ([], None, ValueError, "must not be empty"),
    ("random", None, TypeError, "must be a list of opponents"),
    (["a", "b"], [1.0], ValueError, "weights must be a list of 2 numbers"),
    (["a", "b"], [1.0, -1.0], ValueError, "non-negative numbers; got -1.0"),
    (["a", "b"], [1.0, float("nan")], ValueError, "non-negative numbers; got nan"),
    (["a", "b"], [0, 0], ValueError, "must not all be zero"),
    (["a"], [True], ValueError, "non-negative numbers; got True"),
    ({"a": 1.0}, [1.0], TypeError, "either as a mapping or as weights="),
])
def test_bad_mixes_are_refused_naming_what_is_wrong(entries, weights, error, match):
    with pytest.raises(error, match=match):
        OpponentMix(entries, weights, what="opponent_mix")


def test_the_single_seat_env_takes_weights_and_seats_by_them():
    env = SingleSeatEnv({"random": 0.0, "greedy": 1.0}, factory=make_agent)
    for seed in range(5):
        env.reset(seed=seed)
        seated = [p.name for s, p in enumerate(env.players) if s != env.seat]
        assert seated == ["greedy"] * 3
    env.set_opponents(["random", "greedy"], weights=[1.0, 0.0])
    env.reset(seed=0)
    assert {p.name for s, p in enumerate(env.players) if s != env.seat} \
        == {"random"}
    with pytest.raises(ValueError, match="weights must not all be zero"):
        env.set_opponents(["random"], weights=[0.0])
