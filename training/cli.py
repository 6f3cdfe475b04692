"""``python -m training COMMAND ...``: every command of the training package, in one place.

==================  ========================================================================
``train``           train a policy by self-play and evaluate it (``training.train``; also
                    ``gongzhu train``)
``eval``            the duplicate arena (``training.arena.cli``; also ``gongzhu eval``)
``compare``         two arena journals of the same deals, paired per deal
                    (``training.arena.compare``)
``select``          pick the best of a run's periodic policies (``training.select``)
``labels``          search labels for expert iteration (``training.expert_iteration.labels``)
``expert-iteration``  rounds of labels, fine-tune and gate (``training.expert_iteration.rounds``)
``recipe``          the shipped standard network's whole recipe
                    (``training.expert_iteration.recipe``)
==================  ========================================================================

Each command's module is imported only when it runs (``train`` loads torch, ``labels`` the
search), and the arguments after the command are its own: ``python -m training train --help``.
"""

from __future__ import annotations

import importlib
import sys

from training.arguments import TRAINING_FRONT

COMMANDS: dict[str, tuple[str, str]] = {
    "train": ("training.train", "train a policy by self-play and evaluate it"),
    "eval": ("training.arena.cli", "rank agents against each other in the duplicate arena"),
    "compare": ("training.arena.compare",
                "pair two arena journals of the same deals, deal by deal"),
    "select": ("training.select", "pick the best of a run's periodic policies"),
    "labels": ("training.expert_iteration.labels", "make search labels for expert iteration"),
    "expert-iteration": ("training.expert_iteration.rounds",
                         "rounds of search labels, a fine-tune on them and a gate"),
    "recipe": ("training.expert_iteration.recipe",
               "rebuild the shipped standard network (self-play, then expert iteration)"),
}
"""Command -> (module whose ``main(argv)`` runs it, what it does)."""


def usage() -> str:
    """Return the list of commands, as ``--help`` and a wrong command print it."""
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {what}" for name, (_, what) in COMMANDS.items()]
    return ("usage: python -m training COMMAND [ARGS...]\n\ncommands:\n" + "\n".join(lines)
            + "\n\n'python -m training COMMAND --help' shows a command's arguments.")


def main(argv: list[str] | None = None) -> int:
    """Run one command; return its exit code (2 for an unknown command)."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] in ("-h", "--help"):
        print(usage())
        return 0
    # A wrong command is one line, as every command's own errors are (training.arguments):
    # what was wrong, what was expected, and where the full list is.
    if not args or args[0] not in COMMANDS:
        what = f"unknown command {args[0]!r}" if args else "no command given"
        print(f"{TRAINING_FRONT}: error: {what}; expected one of {', '.join(COMMANDS)}; see "
              f"'{TRAINING_FRONT} --help'", file=sys.stderr)
        return 2
    command, rest = args[0], args[1:]
    module = importlib.import_module(COMMANDS[command][0])
    return int(module.main(rest))


__all__ = ["COMMANDS", "main"]
