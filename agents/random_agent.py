"""``random``: uniform over the legal actions, exposures included. The floor of the ladder."""

from __future__ import annotations

from agents.base import Agent
from gongzhu_env.view import PlayerView


class RandomAgent(Agent):
    """Picks uniformly among the legal actions with its own seeded generator."""

    name = "random"

    def act(self, view: PlayerView) -> int:
        """Pick a uniformly random legal action."""
        legal = view.legal_actions
        return legal[int(self.rng.integers(len(legal)))]
