"""Labels for expert iteration: the search agent's value of every legal card, journalled.

The network that plays alone learns from what a stronger player finds (``docs/search.md``,
"Expert iteration"). This module plays seeded hands with the ``search`` agent at every seat and,
at each of its card decisions with a choice, stores the observation of the seat to move and
the search's likelihood-weighted value of every legal card (each card of a run of equivalent
cards worth its run's value), in the network's unit. ``DMCConfig.search_labels`` then mixes
them into the learner's minibatches as Q targets.

Why files, in chunks: a search decision costs tens of milliseconds, so a useful label set takes
an hour or more of both cores. Each chunk of ``chunk_hands`` hands is an ``.npz`` written whole
(to a temporary name, then renamed), so a run that is stopped keeps every finished chunk and
``--resume`` plays only the others. Hand ``h`` is dealt and searched from seeds derived from
``(seed, h)`` alone, so the labels do not depend on how many workers made them or in which
order: the same seed gives the same files. The directory's ``labels.json`` records the spec,
the rules, the seed, the chunk size and the SHA-256 of the search's network file; a resumed or
loaded set is checked against it, and every chunk is checked (identity, shapes, types, ranges)
before its numbers are used.

A **mixed table** (``--others SPEC``): the search sits at one seat (seat ``h mod players`` in
hand ``h``) and ``SPEC`` plays the others (``expert``, ``pimc``, a policy...); only the search
seat's decisions are labelled. The values are then those of a table of such players rather
than of a table of copies of the search, whose players are the network it is teaching.

**Another player's states** (``--player SPEC``): ``SPEC`` (say ``policy:pretrained``) plays
the labelled seat's declarations and cards, while the search still values every decision with
a choice there. The labels are then of the positions that player reaches, not those the search
reaches: a network that learns from the search's own games never sees the positions its own
mistakes lead to, and these labels are about exactly those (the data-aggregation reading of
imitation learning). The search's choice is stored with nothing: only its values are.

**Values from play-outs at the table** (``--values playout``): every candidate card of a labelled
decision is played in the hand's real deal and the hand is finished by the table's own players
(fresh copies, the labelled seat by ``--player`` or else the search, the others by
``--others``), ``--playouts`` times per candidate (once by default) with the same seeds for
every candidate; the label is the mean result. The search's values say how good a card is
against players like its network and ``expert``, whoever sits at the table; a play-out value is
a sample of the card's worth against the players actually there (``pimc``, say), and the
hidden cards are those of a deal the labelled seat could be in, so the mean over many labels is
the card's value to that seat (the Monte-Carlo target of the DMC trainer, with every candidate
played from the same position).

    python -m training labels --out runs/labels --hands 2000 --workers 2
    python -m training labels --out runs/labels --hands 4000 --workers 2 --resume
    python -m training labels --out runs/mixed --hands 4000 --workers 2 --others pimc
    python -m training labels --out runs/own --hands 2000 --workers 2 --others pimc \
        --player policy:pretrained
    python -m training labels --out runs/vs-pimc --hands 2000 --workers 2 --others pimc \
        --player policy:pretrained --values playout --playouts 4
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent
from agents.knowledge import Situation
from agents.pimc import action_runs, objective
from agents.search import CLIP, SearchAgent, SearchResult
from gongzhu_env.engine import Game
from gongzhu_env.players import play_turns, start_hand
from gongzhu_env.rules import Rules
from gongzhu_env.state import Phase
from gongzhu_env.view import PlayerView, obs_size
from training.arguments import CommandParser, command_prog
from training.config.base import ConfigBase, add_field_options
from training.config.checks import ConfigError, nonneg_int, one_of, positive_int, text
from training.label_sets import (
    FORMAT,
    MANIFEST,
    MAX_CHUNKS,
    LabelError,
    read_chunk,
    read_manifest,
    write_chunk,
)

DEFAULT_SPEC = "search"
VALUES = ("search", "playout")
"""Where a label's values come from: the search's sampled worlds, or play-outs of the real deal
by the table's own players (``LabelSpec.values``)."""
MAX_CHUNK_HANDS = 10_000
"""Most hands in one chunk: a chunk is held in memory until it is written, and 10,000 hands
are about 350,000 labels (some 280 MB); the presets use 10."""
MAX_PLAYOUTS = 1_000
"""More play-outs per candidate than this is a typo: a label would take hours."""
MAX_WORKERS = 256
"""Most worker processes. Each loads its own search network and plays its own chunk; past
the machine's cores they only wait, and a count in the thousands would start that many
processes."""


@dataclass(frozen=True)
class LabelSpec(ConfigBase):
    """What makes a label set: who searched, at which table, from which seed.

    A spec with a bad value cannot be built: it raises ``LabelError`` (the label commands'
    error) naming the field, the value and what is expected. ``spec``, ``seed``,
    ``chunk_hands`` and ``others`` are also the options of ``python -m training labels``.
    """

    spec: str = DEFAULT_SPEC
    """The search agent's spec (``search`` or ``search:option=value,...``) that plays and
    labels the hands."""
    rules: Rules = Rules()
    """Rules of the table (``--rules`` names a preset)."""
    seed: int = 0
    """Seed of the set: hand ``h`` is dealt and searched from seeds of ``(seed, h)`` alone, so
    the labels do not depend on how many workers made them or in which order."""
    chunk_hands: int = 10
    """Hands per chunk file: a stop loses at most one chunk, and a chunk is held in memory
    until it is written."""
    others: str = ""
    """The spec that plays the seats beside the search ("": the search at every seat)."""
    player: str = ""
    """The spec that plays the labelled seats' declarations and cards while the search only
    values them ("": the search plays what it labels)."""
    values: str = "search"
    """Where the values come from: "search" (its sampled worlds) or "playout" (each candidate
    played in the real deal and finished by the table's own players)."""
    playouts: int = 1
    """With ``values="playout"``: play-outs per candidate, each from its own seeds, whose mean
    is the label. The players' own randomness (``pimc``'s sampled worlds) is most of one
    play-out's spread between the cards, and a mean of *k* has 1/k of its variance."""

    def __post_init__(self) -> None:
        """Refuse settings that cannot make a label set (``LabelError`` naming the setting)."""
        try:
            self.validate()
        except ConfigError as e:
            raise LabelError(str(e)) from None

    def validate(self) -> None:
        """Raise ``ConfigError`` naming the first field that cannot make a label set."""
        for name in ("spec", "others", "player"):
            text(self, name)
        one_of(self, "values", VALUES)
        if not isinstance(self.rules, Rules):
            raise ConfigError(f"rules: must be Rules; got {type(self.rules).__name__}")
        nonneg_int(self, "seed", math.inf)  # any size: it only seeds SeedSequence
        positive_int(self, "chunk_hands", MAX_CHUNK_HANDS)
        positive_int(self, "playouts", MAX_PLAYOUTS)
        if self.playouts > 1 and self.values != "playout":
            raise ConfigError(f"playouts: only play-out values are averaged; got playouts="
                              f"{self.playouts} with values={self.values!r} (add --values "
                              "playout, or leave --playouts out)")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LabelSpec:
        """Rebuild a spec from ``to_dict()`` output, where the rules are a dict of options."""
        if isinstance(data, Mapping) and not isinstance(data.get("rules", Rules()), Rules):
            try:
                data = {**data, "rules": Rules.from_dict(data["rules"])}
            except (ValueError, TypeError) as e:
                raise ConfigError(f"rules: {e}") from None
        return super().from_dict(data)

    def identity(self) -> dict[str, Any]:
        """Return the manifest's content: all that decides the labels besides the hand."""
        out = {"format": FORMAT, "spec": self.spec, "rules": self.rules.to_dict(),
               "seed": self.seed, "chunk_hands": self.chunk_hands,
               "network_sha256": network_digest(self.spec, self.rules)}
        for name in ("others", "player"):  # absent when unset: older sets keep their identity
            if getattr(self, name):
                out[name] = getattr(self, name)
        if self.values != "search":
            out["values"] = self.values
        if self.playouts != 1:
            out["playouts"] = self.playouts
        return out


def network_digest(spec: str, rules: Rules) -> str:
    """SHA-256 of the network file a ``search`` spec loads (a retrained file is another set)."""
    from agents.policy import resolve_policy_path

    path = resolve_policy_path(search_agent(spec, rules).net_name, rules)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def hand_seeds(seed: int, hand: int) -> tuple[int, int]:
    """Seeds of one hand's deal and of the search that plays it (independent of workers)."""
    a, b = np.random.SeedSequence([seed, hand]).generate_state(2)
    return int(a), int(b)


def seat_seed(search_seed: int, slot: int) -> int:
    """Seed of the agent in ``slot`` beside the search, derived from the hand's search seed.

    Slot ``seat`` is an ``others`` player, ``players + seat`` the ``player`` of a labelled seat,
    so that no two agents of a hand share a stream and every hand replays alike in any worker.
    """
    return (search_seed + 1 + slot) % 2**63


# ---------------------------------------------------------------------------- labelling
_AGENTS: dict[str, Agent] = {}


def _built(spec: str, rules: Rules, slot: str, option: str) -> Agent:
    """Return the agent of ``spec`` in ``slot``, built once per process (it may load a network).

    A spec that cannot be built is refused (``LabelError`` naming ``option``).
    """
    from agents import make_agent
    from agents.base import AgentError

    key = f"{spec}|{slot}|{rules.to_dict()}"
    if key not in _AGENTS:
        try:
            _AGENTS[key] = make_agent(spec, rules=rules)
        except (AgentError, ValueError) as e:
            raise LabelError(f"{option}: {e}") from None
    return _AGENTS[key]


def search_agent(spec: str, rules: Rules) -> SearchAgent:
    """Return this process's search agent of ``spec``; refuse a spec that is not a search."""
    agent = _built(spec, rules, "search", "spec")
    if not isinstance(agent, SearchAgent):
        raise LabelError(f"spec: labels come from the search agent; got {spec!r} "
                         "(expected 'search' or 'search:option=value,...')")
    return agent


def table_agent(spec: str, rules: Rules, seat: int) -> Agent:
    """Return this process's ``others`` player for one seat beside the search."""
    return _built(spec, rules, f"seat {seat}", "others")


def labelled_player(spec: str, rules: Rules, seat: int) -> Agent:
    """Return this process's ``player`` for one labelled seat (it acts, the search values)."""
    return _built(spec, rules, f"player {seat}", "player")


def playout_seed(search_seed: int, decision: int) -> int:
    """Seed of the play-outs of the hand's ``decision``-th labelled decision (every candidate)."""
    return int(np.random.SeedSequence([search_seed, decision]).generate_state(1, np.uint64)[0]
               % 2**63)


def playout_seeds(seed: int, playouts: int) -> list[int]:
    """Return the seeds of a decision's ``playouts`` play-outs.

    ``seed`` comes first, so that one play-out is what it was before the option; the others
    are derived from it.
    """
    return [seed] + [playout_seed(seed, k) for k in range(1, playouts)]


def played_out(game: Game, view: PlayerView, actors: list[Agent], seed: int,
               scale: float, playouts: int = 1) -> dict[int, float] | None:
    """Value every legal card of the seat to move by finishing the real deal with ``actors``.

    Each run of equivalent cards (``agents.pimc.action_runs``) is played ``playouts`` times (once
    by default), by its highest card, from a clone of ``game``; ``actors[s]`` plays seat ``s``
    to the end of the hand (the shared loop, ``gongzhu_env.players.play_turns``), every actor
    reseeded alike (``seat_seed`` of ``seed``) for every run, so that the runs differ by
    the card and what follows from it, not by the actors' luck. The result is the seat's
    zero-sum (or team) score over ``scale``, the search's unit, averaged over ``playouts``
    play-outs (``playout_seeds`` of ``seed``, the same for every run). ``None`` when the legal
    cards are a single run: there is nothing to tell apart.
    """
    situation = Situation.from_view(view)
    runs = action_runs(view.legal_actions, situation.unseen)
    if len(runs) < 2:
        return None
    me, rules = view.seat, view.rules
    team = (me, *situation.partners)
    teams = len(view.teams) if view.teams else 0
    values: dict[int, float] = {}
    seeds = playout_seeds(seed, playouts)
    for run in runs:
        total = 0.0
        for one in seeds:
            g = game.clone()
            g.step(run[-1])
            for seat, actor in enumerate(actors):
                actor.reseed(seat_seed(one, seat))
            start_hand(actors, rules)
            play_turns(g, actors)
            total += objective(g.scores(), me, team, True, teams)
        values.update(dict.fromkeys(run, total / len(seeds) / scale))
    return values


def playout_actors(spec: str, rules: Rules, others: str, player: str,
                   labelled: list[bool]) -> list[Agent]:
    """Return the players that finish a play-out: copies of the table's own, kept apart.

    Separate instances, so that a play-out never touches the state (or the random stream) of
    the players of the real hand.
    """
    actors = []
    for seat, mine in enumerate(labelled):
        if mine:
            who = player or spec
            actors.append(_built(who, rules, f"playout {seat}", "player" if player else "spec"))
        else:
            actors.append(_built(others, rules, f"playout {seat}", "others"))
    return actors


def label_hand(spec: str, rules: Rules, seed: int, hand: int, others: str = "",
               player: str = "",
               values: str = "search",
               playouts: int = 1) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Play hand ``hand`` and return the search's observations and targets.

    The search plays every seat, or with ``others`` seat ``hand mod players`` only (``others``
    plays the rest, seeded from the hand's seeds) and only that seat is labelled. With
    ``player`` the search only values the labelled seats' decisions and ``player`` makes them.
    With ``values="playout"`` the values of a card decision are ``played_out`` (the real deal
    finished by copies of the table's players, ``playouts`` times per card) instead of searched,
    and the search, if it sits at the table, only plays.
    Observations are ``uint8`` (x255, as the replay buffer stores them); a target row holds the
    value of every legal card and NaN elsewhere. Declarations, forced cards and decisions whose
    legal cards are all equivalent are played but give no label (nothing to tell apart).
    """
    deal_seed, search_seed = hand_seeds(seed, hand)
    agent = search_agent(spec, rules)
    agent.reseed(search_seed)
    game = Game(rules, seed=deal_seed)
    seats = rules.players
    players: list[Agent] = [agent] * seats
    if others:
        searcher = hand % seats
        for seat in range(seats):
            if seat != searcher:
                players[seat] = table_agent(others, rules, seat)
                players[seat].reseed(seat_seed(search_seed, seat))
    labelled = [p is agent for p in players]
    if player:
        agent.reset(labelled.index(True), rules)  # it only values, but checks the table
        for seat in range(seats):
            if labelled[seat]:
                players[seat] = labelled_player(player, rules, seat)
                players[seat].reseed(seat_seed(search_seed, seats + seat))
    for seat, who in enumerate(players):
        who.reset(seat, rules)
    actors = playout_actors(spec, rules, others, player, labelled) if values == "playout" else []
    skipped = 0  # play decisions with one run, counted so that each decision has its own seed
    obs: list[np.ndarray] = []
    tgt: list[np.ndarray] = []
    while not game.is_over():
        legal = game.legal_actions()
        if len(legal) == 1:
            game.step(legal[0])
            continue
        seat = game.current_player
        view = game.view(seat)
        if not labelled[seat] or (player and game.phase == Phase.DECLARE):
            game.step(players[seat].act(view))
            continue
        worth: dict[int, float] | None = None
        if values == "playout":
            if game.phase == Phase.PLAY:
                decision = playout_seed(search_seed, len(obs) + skipped)
                worth = played_out(game, view, actors, decision, agent.scale, playouts)
                skipped += worth is None
            chosen = players[seat].act(view)
        else:
            result = agent.search(view)
            searched = isinstance(result, SearchResult)
            worth = result.card_values() if searched else None
            chosen = players[seat].act(view) if player else (
                result.choice if searched else int(result))
        if worth is not None:
            row = np.full(rules.num_actions, np.nan, dtype=np.float32)
            for card, value in worth.items():
                row[card] = min(CLIP, max(-CLIP, value))
            obs.append(np.rint(view.encode() * 255.0).astype(np.uint8))
            tgt.append(row)
        game.step(chosen)
    return obs, tgt


def label_chunk(label_spec: LabelSpec, chunk: int) -> dict[str, np.ndarray]:
    """Label every hand of one chunk; return the arrays of its file."""
    from training.arena.duplicate import one_thread_per_process

    one_thread_per_process()
    s = label_spec
    width = obs_size(s.rules)
    obs: list[np.ndarray] = []
    tgt: list[np.ndarray] = []
    hands: list[int] = []
    for hand in range(chunk * s.chunk_hands, (chunk + 1) * s.chunk_hands):
        o, t = label_hand(s.spec, s.rules, s.seed, hand, s.others, s.player, s.values,
                          s.playouts)
        obs += o
        tgt += t
        hands += [hand] * len(o)
    return {"obs": np.stack(obs) if obs else np.zeros((0, width), np.uint8),
            "tgt": np.stack(tgt) if tgt else np.zeros((0, s.rules.num_actions), np.float32),
            "hand": np.asarray(hands, dtype=np.int32)}


# ---------------------------------------------------------------------------- running
def open_set(out: Path, label_spec: LabelSpec, resume: bool) -> set[int]:
    """Create the set's directory, or check it on ``resume``; return the finished chunks."""
    identity = json.loads(json.dumps(label_spec.identity()))
    manifest = out / MANIFEST
    if manifest.exists():
        if not resume:
            raise LabelError(f"{out}: a label set is already here; pass --resume to add to it "
                             "or choose another --out")
        doc = read_manifest(out)
        if doc != identity:
            diff = sorted(k for k in {*identity, *doc} if doc.get(k) != identity.get(k))
            raise LabelError(f"{out}: the label set here was made with other settings "
                             f"({', '.join(diff)} differ); use another --out")
    else:
        out.mkdir(parents=True, exist_ok=True)
        manifest.write_text(json.dumps(identity, indent=1, sort_keys=True) + "\n",
                            encoding="utf-8")
    for tmp in out.glob("chunk-*.tmp.npz"):
        tmp.unlink()  # a chunk cut short by a stop: it is labelled again
    done = set()
    width, actions = obs_size(label_spec.rules), label_spec.rules.num_actions
    for path in sorted(out.glob("chunk-[0-9][0-9][0-9][0-9][0-9].npz")):
        chunk = int(path.stem.split("-")[1])
        read_chunk(path, identity, chunk, width, actions)
        done.add(chunk)
    return done


def make_labels(out: str | os.PathLike[str], label_spec: LabelSpec, hands: int, *,
                workers: int = 1, resume: bool = False, time_budget_s: float = 0.0,
                log: Any = print) -> int:
    """Label the first ``hands`` hands (rounded up to whole chunks); return labels written.

    Chunks already on disk are kept; with ``time_budget_s`` no chunk starts after the budget
    (the ones running finish), so a budgeted leg ends with whole chunks only.
    """
    out = Path(out)
    check_amounts(label_spec, hands, workers, time_budget_s)
    done = open_set(out, label_spec, resume)
    chunks = -(-hands // label_spec.chunk_hands)
    todo = [c for c in range(chunks) if c not in done]
    log(f"labels: {len(done)} of {chunks} chunks on disk, {len(todo)} to play "
        f"({label_spec.chunk_hands} hands each, {workers} worker(s))")
    identity = json.loads(json.dumps(label_spec.identity()))
    start = time.perf_counter()
    written = 0
    for chunk, arrays in _run_chunks(label_spec, todo, workers, start, time_budget_s):
        write_chunk(out, identity, chunk, arrays)
        written += len(arrays["obs"])
        spent = time.perf_counter() - start
        log(f"  chunk {chunk}: {len(arrays['obs'])} labels ({written:,} this run, "
            f"{written / max(spent, 1e-9):.1f}/s)")
    return written


def check_out(out: Path, resume: bool) -> None:
    """Refuse an ``--out`` that is a file, or ``--resume`` where there is no set to resume."""
    from training.outdir import out_problem

    why = out_problem(out, resume=resume, marker=MANIFEST, what="label set")
    if why is not None:
        raise LabelError(why)


def check_workers(workers: object) -> None:
    """Refuse a worker count that is not an integer from 1 to ``MAX_WORKERS``."""
    if type(workers) is not int or not 1 <= workers <= MAX_WORKERS:
        raise LabelError(f"workers: must be an integer from 1 to {MAX_WORKERS}; got "
                         f"{workers!r}")


def check_amounts(label_spec: LabelSpec, hands: object, workers: object,
                  time_budget_s: object) -> None:
    """Refuse a count of hands, workers or seconds that cannot make a run (``LabelError``).

    ``hands`` positive and within ``MAX_CHUNKS`` chunks, ``workers`` from 1 to
    ``MAX_WORKERS``, ``time_budget_s`` finite and not negative (0: no limit).
    """
    if type(hands) is not int or hands < 1:
        raise LabelError(f"hands: must be a positive integer; got {hands!r}")
    if -(-hands // label_spec.chunk_hands) > MAX_CHUNKS:
        raise LabelError(f"hands: {hands:,} hands of {label_spec.chunk_hands} a chunk make more "
                         f"than {MAX_CHUNKS:,} chunks; label fewer hands or raise chunk_hands")
    check_workers(workers)
    if isinstance(time_budget_s, bool) or not isinstance(time_budget_s, (int, float)) \
            or not 0 <= time_budget_s < math.inf:
        raise LabelError(f"time_budget_s: must be a finite number of seconds, 0 for no limit; "
                         f"got {time_budget_s!r}")


def _run_chunks(label_spec: LabelSpec, todo: list[int], workers: int, start: float,
                budget: float) -> Iterator[tuple[int, dict[str, np.ndarray]]]:
    def over() -> bool:
        return budget > 0 and time.perf_counter() - start >= budget

    if workers == 1:
        for chunk in todo:
            if over():
                return
            yield chunk, label_chunk(label_spec, chunk)
        return
    from training.arena.duplicate import make_executor

    pending: dict[Future, int] = {}
    queue = list(todo)
    with make_executor(workers) as pool:
        while queue or pending:
            while queue and len(pending) < workers and not over():
                chunk = queue.pop(0)
                pending[pool.submit(label_chunk, label_spec, chunk)] = chunk
            if not pending:
                return
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for f in finished:
                yield pending.pop(f), f.result()
            if over():
                queue.clear()


def main(argv: list[str] | None = None) -> int:
    """Command line: make or extend a label set; exit 2 with the reason on bad input."""
    p = CommandParser(prog=command_prog("labels"), description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="directory of the label set")
    # The spec's fields but the rules (a Rules there, a preset name here).
    add_field_options(p, LabelSpec, ["spec", "seed", "chunk_hands", "others", "player", "values",
                                     "playouts"])
    p.add_argument("--rules", default="standard", help="rules preset of the table")
    p.add_argument("--hands", type=int, required=True, help="hands to label in all")
    p.add_argument("--workers", type=int, default=1, help="processes (2 for both cores)")
    p.add_argument("--time-budget", type=float, default=None,
                   help="seconds after which no chunk starts (default: no limit)")
    p.add_argument("--resume", action="store_true", help="add to the set already at --out")
    args = p.parse_args(argv)
    try:
        budget = args.time_budget
        if budget is not None and not 0 < budget < math.inf:
            raise LabelError(f"--time-budget: must be a positive number of seconds; got "
                             f"{budget} (leave it out for no limit)")
        rules = Rules.coerce(args.rules)
        # The numbers first: they are checked at once, the specs may load a network.
        spec = LabelSpec(args.spec, rules, args.seed, args.chunk_hands, args.others,
                         args.player, args.values, args.playouts)
        check_amounts(spec, args.hands, args.workers, budget or 0.0)
        check_out(Path(args.out), args.resume)
        search_agent(args.spec, rules)
        if args.others:
            table_agent(args.others, rules, 0)
        if args.player:
            labelled_player(args.player, rules, 0)
        n = make_labels(args.out, spec, args.hands, workers=args.workers, resume=args.resume,
                        time_budget_s=budget or 0.0)
    except (LabelError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"labels: {n:,} written to {args.out}")
    return 0
