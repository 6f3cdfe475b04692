"""Talking to a person at a terminal: colours, reading a choice, naming why a card is refused.

Nothing here decides a rule. The options offered are always the engine's legal actions; this
module turns what the person typed into one of them (``parse_choice``) and, when the typed card
is not among them, reads a reason off the view so the refusal is explained in words
(``why_illegal``).

With two decks (RULES.md 6.11) a leader holding both copies of a card may lead them as a pair:
the person types ``SQ+SQ``, ``SQ SQ`` or ``pair SQ`` (any card notation, e.g. ``♠Q+♠Q``). A
follower to a pair lead plays two cards, one card per prompt, as the engine takes them. What
the actions are (DONE, pair leads, their text) is asked of the table's action codec
(``gongzhu_env.cards.ActionCodec``), never worked out from the deck count here.

End of input (Ctrl-D) and Ctrl-C become ``Interrupted``, which the commands catch to offer
saving the match before they quit. At a terminal a line is read with ``read_line``, which never
loses a Ctrl-C (``input`` can: see there).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TextIO

from gongzhu_env.cards import (
    DONE,
    EXPOSABLE,
    ONE_DECK,
    SQ,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    ActionCodec,
    card_symbol,
    parse_card,
)
from gongzhu_env.view import PlayerView

DONE_WORDS = {"done", "d", "pass", "p", "no", "n", "-"}
HELP_WORDS = {"?", "h", "help"}
PAIR_WORD = "pair"
PAIR_FORMS = f"{ActionCodec.pair_text(SQ)}, SQ SQ or {PAIR_WORD} SQ"
"""The ways a pair lead may be typed, as prompts and help name them."""


class NotLegal(ValueError):
    """A well-formed action that is not among the legal ones; ``action`` says which it was."""

    def __init__(self, action: int, message: str) -> None:
        super().__init__(message)
        self.action = action


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

    def action(self, a: int, codec: ActionCodec = ONE_DECK) -> str:
        """Render an action of ``codec``: a card, ``done``, or a pair lead ``♠Q+♠Q``."""
        if codec.is_done(a):
            return self.bold("done")
        return self.suit(codec.cards(a)[0] // 13, codec.text(a, card_symbol))

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
def action_text(a: int, codec: ActionCodec = ONE_DECK) -> str:
    """Plain text of an action for messages: ``♠Q``, ``♠Q+♠Q`` or ``done``."""
    return Style(False).action(a, codec)


def parse_choice(text: str, options: Sequence[int], codec: ActionCodec = ONE_DECK) -> int:
    """Turn what the person typed into one of ``options`` (legal actions), or raise.

    Accepts a number from the numbered list, ``done`` (and short forms) for DONE, or a card
    in any notation ``parse_card`` knows (``SQ``, ``h10``, ``♠Q``, ``CT``). Where ``codec``
    has pair leads (two decks) a pair lead is typed ``SQ+SQ``, ``SQ SQ`` or ``pair SQ``. Raises
    ``NotLegal`` for a well-formed action that is not among ``options`` and ``ValueError``
    with a readable reason for anything else; an empty string is the caller's business.
    """
    t = text.strip()
    if t.isdigit():
        n = int(t)
        if 1 <= n <= len(options):
            return options[n - 1]
        raise ValueError(f"there is no option {n}; choose a number from 1 to {len(options)}")
    if t.lower() in DONE_WORDS:
        if codec.done in options:
            return codec.done
        raise ValueError("'done' only ends your declaration turn; now you must play a card")
    cards = _typed_cards(t, codec)
    if len(cards) == 2:
        a, b = cards
        if a != b:
            raise ValueError(f"{card_symbol(a)} and {card_symbol(b)} are two different cards: a "
                             f"pair lead is two copies of one card (e.g. "
                             f"{codec.pair_text(SQ)}), and to a pair lead you play your two "
                             "cards one at a time")
        action = codec.pair_action(a)
    else:
        (action,) = cards
    if action not in options:
        raise NotLegal(action, f"{action_text(action, codec)} is not legal here")
    return action


def _typed_cards(t: str, codec: ActionCodec) -> list[int]:
    """Return the one card, or (with pair leads) the two cards of a pair, that ``t`` names."""
    pairs = codec.pairs
    pair_hint = f", or a pair such as {PAIR_FORMS}" if pairs else ""
    tokens = t.replace("+", " + ").split()
    if pairs and tokens and tokens[0].lower() == PAIR_WORD and len(tokens) == 2:
        tokens = [tokens[1], "+", tokens[1]]
    if len(tokens) == 3 and tokens[1] == "+":
        tokens = [tokens[0], tokens[2]]
    if not pairs and len(tokens) > 1:
        raise ValueError(f"{t!r} is not a card. Type one card such as SQ, h10, CT or ♠Q, or "
                         "the number of an option")
    if len(tokens) not in (1, 2) or "+" in tokens:
        raise ValueError(f"{t!r} is not a card. Type a suit and a rank such as SQ, h10, CT or "
                         f"♠Q{pair_hint}, or the number of an option")
    try:
        return [parse_card(tok) for tok in tokens]
    except ValueError:
        raise ValueError(f"{t!r} is not a card. Type a suit and a rank such as SQ, h10, CT or "
                         f"♠Q{pair_hint}, or the number of an option") from None


def two_card_part(seat: int, leader: int, trick: Sequence[int], pair_lead: bool) -> int:
    """Which card of a two-card play to a pair lead ``seat`` plays next: 1, 2, or 0 (none).

    ``leader``, ``trick`` and ``pair_lead`` describe the trick in progress (a game's
    ``trick_leader``, ``trick_cards`` and ``pair_lead``, or a view's ``current_trick``).
    """
    if not pair_lead or not trick:
        return 0
    before = (seat - leader) & 3
    if before == 0:
        return 0
    return len(trick) - 2 * before + 1


def view_part(view: PlayerView) -> int:
    """``two_card_part`` for the observer of ``view``."""
    return two_card_part(view.seat, view.trick_leader, view.current_trick, view.pair_lead)


def why_illegal(view: PlayerView, c: int) -> str:
    """Give a reason, in words, why action ``c`` is not among the legal actions of ``view``.

    The legal set itself always comes from the engine; this only puts a name on the refusal,
    reading it off that set, so that a person learns the rule that stopped them.
    """
    codec = ActionCodec.for_rules(view.rules)
    if codec.is_pair(c):
        return _why_pair_illegal(view, codec.pair_card(c), codec)
    if not view.hand_mask >> c & 1:
        return f"you do not hold {card_symbol(c)}"
    legal = [a for a in view.legal_actions if not codec.is_done(a)]
    if view.phase == "declare":
        if c not in EXPOSABLE:
            return "only ♠Q, ♦J, ♣10 and ♥A can be exposed"
        if view.hand_pair_mask >> c & 1:
            return f"both your copies of {card_symbol(c)} are already exposed"
        return f"{card_symbol(c)} is already exposed"
    lead = view.rules.lead_card  # C2 at four seats; S2 or C3 when C2 left the deck
    if not view.tricks and not view.current_trick and legal and \
            all(codec.cards(a)[0] == lead for a in legal):
        return _first_lead_rule(lead, codec)
    led = view.led_suit
    if led is not None and legal and all(a // 13 == led for a in legal) and c // 13 != led:
        return (f"you must follow suit: {SUIT_SYMBOLS[led]} {SUIT_NAMES[led]} was led "
                "and you hold some")
    part = view_part(view)
    if part:
        rule = ("to a pair lead you play a pair of the led suit if you hold one, else two "
                "cards of the suit if you hold two, else every card of the suit you have and "
                "discards")
        if part == 2:
            first = view.current_trick[-1]
            return f"with your first card {card_symbol(first)} it is not a legal play: {rule}"
        return rule
    if view.exposed_all >> c & 1:
        return (f"{card_symbol(c)} is exposed: it may not be played to the first trick of its "
                "suit unless it is your only card of that suit")
    return f"{card_symbol(c)} is not legal here"


def _first_lead_rule(lead: int, codec: ActionCodec) -> str:
    """Say that the first trick is led with the lead card (or its pair, where pairs exist)."""
    alone = f" (alone, or the pair {codec.pair_text(lead, card_symbol)})" if codec.pairs else ""
    return f"the first trick must be led with {card_symbol(lead)}{alone}"


def _why_pair_illegal(view: PlayerView, c: int, codec: ActionCodec) -> str:
    """Why leading the pair of card ``c`` is refused (two decks)."""
    if view.phase == "declare":
        return "a pair is led in play; while declaring you expose one copy at a time"
    if view.current_trick:
        return ("only the leader may lead a pair; you follow with one card"
                if not view_part(view) else
                "type your two cards one at a time: the first now, the second when asked")
    if not view.hand_mask >> c & 1:
        return f"you do not hold {card_symbol(c)}"
    if not view.hand_pair_mask >> c & 1:
        return f"you hold only one {card_symbol(c)}; a pair lead needs both copies"
    lead = view.rules.lead_card
    if not view.tricks and lead in view.legal_actions:
        return _first_lead_rule(lead, codec)
    return (f"the pair uses an exposed copy of {card_symbol(c)}, which may not open its suit "
            "while you hold another card of that suit")


def read_line(prompt: str = "") -> str:
    """Read one line like ``input(prompt)``, except that a Ctrl-C is never lost.

    ``input`` loses a SIGINT that arrives after the interpreter last checked for signals and
    before its ``read`` blocks (CPython issue 112585): the signal handler only sets a flag,
    nothing interrupts the ``read`` that follows, and the program waits for a line while the
    person's Ctrl-C goes unanswered. On a busy machine that window is often hit. Here the wait
    is a ``select`` on the terminal and on a pipe that the interpreter writes to whenever a
    signal arrives (``signal.set_wakeup_fd``), so a signal at any moment ends the wait, and
    ``KeyboardInterrupt`` is raised as soon as the handler runs, as with ``input``.

    This applies on POSIX systems when stdin and stdout are terminals, Python handles SIGINT
    and this is the main thread; otherwise (a pipe, a file, a thread, Windows, where ``select``
    takes only sockets) this is ``input(prompt)``. A terminal in canonical mode hands over one
    whole line per read, so nothing is read ahead of the line. Raises ``EOFError`` at end of
    input (Ctrl-D at the start of a line), like ``input``.
    """
    stdin, stdout = sys.stdin, sys.stdout
    if not (os.name == "posix" and stdin is not None and stdout is not None
            and stdin.isatty() and stdout.isatty()
            and threading.current_thread() is threading.main_thread()
            and callable(signal.getsignal(signal.SIGINT))):
        return input(prompt)
    stdout.write(prompt)
    stdout.flush()
    fd = stdin.fileno()
    wake_r, wake_w = os.pipe()
    previous: int | None = None
    try:
        os.set_blocking(wake_r, False)
        os.set_blocking(wake_w, False)
        previous = signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
        # A signal before this point was caught by the interpreter's own check after the call
        # above; one after it is written to wake_w and makes the select below return.
        data = b""
        while True:
            ready, _, _ = select.select([fd, wake_r], [], [])
            if wake_r in ready:
                # The handler has run by now; a signal whose handler raised never gets here.
                with contextlib.suppress(BlockingIOError):
                    while os.read(wake_r, 512):
                        pass
            if fd in ready:
                chunk = os.read(fd, 4096)
                data += chunk
                if not chunk or chunk.endswith(b"\n"):
                    break
    finally:
        # Put back the descriptor replaced above, first thing and in line (a Python call could
        # be interrupted before it ran): left in place, ours would point at a closed descriptor
        # whose number the next open file may take, and every later signal would write a byte
        # into that file. If a Ctrl-C lost the swap's result, ours is removed all the same.
        if previous is not None:
            signal.set_wakeup_fd(previous)
        elif (current := signal.set_wakeup_fd(-1)) != wake_w:
            signal.set_wakeup_fd(current)
        os.close(wake_r)
        os.close(wake_w)
    if not data:
        raise EOFError
    text = data.decode(stdin.encoding or "utf-8", errors="replace")
    return text[:-1] if text.endswith("\n") else text


@dataclass
class Console:
    """Reads lines and writes text; Ctrl-C and end of input become ``Interrupted``."""

    style: Style
    out: TextIO | None = None
    """Where to write; ``None`` is the ``sys.stdout`` of the moment (so a redirect applies)."""
    read: Callable[[str], str] = read_line

    def say(self, text: str = "") -> None:
        """Print a line (flushed: a pseudo-terminal reader sees it at once)."""
        print(text, file=self.out or sys.stdout, flush=True)

    def ask(self, prompt: str) -> str:
        """Read one line; raise ``Interrupted`` on Ctrl-C or end of input."""
        try:
            return self.read(prompt)
        except (EOFError, KeyboardInterrupt):
            self.say()
            raise Interrupted from None
