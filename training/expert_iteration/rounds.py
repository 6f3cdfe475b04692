"""Expert iteration: rounds of search labels, a fine-tune on them, and a gate.

One round, from the current network ``N`` (round 1: the shipped ``policy:pretrained``):

1. **Labels** (``training.expert_iteration.labels``): ``--hands`` hands played by
   ``search:net=N`` at every seat (or, with ``--others SPEC``, at one seat of a table of
   ``SPEC`` players), each searched decision stored with the search's value of every legal
   card.
2. **Fine-tune** (``training.dmc`` through ``training.train``): the ``full`` preset's
   self-play, started from ``N``'s weights, with ``--share`` of every minibatch drawn from the
   labels, for ``--train-s`` seconds at learning rate ``--lr``. The labels are the round's
   own; with ``--keep-labels`` those of every round so far, and ``--extra-labels`` adds sets
   made before the run (a mixed table yields about nine labels a hand, so sets grown over
   several runs are what give a fine-tune enough of them).
3. **Gate**: ``policy:NEW`` against ``policy:N`` in the duplicate arena (``--gate-deals`` deals,
   deal seed ``GATE_SEED``, not used in training), and each of them against ``expert`` on the
   same deals; when the head-to-head is undecided, all three play on to ``--gate-extend``
   times as many deals. The new network is kept only when it beats ``N`` (the 95 % CI's lower bound
   above 0) *and* does not do worse than ``N`` against ``expert`` (the CI of the per-deal
   difference of their two results reaches above 0). Beating the previous network alone is
   not enough: labels whose search models every other seat as the network teach play that
   exploits the network, which a fine-tune measured here did (+7.7 against its start, −7.8
   against ``expert``). A kept network searches the next round's labels.

Everything a round does is on disk under ``--out`` and resumes: label chunks, the training
run's checkpoints and the gate's arena journal. ``--resume`` after a stop carries on from the
first unfinished step; ``state.json`` records every finished step. The run's best network is
``--out/policy.pt``.

    python -m training expert-iteration --out runs/exit --rounds 2 --workers 2
    python -m training expert-iteration --out runs/exit --rounds 2 --workers 2 --resume
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from gongzhu_env.rules import Rules
from training.arguments import CommandParser, command_prog
from training.config.base import ConfigBase, add_field_options
from training.config.bounds import MAX_SEED
from training.config.checks import (
    ConfigError,
    at_most,
    flag,
    fraction,
    int_field,
    one_of,
    positive_float,
    positive_int,
    quoted,
    text,
)
from training.config.choices import PRESETS

GATE_SEED = 4242
"""Deal seed of the gate matches (the training runs and label hands draw other deals)."""
GATE_BASELINE = "expert"
"""The fixed player both networks of a gate also meet: a kept network must not lose ground to
it."""
CHUNK_HANDS = 10
"""Hands per label chunk of a round (``training.expert_iteration.labels``): a stop loses at
most that many searched hands."""
SEED_STRIDE = 1000
"""Round ``r`` of a run with seed ``s`` labels and fine-tunes with seed ``s * 1000 + r``."""
MAX_ROUNDS = 1000
"""Most rounds of one run; a round takes about an hour on two cores."""
MAX_GATE_EXTEND = 100
"""Largest multiple an undecided gate plays on to (the recipes use 2)."""


@dataclass(frozen=True)
class Recipe(ConfigBase):
    """The settings of an expert-iteration run (recorded in ``state.json``).

    Each field is an option of ``python -m training expert-iteration`` of its name
    (``train_s`` is ``--train-s``), with the field's docstring as its help.
    """

    rounds: int = 2
    """Rounds to play (about an hour each on two cores); the one setting a resumed run may
    change, to play on."""
    hands: int = 2000
    """Hands labelled per round (about 35 searched decisions each)."""
    search: str = "search"
    """The search's spec without ``net=`` (each round adds the current network)."""
    share: float = 0.5
    """Share of each minibatch drawn from the labels."""
    train_s: float = 1200.0
    """Seconds of fine-tuning per round."""
    lr: float = 1e-4
    """Learning rate of the fine-tune (constant: the start is already trained)."""
    gate_deals: int = 4000
    """Deals of the gate match (two networks this close differ by about 160 points a deal
    from deal to deal: 4,000 deals give a 95 % CI of about ±5)."""
    gate_extend: int = 2
    """An undecided gate (the head-to-head CI holds 0) plays on to ``gate_extend`` times
    ``gate_deals`` deals of the same seed and decides on all of them (1: never). Rounds gain
    about as much as the 4,000-deal CI is wide, so a gain of four points is often undecided
    at 4,000 deals and decided at 8,000 (CI about ±3.5)."""
    seed: int = 0
    """Seed of the run: round ``r`` labels its hands and fine-tunes with seed
    ``seed * SEED_STRIDE + r``, so rounds never share deals."""
    rules: str = "standard"
    """Rules of every table of the run (a preset name): the label hands, the fine-tunes and
    the gates."""
    start: str = "pretrained"
    """The network of round 1's search and fine-tune (a policy path or ``pretrained``)."""
    preset: str = "full"
    """Training preset of the fine-tunes (its network shape is the start's)."""
    others: str = ""
    """The players beside the search in the label hands ("": the search at every seat; else
    a mixed table, ``training.expert_iteration.labels``)."""
    keep_labels: bool = False
    """Fine-tune each round on the labels of every round so far, not only its own: the label
    set grows with the run (labels from a mixed table come at about nine a hand, so one
    round's set is small)."""
    extra_labels: str = ""
    """Label sets made before this run (directories joined with ``os.pathsep``), added to
    every round's fine-tune: labels grown over several runs or sessions train together."""

    @property
    def game_rules(self) -> Rules:
        """The ``Rules`` that ``rules`` names (the settings are frozen: nothing to forget)."""
        return Rules.coerce(self.rules)

    def validate(self) -> None:
        """Refuse settings that cannot make a run (``ConfigError`` naming the setting).

        Checked before anything is written, with the bounds of what each setting feeds: the
        label set's chunks, the arena's deals, and the fine-tune's config (its seeds, time
        budget and learning rate), so no setting fails an hour into a run.
        """
        from training.arena.deals import MAX_DEALS
        from training.label_sets import MAX_CHUNKS

        positive_int(self, "rounds", MAX_ROUNDS)
        # Capped apart from their kind: the cap of hands is in label chunks, and a gate's
        # deals are capped together with its extension (below) as well as alone.
        for name, most, why in (
                ("hands", MAX_CHUNKS * CHUNK_HANDS,
                 f" ({MAX_CHUNKS:,} label chunks of {CHUNK_HANDS} hands)"),
                ("gate_deals", MAX_DEALS, " (the most deals the arena plays)"),
                ("gate_extend", MAX_GATE_EXTEND, "")):
            positive_int(self, name, math.inf)
            at_most(self, name, most, why)
        if self.gate_deals * self.gate_extend > MAX_DEALS:
            raise ConfigError(f"gate_extend: an undecided gate would play gate_deals * "
                              f"gate_extend = {self.gate_deals * self.gate_extend:,} deals; "
                              f"the arena plays at most {MAX_DEALS:,}")
        fraction(self, "share", above_zero=True)
        positive_float(self, "train_s")
        positive_float(self, "lr")
        int_field(self, "seed", 0, (MAX_SEED - self.rounds) // SEED_STRIDE,
                  note=f" (round r trains with seed * {SEED_STRIDE} + r, at most "
                       f"{MAX_SEED:,})")
        for name in ("search", "rules", "start", "preset", "others", "extra_labels"):
            text(self, name)
        flag(self, "keep_labels")
        if "net=" in self.search or not self.search.split(":")[0].strip() == "search":
            raise ConfigError(f"search: must be a search spec without net= (each round "
                              f"names its network); got {quoted(self.search)}")
        one_of(self, "preset", PRESETS)
        try:
            _ = self.game_rules  # resolving the name is what checks it
        except (ValueError, TypeError) as e:
            raise ConfigError(f"rules: {e}") from None


class ExpertIteration:
    """The rounds of one run directory (see the module docstring)."""

    def __init__(self, out: str | Path, recipe: Recipe, workers: int = 1,
                 log: Any = print) -> None:
        from training.expert_iteration.labels import check_workers

        recipe.validate()
        check_workers(workers)
        self.out = Path(out)
        self.recipe = recipe
        self.rules = recipe.game_rules
        self.workers = workers
        self.log = log
        self.state_path = self.out / "state.json"

    # ------------------------------------------------------------------ state
    def load_state(self, resume: bool) -> dict[str, Any]:
        """Start a new run, or read back the one to resume (same recipe only)."""
        if self.state_path.exists():
            if not resume:
                raise ValueError(f"{self.out}: an expert-iteration run is already here; pass "
                                 "--resume to carry it on or choose another --out")
            state = json.loads(self.state_path.read_text(encoding="utf-8"))
            # A field added after a run was written reads as its default there.
            had = {**Recipe().to_dict(), **state["recipe"]}
            had = {k: v for k, v in had.items() if k != "rounds"}
            now = {k: v for k, v in self.recipe.to_dict().items() if k != "rounds"}
            if had != now:
                diff = sorted(k for k in now if had.get(k) != now[k])
                raise ValueError(f"{self.out}: the run here has other settings "
                                 f"({', '.join(diff)} differ); only --rounds may change")
            state["recipe"] = self.recipe.to_dict()
            return state
        self.out.mkdir(parents=True, exist_ok=True)
        from agents.policy import resolve_policy_path

        start = self.out / "round-0" / "policy.pt"
        start.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(resolve_policy_path(self.recipe.start, self.rules), start)
        state = {"recipe": self.recipe.to_dict(), "current": str(start), "rounds": []}
        self.save_state(state)
        return state

    def save_state(self, state: dict[str, Any]) -> None:
        """Write ``state.json`` whole (temporary file, then renamed)."""
        from training.arena.reports import write_json

        write_json(state, self.state_path)

    # ------------------------------------------------------------------ a round
    def run(self, resume: bool = False) -> dict[str, Any]:
        """Play every round not yet finished; return the state."""
        from training.outdir import out_problem

        why = out_problem(self.out, resume=resume, marker=self.state_path.name,
                          what="expert-iteration run")
        if why is not None:
            raise ValueError(why)
        self.check_extra_labels()
        self.check_players(fresh=not self.state_path.exists())
        state = self.load_state(resume)
        for r in range(len(state["rounds"]) + 1, self.recipe.rounds + 1):
            state["rounds"].append(self.round(r, Path(state["current"])))
            if state["rounds"][-1]["accepted"]:
                state["current"] = state["rounds"][-1]["policy"]
            self.save_state(state)
        shutil.copyfile(state["current"], self.out / "policy.pt")
        self.log(f"expert iteration: best network {state['current']} -> {self.out / 'policy.pt'}")
        return state

    def check_extra_labels(self) -> None:
        """Refuse a wrong ``extra_labels`` set before the run writes anything.

        Checked first, not when the first fine-tune loads it after an hour of labelling.
        """
        from training.label_sets import LabelError, load_label_sets

        if self.recipe.extra_labels:
            try:
                load_label_sets(self.recipe.extra_labels, self.rules)
            except LabelError as e:
                raise ValueError(f"extra_labels: {e}") from None

    def check_players(self, fresh: bool) -> None:
        """Refuse a start network or an ``others`` spec that cannot play, before any work.

        The start is checked for a new run only: a resumed run plays from its copy of it.
        """
        from agents.base import AgentError
        from agents.policy import load_policy_file
        from training.expert_iteration.labels import table_agent

        if fresh:
            try:
                load_policy_file(self.recipe.start, self.rules)
            except AgentError as e:
                raise ValueError(f"start: {e}") from None
        if self.recipe.others:
            table_agent(self.recipe.others, self.rules, 0)

    def training_labels(self, r: int) -> str:
        """Return the label sets round ``r`` fine-tunes on, joined with ``os.pathsep``."""
        from training.label_sets import label_dirs

        rounds = range(1, r + 1) if self.recipe.keep_labels else [r]
        own = [str(self.out / f"round-{k}" / "labels") for k in rounds]
        return os.pathsep.join(label_dirs(self.recipe.extra_labels) + own)

    def round(self, r: int, current: Path) -> dict[str, Any]:
        """Labels, fine-tune and gate of round ``r`` from the network at ``current``."""
        from training.expert_iteration.labels import LabelSpec, make_labels

        c = self.recipe
        where = self.out / f"round-{r}"
        t0 = time.perf_counter()
        spec = f"{c.search}{',' if ':' in c.search else ':'}net={current}"
        labels = where / "labels"
        make_labels(labels, LabelSpec(spec, self.rules, c.seed * SEED_STRIDE + r, CHUNK_HANDS,
                                      c.others), c.hands,
                    workers=self.workers, resume=True, log=self.log)
        t1 = time.perf_counter()
        trained_on = self.training_labels(r)
        policy = self.fine_tune(where / "train", current, trained_on, c.seed * SEED_STRIDE + r)
        t2 = time.perf_counter()
        head, baseline = self.gate(where, policy, current, c.gate_deals)
        if head.ci_low <= 0 < head.ci_high and c.gate_extend > 1:
            self.log(f"round {r}: new vs previous {head.mean:+.1f} [{head.ci_low:+.1f}, "
                     f"{head.ci_high:+.1f}] over {head.n} deals is undecided; playing on to "
                     f"{c.gate_deals * c.gate_extend} deals")
            head, baseline = self.gate(where, policy, current, c.gate_deals * c.gate_extend)
        t3 = time.perf_counter()
        accepted = head.ci_low > 0 and baseline.ci_high > 0
        record = {"round": r, "search": spec, "labels": str(labels),
                  "trained_on": trained_on, "policy": str(policy),
                  "gate": head.to_dict(), "against_baseline": baseline.to_dict(),
                  "accepted": accepted,
                  "seconds": {"labels": round(t1 - t0, 1), "train": round(t2 - t1, 1),
                              "gate": round(t3 - t2, 1)}}
        self.log(f"round {r}: new vs previous {head.mean:+.1f} [{head.ci_low:+.1f}, "
                 f"{head.ci_high:+.1f}], new minus previous against {GATE_BASELINE} "
                 f"{baseline.mean:+.1f} [{baseline.ci_low:+.1f}, {baseline.ci_high:+.1f}] over "
                 f"{head.n} deals: {'kept' if accepted else 'not kept'}")
        return record

    def fine_tune(self, run_dir: Path, start: Path, labels: str, seed: int) -> Path:
        """Fine-tune ``start`` on self-play plus labels; resume a run that was stopped.

        ``labels`` names one label set or several joined with ``os.pathsep``.
        """
        from agents.policy import load_policy_file
        from training.config import make_config
        from training.run import RunDir
        from training.train import run_training

        c = self.recipe
        run = RunDir(run_dir)
        if run.policy.exists():
            return run.policy
        arch = load_policy_file(str(start), self.rules)[0].architecture()
        cfg = make_config(c.preset, "dmc", rules=c.rules, seed=seed, init_policy=str(start),
                          hidden=tuple(arch["hidden"]), card_features=arch["card_features"],
                          holder_features=arch["holder_features"],
                          search_labels=labels, search_label_share=c.share,
                          time_budget_s=c.train_s, lr=c.lr, lr_final_fraction=1.0,
                          epsilon_start=0.01, epsilon_end=0.01, final_eval_deals=0,
                          eval_deals=0)
        run_training(cfg, run_dir, resume=run.latest.exists(), quiet=True)
        return run.policy

    def gate(self, where: Path, new: Path, old: Path, deals: int) -> tuple[Any, Any]:
        """Play the new network against the previous one, and both against ``GATE_BASELINE``.

        Returns the head-to-head statistics and those of the per-deal difference between the
        two networks' results against the baseline (new minus previous), over ``deals`` deals.
        Every match is journalled, so a stopped gate resumes, and a longer gate plays only the
        deals past the ones already journalled (deal sets of one seed share their prefix).
        """
        from training.arena.duplicate import duplicate_match
        from training.arena.stats import summarize

        def match(candidate: str, opponent: str, name: str) -> Any:
            return duplicate_match(candidate, opponent, deals,
                                   rules=self.rules, seed=GATE_SEED, workers=self.workers,
                                   journal=where / name, resume=True)

        head = match(f"policy:{new}", f"policy:{old}", "gate.jsonl")
        mine = match(f"policy:{new}", GATE_BASELINE, "gate_new_vs_baseline.jsonl")
        theirs = match(f"policy:{old}", GATE_BASELINE, "gate_previous_vs_baseline.jsonl")
        return head.stats, summarize(mine.diffs - theirs.diffs, seed=GATE_SEED)


def main(argv: list[str] | None = None) -> int:
    """Command line: run or resume an expert-iteration run; exit 2 with the reason on bad input."""
    p = CommandParser(prog=command_prog("expert-iteration"), description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="the run's directory")
    add_field_options(p, Recipe)  # --rounds ... --extra-labels: the recipe's fields
    p.add_argument("--workers", type=int, default=1, help="processes (2 for both cores)")
    p.add_argument("--resume", action="store_true",
                   help="carry on the run in --out from its first unfinished step")
    args = p.parse_args(argv)
    try:
        recipe = Recipe(**{f.name: getattr(args, f.name) for f in fields(Recipe)})
        ExpertIteration(args.out, recipe, args.workers).run(args.resume)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0
