"""HTML tables of a hand for notebooks: ``game_html(game, seat=None)`` and ``view_html(view)``.

Jupyter shows an object through its ``_repr_html_``; ``Game`` and ``PlayerView`` delegate to this
module. The markup is a self-contained ``<div>`` with inline styles (notebook front ends strip
or scope ``<style>`` blocks differently), red for hearts and diamonds, and every piece of text
escaped. Hidden information stays hidden: ``game_html(game, seat)`` shows only that seat's hand,
and ``view_html`` can only show what the view holds.

Two decks (RULES.md 6.11) show every copy: a card held, exposed or taken twice is drawn twice,
a trick led with a pair shows each seat's two cards as one play, and a pair lead among the
legal actions reads ``♠Q+♠Q``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from gongzhu_env.cards import (
    DONE,
    SUIT_SYMBOLS,
    ActionCodec,
    card_symbol,
    ms_size,
    multiset_cards,
)
from gongzhu_env.render import trick_number, trick_plays
from gongzhu_env.state import GameState, SeatView, Trick

__all__ = ["action_html", "card_html", "game_html", "view_html"]

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


def action_html(action: int, decks: int = 1) -> str:
    """One action: a card, ``DONE``, or (two decks) a pair lead drawn as ``♠Q+♠Q``."""
    return _action_html(action, ActionCodec.for_decks(decks))


def _action_html(action: int, codec: ActionCodec) -> str:
    if codec.is_done(action):
        return '<span style="font-weight:bold;">DONE</span>'
    return codec.text(action, card_html)


def _cards_html(mask: int, twice: int = 0) -> str:
    cards = multiset_cards(mask, twice)
    if not cards:
        return "&ndash;"
    return " ".join(card_html(c) for c in cards)


def _hand_html(mask: int, legal: int = 0, twice: int = 0) -> str:
    """Render a hand grouped by suit, spades first, highest rank first within a suit.

    ``twice`` (two decks): cards held twice, whose rank is drawn twice.
    """
    groups = []
    held = multiset_cards(mask, twice)
    for s in (3, 2, 1, 0):
        cards = [c for c in held if c // 13 == s]
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
    hands_twice: list[int]  # two decks: the cards of a shown hand held twice
    hand_sizes: list[int]
    exposed: Sequence[int]
    exposed_twice: Sequence[int]
    captured: Sequence[int]
    captured_twice: Sequence[int]
    scores: Sequence[int]
    final: bool
    trick_leader: int
    trick: Sequence[int]
    pair_lead: bool
    tricks: Sequence[Trick]
    legal: int
    codec: ActionCodec
    trick_number: str
    observer: int | None
    names: Sequence[str]


def _names(names: Sequence[str] | None, observer: int | None, seats: int) -> list[str]:
    if names is not None:
        if isinstance(names, str) or len(names) != seats:
            raise ValueError(f"names must give one name per seat ({seats}), got "
                             f"{len(names) if not isinstance(names, str) else repr(names)}")
        return [str(n) for n in names]
    return [f"seat {s}" + (" (you)" if s == observer else "") for s in range(seats)]


def _render(t: _Table) -> str:
    header = f"Gong Zhu &middot; phase: {escape(t.phase)}"
    if t.phase == "play":
        header += f" &middot; trick {t.trick_number}"
    if t.phase != "over":
        header += f" &middot; {escape(t.names[t.current_player])} to act"
    parts = ['<div class="gongzhu" style="font-family:sans-serif;font-size:14px;">',
             f'<div style="font-weight:bold;margin-bottom:4px;">{header}</div>',
             f'<table style="{_TABLE_STYLE}">',
             "<thead><tr>" + "".join(f'<th style="{_CELL_STYLE}">{h}</th>' for h in
                                     ("seat", "hand", "exposed", "captured", "score"))
             + "</tr></thead>", "<tbody>"]
    for s in range(len(t.names)):
        to_act = t.phase != "over" and s == t.current_player
        name = escape(t.names[s]) + (" &#9664;" if to_act else "")
        hand = t.hands[s]
        legal = t.legal if s == t.current_player else 0
        hand_cell = (_hand_html(hand, legal, t.hands_twice[s]) if hand is not None
                     else f'<span style="color:#777;">{t.hand_sizes[s]} cards</span>')
        weight = "font-weight:bold;" if to_act else ""
        parts.append(
            f"<tr><td style=\"{_CELL_STYLE}{weight}\">{name}</td>"
            f'<td style="{_CELL_STYLE}">{hand_cell}</td>'
            f'<td style="{_CELL_STYLE}">{_cards_html(t.exposed[s], t.exposed_twice[s])}</td>'
            f'<td style="{_CELL_STYLE}">{_cards_html(t.captured[s], t.captured_twice[s])}</td>'
            f'<td style="{_CELL_STYLE}text-align:right;">{int(t.scores[s])}</td></tr>')
    parts.append("</tbody></table>")
    if t.trick:
        pair = " (led with a pair)" if t.pair_lead else ""
        parts.append(f"<div>Trick in progress{pair}: "
                     f"{_plays_html(t, t.trick_leader, t.trick, t.pair_lead)}</div>")
    if t.tricks:
        last = t.tricks[-1]
        # A trick led with a pair holds two cards of every seat.
        played = _plays_html(t, last.leader, last.cards, len(last.cards) == 2 * len(t.hands))
        parts.append(f"<div>Last trick: {played} &rarr; taken by "
                     f"{escape(t.names[last.winner])}</div>")
    if t.legal:
        legal_text = " ".join(_action_html(a, t.codec) for a in t.codec.actions_of(t.legal))
        parts.append(f"<div>Legal actions: {legal_text}</div>")
    if t.final:
        parts.append("<div style=\"font-weight:bold;\">Final scores: " + ", ".join(
            f"{escape(t.names[s])} {int(t.scores[s])}" for s in range(len(t.names))) + "</div>")
    parts.append("</div>")
    return "".join(parts)


def _plays_html(t: _Table, leader: int, cards: Sequence[int], pair_lead: bool) -> str:
    """Write a trick's plays in order: each seat's name, then its card (two after a pair)."""
    return ", ".join(f"{escape(t.names[seat])} {' '.join(card_html(c) for c in play)}"
                     for seat, play in trick_plays(leader, cards, pair_lead, len(t.names)))


def game_html(game: GameState, seat: int | None = None, names: Sequence[str] | None = None) -> str:
    """HTML table of a hand: every hand (a spectator), or what ``seat`` knows when given.

    ``names`` labels the seats (escaped); the default is ``seat 0`` .. ``seat 3`` (at four).
    """
    n = game.rules.players
    if seat is not None and (type(seat) is not int or seat not in range(n)):
        raise ValueError(f"seat must be 0..{n - 1} or None (a spectator); got {seat!r}")
    if seat is not None:
        # One seat's table is exactly its view: whatever the rules hide, the view hides.
        return view_html(game.view(seat), names)
    hands, twice = game.hand_masks, game.hand_pair_masks
    over = game.is_over()
    return _render(_Table(
        phase=game.phase.value,
        current_player=game.current_player,
        hands=list(hands),
        hands_twice=list(twice),
        hand_sizes=[ms_size(h, h2) for h, h2 in zip(hands, twice, strict=True)],
        exposed=game.exposed_masks,
        exposed_twice=game.exposed_pair_masks,
        captured=game.captured_masks,
        captured_twice=game.captured_pair_masks,
        scores=game.scores() if over else game.provisional_scores(),
        final=over,
        trick_leader=game.trick_leader,
        trick=game.trick_cards,
        pair_lead=game.pair_lead,
        tricks=game.tricks,
        legal=game.legal_mask(),
        codec=ActionCodec.for_rules(game.rules),
        trick_number=trick_number(game.tricks_played, game.rules),
        observer=None,
        names=_names(names, None, n),
    ))


def view_html(view: SeatView, names: Sequence[str] | None = None) -> str:
    """HTML table of what one seat knows: its own hand, the others' card counts, the public rest.

    The observer's legal actions are highlighted when it is its turn.
    """
    played, played2 = view.played_masks, view.played_pair_masks
    n = view.rules.players
    return _render(_Table(
        phase=str(view.phase.value if hasattr(view.phase, "value") else view.phase),
        current_player=view.current_player,
        hands=[view.hand_mask if s == view.seat else None for s in range(n)],
        hands_twice=[view.hand_pair_mask if s == view.seat else 0 for s in range(n)],
        hand_sizes=[view.rules.hand_size - ms_size(played[s], played2[s])
                    for s in range(n)],
        exposed=view.exposed_masks,
        exposed_twice=view.exposed_pair_masks,
        captured=view.captured_masks,
        captured_twice=view.captured_pair_masks,
        scores=view.scores,
        final=view.phase == "over",
        trick_leader=view.trick_leader,
        trick=view.current_trick,
        pair_lead=view.pair_lead,
        tricks=view.tricks,
        legal=view.legal_mask,
        codec=ActionCodec.for_rules(view.rules),
        trick_number=trick_number(len(view.tricks), view.rules),
        observer=view.seat,
        names=_names(names, view.seat, n),
    ))
