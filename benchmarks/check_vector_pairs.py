"""Differential check of the two-deck batched engine (``vector_pairs``) against ``Game``.

Run: ``python -m benchmarks.check_vector_pairs --hands 20000 --seed 0``. The hands are spread
over every covered two-deck rule set (``targets``: the ``"two_decks"`` preset first, then each
valid combination of the covered options), each with its own reward mode and scale. Each
target plays a ``PairGameBatch`` of ``--tables`` tables and, beside each table, a
``Game.from_hands`` of the same deal; both get the same seeded random legal actions. Before
every decision the seat to move, the legal actions, the observation (exactly
``PlayerView.encode()``) and the action mask are compared; at every hand's end the raw scores,
the rewards and the next deal (``vector_pairs.deal``). It prints hands played and hands that
disagreed per rule set; the exit status is 1 if any hand disagreed.

``--speed`` instead measures decisions per second of a batch (``--tables``, 1,024 by default
there, random legal actions from ``sample_legal``) and of the scalar engine (``Game`` with
random legal actions, bare and with the observation of every decision) in the same run.

``differential`` is also what ``tests/gongzhu_env/test_vector_pairs.py`` runs on fewer hands.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time

import numpy as np

from benchmarks.differential import Report, compare_result, finish, play_side_by_side
from gongzhu_env import Game, Rules
from gongzhu_env.vector_pairs import PairGameBatch, deal


def targets() -> list[tuple[str, Rules]]:
    """The covered two-deck rule sets: the preset, then every other valid combination."""
    preset = Rules.preset("two_decks")
    out = [("two_decks", preset)]
    for team, may_lead, first, decl in itertools.product(
            (True, False), (False, True), ("club2", "any"), ("free", "none")):
        try:
            rules = Rules(decks=2, team_play=team, exposed_may_lead=may_lead, first_lead=first,
                          declaration=decl)
        except ValueError:
            continue  # contradictory (an exposed card to lead, with no exposure)
        if rules != preset:
            name = ",".join(f"{k}={v}" for k, v in (("team_play", team),
                                                    ("exposed_may_lead", may_lead),
                                                    ("first_lead", first),
                                                    ("declaration", decl)))
            out.append((name, rules))
    return out


def _compare_end(batch: PairGameBatch, i: int, game: Game, seed: int) -> str | None:
    """Describe how the end of table ``i``'s hand differs from ``game``'s, or return ``None``."""
    if why := compare_result(batch, i, game):
        return why
    j = batch.hands_started(i) - 1
    if batch.deal_of(i) != deal(seed, i, j):
        return f"the next deal is not deal({seed}, {i}, {j})"
    return None


def differential(rules: Rules, tables: int, hands: int, seed: int, *, reward_mode: str = "raw",
                 reward_scale: float = 1.0, batch: PairGameBatch | None = None,
                 reference_rules: Rules | None = None) -> Report:
    """Play at least ``hands`` hands on a batch and on reference games side by side; compare.

    ``seed`` seeds the deals and the actions, which are drawn from the reference's legal
    set. A table that disagrees is counted once for its hand and then played on alone
    (actions legal in the batch) until its hand ends; comparison resumes from its next deal.
    ``batch`` (set up by the caller) and ``reference_rules`` exist to prove the check can fail.
    """
    if batch is None:
        batch = PairGameBatch(tables, rules, reward_mode=reward_mode, reward_scale=reward_scale)
        batch.reset(seed)
    rng = np.random.default_rng([seed, 11])
    ref_rules = batch.rules if reference_rules is None else reference_rules

    def reference(i: int) -> Game:
        return Game.from_hands(batch.deal_of(i), ref_rules)

    return play_side_by_side(batch, hands, seed, rng, reference, _compare_end)


def speed(tables: int = 1024, seconds: float = 5.0, seed: int = 0,
          rules: Rules | str = "two_decks") -> dict[str, float]:
    """Measure two-deck decisions per second: the batch, and the scalar ``Game`` beside it.

    The batch plays ``tables`` tables with random legal actions from ``sample_legal`` (every
    step writes every table's observation and mask); the scalar engine plays hands with
    random legal actions, bare (``scalar``) and with ``game.observation(seat)`` at every
    decision (``scalar_obs``, what an env step costs). Each runs for about ``seconds``.
    """
    rules = Rules.coerce(rules)
    batch = PairGameBatch(tables, rules)
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
        r = differential(rules, min(tables, hands), hands, args.seed + k, reward_mode=mode,
                         reward_scale=scale)
        total.add(r)
        print(f"{name} ({mode}, scale {scale:g}): {r.hands} hands, {r.decisions} decisions, "
              f"{r.bad_hands} disagreements", flush=True)
    return finish(total, f"total: {total.hands} hands, {total.decisions} decisions, "
                         f"{total.bad_hands} hands disagreed ({time.perf_counter() - t0:.0f}s)")


if __name__ == "__main__":
    sys.exit(main())
