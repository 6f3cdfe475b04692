"""Players for Gong Zhu behind one interface: ``act(view) -> action``.

``make_agent(spec, seed=...)`` builds any of them from a string. The ladder, weakest first:
``"random"``, ``"greedy"``, ``"expert"``, ``"pimc"`` (options: ``"pimc:worlds=32,rollout=expert"``);
``"policy:PATH"`` loads a trained network (``agents.policy``, needs the training extra), and
``"search"`` searches sampled worlds with one (``agents.search``, options such as
``"search:worlds=32,depth=0"``); ``"ismcts:sims=24"`` is OpenSpiel's IS-MCTS on the game
``gongzhu_env.openspiel`` (``agents.ismcts``, needs the openspiel extra).
"""

from agents.base import Agent, AgentError
from agents.expert import ExpertAgent
from agents.factory import make_agent
from agents.greedy import GreedyAgent
from agents.pimc import PimcAgent
from agents.random_agent import RandomAgent

__all__ = ["Agent", "AgentError", "ExpertAgent", "GreedyAgent", "PimcAgent", "RandomAgent",
           "make_agent"]
