"""Shared test helpers: scripted deals, seeded random play-outs, views and state snapshots.

The helpers only build inputs and drive the engine through its public API; every rule decision
(legality, trick winners, scores) stays in ``gongzhu_env``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from gongzhu_env.cards import NUM_CARDS, parse_cards
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from gongzhu_env.view import PlayerView

if TYPE_CHECKING:
    import pytest

    from agents.policy import QNetwork


HANG_S = 300
"""How long a test waits for a command it started to answer or to end: a bound on a hang only.

A passing command answers in seconds, but a 2-core machine busy with other work can stretch a
start that imports torch to a minute or more, so the bound is far above that."""


def make_deal(*seats: str) -> list[list[int]]:
    """Build a deal from four (possibly partial) hands written as card text.

    Cards not named anywhere are handed out in increasing index order to the seats that still
    have fewer than 13 cards, seat 0 first. Scripted tests name every card that matters and let
    the filler complete the deal, so each test reads as the situation it sets up.
    """
    assert len(seats) == 4, "a deal has four seats"
    hands = [parse_cards(text) for text in seats]
    named = [c for h in hands for c in h]
    assert len(named) == len(set(named)), f"a card is named twice: {sorted(named)}"
    assert all(len(h) <= 13 for h in hands), "a seat was given more than 13 cards"
    rest = iter(c for c in range(NUM_CARDS) if c not in set(named))
    for h in hands:
        while len(h) < 13:
            h.append(next(rest))
    return hands


def random_playout(game: Game, rng: np.random.Generator, stop_after: int | None = None) -> Game:
    """Play uniformly random legal actions until the hand ends (or ``stop_after`` actions)."""
    n = 0
    while not game.is_over() and (stop_after is None or n < stop_after):
        legal = game.legal_actions()
        game.step(legal[int(rng.integers(len(legal)))])
        n += 1
    return game


def snapshot(game: Game) -> tuple:
    """Everything observable about a game, to check that a rejected action changed nothing."""
    return (
        game.phase, game.current_player, tuple(game.legal_actions()), game.hands,
        game.exposed, game.captured, game.tricks, game.current_trick, game.actions,
        game.declarations, tuple(game.provisional_scores()),
    )


def finish_declaration(game: Game, exposures: Sequence[str] = ()) -> Game:
    """Run the declaration phase: each named card is exposed on its holder's turn, then DONE."""
    wanted = set(parse_cards(list(exposures)))
    while game.phase == "declare":
        mine = [a for a in game.legal_actions() if a in wanted]
        if mine:
            game.step(mine[0])
            wanted.discard(mine[0])
        else:
            game.step(52)
    assert not wanted, f"these cards were never exposable on their holder's turn: {wanted}"
    return game


def random_views(n_games: int, seed: int) -> list[PlayerView]:
    """Views of the seat to move at every decision of a few random hands."""
    rng = np.random.default_rng(seed)
    views = []
    for _ in range(n_games):
        g = Game(rng=rng)
        while not g.is_over():
            views.append(g.view(g.current_player))
            legal = g.legal_actions()
            g.step(legal[int(rng.integers(len(legal)))])
    return views


def tiny_q_network(seed: int = 0, obs_len: int | None = None) -> QNetwork:
    """A freshly initialised one-layer Q network (torch is imported only when called).

    ``obs_len``: the observation it reads (default: the standard game's single hands).
    """
    import torch

    from agents.policy import QNetwork

    torch.manual_seed(seed)
    return QNetwork(obs_len, hidden=(16,))


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    """Return a command's stderr after checking it is one ``error:`` line and no traceback.

    Bad input to a command is reported that way (exit status 2), never as a traceback.
    """
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def one_deck_masks(hands: Sequence[tuple[int, int]]) -> list[int]:
    """Sampled one-deck hands (multisets ``(once, twice)``) as plain masks; no card twice."""
    assert all(twice == 0 for _, twice in hands), "a one-deck hand holds no card twice"
    return [once for once, _ in hands]


def unreadable_json(key: str, broken: str = "", unreadable: str = "") -> list[tuple[bytes, str]]:
    """Text that every strict JSON reader of the project refuses, with the words that say why.

    Invalid UTF-8, nesting past the limit, a 5000-digit number, NaN and a key given twice,
    the object's key being ``key``. ``broken`` starts the expected message of the text that
    is not UTF-8 and ``unreadable`` that of the others (a reader of lines names the line).
    """
    return [
        (b"\xff\xfe{}", f"{broken}not UTF-8"),
        (b"[" * 5000 + b"]" * 5000, f"{unreadable}JSON nested deeper"),
        (b'{"%s": ' % key.encode() + b"9" * 5000 + b"}", f"{unreadable}a number of 5000 digits"),
        (b'{"%s": NaN}' % key.encode(), f"{unreadable}NaN"),
        (b'{"%s": 1, "%s": 2}' % (key.encode(), key.encode()),
         f"{unreadable}the key '{key}' appears twice"),
    ]


def hands_caught(rules: Rules, hands: int, breaks: Callable[[Game], None] | None = None,
                 seed: int = 0) -> int:
    """Count how many of ``hands`` random hands the invariant checker refuses.

    Each game is handed to ``breaks`` first (a test that plants a bug in the engine), then
    played out at random with the checks on the way (``play_checked``) and checked whole
    (``check_hand``). A correct engine gives 0; a planted bug must give more.
    """
    from gongzhu_env.checks import check_hand, play_checked

    rng = np.random.default_rng(seed)
    caught = 0
    for _ in range(hands):
        g = Game(rules, rng=rng)
        if breaks is not None:
            breaks(g)
        play_checked(g, rng)
        try:
            check_hand(g)
        except AssertionError:
            caught += 1
    return caught
