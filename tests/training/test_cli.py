"""The ``gongzhu`` command driven as a person would: through a pseudo-terminal with pexpect."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pexpect
import pytest

from gongzhu_env.cards import SUIT_SYMBOLS, card_str, parse_card
from gongzhu_env.engine import Game
from gongzhu_env.records import load_records, record_hand, replay_record, save_records
from tests.helpers import random_playout
from training import cli

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8", "COLUMNS": "200"}


def spawn(*args: str) -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-m", "training.cli", *args], cwd=str(ROOT), env=ENV,
                         encoding="utf-8", timeout=30, dimensions=(60, 220))


def read_hand(text: str) -> list[int]:
    """'♠ 7 6 4   ♥ A K' -> card indices."""
    cards, suit = [], None
    for token in text.split():
        if token in SUIT_SYMBOLS:
            suit = token
        else:
            cards.append(parse_card(suit + token))
    return cards


def read_options(text: str) -> list[str]:
    """'1) expose ♥A  2) done' -> ['♥A', 'done']."""
    return [m.group(1) for m in re.finditer(r"\d+\) (?:expose )?(\S+)", text)]


def next_turn(child: pexpect.spawn) -> tuple[list[int], list[str]] | None:
    """Wait for the person's next turn (hand, options) or the end-of-hand summary (None)."""
    i = child.expect([r"Your hand: ([^\r\n]*)\r\n", r"=== Hand \d+ over ==="])
    if i == 1:
        return None
    hand = read_hand(child.match.group(1)) if child.match.group(1) != "-" else []
    child.expect(r"Options: ([^\r\n]*)\r\n")
    return hand, read_options(child.match.group(1))


def expect_reask(child: pexpect.spawn, message: str) -> None:
    child.expect_exact(message)
    child.expect(r"Options: [^\r\n]*\r\n")


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
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
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
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
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
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "Traceback" not in child.before


def test_match_mode_until_threshold(tmp_path):
    save = tmp_path / "match.jsonl"
    child = spawn("play", "--seed", "5", "--opponents", "random", "--match", "--threshold", "-60",
                  "--no-color", "--save", str(save))
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
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    records = load_records(save)
    assert len(records) == hands
    totals = np.zeros(4, dtype=int)
    for n, rec in enumerate(records):
        game = replay_record(rec)
        totals += game.scores()
        if n:
            # Each later hand is led, freely, by the previous hand's pig taker.
            prev = replay_record(records[n - 1])
            taker = next(s for s in range(4) if parse_card("SQ") in prev.captured[s])
            assert rec["leader"] == taker == game.first_leader
        # The match ends at the first hand that brings someone to -60 or below.
        assert (totals.min() <= -60) == (n == len(records) - 1)


def test_replay_all(tmp_path):
    rng = np.random.default_rng(1)
    games = [random_playout(Game(rng=rng), rng) for _ in range(2)]
    path = tmp_path / "two.jsonl"
    save_records(path, games)
    out = subprocess.run([sys.executable, "-m", "training.cli", "replay", str(path), "--all",
                          "--no-color"], cwd=ROOT, env=ENV, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert text.count(" plays ") == 104
    assert text.count("wins the trick") == 26
    assert text.count("over ===") == 2
    out = subprocess.run([sys.executable, "-m", "training.cli", "replay", str(path), "--all",
                          "--hand", "2", "--no-color"], cwd=ROOT, env=ENV, capture_output=True,
                         text=True, timeout=60)
    assert "hand 2 of 2" in out.stdout and out.stdout.count("wins the trick") == 13
    for line in out.stdout.splitlines():
        m = re.match(r"Seat (\d)\s+(-?\d+)\s+(-?\d+)   ", line)
        if m:
            assert int(m.group(2)) == games[1].scores()[int(m.group(1))]


def test_replay_steps_and_quits(tmp_path):
    rng = np.random.default_rng(2)
    path = tmp_path / "one.jsonl"
    save_records(path, [random_playout(Game(rng=rng), rng)])
    child = spawn("replay", str(path), "--no-color")
    child.expect_exact("Enter: next action")
    for _ in range(3):
        child.expect(r"(is done declaring|exposes|plays)")
        child.sendline("")
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "wins the trick" not in child.before


@pytest.mark.parametrize("content, message", [
    (None, "does not exist"),
    ("{broken\n", "line 1: not valid JSON"),
    ('{"format": "gongzhu-hand"}\n', "line 1: missing key(s)"),
])
def test_bad_replay_files(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "training.cli", "replay", str(path), "--all"],
                         cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert message in out.stdout and "bad.jsonl" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr


def test_replay_of_a_tampered_record_and_bad_hand_number(tmp_path):
    rng = np.random.default_rng(3)
    rec = record_hand(random_playout(Game(rng=rng), rng))
    rec["scores"][0] += 10
    path = tmp_path / "tampered.jsonl"
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "training.cli", "replay", str(path), "--all"],
                         cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "hand 1: stored scores" in out.stdout
    out = subprocess.run([sys.executable, "-m", "training.cli", "replay", str(path), "--hand",
                          "4"], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "--hand must be 1..1, got 4" in out.stdout


def test_bad_opponent_spec_is_reported():
    out = subprocess.run([sys.executable, "-m", "training.cli", "play", "--opponents",
                          "no_such_agent", "--seed", "1"], cwd=ROOT, env=ENV,
                         capture_output=True, text=True, timeout=60, input="")
    assert out.returncode == 2
    assert "cannot build the opponents" in out.stdout and "no_such_agent" in out.stdout
    out = subprocess.run([sys.executable, "-m", "training.cli", "play", "--opponents",
                          "random", "greedy", "--seed", "1"], cwd=ROOT, env=ENV,
                         capture_output=True, text=True, timeout=60, input="")
    assert out.returncode == 2 and "one agent spec for all three seats or three" in out.stdout
    out = subprocess.run([sys.executable, "-m", "training.cli", "play", "--threshold", "500"],
                         cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=60, input="")
    assert out.returncode == 2 and "negative score" in out.stderr


def test_forward_passes_arguments_unchanged(tmp_path, monkeypatch):
    (tmp_path / "fake_front.py").write_text(
        "seen = []\ndef main(argv):\n    seen.append(list(argv))\n    return 3\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(cli.FRONTS, "eval", ("fake_front", "a fake arena", "train"))
    assert cli.main(["eval", "--help", "--deals", "8"]) == 3
    import fake_front

    assert fake_front.seen == [["--help", "--deals", "8"]]


def test_forward_missing_module_is_explained(monkeypatch, capsys):
    monkeypatch.setitem(cli.FRONTS, "train", ("no_such_module_xyz", "self-play training",
                                              "train"))
    assert cli.main(["train", "--preset", "quick"]) == 2
    assert "not available in this installation" in capsys.readouterr().err


def test_bench_without_checkout_is_explained(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "bench_script", lambda: tmp_path / "bench_env.py")
    assert cli.main(["bench", "--hands", "1"]) == 2
    err = capsys.readouterr().err
    assert "not available" in err and "bench_env.py" in err


def test_help_everywhere():
    for args in (["--help"], ["play", "--help"], ["replay", "--help"], ["demo", "--help"]):
        out = subprocess.run([sys.executable, "-m", "training.cli", *args], cwd=ROOT, env=ENV,
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0 and "usage: gongzhu" in out.stdout


def test_demo_still_works():
    out = subprocess.run([sys.executable, "-m", "training.cli", "demo", "--seed", "2"],
                         cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    scores = json.loads(out.stdout.strip().splitlines()[-1].split(":", 1)[1])
    assert len(scores) == 4


def test_default_opponent_falls_back_with_one_notice(monkeypatch, tmp_path):
    from training import play

    monkeypatch.setattr(play, "DEFAULT_OPPONENT", f"policy:{tmp_path / 'missing.pt'}")
    notes: list[str] = []
    players, labels = play.build_opponents(None, 1, seed=0, say=notes.append)
    assert len(notes) == 1 and "pretrained policy is not available" in notes[0]
    assert "'expert'" in notes[0]
    assert players[1] is None and all(players[s] is not None for s in (0, 2, 3))
    assert labels[0] == "Seat 0 (expert)" and labels[1] == "You (seat 1)"


def test_refusals_are_named_after_the_rule():
    from gongzhu_env.cards import DONE
    from tests.helpers import make_deal
    from training.play import parse_choice, why_illegal

    deal = make_deal("C2 C3 HA H3 S4", "H5 D2 CA", "C4", "C5")
    game = Game.from_hands(deal)
    assert game.current_player == 0
    view = game.view(0)
    # Declaration: a card that cannot be exposed, then one seat 0 does not hold.
    assert why_illegal(view, parse_card("C3")) == "only ♠Q, ♦J, ♣10 and ♥A can be exposed"
    assert why_illegal(view, parse_card("H5")) == "you do not hold ♥5"
    assert parse_choice("done", view.legal_actions) == DONE
    game.step(parse_card("HA"))
    assert "already exposed" in why_illegal(game.view(0), parse_card("HA"))
    for _ in range(4):
        game.step(DONE)
    view = game.view(0)
    assert parse_card("C3") not in view.legal_actions
    assert why_illegal(view, parse_card("C3")) == "the first trick must be led with ♣2"
    with pytest.raises(ValueError, match="not legal here"):
        parse_choice("c3", view.legal_actions)
    with pytest.raises(ValueError, match="only ends your declaration turn"):
        parse_choice("done", view.legal_actions)
    assert parse_choice("♣2", view.legal_actions) == parse_card("C2")
    game.step(parse_card("C2"))
    # Seat 1 holds clubs (the filler deals it some) and must follow them.
    view = game.view(1)
    assert all(c // 13 == 0 for c in view.legal_actions)
    assert why_illegal(view, parse_card("H5")).startswith("you must follow suit: ♣ clubs")
    # A hand led freely by seat 0 (a later hand of a match): the exposed HA may not open hearts
    # while seat 0 holds another heart.
    game = Game.from_hands(make_deal("HA H3", "", "", ""), leader=0)
    game.step(parse_card("HA"))
    for _ in range(4):
        game.step(DONE)
    view = game.view(0)
    assert parse_card("H3") in view.legal_actions and parse_card("HA") not in view.legal_actions
    assert "♥A is exposed" in why_illegal(view, parse_card("HA"))


def test_save_to_a_missing_directory_is_refused_up_front(tmp_path):
    out = subprocess.run([sys.executable, "-m", "training.cli", "play", "--opponents", "random",
                          "--save", str(tmp_path / "no" / "such" / "dir.jsonl")], cwd=ROOT,
                         env=ENV, capture_output=True, text=True, timeout=60, input="")
    assert out.returncode == 2 and "does not exist" in out.stdout


def test_failed_save_asks_for_another_file(tmp_path):
    import io

    from gongzhu_env.rules import Rules
    from training.play import run_play

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

    from gongzhu_env.rules import Rules
    from training.play import run_play

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
