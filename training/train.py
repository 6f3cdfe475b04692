"""The single training entry point: ``python -m training.train`` (or ``gongzhu train``).

It builds and validates the config (before any work starts), seeds everything in one place,
trains with the chosen trainer, writes a run directory and ends with an arena evaluation of the
trained policy against the baselines (duplicate 1 vs 3, ``training.evaluate``):

==========================  ======================================================================
``config.json``             the full config (``--resume`` reads it back)
``metrics.csv``             one row per log interval: time, decisions, decisions/s, loss, epsilon
``evals.csv``               periodic arena results: time, decisions, opponent, mean, 95 % CI
``tb/``                     TensorBoard events (same scalars, stable names ``charts/...``)
``checkpoints/``            ``latest.pt`` (full trainer state, for resume) and periodic
                            ``policy_<decisions>.pt`` policy files
``policy.pt``               the final policy file (``agents.policy`` format)
``arena.json``/``arena.md`` the final evaluation (table printed at the end)
``learning_curve.png``      points per hand vs each baseline over training time
==========================  ======================================================================

Interrupting a run (Ctrl-C, a crash, a kill) loses at most one checkpoint interval: ``--resume``
restarts from ``checkpoints/latest.pt`` and trains until the budget is used up.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import torch

from agents.policy import PolicyAgent, QNetwork, save_policy
from gongzhu_env.rules import Rules
from training.config import (
    PRESETS,
    TRAINERS,
    Config,
    ConfigError,
    DMCConfig,
    load_config,
    make_config,
    save_config,
)

EVAL_SEED = 12345
"""Deal seed of the periodic evaluations: every checkpoint meets the same deals."""
FINAL_EVAL_SEED = 20261130
"""Deal seed of the final evaluation (different deals from the periodic ones)."""


class TrainingError(RuntimeError):
    """A run cannot start or resume (e.g. a corrupt checkpoint); the message says why."""


# ---------------------------------------------------------------------------- run directory
class RunDir:
    """Paths and append-only logs of one run."""

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
        """Create the directories."""
        self.checkpoints.mkdir(parents=True, exist_ok=True)

    def append_csv(self, path: Path, row: dict[str, Any]) -> None:
        """Append a row, writing the header when the file is new."""
        new = not path.exists()
        with open(path, "a", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=list(row))
            if new:
                w.writeheader()
            w.writerow(row)


def save_checkpoint(path: Path, state: dict[str, Any]) -> None:
    """Write a trainer checkpoint atomically (the previous one survives a crash mid-write)."""
    tmp = path.with_name(path.name + ".tmp")
    torch.save(state, tmp)
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
    if not isinstance(state, dict) or state.get("format") != "gongzhu-train-checkpoint":
        raise TrainingError(f"cannot resume: {path} is not a Gong Zhu training checkpoint")
    return state


# ---------------------------------------------------------------------------- evaluation
def evaluate_policy(net: QNetwork, rules: Rules, opponents: tuple[str, ...], deals: int,
                    seed: int) -> list[Any]:
    """Duplicate 1-vs-3 matches of the network's greedy policy against each opponent spec."""
    from training.evaluate import duplicate_match

    agent = PolicyAgent(net, rules, label="policy")
    return [duplicate_match(agent, opp, deals, rules=rules, seed=seed) for opp in opponents]


def results_table(results: list[Any]) -> str:
    """Format match results as a Markdown table (mean points/hand vs each opponent, 95 % CI)."""
    lines = ["| opponent | points/hand | 95 % CI | win rate | deals |",
             "|---|---:|---|---:|---:|"]
    for r in results:
        s = r.stats
        lines.append(f"| {r.opponent} | {s.mean:+.1f} | [{s.ci_low:+.1f}, {s.ci_high:+.1f}] | "
                     f"{s.win_rate:.1%} | {s.n} |")
    return "\n".join(lines)


def plot_learning_curve(evals_csv: Path, out: Path) -> Path | None:
    """Points per hand against each baseline over training time, with the 95 % CI band."""
    if not evals_csv.exists():
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows: dict[str, list[tuple[float, float, float, float]]] = {}
    with open(evals_csv, encoding="utf-8") as f:
        for r in csv.DictReader(f):
            rows.setdefault(r["opponent"], []).append(
                (float(r["train_minutes"]), float(r["mean"]), float(r["ci_low"]),
                 float(r["ci_high"])))
    fig, ax = plt.subplots(figsize=(7, 4.2))
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
    plt.close(fig)
    return out


# ---------------------------------------------------------------------------- DMC loop
def train_dmc(cfg: DMCConfig, run: RunDir, resume: bool, quiet: bool = False) -> QNetwork:
    """Run the Deep Monte-Carlo trainer until its budget is used; return the trained network."""
    from torch.utils.tensorboard import SummaryWriter

    from training.dmc import DMCTrainer

    rules = Rules.coerce(cfg.rules)
    trainer = DMCTrainer(cfg)
    if resume:
        state = load_checkpoint(run.latest)
        try:
            trainer.load_state_dict(state["trainer"])
        except (KeyError, RuntimeError, ValueError, TypeError) as e:
            raise TrainingError(f"cannot resume from {run.latest}: it does not match this "
                                f"config ({type(e).__name__}: {e})") from None
        if not quiet:
            print(f"resumed from {run.latest} at {trainer.elapsed_s:.0f} s, "
                  f"{trainer.decisions} decisions")
    writer = SummaryWriter(str(run.tb))

    def checkpoint(periodic: bool) -> None:
        save_checkpoint(run.latest, {"format": "gongzhu-train-checkpoint", "version": 1,
                                     "trainer": trainer.state_dict()})
        if periodic:
            save_policy(run.checkpoints / f"policy_{trainer.decisions:010d}.pt", trainer.net,
                        rules, metadata=_meta(cfg, trainer))

    def evaluate() -> None:
        t0 = time.perf_counter()
        results = evaluate_policy(trainer.net, rules, cfg.eval_opponents, cfg.eval_deals,
                                  EVAL_SEED)
        for r in results:
            s = r.stats
            run.append_csv(run.evals, {
                "train_minutes": round(trainer.elapsed_s / 60, 3),
                "decisions": trainer.decisions, "opponent": r.opponent,
                "mean": round(s.mean, 3), "ci_low": round(s.ci_low, 3),
                "ci_high": round(s.ci_high, 3), "deals": s.n})
            writer.add_scalar(f"eval/points_per_hand_vs_{r.opponent}", s.mean,
                              trainer.decisions)
        if not quiet:
            txt = "  ".join(f"{r.opponent} {r.stats.mean:+.1f}" for r in results)
            print(f"[eval {trainer.elapsed_s / 60:6.1f} min] {txt} "
                  f"({time.perf_counter() - t0:.0f} s)", flush=True)

    budget = cfg.time_budget_s
    last_log = last_ckpt = last_snap = last_eval = trainer.elapsed_s
    last_dec, last_t = trainer.decisions, trainer.elapsed_s
    last_samples = trainer.samples
    if not resume:
        evaluate()

    def done() -> bool:
        return trainer.elapsed_s >= budget or (
            cfg.total_decisions > 0 and trainer.decisions >= cfg.total_decisions)

    try:
        while not done():
            step = min(cfg.log_interval_s, budget - trainer.elapsed_s)
            trainer.run_for(max(step, 0.01), should_stop=lambda: cfg.total_decisions > 0
                            and trainer.decisions >= cfg.total_decisions)
            now = trainer.elapsed_s
            if now - last_log >= cfg.log_interval_s or done():
                stats = trainer.pop_stats()
                dps = (trainer.decisions - last_dec) / max(1e-9, now - last_t)
                sps = (trainer.samples - last_samples) / max(1e-9, now - last_t)
                row = {"train_s": round(now, 1), "decisions": trainer.decisions,
                       "decisions_per_s": round(dps, 1), "samples": trainer.samples,
                       "samples_per_s": round(sps, 1), "games": trainer.games,
                       "train_steps": trainer.train_steps, "loss": stats["loss"],
                       "mean_return": stats["mean_return"], "epsilon": round(trainer.epsilon, 4),
                       "snapshots": len(trainer.snapshots)}
                run.append_csv(run.metrics, row)
                writer.add_scalar("charts/decisions_per_s", dps, trainer.decisions)
                writer.add_scalar("charts/samples_per_s", sps, trainer.decisions)
                writer.add_scalar("losses/q_mse", stats["loss"], trainer.decisions)
                writer.add_scalar("charts/epsilon", trainer.epsilon, trainer.decisions)
                writer.add_scalar("charts/learner_return", stats["mean_return"],
                                  trainer.decisions)
                if not quiet:
                    print(f"[{now / 60:6.1f} min] decisions {trainer.decisions:>10,d} "
                          f"({dps:,.0f}/s, {sps:,.0f} samples/s)  loss {stats['loss']:.4f}  eps "
                          f"{trainer.epsilon:.3f}  snapshots {len(trainer.snapshots)}",
                          flush=True)
                last_log, last_dec, last_t = now, trainer.decisions, now
                last_samples = trainer.samples
            if now - last_snap >= cfg.snapshot_interval_s:
                trainer.add_snapshot()
                last_snap = now
            if now - last_ckpt >= cfg.checkpoint_interval_s:
                checkpoint(periodic=True)
                last_ckpt = now
            if now - last_eval >= cfg.eval_interval_s and not done():
                evaluate()
                last_eval = now
    except KeyboardInterrupt:
        trainer.stop_actors()
        checkpoint(periodic=False)
        writer.close()
        raise
    except BaseException:
        trainer.stop_actors()
        raise
    trainer.stop_actors()
    checkpoint(periodic=True)
    evaluate()
    writer.close()
    save_policy(run.policy, trainer.net, rules, metadata=_meta(cfg, trainer))
    if cfg.select_last > 0:
        return _select(cfg, run, rules, quiet)
    return trainer.net


def _select(cfg: DMCConfig, run: RunDir, rules: Rules, quiet: bool) -> QNetwork:
    """Keep the best of the last periodic policies as ``policy.pt`` (``training/select.py``).

    The final weights stay in ``policy_last.pt``.
    """
    from agents.policy import load_policy_file
    from training.select import SELECT_SEED, select_policy, write_selection

    best, cands = select_policy(run.root, cfg.select_last, cfg.select_opponent,
                                cfg.select_deals, SELECT_SEED, rules,
                                average=cfg.select_average)
    chosen = write_selection(run.root, best, cands, cfg.select_opponent, cfg.select_deals,
                             SELECT_SEED)
    shutil.copyfile(run.policy, run.root / "policy_last.pt")
    shutil.copyfile(chosen, run.policy)
    if not quiet:
        print((run.root / "selection.md").read_text(encoding="utf-8"))
    net, _ = load_policy_file(run.policy, rules)
    return net


def _meta(cfg: Config, trainer: Any) -> dict[str, Any]:
    return {"preset": cfg.preset, "seed": cfg.seed, "decisions": int(trainer.decisions),
            "games": int(trainer.games), "train_seconds": round(float(trainer.elapsed_s), 1),
            "hidden": list(cfg.hidden)}


# ---------------------------------------------------------------------------- command line
def build_parser() -> argparse.ArgumentParser:
    """Arguments of ``python -m training.train`` / ``gongzhu train``."""
    p = argparse.ArgumentParser(
        prog="gongzhu train",
        description="Train a Gong Zhu policy by self-play and evaluate it against the baselines.")
    p.add_argument("--preset", default="quick",
                   help=f"config preset: {', '.join(PRESETS)} (default quick)")
    p.add_argument("--trainer", default="dmc",
                   help=f"trainer: {', '.join(TRAINERS)} (dmc = our Deep Monte-Carlo, "
                        "sb3 = MaskablePPO)")
    p.add_argument("--out", default=None, help="run directory (default runs/<preset>-<trainer>)")
    p.add_argument("--resume", action="store_true",
                   help="continue the run in --out from its last checkpoint")
    p.add_argument("--seed", type=int, default=None, help="override the config's seed")
    p.add_argument("--time-budget", type=float, default=None,
                   help="override the training budget in seconds")
    p.add_argument("--final-eval-deals", type=int, default=None,
                   help="deals per baseline in the final evaluation (0 skips it)")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=JSON",
                   help="override any config field, value as JSON (e.g. --set num_tables=64)")
    p.add_argument("--quiet", action="store_true", help="print only the final table")
    return p


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if args.seed is not None:
        out["seed"] = args.seed
    if args.time_budget is not None:
        out["time_budget_s"] = args.time_budget
    if args.final_eval_deals is not None:
        out["final_eval_deals"] = args.final_eval_deals
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"--set {item!r}: expected FIELD=VALUE")
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out


def run_training(cfg: Config, out: str | os.PathLike[str], resume: bool = False,
                 quiet: bool = False) -> dict[str, Any]:
    """Train, save the policy, evaluate, plot; return a summary dict (paths and results)."""
    run = RunDir(out)
    run.make()
    if not resume:
        save_config(cfg, str(run.config))
    t0 = time.perf_counter()
    if isinstance(cfg, DMCConfig):
        net = train_dmc(cfg, run, resume, quiet)
    else:
        from training.train_sb3 import train_sb3

        net = train_sb3(cfg, run, resume, quiet)
    rules = Rules.coerce(cfg.rules)
    summary: dict[str, Any] = {"run_dir": str(run.root), "policy": str(run.policy),
                               "train_wall_s": round(time.perf_counter() - t0, 1)}
    if cfg.final_eval_deals > 0:
        results = evaluate_policy(net, rules, cfg.eval_opponents, cfg.final_eval_deals,
                                  FINAL_EVAL_SEED)
        table = results_table(results)
        run.arena_md.write_text(
            f"Final arena (duplicate 1 vs 3, {cfg.final_eval_deals} deals per opponent, deal "
            f"seed {FINAL_EVAL_SEED}):\n\n{table}\n", encoding="utf-8")
        run.arena_json.write_text(json.dumps([r.to_dict() for r in results], indent=1),
                                  encoding="utf-8")
        summary["results"] = {r.opponent: r.stats.to_dict() for r in results}
        print(table)
    plot = plot_learning_curve(run.evals, run.plot)
    summary["plot"] = str(plot) if plot else None
    if not quiet:
        print(f"policy: {run.policy}\nplot: {plot}\nrun directory: {run.root}")
    return summary


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns a process exit code (2 for bad configuration or resume)."""
    args = build_parser().parse_args(argv)
    if threading.current_thread() is threading.main_thread():
        # A polite kill (SIGTERM) stops like Ctrl-C: checkpoint, stop the actors, exit.
        signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        out = args.out or f"runs/{args.preset}-{args.trainer}"
        if args.resume:
            cfg_path = RunDir(out).config
            if not cfg_path.is_file():
                raise TrainingError(f"cannot resume: {cfg_path} does not exist")
            cfg = load_config(str(cfg_path))
            extra = _overrides(args)
            if extra:
                from training.config import config_from_dict

                cfg = config_from_dict({**cfg.to_dict(), **extra})
        else:
            cfg = make_config(args.preset, args.trainer, **_overrides(args))
    except (ConfigError, TrainingError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        run_training(cfg, out, resume=args.resume, quiet=args.quiet)
    except TrainingError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"interrupted; resume with: python -m training.train --out {out} --resume",
              file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
