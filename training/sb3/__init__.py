"""MaskablePPO (sb3-contrib) on the single-seat envs: the library route, kept next to DMC.

==========  ==========================================================================
``train``   ``train_sb3``: PPO against the opponent mix, snapshots, checkpoints, evals;
            ``actor_network`` copies the PPO actor into this project's policy format
``vec_env`` ``BatchVecEnv``: an SB3 ``VecEnv`` over the batched engine's vector env
==========  ==========================================================================

``vec_env`` imports Stable-Baselines3 at its top; import it from there when you need it.
"""

from training.sb3.train import actor_network, train_sb3

__all__ = ["actor_network", "train_sb3"]
