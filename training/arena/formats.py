r"""The duplicate formats: who holds which hands in each play, and the difference each defines.

Duplicate 1-vs-3 (``mode="1v3"``)
    Each deal is played four times (*plays* ``r = 0..3``). In play ``r`` the candidate sits in
    seat ``r`` and three copies of the opponent fill the other seats, so over the four plays the
    candidate holds each of the four hands once, and so do the opponents. With ``s_r`` the four
    raw hand scores of play ``r``, the deal's paired difference is::

        D = 1/4 * sum_r ( s_r[r] - 1/3 * sum_{j != r} s_r[j] )

    the candidate's score minus the opponents' average score in the same play, averaged over the
    four plays: *points per hand* gained over an opponent seated in the same situation.
Duplicate 2-vs-2 (``mode="2v2"``)
    Each deal is played twice: play 0 seats the candidate in seats 0 and 2 and the opponent in 1
    and 3; play 1 swaps them, so each team holds each pair of hands once. With ``T_c`` and
    ``T_o`` the sums of the two team members' scores in a play::

        D = 1/2 * sum_plays ( T_c - T_o ) / 2

    the team difference per member per hand. Team scoring rules come with a later issue; until
    then this uses the standard game's individual scores.
Scoring (``scoring=``)
    ``"raw"`` (default) uses raw hand points as above. ``"zero_sum"`` uses the settlement that
    rooms pay out (``gongzhu_env.scoring.settle``: each seat's score minus the others' mean,
    rounded, times ``rules.settlement_multiplier``). A settlement is already relative to the
    other three seats, so in this mode ``D`` is the candidate's own mean payout per hand in 1v3
    (the team's payout per member in 2v2) rather than a difference to the opponents: up to the
    rounding and the multiplier it is the same number as the raw ``D``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from gongzhu_env.rules import Rules
from gongzhu_env.scoring import settle

MODES = ("1v3", "2v2")
SCORINGS = ("raw", "zero_sum")
SEATINGS: dict[str, tuple[tuple[int, ...], ...]] = {
    "1v3": ((0,), (1,), (2,), (3,)),
    "2v2": ((0, 2), (1, 3)),
}
"""Which seats the candidate holds in each play of a deal, per mode."""


def check_choice(what: str, value: object, allowed: Iterable[str]) -> None:
    """Raise ``ValueError`` naming ``what`` unless ``value`` is one of ``allowed``."""
    allowed = tuple(allowed)
    if value not in allowed:
        raise ValueError(f"{what} must be one of {list(allowed)}; got {value!r}")


def paired_differences(scores: np.ndarray, mode: str, scoring: str, rules: Rules) -> np.ndarray:
    """Per-deal paired differences from raw scores of shape ``(deals, plays, 4)``.

    See the module docstring for the definitions. Each difference is computed as an exact
    integer numerator over one common denominator (12 for raw 1v3, 4 otherwise), so a true tie
    is exactly ``0.0`` and is never miscounted as a win or a loss by floating-point drift.
    """
    check_choice("mode", mode, MODES)
    check_choice("scoring", scoring, SCORINGS)
    seatings = SEATINGS[mode]
    s = np.asarray(scores)
    if s.ndim != 3 or s.shape[1:] != (len(seatings), 4) or not np.issubdtype(s.dtype,
                                                                            np.integer):
        raise ValueError(f"scores for mode {mode!r} must be integers of shape (deals, "
                         f"{len(seatings)}, 4); got {s.dtype} {s.shape}")
    s = s.astype(np.int64)
    if scoring == "zero_sum":
        s = np.array([[settle([int(v) for v in row], rules) for row in deal] for deal in s],
                     dtype=np.int64).reshape(s.shape)
    numer = np.zeros(len(s), dtype=np.int64)
    for play, cand in enumerate(seatings):
        mine = s[:, play, list(cand)].sum(axis=1)
        if scoring == "zero_sum":
            numer += mine  # a settlement is already relative to the other seats
        elif mode == "1v3":
            numer += 4 * mine - s[:, play].sum(axis=1)  # 3 * (s_r[r] - mean of the others)
        else:
            numer += 2 * mine - s[:, play].sum(axis=1)  # T_c - T_o
    # 1v3 raw: sum over 4 plays of 3x the difference -> /12; 2v2 raw: sum over 2 plays of the
    # team difference, halved per member -> /4; zero_sum: 4 plays x 1 seat or 2 plays x 2 seats.
    denom = 12 if (scoring == "raw" and mode == "1v3") else 4
    return numer / denom
