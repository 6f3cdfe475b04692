"""Random two-deck games: every invariant of ``gongzhu_env.checks``, the env conformance tests.

``python -m benchmarks.check_presets --decks 2`` runs the same checks over 10,000 hands; here a
few hundred keep the suite quick.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from gongzhu_env import Game, Rules, env, pair_tricks, raw_env
from gongzhu_env.checks import check_rules, play_checked, random_rules
from gongzhu_env.records import record_hand, replay_record
from gongzhu_env.view import PlayerView
from gongzhu_env.wrappers import SingleSeatEnv
from tests.helpers import hands_caught

RULE_SETS = [Rules.preset("two_decks"), Rules(decks=2),
             *(random_rules(np.random.default_rng(seed), decks=2) for seed in range(4))]


@pytest.mark.parametrize("rules", RULE_SETS, ids=[f"rules{i}" for i in range(len(RULE_SETS))])
def test_random_hands_keep_every_invariant(rules: Rules) -> None:
    assert rules.decks == 2
    assert check_rules(rules, 45, seed=7) == 45


def test_random_rule_sets_differ() -> None:
    assert len({tuple(sorted(r.to_dict().items())) for r in RULE_SETS}) >= 4


def test_checker_catches_a_broken_restriction(monkeypatch: pytest.MonkeyPatch) -> None:
    """The two-deck checker can fail: an engine that forgets the per-copy ban is caught."""
    monkeypatch.setattr(pair_tricks, "restricted", lambda *args: 0)
    assert hands_caught(Rules(decks=2), 60) > 0


def _follow_rule_plays(hand: tuple[int, ...], suit: int) -> set[tuple[int, int]]:
    """The two-card plays 6.11 allows a follower to a pair lead (no exposure in play)."""
    cards = sorted(hand)
    plays = {(a, b) for i, a in enumerate(cards) for b in cards[i + 1:]}
    held = Counter(c for c in hand if c // 13 == suit)
    if 2 in held.values():
        return {p for p in plays if p[0] == p[1] and p[0] // 13 == suit}
    need = min(2, sum(held.values()))
    return {p for p in plays if sum(c // 13 == suit for c in p) == need}


def test_the_two_follow_actions_make_exactly_the_legal_plays() -> None:
    rng = np.random.default_rng(3)
    rules = Rules(decks=2, declaration="none")
    checked = 0
    for _ in range(12):
        g = Game(rules, rng=rng)
        while not g.is_over():
            if g.pair_lead and len(g.trick_cards) % 2 == 0:
                reachable = set()
                for first in g.legal_actions():
                    after = g.clone()
                    after.step(first)
                    assert after.current_player == g.current_player
                    reachable |= {tuple(sorted((first, b))) for b in after.legal_actions()}
                suit = g.trick_cards[0] // 13
                assert reachable == _follow_rule_plays(g.hands[g.current_player], suit)
                checked += 1
            legal = g.legal_actions()
            g.step(legal[int(rng.integers(len(legal)))])
    assert checked > 20


def test_records_replay_a_two_deck_hand() -> None:
    rng = np.random.default_rng(2)
    g = Game("two_decks", rng=rng)
    play_checked(g, rng)
    rec = record_hand(g)
    assert all(len(h) == 26 for h in rec["deal"])
    assert any("+" in a for a in rec["actions"]) == any(len(t.cards) == 8 for t in g.tricks)
    again = replay_record(rec)
    assert again.scores() == g.scores() and again.tricks == g.tricks


def test_pettingzoo_api_and_seed_tests() -> None:
    api_test(env(rules="two_decks"), num_cycles=300)
    api_test(raw_env(rules="two_decks"), num_cycles=300)
    seed_test(lambda: env(rules="two_decks"), num_cycles=60)
    e = raw_env(rules="two_decks")
    assert e.action_space("player_0").n == 105
    assert e.observation_space("player_0")["action_mask"].shape == (105,)


def _legal_picker(view: PlayerView) -> int:
    """An opponent that plays the first legal action."""
    return view.legal_actions[0]


def test_gymnasium_check_env_on_the_single_seat_env() -> None:
    single = SingleSeatEnv([_legal_picker], rules="two_decks")
    check_env(single, skip_render_check=True)
    obs, info = single.reset(seed=0)
    assert info["action_mask"].shape == (105,) and obs.shape == single.observation_space.shape
