"""The single-seat gymnasium env: checkers, whose turns and rewards the learner sees, seeding."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from agents import make_agent
from agents.base import Agent
from gongzhu_env.cards import DONE
from gongzhu_env.players import IllegalPlayerActionError
from gongzhu_env.rules import PRESETS, Rules
from gongzhu_env.scoring import team_results, zero_sum
from gongzhu_env.view import decode, obs_size
from gongzhu_env.wrappers import SingleSeatEnv


def _first_legal(view):
    return view.legal_actions[0]


def _pool():
    return ["random", "greedy", make_agent("expert", seed=3), _first_legal]


def _play(env, seed, rng):
    """Play one episode with random legal actions; return (observations, rewards, infos)."""
    obs, info = env.reset(seed=seed)
    observations, rewards, infos = [obs], [], [info]
    done = False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        obs, r, done, trunc, info = env.step(int(rng.choice(legal)))
        assert not trunc
        observations.append(obs)
        rewards.append(r)
        infos.append(info)
    return observations, rewards, infos


def test_passes_gymnasium_and_sb3_checkers():
    env = SingleSeatEnv(_pool(), factory=make_agent)
    check_env(env, skip_render_check=True)
    sb3_check_env(env, warn=True)


def test_learner_only_sees_its_own_turns_and_gets_its_own_zero_sum_result():
    env = SingleSeatEnv(_pool(), factory=make_agent, reward_scale=100)
    rng = np.random.default_rng(0)
    for seed in range(6):
        observations, rewards, infos = _play(env, seed, rng)
        seat = infos[0]["seat"]
        assert all(i["seat"] == seat for i in infos)
        # Every observation before the end is one where the learner (relative seat 0) moves.
        for obs in observations[:-1]:
            assert decode(obs)["to_move"].tolist() == [1.0, 0.0, 0.0, 0.0]
        assert all(r == 0.0 for r in rewards[:-1])
        scores = infos[-1]["scores"]
        assert rewards[-1] == pytest.approx(zero_sum(scores)[seat] / 100)
        assert not env.action_masks().any()


def test_raw_reward_mode_pays_the_raw_hand_score():
    env = SingleSeatEnv(["random"], factory=make_agent, reward_mode="raw", reward_scale=1.0)
    _, rewards, infos = _play(env, 5, np.random.default_rng(1))
    assert rewards[-1] == infos[-1]["scores"][infos[-1]["seat"]]


def test_same_seed_same_episode_even_with_stochastic_opponents():
    pool = [make_agent("random", seed=9), "random"]
    a = _play(SingleSeatEnv(pool, factory=make_agent), 42, np.random.default_rng(7))
    b = _play(SingleSeatEnv(pool, factory=make_agent), 42, np.random.default_rng(7))
    assert len(a[0]) == len(b[0])
    for x, y in zip(a[0], b[0], strict=True):
        np.testing.assert_array_equal(x, y)
    assert a[1] == b[1]


class _TwoGenerators(Agent):
    """Plays from a second generator that only its own ``reseed`` knows how to re-seed."""

    name = "two-generators"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.other = np.random.default_rng([seed or 0, 1])

    def reseed(self, seed: int | None) -> None:
        super().reseed(seed)
        self.other = np.random.default_rng([seed or 0, 1])

    def act(self, view) -> int:
        legal = view.legal_actions
        return legal[int(self.other.integers(len(legal)))]


class _Duck:
    """An opponent with only ``reset``/``act`` that draws from ``self.rng``, as agents do."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def reset(self, seat, rules) -> None:
        pass

    def act(self, view) -> int:
        legal = view.legal_actions
        return legal[int(self.rng.integers(len(legal)))]


def _same_episode_after_another(opponent) -> bool:
    """Whether an env replays seed 3 exactly after its opponents played another episode."""
    env = SingleSeatEnv([opponent], seat=0)
    first = _play(env, 3, np.random.default_rng(7))[0]
    _play(env, 11, np.random.default_rng(8))
    again = _play(env, 3, np.random.default_rng(7))[0]
    return len(first) == len(again) and all(
        np.array_equal(x, y) for x, y in zip(first, again, strict=True))


def test_opponents_are_reseeded_through_their_own_reseed(monkeypatch):
    assert _same_episode_after_another(_TwoGenerators(5))
    # Guard: re-seeding only the base generator leaves the second one running on, and the
    # check above notices.
    monkeypatch.setattr(_TwoGenerators, "reseed", Agent.reseed)
    assert not _same_episode_after_another(_TwoGenerators(5))


def test_opponents_without_reseed_get_their_seed_and_rng_replaced(monkeypatch):
    assert _same_episode_after_another(_Duck())
    # Guard: left alone, the copy's generator runs on from the previous episode.
    import gongzhu_env.wrappers as wrappers

    monkeypatch.setattr(wrappers, "_reseed", lambda agent, seed: None)
    assert not _same_episode_after_another(_Duck())


def test_an_illegal_opponent_action_is_an_error_naming_the_opponent():
    def stubborn(view):
        return 99

    env = SingleSeatEnv([stubborn], seat=0)
    with pytest.raises(IllegalPlayerActionError, match=r"'.*stubborn' in seat [123]"):
        env.reset(seed=0)
        env.step(DONE)


def test_seat_is_drawn_per_episode_or_fixed():
    env = SingleSeatEnv(["random"], factory=make_agent)
    seats = {env.reset(seed=s)[1]["seat"] for s in range(40)}
    assert seats == {0, 1, 2, 3}
    fixed = SingleSeatEnv(["random"], factory=make_agent, seat=2)
    assert {fixed.reset(seed=s)[1]["seat"] for s in range(10)} == {2}


def test_callable_opponents_act_for_other_seats_only():
    seen = []

    def spy(view):
        seen.append((view.seat, view.current_player))
        return view.legal_actions[-1]

    env = SingleSeatEnv([spy], seat=1)
    _play(env, 3, np.random.default_rng(2))
    assert seen and all(s == cp and s != 1 for s, cp in seen)
    assert {s for s, _ in seen} == {0, 2, 3}


def test_illegal_action_ends_the_episode_with_the_penalty():
    env = SingleSeatEnv(["random"], factory=make_agent, illegal_reward=-3.0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, r, done, _, info = env.step(illegal)
    assert (r, done, info["illegal_action"]) == (-3.0, True, True)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(DONE)


def test_set_opponents_replaces_the_pool():
    calls = []
    env = SingleSeatEnv(["random"], factory=make_agent, seat=0)
    env.set_opponents([lambda v: calls.append(v.seat) or v.legal_actions[0]])
    _play(env, 1, np.random.default_rng(0))
    assert set(calls) == {1, 2, 3}


@pytest.mark.parametrize("kwargs, error, text", [
    ({"opponents": []}, ValueError, "must not be empty"),
    ({"opponents": ["greedy"]}, TypeError, "factory"),
    ({"opponents": ["nosuchagent"], "factory": make_agent}, Exception, "nosuchagent"),
    ({"opponents": [42]}, TypeError, "neither"),
    ({"opponents": ["random"], "factory": make_agent, "reward_mode": "team"}, ValueError,
     "reward_mode"),
    ({"opponents": ["random"], "factory": make_agent, "reward_scale": 0}, ValueError,
     "reward_scale"),
    ({"opponents": ["random"], "factory": make_agent, "seat": 4}, ValueError, "seat"),
])
def test_bad_arguments_are_refused(kwargs, error, text):
    with pytest.raises(error, match=text):
        SingleSeatEnv(**kwargs)


def test_maskable_ppo_reads_masks_through_subprocess_vec_env():
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import SubprocVecEnv

    def make(rank):
        return lambda: SingleSeatEnv(["random"], factory=make_agent)

    venv = SubprocVecEnv([make(0), make(1)], start_method="spawn")
    try:
        venv.seed(0)
        obs = venv.reset()
        masks = get_action_masks(venv)
        assert masks.shape == (2, 53) and masks.dtype == bool
        for row_obs, row_mask in zip(obs, masks, strict=True):
            hand = decode(row_obs)["hand"].astype(bool)
            phase = decode(row_obs)["phase"]
            assert row_mask.any()
            if phase[1]:  # play phase: only cards in hand are legal
                assert not (row_mask[:52] & ~hand).any()
    finally:
        venv.close()


@pytest.mark.parametrize("rules", [*sorted(PRESETS), {"hidden_exposure": True},
                                   {"first_drawn_exposure": True},
                                   {"pig_sheep_team": True, "declaration": "none"}])
def test_every_rule_set_passes_the_checker_with_its_own_observation_size(rules):
    table = Rules.coerce(rules)
    mode = "team" if table.has_teams else "zero_sum"
    env = SingleSeatEnv(_pool(), factory=make_agent, rules=table, reward_mode=mode)
    assert env.observation_space.shape == (obs_size(table),)
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=1)
    assert obs.shape == env.observation_space.shape


def test_team_reward_pays_the_learner_its_team_result():
    env = SingleSeatEnv(["random"], factory=make_agent, rules="scrofazero", reward_mode="team",
                        reward_scale=1.0)
    _, rewards, infos = _play(env, 4, np.random.default_rng(0))
    expected = team_results(infos[-1]["scores"])[infos[-1]["seat"]]
    assert rewards[-1] == pytest.approx(expected)
    with pytest.raises(ValueError, match="team rules"):
        SingleSeatEnv(["random"], factory=make_agent, reward_mode="team")
