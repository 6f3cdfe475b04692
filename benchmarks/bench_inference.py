"""How well the search's weighted worlds locate the hidden cards, per player-model setting.

Run from the repository root::

    python -m benchmarks.bench_inference --players pimc --hands 40 --worlds 64 --seed 0

Hands are played by ``--players`` at every seat (seeded); at every play decision with more
than one legal card (the decisions the ``search`` agent searches), the seat's view is kept with
the true hands. For each such position ``--worlds`` worlds are sampled as the search samples
them (``gongzhu_env.worlds.sample_hands``, world ``k`` from ``(seed, position, k)``) and replayed
through the history (``agents.search.replay_world``); the network scores every observed
decision of the other seats once, and each setting of the player model weights the same
worlds: the network at a ``temperature`` with a ``floor`` (``agents.search.play_probabilities``)
or the expert with a ``floor`` (``agents.search.expert_probabilities``).

Reported per setting, over every unseen card of every position:

``p_true``      the weighted probability that the card is where it really is (mean);
``log_true``    the mean log of that probability (a card no world places right counts as the
                smallest weight a world can have, ``1 / worlds`` of a uniform weighting
                times 0.1, so that one miss does not make the mean infinite);
``p_true_pts``  ``p_true`` over the scoring cards only (hearts, SQ, DJ, C10);
``ess``         the effective number of worlds, ``1 / sum(w^2)`` (mean over positions).

``uniform`` is the sampler alone (every world weight equal): a setting beats it when the
observed plays moved probability toward the truth. The numbers are about inference only, not
about play strength; they choose the player model without the noise of whole games.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from agents.pimc import MAX_WORLDS
from agents.search import (
    MODELS,
    SearchAgent,
    expert_probabilities,
    normalised,
    play_probabilities,
    replay_world,
)
from benchmarks.positions import played_positions
from benchmarks.report import check_arguments, save_rows, start_one_thread
from gongzhu_env.cards import NUM_CARDS, SCORING_MASK
from gongzhu_env.view import PlayerView
from gongzhu_env.worlds import sample_hands


def positions(players: str, hands: int, seed: int) -> list[tuple[PlayerView, tuple[int, ...]]]:
    """Each searched decision of ``hands`` hands: the seat's view and the true hand masks."""
    return [(g.view(g.current_player), g.hand_masks)
            for g in played_positions(players, hands, seed)]


def parse_settings(text: str) -> list[tuple[str, float, float]]:
    """``"1:0.1,expert:0.3"`` -> [(model, temperature, floor), ...].

    ``T:F`` is the network model at temperature ``T`` with floor ``F``; ``expert:F`` the
    expert model with floor ``F`` (its temperature is unused).
    """
    out = []
    for item in text.split(","):
        a, _, f = item.partition(":")
        try:
            if a == "expert":
                out.append(("expert", 1.0, float(f or MODELS["expert"])))
            else:
                out.append(("net", float(a), float(f or MODELS["net"])))
        except ValueError:
            raise SystemExit(f"--settings: expected temperature:floor or expert:floor items "
                             f"such as '0.3:0.1' or 'expert:0.3'; got {item!r}") from None
    return out


def setting_name(model: str, temperature: float, floor: float) -> str:
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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", default="pimc", help="agent spec playing every seat")
    p.add_argument("--hands", type=int, default=40)
    p.add_argument("--worlds", type=int, default=64)
    p.add_argument("--every", type=int, default=3, help="keep every k-th position")
    p.add_argument("--settings", default="1:0.1,0.3:0.1,0.1:0.5,expert:0.1,expert:0.3",
                   help="player models: temperature:floor (the network) or expert:floor")
    p.add_argument("--net", default="pretrained", help="the search's network")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="also write the rows to this file")
    args = p.parse_args(argv)
    check_arguments(p, args, {"hands": 10_000, "worlds": MAX_WORLDS, "every": 1_000})
    start_one_thread()
    views = positions(args.players, args.hands, args.seed)[::args.every]
    agent = SearchAgent(net=args.net)
    rows = measure(agent, views, args.worlds, args.seed, parse_settings(args.settings))
    print(f"{len(views)} positions, {args.worlds} worlds each, players {args.players}")
    for r in rows:
        print(f"{r['setting']:>28}  p_true {r['p_true']:.4f}  log_true {r['log_true']:.4f}  "
              f"p_true_pts {r['p_true_pts']:.4f}  ess {r['ess']:.1f}", flush=True)
    save_rows(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
