"""Every preset and random valid option combinations: PettingZoo api/seed tests and invariants.

The full bar (2,000 random hands per preset) is ``python -m benchmarks.check_presets``; this
file runs the same checks on fewer hands so that the suite stays quick.
"""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from gongzhu_env import Game, Rules, env
from gongzhu_env.cards import SCORING_MASK
from gongzhu_env.checks import check_hand, check_matches, check_rules, random_rules
from gongzhu_env.match import Match
from gongzhu_env.rules import PRESETS
from gongzhu_env.view import obs_size
from tests.helpers import hands_caught

COMBINATIONS = [random_rules(np.random.default_rng(seed)) for seed in range(8)]


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("episode", ["hand", "match"])
def test_api_and_seed_per_preset(name: str, episode: str) -> None:
    api_test(env(rules=name, episode=episode), num_cycles=300)
    seed_test(lambda: env(rules=name, episode=episode), num_cycles=60)


MATCH_OPTIONS = [
    Rules(match_end="either", next_leader="biggest_loser"),
    Rules(match_end="either", match_threshold=-200),
    Rules(decks=2, team_play=True, match_end="either", next_leader="biggest_loser"),
    Rules(players=5, match_end="either", next_leader="biggest_loser"),
]


@pytest.mark.parametrize("rules", MATCH_OPTIONS, ids=["four", "short", "two-decks", "five"])
def test_api_and_seed_for_match_episodes_with_the_match_options(rules: Rules) -> None:
    # A short threshold ends matches within the test's cycles, so its resets are exercised.
    api_test(env(rules=rules, episode="match"), num_cycles=300)
    seed_test(lambda: env(rules=rules, episode="match"), num_cycles=60)


@pytest.mark.parametrize("rules", MATCH_OPTIONS, ids=["four", "short", "two-decks", "five"])
def test_random_matches_keep_the_match_rules(rules: Rules) -> None:
    done = check_matches(rules, 4, seed=7)
    assert done.matches == 4 and done.hands >= 4


@pytest.mark.parametrize("rules", COMBINATIONS, ids=[f"combo{i}" for i in range(8)])
def test_api_and_seed_for_random_option_combinations(rules: Rules) -> None:
    api_test(env(rules=rules), num_cycles=200)
    seed_test(lambda: env(rules=rules), num_cycles=60)
    assert env(rules=rules).observation_space("player_0")["observation"].shape == (
        obs_size(rules),)


def test_random_combinations_are_valid_and_varied() -> None:
    assert len({r.to_dict().__repr__() for r in COMBINATIONS}) == len(COMBINATIONS)
    assert any(not r.is_standard for r in COMBINATIONS)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_random_hands_keep_every_invariant(name: str) -> None:
    assert check_rules(Rules.preset(name), 120, seed=1) == 120


@pytest.mark.parametrize("rules", COMBINATIONS, ids=[f"combo{i}" for i in range(8)])
def test_random_hands_keep_every_invariant_under_combinations(rules: Rules) -> None:
    assert check_rules(rules, 30, seed=2) == 30


@pytest.mark.parametrize("name", ["standard", "scrofazero", "huapai"])
def test_every_hand_of_a_match_keeps_the_invariants(name: str) -> None:
    m = Match(name, seed=4)
    rng = np.random.default_rng(4)
    while not m.is_over():
        g = m.game
        while not g.is_over():
            legal = g.legal_actions()
            m.step(legal[int(rng.integers(len(legal)))])
        check_hand(g)


def test_checker_catches_a_broken_restriction() -> None:
    """The invariant check can fail: an engine that forgets the exposure ban is caught."""

    def forget_the_ban(g: Game) -> None:
        g._restrictable = 0  # a deliberately broken engine

    assert hands_caught(Rules(), 100, forget_the_ban) > 0


def test_checker_catches_scores_settled_too_early(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``scores_settled`` that looks only at the table, not at the hands, is caught."""
    def table_only(self: Game) -> bool:
        on_table = sum(1 << c for c in self.current_trick[1])
        return self.is_over() or (self.phase == "play" and not on_table & SCORING_MASK)

    monkeypatch.setattr(Game, "scores_settled", table_only)
    with pytest.raises(AssertionError, match="settled"):
        check_rules(Rules(), 5, seed=0)


@pytest.mark.parametrize("name", ["standard", "scrofazero", "huapai"])
def test_scores_settle_before_the_end_of_some_one_deck_hands(name: str) -> None:
    """Once the last scoring card is taken the scores are final, in random play about one hand in
    five before its last trick (not only once the hand is over)."""
    rng = np.random.default_rng(3)
    early = 0
    for _ in range(40):
        g = Game(Rules.preset(name), rng=rng)
        assert not g.scores_settled(), "nothing is settled before the first card"
        while not g.scores_settled():
            legal = g.legal_actions()
            g.step(legal[int(rng.integers(len(legal)))])
        early += not g.is_over()
        left = sum(1 << c for h in g.hands for c in h) | sum(1 << c for c in g.current_trick[1])
        assert not left & SCORING_MASK
    assert early >= 4
