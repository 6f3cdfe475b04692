"""The ``gongzhu`` command: play, replay, serve, demo, and thin fronts for eval, train and bench.

``gongzhu play`` and ``gongzhu replay`` live in ``gongzhu_cli.play`` and ``gongzhu_cli.replay``.
``gongzhu eval``,
``gongzhu train`` and ``gongzhu bench`` forward every argument unchanged to the ``main(argv)``
of the arena (``training.arena.cli``), the trainer (``training.train``) and the benchmark
(``benchmarks/bench_env.py``), so each keeps its own ``--help``. Those modules are imported only
when their command runs: ``gongzhu play`` must not pay for torch.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

from agents import make_agent
from agents.base import AgentError
from gongzhu_env import __version__
from gongzhu_env.engine import Game
from gongzhu_env.players import play_turns, start_hand
from gongzhu_env.rules import Rules, rules_value
from training.arguments import CommandParser, invoked_as, seed_argument

# command -> (module, what it is, extra that provides its dependencies)
FRONTS: dict[str, tuple[str, str, str]] = {
    "eval": ("training.arena.cli", "the evaluation arena", "train"),
    "train": ("training.train", "self-play training", "train"),
}


def _table_rules(command: str, text: str, players: int | None = None,
                 threshold: int | None = None) -> Rules | None:
    """Read ``--rules`` (a preset name or a JSON object) and ``--players``.

    Print the reason and return None when they do not make valid rules. A flag that sets a
    rule the ``--rules`` object also sets (``--players`` and ``players``, ``--threshold`` and
    ``match_threshold``) must agree with it: otherwise one of the two would be ignored without
    a word, and which one is a guess. A preset name sets neither, so the flags refine it.
    """
    try:
        given = rules_value(text)
        rules = Rules.coerce(given)
    except (ValueError, TypeError) as e:
        print(f"gongzhu {command}: --rules: {e}", file=sys.stderr)
        return None
    if isinstance(given, dict):
        for flag, field, value in (("--players", "players", players),
                                   ("--threshold", "match_threshold", threshold)):
            if value is not None and field in given and given[field] != value:
                print(f"gongzhu {command}: {flag} {value} conflicts with --rules, which sets "
                      f"{field} to {given[field]!r}; give it in one place only",
                      file=sys.stderr)
                return None
    if players is None or players == rules.players:
        return rules
    try:
        return dataclasses.replace(rules, players=players)
    except (ValueError, TypeError) as e:
        print(f"gongzhu {command}: --players {players}: {e}", file=sys.stderr)
        return None


def cmd_demo(args: argparse.Namespace) -> int:
    """Play one seeded hand between agents at every seat; print the table and the scores."""
    rules = _table_rules("demo", args.rules, args.players)
    if rules is None:
        return 2
    try:
        n = rules.players
        players = [make_agent(args.agent, seed=args.seed * n + s, rules=rules)
                   for s in range(n)]
    except AgentError as e:
        print(f"gongzhu demo: --agent: {e}", file=sys.stderr)
        return 2
    game = Game(rules, seed=args.seed)
    start_hand(players, rules)
    play_turns(game, players)
    print(game.render())
    print("raw scores:", game.scores())
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """Play against agents in every other seat, in the terminal."""
    from gongzhu_cli.play import run_play
    from gongzhu_cli.terminal import use_colour

    # Options that only shape a match: without --match one hand is played and they would be
    # ignored without a word.
    for flag, value in (("--threshold", args.threshold),):
        if value is not None and not args.match:
            print(f"gongzhu play: {flag} {value} applies only to a match; add --match to play "
                  f"hands until it is reached, or leave {flag} out to play one hand",
                  file=sys.stderr)
            return 2
    rules = _table_rules("play", args.rules, args.players, args.threshold)
    if rules is None:
        return 2
    if not 0 <= args.seat < rules.players:
        print(f"gongzhu play: --seat must be a seat 0..{rules.players - 1} at a table of "
              f"{rules.players}; got {args.seat}", file=sys.stderr)
        return 2
    threshold = args.threshold
    if threshold is None:
        threshold = getattr(rules, "match_threshold", -1000)
    if threshold >= 0:
        print(f"gongzhu play: --threshold must be a negative score such as -1000; got "
              f"{threshold}", file=sys.stderr)
        return 2
    return run_play(opponents=args.opponents, seat=args.seat, seed=args.seed, match=args.match,
                    threshold=threshold, rules=rules, save=args.save,
                    colour=use_colour(args.no_color, sys.stdout))


def cmd_replay(args: argparse.Namespace) -> int:
    """Step through the hands of a hand-record file."""
    from gongzhu_cli.replay import run_replay
    from gongzhu_cli.terminal import use_colour

    return run_replay(args.file, hand=args.hand, show_all=args.all,
                      colour=use_colour(args.no_color, sys.stdout))


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the web table (the ``[web]`` extra)."""
    from gongzhu_cli.serve import run_serve

    return run_serve(host=args.host, port=args.port, max_tables=args.max_tables,
                     idle_timeout=args.idle_timeout, agents=args.agent,
                     allow_origins=args.allow_origin, allow_hosts=args.allow_host,
                     hint_rate=args.hint_rate)


def forward(command: str, argv: list[str]) -> int:
    """Run the ``main(argv)`` of the module behind ``command`` (``eval`` or ``train``)."""
    module_name, what, extra = FRONTS[command]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name == module_name:
            print(f"gongzhu {command}: {what} ({module_name}) is not available in this "
                  "installation.", file=sys.stderr)
        else:
            print(f"gongzhu {command}: {what} needs the package {e.name!r}, which is not "
                  f"installed; install the extra: pip install 'gongzhu-rl[{extra}]'",
                  file=sys.stderr)
        return 2
    return _run_main(command, getattr(module, "main", None), argv)


def _run_main(command: str, main_fn: Callable[[list[str]], int | None] | None,
              argv: list[str]) -> int:
    if main_fn is None:
        print(f"gongzhu {command}: the module has no main(argv) function", file=sys.stderr)
        return 2
    with invoked_as("gongzhu"):  # its messages say "gongzhu COMMAND", as the person typed it
        result = main_fn(argv)
    return int(result or 0)


def bench_script() -> Path:
    """Where ``benchmarks/bench_env.py`` is for a source checkout (an editable install)."""
    return Path(__file__).resolve().parent.parent / "benchmarks" / "bench_env.py"


def bench(argv: list[str]) -> int:
    """Run the environment benchmark's ``main(argv)`` from the source checkout."""
    path = bench_script()
    if not path.is_file():
        print(f"gongzhu bench: the benchmark is not available: {path} does not exist. "
              "Benchmarks ship with the source repository, not the installed package; "
              "clone the repository and install it with pip install -e '.[dev,train,bench]'.",
              file=sys.stderr)
        return 2
    spec = importlib.util.spec_from_file_location("gongzhu_bench_env", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ModuleNotFoundError as e:
        print(f"gongzhu bench: the benchmark needs the package {e.name!r}, which is not "
              "installed; install the extras: pip install -e '.[bench]'", file=sys.stderr)
        return 2
    return _run_main("bench", getattr(module, "main", None), argv)


def _add_front(sub: argparse._SubParsersAction, name: str, help_text: str) -> None:
    """Register a forwarding command so that ``gongzhu --help`` lists it."""
    p = sub.add_parser(name, help=help_text, add_help=False)
    p.add_argument("args", nargs=argparse.REMAINDER)


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of every subcommand."""
    parser = CommandParser(
        prog="gongzhu", description="Gong Zhu (拱猪, Chase the Pig): play, replay, evaluate, "
        "train and benchmark.",
        epilog="Run 'gongzhu COMMAND --help' for the options of a command.")
    parser.add_argument("--version", action="version", version=f"gongzhu {__version__}",
                        help="print the version of the installed package and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    play = sub.add_parser(
        "play", help="play a hand (or a match) against agents in the terminal",
        description="Play one seat against agents in the other seats (three, or N - 1 with "
        "--players N). Type a card (SQ, h10, CT, ♠Q) or the "
        "number of an option; 'done' ends your declaration turn; '?' shows help. Ctrl-D or "
        "Ctrl-C offers to save the match and quits. With --rules two_decks, lead both copies "
        "of a card as a pair with SQ+SQ, 'SQ SQ' or 'pair SQ'; after a pair lead you play "
        "your two cards one at a time, the first and then the second.")
    play.add_argument("--opponents", nargs="+", metavar="SPEC", default=None,
                      help="agent spec for every opponent, or one spec per other seat in seat "
                      "order "
                      "(e.g. random, greedy, expert, pimc, search, policy:PATH). Default: the "
                      "pretrained policy, or 'expert' if none is installed")
    play.add_argument("--seat", type=int, default=0,
                      help="your seat, 0-3 (0..N-1 with --players N; default 0)")
    play.add_argument("--players", type=int, default=None, metavar="N",
                      help="seats at the table, 3 to 8 (default: the rules', four); low cards "
                      "leave the deck until it divides evenly")
    play.add_argument("--seed", type=seed_argument, default=None,
                      help="seed of the deals and the agents (default: a fresh one, printed)")
    play.add_argument("--match", action="store_true",
                      help="play hands until a cumulative score reaches -THRESHOLD")
    play.add_argument("--threshold", type=int, default=None, metavar="SCORE",
                      help="a match ends when a cumulative score is at or below SCORE (a "
                      "negative number; default: the rules' match threshold, -1000)")
    play.add_argument("--save", type=Path, default=None, metavar="FILE",
                      help="append every finished hand to FILE as hand records (JSON lines)")
    play.add_argument("--rules", default="standard",
                      help="rules preset name, e.g. two_decks (default standard)")
    play.add_argument("--no-color", action="store_true",
                      help="plain text (also when the NO_COLOR variable is set)")
    play.set_defaults(func=cmd_play)

    replay = sub.add_parser(
        "replay", help="step through recorded hands",
        description="Show the hands of a hand-record file action by action: Enter for the "
        "next action, 'a' for the rest, 'q' to quit.")
    replay.add_argument("file", type=Path, help="hand-record file (JSON lines)")
    replay.add_argument("--hand", type=int, default=None, metavar="N",
                        help="show only hand N (1-based; default every hand in the file)")
    replay.add_argument("--all", action="store_true", help="print everything without pausing")
    replay.add_argument("--no-color", action="store_true", help="plain text")
    replay.set_defaults(func=cmd_replay)

    serve = sub.add_parser(
        "serve", help="play against the AI in a web browser (the [web] extra)",
        description="Serve the web table: choose the rules, your seat and each opponent, play "
        "by clicking (or typing) cards, ask what the AI would play, download and replay hand "
        "records. Listens on 127.0.0.1 unless --host says otherwise.")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1, this machine only; "
                       "anything else is reachable by others: see docs/web.md)")
    serve.add_argument("--port", type=int, default=8000,
                       help="port to listen on (default 8000; 0: any free port, printed)")
    serve.add_argument("--max-tables", type=int, default=64, metavar="N",
                       help="most tables held at once (default 64)")
    serve.add_argument("--idle-timeout", type=float, default=1800, metavar="SECONDS",
                       help="free a table untouched for this long (default 1800)")
    serve.add_argument("--agent", action="append", default=[], metavar="SPEC",
                       help="also offer this agent spec as an opponent (e.g. pimc:worlds=64, "
                       "policy:runs/quick/policy.pt); repeatable")
    serve.add_argument("--allow-origin", action="append", default=[], metavar="URL",
                       help="a page origin allowed to connect besides the server's own (e.g. "
                       "https://cards.example.org behind a proxy that rewrites Host)")
    serve.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                       help="a host name the server answers besides loopback and --host (a "
                       "reverse proxy's, e.g. cards.example.org); repeatable")
    serve.add_argument("--hint-rate", type=float, default=0.5, metavar="PER_SECOND",
                       help="hints a table may ask for a second, on average (default 0.5)")
    serve.set_defaults(func=cmd_serve)

    demo = sub.add_parser("demo", help="play one seeded hand between agents and print it")
    demo.add_argument("--seed", type=seed_argument, default=0,
                      help="seed of the deal and the agents")
    demo.add_argument("--agent", default="random", help="agent spec for every seat")
    demo.add_argument("--players", type=int, default=None, metavar="N",
                      help="seats at the table, 3 to 8 (default: the rules', four)")
    demo.add_argument("--rules", default="standard", metavar="NAME|JSON",
                      help="rules: a preset name or a JSON object of options")
    demo.set_defaults(func=cmd_demo)

    _add_front(sub, "eval", "the evaluation arena (arguments go to training.arena.cli)")
    _add_front(sub, "train", "self-play training (arguments go to training.train)")
    _add_front(sub, "bench", "environment throughput benchmark (benchmarks/bench_env.py)")
    for command in sub.choices.values():  # whose options an unknown one was meant for
        command.set_defaults(command_parser=command)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gongzhu`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # Forwarding commands hand every argument, --help included, to their own parser.
    if argv and argv[0] in FRONTS:
        return forward(argv[0], argv[1:])
    if argv and argv[0] == "bench":
        return bench(argv[1:])
    args = parse_command_line(build_parser(), argv)
    return args.func(args)


def parse_command_line(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """Parse ``argv``; an option no parser knows is reported by the command it was given to.

    argparse leaves unknown options to the top-level parser, whose error would point at
    ``gongzhu --help``; ``gongzhu demo --sede 3`` should point at ``gongzhu demo --help``,
    where the options of ``demo`` are listed.
    """
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        owner: argparse.ArgumentParser = getattr(args, "command_parser", parser)
        owner.error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


if __name__ == "__main__":
    sys.exit(main())
