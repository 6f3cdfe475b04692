"""What the trainers share about a run: logs, names, seeds and the curve (training.run)."""

from __future__ import annotations

import csv
import random

import numpy as np
import pytest
import torch

from training import train
from training.run import (
    EVAL_COLUMNS,
    EVAL_SEED,
    FINAL_EVAL_SEED,
    METRICS,
    SELECT_SEED,
    RunDir,
    RunLog,
    append_row,
    eval_scalar,
    plot_learning_curve,
    seed_everything,
)


def _header(path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as f:
        return next(csv.reader(f))


def _scalar_tags(tb_dir) -> set[str]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(tb_dir))
    acc.Reload()
    return set(acc.Tags()["scalars"])


def test_both_trainers_write_the_same_columns_and_scalar_names(tmp_path):
    dmc, sb3 = tmp_path / "dmc", tmp_path / "sb3"
    assert train.main(["--preset", "tiny", "--out", str(dmc), "--quiet", "--time-budget", "1.5",
                       "--final-eval-deals", "0"]) == 0
    assert train.main(["--trainer", "sb3", "--preset", "tiny", "--out", str(sb3), "--quiet",
                       "--final-eval-deals", "0"]) == 0
    columns = [m.column for m in METRICS]
    for run in (dmc, sb3):
        assert _header(run / "metrics.csv") == columns
        assert _header(run / "evals.csv") == list(EVAL_COLUMNS)
    known = {m.scalar for m in METRICS if m.scalar} | {eval_scalar("random")}
    dmc_tags, sb3_tags = _scalar_tags(dmc / "tb"), _scalar_tags(sb3 / "tb")
    assert dmc_tags == known
    assert {"charts/decisions_per_s", eval_scalar("random")} <= sb3_tags <= known
    # A value a trainer does not have stays an empty cell, not a missing column.
    with open(sb3 / "metrics.csv", newline="", encoding="utf-8") as f:
        row = next(csv.DictReader(f))
    assert row["epsilon"] == "" and float(row["decisions_per_s"]) > 0


def test_metrics_are_rounded_in_the_csv_and_unknown_names_refused(tmp_path):
    run = RunDir(tmp_path)
    run.make()
    log = RunLog(run)
    log.metrics({"train_s": 12.345, "decisions": 10, "epsilon": 0.123456, "loss": 0.5})
    with pytest.raises(KeyError, match="not a metric"):
        log.metrics({"decisions": 11, "los": 1.0})
    log.close()
    with open(run.metrics, newline="", encoding="utf-8") as f:
        (row,) = list(csv.DictReader(f))
    assert row["train_s"] == "12.3" and row["epsilon"] == "0.1235" and row["loss"] == "0.5"
    assert row["games"] == ""
    assert _scalar_tags(run.tb) == {"charts/epsilon", "losses/q_mse"}


def test_a_log_started_by_an_older_version_keeps_its_columns(tmp_path):
    path = tmp_path / "metrics.csv"
    path.write_text("train_s,decisions,decisions_per_s,snapshots\n1.0,5,2.0,0\n")
    append_row(path, {"train_s": 2.0, "decisions": 9, "decisions_per_s": 4.0, "loss": 0.1,
                      "snapshots": 1}, [m.column for m in METRICS])
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows == [["train_s", "decisions", "decisions_per_s", "snapshots"],
                    ["1.0", "5", "2.0", "0"], ["2.0", "9", "4.0", "1"]]


def test_seed_everything_seeds_every_generator_in_one_call():
    def draw() -> tuple[float, float, float]:
        return random.random(), float(np.random.random()), float(torch.rand(1))

    seed_everything(3)
    first = draw()
    seed_everything(3)
    assert draw() == first
    seed_everything(4)
    assert draw() != first


def test_every_valid_config_seed_seeds_its_actors():
    # An actor's seed is derived from the config's (training.dmc.actor_seed) and passes
    # numpy's 2**32 for a config seed above half a million: numpy takes it modulo 2**32,
    # seeds below that unchanged, so an old run's numbers do not move.
    from training.config import MAX_ACTORS, MAX_SEED

    seed_everything(MAX_SEED * 7919 + 1000 * (MAX_ACTORS + 1))
    seed_everything(2**32 + 5)
    wrapped = np.random.random(3)
    seed_everything(5)
    np.testing.assert_array_equal(np.random.random(3), wrapped)


def test_a_run_directory_is_not_made_over_a_file(tmp_path):
    from training.run import TrainingError

    (tmp_path / "f").write_text("x", encoding="utf-8")
    with pytest.raises(TrainingError, match="is a file, but the training run needs a directory"):
        RunDir(tmp_path / "f").make()
    with pytest.raises(TrainingError, match="lies under the file"):
        RunDir(tmp_path / "f" / "run").make()


def test_the_deal_seeds_of_evaluation_and_selection_are_apart():
    assert len({EVAL_SEED, FINAL_EVAL_SEED, SELECT_SEED, 1}) == 4  # 1: the README's arena


def test_learning_curve_is_drawn_from_the_evals_file(tmp_path):
    evals = tmp_path / "evals.csv"
    assert plot_learning_curve(evals, tmp_path / "curve.png") is None
    for minutes, mean in ((0.0, -5.0), (1.0, 2.0)):
        append_row(evals, {"train_minutes": minutes, "decisions": 10, "opponent": "random",
                           "mean": mean, "ci_low": mean - 1, "ci_high": mean + 1, "deals": 2},
                   EVAL_COLUMNS)
    out = plot_learning_curve(evals, tmp_path / "curve.png")
    assert out is not None and out.stat().st_size > 0
