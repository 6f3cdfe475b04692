"""Deep Monte-Carlo actors on a Ray cluster: ``gongzhu train --backend ray --actors N``.

The learner (``learner.DMCTrainer``) stays in the process that runs the command; only the
acting side moves. Each Ray actor is the ``actors.Actor`` a local actor process runs (the same
loop, seeding and chunks), made remote here; ``RayActors`` is the learner's ``ActorPool`` for
them. So the config, the metrics, the checkpoints and ``--resume`` are those of the local
trainer.

Transport (``RayActors``):

* batches: the learner keeps ``INFLIGHT`` ``play()`` calls outstanding on every actor and takes
  whichever batch is ready first (``ray.wait``), so an actor never idles waiting to be asked;
* weights and snapshots: put once into the object store per sync (``ray.put``) and passed to
  every actor by reference; an actor method runs in call order, so each batch after a sync was
  played with the new weights;
* a dead actor (its process killed, its node lost, or Ray's memory monitor stopping it) is
  replaced by a new one with the learner's current weights and snapshots and a seed of its
  own, and the run goes on. The first replacement of a slot starts at once; each further
  death of that slot before it has delivered a batch doubles the wait before the next one
  (``RESPAWN_DELAYS_S``), so a slot whose actors keep dying (a node short of memory, a machine
  too busy to start them) costs little while the other actors feed the learner.
* giving up follows the run's progress, not a count of tries: the run stops with a clear
  error (``WorkerLostError``; the learner checkpoints first) only once every slot has lost
  ``MAX_FRUITLESS`` actors in a row without a batch, so that no actor is left that delivers.
  An exception inside the actor's own code is raised at once, since a new actor would hit it
  too.

Ray is imported through ``training.cluster`` only when this backend is used.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import torch

from training.cluster import BackendError, WorkerLostError, cluster_cpus, connect
from training.config import DMCConfig
from training.dmc.actors import START_TIMEOUT_S, Actor, Chunk

INFLIGHT = 2
"""Batches requested ahead from every actor."""
MAX_FRUITLESS = 3
"""Deaths in a row of one actor slot without a batch delivered that make the slot fruitless;
the run gives up when every slot is."""
RESPAWN_DELAYS_S = (0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0)
"""Seconds before a slot's next actor starts, by the slot's deaths in a row (the last
repeats): a single loss is replaced at once, a slot that keeps losing its actors waits."""


class RayActors:
    """The learner's end of the Ray actors: start, feed, collect, replace (module docstring)."""

    def __init__(self, cfg: DMCConfig, address: str | None = None,
                 log: Callable[[str], None] | None = None) -> None:
        self.cfg = cfg
        self.log = log or (lambda text: print(text, flush=True))
        n = cfg.num_actors
        # A private instance gets a CPU for every actor even on a smaller machine: the
        # actors then share the cores, as actor processes would.
        self.ray, self._started = connect(address, num_cpus=max(n, os.cpu_count() or 1))
        ray = self.ray
        if cluster_cpus(ray) < n:
            self.close()
            raise BackendError(f"--actors {n} needs {n} CPUs, and the Ray cluster has "
                               f"{cluster_cpus(ray)}; add nodes or ask for fewer actors")
        self._start(ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(Actor))

    def _start(self, actor_class: Any) -> None:
        """Start one actor of ``actor_class`` (``actors.Actor`` made remote) in every slot."""
        n = self.cfg.num_actors
        self._cls = actor_class
        self._cfg_dict = self.cfg.to_dict()
        self._next_id = 0
        self.replaced = 0
        """Actors replaced after dying."""
        self.batches = 0
        """Batches received from the actors."""
        self.slots: list[Any] = [None] * n
        """Each slot's actor; ``None`` while the slot waits to start a new one."""
        self._fruitless = [0] * n
        self._respawn_at: dict[int, float] = {}
        """Slots without an actor, and when (``time.monotonic``) each starts its next."""
        self._pending: dict[Any, tuple[int, Any]] = {}
        self._weights: tuple[Any, int, float] | None = None
        self._snapshots: Any = None
        for slot in range(n):
            self._spawn(slot)

    # ------------------------------------------------------------ actors
    def _spawn(self, slot: int) -> None:
        actor_id, self._next_id = self._next_id, self._next_id + 1
        handle = self._cls.remote(self._cfg_dict, actor_id)
        if self._snapshots is not None:
            handle.set_snapshots.remote(self._snapshots)
        if self._weights is not None:
            handle.set_weights.remote(*self._weights)
        self.slots[slot] = handle
        for _ in range(INFLIGHT):
            self._request(slot)

    def _request(self, slot: int) -> None:
        handle = self.slots[slot]
        self._pending[handle.play.remote()] = (slot, handle)

    def _replace(self, slot: int, handle: Any, error: BaseException) -> None:
        """Put a new actor into ``slot`` in place of the dead ``handle`` (now or after a wait).

        Raises ``WorkerLostError`` when this death leaves every slot fruitless.
        """
        if self.slots[slot] is not handle:
            return  # already replaced (its other outstanding batch failed first)
        for ref, (_slot, h) in list(self._pending.items()):
            if h is handle:
                del self._pending[ref]
        self._fruitless[slot] += 1
        why = f"{type(error).__name__}: {_first_line(error)}"
        if min(self._fruitless) >= MAX_FRUITLESS:
            raise WorkerLostError(
                f"every Ray actor slot lost {MAX_FRUITLESS} actors or more in a row without a "
                f"batch delivered ({', '.join(map(str, self._fruitless))} deaths), so no actor "
                f"is left to play; last: Ray actor {slot}: {why}")
        try:
            self.ray.kill(handle, no_restart=True)
        except Exception:  # noqa: BLE001 - it is gone already
            pass
        self.replaced += 1
        delays = RESPAWN_DELAYS_S
        delay = delays[min(self._fruitless[slot], len(delays)) - 1]
        self.log(f"Ray actor {slot} died ({why}); "
                 + (f"a new one starts in {delay:g} s" if delay else "starting a new one")
                 + ", the run goes on")
        if delay:
            self.slots[slot] = None
            self._respawn_at[slot] = time.monotonic() + delay
        else:
            self._spawn(slot)

    def _respawn_due(self) -> None:
        """Start the actors of the slots whose wait is over."""
        now = time.monotonic()
        for slot, when in sorted(self._respawn_at.items()):
            if when <= now:
                del self._respawn_at[slot]
                self._spawn(slot)

    # ------------------------------------------------------------ learner side
    def set_weights(self, state_dict: dict[str, torch.Tensor], decisions: int,
                    progress: float) -> None:
        """Send the learner's weights to every actor (one object-store copy for all)."""
        self._weights = (self.ray.put(state_dict), int(decisions), float(progress))
        for handle in self.slots:
            if handle is not None:  # a slot waiting to respawn gets them at its start
                handle.set_weights.remote(*self._weights)

    def set_snapshots(self, state_dicts: list[dict[str, torch.Tensor]]) -> None:
        """Send the snapshot pool to every actor (one object-store copy for all)."""
        self._snapshots = self.ray.put(state_dicts)
        for handle in self.slots:
            if handle is not None:
                handle.set_snapshots.remote(self._snapshots)

    def get(self, timeout: float) -> list[Chunk]:
        """Return the batches ready within ``timeout`` seconds (maybe none); ask for more."""
        ray = self.ray
        self._respawn_due()
        if not self._pending:  # every slot waits to respawn
            wait = min(self._respawn_at.values(), default=0.0) - time.monotonic()
            time.sleep(max(0.0, min(timeout, wait)))
            return []
        ready, _ = ray.wait(list(self._pending), num_returns=1, timeout=timeout)
        if ready:  # take every other batch already there too
            ready, _ = ray.wait(list(self._pending), num_returns=len(self._pending),
                                timeout=0)
        out = []
        for ref in ready:
            if ref not in self._pending:
                continue  # belonged to an actor replaced meanwhile
            slot, handle = self._pending.pop(ref)
            try:
                out.append(ray.get(ref))
            except ray.exceptions.RayTaskError as e:
                cause = getattr(e, "cause", None)
                raise RuntimeError(f"Ray actor {slot} failed: {_first_line(cause or e)}") \
                    from (cause if isinstance(cause, BaseException) else None)
            except (ray.exceptions.RayActorError, ray.exceptions.ObjectLostError,
                    ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                    ray.exceptions.OutOfMemoryError) as e:  # the memory monitor's kill
                self._replace(slot, handle, e)
                continue
            self._fruitless[slot] = 0
            self.batches += 1
            if self.slots[slot] is handle:
                self._request(slot)
        return out

    def first(self, timeout: float = START_TIMEOUT_S) -> list[Chunk]:
        """Wait for the first batches (actor start-up is not billed as training time)."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            got = self.get(timeout=1.0)
            if got:
                return got
        raise RuntimeError(f"the Ray actors sent no samples within {timeout:g} s of starting "
                           "(is the cluster busy with other work?)")

    def close(self) -> None:
        """Stop every actor, and the Ray instance if this object started it."""
        for handle in self.slots if hasattr(self, "slots") else ():
            if handle is not None:
                try:
                    self.ray.kill(handle, no_restart=True)
                except Exception:  # noqa: BLE001 - already gone
                    pass
        self._pending = {}
        self._respawn_at = {}
        self.slots = []
        if self._started:
            self.ray.shutdown()
            self._started = False


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


__all__ = ["RayActors"]
