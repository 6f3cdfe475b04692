"""The vector envs over the batched engine: ``SingleSeatVectorEnv`` and ``SelfPlayBatch``.

The replays play every hand again on the scalar reference (``Game.from_hands`` of
``vector.deal``) with the same actions, and compare what the learner saw and got.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.wrappers.vector import DictInfoToList, RecordEpisodeStatistics

from gongzhu_env import Game, IllegalActionError, Rules
from gongzhu_env.players import IllegalPlayerActionError
from gongzhu_env.scoring import hand_results
from gongzhu_env.vector import deal
from gongzhu_env.vector_env import SelfPlayBatch, SingleSeatVectorEnv
from tests.gongzhu_env import vector_support as support
from tests.gongzhu_env.vector_support import highest, lowest


# ------------------------------------------------------------------ the gymnasium contract
def test_spaces_metadata_and_the_autoreset_mode() -> None:
    env = SingleSeatVectorEnv(5)
    assert isinstance(env, VectorEnv)
    assert env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert env.single_observation_space == spaces.Box(0.0, 1.0, (600,), dtype=np.float32)
    assert env.single_action_space == spaces.Discrete(53)
    assert env.observation_space.shape == (5, 600)
    assert env.action_space == spaces.MultiDiscrete([53] * 5)
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].dtype == np.bool_ and info["seat"].shape == (5,)
    assert SingleSeatVectorEnv(2, rules="scrofazero", reward_mode="team") \
        .single_observation_space.shape == (604,)


def test_steps_return_gymnasium_shapes_and_types_and_finished_tables_report_in_info() -> None:
    env = SingleSeatVectorEnv(6, ["random"])
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(40):
        actions = support.learner_actions(env.action_masks(), rng)
        assert env.action_space.contains(actions)
        obs, rew, term, trunc, info = env.step(actions)
        assert env.observation_space.contains(obs)
        assert rew.shape == term.shape == trunc.shape == (6,)
        assert rew.dtype == np.float32 and term.dtype == trunc.dtype == np.bool_
        assert not trunc.any()
        assert not rew[~term].any()
        if term.any():
            finished += int(term.sum())
            assert np.array_equal(info["_final_obs"], term)
            assert np.array_equal(info["_final_info"], term)
            assert np.array_equal(info["final_info"]["_scores"], term)
            for i in range(6):
                if term[i]:
                    assert env.single_observation_space.contains(info["final_obs"][i])
                    # Phase "over" in the final view; the returned view is a new hand's.
                    assert info["final_obs"][i][2] == 1 and obs[i][2] == 0
                    scores = info["final_info"]["scores"][i]
                    seat = info["final_info"]["seat"][i]
                    expected = hand_results(scores.tolist(), "zero_sum", None)[seat] / 400
                    assert rew[i] == pytest.approx(expected, abs=1e-6)
                else:
                    assert info["final_obs"][i] is None
        else:
            assert "final_obs" not in info
    assert finished >= 6


def test_gymnasium_vector_wrappers_read_it() -> None:
    # Gymnasium has no checker for vector envs; its wrappers are the users that read the
    # declared autoreset mode and the info layout.
    env = RecordEpisodeStatistics(SingleSeatVectorEnv(4, ["random"]))
    env.reset(seed=3)
    rng = np.random.default_rng(1)
    returns = np.zeros(4)
    seen = []
    for _ in range(60):
        _, rew, term, _, info = env.step(support.learner_actions(env.unwrapped.action_masks(), rng))
        returns += rew
        if term.any():
            stats = info["episode"]
            for i in np.flatnonzero(term):
                assert stats["r"][i] == pytest.approx(returns[i], abs=1e-5)
                seen.append(returns[i])
                returns[i] = 0
    assert len(seen) >= 4 and len(env.return_queue) == len(seen)
    listed = DictInfoToList(SingleSeatVectorEnv(3, ["random"]))
    _, infos = listed.reset(seed=0)
    assert isinstance(infos, list) and len(infos) == 3 and "seat" in infos[0]


# ------------------------------------------------------------------ against the reference
@pytest.mark.parametrize("rules, mode, seat", [("standard", "zero_sum", None),
                                                ("online", "raw", 2),
                                                ("scrofazero", "team", None),
                                                (Rules(players=5), "zero_sum", None),
                                                (Rules(players=6, team_play=True), "team", 4),
                                                (Rules(players=3, discard_colour=True), "raw",
                                                 None)], ids=str)
def test_the_learner_sees_its_own_seat_and_gets_the_reference_result(rules, mode, seat) -> None:
    n, scale = 5, 100.0
    env = SingleSeatVectorEnv(n, {lowest: 2.0, highest: 1.0}, rules=rules, reward_mode=mode,
                              reward_scale=scale, seat=seat)
    obs, info = env.reset(seed=11)
    assert env.deal_seed == int(np.random.default_rng(11).integers(2**63))
    rules = Rules.coerce(rules)
    replay = support.LearnerReplay(env, rules, lambda i, h: deal(env.deal_seed, i, h, rules), seat)
    for i in range(n):
        replay.start(i, info)
        replay.check_view(i, obs)
    rng = np.random.default_rng(4)
    ended = 0
    for _ in range(70):
        actions = support.learner_actions(env.action_masks(), rng)
        obs, rew, term, _, info = env.step(actions)
        for i in range(n):
            game, s = replay.follow(i, int(actions[i]))
            if game.is_over():
                replay.check_end(i, game, s, rew, term, info, mode, scale)
                assert np.array_equal(info["final_obs"][i], game.view(s).encode())
                ended += 1
                replay.start(i, info)
            else:
                assert not term[i] and rew[i] == 0
            replay.check_view(i, obs)
    assert ended >= n
    # Both opponents played, and the learner sat at more than one seat.
    assert any(lowest in p for p in replay.seated) or any(highest in p for p in replay.seated)


# ------------------------------------------------------------------ seeding
def _run(seed: int, steps: int = 30, opponents=("random", lowest)) -> list:
    env = SingleSeatVectorEnv(4, list(opponents))
    out = [env.reset(seed=seed)]
    rng = np.random.default_rng(0)
    for _ in range(steps):
        out.append(env.step(support.learner_actions(env.action_masks(), rng)))
    return out


def test_the_same_seed_gives_the_same_episodes() -> None:
    a, b, c = _run(5), _run(5), _run(6)
    assert data_equivalence(a, b)
    assert not data_equivalence(a, c)


def test_reset_without_a_seed_goes_on_from_the_generator() -> None:
    env = SingleSeatVectorEnv(3)
    first, _ = env.reset(seed=0)
    again, _ = env.reset()
    assert env.deal_seed != int(np.random.default_rng(0).integers(2**63))
    assert not np.array_equal(first, again)
    with pytest.raises(ValueError, match="no options"):
        env.reset(options={"reset_mask": np.ones(3, dtype=bool)})


def test_numpy_integer_seeds_are_seeds() -> None:
    # A seed often comes out of a numpy array: it seeds exactly as the same Python int.
    assert data_equivalence(_run(np.int64(5)), _run(5))
    env = SingleSeatVectorEnv(2, seat=np.int64(1))
    env.reset(seed=np.uint32(4))
    assert (env.seats == 1).all()
    a, b = SelfPlayBatch(2), SelfPlayBatch(2)
    a.reset(np.int32(3))
    b.reset(3)
    assert data_equivalence(tuple(a.play("random", 20)), tuple(b.play("random", 20)))


@pytest.mark.parametrize("seed, error, words", [
    (-1, ValueError, "seed must be a non-negative integer; got -1"),
    (np.int64(-3), ValueError, "seed must be a non-negative integer; got -3"),
    (True, TypeError, "seed must be a non-negative integer"),
    (np.bool_(False), TypeError, "seed must be a non-negative integer"),
    (2.0, TypeError, r"seed must be a non-negative integer \(an int or a numpy integer\); "
                     r"got 2\.0"),
    ("7", TypeError, "seed must be a non-negative integer"),
])
def test_bad_seeds_are_refused_with_what_a_seed_is(seed, error, words) -> None:
    sp = SelfPlayBatch(2)
    with pytest.raises(error, match=rf"SelfPlayBatch\.reset: {words}"):
        sp.reset(seed)
    assert sp.rng is None  # nothing was started
    env = SingleSeatVectorEnv(2)
    with pytest.raises(error, match=rf"SingleSeatVectorEnv\.reset: {words}"):
        env.reset(seed=seed)


# ------------------------------------------------------------------ bad input
def _twin_envs(opponents_a, opponents_b=None):
    return support.twin_envs(4, opponents_a, opponents_b)


def _same_from_here(a: SingleSeatVectorEnv, b: SingleSeatVectorEnv) -> None:
    support.same_from_here(a, b, 20)


@pytest.mark.parametrize("actions, error, words", [
    (np.zeros(3, dtype=np.int64), ValueError, r"shape \(4,\)"),
    (np.zeros((4, 1), dtype=np.int64), ValueError, r"shape \(4,\)"),
    (np.zeros(4), TypeError, "integer dtype"),
    ([52, 52, 52, 52], TypeError, "numpy array"),
])
def test_learner_actions_of_the_wrong_shape_or_type_are_refused(actions, error, words) -> None:
    a, b = _twin_envs(["random"])
    with pytest.raises(error, match=words):
        a.step(actions)
    _same_from_here(a, b)


def test_an_illegal_learner_action_names_the_table_and_changes_nothing() -> None:
    a, b = _twin_envs(["random", lowest])
    masks = a.action_masks()
    actions = np.array([np.flatnonzero(m)[0] for m in masks])
    actions[2] = int(np.flatnonzero(~masks[2])[0])
    with pytest.raises(IllegalActionError) as e:
        a.step(actions)
    message = str(e.value)
    assert "table 2" in message and f"({actions[2]})" in message
    assert f"seat {a.seats[2]}" in message and "legal actions: [" in message
    _same_from_here(a, b)


class _Faulty:
    """Plays the lowest legal action, but goes wrong at its ``bad_call``-th call."""

    name = "faulty"

    def __init__(self, bad_call: int, how: str) -> None:
        self.calls, self.bad_call, self.how = 0, bad_call, how

    def __call__(self, obs: np.ndarray, masks: np.ndarray):
        self.calls += 1
        out = lowest(obs, masks)
        if self.calls != self.bad_call:
            return out
        if self.how == "illegal":
            out[-1] = int(np.flatnonzero(~masks[-1])[0])
        elif self.how == "shape":
            return out[:-1] if len(out) > 1 else np.zeros(2, dtype=np.int64)
        elif self.how == "dtype":
            return out.astype(np.float64)
        elif self.how == "raise":
            raise KeyError("the network broke")
        return out


@pytest.mark.parametrize("how, error, words", [
    ("illegal", IllegalPlayerActionError, "legal actions: ["),
    ("shape", ValueError, "returned an array of shape"),
    ("dtype", TypeError, "returned float64 values"),
    ("raise", KeyError, "the network broke"),
])
def test_a_failing_opponent_undoes_the_whole_step(how, error, words) -> None:
    faulty = _Faulty(0, how)
    a, b = _twin_envs([faulty], [lowest])
    rng = np.random.default_rng(3)
    # Drive both the same way for a while, then let the opponent fail once.
    for _ in range(4):
        actions = support.learner_actions(a.action_masks(), rng)
        assert data_equivalence(a.step(actions), b.step(actions))
    faulty.bad_call = faulty.calls + 2
    before = a.batch.snapshot(), a.seats.copy(), a.players.copy()
    actions = support.learner_actions(a.action_masks(), rng)
    with pytest.raises(error, match=words.replace("[", r"\[")) as e:
        a.step(actions)
    if how in ("illegal", "shape", "dtype"):
        assert "faulty" in str(e.value)
    if how == "illegal":
        assert "table " in str(e.value) and "no table was changed" in str(e.value)
    assert np.array_equal(a.batch.snapshot(), before[0])
    assert np.array_equal(a.seats, before[1]) and np.array_equal(a.players, before[2])
    # The same step again, now without a fault, goes as the twin's.
    assert data_equivalence(a.step(actions), b.step(actions))
    _same_from_here(a, b)


@pytest.mark.parametrize("opponent, error, words", [
    ("greedy", ValueError, "'greedy' cannot play in the batched engine"),
    ("expert", ValueError, "'random' and batched callables"),
    (42, TypeError, "neither 'random' nor a callable"),
])
def test_opponents_the_batch_cannot_play_are_refused_naming_them(opponent, error, words) -> None:
    with pytest.raises(error, match=words):
        SingleSeatVectorEnv(2, ["random", opponent])


def test_an_agent_object_is_refused() -> None:
    from agents import make_agent

    with pytest.raises(TypeError, match="reads one Python view at a time"):
        SingleSeatVectorEnv(2, [make_agent("random", seed=0)])


@pytest.mark.parametrize("opponents, weights, words", [
    ([], None, "must not be empty"), (["random"], [1, 2], "a list of 1 numbers"),
    (["random", lowest], [0, 0], "not all be zero"), (["random"], [-1], "non-negative"),
    ({"random": 1.0}, [1.0], "not both"),
])
def test_bad_pools_are_refused(opponents, weights, words) -> None:
    with pytest.raises((ValueError, TypeError), match=words):
        SingleSeatVectorEnv(2, opponents, weights)


def test_step_before_reset_is_refused_and_two_decks_are_played() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        SingleSeatVectorEnv(2).step(np.zeros(2, dtype=np.int64))
    with pytest.raises(RuntimeError, match="reset"):
        SingleSeatVectorEnv(2, rules="two_decks").step(np.zeros(2, dtype=np.int64))
    # Two decks used to be refused here; test_vector_env_pairs.py holds them to Game.
    assert SingleSeatVectorEnv(2, rules="two_decks").num_actions == 105


# ------------------------------------------------------------------ opponents
def test_opponents_are_drawn_by_weight_and_set_opponents_applies_to_new_hands() -> None:
    env = SingleSeatVectorEnv(200, {lowest: 3.0, highest: 1.0}, seat=0)
    env.reset(seed=0)
    seated = [p for i in range(200) for p in env.seated(i)[1:]]
    share = seated.count(lowest) / len(seated)
    assert 0.70 < share < 0.80  # 600 draws at 3/4: sd 0.018
    assert all(env.seated(i)[0] is None for i in range(200))
    env.set_opponents(["random"])
    assert env.opponents == ["random"]
    # Hands in progress keep their players; the next hands get the new pool.
    assert env.seated(0)[1] in (lowest, highest)
    rng = np.random.default_rng(0)
    renewed = set()
    for _ in range(30):
        _, _, term, _, _ = env.step(support.learner_actions(env.action_masks(), rng))
        renewed |= set(np.flatnonzero(term))
        for i in range(200):
            if i in renewed:
                assert env.seated(i)[1:] == ["random"] * 3
            else:
                assert "random" not in env.seated(i)
    assert renewed


def test_a_batched_opponent_is_called_once_per_engine_step_with_all_its_rows() -> None:
    calls = []

    def policy(obs, masks):
        waiting = int((env.batch.current_player != env.seats).sum())
        calls.append((len(obs), waiting))
        assert obs.shape[1] == 600 and masks.dtype == np.bool_
        return lowest(obs, masks)

    env = SingleSeatVectorEnv(32, [policy], seat=0)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    sizes = []
    for _ in range(20):
        calls.clear()
        env.step(support.learner_actions(env.action_masks(), rng))
        # One call per engine step, with every table where an opponent is to move.
        assert all(k == waiting for k, waiting in calls)
        sizes += [k for k, _ in calls]
    assert max(sizes) == 32


# ------------------------------------------------------------------ self-play
def test_self_play_returns_each_decision_once_with_its_reference_hand_result() -> None:
    n = 6
    sp, seed, outs = support.self_play_rounds(n, "standard", "zero_sum", 50.0, ["random", lowest],
                                              45, 4)
    seen = set()
    for out in outs:
        assert len(out.actions) == len(out.returns) == len(out.observations)
        for k in range(len(out.actions)):
            key = (int(out.tables[k]), int(out.hands[k]), k)
            seen.add(key)
        # Replay each finished hand on the reference with the recorded actions.
        for rows in support.replay_self_play(out, lambda t, h: deal(seed, t, h), "standard",
                                     "zero_sum", 50.0, [0, 1, 0, 1]):
            theirs = rows[out.players[rows] == 1]
            assert (out.actions[theirs] == lowest(None, out.action_masks[theirs])).all()
    # Every decision of every finished hand came back once: 180 steps x 6 tables, less the
    # decisions of the hands still in progress.
    total = sum(len(o.actions) for o in outs)
    pending = sp.pending_decisions
    assert total + pending == 4 * 45 * n
    assert sum(len(o.hand_tables) for o in outs) >= n


@pytest.mark.parametrize("players", [3, 7])
def test_self_play_at_other_table_sizes_matches_the_reference(players: int) -> None:
    rules = Rules(players=players, strict_exposure=True)
    sp = SelfPlayBatch(3, rules, reward_mode="raw")
    assert sp.num_seats == players
    sp.reset(seed=2)
    seed = int(np.random.default_rng(2).integers(2**63))
    seating = [k % 2 for k in range(players)]
    out = sp.play(["random", lowest], 150, assignment=seating)
    assert out.hand_scores.shape[1] == players and len(out.hand_tables) >= 3
    for t, h, scores in zip(out.hand_tables, out.hand_numbers, out.hand_scores, strict=True):
        rows = np.flatnonzero((out.tables == t) & (out.hands == h))
        game = Game.from_hands(deal(seed, int(t), int(h), rules), rules)
        for r in rows:
            s = game.current_player
            assert out.seats[r] == s and out.players[r] == seating[s]
            assert np.array_equal(out.observations[r], game.view(s).encode())
            game.step(int(out.actions[r]))
        assert game.is_over() and game.scores() == scores.tolist()
        assert out.returns[rows].tolist() == [game.scores()[out.seats[r]] for r in rows]
    with pytest.raises(ValueError, match=rf"shape \({players},\)"):
        sp.play([lowest, highest], 5, assignment=[0, 1, 0, 1])


def test_self_play_seeds_and_assignments() -> None:
    def run(seed):
        sp = SelfPlayBatch(3)
        sp.reset(seed)
        return sp.play("random", 80)

    assert data_equivalence(tuple(run(1)), tuple(run(1)))
    assert not data_equivalence(tuple(run(1)), tuple(run(2)))
    sp = SelfPlayBatch(3)
    sp.reset(0)
    out = sp.play([lowest, highest, lowest, highest], 60)
    assert set(out.players[out.seats % 2 == 0]) <= {0, 2}
    per_table = np.array([[0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 0, 1]])
    sp.reset(1)  # a fresh start: the pending decisions above were played by other seatings
    out = sp.play([lowest, highest], 60, assignment=per_table)
    assert (out.players == per_table[out.tables, out.seats]).all()
    for bad, words in (([0, 1], "assignment must be integers of shape"),
                       ([0, 0, 0, 2], "must index the 2 policies"),
                       (None, "2 policies need an assignment")):
        with pytest.raises(ValueError, match=words):
            sp.play([lowest, highest], 5, assignment=bad)
    with pytest.raises(ValueError, match="steps"):
        sp.play(lowest, 0)
    with pytest.raises(ValueError, match="'greedy' cannot play"):
        sp.play("greedy", 5)


def test_a_failing_self_play_policy_undoes_the_call() -> None:
    a, b = SelfPlayBatch(4), SelfPlayBatch(4)
    a.reset(3)
    b.reset(3)
    a.play(lowest, 30)
    b.play(lowest, 30)
    faulty = _Faulty(20, "illegal")
    with pytest.raises(IllegalPlayerActionError, match="faulty"):
        a.play([faulty], 40)
    assert data_equivalence(tuple(a.play(lowest, 50)), tuple(b.play(lowest, 50)))
    with pytest.raises(RuntimeError, match="reset"):
        SelfPlayBatch(2).play(lowest, 3)
