"""Drive the ``gongzhu`` command as a person would: a pseudo-terminal with pexpect."""

from __future__ import annotations

import os
import re
import signal
import sys
from pathlib import Path

import pexpect

from gongzhu_env.cards import SUIT_SYMBOLS, parse_card
from tests.helpers import HANG_S

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8", "COLUMNS": "200"}


def interruptible() -> None:
    """Give a child started by a test Ctrl-C as a person at a terminal has it (a ``preexec_fn``).

    A test run started in the background by a shell without job control (``pytest ... &`` in a
    script, ``nohup``, some CI runners) has SIGINT ignored, and an ignored signal stays ignored
    across ``exec``; Python then leaves it ignored rather than raising ``KeyboardInterrupt``,
    so the command under test would never see the Ctrl-C a test sends, and the test would
    wait for an answer that cannot come. A blocked SIGINT is inherited the same way.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def spawn(*args: str) -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-m", "gongzhu_cli", *args], cwd=str(ROOT), env=ENV,
                         encoding="utf-8", timeout=HANG_S, dimensions=(60, 220),
                         preexec_fn=interruptible)


def read_hand(text: str) -> list[int]:
    """'♠ 7 6 4   ♥ A K' -> card indices."""
    cards, suit = [], None
    for token in text.split():
        if token in SUIT_SYMBOLS:
            suit = token
        else:
            cards.append(parse_card(suit + token))
    return cards


def read_options(text: str) -> list[str]:
    """'1) expose ♥A  2) done' -> ['♥A', 'done']."""
    return [m.group(1) for m in re.finditer(r"\d+\) (?:expose )?(\S+)", text)]


def next_turn(child: pexpect.spawn) -> tuple[list[int], list[str]] | None:
    """Wait for the person's next turn (hand, options) or the end-of-hand summary (None)."""
    i = child.expect([r"Your hand: ([^\r\n]*)\r\n", r"=== Hand \d+ over ==="])
    if i == 1:
        return None
    hand = read_hand(child.match.group(1)) if child.match.group(1) != "-" else []
    child.expect(r"Options: ([^\r\n]*)\r\n")
    return hand, read_options(child.match.group(1))


def expect_reask(child: pexpect.spawn, message: str) -> None:
    child.expect_exact(message)
    child.expect(r"Options: [^\r\n]*\r\n")


PROMPT = (r"(Expose a card or 'done'|First of your two cards|Second of your two cards|Your lead"
          r"|Your play) \([^\r\n]*\): ")
PROMPT_KINDS = {"Expose a card or 'done'": "declare", "First of your two cards": "first",
                "Second of your two cards": "second", "Your lead": "lead", "Your play": "play"}


def next_prompt(child: pexpect.spawn) -> tuple[list[int], list[str], str] | None:
    """Like ``next_turn``, and also wait for the prompt: (hand, options, kind) or None.

    ``kind`` is declare, lead (a lead with a pair among the options), play, or first / second
    (the first or second card of a two-card play to a pair lead).
    """
    turn = next_turn(child)
    if turn is None:
        return None
    child.expect(PROMPT)
    return turn[0], turn[1], PROMPT_KINDS[child.match.group(1)]


def finish(child: pexpect.spawn, status: int = 0) -> str:
    """Wait for the command to end; check its exit status and that it printed no traceback.

    Returns what it printed since the last match.
    """
    child.expect(pexpect.EOF)
    child.close()
    out = child.before or ""
    assert child.exitstatus == status, (child.exitstatus, out[-2000:])
    assert "Traceback" not in out
    return out
