"""The vector envs with compact observations (``obs_dtype=np.uint8``).

Each compact env is held to a float32 twin of the same seed, driven by the same actions: every
observation it returns (reset, step, the final observations of ended hands, the rows a batched
policy receives, a self-play rollout) must be the twin's, rounded as ``np.rint(x * 255)``, and
everything else (rewards, ends, seats, masks) must be the twin's exactly. Then what Gymnasium's
checks and Stable-Baselines3 make of the uint8 space.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from gymnasium import spaces
from gymnasium.utils.passive_env_checker import (
    check_obs,
    check_observation_space,
    env_reset_passive_checker,
)
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from gongzhu_env.rules import Rules
from gongzhu_env.vector_env import SelfPlayBatch, SingleSeatVectorEnv
from tests.gongzhu_env import vector_support as support

TABLES = [pytest.param("standard", id="4-seats"),
          pytest.param(Rules(players=6), id="6-seats"),
          pytest.param("two_decks", id="two-decks")]


def _bytes(x: np.ndarray) -> np.ndarray:
    """The scale the compact option promises, written out here rather than imported."""
    return np.rint(np.asarray(x, dtype=np.float32) * np.float32(255)).astype(np.uint8)


def reader(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A batched policy that reads its rows: the ``j``-th legal action, ``j`` from the count of
    nonzero entries among the first 100, which are card bits at every table (the scores, whose
    smallest values round to the byte 0, come later). So the float and the byte rows of one
    position give one move, and a row of another table would give another."""
    legal = [np.flatnonzero(m) for m in masks]
    nonzero = np.count_nonzero(obs[:, :100], axis=1)
    return np.array([a[n % len(a)] for a, n in zip(legal, nonzero, strict=True)])


def test_the_spaces_say_the_dtype_and_float32_stays_the_default() -> None:
    plain = SingleSeatVectorEnv(3)
    assert plain.obs_dtype == np.float32
    assert plain.single_observation_space == spaces.Box(0.0, 1.0, (600,), dtype=np.float32)
    env = SingleSeatVectorEnv(3, obs_dtype=np.uint8)
    assert env.obs_dtype == np.uint8
    assert env.single_observation_space == spaces.Box(0, 255, (600,), dtype=np.uint8)
    assert env.observation_space == spaces.Box(0, 255, (3, 600), dtype=np.uint8)
    two = SingleSeatVectorEnv(2, rules="two_decks", obs_dtype=np.uint8)
    assert two.single_observation_space == spaces.Box(0, 255, (1153,), dtype=np.uint8)
    assert SelfPlayBatch(2, obs_dtype=np.uint8).single_observation_space == \
        spaces.Box(0, 255, (600,), dtype=np.uint8)
    assert SelfPlayBatch(2).single_observation_space == plain.single_observation_space


@pytest.mark.parametrize("bad", [np.float64, np.int8, "bytes", None])
def test_an_unknown_obs_dtype_is_refused_naming_both_choices(bad) -> None:
    with pytest.raises(ValueError, match="obs_dtype must be numpy.float32 .* or numpy.uint8"):
        SingleSeatVectorEnv(2, obs_dtype=bad)
    with pytest.raises(ValueError, match="obs_dtype"):
        SelfPlayBatch(2, obs_dtype=bad)


@pytest.mark.parametrize("rules", TABLES)
def test_a_compact_env_shows_its_float_twin_as_bytes_step_for_step(rules) -> None:
    """Same seed, same learner actions, opponents that read the rows they are given: every
    returned array agrees."""
    f32 = SingleSeatVectorEnv(6, [reader, "random"], rules=rules)
    u8 = SingleSeatVectorEnv(6, [reader, "random"], rules=rules, obs_dtype=np.uint8)
    of, inf_f = f32.reset(seed=5)
    ou, inf_u = u8.reset(seed=5)
    assert ou.dtype == np.uint8 and np.array_equal(ou, _bytes(of))
    assert np.array_equal(inf_u["seat"], inf_f["seat"])
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(120):
        masks = f32.action_masks()
        assert np.array_equal(u8.action_masks(), masks)
        actions = support.learner_actions(masks, rng)
        of, rf, tf, _, inf_f = f32.step(actions)
        ou, ru, tu, _, inf_u = u8.step(actions)
        assert ou.dtype == np.uint8 and np.array_equal(ou, _bytes(of))
        assert np.array_equal(ru, rf) and np.array_equal(tu, tf)
        assert np.array_equal(inf_u["seat"], inf_f["seat"])
        for i in np.flatnonzero(tf):
            ended += 1
            final = inf_u["final_obs"][i]
            assert final.dtype == np.uint8 and u8.single_observation_space.contains(final)
            assert np.array_equal(final, _bytes(inf_f["final_obs"][i]))
            assert np.array_equal(inf_u["final_info"]["scores"][i],
                                  inf_f["final_info"]["scores"][i])
    assert ended >= 6


def test_a_batched_policy_receives_the_bytes() -> None:
    seen: list[np.ndarray] = []

    def spy(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        seen.append(obs)
        return support.lowest(obs, masks)

    env = SingleSeatVectorEnv(4, [spy], obs_dtype=np.uint8, seat=0)
    env.reset(seed=1)
    env.step(support.learner_actions(env.action_masks(), np.random.default_rng(0)))
    assert seen and all(o.dtype == np.uint8 and o.shape[1] == 600 for o in seen)
    assert max(int(o.max()) for o in seen) == 255


@pytest.mark.parametrize("rules", TABLES)
def test_compact_self_play_returns_its_float_twins_decisions_as_bytes(rules) -> None:
    out = {}
    for dtype in (np.float32, np.uint8):
        sp = SelfPlayBatch(5, rules, reward_mode="zero_sum", reward_scale=400.0,
                           obs_dtype=dtype)
        sp.reset(seed=9)
        out[dtype] = sp.play([reader, "random"], steps=160,
                             assignment=np.arange(sp.num_seats) % 2)
    f32, u8 = out[np.float32], out[np.uint8]
    assert len(u8.actions) > 0 and u8.observations.dtype == np.uint8
    assert np.array_equal(u8.observations, _bytes(f32.observations))
    for name in ("action_masks", "actions", "tables", "seats", "hands", "players", "returns",
                 "hand_scores"):
        assert np.array_equal(getattr(u8, name), getattr(f32, name)), name


# ------------------------------------------------------------------ Gymnasium's checks
def test_gymnasium_passive_checks_pass_on_the_compact_env() -> None:
    """Gymnasium's ``check_env`` takes single envs only (and the project's single-seat env,
    ``SingleSeatEnv``, is float32 by design); its passive checks of spaces and observations
    apply to a vector env as they are, and any warning they give fails here."""
    env = SingleSeatVectorEnv(4, ["random"], obs_dtype=np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_observation_space(env.single_observation_space)
        check_observation_space(env.observation_space)
        obs, _ = env_reset_passive_checker(env, seed=0)
        check_obs(obs, env.observation_space, "reset")
        rng = np.random.default_rng(0)
        finals = 0
        for _ in range(60):
            obs, _, term, _, info = env.step(support.learner_actions(env.action_masks(), rng))
            check_obs(obs, env.observation_space, "step")
            for i in np.flatnonzero(term):
                check_obs(info["final_obs"][i], env.single_observation_space, "step")
                finals += 1
    assert finals >= 4
    # The float32 check is no formality: a float row in the uint8 space is reported.
    with pytest.warns(UserWarning, match="dtype to be uint8"):
        check_obs(obs.astype(np.float32), env.observation_space, "step")


def test_gymnasium_episode_statistics_wrap_the_compact_env() -> None:
    env = RecordEpisodeStatistics(SingleSeatVectorEnv(4, ["random"], obs_dtype=np.uint8))
    env.reset(seed=3)
    rng = np.random.default_rng(1)
    done = 0
    for _ in range(60):
        obs, _, term, _, info = env.step(support.learner_actions(env.unwrapped.action_masks(),
                                                                 rng))
        assert obs.dtype == np.uint8
        done += int(term.sum())
    assert done >= 4 and len(env.return_queue) == done


# ------------------------------------------------------------------ Stable-Baselines3
def test_sb3_does_not_take_the_compact_space_for_an_image_nor_scale_it() -> None:
    """SB3 scales only image spaces (uint8, three dimensions) by 1/255; a one-dimensional uint8
    Box is not one, so ``preprocess_obs`` hands the bytes on as floats in [0, 255]. The module
    docstring of ``vector_env`` says so; this holds it to SB3's behaviour."""
    from stable_baselines3.common.preprocessing import is_image_space, preprocess_obs

    env = SingleSeatVectorEnv(3, ["random"], obs_dtype=np.uint8)
    assert not is_image_space(env.single_observation_space)
    assert not is_image_space(env.single_observation_space, check_channels=False,
                              normalized_image=True)
    obs, _ = env.reset(seed=0)
    got = preprocess_obs(torch.from_numpy(obs), env.single_observation_space)
    assert got.dtype == torch.float32
    assert torch.equal(got, torch.from_numpy(obs.astype(np.float32)))
    assert float(got.max()) == 255.0  # bytes as they are: not in [0, 1]


def test_maskable_ppo_trains_on_the_compact_env_without_an_image_wrapper() -> None:
    pytest.importorskip("sb3_contrib", reason="the [train] extra")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecTransposeImage

    from training.sb3.vec_env import BatchVecEnv

    venv = BatchVecEnv(SingleSeatVectorEnv(2, ["random"], obs_dtype=np.uint8))
    assert venv.observation_space == spaces.Box(0, 255, (600,), dtype=np.uint8)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=16, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [8]}, device="cpu")
    assert not isinstance(model.get_env(), VecTransposeImage)
    model.learn(32)
    assert model.num_timesteps >= 32
