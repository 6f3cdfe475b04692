"""``greedy`` at a two-deck table (RULES.md 6.11): the one-trick-deep point avoider, with pairs.

The one-deck rules (``agents.greedy``) carry over card by card; what pairs change:

* **Leading:** a pair of a non-scoring club or spade, or of H2..H4, is its favourite lead. In
  those suits a pair ranks below any two unpaired cards, so the lead almost always loses, and it
  sheds two cards at once. Diamond pairs rank above unpaired cards (the lead would win), so a
  diamond pair is never its lead. Otherwise the lowest safe single, as with one deck.
* **Following a single lead:** as with one deck, except that a copy of the card heading the
  trick also loses to it (the earlier of two identical cards wins), so it counts as a duck.
* **Following a pair lead** (two actions): it picks a whole two-card play first and plays its
  first card; the engine's mask for the second card then decides, and it completes the best play
  that starts with the card it played. Holding a pair of the suit, the highest pair that still
  loses, else the lowest; with two or more cards of the suit, the highest two that still lose,
  else the lowest two; otherwise its one card of the suit (if any) and its most dangerous
  discards, in the one-deck order (the pig, high hearts, the transformer unless the trick holds
  a sheep, high cards, the sheep last).
* **Declaration:** never exposes a copy.
"""

from __future__ import annotations

from agents.base import RuleAgent
from agents.greedy import greedy_declare
from agents.knowledge import C10_BIT, DJ_BIT, HEARTS, SQ_BIT, Situation, highest, play_key
from agents.two_deck_knowledge import candidate_plays, first_card
from gongzhu_env.cards import C10, DJ, FULL_DECK, NUM_CARDS, SQ, SUIT_MASKS, cards_of

_POINT_HEARTS = HEARTS & ~((1 << 29) - 1)  # H5..HA: the hearts that cost points
_SAFE_PAIR_SUITS = SUIT_MASKS[0] | SUIT_MASKS[3] | (HEARTS & ((1 << 29) - 1))
"""Clubs, spades and H2..H4: pairs whose lead ranks below two unpaired cards and scores nothing."""


def _rank_key(c: int) -> tuple[int, int]:
    return c % 13, c


def discard_order(c: int, trick_has_sheep: bool) -> tuple[int, int]:
    """Sort key of a discard, most wanted first when sorted in descending order."""
    if c == SQ:
        return 5, 0
    b = 1 << c
    if b & _POINT_HEARTS:
        return 4, c
    if c == C10 and not trick_has_sheep:
        return 3, 0
    if c in (DJ, C10):
        return 0, 1 if c == C10 else 0
    return 2, c % 13


def greedy_lead(s: Situation) -> int:
    """Choose the greedy lead: a safe pair, else the lowest safe single (module docstring)."""
    legal = s.legal
    pairs = legal >> NUM_CARDS & FULL_DECK & _SAFE_PAIR_SUITS & ~(SQ_BIT | C10_BIT)
    if pairs:
        return NUM_CARDS + min(cards_of(pairs), key=_rank_key)
    singles = legal & FULL_DECK
    if not singles:  # only pair leads are legal (the first lead with both C2, for one)
        return NUM_CARDS + min(cards_of(legal >> NUM_CARDS & FULL_DECK), key=_rank_key)
    safe = singles & ~(HEARTS | SQ_BIT | C10_BIT | DJ_BIT)
    return min(cards_of(safe or (singles & ~SQ_BIT) or singles), key=_rank_key)


def _single_follow(s: Situation) -> int:
    legal = s.legal & FULL_DECK
    follow = legal & SUIT_MASKS[s.suit]
    if follow:
        _, key = s.heading()
        best = key[0] if key is not None else s.trick[0]
        lose = follow & ((2 << best) - 1)  # a copy of the heading card loses too
        if lose:
            return highest(lose)
        return min(cards_of(follow), key=_rank_key)
    sheep = DJ in s.trick
    return max(cards_of(legal), key=lambda c: discard_order(c, sheep))


def _play_order(s: Situation, play: tuple[int, ...], best: tuple[int, ...] | None,
                sheep: bool) -> tuple[object, ...]:
    """Sort key of a two-card play to a pair lead: the greedy choice sorts highest."""
    key = play_key(play, s.suit, True)
    if key is None:
        # A discard: its in-suit card is forced, the others shed by danger.
        parts = sorted((discard_order(c, sheep) for c in play if c // 13 != s.suit),
                       reverse=True)
        return (1, *parts)
    loses = best is not None and key <= best
    if loses:
        return 1, key  # the highest play that still loses
    return 0, tuple(-k for k in key)  # the lowest play that wins


def greedy_pair_follow(s: Situation) -> int:
    """Choose the greedy card of a follow to a pair lead (either of the two actions)."""
    _, best = s.heading()
    sheep = DJ in s.trick
    play = max(candidate_plays(s), key=lambda p: _play_order(s, p, best, sheep))
    return first_card(s, play)


def greedy_play_two_decks(s: Situation) -> int:
    """Choose the greedy action of a two-deck play decision (see the module docstring)."""
    legal = s.legal
    if legal & (legal - 1) == 0:
        return legal.bit_length() - 1
    if not s.trick:
        return greedy_lead(s)
    if s.pair_lead:
        return greedy_pair_follow(s)
    return _single_follow(s)


class TwoDeckGreedyAgent(RuleAgent):
    """``greedy`` at a two-deck table (``agents.factory`` picks it from the rules)."""

    name = "greedy"
    decks = 2
    declare_rule = staticmethod(greedy_declare)
    play_rule = staticmethod(greedy_play_two_decks)
