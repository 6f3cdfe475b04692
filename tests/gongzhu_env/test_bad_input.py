"""Bad input at the environment, engine and scoring entry points: a clear error, nothing changed.

Each case names the error class and a fragment of the message that says what was wrong; numpy
scalars are accepted wherever Python numbers are.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from gongzhu_env import IllegalActionError, Rules, env, raw_env
from gongzhu_env.engine import Game
from gongzhu_env.scoring import score_hand, settle
from gongzhu_env.wrappers import SingleSeatEnv


def _envs():
    return [("env", env), ("raw_env", raw_env)]


# ---------------------------------------------------------------- env: before reset, actions
@pytest.mark.parametrize("name, make", _envs())
def test_before_reset_every_call_names_reset(name, make) -> None:
    e = make()
    for call in (lambda: e.step(0), lambda: e.observe("player_0"), lambda: e.last()):
        with pytest.raises((RuntimeError, AttributeError, AssertionError), match="reset"):
            call()


@pytest.mark.parametrize("name, make", _envs())
@pytest.mark.parametrize("action, message", [
    (True, "True is not an action"), (np.bool_(False), "is not an action"),
    (53, "action 53 is out of range"), (-1, "action -1 is out of range"),
    (1.5, "(type float) is not an action"), ("SQ", "(type str) is not an action"),
    (None, "None is not an action"),
])
def test_malformed_actions_are_refused_and_change_nothing(name, make, action, message) -> None:
    e = make()
    e.reset(seed=3)
    game = e.unwrapped.game
    before = (game.actions, game.current_player, e.agent_selection)
    with pytest.raises(IllegalActionError, match=re.escape(message)):
        e.step(action)
    assert (game.actions, game.current_player, e.agent_selection) == before
    assert not any(e.unwrapped.terminations.values())


def test_numpy_integer_actions_are_actions() -> None:
    e = env()
    e.reset(seed=3)
    mask = e.observe(e.agent_selection)["action_mask"]
    e.step(np.int64(np.flatnonzero(mask)[-1]))
    assert len(e.unwrapped.game.actions) == 1


def test_env_checks_hold_under_python_optimize() -> None:
    # ``python -O`` removes asserts; the checks of this module must hold without them. The
    # module's other tests run again in an optimised interpreter (pytest rewrites the tests'
    # own asserts, so only the code under test loses its asserts).
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-O", "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
         str(Path(__file__).relative_to(root)), "-k", "not python_optimize"],
        cwd=root, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "failed" not in out.stdout


# ---------------------------------------------------------------- env: reset
@pytest.mark.parametrize("name, make", _envs())
def test_a_refused_reset_leaves_the_generator_alone(name, make) -> None:
    clean, bumped = make(), make()
    clean.reset(seed=11)
    bumped.reset(seed=11)
    bad_deals = ([[1, 2]], [list(range(13))] * 4, "C2 C3")
    for hands in bad_deals:
        with pytest.raises(ValueError):
            bumped.reset(seed=99, options={"hands": hands})
    with pytest.raises(TypeError, match="must be a dict"):
        bumped.reset(seed=99, options=["hands"])
    with pytest.raises(ValueError, match="did you mean 'hands'"):
        bumped.reset(seed=99, options={"hand": Game(seed=0).deal})
    clean.reset()
    bumped.reset()
    assert bumped.unwrapped.game.deal == clean.unwrapped.game.deal


def test_an_unknown_reset_option_is_named() -> None:
    e = raw_env()
    with pytest.warns(UserWarning, match=r"unknown option\(s\) \['colour'\]"):
        e.reset(seed=0, options={"colour": "red"})


def test_single_seat_reset_checks_options_before_reseeding() -> None:
    from agents import make_agent

    clean = SingleSeatEnv(["random"], factory=make_agent)
    bumped = SingleSeatEnv(["random"], factory=make_agent)
    clean.reset(seed=4)
    bumped.reset(seed=4)
    with pytest.raises(ValueError):
        bumped.reset(seed=9, options={"hands": [[0]]})
    with pytest.raises(ValueError, match="did you mean"):
        bumped.reset(seed=9, options={"hand": None})
    first, _ = clean.reset()
    second, _ = bumped.reset()
    assert np.array_equal(first, second) and clean.game.deal == bumped.game.deal


# ---------------------------------------------------------------- constructors
@pytest.mark.parametrize("kwargs, message", [
    ({"reward_scale": math.inf}, "finite positive"),
    ({"reward_scale": math.nan}, "finite positive"),
    ({"reward_scale": 0}, "finite positive"),
    ({"reward_scale": True}, "finite positive"),
    ({"render_seat": True}, "render_seat must be a seat"),
    ({"render_seat": 1.0}, "render_seat must be a seat"),
    ({"render_seat": 4}, "render_seat must be a seat 0..3"),
])
def test_bad_constructor_values_are_refused_at_once(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        raw_env(**kwargs)


def test_numpy_scalars_are_accepted_like_python_numbers() -> None:
    e = raw_env(reward_scale=np.float32(2), render_seat=np.int64(1), render_mode="ansi")
    e.reset(seed=0)
    assert e.reward_scale == 2.0 and "seat" in e.render()
    g = Game(leader=np.int64(1))
    assert g.first_leader == 1 and g.view(np.int64(2)).seat == 2
    from agents import make_agent

    single = SingleSeatEnv(["random"], factory=make_agent, seat=np.int64(3),
                           reward_scale=np.float64(10))
    assert single.fixed_seat == 3 and single.reward_scale == 10.0


def test_engine_seats_and_deals_name_the_problem() -> None:
    g = Game(Rules(team_play=True), seed=0)
    with pytest.raises(ValueError, match="seat must be a seat 0..3; got 7"):
        g.partners(7)
    with pytest.raises(ValueError, match="seat must be a seat 0..3; got True"):
        g.view(True)
    with pytest.raises(ValueError, match="leader must be a seat 0..3"):
        Game(leader=1.0)
    with pytest.raises(ValueError, match="a deal is four hands of 13 cards; got 5"):
        Game.from_hands(5)
    with pytest.raises(ValueError, match="hand of seat 0 must be a list of cards"):
        Game.from_hands([1, 2, 3, 4])


def test_documented_conflicts_are_enforced() -> None:
    with pytest.raises(ValueError, match="double_pig=True with pig_sheep_team=True"):
        Rules(double_pig=True, pig_sheep_team=True, declaration="none")


# ---------------------------------------------------------------- scoring
def test_scoring_takes_preset_names_and_card_text() -> None:
    assert score_hand([49], [], "huapai") == score_hand([49]) == -100
    assert score_hand(["SQ", "C10"]) == score_hand("SQ C10") == -200
    assert score_hand([np.int64(49)]) == -100
    assert settle([0, 0, 0, 0], "scrofazero") == [0, 0, 0, 0]
    assert settle(np.array([10, 0, 0, -10])) == settle([10, 0, 0, -10])


@pytest.mark.parametrize("cards, message", [
    ([49, 52], "card index 52 is out of range 0..51"),
    ([-1], "card index -1 is out of range 0..51"),
    ([True], "True is a bool, not a card"),
    ([49, 49], "SQ appears twice"),
    (["XX"], "captured"),
    ([1.0], "is not a card"),
])
def test_bad_cards_are_refused(cards, message) -> None:
    with pytest.raises(ValueError, match=message):
        score_hand(cards)


def test_score_hand_of_a_number_is_refused() -> None:
    with pytest.raises(TypeError, match="must be a list of cards"):
        score_hand(5)


@pytest.mark.parametrize("raw", [[math.inf, 0, 0, 0], [math.nan, 0, 0, 0], [True, 0, 0, 0],
                                 ["10", 0, 0, 0]])
def test_settle_refuses_scores_that_are_not_finite_numbers(raw) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="finite numbers"):
            settle(raw)
