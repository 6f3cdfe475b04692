"""``expert``: a card-counting rule player built from the standard Gong Zhu heuristics.

It remembers nothing between calls: everything it counts is re-read from the view (cards played,
voids shown, exposures, what each seat has taken), so it is stateless and fast (tens of
microseconds a decision). It plays for its own score *relative to the table* (its score minus the
others' average), which is what a duplicate arena and a zero-sum room measure: handing the sheep
to an opponent costs it, handing an opponent the pig earns it.

Declaration (亮牌), by hand shape:

* SQ when its spades are long (5+) and caged (it holds SK or SA), or it holds both cages with
  4+ spades: it can keep the pig until someone else must take it, so doubling it hurts others.
* DJ when it holds a sheep cage (DA/DK/DQ) and 3+ diamonds: it can take the sheep back.
* HA only when it is its only heart and it has a void to shed it on.
* C10 only with a strong hand for it: 5+ clubs, 3 of them below the 10 (it can duck clubs
  tricks and shed the transformer) and no heart above H9; never with a weak hand, where a
  doubled transformer punishes its holder.

Leading:

* **Flush the pig (拱猪):** with the pig still out and neither the pig nor a cage (SK/SA) in hand,
  it leads its lowest spade, so the pig's holder runs out of cover.
* **The pig into cages:** holding SQ when every unseen spade is SK or SA, it leads the pig:
  whoever covers it takes it.
* **Its own sheep home:** holding DJ when no unseen diamond beats it, it leads it.
* **Catch the sheep (牵羊):** with DJ unseen and few diamonds left out, it leads a diamond cage
  that no unseen diamond beats (unless someone void in diamonds could drop points on it).
* Otherwise the lowest card of the suit where the most unseen cards outrank it, shortest suits
  first, avoiding spades while it holds the pig, cages while the pig is out and the sheep; low
  heart leads are welcome (they bleed hearts early, while others still have to follow).

Following suit:

* Last to play, it knows the outcome of every card and picks the one with the best score change
  (engine scoring of the trick's cards) plus the worth of what it keeps: a high heart is a
  burden in proportion to the unseen hearts below it, a sheep cage an asset while the sheep is
  still to be won; ties shed the highest card.
* Earlier: it ducks under the card heading the trick with its highest losing card; in spades it
  protects its own pig (dumps it under SK/SA, else keeps it behind a lower spade) and, while the
  pig may still fall, ducks under it (plays its highest spade below SQ); in diamonds it ducks
  below DJ to keep its sheep cages while the sheep is out; it never plays C10 or DJ
  into a trick it might lose or win badly; when it cannot duck it plays high if the trick is
  surely its own and low otherwise, hoping to be overtaken.

Discarding (void): the pig first, then the transformer onto a trick with negative points, then
its costliest hearts (unless that feeds an opponent who has every heart so far), then pig cages
while the pig is out, then high cards of short suits; never the sheep unless forced.

Two decks: at a two-deck table it plays the pair-aware rules of ``agents.expert_two_decks``.

All hearts / slam: it defends (takes a heart to break an opponent who has every heart so far)
and goes for it when it already holds every heart taken so far, has taken many of them and
commands the remaining ones.

Table sizes (3 to 8 seats, ``rules.players``). The heuristics were tuned at four seats and
read the same everywhere else, with these generalisations (judgement calls, not measured):

* "last to play" means every other seat has already played to the trick (``n - 1`` cards on
  the table), and "seats still to play" are the next ``n - 1 - len(trick)`` seats in turn;
* an opponent's gain costs it ``1 / (n - 1)`` of that gain (the zero-sum settlement at ``n``
  seats pays each seat its score minus the others' mean); with teams of two at six or eight
  seats an opposing team's gain costs ``1 / (teams - 1)`` of it (own team minus the mean of
  the others);
* the suit-length thresholds of the declaration (5 spades, 3 diamonds, 5 clubs with 3 below
  the ten, 4 spades with both cages) scale with the hand: ``length * hand_size / 13``,
  rounded, at least 1 (a 13-card hand is the reference: 5 of 17 cards is barely long, 3 of
  8 is long);
* "an early round of a suit" lasts while at most ``n`` cards of it are out (one round at
  four seats);
* unseen cards are the cards still in play (``rules.deck_mask``), so the cards a smaller
  deck leaves out are never counted as possibly out.

At four seats every threshold and weight is the one above and every decision is unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents.base import RuleAgent
from agents.knowledge import (
    C10_BIT,
    CLUBS,
    DIAMONDS,
    DJ_BIT,
    HA_BIT,
    HEARTS,
    PIG_CAGES,
    SHEEP_CAGES,
    SPADES,
    SQ_BIT,
    Situation,
    above,
    below,
    highest,
    lowest,
    trick_lead,
)
from gongzhu_env.cards import (
    C10,
    DJ,
    DONE,
    FULL_DECK,
    HA,
    SCORING_MASK,
    SQ,
    SUIT_MASKS,
    cards_of,
)
from gongzhu_env.view import PlayerView

if TYPE_CHECKING:
    from gongzhu_env.state import GameState

TUNING: dict[str, float] = {
    "sq_expose_len": 5,  # spades needed (with a cage) to expose the pig
    "dj_cages": 1,  # sheep cages needed to expose the sheep
    "dj_len": 3,  # diamonds needed to expose the sheep
    "c10_expose": 1,  # expose the transformer with long, low clubs and no high hearts
    "early_high": 1,  # play high when forced to win an early, clean round of a suit
    "early_limit": 4,  # a round is "early" while at most this many cards of the suit are out
    "lead_lower": 3.0,  # lead cost per unseen card below the lead (it could duck under us)
    "lead_short": 0.5,  # lead cost per card held in the suit (short suits first, to get void)
    "lead_heart": 1.0,  # lead cost per heart rank
    "lead_void": 15.0,  # lead cost of a suit an opponent is void in
    "flush_with_cage": 0,  # flush the pig even while holding SK/SA
    "break_bonus": 60.0,  # worth of stopping an opponent's all-hearts run, scaled by its length
    "shoot_min": 7,  # hearts we must have taken (all of those taken so far) to go for them all
    "win_penalty": 0.0,  # cost of winning a trick as last player (we must lead the next one)
    "heart_liab": 1.0,  # burden of keeping a heart: its value times the share of hearts below it
    "cage_liab": 0.0,  # burden of keeping SK/SA while someone else may hold the pig
    "dcage_asset": 25.0,  # worth of keeping a sheep cage while the sheep is still to be won
    "lead_heart_flat": -15.0,  # flat lead cost of any heart lead (negative: they pay off)
    "keep_dcages": 1,  # duck in diamonds with cards below DJ while the sheep is still out
    "sheep_out_max": 5,  # lead a master cage for the sheep only with at most this many out
    "pig_into_cages": 1,  # lead our pig when every unseen spade is a cage that must cover it
    "sheep_master_lead": 1,  # lead our own sheep when no unseen diamond beats it
}
"""Weights of the heuristics, measured against ``greedy`` and earlier versions of this agent."""


def _rank(c: int) -> int:
    return c % 13


# ---------------------------------------------------------------------- declaration
def suit_length(length: float, hand_size: int = 13) -> float:
    """Scale a suit-length threshold tuned for 13-card hands to hands of ``hand_size`` cards.

    Rounded to a whole card and at least one; 13 cards leave it as it is.
    """
    if hand_size == 13:
        return length
    return max(1, round(length * hand_size / 13))


def expert_declare(hand: int, legal: int, hand_size: int = 13) -> int:
    """Exposure decision for one declaration step: a card to expose, or DONE.

    ``hand_size`` is the number of cards dealt to each seat (``rules.hand_size``); the suit
    lengths the rules ask for scale with it (``suit_length``).
    """
    spades = (hand & SPADES).bit_count()
    diamonds = (hand & DIAMONDS).bit_count()
    if legal & SQ_BIT:
        cages = hand & PIG_CAGES
        if (cages and spades >= suit_length(TUNING["sq_expose_len"], hand_size)) \
                or (cages == PIG_CAGES and spades >= suit_length(4, hand_size)):
            return SQ
    if legal & DJ_BIT and (hand & SHEEP_CAGES).bit_count() >= TUNING["dj_cages"] \
            and diamonds >= suit_length(TUNING["dj_len"], hand_size):
        return DJ
    if TUNING["c10_expose"] and legal & C10_BIT:
        clubs = hand & CLUBS
        # Strong: long clubs with the transformer low among them and no big hearts to take.
        if clubs.bit_count() >= suit_length(5, hand_size) \
                and (clubs & below(C10)).bit_count() >= suit_length(3, hand_size) \
                and not hand & HEARTS & above(HA - 5):
            return C10
    if legal & HA_BIT and (hand & HEARTS) == HA_BIT:
        if any(not hand & SUIT_MASKS[s] for s in (0, 1, 3)):
            return HA
    if not legal >> DONE & 1:  # a forced-declaration table demands an exposure first
        return lowest(legal)
    return DONE


# ---------------------------------------------------------------------- helpers
def _outcome_value(s: Situation, winner: int, cards: int) -> float:
    """Relative value for the seat to move of ``winner`` taking ``cards``.

    Alone, its own gain counts fully and another seat's against it by ``1 / (n - 1)`` (a
    third at four seats: the zero-sum settlement); in team play, its team's gains count for it
    and another team's against it (divided by the number of other teams, one at four seats).
    """
    pts = cards & SCORING_MASK
    if not pts:
        return 0.0
    gain = s.score_if_taken(winner, pts)
    if winner == s.seat:
        v = float(gain)
        owner = s.hearts_all_with()
        if owner >= 0 and owner != s.seat and pts & HEARTS:
            v += TUNING["break_bonus"] * (s.captured[owner] & HEARTS).bit_count() / 13
        return v
    n = s.seats
    if s.partners:
        # Team play: a partner's gain is ours, an opponent's is the team's loss.
        if winner in s.partners:
            return float(gain)
        if n == 4:
            return -float(gain)
        return -float(gain) / (n // 2 - 1)  # fixed pairs: n / 2 teams
    return -gain / 3.0 if n == 4 else -gain / (n - 1)


def _shooting(s: Situation) -> bool:
    """Whether to go for all hearts: every heart taken is ours, many of them, and we command."""
    mine = s.captured[s.seat] & HEARTS
    if mine.bit_count() < TUNING["shoot_min"] or s.hearts_all_with() != s.seat:
        return False
    out = s.unseen & HEARTS
    held = s.hand & HEARTS
    # Every unseen heart must be beaten by one of ours.
    return not out or (held != 0 and highest(held) > highest(out))


def _can_be_overtaken(s: Situation, best: int) -> bool:
    """Whether a later seat may still hold a card of the led suit above ``best``."""
    suit = best // 13
    higher = s.unseen & above(best)
    if not higher:
        return False
    return any(not s.voids[p] >> suit & 1 for p in s.seats_after())


def _later_void(s: Situation, suit: int) -> bool:
    return any(s.voids[p] >> suit & 1 for p in s.seats_after())


# ---------------------------------------------------------------------- following
def _keep_cost(s: Situation, c: int) -> float:
    """Estimated burden (positive) or worth (negative) of still holding ``c`` later on."""
    b = 1 << c
    if b & HEARTS:
        out = s.unseen & HEARTS
        if not out:
            return 0.0
        share = (out & below(c)).bit_count() / out.bit_count()
        return TUNING["heart_liab"] * share * -s.score_if_taken(s.seat, b) \
            if not s.captured[s.seat] & C10_BIT else 0.0
    if b & PIG_CAGES and s.unseen & SQ_BIT:
        return TUNING["cage_liab"]
    if b & SHEEP_CAGES and (s.unseen | s.hand) & DJ_BIT:
        return -TUNING["dcage_asset"]
    return 0.0


def _follow_last(s: Situation, follow: int, best_seat: int, best: int) -> int:
    pts = 0
    for c in s.trick:
        pts |= 1 << c
    choice, choice_v = -1, -1e9
    for c in cards_of(follow):
        wins = c > best
        v = _outcome_value(s, s.seat if wins else best_seat, pts | (1 << c))
        v += 0.01 * _rank(c)  # shed the highest card among equals
        if wins:
            v -= TUNING["win_penalty"]
        if c == SQ:
            v += 0.5  # a pig that leaves our hand for free is a pig we cannot take later
        v += _keep_cost(s, c)
        if v > choice_v:
            choice, choice_v = c, v
    return choice


def _follow(s: Situation, follow: int) -> int:
    trick = s.trick
    pos, best = trick_lead(trick)
    best_seat = (s.leader + pos) % s.seats
    if len(trick) == s.seats - 1:
        return _follow_last(s, follow, best_seat, best)
    suit = best // 13
    lose = follow & ((1 << best) - 1)
    pts = 0
    for c in trick:
        pts |= 1 << c
    pts &= SCORING_MASK

    if suit == 3:  # spades: the pig's suit
        if follow & SQ_BIT:
            if best > SQ:
                return SQ
            rest = follow & ~SQ_BIT
            if not rest:
                return SQ
            low = rest & below(SQ)
            if lose & ~SQ_BIT:
                return highest(lose & ~SQ_BIT)
            return highest(low) if low else lowest(rest)
        if (s.unseen | _trick_mask(s)) & SQ_BIT and not best > SQ:
            if lose:
                return highest(lose)
            low = follow & below(SQ)
            if low:
                if _later_void(s, 3) and s.unseen & SQ_BIT:
                    return lowest(low)
                return highest(low)
            # Only cages: the lower one may still be overtaken.
            return lowest(follow)
    if suit == 1:  # diamonds: the sheep's suit
        if follow & DJ_BIT and follow != DJ_BIT:
            rest = follow & ~DJ_BIT
            if best < DJ and not (s.unseen & above(DJ)):
                return DJ  # the sheep is master: it takes its own trick
            if lose & ~DJ_BIT:
                return highest(lose & ~DJ_BIT)
            return lowest(rest)
        if TUNING["keep_dcages"] and (s.unseen | s.hand) & DJ_BIT and lose & below(DJ) \
                and lose & SHEEP_CAGES:
            return highest(lose & below(DJ))
        if s.unseen & DJ_BIT or DJ in trick:
            top = highest(follow)
            if top > best and top > DJ and not (s.unseen & above(top)):
                if _outcome_value(s, s.seat, pts) >= 0 and not _later_void(s, 1):
                    return top  # a master cage may catch the sheep
    if suit == 0 and follow & C10_BIT and follow != C10_BIT:
        rest = follow & ~C10_BIT
        if best > C10 and _outcome_value(s, best_seat, pts | C10_BIT) >= -17:
            return C10  # shed the transformer under a winner that gains little
        if lose & ~C10_BIT:
            return highest(lose & ~C10_BIT)
        return lowest(rest)
    if suit == 2 and _shooting(s):
        return highest(follow)
    if lose:
        return highest(lose)
    # Every card wins for now.
    if not _can_be_overtaken(s, lowest(follow)) and not _later_void(s, suit):
        safe = follow & ~(SQ_BIT | C10_BIT | DJ_BIT)
        return highest(safe or follow)
    if TUNING["early_high"] and not pts and not _later_void(s, suit) and suit != 2:
        # One round of the suit at four seats; a round is ``n`` cards at ``n`` seats.
        limit = TUNING["early_limit"] if s.seats == 4 else TUNING["early_limit"] * s.seats / 4
        early = (s.played & SUIT_MASKS[suit]).bit_count() <= limit
        if early:
            safe = follow & ~(SQ_BIT | C10_BIT | DJ_BIT)
            if suit == 3 and s.unseen & SQ_BIT:
                safe &= ~PIG_CAGES
            if safe:
                return highest(safe)
    return lowest(follow)


def _others_voids(s: Situation) -> int:
    """Suits (bit per suit) that at least one other seat has shown to be out of."""
    v = s.voids
    me = s.seat
    if s.seats == 4:
        return (v[0] if me else 0) | (v[1] if me != 1 else 0) | (v[2] if me != 2 else 0) \
            | (v[3] if me != 3 else 0)
    out = 0
    for seat, m in enumerate(v):
        if seat != me:
            out |= m
    return out


def _trick_mask(s: Situation) -> int:
    m = 0
    for c in s.trick:
        m |= 1 << c
    return m


# ---------------------------------------------------------------------- discarding
def _discard(s: Situation, legal: int) -> int:
    trick = s.trick
    pos, best = trick_lead(trick)
    winner = (s.leader + pos) % s.seats
    pts = _trick_mask(s) & SCORING_MASK
    owner = s.hearts_all_with()
    feeding_run = owner >= 0 and owner != s.seat and owner == winner and \
        (s.captured[owner] & HEARTS).bit_count() >= 5
    pig_out = bool(s.unseen & SQ_BIT)
    best_c, best_v = -1, -1e9
    if winner in s.partners:
        # The trick is heading to a partner: feed it what helps the team, shed high cards.
        for c in cards_of(legal):
            b = 1 << c
            v = s.score_if_taken(winner, pts | b) - s.score_if_taken(winner, pts) \
                + 0.1 * _rank(c)
            if v > best_v:
                best_c, best_v = c, v
        return best_c
    for c in cards_of(legal):
        b = 1 << c
        suit = c // 13
        if c == SQ:
            v = 1000.0
        elif c == DJ:
            v = -1000.0
        elif c == C10:
            gain = s.score_if_taken(winner, pts | C10_BIT) - s.score_if_taken(winner, pts)
            v = 300.0 if gain < 0 else (20.0 if gain <= 50 else -500.0)
        elif suit == 2:
            v = 100.0 + 10 * _rank(c) if _rank(c) >= 3 else 5.0 + _rank(c)
            if feeding_run:
                v = -200.0 + _rank(c)
        elif b & PIG_CAGES and pig_out and not s.hand & SQ_BIT:
            v = 90.0 + _rank(c)
        elif b & SHEEP_CAGES and s.unseen & DJ_BIT:
            v = _rank(c) - 5.0  # keep sheep cages to catch DJ
        else:
            length = (s.hand & SUIT_MASKS[suit]).bit_count()
            v = 3.0 * _rank(c) - 2.0 * length
        if v > best_v:
            best_c, best_v = c, v
    return best_c


# ---------------------------------------------------------------------- leading
def _lead(s: Situation, legal: int) -> int:
    hand = s.hand
    unseen = s.unseen
    if _shooting(s) and legal & HEARTS:
        return highest(legal & HEARTS)
    pig_out = bool(unseen & SQ_BIT)
    ov = _others_voids(s)
    others_void = [bool(ov >> suit & 1) for suit in range(4)]
    # Flush the pig.
    if pig_out and not hand & SQ_BIT and (TUNING["flush_with_cage"] or not hand & PIG_CAGES):
        low = legal & SPADES & below(SQ)
        if low:
            return lowest(low)
    # The pig into cages: every spade still out beats it, so whoever covers it takes it.
    if TUNING["pig_into_cages"] and legal & SQ_BIT and unseen & SPADES \
            and not unseen & SPADES & below(SQ):
        return SQ
    # Our own sheep as the master diamond takes itself home.
    if TUNING["sheep_master_lead"] and legal & DJ_BIT and not unseen & above(DJ) \
            and not others_void[1]:
        return DJ
    # Catch the sheep with a master cage.
    if unseen & DJ_BIT and (unseen & DIAMONDS).bit_count() <= TUNING["sheep_out_max"]:
        cages = legal & SHEEP_CAGES
        if cages:
            top = highest(cages)
            if not unseen & above(top) and not others_void[1]:
                return top
    best_c, best_v = -1, 1e9
    for suit in range(4):
        cards = legal & SUIT_MASKS[suit]
        if not cards:
            continue
        c = lowest(cards)
        if c == SQ or c == DJ:
            rest = cards & ~(1 << c)
            if rest:
                c = lowest(rest)
        higher = (unseen & above(c)).bit_count()
        lower = (unseen & below(c)).bit_count()
        v = TUNING["lead_lower"] * lower - higher
        if higher == 0:
            v += 100.0  # we would win it for sure
        if others_void[suit]:
            v += TUNING["lead_void"]
        if suit == 3:
            if hand & SQ_BIT:
                v += 60.0
            if (1 << c) & PIG_CAGES and pig_out:
                v += 80.0
        if suit == 2:
            v += TUNING["lead_heart"] * _rank(c) + TUNING["lead_heart_flat"]
        if suit == 1 and c == DJ:
            v += 200.0
        if suit == 0 and hand & C10_BIT and c > C10:
            v += 20.0
        v += TUNING["lead_short"] * (hand & SUIT_MASKS[suit]).bit_count()
        if v < best_v:
            best_c, best_v = c, v
    return best_c


def expert_play(s: Situation) -> int:
    """Choose the expert's card for a play-phase decision (see the module docstring)."""
    legal = s.legal & FULL_DECK
    if legal & (legal - 1) == 0:
        return highest(legal)
    if not s.trick:
        return _lead(s, legal)
    follow = legal & SUIT_MASKS[s.trick[0] // 13]
    if follow:
        return _follow(s, follow)
    return _discard(s, legal)


def expert_action(game: GameState) -> int:
    """Return the expert's action for the seat to move in a one-deck ``game`` (no view built).

    What ``ExpertAgent.act`` plays from that seat's view, for search code that asks the expert
    about many positions of sampled worlds (``agents.search``'s player model).
    """
    seat = game.current_player
    if game.phase == "declare":
        return expert_declare(game.hand_masks[seat], game.legal_mask(), game.rules.hand_size)
    return expert_play(Situation.from_game(game))


def expert_declare_view(view: PlayerView) -> int:
    """Expose by hand shape: ``expert_declare`` of the view's hand and legal actions."""
    return expert_declare(view.hand_mask, view.legal_mask, view.rules.hand_size)


class ExpertAgent(RuleAgent):
    """Card-counting heuristic player; deterministic (the seed is accepted for uniformity)."""

    name = "expert"
    decks = 1
    declare_rule = staticmethod(expert_declare_view)
    play_rule = staticmethod(expert_play)
