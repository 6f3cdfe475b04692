"""Compare label sets: spread between a row's cards, and agreement with the shipped network.

python experiments/playout-noise/sets.py runs/po-pimc runs/own-pimc
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch

from agents.policy import load_policy_file


def main() -> None:
    """Print, per set, the spreads (whole set) and the correlations (first ``--chunks``)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("sets", nargs="+", type=Path)
    p.add_argument("--chunks", type=int, default=40, help="chunks compared with the network")
    args = p.parse_args()
    net, _ = load_policy_file("pretrained")
    for root in args.sets:
        files = sorted(root.glob("chunk-*.npz"))
        tgt = np.concatenate([np.load(f)["tgt"] for f in files])
        spread = np.nanstd(tgt, axis=1)
        some = [np.load(f) for f in files[:args.chunks]]
        t = np.concatenate([d["tgt"] for d in some])
        obs = np.concatenate([d["obs"] for d in some]).astype(np.float32) / 255.0
        with torch.no_grad():
            q = net(torch.from_numpy(obs)).numpy()
        valued = ~np.isnan(t)
        q = np.where(valued, q, np.nan)
        level_t, level_q = np.nanmean(t, axis=1), np.nanmean(q, axis=1)
        cards = np.corrcoef((t - level_t[:, None])[valued], (q - level_q[:, None])[valued])[0, 1]
        print(f"{root}: {len(tgt)} rows, spread between cards {spread.mean():.3f}, every card "
              f"equal in {np.mean(spread < 1e-9):.0%}; first {len(t)} rows against the "
              f"network: levels {np.corrcoef(level_t, level_q)[0, 1]:.2f}, "
              f"centred cards {cards:.2f}")


if __name__ == "__main__":
    main()
