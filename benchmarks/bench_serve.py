"""Load on the web table: many concurrent tables over WebSockets against a local server.

Starts ``gongzhu serve --port 0`` on 127.0.0.1 (this machine only; the script refuses any
other address), opens ``--tables`` connections, each playing hand after hand against
``--opponents`` for ``--seconds``: the person's seat clicks a seeded random legal card
``--think-ms`` after it may act, like a fast player. Then it stops by itself, and reports:

* click -> reply: from sending a move to the first message answering it (the person's card on
  the table), and click -> turn: to the message that gives the person the turn again (or ends
  the hand), i.e. after every AI seat in between has played; p50 / p90 / p99 / max;
* errors: every ``error`` message and every connection that failed;
* lost moves: a move never answered, or one the hand record does not hold: at the end of
  every hand the record is downloaded and the person's actions in it are compared, in order,
  with the moves that were sent.

Each table connects from a loopback address of its own (127.0.1.1, 127.0.1.2, ...), as
distinct visitors do: the server bounds tables and connections per client address.

``--hint-tables K``: the first K tables ask for a hint before every move (waiting for the
answer, or the refusal of a hint asked too often, before they click), and the click times of
the other tables are reported apart: what one table's hints cost everyone else's moves.

    python benchmarks/bench_serve.py --tables 50 --seconds 60 --opponents expert
    python benchmarks/bench_serve.py --tables 20 --hint-tables 3 --seconds 60

Needs the ``[web]`` extra (the ``websockets`` client). Timings depend on the machine's load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gongzhu_env.cards import parse_action, parse_card  # noqa: E402
from gongzhu_env.engine import Game  # noqa: E402
from gongzhu_env.rules import Rules  # noqa: E402

ANSWER_S = 60.0
"""A move unanswered after this long counts as lost (and its table stops)."""


@dataclass
class Tally:
    """What every table measured."""

    reply_ms: list[float] = field(default_factory=list)
    turn_ms: list[float] = field(default_factory=list)
    moves: int = 0
    hands: int = 0
    errors: list[str] = field(default_factory=list)
    lost: int = 0
    checked_moves: int = 0
    hint_ms: list[float] = field(default_factory=list)
    """Hint asked -> answered (values or a suggestion)."""
    hints_refused: int = 0
    """Hints refused as asked too often (the per-table rate) or while the pool was busy."""


def person_actions(record: dict, seat: int) -> list[str]:
    """The actions ``seat`` took in a hand record, in order (replayed by the engine)."""
    rules = Rules.from_dict(record["rules"])
    game = Game.from_hands([[parse_card(c) for c in h] for h in record["deal"]], rules,
                           leader=record["leader"])
    mine = []
    for text in record["actions"]:
        if game.current_player == seat:
            mine.append(text)
        game.step(parse_action(text, rules.decks))
    return mine


async def receive(ws: object) -> dict:
    """The next message; a wait beyond ``ANSWER_S`` raises (the move is then lost)."""
    return json.loads(await asyncio.wait_for(ws.recv(), ANSWER_S))  # type: ignore[attr-defined]


def visitor_address(index: int) -> str:
    """Return the loopback address table ``index`` connects from (one per table)."""
    return f"127.0.{1 + index // 250}.{1 + index % 250}"


async def ask_hint(ws: object, tally: Tally) -> None:
    """Ask for a hint on the person's turn and wait for its answer (or refusal)."""
    start = time.perf_counter()
    await ws.send(json.dumps({"type": "hint"}))  # type: ignore[attr-defined]
    answer = await receive(ws)
    if answer["type"] == "hint":
        tally.hint_ms.append((time.perf_counter() - start) * 1000)
    elif answer.get("code") in ("hint_rate", "hint_busy"):
        tally.hints_refused += 1
    else:
        tally.errors.append(f"hint: {answer.get('code')}: {answer.get('message')}")


async def table(url: str, index: int, args: argparse.Namespace, stop_at: float,
                tally: Tally) -> None:
    """One browser: play hands until ``stop_at``, measuring every click."""
    import websockets

    hints = index < args.hint_tables
    rng = np.random.default_rng([args.seed, index])
    config = {"preset": args.rules, "opponents": args.opponents, "seed": args.seed * 1000 + index}
    try:
        async with websockets.connect(url, max_size=2**24,
                                      local_addr=(visitor_address(index), 0)) as ws:
            await ws.recv()  # hello
            while time.monotonic() < stop_at:
                await ws.send(json.dumps({"type": "new_table", "config": config}))
                config["seed"] += 7919
                sent: list[str] = []
                table_id = None
                state: dict = {}
                while state.get("phase") != "over":
                    state = await receive(ws)
                    if state["type"] == "table":
                        table_id = state["table"]
                        state = {}
                        continue
                    if state["type"] == "error":
                        tally.errors.append(f"table {index}: {state['code']}: "
                                            f"{state['message']}")
                        return
                    while state["your_turn"] and state["phase"] != "over":
                        if args.think_ms:
                            await asyncio.sleep(args.think_ms / 1000)
                        if hints:
                            await ask_hint(ws, tally)
                        legal = state["legal"]
                        action = legal[int(rng.integers(len(legal)))]
                        sent.append(action)
                        start = time.perf_counter()
                        await ws.send(json.dumps({"type": "move", "action": action}))
                        tally.moves += 1
                        state = await receive(ws)
                        tally.reply_ms.append((time.perf_counter() - start) * 1000)
                        while state["type"] == "state" and not (
                                state["your_turn"] or state["phase"] == "over"):
                            state = await receive(ws)
                        if state["type"] == "error":
                            tally.errors.append(f"table {index}: {state['code']}: "
                                                f"{state['message']}")
                            return
                        tally.turn_ms.append((time.perf_counter() - start) * 1000)
                # The hand is over: its record must hold every move that was sent.
                await ws.send(json.dumps({"type": "record"}))
                rec_msg = await receive(ws)
                record = json.loads(rec_msg["text"].splitlines()[-1])
                got = person_actions(record, state["seat"])
                tally.checked_moves += len(sent)
                if got != sent:
                    tally.lost += max(1, abs(len(sent) - len(got)))
                    tally.errors.append(f"table {index}: the record holds {got}, sent {sent}")
                tally.hands += 1
                await ws.send(json.dumps({"type": "leave"}))
                left = await receive(ws)
                assert left["type"] == "left" and left["table"] == table_id
    except asyncio.TimeoutError:
        tally.lost += 1
        tally.errors.append(f"table {index}: no answer within {ANSWER_S:g} s")
    except Exception as e:  # noqa: BLE001 - every failure is counted and reported
        tally.errors.append(f"table {index}: {type(e).__name__}: {e}")


def start_server(tables: int, hint_rate: float | None) -> tuple[subprocess.Popen[str], str]:
    """Start ``gongzhu serve`` on 127.0.0.1 and a free port; return it and its ws:// URL."""
    rate = [] if hint_rate is None else ["--hint-rate", str(hint_rate)]
    proc = subprocess.Popen([sys.executable, "-m", "gongzhu_cli", "serve", "--host",
                             "127.0.0.1", "--port", "0", "--max-tables", str(tables + 8),
                             *rate],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    m = re.search(r"http://(127\.0\.0\.1:\d+)/", line)
    if m is None:
        proc.kill()
        raise SystemExit(f"the server did not start: {line}{proc.stdout.read()}")
    return proc, f"ws://{m.group(1)}/ws"


def percentiles(xs: list[float]) -> str:
    if not xs:
        return "n/a"
    q = np.percentile(xs, [50, 90, 99])
    return (f"p50 {q[0]:.1f} ms, p90 {q[1]:.1f} ms, p99 {q[2]:.1f} ms, "
            f"max {max(xs):.1f} ms, mean {statistics.fmean(xs):.1f} ms")


async def run(args: argparse.Namespace, url: str) -> tuple[Tally, Tally]:
    """Play every table; return the tallies of the tables without hints and with them."""
    plain, hinting = Tally(), Tally()
    stop_at = time.monotonic() + args.seconds
    await asyncio.gather(*(table(url, i, args, stop_at, hinting if i < args.hint_tables
                                 else plain) for i in range(args.tables)))
    return plain, hinting


def report(name: str, tally: Tally, wall: float) -> None:
    """Print one group of tables' figures."""
    print(f"{name}: hands {tally.hands}, moves {tally.moves} ({tally.moves / wall:.0f}/s), "
          f"moves checked against the records {tally.checked_moves}")
    print(f"  click -> reply: {percentiles(tally.reply_ms)}")
    print(f"  click -> turn:  {percentiles(tally.turn_ms)}")
    if tally.hint_ms or tally.hints_refused:
        print(f"  hint -> answer: {percentiles(tally.hint_ms)}; {len(tally.hint_ms)} answered, "
              f"{tally.hints_refused} refused (asked too often)")
    print(f"  errors {len(tally.errors)}, lost moves {tally.lost}")
    for e in tally.errors[:10]:
        print("    ", e)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50, help="concurrent tables (50)")
    parser.add_argument("--seconds", type=float, default=60, help="how long to start hands (60)")
    parser.add_argument("--opponents", default="expert", help="opponent of every table")
    parser.add_argument("--rules", default="standard", help="rules preset")
    parser.add_argument("--think-ms", type=float, default=100,
                        help="the person's pause before each click (100 ms)")
    parser.add_argument("--hint-tables", type=int, default=0, metavar="K",
                        help="the first K tables ask for a hint before every move (0)")
    parser.add_argument("--hint-rate", type=float, default=None,
                        help="the server's --hint-rate (default: the server's own)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if not 1 <= args.tables <= 500 or not 1 <= args.seconds <= 3600:
        parser.error("--tables must be 1..500 and --seconds 1..3600")
    if not 0 <= args.hint_tables < args.tables:
        parser.error("--hint-tables must be 0 or more and fewer than --tables")
    proc, url = start_server(args.tables, args.hint_rate)
    try:
        began = time.monotonic()
        tally, hinting = asyncio.run(run(args, url))
        wall = time.monotonic() - began
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    print(f"{args.tables} tables of {args.opponents} opponents ({args.rules}) for "
          f"{args.seconds:g} s (ran {wall:.1f} s), think time {args.think_ms:g} ms"
          + (f"; {args.hint_tables} of them ask a hint before every move" if args.hint_tables
             else ""))
    report("tables without hints" if args.hint_tables else "all tables", tally, wall)
    if args.hint_tables:
        report("tables asking hints", hinting, wall)
    if args.out:
        def q(xs: list[float]) -> dict[str, float] | None:
            if not xs:
                return None
            values = np.percentile(xs, [50, 90, 99])
            return {"p50": float(values[0]), "p90": float(values[1]), "p99": float(values[2])}

        args.out.write_text(json.dumps({
            "tables": args.tables, "seconds": args.seconds, "opponents": args.opponents,
            "think_ms": args.think_ms, "hands": tally.hands, "moves": tally.moves,
            "reply_ms": q(tally.reply_ms), "turn_ms": q(tally.turn_ms),
            "errors": len(tally.errors), "lost": tally.lost, "hint_tables": args.hint_tables,
            "hinting": {"reply_ms": q(hinting.reply_ms), "hint_ms": q(hinting.hint_ms),
                        "hints": len(hinting.hint_ms), "refused": hinting.hints_refused},
            }, indent=2))
    failed = tally.errors or tally.lost or hinting.errors or hinting.lost
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
