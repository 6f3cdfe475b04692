"""How much of a search label is the search's own luck: value the same positions twice.

The labelled seat is played by the shipped network beside three ``pimc`` (``runs/own-pimc``'s
table), so two labellings with different search seeds meet the same positions and differ only
in the worlds the search samples. Printed: how the two labellings' card values agree, and the
regret (``regret.py``) under one labelling of the other's choices beside the network's, which
says how much of the network's regret is the labels' noise floor.

python experiments/label-regret/noise.py --hands 40
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from regret import UNIT, choices_regret, network_q, unpacked  # type: ignore[import-not-found]

import training.expert_iteration.labels as labels
from agents.policy import load_policy_file
from gongzhu_env.rules import Rules

_SEARCH_AGENT = labels.search_agent


def _label(job: tuple[int, int, int]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Label one hand with the search reseeded by ``family`` (a worker process of its own)."""
    seed, hand, family = job

    def shifted(spec: str, rules: Rules):  # type: ignore[no-untyped-def]
        agent = _SEARCH_AGENT(spec, rules)
        reseed = agent.reseed
        agent.reseed = lambda s: reseed(s + family)  # type: ignore[method-assign]
        return agent

    labels.search_agent = shifted
    return labels.label_hand("search", Rules(), seed, hand, others="pimc",
                             player="policy:pretrained")


def main() -> None:
    """Print the agreement of two search labellings of ``--hands`` hands."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--hands", type=int, default=40)
    p.add_argument("--seed", type=int, default=6001, help="the label set's seed (runs/own-pimc)")
    args = p.parse_args()
    out = []
    with ProcessPoolExecutor(2) as pool:
        for family in (11, 22):
            got = list(pool.map(_label, [(args.seed, h, family) for h in range(args.hands)]))
            out.append((np.array([o for g in got for o in g[0]]),
                        np.array([t for g in got for t in g[1]])))
    (obs, a), (obs_b, b) = out
    assert np.array_equal(obs, obs_b), "the two labellings met different positions"
    valued = ~np.isnan(a)

    def centred(rows: np.ndarray) -> np.ndarray:
        return (rows - np.nanmean(rows, axis=1, keepdims=True))[valued]

    net, _ = load_policy_file("pretrained")
    q = network_q(net, unpacked(obs))
    print(f"{len(a)} rows of {args.hands} hands: centred card values of two search seeds "
          f"correlate {np.corrcoef(centred(a), centred(b))[0, 1]:.2f}")
    for name, pick in (("the other labelling's", np.where(valued, a, np.nan)),
                       ("the network's", q)):
        for under, rows in (("b", b), ("a", a)):
            if name.startswith("the other") and under == "a":
                continue
            agree, regret = choices_regret(np.nan_to_num(pick, nan=-np.inf), rows)
            print(f"  {name} choices under labelling {under}: best card {agree.mean():.1%}, "
                  f"regret {regret.mean() * UNIT:.2f} points a decision")


if __name__ == "__main__":
    main()
