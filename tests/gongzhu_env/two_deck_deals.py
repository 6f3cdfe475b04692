"""Scripted two-deck deals for the two-deck tests: building hands, playing text, snapshots.

Only inputs are built here; every rule decision (legality, winners, scores) is the engine's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from gongzhu_env import Game, Rules
from gongzhu_env.cards import NUM_CARDS, action_str, parse_action, parse_cards

PLAY = Rules(decks=2, declaration="none")
"""Two decks without declaration: the tests of play start at the first trick."""
DONE2 = 104
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


def deal2(*seats: str) -> list[list[int]]:
    """Four two-deck hands from (partial) card text, in which a card may be named twice.

    The copies nobody names are dealt in card order to the seats still short of 26, seat 0
    first. A test that depends on a suit names all 26 copies of it (``rest_of_suit`` helps),
    so the filler never changes what a seat holds of that suit.
    """
    assert len(seats) == 4, "a deal has four seats"
    hands = [parse_cards(text) for text in seats]
    named = Counter(c for h in hands for c in h)
    assert all(n <= 2 for n in named.values()), f"a card is named three times: {named}"
    assert all(len(h) <= 26 for h in hands), "a seat was given more than 26 cards"
    rest = iter(c for c in range(NUM_CARDS) for _ in range(2 - named[c]))
    for h in hands:
        while len(h) < 26:
            h.append(next(rest))
    return hands


def rest_of_suit(suit: str, *named: str) -> str:
    """Every copy of ``suit`` ("S") not in the texts ``named``, as card text."""
    used = Counter(c for text in named for c in parse_cards(text))
    cards = parse_cards([f"{suit}{r}" for r in RANKS])
    return " ".join(f"{suit}{RANKS[c % 13]}" for c in cards for _ in range(2 - used[c]))


def suit_deal(suit: str, s1: str, s2: str, s3: str, extra0: str = "") -> list[list[int]]:
    """A deal in which seats 1..3 hold exactly ``s1``..``s3`` of ``suit`` and seat 0 the rest.

    ``extra0`` adds named cards of other suits to seat 0.
    """
    return deal2(rest_of_suit(suit, s1, s2, s3) + " " + extra0, s1, s2, s3)


def act(game: Game, *texts: str) -> Game:
    """Apply actions written as text ("SQ", "SQ+SQ", "DONE") in order."""
    for text in texts:
        game.step(parse_action(text, 2))
    return game


def legal_text(game: Game) -> list[str]:
    """The legal actions of the seat to move, as text."""
    return [action_str(a, 2) for a in game.legal_actions()]


def declare(game: Game, exposures: dict[int, str]) -> Game:
    """Run the declaration: on its turn each seat exposes its named copies, then says DONE."""
    wanted = {s: parse_cards(t) for s, t in exposures.items()}
    while game.phase == "declare":
        mine = wanted.get(game.current_player, [])
        game.step(mine.pop(0) if mine else DONE2)
    assert not any(wanted.values()), f"copies never exposed: {wanted}"
    return game


def snapshot2(game: Game) -> tuple:
    """Everything public about a two-deck game, to check that a refused action changed nothing."""
    return (
        game.phase, game.current_player, tuple(game.legal_actions()), game.hands,
        game.exposed, game.captured, game.tricks, game.current_trick, game.actions,
        game.declarations, tuple(game.provisional_scores()), game.pair_lead,
        game.hand_pair_masks, game.played_pair_masks, game.void_masks,
    )


def cards(text: str) -> list[int]:
    """Card text as a list of indices (a card may appear twice)."""
    return parse_cards(text)


def pairs(text: Iterable[str]) -> list[int]:
    """Pair-lead actions of the named cards ("SQ" -> 52 + SQ)."""
    return [NUM_CARDS + c for c in parse_cards(list(text))]
