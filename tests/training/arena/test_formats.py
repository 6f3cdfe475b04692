"""The paired difference of each duplicate format, checked by hand (training.arena.formats)."""

from __future__ import annotations

import numpy as np
import pytest

from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import settle
from tests.training.arena.scripted_agents import FirstLegal, LastLegal
from training.arena import (
    duplicate_match,
    generate_deals,
)
from training.arena.formats import (
    HAND_UNIT,
    TEAM_UNIT,
    check_format,
    paired_differences,
    team_presets,
    unit_of,
)


def _play(deal, players, rules):
    game = Game.from_hands(deal, rules)
    for s, p in enumerate(players):
        p.reset(s, rules)
    while not game.is_over():
        game.step(players[game.current_player].act(game.view(game.current_player)))
    return game.scores()


def test_paired_difference_definition_1v3_and_2v2():
    deals = generate_deals(6, seed=11)
    rules = Rules()
    res = duplicate_match(LastLegal(), FirstLegal(), deals, seed=0)
    res2 = duplicate_match(LastLegal(), FirstLegal(), deals, seed=0, mode="2v2")
    res_zs = duplicate_match(LastLegal(), FirstLegal(), deals, seed=0, scoring="zero_sum")
    for d, deal in enumerate(deals):
        per_play, payouts = [], []
        for r in range(4):
            players = [LastLegal() if s == r else FirstLegal() for s in range(4)]
            sc = _play(deal, players, rules)
            assert list(res.scores[d, r]) == sc
            per_play.append(sc[r] - (sum(sc) - sc[r]) / 3)
            payouts.append(settle(sc, rules)[r])
        assert res.diffs[d] == pytest.approx(sum(per_play) / 4)
        assert res_zs.diffs[d] == pytest.approx(sum(payouts) / 4)
        team = []
        for mine in ((0, 2), (1, 3)):
            players = [LastLegal() if s in mine else FirstLegal() for s in range(4)]
            sc = _play(deal, players, rules)
            cand = sum(sc[s] for s in mine)
            team.append((cand - (sum(sc) - cand)) / 2)
        assert res2.diffs[d] == pytest.approx(sum(team) / 2)
    assert res.hands_played == 24 and res2.hands_played == 12


def test_team_points_per_deal_on_hand_checked_scores():
    # Play 0: candidate in 0 & 2; play 1: candidate in 1 & 3 (the teams swapped).
    scores = np.array([[[-190, 50, -10, 0], [100, -300, 40, 60]]])
    team = Rules.preset("scrofazero")
    # Play 0: T_c = -200, T_o = 50 -> -250. Play 1: T_c = -300 + 60 = -240, T_o = 140 -> -380.
    assert paired_differences(scores, "2v2", "raw", team)[0] == (-250 + -380) / 2 == -315
    # Individual rules keep the per-member, per-hand number: half of it.
    assert paired_differences(scores, "2v2", "raw", Rules())[0] == -315 / 2
    # The team settlement pays each member (A - B) / 2 x 12: the team's payout is 12 x margin.
    assert paired_differences(scores, "2v2", "zero_sum", team)[0] == 12 * -315
    assert unit_of("2v2", team) == TEAM_UNIT
    assert unit_of("2v2", Rules()) == unit_of("1v3", team) == HAND_UNIT


def test_formats_refused_under_team_rules_say_why():
    pig_sheep = Rules(pig_sheep_team=True, declaration="none")
    with pytest.raises(ValueError, match="pig_sheep_team.*scrofazero"):
        check_format("2v2", "raw", pig_sheep)
    for rules in (pig_sheep, Rules.preset("scrofazero")):
        with pytest.raises(ValueError, match="zero_sum.*opponent copy"):
            check_format("1v3", "zero_sum", rules)
        check_format("1v3", "raw", rules)  # each seat's own hand score stays allowed
    with pytest.raises(ValueError, match="pig_sheep_team"):
        duplicate_match("random", "random", 2, mode="2v2", rules=pig_sheep)
    assert team_presets() == ["scrofazero", "two_decks"]
