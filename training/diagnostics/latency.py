"""Decision latency of agents, median and tail, in ms, on the same positions for every spec.

The positions are every decision of every seat in seeded hands played by the ``expert``; each
spec, built fresh with a fixed seed (after one warm-up decision), decides each position once and
the clock covers ``act`` alone. Two rows per spec: over all decisions (declarations and single
legal cards included, as a table sees them) and over the play decisions with more than one legal
card (where a search runs). ``benchmarks/bench_search.py`` is the command around it.
"""

from __future__ import annotations

import time

import numpy as np

from agents import make_agent
from gongzhu_env.rules import Rules
from gongzhu_env.view import PlayerView
from training.diagnostics.positions import played_positions


def positions(deals: int, seed: int, rules: Rules | None = None) -> list[PlayerView]:
    """Every decision's view in ``deals`` hands of expert play, dealt from ``seed``."""
    return [g.view(g.current_player)
            for g in played_positions("expert", deals, seed, searched_only=False, rules=rules)]


def summary(ms: list[float]) -> dict[str, float]:
    """Summarise latencies: the count, median, mean, 90th percentile and maximum (ms)."""
    a = np.array(ms)
    return {"decisions": len(a), "median_ms": round(float(np.median(a)), 2),
            "mean_ms": round(float(a.mean()), 2),
            "p90_ms": round(float(np.percentile(a, 90)), 2), "max_ms": round(float(a.max()), 2)}


def run(specs: list[str], deals: int, seed: int, rules: Rules | None = None) -> list[dict]:
    """Time every spec on the same positions; two rows each (all decisions, real choices).

    Each spec decides once before the clock starts (a network loads, the first forward pass
    compiles), then a fresh agent with the same seed decides every position.
    """
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
