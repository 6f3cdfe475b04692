"""The messages a browser receives, built from one seat's ``PlayerView`` and public facts only.

A browser is one seat at the table. Everything it is sent about a hand in progress comes from
``view`` (``game.view(seat)``: that seat's own cards and the public state, with another seat's
hidden exposures already hidden) and from ``PublicTable`` (the names at the table, the match
standings, the results of finished hands): never from the ``Game``, which knows every hand.
That is the whole defence against leaking a hidden card, so it is kept structural: nothing in
this module imports or receives a ``Game`` for a seat's messages. The over-the-wire leak test
(tests/gongzhu_cli/web/test_leak.py) swaps hidden cards between opponents and checks that no
message to the observer changes, the engine's own leak check applied to what goes out.

The one exception is the replay of a hand-record file (``replay_frames``): the person opened
their own record, every hand in it is finished and the record holds the deal, so the frames
show every seat's cards, read from the replayed game's public surface.

Cards travel as card text (``"SQ"``, ``"C10"``); a two-deck pair lead as ``"SQ+SQ"``; the end of
a declaration turn as ``"DONE"`` (``gongzhu_env.cards.ActionCodec``), the notation of the hand
records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from gongzhu_cli.terminal import view_part
from gongzhu_env.cards import (
    ActionCodec,
    card_str,
    card_symbol,
    cards_of,
    multiset_cards,
    parse_card,
)
from gongzhu_env.rules import Rules
from gongzhu_env.state import GameState
from gongzhu_env.view import HIDDEN_ACTION, PlayerView

PROTOCOL = 1
"""Version of the message protocol (``hello`` carries it)."""


@dataclass
class PublicTable:
    """What everyone at a table knows that a hand's ``PlayerView`` does not hold.

    Names, the match standings and the results of finished hands are public: the results of a
    hand are shown to every seat once it is over, as at a real table.
    """

    table: str
    """The table's id (the browser's key to reconnect)."""
    labels: list[str]
    """How each seat is called ("You", "expert"...)."""
    match: bool
    hand_number: int
    """1-based number of the hand in progress (or just finished)."""
    totals: list[int]
    """Each seat's cumulative raw score over the finished hands of the match."""
    history: list[dict[str, Any]] = field(default_factory=list)
    """One entry per finished hand: ``{"scores": [...], "settled": [...]}``."""
    thinking: int | None = None
    """The AI seat whose move is being computed, if any."""
    match_over: bool = False
    winners: list[int] = field(default_factory=list)
    losers: list[int] = field(default_factory=list)
    result: dict[str, Any] | None = None
    """The finished hand's result (``hand_result``), once it is over."""
    records: int = 0
    """Finished hands that can be downloaded as hand records."""
    failure: str | None = None
    """Why the table cannot go on (an agent failed), if it cannot."""


def cards(seq: Sequence[int]) -> list[str]:
    """Card text of each card of ``seq``."""
    return [card_str(c) for c in seq]


def _number(x: int | Fraction) -> int | float:
    """Return a settlement amount for JSON: an int, or a float for a split coin share."""
    return x if isinstance(x, int) else float(x)


def hand_result(scores: Sequence[int], settled: Sequence[int | Fraction], rules: Rules,
                teams: Sequence[Sequence[int]] | None = None) -> dict[str, Any]:
    """Return the public result of a finished hand: raw scores, the settlement and its sense.

    ``teams`` (under team rules) lets the page group the seats by team; ``explain`` says in
    words what the settled column is, as the rules compute it.
    """
    grouped = [sorted(t) for t in teams] if rules.has_teams and teams else None
    return {"scores": list(scores), "settled": [_number(x) for x in settled],
            "teams": grouped, "explain": settlement_words(rules, grouped)}


def settlement_words(rules: Rules, teams: Sequence[Sequence[int]] | None) -> str:
    """Say what a hand's settlement is under ``rules`` (``gongzhu_env.scoring.settle``)."""
    times = rules.settlement_multiplier
    scaled = f", times {times}" if times != 1 else ""
    if rules.settlement == "yuanbao":
        return (f"Coins: every seat below the top score pays the top scorer the difference "
                f"(tied top scorers share it){scaled}.")
    if teams:
        if len(teams) == 2 and len(teams[0]) != len(teams[1]):
            return (f"Settled: the seat alone scores its hand score against the average of "
                    f"the other team's, and each of the others pays an equal share of that"
                    f"{scaled}; the amounts sum to zero.")
        against = "the other team's" if len(teams) == 2 else "the average of the other teams'"
        return (f"Settled: each team's hand score against {against}, halved, for each "
                f"partner{scaled}; the amounts sum to zero.")
    return (f"Settled: each seat's hand score minus the average of the other seats' scores, "
            f"rounded{scaled}: what it wins or pays, the amounts summing to zero.")


def your_turn_prompt(view: PlayerView, legal: Sequence[str]) -> str:
    """Tell the person what they may do now, naming only the cards they may expose."""
    if view.phase == "declare":
        cards_to_expose = [a for a in legal if a != "DONE"]
        if not cards_to_expose:
            return "Your declaration: you hold no card you may expose; press Done."
        shown = ", ".join(card_symbol(parse_card(c)) for c in cards_to_expose)
        return f"Your declaration: you may expose {shown} (click it), or press Done."
    part = view_part(view)
    if part == 1:
        return "A pair was led: play your first card of two."
    if part == 2:
        return "Play your second card."
    return "Your turn: follow." if view.current_trick else "Your lead."


def state_message(view: PlayerView, public: PublicTable, seq: int,
                  event: dict[str, Any] | None = None) -> dict[str, Any]:
    """Build the table as ``view.seat`` sees it: the message the page draws from.

    ``event`` describes the action that led here (``action_event``), also built from the view.
    """
    rules = view.rules
    n = rules.players
    me = view.seat
    codec = ActionCodec.for_rules(rules)
    your_turn = view.current_player == me and view.phase != "over" and public.thinking is None
    legal = [codec.text(a) for a in view.legal_actions] if your_turn else []
    last = view.tricks[-1] if view.tricks else None
    exposed = [cards(multiset_cards(view.exposed_masks[s], view.exposed_pair_masks[s]))
               for s in range(n)]
    captured = [cards(multiset_cards(view.captured_masks[s], view.captured_pair_masks[s]))
                for s in range(n)]
    return {
        "type": "state",
        "seq": seq,
        "table": public.table,
        "seat": me,
        "players": n,
        "decks": rules.decks,
        "labels": list(public.labels),
        "phase": str(view.phase),
        "current_player": view.current_player,
        "your_turn": your_turn,
        "thinking": public.thinking,
        "hand": cards(view.hand),
        "legal": legal,
        "prompt": your_turn_prompt(view, legal) if your_turn else None,
        "part": view_part(view) if your_turn else 0,
        "first_leader": view.first_leader,
        "trick": {"leader": view.trick_leader, "cards": cards(view.current_trick),
                  "pair_lead": bool(view.pair_lead)},
        "last_trick": None if last is None else {
            "leader": last.leader, "cards": cards(last.cards), "winner": last.winner,
            "number": len(view.tricks)},
        "tricks_played": len(view.tricks),
        "exposed": exposed,
        "exposed_counts": list(view.exposed_counts),
        "captured": captured,
        "cards_left": [rules.hand_size - view.played_masks[s].bit_count()
                       - view.played_pair_masks[s].bit_count() for s in range(n)],
        "declared": [bool(view.declared_seats >> s & 1) for s in range(n)],
        # First-drawn exposure (首明): the person's own first dealt card, and the exposed
        # cards doubled again as their holder's first (public once exposed).
        "first_drawn": None if view.first_drawn is None else card_str(view.first_drawn),
        "doubled": cards(cards_of(view.doubled_mask)),
        "scores": list(view.scores),
        "teams": None if view.teams is None else [list(t) for t in view.teams],
        "hand_number": public.hand_number,
        "match": {"on": public.match, "totals": list(public.totals),
                  "history": list(public.history), "over": public.match_over,
                  "winners": list(public.winners), "losers": list(public.losers)},
        "result": public.result,
        "records": public.records,
        "failure": public.failure,
        "event": event,
    }


def action_event(view: PlayerView, seat: int, phase: str) -> dict[str, Any]:
    """Describe the action ``seat`` just took, as ``view.seat`` may know it.

    The action is read back from the view's history (``view.actions[-1]``), so another seat's
    hidden exposure arrives as ``null`` ("exposed a card"), exactly as the view hides it.
    """
    last = view.actions[-1]
    text = None if last == HIDDEN_ACTION else ActionCodec.for_rules(view.rules).text(last)
    return {"seat": seat, "phase": phase, "action": text}


def hello_message(options: Mapping[str, Any]) -> dict[str, Any]:
    """Build the first message on a connection: the protocol, what a table may be, the limits."""
    return {"type": "hello", "protocol": PROTOCOL, **options}


def error_message(code: str, message: str, **extra: Any) -> dict[str, Any]:
    """Build a refusal: ``code`` for programs, ``message`` for people."""
    return {"type": "error", "code": code, "message": message, **extra}


def hint_message(seq: int, values: Mapping[int, float] | None, choice: int,
                 codec: ActionCodec, note: str) -> dict[str, Any]:
    """Build the search's answer for the person's position: each legal card's value in points."""
    return {"type": "hint", "seq": seq,
            "values": None if values is None else
            {codec.text(a): round(v, 1) for a, v in values.items()},
            "choice": codec.text(choice), "note": note}


# ------------------------------------------------------------------------ replay (own records)
def describe(labels: Sequence[str], seat: int, phase: str, action: int,
             codec: ActionCodec) -> str:
    """One line for a recorded action of ``codec``'s space, for the replay."""
    who = labels[seat]
    if codec.is_done(action):
        return f"{who} is done declaring"
    shown = codec.text(action, card_symbol)
    if phase == "declare":
        return f"{who} exposes {shown}"
    if codec.is_pair(action):
        return f"{who} leads the pair {shown}"
    return f"{who} plays {shown}"


def spectator_frame(game: GameState, text: str, step: int) -> dict[str, Any]:
    """Every seat's cards and the public state of a replayed hand after ``step`` actions."""
    last = game.tricks[-1] if game.tricks else None
    return {
        "step": step,
        "text": text,
        "phase": str(game.phase),
        "current_player": game.current_player,
        "hands": [cards(multiset_cards(game.hand_masks[s], game.hand_pair_masks[s]))
                  for s in range(game.rules.players)],
        "trick": {"leader": game.trick_leader, "cards": cards(game.trick_cards),
                  "pair_lead": bool(game.pair_lead)},
        "last_trick": None if last is None else {
            "leader": last.leader, "cards": cards(last.cards), "winner": last.winner,
            "number": len(game.tricks)},
        "exposed": [cards(multiset_cards(game.exposed_masks[s], game.exposed_pair_masks[s]))
                    for s in range(game.rules.players)],
        "captured": [cards(multiset_cards(game.captured_masks[s], game.captured_pair_masks[s]))
                     for s in range(game.rules.players)],
        "scores": list(game.provisional_scores()),
    }
