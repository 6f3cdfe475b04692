"""The one deal: the engine, ``deal_hands`` and the arena's deal sets give the same hands."""

from __future__ import annotations

import numpy as np
import pytest

from gongzhu_env import Game, Rules
from gongzhu_env.deal import deal_hands, shuffled_deck
from training.arena.deals import generate_deals

TABLES = [Rules(), Rules(players=3), Rules(players=5), Rules(players=8), Rules(decks=2),
          Rules(first_drawn_exposure=True, declaration="free")]
IDS = ["four", "three", "five", "eight", "two-decks", "first-drawn"]


@pytest.mark.parametrize("rules", TABLES, ids=IDS)
def test_the_engine_deals_what_deal_hands_deals(rules: Rules) -> None:
    for seed in range(5):
        hands = deal_hands(rules, seed)
        game = Game(rules, seed=seed)
        assert [sorted(h) for h in hands] == [sorted(h) for h in game.deal]
        replayed = Game.from_hands(hands, rules)
        assert replayed.deal == game.deal
        assert replayed.first_leader == game.first_leader
        if rules.first_drawn_exposure:
            assert game.first_drawn == tuple(h[0] for h in hands)


@pytest.mark.parametrize("rules", TABLES[:5], ids=IDS[:5])
def test_an_arena_deal_set_is_the_engines_deals_in_a_row(rules: Rules) -> None:
    deals = generate_deals(6, 21, decks=rules.decks, players=rules.players)
    rng = np.random.default_rng(21)
    for d in range(6):
        game = Game(rules, rng=rng)
        assert [tuple(int(c) for c in h) for h in deals.hands[d]] == list(game.deal)


def test_every_card_in_play_is_dealt_decks_times() -> None:
    for rules in TABLES:
        deck = shuffled_deck(rules, np.random.default_rng(0))
        counts = np.bincount(deck, minlength=52)
        in_play = [rules.deck_mask >> c & 1 for c in range(52)]
        assert counts.tolist() == [rules.decks * k for k in in_play]


def test_seed_and_rng_are_exclusive() -> None:
    with pytest.raises(ValueError, match="either seed= or rng="):
        deal_hands(Rules(), 1, rng=np.random.default_rng(1))
