"""The shipped network's recipe: the full run, then expert-iteration legs chained on each
other's networks and labels, timed, resumable."""

from __future__ import annotations

import json
import os
from dataclasses import replace

import pytest

pytest.importorskip("torch")

from gongzhu_env.rules import Rules  # noqa: E402
from tests.helpers import one_line_error  # noqa: E402
from training.expert_iteration import ExpertIteration  # noqa: E402
from training.expert_iteration import recipe as shipped_recipe  # noqa: E402
from training.expert_iteration.recipe import (  # noqa: E402
    LEG_RECIPE,
    LEGS,
    Settings,
    ShippedRecipe,
    first_beat,
)
from training.label_sets import load_labels  # noqa: E402


def _quiet(*_: object) -> None:
    pass


TOY = Settings(preset="tiny", legs=2,
               leg=replace(LEG_RECIPE, hands=1, search="search:worlds=2", train_s=2.0,
                           gate_deals=2, preset="tiny", others="pimc:worlds=2"))


def test_a_toy_chain_trains_then_runs_legs_on_each_others_networks_and_labels(tmp_path):
    """End to end at toy sizes: leg 1 starts from the full run's network, leg 2 from leg 1's
    best and trains on leg 1's labels with its own; the report times every stage; a second
    run without --resume is refused and with it nothing is redone."""
    out = tmp_path / "recipe"
    report = ShippedRecipe(out, TOY, workers=1, log=_quiet).run()
    legs = [json.loads((out / f"leg-{k}" / "state.json").read_text()) for k in (1, 2)]
    assert legs[0]["recipe"]["start"] == str(out / "full" / "policy.pt")
    assert legs[1]["recipe"]["start"] == str(out / "leg-1" / "policy.pt")
    assert [s["recipe"]["seed"] for s in legs] == [g.seed for g in LEGS[:2]]
    assert [s["recipe"]["share"] for s in legs] == [g.share for g in LEGS[:2]]
    own = [str(out / f"leg-{k}" / "round-1" / "labels") for k in (1, 2)]
    assert legs[1]["rounds"][0]["trained_on"] == os.pathsep.join(own)
    assert all(load_labels(d, Rules())[0].shape[0] > 0 for d in own)
    assert (out / "policy.pt").read_bytes() == (out / "leg-2" / "policy.pt").read_bytes()
    assert list(report["stages"]) == ["full", "leg-1", "leg-2"]
    assert all(s["done"] and s["wall_s"] > 0 for s in report["stages"].values())
    assert report["total_s"] == pytest.approx(
        sum(s["wall_s"] for s in report["stages"].values()), abs=0.2)
    assert [report["stages"][f"leg-{k}"]["kept"] for k in (1, 2)] == [
        s["rounds"][0]["accepted"] for s in legs]
    assert json.loads((out / "recipe.json").read_text()) == report
    with pytest.raises(ValueError, match="pass --resume"):
        ShippedRecipe(out, TOY, workers=1, log=_quiet).run()
    again = ShippedRecipe(out, TOY, workers=1, log=_quiet).run(resume=True)
    assert again["stages"] == report["stages"]
    with pytest.raises(ValueError, match="other settings"):
        ShippedRecipe(out, replace(TOY, preset="quick"), workers=1, log=_quiet).run(resume=True)


def test_a_stopped_stage_resumes_and_its_time_adds_up(tmp_path, monkeypatch):
    """A leg that stops is not marked done; --resume runs it again (resuming its own files)
    and its wall-clock time is the sum of both attempts."""
    calls: list[tuple[int, bool]] = []
    clock = iter(float(t) for t in range(0, 1000, 5))
    monkeypatch.setattr(shipped_recipe.time, "perf_counter", lambda: next(clock))

    def full(self):
        (self.out / "full").mkdir(parents=True, exist_ok=True)
        (self.out / "full" / "policy.pt").write_bytes(b"net")
        return {}

    def leg(self, k, resume):
        calls.append((k, resume))
        if len(calls) == 1:
            raise KeyboardInterrupt
        (self.leg_dir(k)).mkdir(parents=True, exist_ok=True)
        (self.leg_dir(k) / "policy.pt").write_bytes(b"leg")
        return {"kept": True}

    monkeypatch.setattr(ShippedRecipe, "train_full", full)
    monkeypatch.setattr(ShippedRecipe, "run_leg", leg)
    out = tmp_path / "recipe"
    with pytest.raises(KeyboardInterrupt):
        ShippedRecipe(out, Settings(legs=1), log=_quiet).run()
    stopped = json.loads((out / "recipe.json").read_text())["stages"]
    assert stopped["full"]["done"] and not stopped["leg-1"]["done"]
    report = ShippedRecipe(out, Settings(legs=1), log=_quiet).run(resume=True)
    assert calls == [(1, False), (1, True)]
    assert report["stages"]["leg-1"] == {"wall_s": 10.0, "done": True, "kept": True}
    assert report["stages"]["full"]["wall_s"] == 5.0 and report["total_s"] == 15.0


def test_first_beat_is_the_first_evaluation_with_its_ci_above_zero(tmp_path):
    evals = tmp_path / "evals.csv"
    evals.write_text("train_minutes,decisions,opponent,mean,ci_low,ci_high,deals\n"
                     "10,1,expert,9.6,-10.0,29.0,150\n"
                     "20,2,random,50.0,40.0,60.0,150\n"
                     "20,2,expert,34.5,15.0,54.0,150\n"
                     "30,3,expert,40.0,20.0,60.0,150\n")
    assert first_beat(evals) == {"train_minutes": 20.0, "mean": 34.5, "ci_low": 15.0,
                                 "ci_high": 54.0}
    assert first_beat(evals, "greedy") is None
    assert first_beat(tmp_path / "missing.csv") is None


def test_settings_are_checked_by_name(tmp_path, capsys):
    with pytest.raises(ValueError, match="legs: must be an integer from 0 to 3"):
        Settings(legs=4).validate()
    with pytest.raises(ValueError, match="hands: must be a positive integer"):
        Settings(leg=replace(LEG_RECIPE, hands=0)).validate()
    assert shipped_recipe.main(["--out", str(tmp_path / "x"), "--legs", "-1"]) == 2
    assert "legs:" in capsys.readouterr().err and not (tmp_path / "x").exists()


def test_the_legs_run_as_expert_iteration_runs(tmp_path, monkeypatch):
    """Each leg is an ordinary expert-iteration run: its directory resumes with that
    module's own command."""
    seen: list[tuple[str, bool]] = []

    def run(self, resume=False):
        seen.append((str(self.out), resume))
        return {"rounds": [{"accepted": False, "gate": {"mean": -1.0},
                            "against_baseline": {"mean": 0.0}}]}

    monkeypatch.setattr(ExpertIteration, "run", run)
    recipe = ShippedRecipe(tmp_path, Settings(), log=_quiet)
    assert recipe.run_leg(2, resume=True) == {"kept": False, "gate": -1.0,
                                             "against_expert": 0.0}
    assert seen == [(str(tmp_path / "leg-2"), False)]  # no state.json yet: a fresh start


@pytest.mark.parametrize("args, why", [
    (["--resume"], "cannot resume: "),
    (["--workers", "0"], "workers: must be an integer from 1 to 256"),
    (["--workers", "100000"], "workers: must be an integer from 1 to 256"),
])
def test_the_command_refuses_resume_without_a_run_and_bad_worker_counts(tmp_path, capsys,
                                                                        monkeypatch, args, why):
    def no_stage(*_: object, **__: object) -> None:
        raise AssertionError("a stage started")

    monkeypatch.setattr(ShippedRecipe, "stage", no_stage)
    out = tmp_path / "new"
    assert shipped_recipe.main(["--out", str(out), *args]) == 2
    assert why in one_line_error(capsys)
    assert not out.exists()


def test_an_out_that_is_a_file_or_a_preset_that_is_none_is_refused(tmp_path, capsys):
    taken = tmp_path / "notes.txt"
    taken.write_text("keep me\n", encoding="utf-8")
    assert shipped_recipe.main(["--out", str(taken)]) == 2
    assert "is a file, but the recipe run needs a directory" in capsys.readouterr().err
    assert taken.read_text(encoding="utf-8") == "keep me\n"
    with pytest.raises(ValueError, match="preset: must be one of"):
        Settings(preset="huge").validate()
