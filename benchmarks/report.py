"""What every search benchmark does around its measurement: one torch thread, the machine's
load printed first (so a reader can judge a loaded run), the rows saved as JSON if asked."""

from __future__ import annotations

import json
import os
from typing import Any


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
