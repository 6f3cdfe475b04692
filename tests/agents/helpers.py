"""Helpers shared by the agents' tests: checked play-outs and scripted positions."""

from __future__ import annotations

from agents import make_agent
from agents.base import Agent
from gongzhu_env.cards import DONE, card_str, parse_cards
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules

RULE_AGENTS = ("random", "greedy", "expert")


def play_hand(game: Game, agents: list[Agent]) -> list[int]:
    """Play a hand to the end, checking that every action is legal for its view."""
    for seat, a in enumerate(agents):
        a.reset(seat, game.rules)
    actions = []
    while not game.is_over():
        p = game.current_player
        view = game.view(p)
        a = agents[p].act(view)
        assert a in view.legal_actions, (
            f"{agents[p].name} at seat {p} chose {a} ({card_str(a) if 0 <= a <= 52 else a}), "
            f"not in {view.legal_actions}"
        )
        game.step(a)
        actions.append(a)
    return actions


def deal(*hands: str) -> list[list[int]]:
    """Four complete hands written as card text; every card of the deck exactly once."""
    out = [parse_cards(h) for h in hands]
    assert sorted(c for h in out for c in h) == list(range(52)), "test deal is not a deck"
    return out


def game_at(hands: list[list[int]], leader: int, plays: str, rules: Rules | None = None) -> Game:
    """A free-lead hand from ``leader`` with no exposures and the given cards played."""
    g = Game.from_hands(hands, rules, leader=leader)
    while g.phase == "declare":
        g.step(DONE)
    for c in parse_cards(plays):
        g.step(c)
    return g


def choose(spec: str, g: Game) -> str:
    """The card a fresh agent of ``spec`` plays for the seat to move in ``g``."""
    return card_str(make_agent(spec, seed=0).act(g.view(g.current_player)))
