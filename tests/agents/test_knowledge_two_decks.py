"""Two-deck knowledge: sampled worlds agree with everything the seat knows, copy by copy."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from agents import make_agent
from agents.knowledge import Situation, candidate_plays
from gongzhu_env.cards import multiset_cards, parse_action, parse_cards
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from gongzhu_env.worlds import build_world, sample_hands, sample_world
from tests.agents.helpers import two_deck_deal, two_deck_game_at

RULE_SETS = [Rules.preset("two_decks"), Rules(decks=2), Rules(decks=2, first_lead="any")]


def _check_world(g: Game, hands: list[tuple[int, int]]) -> None:
    """Every fact of the observer's view holds in the sampled hands."""
    me = g.current_player
    view = g.view(me)
    sampled = [Counter(multiset_cards(*h)) for h in hands]
    truth = [Counter(h) for h in g.hands]
    assert sampled[me] == truth[me], "the observer's own hand must be exact"
    total = Counter()
    for s in range(4):
        assert sum(sampled[s].values()) == len(g.hands[s]), f"seat {s} has the wrong count"
        # The observer's hand is exact; its own void flag can run ahead of it mid-follow
        # (a discard played first, its last card of the suit still to come).
        for suit in g.voids[s] if s != me else ():
            assert not any(c // 13 == suit for c in sampled[s]), f"seat {s} is void in {suit}"
        played = Counter(multiset_cards(view.played_masks[s], view.played_pair_masks[s]))
        exposed = Counter(g.exposed[s])
        for c, n in exposed.items():
            assert sampled[s][c] >= n - played[c], "an exposed copy left its exposer's hand"
        total += sampled[s] + played
    assert all(total[c] == 2 for c in range(52)) and len(total) == 52, \
        "every card must exist exactly twice over hands and plays"


@pytest.mark.parametrize("rules", RULE_SETS, ids=["two_decks", "decks2", "free_lead"])
@pytest.mark.parametrize("tries", [0, 4])
def test_sampled_two_deck_worlds_are_consistent_with_the_view(rules, tries):
    # Random play exposes copies and leads pairs; tries=0 runs the exact sampler every time.
    rng = np.random.default_rng(tries)
    states = Counter()
    refused = 0
    for seed in range(4 if tries else 2):
        g = Game(rules, seed=seed)
        agents = [make_agent("random", seed=seed * 4 + k) for k in range(4)]
        step = 0
        while not g.is_over():
            p = g.current_player
            view = g.view(p)
            if tries or step % 4 == 0:
                hands = sample_hands(view, rng, tries=tries)
                _check_world(g, hands)
                # The sampler leaves a few first-round exposure cases to the engine's replay
                # (a seat that exposed one copy and played one: it held the twin, or no other
                # card of the suit); a refused world is drawn again.
                refused += build_world(view, hands) is None
                world = sample_world(view, rng)
                assert world is not None, "a consistent world must replay on the engine"
                assert world.actions == g.actions and world.legal_mask() == g.legal_mask()
                assert world.current_player == p
                assert world.hands[p] == g.hands[p]
                states[g.phase.value] += 1
                if view.pair_lead and len(view.current_trick) % 2:
                    states["second_of_pair"] += 1
            g.step(agents[p].act(view))
            step += 1
    assert states["declare"] and states["play"] and states["second_of_pair"], states
    assert refused <= 0.05 * sum(states[k] for k in ("declare", "play")), refused


def test_a_follower_who_showed_no_pair_is_never_dealt_one():
    # Seat 2 answers the S5 pair lead with two unpaired spades: it held no spade pair then.
    hands = two_deck_deal(["S5 S5 H2", "S7 S9 SJ", "S3 S4 S6", ""], voids={1: "S", 2: "S"},
                          seed=3)
    g = two_deck_game_at(hands, 0, "S5+S5")
    while g.current_player != 2:
        g.step(g.legal_actions()[0])
    g.step(parse_action("S3", 2))
    g.step(parse_action("S4", 2))
    assert g.current_player == 3
    view = g.view(3)
    rng = np.random.default_rng(0)
    for _ in range(200):
        hand2 = sample_hands(view, rng)[2]
        spades = [c for c in multiset_cards(*hand2) if c // 13 == 3]
        assert len(spades) == len(set(spades)), "seat 2 cannot hold a spade pair"
        assert not {parse_cards("S3")[0], parse_cards("S4")[0]} & set(spades), \
            "seat 2 held one S3 and one S4 and played them"


def test_the_first_leader_is_the_lowest_seat_dealt_a_c2():
    # With the C2 lead, seat 2 leads first: seats 0 and 1 were dealt no C2.
    hands = two_deck_deal(["", "", "C2", ""], voids={0: "C", 1: "C"}, seed=1)
    g = Game.from_hands(hands, Rules(decks=2))
    assert g.first_leader == 2
    view = g.view(3)
    rng = np.random.default_rng(1)
    for _ in range(50):
        hands_s = sample_hands(view, rng)
        assert not hands_s[0][0] & 1 and not hands_s[1][0] & 1
        assert hands_s[2][0] & 1, "the first leader holds a C2 before the first lead"


def test_the_world_of_a_second_follow_action_reproduces_its_legal_cards():
    hands = two_deck_deal(["S5 S5", "S7 S9 SJ", "", ""], voids={1: "S"}, seed=4)
    g = two_deck_game_at(hands, 0, "S5+S5 S7")
    assert g.current_player == 1 and g.pair_lead and len(g.trick_cards) == 3
    view = g.view(1)
    s = Situation.from_view(view)
    assert s.pending == parse_cards("S7")[0]
    plays = candidate_plays(s)
    assert plays and all(s.pending in p for p in plays)
    world = sample_world(view, np.random.default_rng(2))
    assert world is not None and world.legal_mask() == g.legal_mask()


def test_unseen_copies_are_counted_per_copy():
    hands = two_deck_deal(["SQ SQ HA", "DJ", "", ""], seed=5)
    g = two_deck_game_at(hands, 0, "")
    s = Situation.from_view(g.view(0))
    sq, ha, dj = parse_cards("SQ HA DJ")
    assert s.unseen_count(sq) == 0 and s.unseen_count(ha) == 2 - s.held(ha)
    assert s.unseen_count(dj) == 2 - s.held(dj) and s.held(sq) == 2
    assert not s.unseen & (1 << sq)
