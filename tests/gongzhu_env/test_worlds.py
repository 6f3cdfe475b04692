"""Worlds (``gongzhu_env.worlds``): one sampler for every table, held to the engine.

A sampled world, dealt as each seat's sampled hand plus what it played, replays the seat's
whole public history on the engine and reaches the present with the seat's own legal actions;
and a world depends only on what the seat has seen (the leak test).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np
import pytest

from gongzhu_env import Game, Match, Rules
from gongzhu_env.cards import Multiset
from gongzhu_env.view import PlayerView
from gongzhu_env.worlds import build_world, sample_hands, sample_world, world_deal

TABLES = [Rules(), Rules.preset("huapai"), Rules.preset("scrofazero"), Rules(players=3),
          Rules(players=5), Rules(players=6), Rules(players=8), Rules(first_lead="any"),
          Rules(strict_exposure=True), Rules.preset("two_decks"), Rules(decks=2),
          Rules(decks=2, first_lead="any", exposed_may_lead=True)]
IDS = ["standard", "huapai", "scrofazero", "three", "five", "six", "eight", "free-lead",
       "strict", "two-decks", "decks2", "decks2-free"]
Sampler = Callable[[PlayerView, np.random.Generator], list[Multiset]]


def _positions(rules: Rules, seed: int, every: int = 3) -> list[tuple[Game, int]]:
    """Games at decisions of a seeded hand of random play (a clone and the seat to move)."""
    rng = np.random.default_rng(seed)
    g = Game(rules, rng=rng)
    out = []
    step = 0
    while not g.is_over():
        if step % every == 0:
            out.append((g.clone(), g.current_player))
        legal = g.legal_actions()
        g.step(legal[int(rng.integers(len(legal)))])
        step += 1
    return out


@pytest.mark.parametrize("rules", TABLES, ids=IDS)
def test_a_sampled_world_replays_every_play_the_seat_saw(rules: Rules) -> None:
    rng = np.random.default_rng(7)
    built = 0
    for seed in range(3):
        for g, seat in _positions(rules, seed):
            view = g.view(seat)
            hands = sample_hands(view, rng)
            # The seat's own hand is its own; every other hand has the size it must have.
            assert hands[seat] == (g.hand_masks[seat], g.hand_pair_masks[seat])
            for s, (once, twice) in enumerate(hands):
                assert once.bit_count() + twice.bit_count() == len(g.hands[s])
            # The deal of the world holds every card in play exactly rules.decks times.
            deal, _ = world_deal(view, hands)
            counts = Counter(c for hand in deal for c in hand)
            assert all(counts[c] == rules.decks * (rules.deck_mask >> c & 1) for c in range(52))
            world = sample_world(view, rng)
            assert world is not None
            built += 1
            assert world.actions == g.actions
            assert world.current_player == seat and world.legal_mask() == g.legal_mask()
            assert world.hands[seat] == g.hands[seat]
            assert world.view(seat).encode().tolist() == view.encode().tolist()
            # Dealt from its own deal, the world reproduced every play and exposure so far.
            assert world.tricks == g.tricks and world.declarations == g.declarations
            assert world.current_trick == g.current_trick
    assert built > 20


def test_a_world_of_a_later_match_hand_replays_its_free_first_lead() -> None:
    match = Match(Rules(), seed=3)
    rng = np.random.default_rng(0)
    while match.hand_number == 0:
        game = match.game
        legal = game.legal_actions()
        match.step(legal[int(rng.integers(len(legal)))])
    game = match.game
    for _ in range(9):
        legal = game.legal_actions()
        game_seat = game.current_player
        view = match.view(game_seat)
        assert view.hand_number == 1
        world = sample_world(view, rng)
        assert world is not None and world.free_first_lead
        assert world.actions == game.actions and world.legal_mask() == game.legal_mask()
        match.step(legal[int(rng.integers(len(legal)))])


def _leaks(sampler: Sampler, rules: Rules, seeds: range) -> int:
    """Count positions where ``sampler`` deals differently for two views that look the same.

    The second view is the same seat's view of a world that agrees with everything the seat
    has seen but holds other hidden cards: a sampler that reads only the view deals both
    alike from the same seed.
    """
    leaks = 0
    for seed in seeds:
        for g, seat in _positions(rules, seed, every=5):
            view = g.view(seat)
            other = sample_world(view, np.random.default_rng(seed + 100))
            assert other is not None
            twin = other.view(seat)
            assert twin.encode().tolist() == view.encode().tolist()
            if other.hand_masks == g.hand_masks and other.hand_pair_masks == g.hand_pair_masks:
                continue  # nothing hidden differs here (the end of the hand)
            a = sampler(view, np.random.default_rng(seed))
            b = sampler(twin, np.random.default_rng(seed))
            leaks += a != b
    return leaks


@pytest.mark.parametrize("rules", [Rules(), Rules(players=5), Rules.preset("two_decks")],
                         ids=["standard", "five", "two-decks"])
def test_a_world_never_depends_on_hidden_cards(rules: Rules) -> None:
    assert _leaks(sample_hands, rules, range(3)) == 0


def test_the_leak_test_catches_a_sampler_that_peeks() -> None:
    # A planted leak: a sampler that gives one hidden card of seat (me + 1) to that seat,
    # which it can only know by looking at the real hand.
    def peeking(view: PlayerView, rng: np.random.Generator) -> list[Multiset]:
        hands = sample_hands(view, rng)
        game = _TRUTH[id(view)]
        spy = (view.seat + 1) % view.rules.players
        return hands + [(game.hand_masks[spy], 0)]

    _TRUTH.clear()
    original = Game.view

    def remembering(self: Game, seat: int) -> PlayerView:
        v = original(self, seat)
        _TRUTH[id(v)] = self
        return v

    Game.view = remembering  # type: ignore[method-assign]
    try:
        assert _leaks(peeking, Rules(), range(2)) > 0
    finally:
        Game.view = original  # type: ignore[method-assign]


_TRUTH: dict[int, Game] = {}


def test_an_inconsistent_view_is_refused_by_name() -> None:
    g = Game(Rules(), seed=1)
    for _ in range(8):
        g.step(g.legal_actions()[0])
    view = g.view(g.current_player)
    other = (view.seat + 1) % 4
    view.void_masks = tuple(0b1111 if s == other else v for s, v in enumerate(view.void_masks))
    with pytest.raises(ValueError, match="the view is inconsistent"):
        sample_hands(view, np.random.default_rng(0), tries=0)


def test_build_world_refuses_hands_the_history_cannot_come_from() -> None:
    g = Game(Rules(), seed=2)
    while len(g.tricks) < 2:
        g.step(g.legal_actions()[-1])
    seat = g.current_player
    view = g.view(seat)
    hands = [(g.hand_masks[s], 0) for s in range(4)]
    world = build_world(view, hands)
    assert world is not None and world.hand_masks == g.hand_masks
    # The observer's hand swapped with another seat's: the world's present is not the
    # seat's (its legal cards differ, or the history cannot be replayed at all).
    other = (seat + 1) % 4
    swapped = hands[:]
    swapped[seat], swapped[other] = hands[other], hands[seat]
    assert build_world(view, swapped) is None
