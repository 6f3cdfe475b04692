"""Gong Zhu in a terminal: ``gongzhu play`` and ``gongzhu replay``.

``gongzhu play`` seats a person against three agents; ``gongzhu replay`` steps through recorded
hands.

The engine decides everything: the options offered are ``game.legal_actions()``, a typed card is
checked against that list, and scores come from ``game.scores()``. This module only shows the
table, reads what the person types and explains a refusal in words. Typing mistakes never reach
the engine as an exception and never end the game; end of input (Ctrl-D) and Ctrl-C offer to
save the match as hand records (``gongzhu_env.records``) before quitting cleanly.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from agents import make_agent
from agents.base import Agent
from gongzhu_env.cards import (
    C2,
    DONE,
    EXPOSABLE,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    card_symbol,
    parse_card,
)
from gongzhu_env.engine import Game
from gongzhu_env.records import (
    RecordError,
    load_records,
    record_hand,
    replay_record,
    save_records,
    sq_taker,
)
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import settle
from gongzhu_env.view import PlayerView

DEFAULT_OPPONENT = "policy:pretrained"
FALLBACK_OPPONENTS = ("expert", "greedy", "random")
"""Tried in order when the default opponent (the pretrained policy) cannot be built."""
_DONE_WORDS = {"done", "d", "pass", "p", "no", "n", "-"}
_HELP_WORDS = {"?", "h", "help"}


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
    if t.lower() in _DONE_WORDS:
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


# ---------------------------------------------------------------------- the table
@dataclass
class Table:
    """One match at the terminal: the players, the hands so far and the running totals."""

    human: int
    players: list[Agent | None]
    labels: list[str]
    rules: Rules
    console: Console
    totals: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    records: list[dict[str, Any]] = field(default_factory=list)
    game: Game | None = None
    leader: int | None = None
    hand_number: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def st(self) -> Style:
        """The console's style."""
        return self.console.style

    def name(self, seat: int) -> str:
        """How a seat is called on screen."""
        return self.labels[seat]

    # -------------------------------------------------------------- showing
    def show_state(self, game: Game) -> None:
        """Print the table as the person sees it before acting."""
        st, view = self.st, game.view(self.human)
        trick_no = min(len(game.tricks) + 1, 13)
        where = "declaration" if game.phase == "declare" else f"trick {trick_no}/13"
        self.console.say()
        self.console.say(st.bold(f"── Hand {self.hand_number} · {where} ──"))
        # Everything shown comes from the person's own view: what a seat may know, no more.
        scores = view.scores
        line = "   ".join(f"{self.name(s)} {scores[s]:+d}" for s in range(4))
        self.console.say(f"Scores this hand: {line}")
        if any(self.totals) or self.hand_number > 1:
            self.console.say("Match totals:     " + "   ".join(
                f"{self.name(s)} {self.totals[s]:+d}" for s in range(4)))
        # Under hidden exposure (暗卖) the view knows only how many cards a seat exposed.
        counts = getattr(view, "exposed_counts", None) or [len(cs) for cs in view.exposed]
        exposed = []
        for s, cs in enumerate(view.exposed):
            hidden = counts[s] - len(cs)
            text = " ".join(filter(None, [st.cards(cs) if cs else "",
                                          f"{hidden} hidden" if hidden > 0 else ""]))
            if text:
                exposed.append(f"{self.name(s)} {text}")
        if exposed:
            self.console.say("Exposed: " + "   ".join(exposed))
        captured = [(s, cs) for s, cs in enumerate(view.captured) if cs]
        if captured:
            self.console.say("Captured: " + "   ".join(
                f"{self.name(s)} {st.cards(cs)}" for s, cs in captured))
        cards = view.current_trick
        if cards:
            leader = view.trick_leader
            self.console.say("Trick so far: " + ", ".join(
                f"{self.name((leader + i) % 4)} {st.card(c)}" for i, c in enumerate(cards)))
        elif game.phase == "play":
            self.console.say("You lead this trick.")
        self.console.say(f"Your hand: {st.hand(view.hand)}")

    def show_options(self, options: Sequence[int], declaring: bool) -> None:
        """Print the numbered legal options."""
        st = self.st
        items = []
        for i, a in enumerate(options, start=1):
            label = st.bold("done") if a == DONE else (
                ("expose " if declaring else "") + st.card(a))
            items.append(f"{i}) {label}")
        self.console.say("Options: " + "  ".join(items))

    def sees_exposure(self, game: Game, seat: int, card: int) -> bool:
        """Whether the person may see that ``seat`` exposed ``card`` (a replay sees all)."""
        if self.human < 0 or seat == self.human:
            return True
        return card in game.view(self.human).exposed[seat]

    def describe(self, phase: str, seat: int, action: int, visible: bool = True) -> str:
        """One line for an action ``seat`` took in ``phase``; ``visible=False`` hides the card."""
        you = seat == self.human
        who, s = ("You", "") if you else (self.name(seat), "s")
        if phase == "declare":
            if action == DONE:
                return f"{who} {'are' if you else 'is'} done declaring"
            return f"{who} expose{s} " + (self.st.card(action) if visible else "a card")
        return f"{who} play{s} {self.st.card(action)}"

    def announce_after(self, game: Game, tricks_before: int, declarations_before: int,
                       seat: int, action: int) -> None:
        """Report what the engine did by itself after ``seat``'s ``action``.

        That is an auto-exposure at the end of declaration, or a completed trick.
        """
        for holder, c in game.declarations[declarations_before:]:
            if (holder, c) == (seat, action):
                continue  # the exposure the action itself made
            card = self.st.card(c) if self.sees_exposure(game, holder, c) else "a card"
            self.console.say(f"{self.name(holder)}: {card} is exposed automatically "
                             "(three of the four were exposed)")
        if len(game.tricks) > tricks_before:
            t = game.tricks[-1]
            taken = [c for c in t.cards if c in game.captured[t.winner]]
            gain = f" (takes {self.st.cards(taken)})" if taken else ""
            self.console.say(self.st.bold(f"→ {self.name(t.winner)} wins the trick") + gain)

    # -------------------------------------------------------------- acting
    def human_action(self, game: Game) -> int:
        """Ask until the person gives a legal action; mistakes are explained, never fatal."""
        view = game.view(self.human)
        options = view.legal_actions
        declaring = game.phase == "declare"
        self.show_state(game)
        if declaring:
            self.console.say("Declaration: you may expose ♠Q ♦J ♣10 ♥A to double their effect; "
                             "type 'done' when finished.")
        self.show_options(options, declaring)
        prompt = ("Expose a card or 'done' (number or card): " if declaring
                  else "Your play (number or card, e.g. SQ, h10, ♠Q): ")
        while True:
            text = self.console.ask(prompt).strip()
            if not text:
                continue
            if text.lower() in _HELP_WORDS:
                self.console.say("Type the number of an option, or a card: suit letter or "
                                 "symbol and rank (SQ, h10, CT, ♠Q)"
                                 + (", or 'done'." if declaring else "."))
                self.show_options(options, declaring)
                continue
            try:
                return parse_choice(text, options)
            except ValueError as e:
                message = str(e)
                try:
                    c = parse_card(text)
                except ValueError:
                    c = None
                if c is not None and c not in options:
                    message = f"{card_symbol(c)} is not legal: {why_illegal(view, c)}."
                self.console.say(f"✗ {message}")
                self.show_options(options, declaring)

    def play_hand(self, game: Game) -> None:
        """Play ``game`` to the end, agents and person in turn."""
        self.game = game
        for s, p in enumerate(self.players):
            if p is not None:
                p.reset(s, self.rules)
        while not game.is_over():
            seat = game.current_player
            tricks, decls = len(game.tricks), len(game.declarations)
            if seat == self.human:
                action = self.human_action(game)
            else:
                agent = self.players[seat]
                assert agent is not None
                action = agent.act(game.view(seat))
            phase = game.phase
            game.step(action)
            self.console.say(self.describe(phase, seat, action,
                                           self.sees_exposure(game, seat, action)))
            self.announce_after(game, tricks, decls, seat, action)

    def summary(self, game: Game, totals: bool = True) -> None:
        """Print the result of a finished hand, and (``totals``) the match totals."""
        st = self.st
        scores = game.scores()
        self.console.say()
        self.console.say(st.bold(f"=== Hand {self.hand_number} over ==="))
        width = max(len(x) for x in self.labels) + 2
        money = settle(scores, self.rules)
        total_head = f"{'total':>8}" if totals else ""
        self.console.say(f"{'':<{width}}{'hand':>6}{'settled':>9}{total_head}   captured")
        for s in range(4):
            total = f"{self.totals[s]:>8}" if totals else ""
            self.console.say(f"{self.name(s):<{width}}{scores[s]:>6}{money[s]:>9}{total}"
                             f"   {st.cards(game.captured[s])}")

    def record(self, game: Game) -> dict[str, Any]:
        """Return the hand record of ``game`` with this table's metadata."""
        meta = dict(self.meta, hand=self.hand_number, players=self.labels,
                    human_seat=self.human)
        return record_hand(game, leader=self.leader, meta=meta)


# ---------------------------------------------------------------------- play command
def build_opponents(specs: Sequence[str] | None, seat: int, seed: int,
                    say: Callable[[str], None], rules: Rules | None = None,
                    ) -> tuple[list[Agent | None], list[str]]:
    """Agents for the three other seats, and every seat's label.

    ``specs`` is one spec for all three or one per seat in seat order; ``None`` means the
    pretrained policy, falling back (with a one-line notice) to the best agent available.
    Each agent is also seated once at a table of ``rules``, so that an agent that cannot play
    these rules (a policy trained for others) is refused here, not in the middle of a hand.
    """
    rules = rules or Rules()
    if specs is None:
        chosen = None
        reasons = []
        for spec in (DEFAULT_OPPONENT, *FALLBACK_OPPONENTS):
            try:
                make_agent(spec, seed=0).reset((seat + 1) % 4, rules)
            except Exception as e:  # noqa: BLE001 - any failure means "not available here"
                reasons.append(str(e).splitlines()[0] if str(e) else type(e).__name__)
                continue
            chosen = spec
            break
        if chosen is None:
            raise RuntimeError("no agent could be built: " + "; ".join(reasons))
        if chosen != DEFAULT_OPPONENT:
            say(f"note: the pretrained policy is not available ({reasons[0]}); playing against "
                f"'{chosen}' instead.")
        specs = [chosen]
    if len(specs) not in (1, 3):
        raise ValueError(f"--opponents takes one agent spec for all three seats or three "
                         f"(one per seat in seat order); got {len(specs)}: {list(specs)}")
    others = [s for s in range(4) if s != seat]
    per_seat = dict(zip(others, specs * 3 if len(specs) == 1 else specs, strict=True))
    players: list[Agent | None] = [None] * 4
    labels = ["You"] * 4
    for s in others:
        players[s] = make_agent(per_seat[s], seed=seed * 4 + s)
        players[s].reset(s, rules)
        labels[s] = f"Seat {s} ({per_seat[s]})"
    labels[seat] = f"You (seat {seat})"
    return players, labels


def offer_save(table: Table, save: Path | None) -> None:
    """After Ctrl-C / end of input: offer to save the match, then return (the caller quits)."""
    console = table.console
    pending = list(table.records if save is None else [])
    game = table.game
    if game is not None and not game.is_over() and game.actions:
        pending.append(table.record(game))
    if not pending:
        console.say("Nothing left unsaved. Goodbye.")
        return
    n_done = sum(1 for r in pending if r["complete"])
    what = f"{n_done} finished hand(s)" + (" and the unfinished one" if n_done < len(pending)
                                           else "")
    try:
        if save is not None:
            answer = console.ask(f"Also save the unfinished hand to {save}? [y/N] ")
            target = save if answer.strip().lower() in ("y", "yes") else None
        else:
            target = _ask_path(console, f"Save the match ({what}) to a hand-record file? "
                               "Enter a file name, or just Enter to quit without saving: ")
        while target is not None:
            try:
                save_records(target, pending, append=True)
                break
            except OSError as e:
                console.say(f"Could not write {target}: {e.strerror or e}.")
                target = _ask_path(console, "Another file name (Enter to quit without "
                                   "saving): ")
    except Interrupted:
        target = None
    if target is None:
        console.say("Not saved. Goodbye.")
        return
    console.say(f"Saved {len(pending)} hand(s) to {target}. Replay with: gongzhu replay {target}")


def _ask_path(console: Console, prompt: str) -> Path | None:
    answer = console.ask(prompt).strip()
    return Path(answer).expanduser() if answer else None


def run_play(*, opponents: Sequence[str] | None, seat: int, seed: int | None, match: bool,
             threshold: int, rules: Rules, save: Path | None, colour: bool,
             out: TextIO = sys.stdout, read: Callable[[str], str] = input) -> int:
    """Run the ``gongzhu play`` session; return the exit status (130 when interrupted).

    ``threshold`` is the (negative) cumulative score that ends a match.
    """
    if threshold >= 0:
        raise ValueError(f"the match threshold is a negative score such as -1000; got {threshold}")
    console = Console(Style(colour), out, read)
    if save is not None and (save.is_dir() or not save.parent.is_dir()):
        console.say(f"gongzhu play: cannot save to {save}: "
                    + ("it is a directory" if save.is_dir() else
                       f"the directory {save.parent} does not exist"))
        return 2
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2**31))
    try:
        players, labels = build_opponents(opponents, seat, seed, console.say, rules)
    except Exception as e:  # noqa: BLE001 - a bad spec is reported, not raised at a person
        console.say(f"gongzhu play: cannot build the opponents: {e}")
        return 2
    console.say(f"Gong Zhu: {', '.join(labels)}. Seed {seed} (same seed, same deals)."
                + (f" Match until a total reaches {threshold}." if match else ""))
    rng = np.random.default_rng(seed)
    table = Table(seat, players, labels, rules, console, meta={"seed": seed})
    save_failed = False
    try:
        while True:
            table.hand_number += 1
            game = Game(rules, rng=rng, leader=table.leader)
            if table.leader is not None:
                console.say(f"\n{table.name(table.leader)} took the pig last hand and leads "
                            "this one with any card.")
            table.play_hand(game)
            rec = table.record(game)
            table.records.append(rec)
            if save is not None:
                try:
                    save_records(save, [rec], append=True)
                except OSError as e:
                    # Keep playing: every hand stays in memory and is offered for saving.
                    console.say(f"Could not append to {save} ({e.strerror or e}); the hands "
                                "will be offered for saving at the end.")
                    save = None
                    save_failed = True
            for s, v in enumerate(game.scores()):
                table.totals[s] += v
            table.summary(game)
            if not match:
                break
            if min(table.totals) <= threshold:
                best = max(range(4), key=lambda s: table.totals[s])
                console.say(console.style.bold(
                    f"Match over after {table.hand_number} hands: {table.name(best)} wins "
                    f"with {table.totals[best]:+d}."))
                break
            table.leader = sq_taker(game)
            table.game = None
            console.ask("Press Enter for the next hand... ")
    except (Interrupted, KeyboardInterrupt):
        console.say("Interrupted.")
        offer_save(table, save)
        return 130
    if save is not None:
        console.say(f"Hand records appended to {save}.")
    elif save_failed:
        offer_save(table, None)
    return 0


# ---------------------------------------------------------------------- replay command
def run_replay(path: Path, *, hand: int | None, show_all: bool, colour: bool,
               out: TextIO = sys.stdout, read: Callable[[str], str] = input) -> int:
    """Step through the hands of a record file (``hand`` is 1-based; ``None`` for all)."""
    console = Console(Style(colour), out, read)
    st = console.style
    try:
        records = load_records(path)
    except RecordError as e:
        console.say(f"gongzhu replay: {e}")
        return 2
    if hand is not None and not 1 <= hand <= len(records):
        console.say(f"gongzhu replay: {path} holds {len(records)} hand(s); --hand must be "
                    f"1..{len(records)}, got {hand}")
        return 2
    chosen = [hand] if hand is not None else list(range(1, len(records) + 1))
    stepping = not show_all
    try:
        for n in chosen:
            rec = records[n - 1]
            try:
                final = replay_record(rec)
            except RecordError as e:
                console.say(f"gongzhu replay: {path}, hand {n}: {e}")
                return 2
            players = rec.get("meta", {}).get("players") or [f"Seat {s}" for s in range(4)]
            labels = [str(p) for p in players][:4]
            table = Table(-1, [None] * 4, labels, final.rules, console)
            console.say(st.bold(f"=== {path.name}: hand {n} of {len(records)} ==="))
            for s, cards in enumerate(final.deal):
                console.say(f"{labels[s]:<24} {st.hand(cards)}")
            game = Game.from_hands(final.deal, final.rules, leader=rec["leader"])
            if stepping:
                console.say(st.dim("Enter: next action · a: show the rest · q: quit"))
            for action in final.actions:
                seat = game.current_player
                tricks, decls = len(game.tricks), len(game.declarations)
                phase = game.phase
                game.step(action)
                console.say(table.describe(phase, seat, action))
                table.announce_after(game, tricks, decls, seat, action)
                if stepping:
                    answer = console.ask("").strip().lower()
                    if answer in ("q", "quit"):
                        return 0
                    if answer in ("a", "all"):
                        stepping = False
            if game.is_over():
                table.hand_number = n
                table.summary(game, totals=False)
            else:
                console.say(f"(hand {n} was interrupted after {len(game.actions)} actions)")
    except Interrupted:
        return 0
    return 0
