"""The side-by-side loop of the batched engines' differential checks, written once.

``check_vector`` (one deck) and ``check_vector_pairs`` (two decks) differ in what they
compare and in how a table's reference ``Game`` is built; how they play a batch and its
reference games together, count hands and record disagreements is the same, and lives here so
that a fix to the loop reaches both checks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gongzhu_env import Game
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
    ``PlayerView.encode()``): what either engine must show a seat, whatever its kernels.
    """
    seat = game.current_player
    if int(batch.current_player[i]) != seat:
        return f"seat to move {int(batch.current_player[i])}, reference {seat}"
    if batch.legal_actions(i) != game.legal_actions():
        return f"legal {batch.legal_actions(i)}, reference {game.legal_actions()}"
    view = game.view(seat)
    if not np.array_equal(batch.action_masks[i], view.action_mask()):
        return "action mask differs"
    obs = view.encode()
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

    Both checks must play the same way for their reports to mean the same, hence one loop.
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

    Both checks end alike: 1 if any hand disagreed, so that CI fails on a disagreement.
    """
    for m in total.messages:
        print("  " + m)
    print(summary)
    return 1 if total.bad_hands else 0
