from gongzhu_env import Game


def test_random_hand_finishes_with_thirteen_tricks():
    g = Game(seed=0)
    while not g.is_over():
        g.step(g.legal_actions()[0])
    assert len(g.tricks) == 13
    assert all(len(h) == 0 for h in g.hands)
