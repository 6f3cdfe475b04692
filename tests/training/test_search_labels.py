"""Expert-iteration labels: what the search found, written in chunks, resumable, checked on load,
and mixed into the DMC learner's minibatches."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.policy import save_policy  # noqa: E402
from agents.search import SearchAgent, SearchResult  # noqa: E402
from gongzhu_env.engine import Game  # noqa: E402
from gongzhu_env.rules import Rules  # noqa: E402
from gongzhu_env.state import Phase  # noqa: E402
from gongzhu_env.view import decode, obs_size  # noqa: E402
from tests.helpers import one_line_error, tiny_q_network  # noqa: E402
from training.config import ConfigError, make_config  # noqa: E402
from training.dmc import DMCTrainer  # noqa: E402
from training.expert_iteration import labels as search_labels  # noqa: E402
from training.expert_iteration.labels import (  # noqa: E402
    LabelSpec,
    hand_seeds,
    label_hand,
    make_labels,
    seat_seed,
)
from training.label_sets import LabelError, load_label_sets, load_labels  # noqa: E402

RULES = Rules()


@pytest.fixture(scope="module")
def net_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("net") / "tiny.pt"
    save_policy(path, tiny_q_network(3), RULES)
    return str(path)


@pytest.fixture()
def spec(net_path: str) -> str:
    return f"search:worlds=2,net={net_path}"


def _quiet(*_: object) -> None:
    pass


def test_a_hands_labels_are_the_searchs_values_of_every_legal_card(spec, monkeypatch):
    """Every label row is one searched decision: the seat to move, its legal cards valued (the
    cards of a run share their run's value), nothing else; the same seed gives the same rows."""
    found: list[SearchResult] = []
    original = SearchAgent.search

    def spy(self, view):
        result = original(self, view)
        if isinstance(result, SearchResult):
            found.append(result)
        return result

    monkeypatch.setattr(SearchAgent, "search", spy)
    obs, tgt = label_hand(spec, RULES, seed=4, hand=0)
    assert len(obs) == len(tgt) == len(found) > 10
    for o, t, r in zip(obs, tgt, found, strict=True):
        blocks = decode(o.astype(np.float32) / 255.0)
        assert blocks["to_move"][0] == 1.0
        legal = sorted(c for run in r.runs for c in run)
        assert np.flatnonzero(~np.isnan(t)).tolist() == legal
        assert all(blocks["hand"][c] == 1.0 for c in legal)
        for run, value in zip(r.runs, r.values, strict=True):
            assert np.allclose(t[run], np.clip(value, -4, 4))
        assert t[r.choice] == np.nanmax(t)
    again = label_hand(spec, RULES, seed=4, hand=0)
    assert all(np.array_equal(a, b) for a, b in zip(obs, again[0], strict=True))
    other = label_hand(spec, RULES, seed=5, hand=0)
    assert len(other[0]) != len(obs) or any(
        not np.array_equal(a, b) for a, b in zip(obs, other[0], strict=True))


def test_a_stopped_run_resumes_with_only_the_missing_chunks_and_the_same_labels(
        spec, tmp_path, monkeypatch):
    label_spec = LabelSpec(spec, RULES, seed=1, chunk_hands=1)
    whole = tmp_path / "whole"
    make_labels(whole, label_spec, 3, log=_quiet)
    part = tmp_path / "part"
    make_labels(part, label_spec, 2, log=_quiet)
    played: list[int] = []
    real = search_labels.label_chunk

    def counting(s, chunk):
        played.append(chunk)
        return real(s, chunk)

    monkeypatch.setattr(search_labels, "label_chunk", counting)
    make_labels(part, label_spec, 3, resume=True, log=_quiet)
    assert played == [2]
    a, b = load_labels(whole, RULES), load_labels(part, RULES)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1], equal_nan=True)


def test_two_workers_write_the_labels_one_worker_writes(spec, tmp_path):
    label_spec = LabelSpec(spec, RULES, seed=2, chunk_hands=1)
    make_labels(tmp_path / "one", label_spec, 2, workers=1, log=_quiet)
    make_labels(tmp_path / "two", label_spec, 2, workers=2, log=_quiet)
    a, b = load_labels(tmp_path / "one", RULES), load_labels(tmp_path / "two", RULES)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1], equal_nan=True)


def test_another_search_or_an_existing_set_without_resume_is_refused(spec, net_path, tmp_path):
    out = tmp_path / "labels"
    make_labels(out, LabelSpec(spec, RULES, seed=1, chunk_hands=1), 1, log=_quiet)
    with pytest.raises(LabelError, match="pass --resume"):
        make_labels(out, LabelSpec(spec, RULES, seed=1, chunk_hands=1), 2, log=_quiet)
    with pytest.raises(LabelError, match=r"other settings \(seed differ"):
        make_labels(out, LabelSpec(spec, RULES, seed=9, chunk_hands=1), 2, resume=True,
                    log=_quiet)
    with pytest.raises(LabelError, match="spec"):
        make_labels(out, LabelSpec(f"search:worlds=3,net={net_path}", RULES, seed=1,
                                   chunk_hands=1), 2, resume=True, log=_quiet)
    with pytest.raises(LabelError, match="hands: must be a positive integer"):
        make_labels(out, LabelSpec(spec, RULES, seed=1, chunk_hands=1), 0, resume=True,
                    log=_quiet)


def test_damaged_foreign_or_misplaced_chunks_are_refused_by_name(spec, tmp_path):
    out = tmp_path / "labels"
    make_labels(out, LabelSpec(spec, RULES, seed=1, chunk_hands=1), 2, log=_quiet)
    chunk0, chunk1 = out / "chunk-00000.npz", out / "chunk-00001.npz"
    # A chunk moved to another index no longer matches its stamp.
    data0 = chunk0.read_bytes()
    chunk1.write_bytes(data0)
    with pytest.raises(LabelError, match=r"chunk-00001\.npz: was written for another"):
        load_labels(out, RULES)
    # Values out of range.
    with np.load(chunk0) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["tgt"] = np.where(np.isnan(arrays["tgt"]), np.nan, 99.0).astype(np.float32)
    np.savez_compressed(chunk1, **{**arrays, "identity": np.array(json.dumps(
        {"identity": json.loads(str(arrays["identity"]))["identity"], "chunk": 1},
        sort_keys=True))})
    with pytest.raises(LabelError, match="outside"):
        load_labels(out, RULES)
    chunk1.write_bytes(b"not a zip")
    with pytest.raises(LabelError, match="cannot be read"):
        load_labels(out, RULES)
    chunk1.unlink()
    with pytest.raises(LabelError, match="other rules"):
        load_labels(out, Rules.coerce("huapai"))
    with pytest.raises(LabelError, match="not a label set"):
        load_labels(tmp_path / "nowhere", RULES)


def test_the_learner_mixes_labels_into_its_minibatches(spec, tmp_path):
    out = tmp_path / "labels"
    make_labels(out, LabelSpec(spec, RULES, seed=1, chunk_hands=1), 2, log=_quiet)
    cfg = make_config("tiny", "dmc", search_labels=str(out), search_label_share=0.25)
    trainer = DMCTrainer(cfg)
    assert trainer.labels is not None and trainer.labels.size == len(load_labels(out, RULES)[0])
    trainer.run_for(600.0, should_stop=lambda: trainer.replay.size >= cfg.min_replay)
    obs, tgt = trainer.minibatch()
    k = round(cfg.batch_size * 0.25)
    assert obs.shape == (cfg.batch_size, obs_size(RULES))
    counts = (~torch.isnan(tgt)).sum(1)
    assert (counts[-k:] >= 2).all()  # label rows value every legal card
    assert (counts[:-k] == 1).all()  # self-play rows: the action taken
    assert np.isfinite(trainer.train_step())


def test_several_label_sets_pool_in_order_and_each_is_checked(spec, tmp_path):
    """Sets joined with os.pathsep load one after another; the learner takes the pool; an
    empty or missing member is refused by name rather than skipped."""
    one, two = tmp_path / "one", tmp_path / "two"
    make_labels(one, LabelSpec(spec, RULES, seed=1, chunk_hands=1), 1, log=_quiet)
    make_labels(two, LabelSpec(spec, RULES, seed=2, chunk_hands=1), 1, log=_quiet)
    a, b = load_labels(one, RULES), load_labels(two, RULES)
    obs, tgt = load_label_sets(os.pathsep.join([str(one), str(two)]), RULES)
    assert np.array_equal(obs, np.concatenate([a[0], b[0]]))
    assert np.array_equal(tgt, np.concatenate([a[1], b[1]]), equal_nan=True)
    assert np.array_equal(load_label_sets(str(one), RULES)[0], a[0])
    cfg = make_config("tiny", "dmc", search_labels=os.pathsep.join([str(one), str(two)]),
                      search_label_share=0.5)
    assert DMCTrainer(cfg).labels.size == len(a[0]) + len(b[0])
    with pytest.raises(LabelError, match="no label directory"):
        load_label_sets(os.pathsep, RULES)
    with pytest.raises(LabelError, match="nowhere.*not a label set"):
        load_label_sets(os.pathsep.join([str(one), str(tmp_path / "nowhere")]), RULES)


def test_label_settings_are_checked_together():
    with pytest.raises(ConfigError, match="go together"):
        make_config("tiny", "dmc", search_label_share=0.5)
    with pytest.raises(ConfigError, match="go together"):
        make_config("tiny", "dmc", search_labels="runs/labels")
    with pytest.raises(ConfigError, match=r"search_label_share: must be a share in \[0, 1\]"):
        make_config("tiny", "dmc", search_labels="x", search_label_share=1.5)
    with pytest.raises(ConfigError, match="search_labels: .*not a label set"):
        DMCTrainer(make_config("tiny", "dmc", search_labels="/nonexistent/labels",
                               search_label_share=0.5))


def test_the_command_refuses_a_spec_that_is_not_the_search(tmp_path, capsys):
    code = search_labels.main(["--out", str(tmp_path / "x"), "--hands", "1", "--spec", "pimc"])
    assert code == 2
    assert "labels come from the search agent" in capsys.readouterr().err
    assert search_labels.main(["--out", str(tmp_path / "x"), "--hands", "1", "--spec",
                               "search:worlds=0"]) == 2
    assert "search option worlds must be a positive integer" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_an_expert_iteration_round_labels_fine_tunes_gates_and_resumes(net_path, tmp_path):
    """One round end to end at toy sizes: labels on disk, a fine-tuned policy, a gate result
    in state.json; the best network is the run's policy.pt. Running again without --resume is
    refused, and with it nothing is redone; another recipe is refused naming what differs."""
    from training.expert_iteration import ExpertIteration, Recipe

    recipe = Recipe(rounds=1, hands=1, search="search:worlds=2", share=0.5, train_s=2.0,
                    gate_deals=2, gate_extend=1, start=net_path, preset="tiny")
    out = tmp_path / "exit"
    state = ExpertIteration(out, recipe, log=_quiet).run()
    (record,) = state["rounds"]
    assert load_labels(record["labels"], RULES)[0].shape[0] > 10
    assert (out / "round-1" / "train" / "policy.pt").is_file()
    assert record["gate"]["n"] == 2 and (out / "round-1" / "gate.jsonl").is_file()
    assert record["against_baseline"]["n"] == 2
    assert record["accepted"] == (record["gate"]["ci_low"] > 0
                                  and record["against_baseline"]["ci_high"] > 0)
    best = state["current"]
    assert best == (record["policy"] if record["accepted"] else str(out / "round-0" / "policy.pt"))
    assert (out / "policy.pt").read_bytes() == open(best, "rb").read()
    with pytest.raises(ValueError, match="pass --resume"):
        ExpertIteration(out, recipe, log=_quiet).run()
    again = ExpertIteration(out, recipe, log=_quiet).run(resume=True)
    assert again["rounds"] == state["rounds"]
    with pytest.raises(ValueError, match=r"other settings \(share differ"):
        ExpertIteration(out, Recipe(**{**recipe.__dict__, "share": 0.25}), log=_quiet).run(
            resume=True)


def test_expert_iteration_settings_are_checked():
    from training.expert_iteration import Recipe

    with pytest.raises(ValueError, match="hands: must be a positive integer"):
        Recipe(hands=0).validate()
    with pytest.raises(ValueError, match=r"share: must be in \(0, 1\]"):
        Recipe(share=0.0).validate()
    with pytest.raises(ValueError, match="without net="):
        Recipe(search="search:net=other.pt").validate()
    with pytest.raises(ValueError, match="gate_extend: must be a positive integer"):
        Recipe(gate_extend=0).validate()


@pytest.mark.parametrize("head, baseline, kept", [
    ((2.0, 9.0), (-3.0, 4.0), True),     # beats its start, no worse against expert
    ((2.0, 9.0), (-12.0, -3.0), False),  # beats its start but loses ground to expert
    ((-1.0, 9.0), (1.0, 8.0), False),    # not shown to beat its start
])
def test_a_round_is_kept_only_if_it_beats_its_start_and_holds_against_expert(
        net_path, tmp_path, monkeypatch, head, baseline, kept):
    from training.arena.stats import Stats
    from training.expert_iteration import ExpertIteration, Recipe

    def stats(low: float, high: float) -> Stats:
        return Stats(4, (low + high) / 2, 1.0, low, high, 0.5, 0.0, 0.5, 0.95, 10, 0)

    new = tmp_path / "new.pt"
    new.write_bytes(b"the fine-tuned network")
    monkeypatch.setattr(search_labels, "make_labels", lambda *a, **k: 0)
    monkeypatch.setattr(ExpertIteration, "fine_tune", lambda self, *a: new)
    monkeypatch.setattr(ExpertIteration, "gate",
                        lambda self, *a: (stats(*head), stats(*baseline)))
    out = tmp_path / "exit"
    state = ExpertIteration(out, Recipe(rounds=1, start=net_path), log=_quiet).run()
    assert state["rounds"][0]["accepted"] is kept
    assert (state["current"] == str(new)) is kept
    assert (out / "policy.pt").read_bytes() == (new.read_bytes() if kept else
                                                open(net_path, "rb").read())


@pytest.mark.parametrize("first, second, extend, deals, kept", [
    ((-2.0, 9.0), (1.0, 8.0), 2, [4000, 8000], True),   # undecided, decided on more deals
    ((-2.0, 9.0), (-1.0, 7.0), 2, [4000, 8000], False),  # still undecided: not kept
    ((-2.0, 9.0), (1.0, 8.0), 1, [4000], False),         # no extension asked for
    ((1.0, 9.0), (1.0, 8.0), 2, [4000], True),           # decided at once
    ((-9.0, -1.0), (1.0, 8.0), 2, [4000], False),        # clearly worse: no more deals
])
def test_an_undecided_gate_plays_on_and_decides_on_all_its_deals(
        net_path, tmp_path, monkeypatch, first, second, extend, deals, kept):
    from training.arena.stats import Stats
    from training.expert_iteration import ExpertIteration, Recipe

    def stats(n: int, low: float, high: float) -> Stats:
        return Stats(n, (low + high) / 2, 1.0, low, high, 0.5, 0.0, 0.5, 0.95, 10, 0)

    played: list[int] = []

    def gate(self, where, new, old, n):
        played.append(n)
        return stats(n, *(first if len(played) == 1 else second)), stats(n, 0.0, 5.0)

    new = tmp_path / "new.pt"
    new.write_bytes(b"the fine-tuned network")
    monkeypatch.setattr(search_labels, "make_labels", lambda *a, **k: 0)
    monkeypatch.setattr(ExpertIteration, "fine_tune", lambda self, *a: new)
    monkeypatch.setattr(ExpertIteration, "gate", gate)
    recipe = Recipe(rounds=1, start=net_path, gate_extend=extend)
    state = ExpertIteration(tmp_path / "exit", recipe, log=_quiet).run()
    assert played == deals
    assert state["rounds"][0]["accepted"] is kept
    assert state["rounds"][0]["gate"]["n"] == deals[-1]


def test_rounds_fine_tune_on_kept_and_extra_label_sets(net_path, spec, tmp_path, monkeypatch):
    """With keep_labels round r trains on rounds 1..r's labels after the extra sets; without
    it on its own only. A wrong extra set is refused before the run writes anything."""
    from training.arena.stats import Stats
    from training.expert_iteration import ExpertIteration, Recipe

    extra = tmp_path / "extra"
    make_labels(extra, LabelSpec(spec, RULES, seed=1, chunk_hands=1), 1, log=_quiet)
    labelled: list[str] = []
    trained: list[str] = []
    monkeypatch.setattr(search_labels, "make_labels",
                        lambda out, *a, **k: labelled.append(str(out)))

    def fine_tune(self, run_dir, start, labels, seed):
        trained.append(labels)
        return start

    ok = Stats(4, 1.0, 1.0, 0.5, 2.0, 0.5, 0.0, 0.5, 0.95, 10, 0)
    monkeypatch.setattr(ExpertIteration, "fine_tune", fine_tune)
    monkeypatch.setattr(ExpertIteration, "gate", lambda self, *a: (ok, ok))
    for keep in (True, False):
        out = tmp_path / f"exit-{keep}"
        recipe = Recipe(rounds=2, start=net_path, keep_labels=keep, extra_labels=str(extra))
        state = ExpertIteration(out, recipe, log=_quiet).run()
        own = [str(out / f"round-{r}" / "labels") for r in (1, 2)]
        assert trained[-2:] == [os.pathsep.join([str(extra), own[0]]),
                                os.pathsep.join([str(extra)] + (own if keep else own[1:]))]
        assert [r["trained_on"] for r in state["rounds"]] == trained[-2:]
    count = len(labelled)
    bad = Recipe(rounds=1, start=net_path, extra_labels=str(tmp_path / "nowhere"))
    with pytest.raises(ValueError, match="extra_labels: .*nowhere"):
        ExpertIteration(tmp_path / "bad", bad, log=_quiet).run()
    assert len(labelled) == count and not (tmp_path / "bad").exists()


def test_a_mixed_table_labels_only_the_search_seat_which_moves_round_the_table(spec, monkeypatch):
    """With ``others`` the search plays seat ``hand mod 4`` only; every label is its decision,
    the other seats' choices come from the ``others`` agent, and a seed gives the same rows."""
    seats: list[int] = []
    original = SearchAgent.search

    def spy(self, view):
        seats.append(view.seat)
        return original(self, view)

    monkeypatch.setattr(SearchAgent, "search", spy)
    for hand in (0, 1, 6):
        seats.clear()
        obs, tgt = label_hand(spec, RULES, seed=4, hand=hand, others="expert")
        assert set(seats) == {hand % 4}
        assert 0 < len(obs) == len(tgt) <= 12  # one seat's decisions with a choice
        again = label_hand(spec, RULES, seed=4, hand=hand, others="expert")
        assert all(np.array_equal(a, b) for a, b in zip(obs, again[0], strict=True))
    everyone, _ = label_hand(spec, RULES, seed=4, hand=0)
    assert len(everyone) > 12


def test_a_mixed_table_is_part_of_the_sets_identity(spec, tmp_path):
    out = tmp_path / "mixed"
    make_labels(out, LabelSpec(spec, RULES, seed=1, chunk_hands=1, others="expert"), 1,
                log=_quiet)
    assert json.loads((out / "labels.json").read_text())["others"] == "expert"
    with pytest.raises(LabelError, match="others"):
        make_labels(out, LabelSpec(spec, RULES, seed=1, chunk_hands=1), 2, resume=True,
                    log=_quiet)



def test_with_a_player_the_search_values_the_positions_that_player_reaches(spec, monkeypatch):
    """``player`` plays the labelled seat; the search still values every decision there with a
    choice, and the hand follows the player's cards, not the search's: the labels are exactly
    the positions the player meets, in order, and a seed gives the same rows."""
    from agents import make_agent

    valued: list[bytes] = []
    original = SearchAgent.search

    def spy(self, view):
        valued.append(view.encode().tobytes())
        return original(self, view)

    monkeypatch.setattr(SearchAgent, "search", spy)
    hand = 5
    obs, tgt = label_hand(spec, RULES, seed=4, hand=hand, others="expert", player="greedy")
    assert 0 < len(obs) == len(tgt) == len(valued) <= 12
    # Replay the hand by hand: the labelled seat is greedy, the others expert, seeded as the
    # labeller seeds them. Every position greedy meets with a choice is one label, in order.
    deal_seed, search_seed = hand_seeds(4, hand)
    game = Game(RULES, seed=deal_seed)
    seats = RULES.players
    players = []
    for seat in range(seats):
        if seat == hand % seats:
            who = make_agent("greedy", rules=RULES)
            who.reseed(seat_seed(search_seed, seats + seat))
        else:
            who = make_agent("expert", rules=RULES)
            who.reseed(seat_seed(search_seed, seat))
        who.reset(seat, RULES)
        players.append(who)
    met = []
    while not game.is_over():
        legal = game.legal_actions()
        view = game.view(game.current_player)
        if (game.current_player == hand % seats and len(legal) > 1
                and game.phase == Phase.PLAY):
            met.append(np.rint(view.encode() * 255.0).astype(np.uint8))
        game.step(legal[0] if len(legal) == 1 else players[game.current_player].act(view))
    # Decisions whose legal cards are all one run give no label; the rest match one by one.
    labelled = iter(met)
    for row in obs:
        assert any(np.array_equal(row, m) for m in labelled)
    again = label_hand(spec, RULES, seed=4, hand=hand, others="expert", player="greedy")
    assert all(np.array_equal(a, b) for a, b in zip(obs, again[0], strict=True))
    searched, _ = label_hand(spec, RULES, seed=4, hand=hand, others="expert")
    assert len(searched) != len(obs) or any(
        not np.array_equal(a, b) for a, b in zip(obs, searched, strict=True))


def test_the_player_is_part_of_the_sets_identity_and_a_bad_one_is_refused(spec, tmp_path,
                                                                          capsys):
    out = tmp_path / "own"
    make_labels(out, LabelSpec(spec, RULES, seed=1, chunk_hands=1, others="expert",
                               player="greedy"), 1, log=_quiet)
    doc = json.loads((out / "labels.json").read_text())
    assert doc["player"] == "greedy" and doc["others"] == "expert"
    with pytest.raises(LabelError, match="player"):
        make_labels(out, LabelSpec(spec, RULES, seed=1, chunk_hands=1, others="expert"), 2,
                    resume=True, log=_quiet)
    plain = tmp_path / "plain"
    make_labels(plain, LabelSpec(spec, RULES, seed=1, chunk_hands=1), 1, log=_quiet)
    assert "player" not in json.loads((plain / "labels.json").read_text())
    code = search_labels.main(["--out", str(tmp_path / "x"), "--spec", spec, "--hands", "1",
                               "--player", "nobody"])
    assert code == 2
    assert "player:" in capsys.readouterr().err and not (tmp_path / "x").exists()


def test_an_unknown_others_spec_is_refused_by_name(spec, tmp_path, capsys):
    code = search_labels.main(["--out", str(tmp_path / "x"), "--spec", spec, "--hands", "1",
                               "--others", "nobody"])
    assert code == 2
    assert "others:" in capsys.readouterr().err and not (tmp_path / "x").exists()


def test_a_recipe_with_a_mixed_table_labels_there_and_older_runs_still_resume(
        net_path, tmp_path, monkeypatch):
    from training.arena.stats import Stats
    from training.expert_iteration import ExpertIteration, Recipe

    asked: list[LabelSpec] = []
    monkeypatch.setattr(search_labels, "make_labels",
                        lambda out, spec, *a, **k: asked.append(spec) or 0)
    monkeypatch.setattr(ExpertIteration, "fine_tune", lambda self, *a: a[1])
    low = Stats(4, -1.0, 1.0, -2.0, 0.0, 0.5, 0.0, 0.5, 0.95, 10, 0)
    monkeypatch.setattr(ExpertIteration, "gate", lambda self, *a: (low, low))
    out = tmp_path / "exit"
    ExpertIteration(out, Recipe(rounds=1, start=net_path, others="pimc"), log=_quiet).run()
    assert [s.others for s in asked] == ["pimc"]
    # A run written before the field existed reads as the default (the search everywhere).
    old = tmp_path / "old"
    ExpertIteration(old, Recipe(rounds=1, start=net_path), log=_quiet).run()
    state = json.loads((old / "state.json").read_text())
    del state["recipe"]["others"]
    (old / "state.json").write_text(json.dumps(state))
    resumed = ExpertIteration(old, Recipe(rounds=2, start=net_path), log=_quiet).run(resume=True)
    assert len(resumed["rounds"]) == 2 and asked[-1].others == ""


@pytest.mark.parametrize("args, why", [
    (["--time-budget", "-1"], "--time-budget: must be a positive number of seconds"),
    (["--time-budget", "0"], "--time-budget: must be a positive number of seconds"),
    (["--time-budget", "nan"], "--time-budget: must be a positive number of seconds"),
    (["--time-budget", "inf"], "--time-budget: must be a positive number of seconds"),
    (["--chunk-hands", "0"], "chunk_hands: must be an integer from 1 to 10,000"),
    (["--chunk-hands", "1000000"], "chunk_hands: must be an integer from 1 to 10,000"),
    (["--workers", "0"], "workers: must be an integer from 1 to 256"),
    (["--workers", "100000"], "workers: must be an integer from 1 to 256"),
    (["--hands", "0"], "hands: must be a positive integer"),
    (["--hands", "10000000000"], "more than 100,000 chunks"),
    (["--resume"], "cannot resume: "),
])
def test_the_label_command_refuses_bad_numbers_before_any_work(tmp_path, capsys, spec, args,
                                                              why):
    out = tmp_path / "labels"
    argv = ["--out", str(out), "--spec", spec, "--hands", "1", *args]
    assert search_labels.main(argv) == 2
    assert why in one_line_error(capsys)
    assert not out.exists()


def test_the_label_command_refuses_an_out_that_is_a_file(tmp_path, capsys, spec):
    taken = tmp_path / "notes.txt"
    taken.write_text("keep me\n", encoding="utf-8")
    assert search_labels.main(["--out", str(taken), "--spec", spec, "--hands", "1"]) == 2
    assert "is a file, but the label set needs a directory" in one_line_error(capsys)
    assert taken.read_text(encoding="utf-8") == "keep me\n"


def test_make_labels_refuses_a_budget_that_is_negative_or_not_a_number(tmp_path, spec):
    label_spec = LabelSpec(spec, RULES, seed=1, chunk_hands=1)
    for budget in (-1.0, float("nan"), float("inf")):
        with pytest.raises(LabelError, match="time_budget_s: must be a finite number"):
            make_labels(tmp_path / "x", label_spec, 1, time_budget_s=budget, log=_quiet)
    assert not (tmp_path / "x").exists()


def test_expert_iteration_resume_where_there_is_no_run_is_refused(tmp_path, capsys, net_path,
                                                                  monkeypatch):
    # As training.train refuses it: a mistyped --out must not start a new run of hours.
    from training.expert_iteration import rounds as expert_iteration

    def no_round(*_: object, **__: object) -> None:
        raise AssertionError("a round started")

    monkeypatch.setattr(expert_iteration.ExpertIteration, "round", no_round)
    out = tmp_path / "new"
    assert expert_iteration.main(["--out", str(out), "--start", net_path, "--resume"]) == 2
    err = one_line_error(capsys)
    assert "cannot resume: " in err and "state.json is missing" in err
    assert not out.exists()


@pytest.mark.parametrize("args, why", [
    # (a negative --seed is refused by the parser: tests/training/test_cli.py); this one is
    # within every command's range, but round r trains with seed * 1000 + r
    (["--seed", "5000000"], "seed: must be an integer from 0 to 4,294,967"),
    (["--train-s", "inf"], "train_s: must be a number above 0 and at most 2,592,000"),
    (["--lr", "5"], "lr: must be a number above 0 and at most 1"),
    (["--share", "nan"], r"share: must be in (0, 1]"),
    (["--workers", "0"], "workers: must be an integer from 1 to 256"),
    (["--gate-deals", "10000000"], "gate_deals: must be at most 1,000,000"),
    (["--gate-deals", "600000"], "gate_extend: an undecided gate would play"),
    (["--hands", "2000000"], "hands: must be at most 1,000,000"),
    (["--preset", "huge"], "preset: must be one of"),
    (["--rules", "bogus"], "rules: unknown rules preset"),
    (["--others", "nobody"], "others: unknown agent 'nobody'"),
    (["--start", "NOT_A_POLICY"], "start: cannot read policy file"),
])
def test_expert_iteration_refuses_bad_settings_before_writing(tmp_path, capsys, net_path, args,
                                                              why):
    text = tmp_path / "passwd"
    text.write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    from training.expert_iteration import rounds as expert_iteration

    out = tmp_path / "run"
    argv = ["--out", str(out), "--start", net_path,
            *[str(text) if a == "NOT_A_POLICY" else a for a in args]]
    assert expert_iteration.main(argv) == 2
    assert why in one_line_error(capsys)
    assert not out.exists()


@pytest.mark.parametrize("playouts", [1, 3])
def test_playout_values_are_the_real_deal_finished_by_the_tables_own_players(spec, monkeypatch,
                                                                            playouts):
    """With ``values="playout"`` no search runs: each legal card of a labelled decision is worth
    the hand's real deal finished, after that card, by fresh copies of the table's players
    (the labelled seat by ``player``), in the network's unit, averaged over ``playouts``
    play-outs whose seeds every card shares; equivalent cards share a value."""
    from agents import make_agent
    from agents.knowledge import Situation
    from agents.pimc import action_runs, objective
    from gongzhu_env.players import play_turns

    def no_search(self, view):
        raise AssertionError("a play-out label must not search")

    monkeypatch.setattr(SearchAgent, "search", no_search)
    hand, seeds = 6, 3
    obs, tgt = label_hand(spec, RULES, seed=seeds, hand=hand, others="expert", player="greedy",
                          values="playout", playouts=playouts)
    assert 0 < len(obs) == len(tgt) <= 12
    deal_seed, search_seed = hand_seeds(seeds, hand)
    me = hand % RULES.players

    def table(seed: int) -> list:
        actors = []
        for seat in range(RULES.players):
            who = make_agent("greedy" if seat == me else "expert", rules=RULES)
            who.reseed(seed(seat))
            who.reset(seat, RULES)
            actors.append(who)
        return actors

    game = Game(RULES, seed=deal_seed)
    players = table(lambda seat: seat_seed(search_seed, RULES.players + seat if seat == me
                                           else seat))
    rows = iter(zip(obs, tgt, strict=True))
    decision = 0
    while not game.is_over():
        legal = game.legal_actions()
        p = game.current_player
        view = game.view(p)
        if p == me and len(legal) > 1 and game.phase == Phase.PLAY:
            runs = action_runs(legal, Situation.from_view(view).unseen)
            if len(runs) > 1:
                o, t = next(rows)
                assert np.array_equal(o, np.rint(view.encode() * 255.0).astype(np.uint8))
                assert set(np.flatnonzero(~np.isnan(t))) == set(legal)
                first = search_labels.playout_seed(search_seed, decision)
                seeds_k = [first] + [search_labels.playout_seed(first, k)
                                     for k in range(1, playouts)]
                for run in runs:
                    total = 0.0
                    for seed in seeds_k:
                        g = game.clone()
                        g.step(run[-1])
                        play_turns(g, table(lambda seat, s=seed: seat_seed(s, seat)))
                        total += objective(g.scores(), me, (me,), True)
                    want = total / playouts / 400.0
                    assert all(t[c] == pytest.approx(max(-4.0, min(4.0, want))) for c in run)
            decision += 1
        game.step(legal[0] if len(legal) == 1 else players[p].act(view))
    assert next(rows, None) is None
    again = label_hand(spec, RULES, seed=seeds, hand=hand, others="expert", player="greedy",
                       values="playout", playouts=playouts)
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(tgt, again[1], strict=True))


@pytest.mark.parametrize("preset", ["scrofazero", "two_decks"])
def test_playout_values_at_team_and_two_deck_tables_value_every_legal_action(preset):
    """The play-out labeller plays any table: every legal action of a labelled decision gets a
    finite value in the unit's range, and it makes labels where the rules give choices."""
    rules = Rules.coerce(preset)
    obs, tgt = label_hand("search", rules, seed=1, hand=0, others="greedy", player="greedy",
                          values="playout")
    assert len(obs) == len(tgt) > 0
    for o, t in zip(obs, tgt, strict=True):
        valued = np.flatnonzero(~np.isnan(t))
        assert o.shape == (obs_size(rules),) and len(valued) >= 2
        assert np.all(np.abs(t[valued]) <= 4.0)


def test_playout_values_are_part_of_the_sets_identity_and_a_bad_choice_is_refused(
        spec, tmp_path, capsys):
    out = tmp_path / "po"
    made = LabelSpec(spec, RULES, seed=1, chunk_hands=1, others="expert", player="greedy",
                     values="playout")
    make_labels(out, made, 1, log=_quiet)
    assert json.loads((out / "labels.json").read_text())["values"] == "playout"
    with pytest.raises(LabelError, match="values"):
        make_labels(out, LabelSpec(spec, RULES, seed=1, chunk_hands=1, others="expert",
                                   player="greedy"), 2, resume=True, log=_quiet)
    with pytest.raises(LabelError, match="values: must be one of"):
        LabelSpec(spec, RULES, values="rollouts")
    assert "playouts" not in json.loads((out / "labels.json").read_text())  # older sets resume
    with pytest.raises(LabelError, match="playouts"):
        make_labels(out, LabelSpec(spec, RULES, seed=1, chunk_hands=1, others="expert",
                                   player="greedy", values="playout", playouts=2), 2,
                    resume=True, log=_quiet)
    four = tmp_path / "po4"
    make_labels(four, LabelSpec(spec, RULES, seed=1, chunk_hands=1, others="expert",
                                player="greedy", values="playout", playouts=4), 1, log=_quiet)
    assert json.loads((four / "labels.json").read_text())["playouts"] == 4
    with pytest.raises(LabelError, match="playouts: only play-out values"):
        LabelSpec(spec, RULES, playouts=2)
    with pytest.raises(LabelError, match="playouts"):
        LabelSpec(spec, RULES, values="playout", playouts=0)
    code = search_labels.main(["--out", str(tmp_path / "x"), "--spec", spec, "--hands", "1",
                               "--values", "best"])
    assert code == 2
    assert "values:" in capsys.readouterr().err and not (tmp_path / "x").exists()
