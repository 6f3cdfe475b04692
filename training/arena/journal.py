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

Integrity (format 2). The numbers read back go straight into the match result, so a journal's
content is verified before any of it is used:

* every line carries ``"digest"``, the SHA-256 of the canonical JSON of the line's other fields
  together with the line's number and the previous line's digest (a chain). Editing a line,
  duplicating it, swapping two lines or removing one from the middle breaks the chain at that
  line, which is refused by number. The digest is a check against damage and careless edits,
  not a signature (it has no secret);
* every line is read with bounded length, nesting and number size (``gongzhu_env.integrity``),
  and its fields are checked for type, shape and range before use: the deal index, the scores
  (one list of ``rules.players`` integers per play of the duplicate format, never a string or a
  bool) and the actions (legal action numbers). A deal journalled twice is refused;
* a file that cannot be read (a directory, a device, not UTF-8) is an error, not a traceback;
  the file is read line by line within bounds (``MAX_FILE_BYTES``, and
  ``gongzhu_env.integrity.MAX_LINE_BYTES`` a line), and each line is checked as it is read, so
  a huge or endless file is refused at its first bad line or at the bound, never read whole.

A run killed in the middle of a write leaves at most one truncated last line (no newline after
it). It is dropped when it can be the start of a line this module writes (that chunk is played
again); a cut header must be the start of this match's header. Damage anywhere else is an error
naming the file and the line, never a silent restart. Journals of format 1 (without digests)
are refused with that said; they can only come from an older version mid-run.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np

from gongzhu_env.integrity import (
    ReadLimitError,
    StrictJSONError,
    check_regular,
    content_digest,
    is_int,
    printable,
    read_lines,
    strict_loads,
)
from gongzhu_env.rules import Rules
from training.arena.formats import seatings

FORMAT = 2
Row = tuple[int, list[list[int]], list[tuple[int, ...]] | None]
"""One finished deal as the arena's workers return it: index, raw scores per play, actions."""

MAX_SCORE = 10**6
"""Largest raw hand score magnitude accepted; far beyond any hand (a few thousand at most)."""
MAX_ACTIONS = 1_000
"""Most actions one play of a deal may record (a two-deck hand has 104 plays and declarations)."""
MAX_FILE_BYTES = 2**32
"""Largest journal read (4 GiB). A deal's line is 1-2.5 KB (actions of every play included):
a million-deal match, the arena's most, at eight seats journals about 2.2 GB."""
_DEAL_KEYS = frozenset({"deal", "hands", "scores", "actions", "digest"})
_HEADER_KEYS = frozenset({"journal", "match", "digest"})


class JournalError(ValueError):
    """The journal file belongs to another match, or is damaged."""


def deal_digest(hands: np.ndarray) -> str:
    """Short digest of one deal's hands (shape ``(players, hand_size)``), to tell deals apart.

    The bytes alone do not say how they divide into hands, but the journal's header records
    the rules (and so the table size), which fix the shape.
    """
    return hashlib.sha256(np.ascontiguousarray(hands, dtype=np.int8).tobytes()).hexdigest()[:16]


def line_digest(line: int, previous: str, fields: dict[str, Any]) -> str:
    """Digest of one journal line: its fields (without ``digest``), number and predecessor.

    Chaining over the previous line's digest is what makes a removed, repeated or moved line
    detectable: each line vouches for everything before it.
    """
    return content_digest({"line": line, "previous": previous, "fields": fields})


def spec_fingerprint(spec: str) -> str | None:
    """SHA-256 of the policy file a ``policy:`` spec loads (None for rule and search agents).

    A spec names a file, not its contents: retraining into the same path must not let an old
    journal stand in for the new weights.
    """
    name, _, arg = spec.partition(":")
    if name.strip() != "policy":
        return None
    from agents.factory import policy_spec_parts
    from agents.policy import resolve_policy_path  # torch is needed only for policies

    path = resolve_policy_path(policy_spec_parts(arg)[0].strip())  # the file, not ",device="
    try:
        check_regular(path)  # a device would be hashed forever
        digest = hashlib.sha256()
        with path.open("rb") as f:
            while chunk := f.read(1 << 20):  # in pieces: a policy file may be large
                digest.update(chunk)
    except ReadLimitError as e:
        raise JournalError(f"policy file {printable(path)} {e.problem}") from None
    except OSError as e:
        raise JournalError(f"cannot read the policy file {printable(path)}: "
                           f"{e.strerror or e}") from None
    return digest.hexdigest()


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
        rules = Rules.from_dict(self.identity["rules"])
        self._players = rules.players
        self._plays = len(seatings(self.identity["mode"], rules))
        self._num_actions = rules.num_actions
        self._last_digest = ""  # the digest the next appended line chains onto
        self._lines = 0  # complete lines in the file
        self._complete_bytes = 0  # their length, newlines included (as last verified)
        self._cut = 0  # the length of a last line cut short (as last verified)

    def open(self, hands: np.ndarray, *, resume: bool) -> dict[int, Row]:
        """Prepare the file for appending; return the deals a previous run already finished.

        Without ``resume`` an existing journal is an error rather than overwritten: it may hold
        an hour of a search player's games. A truncated last line (a kill mid-write) is cut off
        so that appended deals start on a line of their own; it is cut only once the rest of
        the file has been verified, so a refused journal is left exactly as it was.
        """
        if self.path.is_dir():
            raise JournalError(f"the arena journal {self.path} is a directory, not a file; "
                               "remove it or use another --out")
        if not self.path.exists():
            self.start()
            return {}
        self._check_regular()
        if not resume:
            raise JournalError(
                f"{self.path} already holds deals of an arena match (an earlier run was "
                "interrupted). Pass --resume (resume=True) to continue it, or remove the file "
                "to start afresh.")
        with closing(self._read()) as lines:
            rows = self._verify(lines, hands)
        if rows is None:  # cut inside the header: nothing was finished yet
            self.start()
            return {}
        if self._cut:
            try:
                with self.path.open("r+b") as f:
                    f.truncate(self._complete_bytes)
            except OSError as e:
                raise JournalError(f"cannot repair the cut last line of {self.path}: "
                                   f"{e.strerror or e}") from None
        return rows

    def load(self, hands: np.ndarray) -> dict[int, Row] | None:
        """Return the finished deals of this match among ``hands`` (the run's deal set).

        None when the file holds no complete header (cut before it was written). The file is
        verified as described in the module docstring and not changed.

        Deals journalled beyond the run's last index are ignored (a shorter run reuses a longer
        one's prefix); a deal whose hands differ from the run's deal at the same index, a
        header for another match or any damage raises ``JournalError``.
        """
        with closing(self._read()) as lines:
            return self._verify(lines, hands)

    def _check_regular(self) -> None:
        try:
            check_regular(self.path)
        except ReadLimitError as e:
            raise JournalError(f"the arena journal {printable(self.path)} {e.problem}; "
                               "remove it or use another --out") from None
        except OSError as e:
            raise JournalError(f"cannot read the arena journal {self.path}: "
                               f"{e.strerror or e}") from None

    def _read(self) -> Iterator[tuple[int, bytes, bool]]:
        """Yield the file's lines as ``integrity.read_lines`` does; errors as ``JournalError``."""
        self._check_regular()
        try:
            with self.path.open("rb") as f:
                yield from read_lines(f, max_bytes=MAX_FILE_BYTES)
        except ReadLimitError as e:
            where = printable(self.path) if e.line is None else \
                f"{printable(self.path)} line {e.line}"
            raise JournalError(f"{where} {e.problem}: the file is not an arena journal; remove "
                               "it or use another --out") from None
        except OSError as e:
            raise JournalError(f"cannot read the arena journal {self.path}: "
                               f"{e.strerror or e}") from None

    def _verify(self, lines: Iterable[tuple[int, bytes, bool]],
                hands: np.ndarray) -> dict[int, Row] | None:
        """Check the file's lines as they are read; see ``load``.

        Sets ``_complete_bytes`` (the length of the complete lines) and ``_cut`` (the length
        of a last line without its newline, 0 if none) for ``open``.
        """
        previous = ""
        rows: dict[int, Row] = {}
        chunks, size, partial = 0, 0, b""
        for i, raw, complete in lines:
            if not complete:  # the last line, cut short: checked below
                partial = raw
                break
            chunks, size = i, size + len(raw) + 1
            doc = self._parse(raw, i)
            fields = {k: v for k, v in doc.items() if k != "digest"}
            stored = doc.get("digest")
            if i == 1:
                self._check_header(doc)
            if stored != line_digest(i, previous, fields):
                raise JournalError(self._where(
                    i, "fails its integrity check (the line was edited, duplicated or moved, "
                       "or a line before it was removed); the journal cannot be trusted: "
                       "remove it to start the match afresh"))
            previous = stored
            if i == 1:
                continue
            row, digest = self._deal_row(fields, i)
            d = row[0]
            if d in rows:
                raise JournalError(self._where(i, f"records deal {d} a second time"))
            if d >= len(hands):
                continue
            if digest != deal_digest(hands[d]):
                raise JournalError(
                    f"{self.path} line {i}: deal {d} was played with other hands than deal {d} "
                    "of this run (another deal seed or deal file). Remove the file or use "
                    "another --out.")
            rows[d] = row
        if not chunks:  # not even the header is complete
            if self._header_bytes().startswith(partial):
                return None
            raise JournalError(self._where(1, "is not the start of an arena journal header "
                                              "(the file is damaged or not a journal); remove "
                                              "it to start the match afresh"))
        if partial and not self._plausible_cut(partial):
            raise JournalError(self._where(
                chunks + 1, "(the last, without a newline) is not a line cut short by an "
                "interrupted write: the journal is damaged; remove it to start afresh"))
        self._last_digest, self._lines = previous, chunks
        self._complete_bytes, self._cut = size, len(partial)
        return rows

    def _where(self, line: int, problem: str) -> str:
        return f"{printable(self.path)} line {line} {problem}"

    def _parse(self, raw: bytes, line: int) -> dict[str, Any]:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise JournalError(self._where(line, "is not UTF-8 text: the journal is damaged; "
                                                 "remove it to start the match afresh")) from None
        try:
            doc = strict_loads(text)
        except StrictJSONError as e:
            if str(e).startswith("not valid JSON"):
                raise JournalError(self._where(line, "is not valid JSON: the journal is "
                                                     "damaged; remove it to start the match "
                                                     "afresh")) from None
            raise JournalError(self._where(line, f"cannot be read: {e}")) from None
        if not isinstance(doc, dict):
            raise JournalError(self._where(line, f"is not a JSON object (got "
                                                 f"{_json_type(doc)}): the journal is damaged"))
        return doc

    def _check_header(self, doc: dict[str, Any]) -> None:
        if doc.get("journal") == 1 and "digest" not in doc:
            raise JournalError(self._where(1, "is the header of a format-1 journal (an older "
                                              "version, without integrity digests); remove "
                                              "the file to start the match afresh"))
        if set(doc) != _HEADER_KEYS or doc["journal"] != FORMAT or not is_int(doc["journal"]):
            raise JournalError(self._where(1, f"is not an arena journal header (format "
                                              f"{FORMAT}); got {printable(doc, 200)}"))
        match = doc["match"]
        if not isinstance(match, dict):
            raise JournalError(self._where(1, f"has 'match' of type {_json_type(match)}; "
                                              "expected an object"))
        if match != self.identity:
            what = _difference(match, self.identity)
            raise JournalError(f"{printable(self.path)} records a different match: {what}. "
                               "Remove the file (or use another --out) to start this match "
                               "afresh.")

    def _deal_row(self, fields: dict[str, Any], line: int) -> tuple[Row, str]:
        """Check a deal line's fields (type, shape, range); return its row and hands digest."""
        def bad(what: str) -> JournalError:
            return JournalError(self._where(line, f"is not a valid deal record: {what}"))

        if set(fields) != _DEAL_KEYS - {"digest"}:
            raise bad(f"fields {sorted(fields)}; expected {sorted(_DEAL_KEYS)}")
        d, digest, scores, actions = (fields["deal"], fields["hands"], fields["scores"],
                                      fields["actions"])
        if not is_int(d) or d < 0:
            raise bad(f"'deal' must be a non-negative integer, got {_show(d)}")
        if not (isinstance(digest, str) and len(digest) == 16
                and all(c in "0123456789abcdef" for c in digest)):
            raise bad(f"'hands' must be a digest of 16 hex digits, got {_show(digest)}")
        plays, n = self._plays, self._players
        if not (isinstance(scores, list) and len(scores) == plays and all(
                isinstance(p, list) and len(p) == n
                and all(is_int(s) and abs(s) <= MAX_SCORE for s in p) for p in scores)):
            raise bad(f"'scores' must be {plays} lists (one per play) of {n} integers of at "
                      f"most {MAX_SCORE:,} in size, got {_show(scores)}")
        if actions is not None and not (isinstance(actions, list) and len(actions) == plays
                                        and all(isinstance(p, list) and len(p) <= MAX_ACTIONS
                                                and all(is_int(a)
                                                        and 0 <= a < self._num_actions
                                                        for a in p) for p in actions)):
            raise bad(f"'actions' must be null or {plays} lists (one per play) of actions "
                      f"0..{self._num_actions - 1}, got {_show(actions)}")
        return (d, scores, None if actions is None else [tuple(a) for a in actions]), digest

    def _header_bytes(self) -> bytes:
        fields = {"journal": FORMAT, "match": self.identity}
        return (json.dumps({**fields, "digest": line_digest(1, "", fields)}) + "\n").encode()

    @staticmethod
    def _plausible_cut(partial: bytes) -> bool:
        """Whether ``partial`` can be the start of a deal line as ``append`` writes it.

        Lines are written as ASCII JSON beginning with the deal field; anything else at the
        end of the file (random bytes, another file's text) is damage, not an interrupted write.
        """
        start = b'{"deal": '
        return (partial[:len(start)] == start[:len(partial)]
                and all(32 <= b < 127 for b in partial))

    def start(self) -> None:
        """Create the file with just its header (also over a file cut inside its header)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_bytes(self._header_bytes())
        except OSError as e:
            raise JournalError(f"cannot write the arena journal {self.path}: "
                               f"{e.strerror or e}") from None
        fields = {"journal": FORMAT, "match": self.identity}
        self._last_digest, self._lines = line_digest(1, "", fields), 1

    def append(self, rows: Iterable[Row], hands: np.ndarray) -> None:
        """Add finished deals (each line chained onto the one before) and push them to disk."""
        lines = []
        previous, number = self._last_digest, self._lines
        for d, scores, actions in rows:
            number += 1
            fields = {"deal": int(d), "hands": deal_digest(hands[d]),
                      "scores": [[int(s) for s in play] for play in scores],
                      "actions": None if actions is None else [[int(a) for a in play]
                                                               for play in actions]}
            previous = line_digest(number, previous, fields)
            lines.append(json.dumps({**fields, "digest": previous}) + "\n")
        try:
            with self.path.open("a", encoding="utf-8") as f:
                f.write("".join(lines))
                f.flush()
                os.fsync(f.fileno())
        except OSError as e:
            raise JournalError(f"cannot append to the arena journal {self.path}: "
                               f"{e.strerror or e}") from None
        self._last_digest, self._lines = previous, number


def _json_type(value: object) -> str:
    """JSON's name for the type of a parsed value, for messages."""
    names = {dict: "object", list: "array", str: "string", bool: "boolean", int: "number",
             float: "number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _show(value: object) -> str:
    """Render a value read from the file short and safe for a terminal."""
    return printable(json.dumps(value), 80)


def _difference(old: dict[str, Any], new: dict[str, Any]) -> str:
    keys: Sequence[str] = sorted(set(old) | set(new))
    diffs = [f"{k} {old.get(k)!r} there, {new.get(k)!r} here" for k in keys
             if old.get(k) != new.get(k)]
    return printable("; ".join(diffs), 400)
