"""The Q networks of a Deep Monte-Carlo run: the learner's, and frozen copies for snapshots.

A network's input follows from the config: the rules' observation (``gongzhu_env.view.obs_size``,
with the match blocks for match episodes), or a rules mix's padded observation with the rule
features (``agents.rule_features.MixedInput``); the per-card features are added inside the
network (``agents.policy.QNetwork``).
"""

from __future__ import annotations

import torch

from agents.policy import QNetwork
from agents.rule_features import MixedInput
from gongzhu_env.rules import Rules
from gongzhu_env.view import obs_size
from training.config import DMCConfig

BYTE = 1.0 / 255.0
"""The value of one step of an observation byte (the byte 255 stands for 1.0)."""


def network_input(obs: torch.Tensor) -> torch.Tensor:
    """Return observation bytes (uint8, ``rint(x * 255)``) as the network's float32 input.

    The conversion runs where ``obs`` is: on the learner's device for a minibatch (so a quarter
    of the bytes cross to a GPU), on the CPU for the actors' forward passes. It multiplies by
    ``1 / 255`` rather than dividing by 255: the two differ in the last bit for about half the
    bytes, and the product is what the replay has always given the learner, so the training
    numbers of a seed stay as they were.
    """
    if obs.dtype != torch.uint8:
        raise TypeError(f"network_input takes observation bytes (torch.uint8, value x as "
                        f"rint(x * 255)); got {obs.dtype}")
    return obs.float().mul_(BYTE)


def mixed_input(cfg: DMCConfig) -> MixedInput | None:
    """Return the input of a network for ``cfg.rules_mix`` (``None`` for one rule set)."""
    if not cfg.rules_mix:
        return None
    return MixedInput([Rules.coerce(r) for r in cfg.rules_mix])


def fresh_network(cfg: DMCConfig) -> QNetwork:
    """Build a fresh Q network of the config's architecture, reading its rules' observation."""
    rules = cfg.game_rules
    mixed = mixed_input(cfg)
    width = mixed.width if mixed is not None else obs_size(rules, cfg.episode == "match")
    return QNetwork(width, rules.num_actions, cfg.hidden,
                    card_features=cfg.card_features, holder_features=cfg.holder_features)


def frozen_network(state_dict: dict[str, torch.Tensor], cfg: DMCConfig) -> QNetwork:
    """Build a network of ``cfg`` holding ``state_dict``, for inference only (snapshots)."""
    net = fresh_network(cfg)
    net.load_state_dict(state_dict)
    net.eval()
    for p in net.parameters():
        p.requires_grad_(False)
    return net

