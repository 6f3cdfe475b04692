"""Gong Zhu (拱猪, "Chase the Pig") as a PettingZoo environment.

``env(**kwargs)`` is the wrapped AEC environment, ``raw_env`` the bare one; the game itself is
``gongzhu_env.engine.Game`` (one hand) and ``gongzhu_env.match.Match`` (hands until a player
reaches the match threshold); the rule options are ``Rules``.

Note: ``from gongzhu_env import env`` is the factory function. The module of the same name is
imported first and its name is then rebound to the function, as PettingZoo users expect.
"""

from gongzhu_env.engine import Game, IllegalActionError
from gongzhu_env.env import env, raw_env
from gongzhu_env.match import Match
from gongzhu_env.rules import Rules

__version__ = "0.1.0"
"""The release of the ``gongzhu-rl`` distribution, written only here: pyproject.toml reads it
(``tool.setuptools.dynamic``); tests/test_release.py holds CHANGELOG.md and CITATION.cff to it."""

__all__ = ["Game", "IllegalActionError", "Match", "Rules", "env", "raw_env"]
