"""Decision quality of agents on the same positions, judged in the real deal.

Run from the repository root::

    python -m benchmarks.bench_decisions --specs search,pimc,policy:pretrained --hands 40

Whole-game matches need thousands of deals to separate two close search settings, because the
luck of the cards and of every later decision dwarfs one decision's worth. This benchmark
takes the later luck out. Hands are played by ``--players`` at every seat (seeded); every
play decision with more than one legal card (every ``--every``-th) is a position. Each spec
decides each position once. Every legal card of the position is then *judged*: played in the
real deal (the cards the deciding seat could not see are where they really are) and the hand
finished by a ``--judges`` agent at every seat, each from its own view, so the judge does not
cheat either. A card's worth is the deciding seat's zero-sum result in points (its score minus
the others' average); a choice's regret is the best card's worth minus its own.

Two different judges guard against rewarding a spec for thinking like its judge (``pimc``
values cards by ``expert`` rollouts; ``search`` by the network). Reported per spec and judge:
the mean regret, and against the first spec the mean paired difference with its standard
error over positions (positive: the first spec's choices were worth more). Agreement is the
share of positions where a spec chose the first spec's card (or an equivalent one).

This measures single decisions against a fixed continuation, not play strength; use it to
compare settings of one search cheaply, then confirm in the arena
(``python -m training eval``).
"""

from __future__ import annotations

import argparse
import sys

from benchmarks.report import check_arguments, save_rows, start_one_thread
from training.arena.cli import split_specs
from training.diagnostics.decisions import positions, run


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--specs", default="search,pimc,policy:pretrained",
                   help="comma-separated agent specs to compare (the first is the reference)")
    p.add_argument("--judges", default="expert,policy:pretrained",
                   help="comma-separated agent specs that finish the hands")
    p.add_argument("--players", default="pimc", help="agent spec playing the positions' hands")
    p.add_argument("--hands", type=int, default=40)
    p.add_argument("--every", type=int, default=2, help="keep every k-th position")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="also write the rows to this file")
    args = p.parse_args(argv)
    check_arguments(p, args, {"hands": 10_000, "every": 1_000})
    start_one_thread()
    pos = positions(args.players, args.hands, args.seed, args.every)
    rows = run(split_specs([args.specs]), split_specs([args.judges]), pos, args.seed)
    for r in rows:
        print(f"{r['spec']:>36}  judge {r['judge']:>18}  {r['positions']} positions  regret "
              f"{r['regret']:7.2f}  first-spec {r['first_minus_spec']:+7.2f} ± {r['se']:.2f}  "
              f"agreement {r['agreement']:.3f}", flush=True)
    save_rows(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
