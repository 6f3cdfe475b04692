"""Deep Monte-Carlo on the batched engine (``training.dmc.batch_tables``), held to the engine."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.policy import QNetwork
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import hand_results
from gongzhu_env.view import obs_size
from training.config import ConfigError, DMCConfig, make_config
from training.dmc import BatchTableSimulator, TableSimulator, make_simulator


def _cfg(**kw) -> DMCConfig:
    base = dict(preset="tiny", hidden=(8,), num_tables=3, opponent_mix={"self": 1.0},
                reward_scale=1e3, reward_clip=100.0, num_actors=0, epsilon_start=0.5,
                td_lambda=1.0, eval_opponents=("random",), engine="batch")
    base.update(kw)
    cfg = DMCConfig(**base)
    cfg.validate()
    return cfg


class _Replay:
    """Plays every table of a simulator again on reference ``Game``s, move by move.

    After each ``step_tables`` the simulator's action array holds the move made at every
    table; the replay applies it to its own game of the same deal and remembers, for each
    seat, what that seat saw before each of its moves. A finished hand is checked against the
    reference scores and replaced by the next deal of the table's stream.
    """

    def __init__(self, sim: BatchTableSimulator, rules: Rules) -> None:
        self.sim = sim
        self.rules = rules
        n = sim.cfg.num_tables
        self.games = [Game.from_hands(sim.batch.deal_of(t), rules) for t in range(n)]
        self.seen: list[list[list[tuple[np.ndarray, int]]]] = [
            [[] for _ in range(rules.players)] for _ in range(n)]
        self.finished: list[tuple[list[list[tuple[np.ndarray, int]]], list[float]]] = []

    def step(self) -> None:
        sim = self.sim
        views = []
        for t, g in enumerate(self.games):
            # The batch shows the acting seat's observation and mask; the reference agrees
            # (as bytes, rint(x * 255), in a compact batch: DMCConfig.obs_dtype).
            assert sim.batch.current_player[t] == g.current_player
            enc = g.view(g.current_player).encode()
            shown = enc if sim.batch.obs_dtype == np.float32 else \
                np.rint(enc * 255.0).astype(np.uint8)
            np.testing.assert_array_equal(sim.batch.observations[t], shown)
            views.append((g.current_player, enc, len(g.legal_actions())))
        sim.step_tables()
        for t, g in enumerate(self.games):
            seat, enc, n_legal = views[t]
            a = int(sim._actions[t])
            assert a in g.legal_actions()
            if n_legal > 1:
                self.seen[t][seat].append((enc, a))
            g.step(a)
            if g.is_over():
                res = hand_results(g.scores(), sim.cfg.reward_mode, g.teams)
                self.finished.append((self.seen[t], res))
                self.seen[t] = [[] for _ in range(self.rules.players)]
                self.games[t] = Game.from_hands(sim.batch.deal_of(t), self.rules)


@pytest.mark.parametrize("rules, obs_dtype", [("standard", "uint8"), ("standard", "float32"),
                                              ("scrofazero", "uint8"),
                                              ({"players": 5}, "uint8"),
                                              ({"players": 6, "team_play": True}, "float32"),
                                              ("two_decks", "uint8")])
def test_samples_are_each_seats_own_decisions_labelled_with_its_own_result(rules, obs_dtype):
    """Learner seats only at every table: every sample is an observation the reference
    engine shows that seat before a move it chose among several, with that move as the
    labelled action and the seat's own hand result (lambda = 1) as the target. Either batch
    (compact or float32) sends the same bytes."""
    r = Rules.coerce(rules)
    cfg = _cfg(rules=rules, reward_mode="team" if r.team_play else "zero_sum",
               obs_dtype=obs_dtype)
    sent: list[tuple[np.ndarray, np.ndarray]] = []
    sim = make_simulator(cfg, QNetwork(obs_size(r), r.num_actions, hidden=(8,)),
                         seed=4, sink=lambda o, t: sent.append((o, t)))
    assert isinstance(sim, BatchTableSimulator)
    replay = _Replay(sim, r)
    while len(replay.finished) < 6:
        replay.step()
    # Hands finish in table order within a step, and every seat of a hand sends in seat order.
    expected = []
    for seen, res in replay.finished:
        for seat in range(r.players):
            if seen[seat]:
                expected.append((seen[seat], res[seat]))
    assert len(sent) >= len(expected)
    assert sim.games >= 6
    for (obs, tgt), (seen, result) in zip(sent, expected, strict=False):
        assert len(obs) == len(seen)
        labelled = ~np.isnan(tgt)
        assert np.all(labelled.sum(axis=1) == 1)
        for row, (enc, a) in enumerate(seen):
            np.testing.assert_array_equal(obs[row], np.rint(enc * 255.0).astype(np.uint8))
            assert int(np.flatnonzero(labelled[row])[0]) == a
        np.testing.assert_allclose(tgt[labelled], result / cfg.reward_scale, rtol=1e-5)
    # The decisions counted are the moves chosen among several (forced ones are not).
    assert sim.decisions == sum(len(s) for seen in replay.seen for s in seen) + \
        sum(len(s) for seen, _ in replay.finished for s in seen)


def test_rule_agents_play_on_a_shadow_game_that_follows_the_batch():
    """A table seating the expert keeps a reference game of its deal; at every step it is in
    the batch's position, and the expert's seats play what the expert plays on its view."""
    from agents import make_agent

    cfg = _cfg(num_tables=6, opponent_mix={"expert": 1.0}, epsilon_start=0.0,
               epsilon_end=0.0)
    sim = BatchTableSimulator(cfg, QNetwork(hidden=(8,)), seed=1, sink=lambda o, t: None)
    checked = 0
    for _ in range(200):
        expect = {}
        for t in range(cfg.num_tables):
            g = sim._shadows[t]
            assert g is not None  # every table seats three experts
            assert g.current_player == sim.batch.current_player[t]
            legal = np.flatnonzero(sim.batch.action_masks[t]).tolist()
            assert g.legal_actions() == legal
            seat = g.current_player
            if sim.kinds[t, seat] == 3 and len(legal) > 1:
                probe = make_agent("expert", seed=0)
                probe.reset(seat, g.rules)
                expect[t] = probe.act(g.view(seat))
        sim.step_tables()
        for t, a in expect.items():
            assert sim._actions[t] == a
            checked += 1
    assert checked > 100
    assert sim.games > 0


def test_snapshots_and_random_seats_and_a_shrinking_pool():
    cfg = _cfg(num_tables=8, opponent_mix={"self": 0.2, "snapshot": 0.5, "random": 0.3})
    sim = BatchTableSimulator(cfg, QNetwork(hidden=(8,)), seed=2, sink=lambda o, t: None)
    sim.set_snapshots([QNetwork(hidden=(8,)), QNetwork(hidden=(8,))])
    sim.reset_tables()
    assert (sim.kinds == 1).any() and (sim.kinds == 2).any()
    assert ((sim.kinds == 0).sum(axis=1) >= 1).all()  # one learner seat at every table
    for _ in range(150):
        sim.step_tables()
    assert sim.games > 0 and sim.decisions > 0
    sim.set_snapshots([QNetwork(hidden=(8,))])
    assert not ((sim.kinds == 1) & (sim.refs >= 1)).any()
    for _ in range(20):
        sim.step_tables()
    t = sim.timings()
    assert t["env_s"] > 0 and t["inference_s"] > 0


def test_the_same_seed_gives_the_same_samples():
    def run(seed):
        torch.manual_seed(0)
        cfg = _cfg(num_tables=5, opponent_mix={"self": 0.5, "random": 0.3, "greedy": 0.2})
        sent = []
        sim = BatchTableSimulator(cfg, QNetwork(hidden=(8,)), seed, lambda o, t: sent.append(
            (o, t)))
        for _ in range(300):
            sim.step_tables()
        return sent

    a, b, c = run(7), run(7), run(8)
    assert len(a) == len(b) > 0
    for (o1, t1), (o2, t2) in zip(a, b, strict=True):
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(t1, t2)
    assert len(a) != len(c) or any(not np.array_equal(x[0], y[0])
                                   for x, y in zip(a, c, strict=False))


def test_engine_auto_picks_the_batch_where_it_covers_the_run_and_batch_refuses_otherwise():
    assert make_config("tiny", "dmc").uses_batch_engine()
    assert not make_config("tiny", "dmc", engine="scalar").uses_batch_engine()
    assert make_config("tiny", "dmc", rules="two_decks").uses_batch_engine()
    assert make_config("tiny", "sb3", rules="two_decks", engine="auto").uses_batch_engine()
    assert not make_config("tiny", "dmc", episode="match").uses_batch_engine()
    sim = make_simulator(make_config("tiny", "dmc", engine="scalar"), QNetwork(hidden=(32, 32)),
                         0, lambda o, t: None)
    assert isinstance(sim, TableSimulator)
    assert make_config("tiny", "dmc", rules={"players": 5}).uses_batch_engine()
    with pytest.raises(ConfigError, match="^engine: .*match episodes"):
        make_config("tiny", "dmc", engine="batch", episode="match")
    with pytest.raises(ConfigError, match="^engine: .*rollout_share"):
        make_config("tiny", "dmc", engine="batch", rollout_share=0.5)
    with pytest.raises(ConfigError, match="^engine: must be one of"):
        make_config("tiny", "dmc", engine="gpu")
