"""Seats played by players: the one loop that asks the seat to move and steps the game.

Every front end drives a hand the same way: ask the player of the seat to move for an action on
that seat's view, step the game, repeat. The arena, the single-seat wrapper, the command-line
demo and terminal play differ only in where they stop (a seat played from outside: the learner,
the person at the keyboard) and in what they do after each action (record it, show it). This
module writes that loop once, so its error messages and its hot path are the same everywhere.

Players
-------
A player is anything with ``reset(seat, rules)`` and ``act(view) -> int`` (the ``Player``
protocol); ``agents.base.Agent`` is one, and so is any object with those two methods. This
module never imports ``agents``: the dependencies point from the agents to the game.

``players`` is one entry per seat. ``None`` marks a seat played from outside: ``play_turns``
returns when that seat is to move, the caller steps the game for it and calls ``play_turns``
again::

    start_hand(players, game.rules)
    while not game.is_over():
        play_turns(game, players, on_action=show)
        if not game.is_over():        # an outside seat is to move
            game.step(ask_the_person(game))

With a player in every seat, ``play_turns`` plays the hand to the end.

Errors
------
An action the engine rejects raises ``IllegalPlayerActionError``, a subclass of the engine's
``IllegalActionError`` (so a ``ValueError``), naming the seat, the player and the action as a
card, with the engine's reason (phase and legal set) in ``reason``; the game is unchanged, so
the caller may read ``game.current_player``, ``game.phase`` and ``game.actions`` to add its own
context (the arena names the deal and play). An exception raised inside a player's ``act``
propagates unchanged, with the game as it was before that call.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Protocol, SupportsIndex, cast

from gongzhu_env.cards import ActionCodec
from gongzhu_env.engine import Game, IllegalActionError
from gongzhu_env.match import Match
from gongzhu_env.rules import Rules
from gongzhu_env.view import PlayerView

OnAction = Callable[[int, int], object]
"""``on_action(seat, action)``, called after each action the loop plays, once it is applied."""


class Player(Protocol):
    """What the loop needs of a player: a hand-start hook and a move for a view."""

    def reset(self, seat: int, rules: Rules) -> None:
        """Start of a hand: ``seat`` is where the player sits, ``rules`` the table's rules."""

    def act(self, view: PlayerView) -> int:
        """Return a legal action for the seat ``view`` describes (it is that seat's turn)."""


def player_label(player: object) -> str:
    """How errors name a player: its ``name`` if it has a non-empty one, else its ``repr``."""
    name = getattr(player, "name", None)
    return str(name) if name else repr(player)


def action_text(action: object, decks: int = 1) -> str:
    """Show an action as text (``"SQ"``, ``"DONE"``, a two-deck pair lead ``"SQ+SQ"``).

    Anything that is not an action of a ``decks``-deck game is shown as its ``repr``.
    """
    codec = ActionCodec.for_decks(decks)
    if not codec.is_action(action):
        return repr(action)
    return codec.text(operator.index(cast(SupportsIndex, action)))


class IllegalPlayerActionError(IllegalActionError):
    """A player returned an action the engine rejected; the game is unchanged.

    Attributes: ``seat``, ``player`` (its label, see ``player_label``), ``action`` (as returned)
    and ``reason`` (the engine's message: phase, why, and the legal actions). The player is
    kept as a label rather than the object so the error pickles across processes.
    """

    def __init__(self, seat: int, player: str, action: object, reason: str,
                 decks: int = 1) -> None:
        self.seat = seat
        self.player = player
        self.action = action
        self.reason = reason
        self.decks = decks
        super().__init__(f"player {player!r} in seat {seat} chose the illegal action "
                         f"{action_text(action, decks)} ({action!r}): {reason}")

    def __reduce__(self) -> tuple[type, tuple[int, str, object, str, int]]:
        return type(self), (self.seat, self.player, self.action, self.reason, self.decks)


def start_hand(players: Sequence[Player | None], rules: Rules) -> None:
    """Tell every seated player that a hand starts (``reset(seat, rules)``); skips ``None``."""
    for seat, player in enumerate(players):
        if player is not None:
            player.reset(seat, rules)


def play_turn(game: Game, player: Player) -> int:
    """Ask ``player`` to move for the seat to move, apply the action and return it.

    One action only: for schedulers that interleave many tables and batch some seats (the
    trainer), where ``play_turns`` would play too far. Raises ``IllegalPlayerActionError`` for
    a rejected action, as ``play_turns`` does.
    """
    seat = game.current_player
    action = player.act(game.view(seat))
    try:
        game.step(action)
    except IllegalActionError as e:
        raise IllegalPlayerActionError(seat, player_label(player), action, str(e),
                                           game.rules.decks) from None
    return action


def play_turns(game: Game, players: Sequence[Player | None],
               on_action: OnAction | None = None) -> int:
    """Play seats in turn until the hand is over or the seat to move has no player.

    ``players[seat]`` plays that seat; ``None`` stops the loop when that seat is to move (the
    caller plays it). ``on_action(seat, action)`` runs after each applied action, e.g. to show
    or record it. Returns how many actions were played. Errors: see the module docstring.
    Players are not ``reset`` here: call ``start_hand`` once at the start of the hand.
    """
    played = 0
    while not game.is_over():
        seat = game.current_player
        player = players[seat]
        if player is None:
            break
        # ``play_turn`` inlined: this loop is the arena's hot path, and the call costs a few
        # per cent of a rule agent's hand.
        action = player.act(game.view(seat))
        try:
            game.step(action)
        except IllegalActionError as e:
            raise IllegalPlayerActionError(seat, player_label(player), action, str(e),
                                           game.rules.decks) from None
        if on_action is not None:
            on_action(seat, action)
        played += 1
    return played


def play_match_turns(match: Match, players: Sequence[Player | None]) -> int:
    """``play_turns`` for a whole match: play until it is over or an outside seat is to move.

    Seats see ``match.view(seat)`` (the hand with the match blocks). When a hand ends and the
    next one is dealt, every player is told so (``start_hand``), as at the start of any hand;
    call ``start_hand`` yourself once before the first. Returns how many actions were played.
    """
    played = 0
    while not match.is_over():
        game = match.game
        seat = game.current_player
        player = players[seat]
        if player is None:
            break
        action = player.act(match.view(seat))
        try:
            finished = match.step(action)
        except IllegalActionError as e:
            raise IllegalPlayerActionError(seat, player_label(player), action, str(e),
                                           game.rules.decks) from None
        played += 1
        if finished is not None and not match.is_over():
            start_hand(players, match.rules)
    return played


__all__ = ["IllegalPlayerActionError", "OnAction", "Player", "action_text", "play_match_turns",
           "play_turn", "play_turns", "player_label", "start_hand"]
