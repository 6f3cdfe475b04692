"""Resuming interrupted arena matches from their journal (training.arena.journal)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import training.arena.duplicate as ev
from tests.training.arena.spies import count_played
from training.arena.cli import main
from training.arena.deals import generate_deals
from training.arena.duplicate import duplicate_match
from training.arena.journal import JournalError, spec_fingerprint


class Interrupt(Exception):
    """Stands for a kill arriving after some chunks were written."""


def _interrupt_after(monkeypatch, chunks: int) -> None:
    """Make the run die after ``chunks`` chunks reached the journal."""
    real = ev.ArenaJournal.append
    seen = []

    def append(self, rows, hands):
        real(self, rows, hands)
        seen.append(1)
        if len(seen) == chunks:
            raise Interrupt

    monkeypatch.setattr(ev.ArenaJournal, "append", append)


def test_interrupted_match_resumes_to_the_uninterrupted_result(tmp_path, monkeypatch):
    fresh = duplicate_match("greedy", "random", 10, seed=4, chunk_size=3)
    path = tmp_path / "j.jsonl"
    with monkeypatch.context() as m:
        _interrupt_after(m, 2)
        with pytest.raises(Interrupt):
            duplicate_match("greedy", "random", 10, seed=4, chunk_size=3, journal=path)
    assert len(path.read_text().splitlines()) == 1 + 6  # header and two chunks of 3 deals
    played = count_played(monkeypatch)
    resumed = duplicate_match("greedy", "random", 10, seed=4, chunk_size=3, journal=path,
                              resume=True)
    assert sorted(played) == [6, 7, 8, 9]  # the six journalled deals are not played again
    assert np.array_equal(resumed.diffs, fresh.diffs)
    assert np.array_equal(resumed.scores, fresh.scores)


def test_a_shorter_run_journal_serves_the_prefix_of_a_longer_one(tmp_path, monkeypatch):
    path = tmp_path / "j.jsonl"
    duplicate_match("greedy", "random", 4, seed=2, journal=path)
    played = count_played(monkeypatch)
    longer = duplicate_match("greedy", "random", 7, seed=2, journal=path, resume=True)
    assert sorted(played) == [4, 5, 6]
    assert np.array_equal(longer.diffs, duplicate_match("greedy", "random", 7, seed=2).diffs)


def test_existing_journal_is_never_overwritten_without_resume(tmp_path):
    path = tmp_path / "j.jsonl"
    duplicate_match("random", "random", 3, seed=1, journal=path)
    before = path.read_text()
    with pytest.raises(JournalError, match="--resume"):
        duplicate_match("random", "random", 3, seed=1, journal=path)
    assert path.read_text() == before


@pytest.mark.parametrize("change, expect", [
    (dict(opponent="greedy"), "opponent"),
    (dict(seed=6), "seed"),
    (dict(mode="2v2"), "mode"),
    (dict(rules="huapai"), "rules"),
])
def test_journal_of_another_match_is_refused(tmp_path, change, expect):
    path = tmp_path / "j.jsonl"
    base = dict(candidate="random", opponent="random", deals=3, seed=5, mode="1v3")
    duplicate_match(**base, journal=path)
    with pytest.raises(JournalError, match=f"different match: {expect}"):
        duplicate_match(**{**base, **change}, journal=path, resume=True)


def test_journal_of_other_deals_is_refused(tmp_path):
    path = tmp_path / "j.jsonl"
    duplicate_match("random", "random", generate_deals(3, 8), seed=5, journal=path)
    with pytest.raises(JournalError, match="other hands than deal 0"):
        duplicate_match("random", "random", generate_deals(3, 9), seed=5, journal=path,
                        resume=True)


def test_cut_last_line_is_dropped_and_damage_elsewhere_is_named(tmp_path, monkeypatch):
    path = tmp_path / "j.jsonl"
    duplicate_match("random", "greedy", 4, seed=3, chunk_size=1, journal=path)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:3]) + lines[3][:25])  # a kill in the middle of deal 2's line
    played = count_played(monkeypatch)
    res = duplicate_match("random", "greedy", 4, seed=3, chunk_size=1, journal=path,
                          resume=True)
    assert sorted(played) == [2, 3]
    assert np.array_equal(res.diffs, duplicate_match("random", "greedy", 4, seed=3).diffs)
    assert all(json.loads(t) for t in path.read_text().splitlines())  # the file is whole again
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + "{oops\n" + "".join(lines[2:]))
    with pytest.raises(JournalError, match="line 2 is not valid JSON"):
        duplicate_match("random", "greedy", 4, seed=3, journal=path, resume=True)


def test_journal_needs_specs_and_resume_needs_a_journal(tmp_path):
    from agents import make_agent

    with pytest.raises(ValueError, match="agent specs"):
        duplicate_match(make_agent("random", seed=0), "random", 2, journal=tmp_path / "j")
    with pytest.raises(ValueError, match="needs a journal"):
        duplicate_match("random", "random", 2, resume=True)


def test_policy_fingerprint_follows_the_file_contents(tmp_path):
    pytest.importorskip("torch")
    from agents.policy import QNetwork, save_policy
    from gongzhu_env.rules import Rules

    path = tmp_path / "p.pt"
    save_policy(path, QNetwork(hidden=(8,)), Rules())
    first = spec_fingerprint(f"policy:{path}")
    save_policy(path, QNetwork(hidden=(9,)), Rules())
    assert first is not None and spec_fingerprint(f"policy:{path}") != first
    assert spec_fingerprint("pimc:worlds=8") is None


def test_cli_resume_continues_and_cleans_up(tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    args = ["--candidate", "greedy", "--opponents", "random,expert", "--deals", "6", "--seed",
            "2", "--workers", "1", "--out", str(out), "--no-progress", "--no-plot"]
    with monkeypatch.context() as m:
        _interrupt_after(m, 4)  # dies during the second match
        with pytest.raises(Interrupt):
            main(args)
    journals = sorted(p.name for p in (out / "journal").iterdir())
    assert journals == ["greedy__vs__expert__1v3.jsonl", "greedy__vs__random__1v3.jsonl"]
    assert main(args) == 2  # without --resume the finished deals are not thrown away
    assert "--resume" in capsys.readouterr().err
    played = count_played(monkeypatch)
    assert main([*args, "--resume"]) == 0
    assert len(played) < 12
    assert not (out / "journal").exists()  # eval.json now holds every deal
    resumed = json.loads((out / "eval.json").read_text())["results"]
    fresh = tmp_path / "fresh"
    assert main([*args[:-4], "--out", str(fresh), "--no-progress", "--no-plot"]) == 0
    expected = json.loads((fresh / "eval.json").read_text())["results"]
    assert [r["diffs"] for r in resumed] == [r["diffs"] for r in expected]
    assert main(["--candidate", "greedy", "--opponents", "random", "--deals", "2",
                 "--resume"]) == 2
    assert "--out" in capsys.readouterr().err


def test_kept_journals_serve_a_later_round_robin_and_a_longer_match(tmp_path, monkeypatch,
                                                                      capsys):
    out = tmp_path / "run"
    base = ["--seed", "3", "--workers", "1", "--no-progress", "--no-plot"]
    pair = ["--candidate", "greedy", "--opponents", "random"]
    assert main([*pair, "--deals", "6", *base, "--out", str(out), "--keep-journals"]) == 0
    assert (out / "journal" / "greedy__vs__random__1v3.jsonl").exists()
    # A shorter round robin holding the pair replays none of its deals, and its numbers are
    # those of a round robin played from scratch.
    played = count_played(monkeypatch)
    rr = ["--round-robin", "expert,greedy,random", "--deals", "4", *base]
    assert main([*rr, "--out", str(out), "--resume", "--keep-journals"]) == 0
    assert len(played) == 2 * 4  # expert-greedy and expert-random only
    fresh = tmp_path / "fresh"
    assert main([*rr, "--out", str(fresh)]) == 0
    reused, expected = (json.loads((d / "round_robin.json").read_text())["matches"]
                        for d in (out, fresh))
    assert [m["diffs"] for m in reused] == [m["diffs"] for m in expected]
    assert not (fresh / "journal").exists()  # removed once the results are written
    # A longer match plays only the deals beyond its journal.
    played.clear()
    assert main([*pair, "--deals", "9", *base, "--out", str(out), "--resume"]) == 0
    assert sorted(played) == [6, 7, 8]
    assert not (out / "journal").exists()
    assert main([*pair, "--deals", "2", *base, "--keep-journals"]) == 2
    assert "--keep-journals" in capsys.readouterr().err
