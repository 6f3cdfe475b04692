"""Differential check of the batched engine at two decks against ``Game``, and its speed.

Run: ``python -m benchmarks.check_vector_pairs --hands 20000 --seed 0``. The hands are spread
over every covered two-deck rule set (``gongzhu_env.batch.differential.two_deck_rule_sets``:
the ``"two_decks"`` preset first, with half the hands, then each valid combination of the
covered options), each with its own reward mode and scale; ``gongzhu_env.batch.differential``
says what is compared. Each rule set's hands are split between a float32 batch and a uint8 one
(``obs_dtype=np.uint8``: the reference's observation as bytes, ``np.rint(x * 255)``) unless
``--obs-dtype`` names one. It prints hands played and hands that disagreed per rule set and
dtype; the exit status is 1 if any hand disagreed.

``--speed`` instead measures decisions per second of a batch (``--tables``, 1,024 by default
there, random legal actions from ``sample_legal``) and of the scalar engine (``Game`` with
random legal actions, bare and with the observation of every decision) in the same run.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from benchmarks.check_vector import OBS_DTYPE_NAMES
from gongzhu_env import Game, Rules
from gongzhu_env.batch import GameBatch
from gongzhu_env.batch.differential import Report, differential, finish
from gongzhu_env.batch.differential import two_deck_rule_sets as targets


def speed(tables: int = 1024, seconds: float = 5.0, seed: int = 0,
          rules: Rules | str = "two_decks") -> dict[str, float]:
    """Measure two-deck decisions per second: the batch, and the scalar ``Game`` beside it.

    The batch plays ``tables`` tables with random legal actions from ``sample_legal`` (every
    step writes every table's observation and mask); the scalar engine plays hands with
    random legal actions, bare (``scalar``) and with ``game.observation(seat)`` at every
    decision (``scalar_obs``, what an env step costs). Each runs for about ``seconds``.
    """
    rules = Rules.coerce(rules)
    batch = GameBatch(tables, rules)
    batch.reset(seed)
    rng = np.random.default_rng(seed)
    out = np.empty(tables, dtype=np.int64)
    batch.step(batch.sample_legal(rng.random(tables), out))  # compile outside the clock
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(20):
            batch.step(batch.sample_legal(rng.random(tables), out))
        steps += 20
    batch_rate = steps * tables / (time.perf_counter() - t0)

    def scalar(observe: bool) -> float:
        n, t = 0, time.perf_counter()
        while time.perf_counter() - t < seconds:
            game = Game(rules, rng=rng)
            while not game.is_over():
                if observe:
                    game.observation(game.current_player)
                legal = game.legal_actions()
                game.step(legal[int(rng.random() * len(legal))])
                n += 1
        return n / (time.perf_counter() - t)

    bare, with_obs = scalar(False), scalar(True)
    return {"batch": batch_rate, "scalar": bare, "scalar_obs": with_obs,
            "ratio": batch_rate / bare, "ratio_obs": batch_rate / with_obs}


def main(argv: list[str] | None = None) -> int:
    """Run the differential check (or ``--speed``); return 1 if any hand disagreed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000,
                        help="hands in all; half on the two_decks preset, half spread over "
                             "the other covered rule sets")
    parser.add_argument("--tables", type=int, default=None,
                        help="tables per batch (64 for the check, 1024 for --speed)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--speed", action="store_true",
                        help="measure decisions/s of the batch and of the scalar engine")
    parser.add_argument("--obs-dtype", choices=("both", *OBS_DTYPE_NAMES), default="both",
                        help="the batches' observation dtype; both (default) splits each rule "
                             "set's hands between float32 and uint8")
    parser.add_argument("--seconds", type=float, default=5.0, help="--speed: seconds per engine")
    args = parser.parse_args(argv)
    if args.speed:
        tables = args.tables or 1024
        r = speed(tables, args.seconds, args.seed)
        print(f"two_decks, {tables} tables: batch {r['batch']:,.0f} decisions/s; scalar Game "
              f"{r['scalar']:,.0f}/s bare, {r['scalar_obs']:,.0f}/s with observations; "
              f"ratio {r['ratio']:.1f}x bare, {r['ratio_obs']:.1f}x with observations")
        return 0
    tables = args.tables or 64
    todo = targets()
    rng = np.random.default_rng(args.seed)
    # The preset is what two-deck training plays: half the hands; the variants share the rest.
    shares = [max(1, args.hands // 2)] + [max(1, -(-args.hands // 2 // (len(todo) - 1)))] * (
        len(todo) - 1)
    total = Report()
    t0 = time.perf_counter()
    for k, ((name, rules), hands) in enumerate(zip(todo, shares, strict=True)):
        modes = ["raw", "zero_sum", *(["team"] if rules.has_teams else [])]
        mode = modes[int(rng.integers(len(modes)))]
        scale = float(rng.choice([1.0, 100.0, 3.0]))
        dtypes = OBS_DTYPE_NAMES if args.obs_dtype == "both" else (args.obs_dtype,)
        share = max(1, -(-hands // len(dtypes)))
        for dtype in dtypes:
            seen = differential(rules, min(tables, share), share, args.seed + k,
                                reward_mode=mode, reward_scale=scale, obs_dtype=dtype)
            total.add(seen)
            print(f"{name} ({mode}, scale {scale:g}, {dtype}): {seen.hands} hands, "
                  f"{seen.decisions} decisions, {seen.bad_hands} disagreements", flush=True)
    return finish(total, f"total: {total.hands} hands, {total.decisions} decisions, "
                         f"{total.bad_hands} hands disagreed ({time.perf_counter() - t0:.0f}s)")


if __name__ == "__main__":
    sys.exit(main())
