"""Positions for the decision diagnostics: seeded hands played out, kept decision by decision.

The latency, decision-regret and inference measurements all start from the same kind of
position, so one function deals and plays them (the same arguments give the same positions).
"""

from __future__ import annotations

import numpy as np

from agents import make_agent
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules


def played_positions(players: str, hands: int, seed: int, searched_only: bool = True,
                     rules: Rules | None = None) -> list[Game]:
    """Return the game at each decision of ``hands`` hands played by ``players`` at every seat.

    The deals come from ``seed``; seat ``k`` of hand ``h`` is built with seed
    ``h * seats + k``, so the same arguments give the same positions. ``searched_only`` keeps
    the play decisions with more than one legal card (the ones a search agent searches). Each
    position is a copy: the seat to move is ``current_player``, the true hands are there too.
    ``rules`` are the table's (the standard rules by default).
    """
    rng = np.random.default_rng(seed)
    out = []
    for h in range(hands):
        g = Game(rules, rng=rng)
        seats = g.rules.players
        agents = [make_agent(players, seed=h * seats + k, rules=g.rules) for k in range(seats)]
        while not g.is_over():
            view = g.view(g.current_player)
            if not searched_only or (view.phase == "play" and len(view.legal_actions) > 1):
                out.append(g.clone())
            g.step(agents[g.current_player].act(view))
    return out
