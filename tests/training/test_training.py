"""Training: tiny end-to-end runs of both trainers, resume, policy files, config validation."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.policy import (
    PolicyAgent,
    PolicyLoadError,
    QNetwork,
    load_policy_agent,
    load_policy_file,
    policy_dict,
    save_policy,
)
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from gongzhu_env.view import OBS_SIZE, decode
from training import train
from training.config import ConfigError, DMCConfig, make_config
from training.dmc import TableSimulator, lambda_returns


def _random_views(n_games: int, seed: int):
    """Views of the seat to move at every decision of a few random hands."""
    rng = np.random.default_rng(seed)
    views = []
    for _ in range(n_games):
        g = Game(rng=rng)
        while not g.is_over():
            views.append(g.view(g.current_player))
            legal = g.legal_actions()
            g.step(legal[int(rng.integers(len(legal)))])
    return views


def _tiny_net(seed: int = 0) -> QNetwork:
    torch.manual_seed(seed)
    return QNetwork(hidden=(16,))


# ---------------------------------------------------------------------------- end to end
def test_dmc_tiny_run_writes_its_files_and_resumes(tmp_path, capsys):
    out = tmp_path / "run"
    code = train.main(["--preset", "tiny", "--out", str(out), "--quiet", "--time-budget", "1.5"])
    assert code == 0
    for name in ("config.json", "metrics.csv", "evals.csv", "policy.pt", "arena.json",
                 "arena.md", "learning_curve.png", "checkpoints/latest.pt"):
        assert (out / name).is_file(), name
    assert any((out / "tb").iterdir())
    assert list((out / "checkpoints").glob("policy_*.pt"))
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["trainer"] == "dmc" and cfg["preset"] == "tiny"
    with open(out / "metrics.csv") as f:
        rows = list(csv.DictReader(f))
    assert int(rows[-1]["decisions"]) > 0
    first = torch.load(out / "checkpoints/latest.pt", weights_only=True)["trainer"]["counters"]
    assert first["elapsed_s"] >= 1.5

    # Resume with a larger budget: the counters continue from the checkpoint, logs append.
    code = train.main(["--out", str(out), "--resume", "--quiet", "--time-budget", "3"])
    assert code == 0
    second = torch.load(out / "checkpoints/latest.pt", weights_only=True)["trainer"]["counters"]
    assert second["decisions"] > first["decisions"]
    assert second["elapsed_s"] >= 3.0
    with open(out / "metrics.csv") as f:
        assert len(list(csv.DictReader(f))) > len(rows)
    # The trained policy plays through the agent factory.
    agent = make_agent(f"policy:{out / 'policy.pt'}", seed=0)
    view = _random_views(1, 0)[0]
    assert agent.act(view) in view.legal_actions


def test_dmc_with_an_actor_process_trains_and_resumes(tmp_path):
    # With the per-card features too: actors, snapshots and resume all build that network.
    out = tmp_path / "actors"
    args = ["--preset", "tiny", "--out", str(out), "--quiet", "--final-eval-deals", "0",
            "--set", "num_actors=1", "--set", "card_features=true"]
    assert train.main([*args, "--time-budget", "3"]) == 0
    first = torch.load(out / "checkpoints/latest.pt", weights_only=True)["trainer"]
    assert first["counters"]["decisions"] > 0 and first["counters"]["train_steps"] > 0
    assert train.main(["--out", str(out), "--resume", "--quiet", "--time-budget", "5"]) == 0
    second = torch.load(out / "checkpoints/latest.pt", weights_only=True)["trainer"]
    assert second["counters"]["decisions"] > first["counters"]["decisions"]
    assert second["counters"]["train_steps"] > first["counters"]["train_steps"]
    net, data = load_policy_file(out / "policy.pt")
    assert net.card_features and data["architecture"]["card_features"] is True


def test_the_best_late_checkpoint_becomes_the_policy(tmp_path, capsys):
    from training import select

    out = tmp_path / "run"
    assert train.main(["--preset", "tiny", "--out", str(out), "--quiet", "--set",
                       "select_last=3", "--set", "select_deals=3", "--set",
                       'select_opponent="random"']) == 0
    data = json.loads((out / "selection.json").read_text())
    # Three periodic policies and their weight average.
    assert data["opponent"] == "random" and data["deals"] == 3 and len(data["candidates"]) == 4
    assert data["candidates"][-1]["file"] == "policy_average.pt"
    best = max(data["candidates"], key=lambda c: c["mean"])
    assert data["chosen"] == best["file"]
    folder = out if best["file"] == "policy_average.pt" else out / "checkpoints"
    chosen = (folder / best["file"]).read_bytes()
    assert (out / "policy.pt").read_bytes() == chosen
    assert (out / "policy_selected.pt").read_bytes() == chosen
    assert (out / "policy_last.pt").exists()
    assert "chosen" in (out / "selection.md").read_text()
    # The average's weights are the mean of the three files'.
    from agents.policy import load_policy_file

    files = [out / "checkpoints" / c["file"] for c in data["candidates"][:3]]
    nets = [load_policy_file(f)[0] for f in files]
    avg, _ = load_policy_file(out / "policy_average.pt")
    for k, t in avg.state_dict().items():
        want = sum(n.state_dict()[k] for n in nets) / 3
        torch.testing.assert_close(t, want)
    # The command line does the same on a finished run, and refuses a directory without one.
    assert select.main([str(out), "--last", "2", "--deals", "2", "--opponent", "random"]) == 0
    assert select.main([str(tmp_path / "empty")]) == 2
    assert "no periodic policy files" in capsys.readouterr().err


def test_resume_from_a_corrupt_checkpoint_fails_clearly(tmp_path, capsys):
    out = tmp_path / "run"
    assert train.main(["--preset", "tiny", "--out", str(out), "--quiet", "--time-budget",
                       "0.5", "--final-eval-deals", "0"]) == 0
    (out / "checkpoints/latest.pt").write_bytes(b"not a checkpoint at all")
    assert train.main(["--out", str(out), "--resume", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "corrupt" in err and "latest.pt" in err


def test_resume_without_a_run_directory_fails_clearly(tmp_path, capsys):
    assert train.main(["--out", str(tmp_path / "nothing"), "--resume"]) == 2
    assert "config.json" in capsys.readouterr().err


def test_sb3_tiny_run_writes_its_files(tmp_path):
    out = tmp_path / "sb3"
    assert train.main(["--trainer", "sb3", "--preset", "tiny", "--out", str(out),
                       "--quiet"]) == 0
    for name in ("config.json", "metrics.csv", "evals.csv", "policy.pt", "arena.json",
                 "learning_curve.png", "checkpoints/sb3_latest.zip"):
        assert (out / name).is_file(), name
    agent = load_policy_agent(out / "policy.pt")
    for view in _random_views(1, 3):
        if view.legal_actions:
            assert agent.act(view) in view.legal_actions


# ---------------------------------------------------------------------------- DMC samples
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
    tgt[1] = torch.from_numpy(action_targets(np.array([0]), np.array([0.0]))[0, :3])
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


def test_a_run_can_start_from_a_trained_policy(tmp_path):
    from training.dmc import DMCTrainer

    net = _tiny_net(2)
    path = save_policy(tmp_path / "p.pt", net, Rules())
    cfg = make_config("tiny", "dmc", hidden=(16,), init_policy=str(path))
    trainer = DMCTrainer(cfg)
    for name, t in net.state_dict().items():
        torch.testing.assert_close(trainer.net.state_dict()[name], t)
    with pytest.raises(PolicyLoadError, match="needs a 'q' network"):
        DMCTrainer(make_config("tiny", "dmc", hidden=(32,), init_policy=str(path)))
    with pytest.raises(PolicyLoadError, match="'card_features': True"):
        DMCTrainer(make_config("tiny", "dmc", hidden=(16,), card_features=True,
                               init_policy=str(path)))
    with pytest.raises(ConfigError, match="^init_policy:"):
        make_config("tiny", "dmc", init_policy=str(tmp_path / "missing.pt"))


# ---------------------------------------------------------------------------- policy files
def test_saved_policy_round_trips(tmp_path):
    net = _tiny_net(1)
    path = save_policy(tmp_path / "p.pt", net, Rules(), metadata={"note": "test"})
    original = PolicyAgent(net)
    loaded = load_policy_agent(path)
    views = [v for v in _random_views(3, 4) if len(v.legal_actions) > 1]
    assert len(views) > 50
    acts = [original.act(v) for v in views]
    assert acts == [loaded.act(v) for v in views]
    assert all(a in v.legal_actions for a, v in zip(acts, views, strict=True))
    # The saved weights are the same tensors, not merely the same argmax.
    for v in views[:5]:
        np.testing.assert_array_equal(original.scores(v), loaded.scores(v))


def test_policy_for_other_rules_is_refused(tmp_path):
    path = save_policy(tmp_path / "p.pt", _tiny_net(), Rules(settlement_multiplier=1))
    with pytest.raises(PolicyLoadError, match="rules"):
        load_policy_agent(path)
    # ... but accepted at a table with those rules, and refused at a standard table.
    agent = load_policy_agent(path, rules=Rules(settlement_multiplier=1))
    with pytest.raises(PolicyLoadError, match="rules"):
        agent.reset(0, Rules())


def test_policy_rules_are_compared_as_rule_sets(tmp_path):
    # A file written before an option existed omits it: it was trained with the default.
    data = policy_dict(_tiny_net(), Rules())
    data["rules"].pop("settlement_multiplier")
    torch.save(data, tmp_path / "older.pt")
    assert load_policy_agent(tmp_path / "older.pt").rules == Rules()
    # An option this version does not know cannot be checked: refused, naming it.
    data["rules"]["no_such_option"] = True
    torch.save(data, tmp_path / "newer.pt")
    with pytest.raises(PolicyLoadError, match="no_such_option"):
        load_policy_agent(tmp_path / "newer.pt")


def test_policy_for_another_observation_size_is_refused(tmp_path):
    data = policy_dict(_tiny_net(), Rules())
    data["obs_size"] = OBS_SIZE - 1
    torch.save(data, tmp_path / "old.pt")
    with pytest.raises(PolicyLoadError, match="observations of size"):
        load_policy_agent(tmp_path / "old.pt")


def test_policy_with_weights_of_the_wrong_shape_is_refused(tmp_path):
    data = policy_dict(_tiny_net(), Rules())
    data["architecture"]["hidden"] = [32]
    torch.save(data, tmp_path / "bad.pt")
    with pytest.raises(PolicyLoadError, match="do not match"):
        load_policy_agent(tmp_path / "bad.pt")


def test_corrupt_missing_and_foreign_policy_files_are_refused(tmp_path):
    (tmp_path / "junk.pt").write_bytes(b"\x00garbage")
    with pytest.raises(PolicyLoadError, match="corrupt"):
        load_policy_agent(tmp_path / "junk.pt")
    with pytest.raises(PolicyLoadError, match="not found"):
        load_policy_agent(tmp_path / "missing.pt")
    torch.save({"weights": torch.zeros(3)}, tmp_path / "foreign.pt")
    with pytest.raises(PolicyLoadError, match="not a Gong Zhu policy"):
        load_policy_agent(tmp_path / "foreign.pt")


# ---------------------------------------------------------------------------- configs
@pytest.mark.parametrize("overrides, field", [
    ({"num_tables": -1}, "num_tables"),
    ({"batch_size": 0}, "batch_size"),
    ({"hidden": (64, -2)}, "hidden"),
    ({"lr": -1e-3}, "lr"),
    ({"epsilon_start": 1.5}, "epsilon_start"),
    ({"reward_mode": "team"}, "reward_mode"),
    ({"opponent_mix": {"self": 1.0, "nosuchagent": 1.0}}, "opponent_mix"),
    ({"opponent_mix": {"self": -1.0}}, "opponent_mix"),
    ({"eval_opponents": ("greedy", "grandmaster")}, "eval_opponents"),
    ({"rules": "nosuchrules"}, "rules"),
    ({"no_such_field": 1}, "no_such_field"),
    ({"rollout_share": 1.5}, "rollout_share"),
    ({"rollout_share_final": -0.1}, "rollout_share_final"),
    ({"rollout_policy": "oracle"}, "rollout_policy"),
    ({"select_last": -1}, "select_last"),
    ({"select_opponent": "nobody"}, "select_opponent"),
    ({"select_average": "yes"}, "select_average"),
])
def test_bad_config_values_are_refused_naming_the_field(overrides, field):
    with pytest.raises(ConfigError, match=f"^{field}:"):
        make_config("quick", "dmc", **overrides)


def test_bad_sb3_config_and_unknown_preset_or_trainer_are_refused():
    with pytest.raises(ConfigError, match="^n_envs:"):
        make_config("quick", "sb3", n_envs=0)
    with pytest.raises(ConfigError, match="^preset:"):
        make_config("huge", "dmc")
    with pytest.raises(ConfigError, match="^trainer:"):
        make_config("quick", "a3c")


def test_command_line_refuses_bad_values_before_training(tmp_path, capsys):
    out = tmp_path / "never"
    assert train.main(["--preset", "quick", "--out", str(out), "--set",
                       "num_tables=-4"]) == 2
    assert "num_tables" in capsys.readouterr().err
    assert train.main(["--preset", "nosuch", "--out", str(out)]) == 2
    assert "preset" in capsys.readouterr().err
    assert not out.exists()


def test_presets_are_valid_and_documented():
    import ast
    import inspect
    import textwrap

    from training.config import SB3Config

    for trainer in ("dmc", "sb3"):
        for preset in ("quick", "full", "tiny"):
            assert make_config(preset, trainer).preset == preset
    for cls in (DMCConfig, SB3Config):
        body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0].body
        documented = {
            stmt.target.id for stmt, nxt in zip(body, body[1:], strict=False)
            if isinstance(stmt, ast.AnnAssign) and isinstance(nxt, ast.Expr)
            and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str)
        }
        import dataclasses

        fields = {f.name for f in dataclasses.fields(cls)}
        assert fields == documented, f"{cls.__name__}: undocumented {fields - documented}"


def test_the_shipped_policy_loads_by_name_and_plays_legal_moves():
    agent = make_agent("policy:pretrained", seed=0)
    _, data = load_policy_file("pretrained")
    assert data["metadata"]["preset"] == "full" and data["obs_size"] == OBS_SIZE
    for view in _random_views(2, 11):
        if view.legal_actions:
            assert agent.act(view) in view.legal_actions
