"""Duplicate matches: a candidate against an opponent on the same fixed deals in every seat.

Luck of the deal dwarfs skill differences in a trick-taking game, so the arena never compares
agents on different hands. Every deal of a ``DealSet`` is played once per *play* of the format
(``training.arena.formats``), the candidate and the opponent trading hands, and the statistic is
the paired difference on each deal, in which the deal's luck cancels.

``duplicate_match`` plays the deals in chunks, in this process or in a ``ProcessPoolExecutor``;
every deal is accounted for before statistics are computed (``ArenaError`` otherwise). Agents are
seeded per hand (``training.arena.hands.agent_seed``), so ``workers=2`` gives exactly the numbers
of ``workers=1``. A journal (``training.arena.journal``) lets an interrupted match resume.
``MatchResult.to_dict()`` is the machine-readable record (seeds, specs, rules, per-deal
differences and every play's raw scores).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents import Agent
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from training.arena.deals import DealSet, check_deals, generate_deals
from training.arena.formats import (
    check_format,
    format_label,
    paired_differences,
    seatings,
    unit_of,
)
from training.arena.hands import (
    AgentLike,
    HandRecord,
    agent_seed,
    label_of,
    play_hand,
    seat_agent,
    validate_agents,
)
from training.arena.journal import ArenaJournal, JournalError, journal_name, match_identity
from training.arena.stats import Stats, summarize


class ArenaError(RuntimeError):
    """The arena could not produce a complete, trustworthy result (e.g. a deal went missing)."""

@dataclass
class MatchResult:
    """The outcome of one duplicate match: candidate against opponent on a deal set."""

    candidate: str
    opponent: str
    mode: str
    scoring: str
    rules: Rules
    seed: int
    deal_seed: int | None
    diffs: np.ndarray
    """Paired difference of each deal, in deal order."""
    scores: np.ndarray
    """Raw scores, shape ``(deals, plays, players)``."""
    stats: Stats
    elapsed: float = 0.0
    workers: int = 1

    @property
    def hands_played(self) -> int:
        """Number of hands played (deals times plays per deal)."""
        return int(self.scores.shape[0] * self.scores.shape[1])

    @property
    def unit(self) -> str:
        """What a difference counts: team points per deal (team format) or points per hand."""
        return unit_of(self.mode, self.rules)

    @property
    def format(self) -> str:
        """The format as this table plays it (``"1v4"`` at five seats; ``mode`` at four)."""
        return format_label(self.mode, self.rules)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record: seeds, specs, rules, statistics, per-deal differences and scores."""
        return {
            "candidate": self.candidate, "opponent": self.opponent, "mode": self.mode,
            "format": self.format, "players": self.rules.players, "unit": self.unit,
            "scoring": self.scoring, "rules": self.rules.to_dict(),
            "seed": self.seed,
            "deal_seed": self.deal_seed, "deals": int(len(self.diffs)),
            "hands_played": self.hands_played, "workers": self.workers,
            "elapsed_seconds": self.elapsed, "stats": self.stats.to_dict(),
            "diffs": [float(v) for v in self.diffs],
            "scores": self.scores.tolist(),
        }

@dataclass(frozen=True)
class _Task:
    """A chunk of deals for one worker; plain data so it pickles to another process."""

    candidate: AgentLike
    opponent: AgentLike
    mode: str
    rules: Rules
    seed: int
    deal_indices: tuple[int, ...]
    hands: np.ndarray
    record: bool


def _run_task(task: _Task) -> list[tuple[int, list[list[int]], list[tuple[int, ...]] | None]]:
    """Play every deal of a chunk; returns ``(deal index, raw scores per play, actions)``."""
    plan = seatings(task.mode, task.rules)
    cand_label, opp_label = label_of(task.candidate), label_of(task.opponent)
    cand_copies: dict[int, Agent] = {}
    opp_copies: dict[int, Agent] = {}
    out = []
    for d, hands in zip(task.deal_indices, task.hands, strict=True):
        deal = hands.tolist()
        scores, actions = [], []
        for play, cand_seats in enumerate(plan):
            players, labels = [], []
            for seat in range(task.rules.players):
                s = agent_seed(task.seed, d, play, seat)
                if seat in cand_seats:
                    players.append(seat_agent(task.candidate, s, cand_copies, seat, task.rules))
                    labels.append(cand_label)
                else:
                    players.append(seat_agent(task.opponent, s, opp_copies, seat, task.rules))
                    labels.append(opp_label)
            game = play_hand(deal, players, task.rules, deal_index=d, play=play, labels=labels)
            scores.append(game.scores())
            actions.append(game.actions)
        out.append((d, scores, actions if task.record else None))
    return out


def one_thread_per_process() -> None:
    """Keep each worker on one thread: the parallelism is across processes, not inside them."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def make_executor(workers: int) -> ProcessPoolExecutor:
    """Return a process pool for the arena.

    ``fork`` is the cheapest start on Linux, but forking a process that has already started
    torch's thread pools can hang, so ``spawn`` is used once torch is imported.
    """
    methods = multiprocessing.get_all_start_methods()
    method = "spawn" if "torch" in sys.modules or "fork" not in methods else "fork"
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method),
                               initializer=one_thread_per_process)

def coerce_deals(deals: DealSet | int, seed: int, rules: Rules | None = None) -> DealSet:
    """Return ``deals`` itself, or ``deals`` deals drawn with ``generate_deals(deals, seed)``.

    With ``rules``, drawn deals are for the rules' table (players and decks), and a given set
    dealt for another table is refused (``check_deals``) before any hand is played.
    """
    if isinstance(deals, DealSet):
        if rules is not None:
            check_deals(deals, rules)
        return deals
    if type(deals) is int:
        table = Rules() if rules is None else rules
        return generate_deals(deals, seed, table.decks, players=table.players)
    raise TypeError(f"deals must be a DealSet or a number of deals; got {deals!r}")


def _chunks(indices: Sequence[int], workers: int, chunk_size: int | None) -> list[list[int]]:
    """Split deal indices into chunks of at most 16 deals by default.

    Small enough to balance the load and move the progress bar often for slow agents (pimc),
    large enough that the per-task overhead stays negligible for fast ones.
    """
    n = len(indices)
    if chunk_size is None:
        chunk_size = max(1, min(16, math.ceil(n / (4 * workers))))
    if type(chunk_size) is not int or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive int; got {chunk_size!r}")
    return [list(indices[i:i + chunk_size]) for i in range(0, n, chunk_size)]


def duplicate_match(candidate: AgentLike, opponent: AgentLike, deals: DealSet | int, *,
                    mode: str = "1v3", scoring: str = "raw", rules: Rules | str | None = None,
                    seed: int = 0, workers: int = 1, progress: bool = False,
                    on_game: Callable[[HandRecord], None] | None = None,
                    resamples: int = 2000, chunk_size: int | None = None,
                    executor: Executor | None = None, journal: str | Path | None = None,
                    resume: bool = False) -> MatchResult:
    """Play ``candidate`` against ``opponent`` on every deal in duplicate and summarize.

    ``deals`` is a ``DealSet`` or a number of deals (then drawn with ``generate_deals(n, seed)``,
    for the rules' table: ``rules.players`` hands of ``rules.hand_size`` cards, or two decks).
    The candidate takes every seat of a deal in turn (1v3 at four seats, 1 vs ``N - 1`` at
    ``N``), or every team position in the team format (``training.arena.formats``).
    ``seed`` seeds the agents (through ``agent_seed``) and the bootstrap. ``workers`` processes
    share the deals; the result does not depend on it. ``on_game`` receives a ``HandRecord`` for
    every finished hand, in deal then play order, once all deals are played (the hook for hand
    records). ``executor`` lets a caller reuse one pool across matches.

    ``journal`` (a file path; the agents must then be specs) records every finished chunk of
    deals as it arrives, and ``resume=True`` reads back the deals an interrupted run of the same
    match left there and plays only the others (``training.arena.journal``); the result is the
    same as an uninterrupted run's.

    ``mode="2v2"`` under rules with fixed partners is the team match, in team points per deal;
    ``training.arena.formats`` defines every format and refuses the pairings that mean nothing
    (before any hand is played).
    """
    rules = Rules.coerce(rules)
    check_format(mode, scoring, rules)
    if type(seed) is not int or seed < 0:
        raise ValueError(f"seed must be a non-negative int; got {seed!r}")
    if type(workers) is not int or workers < 1:
        raise ValueError(f"workers must be a positive int; got {workers!r}")
    validate_agents([candidate, opponent], rules)
    dealset = coerce_deals(deals, seed, rules)
    n = len(dealset)
    record = on_game is not None
    done, book = _open_journal(journal, resume, candidate, opponent, mode, rules, seed,
                               dealset, record)
    todo = [d for d in range(n) if d not in done]
    tasks = [_Task(candidate, opponent, mode, rules, seed, tuple(c), dealset.hands[c], record)
             for c in _chunks(todo, workers, chunk_size)]
    cand_label, opp_label = label_of(candidate), label_of(opponent)
    start = time.perf_counter()
    rows = list(done.values()) + _execute(
        tasks, workers, executor,
        progress_desc=f"{cand_label} vs {opp_label}" if progress else None, total=n,
        initial=len(done),
        on_chunk=None if book is None else (lambda chunk: book.append(chunk, dealset.hands)))
    elapsed = time.perf_counter() - start
    # Every deal must come back exactly once; a silent loss would bias every number below.
    got = sorted(r[0] for r in rows)
    if got != list(range(n)):
        missing = sorted(set(range(n)) - set(got))
        raise ArenaError(f"arena run returned {len(got)} results for {n} deals; missing deals "
                         f"{missing[:10]}, duplicates {len(got) - len(set(got))}")
    rows.sort(key=lambda r: r[0])
    plan = seatings(mode, rules)
    scores = np.array([r[1] for r in rows], dtype=np.int64)
    if scores.shape != (n, len(plan), rules.players):
        raise ArenaError(f"arena scores have shape {scores.shape}; expected "
                         f"{(n, len(plan), rules.players)}")
    diffs = paired_differences(scores, mode, scoring, rules)
    stats = summarize(diffs, seed=seed, resamples=resamples)
    if on_game is not None:
        for d, _, actions in rows:
            for play, acts in enumerate(actions or ()):
                cand = plan[play]
                seats = tuple(cand_label if s in cand else opp_label
                              for s in range(rules.players))
                on_game(HandRecord(d, play, seats, Game.replay(dealset[d], acts, rules)))
    return MatchResult(cand_label, opp_label, mode, scoring, rules, seed, dealset.seed, diffs,
                       scores, stats, elapsed, workers)


def against(candidate: AgentLike, opponents: Sequence[AgentLike], deals: DealSet | int,
            **options: Any) -> list[MatchResult]:
    """Play ``candidate`` against each of ``opponents`` on the same deals, one at a time.

    One ``duplicate_match`` per opponent with the same ``deals`` and keyword ``options``
    (``seed``, ``rules``, ``workers`` ...): the usual way to rank a new agent against the
    baselines, ``markdown_table(against(mine, ["random", "greedy", "expert"], 500))``.
    """
    return [duplicate_match(candidate, opponent, deals, **options) for opponent in opponents]


def _open_journal(path: str | Path | None, resume: bool, candidate: AgentLike,
                  opponent: AgentLike, mode: str, rules: Rules, seed: int, dealset: DealSet,
                  record: bool) -> tuple[dict[int, Any], ArenaJournal | None]:
    """Open a match's journal (if asked for); return the deals already played and the journal."""
    if path is None:
        if resume:
            raise ValueError("resume=True needs a journal file to resume from")
        return {}, None
    if not (isinstance(candidate, str) and isinstance(opponent, str)):
        raise ValueError("an arena journal needs agent specs (strings): an agent object's "
                         "weights and settings cannot be checked when the match is resumed")
    book = ArenaJournal(path, match_identity(candidate, opponent, mode, rules, seed))
    done = book.open(dealset.hands, resume=resume)
    if record and any(actions is None for _, _, actions in done.values()):
        raise JournalError(f"{path} holds deals without their moves, so no hand record can be "
                           "written for them; resume without --record, or start afresh")
    return done, book


def _execute(tasks: list[_Task], workers: int, executor: Executor | None,
             progress_desc: str | None, total: int, initial: int = 0,
             on_chunk: Callable[[list], None] | None = None) -> list:
    """Run the chunks in this process or a pool, with an optional progress bar over deals.

    ``on_chunk`` sees every finished chunk as it arrives (the journal writes it to disk).
    """
    bar = None
    if progress_desc is not None:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, initial=initial, desc=progress_desc, unit="deal", leave=False)
    rows: list = []
    try:
        if workers == 1 and executor is None:
            for t in tasks:
                chunk = _run_task(t)
                rows.extend(chunk)
                if on_chunk is not None:
                    on_chunk(chunk)
                if bar is not None:
                    bar.update(len(chunk))
            return rows
        own = executor is None
        pool = make_executor(workers) if own else executor
        futures = [pool.submit(_run_task, t) for t in tasks]
        try:
            for fut in as_completed(futures):
                chunk = fut.result()  # re-raises a worker's error (e.g. an illegal action)
                rows.extend(chunk)
                if on_chunk is not None:
                    on_chunk(chunk)
                if bar is not None:
                    bar.update(len(chunk))
        except BaseException:
            for f in futures:
                f.cancel()
            raise
        finally:
            if own:
                pool.shutdown(wait=True, cancel_futures=True)
        return rows
    finally:
        if bar is not None:
            bar.close()

def journal_path(directory: str | Path, candidate: AgentLike, opponent: AgentLike,
                 mode: str) -> Path:
    """Where a run directory keeps the journal of one match."""
    return Path(directory) / journal_name(label_of(candidate), label_of(opponent), mode)
