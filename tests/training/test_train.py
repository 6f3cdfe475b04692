"""Training end to end: tiny runs of both trainers, resume, the command line (training.train)."""

from __future__ import annotations

import csv
import json

import torch

from agents import make_agent
from agents.policy import (
    load_policy_agent,
    load_policy_file,
)
from tests.helpers import random_views
from training import train


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
    view = random_views(1, 0)[0]
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
    for view in random_views(1, 3):
        if view.legal_actions:
            assert agent.act(view) in view.legal_actions


def test_command_line_refuses_bad_values_before_training(tmp_path, capsys):
    out = tmp_path / "never"
    assert train.main(["--preset", "quick", "--out", str(out), "--set",
                       "num_tables=-4"]) == 2
    assert "num_tables" in capsys.readouterr().err
    assert train.main(["--preset", "nosuch", "--out", str(out)]) == 2
    assert "preset" in capsys.readouterr().err
    assert not out.exists()
