"""``gongzhu play``: a person against agents in the terminal, one hand or a match.

The engine decides everything: the options offered are ``game.legal_actions()``, a typed card is
checked against that list, and scores come from ``game.scores()``. This module seats the
opponents, deals the hands and keeps the match going; the table (``gongzhu_cli.table``) shows it
and reads the person's actions. Typing mistakes never reach the engine as an exception and never
end the game; end of input (Ctrl-D) and Ctrl-C offer to save the match as hand records
(``gongzhu_env.records``) before quitting cleanly.

Saving appends to a file that may already hold hours of play, so it never makes a readable file
unreadable: a file is appended to only when it is missing, empty, or a readable hand-record file
ending in a newline (``save_problem``, checked before the first hand), every line is written on a
line of its own, and a write that fails is cut back off (``save_records`` does both checks the
same way for every caller: ``gongzhu_env.records.append_problem``).
"""

from __future__ import annotations

import dataclasses
import os
import stat
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TextIO

import numpy as np

from agents import make_agent
from agents.base import Agent
from gongzhu_cli.table import AgentFailed, Table
from gongzhu_cli.terminal import Console, Interrupted, Style, read_line
from gongzhu_env.engine import Game
from gongzhu_env.integrity import printable
from gongzhu_env.match import match_over, next_hand_leader
from gongzhu_env.records import RecordError, append_problem, load_records, save_records
from gongzhu_env.rules import Rules, count_word

DEFAULT_OPPONENT = "policy:pretrained"
FALLBACK_OPPONENTS = ("expert", "greedy", "random")
"""Tried in order when the default opponent (the pretrained policy) cannot be built."""


def build_opponents(specs: Sequence[str] | None, seat: int, seed: int,
                    say: Callable[[str], None], rules: Rules | None = None,
                    ) -> tuple[list[Agent | None], list[str]]:
    """Agents for the other seats (three at four), and every seat's label.

    ``specs`` is one spec for all the others or one per other seat in seat order; ``None`` means the
    pretrained policy, falling back (with a one-line notice) to the best agent available.
    Each agent is also seated once at a table of ``rules``, so that an agent that cannot play
    these rules (a policy trained for others) is refused here, not in the middle of a hand.
    """
    rules = rules or Rules()
    n = rules.players
    if specs is None:
        chosen = None
        reasons = []
        for spec in (DEFAULT_OPPONENT, *FALLBACK_OPPONENTS):
            try:
                make_agent(spec, seed=0).reset((seat + 1) % n, rules)
            except Exception as e:  # noqa: BLE001 - any failure means "not available here"
                reasons.append(str(e).splitlines()[0] if str(e) else type(e).__name__)
                continue
            chosen = spec
            break
        if chosen is None:
            raise RuntimeError("no agent could be built: " + "; ".join(reasons))
        if chosen != DEFAULT_OPPONENT:
            say(f"note: the pretrained policy is not available ({reasons[0]}); playing against "
                f"'{chosen}' instead.")
        specs = [chosen]
    if len(specs) not in (1, n - 1):
        raise ValueError(f"--opponents takes one agent spec for all {count_word(n - 1)} other "
                         f"seats or {count_word(n - 1)} (one per seat in seat order); got "
                         f"{len(specs)}: {list(specs)}")
    others = [s for s in range(n) if s != seat]
    per_seat = dict(zip(others, list(specs) * (n - 1) if len(specs) == 1 else specs,
                        strict=True))
    players: list[Agent | None] = [None] * n
    labels = ["You"] * n
    for s in others:
        players[s] = make_agent(per_seat[s], seed=seed * n + s)
        players[s].reset(s, rules)
        labels[s] = f"Seat {s} ({per_seat[s]})"
    labels[seat] = f"You (seat {seat})"
    return players, labels


def offer_save(table: Table, save: Path | None) -> None:
    """After Ctrl-C / end of input: offer to save the match, then return (the caller quits)."""
    console = table.console
    pending = list(table.records if save is None else [])
    game = table.game
    if game is not None and not game.is_over() and game.actions:
        pending.append(table.record(game))
    if not pending:
        console.say("Nothing left unsaved. Goodbye.")
        return
    n_done = sum(1 for r in pending if r["complete"])
    what = f"{n_done} finished hand(s)" + (" and the unfinished one" if n_done < len(pending)
                                           else "")
    try:
        if save is not None:
            answer = console.ask(f"Also save the unfinished hand to {save}? [y/N] ")
            target = save if answer.strip().lower() in ("y", "yes") else None
        else:
            target = _ask_path(console, f"Save the match ({what}) to a hand-record file? "
                               "Enter a file name, or just Enter to quit without saving: ")
        while target is not None:
            problem = save_problem(target) or append_records(target, pending)
            if problem is None:
                break
            console.say(f"Could not write {printable(target)}: {problem}.")
            target = _ask_path(console, "Another file name (Enter to quit without "
                               "saving): ")
    except Interrupted:
        target = None
    if target is None:
        console.say("Not saved. Goodbye.")
        return
    console.say(f"Saved {len(pending)} hand(s) to {target}. Replay with: gongzhu replay {target}")


def _ask_path(console: Console, prompt: str) -> Path | None:
    answer = console.ask(prompt).strip()
    return Path(answer).expanduser() if answer else None


def save_problem(path: Path) -> str | None:
    """Why hand records may not be appended to ``path``, or None when they may.

    A missing or empty file is fine (it is created or filled). An existing file must be a
    regular file that ``load_records`` reads whole and whose last line ends with a newline:
    appending to anything else would join the new record onto a cut line, or pour JSON into an
    unrelated file, and leave the file unreadable for ``gongzhu replay``. Checked before play
    starts, so that a person learns it before playing a hand that could not be kept.
    """
    if path.is_dir():
        return "it is a directory, not a file"
    if not path.parent.is_dir():
        return f"the directory {printable(path.parent)} does not exist"
    try:
        info = path.stat()
    except FileNotFoundError:
        return None if os.access(path.parent, os.W_OK) else \
            f"the directory {printable(path.parent)} is not writable"
    except OSError as e:
        return f"it cannot be read ({printable(e.strerror or e)})"
    if not stat.S_ISREG(info.st_mode):
        return "it is not a regular file (hand records are appended to a file of JSON lines)"
    if not os.access(path, os.W_OK):
        return "it is not writable"
    if info.st_size == 0:
        return None
    try:
        load_records(path)
    except RecordError as e:
        return f"it is not a readable hand-record file ({printable(e)})"
    return append_problem(path)


def append_records(path: Path, records: Sequence[Mapping]) -> str | None:
    """Append ``records`` to ``path``, each on a line of its own; return why not, or None.

    ``save_records`` keeps the file readable (it refuses a file that does not end with a whole
    line and cuts back a write that fails part way); the reason is asked of the same rule
    first (``append_problem``), so that the person reads it without the advice meant for
    callers of the library: the hands are offered for saving elsewhere instead.
    """
    problem = append_problem(path)
    if problem is not None:
        return problem
    try:
        save_records(path, records, append=True)
    except RecordError as e:  # the file changed since the question above
        return printable(e)
    except OSError as e:
        return printable(e.strerror or e)
    return None


def run_play(*, opponents: Sequence[str] | None, seat: int, seed: int | None, match: bool,
             threshold: int, rules: Rules, save: Path | None, colour: bool,
             out: TextIO | None = None, read: Callable[[str], str] = read_line) -> int:
    """Run the ``gongzhu play`` session; return the exit status (130 when interrupted).

    ``threshold`` is the (negative) cumulative score that ends a match.
    """
    if threshold >= 0:
        raise ValueError(f"the match threshold is a negative score such as -1000; got {threshold}")
    console = Console(Style(colour), out, read)
    problem = save_problem(save) if save is not None else None
    if problem is not None:
        print(f"gongzhu play: --save {printable(save)}: {problem}; --save takes a new file, or "
              "a hand-record file to add the hands to", file=sys.stderr)
        return 2
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2**31))
    try:
        players, labels = build_opponents(opponents, seat, seed, console.say, rules)
    except Exception as e:  # noqa: BLE001 - a bad spec is reported, not raised at a person
        console.say(f"gongzhu play: cannot build the opponents: {e}")
        return 2
    console.say(f"Gong Zhu: {', '.join(labels)}. Seed {seed} (same seed, same deals)."
                + (f" Match until a total reaches {threshold}"
                   + (f" or {-threshold}." if rules.match_end == "either" else ".")
                   if match else ""))
    rng = np.random.default_rng(seed)
    # The match's end is judged by the engine's rule, with --threshold in the rules' place.
    match_rules = dataclasses.replace(rules, match_threshold=threshold)
    led_because = ("took the pig last hand" if rules.next_leader == "pig_taker"
                   else "lost the most last hand")
    table = Table(seat, players, labels, rules, console, meta={"seed": seed})
    save_failed = False
    try:
        while True:
            table.hand_number += 1
            game = Game(rules, rng=rng, leader=table.leader)
            if table.leader is not None:
                console.say(f"\n{table.name(table.leader)} {led_because} and leads "
                            "this one with any card.")
            table.play_hand(game)
            rec = table.record(game)
            table.records.append(rec)
            problem = append_records(save, [rec]) if save is not None else None
            if problem is not None:
                # Keep playing: every hand stays in memory and is offered for saving.
                console.say(f"Could not append to {printable(save)} ({problem}); the hands "
                            "will be offered for saving at the end.")
                save = None
                save_failed = True
            for s, v in enumerate(game.scores()):
                table.totals[s] += v
            table.summary(game)
            if not match:
                break
            if match_over(table.totals, match_rules):
                best = max(range(len(table.totals)), key=lambda s: table.totals[s])
                console.say(console.style.bold(
                    f"Match over after {table.hand_number} hands: {table.name(best)} wins "
                    f"with {table.totals[best]:+d}."))
                break
            table.leader = next_hand_leader(game)
            table.game = None
            console.ask("Press Enter for the next hand... ")
    except (Interrupted, KeyboardInterrupt):
        console.say("Interrupted.")
        offer_save(table, save)
        return 130
    except AgentFailed as e:
        # Not the person's doing: say which agent broke, keep what was played, and stop.
        console.say(f"gongzhu play: the hand cannot go on: {e}")
        try:
            offer_save(table, save)
        except Interrupted:
            pass
        return 1
    if save is not None:
        console.say(f"Hand records appended to {printable(save)}.")
    elif save_failed:
        offer_save(table, None)
    return 0
