"""The engine's fast paths agree with its reference paths, and seeded games stay the same.

``legal_actions`` builds its list from per-suit tables, ``step`` accepts exactly the actions of
``legal_mask()`` (one legality computation serves both) and closes a trick inline;
``Game(seed=...)`` deals with one numpy call. These tests compare each shortcut with the plain
computation it replaces, on many random hands under every rules preset and several single
options, and pin the hands a few seeds produce so that a later speed-up cannot change them
unnoticed.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from gongzhu_env import Game, IllegalActionError, Rules
from gongzhu_env.cards import DONE, cards_of
from gongzhu_env.rules import PRESETS

# One deck; the two-deck game has its own tests (test_two_decks_*.py).
RULE_SETS = [r for r in map(Rules.preset, sorted(PRESETS)) if r.decks == 1] + [
    Rules(first_lead="any"),
    Rules(hidden_exposure=True),
    Rules(first_drawn_exposure=True),
    Rules(discard_colour=True),
    Rules(auto_expose=False),
    Rules(declaration="all"),
    Rules(strict_exposure=True, discard_colour=True),
]


def _actions_of(mask: int) -> list[int]:
    """The legal actions of a legal mask, the slow way."""
    acts = list(cards_of(mask & ((1 << 52) - 1)))
    return [*acts, DONE] if mask >> DONE & 1 else acts


def _play(game: Game, rng: np.random.Generator, check: bool = True) -> Game:
    """Play ``game`` out at random, checking that ``step`` accepts exactly the listed actions.

    Every legal action and a few illegal ones are tried on copies of the game.
    """
    while True:
        legal = game.legal_actions()
        if check:
            assert legal == _actions_of(game.legal_mask())
            illegal = [a for a in range(DONE + 1) if a not in legal]
            for a in legal + illegal[int(rng.integers(len(illegal) or 1))::17]:
                copy = game.clone()
                if a in legal:
                    copy.step(a)
                    assert copy.actions == (*game.actions, a)
                else:
                    with pytest.raises(IllegalActionError):
                        copy.step(a)
                    assert copy.actions == game.actions
        if game.is_over():
            assert legal == []
            return game
        game.step(legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: str(sorted(r.to_dict().items())))
def test_step_accepts_exactly_the_legal_actions(rules: Rules) -> None:
    for seed in range(40):
        leader = None if seed % 4 else seed % 3
        g = _play(Game(rules, seed=seed, leader=leader), np.random.default_rng(seed))
        assert g.scores() == g.provisional_scores()
        assert len(g.tricks) == 13


def test_deal_is_the_seeded_permutation_in_blocks_of_thirteen() -> None:
    for seed in range(200):
        deck = np.random.default_rng(seed).permutation(52).tolist()
        expected = tuple(tuple(sorted(deck[13 * s:13 * s + 13])) for s in range(4))
        g = Game(seed=seed)
        assert g.deal == g.hands == expected
        assert g.first_leader == next(s for s in range(4) if 0 in expected[s])


def test_a_shared_rng_deals_the_same_hands_as_permutations_in_turn() -> None:
    rng, ref = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(50):
        deck = ref.permutation(52).tolist()
        expected = tuple(tuple(sorted(deck[13 * s:13 * s + 13])) for s in range(4))
        assert Game(rng=rng).deal == expected


def test_scores_only_once_over_and_clone_keeps_them() -> None:
    g = Game(seed=4)
    with pytest.raises(RuntimeError, match="only available once the hand is over"):
        g.scores()
    _play(g, np.random.default_rng(4), check=False)
    s = g.scores()
    s[0] += 1  # a copy: the game's scores do not change
    assert g.scores() == g.clone().scores() == g.provisional_scores()
    with pytest.raises(IllegalActionError, match="the hand is over"):
        g.step(0)


def test_illegal_action_mid_trick_leaves_the_state_unchanged() -> None:
    rng = np.random.default_rng(8)
    for seed in range(30):
        g = Game(seed=seed)
        while not g.is_over():
            legal = g.legal_actions()
            illegal = [a for a in range(53) if a not in legal]
            before = (g.hands, g.current_trick, g.tricks, g.actions, g.voids, g.legal_mask())
            for a in illegal[:: max(1, len(illegal) // 5)]:
                with pytest.raises(IllegalActionError, match="legal actions:"):
                    g.step(a)
            assert (g.hands, g.current_trick, g.tricks, g.actions, g.voids,
                    g.legal_mask()) == before
            g.step(legal[int(rng.integers(len(legal)))])


# sha256 of the deals, actions, tricks and scores of the hands played below, as the engine
# produced them before its fast paths were added.
PINNED = "a7692871008c411048072461bf1003dffec819454b9cbe850054c4e027dc4466"


def test_seeded_hands_are_pinned() -> None:
    h = hashlib.sha256()
    for seed in range(100):
        g = _play(Game(seed=seed), np.random.default_rng(1000 + seed), check=False)
        h.update(repr((g.deal, g.actions, g.tricks, g.declarations, g.voids,
                       g.scores())).encode())
    assert h.hexdigest() == PINNED
