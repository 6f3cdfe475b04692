"""``expert`` at a two-deck table: scripted positions where the pair-aware choice is clear."""

from __future__ import annotations

import pytest

from agents import make_agent
from agents.expert import expert_declare_view
from gongzhu_env.cards import parse_action
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from tests.agents.helpers import choose_action, two_deck_deal, two_deck_game_at

SOLO = Rules(decks=2)
TEAMS = Rules.preset("two_decks")


def test_the_expert_drops_its_pig_under_an_ace():
    # Seat 1 leads SA: nothing can beat it (the other SA would be later), so the pig is safe
    # to shed on seat 1, and the expert does it rather than keep a burden.
    hands = two_deck_deal(["", "SA", "SQ S3 S5", ""], voids={2: "S"}, seed=1)
    g = two_deck_game_at(hands, 1, "SA")
    assert choose_action("expert", g) == "SQ"


def test_the_expert_keeps_its_pig_below_a_low_lead():
    # A low spade is led and the expert holds the pig with low spades: it ducks below.
    hands = two_deck_deal(["", "S4", "SQ S3 S2", ""], voids={2: "S"}, seed=2)
    g = two_deck_game_at(hands, 1, "S4")
    assert choose_action("expert", g) == "S3"


def test_the_expert_follows_a_pair_lead_with_its_low_pair():
    # S6+S6 is led; seat 2 holds only pairs of spades, so it must play a pair: S3+S3 ducks,
    # SA+SA would win. Both actions come from the expert, the second from the engine's mask.
    hands = two_deck_deal(["", "S6 S6", "S3 S3 SA SA", ""], voids={2: "S"}, seed=3)
    g = two_deck_game_at(hands, 1, "S6+S6")
    assert g.legal_actions() == [parse_action(t, 2) for t in ("S3", "SA")]
    assert choose_action("expert", g) == "S3"
    g.step(parse_action("S3", 2))
    assert g.current_player == 2
    assert choose_action("expert", g) == "S3"


def test_the_expert_dumps_its_sheep_on_a_partner_trick_but_not_on_an_opponent():
    # Seat 0 leads C5, seat 1 (partner of seat 3 at a team table) takes it with CA, seat 2
    # follows; seat 3, void in clubs, is last with the sheep.
    hands = two_deck_deal(["C5", "CA", "C4", "DJ H2 S2"], voids={3: "C"}, seed=4)
    team = two_deck_game_at(hands, 0, "C5 CA C4", TEAMS)
    assert choose_action("expert", team) == "DJ"
    solo = two_deck_game_at(hands, 0, "C5 CA C4", SOLO)
    assert choose_action("expert", solo) != "DJ"


def test_the_expert_flushes_the_pig_with_a_low_spade_pair():
    # No pig and no pig cage in hand, both pigs out: a low spade pair makes every follower
    # give up two spades.
    hands = two_deck_deal(["S3 S3 S7", "", "", ""], voids={0: "S"}, seed=5)
    g = two_deck_game_at(hands, 0, "")
    assert choose_action("expert", g) == "S3+S3"


def test_the_expert_exposes_a_pig_copy_only_with_long_caged_spades():
    long_caged = two_deck_deal(["SQ SA SA SK S2 S3 S4 S5 S6 S7", "SQ", "", ""],
                               voids={0: "S"}, seed=6)
    g = Game.from_hands(long_caged, SOLO)
    assert g.current_player == next(s for s in range(4) if 0 in long_caged[s])
    for seat, exposes in ((0, True), (1, False)):
        view = g.view(seat)
        view.legal_mask = g.legal_mask() if seat == g.current_player else \
            (1 << parse_action("SQ", 2)) | (1 << SOLO.done_action)
        assert (expert_declare_view(view) == parse_action("SQ", 2)) is exposes


@pytest.mark.parametrize("rules", [SOLO, TEAMS], ids=["decks2", "two_decks"])
def test_the_expert_never_exposes_both_pigs(rules):
    hands = two_deck_deal(["SQ SQ SA SA SK SK S2 S3 S4 S5 S6", "", "", ""], seed=7)
    g = Game.from_hands(hands, rules, leader=0)
    expert = make_agent("expert")
    while g.current_player == 0 and g.phase == "declare":
        g.step(expert.act(g.view(0)))
    assert parse_action("SQ", 2) not in g.exposed[0]
