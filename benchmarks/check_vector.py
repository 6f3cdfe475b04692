"""Differential check of the batched engine (``gongzhu_env.batch``) against the scalar ``Game``.

Run: ``python -m benchmarks.check_vector --hands 100000 --seed 0``. The hands are spread evenly
over the targets, each run with its own reward mode and scale. By default the targets are the
presets, every valid four-seat combination of the exposure, lead, declaration and team options,
the standard game and team play (where the size allows it) at every other table size (3 to 8),
each further covered option alone at four seats, ``--random`` rule sets drawn at random from
everything ``gongzhu_env.batch.COVERED`` allows (every table size and option at once), and
every covered two-deck rule set. ``--players`` keeps only the targets of those table sizes;
``--rules`` (a preset name or a JSON object of options, repeatable) checks exactly the rule
sets given instead; ``--random N --only-random`` checks N random rule sets only.

Each target plays a ``GameBatch`` of ``--tables`` tables and, beside each table, a
``Game.from_hands`` of the same deal; ``gongzhu_env.batch.differential`` says what is compared.
``--obs-dtype both`` (the default) splits each target's hands between a float32 batch and a
uint8 one (``GameBatch(..., obs_dtype=np.uint8)``, whose observations must be the reference's
as bytes, ``np.rint(x * 255)``), on the same seed; ``float32`` or ``uint8`` checks one.
One line per target and dtype counts its hands; the last line counts the hands that disagreed
anywhere; the exit status is 1 if any did.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from gongzhu_env import Rules
from gongzhu_env.batch import check_covered
from gongzhu_env.batch.differential import (
    TABLE_SIZES,
    Report,
    default_rule_sets,
    differential,
    finish,
    random_covered_rules,
    targets,
)
from gongzhu_env.rules import rules_value

OBS_DTYPE_NAMES = ("float32", "uint8")
"""The observation dtypes a batch writes (``gongzhu_env.batch.base.OBS_DTYPES``), by name."""


def _describe_rules(rules: Rules) -> str:
    """Name the hand options that differ from the standard game (``players=4`` shown too)."""
    default = Rules()
    diff = {k: v for k, v in rules.to_dict().items() if v != getattr(default, k)}
    diff.setdefault("players", rules.players)
    return ", ".join(f"{k}={v!r}" for k, v in diff.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100_000,
                        help="hands in all, spread evenly over the targets")
    parser.add_argument("--tables", type=int, default=64, help="tables per batch")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--players", type=int, nargs="+", choices=TABLE_SIZES,
                        default=list(TABLE_SIZES), metavar="N",
                        help="table sizes of the default targets (3 to 8; default all)")
    parser.add_argument("--random", type=int, default=20, metavar="N",
                        help="rule sets drawn at random from the covered options (default 20)")
    parser.add_argument("--only-random", action="store_true",
                        help="check only the --random rule sets")
    parser.add_argument("--obs-dtype", choices=("both", *OBS_DTYPE_NAMES), default="both",
                        help="the batches' observation dtype; both (default) splits each "
                             "target's hands between float32 and uint8")
    parser.add_argument("--rules", action="append", type=rules_value, metavar="RULES",
                        help="check this rule set (a preset name or a JSON object of options) "
                             "instead of the default targets; repeatable")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    players = tuple(sorted(set(args.players)))
    if args.rules:
        sets = [(r if isinstance(r, str) else json.dumps(r), check_covered(Rules.coerce(r)))
                for r in args.rules]
    elif args.only_random:
        sets = [(f"random#{k}", random_covered_rules(rng, players)) for k in range(args.random)]
    else:
        sets = default_rule_sets(rng, players, args.random)
    todo = targets(rng, sets)
    dtypes = OBS_DTYPE_NAMES if args.obs_dtype == "both" else (args.obs_dtype,)
    per_run = max(1, -(-args.hands // (len(todo) * len(dtypes))))
    total = Report()
    t0 = time.perf_counter()
    for k, (name, rules, mode, scale) in enumerate(todo):
        for dtype in dtypes:
            r = differential(rules, args.tables, per_run, args.seed + k, reward_mode=mode,
                             reward_scale=scale, obs_dtype=dtype)
            total.add(r)
            print(f"{name:<16} {mode:<8} x1/{scale:g} {dtype:<7}: {r.hands} hands, "
                  f"{r.decisions} decisions, {r.bad_hands} disagreeing  "
                  f"[{_describe_rules(rules)}]", file=sys.stderr)
    return finish(total, f"{total.hands} hands ({total.decisions} decisions) over {len(todo)} "
                  f"rule sets in {time.perf_counter() - t0:.0f} s: {total.bad_hands} "
                  f"disagreements")


if __name__ == "__main__":
    raise SystemExit(main())
