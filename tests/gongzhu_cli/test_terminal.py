"""Reading a typed choice and naming why a card is refused (gongzhu_cli.terminal)."""

from __future__ import annotations

import pytest

from gongzhu_env.cards import parse_card
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
