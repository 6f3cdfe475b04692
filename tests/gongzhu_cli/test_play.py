"""``gongzhu play`` through a pseudo-terminal and in-process (gongzhu_cli.play)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import numpy as np
import pexpect
import pytest

from gongzhu_env.cards import card_str, parse_card
from gongzhu_env.records import load_records, replay_record
from tests.gongzhu_cli.session import (
    ENV,
    ROOT,
    expect_reask,
    finish,
    interruptible,
    next_turn,
    spawn,
)
from tests.helpers import HANG_S


def test_full_hand_with_bad_inputs(tmp_path):
    save = tmp_path / "hand.jsonl"
    child = spawn("play", "--seed", "7", "--opponents", "greedy", "random", "greedy",
                  "--no-color", "--save", str(save))
    plays = 0
    declared = False
    tried_illegal = False
    while (turn := next_turn(child)) is not None:
        hand, options = turn
        if "done" in options:
            # Declaration: empty input re-asks, a mistyped word is explained, then 'done'.
            child.expect_exact("(number or card): ")
            child.sendline("")
            child.expect_exact("(number or card): ")
            child.sendline("zz")
            expect_reask(child, "'zz' is not a card")
            child.sendline("DONE".lower())
            child.expect_exact("You are done declaring")
            declared = True
            continue
        legal = [parse_card(o) for o in options]
        if plays == 0:
            # A card I do not hold, and an option number that does not exist.
            missing = next(c for c in range(52) if c not in hand)
            child.sendline(card_str(missing))
            expect_reask(child, "you do not hold")
            child.sendline("99")
            expect_reask(child, f"there is no option 99; choose a number from 1 to {len(legal)}")
        illegal = [c for c in hand if c not in legal]
        if illegal and not tried_illegal:
            child.sendline(card_str(illegal[0]).lower())
            expect_reask(child, "is not legal:")
            tried_illegal = True
        # Alternate the three input forms: a number, symbol text and lower-case letter text.
        choice = legal[plays % len(legal)]
        form = plays % 3
        typed = (str(plays % len(legal) + 1) if form == 0 else
                 options[plays % len(legal)] if form == 1 else card_str(choice).lower())
        child.sendline(typed)
        child.expect(r"You play (\S+)")
        assert parse_card(child.match.group(1)) == choice
        plays += 1
    assert declared and tried_illegal and plays == 13
    rows = []
    for _ in range(4):
        child.expect(r"\r\n(\S.*?)\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)   ")
        rows.append(int(child.match.group(2)))
    finish(child)
    assert "Traceback" not in (child.before or "")
    (rec,) = load_records(save)
    game = replay_record(rec)
    assert game.is_over()
    # The summary printed the engine's scores for the hand the person actually played.
    assert rows == game.scores()
    assert rec["meta"]["human_seat"] == 0 and rec["meta"]["seed"] == 7


def test_same_seed_same_deal():
    hands = []
    for _ in range(2):
        child = spawn("play", "--seed", "11", "--opponents", "random", "--no-color")
        hands.append(next_turn(child)[0])
        child.sendintr()
        child.expect_exact("Save the match")
        child.sendline("")
        child.expect(pexpect.EOF)
    assert hands[0] == hands[1] and len(hands[0]) == 13


def test_eof_offers_to_save_the_unfinished_hand(tmp_path):
    child = spawn("play", "--seed", "3", "--opponents", "random", "--no-color", "--seat", "2")
    turn = next_turn(child)
    assert turn is not None
    child.expect(r"\): $")
    child.sendline("done" if "done" in turn[1] else "1")
    next_turn(child)
    child.sendeof()
    child.expect_exact("Interrupted.")
    child.expect_exact("Save the match (0 finished hand(s) and the unfinished one)")
    target = tmp_path / "partial.jsonl"
    child.sendline(str(target))
    child.expect_exact(f"Saved 1 hand(s) to {target}")
    finish(child, 130)
    assert "Traceback" not in child.before
    (rec,) = load_records(target)
    assert rec["complete"] is False and rec["meta"]["human_seat"] == 2
    game = replay_record(rec)
    assert not game.is_over() and game.current_player == 2


def test_ctrl_c_quits_cleanly_without_saving():
    child = spawn("play", "--seed", "4", "--opponents", "random", "--no-color")
    next_turn(child)
    child.sendintr()
    child.expect_exact("Interrupted.")
    child.expect_exact("Save the match")
    child.sendline("")
    child.expect_exact("Not saved. Goodbye.")
    finish(child, 130)
    assert "Traceback" not in child.before


def _play_match_to_the_end(child) -> int:
    """Answer every prompt of a match with the first legal card; return the hands played."""
    while True:
        i = child.expect([r"Options: [^\r\n]*\r\n", r"Press Enter for the next hand",
                          r"Match over after (\d+) hands: (.*) wins"])
        if i == 0:
            child.sendline("1")
        elif i == 1:
            child.sendline("")
        else:
            hands = int(child.match.group(1))
            break
    finish(child)
    return hands


def _recorded_match(save, *args: str, greeting: str = "Gong Zhu: "
                    ) -> list[tuple[dict, object, np.ndarray]]:
    """Play a match of ``gongzhu play --match ARGS --save SAVE`` to its end.

    Return each hand's record, its replayed game and the totals after it, having checked the
    greeting and that the file holds as many hands as the match reported.
    """
    child = spawn("play", "--opponents", "random", "--match", "--no-color", "--save", str(save),
                  *args)
    child.expect_exact(greeting)
    hands = _play_match_to_the_end(child)
    records = load_records(save)
    assert len(records) == hands
    out, totals = [], np.zeros(4, dtype=int)
    for rec in records:
        game = replay_record(rec)
        totals = totals + game.scores()
        out.append((rec, game, totals))
    return out


def test_match_mode_until_threshold(tmp_path):
    played = _recorded_match(tmp_path / "match.jsonl", "--seed", "5", "--threshold", "-60")
    for n, (rec, game, totals) in enumerate(played):
        if n:
            # Each later hand is led, freely, by the previous hand's pig taker.
            prev = played[n - 1][1]
            taker = next(s for s in range(4) if parse_card("SQ") in prev.captured[s])
            assert rec["leader"] == taker == game.first_leader
        # The match ends at the first hand that brings someone to -60 or below.
        assert (totals.min() <= -60) == (n == len(played) - 1)


def _play_match_with_options(tmp_path, seed: int) -> tuple[int, np.ndarray]:
    """Play a ±300 match under ``match_end="either"``, ``next_leader="biggest_loser"``.

    Return its number of hands and final totals, having checked each later hand's leader and
    that the match ended at the first hand that took a total to -300 or below or to +300 or
    above.
    """
    rules = '{"match_end": "either", "next_leader": "biggest_loser"}'
    played = _recorded_match(tmp_path / f"match{seed}.jsonl", "--seed", str(seed),
                             "--threshold", "-300", "--rules", rules,
                             greeting="Match until a total reaches -300 or 300.")
    for n, (rec, _, totals) in enumerate(played):
        if n:
            # The seat with the lowest score of the previous hand leads; a tie goes to the
            # first tied seat in play order from the previous hand's first leader.
            prev = played[n - 1][1]
            scores = prev.scores()
            order = [(prev.first_leader + k) % 4 for k in range(4)]
            assert rec["leader"] == next(s for s in order if scores[s] == min(scores))
        ended = totals.min() <= -300 or totals.max() >= 300
        assert ended == (n == len(played) - 1)
    return len(played), played[-1][2]


def test_match_next_leader_from_the_rules_is_the_biggest_loser(tmp_path):
    hands, _ = _play_match_with_options(tmp_path, seed=1)
    assert hands >= 2  # seed 1 plays two hands, so a second leader was chosen


def test_match_end_either_stops_at_the_winning_threshold(tmp_path):
    hands, totals = _play_match_with_options(tmp_path, seed=8)
    # Seed 8's first hand takes a seat to +300 or more and nobody to -300: only the
    # "either" end stops the match there.
    assert hands == 1 and totals.max() >= 300 > -totals.min()


def test_bad_opponent_spec_is_reported():
    out = subprocess.run([sys.executable, "-m", "gongzhu_cli", "play", "--opponents",
                          "no_such_agent", "--seed", "1"], cwd=ROOT, env=ENV,
                         capture_output=True, text=True, timeout=HANG_S, input="")
    assert out.returncode == 2
    assert "cannot build the opponents" in out.stdout and "no_such_agent" in out.stdout
    out = subprocess.run([sys.executable, "-m", "gongzhu_cli", "play", "--opponents",
                          "random", "greedy", "--seed", "1"], cwd=ROOT, env=ENV,
                         capture_output=True, text=True, timeout=HANG_S, input="")
    assert out.returncode == 2 and "one agent spec for all three other seats or three" in out.stdout
    out = subprocess.run([sys.executable, "-m", "gongzhu_cli", "play", "--match", "--threshold",
                          "500"], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=HANG_S,
                         input="")
    assert out.returncode == 2 and "negative score" in out.stderr


def test_default_opponent_falls_back_with_one_notice(monkeypatch, tmp_path):
    from gongzhu_cli import play

    monkeypatch.setattr(play, "DEFAULT_OPPONENT", f"policy:{tmp_path / 'missing.pt'}")
    notes: list[str] = []
    players, labels = play.build_opponents(None, 1, seed=0, say=notes.append)
    assert len(notes) == 1 and "pretrained policy is not available" in notes[0]
    assert "'expert'" in notes[0]
    assert players[1] is None and all(players[s] is not None for s in (0, 2, 3))
    assert labels[0] == "Seat 0 (expert)" and labels[1] == "You (seat 1)"


def _play_refused(*args: str) -> subprocess.CompletedProcess:
    """Run ``gongzhu play ARGS`` with no input; return it after checking it refused up front."""
    out = subprocess.run([sys.executable, "-m", "gongzhu_cli", "play", "--opponents", "random",
                          "--seed", "1", *args], cwd=ROOT, env=ENV, capture_output=True,
                         text=True, timeout=120, input="")
    assert out.returncode == 2, (out.stdout, out.stderr)
    # One line on stderr, and no hand was dealt.
    assert len(out.stderr.splitlines()) == 1 and "Traceback" not in out.stderr
    assert "Gong Zhu:" not in out.stdout and "Your hand" not in out.stdout
    return out


def test_save_to_a_missing_directory_is_refused_up_front(tmp_path):
    out = _play_refused("--save", str(tmp_path / "no" / "such" / "dir.jsonl"))
    assert "does not exist" in out.stderr


def _record_file(path, hands: int, seed: int = 0) -> bytes:
    """Write ``hands`` random finished hands to ``path`` as hand records; return its bytes."""
    from gongzhu_env.engine import Game
    from gongzhu_env.records import save_records
    from tests.helpers import random_playout

    rng = np.random.default_rng(seed)
    save_records(path, [random_playout(Game(rng=rng), rng) for _ in range(hands)])
    return path.read_bytes()


def test_save_refuses_a_file_that_appending_would_leave_unreadable(tmp_path):
    whole = _record_file(tmp_path / "whole.jsonl", 3)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(whole[:-200])  # the last line cut short, as by a crash or a copy
    no_newline = tmp_path / "no_newline.jsonl"
    no_newline.write_bytes(whole[:-1])  # readable, but a new line would be glued onto the last
    arrays = tmp_path / "weights.npz"
    np.savez(arrays, w=np.arange(10))
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)  # reading it to check would wait for a writer forever
    for path, message in ((cut, "line 3"), (no_newline, "does not end with a newline"),
                          (arrays, "line 1"), (fifo, "not a regular file"),
                          (tmp_path, "is a directory")):
        before = path.read_bytes() if path.is_file() else None
        out = _play_refused("--save", str(path))
        assert f"--save {path}: " in out.stderr and message in out.stderr, out.stderr
        if path.is_file():
            assert "not a readable hand-record file" in out.stderr or path == no_newline
            assert path.read_bytes() == before
    assert "expected one hand record" in _play_refused("--save", str(cut)).stderr


def test_save_asks_the_records_own_rule_before_play(tmp_path):
    # One rule for "may a record be appended here", in gongzhu_env.records: gongzhu play
    # --save refuses exactly what save_records(append=True) would.
    from gongzhu_cli.play import save_problem
    from gongzhu_env.records import RecordError, append_problem, save_records

    path = tmp_path / "match.jsonl"
    whole = _record_file(path, 1)
    path.write_bytes(whole[:-1])  # readable, the newline after the last record missing
    problem = append_problem(path)
    assert problem is not None and save_problem(path) == problem
    with pytest.raises(RecordError, match=problem.split(" (")[0]):
        save_records(path, [], append=True)


def test_save_appends_to_a_record_file_and_to_an_empty_one(tmp_path):
    from gongzhu_cli.play import run_play
    from gongzhu_env.rules import Rules

    existing = tmp_path / "match.jsonl"
    before = _record_file(existing, 2)
    empty = tmp_path / "empty.jsonl"
    empty.touch()
    for path, earlier in ((existing, 2), (empty, 0)):
        rc = run_play(opponents=["random"], seat=0, seed=9, match=False, threshold=-1000,
                      rules=Rules(), save=path, colour=False, out=io.StringIO(),
                      read=lambda prompt: "1")
        assert rc == 0
        records = load_records(path)
        assert len(records) == earlier + 1 and records[-1]["meta"]["seed"] == 9
        assert replay_record(records[-1]).is_over()
    assert existing.read_bytes().startswith(before)


def test_a_file_cut_during_the_hand_is_not_appended_to(tmp_path):
    from gongzhu_cli.play import run_play
    from gongzhu_env.rules import Rules

    save = tmp_path / "match.jsonl"
    whole = _record_file(save, 2)
    elsewhere = tmp_path / "elsewhere.jsonl"
    prompts: list[str] = []

    def read(prompt: str) -> str:
        if not prompts:
            # While the person plays, something else cuts the file's last line short.
            save.write_bytes(whole[:-100])
        prompts.append(prompt)
        return str(elsewhere) if prompt.startswith("Save the match") else "1"

    out = io.StringIO()
    rc = run_play(opponents=["random"], seat=0, seed=9, match=False, threshold=-1000,
                  rules=Rules(), save=save, colour=False, out=out, read=read)
    text = out.getvalue()
    assert rc == 0
    assert f"Could not append to {save} (its last line does not end with a newline" in text
    assert save.read_bytes() == whole[:-100]  # left as it was, not glued onto
    assert f"Saved 1 hand(s) to {elsewhere}" in text
    (rec,) = load_records(elsewhere)
    assert replay_record(rec).is_over()


def test_a_write_that_fails_part_way_is_cut_back(tmp_path):
    import resource

    save = tmp_path / "match.jsonl"
    before = _record_file(save, 2)
    # A file-size limit a few hundred bytes above the file: the hand's line (kilobytes) is
    # written in part, then the write fails, as on a disk that fills up.
    limit = len(before) + 300

    def limit_file_size() -> None:
        interruptible()
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    child = pexpect.spawn(sys.executable, ["-m", "gongzhu_cli", "play", "--seed", "4",
                                           "--opponents", "random", "--no-color", "--save",
                                           str(save)],
                          cwd=str(ROOT), env=ENV, encoding="utf-8", timeout=HANG_S,
                          dimensions=(60, 220), preexec_fn=limit_file_size)
    while child.expect([r"Options: [^\r\n]*\r\n", r"Could not append to"]) == 0:
        child.sendline("1")
    child.expect_exact("File too large")
    child.expect_exact("Save the match")
    child.sendline("")
    child.expect_exact("Not saved. Goodbye.")
    finish(child)
    assert save.read_bytes() == before
    assert len(load_records(save)) == 2


def test_match_only_options_need_match():
    out = _play_refused("--threshold", "-50")
    assert "--threshold -50 applies only to a match; add --match" in out.stderr


def test_failed_save_asks_for_another_file(tmp_path):
    import io

    from gongzhu_cli.play import run_play
    from gongzhu_env.rules import Rules

    good = tmp_path / "second_try.jsonl"
    answers = iter(["done", EOFError, str(tmp_path / "missing" / "x.jsonl"), str(good)])

    def read(prompt: str) -> str:
        a = next(answers)
        if a is EOFError:
            raise EOFError
        return a

    out = io.StringIO()
    rc = run_play(opponents=["random"], seat=0, seed=9, match=False, threshold=-1000,
                  rules=Rules(), save=None, colour=False, out=out, read=read)
    text = out.getvalue()
    assert rc == 130
    assert "Could not write" in text and f"Saved 1 hand(s) to {good}" in text
    (rec,) = load_records(good)
    assert rec["complete"] is False and "DONE" in rec["actions"]


def test_hidden_exposures_stay_hidden_at_the_terminal():
    import io

    from gongzhu_cli.play import run_play
    from gongzhu_env.rules import Rules

    out = io.StringIO()
    answers = iter(["1"] * 200)
    rules = Rules(hidden_exposure=True)
    rc = run_play(opponents=["random"], seat=0, seed=5, match=False, threshold=-1000,
                  rules=rules, save=None, colour=False, out=out, read=lambda _: next(answers))
    assert rc == 0
    text = out.getvalue()
    # Opponents' exposures happened (the random players expose), but never by name.
    assert re.search(r"Seat \d \(random\) exposes a card", text)
    assert not re.search(r"Seat \d \(random\) exposes [♠♥♦♣]", text)
    assert re.search(r"Seat \d \(random\) 1 hidden", text)
    assert "=== Hand 1 over ===" in text


@pytest.mark.parametrize("players, seat", [(3, 1), (5, 4)])
def test_a_whole_hand_at_another_table_size(tmp_path, players, seat):
    save = tmp_path / "hand.jsonl"
    child = spawn("play", "--players", str(players), "--seat", str(seat), "--seed", "5",
                  "--opponents", "greedy", "--no-color", "--save", str(save))
    child.expect(r"Gong Zhu: ([^\r\n]*)\. Seed")
    assert child.match.group(1).count("Seat ") == players - 1
    plays = 0
    while (turn := next_turn(child)) is not None:
        hand, options = turn
        if "done" in options:
            child.sendline("done")
            child.expect_exact("You are done declaring")
            continue
        if plays == 0:
            assert len(hand) == 52 // players
        child.sendline("1")
        child.expect(r"You play (\S+)")
        assert parse_card(child.match.group(1)) == parse_card(options[0])
        plays += 1
    assert plays == 52 // players
    finish(child)
    (rec,) = load_records(save)
    game = replay_record(rec)
    assert game.rules.players == players and len(game.scores()) == players
    assert rec["meta"]["human_seat"] == seat and len(rec["meta"]["players"]) == players


def test_bad_table_size_and_seat_are_refused():
    for args, message in ((("--players", "9"), "--players 9: rule option 'players'"),
                          (("--players", "3", "--seat", "3"), "--seat must be a seat 0..2"),
                          (("--players", "5", "--rules", "two_decks"), "decks=2")):
        child = spawn("play", *args, "--opponents", "random", "--no-color")
        finish(child, 2)  # args
        assert message in child.before and "Traceback" not in child.before
