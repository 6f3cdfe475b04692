"""Does the learner learn as well in bfloat16? Same minibatches, same start, both formats.

Self-play decisions of the shipped policy fill a buffer (the ``full`` preset's network and
tables, one process); a held-out part is set aside; then a fresh network of the preset's
architecture takes the same sequence of Adam steps once with float32 products and once with
bfloat16 products (``training.dmc.precision``), and the held-out loss (computed in float32) is
printed every ``--every`` steps together with the seconds the steps took. Equal curves and
fewer seconds mean ``precision="bfloat16"`` buys speed and nothing else.

    python -m benchmarks.bench_precision                  # about 5 minutes on 2 cores
    python -m benchmarks.bench_precision --samples 100000 --steps 600
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import torch
from torch import nn


def main() -> None:
    """Fill the buffer, train both ways on the same batches, print the two curves."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--samples", type=int, default=250_000, help="self-play decisions collected")
    p.add_argument("--held-out", type=int, default=20_000)
    p.add_argument("--steps", type=int, default=1500)
    p.add_argument("--every", type=int, default=500)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    torch.set_num_threads(1)
    from agents.policy import QNetwork
    from training.config import make_config
    from training.dmc import DMCTrainer, native_bfloat16, q_loss, q_values

    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()}, "
          f"native bfloat16: {native_bfloat16()}")
    cfg = make_config("full", "dmc", num_actors=0, init_policy="pretrained", eval_deals=0,
                      final_eval_deals=0, seed=args.seed, replay_size=args.samples + 10_000,
                      opponent_mix={"self": 0.7, "snapshot": 0.2, "random": 0.1})
    trainer = DMCTrainer(cfg)
    trainer.cfg.min_replay = cfg.replay_size  # collect only: no step while filling
    while trainer.replay.size < args.samples:
        trainer.run_for(5.0)
    buf = trainer.replay
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(buf.size)
    held, rest = order[:args.held_out], order[args.held_out:]
    held_obs = torch.from_numpy(buf.obs[held]).float() / 255.0
    held_tgt = torch.from_numpy(buf.tgt[held])
    batches = [rest[rng.integers(len(rest), size=cfg.batch_size)] for _ in range(args.steps)]
    for dtype in (torch.float32, torch.bfloat16):
        torch.manual_seed(args.seed + 1)
        net = QNetwork.from_architecture(trainer.net.architecture())
        opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
        spent, curve = 0.0, []
        for i, rows in enumerate(batches, 1):
            obs = torch.from_numpy(buf.obs[rows]).float() / 255.0
            tgt = torch.from_numpy(buf.tgt[rows])
            t0 = time.perf_counter()
            loss = q_loss(q_values(net, obs, dtype), tgt, cfg.rollout_level_weight)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            opt.step()
            spent += time.perf_counter() - t0
            if i % args.every == 0:
                with torch.no_grad():
                    curve.append(float(q_loss(net(held_obs), held_tgt,
                                              cfg.rollout_level_weight)))
        shown = ", ".join(f"{v:.4f}" for v in curve)
        print(f"{str(dtype).split('.')[1]:9s} held-out loss every {args.every} steps: {shown}; "
              f"{spent:.1f} s of steps ({args.steps * cfg.batch_size / spent:,.0f} samples/s)",
              flush=True)


if __name__ == "__main__":
    main()
