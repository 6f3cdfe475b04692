"""Deterministic and misbehaving throwaway agents for arena tests."""

from __future__ import annotations

from agents import Agent
from gongzhu_env.view import PlayerView


class FirstLegal(Agent):
    """Deterministic throwaway player: always the lowest legal action."""

    name = "first"

    def act(self, view: PlayerView) -> int:
        return view.legal_actions[0]


class LastLegal(Agent):
    """Deterministic throwaway player: always the highest legal action."""

    name = "last"

    def act(self, view: PlayerView) -> int:
        return view.legal_actions[-1]


class Cheater(Agent):
    """Plays legally until the first trick, then a card it is not allowed to play."""

    name = "cheater"

    def act(self, view: PlayerView) -> int:
        legal = view.legal_actions
        if view.phase == "play":
            return next(c for c in range(52) if c not in legal)
        return legal[-1]
