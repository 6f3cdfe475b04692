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
    and 3; play 1 swaps them, so each pair of agents holds each pair of hands once and the luck
    of the deal cancels. ``T_c`` and ``T_o`` are the sums of the two members' raw scores of the
    candidate's and of the opponent's pair in a play.

    *Team rules* (``rules.team_play``, RULES.md section 5: partners 0 & 2 against 1 & 3): the
    pairs are the game's teams, and a team's result is its summed raw score. The deal's
    difference is in **team points per deal**::

        D = 1/2 * sum_plays ( T_c - T_o )

    how many points the candidate team scored more than the opponent team, averaged over the
    two sides of the deal: the margin a team player reads off the score sheet. The settlement
    pays each member half of it (``(A - B) / 2``, times the multiplier).

    *Individual rules*: there are no teams to score, so the number stays per member and per
    hand, ``D = 1/2 * sum_plays ( T_c - T_o ) / 2`` (*points per hand*, as in 1v3).

    *Pig-sheep team* (``rules.pig_sheep_team``, 6.12) is refused: its teams are formed by
    whoever is dealt SQ and DJ, so seats 0 and 2 are as often opponents as partners (and a team
    may be one seat against three); a fixed pairing of seats is not a team match there.
Team rules in 1-vs-3
    Allowed with raw scores: each seat's own hand score, as in the individual game (the trainers
    measure their policies this way under any rules). The candidate's partner is an opponent
    copy, so the team settlement would credit the candidate with the opponent's play;
    ``scoring="zero_sum"`` is refused there.
Scoring (``scoring=``)
    ``"raw"`` (default) uses raw hand points as above. ``"zero_sum"`` uses the settlement that
    rooms pay out (``gongzhu_env.scoring.settle``: each seat's score minus the others' mean,
    rounded, times ``rules.settlement_multiplier``). A settlement is already relative to the
    other three seats, so in this mode ``D`` is the candidate's own mean payout per hand in 1v3
    (the team's payout per member in 2v2 under individual rules, the whole team's payout per
    deal under team rules) rather than a difference to the opponents: up to the rounding and
    the multiplier it is the same number as the raw ``D``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from gongzhu_env.rules import PRESETS, Rules
from gongzhu_env.scoring import settle

MODES = ("1v3", "2v2")
SCORINGS = ("raw", "zero_sum")
SEATINGS: dict[str, tuple[tuple[int, ...], ...]] = {
    "1v3": ((0,), (1,), (2,), (3,)),
    "2v2": ((0, 2), (1, 3)),
}
"""Which seats the candidate holds in each play of a deal, per mode."""
TEAM_UNIT = "team points/deal"
HAND_UNIT = "points/hand"
"""The units of a deal's difference: team format, and every other format."""


def check_choice(what: str, value: object, allowed: Iterable[str]) -> None:
    """Raise ``ValueError`` naming ``what`` unless ``value`` is one of ``allowed``."""
    allowed = tuple(allowed)
    if value not in allowed:
        raise ValueError(f"{what} must be one of {list(allowed)}; got {value!r}")


def team_presets() -> list[str]:
    """Names of the rule presets with fixed partners, where the team format applies."""
    return [name for name in PRESETS if Rules.preset(name).team_play]


def is_team_format(mode: str, rules: Rules) -> bool:
    """Whether ``mode`` under ``rules`` is the team format (scored in team points per deal)."""
    return mode == "2v2" and rules.team_play


def unit_of(mode: str, rules: Rules) -> str:
    """Name the unit of a deal's difference in this format, for tables, JSON and plots."""
    return TEAM_UNIT if is_team_format(mode, rules) else HAND_UNIT


def check_format(mode: str, scoring: str, rules: Rules) -> None:
    """Raise ``ValueError`` for a mode, scoring or pairing with the rules that means nothing.

    Called before any hand is played, so a refused match costs nothing. The reasons are in the
    module docstring (pig-sheep teams in 2v2, team settlement in 1v3).
    """
    check_choice("mode", mode, MODES)
    check_choice("scoring", scoring, SCORINGS)
    if mode == "2v2" and rules.pig_sheep_team:
        raise ValueError(
            "a 2v2 duplicate needs fixed teams, but pig_sheep_team forms them from whoever is "
            "dealt SQ and DJ (possibly one seat against three), so the seated pairs are not the "
            f"game's teams; use mode 1v3, or rules with team_play (presets: "
            f"{', '.join(team_presets())})")
    if mode == "1v3" and scoring == "zero_sum" and rules.has_teams:
        raise ValueError(
            "zero_sum scoring under team rules settles teams, and in 1v3 the candidate's "
            "partner is an opponent copy; use scoring='raw' (each seat's own hand score) or "
            "mode 2v2 for the team match")


def paired_differences(scores: np.ndarray, mode: str, scoring: str, rules: Rules) -> np.ndarray:
    """Per-deal paired differences from raw scores of shape ``(deals, plays, 4)``.

    See the module docstring for the definitions. Each difference is computed as an exact
    integer numerator over one common denominator (12 for raw 1v3, 2 for the team format, 4
    otherwise), so a true tie
    is exactly ``0.0`` and is never miscounted as a win or a loss by floating-point drift.
    """
    check_format(mode, scoring, rules)
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
    # The team format keeps the whole team's difference (or payout): the mean of 2 plays -> /2.
    if is_team_format(mode, rules):
        denom = 2
    else:
        denom = 12 if (scoring == "raw" and mode == "1v3") else 4
    return numer / denom
