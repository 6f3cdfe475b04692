r"""The duplicate formats: who holds which hands in each play, and the difference each defines.

The formats are named by their four-seat form (``"1v3"``, ``"2v2"``) at every table size: the
name is the format's identity in results, journals and the command line, and
``format_label`` gives the form a table of ``N`` players actually plays (``"1v4"`` at five,
``"2v2v2"`` for three teams of two at six). ``N`` below is ``rules.players`` (RULES.md 6.14).

Duplicate 1-vs-(N-1) (``mode="1v3"``)
    Each deal is played ``N`` times (*plays* ``r = 0..N-1``). In play ``r`` the candidate sits
    in seat ``r`` and ``N - 1`` copies of the opponent fill the other seats, so over the ``N``
    plays the candidate holds each of the ``N`` hands once, and so do the opponents. With
    ``s_r`` the raw hand scores of play ``r``, the deal's paired difference is::

        D = 1/N * sum_r ( s_r[r] - 1/(N-1) * sum_{j != r} s_r[j] )

    the candidate's score minus the opponents' average score in the same play, averaged over
    the ``N`` plays: *points per hand* gained over an opponent seated in the same situation.
    At four seats this is ``1/4 * sum_r (s_r[r] - 1/3 * sum_{j != r} s_r[j])``.
Duplicate 2-vs-2 (``mode="2v2"``)
    *Team rules* (``rules.team_play``, RULES.md sections 5 and 6.14: ``K = N / 2`` teams, the
    partners ``i`` and ``i + K``; at four seats 0 & 2 against 1 & 3): each deal is played ``K``
    times. In play ``p`` the candidate pair holds the seats of team ``p`` and opponent copies
    hold every other seat, so over the ``K`` plays the candidate team sits in each team
    position once. ``T_c`` is the candidate team's summed raw score in a play and ``T_o`` the
    mean of the other teams' sums. The deal's difference is in **team points per deal**::

        D = 1/K * sum_plays ( T_c - T_o )

    how many points the candidate team scored more than an opponent team, averaged over the
    team positions of the deal: at four seats, the margin a team player reads off the score
    sheet. The settlement pays each member half of it (``(own - mean of the others) / 2``,
    times the multiplier).

    *Individual rules*, four seats only: play 0 seats the candidate in seats 0 and 2 and the
    opponent in 1 and 3; play 1 swaps them. There are no teams to score, so the number stays
    per member and per hand, ``D = 1/2 * sum_plays ( T_c - T_o ) / 2`` (*points per hand*, as
    in 1v3). Other table sizes have no pairing of seats without teams, so 2v2 is refused there.

    *Pig-sheep team* (``rules.pig_sheep_team``, 6.12) is refused: its teams are formed by
    whoever is dealt SQ and DJ, so seats 0 and 2 are as often opponents as partners (and a team
    may be one seat against three); a fixed pairing of seats is not a team match there.
Team rules in 1-vs-(N-1)
    Allowed with raw scores: each seat's own hand score, as in the individual game (the trainers
    measure their policies this way under any rules). The candidate's partner is an opponent
    copy, so the team settlement would credit the candidate with the opponent's play;
    ``scoring="zero_sum"`` is refused there.
Scoring (``scoring=``)
    ``"raw"`` (default) uses raw hand points as above. ``"zero_sum"`` uses the settlement that
    rooms pay out (``gongzhu_env.scoring.settle``: each seat's score minus the others' mean,
    rounded, times ``rules.settlement_multiplier``; the coin room's payments under
    ``settlement="yuanbao"``). A settlement is already relative to the other seats, so in this
    mode ``D`` is the candidate's own mean payout per hand in 1v3 (the team's payout per
    member in 2v2 under individual rules, the whole team's payout per deal under team rules)
    rather than a difference to the opponents: for the zero-sum settlement it is, up to the
    rounding and the multiplier, the same number as the raw ``D``.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

import numpy as np

from gongzhu_env.rules import PRESETS, Rules
from gongzhu_env.scoring import settle

MODES = ("1v3", "2v2")
SCORINGS = ("raw", "zero_sum")
TEAM_UNIT = "team points/deal"
HAND_UNIT = "points/hand"
"""The units of a deal's difference: team format, and every other format."""
_INDIVIDUAL_PAIRS: tuple[tuple[int, ...], ...] = ((0, 2), (1, 3))
"""The candidate's seats in the two plays of an individual 2v2 (four seats only)."""


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


def seatings(mode: str, rules: Rules) -> tuple[tuple[int, ...], ...]:
    """Which seats the candidate holds in each play of a deal (one tuple per play).

    ``1v3``: seat ``r`` in play ``r``, for every seat of the table. ``2v2``: the game's fixed
    teams under team rules (``Rules.fixed_teams``), else seats 0 & 2 then 1 & 3 (four seats;
    ``check_format`` refuses the other sizes). The arena seats its agents and the formats
    score them from this one table, so the two can never disagree.
    """
    check_choice("mode", mode, MODES)
    if mode == "1v3":
        return tuple((seat,) for seat in range(rules.players))
    return rules.fixed_teams if rules.team_play else _INDIVIDUAL_PAIRS


def format_label(mode: str, rules: Rules) -> str:
    """Name the format as the table plays it: ``"1v4"`` at five seats, ``"2v2v2"`` at six.

    At four seats the label is the mode's own name, so four-seat tables read as they did.
    """
    if mode == "1v3":
        return f"1v{rules.players - 1}"
    if is_team_format(mode, rules):
        return "v".join("2" for _ in rules.fixed_teams)
    return mode


def check_format(mode: str, scoring: str, rules: Rules) -> None:
    """Raise ``ValueError`` for a mode, scoring or pairing with the rules that means nothing.

    Called before any hand is played, so a refused match costs nothing. The reasons are in the
    module docstring (pig-sheep teams in 2v2, a 2v2 without teams at other than four seats,
    team settlement in 1v3).
    """
    check_choice("mode", mode, MODES)
    check_choice("scoring", scoring, SCORINGS)
    if mode == "2v2" and rules.pig_sheep_team:
        raise ValueError(
            "a 2v2 duplicate needs fixed teams, but pig_sheep_team forms them from whoever is "
            "dealt SQ and DJ (possibly one seat against three), so the seated pairs are not the "
            f"game's teams; use mode 1v3, or rules with team_play (presets: "
            f"{', '.join(team_presets())})")
    if mode == "2v2" and not rules.team_play and rules.players != 4:
        raise ValueError(
            f"a 2v2 duplicate under individual rules pairs seats 0 & 2 against 1 & 3, which "
            f"only a table of four has; got players={rules.players}. Use mode 1v3 (the "
            f"candidate against {rules.players - 1} opponent copies, in every seat) or, with "
            "an even number of players, team_play=True for the team match")
    if mode == "1v3" and scoring == "zero_sum" and rules.has_teams:
        raise ValueError(
            "zero_sum scoring under team rules settles teams, and in 1v3 the candidate's "
            "partner is an opponent copy; use scoring='raw' (each seat's own hand score) or "
            "mode 2v2 for the team match")


def paired_differences(scores: np.ndarray, mode: str, scoring: str, rules: Rules) -> np.ndarray:
    """Per-deal paired differences from raw scores of shape ``(deals, plays, players)``.

    See the module docstring for the definitions. Each difference is an exact numerator (an
    integer; a ``Fraction`` when a coin room splits a payment) over one common denominator,
    turned into a float by a single correctly rounded division, so a true tie is exactly
    ``0.0`` and never miscounted as a win or a loss by floating-point drift, and the same
    rational number always gives the same float (four-seat results are those of the
    four-seat-only formulas, bit for bit).

    With ``P`` plays, ``m`` candidate seats a play and ``N`` seats: raw individual formats sum
    ``N * mine - m * total`` over the plays, over ``P * m * (N - m)`` (12 for 1v3 at four);
    the raw team format with ``K`` teams sums ``K * T_c - total`` over ``K * (K - 1)``;
    zero-sum scoring sums the candidate's payouts over ``P * m`` (``P`` in the team format).
    """
    check_format(mode, scoring, rules)
    plan = seatings(mode, rules)
    n = rules.players
    s = np.asarray(scores)
    if s.ndim != 3 or s.shape[1:] != (len(plan), n) or not np.issubdtype(s.dtype, np.integer):
        raise ValueError(f"scores for mode {mode!r} at players={n} must be integers of shape "
                         f"(deals, {len(plan)}, {n}); got {s.dtype} {s.shape}")
    s = s.astype(np.int64)
    team = is_team_format(mode, rules)
    m = len(plan[0])
    if scoring == "zero_sum":
        # A settlement is already relative to the other seats: add up the candidate's payouts.
        # Exact Python numbers: a coin room's split payment may be a Fraction.
        denom = len(plan) * (1 if team else m)
        numers = [sum((settle([int(v) for v in deal[play]], rules)[seat]
                       for play, cand in enumerate(plan) for seat in cand), start=0)
                  for deal in s]
        return np.array([float(Fraction(x) / denom) for x in numers], dtype=np.float64)
    numer = np.zeros(len(s), dtype=np.int64)
    for play, cand in enumerate(plan):
        mine = s[:, play, list(cand)].sum(axis=1)
        total = s[:, play].sum(axis=1)
        if team:
            numer += len(plan) * mine - total  # (K - 1) x (T_c - mean of the other teams)
        else:
            numer += n * mine - m * total  # m (N - m) x (mean of mine - mean of the others)
    if team:
        denom = len(plan) * (len(plan) - 1)
    else:
        denom = len(plan) * m * (n - m)
    return numer / denom
