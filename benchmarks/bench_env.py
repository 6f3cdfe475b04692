"""Random-play throughput of the Gong Zhu engine and environment, with OpenSpiel hearts for scale.

Run from the repository root::

    python -m benchmarks.bench_env --hands 2000 --repeats 3 --seed 0

Contenders (each plays ``--hands`` complete hands with uniformly random legal actions):

* ``engine``: ``Game`` + ``legal_actions()`` + ``step()``; no observations.
* ``engine_2decks`` and ``raw_env_2decks``: the same two loops under the ``"two_decks"`` preset
  (RULES.md 6.11: 104 cards, pairs; a hand is 104 plays in 13 to 26 tricks plus the
  declarations, so compare decisions/s as well as hands/s with the one-deck rows).
* ``raw_env``: ``raw_env`` through the standard AEC loop (``agent_iter`` / ``last`` / ``step``),
  so the acting agent's observation vector and action mask are built at every step; the action
  is drawn from ``obs["action_mask"]``.
* ``env``: the same loop on ``env()``, the PettingZoo wrapper chain.
* ``batch64``, ``batch256``, ``batch1024``, ``batch4096``: the batched engine
  (``gongzhu_env.vector.GameBatch``) with that many tables, single process: every step picks one
  random legal action per table (``sample_legal``, the same ``legal[int(u * len(legal))]`` rule
  on floats drawn up front) and ``step`` writes the observation and the action mask of the seat
  to move at every table. Each run makes ``--batch-decisions`` decisions (rounded up to whole
  steps, and at least 64 steps) from ``reset``; hands/s counts the hands finished. The kernels
  are compiled (or loaded from numba's cache) before the clock starts; that time is printed as
  ``batch kernels ready``.
* ``batch_2decks256``, ``batch_2decks1024``: the same for two-deck tables on their batched
  engine (``gongzhu_env.batch.GameBatch`` at two decks, the 1,153-value observation and the
  105-entry mask at every decision), to compare with ``engine_2decks`` and ``raw_env_2decks``
  per decision.
* ``engine_3p``, ``engine_6p``, ``batch_3p256`` ... ``batch_6p1024``: the engine loop and the
  batched engine (256, 512 and 1,024 tables) at tables of three and of six players
  (``Rules(players=N)``: the reduced deck), compared per decision.
* ``batch1024_u8``, ``batch_6p1024_u8``, ``batch_2decks1024_u8``: ``batch1024``,
  ``batch_6p1024`` and ``batch_2decks1024`` with compact observations (``GameBatch(...,
  obs_dtype=np.uint8)``: each value as the byte ``rint(x * 255)``, a quarter of the bytes
  written), compared with the float32 rows and (six seats) with ``engine_6p``.
* ``engine@baseline``, ``engine_2decks@baseline`` (with ``--baseline DIR``): the same engine
  loops run by the code of another checkout (an earlier commit, e.g. from ``git worktree add
  DIR COMMIT``), each in a child process that imports that checkout's engine and times only the
  loop; interleaved with this checkout's runs, so a change to the engine is measured old
  against new in one run.
* ``openspiel``: OpenSpiel ``hearts`` with ``pass_cards=false``, chance nodes (the deal) included,
  when ``pyspiel`` is importable (``pip install -e .[bench]``).
* ``openspiel+infostate``: the same, with the acting player's information-state tensor written
  into a preallocated numpy buffer at every decision (OpenSpiel's ``make_observation(game,
  INFO_STATE_OBS_TYPE).set_from(state, player)``, which fills the same values as
  ``state.information_state_tensor(player)`` in place); the nearest analogue of our observation.

Fairness: every contender picks actions the same way: a list of uniform floats drawn up front from
a seeded ``numpy.random.Generator`` (outside the timed region), and ``legal[int(u * len(legal))]``.
Each contender runs ``--repeats`` times on the same seed, interleaved with the others; the table
shows the median. A
"decision" is an action of a player (declaration or play), not a chance outcome or a dead step.
The machine may be shared, so compare ratios from one run rather than absolute numbers.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from gongzhu_env import env as make_env
from gongzhu_env import raw_env
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from training.arena.reports import output_file_error
from training.arguments import CommandParser, command_prog, seed_argument

# Upper bound on the random floats one hand may consume: Gong Zhu takes at most 4 DONE + 4
# exposures + 52 plays = 60 decisions (two decks: 4 + 8 + 104 = 116); OpenSpiel hearts takes
# 1 + 52 chance outcomes + 52 plays. (A longer list keeps the same leading floats, so the
# one-deck runs draw what they always drew.)
_FLOATS_PER_HAND = 120

# The clock of every timed region: wall time by default; ``--clock cpu`` uses this process's CPU
# time, which is steadier on a machine shared with other jobs.
_clock: Callable[[], float] = time.perf_counter

# One timed run: (hands, seed) -> (decisions made, seconds), or (decisions, seconds, hands
# finished) for a contender that does not play a set number of hands (the batches).
Runner = Callable[[int, int], tuple[int, float] | tuple[int, float, int]]
BATCH_SIZES = (64, 256, 1024, 4096)
PAIR_BATCH_SIZES = (256, 1024)
TABLE_SIZES = (3, 6)
TABLE_BATCH_SIZES = (256, 512, 1024)
"""Batch sizes of the 3- and 6-seat rows. At six seats a row of the observation is 861 values
(3.4 kB): 1,024 tables' rows overflow a 2 MB L2 cache, 512 fit, and fewer tables pay more of
Python's cost per step; so the rows cover the sizes where that trade turns."""
"""Table sizes of the ``engine_Np`` and ``batch_Np1024`` rows (the fewest and a large table)."""
"""Tables of the two-deck batch rows (a two-deck table holds about twice the arrays)."""
MAX_HANDS = 100_000
MAX_REPEATS = 100
MAX_BATCH_DECISIONS = 100_000_000


def _uniforms(seed: int, hands: int) -> list[float]:
    """The random floats for one run, drawn before the clock starts (same for every contender)."""
    return np.random.default_rng(seed).random(hands * _FLOATS_PER_HAND).tolist()


def run_engine(hands: int, seed: int, rules: Rules | None = None) -> tuple[int, float]:
    """The engine alone: deal, ``legal_actions()``, ``step()`` until each hand is over."""
    u = _uniforms(seed, hands)
    rules = rules or Rules()
    deal_rng = np.random.default_rng(seed)
    k = 0
    t0 = _clock()
    for _ in range(hands):
        game = Game(rules, rng=deal_rng)
        while not game.is_over():
            legal = game.legal_actions()
            game.step(legal[int(u[k] * len(legal))])
            k += 1
    return k, _clock() - t0


def _run_aec(e: Any, hands: int, seed: int) -> tuple[int, float]:
    """The standard PettingZoo AEC loop with an action drawn from the observed action mask."""
    u = _uniforms(seed, hands)
    k = 0
    t0 = _clock()
    for h in range(hands):
        # Every deal is timed, as in the engine run; only the first reset seeds.
        e.reset(seed=seed if h == 0 else None)
        for _agent in e.agent_iter():
            obs, _reward, term, trunc, _info = e.last()
            if term or trunc:
                action = None
            else:
                legal = obs["action_mask"].nonzero()[0].tolist()
                action = legal[int(u[k] * len(legal))]
                k += 1
            e.step(action)
    return k, _clock() - t0


def run_raw_env(hands: int, seed: int) -> tuple[int, float]:
    """``raw_env``: observation and mask at every step."""
    return _run_aec(raw_env(), hands, seed)


def run_env(hands: int, seed: int) -> tuple[int, float]:
    """``env()``: the wrapped environment, observation and mask at every step."""
    return _run_aec(make_env(), hands, seed)


TWO_DECKS = Rules.preset("two_decks")


def run_engine_2decks(hands: int, seed: int) -> tuple[int, float]:
    """The engine alone under the two-deck preset."""
    return run_engine(hands, seed, TWO_DECKS)


def run_raw_env_2decks(hands: int, seed: int) -> tuple[int, float]:
    """``raw_env`` under the two-deck preset: 1153 observation values, 105-entry masks."""
    return _run_aec(raw_env(rules=TWO_DECKS), hands, seed)


_BASELINE_CHILD = """
import json, sys, time
from benchmarks import bench_env as b
from gongzhu_env.rules import Rules
b._clock = time.perf_counter if sys.argv[4] == "wall" else time.process_time
rules = Rules.preset(sys.argv[3])
print(json.dumps(b.run_engine(int(sys.argv[1]), int(sys.argv[2]), rules)))
"""


def _baseline_runner(root: str, preset: str, clock: str) -> Runner:
    """Run ``run_engine`` of the checkout at ``root`` in a child process (only the loop timed)."""

    def run(hands: int, seed: int) -> tuple[int, float]:
        env = {**os.environ, "PYTHONPATH": root}
        done = subprocess.run([sys.executable, "-c", _BASELINE_CHILD, str(hands), str(seed),
                               preset, clock], cwd=root, env=env, capture_output=True,
                              text=True, check=False)
        if done.returncode:
            raise RuntimeError(f"the baseline at {root} failed: {done.stderr.strip()[-400:]}")
        decisions, seconds = json.loads(done.stdout.strip().splitlines()[-1])
        return int(decisions), float(seconds)

    return run


def _batch_runner(size: int, decisions: int, rules: Rules | None = None,
                  obs_dtype: type = np.float32) -> tuple[Runner, float]:
    """A runner for a batch of ``size`` tables, and the seconds its kernels took to load.

    The batched engine of ``rules`` (``gongzhu_env.batch.GameBatch``, one deck or two);
    ``obs_dtype`` is the batch's (float32, or uint8 for the compact
    rows). numba compiles the kernels at their first call (or loads them from
    its cache); that happens here, outside every timed region.
    """
    t0 = time.perf_counter()
    from gongzhu_env.batch import GameBatch

    rules = rules or Rules()
    two_decks = rules.decks == 2
    batch = GameBatch(size, rules, obs_dtype=obs_dtype)
    batch.reset(0)
    batch.step(batch.sample_legal(np.zeros(size)))
    ready = time.perf_counter() - t0
    # At least 64 steps (128 at two decks), so that every table finishes a hand (one takes 52
    # to 60 decisions; 104 to 112 at two decks).
    steps = max(-(-decisions // size), 128 if two_decks else 64)
    actions = np.zeros(size, dtype=np.int64)

    def run(hands: int, seed: int) -> tuple[int, float, int]:
        u = np.random.default_rng(seed).random((steps, size))
        t0 = _clock()
        batch.reset(seed)
        for k in range(steps):
            batch.sample_legal(u[k], actions)
            batch.step(actions)
        secs = _clock() - t0
        finished = sum(batch.hands_started(i) for i in range(size)) - size
        return steps * size, secs, finished

    return run, ready


def _openspiel_runner(with_infostate: bool) -> Runner | None:
    """A runner for OpenSpiel hearts (no card passing), or ``None`` if pyspiel is missing."""
    try:
        import pyspiel
    except ImportError:
        return None
    from open_spiel.python.observation import INFO_STATE_OBS_TYPE, make_observation

    game = pyspiel.load_game("hearts", {"pass_cards": False})

    def run(hands: int, seed: int) -> tuple[int, float]:
        u = _uniforms(seed, hands)
        # OpenSpiel's own fast path: ``set_from`` writes the information-state tensor in place
        # into a numpy buffer (``observer.tensor``), the same values as
        # ``state.information_state_tensor(player)`` without building a Python list.
        observer = make_observation(game, INFO_STATE_OBS_TYPE)
        k = 0
        decisions = 0
        t0 = _clock()
        for _ in range(hands):
            state = game.new_initial_state()
            while not state.is_terminal():
                legal = state.legal_actions()
                if not state.is_chance_node():
                    decisions += 1
                    if with_infostate:
                        observer.set_from(state, state.current_player())
                state.apply_action(legal[int(u[k] * len(legal))])
                k += 1
        return decisions, _clock() - t0

    return run


def summarise(name: str, runs: list[tuple[int, float] | tuple[int, float, int]],
              hands: int) -> dict[str, Any]:
    """One table row from a contender's runs: the median of each rate.

    A run that reports the hands it finished (a batch) is counted by them, not by ``hands``.
    """
    secs = [r[1] for r in runs]
    decisions = runs[0][0]
    played = [r[2] if len(r) == 3 else hands for r in runs]
    return {
        "name": name,
        "hands": played[0],
        "decisions": decisions,
        "decisions_per_hand": decisions / played[0],
        "seconds": secs,
        "hands_per_s": statistics.median(h / s for h, s in zip(played, secs, strict=True)),
        "decisions_per_s": statistics.median(decisions / s for s in secs),
    }


def _print_table(rows: list[dict[str, Any]], ratios: list[tuple[str, str, float, str]]) -> None:
    """The results table (rich when available, plain text otherwise)."""
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        print(f"{'contender':<22}{'hands/s':>12}{'decisions/s':>14}{'dec/hand':>10}")
        for r in rows:
            print(f"{r['name']:<22}{r['hands_per_s']:>12,.0f}{r['decisions_per_s']:>14,.0f}"
                  f"{r['decisions_per_hand']:>10.1f}")
        for ours, theirs, ratio, unit in ratios:
            print(f"{ours} / {theirs}: {ratio:.2f}x  ({unit})")
        return
    table = Table(title="Random play, median of repeats")
    for col in ("contender", "hands/s", "decisions/s", "decisions/hand"):
        table.add_column(col, justify="left" if col == "contender" else "right")
    for r in rows:
        table.add_row(r["name"], f"{r['hands_per_s']:,.0f}", f"{r['decisions_per_s']:,.0f}",
                      f"{r['decisions_per_hand']:.1f}")
    console = Console()
    console.print(table)
    if ratios:
        rt = Table(title="Ratios (same run)")
        rt.add_column("ours")
        rt.add_column("vs")
        rt.add_column("ratio", justify="right")
        rt.add_column("of")
        for ours, theirs, ratio, unit in ratios:
            rt.add_row(ours, theirs, f"{ratio:.2f}x", unit)
        console.print(rt)


def main(argv: list[str] | None = None) -> int:
    """Parse the flags, run every contender, print the table and optionally write JSON."""
    p = CommandParser(prog=command_prog("bench", alone="python -m benchmarks.bench_env"),
                      description=__doc__.split("\n\n")[0],
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hands", type=int, default=1000, help="hands per run (default 1000)")
    p.add_argument("--repeats", type=int, default=3, help="runs per contender; median kept")
    p.add_argument("--seed", type=seed_argument, default=0,
                   help="seed of the deals and of the choices")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="wall: elapsed time; cpu: this process's CPU time (steadier when the "
                        "machine is shared)")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    p.add_argument("--no-openspiel", action="store_true", help="skip OpenSpiel even if installed")
    p.add_argument("--batch-decisions", type=int, default=2_000_000,
                   help="decisions per run of each batch contender (default 2,000,000)")
    p.add_argument("--no-batch", action="store_true", help="skip the batched engine")
    p.add_argument("--baseline", metavar="DIR",
                   help="a checkout of another commit (git worktree add DIR COMMIT): also run "
                        "its engine loops, interleaved with this checkout's, as "
                        "engine@baseline and engine_2decks@baseline")
    p.add_argument("--only", nargs="+", metavar="NAME",
                   help="run only these contenders (engine raw_env env engine_2decks "
                        "raw_env_2decks engine@baseline engine_2decks@baseline batch64 "
                        "batch256 batch1024 batch4096 batch_2decks256 "
                        "batch_2decks1024 batch1024_u8 batch_6p1024_u8 batch_2decks1024_u8 "
                        "engine_3p engine_6p batch_3p256 batch_3p512 batch_3p1024 "
                        "batch_6p256 batch_6p512 batch_6p1024 openspiel "
                        "openspiel+infostate)")
    args = p.parse_args(argv)
    # Checked before any run: every bound keeps the floats drawn up front within memory
    # (``_uniforms`` holds --hands * 120 of them), and a --json that cannot be written would
    # lose minutes of measurement at the end.
    for flag, value, top in (("--hands", args.hands, MAX_HANDS),
                             ("--repeats", args.repeats, MAX_REPEATS),
                             ("--batch-decisions", args.batch_decisions, MAX_BATCH_DECISIONS)):
        if not 1 <= value <= top:
            p.error(f"{flag} must be an integer 1..{top:,}; got {value}")
    error = args.json and output_file_error("--json", args.json)
    if error:
        p.error(error)

    global _clock
    _clock = time.perf_counter if args.clock == "wall" else time.process_time

    contenders: list[tuple[str, Runner]] = [
        ("engine", run_engine), ("raw_env", run_raw_env), ("env", run_env),
        ("engine_2decks", run_engine_2decks), ("raw_env_2decks", run_raw_env_2decks)]
    if args.baseline:
        root = os.path.abspath(args.baseline)
        if not os.path.isfile(os.path.join(root, "gongzhu_env", "engine.py")):
            p.error(f"--baseline {args.baseline!r} is not a checkout of this project (no "
                    "gongzhu_env/engine.py in it)")
        contenders += [("engine@baseline", _baseline_runner(root, "standard", args.clock)),
                       ("engine_2decks@baseline", _baseline_runner(root, "two_decks",
                                                                   args.clock))]
    batch_ready: float | None = None
    wanted = set(args.only or ())
    if not args.no_batch and (not wanted or wanted & {f"batch{n}" for n in BATCH_SIZES}):
        for size in BATCH_SIZES:
            if wanted and f"batch{size}" not in wanted:
                continue
            runner, ready = _batch_runner(size, args.batch_decisions)
            batch_ready = ready if batch_ready is None else batch_ready
            contenders.append((f"batch{size}", runner))
        print(f"  batch kernels ready in {batch_ready:.2f} s (numba compile or cache load)",
              file=sys.stderr)
    pair_names = [f"batch_2decks{n}" for n in PAIR_BATCH_SIZES]
    if not args.no_batch and (not wanted or wanted & set(pair_names)):
        for size, name in zip(PAIR_BATCH_SIZES, pair_names, strict=True):
            if not wanted or name in wanted:
                contenders.append((name, _batch_runner(size, args.batch_decisions,
                                                       TWO_DECKS)[0]))
    for players in TABLE_SIZES:
        engine_name = f"engine_{players}p"
        table = Rules(players=players)
        if not wanted or engine_name in wanted:
            contenders.append((engine_name, functools.partial(run_engine, rules=table)))
        for size in TABLE_BATCH_SIZES:
            batch_name = f"batch_{players}p{size}"
            if not args.no_batch and (not wanted or batch_name in wanted):
                contenders.append((batch_name, _batch_runner(size, args.batch_decisions,
                                                             table)[0]))
    # The compact observations (uint8) beside the float32 rows of the same rules and tables.
    for name, rules in (("batch1024_u8", None), ("batch_6p1024_u8", Rules(players=6)),
                        ("batch_2decks1024_u8", TWO_DECKS)):
        if not args.no_batch and (not wanted or name in wanted):
            contenders.append((name, _batch_runner(1024, args.batch_decisions, rules,
                                                   obs_dtype=np.uint8)[0]))
    if not args.no_openspiel:
        for name, infostate in (("openspiel", False), ("openspiel+infostate", True)):
            runner = _openspiel_runner(infostate)
            if runner is not None:
                contenders.append((name, runner))
    if args.only:
        known = {name for name, _ in contenders}
        unknown = sorted(set(args.only) - known)
        if unknown:
            p.error(f"unknown or unavailable contender(s) {unknown}; available: {sorted(known)}")
        contenders = [(n, r) for n, r in contenders if n in args.only]

    # Repeats are interleaved (every contender once, then again) so that a burst of load from
    # another process on a shared machine hits all contenders alike rather than just one.
    runs: dict[str, list[tuple[int, float] | tuple[int, float, int]]] = {
        name: [] for name, _ in contenders}
    for rep in range(args.repeats):
        for name, runner in contenders:
            runs[name].append(runner(args.hands, args.seed))
            last = runs[name][-1]
            print(f"  run {rep + 1}/{args.repeats} {name}: {last[0] / last[1]:,.0f} decisions/s",
                  file=sys.stderr)
    rows = [summarise(name, runs[name], args.hands) for name, _ in contenders]
    by_name = {r["name"]: r for r in rows}
    ratios = [
        (ours, theirs, by_name[ours]["hands_per_s"] / by_name[theirs]["hands_per_s"], "hands/s")
        for ours in ("engine", "raw_env", "env")
        for theirs in ("openspiel", "openspiel+infostate")
        if ours in by_name and theirs in by_name
    ]
    # The two-deck engine beside the one-deck one (hands/s; a two-deck hand is twice as long).
    ratios += [(two, one, by_name[two]["hands_per_s"] / by_name[one]["hands_per_s"], "hands/s")
               for two, one in (("engine_2decks", "engine"), ("raw_env_2decks", "raw_env"),
                                ("engine", "engine@baseline"),
                                ("engine_2decks", "engine_2decks@baseline"))
               if two in by_name and one in by_name]
    # The batches against OpenSpiel with its information-state tensor, per decision: both
    # write an observation for the player to act at every decision (the bar of the batch).
    ratios += [(f"batch{n}", theirs,
                by_name[f"batch{n}"]["decisions_per_s"] / by_name[theirs]["decisions_per_s"],
                "decisions/s")
               for n in BATCH_SIZES for theirs in ("openspiel+infostate", "raw_env")
               if f"batch{n}" in by_name and theirs in by_name]
    # Two decks: the batch against the scalar two-deck engine, bare and as an env (the bar).
    ratios += [(f"batch_2decks{n}", theirs,
                by_name[f"batch_2decks{n}"]["decisions_per_s"] / by_name[theirs]["decisions_per_s"],
                "decisions/s")
               for n in PAIR_BATCH_SIZES for theirs in ("engine_2decks", "raw_env_2decks")
               if f"batch_2decks{n}" in by_name and theirs in by_name]
    ratios += [(f"batch_{p}p{n}", f"engine_{p}p",
                by_name[f"batch_{p}p{n}"]["decisions_per_s"]
                / by_name[f"engine_{p}p"]["decisions_per_s"], "decisions/s")
               for p in TABLE_SIZES for n in TABLE_BATCH_SIZES
               if f"batch_{p}p{n}" in by_name and f"engine_{p}p" in by_name]
    # The compact observations: against the float32 rows (the bar 1.3x) and, at six seats, the
    # scalar engine (the bar 10x).
    ratios += [(ours, theirs, by_name[ours]["decisions_per_s"]
                / by_name[theirs]["decisions_per_s"], "decisions/s")
               for ours, theirs in (("batch1024_u8", "batch1024"),
                                    ("batch_6p1024_u8", "batch_6p1024"),
                                    ("batch_2decks1024_u8", "batch_2decks1024"),
                                    ("batch_6p1024_u8", "engine_6p"))
               if ours in by_name and theirs in by_name]
    _print_table(rows, ratios)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({
                "command": " ".join(["python -m benchmarks.bench_env", *(argv or sys.argv[1:])]),
                "python": platform.python_version(),
                "machine": platform.platform(),
                "hands": args.hands, "repeats": args.repeats, "seed": args.seed,
                "clock": args.clock,
                "batch_decisions": args.batch_decisions,
                "batch_kernels_ready_s": batch_ready,
                "rows": rows,
                "ratios": [{"ours": o, "vs": t, "ratio": r, "of": u} for o, t, r, u in ratios],
            }, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
