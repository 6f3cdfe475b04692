"""SingleSeatEnv with match episodes, and the match loop of gongzhu_env.players."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from gongzhu_env.match import Match
from gongzhu_env.players import play_match_turns, start_hand
from gongzhu_env.rules import Rules
from gongzhu_env.view import obs_size
from gongzhu_env.wrappers import SingleSeatEnv


def _first_legal(view) -> int:
    return view.legal_actions[0]


class _Counting:
    """Plays the last legal action and counts the hands it was told about."""

    def __init__(self) -> None:
        self.hands = 0

    def reset(self, seat: int, rules: Rules) -> None:
        self.hands += 1

    def act(self, view) -> int:
        assert view.match_scores is not None, "a match seat sees the match blocks"
        return view.legal_actions[-1]


@pytest.mark.parametrize("rules", ["standard", "scrofazero"])
def test_match_episodes_pass_the_gymnasium_checker(rules):
    env = SingleSeatEnv([_first_legal], rules=rules, episode="match", max_hands=3)
    check_env(env, skip_render_check=True)
    assert env.observation_space.shape == (obs_size(Rules.coerce(rules), True),)


def test_a_match_episode_rewards_every_hand_and_ends_with_the_match():
    env = SingleSeatEnv([_first_legal], rules=Rules(), episode="match", reward_scale=1.0)
    _, info = env.reset(seed=11)
    seat = info["seat"]
    rng = np.random.default_rng(0)
    total, hands_rewarded, steps = 0.0, 0, 0
    while True:
        mask = env.action_masks()
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
        if "scores" in info:
            hands_rewarded += 1
        total += reward
        if terminated or truncated:
            break
    cumulative = info["cumulative"]
    assert terminated and not truncated and min(cumulative) <= -1000
    assert hands_rewarded == info["hand_number"] == env.match.hand_number > 1
    # Zero-sum results add up: the match's rewards are the seat's cumulative score minus
    # the mean of the others'.
    others = [c for s, c in enumerate(cumulative) if s != seat]
    assert total == pytest.approx(cumulative[seat] - sum(others) / 3)
    assert obs.shape == (obs_size(Rules(), True),)


def test_a_match_that_reaches_max_hands_is_truncated():
    env = SingleSeatEnv([_first_legal], episode="match", max_hands=1)
    env.reset(seed=2)
    terminated = truncated = False
    while not (terminated or truncated):
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert env.match.hand_number == 1
    # Cut off after its one hand unless that hand already reached the threshold.
    assert truncated == (min(info["cumulative"]) > -1000)


def test_bad_episode_options_are_refused():
    with pytest.raises(ValueError, match="episode must be one of"):
        SingleSeatEnv([_first_legal], episode="season")
    with pytest.raises(ValueError, match="max_hands"):
        SingleSeatEnv([_first_legal], episode="match", max_hands=0)


def test_the_match_loop_tells_every_player_of_every_hand():
    match = Match(Rules(), seed=5, max_hands=4)
    players = [_Counting() for _ in range(4)]
    start_hand(players, match.rules)
    play_match_turns(match, players)
    assert match.is_over()
    assert all(p.hands == match.hand_number for p in players)
