"""``gongzhu replay``: step through the hands of a hand-record file, action by action.

Each record is first replayed by the engine (``gongzhu_env.records.replay_record``), so a
tampered or damaged file is refused with the hand named before anything is shown. The file is
read within bounds (``load_records``): ``gongzhu replay /dev/zero`` is refused after a
megabyte. Text from the file (player names, the file name, messages quoting it) is escaped
before it is printed (``gongzhu_env.integrity.printable``): a name holding terminal escape
sequences is shown as text, never run by the terminal. Errors are one line on stderr, with
exit status 2.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from gongzhu_cli.table import Table, action_part
from gongzhu_cli.terminal import Console, Interrupted, Style, read_line
from gongzhu_env.engine import Game
from gongzhu_env.integrity import printable
from gongzhu_env.records import RecordError, load_records, replay_record


def run_replay(path: Path, *, hand: int | None, show_all: bool, colour: bool,
               out: TextIO | None = None, read: Callable[[str], str] = read_line,
               err: TextIO | None = None) -> int:
    """Step through the hands of a record file (``hand`` is 1-based; ``None`` for all).

    The hands go to ``out``; a file or a ``--hand`` that cannot be replayed is one line on
    ``err`` (``None``: ``sys.stderr`` of the moment) and exit status 2, as for every command.
    """
    console = Console(Style(colour), out, read)
    st = console.style
    shown = printable(path)

    def refuse(message: str) -> int:
        print(f"gongzhu replay: {message}", file=err or sys.stderr, flush=True)
        return 2

    try:
        records = load_records(path)
    except RecordError as e:
        return refuse(printable(e))
    if hand is not None and not 1 <= hand <= len(records):
        return refuse(f"{shown} holds {len(records)} hand(s); --hand must be "
                      f"1..{len(records)}, got {hand}")
    chosen = [hand] if hand is not None else list(range(1, len(records) + 1))
    stepping = not show_all
    try:
        for n in chosen:
            rec = records[n - 1]
            try:
                final = replay_record(rec)
            except RecordError as e:
                return refuse(f"{shown}, hand {n}: {printable(e)}")
            seats = final.rules.players
            # load_records has checked meta (an object) and meta.players (one name per seat).
            players = rec.get("meta", {}).get("players") or [f"Seat {s}" for s in range(seats)]
            labels = [printable(p, 40) for p in players]
            table = Table(-1, [None] * seats, labels, final.rules, console)
            console.say(st.bold(f"=== {printable(path.name)}: hand {n} of {len(records)} ==="))
            for s, cards in enumerate(final.deal):
                console.say(f"{labels[s]:<24} {st.hand(cards)}")
            game = Game.from_hands(final.deal, final.rules, leader=rec["leader"])
            if stepping:
                console.say(st.dim("Enter: next action · a: show the rest · q: quit"))
            for action in final.actions:
                seat = game.current_player
                tricks, decls = len(game.tricks), len(game.declarations)
                phase, part = game.phase, action_part(game)
                game.step(action)
                console.say(table.describe(phase, seat, action, part=part))
                table.announce_after(game, tricks, decls, seat, action)
                if stepping:
                    answer = console.ask("").strip().lower()
                    if answer in ("q", "quit"):
                        return 0
                    if answer in ("a", "all"):
                        stepping = False
            if game.is_over():
                table.hand_number = n
                table.summary(game, totals=False)
            else:
                console.say(f"(hand {n} was interrupted after {len(game.actions)} actions)")
    except Interrupted:
        return 0
    return 0
