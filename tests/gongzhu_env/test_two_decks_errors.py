"""Bad input to the two-deck game: a clear error naming the problem, and nothing changed."""

from __future__ import annotations

import numpy as np
import pytest

from gongzhu_env import Game, IllegalActionError
from gongzhu_env.cards import parse_cards
from tests.gongzhu_env.two_deck_deals import PLAY, act, deal2, snapshot2, suit_deal

SQ = parse_cards("SQ")[0]
S3 = parse_cards("S3")[0]


def test_a_card_three_times_is_refused() -> None:
    hands = deal2("SQ SQ", "", "", "")
    hands[1][0] = SQ
    with pytest.raises(ValueError, match="SQ appears 3 times in the deal"):
        Game.from_hands(hands, PLAY)


def test_a_hand_of_25_is_refused() -> None:
    hands = deal2("", "", "", "")
    hands[3].append(hands[2].pop())
    with pytest.raises(ValueError, match="seat 2 has 25 cards; every two-deck hand must have 26"):
        Game.from_hands(hands, PLAY)


@pytest.mark.parametrize(("bad", "message"), [
    (52, "card index 52 is out of range"), ("XX", "bad card token 'XX'"), (True, "bool"),
])
def test_a_bad_card_in_a_deal_is_named(bad: object, message: str) -> None:
    hands = deal2("", "", "", "")
    hands[0][5] = bad  # type: ignore[call-overload]
    with pytest.raises(ValueError, match=message):
        Game.from_hands(hands, PLAY)


def test_a_deal_of_the_wrong_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="four hands of 26"):
        Game.from_hands(deal2("", "", "", "")[:3], PLAY)


def _refused(game: Game, action: object, message: str) -> None:
    before = snapshot2(game)
    with pytest.raises(IllegalActionError, match=message):
        game.step(action)  # type: ignore[arg-type]
    assert snapshot2(game) == before


def test_a_pair_action_for_a_card_held_once() -> None:
    game = Game.from_hands(suit_deal("S", "S3 S4", "", ""), PLAY, leader=1)
    _refused(game, 52 + S3, r"S3\+S3 \(92\) is not legal: seat 1 does not hold two copies of S3")


def test_a_pair_action_from_a_follower() -> None:
    game = act(Game.from_hands(suit_deal("S", "S3 S3", "", ""), PLAY, leader=0), "S9")
    _refused(game, 52 + S3, "only the leader may lead a pair")
    paired = act(Game.from_hands(suit_deal("S", "S3 S3", "", ""), PLAY, leader=0), "S9+S9")
    _refused(paired, 52 + S3, "only the leader may lead a pair; a follower plays its two cards")


def test_a_second_follow_action_that_breaks_the_pair_rule() -> None:
    game = act(Game.from_hands(suit_deal("S", "S3 S3 S5", "", ""), PLAY, leader=0),
               "S9+S9", "S3")
    _refused(game, parse_cards("S5")[0], "with S3 it would not make a legal play to the pair lead")
    assert game.current_player == 1


def test_a_first_follow_card_that_starts_no_legal_play() -> None:
    game = act(Game.from_hands(suit_deal("S", "S3 S3 S5", "", ""), PLAY, leader=0), "S9+S9")
    _refused(game, parse_cards("S5")[0], "no legal play to the pair lead starts with it")


@pytest.mark.parametrize("action", [-1, 105, 10**9])
def test_actions_out_of_range(action: int) -> None:
    game = Game.from_hands(deal2("", "", "", ""), PLAY)
    _refused(game, action, r"not (an action|legal)")


@pytest.mark.parametrize("action", ["SQ", 1.5, None, True, [0]])
def test_actions_of_the_wrong_type(action: object) -> None:
    game = Game.from_hands(deal2("", "", "", ""), PLAY)
    _refused(game, action, r"is not an action; expected an int in 0\.\.104")


def test_numpy_integers_are_actions() -> None:
    game = Game.from_hands(deal2("", "", "", ""), PLAY)
    game.step(np.int64(0))  # C2, the first lead
    assert game.trick_cards == (0,)


def test_an_action_after_the_hand_is_over() -> None:
    rng = np.random.default_rng(0)
    game = Game(PLAY, seed=1)
    while not game.is_over():
        legal = game.legal_actions()
        game.step(legal[int(rng.integers(len(legal)))])
    _refused(game, 0, "the hand is over")
