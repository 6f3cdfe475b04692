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
import time

import numpy as np

from agents import make_agent
from benchmarks.positions import played_positions
from benchmarks.report import check_arguments, save_rows, start_one_thread
from gongzhu_env.rules import Rules, rules_value
from gongzhu_env.view import PlayerView
from training.arena.cli import split_specs


def positions(deals: int, seed: int, rules: Rules | None = None) -> list[PlayerView]:
    """Every decision's view in ``deals`` hands of expert play, dealt from ``seed``."""
    return [g.view(g.current_player)
            for g in played_positions("expert", deals, seed, searched_only=False, rules=rules)]


def summary(ms: list[float]) -> dict[str, float]:
    a = np.array(ms)
    return {"decisions": len(a), "median_ms": round(float(np.median(a)), 2),
            "mean_ms": round(float(a.mean()), 2),
            "p90_ms": round(float(np.percentile(a, 90)), 2), "max_ms": round(float(a.max()), 2)}


def run(specs: list[str], deals: int, seed: int, rules: Rules | None = None) -> list[dict]:
    views = positions(deals, seed, rules)
    rules = views[0].rules
    rows = []
    for spec in specs:
        agent = make_agent(spec, seed=seed, rules=rules)
        agent.act(views[len(views) // 2])  # warm-up: network load, first forward pass
        agent = make_agent(spec, seed=seed, rules=rules)
        every, searched = [], []
        for view in views:
            t0 = time.perf_counter()
            agent.act(view)
            dt = (time.perf_counter() - t0) * 1e3
            every.append(dt)
            if view.phase == "play" and len(view.legal_actions) > 1:
                searched.append(dt)
        for what, ms in (("all", every), ("choice", searched)):
            row = {"spec": spec, "rules": rules.to_dict(), "positions": what, **summary(ms)}
            rows.append(row)
            print(f"{spec:>40}  {what:>6}: {row['decisions']:4d} decisions  median "
                  f"{row['median_ms']:7.2f} ms  mean {row['mean_ms']:7.2f}  p90 "
                  f"{row['p90_ms']:7.2f}  max {row['max_ms']:7.2f}", flush=True)
    return rows


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
