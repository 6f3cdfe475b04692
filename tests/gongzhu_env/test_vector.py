"""The batched engine against the scalar reference, and its bad-input errors.

The differential runs (``gongzhu_env.batch.differential``) play the same deals and the
same random legal actions on a ``GameBatch`` and on ``Game.from_hands`` of each table's deal, and
compare at every step the seat to move, the legal set, ``PlayerView.encode()`` and the action
mask, and at every hand's end the raw scores, the rewards and the next deal. The long run (at
least 100,000 hands) is ``python -m benchmarks.check_vector``.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from gongzhu_env import Game, IllegalActionError, Rules
from gongzhu_env.batch import COVERED, MAX_TABLES, GameBatch, check_covered, deal
from gongzhu_env.batch.differential import (
    OPTION_RULES,
    PRESET_NAMES,
    covered_combinations,
    differential,
    random_covered_rules,
)
from gongzhu_env.cards import card_str


def _assert_clean(report) -> None:
    assert report.bad_hands == 0, "\n".join(report.messages)


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_preset_agrees_with_the_reference(name: str) -> None:
    rules = Rules.preset(name)
    for k, mode in enumerate(["raw", "zero_sum", *(["team"] if rules.has_teams else [])]):
        report = differential(rules, tables=8, hands=16, seed=10 * k + len(name),
                              reward_mode=mode, reward_scale=(1.0, 100.0, 3.0)[k])
        _assert_clean(report)
        assert report.hands >= 16


def test_every_covered_option_combination_agrees_with_the_reference() -> None:
    combos = covered_combinations()
    # 2 x 2 x 2 x 3 x 2 products, less those Rules refuses (strict with may-lead, either
    # without exposure).
    assert len(combos) == 28
    rng = np.random.default_rng(3)
    hands = 0
    for k, rules in enumerate(combos):
        modes = ["raw", "zero_sum", *(["team"] if rules.has_teams else [])]
        report = differential(rules, tables=4, hands=8, seed=100 + k,
                              reward_mode=modes[int(rng.integers(len(modes)))])
        _assert_clean(report)
        hands += report.hands
    assert hands >= 28 * 8


def test_plain_rules_play_the_same_on_the_kernel_of_every_option(monkeypatch) -> None:
    # Plain rules (no pig-sheep teams, swap, self-capture, first-drawn, discard colour or hidden
    # exposure) step in a kernel compiled with those options as constant zeros; the kernel
    # that reads them at run time is held to the reference on the same rule sets here.
    import gongzhu_env.batch.one_deck as one_deck

    plain_sets = [r for r in covered_combinations() if one_deck._plain(
        one_deck._rule_params(r, "raw"))]
    assert len(plain_sets) >= 20 and Rules() in plain_sets
    assert not one_deck._plain(one_deck._rule_params(Rules(hidden_exposure=True), "raw"))
    monkeypatch.setattr(one_deck, "_plain", lambda rp: False)
    for k, rules in enumerate(plain_sets[::3]):
        batch = GameBatch(4, rules, final_observations=True)
        batch.reset(300 + k)
        assert batch._step_fn is one_deck._step_kernel_for(rules.players, False)
        _assert_clean(differential(rules, 4, 8, 300 + k, batch=batch))


@pytest.mark.parametrize("players", [3, 5, 6, 7, 8])
def test_every_table_size_agrees_with_the_reference(players: int) -> None:
    # The standard game, team play where the size allows it, and random covered rule sets of
    # that size (every option at once), a few hundred hands in all.
    rng = np.random.default_rng(players)
    sets = [Rules(players=players), *([Rules(players=players, team_play=True)]
                                      if players % 2 == 0 else [])]
    sets += [random_covered_rules(rng, (players,)) for _ in range(3)]
    hands = 0
    for k, rules in enumerate(sets):
        modes = ["raw", "zero_sum", *(["team"] if rules.has_teams else [])]
        report = differential(rules, tables=16, hands=64, seed=players * 10 + k,
                              reward_mode=modes[k % len(modes)], reward_scale=(1.0, 3.0)[k % 2])
        _assert_clean(report)
        hands += report.hands
    assert hands >= 64 * len(sets)


@pytest.mark.parametrize("options", OPTION_RULES, ids=lambda o: ",".join(f"{k}={v}" for k, v in
                                                                          o.items()))
def test_every_further_option_agrees_with_the_reference(options: dict) -> None:
    rules = Rules.from_dict(options)
    modes = ["raw", "zero_sum", *(["team"] if rules.has_teams else [])]
    for k, mode in enumerate(modes):
        report = differential(rules, tables=16, hands=200 // len(modes), seed=20 + k,
                              reward_mode=mode, reward_scale=(1.0, 3.0, 100.0)[k])
        _assert_clean(report)


@pytest.mark.parametrize("options, reference", [
    ({"hidden_exposure": True}, {}), ({"first_drawn_exposure": True}, {}),
    ({"self_capture_double": True}, {}), ({"discard_colour": True}, {}),
    ({"hearts_table": "book"}, {}), ({"hearts_table": "positive"}, {}),
    ({"pig_sheep_team": True, "declaration": "none"}, {"declaration": "none"}),
    ({"auto_expose": False}, {}), ({"declaration": "all"}, {"declaration": "all_but_sheep"}),
    ({"players": 6, "team_play": True}, {"players": 6}),
])
def test_the_further_options_are_exercised(options: dict, reference: dict) -> None:
    # Guard of the runs above: a batch under the option disagrees with a reference without it
    # (``pig_sheep_swap`` needs all hearts, which random play almost never takes: the scoring
    # test below holds it).
    report = differential(Rules.from_dict(options), tables=16, hands=100, seed=5,
                          reference_rules=Rules.from_dict(reference))
    assert report.bad_hands > 0


def test_exposures_and_restrictions_are_exercised() -> None:
    # Guard of the differential runs above: random play does expose cards, and a batch under
    # other exposure rules than its reference disagrees; so agreement above means something.
    for batch_rules, reference in (("online", "standard"), ("huapai", "standard"),
                                   ("all_but_sheep", "standard")):
        report = differential(Rules.preset(batch_rules), tables=8, hands=40, seed=5,
                              reference_rules=Rules.preset(reference))
        assert report.bad_hands > 0, batch_rules


class _Tampered(GameBatch):
    """A batch that flips one observation value of table 1 at its 30th step."""

    steps = 0

    def step(self, actions):  # type: ignore[no-untyped-def]
        out = super().step(actions)
        self.steps += 1
        if self.steps == 30:
            self.observations[1, 100] = 1.0 - self.observations[1, 100]
        return out


def test_the_differential_run_sees_a_wrong_observation() -> None:
    batch = _Tampered(4, "standard")
    batch.reset(0)
    report = differential(batch.rules, 4, 8, 0, batch=batch)
    assert report.bad_hands == 1
    assert "table 1" in report.messages[0] and "observation differs at [100]" in \
        report.messages[0]


# ------------------------------------------------------------------ deals
def test_the_same_seed_gives_the_same_deals_and_a_table_follows_its_own_stream() -> None:
    a, b, c = GameBatch(3, "standard"), GameBatch(5, "standard"), GameBatch(3, "standard")
    a.reset(42)
    b.reset(42)
    c.reset(43)
    for i in range(3):
        assert a.deal_of(i) == b.deal_of(i) == deal(42, i, 0)
        assert a.hands_started(i) == 1
    assert [a.deal_of(i) for i in range(3)] != [c.deal_of(i) for i in range(3)]
    assert len({a.deal_of(i) for i in range(3)}) == 3
    for hands in a.deal_of(0), deal(7, 1000, 12345):
        assert sorted(c for h in hands for c in h) == list(range(52))
        assert [len(h) for h in hands] == [13, 13, 13, 13]


def _documented_deal(seed: int, table: int, hand: int,
                     players: int = 4) -> tuple[tuple[int, ...], ...]:
    """The recipe of the module docstring ("Deals"), in plain Python integers."""
    full, golden = (1 << 64) - 1, 0x9E3779B97F4A7C15

    def mix(z: int) -> int:
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & full
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & full
        return z ^ (z >> 31)

    x = mix((mix((mix((seed + golden) & full) + table) & full) + hand) & full)
    deck = [c for c in range(52) if Rules(players=players).deck_mask >> c & 1]
    for k in range(len(deck) - 1, 0, -1):
        b = k + 1
        while True:
            x = (x + golden) & full
            m = (mix(x) >> 32) * b
            if m % 2**32 >= 2**32 % b:
                break
        j = m >> 32
        deck[k], deck[j] = deck[j], deck[k]
    size = len(deck) // players
    return tuple(tuple(sorted(deck[size * s:size * s + size])) for s in range(players))


@pytest.mark.parametrize("seed, table, hand", [(0, 0, 0), (42, 3, 17), (2**63 - 1, 4095, 99)])
def test_deals_follow_the_documented_recipe(seed: int, table: int, hand: int) -> None:
    assert deal(seed, table, hand) == _documented_deal(seed, table, hand)
    for players in (3, 5, 6, 7, 8):
        assert deal(seed, table, hand, Rules(players=players)) == \
            _documented_deal(seed, table, hand, players)


@pytest.mark.parametrize("players", [3, 5, 6, 7, 8])
def test_other_table_sizes_deal_the_reduced_deck_and_the_lead_card_leads(players: int) -> None:
    rules = Rules(players=players)
    batch = GameBatch(3, rules)
    batch.reset(11)
    for i in range(3):
        hands = batch.deal_of(i)
        assert hands == deal(11, i, 0, rules)
        assert [len(h) for h in hands] == [rules.hand_size] * players
        assert sorted(c for h in hands for c in h) == \
            [c for c in range(52) if rules.deck_mask >> c & 1]
        leader = next(s for s, h in enumerate(hands) if rules.lead_card in h)
        assert batch.current_player[i] == leader
        assert set(batch.first_drawn_of(i)) <= {c for h in hands for c in h}
    assert batch.rewards.shape == batch.scores.shape == (3, players)
    assert batch.observations.shape == (3, Game.from_hands(hands, rules).view(0).obs_size)


def test_deals_spread_every_card_evenly_over_the_seats() -> None:
    counts = np.zeros((52, 4))
    for j in range(2000):
        for s, hand in enumerate(deal(1, 0, j)):
            counts[list(hand), s] += 1
    # Each count is Binomial(2000, 1/4): mean 500, sd 19.4; 6 sd either side.
    assert counts.min() > 383 and counts.max() < 617


def test_a_finished_table_is_dealt_its_next_hand_at_once() -> None:
    batch = GameBatch(2, "scrofazero", reward_mode="team")
    batch.reset(9)
    rng = np.random.default_rng(0)
    for _ in range(52):  # no declaration: every hand is exactly 52 plays
        assert not batch.terminated.any()
        batch.step(np.array([rng.choice(batch.legal_actions(i)) for i in range(2)]))
    assert batch.terminated.all()
    assert [batch.hands_started(i) for i in range(2)] == [2, 2]
    assert batch.deal_of(0) == deal(9, 0, 1) and batch.deal_of(1) == deal(9, 1, 1)
    # The results of team play: partners share, the two teams are opposite.
    r = batch.rewards
    assert np.array_equal(r[:, 0], r[:, 2]) and np.array_equal(r[:, 0], -r[:, 1])
    assert (batch.scores != 0).any()
    batch.step(np.array([batch.legal_actions(i)[0] for i in range(2)]))
    assert not batch.terminated.any() and not batch.rewards.any() and not batch.scores.any()


# ------------------------------------------------------------------ bad input
def _started(n: int = 3, rules: str = "standard") -> GameBatch:
    batch = GameBatch(n, rules)
    batch.reset(0)
    return batch


@pytest.mark.parametrize("actions, error, words", [
    (np.zeros(2, dtype=np.int64), ValueError, "shape (3,)"),
    (np.zeros((3, 1), dtype=np.int64), ValueError, "shape (3,)"),
    (np.zeros(3, dtype=np.float64), TypeError, "integer dtype"),
    (np.zeros(3, dtype=np.bool_), TypeError, "integer dtype"),
    ([0, 0, 0], TypeError, "numpy array"),
])
def test_actions_of_the_wrong_shape_or_dtype_are_refused(actions, error, words) -> None:
    batch = _started()
    before = batch.observations.copy()
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        batch.step(actions)
    assert np.array_equal(batch.observations, before)


def _first_legal(batch: GameBatch) -> np.ndarray:
    return np.array([batch.legal_actions(i)[0] for i in range(batch.num_tables)])


@pytest.mark.parametrize("bad", [51, 53, -1, 1000])
def test_an_illegal_action_in_any_table_changes_no_table(bad: int) -> None:
    batch = _started(4)
    # Play a few steps so that the tables are in different positions.
    for _ in range(6):
        batch.step(_first_legal(batch))
    saved = [batch.observations.copy(), batch.action_masks.copy(), batch.current_player.copy()]
    legal2 = batch.legal_actions(2)
    actions = _first_legal(batch)
    if bad in legal2:
        bad = next(a for a in range(53) if a not in legal2)
    actions[2] = bad
    with pytest.raises(IllegalActionError) as info:
        batch.step(actions)
    message = str(info.value)
    assert "table 2" in message and f"seat {int(batch.current_player[2])}" in message
    assert f"({bad})" in message
    assert "legal actions: [" in message
    for a in legal2:
        assert (card_str(a) if a < 52 else "DONE") in message
    for a, b in zip(saved, (batch.observations, batch.action_masks, batch.current_player),
                    strict=True):
        assert np.array_equal(a, b)
    # Still playable, and the same as before: the legal actions step as if nothing happened.
    assert batch.legal_actions(2) == legal2
    batch.step(_first_legal(batch))


def test_after_a_refused_step_every_table_still_plays_like_the_reference() -> None:
    # Right after the reset every table is at the start of its hand: a refused step followed
    # by a differential run from there shows that no table moved, the tables before the bad one
    # included.
    batch = GameBatch(6, "online")
    batch.reset(11)
    actions = np.full(6, 52)
    actions[4] = next(c for c in range(52) if c not in batch.legal_actions(4))
    with pytest.raises(IllegalActionError, match="table 4"):
        batch.step(actions)
    _assert_clean(differential(batch.rules, 6, 12, 11, batch=batch))
    # Guard: had the step moved the tables, the same run would see it.
    moved = GameBatch(6, "online")
    moved.reset(11)
    moved.step(np.full(6, 52))
    assert differential(moved.rules, 6, 12, 11, batch=moved).bad_hands >= 6


def test_an_illegal_action_names_its_card_and_the_legal_cards() -> None:
    batch = _started(2)  # declaration: the legal set holds DONE and the exposable cards held
    legal = batch.legal_actions(1)
    bad = next(c for c in range(52) if c not in legal)
    pattern = (rf"table 1: {card_str(bad)} \({bad}\) is not legal for seat \d in the declare "
               rf"phase; legal actions: \[.*DONE\]")
    with pytest.raises(IllegalActionError, match=pattern):
        batch.step(np.array([52, bad]))


def test_unsigned_actions_out_of_range_are_not_wrapped() -> None:
    batch = _started(2)
    with pytest.raises(IllegalActionError, match="table 0"):
        batch.step(np.array([2**64 - 1, 52], dtype=np.uint64))
    batch.step(np.array([52, 52], dtype=np.uint8))


@pytest.mark.parametrize("rules", [Rules.preset("two_decks"), Rules(decks=2, team_play=False)])
def test_one_class_plays_two_decks_too(rules: Rules) -> None:
    batch = GameBatch(4, rules)
    assert isinstance(batch, GameBatch) and repr(batch).startswith("GameBatch(")
    assert batch.action_masks.shape == (4, 105) and batch.num_seats == 4
    batch.reset(2)
    for _ in range(120):  # past the end of the first hand of every table
        batch.step(batch.sample_legal(np.full(4, 0.5)))
    assert min(batch.hands_started(t) for t in range(4)) >= 2


def test_every_covered_value_is_accepted() -> None:
    for name, values in COVERED.items():
        for value in values:
            options = {name: value}
            if name == "pig_sheep_team" and value:
                options["declaration"] = "none"
            assert check_covered(Rules.from_dict(options)).to_dict()[name] == value


def test_options_that_change_no_hand_are_accepted() -> None:
    rules = Rules(settlement_multiplier=1, match_threshold=-500, double_pig=True,
                  settlement="yuanbao", match_end="either", next_leader="biggest_loser")
    assert check_covered(rules) is rules
    for name in PRESET_NAMES:
        assert check_covered(name) == Rules.preset(name)


@pytest.mark.parametrize("kwargs, error", [
    ({"num_tables": 0}, ValueError), ({"num_tables": 2.0}, TypeError),
    ({"num_tables": True}, TypeError), ({"num_tables": 2, "reward_mode": "team"}, ValueError),
    ({"num_tables": 2, "reward_scale": 0}, ValueError),
])
def test_bad_batch_arguments_are_refused(kwargs, error) -> None:
    with pytest.raises(error):
        GameBatch(**kwargs)


def test_a_batch_too_big_for_memory_is_refused_with_the_bound_and_why() -> None:
    for n in (10**9, np.int64(MAX_TABLES + 1)):
        with pytest.raises(ValueError, match=r"num_tables must be at most 1,048,576 .*2\.8 KB"):
            GameBatch(n)


def test_numpy_integers_are_sizes_and_seeds() -> None:
    a, b = GameBatch(np.int16(3)), GameBatch(3)
    a.reset(np.uint64(8))
    b.reset(8)
    assert a.num_tables == 3 and type(a.num_tables) is int
    assert np.array_equal(a.snapshot(), b.snapshot())
    assert a.deal_of(np.int64(2)) == deal(np.int32(8), 2, np.uint8(0))


def test_step_before_reset_and_bad_seeds_are_refused() -> None:
    batch = GameBatch(2)
    with pytest.raises(RuntimeError, match="reset"):
        batch.step(np.zeros(2, dtype=np.int64))
    for seed in (-1, 1.5, None, 2**63):
        with pytest.raises((TypeError, ValueError), match="seed"):
            batch.reset(seed)  # type: ignore[arg-type]


def test_importing_gongzhu_env_does_not_import_numba() -> None:
    code = ("import sys, gongzhu_env, gongzhu_env.env, gongzhu_env.engine; "
            "print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------ active tables, snapshots
def _random_actions(batch: GameBatch, rng: np.random.Generator) -> np.ndarray:
    return batch.sample_legal(rng.random(batch.num_tables))


def test_inactive_tables_keep_their_position_and_outputs_and_their_actions_are_not_read() -> None:
    held, free = GameBatch(4, "standard"), GameBatch(4, "standard")
    held.reset(3)
    free.reset(3)
    rng = np.random.default_rng(1)
    for _ in range(5):
        a = _random_actions(held, rng)
        held.step(a)
        free.step(a)
    active = np.array([True, False, True, False])
    saved = held.observations[1].copy(), held.action_masks[3].copy(), held.snapshot()
    a = _random_actions(held, rng)
    a[1], a[3] = -7, 999  # not read: illegal values at inactive tables raise nothing
    held.step(a, active)
    assert np.array_equal(held.observations[1], saved[0])
    assert np.array_equal(held.action_masks[3], saved[1])
    assert np.array_equal(held.snapshot()[[1, 3]], saved[2][[1, 3]])
    assert not held.terminated[[1, 3]].any()
    # The active tables moved exactly as in a batch stepping every table.
    free.step(np.where(active, a, _random_actions(free, np.random.default_rng(0))))
    assert np.array_equal(held.observations[[0, 2]], free.observations[[0, 2]])
    assert not np.array_equal(held.observations[[1, 3]], free.observations[[1, 3]])


def test_inactive_tables_report_no_hand_end() -> None:
    batch = GameBatch(2, "scrofazero", reward_mode="team")  # every hand is exactly 52 plays
    batch.reset(9)
    rng = np.random.default_rng(0)
    for _ in range(51):
        batch.step(_random_actions(batch, rng))
    batch.step(_random_actions(batch, rng), np.array([True, False]))
    assert batch.terminated.tolist() == [True, False]
    assert batch.rewards[1].tolist() == [0, 0, 0, 0] and batch.rewards[0].any()
    batch.step(_random_actions(batch, rng), np.array([False, True]))
    assert batch.terminated.tolist() == [False, True]
    assert [batch.hands_started(i) for i in range(2)] == [2, 2]


@pytest.mark.parametrize("active", [np.ones(3, dtype=np.int64), np.ones(2, dtype=np.bool_),
                                    [True, True, True]])
def test_a_bad_active_mask_is_refused(active) -> None:
    batch = _started()
    with pytest.raises(ValueError, match=r"active must be a bool array of shape \(3,\)"):
        batch.step(_first_legal(batch), active)


def test_an_illegal_action_at_an_active_table_still_changes_nothing() -> None:
    batch = _started(3)
    before = batch.snapshot()
    actions = _first_legal(batch)
    actions[2] = next(c for c in range(53) if c not in batch.legal_actions(2))
    with pytest.raises(IllegalActionError, match="table 2"):
        batch.step(actions, np.array([False, True, True]))
    assert np.array_equal(batch.snapshot(), before)
    assert "table 1" in str(batch.illegal_action_error(1, 51 if 51 not in
                                                        batch.legal_actions(1) else 50))


def test_restore_puts_every_table_and_output_back_and_play_goes_on_the_same() -> None:
    batch = GameBatch(5, "online")
    batch.reset(4)
    rng = np.random.default_rng(2)
    for _ in range(20):
        batch.step(_random_actions(batch, rng))
    snap = batch.snapshot()
    outputs = [batch.observations.copy(), batch.action_masks.copy(), batch.current_player.copy()]
    plan = [np.random.default_rng(5).random(5) for _ in range(80)]
    first = []
    for u in plan:  # across hand ends: the deal streams are part of the snapshot
        batch.step(batch.sample_legal(u))
        first.append((batch.observations.copy(), batch.rewards.copy()))
    assert any(batch.hands_started(i) > 1 for i in range(5))
    batch.restore(snap)
    for a, b in zip(outputs, (batch.observations, batch.action_masks, batch.current_player),
                    strict=True):
        assert np.array_equal(a, b)
    assert not batch.terminated.any() and not batch.rewards.any()
    for u, (obs, rew) in zip(plan, first, strict=True):
        batch.step(batch.sample_legal(u))
        assert np.array_equal(batch.observations, obs) and np.array_equal(batch.rewards, rew)
    with pytest.raises(ValueError, match="snapshot must be an int64 array"):
        batch.restore(snap[:2])


def test_final_observations_are_off_by_default_and_checked_by_the_differential_run() -> None:
    assert GameBatch(2).final_observations is None
    with pytest.raises(TypeError, match="final_observations"):
        GameBatch(2, final_observations=1)  # type: ignore[arg-type]

    class Tampered(GameBatch):
        def step(self, actions, active=None):  # type: ignore[no-untyped-def]
            out = super().step(actions, active)
            if self.terminated[0]:
                self.final_observations[0, 2, 10] = 1.0 - self.final_observations[0, 2, 10]
            return out

    batch = Tampered(2, "standard", final_observations=True)
    batch.reset(0)
    report = differential(batch.rules, 2, 4, 0, batch=batch)
    assert report.bad_hands >= 1
    assert "final observation of seat 2 differs at [10]" in report.messages[0]
