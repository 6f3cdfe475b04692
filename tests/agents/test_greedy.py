"""``greedy``: never exposes; sheds the pig when void."""

from __future__ import annotations

from agents import make_agent
from gongzhu_env.cards import DONE
from gongzhu_env.engine import Game
from tests.agents.helpers import choose, deal, game_at


def test_greedy_never_exposes():
    g = Game(seed=1)
    for _ in range(4):
        assert make_agent("greedy").act(g.view(g.current_player)) == DONE
        g.step(DONE)


def test_greedy_and_expert_discard_the_pig_when_void():
    hands = deal("SQ S3 D2 D3 D4 D5 D6 H2 H3 H4 H5 H6 H7",
                 "C2 C4 C5 D7 D8 D9 D10 C7 C8 C9 C10 H8 H9",
                 "SK S6 S7 S8 DJ DQ DK DA CJ CQ CK CA H10",
                 "SA S2 S4 S5 S9 S10 SJ C3 C6 HJ HQ HK HA")
    g = game_at(hands, 1, "C4 CA C3")
    assert choose("greedy", g) == "SQ"
    assert choose("expert", g) == "SQ"
