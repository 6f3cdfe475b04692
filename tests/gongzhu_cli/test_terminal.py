"""Reading a typed choice and naming why a card is refused (gongzhu_cli.terminal)."""

from __future__ import annotations

import pytest

from gongzhu_env.cards import ONE_DECK, TWO_DECKS, ActionCodec, card_symbol, parse_card
from gongzhu_env.engine import Game


def test_refusals_are_named_after_the_rule():
    from gongzhu_cli.terminal import parse_choice, why_illegal
    from gongzhu_env.cards import DONE
    from tests.helpers import make_deal

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


@pytest.mark.parametrize("codec", [ONE_DECK, TWO_DECKS], ids=["one_deck", "two_decks"])
def test_every_action_shown_at_the_terminal_reads_back_as_itself(codec: ActionCodec) -> None:
    # What the terminal shows for an action (the codec's text in suit symbols) is what a person
    # may type to choose it, for every action of both spaces.
    from gongzhu_cli.terminal import Style, action_text, parse_choice

    every = list(range(codec.num_actions))
    for a in every:
        shown = action_text(a, codec)
        assert shown == Style(False).action(a, codec)
        assert shown == ("done" if codec.is_done(a) else codec.text(a, card_symbol))
        assert parse_choice(shown, every, codec) == a
    # A pair typed where no pair lead exists is refused as text, not misread as a card.
    with pytest.raises(ValueError, match="Type one card such as SQ"):
        parse_choice("♠Q+♠Q", every, ONE_DECK)


# A child that asks for a line over and over while a second thread sends it SIGINT at the moment
# each question starts; every question must end in Interrupted, then a typed line is still read.
# Sent that way, a signal often lands after the interpreter's last look at its signal flags and
# before the read blocks: Python's own input() then waits for a line with the Ctrl-C unanswered.
_INTERRUPTED_ASKS = """
import os, signal, sys, threading
from gongzhu_cli.terminal import Console, Interrupted, Style

rounds = int(sys.argv[1])
console = Console(Style(False))
go = threading.Event()

def interrupter():
    while True:
        go.wait()
        go.clear()
        os.kill(os.getpid(), signal.SIGINT)

threading.Thread(target=interrupter, daemon=True).start()
answered = 0
for _ in range(rounds):
    try:
        go.set()
        console.ask("> ")
        print("a line was read where an interrupt was due")
        break
    except (Interrupted, KeyboardInterrupt):
        answered += 1
print(f"answered {answered} of {rounds}")
print(f"read {console.ask('last> ')!r}")
"""


def test_ctrl_c_is_never_lost_at_a_prompt():
    import sys

    import pexpect

    from tests.gongzhu_cli.session import ENV, ROOT, finish, interruptible
    from tests.helpers import HANG_S

    rounds = 500
    child = pexpect.spawn(sys.executable, ["-c", _INTERRUPTED_ASKS, str(rounds)], cwd=str(ROOT),
                          env=ENV, encoding="utf-8", timeout=HANG_S, preexec_fn=interruptible)
    # The deadline only bounds a hang: without the fix a round waits for a line forever.
    child.expect(r"answered (\d+) of \d+\r\n")
    assert int(child.match.group(1)) == rounds
    child.expect_exact("last> ")
    child.sendline("♠Q and more")
    child.expect_exact("read '♠Q and more'")
    finish(child)
