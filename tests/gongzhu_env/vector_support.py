"""What the vector-env tests of both engines share: policies and the replay on ``Game``.

``test_vector_env.py`` (one deck) and ``test_vector_env_pairs.py`` (two decks) hold the vector
envs to the scalar reference in the same way: every hand is played again on
``Game.from_hands`` with the same actions, and what the learner (or self-play) saw and got is
compared step by step. The replay is written once here so that both engines are held to the
reference by the same checks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence

from gongzhu_env import Game, Rules
from gongzhu_env.scoring import hand_results
from gongzhu_env.vector_env import SelfPlayBatch, SingleSeatVectorEnv

DealFor = Callable[[int, int], tuple[tuple[int, ...], ...]]
"""``deal_for(table, hand)``: the deal of a table's hand, from the engine's ``deal``."""


def lowest(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A deterministic batched policy: the lowest legal action."""
    return masks.argmax(axis=1)


def highest(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Another one: the highest legal action (a pair lead or DONE where legal)."""
    return masks.shape[1] - 1 - masks[:, ::-1].argmax(axis=1)


def scalar_choice(policy: Any, game: Game, seat: int) -> int:
    """Ask a batched policy for ``seat``'s action in ``game``, as a batch of one row."""
    view = game.view(seat)
    return int(policy(view.encode()[None], view.action_mask().astype(bool)[None])[0])


def learner_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Draw one legal action per row of ``masks``: a random learner."""
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def twin_envs(n: int, opponents_a: Any, opponents_b: Any = None,
              rules: Rules | str | None = None) -> tuple[SingleSeatVectorEnv, SingleSeatVectorEnv]:
    """Return two envs reset alike (``opponents_b`` defaults to ``opponents_a``).

    One is stepped wrongly, the other not, and ``same_from_here`` shows the first unchanged.
    """
    a = SingleSeatVectorEnv(n, opponents_a, rules=rules)
    b = SingleSeatVectorEnv(n, opponents_b if opponents_b is not None else opponents_a,
                            rules=rules)
    a.reset(seed=8)
    b.reset(seed=8)
    return a, b


def same_from_here(a: SingleSeatVectorEnv, b: SingleSeatVectorEnv, steps: int) -> None:
    """Assert that two envs step alike from here: a refused step must have changed nothing."""
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    for _ in range(steps):
        assert data_equivalence(a.step(learner_actions(a.action_masks(), rng_a)),
                                b.step(learner_actions(b.action_masks(), rng_b)))


class LearnerReplay:
    """Play each table of a single-seat env again on ``Game``, the opponents from their views.

    Only deterministic opponents can be replayed (their choices are asked again here).
    """

    def __init__(self, env: SingleSeatVectorEnv, rules: Rules, deal_for: DealFor,
                 seat: int | None) -> None:
        self.env, self.rules, self.deal_for, self.seat = env, rules, deal_for, seat
        self.hands = [0] * env.num_envs
        self.games: list[Game] = []
        self.seated: list[list[Any]] = []

    def start(self, i: int, info: dict[str, Any]) -> None:
        """Begin table ``i``'s current hand on the reference, up to the learner's turn."""
        hand = self.deal_for(i, self.hands[i])
        assert self.env.batch.deal_of(i) == hand
        game = Game.from_hands(hand, self.rules)
        players = self.env.seated(i)
        seat_i = players.index(None)
        assert int(info["seat"][i]) == seat_i and players.count(None) == 1
        if self.seat is not None:
            assert seat_i == self.seat
        self._opponents_until(game, players, seat_i)
        if len(self.games) <= i:
            self.games.append(game)
            self.seated.append(players)
        else:
            self.games[i], self.seated[i] = game, players

    def check_view(self, i: int, obs: np.ndarray) -> None:
        """Assert that the learner at table ``i`` sees what the reference shows its seat."""
        game, s = self.games[i], self.seated[i].index(None)
        assert game.current_player == s
        view = game.view(s)
        assert np.array_equal(obs[i], view.encode())
        assert np.array_equal(self.env.action_masks()[i], view.action_mask().astype(bool))

    def follow(self, i: int, action: int) -> tuple[Game, int]:
        """Play the learner's ``action`` and the opponents after it; return the game and seat."""
        game, players = self.games[i], self.seated[i]
        s = players.index(None)
        game.step(action)
        self._opponents_until(game, players, s)
        return game, s

    def check_end(self, i: int, game: Game, s: int, rew: np.ndarray, term: np.ndarray,
                  info: dict[str, Any], mode: str, scale: float) -> None:
        """Assert the env's report of table ``i``'s finished hand; count the hand."""
        assert term[i]
        raw = game.scores()
        assert info["final_info"]["scores"][i].tolist() == raw
        assert info["final_info"]["seat"][i] == s
        assert rew[i] == pytest.approx(hand_results(raw, mode, game.teams)[s] / scale,
                                       rel=1e-6, abs=1e-6)
        self.hands[i] += 1

    @staticmethod
    def _opponents_until(game: Game, players: list[Any], seat: int) -> None:
        while not game.is_over() and game.current_player != seat:
            game.step(scalar_choice(players[game.current_player], game, game.current_player))


def self_play_rounds(n: int, rules: str, mode: str, scale: float, policies: list[Any],
                     steps: int, rounds: int) -> tuple[SelfPlayBatch, int, list[Any]]:
    """Play ``rounds`` calls of ``steps`` self-play steps from seed 7, seated 0, 1, 0, 1.

    Return the batch (for its pending decisions), its deal seed and what each call returned,
    for ``replay_self_play``.
    """
    sp = SelfPlayBatch(n, rules, reward_mode=mode, reward_scale=scale)
    sp.reset(seed=7)
    seed = int(np.random.default_rng(7).integers(2**63))
    return sp, seed, [sp.play(policies, steps, assignment=[0, 1, 0, 1]) for _ in range(rounds)]


def replay_self_play(out: Any, deal_for: DealFor, rules: Rules | str, mode: str, scale: float,
                     assignment: list[int]) -> list[np.ndarray]:
    """Replay every hand a ``SelfPlayBatch.play`` finished on ``Game``; return their rows.

    Each decision's seat, player, observation and mask are checked before its action is
    played, and each hand's scores and the returns of its decisions at its end.
    """
    hands = []
    for t, h, scores in zip(out.hand_tables, out.hand_numbers, out.hand_scores, strict=True):
        rows = np.flatnonzero((out.tables == t) & (out.hands == h))
        game = Game.from_hands(deal_for(int(t), int(h)), rules)
        for r in rows:
            s = game.current_player
            assert out.seats[r] == s and out.players[r] == assignment[s]
            view = game.view(s)
            assert np.array_equal(out.observations[r], view.encode())
            assert np.array_equal(out.action_masks[r], view.action_mask().astype(bool))
            game.step(int(out.actions[r]))
        assert game.is_over() and game.scores() == scores.tolist()
        results = hand_results(game.scores(), mode, game.teams)
        for r in rows:
            assert out.returns[r] == pytest.approx(results[out.seats[r]] / scale, abs=1e-6)
        hands.append(rows)
    return hands
