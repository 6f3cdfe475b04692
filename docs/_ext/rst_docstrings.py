"""A griffe extension that turns the reStructuredText habits of our docstrings into Markdown.

The project's docstrings are written to read well in a terminal (``help()``) and on the
repository page: section titles underlined with dashes, simple tables framed by ``===`` rules,
``>>>`` sessions and ``::`` literal blocks. The site renders docstrings as Markdown
(mkdocstrings), where those come out as stray headings and run-together paragraphs. This
extension rewrites each docstring once, when griffe loads it, so the source stays as it is:

* ``Title`` over a line of ``-`` (or ``=``, ``~``) becomes a bold line;
* a simple table becomes a Markdown table (rows whose first cell is blank continue the row
  above, as in reStructuredText);
* a ``>>>`` session becomes a fenced ``pycon`` block;
* a paragraph ending in ``::`` introduces the indented block after it as a fenced block.

Loaded by ``mkdocs.yml`` (``plugins.mkdocstrings.handlers.python.options.extensions``).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_RULE = re.compile(r"^\s*=+(\s+=+)+\s*$")
"""A border of a simple table: two or more runs of ``=`` separated by spaces."""
_UNDERLINE = re.compile(r"^\s*([-=~^])\1{2,}\s*$")
"""A section underline: one character repeated, three or more times."""


def _columns(rule: str) -> list[tuple[int, int]]:
    """Return the (start, end) character span of each column of a table border."""
    return [(m.start(), m.end()) for m in re.finditer(r"=+", rule)]


def _cells(line: str, spans: list[tuple[int, int]]) -> list[str]:
    """Split a table row by the border's columns; the last column runs to the end of the line."""
    cells = []
    for i, (start, _) in enumerate(spans):
        end = spans[i + 1][0] if i + 1 < len(spans) else len(line)
        cells.append(line[start:end].strip())
    return cells


def _md_row(cells: list[str]) -> str:
    """One Markdown table row; a pipe inside a cell is escaped."""
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _table(lines: list[str], start: int) -> tuple[list[str], int] | None:
    """Convert the simple table whose first border is ``lines[start]``.

    Returns the Markdown lines and the index after the table, or ``None`` when the block is
    not a complete table (it is then left alone).
    """
    spans = _columns(lines[start])
    indent = len(lines[start]) - len(lines[start].lstrip())
    rows: list[list[str]] = []
    header: list[str] | None = None
    i = start + 1
    while i < len(lines):
        line = lines[i]
        if _RULE.match(line):
            # A border right after the first row closes the header; any other border closes
            # the table (a header table has three borders, a plain one two).
            if header is None and len(rows) == 1 and i + 1 < len(lines) and any(
                    not _RULE.match(x) and x.strip() for x in lines[i + 1:i + 2]):
                header = rows.pop()
                i += 1
                continue
            body = [_md_row(header or [""] * len(spans)), _md_row(["---"] * len(spans))]
            body += [_md_row(r) for r in rows]
            return [" " * indent + b for b in body], i + 1
        if not line.strip():
            return None
        cells = _cells(line, spans)
        if cells[0] == "" and rows:
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
        else:
            rows.append(cells)
        i += 1
    return None


def _block_end(lines: list[str], start: int, indent: int) -> int:
    """Index after the block of lines indented deeper than ``indent`` (blank lines inside)."""
    i = start
    last = start
    while i < len(lines):
        line = lines[i]
        if line.strip():
            if len(line) - len(line.lstrip()) <= indent:
                break
            last = i + 1
        i += 1
    return last


def convert(text: str) -> str:
    """Return the Markdown form of one docstring (the module docstring says what changes)."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if _RULE.match(line):
            done = _table(lines, i)
            if done is not None:
                body, i = done
                if out and out[-1].strip():
                    out.append("")
                out += body
                if i < len(lines) and lines[i].strip():
                    out.append("")
                continue
        if (stripped and i + 1 < len(lines) and _UNDERLINE.match(lines[i + 1])
                and not _RULE.match(line) and (i == 0 or not lines[i - 1].strip())):
            out.append(f"**{stripped}**")
            out.append("")
            i += 2
            continue
        if stripped.startswith(">>>"):
            indent = len(line) - len(line.lstrip())
            j = i
            while j < len(lines) and lines[j].strip():
                j += 1
            if out and out[-1].strip():
                out.append("")
            out.append(" " * indent + "```pycon")
            out += lines[i:j]
            out.append(" " * indent + "```")
            i = j
            continue
        if stripped.endswith("::") and i + 2 < len(lines) and not lines[i + 1].strip():
            indent = len(line) - len(line.lstrip())
            end = _block_end(lines, i + 2, indent)
            if end > i + 2:
                head = line.rstrip()[:-1]
                out.append(head if head.strip() != ":" else "")
                out.append("")
                out.append(" " * indent + "```")
                block = lines[i + 2:end]
                cut = min(len(b) - len(b.lstrip()) for b in block if b.strip())
                out += [" " * indent + b[cut:] if b.strip() else "" for b in block]
                out.append(" " * indent + "```")
                i = end
                continue
        out.append(line)
        i += 1
    return "\n".join(out)


class RstDocstrings(griffe.Extension):
    """Rewrite every docstring griffe loads from reStructuredText habits to Markdown."""

    def on_object(self, *, obj: griffe.Object, loader: griffe.GriffeLoader,
                  **kwargs: Any) -> None:
        """Convert ``obj``'s docstring in place (once every object is loaded)."""
        if obj.docstring is not None and not obj.is_alias:
            obj.docstring.value = convert(obj.docstring.value)
