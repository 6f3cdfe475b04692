"""Rule options of a Gong Zhu table.

``Rules()`` is the standard one-deck game of the rule book. Every house rule is a field of this
frozen dataclass, declared once with its default, its allowed values and a one-line meaning in
``_OPTIONS``; the engine and the scoring read the fields, nothing else decides rules. Options
are validated when a ``Rules`` is built, so a typo or a wrong type fails at construction, not in
the middle of a training run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# name -> (allowed type, allowed values or None, meaning). The single table of options.
_OPTIONS: dict[str, tuple[type, tuple[Any, ...] | None, str]] = {
    "settlement_multiplier": (
        int, None, "zero-sum settlement is multiplied by this (12 for a one-deck game)"),
}


@dataclass(frozen=True)
class Rules:
    """The rule options of one table. ``Rules()`` is the standard game.

    Build variants by keyword (``Rules(settlement_multiplier=1)``), from a preset name
    (``Rules.preset("standard")``) or from a mapping (``Rules.from_dict({...})``).
    ``dataclasses.replace(rules, ...)`` gives a modified copy and is validated the same way.
    """

    settlement_multiplier: int = 12
    """Zero-sum settlement is multiplied by this; 12 for one deck (RULES.md section 5)."""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            kind, allowed, meaning = _OPTIONS[f.name]
            value = getattr(self, f.name)
            # An exact type check: bool is an int subclass and must not pass for a count.
            if type(value) is not kind:
                raise TypeError(
                    f"rule option {f.name!r} must be {kind.__name__} ({meaning}); "
                    f"got {value!r} of type {type(value).__name__}"
                )
            if allowed is not None and value not in allowed:
                raise ValueError(
                    f"rule option {f.name!r} must be one of {list(allowed)} ({meaning}); "
                    f"got {value!r}"
                )
        if self.settlement_multiplier < 1:
            raise ValueError(
                "rule option 'settlement_multiplier' must be a positive integer; "
                f"got {self.settlement_multiplier}"
            )

    @classmethod
    def options(cls) -> dict[str, str]:
        """Every option name with its one-line meaning."""
        return {name: meaning for name, (_, _, meaning) in _OPTIONS.items()}

    @classmethod
    def from_dict(cls, options: Mapping[str, Any]) -> Rules:
        """Build rules from a mapping, rejecting unknown option names with the valid ones."""
        unknown = sorted(set(options) - set(_OPTIONS))
        if unknown:
            raise ValueError(
                f"unknown rule option(s) {unknown}; valid options are {sorted(_OPTIONS)}"
            )
        return cls(**dict(options))

    @classmethod
    def preset(cls, name: str) -> Rules:
        """Return a named rule set (see ``PRESETS``)."""
        if name not in PRESETS:
            raise ValueError(f"unknown rules preset {name!r}; known presets: {sorted(PRESETS)}")
        return cls.from_dict(PRESETS[name])

    @classmethod
    def coerce(cls, rules: Rules | str | Mapping[str, Any] | None) -> Rules:
        """Accept a ``Rules``, a preset name, a mapping of options or ``None`` (standard)."""
        if rules is None:
            return cls()
        if isinstance(rules, Rules):
            return rules
        if isinstance(rules, str):
            return cls.preset(rules)
        if isinstance(rules, Mapping):
            return cls.from_dict(rules)
        raise TypeError(
            f"rules must be a Rules, a preset name or a mapping of options; got {rules!r}"
        )

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict (for checkpoints and hand records)."""
        return dataclasses.asdict(self)


PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
}
"""Named rule sets: preset name -> options that differ from the standard game."""
