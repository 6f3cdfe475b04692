"""What every search benchmark does around its measurement: its arguments checked first, one
torch thread, the machine's load printed first (so a reader can judge a loaded run), the rows
saved as JSON if asked."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from training.arena.reports import output_file_error


def check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace,
                    counts: dict[str, int]) -> None:
    """Refuse bad arguments before the measurement starts (``parser.error``: exit status 2).

    ``counts`` maps each count option to its largest value (each must be at least 1); the
    ``--seed`` must not be negative (numpy's seeds are not), and the ``--json`` file must be
    writable: a benchmark that runs for minutes and then fails to save its rows loses them.
    """
    for name, top in counts.items():
        value = getattr(args, name)
        if not 1 <= value <= top:
            parser.error(f"--{name.replace('_', '-')} must be an integer 1..{top:,}; "
                         f"got {value}")
    if args.seed < 0:
        parser.error(f"--seed must be a non-negative integer; got {args.seed}")
    error = args.json and output_file_error("--json", args.json)
    if error:
        parser.error(error)


def start_one_thread() -> None:
    """Run torch on one thread, as the arena's workers do, and print the load average."""
    import torch

    torch.set_num_threads(1)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)


def save_rows(rows: list[dict[str, Any]], path: str | None) -> None:
    """Write the result rows to ``path`` as JSON (nothing when no path was given)."""
    if path:
        with open(path, "w") as f:
            json.dump(rows, f, indent=1)
