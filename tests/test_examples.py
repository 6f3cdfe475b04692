"""Every script in ``examples/`` runs, at small sizes, and does what its docstring says.

Each example is started as a user starts it (``python examples/NAME.py ...``) in a child
process with this checkout first on the path, so an example that stops working with the code
fails here. The sizes are the smallest that still exercise the whole script (train, save,
load, play in the arena); the numbers a full-size run reaches are on the site's Examples page.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agents import make_agent
from agents.policy import load_policy_file
from tests.helpers import HANG_S, random_views
from tests.training.ray_support import RAY_GROUP, loopback_only_network, require_ray

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def run_example(name: str, *args: str, cwd: Path) -> str:
    """Run ``examples/NAME.py ARGS`` as a user would; return its output (it must exit 0)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py"), *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=HANG_S)
    assert proc.returncode == 0, f"{name} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def arena_rows(out: str) -> dict[str, float]:
    """The arena table an example printed: opponent -> mean points/hand."""
    rows = re.findall(r"^\| (\S+) \| ([+-]\d+\.\d) \|", out, flags=re.M)
    return {name: float(mean) for name, mean in rows}


TESTED = {"custom_agent_arena", "train_maskable_ppo", "cleanrl_vector_loop", "play_pretrained",
          "evaluate_against_search", "rllib_ppo", "openspiel_dqn"}


def test_every_example_has_a_test():
    assert {p.stem for p in EXAMPLES.glob("*.py")} == TESTED


def test_custom_agent_is_ranked_and_the_same_seed_gives_the_same_numbers(tmp_path):
    out = run_example("custom_agent_arena", "--deals", "40", "--seed", "3", cwd=tmp_path)
    assert set(arena_rows(out)) == {"random", "greedy", "expert"}
    ratings = dict(re.findall(r"^\s*(\w+)\s+([+-]\d+\.\d)$", out, flags=re.M))
    assert set(ratings) == {"pig_dumper", "random", "greedy"}
    assert float(ratings["random"]) == 0.0  # the anchor
    # Lowest card, pig dropped at once, no exposure: weaker than greedy, on any 40 deals.
    assert float(ratings["greedy"]) > float(ratings["pig_dumper"])
    assert run_example("custom_agent_arena", "--deals", "40", "--seed", "3", cwd=tmp_path) == out


def test_openspiel_dqn_learns_on_python_gongzhu_and_is_ranked_the_same_for_a_seed(tmp_path):
    args = ("--episodes", "60", "--deals", "4", "--seed", "1")
    out = run_example("openspiel_dqn", *args, cwd=tmp_path)
    assert "trained 60 self-play hands" in out and "last loss" in out  # it did learn
    assert set(arena_rows(out)) == {"random", "expert"}
    again = run_example("openspiel_dqn", *args, cwd=tmp_path)
    assert arena_rows(again) == arena_rows(out)


def test_maskable_ppo_trains_saves_and_plays_in_the_arena(tmp_path):
    out = run_example("train_maskable_ppo", "--timesteps", "256", "--n-steps", "64",
                      "--deals", "4", "--save", "model.zip", cwd=tmp_path)
    assert "MaskablePPO after 256 learner steps" in out
    assert set(arena_rows(out)) == {"random", "greedy"}
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(tmp_path / "model.zip")
    assert model.num_timesteps == 256
    assert model.observation_space.shape == (600,)


def test_cleanrl_loop_runs_its_iterations_and_evaluates(tmp_path):
    out = run_example("cleanrl_vector_loop", "--num-envs", "8", "--num-steps", "16",
                      "--total-timesteps", "384", "--hidden", "32", "--eval-deals", "4",
                      cwd=tmp_path)
    iterations = re.findall(r"^iteration (\d+)/(\d+)\s+decisions ([\d,]+)", out, flags=re.M)
    assert [(int(i), int(n)) for i, n, _ in iterations] == [(1, 3), (2, 3), (3, 3)]
    assert iterations[-1][2] == "384"
    assert set(arena_rows(out)) == {"random", "greedy"}


def test_cleanrl_loop_flags_carry_the_field_docstrings(tmp_path):
    out = run_example("cleanrl_vector_loop", "--help", cwd=tmp_path)
    assert "--num-envs" in out and "tables stepped together" in out


@pytest.mark.parametrize("rules", ["standard", "two_decks"])
def test_pretrained_policy_plays_a_hand(rules, tmp_path):
    out = run_example("play_pretrained", "--rules", rules, "--seed", "2", cwd=tmp_path)
    assert "training decisions" in out and "phase: over" in out
    scores = re.search(r"raw scores \(seat 0 is the network\): \[(.*)\]", out)
    assert scores is not None and len(scores.group(1).split(",")) == 4


def test_evaluation_against_search_resumes_from_its_journal(tmp_path):
    args = ("--deals", "2", "--worlds", "2", "--seed", "1", "--out", "match")
    first = run_example("evaluate_against_search", *args, cwd=tmp_path)
    assert "policy:pretrained against search:worlds=2" in first
    assert (tmp_path / "match" / "journal.jsonl").is_file()
    again = run_example("evaluate_against_search", *args, "--resume", cwd=tmp_path)
    assert again.splitlines()[-1] == first.splitlines()[-1]


@RAY_GROUP
def test_rllib_example_trains_exports_and_plays(tmp_path):
    require_ray()
    with loopback_only_network():  # Ray and the child it runs in reach nothing but loopback
        out = run_example("rllib_ppo", "--iterations", "1", "--batch-size", "256",
                          "--hidden", "16", "--envs", "2", "--deals", "4", "--out", "rl",
                          cwd=tmp_path)
    assert re.search(r"^iteration 1: env steps \d", out, flags=re.M)
    assert set(arena_rows(out)) == {"random", "greedy"}
    net, data = load_policy_file(tmp_path / "rl" / "policy.pt")
    assert data["trainer"] == "rllib-ppo" and data["architecture"]["hidden"] == [16]
    agent = make_agent(f"policy:{tmp_path / 'rl' / 'policy.pt'}", seed=0)
    for view in random_views(10, 1):
        assert agent.act(view) in view.legal_actions
