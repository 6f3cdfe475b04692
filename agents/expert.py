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

Two decks (RULES.md 6.11). Every card set is read copy by copy (``agents.knowledge``), so
the code above counts copies at any table, and one module plays both deck counts. The
weights are tuned per deck count: ``TUNING`` for one deck, ``TUNING2`` for two (``PROFILES``
holds both, keyed by the copies of each card, and nothing else in the module asks the deck
count). What the two-deck weights change:

* Declaration, copy by copy (each exposed copy doubles its card for whoever takes it): a copy
  of SQ only with one SQ in hand (never with both pigs) and long, caged spades (9 copies of
  spades, two of SK/SA); a DJ with 8 diamonds and three sheep cages; never C10 or HA.
* Leading: the same ladder, without going for all hearts, counting only opponents' voids and
  costing a lone SQ or C10 lead. The pair leads the legal mask offers (none at one deck) are
  weighed with the singles: a pair of clubs, hearts or spades ranks below any two unpaired
  cards, so it almost always loses while many copies of the suit are out (a safe lead, and
  with low spades a flush that makes every follower give up two); a diamond pair ranks above
  them and is led only when no higher pair can be unseen and a sheep may fall to it; pairs of
  the scoring cards, and of the pig cages while a pig is out, are kept.
* Following (a single card, or a two-card play to a pair lead): the weights choose the other
  of the two following rules, ``_follow_by_value``: every play it may make is valued by who
  would take the trick (the engine's comparison of plays: ``play_key``) and what that is worth
  to it, plus the worth of what it sheds (pigs and high hearts are burdens, sheep and sheep
  cages assets); before the last seat it also weighs what later seats may add (a void seat
  dumps points, a heart trick collects hearts) and whether a winning play may be overtaken.
  After a pair lead it values whole two-card plays and plays the first card of the best one,
  then completes it from the engine's mask. The one-deck rule (``_follow_by_rules``, above)
  and this one were tuned apart, each at its own deck count; both are kept so that play at
  either deck count is what it was.
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
    candidate_plays,
    first_card,
    highest,
    lowest,
    play_key,
    trick_lead,
)
from gongzhu_env.cards import (
    C10,
    DJ,
    DONE,
    FULL_DECK,
    HA,
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
    from gongzhu_env.rules import Rules
    from gongzhu_env.state import GameState

TUNING: dict[str, float] = {
    "sq_expose_len": 5,  # spades needed (with sq_cages cage copies) to expose the pig
    "sq_cages": 1,  # copies of SK/SA needed with sq_expose_len spades
    "sq_both_len": 4,  # spades needed with two copies of SK/SA
    "dj_cages": 1,  # sheep cages needed to expose the sheep
    "dj_len": 3,  # diamonds needed to expose the sheep
    "c10_expose": 1,  # expose the transformer with long, low clubs and no high hearts
    "ha_expose": 1,  # expose HA when it is the only heart and a void can shed it
    "hand_ref": 13,  # the hand size the suit lengths above are counted in
    "early_high": 1,  # play high when forced to win an early, clean round of a suit
    "early_limit": 4,  # a round is "early" while at most this many cards of the suit are out
    "lead_lower": 3.0,  # lead cost per unseen card below the lead (it could duck under us)
    "lead_short": 0.5,  # lead cost per card held in the suit (short suits first, to get void)
    "lead_heart": 1.0,  # lead cost per heart rank
    "lead_void": 15.0,  # lead cost of a suit an opponent is void in
    "void_partners": 1,  # a partner's void costs a lead too (else only opponents' voids)
    "sure_win": 100.0,  # lead cost of a card that surely wins the trick
    "pig_suit": 60.0,  # lead cost of a spade while holding the pig
    "cage_lead": 80.0,  # lead cost of a pig cage while the pig is out
    "lead_sheep": 200.0,  # lead cost of the sheep as a suit's lowest card
    "lead_over_c10": 20.0,  # lead cost of a club above the transformer held
    "lead_pig": 0.0,  # extra lead cost of the pig itself
    "lead_c10": 0.0,  # extra lead cost of the transformer itself
    "flush_with_cage": 0,  # flush the pig even while holding SK/SA
    "shoot": 1,  # go for all hearts at all (``shoot_min``)
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
    "follow_by_value": 0,  # follow by the ladder of special cases (0) or by value (1)
}
"""Weights of the heuristics at one deck, measured against ``greedy`` and earlier versions of
this agent."""

TUNING2: dict[str, float] = {
    "sq_expose_len": 9,  # spades (copies) needed, with two cage copies, to expose one pig
    "sq_cages": 2,
    "sq_both_len": 9,
    "dj_cages": 3,  # sheep cage copies needed to expose a sheep
    "dj_len": 8,  # diamonds needed, with three sheep cage copies, to expose a sheep
    "c10_expose": 0,  # a doubled transformer punishes most the weak hand: never
    "ha_expose": 0,  # nor doubled hearts
    "hand_ref": 26,
    "lead_lower": 3.0,  # lead cost per unseen copy below the lead (someone can duck it)
    "lead_short": 0.5,  # lead cost per card held in the suit
    "lead_void": 15.0,  # lead cost of a suit an opponent is void in
    "void_partners": 0,
    "lead_heart": 1.0,  # lead cost per heart rank
    "lead_heart_flat": -15.0,  # flat lead cost of a heart lead (they pay off early)
    "sure_win": 100.0,  # cost of a lead that surely wins the trick
    "pig_suit": 60.0,  # cost of leading spades while holding a pig
    "cage_lead": 80.0,  # cost of leading a pig cage while a pig is out
    "lead_sheep": 200.0,
    "lead_over_c10": 20.0,
    "lead_pig": 300.0,  # extra cost of leading a pig alone
    "lead_c10": 100.0,  # extra cost of leading a transformer alone
    "flush_with_cage": 0,
    "shoot": 0,  # it never goes for all 26 hearts
    "sheep_out_max": 5,
    "pig_into_cages": 1,
    "sheep_master_lead": 1,
    "pair_safe": -12.0,  # cost of a pair lead in C/H/S that many copies of the suit will beat
    "pair_heart": -0.3,  # cost per point of the hearts a losing pair lead hands over
    "follow_by_value": 1,
    # The weights of ``_follow_by_value``:
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
"""Weights at two decks, measured against ``greedy`` on two-deck duplicate deals. The keys
shared with ``TUNING`` are read by the same code; the ones after ``follow_by_value`` only by
the value follow and the pair leads."""

PROFILES: dict[int, dict[str, float]] = {1: TUNING, 2: TUNING2}
"""The weights of a table, by the copies of each card it deals (``rules.decks``)."""


def tuning_of(rules: Rules) -> dict[str, float]:
    """Return the weights the expert plays with at a table of ``rules`` (``PROFILES``)."""
    return PROFILES[rules.decks]


def _rank(c: int) -> int:
    return c % 13


# ---------------------------------------------------------------------- declaration
def suit_length(length: float, hand_size: int = 13, reference: float = 13) -> float:
    """Scale a suit-length threshold tuned for hands of ``reference`` cards to ``hand_size``.

    Rounded to a whole card and at least one; a hand of the reference size leaves it as it is.
    """
    if hand_size == reference:
        return length
    return max(1, round(length * hand_size / reference))


def expert_declare(hand: int, legal: int, hand_size: int = 13, *, hand2: int = 0,
                   exposed: int = 0, done: int = DONE,
                   tuning: dict[str, float] | None = None) -> int:
    """Exposure decision for one declaration step: a card (copy) to expose, or ``done``.

    ``hand_size`` is the number of cards dealt to each seat (``rules.hand_size``); the suit
    lengths the rules ask for scale with it (``suit_length``). ``hand2`` holds the cards held
    twice and ``exposed`` the copies this seat has already exposed (both empty with one deck),
    so every count is a count of copies; ``tuning`` is the table's weights (``tuning_of``,
    one deck's by default) and ``done`` its DONE action.
    """
    t = TUNING if tuning is None else tuning
    ref = t["hand_ref"]

    def copies(mask: int) -> int:
        return ms_size(hand & mask, hand2 & mask)

    # Never a pig held twice, nor a second copy: the other pig would double against itself.
    if legal & SQ_BIT and not (hand2 | exposed) & SQ_BIT:
        spades, cages = copies(SPADES), copies(PIG_CAGES)
        if (cages >= t["sq_cages"] and spades >= suit_length(t["sq_expose_len"], hand_size, ref)) \
                or (cages >= 2 and spades >= suit_length(t["sq_both_len"], hand_size, ref)):
            return SQ
    if legal & DJ_BIT and copies(SHEEP_CAGES) >= t["dj_cages"] \
            and copies(DIAMONDS) >= suit_length(t["dj_len"], hand_size, ref):
        return DJ
    if t["c10_expose"] and legal & C10_BIT:
        # Strong: long clubs with the transformer low among them and no big hearts to take.
        if copies(CLUBS) >= suit_length(5, hand_size, ref) \
                and copies(CLUBS & below(C10)) >= suit_length(3, hand_size, ref) \
                and not hand & HEARTS & above(HA - 5):
            return C10
    if t["ha_expose"] and legal & HA_BIT and (hand & HEARTS) == HA_BIT:
        if any(not hand & SUIT_MASKS[s] for s in (0, 1, 3)):
            return HA
    if not legal >> done & 1:  # a forced-declaration table demands an exposure first
        return lowest(legal)
    return done


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


def _follow_by_rules(s: Situation, follow: int) -> int:
    """Follow suit by the one-deck ladder of special cases (see the module docstring)."""
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


def _others_voids(s: Situation, partners_too: bool = True) -> int:
    """Suits (bit per suit) that another seat has shown to be out of.

    ``partners_too=False`` counts only opponents (a partner's void helps a lead, it does not
    spoil it; the two-deck weights read it that way, ``void_partners``).
    """
    v = s.voids
    me = s.seat
    if partners_too and s.seats == 4:
        return (v[0] if me else 0) | (v[1] if me != 1 else 0) | (v[2] if me != 2 else 0) \
            | (v[3] if me != 3 else 0)
    out = 0
    for seat, m in enumerate(v):
        if seat != me and (partners_too or seat not in s.partners):
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


# ---------------------------------------------------------------------- following by value
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


def _follow_by_value(s: Situation) -> int:
    """Follow by valuing every play it may make (see the module docstring; ``TUNING2``)."""
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
def _lead_cost(s: Situation, c: int, ov: int, pig_out: bool, t: dict[str, float]) -> float:
    """Cost of leading the single card ``c``, the lowest worth leading of its suit."""
    suit = c // 13
    unseen, unseen2 = s.unseen, s.unseen2
    up, down = above(c), below(c)
    higher = (unseen & up).bit_count() + (unseen2 & up).bit_count()  # copies, as ms_size
    lower = (unseen & down).bit_count() + (unseen2 & down).bit_count()
    v = t["lead_lower"] * lower - higher
    if higher == 0:
        v += t["sure_win"]  # we would win it for sure
    if ov >> suit & 1:
        v += t["lead_void"]
    if suit == 3:
        if s.hand & SQ_BIT:
            v += t["pig_suit"]
        if (1 << c) & PIG_CAGES and pig_out:
            v += t["cage_lead"]
    elif suit == 2:
        v += t["lead_heart"] * _rank(c) + t["lead_heart_flat"]
    elif suit == 1 and c == DJ:
        v += t["lead_sheep"]
    elif suit == 0 and s.hand & C10_BIT and c > C10:
        v += t["lead_over_c10"]
    if c == SQ:
        v += t["lead_pig"]
    if c == C10:
        v += t["lead_c10"]
    in_suit = SUIT_MASKS[suit]
    held = (s.hand & in_suit).bit_count() + (s.hand2 & in_suit).bit_count()
    return v + t["lead_short"] * held


def _lead_pair(s: Situation, c: int, ov: int, t: dict[str, float]) -> float:
    """Cost of leading the pair of ``c`` (pair leads exist only where a card has two copies)."""
    suit = c // 13
    b = 1 << c
    out = ms_size(s.unseen & SUIT_MASKS[suit], s.unseen2 & SUIT_MASKS[suit])
    if b & (SQ_BIT | DJ_BIT | C10_BIT):
        return 1e6
    v = 0.0
    if ov >> suit & 1:
        v += t["lead_void"]
    if suit == 1:
        if s.unseen2 & above(c):
            return 1e6 if not s.unseen2 & DIAMONDS & ~above(c) else 150.0
        # A sure win: worth it to catch a sheep that has little room to hide.
        v += t["sure_win"]
        if s.unseen & DJ_BIT and out <= 8 and not ov >> 1 & 1:
            v -= 130.0
        return v
    if b & PIG_CAGES and _pig_out(s):
        return 1e6
    if out <= 3:
        v += t["sure_win"]  # few copies out: the pair may well win
    v += t["pair_safe"]
    if suit == 3:
        if s.hand & SQ_BIT:
            v += t["pig_suit"]
        elif _pig_out(s) and c < SQ:
            v -= 40.0  # the flush: every follower gives up two spades
    if suit == 2:
        v += t["pair_heart"] * -2 * s.score_if_taken(s.seat, b) \
            + t["lead_heart_flat"]
    return v + 0.5 * _rank(c)


def _lead(s: Situation, t: dict[str, float]) -> int:
    """Choose a lead: the special leads in turn, else the cheapest single or pair."""
    legal = s.legal
    singles = legal & FULL_DECK
    pairs = legal >> NUM_CARDS & FULL_DECK  # the pair leads (none with one deck)
    hand, unseen = s.hand, s.unseen
    if t["shoot"] and _shooting(s) and singles & HEARTS:
        return highest(singles & HEARTS)
    pig_out = bool(unseen & SQ_BIT)
    ov = _others_voids(s, bool(t["void_partners"]))
    # Flush the pig, with a low pair of spades if it has one: every follower gives up two.
    if pig_out and not hand & SQ_BIT and (t["flush_with_cage"] or not hand & PIG_CAGES):
        low_pairs = pairs & SPADES & below(SQ)
        if low_pairs:
            return NUM_CARDS + lowest(low_pairs)
        low = singles & SPADES & below(SQ)
        if low:
            return lowest(low)
    # The pig into cages: every spade still out beats it, so whoever covers it takes it.
    if t["pig_into_cages"] and singles & SQ_BIT and unseen & SPADES \
            and not unseen & SPADES & ~PIG_CAGES:
        return SQ
    # Our own sheep as the master diamond takes itself home.
    if t["sheep_master_lead"] and singles & DJ_BIT and not unseen & above(DJ) \
            and not ov >> 1 & 1:
        return DJ
    # Catch the sheep with a master cage.
    if unseen & DJ_BIT and (unseen & DIAMONDS).bit_count() <= t["sheep_out_max"]:
        cages = singles & SHEEP_CAGES
        if cages:
            top = highest(cages)
            if not unseen & above(top) and not ov >> 1 & 1:
                return top
    best_a, best_v = -1, 1e18
    for c in cards_of(pairs) if pairs else ():
        v = _lead_pair(s, c, ov, t)
        if v < best_v:
            best_a, best_v = NUM_CARDS + c, v
    for suit in range(4):
        cards = singles & SUIT_MASKS[suit]
        if not cards:
            continue
        c = lowest(cards)
        if c in (SQ, DJ) and cards != 1 << c:
            c = lowest(cards & ~(1 << c))
        v = _lead_cost(s, c, ov, pig_out, t)
        if v < best_v:
            best_a, best_v = c, v
    return best_a


def expert_play(s: Situation) -> int:
    """Choose the expert's action for a play decision, at any table (module docstring)."""
    t = tuning_of(s.rules)
    legal = s.legal
    if legal & (legal - 1) == 0:
        return highest(legal)
    if not s.trick:
        return _lead(s, t)
    if t["follow_by_value"]:
        return _follow_by_value(s)
    follow = legal & SUIT_MASKS[s.trick[0] // 13]
    if follow:
        return _follow_by_rules(s, follow)
    return _discard(s, legal)


def expert_action(game: GameState) -> int:
    """Return the expert's action for the seat to move in ``game`` (no view built).

    What ``ExpertAgent.act`` plays from that seat's view, for search code that asks the expert
    about many positions of sampled worlds (``agents.search``'s player model).
    """
    seat = game.current_player
    rules = game.rules
    if game.phase == "declare":
        return expert_declare(game.hand_masks[seat], game.legal_mask(), rules.hand_size,
                              hand2=game.hand_pair_masks[seat], exposed=game.exposed_masks[seat],
                              done=rules.done_action, tuning=tuning_of(rules))
    return expert_play(Situation.from_game(game))


def expert_declare_view(view: PlayerView) -> int:
    """Expose by hand shape: ``expert_declare`` of the view's hand, copies and legal actions."""
    rules = view.rules
    return expert_declare(view.hand_mask, view.legal_mask, rules.hand_size,
                          hand2=view.hand_pair_mask, exposed=view.exposed_masks[view.seat],
                          done=rules.done_action, tuning=tuning_of(rules))


class ExpertAgent(RuleAgent):
    """Card-counting heuristic player at any table; deterministic (the seed is accepted).

    One class for both deck counts: the table's rules pick its weights (``tuning_of``).
    """

    name = "expert"
    declare_rule = staticmethod(expert_declare_view)
    play_rule = staticmethod(expert_play)
