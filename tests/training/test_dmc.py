"""The Deep Monte-Carlo trainer: samples, targets, loss and a fine-tuning start (training.dmc)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.policy import (
    QNetwork,
    save_policy,
)
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from gongzhu_env.view import OBS_SIZE, decode, obs_size
from tests.helpers import tiny_q_network
from training.config import ConfigError, DMCConfig, make_config
from training.dmc import TableSimulator, lambda_returns


def test_each_learner_seat_learns_from_its_own_result():
    """With four learner seats, a hand's four returns are the zero-sum results: they sum to 0,
    and every sample is a state where that seat was to move, with a legal action."""
    cfg = DMCConfig(preset="tiny", hidden=(8,), num_tables=1, opponent_mix={"self": 1.0},
                    reward_scale=1e3, reward_clip=100.0, num_actors=0, epsilon_start=0.5,
                    td_lambda=1.0,
                    eval_opponents=("random",))
    trajectories = []
    def sink(obs, tgt):
        labelled = ~np.isnan(tgt)
        assert np.all(labelled.sum(axis=1) == 1)  # self-play: one target, the action taken
        trajectories.append((obs, labelled.argmax(axis=1), tgt[labelled]))

    sim = TableSimulator(cfg, QNetwork(hidden=(8,)), seed=3, sink=sink)
    while sim.games < 3:
        sim.step_tables()
    assert len(trajectories) % 4 == 0 and len(trajectories) >= 12
    for k in range(0, 12, 4):
        game = trajectories[k:k + 4]
        # td_lambda = 1: every decision of a seat is labelled with that seat's hand result.
        assert all(np.all(r == r[0]) for _, _, r in game)
        assert sum(float(r[0]) for _, _, r in game) == pytest.approx(0.0, abs=1e-6)
        assert len({float(r[0]) for _, _, r in game}) > 1
        for obs, acts, r in game:
            assert len(obs) == len(acts) == len(r) > 0
            for o, a in zip(obs, acts, strict=True):
                blocks = decode(o.astype(np.float32) / 255.0)
                assert blocks["to_move"][0] == 1.0
                if a < 52:
                    assert blocks["hand"][a] == 1.0  # exposing or playing a card it holds


def test_rollout_labels_give_every_distinct_card_its_own_outcome():
    """A rollout-labelled decision yields one sample with a target for every legal card: the
    seat's zero-sum result of playing it on a copy of the real table and finishing the hand
    with the expert (once per run of equivalent cards); the real game is untouched."""
    from agents.expert import expert_play
    from agents.knowledge import Situation
    from agents.pimc import distinct_cards, rollout
    from gongzhu_env.scoring import zero_sum

    cfg = DMCConfig(preset="tiny", hidden=(8,), num_tables=1, opponent_mix={"self": 1.0},
                    reward_scale=400.0, reward_clip=4.0, num_actors=0, rollout_share=1.0,
                    eval_opponents=("random",))
    out = []
    sim = TableSimulator(cfg, QNetwork(hidden=(8,)), seed=5,
                         sink=lambda o, t: out.append((o, t)))
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(3):
        g = Game(rng=rng)
        while not g.is_over():
            legal = g.legal_actions()
            if g.phase == "play" and len(legal) > 1:
                before = (g.hands, g.current_player, g.actions)
                obs = np.full(OBS_SIZE, 7, dtype=np.uint8)
                out.clear()
                sim._rollout_samples(g, obs)
                assert (g.hands, g.current_player, g.actions) == before
                [(o, tgt)] = out
                assert o.shape == (1, OBS_SIZE) and np.all(o == 7)
                seat = g.current_player
                # Every legal card has a target; equivalent cards share their run's.
                assert list(np.flatnonzero(~np.isnan(tgt[0]))) == legal
                cards = distinct_cards(legal, Situation.from_game(g).unseen)
                assert len(set(tgt[0, legal])) <= len(cards)
                for a, y in zip(cards, tgt[0, cards], strict=True):
                    c = g.clone()
                    c.step(int(a))
                    expect = np.clip(zero_sum(rollout(c, expert_play))[seat] / 400.0, -4, 4)
                    assert y == pytest.approx(expect, abs=1e-6)
                checked += 1
            g.step(legal[int(rng.integers(len(legal)))])
    assert checked > 60
    # Rollout-labelled decisions and self-play returns mix by the scheduled share.
    sim.progress = 0.5
    cfg.rollout_share_final = 0.0
    assert sim.rollout_share == pytest.approx(0.5)


def test_q_loss_splits_the_error_into_differences_and_level():
    from training.dmc import action_targets, q_loss

    q = torch.tensor([[0.0, 1.0, 2.0], [0.5, 0.0, 0.0]])
    nan = float("nan")
    # Row 0 has targets for actions 0 and 2 (error +1 on both: all of it in the level);
    # row 1 one target (plain squared error 0.25).
    tgt = torch.tensor([[1.0, nan, 3.0], [nan, nan, nan]])
    tgt[1] = torch.from_numpy(action_targets(np.array([0]), np.array([0.0]), 53)[0, :3])
    assert float(q_loss(q, tgt, 1.0)) == pytest.approx((1.0 + 0.25) / 2)
    assert float(q_loss(q, tgt, 0.25)) == pytest.approx((0.25 + 0.25) / 2)
    # Differences wrong, level right: the level weight does not matter.
    tgt2 = torch.tensor([[2.0, nan, 0.0]])
    # Centred q: -1, +1; centred targets: +1, -1; errors -2 and +2.
    want = ((-2.0) ** 2 + 2.0 ** 2) / 2
    assert float(q_loss(q[:1], tgt2, 0.1)) == pytest.approx(want)
    assert float(q_loss(q[:1], tgt2, 1.0)) == pytest.approx(want)


def test_lambda_returns_blend_later_values_into_earlier_targets():
    # Worked by hand: y2 = 1; y1 = 0.5 * 0.3 + 0.5 * 1 = 0.65; y0 = 0.5 * 0.2 + 0.5 * 0.65.
    np.testing.assert_allclose(lambda_returns([0.1, 0.2, 0.3], 1.0, 0.5), [0.425, 0.65, 1.0])
    np.testing.assert_allclose(lambda_returns([0.1, 0.2, 0.3], -2.0, 1.0), [-2.0] * 3)
    np.testing.assert_allclose(lambda_returns([0.1, 0.2, 0.3], 5.0, 0.0), [0.2, 0.3, 5.0])


def test_lambda_returns_add_the_rewards_that_arrive_between_decisions():
    # A match: hand results arrive after decisions 0 and 2. With lam = 1 each target is
    # everything scored from that decision on; by hand for lam = 0.5: y2 = 2,
    # y1 = 0.5 * 0.3 + 0.5 * 2 = 1.15, y0 = 1 + 0.5 * 0.2 + 0.5 * 1.15 = 1.675.
    np.testing.assert_allclose(
        lambda_returns([0.1, 0.2, 0.3], 0.0, 1.0, rewards=[1.0, 0.0, 2.0]), [3.0, 2.0, 2.0])
    np.testing.assert_allclose(
        lambda_returns([0.1, 0.2, 0.3], 0.0, 0.5, rewards=[1.0, 0.0, 2.0]),
        [1.675, 1.15, 2.0])
    # No rewards in between: the hand case.
    np.testing.assert_allclose(lambda_returns([0.1, 0.2, 0.3], 1.0, 0.5, rewards=[0.0] * 3),
                               lambda_returns([0.1, 0.2, 0.3], 1.0, 0.5))


def test_match_tables_label_each_decision_with_what_its_seat_scores_to_the_match_end():
    from gongzhu_env.scoring import hand_results
    from training.dmc import TableSimulator

    cfg = make_config("tiny", "dmc", episode="match", max_hands=2, td_lambda=1.0,
                      reward_clip=100.0, opponent_mix={"self": 1.0})
    calls: list[tuple[np.ndarray, np.ndarray, list[list[int]]]] = []
    finishing: list[list[list[int]]] = []
    net = tiny_q_network(0, obs_len=obs_size(Rules(), True))
    sim = TableSimulator(cfg, net, 0, lambda o, t: calls.append((o, t, finishing[-1])))
    finish = sim._finish

    def spy(table):
        finishing.append([list(h) for h in table.match.hand_scores])
        finish(table)

    sim._finish = spy
    while len(finishing) < 4:
        sim.step_tables()
    assert calls and all(o.shape[1] == obs_size(Rules(), True) for o, _, _ in calls)
    assert all(len(hands) == 2 for hands in finishing)  # every match ran to max_hands
    # With all four seats learners, a finished match sends its seats' samples in seat order.
    seat = 0
    last = None
    for _obs, tgt, hands in calls:
        seat = seat + 1 if hands is last else 0
        last = hands
        y = np.nanmax(tgt, axis=1)
        res = [hand_results(h, "zero_sum", None)[seat] / cfg.reward_scale for h in hands]
        # The last decisions are worth the last hand; the first ones the whole match.
        assert y[-1] == pytest.approx(res[-1], abs=1e-5)
        assert y[0] == pytest.approx(sum(res), abs=1e-5)



def test_a_run_can_start_from_a_trained_policy(tmp_path):
    from training.dmc import DMCTrainer

    net = tiny_q_network(2)
    path = save_policy(tmp_path / "p.pt", net, Rules())
    cfg = make_config("tiny", "dmc", hidden=(16,), init_policy=str(path))
    trainer = DMCTrainer(cfg)
    for name, t in net.state_dict().items():
        torch.testing.assert_close(trainer.net.state_dict()[name], t)
    # A policy of another shape is refused by the config, before any run starts.
    with pytest.raises(ConfigError, match="^init_policy: .*needs a 'q' network"):
        make_config("tiny", "dmc", hidden=(32,), init_policy=str(path))
    with pytest.raises(ConfigError, match="'card_features': True"):
        make_config("tiny", "dmc", hidden=(16,), card_features=True, init_policy=str(path))
    with pytest.raises(ConfigError, match="^init_policy:"):
        make_config("tiny", "dmc", init_policy=str(tmp_path / "missing.pt"))


def test_the_learner_and_its_actors_read_one_exploration_schedule():
    from training.dmc import DMCTrainer, actor_seed, clip_target, clip_targets, epsilon_at

    cfg = make_config("tiny", "dmc", num_actors=0, epsilon_start=0.5, epsilon_end=0.1,
                      epsilon_decay_decisions=1000)
    assert epsilon_at(cfg, 0) == 0.5 and epsilon_at(cfg, 10**9) == pytest.approx(0.1)
    assert epsilon_at(cfg, 500) == pytest.approx(0.3)
    trainer = DMCTrainer(cfg)
    sim = trainer.sim
    for _ in range(5):
        before = sim.decisions
        sim.step_tables()
        trainer.decisions += sim.decisions - before
        sim.global_decisions = trainer.decisions
    # The epsilon the learner logs is the one its actors explore with, at the same count.
    assert trainer.decisions > 0 and trainer.epsilon == sim.epsilon
    assert trainer.epsilon == epsilon_at(cfg, trainer.decisions) < 0.5
    # Every actor has its own seed; targets are clipped to reward_clip, one value or many.
    assert len({actor_seed(cfg, i) for i in range(64)}) == 64
    clip = cfg.reward_clip
    assert clip_target(cfg, 10 * clip) == clip and clip_target(cfg, -10 * clip) == -clip
    arr = np.array([-10 * clip, 0.25 * clip, 10 * clip], dtype=np.float32)
    assert clip_targets(cfg, arr) is arr and arr.tolist() == pytest.approx([-clip, 0.25 * clip,
                                                                            clip])
