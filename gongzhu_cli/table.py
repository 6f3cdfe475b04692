"""One table at the terminal: what the person sees, how they act, and the running match.

``Table`` shows the state from the person's own view only (what that seat may know, nothing
more), describes every action as it happens, asks the person for theirs and keeps the match
totals and hand records. ``gongzhu play`` drives it with agents in the other seats;
``gongzhu replay`` uses it with nobody seated, only to describe recorded actions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.base import Agent
from gongzhu_cli.terminal import HELP_WORDS, Console, Style, parse_choice, why_illegal
from gongzhu_env.cards import DONE, card_symbol, parse_card
from gongzhu_env.engine import Game
from gongzhu_env.players import play_turns, start_hand
from gongzhu_env.records import record_hand
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import settle


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
            if text.lower() in HELP_WORDS:
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
        """Play ``game`` to the end, agents and person in turn.

        The agents' turns go through the shared loop (``gongzhu_env.players.play_turns``),
        which stops at the person's seat; every action, theirs or the person's, is then shown
        with what the engine did after it.
        """
        self.game = game
        start_hand(self.players, self.rules)
        before = _moment(game)

        def show(seat: int, action: int) -> None:
            nonlocal before
            phase, tricks, decls = before
            self.console.say(self.describe(phase, seat, action,
                                           self.sees_exposure(game, seat, action)))
            self.announce_after(game, tricks, decls, seat, action)
            before = _moment(game)

        while True:
            play_turns(game, self.players, on_action=show)
            if game.is_over():
                return
            action = self.human_action(game)
            game.step(action)
            show(self.human, action)

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


def _moment(game: Game) -> tuple[str, int, int]:
    """Return the phase and the counts of tricks and declarations, to describe the next action."""
    return game.phase, len(game.tricks), len(game.declarations)
