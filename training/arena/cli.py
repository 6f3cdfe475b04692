r"""The arena's command line: ``python -m training eval`` (also ``gongzhu eval``).

One candidate against one or more opponents, or a round robin with ratings; the table is
printed, and with ``--out`` the JSON results and a plot are written there. ``--resume``
continues an interrupted run from the journals it keeps in ``OUT/journal/`` until the results
are written. ``--keep-journals`` keeps them after that too, so that a later run into the same
``--out`` with ``--resume`` reuses every deal of a match it shares: a longer run of the match
plays only the deals beyond it, a shorter one (a round robin's 300 deals of a pair that was
played to 2,000) plays none.

    python -m training eval --candidate expert --opponents random,greedy \
        --deals 2000 --seed 0 --workers 2 --out runs/eval
    python -m training eval --round-robin random,greedy,expert --deals 500 --out runs/rr
    python -m training eval --rules scrofazero --teams --candidate expert \
        --opponents random,greedy --deals 500
    python -m training eval --rules '{"players": 5}' --candidate expert \
        --opponents random --deals 200

Other table sizes (``--rules '{"players": N}'``, N = 3..8) deal ``N`` hands of ``52 // N``
cards and seat the candidate in each of the ``N`` seats of a deal against ``N - 1`` opponent
copies (the ``1v3`` mode's form at ``N`` seats, shown as ``1v4`` at five); ``--teams`` with
``team_play`` and an even ``N`` puts the candidate pair in each of the ``N / 2`` team positions.
A ``--deal-file`` made for another table size is refused, naming both.

``--backend ray`` sends the chunks of deals to a Ray cluster as tasks instead of a local process
pool (``--address HOST:PORT`` joins a running cluster, ``auto`` the one ``ray start`` began on
this machine; without it a private instance starts here): the same deals, seeds and journal, so
the numbers are those of the local backend to the last digit, and a chunk whose worker died is
simply played again (``training.cluster``, ``docs/distributed.md``).

``--teams`` is the 2-vs-2 team match, and ``--mode 2v2`` the same thing: the candidate pair
against the opponent pair, each deal played with the teams swapped, in team points per deal
(``training.arena.formats``). Both ask for team rules (``--rules scrofazero``, or a JSON object
with ``"team_play": true``) and say so when they are missing: under individual rules a "2v2"
would pair seats 0 & 2 against 1 & 3 with no team to score, a number easily read as a team
margin. That individual pairing stays available from Python (``duplicate_match(mode="2v2")``).

``--deals N`` with ``--deal-file`` plays the first ``N`` deals of the file (a prefix of a seeded
set is what that seed gives for ``N``); more than the file holds is refused. Without
``--deals`` the file's deals are all played.

Output files (``--record``, ``--save-deals``) go into a directory that must exist: it is not
created, so a typo in the path is refused before any hand rather than making directories.
``--record`` writes a new record file and refuses one that already holds anything (hand
records are often a person's games, appended by ``gongzhu play --save``). ``--out`` is a run
directory and is created with its parents, as for the trainers.

Exit codes: 0 done, 2 bad input (an unknown agent, a bad deal file, a journal of another
match, Ray not installed or its cluster unreachable), 1 an agent failed during the match or
Ray lost a worker past its retries (the finished chunks stay in the journal for ``--resume``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from agents import AgentError
from gongzhu_env.rules import Rules, rules_value
from training.arena.deals import (
    MAX_DEALS,
    DealFileError,
    DealSet,
    generate_deals,
    load_deals,
)
from training.arena.duplicate import ArenaError, duplicate_match, journal_path, make_executor
from training.arena.formats import MODES, SCORINGS, check_format, team_presets
from training.arena.hands import HandRecord, validate_agents
from training.arena.journal import JournalError
from training.arena.plots import plot_matches, plot_ratings
from training.arena.reports import match_table, output_file_error, rating_table, write_json
from training.arena.round_robin import round_robin
from training.arguments import CommandParser, command_prog, seed_argument
from training.cluster import (
    BackendError,
    RayExecutor,
    WorkerLostError,
    add_backend_arguments,
    check_backend,
    cluster_cpus,
    connect,
)

DEFAULT_DEALS = 2000
MAX_WORKERS = 256
MAX_RESAMPLES = 1_000_000


def split_specs(values: Iterable[str] | None) -> list[str]:
    """Split comma-separated agent specs, keeping each spec's own ``key=value`` options.

    ``"random,pimc:worlds=8,rollout=greedy,expert"`` -> ``["random",
    "pimc:worlds=8,rollout=greedy", "expert"]``: a piece with ``=`` but no ``:`` cannot start a
    spec, so it continues the previous one's options.
    """
    specs: list[str] = []
    for value in values or ():
        for piece in (p.strip() for p in value.split(",")):
            if not piece:
                continue
            if "=" in piece and ":" not in piece.split("=", 1)[0] and specs \
                    and ":" in specs[-1]:
                specs[-1] += "," + piece
            else:
                specs.append(piece)
    return specs


def build_parser() -> argparse.ArgumentParser:
    """Return the arena's argument parser (also used by ``gongzhu eval``)."""
    p = CommandParser(
        prog=command_prog("eval"),
        description="Duplicate-deal evaluation arena: a candidate against opponents, or a round "
                    "robin with Bradley-Terry ratings.")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--candidate", help="agent spec of the candidate, e.g. expert")
    what.add_argument("--round-robin", action="append", metavar="SPECS",
                      help="comma-separated agent specs to rate against each other")
    p.add_argument("--anchor", metavar="SPEC",
                   help="--round-robin: the agent rated 0 (default the first listed; the order "
                        "also decides who is the candidate, so list slow players first)")
    p.add_argument("--opponents", action="append", metavar="SPECS",
                   help="comma-separated opponent specs for --candidate (repeatable)")
    p.add_argument("--deals", type=int, default=None,
                   help=f"number of deals, 1..{MAX_DEALS:,} (default {DEFAULT_DEALS}; with "
                        "--deal-file: the first N deals of the file, default all of them)")
    p.add_argument("--deal-file", help="load the deals from this .npz/.json file instead")
    p.add_argument("--save-deals", help="save the deal set used to this .npz/.json file (its "
                                        "directory must exist)")
    p.add_argument("--seed", type=seed_argument, default=0,
                   help="seed of the deals, agents, bootstrap")
    p.add_argument("--mode", choices=MODES, default=None,
                   help="duplicate format (default 1v3: the candidate in every seat against "
                        "opponent copies in the others, at any table size); 2v2 is the team "
                        "match, the same as --teams, and needs team rules (--rules scrofazero)")
    p.add_argument("--teams", action="store_true",
                   help="2-vs-2 team match under team rules (e.g. --rules scrofazero): "
                        "candidate pair against opponent pair, in team points per deal")
    p.add_argument("--scoring", choices=SCORINGS, default="raw",
                   help="raw hand points or zero-sum settlement")
    p.add_argument("--rules", default="standard", metavar="NAME|JSON",
                   help="rules of the table: a preset name or a JSON object of options")
    p.add_argument("--workers", type=int, default=None,
                   help=f"worker processes, 1..{MAX_WORKERS} (default: all cores; with "
                        "--backend ray, the cluster's CPUs: the deals are cut into chunks for "
                        "that many)")
    p.add_argument("--resamples", type=int, default=2000,
                   help=f"bootstrap resamples, 1..{MAX_RESAMPLES:,} (default 2000)")
    p.add_argument("--out", help="directory for the JSON results and the plot (created with "
                                 "its parents)")
    p.add_argument("--record", metavar="PATH",
                   help="write every hand played as a JSON-lines hand record "
                        "(gongzhu_env.records) to PATH, a new file in an existing directory")
    p.add_argument("--no-plot", action="store_true", help="write no plot even with --out")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted run into the same --out: deals it finished "
                        "(kept in OUT/journal/ until the results are written) are not played "
                        "again")
    p.add_argument("--keep-journals", action="store_true",
                   help="keep OUT/journal/ after the results are written, so a later --resume "
                        "run into the same --out (a longer match, a round robin holding the "
                        "pair) reuses the deals already played")
    add_backend_arguments(p)
    return p


def resolve_mode(mode: str | None, teams: bool, rules_name: str, rules: Rules) -> str:
    """Return the format asked for: ``--teams`` and ``--mode 2v2`` are both the team match.

    Either is refused under rules without fixed partners, naming the presets that have them:
    there the arena would pair seats 0 & 2 against 1 & 3 and report a per-hand number that a
    user who asked for "2v2" reads as a team margin.
    """
    if teams and mode not in (None, "2v2"):
        raise ValueError(f"--teams is the 2v2 team match; it cannot be combined with --mode {mode}")
    if not teams and mode != "2v2":
        return mode or "1v3"
    if not rules.team_play:
        flag = "--teams" if teams else "--mode 2v2"
        why = ("its teams are formed by the SQ and DJ holders after the deal"
               if rules.pig_sheep_team else "they have no fixed partners")
        raise ValueError(f"{flag} is the team match and needs team rules, but rules "
                         f"{rules_name!r} do not have them ({why}); team presets: "
                         f"{', '.join(team_presets())} (pass --rules NAME, or a JSON object "
                         'with "team_play": true), or use --mode 1v3 for individual play')
    return "2v2"


def check_sizes(args: argparse.Namespace) -> None:
    """Refuse counts out of their range before any work, naming the flag and the range.

    Each bound keeps a typo from turning into hours of work or an allocation that fails late
    (a trillion deals is 47 TiB of cards; a hundred thousand worker processes never start).
    """
    for flag, value, top in (("--deals", args.deals, MAX_DEALS),
                             ("--workers", args.workers, MAX_WORKERS),
                             ("--resamples", args.resamples, MAX_RESAMPLES)):
        if value is not None and not 1 <= value <= top:
            raise ValueError(f"{flag} must be an integer 1..{top:,}; got {value}")


def check_output_files(args: argparse.Namespace) -> None:
    """Refuse an output file that cannot be written, before any hand is played.

    ``--record`` must also be new (or empty): the arena writes the file afresh, and hand
    records are often a person's own games.
    """
    for flag, path in (("--record", args.record), ("--save-deals", args.save_deals)):
        error = None if path is None else output_file_error(flag, path)
        if error is not None:
            raise ValueError(error)
    if args.record is not None and Path(args.record).is_file() \
            and Path(args.record).stat().st_size > 0:
        raise ValueError(f"--record {args.record!r}: it already holds data, and the arena "
                         "writes a new record file; give a new path or remove the file")


def pick_deals(args: argparse.Namespace, rules: Rules) -> DealSet:
    """Return the deals to play: generated from ``--seed``, or read from ``--deal-file``.

    With a file, ``--deals N`` plays its first ``N`` deals; more than it holds is refused
    rather than quietly playing fewer than asked.
    """
    if not args.deal_file:
        return generate_deals(args.deals or DEFAULT_DEALS, args.seed, rules.decks,
                              players=rules.players)
    deals = load_deals(args.deal_file, rules)
    if args.deals is None:
        return deals
    if args.deals > len(deals):
        raise ValueError(f"--deals {args.deals}: the deal file {args.deal_file!r} holds only "
                         f"{len(deals)} deals; give --deals {len(deals)} or less, or leave it "
                         "out to play them all")
    return deals.head(args.deals)


def main(argv: list[str] | None = None) -> int:
    """Run the arena from the command line; returns the exit code (0 ok, 2 bad input, 1 error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    from rich.console import Console

    # Off a terminal (logs, CI) rich would wrap the table at 80 columns; keep rows whole.
    console = Console() if sys.stdout.isatty() else Console(width=160)
    try:
        check_sizes(args)
        check_backend(args.backend, args.address)
        if args.resume and not args.out:
            raise ValueError("--resume continues a run written to --out; give the same --out")
        if args.keep_journals and not args.out:
            raise ValueError("--keep-journals keeps the journals of --out; give an --out")
        if args.out and Path(args.out).exists() and not Path(args.out).is_dir():
            raise ValueError(f"--out {args.out!r} is a file; give a directory for the results")
        check_output_files(args)
        rules = Rules.coerce(rules_value(args.rules))
        mode = resolve_mode(args.mode, args.teams, args.rules, rules)
        check_format(mode, args.scoring, rules)
        if args.round_robin:
            specs = split_specs(args.round_robin)
            if args.opponents:
                raise ValueError("--opponents goes with --candidate, not --round-robin")
            if len(specs) < 2 or len(set(specs)) != len(specs):
                raise ValueError(f"--round-robin needs two or more different agents, e.g. "
                                 f"random,greedy,expert; got {','.join(specs)!r} (to play "
                                 "an agent against itself use --candidate and --opponents)")
            if args.anchor is not None and args.anchor.strip() not in specs:
                raise ValueError(f"--anchor must be one of the --round-robin agents "
                                 f"{specs}; got {args.anchor!r}")
        else:
            if args.anchor is not None:
                raise ValueError("--anchor goes with --round-robin")
            specs = [args.candidate.strip(), *split_specs(args.opponents)]
            if len(specs) < 2:
                raise ValueError("--candidate needs --opponents, e.g. --opponents random,greedy")
        validate_agents(specs, rules)
        deals = pick_deals(args, rules)
        if args.save_deals:
            deals.save(args.save_deals)
    except (AgentError, ValueError, TypeError, DealFileError, BackendError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    with contextlib.ExitStack() as stack:
        try:
            pool, workers = _executor(args, stack)
        except BackendError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        return _run(args, argv, console, specs, deals, rules, mode, pool, workers)


def _executor(args: argparse.Namespace,
              stack: contextlib.ExitStack) -> tuple[Executor | None, int]:
    """Return the chunks' executor (``None``: this process) and the workers to cut them for.

    ``local``: a process pool of ``--workers`` processes (none for one). ``ray``: Ray tasks on
    the cluster (joined or started here, and left or stopped when ``stack`` closes), the deals
    cut for ``--workers`` or else the cluster's CPUs.
    """
    if args.backend == "ray":
        ray, started = connect(args.address)
        if started:
            stack.callback(ray.shutdown)
        pool = RayExecutor(ray)
        stack.callback(pool.shutdown, wait=True, cancel_futures=True)
        return pool, args.workers or cluster_cpus(ray)
    workers = args.workers or os.cpu_count() or 1
    if workers == 1:
        return None, 1
    local = make_executor(workers)
    stack.callback(local.shutdown, wait=True, cancel_futures=True)
    return local, workers


def _run(args: argparse.Namespace, argv: list[str] | None, console: Any, specs: list[str],
         deals: Any, rules: Rules, mode: str, pool: Executor | None, workers: int) -> int:
    """Play the matches asked for on ``pool``; print and write the results; the exit code."""
    out = Path(args.out) if args.out else None
    common: dict[str, Any] = dict(mode=mode, scoring=args.scoring, rules=rules,
                                  seed=args.seed, workers=workers,
                                  progress=not args.no_progress, resamples=args.resamples)
    if args.record:
        common["on_game"] = _record_writer(Path(args.record), args.seed)
    journals = out / "journal" if out is not None else None
    try:
        if args.round_robin:
            rr = round_robin(specs, deals, journal_dir=journals, resume=args.resume,
                             executor=pool, anchor=args.anchor and args.anchor.strip(),
                             **common)
            console.print(match_table(rr.matches, "Round-robin matches"))
            console.print(rating_table(rr))
            if out is not None:
                _write_results(console, out / "round_robin",
                               {**rr.to_dict(), "command": _command(argv)},
                               None if args.no_plot else lambda: plot_ratings(rr))
        else:
            results = []
            for opp in specs[1:]:
                results.append(duplicate_match(
                    specs[0], opp, deals, executor=pool, resume=args.resume,
                    journal=None if journals is None else journal_path(
                        journals, specs[0], opp, mode), **common))
            console.print(match_table(results))
            if out is not None:
                _write_results(console, out / "eval",
                               {"command": _command(argv),
                                "results": [r.to_dict() for r in results]},
                               None if args.no_plot else lambda: plot_matches(results))
    except JournalError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (AgentError, ArenaError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except WorkerLostError as e:
        again = (f"; the finished chunks are kept in {journals}: run the same command with "
                 "--resume to play only the rest" if journals is not None else "")
        print(f"error: {e}{again}", file=sys.stderr)
        return 1
    if journals is not None and not args.keep_journals:
        # The results file now holds every deal; the journals served.
        shutil.rmtree(journals, ignore_errors=True)
    return 0


def _write_results(console: Any, stem: Path, doc: dict[str, Any],
                   plot: Callable[[], Any] | None) -> None:
    """Write ``stem.json`` and, unless ``plot`` is None, the figure it draws as ``stem.png``."""
    path = write_json(doc, stem.with_suffix(".json"))
    console.print(f"wrote {path}")
    if plot is not None:
        png = stem.with_suffix(".png")
        plot().savefig(png, dpi=120)
        console.print(f"wrote {png}")


def _record_writer(path: Path, seed: int) -> Callable[[HandRecord], None]:
    """Return an ``on_game`` hook appending each hand to a fresh JSON-lines record file."""
    from gongzhu_env.records import record_hand, save_records

    path.write_text("", encoding="utf-8")

    def write(rec: HandRecord) -> None:
        meta = {"source": "arena", "deal_index": rec.deal_index, "play": rec.play,
                "players": list(rec.seats), "seed": seed}
        save_records(path, [record_hand(rec.game, meta=meta)], append=True)

    return write


def _command(argv: list[str] | None) -> str:
    """Return the command that reproduces this run, quoted for pasting into a shell."""
    args = sys.argv[1:] if argv is None else argv
    return "python -m training eval " + shlex.join(args)
