"""Talking to a person at a terminal: colours, reading a choice, naming why a card is refused.

Nothing here decides a rule. The options offered are always the engine's legal actions; this
module turns what the person typed into one of them (``parse_choice``) and, when the typed card
is not among them, reads a reason off the view so the refusal is explained in words
(``why_illegal``). End of input (Ctrl-D) and Ctrl-C become ``Interrupted``, which the commands
catch to offer saving the match before they quit.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TextIO

from gongzhu_env.cards import (
    C2,
    DONE,
    EXPOSABLE,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    card_symbol,
    parse_card,
)
from gongzhu_env.view import PlayerView

DONE_WORDS = {"done", "d", "pass", "p", "no", "n", "-"}
HELP_WORDS = {"?", "h", "help"}


class Interrupted(Exception):
    """The person pressed Ctrl-C or ended the input (Ctrl-D)."""


# ---------------------------------------------------------------------- terminal output
def use_colour(no_colour_flag: bool, stream: TextIO) -> bool:
    """Colour only on a terminal, and never with ``--no-color`` or ``NO_COLOR`` set."""
    if no_colour_flag or os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


@dataclass
class Style:
    """ANSI styling that collapses to plain text when colour is off."""

    colour: bool

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.colour else text

    def bold(self, text: str) -> str:
        """Bold text."""
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        """Faint text."""
        return self._wrap("2", text)

    def suit(self, s: int, text: str) -> str:
        """Text in its suit's colour: red for hearts and diamonds."""
        return self._wrap("31", text) if s in (1, 2) else self._wrap("1", text)

    def card(self, c: int) -> str:
        """Render a card with its suit symbol, coloured: ``♠Q``."""
        if c == DONE:
            return self.bold("done")
        return self.suit(c // 13, card_symbol(c))

    def cards(self, cards: Sequence[int]) -> str:
        """Several cards, or a dash when there are none."""
        return " ".join(self.card(c) for c in cards) if cards else "-"

    def hand(self, cards: Sequence[int]) -> str:
        """Render a hand grouped by suit, spades first, highest rank first: ``♠ A Q 3   ♥ 10 2``."""
        groups = []
        for s in (3, 2, 1, 0):
            ranks = [card_symbol(c)[1:] for c in reversed(cards) if c // 13 == s]
            if ranks:
                groups.append(self.suit(s, f"{SUIT_SYMBOLS[s]} {' '.join(ranks)}"))
        return "   ".join(groups) if groups else "-"


# ---------------------------------------------------------------------- reading input
def parse_choice(text: str, options: Sequence[int]) -> int:
    """Turn what the person typed into one of ``options`` (legal actions), or raise.

    Accepts a number from the numbered list, ``done`` (and short forms) for DONE, or a card
    in any notation ``parse_card`` knows (``SQ``, ``h10``, ``♠Q``, ``CT``). Raises
    ``ValueError`` with a readable reason; an empty string is the caller's business.
    """
    t = text.strip()
    if t.isdigit():
        n = int(t)
        if 1 <= n <= len(options):
            return options[n - 1]
        raise ValueError(f"there is no option {n}; choose a number from 1 to {len(options)}")
    if t.lower() in DONE_WORDS:
        if DONE in options:
            return DONE
        raise ValueError("'done' only ends your declaration turn; now you must play a card")
    try:
        c = parse_card(t)
    except ValueError:
        raise ValueError(f"{t!r} is not a card. Type a suit and a rank such as SQ, h10, CT or "
                         "♠Q, or the number of an option") from None
    if c not in options:
        raise ValueError(f"{card_symbol(c)} is not legal here")
    return c


def why_illegal(view: PlayerView, c: int) -> str:
    """Give a reason, in words, why card ``c`` is not among the legal actions of ``view``.

    The legal set itself always comes from the engine; this only puts a name on the refusal,
    reading it off that set, so that a person learns the rule that stopped them.
    """
    if not view.hand_mask >> c & 1:
        return f"you do not hold {card_symbol(c)}"
    legal = [a for a in view.legal_actions if a != DONE]
    if view.phase == "declare":
        if c not in EXPOSABLE:
            return "only ♠Q, ♦J, ♣10 and ♥A can be exposed"
        return f"{card_symbol(c)} is already exposed"
    if not view.tricks and not view.current_trick and legal == [C2]:
        return "the first trick must be led with ♣2"
    led = view.led_suit
    if led is not None and legal and all(a // 13 == led for a in legal) and c // 13 != led:
        return (f"you must follow suit: {SUIT_SYMBOLS[led]} {SUIT_NAMES[led]} was led "
                "and you hold some")
    if view.exposed_all >> c & 1:
        return (f"{card_symbol(c)} is exposed: it may not be played to the first trick of its "
                "suit unless it is your only card of that suit")
    return f"{card_symbol(c)} is not legal here"


@dataclass
class Console:
    """Reads lines and writes text; Ctrl-C and end of input become ``Interrupted``."""

    style: Style
    out: TextIO = sys.stdout
    read: Callable[[str], str] = input

    def say(self, text: str = "") -> None:
        """Print a line (flushed: a pseudo-terminal reader sees it at once)."""
        print(text, file=self.out, flush=True)

    def ask(self, prompt: str) -> str:
        """Read one line; raise ``Interrupted`` on Ctrl-C or end of input."""
        try:
            return self.read(prompt)
        except (EOFError, KeyboardInterrupt):
            self.say()
            raise Interrupted from None
