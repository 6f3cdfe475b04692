"""A journal of finished arena deals, so that an interrupted duplicate match can resume.

A match against a search player is long (4,000 deals against ``pimc`` take over an hour on two
cores) and a stopped process used to lose every deal it had played. With a journal, each chunk
of deals a worker finishes is appended to a JSON-lines file; a later run of the *same* match
with ``resume=True`` reads those deals back and plays only the rest. The arena seeds every
agent per deal, seat and play (``training.arena.hands.agent_seed``), so a resumed match gives the
numbers of an uninterrupted one, deal for deal.

"Same match" is checked, not assumed: the first line of the file records the candidate and
opponent specs, the duplicate mode, the rules, the seed and a fingerprint of every policy file
the specs load; each deal line records a digest of that deal's hands. A journal written for
anything else is refused with the difference named, never silently mixed in. Because a deal is
matched by its index and hands, a journal of a 1,000-deal run also serves the first 1,000 deals
of a 4,000-deal run with the same deal seed (deal sets are prefix-consistent).

A run killed in the middle of a write leaves at most one truncated last line; it is ignored
(that chunk is played again). Damage anywhere else is an error naming the line.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gongzhu_env.rules import Rules

FORMAT = 1
Row = tuple[int, list[list[int]], list[tuple[int, ...]] | None]
"""One finished deal as the arena's workers return it: index, raw scores per play, actions."""


class JournalError(ValueError):
    """The journal file belongs to another match, or is damaged."""


def deal_digest(hands: np.ndarray) -> str:
    """Short digest of one deal's hands (shape ``(players, hand_size)``), to tell deals apart.

    The bytes alone do not say how they divide into hands, but the journal's header records
    the rules (and so the table size), which fix the shape.
    """
    return hashlib.sha256(np.ascontiguousarray(hands, dtype=np.int8).tobytes()).hexdigest()[:16]


def spec_fingerprint(spec: str) -> str | None:
    """SHA-256 of the policy file a ``policy:`` spec loads (None for rule and search agents).

    A spec names a file, not its contents: retraining into the same path must not let an old
    journal stand in for the new weights.
    """
    name, _, arg = spec.partition(":")
    if name.strip() != "policy":
        return None
    from agents.policy import resolve_policy_path  # torch is needed only for policies

    path = resolve_policy_path(arg.strip())
    return hashlib.sha256(path.read_bytes()).hexdigest()


def match_identity(candidate: str, opponent: str, mode: str, rules: Rules,
                   seed: int) -> dict[str, Any]:
    """Everything that decides a deal's outcome besides the deal itself."""
    return {"candidate": candidate, "opponent": opponent, "mode": mode,
            "rules": rules.to_dict(), "seed": seed,
            "fingerprints": {"candidate": spec_fingerprint(candidate),
                             "opponent": spec_fingerprint(opponent)}}


def journal_name(candidate: str, opponent: str, mode: str) -> str:
    """File name for a match's journal inside a run directory (specs made file-safe)."""
    def safe(text: str) -> str:
        return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:80]

    return f"{safe(candidate)}__vs__{safe(opponent)}__{mode}.jsonl"


class ArenaJournal:
    """Append-only record of the deals of one match (see the module docstring)."""

    def __init__(self, path: str | os.PathLike[str], identity: dict[str, Any]) -> None:
        self.path = Path(path)
        # Compared with the header read back from JSON, so keep it in JSON's own types.
        self.identity = json.loads(json.dumps(identity))

    def open(self, hands: np.ndarray, *, resume: bool) -> dict[int, Row]:
        """Prepare the file for appending; return the deals a previous run already finished.

        Without ``resume`` an existing journal is an error rather than overwritten: it may hold
        an hour of a search player's games. A truncated last line (a kill mid-write) is cut off
        so that appended deals start on a line of their own.
        """
        if not self.path.exists():
            self.start()
            return {}
        if not resume:
            raise JournalError(
                f"{self.path} already holds deals of an arena match (an earlier run was "
                "interrupted). Pass --resume (resume=True) to continue it, or remove the file "
                "to start afresh.")
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            with self.path.open("r+b") as f:
                f.truncate(data.rfind(b"\n") + 1)
        rows = self.load(hands)
        if rows is None:
            self.start()
            return {}
        return rows

    def load(self, hands: np.ndarray) -> dict[int, Row] | None:
        """Return the finished deals of this match among ``hands`` (the run's deal set).

        None when the file holds no complete header (cut before it was written).

        Deals journalled beyond the run's last index are ignored (a shorter run reuses a longer
        one's prefix); a deal whose hands differ from the run's deal at the same index, or a
        header for another match, raises ``JournalError``.
        """
        try:
            lines = self.path.read_text(encoding="utf-8").split("\n")
        except OSError as e:
            raise JournalError(f"cannot read the arena journal {self.path}: {e}") from None
        complete = lines[:-1] if lines and lines[-1] == "" else lines
        header = self._parse(complete[0] if complete else "", 1, last=len(complete) <= 1)
        if header is None:
            return None
        if header.get("journal") != FORMAT or "match" not in header:
            raise JournalError(f"{self.path} line 1 is not an arena journal header "
                               f"(format {FORMAT}); got {str(header)[:200]}")
        if header["match"] != self.identity:
            what = _difference(header["match"], self.identity)
            raise JournalError(f"{self.path} records a different match: {what}. Remove the "
                               "file (or use another --out) to start this match afresh.")
        rows: dict[int, Row] = {}
        for i, text in enumerate(complete[1:], start=2):
            doc = self._parse(text, i, last=i == len(complete))
            if doc is None:
                continue
            try:
                d, digest, scores = int(doc["deal"]), str(doc["hands"]), doc["scores"]
                actions = doc.get("actions")
            except (KeyError, TypeError, ValueError) as e:
                raise JournalError(f"{self.path} line {i}: not a deal record ({e!r})") from None
            if not 0 <= d < len(hands):
                continue
            if digest != deal_digest(hands[d]):
                raise JournalError(
                    f"{self.path} line {i}: deal {d} was played with other hands than deal {d} "
                    "of this run (another deal seed or deal file). Remove the file or use "
                    "another --out.")
            rows[d] = (d, scores, None if actions is None else [tuple(a) for a in actions])
        return rows

    def _parse(self, text: str, line: int, *, last: bool) -> dict[str, Any] | None:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError:
            if last:  # a write cut short by a kill: that chunk is simply played again
                return None
            raise JournalError(f"{self.path} line {line} is not valid JSON: the journal is "
                               "damaged; remove it to start the match afresh") from None
        if not isinstance(doc, dict):
            raise JournalError(f"{self.path} line {line}: expected a JSON object, got "
                               f"{type(doc).__name__}")
        return doc

    def start(self) -> None:
        """Create the file with just its header (also over a file cut inside its header)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps({"journal": FORMAT, "match": self.identity}) + "\n",
                             encoding="utf-8")

    def append(self, rows: Iterable[Row], hands: np.ndarray) -> None:
        """Add finished deals and push them to disk before the next chunk starts."""
        text = "".join(
            json.dumps({"deal": d, "hands": deal_digest(hands[d]), "scores": scores,
                        "actions": None if actions is None else [list(a) for a in actions]})
            + "\n" for d, scores, actions in rows)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())


def _difference(old: dict[str, Any], new: dict[str, Any]) -> str:
    keys: Sequence[str] = sorted(set(old) | set(new))
    diffs = [f"{k} {old.get(k)!r} there, {new.get(k)!r} here" for k in keys
             if old.get(k) != new.get(k)]
    return "; ".join(diffs)[:400]
