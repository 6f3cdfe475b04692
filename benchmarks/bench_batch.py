"""Decisions a second of the batched engine alone, best of several runs: for A/B comparisons.

``bench_env`` reports the median of a few short runs beside the scalar engines; on a shared
machine a neighbour's burst moves a median. This measures only ``GameBatch.step`` with
``sample_legal`` at one batch size, ``--runs`` times ``--steps`` steps each, and keeps the best
run by CPU time: the figure the code can reach, which is what an A/B between two commits (run
from a ``git worktree`` of each, alternating) compares. Example::

    python -m benchmarks.bench_batch --specs 4:float32 4:uint8 6:uint8 2d:float32

A spec is ``SEATS:DTYPE`` (``2d`` for the two-deck preset).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from gongzhu_env.batch import GameBatch
from gongzhu_env.rules import Rules

DTYPES = {"float32": np.float32, "uint8": np.uint8}


def parse_spec(spec: str) -> tuple[Rules, type]:
    """Read ``SEATS:DTYPE`` (``4:float32``, ``2d:uint8``) into rules and an observation dtype."""
    seats, _, dtype = spec.partition(":")
    if dtype not in DTYPES or not (seats == "2d" or seats.isdigit()):
        raise argparse.ArgumentTypeError(
            f"a spec is SEATS:DTYPE with SEATS 3..8 or 2d and DTYPE float32 or uint8; got "
            f"{spec!r}")
    try:
        rules = Rules.preset("two_decks") if seats == "2d" else Rules(players=int(seats))
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"{spec!r}: {e}") from None
    return rules, DTYPES[dtype]


def best_rate(rules: Rules, dtype: type, tables: int, steps: int, runs: int,
              seed: int) -> float:
    """Return the best decisions/s (CPU time) of ``runs`` runs of ``steps`` steps each."""
    batch = GameBatch(tables, rules, obs_dtype=dtype)
    batch.reset(seed)
    uniforms = np.random.default_rng(seed).random((steps, tables))
    batch.step(batch.sample_legal(uniforms[0]))  # compiles (or loads) the kernels
    best = 0.0
    for _ in range(runs):
        t0 = time.process_time()
        for k in range(steps):
            batch.step(batch.sample_legal(uniforms[k]))
        best = max(best, steps * tables / (time.process_time() - t0))
    return best


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--specs", nargs="+", type=parse_spec, metavar="SEATS:DTYPE",
                   default=[parse_spec("4:float32")])
    p.add_argument("--tables", type=int, default=1024)
    p.add_argument("--steps", type=int, default=1500)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    for name, value, top in (("--tables", args.tables, 1 << 16), ("--steps", args.steps, 10**6),
                             ("--runs", args.runs, 100)):
        if not 1 <= value <= top:
            p.error(f"{name} must be an integer 1..{top:,}; got {value}")
    for rules, dtype in args.specs:
        rate = best_rate(rules, dtype, args.tables, args.steps, args.runs, args.seed)
        table = "two decks" if rules.decks == 2 else f"{rules.players} seats"
        print(f"{table:>9} {np.dtype(dtype).name:>7}: {rate:,.0f} decisions/s "
              f"(best of {args.runs} x {args.steps} steps, {args.tables} tables)")


if __name__ == "__main__":
    main()
