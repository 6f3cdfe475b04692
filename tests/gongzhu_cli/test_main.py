"""The ``gongzhu`` command: help, demo and the forwarding fronts (gongzhu_cli.main)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import gongzhu_cli.main as cli
import gongzhu_env
from tests.gongzhu_cli.session import ENV, ROOT
from tests.helpers import HANG_S
from training.arguments import MAX_SEED


def test_forward_passes_arguments_unchanged(tmp_path, monkeypatch):
    (tmp_path / "fake_front.py").write_text(
        "seen = []\ndef main(argv):\n    seen.append(list(argv))\n    return 3\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(cli.FRONTS, "eval", ("fake_front", "a fake arena", "train"))
    assert cli.main(["eval", "--help", "--deals", "8"]) == 3
    import fake_front

    assert fake_front.seen == [["--help", "--deals", "8"]]


def test_forward_missing_module_is_explained(monkeypatch, capsys):
    monkeypatch.setitem(cli.FRONTS, "train", ("no_such_module_xyz", "self-play training",
                                              "train"))
    assert cli.main(["train", "--preset", "quick"]) == 2
    assert "not available in this installation" in capsys.readouterr().err


def test_bench_without_checkout_is_explained(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "bench_script", lambda: tmp_path / "bench_env.py")
    assert cli.main(["bench", "--hands", "1"]) == 2
    err = capsys.readouterr().err
    assert "not available" in err and "bench_env.py" in err


def test_help_everywhere():
    for args in (["--help"], ["play", "--help"], ["replay", "--help"], ["demo", "--help"]):
        out = subprocess.run([sys.executable, "-m", "gongzhu_cli", *args], cwd=ROOT, env=ENV,
                             capture_output=True, text=True, timeout=HANG_S)
        assert out.returncode == 0 and "usage: gongzhu" in out.stdout


def test_demo_still_works():
    out = subprocess.run([sys.executable, "-m", "gongzhu_cli", "demo", "--seed", "2"],
                         cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=HANG_S)
    assert out.returncode == 0
    scores = json.loads(out.stdout.strip().splitlines()[-1].split(":", 1)[1])
    assert len(scores) == 4


@pytest.mark.parametrize("argv, said", [
    (["demo", "--rules", "nope"], "--rules: unknown rules preset 'nope'"),
    (["demo", "--rules", '{"dekcs": 2}'], "unknown rule option(s) ['dekcs']"),
    (["demo", "--agent", "wizard"], "--agent: unknown agent 'wizard'"),
    (["demo", "--agent", "policy:/no/such/policy.pt"], "policy file not found"),
    (["play", "--rules", "nope"], "--rules: unknown rules preset 'nope'"),
    # A flag and the --rules object setting the same rule differently: before, the flag won
    # silently (six seats were played where the rules said five).
    (["demo", "--rules", '{"players": 5}', "--players", "6"],
     "--players 6 conflicts with --rules, which sets players to 5"),
    (["play", "--rules", '{"players": 5}', "--players", "4"],
     "--players 4 conflicts with --rules, which sets players to 5"),
    (["play", "--rules", '{"match_threshold": -800}', "--threshold", "-1000", "--match"],
     "--threshold -1000 conflicts with --rules, which sets match_threshold to -800"),
])
def test_bad_command_line_values_are_named_without_a_traceback(argv, said, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err


def test_demo_takes_rules_as_json(capsys):
    assert cli.main(["demo", "--rules", '{"decks": 2}', "--seed", "1"]) == 0
    assert "raw scores:" in capsys.readouterr().out


@pytest.mark.parametrize("argv, seats", [
    (["--rules", '{"players": 5}', "--players", "5"], 5),
    (["--rules", "standard", "--players", "6"], 6),
    (["--rules", '{"players": 3}'], 3),
])
def test_demo_table_size_from_either_place_when_they_agree(argv, seats, capsys):
    assert cli.main(["demo", "--seed", "1", *argv]) == 0
    scores = json.loads(capsys.readouterr().out.strip().splitlines()[-1].split(":", 1)[1])
    assert len(scores) == seats


@pytest.mark.parametrize("argv, said", [
    # Before: numpy's "expected non-negative integer" traceback after the kernels compiled.
    (["--seed", "-1"], "argument --seed: expected a whole number 0..4294967295; got -1"),
    (["--hands", "1000000000000"], "--hands must be an integer 1..100,000"),
    (["--repeats", "0"], "--repeats must be an integer 1..100"),
    # Before: the whole benchmark ran, then open() failed on the missing directory.
    (["--json", "/no/such/dir/bench.json"], "--json '/no/such/dir/bench.json': cannot write "
     "there: the directory '/no/such/dir' does not exist"),
])
def test_bench_refuses_bad_arguments_before_measuring(argv, said, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["bench", "--no-batch", "--no-openspiel", "--hands", "1", "--repeats", "1",
                  *argv])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err


def test_bench_writes_json_where_asked(tmp_path):
    out = tmp_path / "bench.json"
    assert cli.main(["bench", "--no-batch", "--no-openspiel", "--hands", "2", "--repeats", "1",
                     "--only", "engine", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["hands"] == 2 and [r["name"] for r in doc["rows"]] == ["engine"]


def test_version_prints_the_package_version(capsys):
    # Before: "unrecognized arguments: --version" after the whole usage.
    with pytest.raises(SystemExit) as stop:
        cli.main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"gongzhu {gongzhu_env.__version__}\n"


@pytest.mark.parametrize("argv, command", [
    (["--bogus"], "gongzhu"),
    ([], "gongzhu"),
    (["nope"], "gongzhu"),
    (["play", "--seat", "x"], "gongzhu play"),
    (["replay"], "gongzhu replay"),
    (["serve", "--port", "x"], "gongzhu serve"),
    (["demo", "--sede", "3"], "gongzhu demo"),
    (["eval", "--candidate", "random", "--deals", "x"], "gongzhu eval"),
    (["train", "--trainer"], "gongzhu train"),
    (["bench", "--clock", "sundial"], "gongzhu bench"),
])
def test_a_wrong_argument_is_one_line_that_names_the_help(argv, command, capsys):
    # Before: argparse's usage (up to 34 lines for train) above the line that matters.
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"{command}: error: "), err
    assert err.endswith(f"; see '{command} --help'\n"), err


@pytest.mark.parametrize("argv", [
    ["play"], ["demo"], ["eval", "--candidate", "random"], ["train"], ["bench", "--no-batch"],
])
@pytest.mark.parametrize("seed", ["-1", str(MAX_SEED + 1), str(2**80), "1e3"])
def test_every_seed_has_the_one_range(argv, seed, capsys):
    # Before: demo took 2**80, eval refused -1 after parsing, train refused 2**32 in the
    # config, bench took anything below 2**63: four ranges and three kinds of message.
    with pytest.raises(SystemExit) as stop:
        cli.main([*argv, "--seed", seed])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --seed: expected a whole number 0..{MAX_SEED}; got " in err, err


def test_the_largest_seed_plays(capsys):
    assert cli.main(["demo", "--seed", str(MAX_SEED)]) == 0
    assert "raw scores:" in capsys.readouterr().out
    assert cli.build_parser().parse_args(["play", "--seed", f" {MAX_SEED} "]).seed == MAX_SEED
