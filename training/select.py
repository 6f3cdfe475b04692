"""Pick the strongest of a run's last periodic policies on held-out deals.

Late in a run the learning curve wobbles by more than the policy improves: consecutive
checkpoints a few minutes apart differ by several points per hand against the same opponent,
and the last one is not reliably the best. Selection plays each of the last ``last`` periodic
policy files (``checkpoints/policy_<decisions>.pt``) against one opponent on the same
``deals`` duplicate deals and keeps the best mean. With ``average=True`` one more candidate
joins: the element-wise mean of those files' weights (``policy_average.pt``; averaging nearby
checkpoints of one run smooths out the last updates' noise, as stochastic weight averaging
does).

The selection deals (seed ``SELECT_SEED`` by default) are drawn apart from the learning-curve
deals (``training.run.EVAL_SEED``), the run's final evaluation (``FINAL_EVAL_SEED``) and the
README's arena (seed 1), so a policy's reported strength is never measured on the deals that
chose it (the best of several noisy scores overstates the winner on its own deals).

    python -m training select runs/full --last 6 --opponent expert --deals 1000

writes ``policy_selected.pt`` and ``selection.md`` / ``selection.json`` into the run directory
and prints the table. With ``DMCConfig.select_last > 0`` the trainer runs it at the end of
training and the selected policy becomes the run's ``policy.pt``.
"""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from agents.base import AgentError
from agents.policy import load_policy_agent, load_policy_file, save_policy
from gongzhu_env.rules import Rules
from training.arena import duplicate_match
from training.arguments import CommandParser, command_prog, seed_argument
from training.run import PERIODIC_POLICY, SELECT_SEED, RunDir


@dataclass
class Candidate:
    """One periodic policy file and its selection result."""

    path: Path
    decisions: int
    mean: float = float("nan")
    ci_low: float = float("nan")
    ci_high: float = float("nan")


def periodic_policies(run_dir: str | Path) -> list[Candidate]:
    """List the run's periodic policy files, oldest first (by learner decisions)."""
    folder = RunDir(run_dir).checkpoints
    found = []
    for p in folder.glob("policy_*.pt") if folder.is_dir() else ():
        m = PERIODIC_POLICY.search(p.name)
        if m:
            found.append(Candidate(p, int(m.group(1))))
    return sorted(found, key=lambda c: c.decisions)


def average_policies(paths: list[Path], out: Path, rules: Rules) -> Path:
    """Write the policy whose weights are the mean of ``paths``' (same architecture)."""
    nets = [load_policy_file(p, rules) for p in paths]
    net, data = nets[-1]
    avg = {k: torch.stack([n.state_dict()[k].float() for n, _ in nets]).mean(0)
           for k in net.state_dict()}
    merged = type(net).from_architecture(net.architecture())
    merged.load_state_dict(avg)
    meta = dict(data.get("metadata") or {})
    meta["averaged_from"] = [p.name for p in paths]
    return save_policy(out, merged, rules, kind=data.get("kind", "q"),
                       trainer=data.get("trainer", "dmc"), metadata=meta)


def select_policy(run_dir: str | Path, last: int, opponent: str = "expert", deals: int = 1000,
                  seed: int = SELECT_SEED, rules: Rules | str | None = None,
                  workers: int = 1, average: bool = False) -> tuple[Candidate, list[Candidate]]:
    """Evaluate the last ``last`` periodic policies; return the best and all candidates.

    Raises ``ValueError`` when the run has no periodic policy file or ``last``/``deals`` are
    not positive, ``PolicyLoadError`` when a file does not load for ``rules``.
    """
    if type(last) is not int or last < 1:
        raise ValueError(f"last must be a positive integer; got {last!r}")
    if type(deals) is not int or deals < 1:
        raise ValueError(f"deals must be a positive integer; got {deals!r}")
    candidates = periodic_policies(run_dir)[-last:]
    if not candidates:
        raise ValueError(f"no periodic policy files (checkpoints/policy_*.pt) in {run_dir}")
    rules = Rules.coerce(rules)
    if average and len(candidates) > 1:
        avg = average_policies([c.path for c in candidates],
                               Path(run_dir) / "policy_average.pt", rules)
        candidates.append(Candidate(avg, candidates[-1].decisions))
    for c in candidates:
        agent = load_policy_agent(c.path, rules=rules)
        r = duplicate_match(agent, opponent, deals, rules=rules, seed=seed, workers=workers)
        c.mean, c.ci_low, c.ci_high = r.stats.mean, r.stats.ci_low, r.stats.ci_high
    best = max(candidates, key=lambda c: c.mean)
    return best, candidates


def write_selection(run_dir: str | Path, best: Candidate, candidates: list[Candidate],
                    opponent: str, deals: int, seed: int) -> Path:
    """Copy the winner to ``policy_selected.pt``; write ``selection.md`` and ``.json``."""
    root = Path(run_dir)
    out = root / "policy_selected.pt"
    shutil.copyfile(best.path, out)
    lines = [f"Checkpoint selection: duplicate 1 vs 3 against {opponent}, {deals} deals, "
             f"deal seed {seed}.", "",
             "| policy file | decisions | points/hand | 95 % CI | chosen |",
             "|---|---:|---:|---|---|"]
    for c in candidates:
        lines.append(f"| {c.path.name} | {c.decisions:,} | {c.mean:+.1f} | "
                     f"[{c.ci_low:+.1f}, {c.ci_high:+.1f}] | {'yes' if c is best else ''} |")
    (root / "selection.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    data: dict[str, Any] = {
        "opponent": opponent, "deals": deals, "seed": seed, "chosen": best.path.name,
        "candidates": [{"file": c.path.name, "decisions": c.decisions, "mean": c.mean,
                        "ci_low": c.ci_low, "ci_high": c.ci_high} for c in candidates]}
    (root / "selection.json").write_text(json.dumps(data, indent=1), encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m training select RUN_DIR [--last N] [--opponent SPEC] ...``."""
    p = CommandParser(prog=command_prog("select"),
                      description="Pick the strongest of a run's last periodic policies on "
                                  "held-out duplicate deals.")
    p.add_argument("run_dir", type=Path)
    p.add_argument("--last", type=int, default=6, help="periodic policies to compare (6)")
    p.add_argument("--opponent", default="expert", help="opponent agent spec (expert)")
    p.add_argument("--deals", type=int, default=1000, help="duplicate deals each (1000)")
    p.add_argument("--seed", type=seed_argument, default=SELECT_SEED,
                   help=f"deal seed ({SELECT_SEED}; keep it apart from evaluation seeds)")
    p.add_argument("--rules", default="standard", help="rules preset of the run (standard)")
    p.add_argument("--workers", type=int, default=1, help="arena worker processes (1)")
    p.add_argument("--average", action="store_true",
                   help="also try the mean of the candidates' weights")
    args = p.parse_args(argv)
    try:
        best, cands = select_policy(args.run_dir, args.last, args.opponent, args.deals,
                                    args.seed, args.rules, args.workers, args.average)
    except (ValueError, OSError, AgentError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out = write_selection(args.run_dir, best, cands, args.opponent, args.deals, args.seed)
    print((args.run_dir / "selection.md").read_text(encoding="utf-8"))
    print(f"selected: {best.path.name} -> {out}")
    return 0
