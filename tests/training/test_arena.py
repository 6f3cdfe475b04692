"""Tests of the evaluation arena (training.evaluate) and its deal sets (training.deals)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agents import Agent, AgentError
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import settle
from gongzhu_env.view import PlayerView
from training.deals import DealFileError, DealSet, generate_deals, load_deals
from training.evaluate import (
    ArenaError,
    HandRecord,
    IllegalAgentActionError,
    duplicate_match,
    fit_bradley_terry,
    main,
    round_robin,
    split_specs,
    summarize,
)


class FirstLegal(Agent):
    """Deterministic throwaway player: always the lowest legal action."""

    name = "first"

    def act(self, view: PlayerView) -> int:
        return view.legal_actions[0]


class LastLegal(Agent):
    """Deterministic throwaway player: always the highest legal action."""

    name = "last"

    def act(self, view: PlayerView) -> int:
        return view.legal_actions[-1]


class Cheater(Agent):
    """Plays legally until the first trick, then a card it is not allowed to play."""

    name = "cheater"

    def act(self, view: PlayerView) -> int:
        legal = view.legal_actions
        if view.phase == "play":
            return next(c for c in range(52) if c not in legal)
        return legal[-1]


# ---------------------------------------------------------------------------- deal sets
def test_generated_deals_are_valid_seeded_and_prefix_stable():
    a = generate_deals(30, seed=5)
    assert len(a) == 30 and a.seed == 5
    for deal in a:
        assert sorted(c for hand in deal for c in hand) == list(range(52))
        assert all(len(hand) == 13 for hand in deal)
    assert generate_deals(30, seed=5) == a
    assert generate_deals(30, seed=6) != a
    # The first k deals of a longer set are the k-deal set of the same seed.
    assert np.array_equal(generate_deals(10, seed=5).hands, a.hands[:10])
    assert a.head(10) == generate_deals(10, seed=5)


@pytest.mark.parametrize("suffix", [".npz", ".json"])
def test_deal_set_save_load_round_trip(tmp_path, suffix):
    deals = generate_deals(12, seed=3)
    path = deals.save(tmp_path / f"deals{suffix}")
    back = load_deals(path)
    assert back == deals
    assert back.seed == 3


def test_deal_set_without_seed_round_trips(tmp_path):
    deals = DealSet.from_hands(list(generate_deals(3, seed=1)))
    assert deals.seed is None
    assert load_deals(deals.save(tmp_path / "d.npz")) == deals
    assert load_deals(deals.save(tmp_path / "d.json")) == deals


def _json_doc(deals):
    from gongzhu_env.cards import card_str

    return {"format": "gongzhu-deals", "format_version": 1, "seed": deals.seed,
            "deals": [[[card_str(c) for c in h] for h in d] for d in deals]}


def test_bad_deal_files_give_clear_errors(tmp_path):
    with pytest.raises(DealFileError, match="does not exist"):
        load_deals(tmp_path / "missing.npz")
    txt = tmp_path / "deals.txt"
    txt.write_text("x")
    with pytest.raises(DealFileError, match=r"\.npz or \.json"):
        load_deals(txt)
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    with pytest.raises(DealFileError, match="not valid JSON"):
        load_deals(garbage)
    foreign = tmp_path / "foreign.json"
    foreign.write_text(json.dumps({"hello": 1}))
    with pytest.raises(DealFileError, match="gongzhu-deals"):
        load_deals(foreign)

    good = generate_deals(3, seed=0)
    doc = _json_doc(good)
    # A card dealt twice (seat 1's first card replaced by seat 0's first card).
    doc["deals"][2][1][0] = doc["deals"][2][0][0]
    dup = tmp_path / "dup.json"
    dup.write_text(json.dumps(doc))
    with pytest.raises(DealFileError, match="deal 2.*twice"):
        load_deals(dup)
    doc = _json_doc(good)
    doc["deals"][1][3].pop()
    short = tmp_path / "short.json"
    short.write_text(json.dumps(doc))
    with pytest.raises(DealFileError, match="deal 1.*12 cards"):
        load_deals(short)
    doc = _json_doc(good)
    doc["deals"][0][0][0] = "SX"
    badcard = tmp_path / "badcard.json"
    badcard.write_text(json.dumps(doc))
    with pytest.raises(DealFileError, match="deal 0.*SX"):
        load_deals(badcard)
    doc = _json_doc(good)
    doc["format_version"] = 99
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps(doc))
    with pytest.raises(DealFileError, match="version 99"):
        load_deals(newer)

    shape = tmp_path / "shape.npz"
    np.savez(shape, hands=np.zeros((2, 4, 12), dtype=np.int8), seed=np.int64(0),
             format_version=np.int64(1))
    with pytest.raises(DealFileError, match=r"shape \(n, 4, 13\)"):
        load_deals(shape)
    lacking = tmp_path / "lacking.npz"
    np.savez(lacking, hands=good.hands)
    with pytest.raises(DealFileError, match="lacks"):
        load_deals(lacking)
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(good.save(tmp_path / "ok.npz").read_bytes()[:40])
    with pytest.raises(DealFileError, match="not a readable"):
        load_deals(truncated)


def test_generate_deals_rejects_bad_arguments():
    with pytest.raises(ValueError, match="positive"):
        generate_deals(0, seed=0)
    with pytest.raises(ValueError, match="seed"):
        generate_deals(5, seed=-1)


# ---------------------------------------------------------------------------- statistics
def test_summarize_counts_and_moments():
    s = summarize([1.0, -1.0, 0.0, 2.0], seed=0)
    assert s.n == 4
    assert s.mean == pytest.approx(0.5)
    assert s.std == pytest.approx(np.std([1, -1, 0, 2], ddof=1))
    assert (s.win_rate, s.tie_rate, s.loss_rate) == (0.5, 0.25, 0.25)
    assert -1.0 <= s.ci_low <= s.mean <= s.ci_high <= 2.0
    # A constant sample has no spread: the interval collapses onto the value.
    c = summarize([3.0] * 10, seed=0)
    assert c.ci_low == c.ci_high == 3.0 and c.std == 0.0
    assert summarize([1.0, 5.0, -2.0], seed=4) == summarize([1.0, 5.0, -2.0], seed=4)
    with pytest.raises(ValueError, match="non-empty"):
        summarize([])


def test_bootstrap_interval_matches_normal_theory_on_large_sample():
    x = np.random.default_rng(0).normal(10.0, 4.0, size=4000)
    s = summarize(x, seed=1)
    half = 1.96 * x.std(ddof=1) / math.sqrt(x.size)
    assert s.ci_low == pytest.approx(x.mean() - half, abs=0.25 * half)
    assert s.ci_high == pytest.approx(x.mean() + half, abs=0.25 * half)


# ---------------------------------------------------------------------------- matches
def test_match_is_deterministic_for_a_seed():
    deals = generate_deals(40, seed=0)
    a = duplicate_match("random", "random", deals, seed=7)
    b = duplicate_match("random", "random", deals, seed=7)
    c = duplicate_match("random", "random", deals, seed=8)
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.diffs, b.diffs)
    assert a.stats == b.stats
    assert not np.array_equal(a.scores, c.scores)


@pytest.mark.parametrize("mode", ["1v3", "2v2"])
def test_two_workers_equal_one_worker_exactly(mode):
    deals = generate_deals(30, seed=2)
    one = duplicate_match("random", "random", deals, seed=3, mode=mode, workers=1)
    two = duplicate_match("random", "random", deals, seed=3, mode=mode, workers=2,
                          chunk_size=7)
    assert np.array_equal(one.scores, two.scores)
    assert np.array_equal(one.diffs, two.diffs)
    assert one.stats == two.stats


def test_random_against_itself_has_ci_covering_zero():
    res = duplicate_match("random", "random", 400, seed=0)
    assert res.stats.n == 400
    assert res.stats.ci_low < 0 < res.stats.ci_high
    assert res.stats.std > 0


@pytest.mark.parametrize("mode", ["1v3", "2v2"])
def test_identical_deterministic_players_tie_every_deal(mode):
    # Same deterministic agent everywhere: every play of a deal is the same game, so whichever
    # seats the candidate takes, its average over the plays equals the opponents' exactly.
    res = duplicate_match(FirstLegal(), FirstLegal(), 15, seed=0, mode=mode)
    assert np.all(res.diffs == 0)
    assert res.stats.tie_rate == 1.0 and res.stats.win_rate == 0.0


def _play(deal, players, rules):
    game = Game.from_hands(deal, rules)
    for s, p in enumerate(players):
        p.reset(s, rules)
    while not game.is_over():
        game.step(players[game.current_player].act(game.view(game.current_player)))
    return game.scores()


def test_paired_difference_definition_1v3_and_2v2():
    deals = generate_deals(6, seed=11)
    rules = Rules()
    res = duplicate_match(LastLegal(), FirstLegal(), deals, seed=0)
    res2 = duplicate_match(LastLegal(), FirstLegal(), deals, seed=0, mode="2v2")
    res_zs = duplicate_match(LastLegal(), FirstLegal(), deals, seed=0, scoring="zero_sum")
    for d, deal in enumerate(deals):
        per_play, payouts = [], []
        for r in range(4):
            players = [LastLegal() if s == r else FirstLegal() for s in range(4)]
            sc = _play(deal, players, rules)
            assert list(res.scores[d, r]) == sc
            per_play.append(sc[r] - (sum(sc) - sc[r]) / 3)
            payouts.append(settle(sc, rules)[r])
        assert res.diffs[d] == pytest.approx(sum(per_play) / 4)
        assert res_zs.diffs[d] == pytest.approx(sum(payouts) / 4)
        team = []
        for mine in ((0, 2), (1, 3)):
            players = [LastLegal() if s in mine else FirstLegal() for s in range(4)]
            sc = _play(deal, players, rules)
            cand = sum(sc[s] for s in mine)
            team.append((cand - (sum(sc) - cand)) / 2)
        assert res2.diffs[d] == pytest.approx(sum(team) / 2)
    assert res.hands_played == 24 and res2.hands_played == 12


def test_every_deal_is_accounted_for_and_recorded():
    deals = generate_deals(9, seed=4)
    records: list[HandRecord] = []
    res = duplicate_match("random", "random", deals, seed=1, workers=2, chunk_size=2,
                          on_game=records.append)
    assert len(res.diffs) == 9 and res.scores.shape == (9, 4, 4)
    assert [(r.deal_index, r.play) for r in records] == [(d, p) for d in range(9)
                                                         for p in range(4)]
    for r in records:
        assert r.game.is_over()
        assert [list(h) for h in r.game.deal] == deals[r.deal_index]
        assert r.game.scores() == list(res.scores[r.deal_index, r.play])
        assert r.seats.count("random") == 4


def test_illegal_action_names_agent_deal_seat_and_action():
    with pytest.raises(IllegalAgentActionError) as info:
        duplicate_match(Cheater(), "random", 3, seed=0)
    msg = str(info.value)
    assert "'cheater'" in msg
    assert "deal 0" in msg and "seat" in msg
    assert "legal actions: [" in msg
    assert isinstance(info.value, AgentError)


class Crasher(Agent):
    """Raises inside act once the play phase starts."""

    name = "crasher"

    def act(self, view: PlayerView) -> int:
        if view.phase == "play":
            raise KeyError("boom")
        return view.legal_actions[-1]


def test_agent_exception_names_the_hand():
    with pytest.raises(AgentError, match=r"'crasher' failed in deal 0 \(play 0\), seat 0.*boom"):
        duplicate_match(Crasher(), "random", 2, seed=0)


def test_illegal_action_in_a_worker_reaches_the_caller():
    with pytest.raises(IllegalAgentActionError, match="cheater"):
        duplicate_match("random", Cheater(), 4, seed=0, workers=2, chunk_size=1)


def test_unknown_spec_fails_before_any_hand():
    with pytest.raises(AgentError, match="nonsense"):
        duplicate_match("random", "nonsense", 3)
    with pytest.raises(AgentError, match="nonsense"):
        round_robin(["random", "nonsense"], 3)
    with pytest.raises(ValueError, match="mode"):
        duplicate_match("random", "random", 3, mode="3v1")


def test_arena_error_is_raised_for_a_bad_result_count(monkeypatch):
    import training.evaluate as ev

    real = ev._run_task
    monkeypatch.setattr(ev, "_run_task", lambda t: real(t)[:-1])
    with pytest.raises(ArenaError, match="missing deals"):
        ev.duplicate_match("random", "random", 5, chunk_size=5)


# ---------------------------------------------------------------------------- ratings
def test_bradley_terry_ranks_the_stronger_agent_first():
    names = ["weak", "strong", "middle"]
    # strong beats middle 70:30, middle beats weak 70:30, strong beats weak 90:10.
    table = fit_bradley_terry(names, [(1, 2, 70, 30), (2, 0, 70, 30), (1, 0, 90, 10)])
    assert [n for n, _ in table.ranking()] == ["strong", "middle", "weak"]
    assert table.ratings[0] == 0.0 and table.anchor == "weak"


def test_bradley_terry_two_agents_match_closed_form():
    # With two agents the MLE odds are the win ratio, here with one virtual tie added.
    table = fit_bradley_terry(["a", "b"], [(0, 1, 30, 10)], prior_ties=1.0)
    assert table.ratings[1] == pytest.approx(-400 * math.log10(30.5 / 10.5), abs=1e-6)
    sweep = fit_bradley_terry(["a", "b"], [(0, 1, 50, 0)])
    assert math.isfinite(sweep.ratings[1]) and sweep.ratings[1] < -400


def test_round_robin_on_synthetic_strengths():
    rr = round_robin([FirstLegal(), "random"], 20, seed=0)
    assert len(rr.matches) == 1 and rr.pairs == [(0, 1)]
    m = rr.mean_matrix()
    assert m[0, 1] == pytest.approx(rr.matches[0].stats.mean) and m[1, 0] == -m[0, 1]
    # The fitted order follows the sign of the head-to-head win balance.
    d = rr.matches[0].diffs
    first_better = np.sum(d > 0) > np.sum(d < 0)
    assert (rr.ratings.ratings[1] < 0) == first_better
    with pytest.raises(ValueError, match="distinct"):
        round_robin(["random", "random"], 3)


# ---------------------------------------------------------------------------- CLI
def test_split_specs_keeps_options_together():
    assert split_specs(["random,pimc:worlds=8,rollout=greedy,expert"]) == [
        "random", "pimc:worlds=8,rollout=greedy", "expert"]
    assert split_specs(["random", "greedy, expert"]) == ["random", "greedy", "expert"]


def test_cli_writes_json_and_plot(tmp_path):
    out = tmp_path / "eval"
    deals = tmp_path / "deals.json"
    code = main(["--candidate", "random", "--opponents", "random", "--deals", "12", "--seed", "3",
                 "--workers", "1", "--out", str(out), "--no-progress", "--save-deals",
                 str(deals)])
    assert code == 0
    doc = json.loads((out / "eval.json").read_text())
    (res,) = doc["results"]
    assert res["candidate"] == "random" and res["deals"] == 12 and len(res["diffs"]) == 12
    assert res["seed"] == 3 and res["deal_seed"] == 3 and res["rules"] == Rules().to_dict()
    assert res["stats"]["n"] == 12
    assert (out / "eval.png").stat().st_size > 0
    # The same deals loaded back from the file give the same numbers.
    again = tmp_path / "again"
    assert main(["--candidate", "random", "--opponents", "random", "--deal-file", str(deals),
                 "--seed", "3", "--workers", "1", "--out", str(again), "--no-progress",
                 "--no-plot"]) == 0
    assert json.loads((again / "eval.json").read_text())["results"][0]["diffs"] == res["diffs"]


def test_cli_round_robin(tmp_path):
    code = main(["--round-robin", "random,greedy", "--deals", "6", "--workers", "1",
                 "--out", str(tmp_path), "--no-progress"])
    assert code == 0
    doc = json.loads((tmp_path / "round_robin.json").read_text())
    assert doc["agents"] == ["random", "greedy"]
    assert set(doc["ratings"]["ratings"]) == {"random", "greedy"}
    assert (tmp_path / "round_robin.png").stat().st_size > 0


def test_cli_bad_input_is_reported(tmp_path, capsys):
    assert main(["--candidate", "random", "--opponents", "nonsense", "--deals", "3",
                 "--no-progress"]) == 2
    assert "nonsense" in capsys.readouterr().err
    assert main(["--candidate", "random", "--opponents", "random", "--deal-file",
                 str(tmp_path / "nope.npz"), "--no-progress"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["--candidate", "random", "--deals", "3"]) == 2
    assert "--opponents" in capsys.readouterr().err


def test_cli_records_every_hand(tmp_path):
    from gongzhu_env.records import load_records, replay_record

    path = tmp_path / "hands.jsonl"
    assert main(["--candidate", "greedy", "--opponents", "random", "--deals", "3", "--workers",
                 "1", "--no-progress", "--record", str(path)]) == 0
    records = load_records(path)
    assert [(r["meta"]["deal_index"], r["meta"]["play"]) for r in records] == [
        (d, p) for d in range(3) for p in range(4)]
    for r in records:
        assert r["meta"]["players"][r["meta"]["play"]] == "greedy"
        assert r["meta"]["players"].count("random") == 3
        assert replay_record(r).scores() == r["scores"]
