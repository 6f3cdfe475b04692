"""Readable text tables of a hand, with suit symbols, for terminals and the env's ``render``."""

from __future__ import annotations

from gongzhu_env.cards import SUIT_SYMBOLS, card_symbol, cards_of
from gongzhu_env.state import GameState


def hand_by_suit(mask: int) -> str:
    """Cards of a mask grouped by suit, highest first: ``♠ A Q 3  ♥ 10 2 ...``."""
    groups = []
    for s in (3, 2, 1, 0):  # spades, hearts, diamonds, clubs
        cards = [c for c in cards_of(mask) if c // 13 == s]
        if cards:
            ranks = " ".join(card_symbol(c)[1:] for c in reversed(cards))
            groups.append(f"{SUIT_SYMBOLS[s]} {ranks}")
    return "  ".join(groups) if groups else "-"


def _cards(mask: int) -> str:
    return " ".join(card_symbol(c) for c in cards_of(mask)) or "-"


def render_game(game: GameState, seat: int | None = None) -> str:
    """Draw the hand as a text table.

    Shows hands (only ``seat``'s unless ``seat`` is None, a spectator), exposures, captured
    scoring cards, provisional scores, the trick in progress and the last completed trick.
    """
    lines = [f"Gong Zhu — phase: {game.phase.value}, trick {min(game.tricks_played + 1, 13)}/13"
             + ("" if game.is_over() else f", seat {game.current_player} to act")]
    if seat is None:
        prov, exposed = game.provisional_scores(), game.exposed_masks
        counts = [m.bit_count() for m in exposed]
    else:
        # One seat's table shows only what that seat may know (hidden exposures stay hidden).
        view = game.view(seat)
        prov, exposed, counts = list(view.scores), view.exposed_masks, view.exposed_counts
    lines.append(f"{'seat':<6}{'hand':<44}{'exposed':<16}{'captured':<30}score")
    hands, captured = game.hand_masks, game.captured_masks
    for s in range(4):
        marker = "*" if s == game.current_player and not game.is_over() else " "
        hand = hand_by_suit(hands[s]) if seat is None or seat == s else \
            f"({hands[s].bit_count()} cards)"
        shown = _cards(exposed[s])
        if counts[s] > exposed[s].bit_count():
            shown = f"{counts[s]} hidden" if not exposed[s] else f"{shown} +hidden"
        lines.append(f"{marker}{s:<5}{hand:<44}{shown:<16}"
                     f"{_cards(captured[s]):<30}{prov[s]:>5}")
    leader, cards = game.trick_leader, game.trick_cards
    if cards:
        played = "  ".join(f"{(leader + i) % 4}:{card_symbol(c)}" for i, c in enumerate(cards))
        lines.append(f"trick in progress (led by seat {leader}): {played}")
    if game.tricks_played:
        t = game.tricks[-1]
        played = "  ".join(f"{(t.leader + i) % 4}:{card_symbol(c)}" for i, c in enumerate(t.cards))
        lines.append(f"last trick: {played}  -> seat {t.winner}")
    if game.is_over():
        lines.append("final scores: " + "  ".join(f"seat {s}: {v}"
                                                  for s, v in enumerate(game.scores())))
    return "\n".join(lines)
