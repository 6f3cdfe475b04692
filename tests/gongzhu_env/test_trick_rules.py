"""The trick rules the batch compiles from the engine, and the shared mask rules of the batch.

``engine.winning_play`` and ``engine.winning_play4`` are compiled by ``gongzhu_env.batch.tricks``
as they are; ``tricks.score`` restates both scoring functions of ``scoring`` over multisets and
is checked against them here on every subset of the scoring cards that matters, beside the
differential that holds it at every step of play.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from gongzhu_env.cards import C10, DJ, HA, HEARTS, NUM_RANKS, SQ
from gongzhu_env.engine import winning_play, winning_play4
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import _HEART_TABLES, TWO_DECK_ALL_HEARTS, score_masks, score_two_decks


def _by_hand(trick: list[int]) -> int:
    """The rule as a player says it: the highest card of the led suit wins."""
    suit = trick[0] // 13
    follow = [(c, i) for i, c in enumerate(trick) if c // 13 == suit]
    return max(follow)[1]


def test_winning_play_is_the_highest_card_of_the_led_suit() -> None:
    rng = np.random.default_rng(60)
    for n in range(2, 9):
        for _ in range(2_000):
            trick = [int(c) for c in rng.choice(52, size=n, replace=False)]
            assert winning_play(trick, trick[0] // 13 * 13 + 13) == _by_hand(trick)


def test_the_unrolled_four_card_rule_is_the_general_one() -> None:
    # Every pattern of suits and ranks that matters: the lead and three plays drawn from two
    # suits, ranks in every order (cards may repeat: two decks).
    cards = [0, 5, 12, 13, 20, 25]
    for trick in itertools.product(cards, repeat=4):
        top = trick[0] // 13 * 13 + 13
        assert winning_play4(*trick, top) == winning_play(list(trick), top)


def test_the_compiled_rules_agree_with_the_engine() -> None:
    tricks = pytest.importorskip("gongzhu_env.batch.tricks")
    rng = np.random.default_rng(61)
    for n in (3, 4, 6, 8):
        for _ in range(300):
            trick = rng.choice(52, size=n, replace=False).astype(np.int64)
            top = int(trick[0]) // 13 * 13 + 13
            assert tricks.winning_play(trick, top) == winning_play([int(c) for c in trick], top)


_SPECIAL = (SQ, DJ, C10, HA)
_HEART_BITS = [1 << (HEARTS * NUM_RANKS + r) for r in range(NUM_RANKS)]


def _scoring_sets(rng: np.random.Generator, count: int) -> list[int]:
    """Sets of scoring cards: every mix of the specials with no, some or all hearts."""
    all_hearts = sum(_HEART_BITS)
    out = []
    for k in range(16):
        specials = sum(1 << c for i, c in enumerate(_SPECIAL) if k >> i & 1)
        out += [specials, specials | all_hearts]
        for _ in range(count):
            hearts = sum(b for b in _HEART_BITS if rng.random() < 0.5)
            out.append(specials | hearts)
    return out


@pytest.mark.parametrize("table", ["standard", "book", "positive"])
def test_the_batch_score_is_score_masks_at_one_deck(table: str) -> None:
    tricks = pytest.importorskip("gongzhu_env.batch.tricks")
    rng = np.random.default_rng(62)
    sums, all_hearts = _HEART_TABLES[table]
    heart_sums = np.array(sums, dtype=np.int64)
    exposable = [1 << c for c in _SPECIAL]
    checked = 0
    for swap, own_rule, first_rule in itertools.product((False, True), repeat=3):
        rules = Rules(hearts_table=table, pig_sheep_swap=swap, self_capture_double=own_rule,
                      first_drawn_exposure=first_rule)
        for taken in _scoring_sets(rng, 4):
            exposed = sum(b for b in exposable if rng.random() < 0.5)
            own = exposed & sum(b for b in exposable if rng.random() < 0.5)
            doubled = exposed & sum(b for b in exposable if rng.random() < 0.5)
            want = score_masks(taken, exposed, rules, own_exposed=own, doubled=doubled)
            got = tricks.score(np.int64(taken), np.int64(0), np.int64(exposed), np.int64(0),
                               np.int64(own if own_rule else 0),
                               np.int64(doubled if first_rule else 0), 1, heart_sums,
                               all_hearts, int(swap))
            assert got == want, (hex(taken), hex(exposed), rules)
            checked += 1
    assert checked == 8 * 16 * (2 + 4)  # every rule mix, every set of specials


def test_the_batch_score_is_score_two_decks() -> None:
    tricks = pytest.importorskip("gongzhu_env.batch.tricks")
    rng = np.random.default_rng(63)
    sums, _ = _HEART_TABLES["standard"]
    heart_sums = np.array(sums, dtype=np.int64)
    checked = 0
    for once in _scoring_sets(rng, 6):
        for twice_pick in range(4):
            twice = once & sum(b for b in [*_HEART_BITS, *(1 << c for c in _SPECIAL)]
                               if rng.random() < (0.5, 1.0, 0.2, 0.0)[twice_pick])
            e1 = sum(1 << c for c in _SPECIAL if rng.random() < 0.6)
            e2 = e1 & sum(1 << c for c in _SPECIAL if rng.random() < 0.4)
            want = score_two_decks((once, twice), (e1, e2))
            got = tricks.score(np.int64(once), np.int64(twice), np.int64(e1), np.int64(e2),
                               np.int64(0), np.int64(0), 2, heart_sums, TWO_DECK_ALL_HEARTS, 0)
            assert got == want, (hex(once), hex(twice), hex(e1), hex(e2))
            checked += 1
    assert checked == 16 * (2 + 6) * 4
