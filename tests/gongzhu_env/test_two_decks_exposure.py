"""Two-deck exposure (RULES.md 6.11): per copy, restricted on its suit's first round only.

An exposed copy may not be played to the first trick of its suit while a play without it is
allowed; its unexposed twin is free. A play in the suit uses the unexposed copy first, a discard
the exposed one.
"""

from __future__ import annotations

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


def test_exposed_copies_that_are_all_of_a_suit_may_lead() -> None:
    spades = rest_of_suit("S", "SQ SQ").split()
    hands = deal2("SQ SQ", " ".join(spades[:12]), " ".join(spades[12:]), "")
    game = _table(hands, {0: "SQ SQ"})
    assert {"SQ", "SQ+SQ"} <= set(legal_text(game))


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
