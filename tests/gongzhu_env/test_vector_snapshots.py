"""``GameBatch.restore`` takes only positions its kernels can play from.

The kernels index their arrays with the numbers of a position (the seat to move, the cards of
the trick, the score), so a damaged snapshot restored as it is would make them read and write
outside their arrays: a crash of the interpreter, not an exception. ``restore`` checks every
table first. The fuzz run below damages snapshots column by column and asserts that each is
either refused with a ``ValueError`` that leaves the batch untouched, or accepted and played
on without trouble. It runs in a child process, so that a crash fails the test instead of
ending the test session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gongzhu_env import Rules
from gongzhu_env.batch import GameBatch
from gongzhu_env.batch.differential import PRESET_NAMES, covered_combinations
from gongzhu_env.batch.fuzz import RULE_SETS, corrupt, outputs, refused
from gongzhu_env.batch.one_deck import _column_names

GENERAL_RULES = (
    Rules(players=6, discard_colour=True, team_play=True),
    Rules(players=3, first_drawn_exposure=True, hidden_exposure=True, strict_exposure=True),
    Rules(declaration="all", self_capture_double=True, first_drawn_exposure=True),
)
"""Rule sets the general kernels play (other table sizes, the further options)."""

ROOT = Path(__file__).resolve().parents[2]
FUZZ_ROUNDS = int(os.environ.get("GONGZHU_SNAPSHOT_FUZZ_ROUNDS", "1"))
"""Size knob of the fuzz run: each round damages every column of fresh positions again."""


def _play_on(batch: GameBatch, rng: np.random.Generator, steps: int) -> None:
    """Step random legal actions and check that every output stays well formed."""
    for _ in range(steps):
        assert batch.action_masks.any(axis=1).all(), "a table with no legal action"
        assert ((batch.current_player >= 0)
                & (batch.current_player < batch.num_seats)).all()
        obs = batch.observations
        assert ((obs >= 0) & (obs <= 1)).all(), "an observation outside [0, 1]"
        batch.step(batch.sample_legal(rng.random(batch.num_tables)))
    batch.restore(batch.snapshot())  # play keeps a position restore accepts


def _damaged(value: int, rng: np.random.Generator) -> list[int]:
    """Values to put in a column that held ``value``: edges, near misses, random bits."""
    return [-1, -(2**63), 2**63 - 1, 1 << 52, 1 << 53, 100, 52, 13, 5, 4, 3, 1, 0,
            value + 1, value - 1, value ^ (1 << int(rng.integers(52))),
            value ^ (1 << int(rng.integers(52, 63))),
            int(rng.integers(-(2**63), 2**63 - 1))]


def fuzz(rounds: int, seed: int = 0) -> dict[str, int]:
    """Damage snapshots of every preset, one column (then several) at a time; count outcomes.

    Raises ``AssertionError`` on a refusal that changed the batch, or on an accepted snapshot
    whose play goes wrong; a crash ends the process.
    """
    rng = np.random.default_rng(seed)
    counts = {"refused": 0, "accepted": 0}
    for _ in range(rounds):
        for name in (*PRESET_NAMES, *GENERAL_RULES):
            batch = GameBatch(3, name)
            batch.reset(int(rng.integers(2**32)))
            positions = []
            for steps in (0, 9, 22, 40):  # declaring, first tricks, mid-trick, later tricks
                while len(positions) <= steps:
                    positions.append(batch.snapshot())
                    batch.step(batch.sample_legal(rng.random(3)))
            for position in (positions[0], positions[9], positions[22], positions[40]):
                cases = []
                ncol = position.shape[1]
                for column in range(ncol):
                    table = int(rng.integers(3))
                    old = int(position[table, column])
                    cases += [[(table, column, v)] for v in _damaged(old, rng) if v != old]
                for _ in range(20):  # several columns at once
                    cases.append([(int(rng.integers(3)), int(rng.integers(ncol)),
                                   int(rng.integers(-8, 60))) for _ in range(3)])
                for case in cases:
                    batch.restore(position)
                    snap = position.copy()
                    for table, column, v in case:
                        snap[table, column] = np.int64(v)
                    if refused(batch, snap):
                        counts["refused"] += 1
                        continue
                    counts["accepted"] += 1
                    _play_on(batch, rng, 40)
    return counts


def test_damaged_snapshots_are_refused_or_play_on_and_never_crash() -> None:
    code = ("import json; from tests.gongzhu_env.test_vector_snapshots import fuzz; "
            f"print(json.dumps(fuzz({FUZZ_ROUNDS})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=1800)
    assert out.returncode == 0, (f"the fuzz run ended with status {out.returncode} (a negative "
                                 f"status is a signal: -11 a segmentation fault)\n"
                                 f"{out.stdout[-2000:]}{out.stderr[-4000:]}")
    counts = json.loads(out.stdout.strip().splitlines()[-1])
    # Every damage is caught: the column checks, or else the digest.
    assert counts["accepted"] == 0 < counts["refused"], counts


@pytest.mark.parametrize("rules", [*covered_combinations(), *GENERAL_RULES], ids=str)
def test_every_position_of_play_is_accepted(rules) -> None:
    batch = GameBatch(4, rules)
    batch.reset(7)
    rng = np.random.default_rng(7)
    for _ in range(140):  # more than two hands a table: hand ends and fresh deals included
        snap = batch.snapshot()
        batch.restore(snap)
        assert np.array_equal(batch.snapshot(), snap)
        batch.step(batch.sample_legal(rng.random(4)))
    assert min(batch.hands_started(i) for i in range(4)) >= 2


def _mid_hand(rules: str = "standard") -> GameBatch:
    batch = GameBatch(3, rules)
    batch.reset(11)
    rng = np.random.default_rng(11)
    for _ in range(10):
        batch.step(batch.sample_legal(rng.random(3)))
    return batch


def test_the_crash_of_the_report_is_refused_naming_table_and_column() -> None:
    batch = GameBatch(4)
    batch.reset(1)
    snap = batch.snapshot()
    snap[:, 4] = 100
    before = outputs(batch)
    with pytest.raises(ValueError, match=r"table 0, column 4 \(cards in the trick\) holds 100; "
                                         r"expected 0\.\.3"):
        batch.restore(snap)
    assert all(np.array_equal(a, b) for a, b in zip(before, outputs(batch), strict=True))


@pytest.mark.parametrize("column, value, words", [
    (1, 7, "seat to move"),
    (16 + 2, 0, "hand of seat 2"),  # cards vanish from a hand
    (40, (1 << 13) - 1, "deal of seat 0"),  # all clubs: a deal that overlaps another
    (36 + 3, 555, "score of seat 3"),
    (10, 1 << 52, "legal actions"),  # DONE while playing
    (12 + 3, 52, "trick card 3"),
])
def test_an_inconsistent_table_is_refused_by_its_column(column, value, words) -> None:
    batch = _mid_hand()
    snap = batch.snapshot()
    snap[2, column] = value
    with pytest.raises(ValueError, match=rf"table 2, column {column} \({words}\)"):
        batch.restore(snap)
    assert _column_names(4)[column] == words


def test_a_position_of_other_rules_is_refused() -> None:
    # A table declaring cannot be restored into a batch whose rules have no declaration.
    free = GameBatch(2, "standard")
    free.reset(3)
    none = GameBatch(2, "scrofazero")
    none.reset(3)
    with pytest.raises(ValueError, match=r"column 0 \(phase\).*no declaration phase"):
        none.restore(free.snapshot())


@pytest.mark.parametrize("rules", RULE_SETS, ids=str)
def test_every_randomly_damaged_snapshot_is_refused(rules: Rules) -> None:
    # Bits, bytes, whole values and small steps in every column, and several at once, at
    # positions from the deal to later hands: none is restored (the full run of 9,000 is
    # ``python -m gongzhu_env.batch.fuzz``).
    counts = corrupt(rules, 160, seed=5)
    assert counts == {"refused": 160, "accepted": 0}


@pytest.mark.parametrize("rules", ["standard", Rules(players=6), "two_decks"], ids=str)
def test_a_change_that_looks_like_play_is_refused_by_the_digest(rules) -> None:
    batch = GameBatch(2, rules)
    batch.reset(4)
    snap = batch.snapshot()
    dealt = batch._dealt_column  # the count of hands dealt: any count is a position of play
    snap[1, dealt] += 1
    with pytest.raises(ValueError, match=r"table 1, column \d+ \(digest\) does not match"):
        batch.restore(snap)
    batch.restore(batch.snapshot())  # an unchanged one is taken


def test_a_snapshot_of_other_rules_that_passes_the_columns_is_refused_by_the_digest() -> None:
    # Settlement options change no position, so only the digest tells the two batches apart.
    zero_sum = GameBatch(2, "standard")
    zero_sum.reset(3)
    coins = GameBatch(2, Rules(settlement="yuanbao"))
    coins.reset(3)
    with pytest.raises(ValueError, match="digest"):
        coins.restore(zero_sum.snapshot())


@pytest.mark.parametrize("rules", ["standard", Rules(players=5), "two_decks"], ids=str)
@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), 1.0, -1e-9, 7.5])
def test_sample_legal_refuses_uniforms_outside_zero_to_one(rules, value: float) -> None:
    batch = GameBatch(3, rules)
    batch.reset(1)
    uniforms = np.array([0.0, value, 0.999], dtype=np.float64)
    with pytest.raises(ValueError, match=r"\[0, 1\).*table 1 has"):
        batch.sample_legal(uniforms)
    uniforms[1] = 0.5
    batch.step(batch.sample_legal(uniforms))  # the same call with a value in range plays
