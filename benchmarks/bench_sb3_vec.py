"""MaskablePPO on the batched vector env against today's path, and the raw env steps of both.

Run from the repository root::

    python -m benchmarks.bench_sb3_vec --envs 8 64 --timesteps 16384 --repeats 3

Two tables, both counting *learner* steps (one decision of the learner seat; the opponents'
decisions happen inside each step and are not counted):

* MaskablePPO: ``model.learn(--timesteps)`` of the ``train_sb3`` actor (``--hidden``, ReLU),
  rollouts of 2048 learner steps (``n_steps = 2048 / envs``), one epoch of minibatches of 512,
  on one torch thread, against ``--opponents``: ``random`` (the cheapest, so that only the
  env path differs) or ``network``, a frozen actor of the same shape at every opponent seat,
  as the ``self`` and ``snapshot`` opponents of ``train_sb3`` play (``SingleSeatEnv``: a
  ``PolicyAgent``, one forward pass per opponent decision; the batched env: one masked-argmax
  forward pass per engine step for all the tables where it is to move):
  ``scalar``: ``--envs`` ``SingleSeatEnv`` in a ``DummyVecEnv`` (what ``train_sb3`` builds
  with ``subproc=false``, its default); ``scalar-subproc``: the same in a ``SubprocVecEnv``
  (``subproc=true``); ``batch``: one ``SingleSeatVectorEnv`` of ``--envs`` tables through
  ``training.sb3.vec_env.BatchVecEnv`` (``engine="batch"``). The steps/s include PPO's updates.
* Raw env: the envs alone, stepped with a uniformly random legal learner action (drawn from
  the masks with a seeded generator, the same way for both) and the same opponents:
  ``SingleSeatEnv`` one step at a time (reset at each hand's end) and
  ``SingleSeatVectorEnv`` of ``--envs`` tables.

Each contender runs ``--repeats`` times, interleaved; the tables show the median and the
ratio to the scalar path of the same run. The machine may be shared: compare ratios from one
run, not absolute numbers across runs. ``--clock cpu`` times with this process's CPU time,
steadier on a machine loaded by other jobs; it leaves out ``scalar-subproc``, whose work runs
in other processes.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch

from agents import make_agent
from gongzhu_env.vector_env import SingleSeatVectorEnv
from gongzhu_env.wrappers import SingleSeatEnv

# The clock of every timed region: wall time by default, this process's CPU time with
# ``--clock cpu``.
_clock: Callable[[], float] = time.perf_counter


class _NetPolicy:
    """A frozen logits network as a batched opponent: the legal action of highest score."""

    name = "network"

    def __init__(self, net: torch.nn.Module) -> None:
        self.net = net

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            scores = self.net(torch.from_numpy(obs))
        return scores.masked_fill(~torch.from_numpy(masks), -torch.inf).argmax(dim=1).numpy()


def _opponents(kind: str, batched: bool, hidden: int) -> list:
    """The opponent pool of a contender: random, or one frozen network (seeded weights)."""
    if kind == "random":
        return ["random"]
    from agents.policy import PolicyAgent, QNetwork

    torch.manual_seed(0)
    net = QNetwork(hidden=(hidden, hidden)).eval()
    return [_NetPolicy(net)] if batched else [PolicyAgent(net)]


def _ppo_runner(kind: str, envs: int, timesteps: int, hidden: int,
                opponents: str) -> Callable[[int], float]:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv
    from torch import nn

    from training.sb3.vec_env import BatchVecEnv

    def run(seed: int) -> float:
        if kind == "batch":
            venv = BatchVecEnv(SingleSeatVectorEnv(envs, _opponents(opponents, True, hidden)))
        else:
            pool = _opponents(opponents, False, hidden)
            fns = [lambda: SingleSeatEnv(pool, factory=make_agent) for _ in range(envs)]
            venv = SubprocVecEnv(fns) if kind == "scalar-subproc" else DummyVecEnv(fns)
        venv.seed(seed)
        n_steps = max(1, 2048 // envs)
        model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=512, n_epochs=1,
                            gamma=1.0, gae_lambda=1.0, seed=seed, device="cpu",
                            policy_kwargs={"net_arch": {"pi": [hidden, hidden],
                                                        "vf": [hidden, hidden]},
                                           "activation_fn": nn.ReLU})
        t0 = _clock()
        model.learn(total_timesteps=timesteps)
        secs = _clock() - t0
        steps = model.num_timesteps
        venv.close()
        return steps / secs

    return run


def _random_actions(masks: np.ndarray, u: np.ndarray) -> np.ndarray:
    counts = masks.sum(axis=1)
    k = (u * counts).astype(np.int64)
    # The k-th legal action of each row: the first index where the running count passes k.
    return (np.cumsum(masks, axis=1) > k[:, None]).argmax(axis=1)


def _raw_scalar(steps: int, opponents: list) -> Callable[[int], float]:
    def run(seed: int) -> float:
        env = SingleSeatEnv(opponents, factory=make_agent)
        rng = np.random.default_rng(seed)
        env.reset(seed=seed)
        t0 = _clock()
        for _ in range(steps):
            a = _random_actions(env.action_masks()[None], rng.random(1))[0]
            _, _, term, _, _ = env.step(a)
            if term:
                env.reset()
        return steps / (_clock() - t0)

    return run


def _raw_batch(envs: int, steps: int, opponents: list) -> Callable[[int], float]:
    def run(seed: int) -> float:
        env = SingleSeatVectorEnv(envs, opponents)
        rng = np.random.default_rng(seed)
        env.reset(seed=seed)
        rounds = max(1, steps // envs)
        t0 = _clock()
        for _ in range(rounds):
            env.step(_random_actions(env.action_masks(), rng.random(envs)))
        return rounds * envs / (_clock() - t0)

    return run


def _measure(contenders: dict[str, Callable[[int], float]], repeats: int,
             seed: int) -> dict[str, float]:
    runs: dict[str, list[float]] = {k: [] for k in contenders}
    for r in range(repeats):
        for name, run in contenders.items():
            runs[name].append(run(seed + r))
    return {k: statistics.median(v) for k, v in runs.items()}


def _table(title: str, medians: dict[str, float], base: Callable[[str], str]) -> None:
    print(f"\n{title}\n")
    print("| contender | learner steps/s | vs scalar |")
    print("|---|---:|---:|")
    for name, v in medians.items():
        ref = medians.get(base(name))
        ratio = f"{v / ref:.1f}x" if ref else "-"
        print(f"| {name} | {v:,.0f} | {ratio} |")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--envs", type=int, nargs="+", default=[8, 64],
                   help="envs (tables) per vector env; one PPO comparison each")
    p.add_argument("--timesteps", type=int, default=16384, help="learner steps per PPO run")
    p.add_argument("--raw-steps", type=int, default=20000, help="learner steps per raw run")
    p.add_argument("--hidden", type=int, default=256, help="width of the two hidden layers")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-subproc", action="store_true", help="skip SubprocVecEnv")
    p.add_argument("--opponents", choices=("random", "network"), default="random",
                   help="who plays the three other seats (see the module docstring)")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="wall time, or this process's CPU time (no SubprocVecEnv then)")
    args = p.parse_args(argv)
    global _clock
    if args.clock == "cpu":
        _clock = time.process_time
        args.no_subproc = True
    torch.set_num_threads(1)
    # Compile (or load) the batched kernels outside every timed region.
    SingleSeatVectorEnv(2).reset(seed=0)
    ppo: dict[str, Callable[[int], float]] = {}
    for n in args.envs:
        kinds = ["scalar"] + ([] if args.no_subproc else ["scalar-subproc"]) + ["batch"]
        for kind in kinds:
            ppo[f"{kind} x{n}"] = _ppo_runner(kind, n, args.timesteps, args.hidden,
                                              args.opponents)
    print(f"MaskablePPO, {args.timesteps} learner steps per run, rollouts of 2048, 1 epoch, "
          f"hidden {args.hidden}x2, {args.opponents} opponents, median of {args.repeats}, "
          f"{args.clock} clock")
    _table("MaskablePPO learn()", _measure(ppo, args.repeats, args.seed),
           lambda name: "scalar x" + name.split(" x")[1])
    raw: dict[str, Callable[[int], float]] = {
        "SingleSeatEnv": _raw_scalar(args.raw_steps // 4,
                                     _opponents(args.opponents, False, args.hidden))}
    for n in sorted(set(args.envs) | {256}):
        raw[f"SingleSeatVectorEnv x{n}"] = _raw_batch(
            n, args.raw_steps, _opponents(args.opponents, True, args.hidden))
    _table(f"Raw env, random learner, {args.opponents} opponents",
           _measure(raw, args.repeats, args.seed),
           lambda name: "SingleSeatEnv")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
