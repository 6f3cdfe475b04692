"""The differential check of the batched engine: a batch and ``engine.Game`` side by side.

``Game`` is the single statement of the rules; ``GameBatch`` restates them as compiled
kernels. ``differential(rules, tables, hands, seed)`` plays a batch and, beside each table, a
``Game.from_hands`` of the same deal, gives both the same seeded random legal actions, and
compares what a seat sees before every decision (the seat to move, the legal actions, the mask
and the observation, exactly ``PlayerView.encode()``) and the end of every hand (the raw
scores, the rewards, the views of the finished hand where the batch keeps them, and the next
deal against ``gongzhu_env.batch.deal``). ``default_rule_sets`` and ``two_deck_rule_sets``
name the rule sets it is run over. The tests run it on a few hands;
``python -m benchmarks.check_vector`` runs it on 100,000 and more.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gongzhu_env.batch import COVERED, GameBatch, check_covered, deal
from gongzhu_env.batch.base import in_obs_dtype
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import hand_results


@dataclass
class Report:
    """What one differential run saw."""

    hands: int = 0
    """Hands finished on the batch (each compared with a reference hand unless it disagreed)."""
    decisions: int = 0
    bad_hands: int = 0
    """Hands in which some comparison disagreed."""
    messages: list[str] = field(default_factory=list)
    """The first disagreements, described."""

    def add(self, other: Report, limit: int = 20) -> None:
        """Count ``other``'s hands in, keeping at most ``limit`` messages."""
        self.hands += other.hands
        self.decisions += other.decisions
        self.bad_hands += other.bad_hands
        self.messages += other.messages[:max(0, limit - len(self.messages))]


def compare_position(batch: Any, i: int, game: Game) -> str | None:
    """Describe how table ``i`` differs from ``game`` before a decision, or return ``None``.

    The seat to move, the legal actions, the mask and the observation (exactly
    ``PlayerView.encode()``, or its bytes ``np.rint(x * 255)`` where the batch's observations
    are uint8): what either engine must show a seat, whatever its kernels.
    """
    seat = game.current_player
    if int(batch.current_player[i]) != seat:
        return f"seat to move {int(batch.current_player[i])}, reference {seat}"
    if batch.legal_actions(i) != game.legal_actions():
        return f"legal {batch.legal_actions(i)}, reference {game.legal_actions()}"
    view = game.view(seat)
    if not np.array_equal(batch.action_masks[i], view.action_mask()):
        return "action mask differs"
    obs = in_obs_dtype(view.encode(), batch.observations.dtype)
    got = batch.observations[i]
    if got.shape != obs.shape or got.dtype != obs.dtype or not np.array_equal(got, obs):
        where = np.flatnonzero(got != obs) if got.shape == obs.shape else "shape"
        return f"observation differs at {where}"
    return None


def compare_result(batch: Any, i: int, game: Game) -> str | None:
    """Describe how table ``i``'s finished hand differs from ``game``'s, or return ``None``.

    The part of a hand's end both engines report alike: that it ended, the raw scores and the
    rewards (``scoring.hand_results`` under the batch's mode and scale).
    """
    raw = game.scores()
    if not batch.terminated[i]:
        return "the reference hand is over, the batch's is not"
    if batch.scores[i].tolist() != raw:
        return f"scores {batch.scores[i].tolist()}, reference {raw}"
    expected = np.array([r / batch.reward_scale for r in
                         hand_results(raw, batch.reward_mode, game.teams)], dtype=np.float32)
    if not np.array_equal(batch.rewards[i], expected):
        return f"rewards {batch.rewards[i].tolist()}, reference {expected.tolist()}"
    return None


def play_side_by_side(batch: Any, hands: int, seed: int, rng: np.random.Generator,
                      reference: Callable[[int], Game],
                      compare_end: Callable[[Any, int, Game, int], str | None]) -> Report:
    """Play at least ``hands`` hands on ``batch`` and on reference games; count disagreements.

    ``batch`` has been reset under ``seed``; ``reference(i)`` builds table ``i``'s ``Game``
    for its hand in progress. Actions are drawn with ``rng`` from the reference's legal set.
    Before every decision ``compare_position`` and at every hand's end ``compare_end`` (the
    engine's own checks, after ``compare_result``) say what differs (``None`` when nothing
    does). A table that disagrees is counted once for its
    hand and then played on alone (actions legal in the batch) until its hand ends; comparison
    resumes from its next deal.
    """
    tables = batch.num_tables
    report = Report()
    games: list[Game | None] = [reference(i) for i in range(tables)]

    def disagree(i: int, what: str) -> None:
        report.bad_hands += 1
        if len(report.messages) < 20:
            report.messages.append(f"{batch.rules}, table {i}, hand "
                                   f"{batch.hands_started(i) - 1}: {what}")
        games[i] = None

    actions = np.zeros(tables, dtype=np.int64)
    while report.hands < hands:
        u = rng.random(tables)
        for i in range(tables):
            game = games[i]
            if game is not None and (why := compare_position(batch, i, game)):
                disagree(i, why)
                game = None
            legal = game.legal_actions() if game is not None else batch.legal_actions(i)
            actions[i] = legal[int(u[i] * len(legal))]
        batch.step(actions)
        report.decisions += tables
        for i in range(tables):
            game = games[i]
            if game is not None:
                game.step(int(actions[i]))
                if game.is_over():
                    if why := compare_end(batch, i, game, seed):
                        disagree(i, why)
                elif batch.terminated[i]:
                    disagree(i, "the batch's hand is over, the reference's is not")
                elif batch.rewards[i].any() or batch.scores[i].any():
                    disagree(i, "rewards or scores before the end of the hand")
            if batch.terminated[i]:
                report.hands += 1
                games[i] = reference(i)
    return report


def finish(total: Report, summary: str) -> int:
    """Print the first disagreements, then ``summary``; return the exit status of a check.

    1 if any hand disagreed, so that CI fails on a disagreement.
    """
    for m in total.messages:
        print("  " + m)
    print(summary)
    return 1 if total.bad_hands else 0


# ---------------------------------------------------------------------------------------------
# The rule sets, and the run over one of them.
PRESET_NAMES = ("standard", "huapai", "online", "scrofazero", "all_but_sheep")
TABLE_SIZES = (3, 4, 5, 6, 7, 8)
OPTION_RULES: tuple[dict[str, object], ...] = (
    {"hidden_exposure": True}, {"first_drawn_exposure": True}, {"self_capture_double": True},
    {"discard_colour": True}, {"hearts_table": "book"}, {"hearts_table": "positive"},
    {"pig_sheep_swap": True}, {"pig_sheep_team": True, "declaration": "none"},
    {"auto_expose": False}, {"declaration": "all"},
)
"""One rule set per covered option beyond the presets' (at four seats), each alone."""


def covered_combinations(players: int = 4) -> list[Rules]:
    """Every valid one-deck rule set of the presets' options at a table size, standard first.

    The options are those of the presets (exposure restrictions, first lead, declaration,
    team play); combinations that ``Rules`` refuses as contradictory are left out.
    """
    out = []
    for strict, may_lead, first, decl, team in itertools.product(
            (False, True), (False, True), ("club2", "any"), ("free", "none", "all_but_sheep"),
            (False, True)):
        try:
            out.append(Rules(strict_exposure=strict, exposed_may_lead=may_lead,
                             first_lead=first, declaration=decl, team_play=team,
                             players=players))
        except ValueError:
            continue
    return out


def random_covered_rules(rng: np.random.Generator, players: tuple[int, ...] = TABLE_SIZES
                         ) -> Rules:
    """Draw a one-deck rule set the batch covers: a table size of ``players``, every option.

    Each covered option takes a value of ``COVERED`` uniformly; a draw that ``Rules`` refuses
    as contradictory is drawn again.
    """
    while True:
        options: dict[str, object] = {
            name: values[int(rng.integers(len(values)))] for name, values in COVERED.items()}
        options["players"] = players[int(rng.integers(len(players)))]
        try:
            return check_covered(Rules.from_dict(options))
        except ValueError:
            continue


def two_deck_rule_sets() -> list[tuple[str, Rules]]:
    """Name the covered two-deck rule sets: the preset, then every other valid combination."""
    preset = Rules.preset("two_decks")
    out = [("two_decks", preset)]
    for team, may_lead, first, decl in itertools.product(
            (True, False), (False, True), ("club2", "any"), ("free", "none")):
        try:
            rules = Rules(decks=2, team_play=team, exposed_may_lead=may_lead, first_lead=first,
                          declaration=decl)
        except ValueError:
            continue  # contradictory (an exposed card to lead, with no exposure)
        if rules != preset:
            name = ",".join(f"{k}={v}" for k, v in (("team_play", team),
                                                    ("exposed_may_lead", may_lead),
                                                    ("first_lead", first),
                                                    ("declaration", decl)))
            out.append((name, rules))
    return out


def default_rule_sets(rng: np.random.Generator, players: tuple[int, ...] = TABLE_SIZES,
                      random_sets: int = 20, two_decks: bool = True) -> list[tuple[str, Rules]]:
    """Name the rule sets the full check runs over, for the table sizes given.

    At four seats the presets, every combination of their options and each further option
    alone; at every other size the standard game and team play (where the size allows it);
    ``random_sets`` one-deck rule sets drawn at random; and (``two_decks``) every two-deck one.
    """
    out: list[tuple[str, Rules]] = []
    if 4 in players:
        out += [(n, Rules.preset(n)) for n in PRESET_NAMES]
        out += [(f"combination#{k}", r) for k, r in enumerate(covered_combinations())]
        out += [(json.dumps(o), Rules.from_dict(o)) for o in OPTION_RULES]
    for n in players:
        if n != 4:
            out.append((f"players={n}", Rules(players=n)))
            if n % 2 == 0:
                out.append((f"players={n},team", Rules(players=n, team_play=True)))
    out += [(f"random#{k}", random_covered_rules(rng, players)) for k in range(random_sets)]
    if two_decks and 4 in players:
        out += two_deck_rule_sets()
    return out


def targets(rng: np.random.Generator, rule_sets: list[tuple[str, Rules]] | None = None
            ) -> list[tuple[str, Rules, str, float]]:
    """Rule sets (the default ones unless given), each with a reward mode and scale drawn."""
    out = []
    for name, rules in default_rule_sets(rng) if rule_sets is None else rule_sets:
        modes = ["raw", "zero_sum", *(["team"] if rules.has_teams else [])]
        mode = modes[int(rng.integers(len(modes)))]
        scale = float(rng.choice([1.0, 100.0, 3.0]))
        out.append((name, rules, mode, scale))
    return out


def _compare_end(batch: GameBatch, i: int, game: Game, seed: int) -> str | None:
    """Describe how the end of table ``i``'s hand differs from ``game``'s, or return ``None``."""
    if why := compare_result(batch, i, game):
        return why
    if batch.final_observations is not None:
        for s in range(batch.num_seats):
            obs = in_obs_dtype(game.view(s).encode(), batch.final_observations.dtype)
            got = batch.final_observations[i, s]
            if not np.array_equal(got, obs):
                return f"final observation of seat {s} differs at {np.flatnonzero(got != obs)}"
    j = batch.hands_started(i) - 1
    if batch.deal_of(i) != deal(seed, i, j, batch.rules):
        return f"the next deal is not deal({seed}, {i}, {j})"
    return None


def differential(rules: Rules, tables: int, hands: int, seed: int, *, reward_mode: str = "raw",
                 reward_scale: float = 1.0, obs_dtype: object = np.float32,
                 batch: GameBatch | None = None, reference_rules: Rules | None = None
                 ) -> Report:
    """Play at least ``hands`` hands on a batch and on reference games side by side; compare.

    ``seed`` seeds the deals (``reset``) and the choice of actions. A table that disagrees is
    counted once for its hand and is then played on alone (with actions legal in the batch)
    until its hand ends, when comparison resumes from the next deal. ``batch`` may be passed
    to check a batch set up (or tampered with) by the caller, and ``reference_rules`` to play
    the reference under other rules than the batch (both only to prove that the check can fail).
    ``obs_dtype`` is the batch's (``GameBatch``): a uint8 batch's observations must be the
    reference's float32 ones as bytes, ``np.rint(x * 255)``.
    """
    if batch is None:
        rules = check_covered(rules)
        batch = GameBatch(tables, rules, reward_mode=reward_mode, reward_scale=reward_scale,
                          final_observations=rules.decks == 1, obs_dtype=obs_dtype)
        batch.reset(seed)
    rng = np.random.default_rng([seed, 7])
    ref_rules = batch.rules if reference_rules is None else reference_rules

    def reference(i: int) -> Game:
        first = batch.first_drawn_of(i) if ref_rules.first_drawn_exposure else None
        return Game.from_hands(batch.deal_of(i), ref_rules, first_drawn=first)

    return play_side_by_side(batch, hands, seed, rng, reference, _compare_end)
