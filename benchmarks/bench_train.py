"""Training throughput and policy decision latency.

Throughput: decisions per second consumed by the learner (non-forced moves of learner seats,
each one a training sample) of the Deep Monte-Carlo trainer, for a preset's config, in
single-process mode (``num_actors=0``) and with actor processes. Latency: wall-clock time of
``PolicyAgent.act(view)`` (encode, one forward pass, masked argmax) on views from random hands,
for each network size and for the shipped policy.

    python benchmarks/bench_train.py                 # both, about 2 minutes
    python benchmarks/bench_train.py --seconds 60 --actors 0 1 2 --preset full
    python benchmarks/bench_train.py --latency-only
    python benchmarks/bench_train.py --memory        # bytes per sample and per table
    python benchmarks/bench_train.py --preset full --actors 2 --obs-dtype float32 uint8

``--obs-dtype`` measures the throughput with each observation dtype of the batched engine
(``DMCConfig.obs_dtype``), interleaved with the actor counts; ``--memory`` prints what one
replay sample and one table of the batch hold with each, for each rule set of ``--rules``.

Numbers depend on the machine and on what else runs on it: report them with ``nproc`` and the
load average (printed).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
import torch


def bench_throughput(preset: str, actors: int, seconds: float, engine: str = "auto",
                     overrides: dict | None = None) -> dict[str, float]:
    from training.config import make_config
    from training.dmc import DMCTrainer

    cfg = make_config(preset, "dmc", num_actors=actors, final_eval_deals=0, engine=engine,
                      **(overrides or {}))
    trainer = DMCTrainer(cfg)
    # Warm up: fill the replay past min_replay so that learning is part of the measurement.
    while trainer.replay.size < cfg.min_replay:
        trainer.run_for(1.0)
    sim = trainer.sim
    split0 = _split(trainer)
    d0, s0, t0 = trainer.decisions, trainer.train_steps, time.perf_counter()
    trainer.run_for(seconds)
    dt = time.perf_counter() - t0
    trainer.stop_actors()
    out = {"decisions_per_s": (trainer.decisions - d0) / dt,
           "samples_trained_per_s": (trainer.train_steps - s0) * cfg.batch_size / dt,
           "seconds": dt, "engine": "batch" if cfg.uses_batch_engine() else "scalar"}
    if sim is not None:  # one process: where its time went
        split1 = _split(trainer)
        out.update({k: (split1[k] - split0[k]) / dt for k in split0})
    return out


def _split(trainer) -> dict[str, float]:
    """Seconds so far in the engine (and bookkeeping), forward passes and gradient steps."""
    t = trainer.sim.timings() if trainer.sim is not None else {"env_s": 0.0, "inference_s": 0.0}
    return {"env": t["env_s"], "inference": t["inference_s"],
            "learning": trainer.seconds_learning}


def memory_rows(rules_names: list[str]) -> list[dict[str, object]]:
    """Bytes of one replay sample and of one table's observation buffer, by dtype and rules.

    Measured on the objects a run builds (``ReplayBuffer`` and ``GameBatch`` of the rules'
    sizes), not computed from a formula: ``nbytes`` of their arrays, divided by the rows.
    """
    from gongzhu_env.batch import GameBatch
    from gongzhu_env.rules import Rules
    from gongzhu_env.view import obs_size
    from training.dmc import ReplayBuffer

    rows = []
    for name in rules_names:
        as_json = name.lstrip().startswith("{")
        rules = Rules.coerce(json.loads(name) if as_json else name)
        if as_json:  # a short name for the table
            name = f"{rules.players} seats" + (", 2 decks" if rules.decks == 2 else "")
        replay = ReplayBuffer(1024, np.random.default_rng(0), obs_size(rules), rules.num_actions)
        for dtype in (np.float32, np.uint8):
            batch = GameBatch(64, rules, obs_dtype=dtype)
            rows.append({
                "rules": name, "obs": batch.obs_size, "dtype": np.dtype(dtype).name,
                "batch_obs_per_table": batch.observations.nbytes // batch.num_tables,
                "batch_out_per_table": sum(getattr(batch, a).nbytes for a in (
                    "observations", "action_masks", "current_player", "terminated",
                    "rewards")) // batch.num_tables,
                "replay_per_sample": (replay.obs.nbytes + replay.tgt.nbytes) // replay.capacity,
                "replay_obs_per_sample": replay.obs.nbytes // replay.capacity,
            })
    return rows


def bench_latency(agent, views, repeats: int = 3) -> dict[str, float]:
    times = []
    for _ in range(repeats):
        for v in views:
            t = time.perf_counter()
            agent.act(v)
            times.append(time.perf_counter() - t)
    ms = np.array(times) * 1e3
    return {"mean_ms": float(ms.mean()), "p50_ms": float(np.median(ms)),
            "p99_ms": float(np.percentile(ms, 99))}


def random_views(n_games: int, seed: int):
    from gongzhu_env.engine import Game

    rng = np.random.default_rng(seed)
    views = []
    for _ in range(n_games):
        g = Game(rng=rng)
        while not g.is_over():
            if len(g.legal_actions()) > 1:
                views.append(g.view(g.current_player))
            legal = g.legal_actions()
            g.step(legal[int(rng.integers(len(legal)))])
    return views


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--preset", default="quick")
    p.add_argument("--actors", type=int, nargs="+", default=[0, 1])
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--latency-only", action="store_true")
    p.add_argument("--engine", nargs="+", default=["auto"], choices=["auto", "batch", "scalar"],
                   help="which engine plays the tables (each is measured in turn)")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=JSON",
                   help="override a config field, e.g. --set num_tables=256")
    p.add_argument("--obs-dtype", nargs="+", choices=["uint8", "float32"], default=None,
                   help="observation dtypes of the batched engine to measure in turn "
                        "(default: the preset's)")
    p.add_argument("--memory", action="store_true",
                   help="print bytes per replay sample and per batch table, then stop")
    p.add_argument("--rules", nargs="+", default=["standard", "two_decks"],
                   help="rule sets of --memory (default: standard, two_decks)")
    args = p.parse_args()
    torch.set_num_threads(1)
    if args.memory:
        print(f"{'rules':<12} {'obs':>5} {'dtype':>8} {'batch obs B/table':>18} "
              f"{'batch outputs B/table':>22} {'replay B/sample':>16} {'of which obs':>13}")
        for r in memory_rows(args.rules):
            print(f"{r['rules']:<12} {r['obs']:>5} {r['dtype']:>8} "
                  f"{r['batch_obs_per_table']:>18,} {r['batch_out_per_table']:>22,} "
                  f"{r['replay_per_sample']:>16,} {r['replay_obs_per_sample']:>13,}")
        return
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()}")
    from agents.policy import (
        PRETRAINED_DIR,
        PRETRAINED_FILE,
        PolicyAgent,
        QNetwork,
        load_policy_agent,
    )
    from training.config import make_config

    views = random_views(20, 0)
    print(f"\npolicy decision latency over {len(views)} views x 3 (torch threads 1):")
    for preset in ("quick", "full"):
        cfg = make_config(preset)
        net = QNetwork(hidden=cfg.hidden, card_features=cfg.card_features,
                       holder_features=cfg.holder_features)
        r = bench_latency(PolicyAgent(net), views)
        print(f"  {preset:8s} hidden={cfg.hidden} card_features={cfg.card_features}: "
              f"mean {r['mean_ms']:.3f} ms, "
              f"p50 {r['p50_ms']:.3f} ms, p99 {r['p99_ms']:.3f} ms")
    if (PRETRAINED_DIR / PRETRAINED_FILE).exists():
        r = bench_latency(load_policy_agent("pretrained"), views)
        print(f"  pretrained ({PRETRAINED_FILE}): mean {r['mean_ms']:.3f} ms, "
              f"p50 {r['p50_ms']:.3f} ms, p99 {r['p99_ms']:.3f} ms")
    if args.latency_only:
        return
    overrides = {}
    for item in args.set:
        key, _, value = item.partition("=")
        overrides[key] = json.loads(value)
    print(f"\nDMC training throughput, preset {args.preset}, {args.seconds:.0f} s each"
          f"{', ' + str(overrides) if overrides else ''}:")
    dtypes = args.obs_dtype or [None]
    runs = [(engine, actors, dtype) for engine in args.engine for actors in args.actors
            for dtype in dtypes]
    for engine, actors, dtype in runs:
        extra = dict(overrides) if dtype is None else {**overrides, "obs_dtype": dtype}
        r = bench_throughput(args.preset, actors, args.seconds, engine, extra)
        shown = extra.get("obs_dtype", make_config(args.preset).obs_dtype)
        line = (f"  engine={r['engine']:6s} actors={actors} obs_dtype={shown}: "
                f"{r['decisions_per_s']:,.0f} learner decisions/s, "
                f"{r['samples_trained_per_s']:,.0f} samples trained/s")
        if "env" in r:
            line += (f"; share of wall clock: env {r['env']:.0%}, inference "
                     f"{r['inference']:.0%}, learning {r['learning']:.0%}")
        print(line, flush=True)


if __name__ == "__main__":
    main()
