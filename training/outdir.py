"""Whether an ``--out`` path can take a run: the check every command that writes one shares.

``training.train`` and the three commands of ``training.expert_iteration`` (``labels``,
``rounds``, ``recipe``) each write a directory named by ``--out`` and resume from it. This
module imports nothing of theirs, so each can ask it before writing without an import circle
(``training.config`` checks label sets through ``training.expert_iteration.labels``).
"""

from __future__ import annotations

import os
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
