"""Invariant check of many random hands under every rule preset (issue 6's 2,000-game bar).

Run: ``python -m benchmarks.check_presets --games 2000 --seed 0``. Each hand is played with
seeded uniformly random legal actions; after every step the observation of the seat to move is
checked against the engine's legal set, and each finished hand against the facts of RULES.md
that its public record lets one verify. The checks are ``gongzhu_env.checks``, which
``tests/gongzhu_env/test_checks.py`` runs on fewer games. Exit status 1 if any invariant fails.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from gongzhu_env import Rules
from gongzhu_env.checks import check_rules, random_rules
from gongzhu_env.rules import PRESETS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="hands per preset")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--random-combinations", type=int, default=20,
                        help="also check this many random valid option combinations")
    args = parser.parse_args(argv)
    failed = False
    targets = [(name, Rules.preset(name), args.games) for name in PRESETS]
    rng = np.random.default_rng(args.seed)
    for i in range(args.random_combinations):
        targets.append((f"random#{i}", random_rules(rng), max(1, args.games // 20)))
    for name, rules, n in targets:
        t = time.perf_counter()
        try:
            check_rules(rules, n, args.seed)
            status = "ok"
        except AssertionError as e:
            failed = True
            status = f"FAILED: {e}"
        print(f"{name:>14}: {n} hands, {time.perf_counter() - t:.1f}s, {status}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
