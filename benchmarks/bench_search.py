"""Decision latency of the search agents (``search``, ``pimc``), median and tail, in ms.

Run from the repository root::

    python -m benchmarks.bench_search --specs search,pimc --deals 4 --seed 0
    python -m benchmarks.bench_search --specs search,pimc --rules two_decks --deals 2

The positions are every decision of every seat in ``--deals`` seeded hands played by the
``expert`` at a table of ``--rules`` (the same positions for every spec). Each spec, built fresh
with a fixed seed, decides each position once; the clock covers ``act`` alone. Two rows per
spec: over all decisions (declarations and single legal cards included, as a table sees them)
and over the play decisions with more than one legal card (where a search runs). Torch runs on
one thread, as in the arena's workers. The machine may be shared: compare specs within one run,
and read the load average printed first.
"""

from __future__ import annotations

import argparse
import sys

from benchmarks.report import check_arguments, save_rows, start_one_thread
from gongzhu_env.rules import Rules, rules_value
from training.arena.cli import split_specs
from training.diagnostics.latency import run


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--specs", default="search,pimc", help="comma-separated agent specs")
    p.add_argument("--deals", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rules", default="standard", metavar="NAME|JSON",
                   help="the table's rules: a preset name or a JSON object of options")
    p.add_argument("--json", help="also write the rows to this file")
    args = p.parse_args(argv)
    check_arguments(p, args, {"deals": 10_000})
    try:
        rules = Rules.coerce(rules_value(args.rules))
    except ValueError as e:
        p.error(str(e))
    start_one_thread()
    rows = run(split_specs([args.specs]), args.deals, args.seed, rules)
    save_rows(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
