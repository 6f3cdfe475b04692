"""Deep Monte-Carlo actors: one actor loop, run by local processes and by Ray actors alike.

An ``Actor`` is a table simulator (``simulator.make_simulator``) with its own CPU copy of the
learner's network (actors infer on the CPU whatever ``device`` the learner trains on: the
simulators score a few dozen rows from numpy arrays a call, where a GPU's transfers cost more
than its products save): it takes the learner's weights and snapshot pool, plays until it holds
``cfg.actor_chunk`` samples and hands them over as one ``Chunk`` with the counters the learner
adds to the run's. Seeding is ``acting.actor_seed``; nothing else differs between where actors
run.

Where they run is a transport with one interface (``ActorPool``): ``LocalActors`` starts
``num_actors`` processes on this machine (below), ``ray_actors.RayActors`` places them on a
Ray cluster. The learner (``learner.DMCTrainer``) only talks to an ``ActorPool``.

The path of a decision: an actor's simulator asks the network for a move, records the seat's
observation and move, and at the end of the episode labels them with the seat's result
(``targets``); the labelled rows go to the actor's sink, leave in a ``Chunk`` (a queue message
or a Ray object), and the learner adds them to its replay buffer, from which its gradient steps
draw minibatches (``learner.DMCTrainer.train_step``, ``loss.q_loss``).
"""

from __future__ import annotations

import os
import queue
import time
from typing import Any, Protocol

import numpy as np
import torch

from training.config import DMCConfig, config_from_dict
from training.dmc.acting import actor_seed
from training.dmc.networks import fresh_network, frozen_network
from training.dmc.simulator import make_simulator
from training.run import seed_everything

Chunk = tuple[np.ndarray, np.ndarray, dict[str, Any]]
"""What an actor hands over: observations uint8 ``[n, obs_size]``, targets float32
``[n, num_actions]`` and its counters since its last chunk (``decisions``, ``forced``,
``games``) with the learner seats' summed results (``ret_sum``, ``ret_n``)."""

START_TIMEOUT_S = 300.0
"""How long the learner waits for the first chunk of freshly started actors (importing torch
in a new process on a loaded two-core machine takes tens of seconds)."""


class Actor:
    """One self-play actor: a table simulator with a copy of the learner's network."""

    def __init__(self, cfg_dict: dict[str, Any], actor_id: int) -> None:
        torch.set_num_threads(1)
        # Actors play on the CPU whatever the learner's device (their batches are a few dozen
        # rows); a GPU learner's config must not be refused on an actor's machine without one.
        self.cfg = config_from_dict({**cfg_dict, "device": "cpu"})
        seed = actor_seed(self.cfg, actor_id)
        seed_everything(seed)
        self._obs: list[np.ndarray] = []
        self._tgt: list[np.ndarray] = []
        self.net = fresh_network(self.cfg).eval()
        self.sim = make_simulator(self.cfg, self.net, seed, self._sink)
        self._last = (0, 0, 0)

    def _sink(self, obs: np.ndarray, tgt: np.ndarray) -> None:
        self._obs.append(obs)
        self._tgt.append(tgt)

    def pid(self) -> int:
        """Return the actor's process id (for tests and diagnostics)."""
        return os.getpid()

    def set_weights(self, state_dict: dict[str, torch.Tensor], decisions: int,
                    progress: float) -> None:
        """Take the learner's weights, run decisions (epsilon) and budget fraction."""
        self.net.load_state_dict(state_dict)
        self.sim.global_decisions = int(decisions)
        self.sim.progress = float(progress)

    def set_snapshots(self, state_dicts: list[dict[str, torch.Tensor]]) -> None:
        """Take the learner's pool of frozen snapshots."""
        self.sim.set_snapshots([frozen_network(sd, self.cfg) for sd in state_dicts])

    def play(self) -> Chunk:
        """Step the tables until ``cfg.actor_chunk`` samples are ready; return them."""
        sim = self.sim
        while sum(len(t) for t in self._tgt) < self.cfg.actor_chunk:
            sim.step_tables()
        dec, forced, games = self._last
        stats = {"decisions": sim.decisions - dec, "forced": sim.forced - forced,
                 "games": sim.games - games, "ret_sum": sim.ret_sum, "ret_n": sim.ret_n}
        self._last = (sim.decisions, sim.forced, sim.games)
        sim.ret_sum, sim.ret_n = 0.0, 0
        chunk = (np.concatenate(self._obs), np.concatenate(self._tgt), stats)
        self._obs.clear()
        self._tgt.clear()
        return chunk


class ActorPool(Protocol):
    """The learner's end of a set of actors, wherever they run."""

    def first(self, timeout: float = START_TIMEOUT_S) -> list[Chunk]:
        """Wait for the first chunks (start-up is not billed as training time)."""

    def get(self, timeout: float) -> list[Chunk]:
        """Return the chunks ready within ``timeout`` seconds (maybe none)."""

    def set_weights(self, state_dict: dict[str, torch.Tensor], decisions: int,
                    progress: float) -> None:
        """Send the learner's weights, the run's decisions and the budget fraction."""

    def set_snapshots(self, state_dicts: list[dict[str, torch.Tensor]]) -> None:
        """Send the snapshot pool."""

    def close(self) -> None:
        """Stop every actor."""


def _process_main(cfg_dict: dict[str, Any], actor_id: int, chunks: Any, commands: Any,
                  stop: Any) -> None:
    """Body of a local actor process: the actor loop between two queues.

    Messages in: ``("weights", state_dict, run_decisions, budget_fraction)`` and
    ``("snapshots", [state_dict])``, taken between chunks. Messages out: ``Chunk``.
    """
    parent = os.getppid()
    actor = Actor(cfg_dict, actor_id)
    while not stop.is_set():
        if os.getppid() != parent:
            return  # the learner died without stopping us (e.g. SIGKILL): do not linger
        while True:
            try:
                msg = commands.get_nowait()
            except queue.Empty:
                break
            if msg[0] == "weights":
                actor.set_weights(*msg[1:])
            elif msg[0] == "snapshots":
                actor.set_snapshots(msg[1])
        chunk = actor.play()
        while not stop.is_set():
            try:
                chunks.put(chunk, timeout=0.5)
                break
            except queue.Full:
                continue


class LocalActors:
    """``num_actors`` actor processes on this machine, fed through queues (``ActorPool``).

    Processes are spawned, not forked: forking after torch has started its thread pools can
    hang the child.
    """

    def __init__(self, cfg: DMCConfig) -> None:
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        self._chunks = ctx.Queue(maxsize=4 * cfg.num_actors)
        self._stop = ctx.Event()
        self._commands = [ctx.Queue() for _ in range(cfg.num_actors)]
        self._procs = [ctx.Process(target=_process_main,
                                   args=(cfg.to_dict(), k, self._chunks, cq, self._stop),
                                   daemon=True)
                       for k, cq in enumerate(self._commands)]
        for p in self._procs:
            p.start()

    def _check_alive(self, starting: bool = False) -> None:
        for p in self._procs:
            if not p.is_alive():
                when = "while starting" if starting else f"(exit code {p.exitcode})"
                raise RuntimeError(f"actor process {p.pid} died {when}; see its traceback "
                                   "above")

    def first(self, timeout: float = START_TIMEOUT_S) -> list[Chunk]:
        """Wait for the first chunk, checking that the processes live."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            try:
                return [self._chunks.get(timeout=1.0)]
            except queue.Empty:
                self._check_alive(starting=True)
        raise RuntimeError(f"the actor processes sent no samples within {timeout:g} s of "
                           "starting")

    def get(self, timeout: float) -> list[Chunk]:
        """Return every chunk waiting, waiting up to ``timeout`` for the first."""
        out: list[Chunk] = []
        while True:
            try:
                if timeout > 0 and not out:
                    out.append(self._chunks.get(timeout=timeout))
                else:
                    out.append(self._chunks.get_nowait())
            except queue.Empty:
                self._check_alive()
                return out

    def set_weights(self, state_dict: dict[str, torch.Tensor], decisions: int,
                    progress: float) -> None:
        """Queue the weights for every process."""
        for cq in self._commands:
            cq.put(("weights", state_dict, decisions, progress))

    def set_snapshots(self, state_dicts: list[dict[str, torch.Tensor]]) -> None:
        """Queue the snapshot pool for every process."""
        for cq in self._commands:
            cq.put(("snapshots", state_dicts))

    def close(self) -> None:
        """Stop and join the processes (terminating any that does not stop within 10 s)."""
        if not self._procs:
            return
        self._stop.set()
        deadline = time.perf_counter() + 10
        while any(p.is_alive() for p in self._procs) and time.perf_counter() < deadline:
            try:
                self._chunks.get(timeout=0.1)  # unblock a put
            except queue.Empty:
                pass
        for p in self._procs:
            p.join(timeout=1)
            if p.is_alive():
                p.terminate()
        self._procs = []


__all__ = ["Actor", "ActorPool", "Chunk", "LocalActors"]
