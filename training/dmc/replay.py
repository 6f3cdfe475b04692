"""The replay buffer of Deep Monte-Carlo: the most recent decisions and their targets.

Observations are stored as ``uint8`` (x255) to keep the buffer small: every observation value is
a 0/1 bit except a few scores in [0, 1], which survive the rounding well enough for a network's
input. Targets are float32 rows with one entry per action, NaN where an action has none
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

    def add(self, obs: np.ndarray, tgt: np.ndarray) -> None:
        """Append decisions (``obs`` uint8 rows, ``tgt`` float32 rows, a target per action)."""
        n = len(tgt)
        idx = (self.pos + np.arange(n)) % self.capacity
        self.obs[idx] = obs
        self.tgt[idx] = tgt
        self.pos = int((self.pos + n) % self.capacity)
        self.size = min(self.capacity, self.size + n)

    def sample(self, batch: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Draw a uniform minibatch as tensors (observations back to floats in [0, 1])."""
        idx = self.rng.integers(self.size, size=batch)
        obs = torch.from_numpy(self.obs[idx]).float().mul_(1.0 / 255.0)
        return obs, torch.from_numpy(self.tgt[idx])

