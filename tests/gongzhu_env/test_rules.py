"""``Rules``: the standard game, immutability and validation of options."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gongzhu_env import Rules
from gongzhu_env.rules import PRESETS


def test_standard_rules() -> None:
    r = Rules()
    assert r.settlement_multiplier == 12  # RULES.md section 5: x12 for one deck
    assert r == Rules.preset("standard") == Rules.coerce(None) == Rules.coerce("standard")
    assert Rules.coerce(r) is r
    assert Rules.from_dict(r.to_dict()) == r
    assert "standard" in PRESETS


def test_rules_are_frozen_and_hashable() -> None:
    r = Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.settlement_multiplier = 1  # type: ignore[misc]
    assert hash(r) == hash(Rules())


def test_replace_is_validated() -> None:
    assert dataclasses.replace(Rules(), settlement_multiplier=1).settlement_multiplier == 1
    with pytest.raises(ValueError, match="positive"):
        dataclasses.replace(Rules(), settlement_multiplier=0)


def test_every_option_has_a_meaning() -> None:
    names = {f.name for f in dataclasses.fields(Rules)}
    assert set(Rules.options()) == names
    assert all(Rules.options().values())


@pytest.mark.parametrize("bad", ["12", 12.0, True])
def test_wrong_type_is_rejected(bad: object) -> None:
    with pytest.raises(TypeError, match="settlement_multiplier") as err:
        Rules(settlement_multiplier=bad)  # type: ignore[arg-type]
    assert "int" in str(err.value)


def test_none_takes_the_deck_count_default() -> None:
    # The multiplier and auto-exposure default by deck count (x12 and on with one deck).
    assert Rules(settlement_multiplier=None, auto_expose=None) == Rules()
    assert (Rules().settlement_multiplier, Rules().auto_expose) == (12, True)
    two = Rules(decks=2, settlement_multiplier=None, auto_expose=None)
    assert (two.settlement_multiplier, two.auto_expose) == (1, False)


def test_unknown_option_from_dict_names_it_and_the_valid_ones() -> None:
    with pytest.raises(ValueError) as err:
        Rules.from_dict({"settlment_multiplier": 12})
    msg = str(err.value)
    assert "settlment_multiplier" in msg and "'settlement_multiplier'" in msg


def test_unknown_keyword_is_rejected() -> None:
    with pytest.raises(TypeError, match="bogus"):
        Rules(bogus=True)  # type: ignore[call-arg]


def test_coerce_from_mapping_and_errors() -> None:
    assert Rules.coerce({"settlement_multiplier": 1}) == Rules(settlement_multiplier=1)
    with pytest.raises(ValueError, match="unknown"):
        Rules.coerce({"nope": 1})
    with pytest.raises(TypeError, match="settlement_multiplier"):
        Rules.coerce({"settlement_multiplier": "x"})
    with pytest.raises(TypeError, match="Rules"):
        Rules.coerce(12)  # type: ignore[arg-type]


def test_unknown_preset_lists_the_known_ones() -> None:
    with pytest.raises(ValueError) as err:
        Rules.coerce("huapia")
    assert "'huapia'" in str(err.value) and "standard" in str(err.value)


@pytest.mark.parametrize("kind", [np.int8, np.int32, np.int64, np.uint16])
def test_numpy_integers_count_as_ints(kind: type) -> None:
    # A count read from an array is a count: stored as a plain int, equal to the int-built
    # rules (same hash, same dict for records and checkpoints).
    rules = Rules(players=kind(5), settlement_multiplier=kind(3), decks=kind(1))
    assert rules == Rules(players=5, settlement_multiplier=3)
    assert hash(rules) == hash(Rules(players=5, settlement_multiplier=3))
    assert type(rules.players) is int and type(rules.settlement_multiplier) is int
    assert Rules(match_threshold=np.int64(-800)).match_threshold == -800
    assert Rules.from_dict({"players": np.int64(6)}).hand_size == 8


@pytest.mark.parametrize("bad", [np.bool_(True), True, np.float64(5.0), 5.0])
def test_bools_and_floats_are_no_counts(bad: object) -> None:
    with pytest.raises(TypeError, match="'players' must be int"):
        Rules(players=bad)  # type: ignore[arg-type]


def test_numpy_integers_are_still_checked_for_range() -> None:
    with pytest.raises(ValueError, match="players.*must be one of"):
        Rules(players=np.int64(9))
    with pytest.raises(ValueError, match="match_threshold"):
        Rules(match_threshold=np.int64(100))
