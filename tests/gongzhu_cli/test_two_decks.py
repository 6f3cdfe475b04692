"""The ``gongzhu`` command under two-deck rules: terminal play, demo, replay and the arena."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from agents import make_agent
from gongzhu_cli.terminal import Style
from gongzhu_env.cards import (
    ONE_DECK,
    TWO_DECKS,
    card_str,
    parse_action,
    parse_card,
    parse_cards,
)
from gongzhu_env.engine import Game
from gongzhu_env.players import play_turns, start_hand
from gongzhu_env.records import load_records, record_hand, replay_record, save_records
from gongzhu_env.rules import Rules
from tests.gongzhu_cli.session import ENV, ROOT, expect_reask, finish, next_prompt, spawn
from tests.helpers import HANG_S

TWO = Rules.preset("two_decks")
PAIR, DONE2 = 52, 104
SUMMARY_ROW = r"\r\n(\S.*?)\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)   "


def two_deck_deal(*seats: str) -> list[list[int]]:
    """Four 26-card hands: the cards named for each seat, the remaining copies dealt in order."""
    hands = [parse_cards(s) for s in seats]
    left = [c for c in range(52) for _ in range(2)]
    for c in (c for h in hands for c in h):
        left.remove(c)
    for hand in hands:
        while len(hand) < 26:
            hand.append(left.pop(0))
    return hands


def option_action(option: str) -> int:
    """'♠Q+♠Q' -> the pair lead of ♠Q; '♠Q' -> ♠Q."""
    first, plus, _ = option.partition("+")
    return PAIR + parse_card(first) if plus else parse_card(option)


def who_did_what(rec: dict) -> list[tuple[int, int]]:
    """(seat, action) of every action of a record, from the engine's replay of it."""
    game = Game.from_hands(rec["deal"], TWO, leader=rec["leader"])
    out = []
    for text in rec["actions"]:
        seat = game.current_player
        action = parse_action(text, 2)
        game.step(action)
        out.append((seat, action))
    return out


# Seed 0 against random opponents deals seat 0 pairs to lead and has pairs led at it: the
# counts asserted at the end guard that the hand really went through both.
def test_whole_two_deck_hand_in_the_terminal(tmp_path):
    save = tmp_path / "two.jsonl"
    child = spawn("play", "--rules", "two_decks", "--seed", "0", "--opponents", "random",
                  "--no-color", "--save", str(save))
    spellings = iter(["{c}+{c}", "{c} {c}", "pair {c}"] * 20)
    first_hand: list[int] | None = None
    counts = {"pair_leads": 0, "two_card_plays": 0}
    tried = set()
    while (turn := next_prompt(child)) is not None:
        hand, options, kind = turn
        if first_hand is None:
            first_hand = hand
        if kind == "declare":
            if "declare" not in tried:
                child.sendline("pair SQ")
                expect_reask(child, "while declaring you expose one copy at a time")
                tried.add("declare")
            child.sendline("done")
            child.expect_exact("You are done declaring")
            continue
        legal = [option_action(o) for o in options]
        pairs = [a - PAIR for a in legal if a >= PAIR]
        if pairs:
            singles = [c for c in set(hand) if hand.count(c) == 1]
            if singles and "lone" not in tried:
                # A pair of a card held once is refused, by name, and asked again.
                child.sendline(f"{card_str(singles[0])}+{card_str(singles[0])}")
                expect_reask(child, "a pair lead needs both copies")
                tried.add("lone")
            c = pairs[counts["pair_leads"] % len(pairs)]
            typed = next(spellings).format(c=card_str(c))
            child.sendline(typed.lower() if counts["pair_leads"] % 2 else typed)
            child.expect(r"You lead the pair (\S+)\+(\S+)\r\n")
            assert parse_card(child.match.group(1)) == parse_card(child.match.group(2)) == c
            counts["pair_leads"] += 1
            continue
        if kind == "first" and "first" not in tried and len(set(hand)) >= 2:
            two = sorted(set(hand))[:2]
            child.sendline(f"{card_str(two[0])} {card_str(two[1])}")
            expect_reask(child, "to a pair lead you play your two cards one at a time")
            tried.add("first")
        if kind == "second":
            illegal = [c for c in hand if c not in legal]
            if illegal and "second" not in tried:
                child.sendline(card_str(illegal[0]))
                expect_reask(child, "is not legal:")
                tried.add("second")
        choice = legal[-1]
        child.sendline(card_str(choice))
        suffix = {"first": r" \(first of two\)", "second": r" \(second of two\)"}.get(kind, "")
        child.expect(r"You play (\S+)" + suffix + r"\r\n")
        assert parse_card(child.match.group(1)) == choice
        counts["two_card_plays"] += kind == "second"
    rows = []
    for _ in range(4):
        child.expect(SUMMARY_ROW)
        rows.append(int(child.match.group(2)))
    child.expect(r"Teams \(hand points\): You \(seat 0\) & Seat 2 \(random\) ([-+]\d+), "
                 r"Seat 1 \(random\) & Seat 3 \(random\) ([-+]\d+)")
    teams = [int(child.match.group(1)), int(child.match.group(2))]
    finish(child)
    assert tried == {"declare", "lone", "first", "second"}
    assert counts["pair_leads"] >= 1 and counts["two_card_plays"] >= 1
    (rec,) = load_records(save)
    game = replay_record(rec)
    assert game.rules == TWO and game.is_over()
    # The terminal showed the dealt hand with its pairs, and the engine's scores at the end.
    assert sorted(first_hand) == list(game.deal[0]) and len(first_hand) == 26
    assert len(set(first_hand)) < 26
    assert rows == game.scores()
    assert teams == [rows[0] + rows[2], rows[1] + rows[3]]
    mine = [a for seat, a in who_did_what(rec) if seat == 0]
    assert sum(PAIR <= a < DONE2 for a in mine) == counts["pair_leads"]
    # Every card seat 0 played is an action of its own: 26 cards, pairs counting two.
    exposures = sum(1 for seat, _ in game.declarations if seat == 0)
    assert sum(2 if PAIR <= a < DONE2 else 1 for a in mine if a != DONE2) - exposures == 26

    # The saved hand replays in the terminal, pair leads and two-card plays included.
    out = subprocess.run([sys.executable, "-m", "gongzhu_cli", "replay", str(save), "--all",
                          "--no-color"], cwd=ROOT, env=ENV, capture_output=True, text=True,
                         timeout=HANG_S)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("You (seat 0) leads the pair") == counts["pair_leads"]
    assert out.stdout.count("wins the trick") == len(game.tricks)


def test_demo_under_two_decks_plays_the_seeded_hand():
    out = subprocess.run([sys.executable, "-m", "gongzhu_cli", "demo", "--rules", "two_decks",
                          "--seed", "3", "--agent", "greedy"], cwd=ROOT, env=ENV,
                         capture_output=True, text=True, timeout=HANG_S)
    assert out.returncode == 0, out.stderr
    scores = json.loads(out.stdout.strip().splitlines()[-1].split(":", 1)[1])
    # The same seeds in-process give the same hand: the demo played two-deck rules.
    game = Game(TWO, seed=3)
    players = [make_agent("greedy", seed=3 * 4 + s) for s in range(4)]
    start_hand(players, TWO)
    play_turns(game, players)
    assert scores == game.scores()
    assert sum(len(t.cards) for t in game.tricks) == 104


def test_replay_of_two_deck_records(tmp_path):
    games = []
    for seed in (1, 2):
        game = Game(TWO, seed=seed)
        players = [make_agent("random", seed=seed * 4 + s) for s in range(4)]
        start_hand(players, TWO)
        play_turns(game, players)
        games.append(game)
    path = tmp_path / "two.jsonl"
    save_records(path, [record_hand(g) for g in games])
    out = subprocess.run([sys.executable, "-m", "gongzhu_cli", "replay", str(path), "--all",
                          "--no-color"], cwd=ROOT, env=ENV, capture_output=True, text=True,
                         timeout=HANG_S)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    pair_leads = sum(PAIR <= a < DONE2 for g in games for a in g.actions)
    # Every action but DONE and the exposures plays a card, or two for a pair lead.
    cards = sum(2 if PAIR <= a < DONE2 else 1 for g in games for a in g.actions if a != DONE2)
    cards -= sum(len(g.declarations) for g in games)
    assert pair_leads > 0
    assert text.count(" leads the pair ") == pair_leads
    # Each card played is one line, and a pair lead one line for its two cards.
    assert text.count(" plays ") + 2 * pair_leads == cards == 208
    # Every follower to a pair lead plays a first and a second card.
    assert text.count("(first of two)") == text.count("(second of two)") == 3 * pair_leads
    assert text.count("wins the trick") == sum(len(g.tricks) for g in games)
    assert text.count("over ===") == 2
    rows = [m for m in re.finditer(r"^Seat (\d)\s+(-?\d+)\s+(-?\d+)   ", text, re.M)]
    assert [int(m.group(2)) for m in rows] == games[0].scores() + games[1].scores()
    # The dealt hands are shown with both copies of a card held twice.
    for seat, hand in enumerate(games[1].deal):
        assert len(set(hand)) < 26 and f"Seat {seat}" in text
        assert re.search(rf"^Seat {seat}\s+{re.escape(Style(False).hand(hand))}$", text, re.M)
    stepping = spawn("replay", str(path), "--hand", "2", "--no-color")
    stepping.expect_exact("Enter: next action")
    stepping.sendline("a")
    stepping.expect_exact("=== Hand 2 over ===")
    finish(stepping)


def test_typed_pairs_and_their_refusals():
    from gongzhu_cli.terminal import NotLegal, parse_choice, why_illegal

    # Seat 1 holds two clubs, no pair of them; seat 2 holds pairs of clubs.
    deal = two_deck_deal("C2 C2 SQ SQ H5 H5 D3 S4 C5 C5 C6 C6 C7 C7", "C3 C4",
                         "C3 C4 C8 C8 C9 C9 C10 C10 CJ CJ", "CQ CQ CK CK CA CA")
    game = Game.from_hands(deal, TWO)
    # Declaration: each copy of SQ is exposed one at a time; a pair is not an exposure.
    view = game.view(0)
    assert parse_choice("sq", view.legal_actions, TWO_DECKS) == parse_card("SQ")
    assert parse_choice("done", view.legal_actions, TWO_DECKS) == DONE2
    with pytest.raises(NotLegal) as e:
        parse_choice("SQ+SQ", view.legal_actions, TWO_DECKS)
    assert "while declaring" in why_illegal(view, e.value.action)
    for _ in range(4):
        game.step(DONE2)
    view = game.view(0)
    # The first lead contains C2: C2 alone or the pair of C2, in every accepted spelling.
    assert view.legal_actions == [parse_card("C2"), PAIR + parse_card("C2")]
    for typed in ("C2+C2", "c2 c2", "pair C2", "♣2 + ♣2", "PAIR ♣2", "2"):
        assert parse_choice(typed, view.legal_actions, TWO_DECKS) == PAIR + parse_card("C2")
    with pytest.raises(NotLegal, match="♠Q\\+♠Q is not legal here") as e:
        parse_choice("SQ SQ", view.legal_actions, TWO_DECKS)
    assert why_illegal(view, e.value.action).startswith("the first trick must be led with ♣2")
    for typed, message in [("SQ+HA", "two different cards"), ("SQ SQ SQ", "not a card"),
                           ("pair", "not a card"), ("SQ+", "not a card")]:
        with pytest.raises(ValueError, match=message):
            parse_choice(typed, view.legal_actions, TWO_DECKS)
    with pytest.raises(ValueError, match="Type one card such as SQ"):
        parse_choice("SQ SQ", [parse_card("SQ")], ONE_DECK)
    game.step(PAIR + parse_card("C2"))
    # A follower: pairs are not theirs to lead, and a held-once card cannot be led as a pair.
    view = game.view(1)
    assert all(a < PAIR for a in view.legal_actions)
    assert sorted(view.legal_actions) == [parse_card("C3"), parse_card("C4")]
    assert why_illegal(view, PAIR + parse_card("C3")).startswith("type your two cards one at")
    game.step(parse_card("C3"))
    view = game.view(1)
    assert view.legal_actions == [parse_card("C4")]
    assert why_illegal(view, parse_card("H5")) == "you do not hold ♥5"
    off_suit = next(c for c in view.hand if c // 13 != 0)
    assert why_illegal(view, off_suit).startswith("you must follow suit: ♣ clubs was led")
    game.step(parse_card("C4"))
    # Seat 2 holds pairs of clubs: its two cards must be one of them, so after a ♣8 only ♣8.
    game.step(parse_card("C8"))
    view = game.view(2)
    assert view.legal_actions == [parse_card("C8")]
    assert why_illegal(view, parse_card("C9")).startswith(
        "with your first card ♣8 it is not a legal play: to a pair lead you play a pair")
    lone = two_deck_deal("C2 H5 H6", "", "", "")
    g2 = Game.from_hands(lone, Rules(decks=2, first_lead="any"))
    for _ in range(4):
        g2.step(DONE2)
    assert "you hold only one ♥5" in why_illegal(g2.view(0), PAIR + parse_card("H5"))


@pytest.mark.parametrize("teams", [False, True])
def test_eval_front_runs_the_arena_under_two_decks(tmp_path, teams):
    out_dir = tmp_path / "eval"
    args = ["eval", "--rules", "two_decks", "--candidate", "expert", "--opponents",
            "greedy,random", "--deals", "2", "--seed", "1", "--workers", "1", "--no-progress",
            "--no-plot", "--out", str(out_dir)] + (["--teams"] if teams else [])
    out = subprocess.run([sys.executable, "-m", "gongzhu_cli", *args], cwd=ROOT, env=ENV,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    results = json.loads((out_dir / "eval.json").read_text())["results"]
    assert [r["opponent"] for r in results] == ["greedy", "random"]
    for r in results:
        assert r["rules"] == TWO.to_dict() and len(r["diffs"]) == 2
        assert r["mode"] == ("2v2" if teams else "1v3")
        assert r["hands_played"] == 2 * (2 if teams else 4)


def test_an_agent_that_breaks_ends_the_hand_with_a_message(monkeypatch, tmp_path):
    import io

    from gongzhu_cli import play
    from tests.training.arena.scripted_agents import Cheater

    real = play.build_opponents

    def with_a_cheater(*args, **kwargs):
        players, labels = real(*args, **kwargs)
        players[2] = Cheater()
        players[2].reset(2, TWO)
        return players, labels

    monkeypatch.setattr(play, "build_opponents", with_a_cheater)
    target = tmp_path / "broken.jsonl"

    def read(prompt: str) -> str:
        return str(target) if prompt.startswith("Save the match") else "1"

    out = io.StringIO()
    rc = play.run_play(opponents=["random"], seat=0, seed=2, match=False, threshold=-1000,
                       rules=TWO, save=None, colour=False, out=out, read=read)
    text = out.getvalue()
    assert rc == 1
    assert "the hand cannot go on: Seat 2 (random) failed: IllegalPlayerActionError" in text
    # What was played before the failure is kept and offered for saving.
    (rec,) = load_records(target)
    assert rec["complete"] is False and replay_record(rec).current_player == 2
