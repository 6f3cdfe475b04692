"""The replay buffer of Deep Monte-Carlo: the most recent decisions and their targets.

Observations are stored as ``uint8`` (x255) to keep the buffer small: every observation value is
a 0/1 bit except a few scores in [0, 1], which survive the rounding well enough for a network's
input. They leave the buffer as bytes too: the learner moves a minibatch to its device and
converts it there (``networks.network_input``), so a GPU receives a quarter of the bytes.
Targets are float32 rows with one entry per action, NaN where an action has none
(``training.dmc.targets``).
"""

from __future__ import annotations

import numpy as np
import torch


class ReplayBuffer:
    """Ring buffer of the most recent decisions: observation and a target per action.

    A self-play decision has one target (the action taken, its return); a rollout-labelled
    decision has one per distinct legal card. Actions without a target hold NaN.
    """

    def __init__(self, capacity: int, rng: np.random.Generator, obs_len: int,
                 num_actions: int) -> None:
        # Both sizes come from the rules (gongzhu_env.view.obs_size, rules.num_actions).
        self.capacity = capacity
        self.obs = np.zeros((capacity, obs_len), dtype=np.uint8)
        self.tgt = np.full((capacity, num_actions), np.nan, dtype=np.float32)
        self.size = 0
        self.pos = 0
        self.rng = rng

    @property
    def bytes_per_sample(self) -> int:
        """Memory one sample holds: its observation bytes and its float32 targets."""
        return self.obs.shape[1] * self.obs.itemsize + self.tgt.shape[1] * self.tgt.itemsize

    def add(self, obs: np.ndarray, tgt: np.ndarray) -> None:
        """Append decisions (``obs`` uint8 rows, ``tgt`` float32 rows, a target per action).

        Rows of another dtype are refused: a float observation here would be truncated to
        0 or 1 by the cast, not rounded to its byte.
        """
        if obs.dtype != np.uint8:
            raise TypeError(f"ReplayBuffer.add takes uint8 observation rows (rint(x * 255)); "
                            f"got {obs.dtype}")
        n = len(tgt)
        idx = (self.pos + np.arange(n)) % self.capacity
        self.obs[idx] = obs
        self.tgt[idx] = tgt
        self.pos = int((self.pos + n) % self.capacity)
        self.size = min(self.capacity, self.size + n)

    def sample(self, batch: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Draw a uniform minibatch as CPU tensors: uint8 observations, float32 targets.

        ``networks.network_input`` turns the observations into the network's floats, on the
        device that computes with them.
        """
        idx = self.rng.integers(self.size, size=batch)
        return torch.from_numpy(self.obs[idx]), torch.from_numpy(self.tgt[idx])

