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
  win tricks later), keeping the sheep DJ for last.

It counts no cards and has no memory; it is the yardstick the ``expert`` must beat. It reads
nothing but the trick in progress, so it plays the same rules at every table size (3 to 8
seats). At a
two-deck table it plays the pair-aware version of these rules (``agents.greedy_two_decks``).
"""

from __future__ import annotations

from agents.base import RuleAgent
from agents.knowledge import C10_BIT, DJ_BIT, HEARTS, SQ_BIT, Situation, highest, trick_lead
from gongzhu_env.cards import C10, DJ, FULL_DECK, SQ, SUIT_MASKS, cards_of
from gongzhu_env.view import PlayerView

_POINT_HEARTS = HEARTS & ~((1 << 29) - 1)  # H5..HA: the hearts that cost points


def lowest_rank(mask: int) -> int:
    """Return the card of lowest rank in a non-empty mask (ties: lowest suit)."""
    return min(cards_of(mask), key=lambda c: (c % 13, c))


def highest_rank(mask: int) -> int:
    """Return the card of highest rank in a non-empty mask (ties: highest suit)."""
    return max(cards_of(mask), key=lambda c: (c % 13, c))


def greedy_play(s: Situation) -> int:
    """Choose the greedy card for a play-phase decision (see the module docstring)."""
    legal = s.legal & FULL_DECK
    trick = s.trick
    if not trick:
        safe = legal & ~(HEARTS | SQ_BIT | C10_BIT | DJ_BIT)
        return lowest_rank(safe or (legal & ~SQ_BIT) or legal)
    follow = legal & SUIT_MASKS[trick[0] // 13]
    if follow:
        _, best = trick_lead(trick)
        lose = follow & ((1 << best) - 1)
        if lose:
            return highest(lose)
        return lowest_rank(follow)
    if legal & SQ_BIT:
        return SQ
    if legal & _POINT_HEARTS:
        return highest(legal & _POINT_HEARTS)
    if legal & C10_BIT and DJ not in trick:
        return C10
    rest = legal & ~DJ_BIT & ~C10_BIT
    return highest_rank(rest or legal)


def greedy_declare(view: PlayerView) -> int:
    """Never expose: DONE at once (at any table).

    DONE is always legal under the standard rules; a forced-declaration table may demand an
    exposure first, and then the lowest legal one is made.
    """
    done = view.rules.done_action
    legal = view.legal_mask
    return done if legal >> done & 1 else highest(legal & -legal)


class GreedyAgent(RuleAgent):
    """One-trick-deep point avoider; deterministic (the seed is accepted for uniformity)."""

    name = "greedy"
    decks = 1
    declare_rule = staticmethod(greedy_declare)
    play_rule = staticmethod(greedy_play)

