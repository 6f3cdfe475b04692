"""Decision quality of agents on the same positions, judged in the real deal.

Whole-game matches need thousands of deals to separate two close search settings, because the
luck of the cards and of every later decision dwarfs one decision's worth. These functions take
the later luck out: every legal card of a position is *judged* by playing it in the real deal
and letting a judge agent finish the hand at every seat, each seat from its own view (so the
judge does not cheat either). ``benchmarks/bench_decisions.py`` is the command around them; its
docstring says how to read its rows.
"""

from __future__ import annotations

import numpy as np

from agents import make_agent
from agents.knowledge import Situation
from agents.pimc import card_runs, objective
from gongzhu_env.engine import Game
from gongzhu_env.view import PlayerView
from training.diagnostics.positions import played_positions


def positions(players: str, hands: int, seed: int, every: int) -> list[tuple[Game, PlayerView]]:
    """Every ``every``-th play decision with a choice in ``hands`` hands of ``players``."""
    return [(g, g.view(g.current_player))
            for g in played_positions(players, hands, seed)[::every]]


def judge(game: Game, card: int, spec: str, seed: int) -> float:
    """Return the deciding seat's zero-sum points when ``card`` is played and ``spec`` finishes."""
    me = game.current_player
    g = game.clone()
    g.step(card)
    seats = g.rules.players
    agents = [make_agent(spec, seed=seed * seats + s) for s in range(seats)]
    for s, a in enumerate(agents):
        a.reset(s, g.rules)
    while not g.is_over():
        legal = g.legal_mask()
        g.step(legal.bit_length() - 1 if legal & (legal - 1) == 0 else
               agents[g.current_player].act(g.view(g.current_player)))
    teams = len(g.teams) if g.teams else 0
    return float(objective(g.scores(), me, (me, *g.partners(me)), True, teams))


def run(specs: list[str], judges: list[str], pos: list[tuple[Game, PlayerView]],
        seed: int) -> list[dict]:
    """Decide every position with every spec and judge the choices; one row per spec/judge."""
    choices: dict[str, list[int]] = {}
    for spec in specs:
        agent = make_agent(spec, seed=seed)
        choices[spec] = [agent.act(view) for _, view in pos]
        close = getattr(agent, "close", None)
        if close:
            close()
    # Equivalent cards are worth the same: judge one card of each run.
    runs = [card_runs(view.legal_actions, Situation.from_view(view).unseen) for _, view in pos]
    run_of = [{c: k for k, run_ in enumerate(r) for c in run_} for r in runs]
    rows = []
    for j in judges:
        worth: list[dict[int, float]] = []
        for i, (game, _) in enumerate(pos):
            values = {}
            for run_ in runs[i]:
                v = judge(game, run_[-1], j, seed + i)
                values.update({c: v for c in run_})
            worth.append(values)
        best = np.array([max(w.values()) for w in worth])
        first = np.array([w[c] for w, c in zip(worth, choices[specs[0]], strict=True)])
        for spec in specs:
            got = np.array([w[c] for w, c in zip(worth, choices[spec], strict=True)])
            diff = first - got
            same = np.mean([r[a] == r[b] for r, a, b in
                            zip(run_of, choices[spec], choices[specs[0]], strict=True)])
            rows.append({"spec": spec, "judge": j, "positions": len(pos),
                         "regret": round(float((best - got).mean()), 3),
                         "first_minus_spec": round(float(diff.mean()), 3),
                         "se": round(float(diff.std(ddof=1) / np.sqrt(len(diff))), 3)
                         if len(diff) > 1 else 0.0,
                         "agreement": round(float(same), 3)})
    return rows
