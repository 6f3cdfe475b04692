"""Training targets of Deep Monte-Carlo decisions, shared by both table simulators.

A seat's decisions in one episode are labelled backwards from its result
(``lambda_returns``) and written as rows with one target per action, NaN where an action has
none (``action_targets``): the form the replay buffer and ``training.dmc.loss.q_loss`` read.
Every target is a result divided by ``reward_scale`` and clipped to ``reward_clip``
(``clip_target``, ``clip_targets``): one rule for both simulators.
"""

from __future__ import annotations

import numpy as np

from training.config import DMCConfig


def clip_target(cfg: DMCConfig, value: float) -> float:
    """Clip one target (a hand result already divided by ``reward_scale``) to ``reward_clip``."""
    return max(-cfg.reward_clip, min(cfg.reward_clip, value))


def clip_targets(cfg: DMCConfig, targets: np.ndarray) -> np.ndarray:
    """Clip a float array of targets to ``reward_clip`` in place, and return it."""
    return np.clip(targets, -cfg.reward_clip, cfg.reward_clip, out=targets)


def action_targets(act: np.ndarray, ret: np.ndarray, num_actions: int) -> np.ndarray:
    """Target rows for decisions with one labelled action each (NaN marks "no target")."""
    tgt = np.full((len(act), num_actions), np.nan, dtype=np.float32)
    tgt[np.arange(len(act)), act] = ret
    return tgt


def lambda_returns(values: list[float], final: float, lam: float,
                   rewards: list[float] | None = None) -> np.ndarray:
    """Targets of one seat's decisions: lambda-returns over its own decision sequence.

    ``values[t]`` is the acting network's best legal Q at decision ``t`` and ``final`` the
    seat's scaled hand result. Backwards, ``y[n-1] = final`` and
    ``y[t] = (1 - lam) * values[t + 1] + lam * y[t + 1]`` (no rewards before the end). ``lam = 1``
    is the pure Monte-Carlo target (every decision gets the hand result, as in DouZero);
    smaller ``lam`` trades a little bias for much less variance: the deal's luck that is
    already visible at decision ``t + 1`` is not charged to decision ``t``.

    ``rewards[t]`` (match episodes): what the seat scored after decision ``t`` and before its
    next one (a finished hand's result); it is added to ``y[t]``, so with ``lam = 1`` every
    target is the sum of everything scored from that decision on, plus ``final``.
    """
    n = len(values)
    y = np.empty(n, dtype=np.float32)
    acc = float(final)
    for t in range(n - 1, -1, -1):
        if rewards is not None:
            acc += rewards[t]
        y[t] = acc
        acc = (1.0 - lam) * values[t] + lam * acc
    return y
