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

Matches (RULES.md section 5): ``--matches`` whole matches per match rule set
(``match_end`` "loss" and "either" crossed with ``next_leader`` "pig_taker" and
"biggest_loser", one deck, two decks and each extra table size, plus a short threshold and
positive hearts, which make the ends on the high side frequent). Each is checked by
``gongzhu_env.checks.check_matches``, which works out the totals, the hand that ends the match,
each later hand's leader and the result on its own. ``--matches 0`` leaves them out, e.g.
``python -m benchmarks.check_presets --games 0 --random-combinations 0
--two-deck-combinations 0 --players none --matches 200``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from gongzhu_env import Rules
from gongzhu_env.checks import check_matches, check_rules, random_rules
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
    parser.add_argument("--matches", type=int, default=40,
                        help="whole matches per match rule set (0: none)")
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
    if args.matches > 0:
        failed |= _check_match_targets(args)
    return 1 if failed else 0


def _match_targets(players: tuple[int, ...]) -> list[tuple[str, Rules]]:
    """The match rule sets: both options crossed at one deck, then two decks and other sizes."""
    out = []
    for end in ("loss", "either"):
        for lead in ("pig_taker", "biggest_loser"):
            out.append((f"match {end}/{lead}", Rules(match_end=end, next_leader=lead)))
    out.append(("match short", Rules(match_end="either", next_leader="biggest_loser",
                                     match_threshold=-200)))
    # Positive hearts: totals climb, so matches end on the high side at the usual threshold.
    out.append(("match positive hearts", Rules(match_end="either", next_leader="biggest_loser",
                                               hearts_table="positive")))
    for end, lead in (("loss", "pig_taker"), ("either", "biggest_loser")):
        out.append((f"match 2 decks {end}/{lead}",
                    Rules(decks=2, team_play=True, match_end=end, next_leader=lead)))
    for n in players:
        out.append((f"match {n} seats",
                    Rules(players=n, match_end="either", next_leader="biggest_loser")))
    return out


def _check_match_targets(args: argparse.Namespace) -> bool:
    """Check ``--matches`` matches per match rule set; return whether any check failed."""
    failed = False
    totals = [0, 0, 0, 0, 0]
    for index, (name, rules) in enumerate(_match_targets(args.players)):
        if args.decks != "all" and rules.decks != int(args.decks):
            continue
        t = time.perf_counter()
        try:
            done = check_matches(rules, args.matches, [args.seed, 300 + index])
        except AssertionError as e:
            failed = True
            print(f"{name:>34}: FAILED: {e}")
            continue
        totals = [a + b for a, b in zip(totals, done, strict=True)]
        print(f"{name:>34}: {done.matches} matches, {done.hands} hands, "
              f"{time.perf_counter() - t:.1f}s, ok; ended at +threshold {done.ended_high}, "
              f"past both {done.ended_both}, tied leads {done.tied_leads}")
    print(f"matches checked without a violation: {totals[0]} ({totals[1]} hands); ended at "
          f"+threshold {totals[2]}, past both thresholds {totals[3]}, tie-broken leads "
          f"{totals[4]}")
    return failed


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
