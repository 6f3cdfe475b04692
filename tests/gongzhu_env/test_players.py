"""The hand-playing loop: who is asked, where it stops, callbacks, and errors that name the seat."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np
import pytest

from agents import make_agent
from gongzhu_env.cards import DONE, card_str, parse_card
from gongzhu_env.engine import Game, IllegalActionError
from gongzhu_env.players import (
    IllegalPlayerActionError,
    action_text,
    play_turn,
    play_turns,
    player_label,
    start_hand,
)
from gongzhu_env.rules import Rules
from tests.helpers import snapshot


class Recorder:
    """Plays its seat's first legal action and notes every call the loop makes."""

    name = "recorder"

    def __init__(self) -> None:
        self.resets: list[tuple[int, Rules]] = []
        self.asked: list[tuple[int, int]] = []

    def reset(self, seat: int, rules: Rules) -> None:
        self.resets.append((seat, rules))

    def act(self, view) -> int:
        self.asked.append((view.seat, view.current_player))
        return view.legal_actions[0]


class Fixed:
    """Returns one given action whatever the view; has no ``name``."""

    def __init__(self, action: object) -> None:
        self.action = action

    def reset(self, seat: int, rules: Rules) -> None:
        pass

    def act(self, view) -> object:
        return self.action

    def __repr__(self) -> str:
        return f"Fixed({self.action!r})"


def test_a_full_table_plays_the_hand_to_the_end_like_a_hand_written_loop():
    rules = Rules()
    players = [make_agent(spec, seed=k) for k, spec in enumerate(["random", "greedy",
                                                                   "expert", "random"])]
    game = Game(rules, seed=4)
    start_hand(players, rules)
    played = play_turns(game, players)
    assert game.is_over() and played == len(game.actions)

    by_hand = Game(rules, seed=4)
    again = [make_agent(spec, seed=k) for k, spec in enumerate(["random", "greedy",
                                                                 "expert", "random"])]
    for seat, p in enumerate(again):
        p.reset(seat, rules)
    while not by_hand.is_over():
        seat = by_hand.current_player
        by_hand.step(again[seat].act(by_hand.view(seat)))
    assert game.actions == by_hand.actions and game.scores() == by_hand.scores()
    assert play_turns(game, players) == 0  # nothing left to play


def test_start_hand_resets_every_seated_player_and_skips_empty_seats():
    rules = Rules(team_play=True)
    players = [Recorder(), None, Recorder(), Recorder()]
    start_hand(players, rules)
    assert [p.resets if p else None for p in players] == [
        [(0, rules)], None, [(2, rules)], [(3, rules)]]


def test_an_empty_seat_hands_control_back_and_is_never_asked():
    players = [Recorder(), Recorder(), None, Recorder()]
    game = Game(seed=2)
    outside = 0
    while not game.is_over():
        play_turns(game, players)
        if not game.is_over():
            assert game.current_player == 2
            game.step(game.legal_actions()[-1])
            outside += 1
    assert outside == sum(1 for s in _movers(game) if s == 2)
    for seat, p in enumerate(players):
        if p is not None:
            assert p.asked and all(s == cp == seat for s, cp in p.asked)


def _movers(game: Game) -> list[int]:
    """The seat that made each action of a finished game, by replaying it."""
    replay = Game.from_hands([list(h) for h in game.deal], game.rules)
    seats = []
    for a in game.actions:
        seats.append(replay.current_player)
        replay.step(a)
    return seats


def test_on_action_sees_each_action_once_it_is_applied():
    seen = []
    game = Game(seed=6)

    def note(seat: int, action: int) -> None:
        assert game.actions[-1] == action
        seen.append((seat, action))

    players = [Recorder() for _ in range(4)]
    start_hand(players, game.rules)
    play_turns(game, players, on_action=note)
    assert tuple(a for _, a in seen) == game.actions
    assert [s for s, _ in seen] == _movers(game)


def test_play_turn_plays_exactly_one_action():
    game = Game(seed=1)
    p = Recorder()
    seat = game.current_player
    action = play_turn(game, p)
    assert game.actions == (action,) and p.asked == [(seat, seat)]


def test_an_illegal_action_names_seat_player_and_card_and_changes_nothing():
    game = Game(seed=3)
    while game.phase == "declare":
        game.step(DONE)
    seat = game.current_player
    not_held = next(c for c in range(52) if c not in game.hands[seat])
    players = [Recorder() for _ in range(4)]
    players[seat] = Fixed(not_held)
    before = snapshot(game)
    with pytest.raises(IllegalPlayerActionError) as info:
        play_turns(game, players)
    e = info.value
    assert isinstance(e, IllegalActionError) and isinstance(e, ValueError)
    assert (e.seat, e.player, e.action) == (seat, f"Fixed({not_held})", not_held)
    msg = str(e)
    assert f"seat {seat}" in msg and f"Fixed({not_held})" in msg and card_str(not_held) in msg
    assert "play phase" in msg and "legal actions: [" in e.reason
    assert snapshot(game) == before


def test_the_error_names_a_player_by_its_name_and_shows_non_actions_as_given():
    game = Game(seed=3)
    agent = make_agent("greedy")
    agent.act = lambda view: "SQ"  # a string is not an action, even a card's
    with pytest.raises(IllegalPlayerActionError, match=r"'greedy' in seat \d.*'SQ'"):
        play_turn(game, agent)
    assert player_label(agent) == "greedy"
    assert player_label(Fixed(1)) == "Fixed(1)"
    assert [action_text(a) for a in (parse_card("SQ"), np.int64(52), True, None, 99)] == [
        "SQ", "DONE", "True", "None", "99"]


def test_the_error_survives_a_trip_to_another_process():
    e = IllegalPlayerActionError(2, "random", 49, "SQ (49) is not legal")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is IllegalPlayerActionError and str(back) == str(e)
    assert (back.seat, back.player, back.action, back.reason) == (2, "random", 49,
                                                                  "SQ (49) is not legal")


def test_an_exception_inside_act_propagates_unchanged_with_the_game_as_it_was():
    boom = KeyError("boom")

    class Crasher(Recorder):
        def act(self, view) -> int:
            if view.phase == "play":
                raise boom
            return super().act(view)

    game = Game(seed=8)
    players = [Crasher() for _ in range(4)]
    state = []
    with pytest.raises(KeyError) as info:
        play_turns(game, players, on_action=lambda s, a: state.append(snapshot(game)))
    assert info.value is boom
    assert game.phase == "play" and snapshot(game) == state[-1]


def test_the_loop_module_does_not_pull_in_agents_training_or_torch():
    code = ("import sys, gongzhu_env.players, gongzhu_env.wrappers; "
            "print(sorted(m for m in ('agents', 'training', 'torch') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
