"""MaskablePPO (sb3-contrib) on the single-seat env, against an opponent pool that grows.

The second trainer, kept as an option next to our own Deep Monte-Carlo (``training.dmc``):
``gongzhu train --trainer sb3 --preset quick``. It shows the library route done
right for a four-seat game: the learner is one seat of ``gongzhu_env.wrappers.SingleSeatEnv``
per episode, so every transition and reward it sees is its own, and the illegal actions are
masked through the env's ``action_masks()`` (which ``MaskablePPO`` calls, also across
``SubprocVecEnv`` processes).

Opponents: ``opponent_mix`` is the run's ``gongzhu_env.opponents.OpponentMix``, drawn per seat
by the envs; ``training.opponents.sb3_pool`` turns it into their entries and weights.
``"snapshot"`` entries are frozen copies of the actor (``agents.policy.PolicyAgent`` over a
``"logits"`` network) added every ``snapshot_interval_steps``, the mix's weight shared among
them; ``"self"`` is the live policy when the envs run in this process, and the newest frozen
copy of the actor under ``SubprocVecEnv`` (a subprocess cannot see the live weights). Before the
first snapshot a snapshot seat is ``"self"``, as in every trainer.

``engine="batch"`` plays the learner's ``n_envs`` tables on the compiled batched engine instead
(``gongzhu_env.vector_env.SingleSeatVectorEnv`` through ``vec_env.BatchVecEnv``), all
in this process: the opponents are batched policies, one forward pass per engine step for all
the tables where they are to move. ``"random"`` is the engine's compiled random player,
``"snapshot"`` each frozen actor (masked argmax of its logits, as ``PolicyAgent`` plays) and
``"self"`` the live policy (deterministic, as above), with the same weights and the same rule
before the first snapshot. Rule agents cannot sit there (the config refuses them).

The actor uses ReLU MLPs so its weights copy one-to-one into ``agents.policy.QNetwork``: the
saved ``policy.pt`` is the same file format as the DMC trainer's and plays through
``make_agent("policy:PATH")``. The run directory, its logs and their names are the shared ones of
``training.run``; SB3's own TensorBoard events (losses, rollout statistics) go to ``tb/sb3_*``.
"""

from __future__ import annotations

import json
import time
from typing import Any

import torch
from torch import nn

from agents import make_agent
from agents.policy import PolicyAgent, QNetwork, save_policy
from gongzhu_env.rules import Rules
from gongzhu_env.view import obs_size
from gongzhu_env.wrappers import SingleSeatEnv
from training.config import SB3Config
from training.opponents import BatchLivePolicy, BatchNetPolicy, LivePolicy, sb3_pool
from training.run import (
    EVAL_SEED,
    RunDir,
    RunLog,
    TrainingError,
    evaluate_policy,
    policy_metadata,
    seed_everything,
)


def actor_network(model: Any, hidden: tuple[int, ...], rules: Rules) -> QNetwork:
    """Copy the MaskablePPO actor (MLP + action head) into a ``QNetwork`` of kind logits.

    The network reads what the actor read: the observation of ``rules`` for the model's
    episode kind (its observation space says which) into ``rules.num_actions`` logits. It is
    a CPU network whatever the model's ``device``: the weights are copied across, so the
    snapshots, the evaluations and the saved policy play on the CPU.
    """
    width = int(model.observation_space.shape[0])
    if width not in (obs_size(rules), obs_size(rules, True)):
        raise ValueError(f"the model reads {width} values, not an observation of {rules}")
    net = QNetwork(width, rules.num_actions, hidden)
    linears = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
    linears.append(model.policy.action_net)
    targets = [m for m in net.net if isinstance(m, nn.Linear)]
    if len(linears) != len(targets):
        raise RuntimeError(f"actor has {len(linears)} linear layers, QNetwork {len(targets)}")
    with torch.no_grad():
        for src, dst in zip(linears, targets, strict=True):
            dst.weight.copy_(src.weight)
            dst.bias.copy_(src.bias)
    return net.eval()


def train_sb3(cfg: SB3Config, run: RunDir, resume: bool, quiet: bool = False) -> QNetwork:
    """Train MaskablePPO within the config's budget; return the actor as a ``QNetwork``."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from gongzhu_env.vector_env import SingleSeatVectorEnv
    from training.sb3.vec_env import BatchVecEnv

    rules = cfg.game_rules
    seed_everything(cfg.seed)
    torch.set_num_threads(cfg.torch_threads)
    device = cfg.torch_device()  # the PPO updates' device; the opponents copy to the CPU
    batch = cfg.uses_batch_engine()
    live = LivePolicy()
    batch_live = BatchLivePolicy(cfg.seed)
    batch_cache: dict[int, tuple[PolicyAgent, BatchNetPolicy]] = {}
    snapshots: list[PolicyAgent] = []
    frozen_now: list[PolicyAgent] = []
    """Under ``subproc``, a frozen copy of the actor as it is at the start (what ``"self"``
    is before the first snapshot: the envs' processes cannot reach the live weights)."""
    state_path = run.checkpoints / "sb3_state.json"
    model_path = run.checkpoints / "sb3_latest.zip"
    if resume:
        if not model_path.is_file() or not state_path.is_file():
            raise TrainingError(f"cannot resume: no SB3 checkpoint in {run.checkpoints}")
        try:
            state = json.loads(state_path.read_text(encoding="utf-8"))
            from agents.policy import load_policy_agent

            snapshots = [load_policy_agent(p, rules=rules) for p in state["snapshots"]]
        except Exception as e:
            raise TrainingError(f"cannot resume: SB3 checkpoint state in {run.checkpoints} is "
                                f"corrupt ({type(e).__name__}: {e})") from None
    else:
        state = {"snapshots": [], "elapsed_s": 0.0}

    def batch_entry(agent: PolicyAgent) -> BatchNetPolicy:
        # One batched policy per snapshot kept (by identity), so that the vector env sees the
        # same object at every call and keeps it seated.
        if id(agent) not in batch_cache:
            batch_cache[id(agent)] = (agent, BatchNetPolicy(agent.net, "snapshot"))
        return batch_cache[id(agent)][1]

    def pool() -> tuple[list[Any], list[float]]:
        """Return the envs' opponents and weights now (``training.opponents.sb3_pool``)."""
        if batch:
            kept = {id(agent) for agent in snapshots}
            for key in [k for k in batch_cache if k not in kept]:
                del batch_cache[key]
            return sb3_pool(cfg.opponent_mix, snapshots, batch_live, batch_entry)
        current = live if not cfg.subproc else (snapshots or frozen_now)[-1]
        return sb3_pool(cfg.opponent_mix, snapshots, current)

    def make_env(rank: int) -> Any:
        def thunk() -> SingleSeatEnv:
            # Seated for real by set_opponents() once the model exists (the live policy
            # needs it); the first episode starts when training does.
            env = SingleSeatEnv(["random"], factory=make_agent, rules=rules,
                                reward_mode=cfg.reward_mode, reward_scale=cfg.reward_scale,
                                episode=cfg.episode, max_hands=cfg.max_hands)
            env.reset(seed=cfg.seed * 1000 + rank)
            return env
        return thunk

    def set_opponents() -> None:
        if batch:
            venv.env.set_opponents(*pool())
        else:
            venv.env_method("set_opponents", *pool())

    if batch:
        venv: Any = BatchVecEnv(SingleSeatVectorEnv(
            cfg.n_envs, *pool(), rules=rules, reward_mode=cfg.reward_mode,
            reward_scale=cfg.reward_scale))
    else:
        fns = [make_env(i) for i in range(cfg.n_envs)]
        venv = SubprocVecEnv(fns) if cfg.subproc else DummyVecEnv(fns)
    venv.seed(cfg.seed)
    if resume:
        try:
            model = MaskablePPO.load(model_path, env=venv, device=device)
        except Exception as e:
            raise TrainingError(f"cannot resume: {model_path} is corrupt or not a MaskablePPO "
                                f"checkpoint ({type(e).__name__}: {e})") from None
    else:
        model = MaskablePPO(
            "MlpPolicy", venv, learning_rate=cfg.lr, n_steps=cfg.n_steps,
            batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma,
            gae_lambda=1.0, ent_coef=cfg.ent_coef, seed=cfg.seed, device=device,
            tensorboard_log=str(run.tb), verbose=0,
            policy_kwargs={"net_arch": {"pi": list(cfg.hidden), "vf": list(cfg.hidden)},
                           "activation_fn": nn.ReLU})
    live.model = model
    batch_live.model = model
    if cfg.subproc:
        frozen_now.append(PolicyAgent(actor_network(model, cfg.hidden, rules), rules))
    set_opponents()
    log = RunLog(run)

    class Hooks(BaseCallback):
        """Snapshots, checkpoints, evaluations, metrics and the wall-clock budget."""

        def __init__(self) -> None:
            super().__init__()
            self.t0 = time.perf_counter()
            self.base_elapsed = float(state["elapsed_s"])
            self.last = {"snap": model.num_timesteps, "ckpt": model.num_timesteps,
                         "eval": model.num_timesteps}
            self.rollout_t = time.perf_counter()
            self.rollout_steps = model.num_timesteps

        def elapsed(self) -> float:
            return self.base_elapsed + time.perf_counter() - self.t0

        def _on_step(self) -> bool:
            n = self.num_timesteps
            if n - self.last["snap"] >= cfg.snapshot_interval_steps:
                self.last["snap"] = n
                path = run.checkpoints / f"snapshot_{n:010d}.pt"
                save_policy(path, actor_network(model, cfg.hidden, rules), rules, kind="logits",
                            trainer="sb3-maskable-ppo")
                snapshots.append(PolicyAgent(actor_network(model, cfg.hidden, rules), rules))
                state["snapshots"].append(str(path))
                del snapshots[:-cfg.snapshot_pool_size]
                state["snapshots"] = state["snapshots"][-cfg.snapshot_pool_size:]
                set_opponents()
            if n - self.last["ckpt"] >= cfg.checkpoint_interval_steps:
                self.last["ckpt"] = n
                self.checkpoint()
            if n - self.last["eval"] >= cfg.eval_interval_steps:
                self.last["eval"] = n
                self.evaluate()
            return self.elapsed() < cfg.time_budget_s

        def _on_rollout_end(self) -> None:
            now = time.perf_counter()
            sps = (self.num_timesteps - self.rollout_steps) / max(1e-9, now - self.rollout_t)
            self.rollout_t, self.rollout_steps = now, self.num_timesteps
            log.metrics({"train_s": self.elapsed(), "decisions": self.num_timesteps,
                         "decisions_per_s": sps, "snapshots": len(snapshots)})
            if not quiet:
                print(f"[{self.elapsed() / 60:6.1f} min] steps {self.num_timesteps:>9,d} "
                      f"({sps:,.0f}/s)  snapshots {len(snapshots)}", flush=True)

        def checkpoint(self) -> None:
            model.save(model_path)
            state["elapsed_s"] = self.elapsed()
            state_path.write_text(json.dumps(state), encoding="utf-8")

        def evaluate(self) -> None:
            if cfg.eval_deals == 0:
                return  # periodic evaluations off
            net = actor_network(model, cfg.hidden, rules)
            results = evaluate_policy(net, rules, cfg.eval_opponents, cfg.eval_deals, EVAL_SEED)
            log.evaluations(results, self.elapsed(), self.num_timesteps)
            if not quiet:
                for r in results:
                    print(f"[eval] vs {r.opponent}: {r.stats.mean:+.1f}", flush=True)

    hooks = Hooks()
    if not resume:
        hooks.evaluate()
    remaining = max(0, cfg.total_timesteps - model.num_timesteps)
    try:
        if remaining > 0 and hooks.elapsed() < cfg.time_budget_s:
            model.learn(total_timesteps=remaining, callback=hooks,
                        reset_num_timesteps=not resume, tb_log_name="sb3")
    finally:
        hooks.checkpoint()
        venv.close()
    hooks.evaluate()
    log.close()
    net = actor_network(model, cfg.hidden, rules)
    save_policy(run.policy, net, rules, kind="logits", trainer="sb3-maskable-ppo",
                metadata=policy_metadata(cfg, model.num_timesteps, hooks.elapsed()))
    return net


__all__ = ["train_sb3", "actor_network"]
