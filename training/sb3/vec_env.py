"""Stable-Baselines3 on the batched engine: ``BatchVecEnv``, an SB3 ``VecEnv`` of batched tables.

``BatchVecEnv(SingleSeatVectorEnv(...))`` makes ``gongzhu_env.vector_env.SingleSeatVectorEnv``
(one learner seat at each of ``num_envs`` tables of the compiled engine, the opponents played
in batch) a ``stable_baselines3.common.vec_env.VecEnv``, so that SB3 and sb3-contrib train on it
directly, in one process, without one Python env per table:

>>> from sb3_contrib import MaskablePPO
>>> from gongzhu_env.vector_env import SingleSeatVectorEnv
>>> from training.sb3.vec_env import BatchVecEnv
>>> venv = BatchVecEnv(SingleSeatVectorEnv(64, ["random"]))
>>> model = MaskablePPO("MlpPolicy", venv, n_steps=32).learn(4096)  # doctest: +SKIP

Masks: sb3-contrib's ``MaskablePPO`` reads them from a ``VecEnv`` with
``np.stack(venv.env_method("action_masks"))`` (``sb3_contrib.common.maskable.utils
.get_action_masks``) after checking ``venv.has_attr("action_masks")``; here ``env_method
("action_masks")`` returns the rows of the vector env's ``(num_envs, num_actions)`` bool mask
(53 actions, 105 at two decks), one per table. Any other ``env_method`` or
``get_attr``/``set_attr`` is passed to the one vector env (once, whatever ``indices`` say) and
its result repeated per table, e.g. ``venv.env_method("set_opponents", pool, weights)``.

Episodes: SB3's ``VecEnv`` autoresets in the same step, as the vector env does (Gymnasium's
``AutoresetMode.SAME_STEP``). For a finished table the step's info holds
``"terminal_observation"`` (the learner's view of the finished hand), ``"TimeLimit.truncated"``
(always False: hands are never cut), ``"scores"`` and ``"seat"`` (the learner's seat in it).
Seeds: ``venv.seed(s)`` seeds the next ``reset`` of the whole batch with ``s`` (SB3 gives table
``i`` the seed ``s + i``; one generator drives all the tables here, so only ``s`` is used).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices

from gongzhu_env.vector_env import SingleSeatVectorEnv


class BatchVecEnv(VecEnv):
    """An SB3 ``VecEnv`` over one ``SingleSeatVectorEnv``; see the module docstring."""

    def __init__(self, env: SingleSeatVectorEnv) -> None:
        if not isinstance(env, SingleSeatVectorEnv):
            raise TypeError(f"BatchVecEnv wraps a SingleSeatVectorEnv; got {type(env).__name__}")
        self.env = env
        self._actions: np.ndarray | None = None
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)

    # ------------------------------------------------------------------ stepping
    def reset(self) -> np.ndarray:
        """Reset every table (with the seed given to ``seed()``, if any)."""
        obs, info = self.env.reset(seed=self._seeds[0])
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{"seat": int(s)} for s in info["seat"]]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        """Keep the actions for ``step_wait`` (the step runs there, in this process)."""
        self._actions = actions

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Play the kept actions; return observations, rewards, dones and per-table infos."""
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        actions = np.asarray(self._actions)
        self._actions = None
        if actions.shape == (self.num_envs, 1):
            actions = actions.reshape(-1)
        obs, rewards, terminated, truncated, info = self.env.step(actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final = info["final_info"]
            for i in np.flatnonzero(dones):
                infos[i] = {"terminal_observation": info["final_obs"][i],
                            "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                            "scores": final["scores"][i].tolist(),
                            "seat": int(final["seat"][i])}
        return obs, rewards, dones, infos

    def close(self) -> None:
        """Close the vector env."""
        self.env.close()

    # ------------------------------------------------------------------ attributes, methods
    def _count(self, indices: VecEnvIndices) -> int:
        return len(list(self._get_indices(indices)))

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """Return the vector env's attribute once per table asked for."""
        if attr_name == "render_mode":
            return [None] * self._count(indices)
        return [getattr(self.env, attr_name)] * self._count(indices)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of the vector env (shared by every table)."""
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        """``"action_masks"``: each table's mask row; any other method: called once."""
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.env.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(idx)

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        """No table is a wrapped gymnasium env."""
        return [False] * self._count(indices)

    def get_images(self) -> Sequence[np.ndarray | None]:
        """Nothing to draw."""
        return [None] * self.num_envs

    def action_masks(self) -> np.ndarray:
        """Return the learners' legal actions, ``bool[num_envs, num_actions]``."""
        return self.env.action_masks()


__all__ = ["BatchVecEnv"]
