"""Matches (RULES.md section 5): a seeded match end to end, results, and match episodes."""

from __future__ import annotations

import numpy as np
import pytest

from gongzhu_env import Rules, raw_env
from gongzhu_env.cards import C2, SQ
from gongzhu_env.match import Match, match_result
from gongzhu_env.view import OBS_SIZE, decode, obs_size
from tests.helpers import random_playout


def play_match(match: Match, seed: int) -> list:
    """Play a match with random legal actions; return each finished hand's game."""
    rng = np.random.default_rng(seed)
    games = []
    while not match.is_over():
        g = match.game
        if not games or games[-1] is not g:
            games.append(g)
        legal = g.legal_actions()
        match.step(legal[int(rng.integers(len(legal)))])
    return games


def test_a_full_seeded_match() -> None:
    m = Match(seed=7)
    games = play_match(m, seed=7)
    assert len(games) == m.hand_number == len(m.hand_scores) >= 2
    # Cumulative scores are the sums of the hand scores; the match stops at the first hand
    # that takes a cumulative score to the threshold, and not before.
    totals = [0, 0, 0, 0]
    for k, (g, scores) in enumerate(zip(games, m.hand_scores, strict=True)):
        assert g.is_over() and g.scores() == scores
        totals = [t + s for t, s in zip(totals, scores, strict=True)]
        reached = min(totals) <= -1000
        assert reached == (k == len(games) - 1)
    assert totals == m.cumulative and not m.truncated
    # The first hand is led by the C2 holder with C2; each later one by the previous SQ taker.
    assert games[0].first_leader == next(s for s in range(4) if C2 in games[0].deal[s])
    assert games[0].tricks[0].cards[0] == C2
    for prev, nxt in zip(games, games[1:], strict=False):
        pig_taker = next(s for s in range(4) if SQ in prev.captured[s])
        assert nxt.first_leader == pig_taker == nxt.tricks[0].leader
    best, worst = max(totals), min(totals)
    assert m.result == (tuple(s for s in range(4) if totals[s] == best),
                        tuple(s for s in range(4) if totals[s] == worst))
    with pytest.raises(RuntimeError, match="over"):
        m.step(0)


def test_same_seed_same_match() -> None:
    a, b = Match(seed=3), Match(seed=3)
    play_match(a, 1)
    play_match(b, 1)
    assert a.hand_scores == b.hand_scores and a.leaders == b.leaders


def test_results_of_each_kind() -> None:
    cum = [-1010, 300, -200, 120]
    assert match_result(cum, Rules()) == ((1,), (0,))
    # Double pig: the lowest and the highest both lose.
    assert match_result(cum, Rules(double_pig=True)) == ((2, 3), (0, 1))
    # Team play: 0 & 2 = -1210, 1 & 3 = 420.
    assert match_result(cum, Rules(team_play=True)) == ((1, 3), (0, 2))
    assert match_result([0, 0, 0, 0], Rules()) == ((), ())


def test_views_carry_the_match_state() -> None:
    m = Match(seed=11)
    v = m.view(0)
    assert v.match_scores == (0, 0, 0, 0) and v.hand_number == 0 and v.match_result is None
    assert v.encode().shape == (obs_size(None, True),) == (OBS_SIZE + 5,)
    rng = np.random.default_rng(0)
    first = m.game
    while m.game is first:
        legal = m.game.legal_actions()
        m.step(legal[int(rng.integers(len(legal)))])
    v = m.view(2)
    assert v.match_scores == tuple(m.cumulative) and v.hand_number == 1
    blocks = decode(v.encode(), Rules(), match=True)
    rel = [m.cumulative[(2 + r) & 3] for r in range(4)]
    assert np.allclose(blocks["match_scores"], [0.5 + 0.5 * np.tanh(s / 1000) for s in rel])
    assert blocks["hand_number"][0] == pytest.approx(1 / 11)


def test_max_hands_truncates() -> None:
    m = Match(Rules(match_threshold=-100000), seed=0, max_hands=2)
    play_match(m, 0)
    assert m.hand_number == 2 and m.truncated and m.result is not None
    with pytest.raises(ValueError, match="max_hands"):
        Match(max_hands=0)


@pytest.mark.parametrize("rules", ["standard", "scrofazero"])
def test_match_episode_rewards_and_infos(rules: str) -> None:
    mode = "team" if rules == "scrofazero" else "raw"
    e = raw_env(rules=rules, episode="match", reward_mode=mode, reward_scale=10)
    e.reset(seed=5)
    rng = np.random.default_rng(5)
    total = dict.fromkeys(e.possible_agents, 0.0)
    hands_seen = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        assert obs["observation"].shape == e.observation_space(agent)["observation"].shape
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        for a in e.agents:
            total[a] += e.rewards[a]
        if "scores" in e.infos[e.possible_agents[0]]:
            hands_seen += 1
            info = e.infos[e.possible_agents[0]]
            assert info["hand_number"] == hands_seen
    match = e.match
    assert match is not None and match.is_over() and info["result"] == match.result
    assert hands_seen == match.hand_number >= 2
    sums = [sum(h[s] for h in match.hand_scores) for s in range(4)]
    if mode == "raw":
        assert [total[a] * 10 for a in e.possible_agents] == pytest.approx(sums)
    else:
        team = (sums[0] + sums[2] - sums[1] - sums[3]) / 2
        assert [total[a] * 10 for a in e.possible_agents] == pytest.approx(
            [team, -team, team, -team])


def test_team_reward_needs_team_rules() -> None:
    with pytest.raises(ValueError, match="team"):
        raw_env(reward_mode="team")
    with pytest.raises(ValueError, match="episode"):
        raw_env(episode="game")


def test_hand_episode_unchanged_for_standard_rules() -> None:
    e = raw_env()
    e.reset(seed=0)
    assert e.observation_space("player_0")["observation"].shape == (OBS_SIZE,)
    g = e.game
    random_playout(g, np.random.default_rng(0))
    assert g.is_over()


def test_team_reward_in_hand_episodes_follows_the_deal_teams() -> None:
    rules = Rules(pig_sheep_team=True, declaration="none")
    e = raw_env(rules=rules, reward_mode="team")
    rng = np.random.default_rng(9)
    checked = 0
    for seed in range(5):
        e.reset(seed=seed)
        teams = e.game.teams
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            if e.game.is_over():
                checked += 1
                raw = e.game.scores()
                got = [e.rewards[f"player_{s}"] for s in range(4)]
                assert sum(got) == pytest.approx(0)
                a, b = teams
                if len(a) == len(b):
                    diff = (sum(raw[s] for s in a) - sum(raw[s] for s in b)) / 2
                    assert got[a[0]] == pytest.approx(diff) == pytest.approx(-got[b[0]])
                else:
                    lone, rest = (a, b) if len(a) == 1 else (b, a)
                    want = raw[lone[0]] - sum(raw[s] for s in rest) / 3
                    assert got[lone[0]] == pytest.approx(want)
    assert checked == 5
