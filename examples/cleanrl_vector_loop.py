"""A CleanRL-style PPO loop of your own on the batched vector env, with action masking.

    python examples/cleanrl_vector_loop.py --num-envs 64 --num-steps 32 --total-timesteps 500000

``gongzhu_env.vector_env.SingleSeatVectorEnv`` is a Gymnasium ``VectorEnv`` over the compiled
batched engine: ``num_envs`` tables, one learner seat each, the other seats played in batch by
opponent policies between the learner's turns. Autoreset is Gymnasium's same-step mode: the step
that ends a learner's hand returns ``terminated`` with the hand's result as the reward and the
first observation of the next hand, which is exactly what the GAE recursion below expects
(``dones[t + 1]`` cuts the bootstrap). The mask (``envs.action_masks()``) sets the logits of
illegal actions to a large negative number, so the policy never samples one.

Everything that is random is seeded in one block; the same seed gives the same run. At the end
the trained network plays in the duplicate arena through a small ``Agent`` adapter.
"""

from __future__ import annotations

import argparse
import ast
import copy
import dataclasses
import inspect
import random
import textwrap
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from agents import Agent
from gongzhu_env.rules import Rules
from gongzhu_env.vector_env import SingleSeatVectorEnv
from gongzhu_env.view import PlayerView, obs_size
from training.arena import against, markdown_table


@dataclass
class Args:
    """The run; every field is a command-line flag (``--num-envs 64``)."""

    seed: int = 1
    """seed of the deals, the seating, the opponents and the network"""
    total_timesteps: int = 500_000
    """learner decisions to train for"""
    num_envs: int = 64
    """tables stepped together"""
    num_steps: int = 32
    """decisions per table in one rollout (rollout = num_envs * num_steps)"""
    learning_rate: float = 3e-4
    """Adam step size"""
    gae_lambda: float = 0.95
    """lambda of the advantage estimate (gamma is 1: one hand is short and undiscounted)"""
    num_minibatches: int = 4
    """minibatches per epoch"""
    update_epochs: int = 4
    """passes over each rollout"""
    clip_coef: float = 0.2
    """PPO's ratio clip"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clip"""
    hidden: int = 256
    """width of the two hidden layers"""
    eval_deals: int = 300
    """duplicate deals against each baseline at the end (0: none)"""


def field_docs(cls: type) -> dict[str, str]:
    """Return the docstring under each field of a dataclass, read from its source (as tyro)."""
    body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0].body
    return {a.target.id: b.value.value for a, b in zip(body, body[1:], strict=False)
            if isinstance(a, ast.AnnAssign) and isinstance(a.target, ast.Name)
            and isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant)}


def parse_args(argv: list[str] | None = None) -> Args:
    """Each field of ``Args`` as a flag, with its docstring as the help."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    docs = field_docs(Args)
    for f in dataclasses.fields(Args):
        p.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default,
                       help=docs[f.name])
    return Args(**vars(p.parse_args(argv)))


class ActorCritic(nn.Module):
    """Two ReLU layers shared by a policy head (logits over the actions) and a value head."""

    def __init__(self, n_obs: int, n_actions: int, hidden: int) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_obs, hidden), nn.ReLU(),
                                  nn.Linear(hidden, hidden), nn.ReLU())
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits and values of a batch of observations."""
        h = self.body(obs)
        logits = self.pi(h).masked_fill(~mask, -1e9)
        return logits, self.v(h).squeeze(-1)


class NetAgent(Agent):
    """The trained network at an arena table: the most likely legal action of its view."""

    name = "cleanrl_ppo"

    def __init__(self, net: ActorCritic, seed: int | None = None) -> None:
        super().__init__(seed)
        self.net = net

    def act(self, view: PlayerView) -> int:
        """Greedy masked choice on ``view.encode()``, the observation the env gave in training."""
        mask = torch.zeros(1, view.rules.num_actions, dtype=torch.bool)
        mask[0, list(view.legal_actions)] = True
        with torch.no_grad():
            logits, _ = self.net(torch.from_numpy(view.encode())[None], mask)
        return int(logits.argmax())


def train(args: Args) -> ActorCritic:
    """Collect rollouts from the vector env and update the network with clipped PPO."""
    # Seeding, all in one place.
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    rules = Rules()
    envs = SingleSeatVectorEnv(args.num_envs, opponents=["random"], rules=rules,
                               reward_mode="zero_sum", reward_scale=400)
    n_obs, n_act = obs_size(rules), rules.num_actions
    net = ActorCritic(n_obs, n_act, args.hidden)
    opt = torch.optim.Adam(net.parameters(), lr=args.learning_rate, eps=1e-5)

    shape = (args.num_steps, args.num_envs)
    obs_buf = torch.zeros((*shape, n_obs))
    mask_buf = torch.zeros((*shape, n_act), dtype=torch.bool)
    act_buf = torch.zeros(shape, dtype=torch.long)
    logp_buf, rew_buf, done_buf, val_buf = (torch.zeros(shape) for _ in range(4))

    obs, _ = envs.reset(seed=args.seed)
    next_obs = torch.from_numpy(obs)
    next_mask = torch.from_numpy(envs.action_masks())
    next_done = torch.zeros(args.num_envs)
    batch = args.num_envs * args.num_steps
    iterations = max(1, args.total_timesteps // batch)
    finished: list[float] = []
    start = time.perf_counter()
    for it in range(1, iterations + 1):
        for t in range(args.num_steps):
            obs_buf[t], mask_buf[t], done_buf[t] = next_obs, next_mask, next_done
            with torch.no_grad():
                logits, value = net(next_obs, next_mask)
            dist = torch.distributions.Categorical(logits=logits)
            action = dist.sample()
            act_buf[t], logp_buf[t], val_buf[t] = action, dist.log_prob(action), value
            obs, reward, terminated, truncated, _ = envs.step(action.numpy())
            rew_buf[t] = torch.from_numpy(reward)
            done = np.logical_or(terminated, truncated)
            finished += [float(r) for r in reward[done]]
            next_obs = torch.from_numpy(obs)
            next_mask = torch.from_numpy(envs.action_masks())
            next_done = torch.from_numpy(done.astype(np.float32))

        # Advantages: gamma = 1, GAE(lambda) cut where a hand ended.
        with torch.no_grad():
            _, next_value = net(next_obs, next_mask)
        adv = torch.zeros(shape)
        last = torch.zeros(args.num_envs)
        for t in reversed(range(args.num_steps)):
            nonterminal = 1.0 - (next_done if t == args.num_steps - 1 else done_buf[t + 1])
            after = next_value if t == args.num_steps - 1 else val_buf[t + 1]
            delta = rew_buf[t] + after * nonterminal - val_buf[t]
            adv[t] = last = delta + args.gae_lambda * nonterminal * last
        ret = adv + val_buf

        b_obs, b_mask = obs_buf.reshape(batch, n_obs), mask_buf.reshape(batch, n_act)
        b_act, b_logp = act_buf.reshape(batch), logp_buf.reshape(batch)
        b_adv, b_ret = adv.reshape(batch), ret.reshape(batch)
        mb = batch // args.num_minibatches
        for _ in range(args.update_epochs):
            for idx in torch.randperm(batch).split(mb):
                logits, value = net(b_obs[idx], b_mask[idx])
                dist = torch.distributions.Categorical(logits=logits)
                ratio = (dist.log_prob(b_act[idx]) - b_logp[idx]).exp()
                a = b_adv[idx]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip_coef,
                                                            1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((value - b_ret[idx]) ** 2).mean()
                loss = pg + args.vf_coef * v_loss - args.ent_coef * dist.entropy().mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
                opt.step()

        recent = finished[-1000:]
        mean = 400 * float(np.mean(recent)) if recent else float("nan")
        print(f"iteration {it}/{iterations}  decisions {it * batch:,}  hands {len(finished):,}  "
              f"zero-sum points/hand vs random (last 1000) {mean:+.1f}  "
              f"{it * batch / (time.perf_counter() - start):,.0f} decisions/s")
    return net.eval()


def main(argv: list[str] | None = None) -> int:
    """Train, then rank the network against the rule baselines on duplicate deals."""
    args = parse_args(argv)
    net = train(args)
    if args.eval_deals > 0:
        agent = NetAgent(copy.deepcopy(net), seed=args.seed)
        results = against(agent, ["random", "greedy"], args.eval_deals, seed=args.seed)
        print(markdown_table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
