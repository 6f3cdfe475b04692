"""The loss of the Deep Monte-Carlo learner: Q against per-action targets.

This is where to change what the network is trained to predict from a minibatch; the learner
(``training.dmc.learner.DMCTrainer.train_step``) calls ``q_loss`` and nothing else.
"""

from __future__ import annotations

import torch


def q_loss(q: torch.Tensor, tgt: torch.Tensor, level_weight: float) -> torch.Tensor:
    """Squared error of Q against the targets, split into a relative and a level part.

    Over a decision's labelled actions L, ``sum (q - y)^2 / |L|`` equals the error of the
    *differences* between actions (each centred on its mean over L) plus the error of the
    *mean*. Rollout outcomes of one decision share the same hidden cards, so their
    differences are nearly noise-free while their common level carries all the luck of the
    deal; ``level_weight`` (applied to decisions with several targets) keeps that luck from
    drowning what tells the cards apart. With one target the loss is the plain squared error.
    """
    mask = ~torch.isnan(tgt)
    y = torch.nan_to_num(tgt)
    m = mask.float()
    n = m.sum(1)
    q_bar = (q * m).sum(1) / n
    y_bar = (y * m).sum(1) / n
    rel = ((((q - q_bar[:, None]) - (y - y_bar[:, None])) ** 2) * m).sum(1) / n
    level = (q_bar - y_bar) ** 2
    w = torch.where(n > 1, torch.full_like(n, level_weight), torch.ones_like(n))
    return (rel + w * level).mean()

