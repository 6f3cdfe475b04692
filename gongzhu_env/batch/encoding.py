"""The observation's bit writers, shared by both table layouts of the batch.

``PlayerView.encode`` is mostly 0/1 blocks of card masks and seat masks; each layout's view
writer gathers its masks and writes them with these, in the dtype of the batch's observations
(float32, or the compact uint8 scale: ``base._unit`` / ``base._bit``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gongzhu_env.batch.base import _bit
from gongzhu_env.batch.tricks import _C10, _DJ, _HA, _SQ, _SUIT

if TYPE_CHECKING:
    import numba
else:
    from gongzhu_env.batch.base import _load_numba

    numba = _load_numba("gongzhu_env.batch (the batched engine)")

__all__ = ["clear", "exposable_bits", "put_bits", "scoring_bits"]


@numba.njit(cache=True, inline="always")
def put_bits(out: np.ndarray, offset: int, m: np.int64, nbits: int) -> None:
    """Write the low ``nbits`` bits of ``m`` as 0/1 values from ``out[offset]`` on.

    A set bit is written as ``base._unit(out)``: 1 (a float32 observation, an int8 mask) or 255 (a
    uint8 observation), a constant of the compiled kernel (``base._bit``: a select between two
    constants, which vectorises best). The indices are unsigned on purpose:
    numba checks every signed index for a negative (wrap-around) value, and that check keeps
    the compiler from vectorising the loop.
    """
    base = np.uint64(offset)
    for c in range(nbits):
        out[base + np.uint64(c)] = _bit(out, (m >> c) & 1)


@numba.njit(cache=True, inline="always")
def clear(out: np.ndarray, start: int, stop: int) -> None:
    """Set ``out[start:stop]`` to zero (a loop: a slice assignment costs more in numba)."""
    for k in range(np.uint64(start), np.uint64(stop)):
        out[k] = 0


@numba.njit(cache=True, inline="always")
def exposable_bits(e: np.int64) -> np.int64:
    """Project a card mask onto 4 bits in EXPOSABLE order (SQ, DJ, C10, HA)."""
    return (e >> _SQ & 1) | (e >> _DJ & 1) << 1 | (e >> _C10 & 1) << 2 | (e >> _HA & 1) << 3


@numba.njit(cache=True, inline="always")
def scoring_bits(cap: np.int64) -> np.int64:
    """Project a card mask onto 16 bits: H2..HA, SQ, DJ, C10."""
    return (cap >> 26 & _SUIT) | (cap >> _SQ & 1) << 13 | (cap >> _DJ & 1) << 14 \
        | (cap >> _C10 & 1) << 15
