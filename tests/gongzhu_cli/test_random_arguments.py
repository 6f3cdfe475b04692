"""Bad arguments for every command: refused with status 2 and a message, no traceback, no crash.

The commands: every ``gongzhu`` command (play, replay, demo, eval, train, bench),
``python -m training eval``, ``python -m training expert-iteration`` and
``python -m training labels``, every field of ``train --set`` (both trainers), and agent
specs given to ``make_agent``. Each case holds at least one wrong value (a count that is
negative or absurdly large, a wrong type, a missing file, a directory or a system file where a
file is read or written, a bad agent spec, two options that contradict each other) among valid
options, in any order. Each command's bad options are tried one at a time, then in seeded
random mixtures with valid ones. A refusal must come before any real work, so that no case
trains for long: a case that is wrongly accepted runs a tiny preset or a one-hand job and then
shows up as "exit 0".

The cases of one command run in one child process (one interpreter start, not one per case),
each in turn with its output caught at the file-descriptor level. The child logs each case
before it starts it, so a crash (a signal kills the child) is pinned on its case. A memory
limit keeps a case that allocates without bound from taking the machine, and an alarm ends a
case that does not return (both are reported as failures, not waited out).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest

SEED = 38
"""Seeds the random mixtures: the same cases on every run."""

MIXTURES = 12
"""Random mixtures per command, beside each bad option alone."""

CASE_SECONDS = 300
"""A case still running after this long is reported as not returning (a refusal takes well
under a second, even on a loaded two-core machine)."""

MEMORY_BYTES = 8 << 30
"""Limit of the child's data (``RLIMIT_DATA``: what it writes, not the address space torch and
the BLAS threads reserve): far above what a refusal needs, torch included."""

HUGE = str(10**30)
Option = list[str]

# Agent specs that must be refused, wherever a command takes a spec. (An empty spec is refused
# where a player is required, but means "none" or "the default" for --others: see EMPTY.)
BAD_SPECS = [
    "wizard", ":", "pimc:worlds=0", "pimc:worlds=-3", "pimc:worlds=1000000000",
    "pimc:worlds=1e400", "pimc:worlds=nan", "pimc:worlds=2,worlds=3", "pimc:seed=5",
    "pimc:rules=huapai", "pimc:worlds", "pimc:=3", "pimc:rollout=minimax", "pimc:objective=win",
    "greedy:level=2", "random:seed=1", "expert:depth=3", "search:worlds=1000000000",
    "search:worlds=2,worlds=3", "search:seed=5", "search:depth=-1", "search:depth=100000",
    "search:temperature=0", "search:temperature=inf", "search:floor=1", "search:time=-1",
    "search:time=1e300", "search:scale=0", "search:workers=100000", "search:model=pimc",
    "search:net=/etc/passwd", "search:net=/dev/zero", "policy:", "policy:/etc/passwd",
    "policy:/dev/zero",
]
EMPTY = [""]


@dataclasses.dataclass(frozen=True)
class Files:
    """Files the cases point at, made fresh in the test's directory."""

    root: Path
    records: Path  # a valid hand-record file of one hand
    deals4: Path  # a valid deal file of four deals
    afile: Path  # a small regular file that is no record, deal set, policy or directory
    policies: tuple[Path, ...]  # policy files that must not load: a huge network, NaN weights

    @property
    def missing_dir(self) -> Path:
        """A directory that does not exist; nothing may create it."""
        return self.root / "no" / "such"

    def outputs(self, name: str) -> list[str]:
        """Output paths that cannot take a new file: a directory, a missing or file parent."""
        return [str(self.root), str(self.missing_dir / name), str(self.afile / name)]

    def specs(self) -> list[str]:
        """Every bad spec: ``BAD_SPECS`` and the bad policy files as ``policy:`` and ``net=``."""
        return BAD_SPECS + [f"{how}{p}" for p in self.policies
                            for how in ("policy:", "search:net=")]

    def inputs(self, name: str) -> list[str]:
        """Input paths that hold nothing readable: missing, a directory, system files."""
        return [str(self.missing_dir / name), str(self.root), "/etc/passwd", "/dev/zero",
                str(self.afile)]


def make_files(root: Path) -> Files:
    """Write the valid files some cases need beside a bad value, and the bad policy files."""
    from gongzhu_env.engine import Game
    from gongzhu_env.records import save_records
    from training.arena.deals import generate_deals

    game = Game(seed=1)
    while not game.is_over():
        game.step(game.legal_actions()[0])
    records = root / "records.jsonl"
    save_records(records, [game])
    deals4 = generate_deals(4, seed=0).save(root / "deals4.json")
    afile = root / "afile.txt"
    afile.write_text("not a record, a deal set, a policy or a directory\n")
    return Files(root, records, deals4, afile, bad_policies(root))


def bad_policies(root: Path) -> tuple[Path, ...]:
    """Policy files well formed on the outside: one whose network would take terabytes (its
    size must be refused before anything is allocated) and one whose weights are NaN."""
    import torch

    from agents.policy import QNetwork, policy_dict
    from gongzhu_env.rules import Rules

    huge = policy_dict(QNetwork(hidden=(4,)), Rules())
    huge["architecture"]["hidden"] = [10**9]
    nan_net = QNetwork(hidden=(4,))
    with torch.no_grad():
        for weights in nan_net.parameters():
            weights.fill_(float("nan"))
    paths = root / "huge.pt", root / "nan.pt"
    torch.save(huge, paths[0])
    torch.save(policy_dict(nan_net, Rules()), paths[1])
    return paths


# ---------------------------------------------------------------- each command's options
@dataclasses.dataclass
class Command:
    """How to call a command: its entry, the options every case has (a bad option of the same
    flag replaces them), valid extras, bad options, and flags that exclude each other."""

    entry: str
    prefix: list[str]
    base: list[Option]
    good: list[Option]
    bad: list[Option]
    exclusive: dict[str, set[str]] = dataclasses.field(default_factory=dict)
    per_case: Callable[[int], list[Option]] | None = None


def _flags(option: Option) -> set[str]:
    """The flags of an option (a positional path is the flag ``FILE``)."""
    return {t for t in option if t.startswith("--")} or {"FILE"}


def _spec_options(flag: str, specs: list[str]) -> list[Option]:
    return [[flag, s] for s in specs]


def commands(f: Files) -> dict[str, Command]:
    """Every command with its options; what makes each bad option wrong is in its value."""
    eval_bad = [
        ["--deals", "0"], ["--deals", "-5"], ["--deals", "x"], ["--deals", HUGE],
        ["--deals", "1000000000000"], ["--resamples", "0"], ["--resamples", "1000000000"],
        ["--workers", "0"], ["--workers", "100000"], ["--seed", "-1"], ["--seed", "x"],
        ["--round-robin", "expert"], ["--round-robin", "expert,expert"],
        ["--anchor", "greedy"], ["--rules", "nope"], ["--rules", "{"],
        ["--rules", '{"players": 2}'], ["--teams"], ["--mode", "2v2"], ["--mode", "3v1"],
        ["--scoring", "nope"], ["--backend", "nope"], ["--resume"], ["--keep-journals"],
        ["--deal-file", str(f.deals4), "--deals", "10"], ["--out", str(f.afile)],
        ["--record", str(f.records)], ["--record", "/dev/zero"], ["--save-deals", "/dev/zero"],
        ["--save-deals", str(f.root / "deals.txt")],
        *(["--deal-file", p] for p in f.inputs("d.json")),
        *(["--record", p] for p in f.outputs("r.jsonl")),
        *(["--save-deals", p] for p in f.outputs("d.npz")),
        *_spec_options("--candidate", f.specs() + EMPTY),
        *_spec_options("--opponents", BAD_SPECS[:12] + EMPTY),
        ["--zzz"],
    ]
    eval_base = [["--candidate", "greedy"], ["--opponents", "random"], ["--deals", "2"],
                 ["--workers", "1"], ["--no-progress"]]
    eval_good = [["--seed", "4"], ["--rules", "standard"], ["--scoring", "raw"], ["--no-plot"],
                 ["--resamples", "50"], ["--mode", "1v3"]]
    exclusive = {"--round-robin": {"--candidate", "--opponents"}}
    search_bad = [s for s in f.specs() if s.startswith(("search", "wizard", ":"))]
    return {
        "demo": Command("gongzhu", ["demo"], [["--seed", "3"]],
                        [["--agent", "random"], ["--rules", "standard"], ["--players", "5"]],
                        [["--rules", "nope"], ["--rules", "{"], ["--rules", "[1, 2]"],
                         ["--rules", '{"players": 2}'], ["--rules", '{"decks": 3}'],
                         ["--rules", '{"players": 5}', "--players", "6"], ["--seed", "-1"],
                         ["--seed", "x"], ["--players", "9"], ["--players", "two"],
                         ["--players", HUGE], ["--zzz"],
                         *_spec_options("--agent", f.specs() + EMPTY)]),
        "play": Command("gongzhu", ["play"], [["--opponents", "random"], ["--seed", "2"],
                                              ["--no-color"]],
                        [["--rules", "huapai"], ["--seat", "1"], ["--players", "5"]],
                        [["--rules", "nope"], ["--rules", '{"decks": 3}'], ["--seat", "9"],
                         ["--seat", "-1"], ["--seat", "x"], ["--seat", HUGE], ["--players", "1"],
                         ["--players", HUGE], ["--threshold", "5"], ["--threshold", "x"],
                         ["--threshold", "-50"], ["--match", "--threshold", "0"],
                         ["--rules", '{"players": 5}', "--players", "6"],
                         ["--opponents", "random", "random", "random", "random", "random"],
                         *(["--save", p] for p in f.outputs("hands.jsonl")),
                         *_spec_options("--opponents", f.specs())]),
        "replay": Command("gongzhu", ["replay"], [[str(f.records)]],
                          [["--all"], ["--no-color"]],
                          [["--hand", "0"], ["--hand", "-1"], ["--hand", "99"],
                           ["--hand", HUGE], ["--hand", "x"], ["--zzz"],
                           *([p] for p in f.inputs("records.jsonl"))]),
        "eval": Command("gongzhu", ["eval"], eval_base, eval_good, eval_bad, exclusive),
        "evaluate": Command("evaluate", [], eval_base, eval_good, eval_bad[::3], exclusive),
        "train": Command(
            "gongzhu", ["train"], [["--preset", "tiny"], ["--quiet"]],
            [["--trainer", "dmc"], ["--final-eval-deals", "0"], ["--seed", "3"]],
            [["--preset", "nosuch"], ["--trainer", "nosuch"], ["--rules", "nope"],
             ["--rules", "{"], ["--rules-mix", "nope,standard"], ["--episode", "x"],
             ["--seed", "-1"], ["--seed", HUGE], ["--time-budget", "-1"],
             ["--time-budget", "nan"], ["--time-budget", "1e300"],
             ["--final-eval-deals", "-1"], ["--final-eval-deals", HUGE], ["--actors", "-1"],
             ["--actors", "100000"], ["--backend", "nope"], ["--out", str(f.afile)],
             ["--resume"], ["--set", "nosuchfield=1"], ["--set", "lr"], ["--set", "lr={"],
             ["--set", "=1"], ["--set", "num_tables=-4"]],
            per_case=lambda i: [["--out", str(f.root / f"train{i}")]]),
        "bench": Command("gongzhu", ["bench"], [["--no-batch"], ["--no-openspiel"],
                                                ["--hands", "1"], ["--repeats", "1"],
                                                ["--only", "engine"]],
                         [["--clock", "cpu"], ["--seed", "2"]],
                         [["--seed", "-1"], ["--seed", str(2**63)], ["--hands", "0"],
                          ["--hands", "-5"], ["--hands", HUGE], ["--hands", "x"],
                          ["--repeats", "0"], ["--repeats", HUGE], ["--batch-decisions", "0"],
                          ["--batch-decisions", HUGE], ["--clock", "x"], ["--only", "nosuch"],
                          ["--json", "/dev/zero"], *(["--json", p] for p in f.outputs("b.json"))]),
        "expert_iteration": Command(
            "expert_iteration", [],
            [["--rounds", "1"], ["--hands", "1"], ["--train-s", "1"], ["--gate-deals", "2"],
             ["--workers", "1"], ["--search", "search:worlds=2"], ["--preset", "tiny"]],
            [["--seed", "3"], ["--rules", "standard"]],
            [["--rounds", "0"], ["--rounds", "-1"], ["--rounds", HUGE], ["--hands", "0"],
             ["--hands", "-1"], ["--hands", HUGE], ["--share", "-1"], ["--share", "2"],
             ["--share", "nan"], ["--train-s", "-1"], ["--train-s", "nan"],
             ["--train-s", "1e300"], ["--lr", "-1"], ["--lr", "nan"], ["--gate-deals", "0"],
             ["--gate-deals", "-1"], ["--gate-deals", HUGE], ["--gate-extend", "-1"],
             ["--seed", "-1"], ["--rules", "nope"], ["--preset", "nosuch"],
             ["--workers", "0"], ["--workers", "100000"], ["--resume"],
             ["--out", str(f.afile)],
             *(["--start", str(p)] for p in [*f.inputs("p.pt"), *f.policies]),
             *(["--extra-labels", p] for p in f.inputs("labels")),
             *_spec_options("--search", search_bad), *_spec_options("--others", BAD_SPECS[:8])],
            per_case=lambda i: [["--out", str(f.root / f"ei{i}")]]),
        "search_labels": Command(
            "search_labels", [],
            [["--hands", "1"], ["--spec", "search:worlds=2"], ["--workers", "1"],
             ["--chunk-hands", "1"]],
            [["--seed", "3"], ["--rules", "standard"]],
            [["--hands", "0"], ["--hands", "-1"], ["--hands", HUGE], ["--rules", "nope"],
             ["--seed", "-1"], ["--chunk-hands", "0"], ["--chunk-hands", "-1"],
             ["--chunk-hands", HUGE], ["--workers", "0"], ["--workers", "100000"],
             ["--time-budget", "-1"], ["--time-budget", "0"], ["--time-budget", "nan"],
             ["--time-budget", "inf"], ["--resume"], ["--out", str(f.afile)],
             *_spec_options("--spec", search_bad), *_spec_options("--others", BAD_SPECS[:12])],
            per_case=lambda i: [["--out", str(f.root / f"sl{i}")]]),
    }


def command_cases(command: Command, rng: random.Random) -> list[tuple[str, list[str]]]:
    """Each bad option alone, then random mixtures of bad and good options in any order."""
    picks = [[bad] for bad in command.bad]
    for _ in range(MIXTURES):
        picks.append(rng.sample(command.bad, k=rng.choice((1, 2))))
    cases = []
    for i, bad in enumerate(picks):
        taken = set().union(*map(_flags, bad))
        if len(taken) < sum(len(_flags(b)) for b in bad):
            bad = bad[:1]  # two bad options of one flag: the last would hide the first
            taken = _flags(bad[0])
        for flag in list(taken):
            taken |= command.exclusive.get(flag, set())
        extras = [g for g in command.good if not _flags(g) & taken]
        options = [*bad, *rng.sample(extras, k=rng.randint(0, min(3, len(extras))))]
        taken |= set().union(*map(_flags, options))
        base = [*command.base, *(command.per_case(i) if command.per_case else [])]
        options += [b for b in base if not _flags(b) & taken]
        rng.shuffle(options)
        cases.append((command.entry, command.prefix + [t for o in options for t in o]))
    return cases


# ---------------------------------------------------------------- train --set, field by field
def field_values(name: str, kind: str, f: Files) -> list[str]:
    """JSON texts that no field of type ``kind`` may take (what ``--set name=...`` reads)."""
    wrong_types = ['{"a": 1}', "[[[]]]"]
    if kind == "bool":
        return [*wrong_types, '"yes"', "2", "null", "[true]"]
    if kind == "int":
        extra = {"torch_threads": ["1000000"], "num_tables": ["1000000000000"],
                 "num_actors": ["100000"], "n_envs": ["100000"]}.get(name, [])
        return [*wrong_types, "-1", HUGE, "-" + HUGE, "1.5", "true", '"7"', "null", "NaN",
                *extra]
    if kind in ("float", "float | None"):
        nulls = [] if kind.endswith("None") else ["null"]
        return [*wrong_types, "-1", "1e300", "-1e300", "NaN", "Infinity", '"0.5"', "[0.5]",
                "true", *nulls]
    if kind == "tuple[int, ...]":
        return [*wrong_types, "[1000000000]", "[-1]", "[]", "[1.5]", '["a"]', "[true]", '"32"']
    if kind == "tuple[str, ...]":
        return [*wrong_types, '["wizard"]', '["search:worlds=1000000000"]',
                '["pimc:worlds=2,worlds=3"]', "[1]", "7"]
    if kind.startswith("tuple[str | dict"):
        return [*wrong_types, '["nope"]', "[1]", '[{"decks": 3}]', "7"]
    if kind.startswith("dict"):
        return ["[[[]]]", '{"self": -1}', '{"wizard": 1}', '{"self": "x"}', "[1]",
                '{"self": NaN}', '{"self": Infinity}', "{}"]
    if kind.startswith("str | dict"):
        return ["[[[]]]", '{"a": 1}', '"nope"', '"/etc/passwd"', '{"players": 99}',
                '{"decks": 3}', "7"]
    assert kind == "str", f"a config field of a type this test does not know: {name}: {kind}"
    values = [*wrong_types, "123", "null", '["a"]']
    if name in ("init_policy", "search_labels"):  # paths read at the start of a run
        values += [json.dumps(p) for p in f.inputs("p.pt")]
    if name == "init_policy":
        values += [json.dumps(str(p)) for p in f.policies]
    else:
        values += ['"nosuch"', '"/etc/passwd"']
    if name == "select_opponent":
        values += ['"search:worlds=1000000000"', '"pimc:seed=1"']
    return values


def set_cases(trainer: str, f: Files) -> list[tuple[str, list[str]]]:
    """Every field of the trainer's config, each bad value alone on the tiny preset."""
    from training.config import DMCConfig, SB3Config

    config = DMCConfig if trainer == "dmc" else SB3Config
    cases = []
    for field in dataclasses.fields(config):
        for value in field_values(field.name, str(field.type), f):
            out = f.root / f"{trainer}{len(cases)}"
            cases.append(("gongzhu", ["train", "--preset", "tiny", "--trainer", trainer,
                                      "--quiet", "--out", str(out),
                                      "--set", f"{field.name}={value}"]))
    return cases


def agent_cases(f: Files) -> list[tuple[str, list[str]]]:
    """Every bad spec straight to ``make_agent``."""
    return [("agent", [spec]) for spec in f.specs() + EMPTY]


GROUPS = ["demo", "play", "replay", "eval", "evaluate", "train", "train --set dmc",
          "train --set sb3", "bench", "expert_iteration", "search_labels", "agent specs"]


def group_cases(group: str, f: Files) -> list[tuple[str, list[str]]]:
    if group == "agent specs":
        return agent_cases(f)
    if group.startswith("train --set"):
        return set_cases(group.split()[-1], f)
    return command_cases(commands(f)[group], random.Random(f"{SEED}-{group}"))


# ---------------------------------------------------------------- the child that runs cases
ENTRIES = {"gongzhu": "gongzhu_cli.main", "evaluate": "training.arena.cli",
           "expert_iteration": "training.expert_iteration.rounds",
           "search_labels": "training.expert_iteration.labels"}


class _NoReturn(Exception):
    """Raised by the alarm in a case that ran past ``CASE_SECONDS``."""


def _alarm(signum: int, frame: object) -> None:
    raise _NoReturn(f"still running after {CASE_SECONDS} s")


def _call(entry: str, argv: list[str]) -> int:
    if entry == "agent":
        from agents import AgentError, make_agent

        try:
            make_agent(argv[0], seed=0)
        except AgentError as e:
            print(f"refused: {e}", file=sys.stderr)
            return 2
        return 0
    return importlib.import_module(ENTRIES[entry]).main(argv)


def run_case(entry: str, argv: list[str]) -> tuple[int | str, str]:
    """Run one case here with fds 1 and 2 sent to a file; return its exit code and output.

    The code is the command's exit status, or ``"traceback"`` when an exception escaped it (the
    user would have seen a traceback), or ``"no return"`` after ``CASE_SECONDS``.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile() as out:
        os.dup2(out.fileno(), 1)
        os.dup2(out.fileno(), 2)
        signal.alarm(CASE_SECONDS)
        try:
            code: int | str = _call(entry, argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else int(e.code is not None)
        except _NoReturn as e:
            code = f"no return ({e})"
        except BaseException:  # whatever escapes the command is a traceback for its user
            traceback.print_exc()
            code = "traceback"
        finally:
            signal.alarm(0)
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
        out.seek(0)
        return code, out.read().decode("utf-8", errors="replace")


def child(cases_file: str, log_file: str) -> None:
    """Run every case of ``cases_file`` in turn, logging each start and result as JSON lines."""
    resource.setrlimit(resource.RLIMIT_DATA, (MEMORY_BYTES, MEMORY_BYTES))
    signal.signal(signal.SIGALRM, _alarm)
    cases = json.loads(Path(cases_file).read_text())
    with open(log_file, "a", encoding="utf-8") as log:
        for i, (entry, argv) in enumerate(cases):
            log.write(json.dumps({"start": i}) + "\n")
            log.flush()
            os.fsync(log.fileno())
            code, said = run_case(entry, argv)
            log.write(json.dumps({"case": i, "code": code, "said": said[-4000:]}) + "\n")
            log.flush()
    # The log holds every result. A wrongly accepted case may have left threads or helper
    # processes behind that a normal interpreter exit would wait for; they are not this
    # test's subject, so the child leaves at once.
    os._exit(0)


# ---------------------------------------------------------------- the test
ROOT = Path(__file__).resolve().parents[2]


def run_group(cases: list[tuple[str, list[str]]], work: Path) -> list[str]:
    """Run the cases in a child process; return one line per case that was not refused well."""
    cases_file, log_file = work / "cases.json", work / "log.jsonl"
    cases_file.write_text(json.dumps(cases))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "200",
           "PYTHONFAULTHANDLER": "1"}
    try:
        done = subprocess.run([sys.executable, __file__, str(cases_file), str(log_file)],
                              cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=600 + CASE_SECONDS * 2 + 10 * len(cases))
        ended = f"exit {done.returncode}" if done.returncode >= 0 else \
            f"killed by signal {-done.returncode}"
        tail = (done.stdout + done.stderr)[-2000:]
    except subprocess.TimeoutExpired as e:
        ended, tail = "past the group's deadline", str(e.stderr or "")[-2000:]
    entries = [json.loads(line) for line in log_file.read_text().splitlines()] \
        if log_file.exists() else []
    results = {e["case"]: e for e in entries if "case" in e}
    problems = []
    for i, (entry, argv) in enumerate(cases):
        shown = f"{entry} {' '.join(repr(a) if ' ' in a or not a else a for a in argv)}"
        if i not in results:
            started = any(e.get("start") == i for e in entries)
            problems.append(f"{shown}: {'crashed the child' if started else 'never ran'} "
                            f"({ended}): {tail}")
            break  # the cases after a crash never ran
        code, said = results[i]["code"], results[i]["said"]
        if code != 2 or "Traceback" in said or not said.strip():
            problems.append(f"{shown}: exit {code}: {said.strip()[-600:] or '(no message)'}")
    return problems


@pytest.mark.parametrize("group", GROUPS)
def test_bad_arguments_are_refused_with_status_2(group: str, tmp_path: Path) -> None:
    files = make_files(tmp_path)
    cases = group_cases(group, files)
    assert len(cases) >= 8
    problems = run_group(cases, tmp_path)
    assert not problems, f"{len(problems)} of {len(cases)} cases of {group!r}:\n" + \
        "\n".join(problems)
    assert not (tmp_path / "no").exists(), "a refused command created a missing directory"


if __name__ == "__main__":
    child(*sys.argv[1:3])
