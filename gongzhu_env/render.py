"""Readable text tables of a hand, with suit symbols, for terminals and the env's ``render``.

Two decks (RULES.md 6.11) draw the same table: a card held, exposed or taken twice is written
twice (``♠ A A Q``), and a trick led with a pair shows each seat's two cards together
(``1:♠3 ♠3``), so a two-card play reads as one play.
"""

from __future__ import annotations

from collections.abc import Sequence

from gongzhu_env.cards import SUIT_SYMBOLS, card_symbol, ms_size, multiset_cards
from gongzhu_env.rules import Rules
from gongzhu_env.state import GameState


def trick_number(tricks_played: int, rules: Rules) -> str:
    """Which trick is in play, as every table writes it: ``"3/13"``, or ``"3"`` at two decks.

    One deck always has ``rules.hand_size`` tricks (13 at four seats); with two decks pair
    leads take two cards a seat, so the number of tricks is not known in advance.
    """
    if rules.pair_leads:
        return str(tricks_played + 1)
    total = rules.hand_size
    return f"{min(tricks_played + 1, total)}/{total}"


def hand_by_suit(mask: int, twice: int = 0) -> str:
    """Cards of a hand grouped by suit, highest first: ``♠ A Q 3  ♥ 10 2 ...``.

    ``twice`` (two decks) holds the cards held twice; their rank is written twice.
    """
    groups = []
    cards = multiset_cards(mask, twice)
    for s in (3, 2, 1, 0):  # spades, hearts, diamonds, clubs
        suit = [c for c in cards if c // 13 == s]
        if suit:
            ranks = " ".join(card_symbol(c)[1:] for c in reversed(suit))
            groups.append(f"{SUIT_SYMBOLS[s]} {ranks}")
    return "  ".join(groups) if groups else "-"


def _cards(mask: int, twice: int = 0) -> str:
    return " ".join(card_symbol(c) for c in multiset_cards(mask, twice)) or "-"


def trick_plays(leader: int, cards: Sequence[int], pair_lead: bool,
                seats: int = 4) -> list[tuple[int, tuple[int, ...]]]:
    """Split a trick's cards into ``(seat, cards)`` plays in play order at a table of ``seats``.

    One card per seat, or two per seat when the trick was led with a pair (two decks); a
    follower halfway through its two-card play shows the one card played so far.
    """
    step = 2 if pair_lead else 1
    return [((leader + i // step) % seats, tuple(cards[i:i + step]))
            for i in range(0, len(cards), step)]


def plays_text(leader: int, cards: Sequence[int], pair_lead: bool, seats: int = 4) -> str:
    """Write a trick as text: ``0:♠5 ♠5  1:♠3 ♠3 ...`` (seat, then its card or cards)."""
    return "  ".join(f"{seat}:{' '.join(card_symbol(c) for c in play)}"
                     for seat, play in trick_plays(leader, cards, pair_lead, seats))


def render_game(game: GameState, seat: int | None = None) -> str:
    """Draw the hand as a text table.

    Shows hands (only ``seat``'s unless ``seat`` is None, a spectator), exposures, captured
    scoring cards, provisional scores, the trick in progress and the last completed trick.
    """
    seats = game.rules.players
    trick = f"trick {trick_number(game.tricks_played, game.rules)}"
    lines = [f"Gong Zhu — phase: {game.phase.value}, {trick}"
             + ("" if game.is_over() else f", seat {game.current_player} to act")]
    ex2 = game.exposed_pair_masks
    counts: Sequence[int]
    if seat is None:
        prov, exposed = game.provisional_scores(), game.exposed_masks
        counts = [ms_size(m, m2) for m, m2 in zip(exposed, ex2, strict=True)]
    else:
        # One seat's table shows only what that seat may know (hidden exposures stay hidden).
        view = game.view(seat)
        prov, exposed, counts = list(view.scores), view.exposed_masks, view.exposed_counts
        ex2 = view.exposed_pair_masks
    hands, hands2 = game.hand_masks, game.hand_pair_masks
    captured, captured2 = game.captured_masks, game.captured_pair_masks
    shown_hands = [hand_by_suit(hands[s], hands2[s]) if seat is None or seat == s else
                   f"({ms_size(hands[s], hands2[s])} cards)" for s in range(seats)]
    shown_captured = [_cards(captured[s], captured2[s]) for s in range(seats)]
    hw = max(44, *(len(h) + 2 for h in shown_hands))
    cw = max(30, *(len(c) + 2 for c in shown_captured))
    lines.append(f"{'seat':<6}{'hand':<{hw}}{'exposed':<16}{'captured':<{cw}}score")
    for s in range(seats):
        marker = "*" if s == game.current_player and not game.is_over() else " "
        shown = _cards(exposed[s], ex2[s])
        known = ms_size(exposed[s], ex2[s])
        if counts[s] > known:
            shown = f"{counts[s]} hidden" if not exposed[s] else f"{shown} +hidden"
        lines.append(f"{marker}{s:<5}{shown_hands[s]:<{hw}}{shown:<16}"
                     f"{shown_captured[s]:<{cw}}{prov[s]:>5}")
    leader, cards = game.trick_leader, game.trick_cards
    if cards:
        pair = " with a pair" if game.pair_lead else ""
        lines.append(f"trick in progress (led by seat {leader}{pair}): "
                     f"{plays_text(leader, cards, game.pair_lead, seats)}")
    if game.tricks_played:
        t = game.tricks[-1]
        paired = len(t.cards) == 2 * seats  # led with a pair: two cards from every seat
        lines.append(f"last trick: {plays_text(t.leader, t.cards, paired, seats)}"
                     f"  -> seat {t.winner}")
    if game.is_over():
        lines.append("final scores: " + "  ".join(f"seat {s}: {v}"
                                                  for s, v in enumerate(game.scores())))
    return "\n".join(lines)
