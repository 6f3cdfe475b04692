r"""The evaluation arena: duplicate deals, paired differences, confidence intervals, ratings.

Luck of the deal dwarfs skill differences in a trick-taking game, so the arena never compares
agents on different hands. Every contender plays the same fixed, seeded deals (``training.deals``)
in every seat, and the statistic is a *paired* difference on each deal, in which the deal's luck
cancels.

Duplicate 1-vs-3 (``mode="1v3"``)
    Each deal is played four times (*plays* ``r = 0..3``). In play ``r`` the candidate sits in
    seat ``r`` and three copies of the opponent fill the other seats, so over the four plays the
    candidate holds each of the four hands once, and so do the opponents. With ``s_r`` the four
    raw hand scores of play ``r``, the deal's paired difference is::

        D = 1/4 * sum_r ( s_r[r] - 1/3 * sum_{j != r} s_r[j] )

    the candidate's score minus the opponents' average score in the same play, averaged over the
    four plays: *points per hand* gained over an opponent seated in the same situation.
Duplicate 2-vs-2 (``mode="2v2"``)
    Each deal is played twice: play 0 seats the candidate in seats 0 and 2 and the opponent in 1
    and 3; play 1 swaps them, so each team holds each pair of hands once. With ``T_c`` and
    ``T_o`` the sums of the two team members' scores in a play::

        D = 1/2 * sum_plays ( T_c - T_o ) / 2

    the team difference per member per hand. Team scoring rules come with a later issue; until
    then this uses the standard game's individual scores.
Scoring (``scoring=``)
    ``"raw"`` (default) uses raw hand points as above. ``"zero_sum"`` uses the settlement that
    rooms pay out (``gongzhu_env.scoring.settle``: each seat's score minus the others' mean,
    rounded, times ``rules.settlement_multiplier``). A settlement is already relative to the
    other three seats, so in this mode ``D`` is the candidate's own mean payout per hand in 1v3
    (the team's payout per member in 2v2) rather than a difference to the opponents: up to the
    rounding and the multiplier it is the same number as the raw ``D``.

Statistics over the deals (``summarize``): mean, sample standard deviation, a seeded bootstrap
95 % percentile confidence interval of the mean, the win rate (share of deals with ``D > 0``),
tie and loss rates, and the number of deals. ``MatchResult.to_dict()`` is the machine-readable
record (seeds, specs, rules, per-deal differences and every play's raw scores).

Determinism and parallelism: the agents of a hand are built afresh with seeds derived from
``(seed, deal index, play, seat)`` (``agent_seed``), so a hand's outcome does not depend on which
process plays it or what it played before; ``workers=2`` gives exactly the numbers of
``workers=1``. Deals are split into chunks for a ``ProcessPoolExecutor``; every deal is accounted
for before statistics are computed (``ArenaError`` otherwise).

Round robin (``round_robin``): every pair of agents plays one duplicate match on the same deals
and a Bradley–Terry model is fitted to the per-deal outcomes (see ``fit_bradley_terry`` for why
Bradley–Terry rather than Elo updates).

CLI::

    python -m training.evaluate --candidate expert --opponents random,greedy \
        --deals 2000 --seed 0 --workers 2 --out runs/eval
    python -m training.evaluate --round-robin random,greedy,expert --deals 500 --out runs/rr
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import multiprocessing
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents import Agent, AgentError, make_agent
from gongzhu_env.cards import card_str
from gongzhu_env.engine import Game, IllegalActionError
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import settle
from training.arena_journal import ArenaJournal, JournalError, journal_name, match_identity
from training.deals import DealFileError, DealSet, generate_deals, load_deals

__all__ = [
    "ArenaError", "HandRecord", "IllegalAgentActionError", "MatchResult", "RatingTable",
    "RoundRobinResult", "Stats", "agent_seed", "build_parser", "duplicate_match",
    "fit_bradley_terry", "main", "play_hand", "round_robin", "split_specs", "summarize",
]

MODES = ("1v3", "2v2")
SCORINGS = ("raw", "zero_sum")
# Which seats the candidate holds in each play of a deal.
_SEATINGS: dict[str, tuple[tuple[int, ...], ...]] = {
    "1v3": ((0,), (1,), (2,), (3,)),
    "2v2": ((0, 2), (1, 3)),
}
AgentLike = str | Agent


class ArenaError(RuntimeError):
    """The arena could not produce a complete, trustworthy result (e.g. a deal went missing)."""


class IllegalAgentActionError(AgentError):
    """An agent returned an action the engine rejected. The message names agent, deal, seat."""


@dataclass(frozen=True)
class HandRecord:
    """One finished hand of an arena run, handed to the ``on_game`` hook (hand records)."""

    deal_index: int
    play: int
    seats: tuple[str, str, str, str]
    """Label of the agent in each seat."""
    game: Game
    """The finished game (``game.deal``, ``game.actions``, ``game.scores()``...)."""


# ---------------------------------------------------------------------------- playing hands
def agent_seed(seed: int, deal_index: int, play: int, seat: int) -> int:
    """Seed of the agent in ``seat`` for one play of one deal: independent of worker splits."""
    return int(np.random.SeedSequence([seed, deal_index, play, seat]).generate_state(1)[0])


def label_of(agent: AgentLike) -> str:
    """Display name of an agent given by spec (the spec itself) or instance (its ``name``)."""
    return agent.strip() if isinstance(agent, str) else str(agent.name)


def play_hand(deal: Sequence[Sequence[int]], players: Sequence[Agent], rules: Rules, *,
              deal_index: int = 0, play: int = 0,
              labels: Sequence[str] | None = None) -> Game:
    """Play one hand of ``deal`` with ``players[seat]`` in each seat and return the finished game.

    Each agent is ``reset`` first. An illegal action raises ``IllegalAgentActionError`` naming the
    agent, the deal index, the play, the seat and the action, with the legal set; an exception
    inside an agent's ``act`` is re-raised as an ``AgentError`` naming the same hand.
    """
    labels = list(labels) if labels is not None else [label_of(p) for p in players]
    game = Game.from_hands(deal, rules)
    for seat, p in enumerate(players):
        p.reset(seat, rules)
    while not game.is_over():
        seat = game.current_player
        try:
            action = players[seat].act(game.view(seat))
        except Exception as e:
            # Name the hand so the failure can be replayed: the agents' seeds follow from it.
            raise AgentError(
                f"agent {labels[seat]!r} failed in deal {deal_index} (play {play}), seat {seat}, "
                f"after {len(game.actions)} actions: {type(e).__name__}: {e}"
            ) from e
        try:
            game.step(action)
        except IllegalActionError as e:
            try:
                shown = card_str(int(action))
            except (TypeError, ValueError):
                shown = repr(action)
            raise IllegalAgentActionError(
                f"agent {labels[seat]!r} returned the illegal action {shown} ({action!r}) in deal "
                f"{deal_index} (play {play}), seat {seat}, {game.phase.value} phase: {e}"
            ) from None
    return game


def _seat_agent(proto: AgentLike, seed: int, copies: dict[int, Agent], seat: int) -> Agent:
    """Return the agent for one seat of one hand, seeded from ``agent_seed``.

    A spec is built afresh by the factory. An ``Agent`` instance is deep-copied once per seat
    and worker and re-seeded for every hand (its ``seed`` and base-class ``rng`` replaced), so
    instances follow the same split-independent seeding as specs as long as they keep no
    memory across hands other than what ``reset`` clears.
    """
    if isinstance(proto, str):
        return make_agent(proto, seed=seed)
    agent = copies.get(seat)
    if agent is None:
        agent = copies[seat] = copy.deepcopy(proto)
    agent.seed = seed
    agent.rng = np.random.default_rng(seed)
    return agent


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
    seatings = _SEATINGS[task.mode]
    cand_label, opp_label = label_of(task.candidate), label_of(task.opponent)
    cand_copies: dict[int, Agent] = {}
    opp_copies: dict[int, Agent] = {}
    out = []
    for d, hands in zip(task.deal_indices, task.hands, strict=True):
        deal = hands.tolist()
        scores, actions = [], []
        for play, cand_seats in enumerate(seatings):
            players, labels = [], []
            for seat in range(4):
                s = agent_seed(task.seed, d, play, seat)
                if seat in cand_seats:
                    players.append(_seat_agent(task.candidate, s, cand_copies, seat))
                    labels.append(cand_label)
                else:
                    players.append(_seat_agent(task.opponent, s, opp_copies, seat))
                    labels.append(opp_label)
            game = play_hand(deal, players, task.rules, deal_index=d, play=play, labels=labels)
            scores.append(game.scores())
            actions.append(game.actions)
        out.append((d, scores, actions if task.record else None))
    return out


def _worker_init() -> None:
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
                               initializer=_worker_init)


# ---------------------------------------------------------------------------- statistics
@dataclass(frozen=True)
class Stats:
    """Summary of per-deal paired differences."""

    n: int
    mean: float
    std: float
    ci_low: float
    ci_high: float
    win_rate: float
    tie_rate: float
    loss_rate: float
    confidence: float
    resamples: int
    bootstrap_seed: int

    @property
    def ci_half_width(self) -> float:
        """Half the width of the confidence interval (for ``mean ± x`` displays)."""
        return (self.ci_high - self.ci_low) / 2

    def to_dict(self) -> dict[str, float | int]:
        """Plain-number form for JSON."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def summarize(diffs: Sequence[float] | np.ndarray, *, seed: int = 0, resamples: int = 2000,
              confidence: float = 0.95) -> Stats:
    """Mean, standard deviation, bootstrap CI of the mean and win/tie/loss rates of ``diffs``.

    The CI is the percentile interval of ``resamples`` bootstrap means drawn with
    ``numpy.random.default_rng(seed)``, so the same diffs and seed give the same interval.
    """
    x = np.asarray(diffs, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"summarize needs a non-empty 1-D sequence of differences; got shape "
                         f"{x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("summarize: the differences contain NaN or infinity")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1); got {confidence}")
    if type(resamples) is not int or resamples < 1:
        raise ValueError(f"resamples must be a positive int; got {resamples!r}")
    n = x.size
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    # Resample in blocks so memory stays bounded for large deal sets.
    block = max(1, 4_000_000 // n)
    for start in range(0, resamples, block):
        k = min(block, resamples - start)
        means[start:start + k] = x[rng.integers(0, n, size=(k, n))].mean(axis=1)
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(means, [alpha, 1 - alpha])
    return Stats(
        n=n, mean=float(x.mean()), std=float(x.std(ddof=1)) if n > 1 else 0.0,
        ci_low=float(lo), ci_high=float(hi),
        win_rate=float(np.mean(x > 0)), tie_rate=float(np.mean(x == 0)),
        loss_rate=float(np.mean(x < 0)), confidence=confidence, resamples=resamples,
        bootstrap_seed=seed,
    )


def paired_differences(scores: np.ndarray, mode: str, scoring: str, rules: Rules) -> np.ndarray:
    """Per-deal paired differences from raw scores of shape ``(deals, plays, 4)``.

    See the module docstring for the definitions. Each difference is computed as an exact
    integer numerator over one common denominator (12 for raw 1v3, 4 otherwise), so a true tie
    is exactly ``0.0`` and is never miscounted as a win or a loss by floating-point drift.
    """
    _check_choice("mode", mode, MODES)
    _check_choice("scoring", scoring, SCORINGS)
    seatings = _SEATINGS[mode]
    s = np.asarray(scores)
    if s.ndim != 3 or s.shape[1:] != (len(seatings), 4) or not np.issubdtype(s.dtype,
                                                                            np.integer):
        raise ValueError(f"scores for mode {mode!r} must be integers of shape (deals, "
                         f"{len(seatings)}, 4); got {s.dtype} {s.shape}")
    s = s.astype(np.int64)
    if scoring == "zero_sum":
        s = np.array([[settle([int(v) for v in row], rules) for row in deal] for deal in s],
                     dtype=np.int64).reshape(s.shape)
    numer = np.zeros(len(s), dtype=np.int64)
    for play, cand in enumerate(seatings):
        mine = s[:, play, list(cand)].sum(axis=1)
        if scoring == "zero_sum":
            numer += mine  # a settlement is already relative to the other seats
        elif mode == "1v3":
            numer += 4 * mine - s[:, play].sum(axis=1)  # 3 * (s_r[r] - mean of the others)
        else:
            numer += 2 * mine - s[:, play].sum(axis=1)  # T_c - T_o
    # 1v3 raw: sum over 4 plays of 3x the difference -> /12; 2v2 raw: sum over 2 plays of the
    # team difference, halved per member -> /4; zero_sum: 4 plays x 1 seat or 2 plays x 2 seats.
    denom = 12 if (scoring == "raw" and mode == "1v3") else 4
    return numer / denom


# ---------------------------------------------------------------------------- matches
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
    """Raw scores, shape ``(deals, plays, 4)``."""
    stats: Stats
    elapsed: float = 0.0
    workers: int = 1

    @property
    def hands_played(self) -> int:
        """Number of hands played (deals times plays per deal)."""
        return int(self.scores.shape[0] * self.scores.shape[1])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record: seeds, specs, rules, statistics, per-deal differences and scores."""
        return {
            "candidate": self.candidate, "opponent": self.opponent, "mode": self.mode,
            "scoring": self.scoring, "rules": self.rules.to_dict(), "seed": self.seed,
            "deal_seed": self.deal_seed, "deals": int(len(self.diffs)),
            "hands_played": self.hands_played, "workers": self.workers,
            "elapsed_seconds": self.elapsed, "stats": self.stats.to_dict(),
            "diffs": [float(v) for v in self.diffs],
            "scores": self.scores.tolist(),
        }


def _check_choice(what: str, value: object, allowed: Iterable[str]) -> None:
    allowed = tuple(allowed)
    if value not in allowed:
        raise ValueError(f"{what} must be one of {list(allowed)}; got {value!r}")


def validate_agents(agents: Iterable[AgentLike]) -> None:
    """Build every spec once so an unknown or malformed spec fails before any hand is played."""
    for a in agents:
        if isinstance(a, Agent):
            continue
        if not isinstance(a, str):
            raise AgentError(f"an arena agent must be a spec string or an Agent; got {a!r}")
        make_agent(a, seed=0)


def _coerce_deals(deals: DealSet | int, seed: int) -> DealSet:
    if isinstance(deals, DealSet):
        return deals
    if type(deals) is int:
        return generate_deals(deals, seed)
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

    ``deals`` is a ``DealSet`` or a number of deals (then drawn with ``generate_deals(n, seed)``).
    ``seed`` seeds the agents (through ``agent_seed``) and the bootstrap. ``workers`` processes
    share the deals; the result does not depend on it. ``on_game`` receives a ``HandRecord`` for
    every finished hand, in deal then play order, once all deals are played (the hook for hand
    records). ``executor`` lets a caller reuse one pool across matches.

    ``journal`` (a file path; the agents must then be specs) records every finished chunk of
    deals as it arrives, and ``resume=True`` reads back the deals an interrupted run of the same
    match left there and plays only the others (``training.arena_journal``); the result is the
    same as an uninterrupted run's.
    """
    _check_choice("mode", mode, MODES)
    _check_choice("scoring", scoring, SCORINGS)
    if type(seed) is not int or seed < 0:
        raise ValueError(f"seed must be a non-negative int; got {seed!r}")
    if type(workers) is not int or workers < 1:
        raise ValueError(f"workers must be a positive int; got {workers!r}")
    rules = Rules.coerce(rules)
    validate_agents([candidate, opponent])
    dealset = _coerce_deals(deals, seed)
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
    plays = len(_SEATINGS[mode])
    scores = np.array([r[1] for r in rows], dtype=np.int64)
    if scores.shape != (n, plays, 4):
        raise ArenaError(f"arena scores have shape {scores.shape}; expected {(n, plays, 4)}")
    diffs = paired_differences(scores, mode, scoring, rules)
    stats = summarize(diffs, seed=seed, resamples=resamples)
    if on_game is not None:
        for d, _, actions in rows:
            for play, acts in enumerate(actions or ()):
                cand = _SEATINGS[mode][play]
                seats = tuple(cand_label if s in cand else opp_label for s in range(4))
                on_game(HandRecord(d, play, seats, Game.replay(dealset[d], acts, rules)))
    return MatchResult(cand_label, opp_label, mode, scoring, rules, seed, dealset.seed, diffs,
                       scores, stats, elapsed, workers)


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


# ---------------------------------------------------------------------------- ratings
@dataclass(frozen=True)
class RatingTable:
    """Bradley–Terry ratings on the Elo scale (400 points = 10:1 odds), anchored at 0."""

    names: tuple[str, ...]
    ratings: tuple[float, ...]
    anchor: str

    def ranking(self) -> list[tuple[str, float]]:
        """``(name, rating)`` from strongest to weakest."""
        return sorted(zip(self.names, self.ratings, strict=True), key=lambda t: -t[1])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"model": "bradley-terry", "scale": "elo (400 * log10 odds)",
                "anchor": self.anchor, "ratings": dict(zip(self.names, self.ratings, strict=True))}


def fit_bradley_terry(names: Sequence[str],
                      results: Iterable[tuple[int, int, float, float]], *,
                      prior_ties: float = 1.0, anchor: int = 0, iterations: int = 10_000,
                      tol: float = 1e-10) -> RatingTable:
    """Fit Bradley–Terry strengths to pairwise results and return them on the Elo scale.

    ``results`` holds ``(i, j, wins_i, wins_j)`` (a tie counted as half a win to each side):
    here, the deals of a duplicate match in which each agent had the positive paired difference.
    The model is ``P(i beats j) = p_i / (p_i + p_j)``; the ratings are
    ``400 * log10(p_i / p_anchor)``, so a 400-point gap means 10:1 odds on a deal, as in Elo.

    Why Bradley–Terry and not Elo updates: Elo is an online rule whose result depends on the
    order of the games and a step size; for a fixed table of results the maximum-likelihood
    Bradley–Terry fit of the same logistic model is order-free and deterministic. ``prior_ties``
    virtual ties per pair keep the fit finite when one agent wins every deal. Solved with
    Hunter's MM iteration, which converges monotonically.
    """
    k = len(names)
    if k < 2:
        raise ValueError(f"a rating needs at least two agents; got {list(names)}")
    if not 0 <= anchor < k:
        raise ValueError(f"anchor must index one of the {k} agents; got {anchor}")
    wins = np.zeros((k, k))
    for i, j, wi, wj in results:
        if i == j or not (0 <= i < k and 0 <= j < k):
            raise ValueError(f"bad pair ({i}, {j}) for {k} agents")
        if wi < 0 or wj < 0:
            raise ValueError(f"win counts must be non-negative; got {wi}, {wj}")
        wins[i, j] += wi
        wins[j, i] += wj
    games = wins + wins.T
    played = games > 0
    wins = wins + prior_ties / 2 * played
    games = wins + wins.T
    total_wins = wins.sum(axis=1)
    if np.any(total_wins == 0):
        lonely = [names[i] for i in np.flatnonzero(total_wins == 0)]
        raise ValueError(f"agents {lonely} have no results against anyone; cannot rate them")
    p = np.ones(k)
    for _ in range(iterations):
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1)
        new = total_wins / denom
        new /= np.exp(np.mean(np.log(new)))
        if np.max(np.abs(np.log(new) - np.log(p))) < tol:
            p = new
            break
        p = new
    ratings = 400 * np.log10(p / p[anchor])
    return RatingTable(tuple(names), tuple(float(r) for r in ratings), names[anchor])


@dataclass
class RoundRobinResult:
    """Every pairwise duplicate match of a list of agents and the fitted ratings."""

    names: tuple[str, ...]
    matches: list[MatchResult]
    ratings: RatingTable
    pairs: list[tuple[int, int]] = field(default_factory=list)

    def mean_matrix(self) -> np.ndarray:
        """``M[i, j]``: mean paired difference of agent i against agent j (antisymmetrized)."""
        k = len(self.names)
        m = np.full((k, k), np.nan)
        for (i, j), res in zip(self.pairs, self.matches, strict=True):
            m[i, j] = res.stats.mean
            m[j, i] = -res.stats.mean
        np.fill_diagonal(m, 0.0)
        return m

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record."""
        return {"agents": list(self.names), "ratings": self.ratings.to_dict(),
                "matches": [m.to_dict() for m in self.matches],
                "mean_matrix": [[None if math.isnan(v) else v for v in row]
                                for row in self.mean_matrix().tolist()]}


def round_robin(agents: Sequence[AgentLike], deals: DealSet | int, *, mode: str = "1v3",
                scoring: str = "raw", rules: Rules | str | None = None, seed: int = 0,
                workers: int = 1, progress: bool = False, resamples: int = 2000,
                prior_ties: float = 1.0, journal_dir: str | Path | None = None,
                resume: bool = False) -> RoundRobinResult:
    """Play every pair once (the earlier-listed agent as candidate) and fit Bradley–Terry.

    Each pair's per-deal outcomes (positive, zero or negative paired difference) are the
    Bradley–Terry games. Ratings are anchored at the first agent (list the baseline first).
    ``journal_dir`` keeps one journal per pair there (see ``duplicate_match``).
    """
    agents = list(agents)
    names = tuple(label_of(a) for a in agents)
    if len(agents) < 2:
        raise ValueError(f"a round robin needs at least two agents; got {list(names)}")
    if len(set(names)) != len(names):
        raise ValueError(f"round-robin agents need distinct names; got {list(names)}")
    validate_agents(agents)
    dealset = _coerce_deals(deals, seed)
    rules = Rules.coerce(rules)
    pairs = [(i, j) for i in range(len(agents)) for j in range(i + 1, len(agents))]
    matches = []
    pool = make_executor(workers) if workers > 1 else None
    try:
        for i, j in pairs:
            matches.append(duplicate_match(
                agents[i], agents[j], dealset, mode=mode, scoring=scoring, rules=rules,
                seed=seed, workers=workers, progress=progress, resamples=resamples,
                executor=pool, resume=resume,
                journal=None if journal_dir is None else journal_path(
                    journal_dir, agents[i], agents[j], mode)))
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    results = [(i, j, float(np.sum(m.diffs > 0) + 0.5 * np.sum(m.diffs == 0)),
                float(np.sum(m.diffs < 0) + 0.5 * np.sum(m.diffs == 0)))
               for (i, j), m in zip(pairs, matches, strict=True)]
    ratings = fit_bradley_terry(names, results, prior_ties=prior_ties)
    return RoundRobinResult(names, matches, ratings, pairs)


def journal_path(directory: str | Path, candidate: AgentLike, opponent: AgentLike,
                 mode: str) -> Path:
    """Where a run directory keeps the journal of one match."""
    return Path(directory) / journal_name(label_of(candidate), label_of(opponent), mode)


# ---------------------------------------------------------------------------- output
def match_table(results: Sequence[MatchResult], title: str = "Duplicate results"):
    """Build a rich table of match results (mean points/hand with CI, std, win/tie rates, deals)."""
    from rich.table import Table

    t = Table(title=title)
    for col in ("candidate", "opponent", "mode", "mean", "95% CI", "std", "win", "tie", "deals",
                "hands/s"):
        t.add_column(col, justify="left" if col in ("candidate", "opponent", "mode")
                     else "right")
    for r in results:
        s = r.stats
        rate = r.hands_played / r.elapsed if r.elapsed > 0 else float("nan")
        t.add_row(r.candidate, r.opponent, r.mode, f"{s.mean:+.2f}",
                  f"[{s.ci_low:+.2f}, {s.ci_high:+.2f}]", f"{s.std:.1f}",
                  f"{s.win_rate:.1%}", f"{s.tie_rate:.1%}", str(s.n), f"{rate:.0f}")
    return t


def rating_table(rr: RoundRobinResult):
    """Build a rich table of the round-robin ratings and pairwise mean differences."""
    from rich.table import Table

    t = Table(title=f"Bradley–Terry ratings (Elo scale, {rr.ratings.anchor} = 0)")
    t.add_column("rank", justify="right")
    t.add_column("agent")
    t.add_column("rating", justify="right")
    m = rr.mean_matrix()
    for name in rr.names:
        t.add_column(f"vs {name}", justify="right")
    index = {n: i for i, n in enumerate(rr.names)}
    for rank, (name, rating) in enumerate(rr.ratings.ranking(), start=1):
        i = index[name]
        t.add_row(str(rank), name, f"{rating:+.0f}",
                  *("—" if i == j else f"{m[i, j]:+.1f}" for j in range(len(rr.names))))
    return t


def write_json(doc: dict[str, Any], path: str | Path) -> Path:
    """Write a JSON document (creating the directory)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------------------- CLI
def split_specs(values: Iterable[str] | None) -> list[str]:
    """Split comma-separated agent specs, keeping each spec's own ``key=value`` options.

    ``"random,pimc:worlds=8,rollout=greedy,expert"`` -> ``["random",
    "pimc:worlds=8,rollout=greedy", "expert"]``: a piece with ``=`` but no ``:`` cannot start a
    spec, so it continues the previous one's options.
    """
    specs: list[str] = []
    for value in values or ():
        for piece in (p.strip() for p in value.split(",")):
            if not piece:
                continue
            if "=" in piece and ":" not in piece.split("=", 1)[0] and specs \
                    and ":" in specs[-1]:
                specs[-1] += "," + piece
            else:
                specs.append(piece)
    return specs


def build_parser() -> argparse.ArgumentParser:
    """Return the arena's argument parser (also used by ``gongzhu eval``)."""
    p = argparse.ArgumentParser(
        prog="python -m training.evaluate",
        description="Duplicate-deal evaluation arena: a candidate against opponents, or a round "
                    "robin with Bradley-Terry ratings.")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--candidate", help="agent spec of the candidate, e.g. expert")
    what.add_argument("--round-robin", action="append", metavar="SPECS",
                      help="comma-separated agent specs to rate against each other")
    p.add_argument("--opponents", action="append", metavar="SPECS",
                   help="comma-separated opponent specs for --candidate (repeatable)")
    p.add_argument("--deals", type=int, default=2000, help="number of deals (default 2000)")
    p.add_argument("--deal-file", help="load the deals from this .npz/.json file instead")
    p.add_argument("--save-deals", help="save the deal set used to this .npz/.json file")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals, agents, bootstrap")
    p.add_argument("--mode", choices=MODES, default="1v3", help="duplicate format")
    p.add_argument("--scoring", choices=SCORINGS, default="raw",
                   help="raw hand points or zero-sum settlement")
    p.add_argument("--rules", default="standard", help="rules preset name")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="worker processes (default: all cores)")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples")
    p.add_argument("--out", help="directory for the JSON results and the plot")
    p.add_argument("--record", metavar="PATH",
                   help="write every hand played as a JSON-lines hand record "
                        "(gongzhu_env.records) to PATH")
    p.add_argument("--no-plot", action="store_true", help="write no plot even with --out")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted run into the same --out: deals it finished "
                        "(kept in OUT/journal/ until the results are written) are not played "
                        "again")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the arena from the command line; returns the exit code (0 ok, 2 bad input, 1 error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    from rich.console import Console

    # Off a terminal (logs, CI) rich would wrap the table at 80 columns; keep rows whole.
    console = Console() if sys.stdout.isatty() else Console(width=160)
    try:
        if args.workers < 1:
            raise ValueError(f"--workers must be at least 1; got {args.workers}")
        if args.resume and not args.out:
            raise ValueError("--resume continues a run written to --out; give the same --out")
        rules = Rules.coerce(args.rules)
        if args.round_robin:
            specs = split_specs(args.round_robin)
            if args.opponents:
                raise ValueError("--opponents goes with --candidate, not --round-robin")
        else:
            specs = [args.candidate.strip(), *split_specs(args.opponents)]
            if len(specs) < 2:
                raise ValueError("--candidate needs --opponents, e.g. --opponents random,greedy")
        validate_agents(specs)
        if args.deal_file:
            deals = load_deals(args.deal_file)
        else:
            deals = generate_deals(args.deals, args.seed)
        if args.save_deals:
            deals.save(args.save_deals)
    except (AgentError, ValueError, TypeError, DealFileError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else None
    common: dict[str, Any] = dict(mode=args.mode, scoring=args.scoring, rules=rules,
                                  seed=args.seed, workers=args.workers,
                                  progress=not args.no_progress, resamples=args.resamples)
    if args.record:
        common["on_game"] = _record_writer(Path(args.record), args.seed)
    journals = out / "journal" if out is not None else None
    try:
        if args.round_robin:
            rr = round_robin(specs, deals, journal_dir=journals, resume=args.resume, **common)
            console.print(match_table(rr.matches, "Round-robin matches"))
            console.print(rating_table(rr))
            if out is not None:
                path = write_json({**rr.to_dict(), "command": _command(argv)},
                                  out / "round_robin.json")
                console.print(f"wrote {path}")
                if not args.no_plot:
                    from training.plots import plot_ratings

                    fig = plot_ratings(rr)
                    fig.savefig(out / "round_robin.png", dpi=120)
                    console.print(f"wrote {out / 'round_robin.png'}")
        else:
            results = []
            pool = make_executor(args.workers) if args.workers > 1 else None
            try:
                for opp in specs[1:]:
                    results.append(duplicate_match(
                        specs[0], opp, deals, executor=pool, resume=args.resume,
                        journal=None if journals is None else journal_path(
                            journals, specs[0], opp, args.mode), **common))
            finally:
                if pool is not None:
                    pool.shutdown(wait=True, cancel_futures=True)
            console.print(match_table(results))
            if out is not None:
                path = write_json({"command": _command(argv),
                                   "results": [r.to_dict() for r in results]},
                                  out / "eval.json")
                console.print(f"wrote {path}")
                if not args.no_plot:
                    from training.plots import plot_matches

                    fig = plot_matches(results)
                    fig.savefig(out / "eval.png", dpi=120)
                    console.print(f"wrote {out / 'eval.png'}")
    except JournalError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (AgentError, ArenaError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if journals is not None:  # the results file now holds every deal; the journals served
        shutil.rmtree(journals, ignore_errors=True)
    return 0


def _record_writer(path: Path, seed: int) -> Callable[[HandRecord], None]:
    """Return an ``on_game`` hook appending each hand to a fresh JSON-lines record file."""
    from gongzhu_env.records import record_hand, save_records

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("", encoding="utf-8")

    def write(rec: HandRecord) -> None:
        meta = {"source": "arena", "deal_index": rec.deal_index, "play": rec.play,
                "players": list(rec.seats), "seed": seed}
        save_records(path, [record_hand(rec.game, meta=meta)], append=True)

    return write


def _command(argv: list[str] | None) -> str:
    args = sys.argv[1:] if argv is None else argv
    return "python -m training.evaluate " + " ".join(args)


if __name__ == "__main__":
    sys.exit(main())
