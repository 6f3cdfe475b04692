"""The ``gongzhu`` command: one entry point for the demo, and later play, eval, train, bench."""

from __future__ import annotations

import argparse
import sys

from agents import make_agent
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules


def cmd_demo(args: argparse.Namespace) -> int:
    """Play one seeded hand between four agents and print the table and the scores."""
    rules = Rules.coerce(args.rules)
    game = Game(rules, seed=args.seed)
    players = [make_agent(args.agent, seed=args.seed * 4 + s) for s in range(4)]
    for s, p in enumerate(players):
        p.reset(s, rules)
    while not game.is_over():
        seat = game.current_player
        game.step(players[seat].act(game.view(seat)))
    print(game.render())
    print("raw scores:", game.scores())
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="gongzhu", description="Gong Zhu (拱猪) RL toolkit.")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="play one seeded hand between agents and print it")
    demo.add_argument("--seed", type=int, default=0, help="seed of the deal and the agents")
    demo.add_argument("--agent", default="random", help="agent spec for all four seats")
    demo.add_argument("--rules", default="standard", help="rules preset name")
    demo.set_defaults(func=cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gongzhu`` console script."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
