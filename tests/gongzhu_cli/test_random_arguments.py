"""Random bad argument lists for every ``gongzhu`` command: exit status 2, a message, no traceback.

Each generated command line holds at least one value that is wrong (an unknown preset, a seat
off the table, a negative count, a missing file...) among otherwise valid options, in any order.
The command must refuse it before doing any work: status 2 (never 0), a message on stderr or
stdout, and no traceback.
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gongzhu_cli import main as cli

# Per command: options that are fine, and options that are wrong (flag and value).
_GOOD = {
    "demo": [["--seed", "3"], ["--agent", "random"], ["--rules", "standard"], ["--players", "5"]],
    "play": [["--opponents", "random"], ["--seed", "2"], ["--rules", "huapai"], ["--match"],
             ["--no-color"]],
    "eval": [["--candidate", "random"], ["--opponents", "greedy"], ["--deals", "2"],
             ["--workers", "1"], ["--seed", "4"]],
    "train": [["--preset", "tiny"], ["--quiet"], ["--trainer", "dmc"]],
    "replay": [["--all"], ["--no-color"]],
}
_BAD = {
    "demo": [["--rules", "nope"], ["--rules", "{"], ["--rules", "[1, 2]"],
             ["--rules", '{"players": 2}'], ["--agent", "wizard"],
             ["--agent", "policy:/no/such/file.pt"], ["--seed", "-1"], ["--seed", "x"],
             ["--players", "9"], ["--players", "two"], ["--zzz"]],
    "play": [["--rules", "nope"], ["--seat", "9"], ["--seat", "-1"], ["--seat", "x"],
             ["--players", "1"], ["--threshold", "5"], ["--threshold", "x"],
             ["--opponents", "wizard"], ["--save", "/no/such/dir/hands.jsonl"],
             ["--rules", '{"decks": 3}']],
    "eval": [["--deals", "0"], ["--deals", "-5"], ["--deals", "x"], ["--resamples", "0"],
             ["--round-robin", "expert"], ["--round-robin", "expert,expert"],
             ["--workers", "0"], ["--rules", "nope"], ["--candidate", "wizard"],
             ["--opponents", "wizard"]],
    "train": [["--preset", "nosuch"], ["--set", "num_tables=-4"], ["--rules", "nope"],
              ["--set", "nosuchfield=1"], ["--set", "lr"], ["--trainer", "nosuch"]],
    "replay": [["/no/such/records.jsonl"], ["--hand", "x"]],
}


@st.composite
def _bad_command(draw: st.DrawFn) -> list[str]:
    command = draw(st.sampled_from(sorted(_BAD)))
    bad = draw(st.lists(st.sampled_from(_BAD[command]), min_size=1, max_size=2,
                        unique_by=lambda o: o[0]))
    # A flag given twice counts once (the last wins): the good options use other flags.
    flags = {o[0] for o in bad}
    good = draw(st.lists(st.sampled_from([o for o in _GOOD[command] if o[0] not in flags]),
                         max_size=3, unique_by=lambda o: o[0]))
    options = draw(st.permutations([*good, *bad]))
    argv = [command]
    for option in options:
        argv += option
    if command == "replay" and not any(a.startswith("/") for a in argv):
        argv.append("/no/such/records.jsonl")
    return argv


def _run(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as e:  # argparse's own refusals
            code = e.code if isinstance(e.code, int) else 2
    return code, out.getvalue() + err.getvalue()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_bad_command())
def test_a_bad_value_anywhere_is_refused_with_status_2(argv: list[str]) -> None:
    code, said = _run(argv)
    assert code == 2, (argv, code, said[-500:])
    assert "Traceback" not in said, (argv, said[-1500:])
    assert said.strip(), argv
