"""Whether an ``--out`` path can take a run: the check every command that writes one shares.

``training.train`` and the three commands of ``training.expert_iteration`` (``labels``,
``rounds``, ``recipe``) each write a directory named by ``--out`` and resume from it. This
module imports nothing of theirs, so each can ask it before writing without an import circle
(``training.config`` checks label sets through ``training.expert_iteration.labels``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


def out_problem(out: str | os.PathLike[str], *, resume: bool, marker: str,
                what: str) -> str | None:
    """Say why ``out`` cannot hold ``what`` (``None`` when it can).

    A file at ``out`` or above it is in the way of the directory; ``resume`` needs ``marker``,
    the file a run of ``what`` writes first (``config.json``, ``state.json``...), since
    resuming where there is none would start a new run of hours beside the one meant. Every
    command that writes a run directory (``--out``) asks this before writing, so the user
    reads which path is wrong instead of a traceback from ``mkdir``.
    """
    path = Path(out)
    for where in (path, *path.parents):
        if where.exists() and not where.is_dir():
            why = "is a file" if where == path else f"lies under the file {where}"
            return f"--out {path} {why}, but the {what} needs a directory"
    if resume and not (path / marker).exists():
        return (f"cannot resume: {path} holds no {what} ({marker} is missing); leave out "
                "--resume to start one")
    return None


def taken_problem(out: str | os.PathLike[str], entries: Iterable[str], *,
                  what: str) -> str | None:
    """Say why starting a new ``what`` in ``out`` would replace one (``None`` when it would not).

    ``entries`` are the names a run of ``what`` writes in its directory. Starting afresh where
    one of them holds something writes the new run's files over the old run's (its policy,
    its config) and mixes the rest (periodic policies, logs): hours of someone's work lost
    without a word. So a command that starts a run asks this first, and starts only when
    the person said which they meant: continue the run (``--resume``), leave it and write
    elsewhere (a new ``--out``), or replace it (``--overwrite``). An empty directory is
    nothing to lose.
    """
    path = Path(out)
    found = [name for name in entries if _holds_something(path / name)]
    if not found:
        return None
    shown = ", ".join(found[:3]) + (", ..." if len(found) > 3 else "")
    return (f"--out {path} already holds a {what} ({shown}); nothing was changed. Continue it "
            "with --resume, choose a new --out, or pass --overwrite to replace it")


def _holds_something(path: Path) -> bool:
    """Tell a file, a link or a directory with anything in it from nothing (an empty folder)."""
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        return True
    return path.is_dir() and any(path.iterdir())
