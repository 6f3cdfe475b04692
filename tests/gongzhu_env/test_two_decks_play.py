"""Two-deck play (RULES.md 6.11) on scripted deals: pair leads, follows, winners, first lead.

Each test sets up one situation with ``suit_deal`` (seats 1..3 hold exactly the named cards of
the suit, seat 0 the rest) and asks the engine what is legal and who wins.
"""

from __future__ import annotations

import pytest

from gongzhu_env import Game, Rules
from gongzhu_env.cards import parse_cards
from gongzhu_env.match import Match
from tests.gongzhu_env.two_deck_deals import (
    PLAY,
    act,
    deal2,
    legal_text,
    suit_deal,
)


def _led(deal: list[list[int]], *actions: str) -> Game:
    game = Game.from_hands(deal, PLAY, leader=0)
    return act(game, *actions)


def _discard(game: Game, suit: str) -> str:
    """The lowest legal card outside ``suit`` (a discard of no consequence)."""
    return next(t for t in legal_text(game) if t[0] != suit and "+" not in t)


# ---------------------------------------------------------------- pair against unpaired
def test_clubs_two_unpaired_beat_any_pair() -> None:
    game = _led(suit_deal("C", "C3 C4", "C6 C6", "C2"), "C5+C5")
    act(game, "C4", "C3", "C6", "C6", "C2")
    act(game, _discard(game, "C"))
    # C3 C4 are lower than both pairs, but unpaired cards beat a pair in clubs.
    assert game.tricks[-1].winner == 1
    assert game.tricks[-1].cards == tuple(parse_cards("C5 C5 C4 C3 C6 C6")) + \
        game.tricks[-1].cards[6:]


def test_diamonds_a_pair_beats_two_unpaired() -> None:
    game = _led(suit_deal("D", "DA DK", "D6 D6", ""), "D5+D5")
    act(game, "DA", "DK", "D6", "D6")
    act(game, _discard(game, "D"))
    act(game, _discard(game, "D"))
    # DA DK lose to any pair in diamonds; the higher pair wins.
    assert game.tricks[-1].winner == 2


def test_hearts_unpaired_beat_a_pair() -> None:
    game = _led(suit_deal("H", "H2 H3", "HA HA", "H4 H5"), "HK+HK")
    act(game, "H2", "H3", "HA", "HA", "H4", "H5")
    # The lowest hearts win: unpaired above pairs; between unpaired the higher card decides.
    assert game.tricks[-1].winner == 3
    assert game.captured[3] == tuple(parse_cards("H2 H3 H4 H5 HK HK HA HA"))


def test_spades_the_earlier_of_identical_plays_wins() -> None:
    game = _led(suit_deal("S", "S7 S8", "S8 S7", "S2"), "S9+S9")
    act(game, "S7", "S8", "S8", "S7", "S2")
    act(game, _discard(game, "S"))
    assert game.tricks[-1].winner == 1


def test_unpaired_compare_by_the_higher_card_then_the_lower() -> None:
    game = _led(suit_deal("S", "SK S3", "SK S4", "SQ SJ"), "S9+S9")
    act(game, "SK", "S3", "SK", "S4", "SQ", "SJ")
    assert game.tricks[-1].winner == 2


def test_a_play_with_an_off_suit_card_is_a_discard() -> None:
    # Seat 3 has one spade, the ace: SA with a discard cannot win, even above the lead.
    game = _led(suit_deal("S", "", "", "SA"), "S2+S2")
    for _ in range(4):  # seats 1 and 2, two discards each
        act(game, _discard(game, "S"))
    act(game, "SA")
    act(game, _discard(game, "S"))
    assert game.tricks[-1].winner == 0


def test_single_lead_identical_cards_the_earlier_wins() -> None:
    game = _led(suit_deal("S", "SA", "SA", "S2"), "S9")
    act(game, "SA", "SA", "S2")
    assert game.tricks[-1].winner == 1
    assert len(game.tricks[-1].cards) == 4


# ---------------------------------------------------------------- following a pair lead
def test_holding_a_pair_of_the_suit_a_pair_is_required() -> None:
    game = _led(suit_deal("S", "S3 S3 S4 S4 S6", "S7", "S8"), "S9+S9")
    assert legal_text(game) == ["S3", "S4"]  # either pair, nothing else
    act(game, "S4")
    assert game.current_player == 1  # the follower stays to move
    assert legal_text(game) == ["S4"]  # the second action completes the pair


def test_without_a_pair_two_cards_of_the_suit() -> None:
    game = _led(suit_deal("S", "S3 S5 S6", "S7", "S8"), "S9+S9")
    assert legal_text(game) == ["S3", "S5", "S6"]
    act(game, "S5")
    assert legal_text(game) == ["S3", "S6"]


def test_short_of_the_suit_all_of_it_plus_discards() -> None:
    game = _led(suit_deal("S", "S3", "S7", "S8"), "S9+S9")
    # S3 with any discard, in either order: every card held may start the play.
    assert game.legal_actions() == sorted(set(game.hands[1]))
    after_spade = act(game.clone(), "S3")
    assert after_spade.legal_actions() == sorted(set(game.hands[1]) - {parse_cards("S3")[0]})
    # A discard first leaves only the spade to complete the play.
    act(game, _discard(game, "S"))
    assert legal_text(game) == ["S3"]


def test_void_two_discards_of_anything() -> None:
    game = _led(suit_deal("S", "", "S7", "S8"), "S9+S9")
    assert game.legal_actions() == sorted(set(game.hands[1]))
    for first in sorted(set(game.hands[1])):
        trial = act(game.clone(), legal_text(game)[game.legal_actions().index(first)])
        # Any second card; the same card again only if it was held twice.
        assert (first in trial.legal_actions()) == (game.hands[1].count(first) == 2)
        assert len(trial.legal_actions()) == len(set(trial.hands[1]))


def test_second_action_that_breaks_the_pair_rule_is_refused_with_the_rule() -> None:
    game = _led(suit_deal("S", "S3 S3 S5", "S7", "S8"), "S9+S9", "S3")
    with pytest.raises(ValueError, match="S5.*not legal.*with S3.*pair of S is required"):
        act(game, "S5")


def test_a_void_shows_only_once_the_two_card_play_is_complete() -> None:
    game = _led(suit_deal("S", "S3", "S7", "S8"), "S9+S9")
    act(game, _discard(game, "S"))
    # Seat 1 still holds S3: nothing shows it void in spades yet.
    assert game.void_masks[1] == 0 and 3 not in game.view(2).voids[1]
    act(game, "S3")
    assert game.void_masks[1] == 1 << 3


def test_a_single_lead_is_followed_with_one_card() -> None:
    game = _led(suit_deal("S", "S3 S3 S4", "S7", "S8"), "S9")
    assert legal_text(game) == ["S3", "S4"]
    act(game, "S3")
    assert game.current_player == 2


# ---------------------------------------------------------------- leads
def test_a_pair_may_be_led_only_by_a_holder_of_both_copies() -> None:
    game = Game.from_hands(suit_deal("S", "S3 S3", "S4", "S5"), PLAY, leader=1)
    assert "S3+S3" in legal_text(game) and "S4+S4" not in legal_text(game)


def test_first_leader_is_the_lowest_seat_holding_a_c2_and_leads_it() -> None:
    hands = deal2("D2 D2", "C2", "D3 D3", "C2")
    game = Game.from_hands(hands, PLAY)
    assert game.first_leader == 1 and legal_text(game) == ["C2"]
    both = Game.from_hands(deal2("D2 D2", "D3 D3", "C2 C2", ""), PLAY)
    assert both.first_leader == 2 and legal_text(both) == ["C2", "C2+C2"]
    act(both, "C2+C2")
    assert both.pair_lead


def test_free_first_lead_variant() -> None:
    hands = deal2("D2 D2", "C2", "D3 D3", "C2")
    game = Game.from_hands(hands, Rules(decks=2, declaration="none", first_lead="any"))
    assert game.first_leader == 1
    assert len(legal_text(game)) > 2 and "C2" in legal_text(game)


def test_dealt_games_start_with_the_lowest_c2_holder() -> None:
    for seed in range(20):
        game = Game(PLAY, seed=seed)
        assert game.first_leader == min(s for s in range(4) if 0 in game.hands[s])
        assert sum(len(h) for h in game.hands) == 104


def test_match_next_hand_is_led_by_the_first_pig_taker() -> None:
    import numpy as np
    # Two-deck scores run in the thousands: a lower threshold keeps the match going.
    match = Match(Rules(decks=2, team_play=True, match_threshold=-10**6), seed=5)
    rng = np.random.default_rng(5)
    game = match.game
    while not game.is_over():
        legal = game.legal_actions()
        match.step(legal[int(rng.integers(len(legal)))])
    first_sq = next(t for t in game.tricks if 49 in t.cards)
    assert match.game is not game
    assert match.game.first_leader == first_sq.winner == game.first_pig_taker
    assert match.game.free_first_lead


# ---------------------------------------------------------------- the action space
def test_action_space_and_card_text() -> None:
    two = Rules(decks=2)
    assert two.num_actions == 105 and two.done_action == 104
    assert Rules().num_actions == 53 and Rules().done_action == 52
    assert parse_cards("SQ SQ") == [49, 49]
    game = Game(two, seed=0)
    assert game.legal_actions() == sorted(game.legal_actions())
    assert game.legal_actions()[-1] == 104  # declaring: DONE


@pytest.mark.parametrize(("option", "value"), [
    ("auto_expose", True), ("declaration", "all"), ("declaration", "all_but_sheep"),
    ("strict_exposure", True), ("hidden_exposure", True), ("first_drawn_exposure", True),
    ("self_capture_double", True), ("discard_colour", True), ("hearts_table", "book"),
    ("hearts_table", "positive"), ("pig_sheep_swap", True), ("pig_sheep_team", True),
])
def test_one_deck_only_options_are_refused_by_name(option: str, value: object) -> None:
    with pytest.raises(ValueError, match=f"{option}={value!r} cannot be combined with decks=2"):
        Rules(decks=2, **{option: value})


def test_the_two_deck_defaults() -> None:
    rules = Rules.preset("two_decks")
    assert rules.decks == 2 and rules.team_play
    assert rules.auto_expose is False and rules.settlement_multiplier == 1
    assert Rules.from_dict(rules.to_dict()) == rules
