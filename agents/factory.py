"""Build agents from text specs such as ``"pimc:worlds=32"``, ``"search"``, ``"policy:PATH"``.

A spec is a registered name, optionally followed by ``:`` and either ``key=value`` options
separated by commas or (for ``policy``) a path, which may be followed by the policy's own
options (``POLICY_OPTIONS``: ``policy:runs/x/policy.pt,device=cuda``). Each builder is
registered once in ``BUILDERS``.

The rule agents and ``pimc`` are one class each for every table: they read every card set
copy by copy. A strategy built differently per deck count (``search``, whose network is
trained for one table) is registered under one name in ``BUILDERS`` by deck count; this module
picks the builder for the table's rules. Given the rules, ``make_agent`` builds that class;
without them it builds a ``TableAgent``, which builds its strategy when it first meets the
table's rules (``reset`` or the first view) and keeps one per deck count it meets.
A key may be given once; ``seed`` and ``rules`` are not options (``make_agent`` passes them),
and each agent bounds its own numeric options (``pimc:worlds`` at most ``MAX_WORLDS``...), so a
spec either builds an agent whose decisions end or is refused with the reason.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from agents.base import Agent, AgentError, table_error
from agents.expert import ExpertAgent
from agents.greedy import GreedyAgent
from agents.pimc import PimcAgent
from agents.random_agent import RandomAgent

if TYPE_CHECKING:
    from gongzhu_env.rules import Rules
    from gongzhu_env.view import PlayerView


POLICY_OPTIONS = ("device",)
"""Options a ``policy:PATH`` spec may end with (``,key=value`` after the path): ``device``,
where its network runs (``agents.devices``: ``cpu``, the default, ``auto``, ``cuda``,
``cuda:N``)."""


def policy_spec_parts(text: str) -> tuple[str, dict[str, object]]:
    """Split ``PATH[,key=value...]`` into the path and the trailing ``POLICY_OPTIONS``.

    Only a trailing part that names one of ``POLICY_OPTIONS`` is an option, so a path that
    holds a comma still loads as it did before options existed.
    """
    path = text
    opts: dict[str, object] = {}
    while True:
        head, sep, tail = path.rpartition(",")
        key, eq, value = (part.strip() for part in tail.partition("="))
        if not sep or not eq or key not in POLICY_OPTIONS:
            return path, opts
        if key in opts:
            raise AgentError(f"agent spec 'policy:{text}': option {key!r} is given twice; give "
                             "it once")
        opts[key] = value
        path = head


def _build_policy(path: str, seed: int | None = None, rules: Rules | None = None) -> Agent:
    """Load a trained policy from ``path`` through ``agents.policy.load_policy_agent``.

    ``rules`` are the table's: a file trained for other rules is refused now, not mid-match.
    ``path`` may end with ``POLICY_OPTIONS`` (``,device=cuda``).

    The policy module needs the training extra (torch); it is imported only when asked for,
    so the rule agents stay usable without it.
    """
    path, opts = policy_spec_parts(path)
    if not path.strip():
        raise AgentError("agent spec 'policy' needs a checkpoint path: 'policy:PATH'")
    try:
        module = importlib.import_module("agents.policy")
    except ModuleNotFoundError as e:
        raise AgentError(
            f"agent spec 'policy:{path}' needs the module agents.policy (trained-policy "
            f"loader), which could not be imported: {e}. Install the [train] extra, or "
            "check that agents/policy.py exists."
        ) from None
    loader = getattr(module, "load_policy_agent", None)
    if loader is None:
        raise AgentError("agents.policy has no load_policy_agent(path, seed=...) function")
    return loader(path.strip(), seed=seed, rules=rules, **opts)


def _build_search(seed: int | None = None, rules: Rules | None = None,
                  **options: object) -> Agent:
    """Build the network-guided search agent (``agents.search``), which needs torch.

    Imported when asked for, like ``policy``; ``rules`` check its network at construction.
    """
    try:
        module = importlib.import_module("agents.search")
    except ModuleNotFoundError as e:
        raise AgentError(f"agent spec 'search' needs torch (the [train] extra), which could "
                         f"not be imported: {e}") from None
    return module.SearchAgent(seed=seed, rules=rules, **options)


def _build_ismcts(seed: int | None = None, **options: object) -> Agent:
    """Build OpenSpiel's IS-MCTS player (``agents.ismcts``), which needs the [openspiel] extra."""
    from agents.ismcts import IsmctsAgent

    return IsmctsAgent(seed=seed, **options)  # type: ignore[arg-type]


Builder = Callable[..., Agent]

BUILDERS: dict[str, Builder | dict[int, Builder]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "expert": ExpertAgent,
    "pimc": PimcAgent,
    "policy": _build_policy,
    "search": {1: _build_search, 2: _build_search},
    "ismcts": _build_ismcts,
}
"""Each agent name's builder; a strategy that differs by table maps ``rules.decks`` to its
builder for those tables."""


def _for_table(name: str, builders: dict[int, Builder], decks: int) -> Builder:
    """Return ``name``'s builder for tables of ``decks`` decks, or raise ``AgentError``."""
    try:
        return builders[decks]
    except KeyError:
        raise AgentError(table_error(name, tuple(builders), decks)) from None


class TableAgent(Agent):
    """An agent whose strategy is picked from the table's rules when it first meets them.

    ``make_agent(spec)`` without rules builds one for a name with a strategy per deck count.
    It acts as the strategy of the table it sits at, built with the same seed and options
    (checked at once: the one-deck strategy is built up front).
    """

    def __init__(self, name: str, builders: dict[int, Builder], seed: int | None,
                 options: dict[str, object]) -> None:
        super().__init__(seed)
        self.kind = name
        self.builders = builders
        self.options = options
        first = min(builders)
        self.strategies: dict[int, Agent] = {first: builders[first](seed=seed, **options)}
        self.current = first
        self.name = self.strategies[first].name

    def __getattr__(self, name: str) -> object:
        # Options and state of the strategy (``worlds``, ``objective`` ...) read as its own;
        # the one-deck strategy's until another table is met.
        strategies = self.__dict__.get("strategies")
        if not strategies or name.startswith("__"):
            raise AttributeError(name)
        return getattr(strategies[self.__dict__["current"]], name)

    def strategy(self, rules: Rules) -> Agent:
        """Return the strategy for tables of ``rules`` (built the first time it is needed)."""
        agent = self.strategies.get(rules.decks)
        if agent is None:
            build = _for_table(self.kind, self.builders, rules.decks)
            agent = self.strategies[rules.decks] = build(seed=self.seed, **self.options)
        self.current = rules.decks
        return agent

    def reseed(self, seed: int | None) -> None:
        """Re-seed this agent and every strategy it has built."""
        super().reseed(seed)
        for agent in getattr(self, "strategies", {}).values():
            agent.reseed(seed)

    def reset(self, seat: int, rules: Rules) -> None:
        """Start a hand with the strategy of this table."""
        self.strategy(rules).reset(seat, rules)

    def act(self, view: PlayerView) -> int:
        """Act as the strategy of this view's table."""
        return self.strategy(view.rules).act(view)

NEEDS_RULES = frozenset({"search"})
"""Builders that take the table's rules (their network is checked against them at once)."""


RESERVED = {
    "seed": "each seat's seed is passed to make_agent(..., seed=...) (a command's --seed)",
    "rules": "the table's rules are passed to make_agent(..., rules=...) (a command's --rules)",
}
"""Keys a spec may not set, with where their value comes from instead. ``make_agent`` passes
them itself, so a spec's own value would clash with it, or quietly give every copy of the
agent at a table the same seed."""


def _parse_options(name: str, text: str) -> dict[str, object]:
    """Read ``key=value`` options separated by commas; a number is read as int, else float.

    A key given twice is refused rather than letting the last one win: ``worlds=2,worlds=3``
    is a typo or a pasting accident, and playing either value would hide it.
    """
    opts: dict[str, object] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        if "=" not in part:
            raise AgentError(f"agent spec {name!r}: option {part!r} must look like key=value")
        key, value = (s.strip() for s in part.split("=", 1))
        if not key:
            raise AgentError(f"agent spec {name!r}: option {part!r} has no name before '='")
        if key in opts:
            raise AgentError(f"agent spec {name!r}: option {key!r} is given twice; give it "
                             "once")
        if key in RESERVED:
            raise AgentError(f"agent spec {name!r}: {key!r} is not an option; "
                             f"{RESERVED[key]}")
        opts[key] = _option_value(value)
    return opts


def _option_value(text: str) -> object:
    """Read one option's value: an int, else a float, else the text itself."""
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            continue
    return text


def make_agent(spec: str, seed: int | None = None, rules: Rules | None = None) -> Agent:
    """Build an agent from its spec; ``seed`` seeds its random choices.

    ``rules`` are the rules of the table the agent will sit at, when they are known. Only a
    trained policy needs them at construction (its network is sized and trained for one rule
    set); without them it takes the rules its file was trained for. Rule agents read the rules
    at ``reset``.
    """
    if isinstance(spec, Agent):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise AgentError(f"agent spec must be a non-empty string such as 'random'; got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    name = name.strip()
    if name not in BUILDERS:
        raise AgentError(f"unknown agent {name!r} in spec {spec!r}; known agents: "
                         f"{sorted(BUILDERS)}")
    if name == "policy":
        return _build_policy(rest, seed=seed, rules=rules)
    opts = _parse_options(name, rest)
    if name in NEEDS_RULES:
        opts["rules"] = rules
    builder = BUILDERS[name]
    try:
        if not isinstance(builder, dict):
            return builder(seed=seed, **opts)
        if rules is not None:
            return _for_table(name, builder, rules.decks)(seed=seed, **opts)
        return TableAgent(name, builder, seed, opts)
    except (TypeError, ValueError) as e:
        raise AgentError(f"agent spec {spec!r}: bad option ({e})") from None
