"""Decision quality of agents on the same positions, judged in the real deal.

Run from the repository root::

    python -m benchmarks.bench_decisions --specs search,pimc,policy:pretrained --hands 40

Whole-game matches need thousands of deals to separate two close search settings, because the
luck of the cards and of every later decision dwarfs one decision's worth. This benchmark
takes the later luck out. Hands are played by ``--players`` at every seat (seeded); every
play decision with more than one legal card (every ``--every``-th) is a position. Each spec
decides each position once. Every legal card of the position is then *judged*: played in the
real deal (the cards the deciding seat could not see are where they really are) and the hand
finished by a ``--judges`` agent at every seat, each from its own view, so the judge does not
cheat either. A card's worth is the deciding seat's zero-sum result in points (its score minus
the others' average); a choice's regret is the best card's worth minus its own.

Two different judges guard against rewarding a spec for thinking like its judge (``pimc``
values cards by ``expert`` rollouts; ``search`` by the network). Reported per spec and judge:
the mean regret, and against the first spec the mean paired difference with its standard
error over positions (positive: the first spec's choices were worth more). Agreement is the
share of positions where a spec chose the first spec's card (or an equivalent one).

This measures single decisions against a fixed continuation, not play strength; use it to
compare settings of one search cheaply, then confirm in the arena
(``python -m training eval``).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from agents import make_agent
from agents.knowledge import Situation
from agents.pimc import card_runs, objective
from benchmarks.positions import played_positions
from benchmarks.report import check_arguments, save_rows, start_one_thread
from gongzhu_env.engine import Game
from gongzhu_env.view import PlayerView
from training.arena.cli import split_specs


def positions(players: str, hands: int, seed: int, every: int) -> list[tuple[Game, PlayerView]]:
    """Every ``every``-th play decision with a choice in ``hands`` hands of ``players``."""
    return [(g, g.view(g.current_player))
            for g in played_positions(players, hands, seed)[::every]]


def judge(game: Game, card: int, spec: str, seed: int) -> float:
    """The deciding seat's zero-sum points when ``card`` is played and ``spec`` finishes."""
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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--specs", default="search,pimc,policy:pretrained",
                   help="comma-separated agent specs to compare (the first is the reference)")
    p.add_argument("--judges", default="expert,policy:pretrained",
                   help="comma-separated agent specs that finish the hands")
    p.add_argument("--players", default="pimc", help="agent spec playing the positions' hands")
    p.add_argument("--hands", type=int, default=40)
    p.add_argument("--every", type=int, default=2, help="keep every k-th position")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="also write the rows to this file")
    args = p.parse_args(argv)
    check_arguments(p, args, {"hands": 10_000, "every": 1_000})
    start_one_thread()
    pos = positions(args.players, args.hands, args.seed, args.every)
    rows = run(split_specs([args.specs]), split_specs([args.judges]), pos, args.seed)
    for r in rows:
        print(f"{r['spec']:>36}  judge {r['judge']:>18}  {r['positions']} positions  regret "
              f"{r['regret']:7.2f}  first-spec {r['first_minus_spec']:+7.2f} ± {r['se']:.2f}  "
              f"agreement {r['agreement']:.3f}", flush=True)
    save_rows(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
