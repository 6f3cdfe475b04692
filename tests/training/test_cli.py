"""``python -m training COMMAND``: the one entry point of every training command."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from training.arguments import MAX_SEED
from training.cli import COMMANDS, main

ROOT = Path(__file__).resolve().parents[2]


def test_every_command_names_a_module_with_a_main_of_its_own_parser():
    for command, (module_name, _) in COMMANDS.items():
        module = importlib.import_module(module_name)
        assert callable(module.main), command
        with pytest.raises(SystemExit) as stop:  # argparse's --help exits 0
            module.main(["--help"])
        assert stop.value.code == 0, command


def test_the_list_of_commands_and_a_wrong_command(capsys):
    assert main(["--help"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in COMMANDS)
    # A wrong command, or none, is one line naming the commands and the help (before: the
    # error and then the whole list).
    for argv, what in ((["trian"], "unknown command 'trian'"), ([], "no command given")):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err == (f"python -m training: error: {what}; expected one of "
                       f"{', '.join(COMMANDS)}; see 'python -m training --help'\n")


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_wrong_argument_of_any_command_is_one_line_that_names_its_help(command, capsys):
    # Before: argparse's usage block above the error (34 lines for train).
    with pytest.raises(SystemExit) as stop:
        main([command, "--no-such-option"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    prog = f"python -m training {command}"
    assert err.count("\n") == 1 and err.startswith(f"{prog}: error: "), err
    assert err.endswith(f"; see '{prog} --help'\n"), err


@pytest.mark.parametrize("argv", [["train"], ["eval", "--candidate", "random"], ["select", "."],
                                  ["labels", "--out", "x"], ["expert-iteration", "--out", "x"]])
def test_every_seed_of_the_training_commands_has_the_one_range(argv, capsys):
    # Before: eval refused -1 after parsing, select and labels took any integer, train
    # refused 2**32 only in its config.
    for seed in ("-1", str(MAX_SEED + 1)):
        with pytest.raises(SystemExit) as stop:
            main([*argv, "--seed", seed])
        assert stop.value.code == 2
        assert f"argument --seed: expected a whole number 0..{MAX_SEED}; got {int(seed)}" \
            in capsys.readouterr().err


def test_the_config_bounds_the_seed_as_the_command_lines_do():
    from training.config import ConfigError, make_config

    assert make_config("tiny", "dmc", seed=MAX_SEED).seed == MAX_SEED
    with pytest.raises(ConfigError, match="seed"):
        make_config("tiny", "dmc", seed=MAX_SEED + 1)


def test_python_dash_m_training_runs_a_command_and_passes_its_exit_code(tmp_path):
    done = subprocess.run([sys.executable, "-m", "training", "eval", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "python -m training eval" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "training", "train", "--preset", "nope",
                          "--out", str(tmp_path / "x")], cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    assert bad.returncode == 2 and "preset" in bad.stderr
    assert not (tmp_path / "x").exists()
