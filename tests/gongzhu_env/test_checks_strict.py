"""The invariant checks catch what they claim, under ``python -O`` too.

``python -O`` strips ``assert`` statements; the checks of ``gongzhu_env.checks`` (one deck and
two) are explicit tests that raise ``InvariantViolation``, so a corrupted engine is caught
whatever the interpreter's flags. Each test here corrupts one fact (a score, a lead, the match
leader or end) and sees the independent checker name it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import gongzhu_env.match as match_module
from gongzhu_env import Game, Rules, pair_tricks
from gongzhu_env.checks import InvariantViolation, check_hand, check_matches, play_checked
from tests.gongzhu_env.two_deck_deals import deal2, declare, legal_text
from tests.helpers import random_playout

ROOT = Path(__file__).resolve().parents[2]

# A ``sitecustomize`` module that Python imports at start-up corrupts the engine before the
# command runs: every engine's provisional scores (so its final scores too) are 1000 too high
# for seat 0, consistently, so only the scoring check can see it. The command itself is run as
# a user runs it, under ``python -O``.
_CORRUPT = textwrap.dedent("""
    import sys
    if __debug__:
        sys.exit("this check must run under python -O")
    from gongzhu_env.engine import Game

    def corrupt(original):
        def provisional_scores(self):
            scores = original(self)
            scores[0] += 1000
            return scores
        return provisional_scores

    Game.provisional_scores = corrupt(Game.provisional_scores)
""")


def test_check_presets_catches_corrupted_scores_under_python_O(tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text(_CORRUPT)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run([sys.executable, "-O", "-m", "benchmarks.check_presets", "--games", "2",
                           "--random-combinations", "0", "--two-deck-combinations", "0",
                           "--players", "none", "--matches", "0"],
                          cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    out = done.stdout
    assert done.returncode == 1, (done.returncode, out, done.stderr)
    # Every preset, one deck and two, fails on the scores; none is reported clean.
    for name in ("standard", "huapai", "two_decks"):
        line = next(x for x in out.splitlines() if x.strip().startswith(f"{name}:"))
        assert "FAILED" in line and "scores are the" in line, line
    assert "without a violation: 0 one-deck, 0 two-deck" in out


class _OffByAThousand:
    """A finished game whose reported scores give seat 0 a thousand points too many."""

    def __init__(self, game: Game) -> None:
        self._game = game

    def __getattr__(self, name: str) -> object:
        return getattr(self._game, name)

    def scores(self) -> list[int]:
        scores = self._game.scores()
        return [scores[0] + 1000, *scores[1:]]


@pytest.mark.parametrize("rules", [Rules(), Rules.preset("two_decks")], ids=["one", "two"])
def test_check_hand_names_a_wrong_score(rules: Rules) -> None:
    rng = np.random.default_rng(3)
    game = Game(rules, rng=rng)
    play_checked(game, rng)
    check_hand(game)
    with pytest.raises(InvariantViolation, match="scores are the"):
        check_hand(_OffByAThousand(game))  # type: ignore[arg-type]
    # An AssertionError still, for callers written against the assert form.
    assert issubclass(InvariantViolation, AssertionError)


def test_two_deck_checker_refuses_a_lead_of_both_exposed_copies(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # An engine that lets seat 0 open spades with both its exposed SQ: the checker, which
    # works out the fewest exposed copies on its own, names the lead.
    hands = deal2("SQ SQ C2 CK DA", "C6 H9 D8", "C4 H9 DJ", "C7 HK D10")
    original = pair_tricks.lead_legal

    def lenient(*args: int) -> int:
        legal = original(*args)
        return legal | 1 << (52 + 49) if args[0] >> 49 & 1 else legal  # SQ+SQ for its holder

    monkeypatch.setattr(pair_tricks, "lead_legal", lenient)
    game = Game.from_hands(hands, Rules(decks=2))
    for action in [49, 49, 104, 104, 104, 104, 0, 4, 2, 5, 37, 11, 33, 33, 21, 25, 19, 22]:
        game.step(action)
    assert "SQ+SQ" in legal_text(game)
    game.step(52 + 49)
    random_playout(game, np.random.default_rng(0))
    with pytest.raises(InvariantViolation, match="fewest exposed copies"):
        check_hand(game)


def test_two_deck_checker_accepts_one_exposed_copy_as_the_only_spade_lead() -> None:
    hands = deal2("SQ SQ C2 CK DA", "C6 H9 D8", "C4 H9 DJ", "C7 HK D10")
    game = declare(Game.from_hands(hands, Rules(decks=2)), {0: "SQ SQ"})
    for action in [0, 4, 2, 5, 37, 11, 33, 33, 21, 25, 19, 22, 49]:
        game.step(action)
    check_hand(random_playout(game, np.random.default_rng(1)))


def test_match_checker_names_a_wrong_next_leader(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = Rules(next_leader="biggest_loser")
    check_matches(rules, 3, seed=5)
    # A match that hands the lead to the pig taker whatever the rules say.
    monkeypatch.setattr(match_module, "next_hand_leader", lambda game: game.first_pig_taker)
    with pytest.raises(InvariantViolation, match="biggest_loser"):
        check_matches(rules, 3, seed=5)


def test_match_checker_names_a_match_that_ignores_the_high_end(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rules = Rules(match_end="either", match_threshold=-300)
    done = check_matches(rules, 20, seed=0)
    assert done.ended_high > done.ended_both  # some match ends on the high side alone
    # A match that only ever ends on the losing side.
    monkeypatch.setattr(match_module, "match_over",
                        lambda totals, rules: min(totals) <= rules.match_threshold)
    with pytest.raises(InvariantViolation, match="end a match with match_end='either'"):
        check_matches(rules, 20, seed=0)
