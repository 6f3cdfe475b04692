"""Players for Gong Zhu behind one interface: ``act(view) -> action``.

``make_agent(spec, seed=...)`` builds any of them from a string such as ``"random"``.
"""

from agents.base import Agent, AgentError
from agents.factory import make_agent

__all__ = ["Agent", "AgentError", "make_agent"]
