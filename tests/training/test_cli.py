"""``python -m training COMMAND``: the one entry point of every training command."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

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
    assert main(["trian"]) == 2
    err = capsys.readouterr().err
    assert "unknown command 'trian'" in err and "train" in err
    assert main([]) == 2  # no command: the list, and a usage error


def test_python_dash_m_training_runs_a_command_and_passes_its_exit_code(tmp_path):
    done = subprocess.run([sys.executable, "-m", "training", "eval", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "python -m training eval" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "training", "train", "--preset", "nope",
                          "--out", str(tmp_path / "x")], cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    assert bad.returncode == 2 and "preset" in bad.stderr
    assert not (tmp_path / "x").exists()
