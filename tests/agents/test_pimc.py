"""``pimc``: legal play under every preset and rollout; equivalent cards searched once."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.pimc import card_runs, distinct_cards
from gongzhu_env.cards import card_str, mask_of, parse_card, parse_cards
from gongzhu_env.engine import Game
from gongzhu_env.rules import PRESETS, Rules
from tests.agents.helpers import play_hand


@pytest.mark.parametrize("rules", [Rules.preset(p) for p in sorted(PRESETS)]
                         + [Rules(hidden_exposure=True)])
def test_pimc_plays_legal_actions_under_every_preset(rules):
    rng = np.random.default_rng(5)
    for i in range(2):
        agents = [make_agent("pimc:worlds=2", seed=i * 4 + k) if k != 1
                  else make_agent("random", seed=k) for k in range(4)]
        play_hand(Game(rules, rng=rng), agents)


@pytest.mark.parametrize("rollout", ["expert", "greedy"])
def test_pimc_only_plays_legal_actions(rollout):
    rng = np.random.default_rng(3)
    for i in range(3):
        agents = [make_agent(f"pimc:worlds=3,rollout={rollout}", seed=i * 4 + k)
                  if k % 2 == 0 else make_agent("random", seed=k) for k in range(4)]
        play_hand(Game(rng=rng, leader=None if i else 2), agents)


def test_pimc_searches_equivalent_cards_once():
    legal = parse_cards("C4 C5 C7 C10 CJ H2 H3")
    # C4 and C5 are adjacent (one run); C6 is unseen, so C7 is a new run; C10 scores, so it
    # stands alone, as do CJ and every heart.
    unseen = mask_of(parse_cards("C6 C8 CQ H4"))
    got = [card_str(c) for c in distinct_cards(legal, unseen)]
    assert got == ["C5", "C7", "C10", "CJ", "H2", "H3"]
    # A preferred card represents its run.
    assert card_str(distinct_cards(legal, unseen, prefer=parse_card("C4"))[0]) == "C4"
    # The runs themselves partition the legal cards, in order.
    runs = [[card_str(c) for c in run] for run in card_runs(legal, unseen)]
    assert runs == [["C4", "C5"], ["C7"], ["C10"], ["CJ"], ["H2"], ["H3"]]


TWO_DECK_RULES = [Rules.preset("two_decks"), Rules(decks=2)]


@pytest.mark.parametrize("rules", TWO_DECK_RULES, ids=["two_decks", "decks2"])
def test_pimc_plays_a_two_deck_hand_legally_and_the_same_for_a_seed(rules):
    def run(seed):
        agents = [make_agent("pimc:worlds=2,rollout=greedy", seed=seed + k) if k % 2 == 0
                  else make_agent("random", seed=seed + k) for k in range(4)]
        return play_hand(Game(rules, seed=11), agents)

    first = run(0)
    assert run(0) == first
    assert run(1) != first


def test_pimc_searches_a_two_deck_second_follow_action():
    # After a pair lead the follower's second card is searched like any decision: the agent
    # answers from the engine's mask of completions and stays deterministic for its seed.
    from tests.agents.helpers import two_deck_deal, two_deck_game_at

    hands = two_deck_deal(["S6 S6", "S3 S9 SK H2", "", ""], voids={1: "S"}, seed=8)
    g = two_deck_game_at(hands, 0, "S6+S6 S3")
    view = g.view(1)
    picks = {make_agent("pimc:worlds=4", seed=3).act(view) for _ in range(2)}
    assert len(picks) == 1 and picks <= set(view.legal_actions)
    assert view.legal_actions == [parse_card("S9"), parse_card("SK")]
