"""Execute the notebooks in place and normalise them, so they are stored with their outputs.

    python notebooks/execute.py                  # every notebook in notebooks/
    python notebooks/execute.py notebooks/02_baselines_and_arena.ipynb
    python notebooks/execute.py --check          # execute, compare, write nothing

The notebooks are committed executed, so that a reader of the repository page sees their
tables, renderings and plots without running them. Every cell is seeded and prints nothing that
depends on the machine or the clock, so executing them again gives the same file byte for byte:
a change in a stored notebook is a change in what the code does.

Each notebook runs in a fresh kernel with the notebooks directory as working directory and this
checkout first on ``PYTHONPATH`` (so the checkout's code runs even if the package is installed
from elsewhere). A cell that raises stops the script and leaves that notebook untouched. The
result is normalised before it is written: no execution timestamps, no kernel details beyond the
kernelspec, consecutive writes to a stream joined into one output, and the layout nbformat
writes.

``--check`` executes and reports the notebooks whose stored content differs from a fresh run
(exit status 1), without writing anything.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CELL_TIMEOUT_S = 900
"""Longest a single cell may run before the execution is abandoned."""
KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}
"""The only notebook-level metadata kept."""


def _kernel_env() -> dict[str, str]:
    """Environment of the kernel: this checkout first on the path, hashing fixed."""
    env = dict(os.environ)
    paths = [str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["PYTHONHASHSEED"] = "0"
    return env


def normalise(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Drop what changes from run to run or machine to machine but says nothing about outputs."""
    nb.metadata = nbformat.from_dict({"kernelspec": dict(KERNELSPEC)})
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("collapsed", None)
        cell.metadata.pop("scrolled", None)
        if cell.cell_type != "code":
            continue
        cell.outputs = _merge_streams(cell.outputs)
        for out in cell.outputs:
            if "metadata" in out:
                out.metadata.pop("execution", None)
    return nb


def _merge_streams(outputs: list) -> list:
    """Join consecutive writes to the same stream into one output.

    How the kernel splits a cell's printing into messages depends on timing (a busy machine
    flushes in the middle of a line); a reader sees the same text either way.
    """
    merged: list = []
    for out in outputs:
        prev = merged[-1] if merged else None
        if (out.output_type == "stream" and prev is not None
                and prev.output_type == "stream" and prev.name == out.name):
            prev.text += out.text
        else:
            merged.append(out)
    return merged


def execute(path: Path) -> str:
    """Execute one notebook in a fresh kernel; return its normalised text (not written)."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=CELL_TIMEOUT_S, kernel_name=KERNELSPEC["name"],
        resources={"metadata": {"path": str(path.parent)}}, record_timing=False)
    client.execute(env=_kernel_env())
    text = nbformat.writes(normalise(nb))
    return text if text.endswith("\n") else text + "\n"


def main(argv: list[str] | None = None) -> int:
    """Execute the given notebooks (default: all of them); return the exit status."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("notebooks", nargs="*", type=Path,
                   help="notebooks to execute (default: notebooks/*.ipynb)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 if a fresh run differs from a stored notebook")
    args = p.parse_args(argv)
    paths = [n.resolve() for n in args.notebooks] or sorted(HERE.glob("*.ipynb"))
    differ = []
    for path in paths:
        t0 = time.perf_counter()
        text = execute(path)
        old = path.read_text(encoding="utf-8")
        changed = text != old
        if changed and not args.check:
            path.write_text(text, encoding="utf-8")
        if changed:
            differ.append(path.name)
        verb = ("differs" if args.check else "updated") if changed else "unchanged"
        print(f"{path.name}: {verb} ({time.perf_counter() - t0:.0f} s, "
              f"{len(text.encode('utf-8')) / 1024:.0f} KiB)", flush=True)
    if args.check and differ:
        print(f"stored notebooks differ from a fresh run: {', '.join(differ)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
