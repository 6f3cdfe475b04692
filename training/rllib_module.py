"""An RLlib PPO module that masks illegal actions, for ``training.rllib_example``.

This module imports Ray's RLlib at its top, so only ``training.rllib_example`` imports it, and
only when it trains (``import training`` never loads Ray).

It follows RLlib's own action-masking example (``ray.rllib.examples.rl_modules.classes.
action_masking_rlm``) on the new API stack, written against RLlib 2.60's
``DefaultPPOTorchRLModule``: the environment's observation is a ``Dict`` of ``observation``
(our 600 values) and ``action_mask`` (1 for a legal action); the networks read the
observation only, and the mask turns every illegal action's logit into a huge negative
number after the policy head, so PPO never samples one and its probability is zero in the
loss. The value function reads the same observation.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

OBS_KEY = "observation"
MASK_KEY = "action_mask"


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """PPO actor-critic over ``observation`` whose logits are masked by ``action_mask``."""

    def __init__(self, *args: Any, observation_space: gym.Space | None = None,
                 **kwargs: Any) -> None:
        if not (isinstance(observation_space, gym.spaces.Dict)
                and {OBS_KEY, MASK_KEY} <= set(observation_space.spaces)):
            raise ValueError(f"MaskedPPOModule needs a Dict observation space with "
                             f"{OBS_KEY!r} and {MASK_KEY!r}; got {observation_space}")
        self.observation_space_with_mask = observation_space
        # The networks are built for the observation alone.
        super().__init__(*args, observation_space=observation_space[OBS_KEY], **kwargs)

    def setup(self) -> None:
        """Build the default networks, then report the masked space as the module's."""
        super().setup()
        self.observation_space = self.observation_space_with_mask

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Inference and exploration: masked logits."""
        mask, batch = _split(batch)
        return _masked(super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Training forward pass: masked logits (and the critic's embeddings)."""
        mask, batch = _split(batch)
        return _masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        """Values of the observations (the mask plays no part)."""
        _, batch = _split(batch)
        return super().compute_values(batch, embeddings)


def _split(batch: dict[str, Any]) -> tuple[torch.Tensor, dict[str, Any]]:
    """Return the mask and a shallow copy of ``batch`` whose observation is the vector."""
    obs = batch[Columns.OBS]
    if not isinstance(obs, dict):
        raise ValueError(f"MaskedPPOModule expects {{{OBS_KEY!r}, {MASK_KEY!r}}} observations")
    out = dict(batch)
    out[Columns.OBS] = obs[OBS_KEY]
    return obs[MASK_KEY], out


def _masked(out: dict[str, Any], mask: torch.Tensor) -> dict[str, Any]:
    """Add ``log(mask)`` (0 or a huge negative number) to the action logits."""
    logits = out[Columns.ACTION_DIST_INPUTS]
    out[Columns.ACTION_DIST_INPUTS] = logits + torch.clamp(
        torch.log(mask.to(logits.dtype)), min=FLOAT_MIN)
    return out


__all__ = ["MASK_KEY", "OBS_KEY", "MaskedPPOModule"]
