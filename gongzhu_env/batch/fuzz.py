"""Damage batch snapshots at random and count how many ``restore`` accepts (the bar is none).

``restore`` must refuse every snapshot that is not exactly what ``snapshot`` returned: the
checks of each column keep the kernels inside their arrays, and the digest column catches the
changes that still look like a position of play. This module damages snapshots of one-deck
and two-deck batches (every column in turn: one bit flipped, one byte rewritten, the whole
value replaced, a small step up or down, or several columns at once), restores each, and
checks that each is refused with nothing changed. ``tests/gongzhu_env/test_vector_snapshots.py``
runs a few hundred; the full run is::

    python -m gongzhu_env.batch.fuzz --count 9000 --seed 0

which prints the counts of each batch and exits with status 1 if any damaged snapshot was
accepted or a refusal changed the batch.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np

from gongzhu_env.batch import GameBatch
from gongzhu_env.rules import Rules

RULE_SETS: tuple[Rules, ...] = (
    Rules(), Rules.preset("huapai"), Rules.preset("scrofazero"),
    Rules(players=3, first_drawn_exposure=True, hidden_exposure=True, strict_exposure=True),
    Rules(players=6, discard_colour=True, team_play=True),
    Rules(declaration="all", self_capture_double=True, first_drawn_exposure=True),
    Rules.preset("two_decks"), Rules(decks=2, declaration="none", first_lead="any"),
)
"""Rule sets whose snapshots are damaged: the four-seat and the general one-deck kernels, and
two decks."""

KINDS = ("bit", "byte", "value", "step", "several")
"""The kinds of damage, taken in turn."""


def outputs(batch: GameBatch) -> list[np.ndarray]:
    """Everything ``restore`` may change, copied (to prove a refusal changed nothing)."""
    return [batch.snapshot(), batch.observations.copy(), batch.action_masks.copy(),
            batch.current_player.copy(), batch.terminated.copy(), batch.rewards.copy(),
            batch.scores.copy()]


def _positions(batch: GameBatch, rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """Snapshots of ``batch`` after random play: declaring, mid-trick, late and next hands."""
    out = []
    for _ in range(count):
        for _ in range(int(rng.integers(0, 60))):
            batch.step(batch.sample_legal(rng.random(batch.num_tables)))
        out.append(batch.snapshot())
    return out


def damage(snap: np.ndarray, column: int, kind: str, rng: np.random.Generator) -> np.ndarray:
    """Return a copy of ``snap`` with ``column`` of a random table damaged in the way ``kind``.

    Every kind changes the snapshot (a damage that would leave it as it was is drawn again).
    """
    out = snap.copy()
    tables, columns = snap.shape
    while np.array_equal(out, snap):
        table = int(rng.integers(tables))
        if kind == "bit":
            out[table, column] ^= np.int64(1) << np.int64(rng.integers(64))
        elif kind == "byte":
            out[table:table + 1, column:column + 1].view(np.uint8)[
                0, int(rng.integers(8))] = int(rng.integers(256))
        elif kind == "value":
            out[table, column] = rng.integers(-(2**63), 2**63 - 1, dtype=np.int64)
        elif kind == "step":
            out[table, column] += np.int64(rng.choice([-3, -2, -1, 1, 2, 3]))
        else:
            for _ in range(int(rng.integers(2, 5))):
                out[int(rng.integers(tables)), int(rng.integers(columns))] = \
                    rng.integers(-8, 64)
    return out


def corrupt(rules: Rules, count: int, seed: int, tables: int = 4) -> dict[str, int]:
    """Restore ``count`` damaged snapshots of a batch of ``rules``; count refusals and the rest.

    The columns are damaged in turn (the digest column included), so every field is hit once
    ``count`` reaches the width of a row. Raises ``AssertionError`` if a refusal changed the
    batch; an accepted snapshot is counted (``accepted``) and the batch put back.
    """
    rng = np.random.default_rng(seed)
    batch = GameBatch(tables, rules)
    batch.reset(seed)
    positions = _positions(batch, rng, 6)
    columns = positions[0].shape[1]
    counts = {"refused": 0, "accepted": 0}
    for k in range(count):
        good = positions[k % len(positions)]
        bad = damage(good, k % columns, KINDS[(k // columns) % len(KINDS)], rng)
        batch.restore(good)
        counts["refused" if refused(batch, bad) else "accepted"] += 1
    return counts


def refused(batch: GameBatch, snap: np.ndarray) -> bool:
    """Restore ``snap``; return True if it was refused, False if ``batch`` now holds it.

    Raises ``AssertionError`` if a refusal changed anything ``restore`` may change.
    """
    before = outputs(batch)
    try:
        batch.restore(snap)
    except ValueError:
        after = outputs(batch)
        assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True)), \
            f"{batch!r}: a refused snapshot changed the batch"
        return True
    return False


def _name(rules: Rules) -> str:
    """Name a rule set by its deck and seat counts and the options it changes."""
    default = Rules()
    changed = [f"{k}={v!r}" for k, v in rules.to_dict().items()
               if k not in ("decks", "players") and v != getattr(default, k)]
    return ", ".join([f"decks={rules.decks}", f"players={rules.players}", *changed])


def run(count: int, seed: int, rule_sets: Sequence[Rules] = RULE_SETS) -> dict[str, dict[str, int]]:
    """Damage ``count`` snapshots spread evenly over ``rule_sets``; counts by rule set."""
    per = -(-count // len(rule_sets))
    return {_name(r): corrupt(r, per, seed + i) for i, r in enumerate(rule_sets)}


def main(argv: list[str] | None = None) -> int:
    """Run the damage check from the command line; status 1 if any snapshot was accepted."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--count", type=int, default=9000,
                   help="damaged snapshots in all, spread over the rule sets (default 9000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the play and of the damage")
    args = p.parse_args(argv)
    results = run(args.count, args.seed)
    for name, c in results.items():
        print(f"{c['refused'] + c['accepted']:6d} damaged, {c['accepted']:4d} accepted: {name}")
    refused = sum(c["refused"] for c in results.values())
    accepted = sum(c["accepted"] for c in results.values())
    print(f"{refused + accepted} damaged snapshots, {accepted} accepted")
    return 1 if accepted else 0


if __name__ == "__main__":
    sys.exit(main())
