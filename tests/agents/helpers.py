"""Helpers shared by the agents' tests: checked play-outs and scripted positions."""

from __future__ import annotations

import numpy as np

from agents import make_agent
from agents.base import Agent
from agents.card_features import FEATURE_NAMES
from gongzhu_env.cards import (
    DONE,
    NUM_CARDS,
    NUM_RANKS,
    action_str,
    card_str,
    parse_action,
    parse_cards,
)
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


def two_deck_deal(fixed: list[str], voids: dict[int, str] | None = None,
                  seed: int = 0) -> list[list[int]]:
    """A two-deck deal: seat ``s`` holds the cards ``fixed[s]`` plus random others.

    The remaining copies go to random seats with room, never to a seat void (``voids``: seat
    to suit letters) in their suit, so a test can script the cards that matter and leave the
    rest to chance (a fixed seed).
    """
    voids = voids or {}
    hands = [parse_cards(t) for t in fixed]
    left = [2] * 52
    for h in hands:
        for c in h:
            left[c] -= 1
    assert min(left) >= 0, "a card is scripted three times"
    rng = np.random.default_rng(seed)
    copies = [c for c in range(52) for _ in range(left[c])]
    rng.shuffle(copies)

    def allowed(seat: int, c: int) -> bool:
        return "CDHS"[c // 13] not in voids.get(seat, "") and len(hands[seat]) < 26

    # Copies of suits some seat is void in go first, so they always find room.
    copies.sort(key=lambda c: -sum("CDHS"[c // 13] in v for v in voids.values()))
    for c in copies:
        seats = [s for s in range(4) if allowed(s, c)]
        assert seats, "the scripted voids leave no room for a card"
        room = np.array([26 - len(hands[s]) for s in seats], dtype=float)
        hands[int(rng.choice(seats, p=room / room.sum()))].append(c)
    assert all(len(h) == 26 for h in hands)
    return [sorted(h) for h in hands]


def two_deck_game_at(hands: list[list[int]], leader: int, plays: str,
                     rules: Rules | str | None = None) -> Game:
    """A two-deck hand led freely by ``leader``, nothing exposed, the given actions played.

    ``plays`` is action text separated by spaces: a card (``S5``) or a pair lead (``S5+S5``).
    """
    rules = Rules.coerce(rules) if rules is not None else Rules(decks=2)
    g = Game.from_hands(hands, rules, leader=leader)
    while g.phase == "declare":
        g.step(rules.done_action)
    for text in plays.split():
        g.step(parse_action(text, 2))
    return g


def choose_action(spec: str, g: Game) -> str:
    """The action text a fresh agent of ``spec`` chooses for the seat to move in ``g``."""
    return action_str(make_agent(spec, seed=0).act(g.view(g.current_player)), g.rules.decks)


def expected_card_features(game: Game, seat: int) -> dict[str, np.ndarray]:
    """The card features of ``seat``'s view, worked out card by card from the public facts.

    Cards out of the deck (other table sizes) are neither held nor unseen.
    """
    n = game.rules.players
    view = game.view(seat)
    hand = view.hand_mask
    played = 0
    for m in view.played_masks:
        played |= m
    trick = list(view.current_trick)
    for c in trick:
        played |= 1 << c
    in_play = sum(1 << c for h in game.deal for c in h)
    unseen = in_play & ~hand & ~played
    bit = lambda mask, c: (mask >> c) & 1  # noqa: E731
    out = {name: np.zeros(NUM_CARDS, np.float32) for name in FEATURE_NAMES}
    led_suit = trick[0] // NUM_RANKS if trick else None
    leading = view.phase == "play" and not trick and view.current_player == seat
    for c in range(NUM_CARDS):
        s = c // NUM_RANKS
        same = range(s * NUM_RANKS, (s + 1) * NUM_RANKS)
        hi = [d for d in same if d > c]
        n_hi = sum(bit(unseen, d) for d in hi)
        out["unseen"][c] = bit(unseen, c)
        out["higher_unseen"][c] = n_hi / 12
        out["lower_unseen"][c] = sum(bit(unseen, d) for d in same if d < c) / 12
        out["higher_own"][c] = sum(bit(hand, d) for d in hi) / 12
        out["suit_unseen"][c] = sum(bit(unseen, d) for d in same) / 13
        out["top_unseen"][c] = float(n_hi == 0)
        follows = led_suit == s
        out["follows"][c] = float(follows)
        wins = follows and all(d < c for d in trick if d // NUM_RANKS == s)
        out["wins_now"][c] = float(wins)
        out["wins_surely"][c] = float(wins and (len(trick) == n - 1 or n_hi == 0))
        out["leads_top"][c] = float(leading and n_hi == 0 and bit(hand, c))
    return out
