"""How the trainers seat the opponent mix: snapshots, the live policy and rule agents.

Both trainers read ``opponent_mix`` (spec -> weight) as one ``gongzhu_env.opponents
.OpponentMix``: the same entries, the same draw per seat, and the same rule before the first
snapshot (a snapshot seat is the learner's current policy). What differs is only what an
entry becomes at the table:

* Deep Monte-Carlo (``training.dmc.acting.ActingSide.draw_seating``) draws each seat itself:
  ``"self"`` is one more learner seat, ``"snapshot"`` a frozen Q network of its pool, any other
  spec an agent built with the drawn seed (or, on the batched engine, its compiled random
  player).
* PPO (``training.sb3``) hands the mix to the single-seat envs, which draw the seats
  (``SingleSeatEnv`` and ``SingleSeatVectorEnv`` use the same ``OpponentMix``). ``sb3_pool``
  below turns the config's mix into their entries and weights: the weight of ``"snapshot"`` is
  shared among the snapshots kept, and ``"self"`` is the live policy acting greedily, or,
  where the live weights cannot be reached (envs in subprocesses), the newest frozen copy of
  the actor.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import torch

from agents.policy import QNetwork
from gongzhu_env.opponents import SELF, SNAPSHOT
from gongzhu_env.view import PlayerView

T = TypeVar("T")


def sb3_pool(mix: Mapping[str, float], snapshots: Sequence[T], current: Any,
             snapshot_entry: Callable[[T], Any] = lambda s: s) -> tuple[list[Any], list[float]]:
    """Return the env's opponent entries and weights for the PPO trainer's ``mix``.

    ``current`` is what ``"self"`` (and ``"snapshot"`` before the first snapshot) becomes;
    ``snapshot_entry`` turns a kept snapshot into an entry (e.g. a batched policy over its
    network). Agent specs stay specs, built by the env. Entries of weight 0 are left out.
    """
    entries: list[Any] = []
    weights: list[float] = []
    for spec, w in mix.items():
        if w <= 0:
            continue
        if spec == SNAPSHOT and snapshots:
            for snap in snapshots:
                entries.append(snapshot_entry(snap))
                weights.append(w / len(snapshots))
        elif spec in (SELF, SNAPSHOT):
            entries.append(current)
            weights.append(w)
        else:
            entries.append(spec)
            weights.append(w)
    return entries, weights


def masked_argmax(scores: torch.Tensor, masks: np.ndarray) -> np.ndarray:
    """Return the legal action of highest score in each row."""
    scores = scores.masked_fill(~torch.from_numpy(np.ascontiguousarray(masks)), -torch.inf)
    return scores.argmax(dim=1).numpy()


class BatchNetPolicy:
    """A frozen logits network as a batched opponent (``policy(obs, masks) -> actions``)."""

    def __init__(self, net: QNetwork, name: str) -> None:
        self.net = net.eval()
        self.name = name

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Play the masked argmax of the network's logits at every row."""
        with torch.inference_mode():
            return masked_argmax(self.net(torch.from_numpy(obs)), masks)


class BatchLivePolicy:
    """The current PPO policy as a batched opponent (deterministic), random before a model."""

    name = "self"

    def __init__(self, seed: int) -> None:
        self.model: Any = None
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Play the live policy's greedy action at every row (uniform before a model)."""
        if self.model is None:
            counts = masks.sum(axis=1)
            picks = (self.rng.random(len(obs)) * counts).astype(np.int64)
            return np.array([np.flatnonzero(m)[k] for m, k in zip(masks, picks, strict=True)],
                            dtype=np.int64)
        actions, _ = self.model.policy.predict(obs, deterministic=True, action_masks=masks)
        return np.asarray(actions, dtype=np.int64)


class LivePolicy:
    """The current PPO policy as a single-seat opponent (``view -> action``, greedy).

    Only envs in the trainer's process can reach the live model; ``sb3_pool`` seats the newest
    frozen actor instead where the envs run in subprocesses.
    """

    def __init__(self) -> None:
        self.model: Any = None

    def __call__(self, view: PlayerView) -> int:
        """Play the live policy's greedy action in ``view``."""
        if self.model is None:
            raise RuntimeError("the live policy plays once the trainer has set its model")
        mask = view.action_mask().astype(bool)
        action, _ = self.model.predict(view.encode(), action_masks=mask, deterministic=True)
        return int(action)


__all__ = ["BatchLivePolicy", "BatchNetPolicy", "LivePolicy", "masked_argmax", "sb3_pool"]
