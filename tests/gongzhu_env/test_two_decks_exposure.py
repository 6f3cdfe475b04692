"""Two-deck exposure (RULES.md 6.11): per copy, restricted on its suit's first round only.

An exposed copy may not be played to the first trick of its suit while a play without it is
allowed; its unexposed twin is free. A play in the suit uses the unexposed copy first, a discard
the exposed one.
"""

from __future__ import annotations

import pytest

from gongzhu_env import Game, Rules
from gongzhu_env.cards import parse_cards
from tests.gongzhu_env.two_deck_deals import (
    act,
    deal2,
    declare,
    legal_text,
    rest_of_suit,
    suit_deal,
)

R2 = Rules(decks=2)


def _table(deal: list[list[int]], exposures: dict[int, str], rules: Rules = R2) -> Game:
    return declare(Game.from_hands(deal, rules, leader=0), exposures)


def test_exposed_copy_is_held_back_its_unexposed_twin_is_not() -> None:
    both = _table(suit_deal("S", "SQ SQ S3", "S4", "S5"), {1: "SQ"})
    act(both, "S9")
    assert legal_text(both) == ["S3", "SQ"]  # SQ is the unexposed twin
    alone = _table(suit_deal("S", "SQ S3", "S4", "S5"), {1: "SQ"})
    act(alone, "S9")
    assert legal_text(alone) == ["S3"]


def test_the_restriction_ends_with_the_first_round_of_the_suit() -> None:
    game = _table(suit_deal("S", "SQ S3 S6", "S4 S7", "S5 S8"), {1: "SQ"})
    act(game, "S9", "S3", "S4", "S5")
    leader = game.current_player
    assert leader == 0  # S9 took the first spade trick
    act(game, "S10")
    assert legal_text(game) == ["S6", "SQ"]


def test_an_exposed_copy_that_is_the_only_card_of_its_suit_may_follow() -> None:
    game = _table(suit_deal("S", "SQ", "S4", "S5"), {1: "SQ"})
    act(game, "S9")
    assert legal_text(game) == ["SQ"]


def test_leading_an_exposed_copy() -> None:
    # One of two SQ exposed: SQ alone leads with the unexposed copy; the pair needs both.
    hands = deal2("SQ SQ S3", "", "", "")
    game = _table(hands, {0: "SQ"})
    assert "SQ" in legal_text(game) and "SQ+SQ" not in legal_text(game)
    both = _table(hands, {0: "SQ SQ"})
    assert "SQ" not in legal_text(both) and "SQ+SQ" not in legal_text(both)
    assert "S3" in legal_text(both)
    free = _table(hands, {0: "SQ SQ"}, Rules(decks=2, exposed_may_lead=True))
    assert {"SQ", "SQ+SQ"} <= set(legal_text(free))


def test_exposed_copies_that_are_all_of_a_suit_lead_one_at_a_time() -> None:
    # 6.11: a play uses the fewest exposed copies the restriction allows. Both SQ exposed and
    # no other spade: one SQ may open spades (the only-card exception), the pair may not.
    spades = rest_of_suit("S", "SQ SQ").split()
    hands = deal2("SQ SQ", " ".join(spades[:12]), " ".join(spades[12:]), "")
    game = _table(hands, {0: "SQ SQ"})
    assert "SQ" in legal_text(game) and "SQ+SQ" not in legal_text(game)
    free = _table(hands, {0: "SQ SQ"}, Rules(decks=2, exposed_may_lead=True))
    assert {"SQ", "SQ+SQ"} <= set(legal_text(free))


def test_the_issue_line_leads_one_exposed_sq() -> None:
    # Seat 0 exposes both SQ (its only spades), leads C2, discards CK on the heart trick and
    # takes the diamond trick with DA; spades are not led yet, so its spade lead is one SQ.
    hands = deal2("SQ SQ C2 CK DA", "C6 H9 D8", "C4 H9 DJ", "C7 HK D10")
    for rules in (R2, Rules.preset("two_decks")):
        game = Game.from_hands(hands, rules)
        for action in [49, 49, 104, 104, 104, 104, 0, 4, 2, 5, 37, 11, 33, 33, 21, 25, 19, 22]:
            game.step(action)
        assert game.current_player == 0 and game.tricks[-1].winner == 0
        assert [a for a in game.legal_actions() if a % 52 // 13 == 3] == parse_cards("SQ")


@pytest.mark.parametrize("spades, plays, expected", [
    ("SQ SQ", ["S9"], ["SQ"]),                 # no other spade: one exposed SQ follows
    ("SQ SQ S3", ["S9"], ["S3"]),              # an unexposed spade goes first
    ("SQ SQ S3 S3", ["S9+S9"], ["S3"]),        # the unexposed pair, not the exposed one
    ("SQ SQ S3 S3", ["S9+S9", "S3"], ["S3"]),
    ("SQ SQ S3", ["S9+S9"], ["SQ"]),           # the only pair is required, exposed or not
    ("SQ SQ S3", ["S9+S9", "SQ"], ["SQ"]),
], ids=["single-only", "single-other", "pair-other", "pair-other-2nd", "pair-only",
        "pair-only-2nd"])
def test_a_follower_with_both_copies_exposed_uses_the_fewest(spades: str, plays: list[str],
                                                             expected: list[str]) -> None:
    game = _table(suit_deal("S", spades, "S4", "S5"), {1: "SQ SQ"})
    act(game, *plays)
    assert legal_text(game) == expected


def test_pair_lead_followers_avoid_exposed_copies() -> None:
    # No pair: two spades without the exposed SQ. A pair with an exposed copy gives way to one
    # without. The only pair is required even with its exposed copy.
    game = _table(suit_deal("S", "SQ S3 S4", "SQ S6 S6", "SK SK S2"), {1: "SQ", 2: "SQ"})
    act(game, "S9+S9")
    assert legal_text(game) == ["S3", "S4"]
    act(game, "S3", "S4")
    assert legal_text(game) == ["S6"]
    act(game, "S6", "S6")
    assert legal_text(game) == ["SK"]
    forced = _table(suit_deal("S", "SQ SQ S3", "S4", "S5"), {1: "SQ"})
    act(forced, "S9+S9")
    assert legal_text(forced) == ["SQ"]
    act(forced, "SQ")
    assert legal_text(forced) == ["SQ"]


def test_a_discard_uses_the_exposed_copy_first() -> None:
    # Hearts: seat 1 has none; seat 2 wins the heart trick with HK and leads spades.
    hearts = rest_of_suit("H", "H2 H3 H4")
    spades = rest_of_suit("S", "SQ SQ S3 S5 S9")
    hands = deal2("H2 H3 S9", "SQ SQ S3", hearts + " S5", "H4 " + spades)
    game = _table(hands, {1: "SQ"})
    act(game, "H2", "SQ", "HK", "H4")
    assert game.tricks[0].winner == 2
    assert game.exposed[1] == tuple(parse_cards("SQ"))  # the exposure stays on record
    act(game, "S5", "S2", "S9")
    # The discard took the exposed copy: the SQ left is unexposed and free to follow.
    assert legal_text(game) == ["S3", "SQ"]


def test_declaration_exposes_copies_one_at_a_time_with_no_auto_exposure() -> None:
    hands = deal2("SQ SQ C10", "DJ HA HA", "C10 DJ", "")
    game = Game.from_hands(hands, R2, leader=0)
    assert legal_text(game) == ["C10", "SQ", "DONE"]
    act(game, "SQ")
    assert legal_text(game) == ["C10", "SQ", "DONE"]  # the second copy is still exposable
    act(game, "SQ", "C10")
    assert legal_text(game) == ["DONE"]
    act(game, "DONE", "DJ", "DONE", "DONE", "DONE")
    assert game.phase == "play"
    # SQ, C10 and DJ exposed, HA not: one deck would expose HA now, two decks do not.
    assert game.exposed == (tuple(parse_cards("C10 SQ SQ")), tuple(parse_cards("DJ")), (), ())
