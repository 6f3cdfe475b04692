"""Strict reading of the JSON the project writes and reads back, and content digests for it.

Files the project reads back (hand records, arena journals, deal sets) may have been edited,
cut short by a crash, or replaced by something else entirely. ``json.loads`` on its own
accepts far more than those files ever hold: ``NaN`` and ``Infinity``, numbers thousands of
digits long (whose conversion is slow, or refused by Python with an error of its own), nesting
deep enough to exhaust the interpreter's recursion limit, and duplicated object keys (where the
last one silently wins). ``strict_loads`` refuses all of these with a ``StrictJSONError`` that
says what was wrong, so each reader can name its file and line and go on to check its own schema
on values of known, bounded size.

``content_digest`` is a SHA-256 over the canonical JSON of a value (sorted keys, no spaces,
UTF-8), so the same content always gives the same digest whatever the key order or spacing of
the file. It detects edits and damage; it is not a signature: anyone can recompute it, so it
does not prove who wrote a file.

``read_lines`` and ``read_bounded`` read such a file within a bound on its size and on the
length of each line, so that a path to ``/dev/zero``, a file of one endless line or a file
gigabytes long is refused with ``ReadLimitError`` after reading at most the bound, instead of
filling memory; ``check_regular`` refuses, before opening, paths that are not regular files
where only one makes sense (a FIFO would block the open, a device read forever).

``printable`` escapes control characters (ESC sequences, carriage returns, bidirectional
overrides...) in text taken from a file, so that text cannot move the cursor, recolour or
rewrite a terminal when it is shown or quoted in an error message.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
from collections.abc import Iterator
from typing import Any, BinaryIO, TypeGuard

__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "MAX_LINE_BYTES",
    "MAX_LINE_CHARS",
    "ReadLimitError",
    "StrictJSONError",
    "canonical_json",
    "check_regular",
    "content_digest",
    "is_int",
    "printable",
    "read_bounded",
    "read_lines",
    "strict_loads",
]

MAX_LINE_CHARS = 1_000_000
"""Longest JSON text (one line of a JSON-lines file) read; far above any line the project writes."""
MAX_DEPTH = 16
"""Deepest nesting of arrays and objects accepted; the project's files nest at most five deep."""
MAX_INT_DIGITS = 19
"""Longest integer literal accepted (digits, without sign): anything an int64 can hold."""


MAX_LINE_BYTES = MAX_LINE_CHARS
"""Longest line ``read_lines`` reads, in bytes. A byte per character at least, so any line
within it is also within ``MAX_LINE_CHARS``; the longest line the project writes (a two-deck
hand record with long player names) is under 10,000 bytes."""
_CHUNK = 1 << 20


class ReadLimitError(ValueError):
    """A file beyond a reader's bounds: too big, a line too long, or not a regular file.

    ``problem`` says what, with the limit, as a predicate (``"is longer than ..."``); ``line``
    is the 1-based line it concerns, or None for the file as a whole. Each reader puts its own
    name of the file in front, in its own style (``str`` of the error is ``"line N problem"``
    or ``"problem"``).
    """

    def __init__(self, problem: str, line: int | None = None) -> None:
        super().__init__(problem if line is None else f"line {line} {problem}")
        self.problem, self.line = problem, line


def _file_kind(mode: int) -> str:
    for test, kind in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a regular file"


def check_regular(path: str | os.PathLike[str]) -> None:
    """Raise ``ReadLimitError`` if ``path`` exists and is not a regular file (links followed).

    A missing path raises ``FileNotFoundError`` (and other ``OSError`` as ``os.stat`` does),
    for the caller's own message. Checked before opening: opening a FIFO waits for a writer.
    """
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise ReadLimitError(f"is {_file_kind(mode)}, not a regular file")


def _size_of(f: BinaryIO, max_bytes: int) -> None:
    """Refuse at once a regular file whose size is already over ``max_bytes``."""
    try:
        st = os.fstat(f.fileno())
    except (OSError, AttributeError, ValueError):  # an in-memory file: read and count instead
        return
    if stat.S_ISREG(st.st_mode) and st.st_size > max_bytes:
        raise ReadLimitError(f"is {st.st_size:,} bytes; at most {max_bytes:,} are read")


def read_lines(f: BinaryIO, *, max_bytes: int,
               max_line: int = MAX_LINE_BYTES) -> Iterator[tuple[int, bytes, bool]]:
    """Yield ``(number, line, complete)`` for each line of the binary file ``f``, bounded.

    ``line`` is without its newline; ``complete`` is False only for a last line with no newline
    after it (a file cut short). Raises ``ReadLimitError`` once the file holds more than
    ``max_bytes`` bytes or a line longer than ``max_line`` (without its newline), having read
    at most about that much: enough for any real file, never the whole of an endless one.
    """
    _size_of(f, max_bytes)
    total = 0
    number = 0
    while True:
        raw = f.readline(max_line + 1)
        if not raw:
            return
        number += 1
        total += len(raw)
        if total > max_bytes:
            raise ReadLimitError(f"holds more than {max_bytes:,} bytes; at most "
                                 f"{max_bytes:,} are read")
        complete = raw.endswith(b"\n")
        if not complete and len(raw) > max_line:
            raise ReadLimitError(f"is longer than {max_line:,} bytes; at most {max_line:,} are "
                                 "read per line", number)
        yield number, raw[:-1] if complete else raw, complete


def read_bounded(f: BinaryIO, *, max_bytes: int) -> bytes:
    """Return the content of the binary file ``f``; ``ReadLimitError`` beyond ``max_bytes``."""
    _size_of(f, max_bytes)
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = f.read(min(_CHUNK, max_bytes + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > max_bytes:
            raise ReadLimitError(f"holds more than {max_bytes:,} bytes; at most {max_bytes:,} "
                                 "are read")


class StrictJSONError(ValueError):
    """JSON text that is malformed, or well-formed but outside the bounds ``strict_loads`` reads."""


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise StrictJSONError(f"a number of {digits} digits (at most {MAX_INT_DIGITS} are read)")
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > 64:
        raise StrictJSONError(f"a number literal of {len(text)} characters (at most 64 are read)")
    value = float(text)
    if not math.isfinite(value):
        raise StrictJSONError(f"the number {text[:32]} overflows to {value}")
    return value


def _parse_constant(text: str) -> Any:
    raise StrictJSONError(f"{text} is not a JSON number (NaN and Infinity are refused)")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    for key, value in pairs:
        if key in doc:
            raise StrictJSONError(f"the key {printable(key, 40)!r} appears twice in one object")
        doc[key] = value
    return doc


def _depth(value: Any) -> int:
    """Nesting depth of a parsed value (a scalar is 0), walked without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = list(node.values())
        if isinstance(node, list):
            depth += 1
            deepest = max(deepest, depth)
            stack.extend((child, depth) for child in node)
    return deepest


def strict_loads(text: str, *, max_chars: int = MAX_LINE_CHARS,
                 max_depth: int = MAX_DEPTH) -> Any:
    """Parse ``text`` as JSON within the bounds in the module docstring.

    Raises ``StrictJSONError`` (a ``ValueError``) saying what is wrong: too long, not JSON (with
    the position), a constant or number that is refused, a duplicated key, or too deep.
    """
    if not isinstance(text, str):
        raise TypeError(f"strict_loads reads str, got {type(text).__name__}")
    if len(text) > max_chars:
        raise StrictJSONError(f"{len(text):,} characters of JSON (at most {max_chars:,} are "
                              "read)")
    try:
        value = json.loads(text, parse_int=_parse_int, parse_float=_parse_float,
                           parse_constant=_parse_constant, object_pairs_hook=_pairs)
    except StrictJSONError:
        raise
    except json.JSONDecodeError as e:
        raise StrictJSONError(f"not valid JSON ({e.msg} at column {e.colno})") from None
    except RecursionError:
        raise StrictJSONError(f"JSON nested deeper than {max_depth} levels") from None
    except ValueError as e:  # e.g. Python's own limit on the digits of an int
        raise StrictJSONError(f"not readable JSON ({printable(str(e), 120)})") from None
    if _depth(value) > max_depth:
        raise StrictJSONError(f"JSON nested deeper than {max_depth} levels")
    return value


def canonical_json(value: Any) -> bytes:
    """Return the one byte string a JSON value is digested as: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def content_digest(value: Any) -> str:
    """SHA-256 (hex) of ``canonical_json(value)``: equal content, equal digest."""
    return hashlib.sha256(canonical_json(value)).hexdigest()


def is_int(value: object) -> TypeGuard[int]:
    """Tell a Python ``int`` that is not a ``bool`` (JSON ``true`` is not the number 1)."""
    return type(value) is int


def printable(text: object, limit: int | None = None) -> str:
    r"""Return ``str(text)`` with every non-printable character escaped (``\x1b``, ``\u202e``).

    Letters and symbols of every script are kept (player names in Chinese, suit symbols); only
    what ``str.isprintable`` rejects, other than the plain space, is escaped. ``limit`` cuts a
    long text (``...`` marks the cut) so a huge field cannot flood the screen.
    """
    s = str(text)
    if limit is not None and len(s) > limit:
        s = s[:limit] + "..."
    if s.isprintable():
        return s
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                   for c in s)
