"""The one interface every player implements, human, rule-based, search or neural.

An agent sees only a ``PlayerView`` and returns an action of the env's action space
(``0..51`` a card, ``52`` DONE). ``reset(seat, rules)`` is called at the start of each hand so
that agents with memory can clear it; stateless agents inherit the no-op.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from gongzhu_env.rules import Rules
from gongzhu_env.view import PlayerView


class Agent(ABC):
    """Base class of all players. Subclasses set ``name`` and implement ``act``."""

    name: str = "agent"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self, seat: int, rules: Rules) -> None:  # noqa: B027 - optional hook
        """Start of a hand: ``seat`` is where this agent sits, ``rules`` the table's rules."""

    @abstractmethod
    def act(self, view: PlayerView) -> int:
        """Choose a legal action for the seat ``view`` describes (it is that seat's turn)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class AgentError(RuntimeError):
    """An agent could not be built or misbehaved (e.g. returned an illegal action)."""
