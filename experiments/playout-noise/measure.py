"""How much of a play-out label is the players' luck: label the same hands twice, apart seeds.

``python -m training labels --values playout`` values each candidate card by finishing the real
deal with the table's players. Two labellings of the same hands reach the same positions (the
real hand's players have their own seeds) and differ only in the play-outs' seeds, so the
correlation of their card values, centred per row, is the share of a label's spread between
cards that is the deal's and the cards', not the play-out players' randomness.

    python experiments/playout-noise/measure.py --hands 12 --playouts 1
    python experiments/playout-noise/measure.py --hands 12 --playouts 4
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor

import numpy as np

import training.expert_iteration.labels as labels
from gongzhu_env.rules import Rules

_PLAYOUT_SEED = labels.playout_seed


def _label(job: tuple[int, int, int, int]) -> list[np.ndarray]:
    """Label one hand with the play-out seeds of ``family`` (a worker process of its own)."""
    seed, hand, playouts, family = job
    # Only the play-outs' seeds move; the hand, its players and the positions stay.
    labels.playout_seed = lambda s, d: _PLAYOUT_SEED(s + family, d)
    return labels.label_hand("search", Rules(), seed, hand, others="pimc",
                             player="policy:pretrained", values="playout", playouts=playouts)[1]


def centred(rows: np.ndarray) -> np.ndarray:
    """Each row's valued cards minus the row's mean: what tells the cards apart."""
    return (rows - np.nanmean(rows, axis=1, keepdims=True))[~np.isnan(rows)]


def main() -> None:
    """Print the agreement of two labellings of ``--hands`` hands."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--hands", type=int, default=12)
    p.add_argument("--playouts", type=int, default=1)
    p.add_argument("--seed", type=int, default=7001, help="the label set's seed (runs/po-pimc)")
    args = p.parse_args()
    with ProcessPoolExecutor(2) as pool:
        twice = [np.array([row for rows in pool.map(
            _label, [(args.seed, h, args.playouts, family) for h in range(args.hands)])
            for row in rows]) for family in (11, 22)]
    a, b = twice
    print(f"playouts={args.playouts}, {len(a)} rows of {args.hands} hands: centred card values "
          f"of two seed families correlate {np.corrcoef(centred(a), centred(b))[0, 1]:.2f}; "
          f"mean spread between cards {np.nanstd(a, axis=1).mean():.3f} and "
          f"{np.nanstd(b, axis=1).mean():.3f}")


if __name__ == "__main__":
    main()
