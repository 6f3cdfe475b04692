"""``random``: its play follows its seed."""

from __future__ import annotations

from agents import make_agent
from gongzhu_env.engine import Game
from tests.agents.helpers import play_hand


def test_random_agent_depends_on_its_seed():
    def run(spec, seed):
        agents = [make_agent(spec, seed=seed + k) for k in range(4)]
        return play_hand(Game(seed=9), agents)

    assert len({tuple(run("random", s)) for s in range(4)}) > 1
