"""Who may still hold each unseen card: per-seat holder features computed from the observation.

Losing a hand to the pig is usually a question of *who* still has it and who can still be made
to win a spade trick. The observation states the raw facts (cards seen, suits each seat has
shown it is out of, cards exposed in the declaration and not yet played) but combining them,
card by card and seat by seat, is an AND across three blocks of the vector that a plain MLP
has to learn for each of the 52 cards separately. ``HolderFeatures`` does it in a few fixed
tensor operations, for the other seats in relative order (at four seats: left, across, right;
at a table of ``n``: the ``n - 1`` others in turn order, ``HolderFeatures(players=n)``):

===========  ================================================================================
name         meaning for seat ``j`` and card ``c``
===========  ================================================================================
may_hold     ``c`` is unseen, ``j`` has not shown a void in its suit, and no *other* seat
             exposed it (an exposed card not yet played is known to be in its exposer's hand)
holds        ``j`` is the only seat that may hold ``c``: its holder is known
===========  ================================================================================

Like ``agents.card_features`` nothing here is learnt or stored; it follows from the vector, so
the environment's observation stays the single source of truth. A card the smaller deck of a
table of ``n`` leaves out is held by nobody. Both rules hold for every
legal game: the seat that really holds a card always "may hold" it (a test checks this on
played games), so ``holds`` is never wrong.
"""

from __future__ import annotations

import torch
from torch import nn

from agents.card_features import deck_row, seat_slices, unseen_cards
from gongzhu_env.cards import EXPOSABLE, NUM_CARDS, NUM_RANKS

BLOCK_NAMES = ("may_hold", "holds")
OTHER_SEATS = 3
"""Other seats at the standard table of four."""


def num_holder_features(players: int = 4) -> int:
    """Length of the holder features at a table of ``players`` seats (two blocks per other)."""
    return len(BLOCK_NAMES) * (players - 1) * NUM_CARDS


NUM_HOLDER_FEATURES = num_holder_features(4)


class HolderFeatures(nn.Module):
    """Map observations to ``(batch, num_holder_features(players))``.

    Layout: ``may_hold`` for relative seats 1 .. players - 1 (52 each), then ``holds`` likewise.
    """

    # The constant tables registered as buffers in __init__ (declared for type checkers).
    exposable: torch.Tensor
    deck: torch.Tensor

    def __init__(self, players: int = 4) -> None:
        super().__init__()
        self.slices = seat_slices(players)  # refuses a table size the rules do not have
        self.players = players
        exposable = torch.zeros(len(EXPOSABLE), NUM_CARDS)
        for i, card in enumerate(EXPOSABLE):
            exposable[i, card] = 1.0
        # Constant table (exposure slot -> card), not a weight: kept out of the state dict.
        self.register_buffer("exposable", exposable, persistent=False)
        self.register_buffer("deck", deck_row(players), persistent=False)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Compute both blocks for a batch (see the module docstring)."""
        b = obs.shape[0]
        n = self.players
        unseen = unseen_cards(obs, n, self.deck)
        voids = obs[:, self.slices["voids"]].reshape(b, n, 4)[:, 1:, :]
        void_cards = voids.repeat_interleave(NUM_RANKS, dim=2)
        exposed = obs[:, self.slices["exposed"]].reshape(b, n, len(EXPOSABLE)) @ self.exposable
        shown = exposed * unseen[:, None, :]  # exposed and still in the exposer's hand
        may = unseen[:, None, :] * (1.0 - void_cards)
        may = may * (1.0 - shown.sum(1, keepdim=True)).clamp(0.0, 1.0) + shown[:, 1:, :]
        holds = may * (may.sum(1, keepdim=True) < 1.5).float()
        return torch.cat([may.reshape(b, -1), holds.reshape(b, -1)], dim=1)


__all__ = ["BLOCK_NAMES", "HolderFeatures", "NUM_HOLDER_FEATURES", "num_holder_features"]
