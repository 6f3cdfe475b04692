"""The batch's compact observations: ``GameBatch(n, rules, obs_dtype=np.uint8)``.

A uint8 batch must write, straight from its kernels, the bytes ``np.rint(x * 255)`` of every
value ``x`` a float32 batch writes (the DMC replay's scale), for the observations of the seat
to move and the views of finished hands, at every table layout: the four-seat kernels, the
general ones (three and six seats, the hidden-exposure counts, the first dealt card) and two
decks. The reference is ``PlayerView.encode()`` through the differential run, and a float32
batch on the same seed and actions.
"""

from __future__ import annotations

import numpy as np
import pytest

from gongzhu_env.batch import GameBatch
from gongzhu_env.batch.base import OBS_DTYPES, in_obs_dtype
from gongzhu_env.batch.differential import differential
from gongzhu_env.rules import Rules

TABLES = {
    "four seats": Rules(),
    "six seats": Rules(players=6),
    "three seats, hidden exposure, first dealt": Rules(
        players=3, hidden_exposure=True, first_drawn_exposure=True),
    "two decks": Rules.preset("two_decks"),
}
"""One rule set per layout the kernels write: the four-seat kernels, the general ones (with the
blocks only they write: the exposure counts and the first dealt card), and two decks."""

DTYPES = (np.float32, np.uint8)


def _pair(rules: Rules, tables: int = 32) -> tuple[GameBatch, GameBatch]:
    """A float32 and a uint8 batch of ``rules``, reset on the same seed."""
    final = rules.decks == 1
    a = GameBatch(tables, rules, final_observations=final)
    b = GameBatch(tables, rules, final_observations=final, obs_dtype=np.uint8)
    a.reset(17)
    b.reset(17)
    return a, b


def _as_bytes(values: np.ndarray) -> np.ndarray:
    """The replay's own conversion (``training/dmc``), written out here as the reference."""
    return np.rint(values * 255).astype(np.uint8)


@pytest.mark.parametrize("rules", TABLES.values(), ids=TABLES.keys())
def test_uint8_observations_are_the_float32_ones_times_255_rounded(rules: Rules) -> None:
    a, b = _pair(rules)
    rng = np.random.default_rng(3)
    ended = 0
    assert np.array_equal(b.observations, _as_bytes(a.observations))
    for _ in range(240):  # past the end of a hand at every table (two decks: 104+ plays)
        actions = a.sample_legal(rng.random(a.num_tables))
        a.step(actions)
        b.step(actions)
        np.testing.assert_array_equal(b.observations, _as_bytes(a.observations))
        np.testing.assert_array_equal(b.action_masks, a.action_masks)
        np.testing.assert_array_equal(b.rewards, a.rewards)
        np.testing.assert_array_equal(b.terminated, a.terminated)
        if a.final_observations is not None and a.terminated.any():
            assert b.final_observations is not None
            done = a.terminated
            np.testing.assert_array_equal(b.final_observations[done],
                                          _as_bytes(a.final_observations[done]))
            ended += int(done.sum())
    # Not only 0 and 255: the squashed scores (and counts) took values in between.
    assert len(np.unique(b.observations)) > 2
    if rules.decks == 1:
        assert ended >= a.num_tables


@pytest.mark.parametrize("rules", TABLES.values(), ids=TABLES.keys())
def test_dtypes_and_shapes(rules: Rules) -> None:
    a, b = _pair(rules, tables=4)
    for batch, dtype in ((a, np.float32), (b, np.uint8)):
        assert batch.obs_dtype == np.dtype(dtype)
        assert batch.observations.dtype == dtype
        assert batch.observations.shape == (4, batch.obs_size)
        assert batch.action_masks.dtype == np.int8
        assert batch.rewards.dtype == np.float32
        if rules.decks == 1:
            assert batch.final_observations is not None
            assert batch.final_observations.dtype == dtype
            assert batch.final_observations.shape == (4, rules.players, batch.obs_size)
    assert b.action_masks.max() == 1  # the masks stay 0/1 whatever the observations' dtype


@pytest.mark.parametrize("rules", TABLES.values(), ids=TABLES.keys())
def test_a_uint8_batch_agrees_with_the_reference_encoding(rules: Rules) -> None:
    report = differential(rules, 8, 12, seed=4, obs_dtype=np.uint8)
    assert report.bad_hands == 0, report.messages
    assert report.hands >= 12


def test_the_differential_run_sees_a_wrong_byte() -> None:
    batch = GameBatch(4, Rules(), obs_dtype=np.uint8, final_observations=True)
    batch.reset(0)
    original = batch.step

    def off_by_one(actions: np.ndarray, active: np.ndarray | None = None) -> object:
        out = original(actions, active)
        batch.observations[:, -1] ^= 1  # one score byte off by one: still in 0..255
        return out

    batch.step = off_by_one  # type: ignore[method-assign]
    assert differential(batch.rules, 4, 8, 0, batch=batch).bad_hands >= 4


@pytest.mark.parametrize("rules", [Rules(), Rules(players=5), Rules.preset("two_decks")],
                         ids=["four seats", "five seats", "two decks"])
def test_the_uint8_buffer_is_a_quarter_of_the_float32_one(rules: Rules) -> None:
    a, b = _pair(rules, tables=64)
    assert b.observations.nbytes * 4 <= a.observations.nbytes
    if rules.decks == 1:
        assert a.final_observations is not None and b.final_observations is not None
        assert b.final_observations.nbytes * 4 <= a.final_observations.nbytes


@pytest.mark.parametrize("bad", [np.float64, np.float16, np.int8, "int64", bool, "no dtype",
                                 None, 3])
def test_other_dtypes_are_refused_naming_the_two_accepted(bad: object) -> None:
    with pytest.raises(ValueError, match=r"obs_dtype must be numpy\.float32 .* or numpy\.uint8"):
        GameBatch(2, Rules(), obs_dtype=bad)
    with pytest.raises(ValueError, match="obs_dtype"):
        GameBatch(2, "two_decks", obs_dtype=bad)


@pytest.mark.parametrize("spelling", ["uint8", np.dtype("uint8"), "float32", np.float32])
def test_every_spelling_of_the_two_dtypes_is_accepted(spelling: object) -> None:
    batch = GameBatch(2, Rules(), obs_dtype=spelling)
    assert batch.observations.dtype in OBS_DTYPES
    assert batch.observations.dtype == np.dtype(spelling)


@pytest.mark.parametrize("rules", TABLES.values(), ids=TABLES.keys())
def test_snapshot_restore_and_refresh_write_the_same_bytes(rules: Rules) -> None:
    _, b = _pair(rules, tables=16)
    rng = np.random.default_rng(9)
    for _ in range(30):
        b.step(b.sample_legal(rng.random(16)))
    snap, seen = b.snapshot(), b.observations.copy()
    for _ in range(50):
        b.step(b.sample_legal(rng.random(16)))
    assert not np.array_equal(b.observations, seen)
    b.restore(snap)
    np.testing.assert_array_equal(b.observations, seen)
    # And play goes on as from the float32 batch's restore of the same rows.
    a = GameBatch(16, rules, final_observations=rules.decks == 1)
    a.reset(17)
    a.restore(snap)  # a snapshot's digest is of the rules and the rows, not of the dtype
    np.testing.assert_array_equal(b.observations, _as_bytes(a.observations))
    for _ in range(20):
        actions = a.sample_legal(rng.random(16))
        a.step(actions)
        b.step(actions)
        np.testing.assert_array_equal(b.observations, _as_bytes(a.observations))


def _hand_columns(batch: GameBatch) -> dict[int, list[int]]:
    """Each seat's columns of a state row that hold its hidden cards (by the layout's names)."""
    if batch.rules.decks == 2:
        from gongzhu_env.batch.pairs import _column_names as pair_names

        names = pair_names()
        kinds = ("hand", "cards held twice")
    else:
        from gongzhu_env.batch.one_deck import _column_names as one_deck_names

        names = one_deck_names(batch.num_seats)[:batch._state.shape[1]]
        kinds = ("hand",)
    return {s: [names.index(f"{kind} of seat {s}") for kind in kinds]
            for s in range(batch.num_seats)}


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "uint8"])
@pytest.mark.parametrize("rules", TABLES.values(), ids=TABLES.keys())
def test_swapping_hidden_cards_between_opponents_changes_no_observation(
        rules: Rules, dtype: type) -> None:
    """The batch's leak test: what two other seats hold is hidden from the seat to move.

    Exchange the hands of two opponents of the seat to move in every table's state and write
    the outputs again: the seat to move's observation must not change by one value.
    """
    batch = GameBatch(32, rules, obs_dtype=dtype)
    batch.reset(5)
    rng = np.random.default_rng(1)
    columns = _hand_columns(batch)
    changed = 0
    for _ in range(6):
        for _ in range(int(rng.integers(1, 25))):
            batch.step(batch.sample_legal(rng.random(32)))
        seen = batch.observations.copy()
        saved = batch._state.copy()
        for i in range(32):
            me = int(batch.current_player[i])
            a, b = [(me + k) % batch.num_seats for k in (1, 2)]
            for ca, cb in zip(columns[a], columns[b], strict=True):
                row = batch._state[i]
                changed += int(row[ca] != row[cb])
                row[ca], row[cb] = row[cb], row[ca]
        batch._refresh()
        np.testing.assert_array_equal(batch.observations, seen)
        batch._state[:] = saved
        batch._refresh()
    assert changed > 100  # the swaps did change the hidden hands


def test_swapping_the_hand_of_the_seat_to_move_is_seen() -> None:
    """The leak test can fail: a change to the observer's own hand changes its observation."""
    batch = GameBatch(8, Rules(), obs_dtype=np.uint8)
    batch.reset(5)
    columns = _hand_columns(batch)
    seen = batch.observations.copy()
    for i in range(8):
        me = int(batch.current_player[i])
        other = (me + 1) % 4
        row = batch._state[i]
        row[columns[me][0]], row[columns[other][0]] = row[columns[other][0]], row[columns[me][0]]
    batch._refresh()
    assert (batch.observations != seen).any(axis=1).all()


def test_in_obs_dtype_is_the_replays_conversion() -> None:
    values = np.linspace(0.0, 1.0, 1001, dtype=np.float32)
    assert np.array_equal(in_obs_dtype(values, np.dtype(np.uint8)), _as_bytes(values))
    assert np.array_equal(in_obs_dtype(values, np.dtype(np.float32)), values)
