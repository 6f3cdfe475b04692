"""Invariant checkers for whole hands, shared by the test suite and the long benchmark runs.

Like a test package shipped with a library, these let anyone check the engine (or a change to
it) against the facts of the rule book that a hand's public record lets one verify:
``play_checked`` plays seeded random legal actions and checks every observation and action mask
against the engine's legal set; ``check_hand`` checks a finished hand (each card played once,
suit following, the exposed-card restriction, trick winners, captures, scores, teams);
``check_rules`` does both for many hands of one rule set, and ``random_rules`` draws a valid
combination of options. A failed check raises ``AssertionError`` naming the broken fact.

``python -m benchmarks.check_presets`` runs them over thousands of hands per preset.
"""

from __future__ import annotations

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
    parse_card,
)
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import score_masks
from gongzhu_env.two_deck_checks import check_two_deck_hand
from gongzhu_env.view import obs_size

__all__ = ["check_hand", "check_rules", "play_checked", "random_rules"]

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
    size = obs_size(game.rules)
    n_actions = game.rules.num_actions
    settled_at: list[int] | None = None
    while not game.is_over():
        if game.scores_settled():
            if settled_at is None:
                settled_at = game.provisional_scores()
        elif settled_at is not None:
            raise AssertionError("scores_settled() turned false again")
        seat = game.current_player
        legal = game.legal_actions()
        if not legal:
            raise AssertionError("a seat to move has no legal action")
        obs, mask = game.view(seat).observation()
        if obs.shape != (size,) or obs.min() < 0 or obs.max() > 1:
            raise AssertionError(f"bad observation shape {obs.shape} or range")
        if mask.shape != (n_actions,):
            raise AssertionError(f"action mask of shape {mask.shape}, expected ({n_actions},)")
        if list(np.flatnonzero(mask)) != legal:
            raise AssertionError("action mask differs from the legal actions")
        game.step(legal[int(rng.integers(len(legal)))])
    if not game.scores_settled():
        raise AssertionError("scores_settled() is false once the hand is over")
    if settled_at is not None and settled_at != game.scores():
        raise AssertionError(f"the scores settled at {settled_at} but ended {game.scores()}")


def check_hand(g: Game) -> None:
    """Every invariant of a finished hand that the public record lets one verify."""
    rules = g.rules
    if rules.decks == 2:
        check_two_deck_hand(g)
        return
    n = rules.players
    tricks = len(g.tricks)
    assert g.is_over() and tricks == NUM_CARDS // n and g.legal_actions() == []
    assert all(len(t.cards) == n for t in g.tricks), "every seat plays once to each trick"
    # RULES.md 6.14: the low cards D2, C2, S2, D3 leave the deck until it divides evenly.
    removed = {1: ["D2"], 2: ["D2", "C2"], 3: ["D2", "C2", "S2"],
               4: ["D2", "C2", "S2", "D3"]}.get(NUM_CARDS % n, [])
    in_play = [c for c in range(NUM_CARDS) if card_str(c) not in removed]
    played = [c for t in g.tricks for c in t.cards]
    assert sorted(played) == in_play, "each card in play is played exactly once"
    assert sorted(c for h in g.deal for c in h) == in_play, "each card in play is dealt once"
    assert all(len(h) == tricks for h in g.deal), "every seat is dealt the same number of cards"
    exposed = [sum(1 << c for c in e) for e in g.exposed]
    exposed_all = 0
    for m in exposed:
        exposed_all |= m
    for seat, card in g.declarations:
        assert card in g.deal[seat] and card in EXPOSABLE, "a seat exposes only its own cards"
    if rules.declaration != "free":
        assert {c for e in g.exposed for c in e} == _FORCED[rules.declaration]
    elif rules.auto_expose:
        assert bin(exposed_all).count("1") != 3, "three exposed cards expose the fourth"
    # The first lead card: the first of C2, S2, C3, S3 still in the deck.
    lead_card = next(c for c in (C2, parse_card("S2"), parse_card("C3")) if c in in_play)
    if g.first_leader == next(s for s in range(n) if lead_card in g.deal[s]) \
            and not g.free_first_lead:
        assert g.tricks[0].cards[0] == lead_card, "the first trick is led with the lead card"
    if not g.free_first_lead:
        assert lead_card in g.deal[g.first_leader], "the lead card's holder leads first"
    assert g.tricks[0].leader == g.first_leader
    hands = [set(h) for h in g.deal]
    captured = [0] * n
    suits_led = set()
    doubled = sum(1 << c for c in g.doubled)
    restricted = 0 if rules.hidden_exposure else exposed_all & ~doubled
    for i, t in enumerate(g.tricks):
        led = t.cards[0] // 13
        best = max(c for c in t.cards if c // 13 == led)
        assert t.winner == (t.leader + t.cards.index(best)) % n, "highest card of the led suit"
        if i + 1 < tricks:
            assert g.tricks[i + 1].leader == t.winner, "the winner leads next"
        for k, card in enumerate(t.cards):
            seat = (t.leader + k) % n
            hand = hands[seat]
            assert card in hand, "a card comes from the hand of the seat to play"
            suit_cards = {x for x in hand if x // 13 == card // 13}
            is_restricted = restricted >> card & 1 and card // 13 not in suits_led
            if k > 0 and led in {x // 13 for x in hand}:
                assert card // 13 == led, "followers follow suit"
                if is_restricted and card // 13 == led:
                    assert suit_cards == {card}, "an exposed card is held back on its suit's lead"
            if k == 0 and is_restricted and not rules.exposed_may_lead:
                if rules.strict_exposure:
                    assert all(restricted >> x & 1 and x // 13 not in suits_led for x in hand)
                else:
                    assert suit_cards == {card}, "an exposed card opens its suit only if alone"
            if k > 0 and card // 13 != led and is_restricted and rules.strict_exposure:
                assert all(restricted >> x & 1 and x // 13 not in suits_led for x in hand), \
                    "strict exposure: no discard of an exposed card before its suit is led"
            hand.discard(card)
        suits_led.add(led)
        taken = sum(1 << c for c in t.cards) & SCORING_MASK
        takers = [s for s in range(n) if g.captured[s] and all(
            (1 << c) & taken == 0 or c in g.captured[s] for c in t.cards)]
        if taken:
            if not rules.discard_colour:
                assert t.winner in takers, "the winner takes the scoring cards"
            else:
                discarders = {(t.leader + k) % n for k, c in enumerate(t.cards) if c // 13 != led}
                assert set(takers) & (discarders | {t.winner})
            for s in takers[:1]:
                captured[s] |= taken
    all_taken = 0
    for m in captured:
        all_taken |= m
    assert all_taken == SCORING_MASK, "every scoring card is taken by someone"
    assert [sum(1 << c for c in cap) for cap in g.captured] == captured
    expected = [score_masks(captured[s], exposed_all, rules, own_exposed=exposed[s],
                            doubled=doubled) for s in range(n)]
    assert g.scores() == expected, "scores are the scoring of what was captured"
    if rules.team_play:
        assert g.teams == tuple((i, i + n // 2) for i in range(n // 2)), "partners sit opposite"
    elif rules.pig_sheep_team:
        pig = next(s for s in range(4) if SQ in g.deal[s])
        sheep = next(s for s in range(4) if DJ in g.deal[s])
        assert set(g.teams[0]) == {pig, sheep} and not g.exposed[0] + g.exposed[1]
    else:
        assert g.teams is None


def check_rules(rules: Rules, games: int, seed: int) -> int:
    """Play and check ``games`` random hands; return how many were checked."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        g = Game(rules, rng=rng)
        play_checked(g, rng)
        check_hand(g)
    return games
