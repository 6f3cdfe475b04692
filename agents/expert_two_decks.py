"""``expert`` at a two-deck table (RULES.md 6.11): card counting with pairs and copies.

The one-deck expert (``agents.expert``) reasons about single cards; with two decks every card
has a twin, a lead may be a pair and a follower to a pair plays two cards. This module holds
the expert's rules for that game; ``TwoDeckExpertAgent`` plays them, and
``make_agent("expert")`` picks it at a two-deck table. As with one deck it is stateless (it
re-reads everything from a ``Situation``) and plays for its score relative to the table,
or for its team's total in team play (the ``"two_decks"`` preset: partners 0 & 2 against 1 &
3): a partner's gain is its gain, an opponent's its loss.

Declaration, copy by copy (each exposed copy doubles its card for whoever takes it):

* a copy of SQ only when it holds one SQ and long, caged spades (at least 9 spades and two
  copies of SK/SA): the other pig is then more likely to be taken by someone else than by it;
  never with both pigs in hand;
* each copy of DJ it holds with long diamonds and at least three sheep cages (copies of DQ,
  DK, DA): it expects to take its sheep home;
* never C10 or HA (a doubled transformer or doubled hearts punish most the weak hand).

Leading, lowest cost first over every single and pair it may lead:

* the one-deck specials still apply card by card: flush the pig with a low spade (now better
  with a low *pair* of spades, which makes every follower give up two spades), lead its pig
  into cages when every unseen spade beats it, its sheep home when no unseen diamond beats it,
  a master sheep cage (or a master diamond pair) to catch an unseen sheep;
* a pair of clubs, hearts or spades ranks below any two unpaired cards, so a pair lead there
  almost always loses while many copies of the suit are out: the expert's safe lead, and with
  low hearts a way to hand hearts to the winner; it keeps pairs of the scoring cards and of the
  pig cages while a pig is out;
* a diamond pair ranks above unpaired cards: it is led only when no higher diamond pair can be
  unseen (a sure win) and the sheep may fall to it;
* otherwise, as with one deck: the lowest card of the suit where most unseen copies outrank
  it, shortest suits first, avoiding the pig's suit while holding a pig.

Following (a single card, or a two-card play to a pair lead): every play it may make is
valued by who would take the trick (the engine's comparison of plays: ``play_key``) and what
that is worth to it with the two-deck scoring, plus the worth of what it sheds: its pigs and
high hearts are burdens, sheep and sheep cages assets. Before the last seat it also weighs the
risk of what later seats may add (a void seat dumps points, a heart trick collects hearts) and
whether its winning play may still be overtaken; after a pair lead it values whole two-card
plays and plays the first card of the best one, then completes it from the engine's mask.
Dumping points on a trick is thus aimed at opponents, and the sheep (or a transformer on a
positive trick) at a partner who is taking the trick.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents.base import RuleAgent
from agents.knowledge import (
    C10_BIT,
    DIAMONDS,
    DJ_BIT,
    HEARTS,
    PIG_CAGES,
    SHEEP_CAGES,
    SPADES,
    SQ_BIT,
    Situation,
    above,
    below,
    play_key,
)
from agents.two_deck_knowledge import candidate_plays, first_card
from gongzhu_env.cards import (
    C10,
    DJ,
    FULL_DECK,
    NUM_CARDS,
    SCORING_MASK,
    SQ,
    SUIT_MASKS,
    Multiset,
    cards_of,
    ms_add,
    ms_size,
    multiset_masks,
)
from gongzhu_env.view import PlayerView

if TYPE_CHECKING:
    from gongzhu_env.state import GameState

TUNING2: dict[str, float] = {
    "sq_expose_len": 9,  # spades (copies) needed, with two cage copies, to expose one pig
    "dj_expose_len": 8,  # diamonds needed, with three sheep cage copies, to expose a sheep
    "lead_lower": 3.0,  # lead cost per unseen copy below the lead (someone can duck it)
    "lead_short": 0.5,  # lead cost per card held in the suit
    "lead_void": 15.0,  # lead cost of a suit an opponent is void in
    "lead_heart": 1.0,  # lead cost per heart rank
    "lead_heart_flat": -15.0,  # flat lead cost of a heart lead (they pay off early)
    "pair_safe": -12.0,  # cost of a pair lead in C/H/S that many copies of the suit will beat
    "pair_heart": -0.3,  # cost per point of the hearts a losing pair lead hands over
    "sure_win": 100.0,  # cost of a lead that surely wins the trick
    "pig_suit": 60.0,  # cost of leading spades while holding a pig
    "cage_lead": 80.0,  # cost of leading a pig cage while a pig is out
    "shed_pig": 60.0,  # worth of getting rid of a pig from the hand
    "shed_cage": 15.0,  # worth of getting rid of SK/SA while a pig is out and none is held
    "keep_sheep": 60.0,  # worth of keeping a sheep in hand
    "keep_dcage": 15.0,  # worth of keeping a sheep cage while a sheep is out
    "heart_liab": 1.0,  # burden of keeping a heart: its value times the share of hearts below
    "shed_rank": 0.6,  # worth per rank of shedding a high card
    "void_dump": 35.0,  # points a later opponent void in the suit may dump on the winner
    "heart_follow": 12.0,  # points a later seat may add to a heart trick
    "overtake": 0.5,  # weight of a winning play's outcome when a later seat may overtake it
}
"""Weights of the two-deck rules, measured against ``greedy`` on two-deck duplicate deals."""


def _rank(c: int) -> int:
    return c % 13


# ---------------------------------------------------------------------- declaration
def expert_declare_two_decks(view: PlayerView) -> int:
    """Exposure decision for one declaration step: a copy to expose, or DONE."""
    hand, hand2, legal = view.hand_mask, view.hand_pair_mask, view.legal_mask
    done = view.rules.done_action

    def copies(mask: int) -> int:
        return ms_size(hand & mask, hand2 & mask)

    exposed = view.exposed_masks[view.seat]
    if legal & SQ_BIT and not hand2 & SQ_BIT and not exposed & SQ_BIT \
            and copies(SPADES) >= TUNING2["sq_expose_len"] and copies(PIG_CAGES) >= 2:
        return SQ
    if legal & DJ_BIT and copies(DIAMONDS) >= TUNING2["dj_expose_len"] \
            and copies(SHEEP_CAGES) >= 3:
        return DJ
    if not legal >> done & 1:  # a forced-declaration table demands an exposure first
        return (legal & -legal).bit_length() - 1
    return done


# ---------------------------------------------------------------------- values
def _weight(s: Situation, winner: int) -> float:
    """How a point taken by ``winner`` counts for the seat to move."""
    if winner == s.seat:
        return 1.0
    if s.partners:
        return 1.0 if winner in s.partners else -1.0
    return -1.0 / 3.0


def _outcome(s: Situation, winner: int, cards: Multiset) -> float:
    """Value for the seat to move of ``winner`` taking the multiset ``cards``."""
    pts0 = cards[0] & SCORING_MASK
    if not pts0:
        return 0.0
    return _weight(s, winner) * s.score_if_taken(winner, pts0, cards[1] & SCORING_MASK)


def _pig_out(s: Situation) -> bool:
    return bool(s.unseen & SQ_BIT)


def _shed_worth(s: Situation, c: int, copies_left: int, wins: bool) -> float:
    """Worth (positive) or cost (negative) of no longer holding this copy of ``c``.

    ``copies_left``: copies of ``c`` still in hand after the play; ``wins``: the play heads
    the trick (a pig or a high card shed into our own trick is no relief).
    """
    b = 1 << c
    if c == DJ:
        return -TUNING2["keep_sheep"]
    if b & SHEEP_CAGES and s.unseen & DJ_BIT:
        return -TUNING2["keep_dcage"]
    if wins:
        return 0.0
    if c == SQ:
        return TUNING2["shed_pig"]
    if b & HEARTS:
        out = s.unseen & HEARTS
        if not out or s.captured[s.seat] & C10_BIT:
            return 0.0
        share = (out & below(c)).bit_count() / out.bit_count()
        return TUNING2["heart_liab"] * share * -s.score_if_taken(s.seat, b)
    if b & PIG_CAGES and _pig_out(s) and not s.hand & SQ_BIT and not copies_left:
        return TUNING2["shed_cage"] + _rank(c)
    return TUNING2["shed_rank"] * _rank(c)


def _overtakable(s: Situation, play: tuple[int, ...]) -> bool:
    """Whether a later seat may still hold a play of the led suit that beats ``play``."""
    suit = s.suit
    later = [p for p in s.seats_after() if not s.voids[p] >> suit & 1]
    if not later:
        return False
    out = s.unseen & SUIT_MASKS[suit]
    if not s.pair_lead:
        return bool(out & above(play[0]))
    if suit == 1:
        # Diamonds: only a higher pair beats a pair; a pair or two higher cards beat two cards.
        hi = max(play)
        if play[0] == play[1]:
            return bool(s.unseen2 & above(hi))
        return bool(s.unseen2 & DIAMONDS) or (out & above(hi)).bit_count() >= 2
    if play[0] == play[1]:
        return bool(out)  # any two unpaired cards beat a pair here
    return bool(out & above(max(play)))


def _later_points(s: Situation) -> float:
    """Rough points the later seats may still add to the trick (negative for its taker)."""
    pts = 0.0
    n = 2 if s.pair_lead else 1
    for p in s.seats_after():
        if s.voids[p] >> s.suit & 1:
            if p != s.seat and p not in s.partners:
                pts -= TUNING2["void_dump"] * n
        elif s.suit == 2:
            pts -= TUNING2["heart_follow"] * n
    return pts


def _play_value(s: Situation, play: tuple[int, ...], head: int,
                best: tuple[int, ...] | None, base: Multiset, last: bool,
                later_pts: float) -> float:
    """Value of one follow play (see the module docstring)."""
    key = play_key(play, s.suit, s.pair_lead)
    wins = key is not None and best is not None and key > best
    winner = s.seat if wins else head
    v = _outcome(s, winner, ms_add(base, multiset_masks(play)))
    if not last:
        if wins:
            if _overtakable(s, play):
                v *= TUNING2["overtake"]
                v -= 0.3 * sum(_rank(c) for c in play)  # low, to be overtaken
            elif s.suit == 3 and _pig_out(s):
                v -= 50.0  # a sure spade win while a pig may still be dropped on it
        v += _weight(s, winner) * later_pts
    mine = list(play)
    if s.pending >= 0:
        mine.remove(s.pending)  # already out of the hand: the same in every play
    held: dict[int, int] = {}
    for c in mine:
        held[c] = held.get(c, s.held(c)) - 1
        v += _shed_worth(s, c, held[c], wins)
    return v + 0.01 * sum(_rank(c) for c in play)


def _follow(s: Situation) -> int:
    head, best = s.heading()
    later = s.seats_after()
    if s.pair_lead:
        plays = candidate_plays(s)
        base_cards = s.trick[:-1] if s.pending >= 0 else s.trick
    else:
        plays = [(c,) for c in cards_of(s.legal & FULL_DECK)]
        base_cards = s.trick
    base = multiset_masks(base_cards)
    lp = _later_points(s)
    choice = max(plays, key=lambda p: _play_value(s, p, head, best, base, not later, lp))
    return first_card(s, choice) if s.pair_lead else choice[0]


# ---------------------------------------------------------------------- leading
def _opponents_void(s: Situation) -> int:
    out = 0
    for p in range(4):
        if p != s.seat and p not in s.partners:
            out |= s.voids[p]
    return out


def _lead_single(s: Situation, c: int, ov: int) -> float:
    suit = c // 13
    unseen = s.unseen
    higher = ms_size(unseen & above(c), s.unseen2 & above(c))
    lower = ms_size(unseen & below(c), s.unseen2 & below(c))
    v = TUNING2["lead_lower"] * lower - higher
    if higher == 0:
        v += TUNING2["sure_win"]
    if ov >> suit & 1:
        v += TUNING2["lead_void"]
    if suit == 3:
        if s.hand & SQ_BIT:
            v += TUNING2["pig_suit"]
        if (1 << c) & PIG_CAGES and _pig_out(s):
            v += TUNING2["cage_lead"]
    elif suit == 2:
        v += TUNING2["lead_heart"] * _rank(c) + TUNING2["lead_heart_flat"]
    elif suit == 1 and c == DJ:
        v += 200.0
    elif suit == 0 and s.hand & C10_BIT and c > C10:
        v += 20.0
    if c == SQ:
        v += 300.0
    if c == C10:
        v += 100.0
    held = ms_size(s.hand & SUIT_MASKS[suit], s.hand2 & SUIT_MASKS[suit])
    return v + TUNING2["lead_short"] * held


def _lead_pair(s: Situation, c: int, ov: int) -> float:
    suit = c // 13
    b = 1 << c
    out = ms_size(s.unseen & SUIT_MASKS[suit], s.unseen2 & SUIT_MASKS[suit])
    if b & (SQ_BIT | DJ_BIT | C10_BIT):
        return 1e6
    v = 0.0
    if ov >> suit & 1:
        v += TUNING2["lead_void"]
    if suit == 1:
        if s.unseen2 & above(c):
            return 1e6 if not s.unseen2 & DIAMONDS & ~above(c) else 150.0
        # A sure win: worth it to catch a sheep that has little room to hide.
        v += TUNING2["sure_win"]
        if s.unseen & DJ_BIT and out <= 8 and not ov >> 1 & 1:
            v -= 130.0
        return v
    if b & PIG_CAGES and _pig_out(s):
        return 1e6
    if out <= 3:
        v += TUNING2["sure_win"]  # few copies out: the pair may well win
    v += TUNING2["pair_safe"]
    if suit == 3:
        if s.hand & SQ_BIT:
            v += TUNING2["pig_suit"]
        elif _pig_out(s) and c < SQ:
            v -= 40.0  # the flush: every follower gives up two spades
    if suit == 2:
        v += TUNING2["pair_heart"] * -2 * s.score_if_taken(s.seat, b) \
            + TUNING2["lead_heart_flat"]
    return v + 0.5 * _rank(c)


def _lead(s: Situation) -> int:
    legal = s.legal
    singles = legal & FULL_DECK
    pairs = legal >> NUM_CARDS & FULL_DECK
    unseen, hand = s.unseen, s.hand
    ov = _opponents_void(s)
    pig_out = _pig_out(s)
    # Flush the pig: no pig and no cage in hand, a pig still out.
    if pig_out and not hand & (SQ_BIT | PIG_CAGES):
        low_pairs = pairs & SPADES & below(SQ)
        if low_pairs:
            return NUM_CARDS + min(cards_of(low_pairs))
        low = singles & SPADES & below(SQ)
        if low:
            return min(cards_of(low))
    # The pig into cages: every unseen spade beats it.
    if singles & SQ_BIT and unseen & SPADES and not unseen & SPADES & ~PIG_CAGES:
        return SQ
    # Our sheep home: no unseen diamond beats it.
    if singles & DJ_BIT and not unseen & above(DJ) and not ov >> 1 & 1:
        return DJ
    # Catch a sheep with a master cage.
    if unseen & DJ_BIT and (unseen & DIAMONDS).bit_count() <= 5 and not ov >> 1 & 1:
        cages = singles & SHEEP_CAGES
        if cages:
            top = cages.bit_length() - 1
            if not unseen & above(top):
                return top
    best_a, best_v = -1, 1e18
    for c in cards_of(pairs):
        v = _lead_pair(s, c, ov)
        if v < best_v:
            best_a, best_v = NUM_CARDS + c, v
    for suit in range(4):
        cards = singles & SUIT_MASKS[suit]
        if not cards:
            continue
        c = (cards & -cards).bit_length() - 1
        if c in (SQ, DJ) and cards != 1 << c:
            rest = cards & ~(1 << c)
            c = (rest & -rest).bit_length() - 1
        v = _lead_single(s, c, ov)
        if v < best_v:
            best_a, best_v = c, v
    return best_a


def expert_play_two_decks(s: Situation) -> int:
    """Choose the expert's action for a two-deck play decision (see the module docstring)."""
    legal = s.legal
    if legal & (legal - 1) == 0:
        return legal.bit_length() - 1
    if not s.trick:
        return _lead(s)
    return _follow(s)


def expert_action_two_decks(game: GameState) -> int:
    """Return the expert's action for the seat to move in a two-deck ``game``.

    The two-deck counterpart of ``agents.expert.expert_action``, for the search's player model
    (a play read from ``Situation.from_game``; a declaration, rare, from the seat's view).
    """
    if game.phase == "declare":
        return expert_declare_two_decks(PlayerView.from_game(game, game.current_player))
    return expert_play_two_decks(Situation.from_game(game))


class TwoDeckExpertAgent(RuleAgent):
    """``expert`` at a two-deck table (``agents.factory`` picks it from the rules)."""

    name = "expert"
    decks = 2
    declare_rule = staticmethod(expert_declare_two_decks)
    play_rule = staticmethod(expert_play_two_decks)
