"""The PettingZoo AEC environment: API conformance, seeding, rewards, infos, rendering, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from gongzhu_env import IllegalActionError, Rules, env, raw_env
from gongzhu_env.cards import DONE, parse_cards
from gongzhu_env.scoring import zero_sum
from gongzhu_env.view import OBS_SIZE, SLICES
from tests.helpers import make_deal

D1 = make_deal(
    "C2 C3 C4 C5 C6 C7 C8 C9 D2 D3 D4 D5 D6",
    "C10 CJ CQ CK CA D7 D8 D9 D10 H2 H3 H4 H5",
    "DJ DQ DK DA H6 H7 H8 H9 H10 HJ HQ HK HA",
    "S2 S3 S4 S5 S6 S7 S8 S9 S10 SJ SQ SK SA",
)


def test_api_test_wrapped() -> None:
    api_test(env(), num_cycles=300)


def test_api_test_raw() -> None:
    api_test(raw_env(), num_cycles=300)


def test_seed_test() -> None:
    seed_test(env, num_cycles=200)
    seed_test(lambda: env(reward_mode="zero_sum", reward_scale=100.0), num_cycles=200)


def test_metadata_agents_and_spaces() -> None:
    e = raw_env()
    assert e.metadata["name"] == "gongzhu_v0"
    assert e.possible_agents == [f"player_{i}" for i in range(4)]
    for a in e.possible_agents:
        assert e.action_space(a).n == 53
        assert e.observation_space(a) is e.observation_space(a)
        assert e.observation_space(a)["observation"].shape == (OBS_SIZE,)
        assert e.observation_space(a)["action_mask"].dtype == np.int8


def _play(e, rng: np.random.Generator) -> tuple[dict[str, float], list[dict], int]:
    """Run the standard AEC loop with random legal actions.

    Returns each agent's final reward from ``last()``, the infos seen and the number of
    nonzero rewards seen before the hand ended.
    """
    final: dict[str, float] = {}
    infos = []
    early_nonzero = 0
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        infos.append(dict(info))
        if term or trunc:
            final[agent] = reward
            e.step(None)
            continue
        if reward != 0:
            early_nonzero += 1
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(legal)))
    return final, infos, early_nonzero


@pytest.mark.parametrize(
    ("kwargs", "transform"),
    [
        ({}, lambda raw: raw),
        ({"reward_mode": "raw", "reward_scale": 100}, lambda raw: [s / 100 for s in raw]),
        ({"reward_mode": "zero_sum"}, zero_sum),
        ({"reward_mode": "zero_sum", "reward_scale": 4.0},
         lambda raw: [v / 4 for v in zero_sum(raw)]),
    ],
)
def test_rewards_at_the_end_follow_the_engine_scores(kwargs: dict, transform) -> None:
    for seed in range(4):
        e = env(**kwargs)
        e.reset(seed=seed)
        game = e.unwrapped.game
        final, infos, early_nonzero = _play(e, np.random.default_rng(seed))
        raw = game.scores()
        expected = transform(raw)
        assert early_nonzero == 0
        assert [final[f"player_{i}"] for i in range(4)] == pytest.approx(expected)
        assert all(i["phase"] in ("declare", "play", "over") for i in infos)
        assert infos[-1]["phase"] == "over" and infos[-1]["scores"] == raw


def test_raw_env_rewards_and_infos_step_by_step() -> None:
    e = raw_env()
    e.reset(seed=5)
    rng = np.random.default_rng(5)
    while not e.game.is_over():
        assert e.infos[e.agent_selection]["phase"] == e.game.phase
        assert "scores" not in e.infos[e.agent_selection]
        assert all(r == 0 for r in e.rewards.values())
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(rng.choice(np.flatnonzero(mask))))
    assert [e.rewards[f"player_{i}"] for i in range(4)] == e.game.scores()
    assert all(e.terminations.values())
    assert all(e.infos[a] == {"phase": "over", "scores": e.game.scores()} for a in e.agents)


def test_reset_with_a_given_deal() -> None:
    e = raw_env()
    e.reset(options={"hands": D1})
    assert e.game.deal == tuple(tuple(sorted(h)) for h in D1)
    assert e.agent_selection == "player_0"
    obs = e.observe("player_1")["observation"]
    assert np.flatnonzero(obs[SLICES["hand"]]).tolist() == sorted(D1[1])
    with pytest.raises(ValueError, match="twice"):
        e.reset(options={"hands": [D1[0], D1[0], D1[2], D1[3]]})


def test_same_seed_same_deal_different_seed_different_deal() -> None:
    a, b = raw_env(), raw_env()
    a.reset(seed=3)
    b.reset(seed=3)
    assert a.game.deal == b.game.deal
    b.reset(seed=4)
    assert a.game.deal != b.game.deal


def test_raw_env_illegal_action_raises_and_changes_nothing() -> None:
    e = raw_env()
    e.reset(options={"hands": D1})
    e.step(DONE)  # seat 0 ends its declaration turn
    before = ({a: {k: v.copy() for k, v in e.observe(a).items()} for a in e.agents},
              e.agent_selection, dict(e.rewards), e.game.actions)
    for bad in (parse_cards("SQ")[0], parse_cards("C2")[0], 53, -1, None, 1.5):
        with pytest.raises(IllegalActionError):
            e.step(bad)
        after = ({a: e.observe(a) for a in e.agents}, e.agent_selection, dict(e.rewards),
                 e.game.actions)
        for a in e.agents:
            for k in ("observation", "action_mask"):
                assert np.array_equal(before[0][a][k], after[0][a][k])
        assert before[1:] == after[1:]
    # The env is still usable: a legal action goes through.
    e.step(parse_cards("C10")[0])
    assert e.game.exposed[1] == tuple(parse_cards("C10")) and e.agent_selection == "player_1"


def test_wrapped_env_ends_the_game_on_an_illegal_action(caplog: pytest.LogCaptureFixture) -> None:
    e = env(illegal_reward=-7.0)
    e.reset(options={"hands": D1})
    e.step(parse_cards("SQ")[0])  # player_0 does not hold SQ
    assert "Illegal move" in caplog.text
    assert all(e.terminations.values()) or all(e.truncations.values())
    assert e.rewards["player_0"] == -7.0
    assert all(e.rewards[f"player_{i}"] == 0 for i in (1, 2, 3))


def test_render_ansi_and_human(capsys: pytest.CaptureFixture[str]) -> None:
    e = raw_env(render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert isinstance(text, str)
    assert "♠" in text and "♥" in text
    rng = np.random.default_rng(1)
    while not e.game.is_over():
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    text = e.render()
    for s in e.game.scores():
        assert str(s) in text
    h = raw_env(render_mode="human")
    h.reset(seed=1)
    capsys.readouterr()
    assert h.render() is None
    printed = capsys.readouterr().out
    assert "♠" in printed or "♣" in printed
    # render_seat hides the other seats' cards.
    seat0 = raw_env(render_mode="ansi", render_seat=0)
    seat0.reset(seed=1)
    assert "(13 cards)" in seat0.render()
    assert "(13 cards)" not in e.render()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"reward_mode": "team_spirit"},
        {"reward_scale": 0},
        {"reward_scale": -1.0},
        {"reward_scale": "1"},
        {"reward_scale": True},
        {"render_mode": "rgb_array"},
        {"render_seat": 4},
        {"rules": "no_such_preset"},
        {"rules": {"bogus": 1}},
    ],
)
def test_bad_constructor_arguments(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        raw_env(**kwargs)
    with pytest.raises(ValueError):
        env(**kwargs)


def test_rules_argument() -> None:
    assert raw_env(rules="standard").rules == Rules()
    assert raw_env(rules=Rules(settlement_multiplier=1)).rules.settlement_multiplier == 1
    with pytest.raises(TypeError):
        raw_env(rules=12)  # type: ignore[arg-type]


def _pettingzoo_chain(**kwargs: object):
    """``env()`` as PettingZoo's own three wrappers would build it."""
    from pettingzoo.utils import wrappers

    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-7.0)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


@pytest.mark.parametrize("seed", range(12))
def test_env_behaves_like_pettingzoos_wrapper_chain(seed: int) -> None:
    # Random play with the odd illegal (but in-range) move: every reading of the loop agrees.
    ours, theirs = env(illegal_reward=-7.0), _pettingzoo_chain()
    rng = np.random.default_rng(seed)
    for e in (ours, theirs):
        e.reset(seed=seed)
    illegal_at = int(rng.integers(5, 50)) if seed % 3 else -1  # some hands play out
    steps = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for a, b in zip(ours.agent_iter(), theirs.agent_iter(), strict=True):
            assert a == b
            got, want = ours.last(), theirs.last()
            assert np.array_equal(got[0]["observation"], want[0]["observation"])
            assert np.array_equal(got[0]["action_mask"], want[0]["action_mask"])
            assert got[1:] == want[1:]
            if got[2] or got[3]:
                action = None
            else:
                mask = got[0]["action_mask"]
                pool = np.flatnonzero(mask == 0) if steps == illegal_at else np.flatnonzero(mask)
                action = int(pool[int(rng.integers(len(pool)))])
            ours.step(action)
            theirs.step(action)
            steps += 1
    assert ours.rewards == theirs.rewards and ours.agents == theirs.agents == []
