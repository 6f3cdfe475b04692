"""The upper bound of every number a config holds.

Every number of a config has an upper bound as well as a lower one. A value past it cannot be
meant (or would take the machine down rather than train), and validation refuses it at once, on
a new config and on a run's ``config.json`` read back for ``--resume`` alike. The bounds live
apart from the classes because the checkers (``training.config.checks``) look them up by field
name for every config of the package, the recipes' settings included.
"""

from __future__ import annotations

from training.arguments import MAX_SEED

# MAX_SEED (below 2**32: numpy's global generator and stable-baselines3) is the bound of every
# command's --seed as well, so it is defined with the command lines' shared arguments.
MAX_THREADS = 256
"""Most torch threads. torch starts one operating-system thread per count the first time it
runs a parallel product; past the machine's cores they only spin against each other (see
``TrainerConfig.torch_threads``), and a count in the hundreds of thousands exhausts the system's
thread limit and kills the process with a segmentation fault. 256 covers the largest single
machines; a config stays valid on every machine, so the bound does not follow this one's
core count."""
MAX_ACTORS = 256
"""Most actors. Each is a process (or a Ray actor) with its own copy of the network and its
``num_tables`` tables; one or two fill a two-core machine, and 256 is more than a cluster of
this project's size runs."""
MAX_TABLES = 16_384
"""Most tables played in lockstep (``num_tables``, SB3's ``n_envs``). Every table's
observations go through one forward pass at a time: 16,384 tables of four seats of the
standard game's 1,120 network inputs are about 300 MB of float32 per pass, 128 times the
quick preset's tables."""
MAX_REPLAY = 2**20
"""Most samples in the replay buffer: at the standard game's 812 bytes a sample (600 observation
bytes and 53 float32 targets) about 850 MB, more at the largest tables; eight times the
presets' 131,072."""
MAX_BATCH = 65_536
"""Most samples in one gradient step or one actor message (``batch_size``, ``actor_chunk``):
a batch's activations are held for the backward pass, about 300 MB at this size for the
standard game, 64 times the quick preset's minibatch."""
MAX_ROLLOUT = 2**18
"""Most samples of one PPO rollout (SB3's ``n_steps * n_envs``), all held in its buffer as
float32 observations: about 650 MB for the standard game, 128 times the quick preset's."""
MAX_EPOCHS = 100
"""Most PPO epochs per rollout (the presets use 1 to 4); more would spend a run's budget
relearning one rollout."""
MAX_SNAPSHOTS = 64
"""Most frozen networks in the opponent pool (each a full copy of the network; the presets
keep 5 to 8)."""
MAX_CANDIDATES = 64
"""Most periodic policies compared by checkpoint selection (each plays ``select_deals``)."""
MAX_MATCH_HANDS = 10_000
"""Highest cap on a match's hands; a match to the threshold ends in a few dozen hands."""
MAX_STEPS = 10**12
"""Highest count of decisions or steps (budgets, schedules, intervals counted in steps):
months of training at the fastest measured rate, past any run."""
MAX_SECONDS = 30 * 24 * 3600.0
"""Longest time budget or interval, a month: the longest preset trains 90 minutes."""
MAX_FACTOR = 1e6
"""Largest scale, clip, weight or norm (``reward_scale``, ``reward_clip``, ``max_grad_norm``,
``rollout_level_weight``, ``ent_coef``): past it the float32 targets, losses and gradients
lose their precision or overflow."""
MAX_REUSE = 100.0
"""Most gradient steps per sample on average (``sample_reuse``; the presets use 1 or 2)."""
MAX_OPPONENTS = 64
"""Most entries of an opponent mix or an evaluation's baselines (each builds its agent)."""

_BOUNDS: dict[str, float] = {
    "seed": MAX_SEED, "torch_threads": MAX_THREADS, "num_actors": MAX_ACTORS,
    "num_tables": MAX_TABLES, "n_envs": MAX_TABLES, "replay_size": MAX_REPLAY,
    "min_replay": MAX_REPLAY, "batch_size": MAX_BATCH, "actor_chunk": MAX_BATCH,
    "n_steps": MAX_ROLLOUT, "n_epochs": MAX_EPOCHS, "snapshot_pool_size": MAX_SNAPSHOTS,
    "select_last": MAX_CANDIDATES, "max_hands": MAX_MATCH_HANDS,
    **dict.fromkeys(("epsilon_decay_decisions", "total_decisions", "total_timesteps",
                     "snapshot_interval_steps", "checkpoint_interval_steps",
                     "eval_interval_steps"), MAX_STEPS),
    **dict.fromkeys(("time_budget_s", "snapshot_interval_s", "checkpoint_interval_s",
                     "log_interval_s", "eval_interval_s", "sync_interval_s", "train_s"),
                    MAX_SECONDS),
    **dict.fromkeys(("reward_scale", "reward_clip", "max_grad_norm", "rollout_level_weight",
                     "ent_coef"), MAX_FACTOR),
    "sample_reuse": MAX_REUSE, "lr": 1.0,
}
"""The upper bound of each bounded numeric field by name (deal counts take the arena's
``MAX_DEALS``; a learning rate above 1 makes Adam diverge at the first step). A name means one
thing in every config of the package, so one table serves them all."""


def bound_of(name: str) -> float | None:
    """Return the upper bound of a numeric field by its name (``None``: the caller bounds it)."""
    if name.endswith("_deals"):
        from training.arena.deals import MAX_DEALS  # the most deals the arena reads

        return MAX_DEALS
    return _BOUNDS.get(name)
