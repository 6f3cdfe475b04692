"""Arena results for people: rich tables for the terminal, Markdown for run directories, JSON.

``rich`` is imported only when a terminal table is built (it comes with the ``[train]`` and
``[dev]`` extras), so a caller that only wants Markdown or JSON does not need it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from training.arena.duplicate import MatchResult
from training.arena.round_robin import RoundRobinResult


def shared_unit(results: Sequence[MatchResult]) -> str:
    """Name the unit all ``results`` are counted in, or point to the JSON if they differ."""
    units = {r.unit for r in results}
    return units.pop() if len(units) == 1 else "see each result's unit"


def match_table(results: Sequence[MatchResult], title: str = "Duplicate results"):
    """Build a rich table of match results (mean with CI, std, win/tie rates, deals).

    The title names the unit (points/hand, or team points/deal in the team format), so a team
    margin is never read as a per-hand one.
    """
    from rich.table import Table

    t = Table(title=f"{title} ({shared_unit(results)})")
    for col in ("candidate", "opponent", "mode", "mean", "95% CI", "std", "win", "tie", "deals",
                "hands/s"):
        t.add_column(col, justify="left" if col in ("candidate", "opponent", "mode")
                     else "right")
    for r in results:
        s = r.stats
        rate = r.hands_played / r.elapsed if r.elapsed > 0 else float("nan")
        t.add_row(r.candidate, r.opponent, r.format, f"{s.mean:+.2f}",
                  f"[{s.ci_low:+.2f}, {s.ci_high:+.2f}]", f"{s.std:.1f}",
                  f"{s.win_rate:.1%}", f"{s.tie_rate:.1%}", str(s.n), f"{rate:.0f}")
    return t


def rating_table(rr: RoundRobinResult):
    """Build a rich table of the round-robin ratings and pairwise mean differences."""
    from rich.table import Table

    t = Table(title=f"Bradley–Terry ratings (Elo scale, {rr.ratings.anchor} = 0; pairwise "
                    f"means in {rr.unit})")
    t.add_column("rank", justify="right")
    t.add_column("agent")
    t.add_column("rating", justify="right")
    m = rr.mean_matrix()
    for name in rr.names:
        t.add_column(f"vs {name}", justify="right")
    index = {n: i for i, n in enumerate(rr.names)}
    for rank, (name, rating) in enumerate(rr.ratings.ranking(), start=1):
        i = index[name]
        t.add_row(str(rank), name, f"{rating:+.0f}",
                  *("—" if i == j else f"{m[i, j]:+.1f}" for j in range(len(rr.names))))
    return t

def markdown_table(results: Sequence[MatchResult]) -> str:
    """Format match results as a Markdown table (mean vs each opponent in its unit, 95 % CI)."""
    lines = [f"| opponent | {shared_unit(results)} | 95 % CI | win rate | deals |",
             "|---|---:|---|---:|---:|"]
    for r in results:
        s = r.stats
        lines.append(f"| {r.opponent} | {s.mean:+.1f} | [{s.ci_low:+.1f}, {s.ci_high:+.1f}] | "
                     f"{s.win_rate:.1%} | {s.n} |")
    return "\n".join(lines)


def output_file_problem(path: str | Path) -> str | None:
    """Say why a new output file cannot be written at ``path``, or return None when it can.

    Commands ask this before they do any work, so that a run is never lost at its end to a
    typo in the path. The directory must already exist: creating it would turn a typo such as
    ``/nonexistent/x.json`` into a new directory at the filesystem root (``gongzhu play --save``
    refuses it too). An existing path must be a regular file: a directory cannot be written,
    and a device or pipe (``/dev/full``, ``/dev/zero``) is not a place for results.
    """
    path = Path(path)
    if path.is_dir():
        return "it is a directory; give a file name"
    if path.exists() and not path.is_file():
        return "it is not a regular file"
    parent = path.parent
    if not parent.is_dir():
        why = "is not a directory" if parent.exists() else "does not exist"
        return f"the directory {str(parent)!r} {why} (it is not created)"
    return None


def output_file_error(flag: str, path: str | Path) -> str | None:
    """Return the one-line refusal of ``flag PATH`` as an output file, or None when it is fine."""
    problem = output_file_problem(path)
    return None if problem is None else f"{flag} {str(path)!r}: cannot write there: {problem}"


def write_json(doc: dict[str, Any], path: str | Path) -> Path:
    """Write a JSON document whole (creating the directory).

    It goes to a temporary name first and is then renamed, so a run stopped mid-write leaves
    the previous document, never half of one: run records are read back to resume.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path
