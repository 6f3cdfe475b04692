"""The single training entry point: ``python -m training train`` (or ``gongzhu train``).

It builds and validates the config (``training.config``) before any work starts, trains with the
chosen trainer (``training.dmc.train`` or ``training.sb3.train``) into a run directory
(``training.run`` lists its files) and ends with an arena evaluation of the trained policy
against the baselines (duplicate 1 vs 3, ``training.arena``) and the learning-curve plot.

Interrupting a run (Ctrl-C, a crash, a kill) loses at most one checkpoint interval: ``--resume``
restarts from the run's last checkpoint and trains until the budget is used up.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
import time
from typing import Any

from agents.rule_features import rules_label
from gongzhu_env.rules import PRESETS as RULE_PRESETS
from gongzhu_env.rules import rules_value
from training.arena import markdown_table
from training.arguments import CommandParser, command_prog, seed_argument
from training.cluster import (
    BackendError,
    WorkerLostError,
    add_backend_arguments,
    check_backend,
    connect,
)
from training.config import (
    MAX_ACTORS,
    PRESETS,
    TRAINERS,
    Config,
    ConfigError,
    DMCConfig,
    SB3Config,
    config_from_dict,
    field_docs,
    load_config,
    make_config,
    save_config,
)
from training.dmc import mixed_input, train_dmc
from training.outdir import out_problem, taken_problem
from training.run import (
    FINAL_EVAL_SEED,
    RunDir,
    TrainingError,
    evaluate_policy,
    plot_learning_curve,
)
from training.sb3 import train_sb3


# ---------------------------------------------------------------------------- command line
def build_parser() -> argparse.ArgumentParser:
    """Arguments of ``python -m training train`` / ``gongzhu train``."""
    p = CommandParser(
        prog=command_prog("train"),
        description="Train a Gong Zhu policy by self-play and evaluate it against the baselines.")
    p.add_argument("--preset", default="quick",
                   help=f"config preset: {', '.join(PRESETS)} (default quick)")
    p.add_argument("--trainer", default="dmc",
                   help=f"trainer: {', '.join(TRAINERS)} (dmc = our Deep Monte-Carlo, "
                        "sb3 = MaskablePPO)")
    p.add_argument("--out", default=None, help="run directory (default runs/<preset>-<trainer>)")
    p.add_argument("--resume", action="store_true",
                   help="continue the run in --out from its last checkpoint")
    p.add_argument("--overwrite", action="store_true",
                   help="replace the run in --out: remove its files (config, policy, "
                        "checkpoints, logs) and start a new one there; without it (or "
                        "--resume) an --out that holds a run is refused")
    p.add_argument("--rules", default=None, metavar="NAME|JSON",
                   help=f"rules to train for: a preset ({', '.join(RULE_PRESETS)}) or a JSON "
                        "object of options, e.g. '{\"team_play\": true}' (default standard; "
                        "team rules train on the team result)")
    p.add_argument("--rules-mix", default=None, metavar="NAME,NAME,...",
                   help="train one network for several rule sets (preset names, comma "
                        "separated; DMC only): each table draws its rules from them and the "
                        "network reads the rules; the periodic evaluations play the first "
                        "(so it takes the place of --rules)")
    p.add_argument("--episode", default=None, choices=("hand", "match"),
                   help="what one episode is: a single hand (default) or a whole match, whose "
                        "observation adds the match scores")
    p.add_argument("--seed", type=seed_argument, default=None,
                   help="override the config's seed")
    p.add_argument("--time-budget", type=float, default=None,
                   help="override the training budget in seconds")
    p.add_argument("--final-eval-deals", type=int, default=None,
                   help="deals per baseline in the final evaluation (0 skips it)")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=JSON",
                   help="override any config field, value as JSON (e.g. --set num_tables=64)")
    p.add_argument("--actors", type=actor_count, default=None, metavar="N|auto",
                   help="actors playing self-play tables for the learner (DMC; the config's "
                        "num_actors): local processes, or Ray actors with --backend ray; "
                        "'auto' = one per core of this machine")
    p.add_argument("--quiet", action="store_true", help="print only the final table")
    add_backend_arguments(p)
    fields = p.add_argument_group(
        "config fields",
        "Every other field of the trainers' configs (training.config), each set as --set "
        "FIELD=JSON would set it: the value as JSON (a number, true, a list, an object) or as "
        "plain text. The preset gives the defaults; the config checks every value.")
    for name, (trainers, doc) in config_fields().items():
        if name in NAMED_FLAGS:
            continue
        fields.add_argument(f"--{name.replace('_', '-')}", dest=f"field_{name}", default=None,
                            metavar="JSON",
                            help=f"({trainers}) {doc}".replace("%", "%%"))
    return p


NAMED_FLAGS = {"preset": "--preset", "rules": "--rules", "rules_mix": "--rules-mix",
               "episode": "--episode", "seed": "--seed", "time_budget_s": "--time-budget",
               "final_eval_deals": "--final-eval-deals", "num_actors": "--actors"}
"""Config fields with an option of their own above; every other field gets ``--field-name``."""


def config_fields() -> dict[str, tuple[str, str]]:
    """Every config field of either trainer: which trainers have it, and its docstring."""
    out: dict[str, tuple[str, str]] = {}
    for trainer, cls in (("dmc", DMCConfig), ("sb3", SB3Config)):
        for name, doc in field_docs(cls).items():
            if name in out:
                out[name] = (f"{out[name][0]}, {trainer}", out[name][1])
            else:
                out[name] = (trainer, doc)
    return out


def actor_count(text: str) -> int:
    """Read ``--actors``: a count, or ``auto`` for one actor per core of this machine.

    One per core, not one fewer for the learner: the actors wait on the learner's queue
    whenever it is full, and on two cores the full preset trained fastest with two actors
    (docs/training.md); a learner on a GPU needs little of the CPU. The count is resolved
    here, so a run's ``config.json`` records the number it ran with.
    """
    if text.strip().lower() == "auto":
        return min(os.cpu_count() or 1, MAX_ACTORS)
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a count of actors or 'auto'; got {text!r}") from None


def parse_rules(text: str) -> str | dict[str, Any]:
    """Read ``--rules``: a preset name as it is, a JSON object as a dict of options.

    The config keeps the value in this form (readable in ``config.json``); validating the
    config checks the name or the options and names the one that is wrong.
    """
    try:
        return rules_value(text)
    except ValueError as e:
        raise ConfigError(str(e)) from None


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    """Collect the config fields the command line sets, each from exactly one place.

    A field named twice (a flag and ``--set``, or ``--set`` repeated) is refused: otherwise the
    last one would win without a word, and which one a person meant is a guess.
    """
    out: dict[str, Any] = {}
    given_by: dict[str, str] = {}

    def put(field: str, value: Any, source: str) -> None:
        if field in given_by:
            raise ConfigError(f"{source}: {field} is already given by {given_by[field]}; give "
                              "it in one place only")
        given_by[field] = source
        out[field] = value

    if args.rules_mix is not None:
        if args.rules is not None:
            raise ConfigError(f"--rules {args.rules} and --rules-mix {args.rules_mix}: give one "
                              "of them. With --rules-mix the network trains for every rule set "
                              "of the mix and its periodic evaluations play the first, so "
                              "list the rule set to evaluate first instead of giving --rules")
        mix = parse_rules_mix(args.rules_mix)
        put("rules_mix", mix, f"--rules-mix {args.rules_mix}")
        put("rules", mix[0], f"--rules-mix {args.rules_mix} (its first rule set)")
    elif args.rules is not None:
        put("rules", parse_rules(args.rules), f"--rules {args.rules}")
    for field, value, flag in (("episode", args.episode, "--episode"),
                               ("seed", args.seed, "--seed"),
                               ("time_budget_s", args.time_budget, "--time-budget"),
                               ("final_eval_deals", args.final_eval_deals, "--final-eval-deals"),
                               ("num_actors", args.actors, "--actors")):
        if value is not None:
            put(field, value, f"{flag} {value}")
    for name in config_fields():
        value = getattr(args, f"field_{name}", None)
        if value is not None:
            flag = f"--{name.replace('_', '-')}"
            put(name, _json_or_text(value), f"{flag} {value}")
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"--set {item!r}: expected FIELD=VALUE")
        key = key.strip()
        if key in ("preset", "trainer"):
            # Both pick the table of defaults the fields start from, so they have options.
            raise ConfigError(f"--set {key}: choose it with --{key}, not --set")
        put(key, _json_or_text(value), f"--set {item}")
    return out


def parse_rules_mix(text: str) -> tuple[str, ...]:
    """Read ``--rules-mix``: preset names separated by commas, none of them empty.

    An empty name (``--rules-mix ''``, ``standard,,huapai``) is refused rather than skipped:
    skipping it would train for one rule set fewer than the person listed, or, for an empty
    text, for no mix at all, without a word.
    """
    names = tuple(name.strip() for name in text.split(","))
    if not all(names):
        raise ConfigError(f"--rules-mix {text!r}: expected rule set names separated by commas, "
                          f"e.g. standard,huapai ({', '.join(RULE_PRESETS)}), and no empty "
                          "name")
    return names


def _json_or_text(value: str) -> Any:
    """Read a field's value from the command line: JSON if it is JSON, else the text itself."""
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value


def run_training(cfg: Config, out: str | os.PathLike[str], resume: bool = False,
                 quiet: bool = False, *, backend: str = "local",
                 address: str | None = None) -> dict[str, Any]:
    """Train, save the policy, evaluate, plot; return a summary dict (paths and results).

    ``backend="ray"`` runs the DMC actors on a Ray cluster (``training.dmc.ray_actors``).
    """
    check_run_backend(cfg, backend, address)
    run = RunDir(out)
    run.make()
    if not resume:
        save_config(cfg, str(run.config))
    t0 = time.perf_counter()
    if isinstance(cfg, DMCConfig):
        net = train_dmc(cfg, run, resume, quiet, backend=backend, address=address)
    else:
        net = train_sb3(cfg, run, resume, quiet)
    rules = cfg.game_rules
    summary: dict[str, Any] = {"run_dir": str(run.root), "policy": str(run.policy),
                               "train_wall_s": round(time.perf_counter() - t0, 1)}
    if cfg.final_eval_deals > 0:
        mixed = mixed_input(cfg) if isinstance(cfg, DMCConfig) else None
        tables = list(mixed.mix) if mixed is not None else [rules]
        md, records = [], []
        for table_rules in tables:
            results = evaluate_policy(net, table_rules, cfg.eval_opponents,
                                      cfg.final_eval_deals, FINAL_EVAL_SEED, mixed=mixed)
            table = markdown_table(results)
            where = "" if mixed is None else f" at {rules_label(table_rules)} tables"
            md.append(f"Final arena{where} (duplicate 1 vs 3, {cfg.final_eval_deals} deals per "
                      f"opponent, deal seed {FINAL_EVAL_SEED}):\n\n{table}\n")
            records += [{**r.to_dict(), "rules": table_rules.to_dict()} if mixed else r.to_dict()
                        for r in results]
            if table_rules == rules:
                summary["results"] = {r.opponent: r.stats.to_dict() for r in results}
            print(md[-1] if mixed is not None else table)
        run.arena_md.write_text("\n".join(md), encoding="utf-8")
        run.arena_json.write_text(json.dumps(records, indent=1), encoding="utf-8")
    plot = plot_learning_curve(run.evals, run.plot)
    summary["plot"] = str(plot) if plot else None
    if not quiet:
        print(f"policy: {run.policy}\nplot: {plot}\nrun directory: {run.root}")
    return summary


def check_run_backend(cfg: Config, backend: str, address: str | None) -> None:
    """Refuse a backend the run cannot use (``BackendError``), before anything is written."""
    check_backend(backend, address)
    if backend != "ray":
        return
    if not isinstance(cfg, DMCConfig):
        raise BackendError("--backend ray runs the actors of the DMC trainer; the sb3 trainer "
                           "has none (use --trainer dmc)")
    if cfg.num_actors < 1:
        raise BackendError(f"--backend ray needs actors to place on the cluster; preset "
                           f"{cfg.preset!r} plays in one process (num_actors 0): pass "
                           "--actors N")


def check_out(out: str, *, resume: bool, overwrite: bool) -> None:
    """Refuse an ``--out`` the run cannot use, before anything is read or written.

    ``TrainingError`` when ``out`` cannot be a directory, when ``--resume`` finds no run
    there, or when a new run would replace one the person did not say to replace
    (``training.outdir.taken_problem``).
    """
    if resume and overwrite:
        raise TrainingError("--resume continues the run in --out and --overwrite replaces it; "
                            "give one of them")
    run = RunDir(out)
    why = out_problem(out, resume=resume, marker=run.config.name, what="training run")
    if why is None and not resume and not overwrite:
        why = taken_problem(out, [path.name for path in run.entries()], what="training run")
    if why is not None:
        raise TrainingError(why)


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
        check_out(out, resume=args.resume, overwrite=args.overwrite)
        if args.resume:
            extra = _overrides(args)
            cfg = load_config(str(RunDir(out).config), device=extra.get("device"))
            if extra:
                cfg = config_from_dict({**cfg.to_dict(), **extra})
        else:
            cfg = make_config(args.preset, args.trainer, **_overrides(args))
        check_run_backend(cfg, args.backend, args.address)
    except (ConfigError, TrainingError, BackendError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        with contextlib.ExitStack() as stack:
            if args.backend == "ray":  # join (or start) Ray before the run directory is made
                ray, started = connect(args.address,
                                       num_cpus=max(cfg.num_actors, os.cpu_count() or 1))
                if started:
                    stack.callback(ray.shutdown)
            if args.overwrite:  # the last moment: every check before it has passed
                RunDir(out).clear()
            run_training(cfg, out, resume=args.resume, quiet=args.quiet,
                         backend=args.backend, address=args.address)
    except (ConfigError, TrainingError, BackendError) as e:  # e.g. a damaged label chunk
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"interrupted; resume with: python -m training train --out {out} --resume",
              file=sys.stderr)
        return 130
    except WorkerLostError as e:
        print(f"error: {e}; the run was checkpointed, resume with: python -m training train "
              f"--out {out} --resume --backend ray", file=sys.stderr)
        return 1
    return 0
