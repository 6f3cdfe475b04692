"""Tables of three to eight players (RULES.md 6.14) and coin settlement (section 5).

The expected removed cards and first-lead cards below are the rule book's own list; the deals
and hands are checked against them, and every other expectation is computed from the rule's
definition in the test.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from gongzhu_env import Rules, env, raw_env
from gongzhu_env.cards import C2, card_str, parse_card, parse_cards
from gongzhu_env.checks import check_hand, play_checked, random_rules
from gongzhu_env.engine import Game
from gongzhu_env.html import game_html
from gongzhu_env.match import Match, match_result
from gongzhu_env.records import record_hand, replay_record
from gongzhu_env.scoring import coin_results, settle, team_results, zero_sum
from gongzhu_env.view import decode, layout, obs_size

SIZES = (3, 4, 5, 6, 7, 8)
# RULES.md 6.14, as the rule book lists them.
REMOVED = {3: "D2", 4: "", 5: "D2 C2", 6: "D2 C2 S2 D3", 7: "D2 C2 S2", 8: "D2 C2 S2 D3"}
LEAD = {3: "C2", 4: "C2", 5: "S2", 6: "C3", 7: "C3", 8: "C3"}
HAND = {3: 17, 4: 13, 5: 10, 6: 8, 7: 7, 8: 6}


def _play_out(game: Game, rng: np.random.Generator) -> Game:
    while not game.is_over():
        legal = game.legal_actions()
        game.step(legal[int(rng.integers(len(legal)))])
    return game


@pytest.mark.parametrize("n", SIZES)
def test_deck_hand_size_and_lead_card_follow_the_rule_book(n: int) -> None:
    rules = Rules(players=n)
    assert [card_str(c) for c in rules.removed_cards] == REMOVED[n].split()
    assert rules.hand_size == HAND[n] and rules.hand_size * n + len(rules.removed_cards) == 52
    assert card_str(rules.lead_card) == LEAD[n]
    assert rules.deck_mask.bit_count() == 52 - len(rules.removed_cards)


@pytest.mark.parametrize("n", SIZES)
def test_every_card_in_play_is_dealt_once_and_the_lead_card_holder_leads_it(n: int) -> None:
    rules = Rules(players=n, declaration="none")
    removed = set(parse_cards(REMOVED[n]))
    lead = parse_card(LEAD[n])
    for seed in range(20):
        g = Game(rules, seed=seed)
        deal = g.deal
        assert len(deal) == n and all(len(h) == HAND[n] for h in deal)
        dealt = sorted(c for h in deal for c in h)
        assert dealt == sorted(set(range(52)) - removed)
        assert lead in deal[g.first_leader]
        assert g.current_player == g.first_leader
        assert g.legal_actions() == [lead]


@pytest.mark.parametrize("n", SIZES)
def test_declaration_goes_round_every_seat_before_the_lead(n: int) -> None:
    g = Game(Rules(players=n), seed=n)
    order = []
    while g.phase == "declare":
        order.append(g.current_player)
        g.step(g.rules.done_action)
    assert order == [(g.first_leader + i) % n for i in range(n)]
    assert g.declared_seats == (1 << n) - 1
    assert g.legal_actions() == [g.rules.lead_card]


@pytest.mark.parametrize("n", SIZES)
def test_random_hands_keep_every_invariant(n: int) -> None:
    rng = np.random.default_rng(100 + n)
    for _ in range(60):
        rules = random_rules(rng, decks=1, players=n)
        game = Game(rules, rng=rng)
        play_checked(game, rng)
        check_hand(game)


def test_play_passes_to_the_next_seat_and_the_trick_has_a_card_per_seat() -> None:
    rng = np.random.default_rng(5)
    g = _play_out(Game(Rules(players=5, declaration="none"), seed=5), rng)
    for t in g.tricks:
        assert len(t.cards) == 5
        led = t.cards[0] // 13
        best = max(c for c in t.cards if c // 13 == led)
        assert t.winner == (t.leader + t.cards.index(best)) % 5
    assert len(g.tricks) == 10 and len(g.scores()) == 5


def test_free_first_lead_at_five_players() -> None:
    g = Game(Rules(players=5, declaration="none", first_lead="any"), seed=2)
    assert parse_card("S2") in g.deal[g.first_leader]
    assert g.legal_actions() == list(g.hands[g.first_leader])


def test_a_scripted_three_player_deal() -> None:
    # Seat 0 holds C2 (the lead card at three) and every heart; the others split the rest.
    rules = Rules(players=3, declaration="none")
    rest = [c for c in range(52) if card_str(c) != "D2" and c // 13 != 2 and c != C2]
    hands = [[C2, *range(26, 39), *rest[:3]], rest[3:20], rest[20:37]]
    g = Game.from_hands(hands, rules)
    assert g.first_leader == 0 and g.legal_actions() == [C2]
    _play_out(g, np.random.default_rng(0))
    check_hand(g)


def test_team_play_pairs_opposite_seats() -> None:
    for n in (4, 6, 8):
        rules = Rules(players=n, team_play=True)
        assert rules.fixed_teams == tuple((i, i + n // 2) for i in range(n // 2))
        g = Game(rules, seed=1)
        assert g.teams == rules.fixed_teams
        assert g.partners(0) == (n // 2,)
        assert g.view(1).partners == (1 + n // 2,)


# ---------------------------------------------------------------- settlement
def test_coin_settlement_example_and_ties() -> None:
    coin = Rules(settlement="yuanbao", settlement_multiplier=1)
    assert settle([100, 0, -200, -200], coin) == [700, -100, -300, -300]
    # Two top scorers split each payment: the two below pay 300 each, 600 split two ways.
    assert settle([100, 100, -200, -200], coin) == [300, 300, -300, -300]
    # Three top scorers and a share that is not whole: 301 split three ways stays exact.
    shares = settle([100, 100, 100, -201], coin)
    assert shares == [Fraction(301, 3)] * 3 + [-301] and sum(shares) == 0
    # The room multiplier scales every payment.
    assert settle([100, 0, -200, -200], Rules(settlement="yuanbao", settlement_multiplier=5)) \
        == [3500, -500, -1500, -1500]
    # Everyone level: nobody pays.
    assert coin_results([-50, -50, -50]) == [0, 0, 0]


@pytest.mark.parametrize("n", (3, 5, 7))
def test_coin_settlement_at_other_sizes_sums_to_zero(n: int) -> None:
    rng = np.random.default_rng(n)
    rules = Rules(players=n, settlement="yuanbao", settlement_multiplier=2)
    for _ in range(50):
        raw = [int(v) for v in rng.integers(-40, 40, size=n) * 10]
        out = settle(raw, rules)
        top = max(raw)
        assert sum(out) == 0
        for s, v in zip(raw, out, strict=True):
            assert v == (Fraction(2 * sum(top - x for x in raw), raw.count(top)) if s == top
                         else 2 * (s - top))


def test_zero_sum_at_three_and_five_players() -> None:
    # Three: raw_i minus the mean of the other two.
    assert settle([10, -50, 40], Rules(players=3)) == [
        round(10 - (-50 + 40) / 2) * 12, round(-50 - (10 + 40) / 2) * 12,
        round(40 - (10 - 50) / 2) * 12]
    assert settle([10, -50, 40], Rules(players=3)) == [180, -900, 720]
    # Five: raw_i minus the mean of the other four. The raw scores sum to 0, so each result
    # is 5/4 of the raw score: -125, 0, -31.25, 250, -93.75.
    raw = [-100, 0, -25, 200, -75]
    assert zero_sum(raw) == [s - (sum(raw) - s) / 4 for s in raw]
    assert settle(raw, Rules(players=5, settlement_multiplier=1)) == [-125, 0, -31, 250, -94]
    assert abs(sum(zero_sum(raw))) < 1e-9


def test_team_settlement_with_three_teams() -> None:
    rules = Rules(players=6, team_play=True, settlement_multiplier=1)
    raw = [10, -50, 40, 0, 0, -100]
    sums = [raw[0] + raw[3], raw[1] + raw[4], raw[2] + raw[5]]  # 10, -50, -60
    expected = [(sums[s % 3] - (sum(sums) - sums[s % 3]) / 2) / 2 for s in range(6)]
    assert team_results(raw, rules.fixed_teams) == expected
    # (10 + 55) / 2 = 32.5, (-50 + 25) / 2 = -12.5, (-60 + 20) / 2 = -20: halves round away
    # from zero.
    assert settle(raw, rules) == [33, -13, -20, 33, -13, -20]


def test_match_results_at_five_and_six_players() -> None:
    assert match_result([-1000, 50, 50, 0, 10], Rules(players=5)) == ((1, 2), (0,))
    assert match_result([-1000, 50, 50, 0, 10], Rules(players=5, double_pig=True)) == \
        ((3, 4), (0, 1, 2))
    six = Rules(players=6, team_play=True)
    # Team sums: (0, 3) = -900, (1, 4) = 100, (2, 5) = 40.
    assert match_result([-1000, 50, 40, 100, 50, 0], six) == ((1, 4), (0, 3))
    m = Match(Rules(players=3), seed=0)
    assert m.cumulative == [0, 0, 0]


# ---------------------------------------------------------------- environment
@pytest.mark.parametrize("n", SIZES)
def test_api_and_seed_tests_pass(n: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(rules=Rules(players=n)), num_cycles=100)
        seed_test(lambda: env(rules=Rules(players=n)), num_cycles=30)


@pytest.mark.parametrize("n", (3, 5, 8))
def test_env_agents_observations_and_rewards(n: int) -> None:
    e = raw_env(rules=Rules(players=n), reward_mode="zero_sum")
    e.reset(seed=3)
    assert e.possible_agents == [f"player_{i}" for i in range(n)]
    size = obs_size(Rules(players=n))
    rng = np.random.default_rng(0)
    while not all(e.terminations.values()):
        obs = e.observe(e.agent_selection)
        assert obs["observation"].shape == (size,) and obs["action_mask"].shape == (53,)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    raw = e.infos["player_0"]["scores"]
    assert len(raw) == n
    assert [e.rewards[a] for a in e.possible_agents] == pytest.approx(zero_sum(raw))


def test_observation_layout_seats_are_relative_in_play_order() -> None:
    rules = Rules(players=5, declaration="none")
    g = Game(rules, seed=4)
    leader = g.first_leader
    g.step(g.legal_actions()[0])  # the leader plays S2
    names = [name for name, _, _ in layout(rules)]
    assert names[:4] == ["phase", "hand", "to_move", "trick_leader"]
    for me in range(5):
        blocks = decode(g.view(me).encode(), rules)
        assert blocks["trick_leader"].shape == (5,)
        assert blocks["trick_leader"][(leader - me) % 5] == 1
        assert blocks["trick_cards"][(leader - me) % 5, parse_card("S2")] == 1
        assert blocks["to_move"][(leader + 1 - me) % 5] == 1
        assert blocks["trick_number"].shape == (10,) and blocks["trick_number"][0] == 1
        assert blocks["hand"].sum() == 10 - (me == leader)


def test_four_player_layout_is_unchanged() -> None:
    assert obs_size(Rules()) == 600
    assert obs_size(Rules(players=4, team_play=True)) == 604
    assert obs_size(Rules(players=3)) == 3 + 52 + 3 * (1 + 1 + 52 + 52 + 4 + 16 + 4 + 1 + 1 + 1) \
        + 17


def test_render_html_and_records_at_seven_seats() -> None:
    rules = Rules(players=7)
    g = _play_out(Game(rules, seed=7), np.random.default_rng(7))
    e = raw_env(rules=rules, render_mode="ansi")
    e.reset(seed=7)
    text = e.render()
    assert text.count("\n") >= 8 and "trick 1/7" in text
    html = game_html(g)
    assert html.count("<tr>") == 1 + 7
    again = replay_record(record_hand(g))
    assert again.scores() == g.scores() and again.deal == g.deal


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("bad, match", [
    ({"players": 2}, "players"),
    ({"players": 9}, "players"),
    ({"players": 4.0}, "players"),
    ({"players": 5, "team_play": True}, "even number of players"),
    ({"players": 3, "decks": 2}, "decks=2"),
    ({"players": 6, "pig_sheep_team": True, "declaration": "none"}, "pig_sheep_team"),
    ({"settlement": "coins"}, "settlement"),
    ({"settlement": "yuanbao", "team_play": True}, "yuanbao"),
])
def test_bad_table_options_are_refused(bad: dict, match: str) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        Rules(**bad)


def test_bad_deals_are_refused_with_the_reason() -> None:
    four = Game(Rules(), seed=0).deal
    with pytest.raises(ValueError, match="five hands of 10 cards"):
        Game.from_hands(four, Rules(players=5))
    five = [list(h) for h in Game(Rules(players=5), seed=0).deal]
    holder = next(i for i, h in enumerate(five) if parse_card("S3") in h)
    five[holder][five[holder].index(parse_card("S3"))] = parse_card("D2")
    with pytest.raises(ValueError, match="D2 is not in the deck at 5 players"):
        Game.from_hands(five, Rules(players=5))
    with pytest.raises(ValueError, match="five raw scores"):
        settle([0, 0, 0, 0], Rules(players=5))
    with pytest.raises(ValueError, match="seat must be 0..2"):
        Game(Rules(players=3), seed=0).view(3)
    with pytest.raises(ValueError, match="leader must be a seat 0..4"):
        Game(Rules(players=5), seed=0, leader=5)


def test_the_any_size_encoder_matches_the_four_seat_one() -> None:
    # The four-seat encoder is the unrolled form of the any-size one: same bits at four.
    from gongzhu_env.view import _PHASE_INDEX, _obs_bits, _obs_bits_table, _table

    rng = np.random.default_rng(11)
    four = _table(4)
    for _ in range(20):
        g = Game(random_rules(rng, decks=1), rng=rng)
        while not g.is_over():
            for seat in range(4):
                v = g.view(seat)
                args = (seat, _PHASE_INDEX[v.phase], v.current_player, v.hand_mask,
                        v.trick_leader, v.current_trick, len(v.tricks), v.played_masks,
                        v.exposed_masks, v.captured_masks, v.void_masks, v.declared_seats,
                        v.first_leader)
                assert _obs_bits_table(four, *args) == _obs_bits(*args)
            legal = g.legal_actions()
            g.step(legal[int(rng.integers(len(legal)))])


# ---------------------------------------------------------------- the worked deals of docs/rules.md
def _lowest_card_hand(rules: Rules, seed: int) -> Game:
    """The script of docs/rules.md section 8: declare nothing, then play the lowest legal card."""
    g = Game(rules, seed=seed)
    while not g.is_over():
        g.step(rules.done_action if g.phase == "declare" else g.legal_actions()[0])
    return g


def _doc_hands(section: str) -> list[list[int]]:
    from pathlib import Path

    from tests.gongzhu_cli.session import read_hand

    text = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text("utf-8")
    block = text.split(section, 1)[1].split("```", 2)[1]
    return [sorted(read_hand(line.split(":", 1)[1])) for line in block.strip().splitlines()]


def test_the_three_player_worked_deal() -> None:
    rules = Rules(players=3)
    g = _lowest_card_hand(rules, seed=1)
    assert [sorted(h) for h in g.deal] == _doc_hands("### 8.1")
    assert g.first_leader == 1
    assert [card_str(c) for c in g.tricks[0].cards] == ["C2", "C4", "C5"]
    assert g.tricks[0].winner == 0 and g.tricks[1].cards[0] == parse_card("C8")
    assert g.captured[0] == tuple(sorted(parse_cards("C10 DJ SQ H3 H8 H9 HQ HA")))
    assert g.captured[1] == tuple(parse_cards("H7 H10"))
    assert g.scores() == [-200, -20, -80]
    assert settle(g.scores(), rules) == [-1800, 1440, 360]
    coin = Rules(players=3, settlement="yuanbao", settlement_multiplier=1)
    assert settle(g.scores(), coin) == [-180, 240, -60]


def test_the_five_player_worked_deal() -> None:
    rules = Rules(players=5)
    g = _lowest_card_hand(rules, seed=3)
    assert [sorted(h) for h in g.deal] == _doc_hands("### 8.2")
    assert g.first_leader == 2
    assert [card_str(c) for c in g.tricks[0].cards] == ["S2", "S7", "SQ", "S4", "S5"]
    assert g.tricks[0].winner == 4
    assert g.captured[0] == (parse_card("C10"),) and g.captured[2] == ()
    assert g.scores() == [50, 30, 0, -20, -210]
    assert settle(g.scores(), rules) == [1200, 900, 456, 156, -2700]
    coin = Rules(players=5, settlement="yuanbao", settlement_multiplier=1)
    assert settle(g.scores(), coin) == [400, -20, -50, -70, -260]
