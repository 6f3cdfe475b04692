"""Invariant check of many random hands under every rule preset, one deck and two.

Run: ``python -m benchmarks.check_presets --games 2000 --seed 0``. Each hand is played with
seeded uniformly random legal actions; after every step the observation of the seat to move is
checked against the engine's legal set, and each finished hand against the facts of RULES.md
that its public record lets one verify. The checks are ``gongzhu_env.checks``, which
``tests/gongzhu_env/test_checks.py`` runs on fewer games. Exit status 1 if any invariant fails.

Besides the presets (``"two_decks"`` among them) it checks random valid option combinations:
``--random-combinations`` drawn over every option, and ``--two-deck-combinations`` drawn among
the options two decks allow (``random_rules(rng, decks=2)``), each for ``--combination-games``
hands. ``--decks 2`` runs only the two-deck targets; the last line counts the hands checked
by deck count (the two-deck bar of issue 15 is 10,000 hands without a violation), e.g.
``python -m benchmarks.check_presets --decks 2 --games 5000 --two-deck-combinations 10
--combination-games 500``.

Other table sizes (RULES.md 6.14): ``--players 3,5,6,7,8`` (the default) adds the standard rules
at each size for ``--games`` hands and ``--size-combinations`` random valid combinations per
size; the last line also counts hands per table size (the bar of issue 16 is 2,000 per size),
e.g. ``python -m benchmarks.check_presets --decks 1 --random-combinations 0 --games 1500
--size-combinations 5 --combination-games 100``. ``--players none`` leaves them out.
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
    parser.add_argument("--two-deck-combinations", type=int, default=10,
                        help="also check this many random valid two-deck option combinations")
    parser.add_argument("--combination-games", type=int, default=None,
                        help="hands per random combination (default: --games / 20)")
    parser.add_argument("--decks", choices=("1", "2", "all"), default="all",
                        help="check only the one-deck or only the two-deck targets")
    parser.add_argument("--players", type=_sizes, default=(3, 5, 6, 7, 8),
                        help="table sizes besides four to check, e.g. 3,5 (or none)")
    parser.add_argument("--size-combinations", type=int, default=5,
                        help="random valid option combinations per extra table size")
    args = parser.parse_args(argv)
    per_combination = args.combination_games or max(1, args.games // 20)
    targets = [(name, Rules.preset(name), args.games) for name in PRESETS]
    rng = np.random.default_rng(args.seed)
    for i in range(args.random_combinations):
        targets.append((f"random#{i}", random_rules(rng), per_combination))
    rng2 = np.random.default_rng([args.seed, 2])
    for i in range(args.two_deck_combinations):
        targets.append((f"two-deck#{i}", random_rules(rng2, decks=2), per_combination))
    for n in args.players:
        targets.append((f"players={n}", Rules(players=n), args.games))
        rng_n = np.random.default_rng([args.seed, 100 + n])
        for i in range(args.size_combinations):
            targets.append((f"{n}-seat#{i}", random_rules(rng_n, decks=1, players=n),
                            per_combination))
    if args.decks != "all":
        targets = [t for t in targets if t[1].decks == int(args.decks)]
    failed = False
    checked = {1: 0, 2: 0}
    by_size = dict.fromkeys(sorted({4, *args.players}), 0)
    for index, (name, rules, n) in enumerate(targets):
        t = time.perf_counter()
        # Presets deal from --seed; each random combination from its own seed, so that two
        # draws of the same options still check different hands.
        seed = args.seed if name in PRESETS else args.seed + 1 + index
        try:
            check_rules(rules, n, seed)
            status = "ok"
            checked[rules.decks] += n
            by_size[rules.players] += n
        except AssertionError as e:
            failed = True
            status = f"FAILED: {e}"
        shown = "" if name in PRESETS or name.startswith("players=") \
            else f"  {_differences(rules)}"
        print(f"{name:>14}: {n} hands, {time.perf_counter() - t:.1f}s, {status}{shown}")
    print(f"hands checked without a violation: {checked[1]} one-deck, {checked[2]} two-deck")
    if len(by_size) > 1:
        print("by table size: " + ", ".join(f"{k} players {v}" for k, v in by_size.items()))
    return 1 if failed else 0


def _sizes(text: str) -> tuple[int, ...]:
    """Read ``--players``: table sizes as ``3,5,8``, or ``none``."""
    if text.strip().lower() == "none":
        return ()
    try:
        sizes = tuple(int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected sizes like 3,5,8 or 'none'; got {text!r}") from None
    bad = [n for n in sizes if not 3 <= n <= 8 or n == 4]
    if bad:
        raise argparse.ArgumentTypeError(f"table sizes must be 3, 5, 6, 7 or 8 (four is always "
                                         f"checked); got {bad}")
    return sizes


def _differences(rules: Rules) -> str:
    """The options of ``rules`` that differ from the defaults of its deck count."""
    base = Rules(decks=rules.decks).to_dict()
    return " ".join(f"{k}={v!r}" for k, v in rules.to_dict().items() if base[k] != v) or "-"


if __name__ == "__main__":
    sys.exit(main())
