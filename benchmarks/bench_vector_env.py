"""Learner decisions per second of ``SingleSeatVectorEnv`` by table and observation dtype.

Run from the repository root::

    python -m benchmarks.bench_vector_env --envs 256 --steps 300 --repeats 5
    python -m benchmarks.bench_vector_env --rules standard '{"players": 6}' two_decks \
        --obs-dtype float32 uint8

Each contender is one ``SingleSeatVectorEnv(--envs, ["random"], rules=..., obs_dtype=...)``
for every ``--rules`` (a preset name or rule options as JSON; default ``standard``, six seats
and ``two_decks``) and every ``--obs-dtype`` (default ``float32`` and ``uint8``, the compact
observations: one byte a value instead of four): ``GameBatch``, one deck or two.
A timed repeat makes ``--steps`` calls of ``step`` after a reset; each call is one decision of
the learner at every table, with a uniformly random legal action drawn by the batch's compiled
``sample_legal`` (the same cheap draw at both decks, so that the env is what is timed), and
the random opponents' decisions happen inside it. Decisions/s counts learner decisions
(``--steps x --envs`` per repeat); with a seat drawn at random every hand, the opponents make
about three times as many, in the same proportion at both decks, so the ratio is the same for
all seats' decisions.

Why ratios: one bar is that a two-deck decision through the env costs no more than twice a
standard one; another, that compact observations are at least as fast as float32 ones. The
contenders run ``--repeats`` times, interleaved (every contender once, then again), after a
warm-up that compiles the kernels, and the table shows the median of each, its cost per
decision relative to the first rule set's with the same dtype, and its speed relative to the
first dtype's of the same rules. The machine may be shared: compare ratios within one run, not
absolute numbers across runs. ``--clock cpu`` times with this process's CPU time, steadier on
a loaded machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from gongzhu_env.rules import Rules
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


def parse_rules(text: str) -> Rules:
    """Read ``--rules``: a preset name, or rule options as a JSON object."""
    try:
        value: Any = json.loads(text) if text.lstrip().startswith("{") else text
        return Rules.coerce(value)
    except (ValueError, TypeError) as e:
        raise argparse.ArgumentTypeError(f"--rules {text!r}: {e}") from None


def label(text: str, rules: Rules) -> str:
    """A short name for a contender's rules: the preset, or its seats and decks."""
    if not text.lstrip().startswith("{"):
        return text
    return f"{rules.players} seats" + (", 2 decks" if rules.decks == 2 else "")


def main(argv: list[str] | None = None) -> int:
    """Time every contender, interleaved, and print the medians and the ratios."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--envs", type=int, default=256, help="tables per env (default 256)")
    p.add_argument("--steps", type=int, default=300, help="learner steps per repeat")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--rules", nargs="+", default=["standard", '{"players": 6}', "two_decks"],
                   help="preset names or rule options as JSON (default: standard, six seats, "
                        "two_decks)")
    p.add_argument("--obs-dtype", nargs="+", choices=["float32", "uint8"],
                   default=["float32", "uint8"], help="observation dtypes (default both)")
    p.add_argument("--clock", choices=sorted(_CLOCKS), default="wall")
    args = p.parse_args(argv)
    clock = _CLOCKS[args.clock]
    rules = {label(r, parse_rules(r)): parse_rules(r) for r in args.rules}
    envs = {(name, d): SingleSeatVectorEnv(args.envs, ["random"], rules=r,
                                           obs_dtype=np.dtype(d))
            for name, r in rules.items() for d in args.obs_dtype}
    for env in envs.values():  # compile and warm the kernels outside the timed region
        run_once(env, 20, 0, clock)
    rates: dict[tuple[str, str], list[float]] = {key: [] for key in envs}
    for k in range(args.repeats):
        for key, env in envs.items():
            rates[key].append(run_once(env, args.steps, 1 + k, clock))
    med = {key: statistics.median(v) for key, v in rates.items()}
    first_rules, first_dtype = next(iter(rules)), args.obs_dtype[0]
    print(f"SingleSeatVectorEnv, {args.envs} tables, random opponents, {args.steps} learner "
          f"steps x {args.repeats} repeats (interleaved), {args.clock} clock")
    print(f"{'rules':<18} {'obs dtype':>9} {'actions':>7} {'obs':>5} "
          f"{'decisions/s (median)':>21} {'min':>10} {'max':>10} {'cost/decision':>14} "
          f"{'vs ' + first_dtype:>11}")
    for (name, d), env in envs.items():
        m = med[name, d]
        print(f"{name:<18} {d:>9} {env.num_actions:>7} {env.batch.obs_size:>5} {m:>21,.0f} "
              f"{min(rates[name, d]):>10,.0f} {max(rates[name, d]):>10,.0f} "
              f"{med[first_rules, d] / m:>13.2f}x {m / med[name, first_dtype]:>10.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
