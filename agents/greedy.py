"""``greedy``: a one-trick-deep rule player that only tries not to take points.

Strategy, trick by trick, looking at nothing but the trick in progress:

* **Declaration:** never exposes anything (ends its turn at once).
* **Leading:** the lowest-ranked card it holds outside the scoring cards, preferring non-hearts
  (a low lead is the card least likely to win the trick).
* **Following suit:** the highest card that still loses to the card heading the trick (it ducks,
  and sheds its most dangerous card of the suit while doing so); if every card it holds would win,
  the lowest one (someone later may still overtake it).
* **Discarding (void in the led suit):** its most dangerous card: the pig SQ first, then its
  highest heart worth points, then the transformer C10 if the trick holds no sheep (handing a
  doubler to a trick with +100 in it would be a gift), then its highest card by rank (high cards
  win tricks later; between equal ranks the higher suit), keeping the sheep DJ for last.

It counts no cards and has no memory; it is the yardstick the ``expert`` must beat. It reads
nothing but the trick in progress, so it plays the same rules at every table size (3 to 8
seats) and at both deck counts. What a second copy of every card adds (RULES.md 6.11) is read
from the legal mask and the trick, never from the deck count:

* **Pair leads** (legal only where a card can be held twice): a pair of a non-scoring club or
  spade, or of H2..H4, is its favourite lead. In those suits a pair ranks below any two
  unpaired cards, so the lead almost always loses, and it sheds two cards at once. Diamond
  pairs rank above unpaired cards (the lead would win), so a diamond pair is never its lead.
* **A copy of the card heading the trick** also loses to it (the earlier of two identical
  cards wins), so it counts as a duck.
* **Following a pair lead** (two actions): it picks a whole two-card play first and plays its
  first card; the engine's mask for the second card then decides, and it completes the best
  play that starts with the card it played. Holding a pair of the suit, the highest pair that
  still loses, else the lowest; with two or more cards of the suit, the highest two that still
  lose, else the lowest two; otherwise its one card of the suit (if any) and its most
  dangerous discards, in the order above.
"""

from __future__ import annotations

from agents.base import RuleAgent
from agents.knowledge import (
    C10_BIT,
    DJ_BIT,
    HEARTS,
    SQ_BIT,
    Situation,
    candidate_plays,
    first_card,
    highest,
    play_key,
)
from gongzhu_env.cards import C10, DJ, FULL_DECK, NUM_CARDS, SQ, SUIT_MASKS, cards_of
from gongzhu_env.view import PlayerView

_POINT_HEARTS = HEARTS & ~((1 << 29) - 1)  # H5..HA: the hearts that cost points
_SAFE_PAIR_SUITS = SUIT_MASKS[0] | SUIT_MASKS[3] | (HEARTS & ((1 << 29) - 1))
"""Clubs, spades and H2..H4: pairs whose lead ranks below two unpaired cards and scores nothing."""


def _rank_key(c: int) -> tuple[int, int]:
    return c % 13, c


def lowest_rank(mask: int) -> int:
    """Return the card of lowest rank in a non-empty mask (ties: lowest suit)."""
    return min(cards_of(mask), key=_rank_key)


def highest_rank(mask: int) -> int:
    """Return the card of highest rank in a non-empty mask (ties: highest suit)."""
    return max(cards_of(mask), key=_rank_key)


def discard_order(c: int, trick_has_sheep: bool) -> tuple[int, int, int]:
    """Sort key of a discard, the most wanted highest (see the module docstring).

    The pig; the point hearts, highest first; the transformer unless the trick holds a sheep;
    any other card by rank, then suit; the transformer onto a sheep; the sheep last.
    """
    if c == SQ:
        return 5, 0, 0
    if (1 << c) & _POINT_HEARTS:
        return 4, c, 0
    if c == C10:
        return (0, 1, 0) if trick_has_sheep else (3, 0, 0)
    if c == DJ:
        return 0, 0, 0
    return 2, c % 13, c


def greedy_lead(s: Situation) -> int:
    """Choose the greedy lead: a safe pair, else the lowest safe single (module docstring)."""
    legal = s.legal
    pairs = legal >> NUM_CARDS & FULL_DECK & _SAFE_PAIR_SUITS & ~(SQ_BIT | C10_BIT)
    if pairs:
        return NUM_CARDS + lowest_rank(pairs)
    singles = legal & FULL_DECK
    if not singles:  # only pair leads are legal (the first lead with both C2, for one)
        return NUM_CARDS + lowest_rank(legal >> NUM_CARDS & FULL_DECK)
    safe = singles & ~(HEARTS | SQ_BIT | C10_BIT | DJ_BIT)
    return lowest_rank(safe or (singles & ~SQ_BIT) or singles)


def _single_follow(s: Situation) -> int:
    """Follow a single-card lead: duck under the heading card, else discard by danger."""
    legal = s.legal & FULL_DECK
    follow = legal & SUIT_MASKS[s.suit]
    if follow:
        _, key = s.heading()
        best = key[0] if key is not None else s.trick[0]
        lose = follow & ((2 << best) - 1)  # a copy of the heading card loses too
        if lose:
            return highest(lose)
        return lowest_rank(follow)
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


def greedy_play(s: Situation) -> int:
    """Choose the greedy action of a play decision, at any table (see the module docstring)."""
    legal = s.legal
    if legal & (legal - 1) == 0:
        return highest(legal)
    if not s.trick:
        return greedy_lead(s)
    if s.pair_lead:
        return greedy_pair_follow(s)
    return _single_follow(s)


def greedy_declare(view: PlayerView) -> int:
    """Never expose: DONE at once (at any table).

    DONE is always legal under the standard rules; a forced-declaration table may demand an
    exposure first, and then the lowest legal one is made.
    """
    done = view.rules.done_action
    legal = view.legal_mask
    return done if legal >> done & 1 else highest(legal & -legal)


class GreedyAgent(RuleAgent):
    """One-trick-deep point avoider at any table; deterministic (the seed is accepted)."""

    name = "greedy"
    declare_rule = staticmethod(greedy_declare)
    play_rule = staticmethod(greedy_play)
