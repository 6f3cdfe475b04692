"""Digests of the trainers' seeded streams, to compare two versions of the code.

Run from the repository root (``python -m benchmarks.stream_digests``) at one commit and at
another: a change to ``training/`` or to the envs that claims to keep behaviour must print the
same lines. Each line is a SHA-256 prefix of

* the Deep Monte-Carlo sample stream: the replay buffer's observations and targets after
  ``--steps`` calls of ``step_tables`` of a ``tiny`` trainer playing in this process
  (``num_actors=0``, seed ``--seed``, the learner's decision count handed to its simulator as
  the training loop does), on the scalar and on the batched engine;
* ``SingleSeatEnv`` episodes: ``--env-steps`` steps of uniformly random legal actions against
  ``random`` and ``expert`` opponents from ``reset(seed=--seed)``;

for each rule set of ``--rules``. Nothing is trained: the network is the fresh one of the seed.
"""

from __future__ import annotations

import argparse
import hashlib

import numpy as np

from agents import make_agent
from gongzhu_env.wrappers import SingleSeatEnv
from training.config import make_config
from training.dmc import DMCTrainer


def dmc_digest(rules: str, engine: str, steps: int, seed: int) -> str:
    """Digest of a tiny in-process DMC trainer's samples after ``steps`` table steps."""
    # device="cpu": the digests are of the CPU path on any machine, GPU or not.
    trainer = DMCTrainer(make_config("tiny", "dmc", rules=rules, engine=engine, num_actors=0,
                                     seed=seed, device="cpu"))
    sim = trainer.sim
    assert sim is not None  # num_actors=0: the tables are played in this process
    for _ in range(steps):
        before = sim.decisions
        sim.step_tables()
        trainer.decisions += sim.decisions - before
        sim.global_decisions = trainer.decisions
    replay = trainer.replay
    n = replay.size
    if not n:
        return "0 samples: no hand finished yet, raise --steps"
    h = hashlib.sha256(replay.obs[:n].tobytes())
    h.update(np.nan_to_num(replay.tgt[:n], nan=-9.0).tobytes())
    return f"{n} samples {h.hexdigest()[:16]}"


def env_digest(rules: str, steps: int, seed: int) -> str:
    """Digest of ``SingleSeatEnv`` observations and rewards over ``steps`` random steps."""
    env = SingleSeatEnv(opponents=["random", "expert"], factory=make_agent, rules=rules)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, _ = env.step(action)
        h.update(np.asarray(obs).tobytes() + repr(float(reward)).encode())
        if terminated or truncated:
            obs, _ = env.reset()
    return h.hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    """Print one digest line per stream."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rules", default="standard,scrofazero",
                   help="rules presets, comma separated (default standard,scrofazero)")
    p.add_argument("--steps", type=int, default=60, help="table steps of each DMC stream")
    p.add_argument("--env-steps", type=int, default=400, help="steps of each env stream")
    p.add_argument("--seed", type=int, default=11)
    args = p.parse_args(argv)
    for flag, value in (("--steps", args.steps), ("--env-steps", args.env_steps)):
        if not 1 <= value <= 100_000:
            p.error(f"{flag} must be an integer 1..100,000; got {value}")
    for rules in filter(None, (r.strip() for r in args.rules.split(","))):
        for engine in ("scalar", "batch"):
            print(f"dmc {rules} {engine}: {dmc_digest(rules, engine, args.steps, args.seed)}")
        print(f"single-seat env {rules}: {env_digest(rules, args.env_steps, args.seed)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
