"""The batched engine at two decks (``gongzhu_env.batch.pairs``) against the reference ``Game``.

The differential test is what allows a second implementation of the two-deck rules at all:
it plays the same deals and actions on both and compares every output at every step. The
other tests pin the interface: refusals by name, bad input, deals, sampling.
"""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from gongzhu_env import Game, Rules
from gongzhu_env.batch import GameBatch, check_covered, deal
from gongzhu_env.batch import pairs as vp
from gongzhu_env.batch.differential import differential
from gongzhu_env.batch.differential import two_deck_rule_sets as targets
from gongzhu_env.cards import action_str
from gongzhu_env.engine import IllegalActionError
from gongzhu_env.view import obs_size

TWO = Rules.preset("two_decks")


@pytest.fixture
def batch() -> GameBatch:
    """A small two-deck batch, reset."""
    b = GameBatch(4, "two_decks")
    b.reset(3)
    return b


def test_differential_two_decks_preset() -> None:
    report = differential(TWO, 32, 160, seed=5, reward_mode="team", reward_scale=100.0)
    assert report.bad_hands == 0, report.messages
    assert report.hands >= 160


@pytest.mark.parametrize("k", [1, 4, 6, 9])
def test_differential_variants(k: int) -> None:
    name, rules = targets()[k]
    mode = "zero_sum" if k % 2 else "raw"
    report = differential(rules, 16, 32, seed=20 + k, reward_mode=mode, reward_scale=3.0)
    assert report.bad_hands == 0, (name, report.messages)


def test_every_covered_variant_is_a_target() -> None:
    names = [name for name, _ in targets()]
    assert names[0] == "two_decks" and len(set(names)) == len(names) == 12
    for _, rules in targets():
        assert check_covered(rules) is rules


def test_the_check_can_fail() -> None:
    # The reference plays a first lead with any card, the batch insists on C2: the legal sets
    # differ at the first lead of every hand.
    report = differential(TWO, 4, 4, seed=1,
                          reference_rules=Rules(decks=2, team_play=True, first_lead="any"))
    assert report.bad_hands >= 4
    assert "legal" in report.messages[0]


def test_outputs_match_the_layout(batch: GameBatch) -> None:
    assert batch.observations.shape == (4, obs_size(TWO)) == (4, 1153)
    assert batch.action_masks.shape == (4, TWO.num_actions) == (4, 105)
    no_team = GameBatch(2, Rules(decks=2))
    assert no_team.obs_size == obs_size(Rules(decks=2)) == 1149


@pytest.mark.parametrize("rules, option", [
    ("standard", "decks=1"), ("huapai", "decks=1"), (Rules(players=5), "decks=1"),
])
def test_uncovered_rules_are_refused_by_name(rules: object, option: str) -> None:
    with pytest.raises(ValueError, match=option) as e:
        vp.check_covered(rules)  # type: ignore[arg-type]
    assert "it plays" in str(e.value)


def test_team_reward_needs_teams() -> None:
    with pytest.raises(ValueError, match="team"):
        GameBatch(2, Rules(decks=2), reward_mode="team")


def test_step_before_reset() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        GameBatch(2, TWO).step(np.zeros(2, dtype=np.int64))


@pytest.mark.parametrize("actions, error, text", [
    ([0, 0, 0, 0], TypeError, "numpy array"),
    (np.zeros(4, dtype=np.float64), TypeError, "integer dtype"),
    (np.zeros(5, dtype=np.int64), ValueError, r"shape \(4,\)"),
    (np.zeros((4, 1), dtype=np.int64), ValueError, r"shape \(4,\)"),
])
def test_bad_action_arrays(batch: GameBatch, actions: object, error: type,
                           text: str) -> None:
    with pytest.raises(error, match=text):
        batch.step(actions)  # type: ignore[arg-type]


def test_bad_active(batch: GameBatch) -> None:
    with pytest.raises(ValueError, match="bool array of shape"):
        batch.step(np.zeros(4, dtype=np.int64), active=np.ones(4, dtype=np.int64))


@pytest.mark.parametrize("bad", [105, -1, 1000])
def test_out_of_range_action(batch: GameBatch, bad: int) -> None:
    actions = np.array([batch.legal_actions(i)[0] for i in range(4)], dtype=np.int64)
    actions[2] = bad
    before = batch.observations.copy()
    with pytest.raises(IllegalActionError, match="table 2: .*not an action.*104 DONE"):
        batch.step(actions)
    assert np.array_equal(batch.observations, before)


def test_unsigned_out_of_range_does_not_wrap(batch: GameBatch) -> None:
    actions = np.array([batch.legal_actions(i)[0] for i in range(4)], dtype=np.uint64)
    actions[1] = 2 ** 64 - 1
    with pytest.raises(IllegalActionError, match="table 1"):
        batch.step(actions)


def test_illegal_action_names_the_legal_set_and_changes_nothing(batch: GameBatch) -> None:
    actions = np.array([batch.legal_actions(i)[0] for i in range(4)], dtype=np.int64)
    legal = batch.legal_actions(3)
    actions[3] = next(a for a in range(105) if a not in legal)
    before = (batch.observations.copy(), batch.action_masks.copy(), batch.snapshot())
    with pytest.raises(IllegalActionError) as e:
        batch.step(actions)
    msg = str(e.value)
    assert msg.startswith("table 3: ") and "legal actions: [" in msg
    assert str(batch.illegal_action_error(3, int(actions[3]))) == msg
    assert "no table was changed" in msg
    assert np.array_equal(batch.observations, before[0])
    assert np.array_equal(batch.action_masks, before[1])
    assert np.array_equal(batch.snapshot(), before[2])


def test_pair_lead_needs_two_copies() -> None:
    b = GameBatch(1, Rules(decks=2, declaration="none", first_lead="any"))
    b.reset(0)
    hand = b.deal_of(0)[int(b.current_player[0])]
    single = next(c for c in hand if hand.count(c) == 1)
    pair = action_str(52 + single, 2)
    with pytest.raises(IllegalActionError, match=re.escape(f"{pair} ({52 + single}) (seat ")
                       + ".*does not hold two copies"):
        b.step(np.array([52 + single], dtype=np.int64))


def test_inactive_tables_keep_their_position(batch: GameBatch) -> None:
    active = np.array([True, False, True, False])
    before = batch.observations.copy()
    actions = np.array([batch.legal_actions(i)[0] for i in range(4)], dtype=np.int64)
    actions[1] = 999  # not read
    batch.step(actions, active=active)
    assert np.array_equal(batch.observations[1], before[1])
    assert np.array_equal(batch.observations[3], before[3])
    assert not batch.terminated.any()


def test_sample_legal_picks_by_position(batch: GameBatch) -> None:
    rng = np.random.default_rng(0)
    for _ in range(60):
        u = rng.random(4)
        got = batch.sample_legal(u)
        for i in range(4):
            legal = batch.legal_actions(i)
            assert got[i] == legal[int(u[i] * len(legal))]
            assert batch.action_masks[i].nonzero()[0].tolist() == legal
        batch.step(got)
    with pytest.raises(ValueError, match="float64 array of shape"):
        batch.sample_legal(np.zeros(3))


def test_deals_are_streams_of_valid_two_deck_deals() -> None:
    small, big = GameBatch(3, TWO), GameBatch(6, TWO)
    small.reset(42)
    big.reset(42)
    for t in range(3):
        assert small.deal_of(t) == big.deal_of(t) == deal(42, t, 0, TWO)
    hands = deal(42, 1, 7, TWO)
    assert sorted(c for h in hands for c in h) == sorted(list(range(52)) * 2)
    assert all(len(h) == 26 for h in hands)
    Game.from_hands(hands, TWO)  # the reference accepts it
    assert deal(42, 1, 7, TWO) != deal(42, 1, 8, TWO) != deal(43, 1, 7, TWO)


def test_importing_the_package_does_not_load_numba() -> None:
    code = "import sys, gongzhu_env; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def _played_batch(steps: int, seed: int = 9) -> tuple[GameBatch, list[np.ndarray]]:
    """Return a batch after ``steps`` random steps, with a snapshot taken before each."""
    b = GameBatch(16, "two_decks")
    b.reset(seed)
    rng = np.random.default_rng(seed)
    snaps = []
    for _ in range(steps):
        snaps.append(b.snapshot())
        b.step(b.sample_legal(rng.random(16)))
    return b, snaps


def test_every_reachable_position_restores() -> None:
    b, snaps = _played_batch(260)
    pending = 0
    for snap in snaps:
        b._check_snapshot(snap[:, :-1])  # the columns restore checks (the last is the digest)
        pending += int((snap[:, vp._PEND] >= 0).sum())  # a two-card follow half played
    assert pending > 0  # the checks saw positions between the two cards of a follow


def test_restore_replays_exactly() -> None:
    b, snaps = _played_batch(40)
    snap = b.snapshot()
    rng = np.random.default_rng(1)
    us = [rng.random(16) for _ in range(150)]
    outs = []
    for u in us:
        b.step(b.sample_legal(u))
        outs.append((b.observations.copy(), b.rewards.copy(), b.scores.copy()))
    b.restore(snap)
    assert not b.terminated.any() and not b.rewards.any()
    for u, (obs, rewards, scores) in zip(us, outs, strict=True):
        b.step(b.sample_legal(u))
        assert np.array_equal(b.observations, obs)
        assert np.array_equal(b.rewards, rewards) and np.array_equal(b.scores, scores)


@pytest.mark.parametrize("column, value, name", [
    (vp._CUR, 7, "seat to move"), (vp._TRICK, 60, "trick card 0"),
    (vp._TLEN, 9, "cards in the trick"), (vp._SECOND, 1, "cards that complete it"),
])
def test_damaged_snapshot_is_refused(column: int, value: int, name: str) -> None:
    b, _ = _played_batch(30)
    snap = b.snapshot()
    before = b.observations.copy()
    snap[5, column] = value
    with pytest.raises(ValueError, match=f"table 5, column {column} \\({name}\\)"):
        b.restore(snap)
    assert np.array_equal(b.observations, before)


def test_snapshot_with_a_changed_score_or_hand_is_refused() -> None:
    b, _ = _played_batch(30)
    snap = b.snapshot()
    snap[2, vp._PROV] += 100  # seat 0's provisional score
    with pytest.raises(ValueError, match="table 2, .*score of seat 0"):
        b.restore(snap)
    snap = b.snapshot()
    snap[3, vp._HAND] ^= 1 << 51  # seat 0's hand gains or loses SA
    with pytest.raises(ValueError, match="table 3"):
        b.restore(snap)
    with pytest.raises(ValueError, match="int64 array of shape"):
        b.restore(snap[:4])
