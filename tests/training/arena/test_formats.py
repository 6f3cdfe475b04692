"""The paired difference of each duplicate format, checked by hand (training.arena.formats)."""

from __future__ import annotations

import pytest

from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import settle
from tests.training.arena.scripted_agents import FirstLegal, LastLegal
from training.arena import (
    duplicate_match,
    generate_deals,
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
