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
    for preset in SHIPPED:
        rules = Rules.preset(preset)
        agent = make_agent("policy:pretrained", seed=0, rules=rules)
        assert agent.rules == rules and agent.net.obs_size == obs_size(rules)
        game = Game(rules, seed=5)
        for seat in range(4):
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
    assert "['huapai', 'scrofazero', 'standard', 'two_decks']" in str(e.value)
    agent = make_agent("policy:pretrained")
    with pytest.raises(PolicyLoadError, match="shipped policy .* is trained for other rules"):
        agent.reset(0, Rules.preset("online"))
