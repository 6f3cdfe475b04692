r"""RLlib example: PPO with action masking on the PettingZoo env, brought into our arena.

    python examples/rllib_ppo.py --out runs/rllib --time-budget 600
    python examples/rllib_ppo.py --iterations 20 --env-runners 0 --out runs/rllib-example
    gongzhu eval --candidate policy:runs/rllib/policy.pt --opponents random,greedy

What it does, the way RLlib 2.60's own examples do it (new API stack):

* the environment is ``gongzhu_env.env()`` (the PettingZoo AEC env, zero-sum rewards scaled by
  400) wrapped by RLlib's ``PettingZooEnv``; every agent ``player_0`` .. ``player_3`` maps to
  one shared policy ``"shared"`` (as RLlib's ``pettingzoo_parameter_sharing`` example);
* that policy is ``MaskedPPOModule`` (below), RLlib's default PPO network with the env's
  ``action_mask`` applied to its logits (as RLlib's ``action_masking_rl_module`` example),
  with ReLU layers so that its actor is exactly our ``QNetwork`` MLP. The networks read the
  observation only; the mask turns every illegal action's logit into a huge negative number
  after the policy head, so PPO never samples one and its probability is zero in the loss.
  Ray's workers get the class by value (``register_pickle_by_value``), so the script needs
  no install on a cluster's other machines beyond this project;
* after training the actor (encoder and policy head) is copied into a ``QNetwork`` and saved
  as a ``"logits"`` policy file (``agents.policy``; the copy is checked to give the same
  logits), so ``policy:OUT/policy.pt`` plays in the arena, ``gongzhu play`` and everywhere
  else like our own trainers' policies; the arena table against ``--eval-opponents`` is
  printed and written to ``OUT/arena.md``. The RLlib checkpoint is kept in
  ``OUT/rllib_checkpoint`` and ``--export-from`` turns such a checkpoint into a policy file.

Ray runs through ``training.cluster`` (``--address`` joins a cluster; without it a private
instance on this machine, bound to 127.0.0.1). It is a demonstration of the plumbing, not a
contender: in ten minutes on two cores it clearly beats ``random`` (docs/distributed.md has
the numbers), while our DMC trainer reaches ``expert`` level in the same budget class.
"""


from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import torch
from ray import cloudpickle
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

from agents.policy import QNetwork, save_policy
from gongzhu_env.rules import Rules
from gongzhu_env.view import obs_size
from training.arena import duplicate_match, markdown_table
from training.cluster import BackendError, connect

ENV_NAME = "gongzhu_pettingzoo"
POLICY_ID = "shared"
REWARD_SCALE = 400.0


OBS_KEY = "observation"
MASK_KEY = "action_mask"


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """PPO actor-critic over ``observation`` whose logits are masked by ``action_mask``."""

    def __init__(self, *args: Any, observation_space: gym.Space | None = None,
                 **kwargs: Any) -> None:
        if not (isinstance(observation_space, gym.spaces.Dict)
                and {OBS_KEY, MASK_KEY} <= set(observation_space.spaces)):
            raise ValueError(f"MaskedPPOModule needs a Dict observation space with "
                             f"{OBS_KEY!r} and {MASK_KEY!r}; got {observation_space}")
        self.observation_space_with_mask = observation_space
        # The networks are built for the observation alone.
        super().__init__(*args, observation_space=observation_space[OBS_KEY], **kwargs)

    def setup(self) -> None:
        """Build the default networks, then report the masked space as the module's."""
        super().setup()
        self.observation_space = self.observation_space_with_mask

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Inference and exploration: masked logits."""
        mask, batch = _split(batch)
        return _masked(super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Training forward pass: masked logits (and the critic's embeddings)."""
        mask, batch = _split(batch)
        return _masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        """Values of the observations (the mask plays no part)."""
        _, batch = _split(batch)
        return super().compute_values(batch, embeddings)


def _split(batch: dict[str, Any]) -> tuple[torch.Tensor, dict[str, Any]]:
    """Return the mask and a shallow copy of ``batch`` whose observation is the vector."""
    obs = batch[Columns.OBS]
    if not isinstance(obs, dict):
        raise ValueError(f"MaskedPPOModule expects {{{OBS_KEY!r}, {MASK_KEY!r}}} observations")
    out = dict(batch)
    out[Columns.OBS] = obs[OBS_KEY]
    return obs[MASK_KEY], out


def _masked(out: dict[str, Any], mask: torch.Tensor) -> dict[str, Any]:
    """Add ``log(mask)`` (0 or a huge negative number) to the action logits."""
    logits = out[Columns.ACTION_DIST_INPUTS]
    out[Columns.ACTION_DIST_INPUTS] = logits + torch.clamp(
        torch.log(mask.to(logits.dtype)), min=FLOAT_MIN)
    return out


def make_env(env_config: dict[str, Any] | None = None) -> Any:
    """Return the PettingZoo env under RLlib's ``PettingZooEnv`` wrapper (zero-sum, scaled)."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from gongzhu_env import env

    cfg = dict(env_config or {})
    return PettingZooEnv(env(rules=cfg.get("rules", "standard"), reward_mode="zero_sum",
                             reward_scale=float(cfg.get("reward_scale", REWARD_SCALE))))


def ppo_config(hidden: tuple[int, ...] = (256, 256), *, seed: int = 0, env_runners: int = 0,
               envs_per_runner: int = 8, batch_size: int = 4096, minibatch_size: int = 512,
               epochs: int = 6, lr: float = 3e-4, entropy_coeff: float = 0.01) -> Any:
    """Return the ``PPOConfig``: one masked policy shared by the four seats."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    if __name__ != "__main__":  # __main__ travels by value already
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
    register_env(ENV_NAME, make_env)
    model = {"fcnet_hiddens": list(hidden), "fcnet_activation": "relu",
             "head_fcnet_hiddens": [], "vf_share_layers": False}
    return (
        PPOConfig()
        .environment(ENV_NAME, disable_env_checking=True)
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=envs_per_runner,
                     num_cpus_per_env_runner=1)
        .multi_agent(policies={POLICY_ID},
                     policy_mapping_fn=lambda agent_id, *args, **kwargs: POLICY_ID)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            POLICY_ID: RLModuleSpec(module_class=MaskedPPOModule, model_config=model)}))
        .training(train_batch_size_per_learner=batch_size, minibatch_size=minibatch_size,
                  num_epochs=epochs, lr=lr, entropy_coeff=entropy_coeff, gamma=1.0,
                  lambda_=0.95)
        .debugging(seed=seed, log_level="ERROR")
    )


def actor_network(module: Any, rules: Rules) -> QNetwork:
    """Copy the module's actor (encoder MLP and policy head) into a ``QNetwork``.

    The copy is checked: on a batch of random observations both give the same logits.
    """
    enc = module.encoder.actor_encoder.net.mlp
    head = module.pi.net.mlp
    linears = [m for m in [*enc, *head] if isinstance(m, torch.nn.Linear)]
    acts = {type(m).__name__ for m in enc if not isinstance(m, torch.nn.Linear)}
    if acts - {"ReLU"}:
        raise ValueError(f"the RLlib actor uses {sorted(acts)}; only ReLU layers copy into a "
                         "QNetwork (fcnet_activation='relu')")
    hidden = [m.out_features for m in linears[:-1]]
    net = QNetwork(obs_size(rules), rules.num_actions, hidden)
    targets = [m for m in net.net if isinstance(m, torch.nn.Linear)]
    if [tuple(m.weight.shape) for m in targets] != [tuple(m.weight.shape) for m in linears]:
        raise ValueError("the RLlib actor's layers do not match the observation and actions "
                         f"of these rules: {[tuple(m.weight.shape) for m in linears]}")
    with torch.no_grad():
        for dst, src in zip(targets, linears, strict=True):
            dst.weight.copy_(src.weight)
            dst.bias.copy_(src.bias)
        x = torch.rand(16, net.obs_size)
        want = head(enc(x))
        if not torch.allclose(net(x), want, atol=1e-5):
            raise ValueError("the copied network does not give the RLlib actor's logits")
    return net.eval()


def export_policy(module: Any, path: str | Path, rules: Rules,
                  metadata: dict[str, Any] | None = None) -> Path:
    """Save the module's actor as a ``"logits"`` policy file (``agents.policy``)."""
    return save_policy(path, actor_network(module, rules), rules, kind="logits",
                       trainer="rllib-ppo", metadata=metadata)


def export_checkpoint(checkpoint: str | Path, path: str | Path,
                      rules: Rules | None = None) -> Path:
    """Turn a saved RLlib algorithm checkpoint (``algo.save_to_path``) into a policy file."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    where = Path(checkpoint) / "learner_group" / "learner" / "rl_module" / POLICY_ID
    if not where.is_dir():
        raise FileNotFoundError(f"{checkpoint} is not an RLlib checkpoint of this example "
                                f"(no {where.relative_to(checkpoint)})")
    module = RLModule.from_checkpoint(str(where))
    return export_policy(module, path, rules or Rules(), {"from": str(checkpoint)})


def train(out: str | Path, *, time_budget_s: float = 600.0, iterations: int = 0,
          hidden: tuple[int, ...] = (256, 256), seed: int = 0, env_runners: int = 0,
          envs_per_runner: int = 8, batch_size: int = 4096, minibatch_size: int = 512,
          address: str | None = None, log: Any = print) -> dict[str, Any]:
    """Train until ``time_budget_s`` seconds or ``iterations`` (if > 0) pass; export.

    Returns what was done: iterations, environment steps, seconds, the policy file and the
    checkpoint directory.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)  # on two cores more threads only spin against the env runner
    ray, started = connect(address)
    try:
        algo = ppo_config(hidden, seed=seed, env_runners=env_runners,
                          envs_per_runner=envs_per_runner, batch_size=batch_size,
                          minibatch_size=minibatch_size).build_algo()
        start = time.perf_counter()
        done = steps = 0
        while True:
            result = algo.train()
            done += 1
            runners = result.get("env_runners", {})
            steps = int(runners.get("num_env_steps_sampled_lifetime", steps))
            elapsed = time.perf_counter() - start
            log(f"iteration {done}: env steps {steps:,}  episodes "
                f"{int(runners.get('num_episodes_lifetime', 0)):,}  ({elapsed:.0f} s)")
            if (iterations and done >= iterations) or (
                    not iterations and elapsed >= time_budget_s):
                break
        checkpoint = out / "rllib_checkpoint"
        algo.save_to_path(str(checkpoint.resolve()))
        policy = export_policy(algo.get_module(POLICY_ID), out / "policy.pt", Rules(),
                               {"iterations": done, "env_steps": steps, "seed": seed,
                                "train_seconds": round(elapsed, 1), "hidden": list(hidden)})
        algo.stop()
    finally:
        if started:
            ray.shutdown()
    return {"iterations": done, "env_steps": steps, "seconds": elapsed,
            "policy": policy, "checkpoint": checkpoint}


def build_parser() -> argparse.ArgumentParser:
    """Arguments of ``python examples/rllib_ppo.py``."""
    p = argparse.ArgumentParser(prog="python examples/rllib_ppo.py",
                                description="Train RLlib PPO (action masking, one policy for "
                                            "the four seats) on the PettingZoo env and "
                                            "measure it in our arena.")
    p.add_argument("--out", default="runs/rllib", help="directory for the policy and checkpoint")
    p.add_argument("--time-budget", type=float, default=600.0,
                   help="seconds of training (default 600)")
    p.add_argument("--iterations", type=int, default=0,
                   help="train this many PPO iterations instead of a time budget")
    p.add_argument("--hidden", default="256,256", help="hidden layer sizes (default 256,256)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--env-runners", type=int, default=1,
                   help="RLlib env runners (Ray actors that play; 0: in this process)")
    p.add_argument("--envs-per-runner", "--envs", type=int, default=8,
                   help="tables each env runner steps together (batched inference)")
    p.add_argument("--batch-size", type=int, default=4096, help="env steps per PPO iteration")
    p.add_argument("--eval-deals", "--deals", type=int, default=500,
                   help="duplicate deals per opponent in the final arena (0: none)")
    p.add_argument("--eval-opponents", default="random,greedy",
                   help="comma-separated arena opponents")
    p.add_argument("--address", default=None, metavar="auto|HOST:PORT",
                   help="Ray cluster to join (default: a private instance on this machine)")
    p.add_argument("--export-from", metavar="CHECKPOINT",
                   help="only export this RLlib checkpoint to OUT/policy.pt and evaluate it")
    return p


def main(argv: list[str] | None = None) -> int:
    """Train (or export), evaluate in the arena, print the table; the exit code."""
    args = build_parser().parse_args(argv)
    try:
        hidden = tuple(int(h) for h in args.hidden.split(","))
        if not hidden or min(hidden) < 1:
            raise ValueError
    except ValueError:
        print(f"error: --hidden must be sizes like 256,256; got {args.hidden!r}",
              file=sys.stderr)
        return 2
    out = Path(args.out)
    try:
        if args.export_from:
            policy = export_checkpoint(args.export_from, out / "policy.pt")
        else:
            done = train(out, time_budget_s=args.time_budget, iterations=args.iterations,
                         hidden=hidden, seed=args.seed, env_runners=args.env_runners,
                         envs_per_runner=args.envs_per_runner, batch_size=args.batch_size,
                         minibatch_size=min(512, args.batch_size), address=args.address)
            policy = done["policy"]
            print(f"trained {done['iterations']} iterations, {done['env_steps']:,} env steps "
                  f"in {done['seconds']:.0f} s; checkpoint {done['checkpoint']}")
    except (BackendError, FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"policy: {policy}")
    if args.eval_deals > 0:
        spec = f"policy:{policy}"
        results = [duplicate_match(spec, opp.strip(), args.eval_deals, seed=0)
                   for opp in args.eval_opponents.split(",") if opp.strip()]
        table = markdown_table(results)
        (out / "arena.md").write_text(
            f"RLlib PPO, duplicate 1 vs 3, {args.eval_deals} deals per opponent "
            f"(deal seed 0):\n\n{table}\n", encoding="utf-8")
        print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
