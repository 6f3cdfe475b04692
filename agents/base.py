"""The one interface every player implements, human, rule-based, search or neural.

An agent sees only a ``PlayerView`` and returns an action of the env's action space
(``0..51`` a card, ``52`` DONE). ``reset(seat, rules)`` is called at the start of each hand so
that agents with memory can clear it; stateless agents inherit the no-op. ``reseed(seed)``
re-seeds an agent that is reused for another deal (see ``Agent.reseed``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

import numpy as np

from agents.knowledge import Situation
from gongzhu_env.rules import Rules, count_word
from gongzhu_env.view import PlayerView


class Agent(ABC):
    """Base class of all players. Subclasses set ``name`` and implement ``act``."""

    name: str = "agent"
    decks: int | None = None
    """The deck count of the tables this strategy plays (``rules.decks``); ``None``: any.

    A strategy that plays one deck and two by different classes sets it, and
    ``agents.factory.make_agent`` picks the one for the table's rules; the rule agents read
    copies and play both (``None``)."""

    def __init__(self, seed: int | None = None) -> None:
        # The base's own seeded state, set by the same code that re-seeds it; an override of
        # ``reseed`` is not called here, as the subclass is not built yet.
        Agent.reseed(self, seed)

    def reseed(self, seed: int | None) -> None:
        """Re-seed for a new deal or episode, as if this agent had been built with ``seed``.

        The arena and the single-seat env reuse one agent object across hands (a deep copy per
        seat) instead of building a new one for each, and re-seed it so a hand's play depends
        only on its seed. After ``reseed(s)`` the agent must act exactly as a fresh agent of the
        same kind and options built with ``seed=s``. Here that is the ``seed`` attribute and
        the generator ``rng``: the only seeded state of the shipped agents. A subclass that
        derives further state from the seed (a second generator, a seeded cache) overrides
        this and calls ``super().reseed(seed)``.
        """
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def check_table(self, rules: Rules) -> None:
        """Raise ``AgentError`` if this strategy does not play tables of ``rules``' deck count."""
        if self.decks is not None and rules.decks != self.decks:
            raise AgentError(table_error(self.name.split(":")[0], self.decks, rules.decks))

    def reset(self, seat: int, rules: Rules) -> None:  # noqa: B027 - optional hook
        """Start of a hand: ``seat`` is where this agent sits, ``rules`` the table's rules."""

    @abstractmethod
    def act(self, view: PlayerView) -> int:
        """Choose a legal action for the seat ``view`` describes (it is that seat's turn)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class RuleAgent(Agent):
    """A stateless strategy of two rules: what to declare, and what to play.

    ``declare_rule(view)`` decides a declaration step; ``play_rule(situation)`` a play, from
    the seat's ``agents.knowledge.Situation`` (the same rule then serves the table and the
    rollouts of a search). Deterministic: the seed is accepted for uniformity.
    """

    declare_rule: Callable[[PlayerView], int]
    play_rule: Callable[[Situation], int]

    def act(self, view: PlayerView) -> int:
        """Apply the declaration rule while declaring, else the play rule."""
        if view.phase == "declare":
            return self.declare_rule(view)
        return self.play_rule(Situation.from_view(view))


class AgentError(RuntimeError):
    """An agent could not be built or misbehaved (e.g. returned an illegal action)."""


def table_error(name: str, plays: int | tuple[int, ...], decks: int) -> str:
    """Say that the strategy ``name`` plays tables of ``plays`` decks, not of ``decks``."""
    counts = (plays,) if isinstance(plays, int) else plays
    kinds = " and ".join(f"{count_word(n)}-deck" for n in sorted(counts))
    return f"the {name} agent plays {kinds} tables only; these rules have decks={decks}"
