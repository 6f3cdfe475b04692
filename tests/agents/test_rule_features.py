"""The rules as network input, for one network at tables of several rule sets."""

from __future__ import annotations

import numpy as np
import pytest

from agents.rule_features import MixedInput, rule_feature_names, rule_features, rules_label
from gongzhu_env import Game, Rules
from gongzhu_env.view import obs_size


def test_rule_features_are_a_one_hot_of_every_option():
    names = rule_feature_names()
    std = rule_features(Rules())
    # One value on per option with a finite set of values.
    assert std.sum() == len(Rules.choices())
    hua = rule_features(Rules.preset("huapai"))
    diff = {names[i] for i in np.flatnonzero(std != hua)}
    assert diff == {"strict_exposure=False", "strict_exposure=True"}
    # A name this version does not know (a file from a later one) reads as off.
    assert list(rule_features(Rules(), ["strict_exposure=False", "future_option=1"])) == [1, 0]


def test_mixed_input_pads_each_observation_and_appends_its_rules():
    mix = [Rules(), Rules.preset("huapai"), Rules(hidden_exposure=True)]
    mixed = MixedInput(mix)
    assert mixed.obs_width == max(obs_size(r) for r in mix) > obs_size(Rules())
    for rules in mix:
        g = Game(rules, seed=1)
        view = g.view(g.current_player)
        out = np.full(mixed.width, 7.0, dtype=np.float32)
        mixed.write(view, out)
        n = obs_size(rules)
        np.testing.assert_array_equal(out[:n], view.encode())
        assert not out[n:mixed.obs_width].any()
        np.testing.assert_array_equal(out[mixed.obs_width:], rule_features(rules))
    with pytest.raises(ValueError, match="not among the mix"):
        g = Game(Rules.preset("online"), seed=1)
        mixed.write(g.view(0), np.zeros(mixed.width, dtype=np.float32))


def test_a_mix_of_different_games_is_refused():
    with pytest.raises(ValueError, match="one and two decks"):
        MixedInput([Rules(), Rules(decks=2)])
    with pytest.raises(ValueError, match="team and individual"):
        MixedInput([Rules(), Rules.preset("scrofazero")])
    with pytest.raises(ValueError, match="at least one"):
        MixedInput([])


def test_rules_are_named_by_preset_or_by_what_differs():
    assert rules_label(Rules.preset("huapai")) == "huapai"
    assert rules_label(Rules(first_lead="any")) == "{first_lead='any'}"
