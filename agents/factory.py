"""Build agents from text specs: ``"random"``, ``"greedy"``, ``"pimc:worlds=32"``, ``"policy:PATH"``.

A spec is a registered name, optionally followed by ``:`` and either ``key=value`` options
separated by commas or (for ``policy``) a path. Each builder is registered once in ``BUILDERS``.
"""

from __future__ import annotations

from collections.abc import Callable

from agents.base import Agent, AgentError
from agents.random_agent import RandomAgent

BUILDERS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
}


def _parse_options(name: str, text: str) -> dict[str, object]:
    opts: dict[str, object] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        if "=" not in part:
            raise AgentError(f"agent spec {name!r}: option {part!r} must look like key=value")
        key, value = (s.strip() for s in part.split("=", 1))
        for cast in (int, float):
            try:
                opts[key] = cast(value)
                break
            except ValueError:
                continue
        else:
            opts[key] = value
    return opts


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build an agent from its spec; ``seed`` seeds its random choices."""
    if isinstance(spec, Agent):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise AgentError(f"agent spec must be a non-empty string such as 'random'; got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    if name not in BUILDERS:
        raise AgentError(f"unknown agent {name!r} in spec {spec!r}; known agents: "
                         f"{sorted(BUILDERS)}")
    if name == "policy":
        return BUILDERS[name](rest, seed=seed)
    opts = _parse_options(name, rest)
    try:
        return BUILDERS[name](seed=seed, **opts)
    except TypeError as e:
        raise AgentError(f"agent spec {spec!r}: bad option ({e})") from None
