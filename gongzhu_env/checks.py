"""Invariant checkers for whole hands, shared by the test suite and the long benchmark runs.

Like a test package shipped with a library, these let anyone check the engine (or a change to
it) against the facts of the rule book that a hand's public record lets one verify:
``play_checked`` plays seeded random legal actions and checks every observation and action mask
against the engine's legal set; ``check_hand`` checks a finished hand (each card played once,
suit following, the exposed-card restriction, trick winners, captures, scores, teams);
``check_rules`` does both for many hands of one rule set, and ``random_rules`` draws a valid
combination of options. ``check_matches`` plays whole matches (``gongzhu_env.match.Match``) and
checks, besides every hand, the match rules of section 5 worked out here on their own: the
totals, the hand that ends the match (``match_end``), who leads each later hand
(``next_leader``) and the result.

A failed check raises ``InvariantViolation`` (an ``AssertionError``) naming the broken fact;
every check is an explicit test, so ``python -O`` keeps them all. A two-deck hand (RULES.md
6.11) is checked copy by copy, from its record alone, against the pair rules of its tricks
(``_check_two_deck_hand``).

``python -m benchmarks.check_presets`` runs them over thousands of hands per preset.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from gongzhu_env.cards import (
    C2,
    C10,
    DJ,
    EXPOSABLE,
    HA,
    NUM_CARDS,
    SCORING_MASK,
    SQ,
    card_str,
    multiset_masks,
    parse_card,
)
from gongzhu_env.engine import Game
from gongzhu_env.match import DEFAULT_MAX_HANDS, Match
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import score_masks, score_two_decks
from gongzhu_env.view import PlayerView, obs_size

__all__ = ["InvariantViolation", "MatchesChecked", "check_hand", "check_match", "check_matches",
           "check_rules", "play_checked", "random_rules"]

class InvariantViolation(AssertionError):
    """A finished hand (or a step of one) breaks a fact of the rule book.

    An ``AssertionError`` so that code written for the checks' earlier ``assert`` form still
    catches it; raised explicitly, so ``python -O`` does not remove it.
    """


def require(ok: object, fact: str) -> None:
    """Raise ``InvariantViolation`` naming ``fact`` unless ``ok`` holds."""
    if not ok:
        raise InvariantViolation(fact)


_FORCED = {"all": set(EXPOSABLE), "all_but_sheep": {SQ, C10, HA}, "none": set()}


def random_rules(rng: np.random.Generator, decks: int | None = None,
                 players: int | None = 4) -> Rules:
    """Draw a random valid combination of options: each option at random, redrawn on a conflict.

    ``decks`` fixes the deck count (``decks=2``: a valid two-deck combination); ``None`` draws
    it with the rest. With ``decks=2`` ``auto_expose`` is left unset: two decks have no
    auto-exposure, so its only valid value is the unset default. ``players`` fixes the table
    size (four by default); ``None`` draws it too.
    """
    choices = Rules.choices()
    if decks is not None:
        choices["decks"] = (decks,)
    if players is not None:
        choices["players"] = (players,)
    while True:
        opts = {k: v[int(rng.integers(len(v)))] for k, v in choices.items()}
        if decks == 2:
            del opts["auto_expose"]
        try:
            return Rules(**opts)
        except ValueError:
            continue


def play_checked(game: Game, rng: np.random.Generator) -> None:
    """Play random legal actions, checking each observation and mask against the engine.

    It also holds ``Game.scores_settled`` to its promise: once it says the scores are settled
    it keeps saying so, and the provisional scores of that moment are the hand's final scores.
    """
    settled_at: list[int] | None = None
    while not game.is_over():
        if game.scores_settled():
            if settled_at is None:
                settled_at = game.provisional_scores()
        elif settled_at is not None:
            raise InvariantViolation("scores_settled() turned false again")
        legal = _check_observation(game, game.view(game.current_player), False)
        game.step(legal[int(rng.integers(len(legal)))])
    if not game.scores_settled():
        raise InvariantViolation("scores_settled() is false once the hand is over")
    if settled_at is not None and settled_at != game.scores():
        raise InvariantViolation(f"the scores settled at {settled_at} but ended {game.scores()}")


def _check_observation(game: Game, view: PlayerView, match: bool) -> list[int]:
    """Check the observation and mask of the seat to move; return its legal actions."""
    legal = game.legal_actions()
    if not legal:
        raise InvariantViolation("a seat to move has no legal action")
    size = obs_size(game.rules, match)
    n_actions = game.rules.num_actions
    obs, mask = view.observation()
    if obs.shape != (size,) or obs.min() < 0 or obs.max() > 1:
        raise InvariantViolation(f"bad observation shape {obs.shape} or range")
    if mask.shape != (n_actions,):
        raise InvariantViolation(f"action mask of shape {mask.shape}, expected ({n_actions},)")
    if list(np.flatnonzero(mask)) != legal:
        raise InvariantViolation("action mask differs from the legal actions")
    return legal


# ---------------------------------------------------------------------- two-deck hands
def _plays(cards: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Split a trick's cards into the four seats' plays (pairs when the lead was a pair)."""
    if len(cards) == 4:
        return [(c,) for c in cards]
    require(len(cards) == 8 and cards[0] == cards[1],
            f"a trick is four single cards or a pair lead; got {len(cards)} cards")
    return [cards[i:i + 2] for i in range(0, 8, 2)]


def _rank(play: tuple[int, ...], suit: int) -> tuple[int, int, int] | None:
    """How strong a play is in a trick led in ``suit``; ``None`` for a discard."""
    if any(c // 13 != suit for c in play):
        return None
    if len(play) == 1:
        return 0, play[0], 0
    paired = play[0] == play[1]
    # Diamonds: a pair beats two unpaired cards; elsewhere it loses to them.
    return int(paired if suit == 1 else not paired), max(play), min(play)


def _check_follow(hand: Counter[int], play: tuple[int, ...], led: int, pair_lead: bool) -> None:
    in_suit = [c for c in play if c // 13 == led]
    held = Counter({c: n for c, n in hand.items() if c // 13 == led and n})
    if not pair_lead:
        if held:
            require(in_suit, "a follower to a single lead follows suit if it can")
        return
    if any(n == 2 for n in held.values()):
        require(play[0] == play[1] and play[0] // 13 == led,
                "a follower holding a pair of the led suit plays a pair")
    elif sum(held.values()) >= 2:
        require(len(in_suit) == 2, "a follower with two cards of the led suit plays two of them")
    else:
        require(len(in_suit) == sum(held.values()),
                "a follower short of the led suit plays all it has of it")


def _exposed_used(play: tuple[int, ...], hand: Counter[int], exposed: Counter[int],
                  led: int) -> tuple[int, Counter[int]]:
    """How many exposed copies ``play`` uses in the led suit, and every exposed copy it uses.

    6.11: a card played in the led suit (or led) is its unexposed copy first, a discard its
    exposed copy first.
    """
    used: Counter[int] = Counter()
    in_suit = 0
    for c, n in Counter(play).items():
        if c // 13 == led:
            used[c] = max(0, n - (hand[c] - exposed[c]))
            in_suit += used[c]
        else:
            used[c] = min(n, exposed[c])
    return in_suit, used


def _follow_plays(hand: Counter[int], led: int) -> list[tuple[int, int]]:
    """Every two-card play the follow rule allows a follower to a pair lead (exposure aside)."""
    cards = sorted(hand.elements())
    plays = {(a, b) for i, a in enumerate(cards) for b in cards[i + 1:]}
    suit = {c: n for c, n in hand.items() if c // 13 == led and n}
    if any(n == 2 for n in suit.values()):
        return [p for p in plays if p[0] == p[1] and p[0] // 13 == led]
    need = min(2, sum(suit.values()))
    return [p for p in plays if sum(c // 13 == led for c in p) == need]


def _check_restriction(hand: Counter[int], exposed: Counter[int], play: tuple[int, ...],
                       led: int, leading: bool, pair_lead: bool, may_lead: bool) -> None:
    """On its suit's first round a play uses the fewest exposed copies an allowed play can.

    A lead is compared with every lead of its suit (a single card or a pair), a follow with
    every play the follow rule allows. So an exposed copy opens its suit only when every card
    of the suit held is exposed, and two exposed copies never open it as a pair (6.11).
    """
    uses, _ = _exposed_used(play, hand, exposed, led)
    if not uses or (leading and may_lead):
        return
    suit = [c for c in hand if c // 13 == led and hand[c]]
    options: Sequence[tuple[int, ...]]
    if leading:
        options = [(c,) for c in suit] + [(c, c) for c in suit if hand[c] == 2]
    elif pair_lead:
        options = _follow_plays(hand, led)
    else:
        options = [(c,) for c in suit]
    fewest = min(_exposed_used(p, hand, exposed, led)[0] for p in options)
    require(uses == fewest, f"on its suit's first round a {'lead' if leading else 'follow'} "
            f"uses the fewest exposed copies it can ({fewest}); this one uses {uses}")


def _check_two_deck_hand(g: Game) -> None:
    """Every invariant of a finished two-deck hand that the public record lets one verify.

    Read copy by copy (``Counter``s of cards): every copy is played once by the seat dealt it,
    the first leader is the lowest seat holding a C2 and leads one, leads and follows obey the
    pair rules and the per-copy exposure restriction (a play takes the unexposed copy first, a
    discard the exposed one, and on a suit's first round a play uses the fewest exposed copies
    the rules allow), the best play takes the trick, its taker takes its scoring cards and the
    scores are the two-deck scoring of what was taken. Raises ``InvariantViolation`` naming the
    first broken fact.
    """
    require(g.is_over() and g.legal_actions() == [], "the hand is over")
    deal = [Counter(h) for h in g.deal]
    require(all(sum(h.values()) == 26 for h in deal), "every seat is dealt 26 cards")
    require(sum(deal, Counter()) == Counter({c: 2 for c in range(NUM_CARDS)}),
            "every card is dealt twice")
    exposed = [Counter(e) for e in g.exposed]
    for seat in range(4):
        for c, n in exposed[seat].items():
            require(c in EXPOSABLE and n <= deal[seat][c],
                    f"a seat exposes only copies it holds (seat {seat}, {n} x card {c})")
    hands = [h.copy() for h in deal]
    # The exposed copies each seat still holds, for the per-copy restriction.
    held_exposed = [e.copy() for e in exposed]
    may_lead = g.rules.exposed_may_lead
    captured: list[Counter[int]] = [Counter() for _ in range(4)]
    tricks = g.tricks
    if not g.free_first_lead:
        require(g.first_leader == min(s for s in range(4) if deal[s][C2]),
                "the first leader is the lowest seat holding a C2")
        require(tricks[0].cards[0] == C2, "the first lead holds C2")
    require(tricks[0].leader == g.first_leader, "the first leader leads the first trick")
    first_pig = None
    suits_led: set[int] = set()
    for i, t in enumerate(tricks):
        plays = _plays(t.cards)
        pair_lead = len(plays[0]) == 2
        led = plays[0][0] // 13
        for k, play in enumerate(plays):
            seat = (t.leader + k) % 4
            hand = hands[seat]
            require(all(hand[c] >= play.count(c) for c in play),
                    f"a play comes from the hand (trick {i}, seat {seat})")
            if k:
                _check_follow(hand, play, led, pair_lead)
            if led not in suits_led:
                _check_restriction(hand, held_exposed[seat], play, led, k == 0, pair_lead,
                                   may_lead)
            held_exposed[seat].subtract(_exposed_used(play, hand, held_exposed[seat], led)[1])
            hand.subtract(play)
        suits_led.add(led)
        ranks = [_rank(p, led) for p in plays]
        best = max(r for r in ranks if r is not None)
        require(t.winner == (t.leader + ranks.index(best)) % 4,
                f"the best play (the earlier of equals) takes the trick (trick {i})")
        if i + 1 < len(tricks):
            require(tricks[i + 1].leader == t.winner, f"the winner leads next (trick {i + 1})")
        scoring = [c for c in t.cards if SCORING_MASK >> c & 1]
        captured[t.winner].update(scoring)
        if first_pig is None and SQ in scoring:
            first_pig = t.winner
    require(all(not +h for h in hands), "every card is played")
    for seat in range(4):
        require(Counter(g.captured[seat]) == captured[seat],
                f"the taker takes the scoring cards (seat {seat})")
    table = multiset_masks(c for e in g.exposed for c in e)
    expected = [score_two_decks(multiset_masks(captured[s].elements()), table) for s in range(4)]
    require(g.scores() == expected, f"scores are the two-deck scoring of what was taken: "
            f"expected {expected}, the hand says {g.scores()}")
    require(g.first_pig_taker == first_pig, "the first SQ's taker is recorded")
    require(g.teams == (((0, 2), (1, 3)) if g.rules.team_play else None),
            "the teams are the fixed partners with team play, none without")


# ---------------------------------------------------------------------- any hand
def check_hand(g: Game) -> None:
    """Every invariant of a finished hand that the public record lets one verify.

    Raises ``InvariantViolation`` naming the first broken fact.
    """
    rules = g.rules
    if rules.pair_leads:  # every copy twice and pair tricks: the checks above
        _check_two_deck_hand(g)
        return
    n = rules.players
    tricks = len(g.tricks)
    require(g.is_over() and g.legal_actions() == [], "the hand is over")
    require(tricks == NUM_CARDS // n, f"a hand of {n} seats has {NUM_CARDS // n} tricks; "
            f"this one has {tricks}")
    require(all(len(t.cards) == n for t in g.tricks), "every seat plays once to each trick")
    # RULES.md 6.14: the low cards D2, C2, S2, D3 leave the deck until it divides evenly.
    removed = {1: ["D2"], 2: ["D2", "C2"], 3: ["D2", "C2", "S2"],
               4: ["D2", "C2", "S2", "D3"]}.get(NUM_CARDS % n, [])
    in_play = [c for c in range(NUM_CARDS) if card_str(c) not in removed]
    played = [c for t in g.tricks for c in t.cards]
    require(sorted(played) == in_play, "each card in play is played exactly once")
    require(sorted(c for h in g.deal for c in h) == in_play, "each card in play is dealt once")
    require(all(len(h) == tricks for h in g.deal),
            "every seat is dealt the same number of cards")
    exposed = [sum(1 << c for c in e) for e in g.exposed]
    exposed_all = 0
    for m in exposed:
        exposed_all |= m
    for seat, card in g.declarations:
        require(card in g.deal[seat] and card in EXPOSABLE, "a seat exposes only its own cards")
    if rules.declaration != "free":
        require({c for e in g.exposed for c in e} == _FORCED[rules.declaration],
                f"declaration={rules.declaration!r} exposes exactly its forced cards")
    elif rules.auto_expose:
        require(bin(exposed_all).count("1") != 3, "three exposed cards expose the fourth")
    # The first lead card: the first of C2, S2, C3, S3 still in the deck.
    lead_card = next(c for c in (C2, parse_card("S2"), parse_card("C3")) if c in in_play)
    if g.first_leader == next(s for s in range(n) if lead_card in g.deal[s]) \
            and not g.free_first_lead:
        require(g.tricks[0].cards[0] == lead_card, "the first trick is led with the lead card")
    if not g.free_first_lead:
        require(lead_card in g.deal[g.first_leader], "the lead card's holder leads first")
    require(g.tricks[0].leader == g.first_leader, "the first leader leads the first trick")
    hands = [set(h) for h in g.deal]
    captured = [0] * n
    suits_led = set()
    doubled = sum(1 << c for c in g.doubled)
    restricted = 0 if rules.hidden_exposure else exposed_all & ~doubled
    for i, t in enumerate(g.tricks):
        led = t.cards[0] // 13
        best = max(c for c in t.cards if c // 13 == led)
        require(t.winner == (t.leader + t.cards.index(best)) % n,
                f"the highest card of the led suit takes the trick (trick {i})")
        if i + 1 < tricks:
            require(g.tricks[i + 1].leader == t.winner, f"the winner leads next (trick {i + 1})")
        for k, card in enumerate(t.cards):
            seat = (t.leader + k) % n
            hand = hands[seat]
            require(card in hand, f"a card comes from the hand of the seat to play (trick {i}, "
                    f"seat {seat})")
            suit_cards = {x for x in hand if x // 13 == card // 13}
            is_restricted = restricted >> card & 1 and card // 13 not in suits_led
            if k > 0 and led in {x // 13 for x in hand}:
                require(card // 13 == led, f"followers follow suit (trick {i}, seat {seat})")
                if is_restricted and card // 13 == led:
                    require(suit_cards == {card},
                            "an exposed card is held back on its suit's lead")
            if k == 0 and is_restricted and not rules.exposed_may_lead:
                if rules.strict_exposure:
                    require(all(restricted >> x & 1 and x // 13 not in suits_led for x in hand),
                            "strict exposure: an exposed card leads before its suit is led "
                            "only when every card held is such a card")
                else:
                    require(suit_cards == {card}, "an exposed card opens its suit only if alone")
            if k > 0 and card // 13 != led and is_restricted and rules.strict_exposure:
                require(all(restricted >> x & 1 and x // 13 not in suits_led for x in hand),
                        "strict exposure: no discard of an exposed card before its suit is led")
            hand.discard(card)
        suits_led.add(led)
        taken = sum(1 << c for c in t.cards) & SCORING_MASK
        takers = [s for s in range(n) if g.captured[s] and all(
            (1 << c) & taken == 0 or c in g.captured[s] for c in t.cards)]
        if taken:
            if not rules.discard_colour:
                require(t.winner in takers, f"the winner takes the scoring cards (trick {i})")
            else:
                discarders = {(t.leader + k) % n for k, c in enumerate(t.cards) if c // 13 != led}
                require(set(takers) & (discarders | {t.winner}),
                        f"the winner or a discarder takes the scoring cards (trick {i})")
            for s in takers[:1]:
                captured[s] |= taken
    all_taken = 0
    for m in captured:
        all_taken |= m
    require(all_taken == SCORING_MASK, "every scoring card is taken by someone")
    require([sum(1 << c for c in cap) for cap in g.captured] == captured,
            "each seat's captured cards are those of the tricks it took")
    expected = [score_masks(captured[s], exposed_all, rules, own_exposed=exposed[s],
                            doubled=doubled) for s in range(n)]
    require(g.scores() == expected, f"scores are the scoring of what was captured: expected "
            f"{expected}, the hand says {g.scores()}")
    if rules.team_play:
        require(g.teams == tuple((i, i + n // 2) for i in range(n // 2)),
                "partners sit opposite")
    elif rules.pig_sheep_team:
        pig = next(s for s in range(4) if SQ in g.deal[s])
        sheep = next(s for s in range(4) if DJ in g.deal[s])
        require(g.teams is not None and set(g.teams[0]) == {pig, sheep}
                and not g.exposed[0] + g.exposed[1],
                "the pig and sheep holders are a team, and nobody exposes")
    else:
        require(g.teams is None, "no teams without team rules")


def check_rules(rules: Rules, games: int, seed: int) -> int:
    """Play and check ``games`` random hands; return how many were checked."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        g = Game(rules, rng=rng)
        play_checked(g, rng)
        check_hand(g)
    return games


def _pig_taker(g: Game) -> int:
    """Return the seat that took SQ (the first SQ with two decks).

    The one seat whose captures hold it; else (two decks, the copies taken by two seats) the
    winner of the first trick with an SQ in it (two decks have no discard colour, which gives
    a trick's cards to another seat than its winner).
    """
    takers = [s for s in range(g.rules.players) if SQ in g.captured[s]]
    if len(takers) == 1:
        return takers[0]
    return next(t.winner for t in g.tricks if SQ in t.cards)


def _leader_after(g: Game) -> int:
    """Who leads the hand after ``g`` (RULES.md section 5), from ``g``'s record alone."""
    if g.rules.next_leader == "pig_taker":
        return _pig_taker(g)
    n = g.rules.players
    scores = g.scores()
    # The lowest raw score; a tie goes to the tied seat first in play order from g's leader.
    order = [(g.first_leader + k) % n for k in range(n)]
    return next(seat for seat in order if scores[seat] == min(scores))


def check_match(match: Match, games: list[Game]) -> None:
    """Check a finished ``match`` whose hands were ``games``, in order, against section 5.

    Every hand keeps the invariants of ``check_hand``; the totals are the sums of the hand
    scores; the match ends at the first hand after which a total is at or below
    ``match_threshold`` (or, with ``match_end="either"``, at or above its opposite), else at
    ``max_hands`` (truncated); the first hand is dealt like any hand and each later one is
    led, with any card, by the previous hand's SQ taker or biggest loser (``next_leader``);
    the winners are the highest totals (team sums with ``team_play``) and the losers the
    lowest (``double_pig``: the lowest and the highest lose).
    """
    rules = match.rules
    n = rules.players
    limit = -rules.match_threshold
    require(match.is_over(), "the match is over")
    require(len(games) == match.hand_number == len(match.hand_scores),
            f"{match.hand_number} hands counted, {len(games)} played")
    require(not games[0].free_first_lead or rules.first_lead == "any",
            "the first hand of a match is led like a single hand")
    totals = [0] * n
    for k, g in enumerate(games):
        check_hand(g)
        require(g.scores() == match.hand_scores[k], f"hand {k}: the match keeps its scores")
        if k:
            require(g.free_first_lead and g.first_leader == _leader_after(games[k - 1]),
                    f"hand {k} is led with any card by the seat next_leader="
                    f"{rules.next_leader!r} names: seat {_leader_after(games[k - 1])}, "
                    f"not seat {g.first_leader}")
        totals = [t + s for t, s in zip(totals, g.scores(), strict=True)]
        ended = min(totals) <= -limit or (rules.match_end == "either" and max(totals) >= limit)
        last = k == len(games) - 1
        require(ended == (last and not match.truncated),
                f"hand {k}: totals {totals} {'end' if ended else 'do not end'} a match with "
                f"match_end={rules.match_end!r} and threshold {-limit}, yet the match "
                f"{'ended' if last else 'went on'}")
    require(not match.truncated or match.hand_number == match.max_hands,
            "a match is truncated only at max_hands")
    require(list(match.cumulative) == totals, f"the totals are {totals}, the match says "
            f"{match.cumulative}")
    key = list(totals)
    if rules.team_play:
        half = n // 2
        key = [totals[s % half] + totals[s % half + half] for s in range(n)]
    hi, lo = max(key), min(key)
    top = tuple(s for s in range(n) if key[s] == hi)
    bottom = tuple(s for s in range(n) if key[s] == lo)
    if hi == lo:
        expected: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    elif rules.double_pig:
        losers = tuple(sorted(set(top) | set(bottom)))
        expected = (tuple(s for s in range(n) if s not in losers), losers)
    else:
        expected = (top, bottom)
    require(match.result == expected, f"the result of totals {totals} is (winners, losers) "
            f"{expected}; the match says {match.result}")


class MatchesChecked(NamedTuple):
    """What ``check_matches`` checked, with how often the rarer match rules came into play."""

    matches: int
    hands: int
    ended_high: int
    """Matches ended by a total at or above ``-match_threshold`` (``match_end="either"``)."""
    ended_both: int
    """Matches whose last hand took one total past each threshold at once."""
    tied_leads: int
    """Later hands whose leader the biggest-loser tie rule chose among tied seats."""


def check_matches(rules: Rules, matches: int, seed: int | list[int],
                  max_hands: int = DEFAULT_MAX_HANDS) -> MatchesChecked:
    """Play ``matches`` seeded random matches, checking every step and ``check_match``."""
    rng = np.random.default_rng(seed)
    hands = high = both = ties = 0
    limit = -rules.match_threshold
    for _ in range(matches):
        match = Match(rules, rng=rng, max_hands=max_hands)
        games = [match.game]
        while not match.is_over():
            game = match.game
            if game is not games[-1]:
                games.append(game)
            legal = _check_observation(game, match.view(game.current_player), True)
            match.step(legal[int(rng.integers(len(legal)))])
        check_match(match, games)
        hands += len(games)
        top, bottom = max(match.cumulative), min(match.cumulative)
        high += rules.match_end == "either" and top >= limit
        both += rules.match_end == "either" and top >= limit and bottom <= -limit
        if rules.next_leader == "biggest_loser":
            ties += sum(g.scores().count(min(g.scores())) > 1 for g in games[:-1])
    return MatchesChecked(matches, hands, high, both, ties)
