"""HTML tables of a hand for notebooks: ``game_html(game, seat=None)`` and ``view_html(view)``.

Jupyter shows an object through its ``_repr_html_``; ``Game`` and ``PlayerView`` delegate to this
module. The markup is a self-contained ``<div>`` with inline styles (notebook front ends strip
or scope ``<style>`` blocks differently), red for hearts and diamonds, and every piece of text
escaped. Hidden information stays hidden: ``game_html(game, seat)`` shows only that seat's hand,
and ``view_html`` can only show what the view holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from gongzhu_env.cards import DONE, SUIT_SYMBOLS, card_symbol, cards_of
from gongzhu_env.state import GameState, SeatView, Trick

__all__ = ["card_html", "game_html", "view_html"]

_RED, _BLACK = "#c62828", "#1b1b1b"
_LEGAL_STYLE = "background:#fff3b0;border-radius:3px;"
_TABLE_STYLE = "border-collapse:collapse;margin:4px 0;"
_CELL_STYLE = "padding:2px 8px;border-bottom:1px solid #ddd;text-align:left;"


def card_html(c: int, *, legal: bool = False) -> str:
    """One card as a coloured ``<span>`` (``♥Q`` in red); ``legal`` highlights it."""
    if c == DONE:
        return '<span style="font-weight:bold;">DONE</span>'
    colour = _RED if c // 13 in (1, 2) else _BLACK
    extra = _LEGAL_STYLE if legal else ""
    return f'<span style="color:{colour};{extra}">{escape(card_symbol(c))}</span>'


def _cards_html(mask: int, legal: int = 0) -> str:
    cards = cards_of(mask)
    if not cards:
        return "&ndash;"
    return " ".join(card_html(c, legal=bool(legal >> c & 1)) for c in cards)


def _hand_html(mask: int, legal: int = 0) -> str:
    """Render a hand grouped by suit, spades first, highest rank first within a suit."""
    groups = []
    for s in (3, 2, 1, 0):
        cards = [c for c in cards_of(mask) if c // 13 == s]
        if not cards:
            continue
        colour = _RED if s in (1, 2) else _BLACK
        ranks = []
        for c in reversed(cards):
            rank = escape(card_symbol(c)[1:])
            ranks.append(f'<span style="{_LEGAL_STYLE}">{rank}</span>' if legal >> c & 1
                         else rank)
        groups.append(f'<span style="color:{colour};margin-right:10px;">'
                      f'{SUIT_SYMBOLS[s]}&nbsp;{" ".join(ranks)}</span>')
    return " ".join(groups) if groups else "&ndash;"


@dataclass
class _Table:
    """What one rendering shows, gathered from a ``Game`` or a ``PlayerView``."""

    phase: str
    current_player: int
    hands: list[int | None]  # a seat's hand mask, or None when hidden
    hand_sizes: list[int]
    exposed: Sequence[int]
    captured: Sequence[int]
    scores: Sequence[int]
    final: bool
    trick_leader: int
    trick: Sequence[int]
    tricks: Sequence[Trick]
    legal: int
    observer: int | None
    names: Sequence[str]


def _names(names: Sequence[str] | None, observer: int | None) -> list[str]:
    if names is not None:
        if len(names) != 4:
            raise ValueError(f"names must give one name per seat (4), got {len(names)}")
        return [str(n) for n in names]
    return [f"seat {s}" + (" (you)" if s == observer else "") for s in range(4)]


def _render(t: _Table) -> str:
    n_tricks = len(t.tricks)
    header = f"Gong Zhu &middot; phase: {escape(t.phase)}"
    if t.phase == "play":
        header += f" &middot; trick {n_tricks + 1}/13"
    if t.phase != "over":
        header += f" &middot; {escape(t.names[t.current_player])} to act"
    parts = ['<div class="gongzhu" style="font-family:sans-serif;font-size:14px;">',
             f'<div style="font-weight:bold;margin-bottom:4px;">{header}</div>',
             f'<table style="{_TABLE_STYLE}">',
             "<thead><tr>" + "".join(f'<th style="{_CELL_STYLE}">{h}</th>' for h in
                                     ("seat", "hand", "exposed", "captured", "score"))
             + "</tr></thead>", "<tbody>"]
    for s in range(4):
        to_act = t.phase != "over" and s == t.current_player
        name = escape(t.names[s]) + (" &#9664;" if to_act else "")
        hand = t.hands[s]
        legal = t.legal if s == t.current_player else 0
        hand_cell = (_hand_html(hand, legal) if hand is not None
                     else f'<span style="color:#777;">{t.hand_sizes[s]} cards</span>')
        weight = "font-weight:bold;" if to_act else ""
        parts.append(
            f"<tr><td style=\"{_CELL_STYLE}{weight}\">{name}</td>"
            f'<td style="{_CELL_STYLE}">{hand_cell}</td>'
            f'<td style="{_CELL_STYLE}">{_cards_html(t.exposed[s])}</td>'
            f'<td style="{_CELL_STYLE}">{_cards_html(t.captured[s])}</td>'
            f'<td style="{_CELL_STYLE}text-align:right;">{int(t.scores[s])}</td></tr>')
    parts.append("</tbody></table>")
    if t.trick:
        played = ", ".join(f"{escape(t.names[(t.trick_leader + i) % 4])} {card_html(c)}"
                           for i, c in enumerate(t.trick))
        parts.append(f"<div>Trick in progress: {played}</div>")
    if t.tricks:
        last = t.tricks[-1]
        played = ", ".join(f"{escape(t.names[(last.leader + i) % 4])} {card_html(c)}"
                           for i, c in enumerate(last.cards))
        parts.append(f"<div>Last trick: {played} &rarr; taken by "
                     f"{escape(t.names[last.winner])}</div>")
    if t.legal:
        legal = " ".join(card_html(a) for a in range(DONE + 1) if t.legal >> a & 1)
        parts.append(f"<div>Legal actions: {legal}</div>")
    if t.final:
        parts.append("<div style=\"font-weight:bold;\">Final scores: " + ", ".join(
            f"{escape(t.names[s])} {int(t.scores[s])}" for s in range(4)) + "</div>")
    parts.append("</div>")
    return "".join(parts)


def game_html(game: GameState, seat: int | None = None, names: Sequence[str] | None = None) -> str:
    """HTML table of a hand: every hand (a spectator), or what ``seat`` knows when given.

    ``names`` labels the four seats (escaped); the default is ``seat 0`` .. ``seat 3``.
    """
    if seat is not None and seat not in range(4):
        raise ValueError(f"seat must be 0..3 or None (a spectator); got {seat!r}")
    if seat is not None:
        # One seat's table is exactly its view: whatever the rules hide, the view hides.
        return view_html(game.view(seat), names)
    hands = game.hand_masks
    over = game.is_over()
    return _render(_Table(
        phase=game.phase.value,
        current_player=game.current_player,
        hands=list(hands),
        hand_sizes=[h.bit_count() for h in hands],
        exposed=game.exposed_masks,
        captured=game.captured_masks,
        scores=game.scores() if over else game.provisional_scores(),
        final=over,
        trick_leader=game.trick_leader,
        trick=game.trick_cards,
        tricks=game.tricks,
        legal=game.legal_mask(),
        observer=None,
        names=_names(names, None),
    ))


def view_html(view: SeatView, names: Sequence[str] | None = None) -> str:
    """HTML table of what one seat knows: its own hand, the others' card counts, the public rest.

    The observer's legal actions are highlighted when it is its turn.
    """
    played = view.played_masks
    return _render(_Table(
        phase=str(view.phase.value if hasattr(view.phase, "value") else view.phase),
        current_player=view.current_player,
        hands=[view.hand_mask if s == view.seat else None for s in range(4)],
        hand_sizes=[13 - played[s].bit_count() for s in range(4)],
        exposed=view.exposed_masks,
        captured=view.captured_masks,
        scores=view.scores,
        final=view.phase == "over",
        trick_leader=view.trick_leader,
        trick=view.current_trick,
        tricks=view.tricks,
        legal=view.legal_mask,
        observer=view.seat,
        names=_names(names, view.seat),
    ))
