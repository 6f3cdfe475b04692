"""One table at the terminal: what the person sees, how they act, and the running match.

``Table`` shows the state from the person's own view only (what that seat may know, nothing
more), describes every action as it happens, asks the person for theirs and keeps the match
totals and hand records. ``gongzhu play`` drives it with agents in the other seats;
``gongzhu replay`` uses it with nobody seated, only to describe recorded actions.

With two decks every multiset (a hand, exposures, captures) is shown with a card twice where
there are two copies, a trick led with a pair is shown play by play (``♣7+♣7``, then each
follower's two cards), and a follower to a pair lead is asked for the first and then the second
card of their two-card play, each time with the cards the engine allows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.base import Agent
from gongzhu_cli.terminal import (
    HELP_WORDS,
    PAIR_FORMS,
    Console,
    NotLegal,
    Style,
    action_text,
    parse_choice,
    two_card_part,
    view_part,
    why_illegal,
)
from gongzhu_env.cards import SQ, ActionCodec, card_symbol, multiset_cards
from gongzhu_env.engine import Game
from gongzhu_env.players import play_turns, start_hand
from gongzhu_env.records import record_hand
from gongzhu_env.render import trick_number
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import settle


class AgentFailed(Exception):
    """An agent at the table raised or chose an illegal action; the hand cannot go on."""

    def __init__(self, seat: int, label: str, error: Exception) -> None:
        super().__init__(f"{label} failed: {type(error).__name__}: {error}")
        self.seat = seat


@dataclass
class Table:
    """One match at the terminal: the players, the hands so far and the running totals."""

    human: int
    players: list[Agent | None]
    labels: list[str]
    rules: Rules
    console: Console
    totals: list[int] = field(default_factory=list)
    """Each seat's running total (zeros for every seat of ``rules`` when not given)."""
    records: list[dict[str, Any]] = field(default_factory=list)
    game: Game | None = None
    leader: int | None = None
    hand_number: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.totals:
            self.totals = [0] * self.rules.players

    @property
    def seats(self) -> range:
        """Every seat of the table."""
        return range(self.rules.players)

    @property
    def st(self) -> Style:
        """The console's style."""
        return self.console.style

    @property
    def codec(self) -> ActionCodec:
        """The actions of this table's rules: their text, DONE and whether pairs are led."""
        return ActionCodec.for_rules(self.rules)

    def name(self, seat: int) -> str:
        """How a seat is called on screen."""
        return self.labels[seat]

    # -------------------------------------------------------------- showing
    def show_state(self, game: Game) -> None:
        """Print the table as the person sees it before acting."""
        st, view = self.st, game.view(self.human)
        if game.phase == "declare":
            where = "declaration"
        else:
            where = f"trick {trick_number(len(game.tricks), self.rules)}"
        self.console.say()
        self.console.say(st.bold(f"── Hand {self.hand_number} · {where} ──"))
        # Everything shown comes from the person's own view: what a seat may know, no more.
        scores = view.scores
        line = "   ".join(f"{self.name(s)} {scores[s]:+d}" for s in self.seats)
        self.console.say(f"Scores this hand: {line}")
        if any(self.totals) or self.hand_number > 1:
            self.console.say("Match totals:     " + "   ".join(
                f"{self.name(s)} {self.totals[s]:+d}" for s in self.seats))
        # Under hidden exposure (暗卖) the view knows only how many cards a seat exposed.
        counts = getattr(view, "exposed_counts", None) or [len(cs) for cs in view.exposed]
        exposed = []
        for s, cs in enumerate(_multisets(view.exposed_masks, view.exposed_pair_masks)):
            hidden = counts[s] - len(cs)
            text = " ".join(filter(None, [st.cards(cs) if cs else "",
                                          f"{hidden} hidden" if hidden > 0 else ""]))
            if text:
                exposed.append(f"{self.name(s)} {text}")
        if exposed:
            self.console.say("Exposed: " + "   ".join(exposed))
        captured = [(s, cs) for s, cs in enumerate(
            _multisets(view.captured_masks, view.captured_pair_masks)) if cs]
        if captured:
            self.console.say("Captured: " + "   ".join(
                f"{self.name(s)} {st.cards(cs)}" for s, cs in captured))
        if view.current_trick:
            self.console.say("Trick so far: " + self.trick_text(view.trick_leader,
                                                                view.current_trick,
                                                                view.pair_lead))
        elif game.phase == "play":
            self.console.say("You lead this trick.")
        hand = multiset_cards(view.hand_mask, view.hand_pair_mask)
        self.console.say(f"Your hand: {st.hand(hand)}")

    def trick_text(self, leader: int, cards: Sequence[int], pair_lead: bool) -> str:
        """Return the plays of a trick in seat order: one card each, or two after a pair lead."""
        st = self.st
        if not pair_lead:
            return ", ".join(f"{self.name((leader + i) % self.rules.players)} {st.card(c)}"
                             for i, c in enumerate(cards))
        plays = [cards[i:i + 2] for i in range(0, len(cards), 2)]
        shown = [f"{self.name(leader)} {self.codec.pair_text(plays[0][0], st.card)}"]
        for i, play in enumerate(plays[1:], start=1):
            more = " …" if len(play) == 1 else ""
            shown.append(f"{self.name((leader + i) % self.rules.players)} {st.cards(play)}"
                         f"{more}")
        return ", ".join(shown)

    def show_options(self, options: Sequence[int], declaring: bool) -> None:
        """Print the numbered legal options (a pair lead is shown ``♠Q+♠Q``)."""
        st, codec = self.st, self.codec
        items = []
        for i, a in enumerate(options, start=1):
            label = st.action(a, codec)
            if declaring and not codec.is_done(a):
                label = "expose " + label
            items.append(f"{i}) {label}")
        self.console.say("Options: " + "  ".join(items))

    def sees_exposure(self, game: Game, seat: int, card: int) -> bool:
        """Whether the person may see that ``seat`` exposed ``card`` (a replay sees all)."""
        if self.human < 0 or seat == self.human:
            return True
        return card in game.view(self.human).exposed[seat]

    def describe(self, phase: str, seat: int, action: int, visible: bool = True,
                 part: int = 0) -> str:
        """One line for an action ``seat`` took in ``phase``; ``visible=False`` hides the card.

        ``part`` (two decks) is 1 or 2 for the first or second card of a two-card play to a
        pair lead (``action_part``), 0 otherwise.
        """
        you = seat == self.human
        who, s = ("You", "") if you else (self.name(seat), "s")
        codec = self.codec
        if phase == "declare":
            if codec.is_done(action):
                return f"{who} {'are' if you else 'is'} done declaring"
            return f"{who} expose{s} " + (self.st.card(action) if visible else "a card")
        if codec.is_pair(action):
            return f"{who} lead{s} the pair {self.st.action(action, codec)}"
        which = {1: " (first of two)", 2: " (second of two)"}.get(part, "")
        return f"{who} play{s} {self.st.card(action)}{which}"

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
            wins = "You win" if t.winner == self.human else f"{self.name(t.winner)} wins"
            self.console.say(self.st.bold(f"→ {wins} the trick") + gain)

    # -------------------------------------------------------------- acting
    def human_action(self, game: Game) -> int:
        """Ask until the person gives a legal action; mistakes are explained, never fatal."""
        view = game.view(self.human)
        options = view.legal_actions
        codec = self.codec
        declaring = game.phase == "declare"
        part = view_part(view)
        pairs = any(codec.is_pair(a) for a in options)
        self.show_state(game)
        if declaring:
            # Where pairs may be led a card has two copies, each exposed on its own.
            copies = " (each copy you hold, one at a time)" if codec.pairs else ""
            self.console.say("Declaration: you may expose ♠Q ♦J ♣10 ♥A to double their effect"
                             + copies
                             + "; type 'done' when finished.")
        elif part == 1:
            self.console.say("The trick was led with a pair: you play two cards, one at a time. "
                             "Choose the first card of your two.")
        elif part == 2:
            first = card_symbol(view.current_trick[-1])
            self.console.say(f"Choose the second card of your two (the first was {first}).")
        self.show_options(options, declaring)
        if declaring:
            prompt = "Expose a card or 'done' (number or card): "
        elif part:
            prompt = f"{'First' if part == 1 else 'Second'} of your two cards (number or card): "
        elif pairs:
            prompt = (f"Your lead (number, a card such as SQ, or a pair such as "
                      f"{codec.pair_text(SQ)}): ")
        else:
            prompt = "Your play (number or card, e.g. SQ, h10, ♠Q): "
        while True:
            text = self.console.ask(prompt).strip()
            if not text:
                continue
            if text.lower() in HELP_WORDS:
                self.console.say(self.help_text(declaring, part, pairs))
                self.show_options(options, declaring)
                continue
            try:
                return parse_choice(text, options, codec)
            except NotLegal as e:
                message = f"{action_text(e.action, codec)} is not legal: " \
                          f"{why_illegal(view, e.action)}."
            except ValueError as e:
                message = str(e)
            self.console.say(f"✗ {message}")
            self.show_options(options, declaring)

    def help_text(self, declaring: bool, part: int, pairs: bool) -> str:
        """Return what may be typed at the current prompt."""
        text = ("Type the number of an option, or a card: suit letter or symbol and rank "
                "(SQ, h10, CT, ♠Q)")
        if declaring:
            return text + ", or 'done'."
        if pairs:
            return text + f". To lead both copies of a card as a pair type {PAIR_FORMS}."
        if part:
            return text + ". After a pair lead you play two cards: one card at each prompt."
        return text + "."

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
            phase, tricks, decls, part = before
            self.console.say(self.describe(phase, seat, action,
                                           self.sees_exposure(game, seat, action), part))
            self.announce_after(game, tricks, decls, seat, action)
            before = _moment(game)

        while True:
            try:
                play_turns(game, self.players, on_action=show)
            except Exception as e:  # noqa: BLE001 - an agent's failure ends the hand, politely
                seat = game.current_player
                raise AgentFailed(seat, self.name(seat), e) from e
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
        for s in self.seats:
            total = f"{self.totals[s]:>8}" if totals else ""
            self.console.say(f"{self.name(s):<{width}}{scores[s]:>6}{money[s]:>9}{total}"
                             f"   {st.cards(game.captured[s])}")
        if self.rules.team_play:
            self.console.say("Teams (hand points): " + ", ".join(
                f"{self.name(a)} & {self.name(b)} {scores[a] + scores[b]:+d}"
                for a, b in self.rules.fixed_teams))

    def record(self, game: Game) -> dict[str, Any]:
        """Return the hand record of ``game`` with this table's metadata."""
        meta = dict(self.meta, hand=self.hand_number, players=self.labels,
                    human_seat=self.human)
        return record_hand(game, leader=self.leader, meta=meta)


def action_part(game: Game) -> int:
    """For the seat to move: 1 or 2 if it plays the first or second card to a pair lead, else 0."""
    return two_card_part(game.current_player, game.trick_leader, game.trick_cards,
                         game.pair_lead)


def _multisets(once: Sequence[int], twice: Sequence[int]) -> list[tuple[int, ...]]:
    """Each seat's cards from its ``once`` and ``twice`` masks (a card twice where twice)."""
    return [multiset_cards(a, b) for a, b in zip(once, twice, strict=True)]


def _moment(game: Game) -> tuple[str, int, int, int]:
    """Return what describes the next action: phase, tricks, declarations and its pair part."""
    return game.phase, len(game.tricks), len(game.declarations), action_part(game)
