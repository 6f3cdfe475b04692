"""Learner decisions per second of ``SingleSeatVectorEnv`` at one deck and at two, in one run.

Run from the repository root::

    python -m benchmarks.bench_vector_env --envs 256 --steps 300 --repeats 5

Each contender is one ``SingleSeatVectorEnv(--envs, ["random"], rules=...)`` (``--rules``,
default ``standard`` and ``two_decks``): ``GameBatch``, one deck or two.
A timed repeat makes ``--steps`` calls of ``step`` after a reset; each call is one decision of
the learner at every table, with a uniformly random legal action drawn by the batch's compiled
``sample_legal`` (the same cheap draw at both decks, so that the env is what is timed), and
the random opponents' decisions happen inside it. Decisions/s counts learner decisions
(``--steps x --envs`` per repeat); with a seat drawn at random every hand, the opponents make
about three times as many, in the same proportion at both decks, so the ratio is the same for
all seats' decisions.

Why a ratio: the issue's bar is that a two-deck decision through the env costs no more than
twice a standard one. The contenders run ``--repeats`` times, interleaved (standard, two
decks, standard, ...), after a warm-up that compiles the kernels, and the table shows the
median of each and its cost per decision relative to the first rule set. The machine may be
shared: compare the ratio within one run, not absolute numbers across runs. ``--clock cpu``
times with this process's CPU time, steadier on a loaded machine.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from gongzhu_env.vector_env import SingleSeatVectorEnv

_CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


def run_once(env: SingleSeatVectorEnv, steps: int, seed: int,
             clock: Callable[[], float]) -> float:
    """Return the learner decisions/s of ``steps`` random legal steps after ``reset(seed)``."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    n = env.num_envs
    uniforms = np.empty(n)
    actions = np.empty(n, dtype=np.int64)
    start = clock()
    for _ in range(steps):
        rng.random(out=uniforms)
        env.batch.sample_legal(uniforms, out=actions)  # every table waits for its learner
        env.step(actions)
    return steps * n / (clock() - start)


def main(argv: list[str] | None = None) -> int:
    """Time each rule set's env, interleaved, and print the medians and the cost ratio."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--envs", type=int, default=256, help="tables per env (default 256)")
    p.add_argument("--steps", type=int, default=300, help="learner steps per repeat")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--rules", nargs="+", default=["standard", "two_decks"])
    p.add_argument("--clock", choices=sorted(_CLOCKS), default="wall")
    args = p.parse_args(argv)
    clock = _CLOCKS[args.clock]
    envs = {r: SingleSeatVectorEnv(args.envs, ["random"], rules=r) for r in args.rules}
    for env in envs.values():  # compile and warm the kernels outside the timed region
        run_once(env, 20, 0, clock)
    rates: dict[str, list[float]] = {r: [] for r in args.rules}
    for k in range(args.repeats):
        for r, env in envs.items():
            rates[r].append(run_once(env, args.steps, 1 + k, clock))
    base = statistics.median(rates[args.rules[0]])
    print(f"SingleSeatVectorEnv, {args.envs} tables, random opponents, {args.steps} learner "
          f"steps x {args.repeats} repeats (interleaved), {args.clock} clock")
    print(f"{'rules':<12} {'actions':>7} {'obs':>5} {'decisions/s (median)':>21} "
          f"{'min':>10} {'max':>10} {'cost/decision':>14}")
    for r, env in envs.items():
        med = statistics.median(rates[r])
        print(f"{r:<12} {env.num_actions:>7} {env.batch.obs_size:>5} {med:>21,.0f} "
              f"{min(rates[r]):>10,.0f} {max(rates[r]):>10,.0f} {base / med:>13.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
