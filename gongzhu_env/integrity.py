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

``printable`` escapes control characters (ESC sequences, carriage returns, bidirectional
overrides...) in text taken from a file, so that text cannot move the cursor, recolour or
rewrite a terminal when it is shown or quoted in an error message.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "MAX_LINE_CHARS",
    "StrictJSONError",
    "canonical_json",
    "content_digest",
    "is_int",
    "printable",
    "strict_loads",
]

MAX_LINE_CHARS = 1_000_000
"""Longest JSON text (one line of a JSON-lines file) read; far above any line the project writes."""
MAX_DEPTH = 16
"""Deepest nesting of arrays and objects accepted; the project's files nest at most five deep."""
MAX_INT_DIGITS = 19
"""Longest integer literal accepted (digits, without sign): anything an int64 can hold."""


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


def is_int(value: object) -> bool:
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
