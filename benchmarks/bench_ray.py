"""The Ray backend against the local one: the same arena numbers, and what it costs.

Run from the repository root (needs the ``[ray]`` extra)::

    python -m benchmarks.bench_ray --deals 500 --candidate expert --opponents random,greedy

The same ``gongzhu eval`` (``training.arena.cli``) runs three times on the same seeded deals:
with the local process pool (``--workers 2``), on a private Ray instance (``--backend ray``,
started by the command itself, start-up included in its wall time) and on a simulated
two-node cluster (``ray.cluster_utils.Cluster``, one CPU a node, joined with ``--address``).
Every Ray process binds to 127.0.0.1. It prints, for each, the wall time and whether every
number of every match (statistics, per-deal differences, every hand's raw scores) equals
the local run's, and the table of the local run. The machine may be shared: compare within
one run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

from training.arena.cli import main as eval_main
from training.cluster import LOOPBACK, local_environment


def _run(args: list[str], out: Path) -> tuple[float, list[dict], str]:
    """Run the arena command; return its wall time, comparable results and printed table."""
    text = io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(text):
        code = eval_main([*args, "--out", str(out), "--no-progress", "--no-plot"])
    elapsed = time.perf_counter() - t0
    if code != 0:
        raise SystemExit(f"gongzhu eval {' '.join(args)} failed with exit code {code}")
    rows = json.loads((out / "eval.json").read_text())["results"]
    for r in rows:
        del r["elapsed_seconds"], r["workers"]
    return elapsed, rows, text.getvalue()


def main(argv: list[str] | None = None) -> int:
    """Run the three backends and print the comparison."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", type=int, default=500)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--candidate", default="expert")
    p.add_argument("--opponents", default="random,greedy")
    a = p.parse_args(argv)
    match = ["--candidate", a.candidate, "--opponents", a.opponents, "--deals", str(a.deals),
             "--seed", str(a.seed)]
    tmp = Path(tempfile.mkdtemp(prefix="bench_ray_"))
    runs = {}
    runs["local, 2 worker processes"] = _run([*match, "--workers", "2"], tmp / "local")
    runs["Ray, private instance (2 CPUs)"] = _run([*match, "--backend", "ray"], tmp / "ray")
    import ray
    from ray.cluster_utils import Cluster

    node = {"num_cpus": 1, "node_ip_address": LOOPBACK, "include_dashboard": False}
    with local_environment():
        cluster = Cluster(initialize_head=True, head_node_args=node)
        cluster.add_node(**node)
    try:
        runs["Ray, simulated 2-node cluster"] = _run(
            [*match, "--backend", "ray", "--address", cluster.address], tmp / "cluster")
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.shutdown()
    base = runs["local, 2 worker processes"][1]
    print(f"{a.deals} deals, seed {a.seed}: {a.candidate} vs {a.opponents}\n")
    print("| backend | wall s | every number equal to local |\n|---|---:|---|")
    for name, (elapsed, rows, _) in runs.items():
        print(f"| {name} | {elapsed:.1f} | {'yes' if rows == base else 'NO'} |")
    print()
    for name, (_, _, table) in runs.items():
        print(f"{name}:\n{table}")
    return 0 if all(rows == base for _, rows, _ in runs.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
