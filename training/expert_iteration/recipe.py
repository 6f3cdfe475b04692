"""The shipped standard network in one command: the ``full`` preset, then expert iteration.

``policy:pretrained`` at a standard table was not made by one training run. It is the ``full``
preset's self-play (seed 0, 90 minutes; shipped alone as ``gongzhu_dmc_full_selfplay.pt``),
followed by ``LEGS`` rounds of expert iteration at a mixed table
(``training.expert_iteration``): the network-guided search at one seat beside three ``pimc``
players labels 2,000 hands, the network is fine-tuned for 20 minutes on self-play with part of
every minibatch drawn from those labels and from every earlier leg's labels, and a gate keeps
the new network only if it beats the previous one without losing ground to ``expert``. Each
leg starts from the previous leg's best network. This module runs that chain with the
settings each leg was run with (docs/search.md, the mixed-table rounds), so one command
repeats the recipe of the shipped network.

    python -m training recipe --out runs/shipped            # about 5.6 hours, 2 cores
    python -m training recipe --out runs/shipped --resume   # carry on after a stop

Every stage resumes from its own files (checkpoints, label chunks, arena journals), so a stop
loses at most a checkpoint interval or a label chunk. ``--out/recipe.json`` records each
stage's wall-clock seconds (summed over the legs of a resumed run), the total, and when the
run first beat ``expert``: the first of the ``full`` run's periodic evaluations whose 95 % CI
lies above zero. The run's best network is ``--out/policy.pt``.

Training is time-budgeted and its actors run in parallel, so a repeat follows the same
procedure and seeds but does not give the same weights bit for bit.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from training.arguments import CommandParser, command_prog
from training.config.base import ConfigBase, add_field_options
from training.config.checks import (
    ConfigError,
    fraction,
    int_field,
    nonneg_int,
    one_of,
    quoted,
)
from training.config.choices import PRESETS
from training.expert_iteration import ExpertIteration, Recipe


@dataclass(frozen=True)
class Leg(ConfigBase):
    """What differs between the expert-iteration legs of the recipe."""

    seed: int
    """Seed of the leg's label hands and fine-tune (deal seed ``seed * 1000 + 1``)."""
    share: float
    """Share of each fine-tune minibatch drawn from the labels."""

    def validate(self) -> None:
        """Refuse a leg that no ``Recipe`` could run (``ConfigError`` naming the field)."""
        nonneg_int(self, "seed")
        fraction(self, "share", above_zero=True)


FULL_SEED = 0
"""Seed of the ``full`` preset's run, the start of the chain."""
LEGS: tuple[Leg, ...] = (Leg(0, 0.25), Leg(1, 0.3), Leg(2, 0.3))
"""The legs as rounds 1 to 3 of docs/search.md were run: the first drew a quarter of each
minibatch from its labels, the later ones 30 % once earlier legs' labels were pooled."""
LEG_RECIPE = Recipe(rounds=1, hands=2000, search="search", train_s=1200.0, lr=1e-4,
                    gate_deals=4000, rules="standard", preset="full", others="pimc")
"""The settings every leg shares (``start``, ``seed``, ``share`` and ``extra_labels`` are
filled in per leg)."""


@dataclass(frozen=True)
class Settings(ConfigBase):
    """What the command line may change (smaller values make a quick trial of the chain)."""

    preset: str = "full"
    """Training preset of the first stage."""
    legs: int = len(LEGS)
    """Expert-iteration legs after the full run, from 0 to ``len(LEGS)``: fewer make a
    shorter trial of the chain; a resumed run may change only this."""
    leg: Recipe = LEG_RECIPE
    """The settings every leg shares (``LEG_RECIPE``; each leg fills in its own start, seed,
    share and earlier labels)."""

    def validate(self) -> None:
        """Refuse settings that cannot make a run (``ConfigError`` naming the setting)."""
        int_field(self, "legs", 0, len(LEGS))
        one_of(self, "preset", PRESETS)
        if not isinstance(self.leg, Recipe):
            raise ConfigError(f"leg: must be a Recipe; got {quoted(self.leg)}")
        self.leg.validate()


class ShippedRecipe:
    """The stages of one recipe run directory (see the module docstring)."""

    def __init__(self, out: str | Path, settings: Settings = Settings(), workers: int = 2,
                 log: Any = print) -> None:
        from training.expert_iteration.labels import check_workers

        settings.validate()
        check_workers(workers)
        self.out = Path(out)
        self.settings = settings
        self.workers = workers
        self.log = log
        self.report_path = self.out / "recipe.json"

    def leg_dir(self, k: int) -> Path:
        """Return the expert-iteration run directory of leg ``k`` (1-based)."""
        return self.out / f"leg-{k}"

    def leg_recipe(self, k: int) -> Recipe:
        """Return leg ``k``'s settings.

        It starts from the previous stage's network and pools the labels of every earlier leg
        with its own.
        """
        leg = LEGS[k - 1]
        start = self.out / ("full" if k == 1 else f"leg-{k - 1}") / "policy.pt"
        earlier = [str(self.leg_dir(j) / "round-1" / "labels") for j in range(1, k)]
        return replace(self.settings.leg, start=str(start), seed=leg.seed, share=leg.share,
                       extra_labels=os.pathsep.join(earlier))

    # ------------------------------------------------------------------ stages
    def run(self, resume: bool = False) -> dict[str, Any]:
        """Run every stage not yet finished; return the report written to ``recipe.json``.

        ``resume`` where no recipe run is, or an ``--out`` that is a file, is refused before
        anything is written (as ``training.train`` and ``training.expert_iteration`` do).
        """
        from training.outdir import out_problem

        why = out_problem(self.out, resume=resume, marker=self.report_path.name,
                          what="recipe run")
        if why is not None:
            raise ValueError(why)
        report = self.load_report(resume)
        self.stage(report, "full", self.train_full)
        for k in range(1, self.settings.legs + 1):
            self.stage(report, f"leg-{k}", lambda k=k: self.run_leg(k, resume))
        last = "full" if self.settings.legs == 0 else f"leg-{self.settings.legs}"
        shutil.copyfile(self.out / last / "policy.pt", self.out / "policy.pt")
        report["total_s"] = round(sum(s["wall_s"] for s in report["stages"].values()), 1)
        report["first_beat_expert"] = first_beat(self.out / "full" / "evals.csv")
        self.save_report(report)
        self.log(f"recipe: {report['total_s'] / 3600:.2f} h in all; the network is "
                 f"{self.out / 'policy.pt'}")
        return report

    def stage(self, report: dict[str, Any], name: str, work: Any) -> None:
        """Run one stage unless it is done, adding its wall-clock time to the report."""
        entry = report["stages"].setdefault(name, {"wall_s": 0.0, "done": False})
        if entry["done"]:
            return
        self.log(f"recipe: {name}")
        t0 = time.perf_counter()
        try:
            entry.update(work() or {})
            entry["done"] = True
        finally:
            entry["wall_s"] = round(entry["wall_s"] + time.perf_counter() - t0, 1)
            self.save_report(report)

    def train_full(self) -> dict[str, Any]:
        """Train the ``full`` preset's self-play run (resumed from its checkpoint if it stopped)."""
        from training.config import make_config
        from training.run import RunDir
        from training.train import run_training

        run = RunDir(self.out / "full")
        if not run.policy.exists():
            cfg = make_config(self.settings.preset, "dmc", rules="standard", seed=FULL_SEED)
            run_training(cfg, run.root, resume=run.latest.exists(), quiet=True)
        return {}

    def run_leg(self, k: int, resume: bool) -> dict[str, Any]:
        """Expert-iteration leg ``k``; returns whether its gate kept the new network."""
        where = self.leg_dir(k)
        state = ExpertIteration(where, self.leg_recipe(k), self.workers, log=self.log).run(
            resume=resume and (where / "state.json").exists())
        (record,) = state["rounds"]
        return {"kept": record["accepted"], "gate": record["gate"]["mean"],
                "against_expert": record["against_baseline"]["mean"]}

    # ------------------------------------------------------------------ report
    def load_report(self, resume: bool) -> dict[str, Any]:
        """Start a report, or read back the one to resume (same settings only)."""
        settings = self.settings.to_dict()
        if self.report_path.exists():
            if not resume:
                raise ValueError(f"{self.out}: a recipe run is already here; pass --resume "
                                 "to carry it on or choose another --out")
            report = json.loads(self.report_path.read_text(encoding="utf-8"))
            had = {k: v for k, v in report["settings"].items() if k != "legs"}
            if had != {k: v for k, v in settings.items() if k != "legs"}:
                raise ValueError(f"{self.out}: the run here has other settings; only --legs "
                                 "may change")
            report["settings"] = settings
            return report
        self.out.mkdir(parents=True, exist_ok=True)
        report = {"settings": settings, "stages": {}}
        self.save_report(report)
        return report

    def save_report(self, report: dict[str, Any]) -> None:
        """Write ``recipe.json`` whole (temporary file, then renamed)."""
        from training.arena.reports import write_json

        write_json(report, self.report_path)


def first_beat(evals_csv: Path, opponent: str = "expert") -> dict[str, float] | None:
    """Find the first periodic evaluation against ``opponent`` whose 95 % CI is above zero.

    Returns its training minutes, mean and CI, or ``None`` if there is none.
    """
    if not evals_csv.exists():
        return None
    with evals_csv.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["opponent"] == opponent and float(row["ci_low"]) > 0:
                return {k: float(row[k]) for k in ("train_minutes", "mean", "ci_low",
                                                   "ci_high")}
    return None


def main(argv: list[str] | None = None) -> int:
    """Command line: run or resume the recipe; exit 2 with the reason on bad input."""
    p = CommandParser(prog=command_prog("recipe"), description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    add_field_options(p, Settings, ["legs"])
    p.add_argument("--workers", type=int, default=2, help="processes (2 for both cores)")
    p.add_argument("--resume", action="store_true")
    args = p.parse_args(argv)
    try:
        ShippedRecipe(args.out, Settings(legs=args.legs), args.workers).run(args.resume)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0
