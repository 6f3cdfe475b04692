"""What every trainer shares about a run: its directory, seeds, checkpoints, logs and curve.

Both trainers (``training.dmc.train`` and ``training.sb3.train``) write the same run directory
through this module, so a run reads the same whichever algorithm made it:

==========================  ======================================================================
``config.json``             the full config (``--resume`` reads it back)
``metrics.csv``             one row per log interval (``METRICS``: time, decisions, rates, loss...)
``evals.csv``               periodic arena results (``EVAL_COLUMNS``: time, decisions, opponent,
                            mean, 95 % CI, deals)
``tb/``                     TensorBoard events under the same names (``METRICS``, ``eval_scalar``)
``checkpoints/``            the trainer's state for resume and periodic ``policy_<decisions>.pt``
``policy.pt``               the final policy file (``agents.policy`` format)
``arena.json``/``arena.md`` the final evaluation
``learning_curve.png``      points per hand vs each baseline over training time
==========================  ======================================================================

A column a trainer has no value for stays empty rather than missing, so the two trainers'
``metrics.csv`` have one header. The deal seeds of the periodic evaluations, the final
evaluation and checkpoint selection are kept apart here, in one place, so that a policy is never
reported on the deals that chose it.
"""

from __future__ import annotations

import csv
import os
import random
import re
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from agents.policy import PolicyAgent, QNetwork
from agents.rule_features import MixedInput
from gongzhu_env.rules import Rules
from training.arena import MatchResult, duplicate_match
from training.arena.plots import new_figure
from training.outdir import out_problem

if TYPE_CHECKING:
    from training.config import Config

EVAL_SEED = 12345
"""Deal seed of the periodic evaluations: every checkpoint meets the same deals."""
FINAL_EVAL_SEED = 20261130
"""Deal seed of the final evaluation (different deals from the periodic ones)."""
SELECT_SEED = 777
"""Deal seed of checkpoint selection (``training.select``), apart from both evaluations."""

CHECKPOINT_FORMAT = "gongzhu-train-checkpoint"
PERIODIC_POLICY = re.compile(r"policy_(\d+)\.pt$")
"""File name of a periodic policy; the number is the learner decisions at that point."""


class TrainingError(RuntimeError):
    """A run cannot start or resume (e.g. a corrupt checkpoint); the message says why."""


# ---------------------------------------------------------------------------- seeding
def seed_everything(seed: int) -> None:
    """Seed everything in one block: Python's ``random``, numpy's global state and torch.

    numpy's global generator takes seeds below 2**32 only, while the actors' seeds are derived
    from the config's (``seed * 7919 + 1000 * (actor + 1)``) and pass it for a config seed
    above half a million; numpy gets the seed modulo 2**32, so every valid config seed
    (``training.config.MAX_SEED``) seeds its actors. Seeds below 2**32 are used unchanged.
    """
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


# ---------------------------------------------------------------------------- run directory
class RunDir:
    """The paths of one run (see the module docstring for what each file holds)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.checkpoints = self.root / "checkpoints"
        self.latest = self.checkpoints / "latest.pt"
        self.config = self.root / "config.json"
        self.metrics = self.root / "metrics.csv"
        self.evals = self.root / "evals.csv"
        self.policy = self.root / "policy.pt"
        self.arena_json = self.root / "arena.json"
        self.arena_md = self.root / "arena.md"
        self.plot = self.root / "learning_curve.png"
        self.tb = self.root / "tb"

    def make(self) -> None:
        """Create the directories; ``TrainingError`` when the path cannot be a run directory.

        A file at the path (or above it) is refused by name instead of failing with the
        operating system's ``NotADirectoryError`` from deep inside ``mkdir``.
        """
        why = out_problem(self.root, resume=False, marker="", what="training run")
        if why is not None:
            raise TrainingError(why)
        try:
            self.checkpoints.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise TrainingError(f"cannot make the run directory {self.root}: "
                                f"{e.strerror or e}") from None

    def entries(self) -> list[Path]:
        """Every file and folder a run writes at the top of its directory (module docstring).

        ``--overwrite`` removes these and nothing else: ``--out`` may name a folder that also
        holds a person's own files.
        """
        return [self.policy, self.config, self.checkpoints, self.metrics, self.evals, self.tb,
                self.arena_json, self.arena_md, self.plot]

    def clear(self) -> None:
        """Remove the run's files (``entries``) so that a new run starts in their place.

        ``TrainingError`` names the path that could not be removed; what was removed before it
        is gone, which is what ``--overwrite`` asked for.
        """
        for path in self.entries():
            try:
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                else:
                    path.unlink(missing_ok=True)
            except OSError as e:
                raise TrainingError(f"--overwrite: cannot remove {path} of the old run: "
                                    f"{e.strerror or e}") from None

    def periodic_policy(self, decisions: int) -> Path:
        """Where the policy saved after ``decisions`` learner decisions goes."""
        return self.checkpoints / f"policy_{decisions:010d}.pt"


def save_checkpoint(path: Path, trainer_state: dict[str, Any]) -> None:
    """Write a trainer checkpoint atomically (the previous one survives a crash mid-write)."""
    tmp = path.with_name(path.name + ".tmp")
    torch.save({"format": CHECKPOINT_FORMAT, "version": 1, "trainer": trainer_state}, tmp)
    os.replace(tmp, path)


def load_checkpoint(path: Path) -> dict[str, Any]:
    """Read a trainer checkpoint, or raise ``TrainingError`` saying what is wrong with it."""
    if not path.is_file():
        raise TrainingError(f"cannot resume: no checkpoint at {path}")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # truncated zip, foreign pickle, random bytes...
        raise TrainingError(f"cannot resume: checkpoint {path} is corrupt or not a training "
                            f"checkpoint ({type(e).__name__}: {e}). Delete it to start over, "
                            f"or restore a copy.") from None
    if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
        raise TrainingError(f"cannot resume: {path} is not a Gong Zhu training checkpoint")
    return state


# ---------------------------------------------------------------------------- metric names
@dataclass(frozen=True)
class Metric:
    """One column of ``metrics.csv`` and, when it has one, its TensorBoard scalar."""

    column: str
    scalar: str | None = None
    """TensorBoard tag (stable across trainers and versions), None for a CSV-only count."""
    digits: int | None = None
    """Decimals kept in the CSV (TensorBoard gets the unrounded value)."""


METRICS: tuple[Metric, ...] = (
    Metric("train_s", digits=1),
    Metric("decisions"),
    Metric("decisions_per_s", "charts/decisions_per_s", 1),
    Metric("samples"),
    Metric("samples_per_s", "charts/samples_per_s", 1),
    Metric("games"),
    Metric("train_steps"),
    Metric("loss", "losses/q_mse"),
    Metric("mean_return", "charts/learner_return"),
    Metric("epsilon", "charts/epsilon", 4),
    Metric("snapshots"),
)
"""The columns of ``metrics.csv`` in order; every trainer writes this header."""

EVAL_COLUMNS = ("train_minutes", "decisions", "opponent", "mean", "ci_low", "ci_high", "deals")
"""The columns of ``evals.csv``."""


def eval_scalar(opponent: str) -> str:
    """TensorBoard tag of the periodic evaluation against ``opponent``."""
    return f"eval/points_per_hand_vs_{opponent}"


def append_row(path: Path, row: Mapping[str, Any], columns: Sequence[str]) -> None:
    """Append ``row`` to a CSV file, writing the header ``columns`` when the file is new.

    An existing file keeps the header it has (a run started by an older version resumes into
    its own columns); values without a column are left out, columns without a value left empty.
    """
    header: Sequence[str] = columns
    new = not path.exists() or path.stat().st_size == 0
    if not new:
        with open(path, newline="", encoding="utf-8") as f:
            header = next(csv.reader(f), None) or columns
    with open(path, "a", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(header), restval="", extrasaction="ignore")
        if new:
            w.writeheader()
        w.writerow(row)


class RunLog:
    """Writes ``metrics.csv``, ``evals.csv`` and the TensorBoard scalars of one run."""

    def __init__(self, run: RunDir) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self.run = run
        self.writer = SummaryWriter(str(run.tb))

    def metrics(self, values: Mapping[str, Any]) -> None:
        """Log one row of ``METRICS`` values (missing ones stay empty), at ``decisions``."""
        unknown = set(values) - {m.column for m in METRICS}
        if unknown:
            raise KeyError(f"not a metric of metrics.csv: {sorted(unknown)}")
        row = {}
        for m in METRICS:
            if m.column not in values or values[m.column] is None:
                continue
            v = values[m.column]
            row[m.column] = v if m.digits is None else round(v, m.digits)
            if m.scalar is not None:
                self.writer.add_scalar(m.scalar, v, values["decisions"])
        append_row(self.run.metrics, row, [m.column for m in METRICS])

    def evaluations(self, results: Iterable[MatchResult], train_s: float,
                    decisions: int) -> None:
        """Log periodic arena results: one ``evals.csv`` row and one scalar per opponent."""
        for r in results:
            s = r.stats
            append_row(self.run.evals, {
                "train_minutes": round(train_s / 60, 3), "decisions": decisions,
                "opponent": r.opponent, "mean": round(s.mean, 3),
                "ci_low": round(s.ci_low, 3), "ci_high": round(s.ci_high, 3), "deals": s.n},
                EVAL_COLUMNS)
            self.writer.add_scalar(eval_scalar(r.opponent), s.mean, decisions)

    def close(self) -> None:
        """Flush and close the TensorBoard writer."""
        self.writer.close()


# ---------------------------------------------------------------------------- evaluation
def evaluate_policy(net: QNetwork, rules: Rules, opponents: tuple[str, ...], deals: int,
                    seed: int, mixed: MixedInput | None = None) -> list[MatchResult]:
    """Duplicate 1-vs-3 matches of the network's greedy policy against each opponent spec.

    ``mixed``: the network reads a rules mix (``agents.rule_features``); it plays at
    ``rules``, one of the mix.
    """
    agent = PolicyAgent(net, rules, label="policy", mixed=mixed)
    return [duplicate_match(agent, opp, deals, rules=rules, seed=seed) for opp in opponents]


def policy_metadata(cfg: Config, decisions: int, train_s: float,
                    games: int | None = None) -> dict[str, Any]:
    """Return what a saved policy file records about the run that trained it."""
    meta: dict[str, Any] = {"preset": cfg.preset, "seed": cfg.seed, "decisions": int(decisions)}
    if games is not None:
        meta["games"] = int(games)
    meta["train_seconds"] = round(float(train_s), 1)
    meta["hidden"] = list(cfg.hidden)
    return meta


def plot_learning_curve(evals_csv: Path, out: Path) -> Path | None:
    """Points per hand against each baseline over training time, with the 95 % CI band."""
    if not evals_csv.exists():
        return None
    rows: dict[str, list[tuple[float, float, float, float]]] = {}
    with open(evals_csv, encoding="utf-8") as f:
        for r in csv.DictReader(f):
            rows.setdefault(r["opponent"], []).append(
                (float(r["train_minutes"]), float(r["mean"]), float(r["ci_low"]),
                 float(r["ci_high"])))
    fig = new_figure(figsize=(7, 4.2))
    ax = fig.subplots()
    for opp, pts in rows.items():
        pts.sort()
        t = [p[0] for p in pts]
        ax.plot(t, [p[1] for p in pts], marker="o", label=f"vs {opp}")
        ax.fill_between(t, [p[2] for p in pts], [p[3] for p in pts], alpha=0.2)
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xlabel("training time (minutes, evaluations excluded)")
    ax.set_ylabel("points per hand (duplicate 1 vs 3)")
    ax.set_title("Learning curve")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    return out
