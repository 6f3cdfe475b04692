"""``greedy`` at a two-deck table: never exposes, leads safe pairs, ducks pair leads."""

from __future__ import annotations

import pytest

from agents import make_agent
from gongzhu_env.cards import parse_action, parse_cards
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from tests.agents.helpers import choose_action, two_deck_deal, two_deck_game_at

SOLO = Rules(decks=2)


def test_greedy_never_exposes_a_copy():
    g = Game(Rules.preset("two_decks"), seed=2)
    for _ in range(4):
        assert make_agent("greedy").act(g.view(g.current_player)) == SOLO.done_action
        g.step(SOLO.done_action)
    assert g.phase == "play" and not any(g.exposed)


def test_greedy_leads_its_lowest_safe_pair():
    # A pair of clubs or spades ranks below two unpaired cards: the safest lead. Diamond
    # pairs rank above (they would win) and the club pair is preferred to a lower single.
    hands = two_deck_deal(["C2 D3 D3 S6 S6 C9 C9", "", "", ""], voids={0: "CDS"}, seed=1)
    g = two_deck_game_at(hands, 0, "")
    low_heart_pairs = [c for c in range(26, 29) if hands[0].count(c) == 2]
    assert not low_heart_pairs  # the random fill (hearts only) dealt no H2..H4 pair here
    assert choose_action("greedy", g) == "S6+S6"


def test_greedy_ducks_a_pair_lead_with_the_highest_losing_cards():
    # S9+S9 is led; seat 2 holds no spade pair: two unpaired spades beat a pair, so every
    # two-card play wins and it plays the lowest two. Seat 3 then holds a pair that must be
    # played: its highest pair below S9 ducks.
    hands = two_deck_deal(["", "S9 S9", "S2 S5 SK", "S4 S4 S8 S8 SA SA"],
                          voids={2: "S", 3: "S"}, seed=2)
    g = two_deck_game_at(hands, 1, "S9+S9")
    assert choose_action("greedy", g) in ("S2", "S5")
    g.step(parse_action(choose_action("greedy", g), 2))
    assert choose_action("greedy", g) in ("S2", "S5")
    g.step(parse_action(choose_action("greedy", g), 2))
    assert g.current_player == 3
    # S2+S5 heads the trick: seat 3's pairs all lose to it; it sheds the highest pair.
    assert choose_action("greedy", g) == "SA"
    g.step(parse_action("SA", 2))
    assert choose_action("greedy", g) == "SA"


def test_greedy_counts_a_copy_of_the_heading_card_as_a_duck():
    # The earlier of two identical cards wins: following SK with the other SK loses.
    hands = two_deck_deal(["", "SK", "SK SA S2", ""], voids={2: "S"}, seed=3)
    g = two_deck_game_at(hands, 1, "SK")
    assert choose_action("greedy", g) == "SK"


@pytest.mark.parametrize("decks", [1, 2])
def test_greedy_sheds_the_higher_suit_between_equal_ranks(decks):
    # Void in hearts and diamonds, seat 2 holds clubs and spades up to the nine: its highest
    # discard is a nine either way, and between equal ranks it sheds the higher suit (spades),
    # at one deck and at two alike.
    low = "C2 C3 C4 C5 C6 C7 C8 C9 S2 S3 S4 S5 S9"
    mine = parse_cards(" ".join([low] * decks))
    rest = [c for c in range(52) for _ in range(decks - mine.count(c))]
    h3 = parse_cards("H3")[0]
    rest.remove(h3)
    size = 13 * decks
    others = [rest[:size], [h3] + rest[size:2 * size - 1], mine, rest[2 * size - 1:]]
    rules = Rules(decks=decks)
    g = Game.from_hands(others, rules, leader=1)
    while g.phase == "declare":
        g.step(rules.done_action)
    g.step(h3)
    assert choose_action("greedy", g) == "S9"
