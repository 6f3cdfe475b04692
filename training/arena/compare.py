"""``python -m training compare A B``: two arena journals of the same deals, paired per deal.

Two networks measured against the same opponent on the same deals (say two expert-iteration
rounds against ``pimc``, each match taking hours and kept in its journal) differ by less
than either match's CI. Their per-deal results on the deals both journals have finished,
differenced deal by deal, give the comparison without playing anything again: the deal's
own luck, which both matches share, drops out of the difference.

Both journals are read and verified as a resumed match reads them
(``training.arena.journal.ArenaJournal``): the digest chain, every field, and each deal's
hands against the deal set the header names (its rules and seed). Journals of other deal
sets, rules or duplicate formats cannot be paired and are refused with what differs.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gongzhu_env.integrity import ReadLimitError, read_lines
from gongzhu_env.rules import Rules
from training.arena.deals import generate_deals
from training.arena.formats import SCORINGS, paired_differences
from training.arena.journal import MAX_FILE_BYTES, ArenaJournal, JournalError
from training.arena.stats import Stats, summarize
from training.arguments import CommandParser, command_prog

PAIRED_KEYS = ("mode", "rules", "seed")
"""Header fields two journals must share to be paired: the same deals played the same way."""


@dataclass(frozen=True)
class Comparison:
    """Each match's result on the shared deals, and their per-deal difference (A minus B)."""

    first: str
    second: str
    deals: int
    a: Stats
    b: Stats
    difference: Stats


def _survey(path: Path) -> tuple[dict[str, Any], int]:
    """Return a journal's ``match`` header and one past the highest deal index it names.

    A quick look, read within the journal's own bounds, to know which deals to draw; the
    verified load (``_scores``) then checks every line against them.
    """
    try:
        with path.open("rb") as f:
            lines = read_lines(f, max_bytes=MAX_FILE_BYTES)
            match = json.loads(next(lines)[1])["match"]
            top = -1
            for _, raw, complete in lines:
                if complete:
                    top = max(top, int(json.loads(raw)["deal"]))
    except (OSError, ReadLimitError, StopIteration, ValueError, KeyError, TypeError) as e:
        raise JournalError(f"{path}: cannot read an arena journal ({e!r})") from None
    if not isinstance(match, dict) or not all(k in match for k in PAIRED_KEYS):
        raise JournalError(f"{path}: the first line is not an arena journal header")
    return match, top + 1


def _scores(path: Path, match: dict[str, Any], rules: Rules, known: int,
            limit: int | None) -> dict[int, list[list[int]]]:
    """Return the verified scores of a journal's finished deals (below ``limit``, if any)."""
    n = known if limit is None else min(known, limit)
    hands = generate_deals(max(n, 1), match["seed"], rules.decks, players=rules.players).hands
    rows = ArenaJournal(path, match).load(hands) or {}
    return {d: scores for d, (_, scores, _) in rows.items() if d < n}


def compare(first: str | Path, second: str | Path, *, deals: int | None = None,
            scoring: str = "raw", resamples: int = 2000) -> Comparison:
    """Pair two journals on the deals both finished (the first ``deals`` of them, if given).

    The bootstrap seed is the deal seed, as in the match reports, so each match's interval
    here is the one its own ``eval`` of the same deals prints.
    """
    a_path, b_path = Path(first), Path(second)
    (a_match, a_known), (b_match, b_known) = _survey(a_path), _survey(b_path)
    # Rules are compared as rules: a field added after a journal was written reads as its
    # default, as it does when the journal's match is resumed.
    rules = Rules.from_dict(a_match["rules"])
    differ = [k for k in PAIRED_KEYS if (rules != Rules.from_dict(b_match["rules"])
                                         if k == "rules" else a_match[k] != b_match[k])]
    if differ:
        raise JournalError(f"{a_path} and {b_path} cannot be paired: their {', '.join(differ)} "
                           "differ (pairing needs the same deals played in the same format)")
    a = _scores(a_path, a_match, rules, a_known, deals)
    b = _scores(b_path, b_match, rules, b_known, deals)
    shared = sorted(set(a) & set(b))
    if not shared:
        raise JournalError(f"{a_path} and {b_path} have no finished deal in common")
    mode, seed = a_match["mode"], a_match["seed"]
    da = paired_differences(np.array([a[d] for d in shared]), mode, scoring, rules)
    db = paired_differences(np.array([b[d] for d in shared]), mode, scoring, rules)
    return Comparison(f"{a_match['candidate']} vs {a_match['opponent']}",
                      f"{b_match['candidate']} vs {b_match['opponent']}", len(shared),
                      summarize(da, seed=seed, resamples=resamples),
                      summarize(db, seed=seed, resamples=resamples),
                      summarize(da - db, seed=seed, resamples=resamples))


def report(c: Comparison) -> str:
    """Return the comparison as the lines the command prints."""
    def row(label: str, s: Stats) -> str:
        return (f"{label}: {s.mean:+.1f} [{s.ci_low:+.1f}, {s.ci_high:+.1f}], "
                f"{s.win_rate:.1%} of deals won")

    return "\n".join([f"{c.deals:,} deals finished in both journals",
                      row(f"A  {c.first}", c.a), row(f"B  {c.second}", c.b),
                      row("A - B, per deal", c.difference)])


def main(argv: list[str] | None = None) -> int:
    """Print both matches' results on their shared deals and the paired difference."""
    p = CommandParser(prog=command_prog("compare"), description=__doc__.split("\n\n")[0])
    p.add_argument("first", help="journal A (a .jsonl under an eval run's journal/)")
    p.add_argument("second", help="journal B, of the same deal seed, rules and format")
    p.add_argument("--deals", type=int, default=None,
                   help="use only deals below this index (the first N deals of the seed)")
    p.add_argument("--scoring", choices=SCORINGS, default="raw",
                   help="how scores become differences, as in eval (default raw)")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (2000)")
    args = p.parse_args(argv)
    if args.deals is not None and args.deals < 1:
        p.error(f"--deals must be at least 1, got {args.deals}")
    try:
        print(report(compare(args.first, args.second, deals=args.deals,
                             scoring=args.scoring, resamples=args.resamples)))
    except (JournalError, ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


__all__ = ["Comparison", "compare", "main", "report"]
