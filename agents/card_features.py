"""Per-card trick features a Q-network can compute from the observation vector by itself.

The observation (``gongzhu_env.view``) holds raw facts: the hand, every card played, the trick
in progress. Whether a card would win the trick now, or whether any card that could beat it is
still out, are *comparisons* between those facts (which of the 52 cards is higher in its suit,
which is unseen), and a plain MLP needs many samples to discover each of them for each card.
``CardFeatures`` works them out in a few fixed matrix products, card by card, and a
``QNetwork(card_features=True)`` reads them next to the observation. Nothing here is learnt
and nothing is stored in a policy file but the flag: the features follow from the observation
exactly, so the environment's observation stays the single source of truth.

Feature blocks, 52 values each, in canonical card order:

===============  ===============================================================================
name             meaning for card ``c``
===============  ===============================================================================
unseen           ``c`` is in another seat's hand (not ours, not played)
higher_unseen    unseen cards of ``c``'s suit ranked above it, / 12
lower_unseen     unseen cards of ``c``'s suit ranked below it, / 12
higher_own       our cards of ``c``'s suit ranked above it, / 12
suit_unseen      unseen cards of ``c``'s suit, / 13
top_unseen       no unseen card of ``c``'s suit is above it (it cannot be beaten in its suit)
follows          ``c`` is of the suit led to the trick in progress
wins_now         ``c`` follows and beats every card played to the trick so far
wins_surely      ``c`` wins now and either we play last or no unseen card of the suit beats it
leads_top        we lead and ``c`` is the highest card still out in its suit
===============  ===============================================================================

With two decks (``CardFeatures(two_decks=True)``, which ``QNetwork`` picks for a network of
105 actions) the same blocks count *copies*: the observation's ``*_twice`` blocks are added to
the one-deck ones, ``unseen`` is the share of ``c``'s two copies in other hands, the rank
counts are divided by twice as many copies, and a trick led with a pair counts plays, not
cards, to know who plays last. An identical card already in the trick beats ``c`` (the
earlier of equal plays wins), which the one-deck comparison already says.

Table sizes: ``CardFeatures(players=n)`` reads the observation of an ``n``-seat table (its
per-seat blocks have ``n`` rows) and gives the same ten blocks of 52. A card the smaller deck
leaves out (``Rules(players=n).deck_mask``) is never unseen, and "we play last" means ``n - 1``
seats have played. The rank counts keep their divisors (12 and 13, a full suit), so a value
means the same number of cards at every table size. Two decks are four seats only.
"""

from __future__ import annotations

import torch
from torch import nn

from gongzhu_env.cards import NUM_CARDS, NUM_RANKS
from gongzhu_env.rules import Rules
from gongzhu_env.view import SLICES, layout

FEATURE_NAMES = ("unseen", "higher_unseen", "lower_unseen", "higher_own", "suit_unseen",
                 "top_unseen", "follows", "wins_now", "wins_surely", "leads_top")
NUM_FEATURES = len(FEATURE_NAMES) * NUM_CARDS
_SUITS = NUM_CARDS // NUM_RANKS


def _block_slices(rules: Rules) -> dict[str, slice]:
    """Where each block of ``rules``' observation lies (``gongzhu_env.view.layout``)."""
    out, start = {}, 0
    for name, shape, _ in layout(rules):
        size = 1
        for n in shape:
            size *= n
        out[name] = slice(start, start + size)
        start += size
    return out


# The two-deck blocks come first after the one-deck ones in every two-deck layout.
_TWICE = _block_slices(Rules(decks=2))
_SEAT_SLICES: dict[int, dict[str, slice]] = {4: dict(SLICES)}


def seat_slices(players: int = 4) -> dict[str, slice]:
    """Return where the base blocks lie at a one-deck table of ``players`` seats (memoised).

    Raises ``ValueError`` naming the allowed sizes for a table size the rules do not have.
    """
    out = _SEAT_SLICES.get(players)
    if out is None:
        if type(players) is not int or not 3 <= players <= 8:
            raise ValueError(f"card features are defined for tables of 3 to 8 seats; got "
                             f"players={players!r}")
        out = _SEAT_SLICES[players] = _block_slices(Rules(players=players))
    return out


def deck_row(players: int = 4) -> torch.Tensor:
    """``(52,)``: 1 for each card in play at a one-deck table of ``players`` seats."""
    deck = Rules(players=players).deck_mask
    return torch.tensor([float(deck >> c & 1) for c in range(NUM_CARDS)])


def _suit_matrices() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Return the constant card-comparison tables ``above``, ``below`` and ``same``.

    ``above[i, j]``: card i is of j's suit and ranked above it; ``below`` likewise;
    ``same[i, j]``: same suit. A card mask times one of them counts, for every card, the
    cards of the mask in that relation to it.
    """
    idx = torch.arange(NUM_CARDS)
    suit, rank = idx // NUM_RANKS, idx % NUM_RANKS
    same = (suit[:, None] == suit[None, :]).float()
    above = same * (rank[:, None] > rank[None, :]).float()
    below = same * (rank[:, None] < rank[None, :]).float()
    return above, below, same


def unseen_cards(obs: torch.Tensor, players: int = 4,
                 deck: torch.Tensor | None = None) -> torch.Tensor:
    """``(batch, 52)``: 1 for each card in another seat's hand (neither ours nor played).

    ``players``: the table size the observation is of. Away from four seats the cards left out
    of the deck are in nobody's hand; ``deck`` (``deck_row(players)``) may be passed to save
    building it.
    """
    b = obs.shape[0]
    sl = seat_slices(players)
    hand = obs[:, sl["hand"]]
    played = obs[:, sl["played"]].reshape(b, players, NUM_CARDS).sum(1)
    in_trick = obs[:, sl["trick_cards"]].reshape(b, players, NUM_CARDS).sum(1)
    unseen = (1.0 - hand - torch.clamp(played + in_trick, max=1.0)).clamp(0.0, 1.0)
    if players == 4:
        return unseen
    return unseen * (deck_row(players).to(obs) if deck is None else deck)


class CardFeatures(nn.Module):
    """Map observations to ``(batch, NUM_FEATURES)`` per-card features.

    The observations are those of a table of ``players`` seats (at least ``obs_size`` of that
    table's rules wide: 600 at four seats); ``two_decks`` only at four.
    """

    # The constant tables registered as buffers in __init__ (declared for type checkers, to
    # which a module attribute is otherwise a Tensor or a Module).
    above: torch.Tensor
    below: torch.Tensor
    same: torch.Tensor
    deck: torch.Tensor

    def __init__(self, two_decks: bool = False, players: int = 4) -> None:
        super().__init__()
        self.two_decks = bool(two_decks)
        if self.two_decks and players != 4:
            raise ValueError(f"two-deck card features are for four seats (two decks are played "
                             f"by four); got players={players!r}")
        self.slices = seat_slices(players)
        self.players = players
        self.copies = 2.0 if self.two_decks else 1.0
        above, below, same = _suit_matrices()
        # Constant tables, not weights: kept out of the state dict (persistent=False).
        self.register_buffer("above", above, persistent=False)
        self.register_buffer("below", below, persistent=False)
        self.register_buffer("same", same, persistent=False)
        self.register_buffer("deck", deck_row(players), persistent=False)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Compute every feature block (see the module docstring) for a batch."""
        b = obs.shape[0]
        n = self.players
        sl = self.slices
        hand = obs[:, sl["hand"]]
        trick = obs[:, sl["trick_cards"]].reshape(b, n, NUM_CARDS)
        plays_per_seat: torch.Tensor | float = 1.0
        if self.two_decks:
            hand = hand + obs[:, _TWICE["hand_twice"]]
            trick = trick + obs[:, _TWICE["trick_twice"]].reshape(b, 4, NUM_CARDS)
            plays_per_seat = 1.0 + obs[:, _TWICE["pair_lead"]]
            unseen = unseen_copies(obs)
        else:
            unseen = unseen_cards(obs, n, self.deck)
        copies = self.copies
        in_trick = trick.sum(1)
        higher_unseen = unseen @ self.above
        lower_unseen = unseen @ self.below
        higher_own = hand @ self.above
        suit_unseen = unseen @ self.same
        top_unseen = (higher_unseen < 0.5).float()
        # The led card is the trick leader's card; its suit is the suit every card follows.
        leader = obs[:, sl["trick_leader"]]
        led = torch.einsum("br,brc->bc", leader, trick)
        led_suit = led.reshape(b, _SUITS, NUM_RANKS).sum(-1).clamp(max=1.0)
        follows = led_suit.repeat_interleave(NUM_RANKS, dim=1)
        present = in_trick.clamp(max=1.0)
        wins_now = follows * (1.0 - present) * ((present @ self.above) < 0.5).float()
        # Seats that have played to the trick (a seat plays two cards to a pair lead).
        n_played = in_trick.sum(1, keepdim=True) / plays_per_seat
        last = (n_played > n - 1.5).float()  # every other seat has played
        wins_surely = wins_now * torch.clamp(last + top_unseen, max=1.0)
        to_play = obs[:, sl["to_move"]][:, :1] * obs[:, sl["phase"]][:, 1:2]
        leading = (n_played < 0.5).float() * to_play
        leads_top = leading * top_unseen * hand
        leads_top = leads_top.clamp(max=1.0)
        return torch.cat([unseen / copies, higher_unseen / (12.0 * copies),
                          lower_unseen / (12.0 * copies), higher_own / (12.0 * copies),
                          suit_unseen / (13.0 * copies), top_unseen, follows, wins_now,
                          wins_surely, leads_top], dim=1)


def unseen_copies(obs: torch.Tensor) -> torch.Tensor:
    """Two decks: ``(batch, 52)`` copies (0, 1, 2) of each card in other seats' hands.

    The ``played`` blocks already hold the cards of the trick in progress.
    """
    b = obs.shape[0]
    held = obs[:, SLICES["hand"]] + obs[:, _TWICE["hand_twice"]]
    played = (obs[:, SLICES["played"]] + obs[:, _TWICE["played_twice"]]).reshape(
        b, 4, NUM_CARDS).sum(1)
    return (2.0 - held - played).clamp(0.0, 2.0)


__all__ = ["CardFeatures", "FEATURE_NAMES", "NUM_FEATURES", "deck_row", "seat_slices",
           "unseen_cards", "unseen_copies"]
