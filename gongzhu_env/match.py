"""A match (一局): hands of Gong Zhu one after another until a cumulative score goes too far.

RULES.md section 5: the first hand is led by the C2 holder (with C2, unless ``first_lead`` is
``"any"``); each later hand is led, with any card, by the seat ``next_hand_leader`` names: the
previous hand's SQ taker, or with ``next_leader="biggest_loser"`` its lowest scorer. After each
hand every seat's raw score is added to its cumulative score; the match ends (``match_over``)
when a cumulative score is at or below ``rules.match_threshold``, or with
``match_end="either"`` also at or above its opposite. The highest cumulative score wins
(``team_play``: the team with the higher cumulative sum; ``double_pig``: the lowest and the
highest both lose and the others win).

These three functions are where the match rules live: ``Match``, the env's match episodes and
the terminal game all ask them.

``Match`` drives ``Game`` objects and adds nothing to the rules of a hand. What the match adds
to a seat's knowledge (cumulative scores before the hand, hands already played, the result once
over) is its ``context``, which ``Match.view`` hands to the view; the game itself knows nothing
of the match.
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Mapping, Sequence

import numpy as np

from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules, count_word
from gongzhu_env.view import MatchContext, PlayerView

__all__ = ["DEFAULT_MAX_HANDS", "EPISODES", "RESET_OPTIONS", "Match", "check_episode",
           "match_over", "match_result", "next_hand_leader", "reset_hands"]

DEFAULT_MAX_HANDS = 100
"""A safety cap: with positive heart tables nobody may ever fall to the threshold."""

EPISODES = ("hand", "match")
"""What one episode of an env is: a single hand, or a whole match."""


def check_episode(episode: object, max_hands: object) -> None:
    """Refuse an episode kind or a match cap that is not one, naming what is expected."""
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {EPISODES}; got {episode!r}")
    if type(max_hands) is not int or max_hands < 1:
        raise ValueError(f"max_hands must be a positive int; got {max_hands!r}")


RESET_OPTIONS = ("hands",)
"""The keys ``reset(options=...)`` understands."""


def reset_hands(options: object, rules: Rules) -> Sequence[Sequence[int | str]] | None:
    """Check ``reset``'s options and return the deal they give (``None``: deal at random).

    A misspelt key (``{"hand": ...}``) is refused with the known ones, so that a typo is not
    silently a random deal; any other unknown key is ignored with a warning naming it. A
    given deal is checked here, before any state changes.
    """
    if options is None:
        return None
    if not isinstance(options, Mapping):
        raise TypeError(f"reset options must be a dict such as {{'hands': [...]}} or None; "
                        f"got {type(options).__name__} {options!r}")
    unknown = sorted(str(k) for k in options if k not in RESET_OPTIONS)
    typos = [k for k in unknown if difflib.get_close_matches(k.lower(), RESET_OPTIONS, cutoff=0.6)]
    if typos:
        raise ValueError(f"unknown reset option(s) {typos}; known options: "
                         f"{list(RESET_OPTIONS)} (did you mean 'hands'?)")
    if unknown:
        # Not refused: PettingZoo's API test resets with an arbitrary option to check that
        # reset takes the argument. A key that is no misspelling of a known one is named.
        warnings.warn(f"reset ignores unknown option(s) {unknown}; known options: "
                      f"{list(RESET_OPTIONS)}", stacklevel=3)
    hands: Sequence[Sequence[int | str]] | None = options.get("hands")
    if hands is None:
        return None
    Game.from_hands(hands, rules)  # raises, naming what is wrong with the deal
    return hands


def match_over(cumulative: Sequence[int], rules: Rules) -> bool:
    """Whether cumulative raw scores end a match under ``rules``.

    Each seat's own total counts (with teams too): a match ends once one is at or below
    ``match_threshold`` (a negative score), and with ``match_end="either"`` also once one is at
    or above ``-match_threshold``. Both at once end it once, like either alone.
    """
    threshold = rules.match_threshold
    if min(cumulative) <= threshold:
        return True
    return rules.match_end == "either" and max(cumulative) >= -threshold


def next_hand_leader(game: Game) -> int:
    """Return the seat that leads the next hand of a match, with any card, after ``game``.

    ``next_leader="pig_taker"``: the seat that took SQ (the first SQ with two decks; under
    discard colour the taker need not be the trick's winner). ``"biggest_loser"``: the seat
    with the lowest raw score of ``game``; among tied seats the first in play order starting
    from ``game``'s first leader.
    """
    if not game.is_over():
        raise ValueError("the next hand's leader is known only once the hand is over")
    if game.rules.next_leader == "pig_taker":
        taker = game.first_pig_taker
        if taker is None:  # SQ is never out of the deck, so a finished hand gave it to someone
            raise RuntimeError("a finished hand in which nobody took SQ: the engine is broken")
        return taker
    scores = game.scores()
    n = game.rules.players
    order = [(game.first_leader + k) % n for k in range(n)]
    return min(order, key=lambda seat: scores[seat])  # min keeps the first of equal keys


def match_result(cumulative: Sequence[int], rules: Rules
                 ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Return ``(winners, losers)`` of a match from every seat's cumulative raw score.

    Individual: the highest score(s) win, the lowest lose. ``team_play``: each seat ranks by its
    team's sum. ``double_pig``: the lowest and the highest both lose, the others win. When
    every seat ranks equal nobody wins or loses.
    """
    n = rules.players
    if isinstance(cumulative, (str, bytes)) or len(cumulative) != n:
        raise ValueError(f"a match result needs {count_word(n)} cumulative scores "
                         f"(players={n}); got {cumulative!r}")
    key = list(cumulative)
    for team in rules.fixed_teams:
        total = sum(cumulative[s] for s in team)
        for s in team:
            key[s] = total
    hi, lo = max(key), min(key)
    if hi == lo:
        return (), ()
    top = tuple(s for s in range(n) if key[s] == hi)
    bottom = tuple(s for s in range(n) if key[s] == lo)
    if rules.double_pig:
        losers = tuple(sorted(set(top) | set(bottom)))
        return tuple(s for s in range(n) if s not in losers), losers
    return top, bottom


class Match:
    """A whole match: ``step`` plays the current hand's game and deals the next one itself.

    ``Match(rules, seed=...)`` or ``Match(rules, rng=generator)``. ``hands`` (optional) is the
    deal of the first hand (later hands are dealt from the generator). ``max_hands`` ends a
    match that no total has ended after that many hands (``truncated`` is then true).
    """

    def __init__(self, rules: Rules | str | None = None, seed: int | None = None, *,
                 rng: np.random.Generator | None = None,
                 hands: Sequence[Sequence[int | str]] | None = None,
                 max_hands: int = DEFAULT_MAX_HANDS) -> None:
        if rng is None:
            rng = np.random.default_rng(seed)
        elif seed is not None:
            raise ValueError("pass either seed= or rng=, not both")
        if type(max_hands) is not int or max_hands < 1:
            raise ValueError(f"max_hands must be a positive int; got {max_hands!r}")
        self.rules = Rules.coerce(rules)
        self.max_hands = max_hands
        self._rng = rng
        self.cumulative: list[int] = [0] * self.rules.players
        self.hand_scores: list[list[int]] = []
        """The raw scores of each finished hand, in order."""
        self.leaders: list[int] = []
        """The seat that led the first trick of each hand, in order."""
        self.result: tuple[tuple[int, ...], tuple[int, ...]] | None = None
        """``(winners, losers)`` once the match is over, else ``None``."""
        self.truncated = False
        if hands is not None:
            game = Game.from_hands(hands, self.rules)
        else:
            game = Game(self.rules, rng=rng)
        self._start(game)

    def _start(self, game: Game) -> None:
        self.leaders.append(game.first_leader)
        self.game = game

    @property
    def context(self) -> MatchContext:
        """What the match adds to a view of its current hand.

        During a hand: the cumulative scores before it and the hands played before it (a
        finished hand is followed at once by the next, unless the match is over). Once the
        match is over, the last hand's views show the final totals and the result.
        """
        return MatchContext(tuple(self.cumulative), len(self.hand_scores), self.result)

    def view(self, seat: int) -> PlayerView:
        """``seat``'s view of the current hand, with the match state it may know."""
        return PlayerView.from_game(self.game, seat, self.context)

    @property
    def hand_number(self) -> int:
        """Hands finished so far."""
        return len(self.hand_scores)

    def is_over(self) -> bool:
        """Whether the match has ended (``match_over``, or ``max_hands`` was hit)."""
        return self.result is not None

    def step(self, action: int) -> list[int] | None:
        """Apply an action to the current hand; return that hand's raw scores if it just ended.

        When a hand ends, the next hand is dealt at once (led with any card by
        ``next_hand_leader``) unless the match is over.
        """
        if self.result is not None:
            raise RuntimeError("the match is over; start a new Match")
        game = self.game
        game.step(action)
        if not game.is_over():
            return None
        scores = game.scores()
        self.hand_scores.append(scores)
        self.cumulative = [c + s for c, s in zip(self.cumulative, scores, strict=True)]
        over = match_over(self.cumulative, self.rules)
        if over or len(self.hand_scores) >= self.max_hands:
            self.truncated = not over
            self.result = match_result(self.cumulative, self.rules)
            return scores
        self._start(Game(self.rules, rng=self._rng, leader=next_hand_leader(game)))
        return scores

    def __repr__(self) -> str:
        return (f"Match(hands_played={self.hand_number}, cumulative={self.cumulative}, "
                f"over={self.is_over()})")
