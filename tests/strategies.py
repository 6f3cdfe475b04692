"""Hypothesis strategies shared by the tests of every file reader."""

from __future__ import annotations

from hypothesis import strategies as st


def json_values(max_leaves: int = 12, max_size: int = 4) -> st.SearchStrategy:
    """Any JSON value: nulls, bools, numbers, short strings, and lists and objects of them."""
    scalars = (st.none() | st.booleans() | st.integers()
               | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=10))
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=max_size)
        | st.dictionaries(st.text(max_size=6), inner, max_size=max_size),
        max_leaves=max_leaves)
