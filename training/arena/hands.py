"""Playing one hand of the arena: who sits where, how each agent is seeded, what goes wrong.

An arena agent is given either as a spec (``"expert"``, ``"policy:PATH"``), built afresh for every
hand, or as an ``Agent`` instance, copied once per seat and re-seeded for every hand. Either way
its seed follows from ``(seed, deal index, play, seat)`` alone (``agent_seed``), so a hand's
outcome does not depend on which process plays it or what it played before.

A misbehaving agent stops the match with a message that names the agent, the deal, the play and
the seat, which is enough to replay the hand: an illegal action raises
``IllegalAgentActionError``, an exception inside ``act`` an ``AgentError``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from agents import Agent, AgentError, make_agent
from gongzhu_env.cards import card_str
from gongzhu_env.engine import Game
from gongzhu_env.players import IllegalPlayerActionError, play_turns, start_hand
from gongzhu_env.rules import Rules

AgentLike = str | Agent
"""An arena agent: a spec for ``agents.make_agent`` or an ``Agent`` instance."""


class IllegalAgentActionError(AgentError):
    """An agent returned an action the engine rejected. The message names agent, deal, seat."""


@dataclass(frozen=True)
class HandRecord:
    """One finished hand of an arena run, handed to the ``on_game`` hook (hand records)."""

    deal_index: int
    play: int
    seats: tuple[str, ...]
    """Label of the agent in each seat (one per seat of the table)."""
    game: Game
    """The finished game (``game.deal``, ``game.actions``, ``game.scores()``...)."""


def agent_seed(seed: int, deal_index: int, play: int, seat: int) -> int:
    """Seed of the agent in ``seat`` for one play of one deal: independent of worker splits."""
    return int(np.random.SeedSequence([seed, deal_index, play, seat]).generate_state(1)[0])


def label_of(agent: AgentLike) -> str:
    """Display name of an agent given by spec (the spec itself) or instance (its ``name``)."""
    return agent.strip() if isinstance(agent, str) else str(agent.name)


def play_hand(deal: Sequence[Sequence[int]], players: Sequence[Agent], rules: Rules, *,
              deal_index: int = 0, play: int = 0,
              labels: Sequence[str] | None = None) -> Game:
    """Play one hand of ``deal`` with ``players[seat]`` in each seat and return the finished game.

    The hand is played by the shared loop (``gongzhu_env.players``); each agent is ``reset``
    first. An illegal action raises ``IllegalAgentActionError`` naming the agent, the deal
    index, the play, the seat and the action, with the legal set; an exception inside an
    agent's ``act`` is re-raised as an ``AgentError`` naming the same hand.
    """
    labels = list(labels) if labels is not None else [label_of(p) for p in players]
    game = Game.from_hands(deal, rules)
    start_hand(players, rules)
    try:
        play_turns(game, players)
    except IllegalPlayerActionError as e:
        raise IllegalAgentActionError(
            f"agent {labels[e.seat]!r} returned the illegal action {_shown(e.action)} "
            f"({e.action!r}) in deal {deal_index} (play {play}), seat {e.seat}, "
            f"{game.phase.value} phase: {e.reason}"
        ) from None
    except Exception as e:
        # The loop lets an agent's own failure through with the game as it was before the
        # call. Name the hand so the failure can be replayed: the agents' seeds follow from it.
        seat = game.current_player
        raise AgentError(
            f"agent {labels[seat]!r} failed in deal {deal_index} (play {play}), seat {seat}, "
            f"after {len(game.actions)} actions: {type(e).__name__}: {e}"
        ) from e
    return game


def _shown(action: object) -> str:
    """Show an illegal action as the arena always has: as a card if it converts to one."""
    try:
        return card_str(int(action))  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return repr(action)


def seat_agent(proto: AgentLike, seed: int, copies: dict[int, Agent], seat: int,
               rules: Rules | None = None) -> Agent:
    """Return the agent for one seat of one hand, seeded from ``agent_seed``.

    A spec is built afresh by the factory, for the table's ``rules`` when given (a policy
    trained for other rules is refused when built; without them, when the hand starts). An
    ``Agent`` instance is deep-copied once per seat and worker and re-seeded for every hand
    with its own ``reseed``, so instances follow the same split-independent seeding as specs
    as long as they keep no memory across hands other than what ``reset`` clears.
    """
    if isinstance(proto, str):
        return make_agent(proto, seed=seed, rules=rules)
    agent = copies.get(seat)
    if agent is None:
        agent = copies[seat] = copy.deepcopy(proto)
    agent.reseed(seed)
    return agent


def validate_agents(agents: Iterable[AgentLike], rules: Rules | None = None) -> None:
    """Build every spec once so an unknown or malformed spec fails before any hand is played.

    With the table's ``rules``, a policy file trained for other rules fails here too.
    """
    for a in agents:
        if isinstance(a, Agent):
            continue
        if not isinstance(a, str):
            raise AgentError(f"an arena agent must be a spec string or an Agent; got {a!r}")
        make_agent(a, seed=0, rules=rules)
