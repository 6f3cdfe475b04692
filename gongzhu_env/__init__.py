"""Gong Zhu (拱猪, "Chase the Pig") as a PettingZoo environment.

``env(**kwargs)`` is the wrapped AEC environment, ``raw_env`` the bare one; the game itself is
``gongzhu_env.engine.Game`` and the rule options are ``Rules``.
"""

from gongzhu_env.engine import Game, IllegalActionError
from gongzhu_env.rules import Rules

# Bound after the submodule import on purpose: ``gongzhu_env.env`` names the factory function.
from gongzhu_env.env import env, raw_env  # noqa: E402,I001

__all__ = ["Game", "IllegalActionError", "Rules", "env", "raw_env"]
