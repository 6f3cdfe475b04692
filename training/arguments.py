"""What every command line of the project shares: its parser, its error line, its seed.

``gongzhu`` (``gongzhu_cli.main``), ``python -m training`` (``training.cli``) and the commands
behind both (``train``, ``eval``, ``select``, ``labels``...) parse their arguments with
``CommandParser`` and read ``--seed`` with ``seed_argument``, so that

* a mistake on any command line is reported the same way: one line naming the command, what
  was wrong and where the options are listed (``see 'gongzhu play --help'``), instead of
  argparse's usage block of up to 34 lines above the one line that matters;
* a seed means the same range everywhere (``0..MAX_SEED``): a seed that one command takes is
  never refused by another, and ``gongzhu demo --seed`` cannot take a number that
  ``gongzhu train --seed`` would refuse.

The module imports nothing but the standard library: ``gongzhu play`` reads its arguments with
it and must not pay for torch.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
from collections.abc import Iterator
from typing import NoReturn

MAX_SEED = 2**32 - 1
"""Largest seed any command takes. Training hands its seed to numpy's global generator and to
stable-baselines3, which take seeds below 2**32 only (``training.run.seed_everything``); the
other commands share the bound so that a seed can move between them (a deal played with
``gongzhu play --seed S`` is the deal ``gongzhu demo --seed S`` shows)."""

TRAINING_FRONT = "python -m training"
"""How the training commands are run when no other front names them."""

_front: contextvars.ContextVar[str | None] = contextvars.ContextVar("front", default=None)


@contextlib.contextmanager
def invoked_as(front: str) -> Iterator[None]:
    """Name the front a command runs under (``gongzhu``), so its messages name it too.

    ``gongzhu eval`` and ``python -m training eval`` run the same ``main(argv)``; a person who
    typed the first should be told ``see 'gongzhu eval --help'``, not the second.
    """
    token = _front.set(front)
    try:
        yield
    finally:
        _front.reset(token)


def command_prog(command: str, alone: str | None = None) -> str:
    """Return the name of ``command`` as the person typed it: ``FRONT COMMAND``.

    ``FRONT`` is the one ``invoked_as`` set; when none is set (the module's ``main`` called
    directly), ``alone`` if given, else ``python -m training COMMAND``.
    """
    front = _front.get()
    if front is not None:
        return f"{front} {command}"
    return alone if alone is not None else f"{TRAINING_FRONT} {command}"


class CommandParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line: the command, the error, where to look.

    Subcommand parsers made with ``add_subparsers`` are of this class too (argparse makes them
    of the parent's class), each named by its own ``prog`` (``gongzhu play``).
    """

    def error(self, message: str) -> NoReturn:
        """Print ``PROG: error: MESSAGE; see 'PROG --help'`` on stderr and exit with status 2."""
        self.exit(2, f"{self.prog}: error: {message}; see '{self.prog} --help'\n")


def seed_argument(text: str) -> int:
    """Read a ``--seed``: a whole number ``0..MAX_SEED`` (the ``type`` of every ``--seed``)."""
    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number 0..{MAX_SEED}; got {text!r}") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(
            f"expected a whole number 0..{MAX_SEED}; got {value}")
    return value


__all__ = ["MAX_SEED", "CommandParser", "command_prog", "invoked_as", "seed_argument"]
