"""Train MaskablePPO (sb3-contrib) on the single-seat env, then measure it in the arena.

    python examples/train_maskable_ppo.py --timesteps 200000 --deals 500

``gongzhu_env.wrappers.SingleSeatEnv`` is a plain ``gymnasium.Env``: the learner holds one seat
(drawn each hand), the other seats are played inside ``step`` by opponents from a pool, and
``action_masks()`` is what ``MaskablePPO`` reads. Nothing here is specific to this project's
trainers: any single-agent library takes the env the same way. ``gongzhu train --trainer sb3``
is the full recipe (snapshots of the learner join the pool, checkpoints, evaluations, resume).

The trained policy then sits at an arena table through a small ``Agent`` adapter: the arena
gives it the ``PlayerView`` of its seat, and ``view.encode()`` is exactly the observation the
env gave it during training.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from agents import Agent, make_agent
from gongzhu_env.view import PlayerView
from gongzhu_env.wrappers import SingleSeatEnv
from training.arena import against, markdown_table


class MaskablePPOAgent(Agent):
    """A trained ``MaskablePPO`` model as an arena player (greedy: the most likely legal action)."""

    name = "maskable_ppo"

    def __init__(self, model: MaskablePPO, seed: int | None = None) -> None:
        super().__init__(seed)
        self.policy = model.policy.eval()  # only the network: the env and buffers stay behind

    def __deepcopy__(self, memo: dict[int, object]) -> MaskablePPOAgent:
        """Copy for another seat, sharing the network: playing never changes it.

        The arena copies each agent once per seat; a torch module holding tensors from its
        last forward pass cannot be deep-copied, and a copy of the weights would be waste.
        """
        twin = MaskablePPOAgent.__new__(MaskablePPOAgent)
        twin.__dict__.update(self.__dict__)
        twin.reseed(self.seed)
        return twin

    def act(self, view: PlayerView) -> int:
        """Return the model's deterministic choice among the legal actions of this view."""
        mask = np.zeros(view.rules.num_actions, dtype=bool)
        mask[view.legal_actions] = True
        action, _ = self.policy.predict(view.encode(), action_masks=mask, deterministic=True)
        return int(action)


def main(argv: list[str] | None = None) -> int:
    """Train for ``--timesteps`` learner steps, save the model, and rank it."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--timesteps", type=int, default=200_000, help="learner steps to train")
    p.add_argument("--n-steps", type=int, default=2048, help="rollout length before an update")
    p.add_argument("--deals", type=int, default=500, help="arena deals per opponent")
    p.add_argument("--seed", type=int, default=0, help="seed of the env, the model and the arena")
    p.add_argument("--rules", default="standard", help="a rules preset, e.g. huapai")
    p.add_argument("--save", default=None, help="write the model here (a .zip)")
    args = p.parse_args(argv)

    torch.set_num_threads(1)  # small MLP: more threads only contend with the env
    env = SingleSeatEnv(opponents=["random", "greedy"], factory=make_agent, rules=args.rules,
                        reward_mode="zero_sum", reward_scale=400)
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps,
                        batch_size=min(256, args.n_steps), learning_rate=3e-4, gamma=1.0,
                        ent_coef=0.01, policy_kwargs={"net_arch": [256, 256]},
                        seed=args.seed, verbose=0)
    model.learn(total_timesteps=args.timesteps)
    if args.save:
        model.save(args.save)
        print(f"model: {args.save}")

    agent = MaskablePPOAgent(model, seed=args.seed)
    results = against(agent, ["random", "greedy"], args.deals, rules=args.rules, seed=args.seed)
    print(f"MaskablePPO after {model.num_timesteps:,} learner steps:")
    print(markdown_table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
