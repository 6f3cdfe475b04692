"""The rules as network input: one network for several rule sets.

A policy trained for one rule set needs no word about the rules: they never change under it.
A network meant to play at tables of several rule sets (``DMCConfig.rules_mix``) must be told
which table it sits at, and it must read every one of their observations through the same
input. ``MixedInput`` gives it both:

* the table's observation (``PlayerView.encode()``), padded with zeros to the longest
  observation of the mix (the blocks a variant appends are absent at the other tables);
* the **rule features**: for every option with a finite set of values (``Rules.choices()``),
  a one-hot of the table's value, named ``"option=value"`` (``"strict_exposure=True"``).

The names are stored in the policy file, so a file keeps reading its tables the same way when
later versions add options (a new option is at its default for every table the file knows).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gongzhu_env.rules import PRESETS, Rules
from gongzhu_env.view import PlayerView, obs_size

__all__ = ["MixedInput", "rule_feature_names", "rule_features", "rules_label"]


def rules_label(rules: Rules) -> str:
    """Name rules for people: the preset they are, else the options that differ from standard."""
    for name in PRESETS:
        if Rules.preset(name) == rules:
            return name
    default = Rules().to_dict()
    return "{" + ", ".join(f"{k}={v!r}" for k, v in rules.to_dict().items()
                           if v != default[k]) + "}"


def rule_feature_names() -> tuple[str, ...]:
    """Return this version's rule features: ``"option=value"`` for each finite option value."""
    return tuple(f"{name}={value!r}" for name, values in Rules.choices().items()
                 for value in values)


def rule_features(rules: Rules, names: Sequence[str] | None = None) -> np.ndarray:
    """Return ``rules`` as a 0/1 vector over ``names`` (default: ``rule_feature_names()``)."""
    options = rules.to_dict()
    on = {f"{name}={value!r}" for name, value in options.items()}
    return np.array([n in on for n in (names or rule_feature_names())], dtype=np.float32)


class MixedInput:
    """Builds a mixed-rules network's input: padded observation, then the rule features.

    ``mix``: the rule sets the network plays (all with the same action count and the same
    kind of reward: all with teams or none). ``names``: the rule features it was trained on.
    """

    def __init__(self, mix: Sequence[Rules], names: Sequence[str] | None = None) -> None:
        if not mix:
            raise ValueError("a rules mix needs at least one rule set")
        self.mix = tuple(mix)
        if len({r.num_actions for r in self.mix}) != 1:
            raise ValueError("a rules mix cannot combine one and two decks: their action "
                             "spaces differ")
        if len({r.has_teams for r in self.mix}) != 1:
            raise ValueError("a rules mix cannot combine team and individual rules: their "
                             "rewards differ")
        self.names = tuple(names) if names is not None else rule_feature_names()
        self.obs_width = max(obs_size(r) for r in self.mix)
        self.width = self.obs_width + len(self.names)
        self._features = {r: rule_features(r, self.names) for r in self.mix}

    def __contains__(self, rules: object) -> bool:
        return rules in self._features

    def write(self, view: PlayerView, out: np.ndarray) -> np.ndarray:
        """Write the input of ``view`` (a view at a table of the mix) into ``out``."""
        rules = view.rules
        features = self._features.get(rules)
        if features is None:
            raise ValueError(f"rules {rules} are not among the mix this network plays")
        n = obs_size(rules)
        view.encode(out=out[:n])
        out[n:self.obs_width] = 0.0
        out[self.obs_width:] = features
        return out
