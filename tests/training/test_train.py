"""Training end to end: tiny runs of both trainers, resume, the command line (training.train)."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.policy import (
    PolicyLoadError,
    load_policy_agent,
    load_policy_file,
)
from gongzhu_env.engine import Game
from gongzhu_env.rules import PRESETS, Rules
from gongzhu_env.view import obs_size
from tests.helpers import one_line_error, random_views
from training import train
from training.arena.hands import play_hand
from training.train import parse_rules


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


@pytest.mark.parametrize("trainer", ["dmc", "sb3"])
def test_zero_evaluation_deals_train_without_periodic_evaluations(tmp_path, trainer):
    out = tmp_path / trainer
    assert train.main(["--trainer", trainer, "--preset", "tiny", "--out", str(out), "--quiet",
                       "--set", "eval_deals=0", "--set", "final_eval_deals=0"]) == 0
    assert (out / "policy.pt").is_file()
    assert not (out / "evals.csv").exists()


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


@pytest.mark.parametrize("args, why", [
    (["--set", "torch_threads=1000000"], "torch_threads: must be an integer from 1 to 256"),
    (["--set", "hidden=[1000000000]"], "hidden: hidden layer widths must be positive integers"),
    (["--set", "num_tables=1000000000000"], "num_tables: must be an integer from 1 to 16,384"),
    (["--trainer", "sb3", "--set", "n_envs=1000000000"], "n_envs: must be an integer"),
    # (--seed itself is refused by its parser: tests/training/test_cli.py)
    (["--set", "seed=99999999999"], "seed: must be an integer from 0 to 4,294,967,295"),
    (["--time-budget", "nan"], "time_budget_s: must be a number above 0"),
    (["--actors", "1000000"], "num_actors: must be an integer from 0 to 256"),
    (["--set", 'preset="full"'], "--set preset: choose it with --preset"),
    (["--set", "trainer=[1]"], "--set trainer: choose it with --trainer"),
])
def test_sizes_and_thread_counts_are_refused_with_one_line_before_training(tmp_path, capsys,
                                                                           args, why):
    out = tmp_path / "never"
    assert train.main(["--preset", "tiny", "--out", str(out), *args]) == 2
    assert why in one_line_error(capsys)
    assert not out.exists()


@pytest.mark.parametrize("args, why", [
    (["--seed", "3", "--set", "seed=5"], "--set seed=5: seed is already given by --seed 3"),
    (["--set", "num_tables=8", "--set", "num_tables=16"],
     "--set num_tables=16: num_tables is already given by --set num_tables=8"),
    (["--rules", "huapai", "--set", 'rules="standard"'],
     "rules is already given by --rules huapai"),
    (["--actors", "1", "--set", "num_actors=2"], "num_actors is already given by --actors 1"),
])
def test_a_field_given_twice_is_refused_rather_than_the_last_winning(tmp_path, capsys, args,
                                                                     why):
    out = tmp_path / "never"
    assert train.main(["--preset", "tiny", "--out", str(out), *args]) == 2
    assert why in one_line_error(capsys)
    assert not out.exists()


def test_a_file_that_is_not_a_policy_cannot_start_a_run(tmp_path, capsys):
    text = tmp_path / "passwd"
    text.write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    out = tmp_path / "never"
    assert train.main(["--preset", "tiny", "--out", str(out), "--set",
                       f"init_policy={json.dumps(str(text))}"]) == 2
    assert "init_policy: cannot read policy file" in one_line_error(capsys)
    assert not out.exists()


def test_an_out_that_is_a_file_is_refused_and_left_as_it_was(tmp_path, capsys):
    taken = tmp_path / "notes.txt"
    taken.write_text("keep me\n", encoding="utf-8")
    assert train.main(["--preset", "tiny", "--out", str(taken), "--quiet"]) == 2
    assert "is a file, but the training run needs a directory" in one_line_error(capsys)
    assert train.main(["--preset", "tiny", "--out", str(taken / "run"), "--quiet"]) == 2
    assert f"lies under the file {taken}" in one_line_error(capsys)
    assert taken.read_text(encoding="utf-8") == "keep me\n"


@pytest.mark.parametrize("field, value", [("torch_threads", 1_000_000),
                                          ("num_tables", 10**12), ("hidden", [10**9])])
def test_resume_refuses_a_config_json_past_the_bounds(tmp_path, capsys, field, value):
    # The same values written into a run's config.json: --resume validates what it reads.
    from training.config import make_config, save_config

    run = tmp_path / "run"
    run.mkdir()
    save_config(make_config("tiny", "dmc"), str(run / "config.json"))
    data = json.loads((run / "config.json").read_text(encoding="utf-8"))
    data[field] = value
    (run / "config.json").write_text(json.dumps(data), encoding="utf-8")
    assert train.main(["--out", str(run), "--resume", "--quiet"]) == 2
    assert f"config.json: {field}:" in one_line_error(capsys)
    assert sorted(p.name for p in run.iterdir()) == ["config.json"]


# Every rule set trains with both trainers: the network, the buffers and the single-seat env
# take their sizes from the rules. Runs are cut to about a second of training, no evaluation.
_RULE_SETS = [*sorted(PRESETS), '{"pig_sheep_team": true, "declaration": "none"}',
              '{"hidden_exposure": true, "first_drawn_exposure": true}']
_SHORT = {"dmc": ["--time-budget", "0.5", "--set", "eval_interval_s=100"],
          "sb3": ["--set", "total_timesteps=128", "--set", "n_steps=32",
                  "--set", "batch_size=32", "--set", "eval_interval_steps=1000"]}


def _plays_legal_moves_at_its_table(spec: str, rules: Rules) -> None:
    """Seat the policy at every seat of a table of ``rules``: the engine refuses any illegal
    move.
    """
    players = [make_agent(spec, seed=s, rules=rules) for s in range(rules.players)]
    game = play_hand(Game(rules, seed=5).hands, players, rules)
    assert game.is_over()


# Both trainers for every preset; the option dicts (which test the parsing and two more
# sizes) with the DMC trainer only.
# Other table sizes (three seats, and six in three teams) with both trainers.
_TABLE_SIZES = ['{"players": 3}', '{"players": 6, "team_play": true}']


@pytest.mark.parametrize("trainer, rules", [("dmc", r) for r in _RULE_SETS + _TABLE_SIZES]
                         + [("sb3", r) for r in [*sorted(PRESETS), *_TABLE_SIZES]])
def test_every_rule_set_trains_a_policy_that_plays_at_its_table(tmp_path, trainer, rules):
    out = tmp_path / "run"
    assert train.main(["--trainer", trainer, "--preset", "tiny", "--rules", rules,
                       "--out", str(out), "--quiet", "--final-eval-deals", "0",
                       *_SHORT[trainer]]) == 0
    table = Rules.coerce(parse_rules(rules))
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["reward_mode"] == ("team" if table.has_teams else "zero_sum")
    net, data = load_policy_file(out / "policy.pt", table)
    assert data["obs_size"] == net.obs_size == obs_size(table)
    _plays_legal_moves_at_its_table(f"policy:{out / 'policy.pt'}", table)
    if not table.is_standard:
        with pytest.raises(PolicyLoadError, match=r"\(table: "):
            make_agent(f"policy:{out / 'policy.pt'}", seed=0, rules=Rules())


def test_command_line_rules_name_what_is_wrong(tmp_path, capsys):
    out = tmp_path / "never"
    assert train.main(["--preset", "tiny", "--out", str(out), "--rules", "nosuch"]) == 2
    assert "nosuch" in capsys.readouterr().err
    assert train.main(["--preset", "tiny", "--out", str(out), "--rules",
                       '{"team_pla": true}']) == 2
    assert "team_pla" in capsys.readouterr().err
    assert train.main(["--preset", "tiny", "--out", str(out), "--rules", "{oops"]) == 2
    assert "JSON" in capsys.readouterr().err
    assert train.main(["--preset", "tiny", "--out", str(out), "--rules", "huapai", "--set",
                       'reward_mode="team"']) == 2
    assert "reward_mode" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("trainer", ["dmc", "sb3"])
def test_match_episodes_train_a_policy_for_whole_matches(tmp_path, trainer):
    from gongzhu_env.match import Match
    from gongzhu_env.players import play_match_turns, start_hand

    out = tmp_path / "match"
    assert train.main(["--trainer", trainer, "--preset", "tiny", "--episode", "match",
                       "--out", str(out), "--quiet", "--final-eval-deals", "0",
                       *_SHORT[trainer]]) == 0
    assert json.loads((out / "config.json").read_text())["episode"] == "match"
    net, data = load_policy_file(out / "policy.pt")
    assert data["episode"] == "match"
    assert data["obs_size"] == net.obs_size == obs_size(Rules(), True) != obs_size(Rules())
    spec = f"policy:{out / 'policy.pt'}"
    # A whole match, four copies of the policy reading the match blocks.
    match = Match(Rules(), seed=3, max_hands=3)
    players = [make_agent(spec, seed=s) for s in range(4)]
    start_hand(players, match.rules)
    play_match_turns(match, players)
    assert match.is_over() and 1 <= match.hand_number <= 3
    # And a lone hand, which it plays as the first hand of a match.
    _plays_legal_moves_at_its_table(spec, Rules())


def test_a_hand_policy_plays_a_hand_of_a_match_without_the_match_blocks(tmp_path):
    from agents.policy import PolicyAgent
    from gongzhu_env.match import Match
    from tests.helpers import tiny_q_network

    agent = PolicyAgent(tiny_q_network(1), Rules())
    assert agent.episode == "hand"
    match = Match(Rules(), seed=4)
    while match.game.phase != "play":
        match.step(match.game.legal_actions()[-1])
    seat = match.game.current_player
    lone = match.game.view(seat)
    # The same numbers as for the hand alone: the match blocks are left out, not misread.
    np.testing.assert_array_equal(agent.scores(match.view(seat)), agent.scores(lone))
    with pytest.raises(PolicyLoadError, match="reads 77 values"):
        PolicyAgent(type(tiny_q_network())(77, hidden=(8,)), Rules())


def test_one_network_trains_for_a_rules_mix_and_plays_at_each_of_its_tables(tmp_path, capsys):
    out = tmp_path / "mix"
    assert train.main(["--preset", "tiny", "--rules-mix", "standard,huapai,online",
                       "--out", str(out), "--quiet", "--final-eval-deals", "1",
                       *_SHORT["dmc"]]) == 0
    assert "at huapai tables" in (out / "arena.md").read_text()
    net, data = load_policy_file(out / "policy.pt")
    assert [Rules.from_dict(r) for r in data["rules_mix"]] == [
        Rules(), Rules.preset("huapai"), Rules.preset("online")]
    spec = f"policy:{out / 'policy.pt'}"
    for name in ("standard", "huapai", "online"):
        _plays_legal_moves_at_its_table(spec, Rules.preset(name))
    with pytest.raises(PolicyLoadError, match="not among them"):
        make_agent(spec, seed=0, rules=Rules.preset("all_but_sheep"))
    # Options that need one rule set are refused next to a mix, before any work.
    assert train.main(["--preset", "tiny", "--rules-mix", "standard,scrofazero",
                       "--out", str(tmp_path / "never")]) == 2
    assert "team and individual" in capsys.readouterr().err
    assert train.main(["--preset", "tiny", "--set", 'rules_mix=["standard", "huapai"]',
                       "--set", "rules=online", "--out", str(tmp_path / "never")]) == 2
    assert "must be one of the mix" in capsys.readouterr().err
