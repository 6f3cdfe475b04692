"""Drive the Deep Monte-Carlo trainer (``learner.DMCTrainer``) through a run's time budget.

The algorithm lives in the rest of ``training.dmc``; this module is the schedule around it: act
and learn in slices of ``log_interval_s``, and between slices log metrics, add snapshots to
the opponent pool, checkpoint and evaluate, each at its own interval of training time.
Everything it writes goes through the shared run module (``training.run``), so a DMC run
directory has the same files, columns and TensorBoard names as an SB3 one. With
``select_last > 0`` the best of the last periodic policies becomes the run's ``policy.pt``
(``training.select``).
"""

from __future__ import annotations

import shutil
import time

from agents.policy import QNetwork, load_policy_file, save_policy
from gongzhu_env.rules import Rules
from training.cluster import WorkerLostError
from training.config import DMCConfig
from training.dmc.learner import DMCTrainer
from training.dmc.networks import mixed_input
from training.run import (
    EVAL_SEED,
    SELECT_SEED,
    RunDir,
    RunLog,
    TrainingError,
    evaluate_policy,
    load_checkpoint,
    policy_metadata,
    save_checkpoint,
)
from training.select import select_policy, write_selection


def train_dmc(cfg: DMCConfig, run: RunDir, resume: bool, quiet: bool = False, *,
              backend: str = "local", address: str | None = None) -> QNetwork:
    """Run the Deep Monte-Carlo trainer until its budget is used; return the trained network.

    ``backend="ray"``: the actors are Ray actors on the cluster at ``address``
    (``ray_actors``); the run directory is the same.
    """
    rules = cfg.game_rules
    mixed = mixed_input(cfg)
    pool = None
    if backend == "ray":
        from training.dmc.ray_actors import RayActors

        def pool(c: DMCConfig) -> RayActors:
            return RayActors(c, address)

    trainer = DMCTrainer(cfg, actor_pool=pool)
    if resume:
        state = load_checkpoint(run.latest)
        try:
            trainer.load_state_dict(state["trainer"])
        except (KeyError, RuntimeError, ValueError, TypeError) as e:
            raise TrainingError(f"cannot resume from {run.latest}: it does not match this "
                                f"config ({type(e).__name__}: {e})") from None
        if not quiet:
            print(f"resumed from {run.latest} at {trainer.elapsed_s:.0f} s, "
                  f"{trainer.decisions} decisions")
    log = RunLog(run)

    def meta() -> dict:
        return policy_metadata(cfg, trainer.decisions, trainer.elapsed_s, trainer.games)

    def checkpoint(periodic: bool) -> None:
        save_checkpoint(run.latest, trainer.state_dict())
        if periodic:
            save_policy(run.periodic_policy(trainer.decisions), trainer.net, rules,
                        metadata=meta(), mixed=mixed)

    def evaluate() -> None:
        if cfg.eval_deals == 0:
            return  # periodic evaluations off
        t0 = time.perf_counter()
        results = evaluate_policy(trainer.cpu_network(), rules, cfg.eval_opponents, cfg.eval_deals,
                                  EVAL_SEED, mixed=mixed)
        log.evaluations(results, trainer.elapsed_s, trainer.decisions)
        if not quiet:
            txt = "  ".join(f"{r.opponent} {r.stats.mean:+.1f}" for r in results)
            print(f"[eval {trainer.elapsed_s / 60:6.1f} min] {txt} "
                  f"({time.perf_counter() - t0:.0f} s)", flush=True)

    budget = cfg.time_budget_s
    last_log = last_ckpt = last_snap = last_eval = trainer.elapsed_s
    last_dec, last_t = trainer.decisions, trainer.elapsed_s
    last_samples = trainer.samples
    if not resume:
        evaluate()

    def done() -> bool:
        return trainer.elapsed_s >= budget or (
            cfg.total_decisions > 0 and trainer.decisions >= cfg.total_decisions)

    try:
        while not done():
            step = min(cfg.log_interval_s, budget - trainer.elapsed_s)
            trainer.run_for(max(step, 0.01), should_stop=lambda: cfg.total_decisions > 0
                            and trainer.decisions >= cfg.total_decisions)
            now = trainer.elapsed_s
            if now - last_log >= cfg.log_interval_s or done():
                stats = trainer.pop_stats()
                dps = (trainer.decisions - last_dec) / max(1e-9, now - last_t)
                sps = (trainer.samples - last_samples) / max(1e-9, now - last_t)
                log.metrics({"train_s": now, "decisions": trainer.decisions,
                             "decisions_per_s": dps, "samples": trainer.samples,
                             "samples_per_s": sps, "games": trainer.games,
                             "train_steps": trainer.train_steps, "loss": stats["loss"],
                             "mean_return": stats["mean_return"], "epsilon": trainer.epsilon,
                             "snapshots": len(trainer.snapshots)})
                if not quiet:
                    print(f"[{now / 60:6.1f} min] decisions {trainer.decisions:>10,d} "
                          f"({dps:,.0f}/s, {sps:,.0f} samples/s)  loss {stats['loss']:.4f}  eps "
                          f"{trainer.epsilon:.3f}  snapshots {len(trainer.snapshots)}",
                          flush=True)
                last_log, last_dec, last_t = now, trainer.decisions, now
                last_samples = trainer.samples
            if now - last_snap >= cfg.snapshot_interval_s:
                trainer.add_snapshot()
                last_snap = now
            if now - last_ckpt >= cfg.checkpoint_interval_s:
                checkpoint(periodic=True)
                last_ckpt = now
            if now - last_eval >= cfg.eval_interval_s and not done():
                evaluate()
                last_eval = now
    except (KeyboardInterrupt, WorkerLostError):
        # Interrupted, or Ray lost an actor for good: keep what was learnt for --resume.
        trainer.stop_actors()
        checkpoint(periodic=False)
        log.close()
        raise
    except BaseException:
        trainer.stop_actors()
        raise
    trainer.stop_actors()
    checkpoint(periodic=True)
    evaluate()
    log.close()
    save_policy(run.policy, trainer.net, rules, metadata=meta(), mixed=mixed)
    if cfg.select_last > 0:
        return _select(cfg, run, rules, quiet)
    return trainer.cpu_network()


def _select(cfg: DMCConfig, run: RunDir, rules: Rules, quiet: bool) -> QNetwork:
    """Keep the best of the last periodic policies as ``policy.pt`` (``training.select``).

    The final weights stay in ``policy_last.pt``.
    """
    best, cands = select_policy(run.root, cfg.select_last, cfg.select_opponent,
                                cfg.select_deals, SELECT_SEED, rules,
                                average=cfg.select_average)
    chosen = write_selection(run.root, best, cands, cfg.select_opponent, cfg.select_deals,
                             SELECT_SEED)
    shutil.copyfile(run.policy, run.root / "policy_last.pt")
    shutil.copyfile(chosen, run.policy)
    if not quiet:
        print((run.root / "selection.md").read_text(encoding="utf-8"))
    net, _ = load_policy_file(run.policy, rules)
    return net


__all__ = ["train_dmc"]
