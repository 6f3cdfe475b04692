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

from agents.pimc import MAX_WORLDS
from agents.search import MODELS, SearchAgent
from benchmarks.report import check_arguments, save_rows, start_one_thread
from training.diagnostics.inference import measure, positions


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
