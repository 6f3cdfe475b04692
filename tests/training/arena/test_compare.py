"""Pairing two kept journals (training.arena.compare): each side is the match's own result on
the shared deals, the difference is taken deal by deal, and journals that do not hold the same
deals are refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

from training.arena.cli import main as eval_main
from training.arena.compare import compare
from training.arena.compare import main as compare_main
from training.arena.journal import JournalError

BASE = ["--opponents", "random", "--workers", "1", "--no-progress", "--no-plot",
        "--keep-journals"]


def _match(tmp_path, candidate: str, deals: int, seed: int = 3):
    out = tmp_path / f"{candidate}-{deals}-{seed}"
    assert eval_main(["--candidate", candidate, "--deals", str(deals), "--seed", str(seed),
                      *BASE, "--out", str(out)]) == 0
    result = json.loads((out / "eval.json").read_text())["results"][0]
    return out / "journal" / f"{candidate}__vs__random__1v3.jsonl", result


def test_each_side_is_its_match_and_the_difference_is_per_deal(tmp_path, capsys):
    greedy, g = _match(tmp_path, "greedy", 8)
    expert, e = _match(tmp_path, "expert", 5)  # fewer deals: only five are shared
    c = compare(expert, greedy)
    assert c.deals == 5
    short_greedy = _match(tmp_path, "greedy", 5)[1]  # greedy's own match on those five deals
    assert c.a.mean == pytest.approx(e["stats"]["mean"])
    assert (c.b.ci_low, c.b.ci_high) == (short_greedy["stats"]["ci_low"],
                                         short_greedy["stats"]["ci_high"])
    per_deal = np.array(e["diffs"]) - np.array(g["diffs"][:5])
    assert c.difference.mean == pytest.approx(per_deal.mean())
    assert c.difference.std == pytest.approx(per_deal.std(ddof=1))
    assert compare(expert, greedy, deals=3).deals == 3
    assert compare_main([str(expert), str(greedy)]) == 0
    out = capsys.readouterr().out
    assert "5 deals finished in both journals" in out and "A - B, per deal" in out


def test_journals_of_other_deals_or_damaged_ones_are_refused(tmp_path, capsys):
    greedy, _ = _match(tmp_path, "greedy", 4, seed=3)
    other_seed, _ = _match(tmp_path, "expert", 4, seed=4)
    with pytest.raises(JournalError, match="seed differ"):
        compare(greedy, other_seed)
    assert compare_main([str(greedy), str(other_seed)]) == 1
    assert "cannot be paired" in capsys.readouterr().err
    damaged = tmp_path / "damaged.jsonl"
    lines = greedy.read_text().splitlines()
    lines[2] = lines[2].replace('"deal": 1', '"deal": 2')  # breaks the digest chain
    damaged.write_text("\n".join(lines) + "\n")
    with pytest.raises(JournalError, match="integrity"):
        compare(damaged, greedy)
    assert compare_main([str(tmp_path / "missing.jsonl"), str(greedy)]) == 1
    assert "cannot read" in capsys.readouterr().err
