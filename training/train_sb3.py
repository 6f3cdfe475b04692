"""MaskablePPO (sb3-contrib) on the single-seat env, against an opponent pool that grows.

The second trainer, kept as an option next to our own Deep Monte-Carlo (``training/dmc.py``):
``python -m training.train --trainer sb3 --preset quick``. It shows the library route done
right for a four-seat game: the learner is one seat of ``gongzhu_env.wrappers.SingleSeatEnv``
per episode, so every transition and reward it sees is its own, and the illegal actions are
masked through the env's ``action_masks()`` (which ``MaskablePPO`` calls, also across
``SubprocVecEnv`` processes).

Opponent pool: ``opponent_mix`` weights become repeated pool entries (the env draws entries
uniformly). ``"snapshot"`` entries are frozen copies of the actor (``agents.policy.PolicyAgent``
over a ``"logits"`` network) added every ``snapshot_interval_steps``; ``"self"`` is the live
policy when the envs run in this process, and the latest snapshot under ``SubprocVecEnv`` (a
subprocess cannot see the live weights). Before the first snapshot both fall back to ``random``.

``engine="batch"`` plays the learner's ``n_envs`` tables on the compiled batched engine instead
(``gongzhu_env.vector_env.SingleSeatVectorEnv`` through ``training.sb3_vec.BatchVecEnv``), all
in this process: the opponents are batched policies, one forward pass per engine step for all
the tables where they are to move. ``"random"`` is the engine's compiled random player,
``"snapshot"`` each frozen actor (masked argmax of its logits, as ``PolicyAgent`` plays) and
``"self"`` the live policy (deterministic, as above); the mix's weights are the draw
probabilities of each opponent seat, a snapshot's weight shared among the snapshots kept.
Rule agents cannot sit there (the config refuses them).

The actor uses ReLU MLPs so its weights copy one-to-one into ``agents.policy.QNetwork``: the
saved ``policy.pt`` is the same file format as the DMC trainer's and plays through
``make_agent("policy:PATH")``. The run directory, its logs and their names are the shared ones of
``training.run``; SB3's own TensorBoard events (losses, rollout statistics) go to ``tb/sb3_*``.
"""

from __future__ import annotations

import json
import time
from typing import Any

import numpy as np
import torch
from torch import nn

from agents import make_agent
from agents.policy import PolicyAgent, QNetwork, save_policy
from gongzhu_env.rules import Rules
from gongzhu_env.view import PlayerView, obs_size
from gongzhu_env.wrappers import SingleSeatEnv
from training.config import SB3Config
from training.run import (
    EVAL_SEED,
    RunDir,
    RunLog,
    TrainingError,
    evaluate_policy,
    policy_metadata,
    seed_everything,
)

_POOL_SLOTS = 20


def _masked_argmax(scores: torch.Tensor, masks: np.ndarray) -> np.ndarray:
    """Return the legal action of highest score in each row."""
    scores = scores.masked_fill(~torch.from_numpy(np.ascontiguousarray(masks)), -torch.inf)
    return scores.argmax(dim=1).numpy()


class _BatchNetPolicy:
    """A frozen logits network as a batched opponent (``policy(obs, masks) -> actions``)."""

    def __init__(self, net: QNetwork, name: str) -> None:
        self.net = net.eval()
        self.name = name

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            return _masked_argmax(self.net(torch.from_numpy(obs)), masks)


class _BatchLivePolicy:
    """The current PPO policy as a batched opponent (deterministic), random before a model."""

    name = "self"

    def __init__(self, seed: int) -> None:
        self.model: Any = None
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if self.model is None:
            counts = masks.sum(axis=1)
            picks = (self.rng.random(len(obs)) * counts).astype(np.int64)
            return np.array([np.flatnonzero(m)[k] for m, k in zip(masks, picks, strict=True)],
                            dtype=np.int64)
        actions, _ = self.model.policy.predict(obs, deterministic=True, action_masks=masks)
        return np.asarray(actions, dtype=np.int64)


def _batch_pool(cfg: SB3Config, snapshots: list[PolicyAgent], live: _BatchLivePolicy,
                cache: dict[int, tuple[PolicyAgent, _BatchNetPolicy]]
                ) -> tuple[list[Any], list[float]]:
    """Return the weighted mix as batched policies and their weights (``engine="batch"``).

    ``cache`` keeps one batched policy per snapshot kept (by identity, so the vector env sees
    the same object at every call and keeps it seated).
    """
    kept = {id(agent): agent for agent in snapshots}
    for key in [k for k, (agent, _) in cache.items() if kept.get(k) is not agent]:
        del cache[key]
    pool: list[Any] = []
    weights: list[float] = []
    for spec, w in cfg.opponent_mix.items():
        if w <= 0:
            continue
        if spec == "snapshot" and snapshots:
            for agent in snapshots:
                if id(agent) not in cache:
                    cache[id(agent)] = (agent, _BatchNetPolicy(agent.net, "snapshot"))
                pool.append(cache[id(agent)][1])
                weights.append(w / len(snapshots))
        elif spec == "self":
            pool.append(live)
            weights.append(w)
        else:  # "random", and "snapshot" before the first snapshot
            pool.append("random")
            weights.append(w)
    return pool, weights


def actor_network(model: Any, hidden: tuple[int, ...], rules: Rules) -> QNetwork:
    """Copy the MaskablePPO actor (MLP + action head) into a ``QNetwork`` of kind logits.

    The network reads what the actor read: the observation of ``rules`` for the model's
    episode kind (its observation space says which) into ``rules.num_actions`` logits.
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


class _LivePolicy:
    """The current PPO policy as an opponent callable (in-process envs only)."""

    def __init__(self) -> None:
        self.model: Any = None
        self.fallback = make_agent("random", seed=0)

    def __call__(self, view: PlayerView) -> int:
        if self.model is None:
            return self.fallback.act(view)
        mask = view.action_mask().astype(bool)
        action, _ = self.model.predict(view.encode(), action_masks=mask, deterministic=True)
        return int(action)

    def __getstate__(self) -> dict[str, Any]:
        # Pickled into a subprocess the live model is not reachable; play random there.
        return {"model": None, "fallback": self.fallback}


def _pool(cfg: SB3Config, snapshots: list[PolicyAgent], live: _LivePolicy | None) -> list[Any]:
    """Expand the weighted mix into pool entries, resolving "self" and "snapshot"."""
    total = sum(cfg.opponent_mix.values())
    pool: list[Any] = []
    for spec, w in cfg.opponent_mix.items():
        copies = max(1, round(_POOL_SLOTS * w / total)) if w > 0 else 0
        for i in range(copies):
            if spec == "snapshot":
                pool.append(snapshots[i % len(snapshots)] if snapshots else "random")
            elif spec == "self":
                if live is not None:
                    pool.append(live)
                else:
                    pool.append(snapshots[-1] if snapshots else "random")
            else:
                pool.append(spec)
    return pool


def train_sb3(cfg: SB3Config, run: RunDir, resume: bool, quiet: bool = False) -> QNetwork:
    """Train MaskablePPO within the config's budget; return the actor as a ``QNetwork``."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from gongzhu_env.vector_env import SingleSeatVectorEnv
    from training.sb3_vec import BatchVecEnv

    rules = Rules.coerce(cfg.rules)
    seed_everything(cfg.seed)
    torch.set_num_threads(cfg.torch_threads)
    batch = cfg.engine == "batch"
    live = None if cfg.subproc or batch else _LivePolicy()
    batch_live = _BatchLivePolicy(cfg.seed) if batch else None
    batch_cache: dict[int, tuple[PolicyAgent, _BatchNetPolicy]] = {}
    snapshots: list[PolicyAgent] = []
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

    def make_env(rank: int) -> Any:
        pool = _pool(cfg, snapshots, live)

        def thunk() -> SingleSeatEnv:
            env = SingleSeatEnv(pool, factory=make_agent, rules=rules,
                                reward_mode=cfg.reward_mode, reward_scale=cfg.reward_scale,
                                episode=cfg.episode, max_hands=cfg.max_hands)
            env.reset(seed=cfg.seed * 1000 + rank)
            return env
        return thunk

    def set_opponents() -> None:
        if batch_live is not None:
            venv.env.set_opponents(*_batch_pool(cfg, snapshots, batch_live, batch_cache))
        else:
            venv.env_method("set_opponents", _pool(cfg, snapshots, live))

    if batch_live is not None:
        venv: Any = BatchVecEnv(SingleSeatVectorEnv(
            cfg.n_envs, *_batch_pool(cfg, snapshots, batch_live, batch_cache), rules=rules,
            reward_mode=cfg.reward_mode, reward_scale=cfg.reward_scale))
    else:
        fns = [make_env(i) for i in range(cfg.n_envs)]
        venv = SubprocVecEnv(fns) if cfg.subproc else DummyVecEnv(fns)
    venv.seed(cfg.seed)
    if resume:
        try:
            model = MaskablePPO.load(model_path, env=venv, device="cpu")
        except Exception as e:
            raise TrainingError(f"cannot resume: {model_path} is corrupt or not a MaskablePPO "
                                f"checkpoint ({type(e).__name__}: {e})") from None
    else:
        model = MaskablePPO(
            "MlpPolicy", venv, learning_rate=cfg.lr, n_steps=cfg.n_steps,
            batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma,
            gae_lambda=1.0, ent_coef=cfg.ent_coef, seed=cfg.seed, device="cpu",
            tensorboard_log=str(run.tb), verbose=0,
            policy_kwargs={"net_arch": {"pi": list(cfg.hidden), "vf": list(cfg.hidden)},
                           "activation_fn": nn.ReLU})
    if live is not None:
        live.model = model
    if batch_live is not None:
        batch_live.model = model
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
