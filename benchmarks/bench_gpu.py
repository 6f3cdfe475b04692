"""Deep Monte-Carlo learner throughput on a device, and a check of the CUDA path end to end.

Throughput: for the ``full`` preset's network (512-256, card features), on the device
``--device`` resolves to (``agents.devices``: ``auto`` is CUDA where torch sees it), the
learner's decisions/s (non-forced moves of learner seats, each one a sample), the samples it
takes in per second and the samples its gradient steps train on per second, at each actor count
of ``--actors`` for ``--seconds`` each (after the replay buffer has filled past
``min_replay``), then the time the measured rate needs for 55 M learner decisions (the size of
the shipped self-play run, ``policy:gongzhu_dmc_full_selfplay.pt``). A learner-only line
first says how many gradient steps a second the device takes with nothing else running: the
ceiling that actors can feed at best. The actors always play on the CPU (``TrainerConfig.device``
says why), so on a GPU machine the actor count is what to vary.

Check (``--check``): where torch sees a CUDA device, a few seconds of training of a small run on
it (in-process tables, whose acting network is a CPU copy, and one actor process), a
snapshot, a checkpoint resumed, the policy saved, reloaded on the CPU with ``map_location``
and on the GPU, and the two scoring the same views alike. Without CUDA it says so plainly ("no
CUDA device: CPU figures only") and runs the same steps on the CPU.

On a rented GPU machine, in one go (about 6 minutes with the defaults and ``--actors 1 2 4 8``)::

    python -m benchmarks.bench_gpu --check --actors 1 2 4 8 --seconds 60

Here (no GPU, two shared cores), small settings::

    python -m benchmarks.bench_gpu --check --actors 1 --seconds 10

Numbers depend on the machine and on what else runs on it: the report starts with the cores,
the load average, torch's build and the devices it sees.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

SHIPPED_RUN_DECISIONS = 55_000_000
"""Learner decisions of the shipped self-play run (``gongzhu_dmc_full_selfplay.pt``)."""


def make(preset: str, actors: int, device: str, overrides: dict[str, Any]) -> Any:
    """Build the benchmark's config: the preset's network, no final evaluation."""
    from training.config import make_config

    return make_config(preset, "dmc", num_actors=actors, final_eval_deals=0, device=device,
                       **overrides)


def learner_only(preset: str, device: str, seconds: float,
                 overrides: dict[str, Any]) -> dict[str, float]:
    """Gradient steps per second on random buffer contents, with no table played at all."""
    from training.dmc import DMCTrainer

    cfg = make(preset, 1, device, overrides)  # actors are never started here
    trainer = DMCTrainer(cfg)
    rng = np.random.default_rng(0)
    n = max(cfg.min_replay, cfg.batch_size) * 2
    obs = (rng.random((n, trainer.net.obs_size)) < 0.1).astype(np.uint8) * 255
    tgt = np.full((n, trainer.net.num_actions), np.nan, dtype=np.float32)
    tgt[np.arange(n), rng.integers(trainer.net.num_actions, size=n)] = rng.normal(size=n)
    trainer.replay.add(obs, tgt)
    for _ in range(3):  # warm-up: kernels, allocator, autocast caches
        trainer.train_step()
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        trainer.train_step()
        steps += 1
    dt = time.perf_counter() - t0
    return {"steps_per_s": steps / dt, "samples_trained_per_s": steps * cfg.batch_size / dt}


def throughput(preset: str, actors: int, device: str, seconds: float,
               overrides: dict[str, Any]) -> dict[str, float]:
    """Decisions, samples in and samples trained per second of a learner with ``actors``."""
    from training.dmc import DMCTrainer

    cfg = make(preset, actors, device, overrides)
    trainer = DMCTrainer(cfg)
    try:
        while trainer.replay.size < cfg.min_replay:  # learning is part of the measurement
            trainer.run_for(1.0)
        d0, s0, k0 = trainer.decisions, trainer.samples, trainer.train_steps
        t0 = time.perf_counter()
        trainer.run_for(seconds)
        dt = time.perf_counter() - t0
    finally:
        trainer.stop_actors()
    return {"decisions_per_s": (trainer.decisions - d0) / dt,
            "samples_per_s": (trainer.samples - s0) / dt,
            "samples_trained_per_s": (trainer.train_steps - k0) * cfg.batch_size / dt}


def hours_for(decisions: float, per_s: float) -> str:
    """Say how long ``decisions`` take at ``per_s`` a second."""
    if per_s <= 0:
        return "never (no decisions measured)"
    return f"{decisions / per_s / 3600:.1f} h"


def check(device: str) -> bool:
    """Train a little on ``device``, save, reload on the CPU (and the device); say what passed."""
    from agents.devices import cpu_state_dict
    from agents.policy import load_policy_agent, save_policy
    from benchmarks.bench_train import random_views
    from training.dmc import DMCTrainer
    from training.run import load_checkpoint, save_checkpoint

    ok = True

    def report(name: str, passed: bool, detail: str = "") -> None:
        nonlocal ok
        ok &= passed
        print(f"  [{'ok' if passed else 'FAILED'}] {name}{': ' + detail if detail else ''}",
              flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        for actors in (0, 1):
            cfg = make("tiny", actors, device, {"time_budget_s": 60.0})
            trainer = DMCTrainer(cfg)
            where = next(trainer.net.parameters()).device
            try:
                trainer.run_for(3.0)
                trainer.add_snapshot()
                trainer.run_for(1.0)
            finally:
                trainer.stop_actors()
            snap = next(trainer.snapshots[-1].parameters()).device
            acting = trainer.acting_net
            if actors:
                players = "the actor processes act with CPU copies"
            elif acting is None:
                players = "the in-process tables act with the learner's own network"
            else:
                players = ("the in-process tables act with a copy on "
                           f"{next(acting.parameters()).device}")
            report(f"{actors} actor(s): trained on {where}",
                   trainer.train_steps > 0 and where.type == trainer.device.type,
                   f"{trainer.decisions:,} decisions, {trainer.train_steps} steps, snapshot on "
                   f"{snap}; {players}")
            if actors == 0 and trainer.device.type != "cpu":
                report("in-process tables act on the CPU", acting is not None and
                       next(acting.parameters()).device.type == "cpu")
            state = trainer.state_dict()
            path = Path(tmp) / f"ckpt{actors}.pt"
            save_checkpoint(path, state)
            report("checkpoint holds CPU tensors",
                   all(t.device.type == "cpu" for t in state["net"].values()))
            again = DMCTrainer(cfg)
            again.load_state_dict(load_checkpoint(path)["trainer"])
            same = all(torch.equal(a, b) for a, b in zip(cpu_state_dict(again.net).values(),
                                                          cpu_state_dict(trainer.net).values(),
                                                          strict=True))
            report("checkpoint resumes on the device with the same weights", same)
        policy = save_policy(Path(tmp) / "policy.pt", trainer.net, cfg.game_rules)
        data = torch.load(policy, map_location="cpu", weights_only=True)
        report("policy file holds CPU tensors",
               all(t.device.type == "cpu" for t in data["state_dict"].values()))
        on_cpu = load_policy_agent(policy, rules=cfg.game_rules, device="cpu")
        on_dev = load_policy_agent(policy, rules=cfg.game_rules, device=device)
        views = random_views(3, 0)
        diff = max(float(np.abs(on_cpu.scores(v) - on_dev.scores(v)).max()) for v in views)
        report(f"policy reloaded on cpu and on {on_dev.device}: same scores", diff < 1e-3,
               f"largest difference {diff:.2e} over {len(views)} views")
    return ok


def main() -> None:
    """Report the device, check it if asked, then measure each actor count."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N")
    p.add_argument("--preset", default="full")
    p.add_argument("--actors", type=int, nargs="+", default=[1, 2, 4])
    p.add_argument("--seconds", type=float, default=60.0, help="measured seconds per count")
    p.add_argument("--check", action="store_true",
                   help="first check the CUDA path end to end (the CPU's without CUDA)")
    p.add_argument("--no-throughput", action="store_true", help="only the check")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=JSON",
                   help="override a config field, e.g. --set num_tables=256")
    args = p.parse_args()
    from agents.devices import DeviceError, cuda_found, resolve_device
    from training.dmc import resolve_precision

    try:
        device = resolve_device(args.device, "--device")
    except DeviceError as e:
        raise SystemExit(f"error: {e}") from None
    overrides = {k: json.loads(v) for k, _, v in (s.partition("=") for s in args.set)}
    cfg = make(args.preset, 1, args.device, overrides)
    dtype = resolve_precision(cfg.precision, device.type)
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()}")
    print(f"{cuda_found()}; --device {args.device} -> {device}")
    print(f"preset {args.preset}: hidden {cfg.hidden}, card features {cfg.card_features}, "
          f"batch {cfg.batch_size}, precision {cfg.precision} -> {dtype} products", flush=True)
    if args.check:
        if device.type != "cuda":
            print("\nno CUDA device: CPU figures only (the check below runs on the CPU)")
        print(f"\ncheck on {device}:")
        if not check(args.device):
            raise SystemExit("the check FAILED (see above)")
    if args.no_throughput:
        return
    r = learner_only(args.preset, args.device, min(args.seconds, 20.0), overrides)
    print(f"\nlearner alone on {device}: {r['steps_per_s']:,.1f} steps/s = "
          f"{r['samples_trained_per_s']:,.0f} samples trained/s (the ceiling actors can feed)")
    print(f"\nDMC training on {device}, preset {args.preset}, {args.seconds:g} s each"
          f"{', ' + str(overrides) if overrides else ''}:", flush=True)
    for actors in args.actors:
        r = throughput(args.preset, actors, args.device, args.seconds, overrides)
        print(f"  actors={actors}: {r['decisions_per_s']:,.0f} learner decisions/s, "
              f"{r['samples_per_s']:,.0f} samples/s in, {r['samples_trained_per_s']:,.0f} "
              f"samples trained/s; {SHIPPED_RUN_DECISIONS / 1e6:.0f} M decisions in "
              f"{hours_for(SHIPPED_RUN_DECISIONS, r['decisions_per_s'])}", flush=True)


if __name__ == "__main__":
    main()
