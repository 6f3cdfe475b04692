"""``training.diagnostics``: choices judged in the real deal by a fixed continuation, and the
latency of every decision of a hand."""

from __future__ import annotations

from agents.expert import expert_play
from agents.pimc import objective, rollout
from training.diagnostics.decisions import judge, positions, run


def test_a_judged_card_is_worth_the_result_of_finishing_the_real_deal() -> None:
    """The judge plays the card in the true deal and lets the expert finish every seat: the
    same as the pimc rollout of that deal, an independent path through the engine."""
    pos = positions("expert", 1, seed=5, every=7)
    assert pos
    for game, view in pos:
        me = view.seat
        for card in view.legal_actions:
            g = game.clone()
            g.step(card)
            expected = objective(rollout(g, expert_play), me, (me,), True, 0)
            assert judge(game, card, "expert", seed=0) == expected


def test_regret_is_measured_against_the_best_card_and_the_reference_spec() -> None:
    pos = positions("expert", 1, seed=6, every=5)
    rows = run(["expert", "random"], ["expert"], pos, seed=0)
    by_spec = {r["spec"]: r for r in rows}
    # The expert judging its own choices: the first spec is its own reference.
    assert by_spec["expert"]["first_minus_spec"] == 0.0
    assert by_spec["expert"]["agreement"] == 1.0
    assert by_spec["random"]["agreement"] < 1.0
    for r in rows:
        assert r["positions"] == len(pos) and r["regret"] >= 0.0
    # The paired difference is the difference of the two mean regrets.
    assert abs(by_spec["random"]["regret"] - by_spec["expert"]["regret"]
               - by_spec["random"]["first_minus_spec"]) < 0.01


def test_the_latency_benchmark_times_every_decision_of_a_two_deck_hand() -> None:
    # ``bench_search --rules``: the positions come from a hand at that table, and each spec is
    # built for it (the two-deck expert here).
    from gongzhu_env.rules import Rules
    from training.diagnostics.latency import run as time_decisions

    every, choice = time_decisions(["expert"], 1, 0, Rules.preset("two_decks"))
    assert every["positions"] == "all" and choice["positions"] == "choice"
    assert every["rules"]["decks"] == 2
    # A two-deck hand: 104 cards (a pair lead plays two at once) and the declarations.
    assert 60 <= every["decisions"] and 0 < choice["decisions"] < every["decisions"]
    assert 0 < every["median_ms"] <= every["p90_ms"] <= every["max_ms"]
