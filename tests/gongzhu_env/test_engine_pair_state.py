"""The two-deck state as one object of the game: ``PairState`` at two decks, ``None`` at one.

A one-deck game must carry nothing of two decks (its hot path and its ``clone`` stay the
one-deck ones), and a two-deck game keeps every second copy and the pair trick in that one
object, copied by ``clone`` without sharing anything. Whether the moves of a two-deck game give
the same results as before is the business of the other two-deck tests and of the differential
check against the batched engine.
"""

from __future__ import annotations

import numpy as np
import pytest

from gongzhu_env import Game, Rules
from gongzhu_env.pair_tricks import PAIR, PairState
from tests.helpers import random_playout

TWO = Rules(decks=2)
# The names the two-deck state had when they were slots of ``Game`` itself.
FORMER_SLOTS = {"_pairs", "_hand2", "_exposed2", "_exposed_all2", "_captured2", "_played2",
                "_xheld", "_xheld2", "_plays", "_pair_lead", "_pending", "_second", "_pair_suit"}


def test_game_holds_the_two_deck_state_in_one_slot() -> None:
    assert not FORMER_SLOTS & set(Game.__slots__)
    assert "_two" in Game.__slots__


@pytest.mark.parametrize("rules", [Rules(), Rules(players=3), Rules(players=6),
                                   Rules(strict_exposure=True, first_lead="any")])
def test_one_deck_games_hold_no_two_deck_state(rules: Rules) -> None:
    game = Game(rules, seed=4)
    rng = np.random.default_rng(4)
    while not game.is_over():
        assert game._two is None
        assert not game.pair_lead
        zeros = (0,) * rules.players
        assert game.hand_pair_masks == game.exposed_pair_masks == zeros
        assert game.captured_pair_masks == game.played_pair_masks == zeros
        assert max(game.legal_actions()) <= rules.done_action  # no pair-lead action
        assert game.clone()._two is None
        game.step(int(rng.choice(game.legal_actions())))
    assert game._two is None


def test_a_two_deck_game_keeps_its_second_copies_in_its_pair_state() -> None:
    game = Game(TWO, seed=7)
    two = game._two
    assert isinstance(two, PairState)
    # The deal holds every card twice: the copies a seat holds twice are in the pair state,
    # a subset of the cards it holds at all.
    once, twice = game.hand_masks, two.hand2
    assert sum(m.bit_count() for m in once) + sum(m.bit_count() for m in twice) == 104
    assert all(t & ~o == 0 for o, t in zip(once, twice, strict=True)) and any(twice)
    assert game.hand_pair_masks == tuple(two.hand2)
    assert [sorted(h) for h in game.deal] == [sorted(h) for h in game.hands]
    rng = np.random.default_rng(7)
    while not game.is_over():
        game.step(int(rng.choice(game.legal_actions())))
        assert game._two is two  # one object for the whole hand
        assert game.pair_lead == two.pair_lead
        assert game.played_pair_masks == tuple(two.played2)
        assert game.captured_pair_masks == tuple(two.captured2)
    # Every copy left the hands; the played multisets hold all 104 copies.
    assert not any(two.hand2) and not any(game.hand_masks)
    assert sum(m.bit_count() for m in game.played_masks + tuple(two.played2)) == 104
    assert two.plays == [] and two.pending == -1 and two.suit == -1
    # A trick takes one card a seat, or two after a pair lead.
    assert {len(t.cards) for t in game.tricks} <= {4, 8}


def _pair_lead_position() -> Game:
    """A two-deck game in the middle of a follower's two-card play to a pair lead."""
    for seed in range(200):
        game = Game(TWO, seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_over():
            legal = game.legal_actions()
            pairs = [a for a in legal if PAIR <= a < TWO.done_action]
            if pairs and game.current_trick[1] == ():
                game.step(pairs[0])
                game.step(game.legal_actions()[0])  # the follower's first card of two
                return game
            game.step(int(rng.choice(legal)))
    raise AssertionError("no pair lead in 200 random two-deck hands")


def test_clone_copies_the_pair_state_and_shares_no_list() -> None:
    game = _pair_lead_position()
    two = game._two
    assert two is not None and two.pair_lead and two.pending >= 0
    copy = game.clone()
    other = copy._two
    assert other is not None and other is not two
    for name in PairState.__slots__:
        mine, theirs = getattr(two, name), getattr(other, name)
        assert mine == theirs, name
        if isinstance(mine, list):
            assert mine is not theirs, f"{name} is shared between a game and its clone"
    # Playing on the copy changes nothing of the original.
    before = (game.legal_actions(), game.hands, game.current_trick, two.plays[:], two.pending)
    rng = np.random.default_rng(0)
    random_playout(copy, rng)
    assert copy.is_over()
    assert (game.legal_actions(), game.hands, game.current_trick, two.plays, two.pending) \
        == before
    # And the original plays on to the same end as a fresh replay of its actions.
    random_playout(game, np.random.default_rng(1))
    replayed = Game.replay(game.deal, game.actions, TWO)
    assert replayed.scores() == game.scores() and replayed.tricks == game.tricks
