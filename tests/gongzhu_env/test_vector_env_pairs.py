"""The vector envs at two-deck tables (``GameBatch`` under ``SingleSeatVectorEnv``).

As at one deck (``test_vector_env.py``), every hand is played again on the scalar reference
(``Game.from_hands`` of ``gongzhu_env.batch.deal``) with the same actions, and what the learner saw
and got is compared step by step: the two-deck engine is held to ``Game``, not to itself.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from gongzhu_env import IllegalActionError, Rules
from gongzhu_env.batch import GameBatch, deal
from gongzhu_env.players import IllegalPlayerActionError
from gongzhu_env.vector_env import SelfPlayBatch, SingleSeatVectorEnv
from tests.gongzhu_env import vector_support as support
from tests.gongzhu_env.vector_support import highest, lowest

TWO = Rules.coerce("two_decks")


# ------------------------------------------------------------------ spaces
def test_two_deck_spaces_take_their_size_from_the_rules() -> None:
    env = SingleSeatVectorEnv(3, rules="two_decks")
    assert isinstance(env.batch, GameBatch)
    assert env.num_actions == TWO.num_actions == 105
    assert env.single_action_space == spaces.Discrete(105)
    assert env.action_space == spaces.MultiDiscrete([105] * 3)
    assert env.single_observation_space == spaces.Box(0.0, 1.0, (1153,), dtype=np.float32)
    assert not env.final_obs_is_terminal
    assert SingleSeatVectorEnv(2).final_obs_is_terminal  # one deck: the phase-"over" view
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert env.action_masks().shape == info["action_mask"].shape == (3, 105)
    sp = SelfPlayBatch(2, "two_decks")
    assert sp.num_actions == 105 and sp.num_seats == 4 and isinstance(sp.batch, GameBatch)


# ------------------------------------------------------------------ against the reference
@pytest.mark.parametrize("rules, mode, seat", [
    ("two_decks", "team", None),
    (Rules(decks=2, team_play=False, exposed_may_lead=True), "zero_sum", 1),
    (Rules(decks=2, team_play=False, first_lead="any", declaration="none"), "raw", None),
], ids=str)
def test_the_two_deck_learner_sees_and_gets_what_the_reference_gives(rules, mode, seat) -> None:
    n, scale = 4, 100.0
    # Deterministic opponents only: the reference replays their choices from their views.
    env = SingleSeatVectorEnv(n, {lowest: 2.0, highest: 1.0}, rules=rules, reward_mode=mode,
                              reward_scale=scale, seat=seat)
    obs, info = env.reset(seed=5)
    rules = Rules.coerce(rules)
    replay = support.LearnerReplay(env, rules, lambda i, h: deal(env.deal_seed, i, h, TWO), seat)
    for i in range(n):
        replay.start(i, info)
        replay.check_view(i, obs)
    rng = np.random.default_rng(4)
    ended = pair_leads = 0
    for _ in range(70):
        actions = support.learner_actions(env.action_masks(), rng)
        pair_leads += int(((actions >= 52) & (actions < 104)).sum())
        before = obs.copy()
        obs, rew, term, trunc, info = env.step(actions)
        assert not trunc.any()
        for i in range(n):
            game, s = replay.follow(i, int(actions[i]))
            if game.is_over():
                replay.check_end(i, game, s, rew, term, info, mode, scale)
                # The documented fallback: the learner's view at its last decision.
                assert np.array_equal(info["final_obs"][i], before[i])
                ended += 1
                replay.start(i, info)
            else:
                assert not term[i] and rew[i] == 0
                if "final_obs" in info:
                    assert info["final_obs"][i] is None
            replay.check_view(i, obs)
    assert ended >= n and pair_leads > 0  # the learner led pairs, and its tables went on
    assert env.observation_space.contains(obs)


def test_random_two_deck_opponents_keep_the_seeded_stream_and_legal_play() -> None:
    def run(seed: int) -> list:
        env = SingleSeatVectorEnv(3, ["random", lowest], rules="two_decks")
        out = [env.reset(seed=seed)]
        rng = np.random.default_rng(0)
        for _ in range(30):
            out.append(env.step(support.learner_actions(env.action_masks(), rng)))
        return out

    a, b, c = run(2), run(2), run(3)
    assert data_equivalence(a, b)
    assert not data_equivalence(a, c)
    # Every hand ended by a learner step reports the same info layout as at one deck.
    env = RecordEpisodeStatistics(SingleSeatVectorEnv(4, ["random"], rules="two_decks"))
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    returns, seen = np.zeros(4), 0
    for _ in range(40):
        _, rew, term, _, info = env.step(support.learner_actions(env.unwrapped.action_masks(), rng))
        returns += rew
        for i in np.flatnonzero(term):
            assert info["episode"]["r"][i] == pytest.approx(returns[i], abs=1e-5)
            assert info["final_obs"][i].shape == (1153,)
            returns[i] = 0
            seen += 1
    assert seen >= 4


# ------------------------------------------------------------------ bad input
def _twins():
    return support.twin_envs(3, ["random", lowest], rules="two_decks")


def _same_from_here(a: SingleSeatVectorEnv, b: SingleSeatVectorEnv) -> None:
    support.same_from_here(a, b, 15)


@pytest.mark.parametrize("actions, error, words", [
    (np.zeros(2, dtype=np.int64), ValueError, r"actions must have shape \(3,\), one per table; "
                                              r"got \(2,\)"),
    (np.zeros((3, 1), dtype=np.int64), ValueError, r"shape \(3,\)"),
    (np.zeros(3), TypeError, "actions must have an integer dtype; got float64"),
    ([104, 104, 104], TypeError, "numpy array of 3 integer actions"),
])
def test_two_deck_learner_actions_of_the_wrong_shape_or_type_are_refused(actions, error,
                                                                         words) -> None:
    a, b = _twins()
    with pytest.raises(error, match=words):
        a.step(actions)
    _same_from_here(a, b)


@pytest.mark.parametrize("bad", ["illegal", 105, -1])
def test_an_illegal_two_deck_learner_action_names_it_and_changes_nothing(bad) -> None:
    a, b = _twins()
    masks = a.action_masks()
    actions = np.array([np.flatnonzero(m)[0] for m in masks])
    actions[1] = int(np.flatnonzero(~masks[1])[0]) if bad == "illegal" else bad
    with pytest.raises(IllegalActionError) as e:
        a.step(actions)
    message = str(e.value)
    if bad == "illegal":  # a card or pair named by its action number
        assert f"({actions[1]})" in message
    else:  # out of range: what the range is
        assert f"{bad}, not an action (0..51 one card, 52+k the pair of card k, 104 DONE)" \
            in message
    assert "table 1" in message and "no table was changed" in message
    assert f"seat {a.seats[1]}" in message and "legal actions: [" in message
    _same_from_here(a, b)


def test_a_two_deck_opponent_out_of_range_is_refused_naming_the_range() -> None:
    calls = []

    def beyond(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        calls.append(masks.shape)
        out = lowest(obs, masks)
        out[-1] = masks.shape[1]  # 105: one past DONE
        return out

    beyond.name = "beyond"  # type: ignore[attr-defined]
    env = SingleSeatVectorEnv(3, [beyond], rules="two_decks", seat=0)
    with pytest.raises(IllegalPlayerActionError, match="beyond") as e:
        env.reset(seed=0)
    assert calls and calls[0][1] == 105
    assert "105, not an action (0..51 one card" in str(e.value)
    assert "legal actions: [" in str(e.value)


def test_a_two_deck_self_play_policy_of_the_wrong_shape_is_refused_and_undone() -> None:
    a, b = SelfPlayBatch(3, "two_decks"), SelfPlayBatch(3, "two_decks")
    a.reset(4)
    b.reset(4)

    def short(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return lowest(obs, masks)[:-1]

    with pytest.raises(ValueError, match=r"returned an array of shape \(2,\) for 3 rows; it "
                                         r"must return shape \(3,\)"):
        a.play(short, 5)
    assert data_equivalence(tuple(a.play(lowest, 40)), tuple(b.play(lowest, 40)))


# ------------------------------------------------------------------ self-play
def test_two_deck_self_play_returns_each_decision_once_with_its_reference_result() -> None:
    n = 3
    sp, seed, outs = support.self_play_rounds(n, "two_decks", "team", 50.0, ["random", highest],
                                              60, 3)
    pair_follows = 0
    for out in outs:
        assert out.action_masks.shape[1] == 105 and out.observations.shape[1] == 1153
        assert out.hand_scores.shape[1] == 4
        for rows in support.replay_self_play(out, lambda t, h: deal(seed, t, h, TWO), TWO,
                                             "team", 50.0, [0, 1, 0, 1]):
            seats = out.seats[rows]
            pair_follows += int((seats[1:] == seats[:-1]).sum())
    total = sum(len(o.actions) for o in outs)
    assert total + sp.pending_decisions == 3 * 60 * n
    assert sum(len(o.hand_tables) for o in outs) >= n
    assert pair_follows > 0  # some seat played twice in a row (declarations or pair follows)
