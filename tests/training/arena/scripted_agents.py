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


class DiesOnce(Agent):
    """Plays as ``FirstLegal``, but the first time any copy of it acts, it kills its process.

    ``marker`` is a file path: the copy that finds it missing creates it and ends its process
    at once (as a worker killed by the system would end), so a run that plays every deal must
    have run that chunk again in another process.
    """

    name = "first"

    def __init__(self, marker: str, seed: int | None = None) -> None:
        super().__init__(seed)
        self.marker = marker

    def act(self, view: PlayerView) -> int:
        import os

        try:
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return view.legal_actions[0]
        os.close(fd)
        os._exit(1)
