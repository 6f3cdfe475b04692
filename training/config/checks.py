"""Checkers of single config values, shared by every config of the package.

Each checker reads one field of a config and refuses a bad value with a ``ConfigError`` whose
message starts with the field's name and says what was expected and what was given, so every
config (the trainers', the recipes' settings, a label set's) words its errors alike and a
message can be matched to the option that caused it. Numbers are bounded on both sides: the
lower bound by the checker chosen, the upper one by ``training.config.bounds``.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

from training.config.bounds import MAX_OPPONENTS, bound_of
from training.config.choices import SPECIAL_OPPONENTS


class ConfigError(ValueError):
    """A configuration value is invalid; the message names the field and what is expected."""


def quoted(value: object) -> str:
    """Return ``repr(value)`` cut short and escaped: errors quote the bad value, not megabytes."""
    from gongzhu_env.integrity import printable

    return printable(repr(value), 80)


def _number(v: object) -> bool:
    """Whether ``v`` is an int or a float (bools are not numbers here: ``true`` is no count)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _finite(v: float) -> bool:
    """Whether a number is finite (an int always is; ``math.isfinite`` of a huge one overflows)."""
    return not isinstance(v, float) or math.isfinite(v)


def int_field(cfg: object, name: str, least: int, most: float | None = None,
              note: str = "") -> None:
    """Refuse a field that is not an integer from ``least`` to ``most``.

    ``most`` defaults to the field's bound (``bound_of``); ``math.inf`` leaves it unbounded
    (a field whose cap depends on other fields checks that apart). A bounded field's message
    gives its whole range, an unbounded one's the kind of integer expected; ``note`` adds why
    the range is what it is.
    """
    v = getattr(cfg, name)
    if most is None:
        most = bound_of(name)
    if type(v) is int and v >= least and (most is None or v <= most):
        return
    if most is not None and math.isfinite(most):
        expected = f"an integer from {least:,} to {int(most):,}"
    else:
        expected = {0: "a non-negative integer", 1: "a positive integer"}.get(
            least, f"an integer of at least {least:,}")
    raise ConfigError(f"{name}: must be {expected}{note}; got {quoted(v)}")


def positive_int(cfg: object, name: str, most: float | None = None) -> None:
    """Refuse a field that is not an integer from 1 to its bound (a count of something).

    ``most`` as for ``int_field``.
    """
    int_field(cfg, name, 1, most)


def nonneg_int(cfg: object, name: str, most: float | None = None) -> None:
    """Refuse a field that is not an integer from 0 to its bound (0: none, or off)."""
    int_field(cfg, name, 0, most)


def positive_float(cfg: object, name: str, most: float | None = None) -> None:
    """Refuse a field that is not a finite number above 0 and at most its bound."""
    v = getattr(cfg, name)
    if most is None:
        most = bound_of(name)
    if not _number(v) or not _finite(v) or v <= 0 or (most is not None and v > most):
        upto = "" if most is None else f" and at most {most:,.10g}"
        raise ConfigError(f"{name}: must be a number above 0{upto}; got {quoted(v)}")


def at_most(cfg: object, name: str, most: int, why: str = "") -> None:
    """Refuse an integer field above ``most``, a cap checked apart from the field's kind.

    For a field whose cap involves other fields or units (hands in label chunks, a gate's
    deals and its extension together), so that each cap is named with its reason (``why``).
    """
    v = getattr(cfg, name)
    if v > most:
        raise ConfigError(f"{name}: must be at most {most:,}{why}; got {v:,}")


def nonneg_float(cfg: object, name: str, most: float | None = None) -> None:
    """Refuse a field that is not a number from 0 to its bound (a weight that may be off)."""
    v = getattr(cfg, name)
    if most is None:
        most = bound_of(name)
    if not _number(v) or not 0 <= v <= (math.inf if most is None else most):
        raise ConfigError(f"{name}: must be a number from 0 to "
                          f"{'any finite size' if most is None else f'{most:,.0f}'}; got "
                          f"{quoted(v)}")


def fraction(cfg: object, name: str, *, above_zero: bool = False, noun: str = "") -> None:
    """Refuse a field that is not a number in [0, 1], or (``above_zero``) in (0, 1].

    ``noun`` says what the number is (``"a probability"``, ``"a share"``) in the message.
    """
    v = getattr(cfg, name)
    if not _number(v) or not ((v > 0 if above_zero else v >= 0) and v <= 1):
        interval = "(0, 1]" if above_zero else "[0, 1]"
        what = f"{noun} in" if noun else "in"
        raise ConfigError(f"{name}: must be {what} {interval}; got {quoted(v)}")


def flag(cfg: object, name: str) -> None:
    """Refuse a field that is not ``true`` or ``false`` (a string "no" would read as true)."""
    v = getattr(cfg, name)
    if type(v) is not bool:
        raise ConfigError(f"{name}: must be true or false; got {quoted(v)}")


def one_of(cfg: object, name: str, choices: Collection[str]) -> None:
    """Refuse a field that is not one of the names ``choices`` (a list, a value of another type)."""
    v = getattr(cfg, name)
    if not isinstance(v, str) or v not in choices:
        raise ConfigError(f"{name}: must be one of {choices}; got {quoted(v)}")


def text(cfg: object, name: str) -> None:
    """Refuse a field that is not a string (a spec, a path, a name)."""
    v = getattr(cfg, name)
    if not isinstance(v, str):
        raise ConfigError(f"{name}: must be a string; got {quoted(v)}")


def check_specs(specs: Any, name: str) -> None:
    """Every spec must build its agent; a list of at most ``MAX_OPPONENTS`` of them."""
    from agents import make_agent
    from agents.base import AgentError

    if not isinstance(specs, (list, tuple)):
        raise ConfigError(f"{name}: must be a list of agent specs; got {quoted(specs)}")
    if len(specs) > MAX_OPPONENTS:
        raise ConfigError(f"{name}: at most {MAX_OPPONENTS} agent specs; got {len(specs):,}")
    for spec in specs:
        try:
            make_agent(spec, seed=0)
        except (AgentError, ValueError, TypeError) as e:
            raise ConfigError(f"{name}: unknown opponent spec {spec!r} ({e})") from None


def check_mix(mix: Any, name: str) -> None:
    """Refuse a mix that is not a mapping of opponent spec to a non-negative, finite weight."""
    if not isinstance(mix, Mapping) or not mix:
        raise ConfigError(f"{name}: must be a non-empty mapping of opponent spec -> weight; "
                          f"got {quoted(mix)}")
    for spec, w in mix.items():
        if not _number(w) or not _finite(w) or w < 0:
            raise ConfigError(f"{name}: weight of {spec!r} must be a non-negative number; "
                              f"got {quoted(w)}")
    if len(mix) > MAX_OPPONENTS:
        raise ConfigError(f"{name}: at most {MAX_OPPONENTS} opponents; got {len(mix):,}")
    total = sum(mix.values())
    if not 0 < total < math.inf:
        raise ConfigError(f"{name}: weights must not all be zero, and their sum must be "
                          f"finite; got {total!r}")
    check_specs(tuple(s for s in mix if s not in SPECIAL_OPPONENTS), name)


def network_plan(hidden: Any, width: int, num_actions: int, *, card_features: bool = False,
                 holder_features: bool = False) -> dict[str, Any]:
    """Check a network's widths and size on its input; return the architecture a fresh one has.

    The sizes come from ``agents.policy.plan_network``, the checks every network is built
    with, so a width of a billion or a network of gigabytes is refused here, before a run
    directory is made, not by the allocator.
    """
    from agents.policy import plan_network

    try:
        widths, players, _ = plan_network(width, num_actions, hidden,
                                          card_features=card_features,
                                          holder_features=holder_features)
    except ValueError as e:
        raise ConfigError(f"hidden: {e}") from None
    arch: dict[str, Any] = {"obs_size": width, "num_actions": num_actions, "hidden": widths,
                            "card_features": card_features, "holder_features": holder_features}
    if players is not None:
        arch["players"] = players
    return arch
