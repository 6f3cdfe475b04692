"""Checkpoint selection at the end of a run and from the command line (training.select)."""

from __future__ import annotations

import json

import torch

from agents.policy import (
    load_policy_file,
)
from training import train


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
