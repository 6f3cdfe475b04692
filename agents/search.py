"""``search``: sampled-world search that infers hidden cards and values cards with the network.

``pimc`` deals the hidden cards uniformly among the deals consistent with the view and values
each card by expert rollouts. Two things it leaves on the table are what this agent adds:

* **Inference.** Every play another seat made says something about its hand: a seat that
  discarded the SA on a club trick when it could have kept it probably has no safer card, a
  seat that never exposed the SQ probably does not hold it. Each sampled world is weighted by
  the likelihood of the public history under a model of the players, the trained network
  itself: for each decision another seat took (declarations included), the world is replayed
  by the engine (``Game.from_hands`` and ``step``), that seat's observation *in that world* is
  encoded, and the probability of the action it took is read off a softmax of the network's
  legal scores at ``temperature``, mixed with a uniform choice (``floor``) so that a play the
  network would never make marks a world as unlikely, not impossible. All the decisions of all
  the worlds go through the network in one batched forward pass. Forced plays (one legal card)
  say nothing and are skipped; the agent's own plays are the same in every world and skipped
  too.
* **Valuation by the network.** For every candidate card and every world (one clone each) the
  hand goes on with the network playing every seat, each from its own observation of that
  world, one batched forward pass per ply for all the clones. At ``depth=0`` the play stops
  when this seat has a choice again and the position is worth the network's best legal score
  there; ``depth=d`` plays ``d`` more of its own decisions with the network first (forced
  cards are played through at every depth); ``depth=end``
  plays every hand out and takes the real result. A hand that ends before the cut-off is
  worth its real result, in the network's unit (the zero-sum result over ``scale``, 400 as
  the trainers use, clipped like their targets). By default (``value=mix``) each (world,
  card) is worth the mean of that and the result of the expert playing the hand out at every
  seat from the same clone (``pimc``'s valuation): two evaluators whose errors differ.

The card played has the highest likelihood-weighted mean value over the worlds (common
worlds for every card); equivalent cards (``agents.pimc.action_runs``) are searched once, and a
tie goes to the network's own choice. Declarations are the network's, the expert's with
``declare=expert``, or searched like cards with ``declare=search``.

The value is the seat's zero-sum result, or under team rules (``scrofazero``, two decks) its
team's total against the other team's (``agents.pimc.objective``).

Two decks: the same search with a two-deck network. The candidates are the single cards and
the pair leads (each pair lead a run of its own), or after a pair lead the first card of a
two-card follow and then its second, each a decision searched alike. A draw of hands the
engine's replay refuses (the draw does not know every pair rule) is drawn again, up to
``WORLD_ATTEMPTS`` times, then left out. Two-deck hands are twice as long and their expert
rollouts much dearer, so the defaults differ there (``TABLE_DEFAULTS``: 16 worlds valued by
the network).

Options, in the spec (the defaults):
``"search:worlds=32,depth=0,model=net,value=mix,declare=net,temperature=1,floor=0.1,time=0,``
``net=pretrained"``

``worlds``   sampled worlds per decision (1 to ``MAX_WORLDS``; 32, as ``pimc``, beat 16 by +9.1
             points/hand against ``pimc`` on the same 2,000 deals, docs/search.md; 16 at two
             decks)
``depth``    own decisions played by the network before the cut-off (0 to ``MAX_DEPTH``) or
             ``end``
``model``    the player model of the world weighting: ``net`` (the network, as above) or
             ``expert``: each seat plays what the ``expert`` would play in its place in that
             world, with probability ``1 - floor``. The expert is cheaper to ask than the
             network and a much better model of rule-based and search players, and even of the
             network's own play (``benchmarks/bench_inference.py``).
``value``    how a (world, card) pair is valued: ``net`` (the network's play and cut-off, as
             above), ``rollout`` (the expert plays the hand out at every seat, each from its
             own view of that world, as ``pimc`` values it) or ``mix`` (the default: the mean
             of the two, evaluators whose errors differ; it beat ``net`` against ``pimc`` on
             the same 416 deals, docs/search.md); ``net`` is the default at two decks
``declare``  who makes the declarations: ``net``, ``expert`` (its hand-shape rule, as
             ``pimc`` declares) or ``search``: each legal declaration (an exposure, or done)
             is a candidate valued in the sampled worlds like a card, the hand going on
             from it (the network declaring and playing for every seat to the cut-off,
             the expert declaring and playing it out for ``value=rollout``/``mix``)
``temperature``  softmax temperature of the network player model, in the network's unit
                 (``TEMPERATURES``: 0.001 to 1000)
``floor``    share of a uniform choice mixed into the player model, in ``[0, 1)`` (above 0 for
             the expert model); by default 0.1 for ``net`` and 0.3 for ``expert``
``time``     per-decision time limit in milliseconds (at most an hour), 0 for none: the
             worlds are searched in chunks of ``CHUNK`` and no chunk starts after the limit
             (at least one always runs). With a limit the play depends on the machine's
             speed, so it is not reproducible from the seed alone; without one (the default)
             it is.
``net``      the policy file (``policy:`` paths, ``pretrained`` by default)
``scale``    the network's unit in points (its trainer's ``reward_scale``, 400; 1 to 10**6)
``workers``  processes that share the worlds of a decision (1 to ``MAX_WORKERS``; 1: this
             one; 2 uses both cores of a two-core machine). World ``k`` of a decision is
             dealt from the decision's seed and ``k`` alone, so the play is the same for any
             number of workers. The helper processes start at the first search and load the
             network once; do not combine it with an arena that already runs one process per
             core.
``device``   where the network's forward passes run (``agents.devices``: ``cpu``, the
             default, ``auto``, ``cuda``, ``cuda:N``; refused where torch sees no CUDA device).
             The search scores a few hundred rows a pass (every world and candidate at once),
             the largest batches of any agent; each helper process of ``workers`` puts its
             own copy of the network there.

Every option is given at most once; ``seed`` and ``rules`` are not options (``make_agent``
passes the seat's seed and the table's rules).

Limits: a network of kind ``q`` for single hands of the table's rules (``PolicyLoadError``
otherwise, naming the difference). Under ``hidden_exposure`` the history cannot be replayed
without guessing the hidden exposures: the agent plays the network's card. Strategy fusion
remains (the rollouts' players do not know the hidden cards, but the cut-off and the mean over
worlds are taken as if this seat did).
"""

from __future__ import annotations

import copy
import math
import multiprocessing
import time
import weakref
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, NamedTuple, cast

import numpy as np
import torch

from agents.base import Agent, AgentError
from agents.devices import DeviceError, resolve_device
from agents.expert import expert_action, expert_declare_view, expert_play
from agents.knowledge import Situation
from agents.pimc import (
    MAX_WORLDS,
    action_runs,
    candidates,
    exact_draws,
    objective,
    rollout,
)
from agents.policy import (
    PolicyLoadError,
    QNetwork,
    _in_episode,
    is_shipped,
    load_policy_file,
    policy_mix,
    resolve_policy_path,
    rules_mismatch,
    trained_rules,
)
from gongzhu_env.cards import Multiset
from gongzhu_env.engine import Game, IllegalActionError
from gongzhu_env.rules import Rules
from gongzhu_env.view import PlayerView, obs_size
from gongzhu_env.worlds import sample_hands, world_deal

WORLD_ATTEMPTS = 8
"""Draws of hands a world may take before it is left out of the decision. One deck: the first
draw always replays (the draw is exact). Two decks: the draw does not know every pair rule, so
a draw the engine refuses is drawn again, as ``pimc`` does."""

CHUNK = 8
"""Worlds searched together when a time limit is set (the limit is checked between chunks)."""

CLIP = 4.0
"""The trainers clip their targets to this many units; real results are clipped alike."""

MODELS = {"net": 0.1, "expert": 0.3}
"""The player models of the world weighting, each with its default ``floor``."""

MAX_DEPTH = 52
"""The deepest cut-off in own decisions; no hand gives a seat more (``depth=end`` plays out)."""

TEMPERATURES = (1e-3, 1e3)
"""The player model's temperature range, in the network's unit: below it the softmax is the
network's choice alone (and overflows on the way), above it a uniform choice (``floor``)."""

MAX_TIME = 3_600_000
"""The longest per-decision time limit, in milliseconds (an hour)."""

SCALES = (1.0, 1e6)
"""The network's unit in points: 400 for the shipped trainers, anything in this range."""

MAX_WORKERS = 64
"""The most helper processes a search may start. Fixed, not the machine's cores, so that a
spec valid on one machine is valid on every other; beyond the cores more only cost memory."""

TABLE_DEFAULTS: dict[int, dict[str, Any]] = {1: {"worlds": 32, "value": "mix"},
                                             2: {"worlds": 16, "value": "net"}}
"""The defaults of ``worlds`` and ``value`` by the table's deck count (docs/search.md has the
measurements behind them). Two-deck hands are twice as long and their expert rollouts about
eight times dearer than one-deck ones: the one-deck defaults take seconds a decision there."""

VALUES = ("net", "rollout", "mix")

DECLARERS = ("net", "expert", "search")
"""Who makes the declarations: the network, the expert's hand-shape rule, or the search."""
"""How a (world, card) pair is valued: the network's play and cut-off, the expert playing the
hand out at every seat (as ``pimc`` values it), or the mean of the two."""


@dataclass
class SearchResult:
    """What the search found at one decision: its candidates and their values."""

    runs: list[list[int]]
    """The legal cards split into runs of equivalent cards (``agents.pimc.card_runs``)."""
    candidates: list[int]
    """The card searched for each run (the network's choice if in the run, else its highest)."""
    values: np.ndarray
    """Likelihood-weighted mean value of each candidate over the worlds, in the network's unit
    (points over ``scale``)."""
    choice: int
    """The card played: the best candidate, a tie going to the network's own choice."""
    worlds: int
    """Worlds searched (fewer than asked when the time limit cut the search short)."""

    def card_values(self) -> dict[int, float]:
        """Every legal card's value: each card of a run is worth its run's candidate."""
        return {c: float(v) for run, v in zip(self.runs, self.values, strict=True) for c in run}


class SearchAgent(Agent):
    """Network-guided sampled-world search; see the module docstring.

    Deterministic for a seed when no time limit is set.
    """

    name = "search"
    decks: int | None = None
    """The deck count of the network's table (set at construction: one or two)."""

    def __init__(self, seed: int | None = None, worlds: int | None = None,
                 depth: int | str = 0, temperature: float = 1.0, floor: float | None = None,
                 time: float = 0, net: str = "pretrained", scale: float = 400.0,
                 workers: int = 1, model: str = "net", value: str | None = None,
                 declare: str = "net", device: str = "cpu", rules: Rules | None = None) -> None:
        super().__init__(seed)
        if not isinstance(net, str) or not net.strip():
            raise ValueError(f"search option net must be a policy path or 'pretrained'; "
                             f"got {net!r}")
        self.net_name = net.strip()
        self.net, self.rules = _load_network(self.net_name, rules)
        self.decks = self.rules.decks
        defaults = TABLE_DEFAULTS[self.decks]
        worlds = defaults["worlds"] if worlds is None else worlds
        value = defaults["value"] if value is None else value
        try:
            self.device = resolve_device(device, "device")
        except DeviceError as e:
            raise ValueError(f"search option {e}") from None
        if type(worlds) is not int or not 1 <= worlds <= MAX_WORLDS:
            raise ValueError(f"search option worlds must be a positive integer of at most "
                             f"{MAX_WORLDS}; got {worlds!r}")
        if depth == "end":
            self.depth = math.inf
        elif type(depth) is int and 0 <= depth <= MAX_DEPTH:
            self.depth = depth
        else:
            raise ValueError(f"search option depth must be an integer 0..{MAX_DEPTH} or 'end'; "
                             f"got {depth!r}")
        if not _number(temperature) or not TEMPERATURES[0] <= temperature <= TEMPERATURES[1]:
            raise ValueError(f"search option temperature must be a number in "
                             f"[{TEMPERATURES[0]:g}, {TEMPERATURES[1]:g}]; got {temperature!r}")
        for option, given, allowed in (("model", model, MODELS), ("value", value, VALUES),
                                       ("declare", declare, DECLARERS)):
            if given not in allowed:
                raise ValueError(f"search option {option} must be one of "
                                 f"{', '.join(allowed)}; got {given!r}")
        if floor is None:
            floor = MODELS[model]
        if not _number(floor) or not 0 <= floor < 1:
            raise ValueError(f"search option floor must be a number in [0, 1); got {floor!r}")
        if model == "expert" and floor == 0:
            raise ValueError("search option floor must be above 0 with model=expert (a play "
                             "the expert would not make must not rule a world out); got 0")
        if not _number(time) or not 0 <= time <= MAX_TIME:
            raise ValueError(f"search option time must be a number of milliseconds 0..{MAX_TIME}"
                             f" (0: no limit); got {time!r}")
        if not _number(scale) or not SCALES[0] <= scale <= SCALES[1]:
            raise ValueError(f"search option scale must be a number of points in "
                             f"[{SCALES[0]:g}, {SCALES[1]:g}]; got {scale!r}")
        if type(workers) is not int or not 1 <= workers <= MAX_WORKERS:
            raise ValueError(f"search option workers must be an integer 1..{MAX_WORKERS} "
                             f"(processes that share the worlds); got {workers!r}")
        self.worlds = worlds
        self.temperature = float(temperature)
        self.floor = float(floor)
        self.time_limit = float(time) / 1000.0
        self.scale = float(scale)
        self.workers = workers
        self.model = model
        self.value = value
        self.declare = declare
        self._options = {"worlds": worlds, "depth": depth, "temperature": temperature,
                         "floor": floor, "net": self.net_name, "scale": scale, "model": model,
                         "value": value, "declare": declare, "device": device}
        """What a helper process needs to build the same search (``workers``)."""
        self._pool: ProcessPoolExecutor | None = None
        if self.device.type != "cpu":  # a copy: the file cache's network stays on the CPU
            self.net = copy.deepcopy(self.net).to(self.device)
        self.shipped = is_shipped(resolve_policy_path(self.net_name, rules))
        self.name = (f"search:worlds={worlds},depth={depth},temperature={temperature:g},"
                     f"floor={floor:g}")
        if model != "net":
            self.name += f",model={model}"
        if value != defaults["value"]:
            self.name += f",value={value}"
        if declare != "net":
            self.name += f",declare={declare}"
        if time:
            self.name += f",time={time:g}"
        if self.net_name != "pretrained":
            self.name += f",net={self.net_name}"
        if workers > 1:
            self.name += f",workers={workers}"

    def reset(self, seat: int, rules: Rules) -> None:
        """Refuse a table whose rules the network was not trained for."""
        if rules != self.rules:
            reason = rules_mismatch(self.net_name, self.rules, rules, self.shipped)
            raise PolicyLoadError(f"search option net={self.net_name}: {reason}")

    # ------------------------------------------------------------------ network
    def scores(self, obs: list[np.ndarray]) -> np.ndarray:
        """Return the network's scores of a batch of observations (one forward pass)."""
        with torch.inference_mode():
            x = torch.from_numpy(np.stack(obs))
            if self.device.type == "cpu":
                return self.net(x).numpy()
            return self.net(x.to(self.device)).cpu().numpy()

    def _net_choice(self, view: PlayerView) -> int:
        """Return the network's own choice (a hand of a match is seen without its blocks)."""
        q = self.scores([_in_episode(view, False).encode()])[0]
        legal = view.legal_actions
        return legal[int(np.argmax(q[legal]))]

    # ------------------------------------------------------------------ decision
    def act(self, view: PlayerView) -> int:
        """Declare like the network (or the expert); play the card with the best search value."""
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        result = self.search(view)
        return result.choice if isinstance(result, SearchResult) else result

    def search(self, view: PlayerView) -> SearchResult | int:
        """Search a decision with a choice; return its ``SearchResult``.

        A decision that is not searched (a declaration unless ``declare=search``, a
        hidden-exposure table, or cards that are all equivalent) returns the card or
        declaration played instead, so that callers that want the search's values
        (``training.expert_iteration.labels``) see which decisions have none.
        """
        self.check_table(view.rules)
        legal = view.legal_actions
        if view.phase == "declare" and self.declare == "expert":
            return expert_declare_view(view)
        default = self._net_choice(view)
        declaring = view.phase == "declare"
        if (declaring and self.declare != "search") or any(a < 0 for a in view.actions):
            # Declarations are searched only with declare=search; hidden exposures cannot be
            # replayed.
            return default
        situation = Situation.from_view(view)
        # Each declaration (an exposure, or done) is a candidate of its own.
        runs = [[a] for a in legal] if declaring else action_runs(legal, situation.unseen)
        cands = candidates(runs, default)
        if len(cands) == 1:
            return cands[0]
        start = time.perf_counter()
        seed = int(self.rng.integers(2**63))
        logw: list[np.ndarray] = []
        values: list[np.ndarray] = []
        done = 0
        for wave in self._waves():
            for lw, v in self._run_wave(view, cands, seed, wave, situation):
                logw.append(lw)
                values.append(v)
            done += sum(len(part) for part in wave)
            if self.time_limit > 0 and time.perf_counter() - start >= self.time_limit:
                break
        logws = np.concatenate(logw)
        if not np.isfinite(logws).any():  # two decks: no draw of any world replayed
            return SearchResult(runs, cands, np.zeros(len(cands)), default, 0)
        weights = normalised(logws)
        totals = weights @ np.concatenate(values)
        best = float(totals.max())
        choice = default if totals[cands.index(default)] >= best - 1e-9 else \
            cands[int(np.argmax(totals))]
        return SearchResult(runs, cands, totals, choice, done)

    def _waves(self) -> list[list[range]]:
        """Split the worlds into waves of parts, one part per process.

        Without a time limit: one wave, the worlds shared evenly by the processes. With one:
        parts of ``CHUNK`` worlds, ``workers`` parts a wave, the limit checked between waves.
        """
        n, k = self.worlds, self.workers
        if self.time_limit > 0:
            parts = [range(i, min(i + CHUNK, n)) for i in range(0, n, CHUNK)]
        else:
            bounds = [round(i * n / k) for i in range(k + 1)]
            parts = [range(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if b > a]
        return [parts[i:i + k] for i in range(0, len(parts), k)]

    def _run_wave(self, view: PlayerView, cands: list[int], seed: int, wave: list[range],
                  situation: Situation) -> list[tuple[np.ndarray, np.ndarray]]:
        """Search the worlds of one wave, in this process or in the helper processes."""
        if self.workers == 1 or len(wave) == 1:
            return [self.search_worlds(view, cands, seed, part, situation) for part in wave]
        if self._pool is None:
            self._pool = _start_pool(self.workers)
            weakref.finalize(self, self._pool.shutdown, wait=False, cancel_futures=True)
        jobs = [self._pool.submit(_search_part, self._options, self.rules, view, cands, seed,
                                  part) for part in wave]
        return [job.result() for job in jobs]

    def search_worlds(self, view: PlayerView, cands: list[int], seed: int, part: range,
                      situation: Situation) -> tuple[np.ndarray, np.ndarray]:
        """Log-likelihoods and candidate values of worlds ``part`` of one decision.

        World ``k`` is dealt from ``(seed, k)`` alone, so the decision does not depend on how
        the worlds are shared among processes. A world none of whose ``WORLD_ATTEMPTS`` draws
        replays (two decks) has log-likelihood ``-inf`` and values 0: it weighs nothing.
        """
        built = [draw_world(view, np.random.default_rng([seed, k]), self.model) for k in part]
        worlds = [w for w in built if w is not None]
        logw = np.full(len(built), -np.inf)
        values = np.zeros((len(built), len(cands)))
        kept = [i for i, w in enumerate(built) if w is not None]
        if worlds:
            logw[kept] = self.log_likelihoods([trace for _, trace in worlds])
            values[kept] = self.values(view, [g for g, _ in worlds], cands, situation)
        return logw, values

    def close(self) -> None:
        """Stop the helper processes (``workers``), if any were started."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def __getstate__(self) -> dict[str, Any]:
        """Pickle without the helper processes (a copy starts its own)."""
        state = dict(self.__dict__)
        state["_pool"] = None
        return state

    def log_likelihoods(self, traces: list[list[Observed]]) -> np.ndarray:
        """Log-probability of each world's history of other seats' decisions under the model.

        ``traces[w]`` lists every decision another seat took with a choice in world ``w``
        (``Observed``). Under ``model=net`` all the decisions of all the worlds are scored in
        one forward pass (``play_probabilities``); under ``model=expert`` the expert's action
        is taken with probability ``1 - floor`` (``expert_probabilities``).
        """
        out = np.zeros(len(traces))
        rows = [(w, d) for w, trace in enumerate(traces) for d in trace]
        if not rows:
            return out
        taken = np.array([d.action for _, d in rows])
        if self.model == "expert":
            chosen = expert_probabilities(np.array([d.expert for _, d in rows]), taken,
                                          np.array([d.legal for _, d in rows]), self.floor)
        else:
            # model=net: every decision carries its observation and mask (never None).
            q = self.scores(cast("list[np.ndarray]", [d.obs for _, d in rows]))
            masks = cast("list[np.ndarray]", [d.mask for _, d in rows])
            chosen = play_probabilities(q, np.stack(masks), taken, self.temperature, self.floor)
        np.add.at(out, np.array([w for w, _ in rows]), np.log(chosen))
        return out

    def play_out(self, game: Game) -> list[int]:
        """Let the expert play ``game`` out in place at every seat; return the raw scores.

        Declarations left (a declaration searched with ``declare=search``) are the expert's
        too, then the hand is played as ``pimc`` plays it out.
        """
        while game.phase == "declare":
            legal = game.legal_mask()
            game.step(legal.bit_length() - 1 if legal & (legal - 1) == 0 else expert_action(game))
        return rollout(game, expert_play)

    def values(self, view: PlayerView, worlds: list[Game], cands: list[int],
               situation: Situation) -> np.ndarray:
        """Value of each candidate card in each world: an array ``(worlds, candidates)``.

        Every (world, card) pair is one clone, played on by the network for every seat until
        the cut-off (this seat's decision after ``depth`` of its own further decisions; forced
        cards are played through, they are no decision) or the end of the hand. Each ply is
        one forward pass over all the clones still playing, including the ones cut off at this
        ply (their value is the network's best legal score).
        """
        me = view.seat
        team = (me, *situation.partners)
        teams = len(view.teams) if view.teams else 0
        games: list[Game] = []
        for world in worlds:
            for c in cands:
                g = world.clone()
                g.step(c)
                games.append(g)
        if self.value != "net":
            played_out = np.array([
                min(CLIP, max(-CLIP, objective(self.play_out(g.clone()), me, team, True,
                                               teams) / self.scale)) for g in games])
            if self.value == "rollout":
                return played_out.reshape(len(worlds), len(cands))
        out = np.zeros(len(games))
        turns = [0] * len(games)
        depth = self.depth
        pending = list(range(len(games)))
        while pending:
            rows: list[np.ndarray] = []
            masks: list[np.ndarray] = []
            at: list[int] = []  # the clone of each row
            cut: set[int] = set()
            for i in pending:
                g = games[i]
                while not g.is_over():
                    legal = g.legal_mask()
                    if legal & (legal - 1):
                        break
                    g.step(legal.bit_length() - 1)  # a forced card needs no decision
                if g.is_over():
                    result = objective(g.scores(), me, team, True, teams) / self.scale
                    out[i] = min(CLIP, max(-CLIP, result))
                    continue
                p = g.current_player
                obs, mask = g.observation(p)
                rows.append(obs)
                masks.append(mask)
                at.append(i)
                if p == me:
                    if turns[i] >= depth:
                        cut.add(i)
                    else:
                        turns[i] += 1
            if not rows:
                break
            q = self.scores(rows)
            q = np.where(np.stack(masks).astype(bool), q, -np.inf)
            best = q.argmax(axis=1)
            pending = []
            for r, i in enumerate(at):
                if i in cut:
                    out[i] = q[r, best[r]]
                else:
                    games[i].step(int(best[r]))
                    pending.append(i)
        if self.value == "mix":
            out = (out + played_out) / 2.0
        return out.reshape(len(worlds), len(cands))


_HELPER_AGENTS: dict[str, SearchAgent] = {}


def _helper_init() -> None:
    """One torch thread per helper process: the processes are the parallelism."""
    torch.set_num_threads(1)


def _start_pool(workers: int) -> ProcessPoolExecutor:
    """Start the helper processes (``spawn``: torch's threads do not survive a fork)."""
    return ProcessPoolExecutor(max_workers=workers, initializer=_helper_init,
                               mp_context=multiprocessing.get_context("spawn"))


def _search_part(options: dict[str, Any], rules: Rules, view: PlayerView, cands: list[int],
                 seed: int, part: range) -> tuple[np.ndarray, np.ndarray]:
    """Run ``SearchAgent.search_worlds`` in a helper process (its agent is built once)."""
    key = repr(sorted(options.items())) + repr(rules.to_dict())
    agent = _HELPER_AGENTS.get(key)
    if agent is None:
        agent = _HELPER_AGENTS[key] = SearchAgent(rules=rules, **options)
    return agent.search_worlds(view, cands, seed, part, Situation.from_view(view))


class Observed(NamedTuple):
    """One decision another seat took with a choice, as it looks in one sampled world."""

    obs: np.ndarray | None
    """That seat's observation in the world (``model=net``; ``None`` otherwise)."""
    mask: np.ndarray | None
    """Its action mask (``model=net``; ``None`` otherwise)."""
    action: int
    """The action it took (the same in every world)."""
    legal: int
    """How many legal actions it had in the world."""
    expert: int
    """The expert's action in its place in the world (``model=expert``; -1 otherwise)."""


def draw_world(view: PlayerView, rng: np.random.Generator, model: str = "net"
               ) -> tuple[Game, list[Observed]] | None:
    """Draw hands and replay their world (``replay_world``), up to ``WORLD_ATTEMPTS`` times.

    Returns ``None`` at a two-deck table when no draw replays. At one deck the draw is exact,
    so a world that does not replay means the view itself is wrong: ``AgentError``.
    """
    for _ in range(WORLD_ATTEMPTS):
        try:
            return replay_world(view, sample_hands(view, rng), model)
        except AgentError:
            if exact_draws(view.rules):
                raise
    return None


def replay_world(view: PlayerView, hands: list[Multiset], model: str = "net"
                 ) -> tuple[Game, list[Observed]]:
    """Build one sampled world with the engine and trace the other seats' decisions in it.

    Like ``gongzhu_env.worlds.build_world``, the world's deal is replayed through the view's public
    history (each action checked by the engine); on the way, every decision of another seat
    that had more than one legal action is recorded (``Observed``) with what the player
    ``model`` needs to score it. Returns the world at the present and the trace; raises
    ``AgentError`` if the world does not reproduce the view.
    """
    me = view.seat
    deal, leaders = world_deal(view, hands)
    error: Exception | None = None
    expert = model == "expert"
    for leader in leaders:
        game = Game.from_hands(deal, view.rules, leader=leader)
        trace: list[Observed] = []
        try:
            for a in view.actions:
                p = game.current_player
                if p != me:
                    legal = game.legal_mask()
                    if legal & (legal - 1):
                        if expert:
                            trace.append(Observed(None, None, a, legal.bit_count(),
                                                  expert_action(game)))
                        else:
                            obs, mask = game.observation(p)
                            trace.append(Observed(obs, mask, a, legal.bit_count(), -1))
                game.step(a)
        except IllegalActionError as e:
            error = e
            continue
        if game.current_player == me and game.legal_mask() == view.legal_mask:
            return game, trace
    raise AgentError(f"search: a sampled world does not reproduce the view ({error})")


def expert_probabilities(expert: np.ndarray, taken: np.ndarray, legal: np.ndarray,
                         floor: float) -> np.ndarray:
    """Probability of each observed action when players play like the expert.

    The expert's action with probability ``1 - floor`` and a uniform choice among the
    ``legal`` actions with ``floor``: a play the expert would not make lowers a world's weight
    by that factor without ruling it out (the players are not the expert either).
    """
    return (1.0 - floor) * (expert == taken) + floor / legal


def play_probabilities(q: np.ndarray, mask: np.ndarray, taken: np.ndarray, temperature: float,
                       floor: float) -> np.ndarray:
    """Probability of each observed action under the player model, one row per decision.

    ``q`` holds the network's scores (rows, actions), ``mask`` the legal actions, ``taken`` the
    action each row took. The model is a softmax of the legal scores at ``temperature`` mixed
    with a uniform choice among the legal actions in the share ``floor``.
    """
    z = np.where(mask.astype(bool), q.astype(np.float64) / temperature, -np.inf)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    chosen = p[np.arange(len(taken)), taken]
    return (1.0 - floor) * chosen + floor / mask.astype(bool).sum(axis=1)


def normalised(logw: np.ndarray) -> np.ndarray:
    """Self-normalised importance weights from log-likelihoods (they sum to 1)."""
    w = np.exp(logw - logw.max())
    return w / w.sum()


def _number(x: Any) -> bool:
    return type(x) in (int, float) and math.isfinite(x)


def _load_network(name: str, rules: Rules | None) -> tuple[QNetwork, Rules]:
    """Load the search's network and the rules it plays; refuse what the search cannot use."""
    try:
        net, data = load_policy_file(name, rules)
    except PolicyLoadError as e:
        raise PolicyLoadError(f"search option net={name}: {e}") from None
    if policy_mix(data, name) is not None:
        raise PolicyLoadError(f"search option net={name}: a network of several rule sets is "
                              "not supported; give one trained for the table's rules")
    if data.get("kind") != "q":
        raise PolicyLoadError(f"search option net={name}: the network is of kind "
                              f"{data.get('kind')!r}; the search needs action values (kind "
                              "'q', a Deep Monte-Carlo network)")
    trained = trained_rules(data, name)
    if net.obs_size != obs_size(trained):
        raise PolicyLoadError(f"search option net={name}: the network reads match "
                              "observations; the search needs one trained on single hands")
    return net, trained

