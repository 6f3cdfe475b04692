"""How well the search's weighted worlds locate the hidden cards, per player-model setting.

At each searched position, worlds are sampled as the search samples them and replayed through
the history; each setting of the player model weights the same worlds, and the weights are
scored against where the hidden cards really are. This isolates the search's inference from
its play, so a player model can be chosen without the noise of whole games.
``benchmarks/bench_inference.py`` is the command around these functions; its docstring
explains the columns.
"""

from __future__ import annotations

import numpy as np

from agents.search import (
    SearchAgent,
    expert_probabilities,
    normalised,
    play_probabilities,
    replay_world,
)
from gongzhu_env.cards import NUM_CARDS, SCORING_MASK
from gongzhu_env.view import PlayerView
from gongzhu_env.worlds import sample_hands
from training.diagnostics.positions import played_positions


def positions(players: str, hands: int, seed: int) -> list[tuple[PlayerView, tuple[int, ...]]]:
    """Each searched decision of ``hands`` hands: the seat's view and the true hand masks."""
    return [(g.view(g.current_player), g.hand_masks)
            for g in played_positions(players, hands, seed)]


def setting_name(model: str, temperature: float, floor: float) -> str:
    """Name a player-model setting as the rows name it (the expert model has no temperature)."""
    if model == "expert":
        return f"model=expert,floor={floor:g}"
    return f"temperature={temperature:g},floor={floor:g}"


def measure(agent: SearchAgent, views: list[tuple[PlayerView, tuple[int, ...]]], worlds: int,
            seed: int, settings: list[tuple[str, float, float]]) -> list[dict[str, float]]:
    """Score the uniform weighting and every player-model setting on the positions."""
    names = ["uniform"] + [setting_name(*st) for st in settings]
    kinds = sorted({m for m, _, _ in settings})
    sums = {n: {"p_true": [], "log_true": [], "p_true_pts": [], "ess": []} for n in names}
    for i, (view, truth) in enumerate(views):
        me = view.seat
        dealt = [sample_hands(view, np.random.default_rng([seed, i, k])) for k in range(worlds)]
        # Every model's trace of the same worlds, flattened to rows tagged with their world.
        rows = {m: [(w, d) for w, hands in enumerate(dealt)
                    for d in replay_world(view, hands, m)[1]] for m in kinds}
        unseen = [c for c in range(NUM_CARDS) if any(truth[s] >> c & 1 for s in range(len(truth))
                                              if s != me)]
        holder = {c: next(s for s in range(len(truth)) if truth[s] >> c & 1) for c in unseen}
        # hit[w, j]: world w puts unseen card j with its true holder.
        hit = np.array([[hands[holder[c]][0] >> c & 1 for c in unseen] for hands in dealt],
                       dtype=np.float64)
        scoring = np.array([SCORING_MASK >> c & 1 for c in unseen], dtype=bool)
        q = None
        if rows.get("net"):
            q = agent.scores([d.obs for _, d in rows["net"]])
        for n in names:
            logw = np.zeros(worlds)
            if n != "uniform":
                model, t, f = settings[names.index(n) - 1]
                r = rows[model]
                if r:
                    taken = np.array([d.action for _, d in r])
                    if model == "expert":
                        p = expert_probabilities(np.array([d.expert for _, d in r]), taken,
                                                 np.array([d.legal for _, d in r]), f)
                    else:
                        p = play_probabilities(q, np.stack([d.mask for _, d in r]), taken, t, f)
                    np.add.at(logw, np.array([w for w, _ in r]), np.log(p))
            w = normalised(logw)
            p = w @ hit
            sums[n]["p_true"].append(p.mean())
            sums[n]["log_true"].append(np.log(np.maximum(p, 0.1 / worlds)).mean())
            if scoring.any():
                sums[n]["p_true_pts"].append(p[scoring].mean())
            sums[n]["ess"].append(1.0 / float(w @ w))
    return [{"setting": n, **{k: round(float(np.mean(v)), 4) for k, v in sums[n].items()}}
            for n in names]
