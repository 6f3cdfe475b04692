"""The two match options of RULES.md section 5: ``match_end`` and ``next_leader``.

``match_end="either"``: a match also ends once a cumulative score is at or above
``-match_threshold`` (the same magnitude as the losing threshold); whichever comes first ends
it, and a hand that crosses both ends it once. ``next_leader="biggest_loser"``: each later hand
is led, with any card, by the seat with the lowest raw score of the previous hand; a tie goes
to the tied seat first in play order from that hand's first leader. The expected values below
are worked out from those sentences, not read back from the engine.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from gongzhu_env import Game, Rules, raw_env
from gongzhu_env.checks import check_match
from gongzhu_env.match import Match, match_over, next_hand_leader
from gongzhu_env.records import record_hand, replay_record
from gongzhu_env.rules import rules_value
from gongzhu_env.wrappers import SingleSeatEnv
from tests.helpers import random_playout

BOTH = {"match_end": "either", "next_leader": "biggest_loser"}
HIGH = Rules(match_end="either", match_threshold=-600, hearts_table="positive",
             next_leader="biggest_loser")
"""Positive hearts: totals climb, so matches often end on the high side."""


def play_match(match: Match, seed: int) -> list[Game]:
    """Play a match with seeded random legal actions; return every hand's game in order."""
    rng = np.random.default_rng(seed)
    games = [match.game]
    while not match.is_over():
        if match.game is not games[-1]:
            games.append(match.game)
        legal = match.game.legal_actions()
        match.step(legal[int(rng.integers(len(legal)))])
    return games


# ---------------------------------------------------------------- the options themselves
def test_defaults_keep_the_match_as_it_was() -> None:
    rules = Rules()
    assert (rules.match_end, rules.next_leader) == ("loss", "pig_taker")
    # Match options change no hand: the fast standard path stays on.
    assert Rules(**BOTH).is_standard


@pytest.mark.parametrize("option, bad, allowed", [
    ("match_end", "both", "['loss', 'either']"),
    ("match_end", "Either", "['loss', 'either']"),
    ("next_leader", "loser", "['pig_taker', 'biggest_loser']"),
])
def test_a_wrong_value_is_refused_naming_the_allowed_ones(option: str, bad: str,
                                                          allowed: str) -> None:
    with pytest.raises(ValueError, match=f"{option}.*must be one of {re.escape(allowed)}"):
        Rules(**{option: bad})


@pytest.mark.parametrize("option", ["match_end", "next_leader"])
def test_a_wrong_type_is_refused(option: str) -> None:
    with pytest.raises(TypeError, match=f"{option}.*must be str"):
        Rules(**{option: 1})


def test_the_options_come_through_rules_text_as_a_command_gives_it() -> None:
    text = '{"match_end": "either", "next_leader": "biggest_loser", "decks": 2}'
    rules = Rules.coerce(rules_value(text))
    assert (rules.match_end, rules.next_leader, rules.decks) == ("either", "biggest_loser", 2)
    with pytest.raises(ValueError, match="match_end"):
        Rules.coerce(rules_value('{"match_end": "win"}'))


# ---------------------------------------------------------------- match end
@pytest.mark.parametrize("threshold", [-1000, -800])
def test_match_over_at_either_threshold(threshold: int) -> None:
    t = -threshold
    loss, either = Rules(match_threshold=threshold), Rules(match_threshold=threshold,
                                                            match_end="either")
    cases = [
        ([0, t - 1, 0, 1 - t], False, False),  # neither reached
        ([0, t, 0, -100], False, True),          # +T exactly ends "either" only
        ([0, t + 50, 0, -100], False, True),     # beyond +T too
        ([-t, 100, 0, 0], True, True),           # -T ends both
        ([-t, t, 0, 0], True, True),             # both at once: over, once
    ]
    for totals, by_loss, by_either in cases:
        assert match_over(totals, loss) is by_loss, totals
        assert match_over(totals, either) is by_either, totals


def test_either_ends_the_match_at_the_first_hand_that_reaches_plus_threshold() -> None:
    # Positive hearts make high totals common. Same seed, same deals and same random play:
    # under "loss" the match plays on past the hand at which "either" stopped it.
    for seed in range(40):
        match = Match(HIGH, seed=seed)
        games = play_match(match, seed)
        totals = match.cumulative
        if max(totals) >= 600 and min(totals) > -600 and len(games) > 1:
            break
    else:
        pytest.fail("no seed in 0..39 ended a match of two hands or more on the high side")
    running = [0] * 4
    for k, game in enumerate(games):
        running = [a + b for a, b in zip(running, game.scores(), strict=True)]
        high, low = max(running) >= 600, min(running) <= -600
        assert (high or low) == (k == len(games) - 1)
    assert not match.truncated
    assert match.result[0] == tuple(s for s in range(4) if totals[s] == max(totals))
    longer = Match(dataclasses.replace(HIGH, match_end="loss"), seed=seed, max_hands=40)
    play_match(longer, seed)
    assert longer.hand_scores[:len(games)] == match.hand_scores
    assert longer.hand_number > match.hand_number


def test_a_hand_past_both_thresholds_ends_the_match_once() -> None:
    rules = Rules(match_end="either", match_threshold=-100)
    for seed in range(40):
        match = Match(rules, seed=seed)
        play_match(match, seed)
        scores = match.hand_scores[0]
        if max(scores) >= 100 and min(scores) <= -100:
            break
    else:
        pytest.fail("no seed in 0..39 dealt a first hand past both thresholds")
    assert match.hand_number == 1 and match.is_over() and not match.truncated
    winners, losers = match.result
    assert winners == tuple(s for s in range(4) if scores[s] == max(scores))
    assert losers == tuple(s for s in range(4) if scores[s] == min(scores))
    with pytest.raises(RuntimeError, match="over"):
        match.step(0)


# ---------------------------------------------------------------- next leader
def test_biggest_loser_leads_the_next_hand_with_any_card() -> None:
    rules = Rules(next_leader="biggest_loser")
    match = Match(rules, seed=2)
    games = play_match(match, 2)
    assert len(games) >= 3
    for prev, nxt in zip(games, games[1:], strict=False):
        scores = prev.scores()
        lowest = [s for s in range(4) if scores[s] == min(scores)]
        if len(lowest) == 1:
            assert nxt.first_leader == lowest[0]
        assert nxt.first_leader == nxt.tricks[0].leader and nxt.free_first_lead
    assert match.leaders == [g.first_leader for g in games]


def _tied_hand(rules: Rules) -> Game:
    """A finished hand whose lowest score is shared, with play order deciding the tie.

    A tied seat sits on each side of the first leader, so the first tied seat in play order
    from the leader is not the lowest-numbered tied seat.
    """
    for seed in range(3000):
        rng = np.random.default_rng(seed)
        game = random_playout(Game(rules, rng=rng), rng)
        scores = game.scores()
        tied = [s for s in range(rules.players) if scores[s] == min(scores)]
        if tied[0] < game.first_leader <= tied[-1]:
            return game
    pytest.fail("no seeded hand with a tie for the lowest score")


@pytest.mark.parametrize("rules", [Rules(next_leader="biggest_loser", declaration="none"),
                                   Rules(players=5, next_leader="biggest_loser")],
                         ids=["four", "five"])
def test_a_tie_for_the_lowest_score_goes_first_in_play_order(rules: Rules) -> None:
    game = _tied_hand(rules)
    n = rules.players
    scores = game.scores()
    tied = [s for s in range(n) if scores[s] == min(scores)]
    # Play order from the first leader: first_leader, first_leader + 1, ... (mod n). The first
    # tied seat at or after the leader, else the lowest tied seat (the order wraps round).
    expected = next(s for s in tied if s >= game.first_leader)
    assert expected != tied[0]  # seat order alone would pick another seat
    assert next_hand_leader(game) == expected
    # Under the default the pig taker leads instead, whoever lost most.
    pig = Rules(**{**rules.to_dict(), "next_leader": "pig_taker"})
    again = Game.replay(game.deal, game.actions, pig)
    assert next_hand_leader(again) == again.first_pig_taker


def test_next_leader_needs_a_finished_hand() -> None:
    with pytest.raises(ValueError, match="once the hand is over"):
        next_hand_leader(Game(Rules(next_leader="biggest_loser"), seed=0))


# ---------------------------------------------------------------- every kind of table
@pytest.mark.parametrize("rules", [
    Rules(**BOTH),
    Rules(**BOTH, match_threshold=-300),
    Rules(decks=2, team_play=True, **BOTH),
    Rules(decks=2, match_end="either"),
    Rules(players=3, **BOTH),
    Rules(players=6, team_play=True, **BOTH),
    Rules(players=8, **BOTH),
    Rules(double_pig=True, **BOTH),
], ids=["four", "four-300", "two-decks", "two-decks-end", "three", "six-teams", "eight",
        "double-pig"])
def test_whole_matches_keep_the_rules_at_every_table(rules: Rules) -> None:
    for seed in range(2):
        match = Match(rules, seed=seed)
        check_match(match, play_match(match, seed))


def test_a_later_hand_replays_from_its_record() -> None:
    match = Match(Rules(**BOTH), seed=4)
    games = play_match(match, 4)
    later = games[1]
    record = record_hand(later, leader=later.first_leader)
    assert record["rules"]["next_leader"] == "biggest_loser"
    assert record["rules"]["match_end"] == "either"
    assert replay_record(record).scores() == later.scores()


# ---------------------------------------------------------------- the env and the wrapper
def test_a_match_episode_of_the_env_ends_by_the_options() -> None:
    for seed in range(40):
        env = raw_env(rules=HIGH, episode="match")
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        leaders = [env.game.first_leader]
        hand_scores = []
        for _agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            info = env.infos[env.possible_agents[0]]
            if "scores" in info and len(hand_scores) < info["hand_number"]:
                hand_scores.append(info["scores"])
                leaders.append(env.game.first_leader)
        totals = info["cumulative"]
        if max(totals) >= 600 and min(totals) > -600 and len(hand_scores) > 1:
            break
    else:
        pytest.fail("no env match in seeds 0..39 ended on the high side alone")
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert totals == [sum(h[s] for h in hand_scores) for s in range(4)]
    for k, scores in enumerate(hand_scores[:-1]):
        # The lowest score of hand k leads hand k + 1 (ties: first in order from its leader).
        order = [(leaders[k] + i) % 4 for i in range(4)]
        assert leaders[k + 1] == next(s for s in order if scores[s] == min(scores))


def test_the_single_seat_wrapper_ends_a_match_on_the_high_side() -> None:
    for seed in range(40):
        env = SingleSeatEnv([lambda view: view.legal_actions[0]], rules=HIGH, episode="match")
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while True:
            mask = env.action_masks()
            _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            if terminated or truncated:
                break
        totals = info["cumulative"]
        if max(totals) >= 600 and min(totals) > -600:
            break
    else:
        pytest.fail("no wrapper match in seeds 0..39 ended on the high side alone")
    assert terminated and not truncated and info["hand_number"] == env.match.hand_number
