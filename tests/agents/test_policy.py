"""Policy files: save, load, and every way a file can be refused (agents.policy)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.policy import (
    SELF_PLAY_FILE,
    SHIPPED,
    PolicyAgent,
    PolicyLoadError,
    load_policy_agent,
    load_policy_file,
    policy_dict,
    save_policy,
    shipped_rules,
)
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from gongzhu_env.view import OBS_SIZE, obs_size
from tests.helpers import random_views, tiny_q_network


def test_saved_policy_round_trips(tmp_path):
    net = tiny_q_network(1)
    path = save_policy(tmp_path / "p.pt", net, Rules(), metadata={"note": "test"})
    original = PolicyAgent(net)
    loaded = load_policy_agent(path)
    views = [v for v in random_views(3, 4) if len(v.legal_actions) > 1]
    assert len(views) > 50
    acts = [original.act(v) for v in views]
    assert acts == [loaded.act(v) for v in views]
    assert all(a in v.legal_actions for a, v in zip(acts, views, strict=True))
    # The saved weights are the same tensors, not merely the same argmax.
    for v in views[:5]:
        np.testing.assert_array_equal(original.scores(v), loaded.scores(v))


def test_policy_for_other_rules_is_refused(tmp_path):
    path = save_policy(tmp_path / "p.pt", tiny_q_network(), Rules(settlement_multiplier=1))
    # Refused when loaded for a standard table, naming the option that differs.
    with pytest.raises(PolicyLoadError, match=r"settlement_multiplier=1 \(table: 12\)"):
        load_policy_agent(path, rules=Rules())
    # ... but accepted at a table with those rules, and refused at a standard table.
    agent = load_policy_agent(path, rules=Rules(settlement_multiplier=1))
    with pytest.raises(PolicyLoadError, match="settlement_multiplier"):
        agent.reset(0, Rules())
    # Without the table's rules the agent takes the file's, and still checks each table.
    unbound = load_policy_agent(path)
    assert unbound.rules == Rules(settlement_multiplier=1)
    with pytest.raises(PolicyLoadError, match="settlement_multiplier"):
        unbound.reset(0, Rules())


def test_policy_rules_are_compared_as_rule_sets(tmp_path):
    # A file written before an option existed omits it: it was trained with the default.
    data = policy_dict(tiny_q_network(), Rules())
    data["rules"].pop("settlement_multiplier")
    torch.save(data, tmp_path / "older.pt")
    assert load_policy_agent(tmp_path / "older.pt").rules == Rules()
    # An option this version does not know cannot be checked: refused, naming it.
    data["rules"]["no_such_option"] = True
    torch.save(data, tmp_path / "newer.pt")
    with pytest.raises(PolicyLoadError, match="no_such_option"):
        load_policy_agent(tmp_path / "newer.pt")


def test_policy_for_another_observation_size_is_refused(tmp_path):
    data = policy_dict(tiny_q_network(), Rules())
    data["obs_size"] = OBS_SIZE - 1
    torch.save(data, tmp_path / "old.pt")
    with pytest.raises(PolicyLoadError, match="observations of size"):
        load_policy_agent(tmp_path / "old.pt")


def test_policy_with_weights_of_the_wrong_shape_is_refused(tmp_path):
    data = policy_dict(tiny_q_network(), Rules())
    data["architecture"]["hidden"] = [32]
    torch.save(data, tmp_path / "bad.pt")
    with pytest.raises(PolicyLoadError, match="do not match"):
        load_policy_agent(tmp_path / "bad.pt")


def test_corrupt_missing_and_foreign_policy_files_are_refused(tmp_path):
    (tmp_path / "junk.pt").write_bytes(b"\x00garbage")
    with pytest.raises(PolicyLoadError, match="corrupt"):
        load_policy_agent(tmp_path / "junk.pt")
    with pytest.raises(PolicyLoadError, match="not found"):
        load_policy_agent(tmp_path / "missing.pt")
    torch.save({"weights": torch.zeros(3)}, tmp_path / "foreign.pt")
    with pytest.raises(PolicyLoadError, match="not a Gong Zhu policy"):
        load_policy_agent(tmp_path / "foreign.pt")


def test_the_shipped_policy_loads_by_name_and_plays_legal_moves():
    agent = make_agent("policy:pretrained", seed=0)
    _, data = load_policy_file("pretrained")
    assert data["metadata"]["preset"] == "full" and data["obs_size"] == OBS_SIZE
    for view in random_views(2, 11):
        if view.legal_actions:
            assert agent.act(view) in view.legal_actions


def test_policy_spec_is_checked_against_the_table_rules(tmp_path):
    path = save_policy(tmp_path / "huapai.pt", tiny_q_network(), Rules.preset("huapai"))
    # Built for its own table, or without rules (it then takes the file's rules).
    assert make_agent(f"policy:{path}", rules=Rules.preset("huapai")).rules.strict_exposure
    assert make_agent(f"policy:{path}").rules == Rules.preset("huapai")
    with pytest.raises(PolicyLoadError, match=r"strict_exposure=True \(table: False\)"):
        make_agent(f"policy:{path}", rules=Rules())


def test_pretrained_picks_the_shipped_policy_for_the_table():
    for table in SHIPPED:
        rules = shipped_rules(table)
        agent = make_agent("policy:pretrained", seed=0, rules=rules)
        assert agent.rules == rules and agent.net.obs_size == obs_size(rules)
        game = Game(rules, seed=5)
        for seat in range(rules.players):
            agent.reset(seat, rules)
        while not game.is_over():
            view = game.view(game.current_player)
            assert agent.act(view) in view.legal_actions
            game.step(agent.act(view))
    # Without the table's rules it is the standard policy.
    assert make_agent("policy:pretrained").rules == Rules()


def test_the_self_play_network_is_kept_beside_the_shipped_one():
    # The network that was ``policy:pretrained`` before expert iteration still loads by its
    # file name, for the standard rules, and it is a different network from today's.
    old = make_agent(f"policy:{SELF_PLAY_FILE}", seed=0)
    new = make_agent("policy:pretrained", seed=0)
    assert old.rules == new.rules == Rules()
    views = [v for v in random_views(2, 9) if len(v.legal_actions) > 1]
    assert any(not np.array_equal(old.scores(v), new.scores(v)) for v in views)


def test_pretrained_at_a_table_without_a_shipped_policy_says_what_is_shipped():
    with pytest.raises(PolicyLoadError, match="no policy is shipped for these rules") as e:
        make_agent("policy:pretrained", rules=Rules.preset("online"))
    assert "exposed_may_lead=False (table: True)" in str(e.value)
    assert str(sorted(SHIPPED)) in str(e.value) and "'three_players'" in str(e.value)
    agent = make_agent("policy:pretrained")
    with pytest.raises(PolicyLoadError, match="shipped policy .* is trained for other rules"):
        agent.reset(0, Rules.preset("online"))


def _saved_with(tmp_path, name: str, change) -> str:
    """Save the tiny network's policy dict after ``change(data)`` edits it; return the path."""
    data = policy_dict(tiny_q_network(), Rules())
    change(data)
    torch.save(data, tmp_path / name)
    return str(tmp_path / name)


def _set_hidden(widths):
    def change(data):
        data["architecture"]["hidden"] = widths
    return change


@pytest.mark.parametrize("widths, why", [
    ([1e9], "positive integers up to 16,384"),            # a float, as JSON-ish files hold
    ([1_000_000_000], "positive integers up to 16,384"),  # would ask for 2.4 TB
    ([16, 0], "positive integers"),
    ([True], "positive integers"),
    (["512"], "positive integers"),
    ("512", "non-empty list"),
    ([], "non-empty list"),
    ([16] * 17, "at most 16 hidden layers"),
    # Every width allowed, but together 8192 * 8192 * 3 weights: gigabytes in training.
    ([8192, 8192, 8192, 8192], "at most 20,000,000"),
])
def test_a_policy_file_naming_an_absurd_network_is_refused_before_it_is_built(
        tmp_path, monkeypatch, widths, why):
    path = _saved_with(tmp_path, "big.pt", _set_hidden(widths))

    def no_layers(*args, **kwargs):
        raise AssertionError("a layer was allocated before the architecture was checked")

    monkeypatch.setattr(torch.nn, "Linear", no_layers)
    with pytest.raises(PolicyLoadError, match="stored architecture cannot be built") as e:
        load_policy_file(path)
    assert why in str(e.value)
    # The agent spec says the same (the command line prints it and exits 2).
    with pytest.raises(PolicyLoadError, match=why):
        make_agent(f"policy:{path}")


@pytest.mark.parametrize("change, why", [
    (lambda d: d["architecture"].update(card_features="yes"), "card_features must be true"),
    (lambda d: d["architecture"].update(players="4"), "players must be a table size"),
    (lambda d: d["architecture"].pop("hidden"), "names no hidden layer widths"),
    (lambda d: d.update(architecture=[16]), "architecture must be a dict"),
    (lambda d: d.update(state_dict=[1, 2]), "must be a dict of tensors"),
    (lambda d: d["state_dict"].pop("net.2.bias"), r"missing \['net.2.bias'\]"),
    (lambda d: d["state_dict"].update(extra=torch.zeros(1)), r"unexpected \['extra'\]"),
    (lambda d: d["state_dict"].update({"net.0.weight": torch.zeros(16, 600, dtype=torch.int64)}),
     "net.0.weight must be a tensor of floats"),
    (lambda d: d["state_dict"].update({"net.0.weight": "weights"}), "must be a tensor of floats"),
    (lambda d: d["state_dict"].update({"net.0.weight": torch.zeros(16, 599)}),
     r"net.0.weight has shape \(16, 599\), expected \(16, 600\)"),
])
def test_a_policy_file_whose_architecture_or_weights_are_malformed_is_refused(tmp_path, change,
                                                                             why):
    with pytest.raises(PolicyLoadError, match=why):
        load_policy_file(_saved_with(tmp_path, "bad.pt", change))


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_a_policy_file_with_weights_that_are_not_finite_is_refused(tmp_path, value):
    # Such a network scores every action NaN; argmax then plays the lowest legal card.
    def poison(data):
        data["state_dict"]["net.2.bias"][7] = value

    path = _saved_with(tmp_path, "nan.pt", poison)
    with pytest.raises(PolicyLoadError, match="net.2.bias hold NaN or infinite values"):
        load_policy_agent(path)
    with pytest.raises(PolicyLoadError, match="NaN or infinite"):
        make_agent(f"search:net={path}")


def test_a_file_larger_than_any_policy_is_refused_before_it_is_read(tmp_path):
    from agents.policy import MAX_POLICY_BYTES

    path = tmp_path / "huge.pt"
    with path.open("wb") as f:
        f.truncate(MAX_POLICY_BYTES + 1)  # sparse: nothing is written
    with pytest.raises(PolicyLoadError, match="larger than any policy"):
        load_policy_file(path)


def test_a_network_is_never_built_larger_than_the_bound():
    from agents.policy import MAX_PARAMETERS, QNetwork, plan_network

    with pytest.raises(ValueError, match="at most 20,000,000"):
        QNetwork(600, 53, [10_000, 10_000])
    # The bound counts the features' inputs too: the plan is the network that gets built.
    hidden, players, width = plan_network(600, 53, [512, 256], card_features=True)
    net = QNetwork(600, 53, [512, 256], card_features=True)
    assert (hidden, players) == (net.hidden, net.players)
    assert width == net.net[0].in_features
    assert sum(p.numel() for p in net.parameters()) < MAX_PARAMETERS
