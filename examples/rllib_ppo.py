"""RLlib's PPO on the PettingZoo env: one masked policy for the four seats, ranked in our arena.

    python examples/rllib_ppo.py --iterations 20 --out runs/rllib-example

The env is ``gongzhu_env.env()`` under RLlib's ``PettingZooEnv`` wrapper (zero-sum rewards,
scaled by 400); every seat maps to one shared policy whose logits are masked by the
observation's ``action_mask`` (``training.rllib_module.MaskedPPOModule``), built by
``training.rllib_example.ppo_config``. The loop below is RLlib's own (``algo.train()``); after
it the actor is copied into this project's policy format, so ``policy:OUT/policy.pt`` plays in
the arena, ``gongzhu play`` and everywhere a policy file goes.

Ray starts a private instance on this machine, bound to 127.0.0.1 (``training.cluster``);
``--address HOST:PORT`` joins a cluster instead. A demonstration of the plumbing, not a
contender: the documentation's "On a Ray cluster" page has what ten minutes of it reach.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from agents import make_agent
from gongzhu_env import Rules
from training.arena import against, markdown_table
from training.cluster import connect
from training.rllib_example import POLICY_ID, export_policy, ppo_config


def main(argv: list[str] | None = None) -> int:
    """Train PPO for ``--iterations``, export the policy, rank it against random and greedy."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=20, help="PPO iterations (algo.train())")
    p.add_argument("--batch-size", type=int, default=4096, help="env steps per iteration")
    p.add_argument("--minibatch-size", type=int, default=512, help="SGD minibatch")
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256], help="layer widths")
    p.add_argument("--envs", type=int, default=8, help="envs stepped by the local runner")
    p.add_argument("--seed", type=int, default=0, help="seed of RLlib and of the arena")
    p.add_argument("--deals", type=int, default=300, help="arena deals per opponent")
    p.add_argument("--out", default="runs/rllib-example", help="where the policy file goes")
    p.add_argument("--address", default=None, help="a Ray cluster to join (HOST:PORT)")
    args = p.parse_args(argv)

    torch.set_num_threads(1)
    ray, started = connect(args.address)
    try:
        config = ppo_config(tuple(args.hidden), seed=args.seed, env_runners=0,
                            envs_per_runner=args.envs, batch_size=args.batch_size,
                            minibatch_size=min(args.minibatch_size, args.batch_size))
        algo = config.build_algo()
        for i in range(1, args.iterations + 1):
            result = algo.train()
            runners = result.get("env_runners", {})
            steps = int(runners.get("num_env_steps_sampled_lifetime", 0))
            episodes = int(runners.get("num_episodes_lifetime", 0))
            print(f"iteration {i}: env steps {steps:,}  episodes {episodes:,}")
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        policy = export_policy(algo.get_module(POLICY_ID), out / "policy.pt", Rules(),
                               {"iterations": args.iterations, "seed": args.seed})
        algo.stop()
    finally:
        if started:
            ray.shutdown()
    print(f"policy: {policy}")

    mine = make_agent(f"policy:{policy}", seed=args.seed)
    results = against(mine, ["random", "greedy"], args.deals, seed=args.seed)
    print(markdown_table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
