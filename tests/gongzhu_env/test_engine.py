"""The game state machine on scripted deals: declaration, each play rule, errors, replay, seeds.

Each scripted deal is written so the rule under test is the only thing that decides the legal
set; expected legal sets are read off RULES.md section 3 by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from gongzhu_env import Game, IllegalActionError, Rules
from gongzhu_env.cards import DONE, card_str, parse_cards
from gongzhu_env.scoring import score_hand
from tests.helpers import finish_declaration, make_deal, random_playout, snapshot


def cards(text: str) -> list[int]:
    return parse_cards(text)


# D1: seat 0 has no exposable card; seat 1 all high clubs with C10; seat 2 the diamond
# honours with DJ and nine hearts with HA; seat 3 every spade with SQ.
D1 = make_deal(
    "C2 C3 C4 C5 C6 C7 C8 C9 D2 D3 D4 D5 D6",
    "C10 CJ CQ CK CA D7 D8 D9 D10 H2 H3 H4 H5",
    "DJ DQ DK DA H6 H7 H8 H9 H10 HJ HQ HK HA",
    "S2 S3 S4 S5 S6 S7 S8 S9 S10 SJ SQ SK SA",
)


def d1() -> Game:
    return Game.from_hands(D1)


# ------------------------------------------------------------------ declaration
def test_declaration_order_and_actions() -> None:
    g = d1()
    assert g.phase == "declare" and g.current_player == 0 and g.first_leader == 0
    # Seat 0 holds no exposable card and still gets a turn, where only DONE is legal.
    assert g.legal_actions() == [DONE]
    g.step(DONE)
    assert g.current_player == 1 and g.legal_actions() == [*cards("C10"), DONE]
    g.step(cards("C10")[0])
    # Exposing does not end the turn; the exposed card is no longer offered.
    assert g.current_player == 1 and g.legal_actions() == [DONE]
    assert g.exposed[1] == tuple(cards("C10"))
    g.step(DONE)
    assert g.current_player == 2 and g.legal_actions() == [*cards("DJ HA"), DONE]
    g.step(DONE)
    assert g.current_player == 3 and g.legal_actions() == [*cards("SQ"), DONE]
    g.step(DONE)
    # Once round: play starts with the C2 holder, who must lead C2.
    assert g.phase == "play" and g.current_player == 0
    assert g.legal_actions() == cards("C2")
    assert g.declarations == ((1, cards("C10")[0]),)


def test_declaration_starts_at_the_c2_holder_and_goes_round_once() -> None:
    # Rotate D1 so that seat 2 holds C2.
    hands = [D1[2], D1[3], D1[0], D1[1]]
    g = Game.from_hands(hands)
    order = []
    while g.phase == "declare":
        order.append(g.current_player)
        g.step(DONE)
    assert order == [2, 3, 0, 1]
    assert g.current_player == 2 and g.legal_actions() == cards("C2")


def test_auto_exposure_of_the_fourth_card() -> None:
    g = finish_declaration(d1(), ["C10", "DJ", "SQ"])
    # Seat 2 kept HA back; three of four exposed, so HA is exposed by its holder.
    assert g.exposed == ((), tuple(cards("C10")), tuple(cards("DJ HA")), tuple(cards("SQ")))
    assert g.declarations[-1] == (2, cards("HA")[0])
    # With HA exposed every heart is doubled for its taker.
    assert score_hand(cards("H5"), cards("HA")) == -20
    g.step(cards("C2")[0])
    g.step(cards("CA")[0])  # seat 1 will win the trick
    g.step(cards("H6")[0])
    g.step(cards("S2")[0])
    assert g.current_player == 1
    g.step(cards("H2")[0])  # first heart trick
    # The auto-exposed HA carries the play restriction: not on the first heart trick.
    assert g.legal_actions() == cards("H7 H8 H9 H10 HJ HQ HK")


def test_two_exposed_cards_expose_nothing_more() -> None:
    g = finish_declaration(d1(), ["C10", "SQ"])
    assert g.exposed == ((), tuple(cards("C10")), (), tuple(cards("SQ")))
    assert len(g.declarations) == 2


def test_all_four_exposed_and_none_exposed() -> None:
    g = finish_declaration(d1(), ["C10", "DJ", "HA", "SQ"])
    assert sorted(c for e in g.exposed for c in e) == sorted(cards("C10 DJ HA SQ"))
    g = finish_declaration(d1())
    assert g.exposed == ((), (), (), ())


# ------------------------------------------------------------------ play rules
def test_follow_suit_discard_and_winner_leads() -> None:
    g = finish_declaration(d1())
    g.step(cards("C2")[0])
    # Seat 1 must follow clubs.
    assert g.legal_actions() == cards("C10 CJ CQ CK CA")
    g.step(cards("CQ")[0])
    # Seat 2 has no club: any card may be discarded, the exposable ones included.
    assert g.legal_actions() == sorted(D1[2])
    g.step(cards("DJ")[0])
    assert g.legal_actions() == sorted(D1[3])
    g.step(cards("SQ")[0])
    # Discards never win; CQ was the highest club.
    assert g.tricks[-1].winner == 1 and g.tricks[-1].leader == 0
    assert g.tricks[-1].cards == tuple(cards("C2 CQ DJ SQ"))
    assert g.captured[1] == tuple(sorted(cards("DJ SQ")))
    assert g.current_player == 1 and g.current_trick == (1, ())
    # The winner leads anything it holds.
    assert g.legal_actions() == sorted(set(D1[1]) - set(cards("CQ")))


def test_exposed_card_restriction_when_following_and_leading() -> None:
    g = finish_declaration(d1(), ["C10", "DJ", "HA", "SQ"])
    g.step(cards("C2")[0])
    # C10 exposed, clubs' first trick, seat 1 has other clubs: C10 is barred.
    assert g.legal_actions() == cards("CJ CQ CK CA")
    with pytest.raises(IllegalActionError):
        g.step(cards("C10")[0])
    g.step(cards("CA")[0])
    # An exposed card may be discarded on a trick of another suit.
    assert cards("DJ")[0] in g.legal_actions() and cards("HA")[0] in g.legal_actions()
    g.step(cards("H6")[0])
    assert cards("SQ")[0] in g.legal_actions()
    g.step(cards("S2")[0])
    assert g.current_player == 1
    # Clubs have been led once: seat 1 may now lead its exposed C10.
    assert cards("C10")[0] in g.legal_actions()
    g.step(cards("D7")[0])  # the first diamond trick
    # Seat 2 follows diamonds but not with its exposed DJ.
    assert g.legal_actions() == cards("DQ DK DA")
    g.step(cards("DA")[0])
    g.step(cards("S3")[0])
    assert g.legal_actions() == cards("D2 D3 D4 D5 D6")
    g.step(cards("D2")[0])
    assert g.current_player == 2
    # Leading: diamonds have been led, so DJ is free; hearts have not, so HA is barred.
    legal = g.legal_actions()
    assert cards("DJ")[0] in legal and cards("HA")[0] not in legal
    assert legal == cards("DJ DQ DK H7 H8 H9 H10 HJ HQ HK")


def test_exposed_restriction_is_gone_on_the_second_trick_of_the_suit() -> None:
    hands = make_deal("C2 C3 C4 C5", "CA CQ", "C10 CJ C9", "")
    g = finish_declaration(Game.from_hands(hands), ["C10"])
    g.step(cards("C2")[0])
    g.step(cards("CA")[0])
    assert g.legal_actions() == cards("C9 CJ")
    g.step(cards("CJ")[0])
    g.step(g.legal_actions()[0])
    assert g.current_player == 1
    g.step(cards("CQ")[0])  # the second club trick
    assert g.legal_actions() == cards("C9 C10")


def test_only_card_exception_when_following() -> None:
    # Seat 1's only club is the exposed C10: it must (and may) play it to the first club trick.
    hands = make_deal("C2 C3 C4 C5 C6 C7 C8 C9 CJ CQ CK CA", "C10", "", "")
    g = finish_declaration(Game.from_hands(hands), ["C10"])
    g.step(cards("C2")[0])
    assert g.legal_actions() == cards("C10")


def test_only_card_exception_when_leading() -> None:
    # A free first lead (leader=) lets seat 1 lead before any spade trick.
    alone = make_deal("C2", "SQ H2 H3", "S2 S3 S4", "")
    g = finish_declaration(Game.from_hands(alone, leader=1), ["SQ"])
    assert g.current_player == 1 and cards("SQ")[0] in g.legal_actions()
    not_alone = make_deal("C2", "SQ S5 H2", "S2 S3 S4", "")
    g = finish_declaration(Game.from_hands(not_alone, leader=1), ["SQ"])
    legal = g.legal_actions()
    assert cards("SQ")[0] not in legal and cards("S5")[0] in legal


def test_forced_play_of_an_exposed_card_shows_its_holder_out_of_the_suit() -> None:
    # Following: seat 1's only club is its exposed C10; playing it to the first club trick
    # tells everyone it holds no other club.
    hands = make_deal("C2 C3 C4 C5 C6 C7 C8 C9 CJ CQ CK CA", "C10", "", "")
    g = finish_declaration(Game.from_hands(hands), ["C10"])
    g.step(cards("C2")[0])
    g.step(cards("C10")[0])
    assert 0 in g.voids[1]
    # Leading: an exposed SQ can open spades only as its holder's last spade.
    alone = make_deal("C2", "SQ H2 H3", "S2 S3 S4", "")
    g = finish_declaration(Game.from_hands(alone, leader=1), ["SQ"])
    g.step(cards("SQ")[0])
    assert g.voids[1] == frozenset({3})
    # Under exposed_may_lead the same lead proves nothing.
    g = finish_declaration(Game.from_hands(alone, Rules(exposed_may_lead=True), leader=1), ["SQ"])
    g.step(cards("SQ")[0])
    assert g.voids[1] == frozenset()
    # Once its suit has been led the card is free, and playing it says nothing either.
    hands = make_deal("C2 C3 C4 C5", "CA CQ", "C10 CJ C9", "")
    g = finish_declaration(Game.from_hands(hands), ["C10"])
    for card in ("C2", "CA", "CJ"):
        g.step(cards(card)[0])
    g.step(g.legal_actions()[0])
    g.step(cards("CQ")[0])
    g.step(cards("C10")[0])
    assert 0 not in g.voids[2]


def test_leader_option_declares_first_and_leads_freely() -> None:
    g = Game.from_hands(D1, leader=2)
    assert g.first_leader == 2 and g.current_player == 2
    finish_declaration(g)
    assert g.current_player == 2 and g.legal_actions() == sorted(D1[2])
    with pytest.raises(ValueError, match="leader"):
        Game.from_hands(D1, leader=4)


def test_final_scores_equal_score_hand_of_captured() -> None:
    for seed in range(20):
        g = random_playout(Game(seed=seed), np.random.default_rng(seed))
        exposed = [c for e in g.exposed for c in e]
        assert g.scores() == [score_hand(g.captured[s], exposed) for s in range(4)]
        assert g.phase == "over" and g.legal_actions() == []


def test_scores_before_the_end_raise() -> None:
    with pytest.raises(RuntimeError, match="over"):
        d1().scores()


# ------------------------------------------------------------------ illegal actions
def _assert_rejected(g: Game, action: object, *needles: str) -> str:
    before = snapshot(g)
    with pytest.raises(IllegalActionError) as err:
        g.step(action)  # type: ignore[arg-type]
    assert snapshot(g) == before
    msg = str(err.value)
    for n in needles:
        assert n in msg, f"{n!r} not in {msg!r}"
    return msg


def test_illegal_card_in_play_names_phase_card_and_legal_set() -> None:
    g = finish_declaration(d1(), ["C10"])
    g.step(cards("C2")[0])
    _assert_rejected(g, cards("C10")[0], "play", "C10", "[CJ, CQ, CK, CA]")
    _assert_rejected(g, cards("D7")[0], "play", "D7", "[CJ, CQ, CK, CA]")
    # A card the seat does not hold.
    _assert_rejected(g, cards("SA")[0], "play", "SA", "does not hold")
    assert isinstance(IllegalActionError("x"), ValueError)


def test_done_in_play_is_illegal() -> None:
    g = finish_declaration(d1())
    _assert_rejected(g, DONE, "play", "DONE", "[C2]")


def test_bad_declarations() -> None:
    g = d1()
    g.step(DONE)
    # Seat 1: SQ is exposable but not held; CA is held but not exposable.
    _assert_rejected(g, cards("SQ")[0], "declare", "SQ", "[C10, DONE]")
    _assert_rejected(g, cards("CA")[0], "declare", "CA", "[C10, DONE]")
    g.step(cards("C10")[0])
    # Exposing the same card twice.
    _assert_rejected(g, cards("C10")[0], "declare", "C10", "[DONE]")


@pytest.mark.parametrize("bad", [53, -1, 1000, 1.0, 0.5, None, True, False, "C2", np.float32(0)])
def test_malformed_actions(bad: object) -> None:
    g = finish_declaration(d1())
    _assert_rejected(g, bad, "play", "[C2]", repr(bad))


def test_numpy_integer_actions_are_accepted() -> None:
    g = finish_declaration(d1())
    g.step(np.int64(cards("C2")[0]))  # type: ignore[arg-type]
    assert g.actions[-1] == 0 and type(g.actions[-1]) is int


def test_stepping_after_the_hand_is_over() -> None:
    g = random_playout(Game(seed=3), np.random.default_rng(3))
    for a in (0, DONE, None):
        _assert_rejected(g, a, "over")


# ------------------------------------------------------------------ deals
@pytest.mark.parametrize(
    ("hands", "needle"),
    [
        (D1[:3], "four hands"),
        ([D1[0][:12], D1[1], D1[2], D1[3] + [D1[0][12]]], "12 cards"),
        ([D1[0] + [D1[3][0]], D1[1], D1[2], D1[3][1:]], "14 cards"),
        ([D1[0], D1[1], D1[2][:12] + [D1[0][0]], D1[3]], "twice"),
        ([D1[0], D1[1], D1[2][:12] + [D1[2][0]], D1[3]], "twice"),
        ([D1[0][:12] + [52], D1[1], D1[2], D1[3]], "out of range"),
        ([D1[0][:12] + [-1], D1[1], D1[2], D1[3]], "out of range"),
        ([D1[0][:12] + ["ZZ"], D1[1], D1[2], D1[3]], "ZZ"),
        ([D1[0][:12] + [1.5], D1[1], D1[2], D1[3]], "1.5"),
        (["C2 C3", D1[1], D1[2], D1[3]], "string"),
        ("C2 C3", "four hands"),
    ],
)
def test_from_hands_rejects_bad_deals(hands: object, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        Game.from_hands(hands)  # type: ignore[arg-type]


def test_from_hands_missing_card() -> None:
    # Thirteen cards per seat but one card of the deck given to nobody: 12 + a missing card.
    short = [list(h) for h in D1]
    short[3] = short[3][:12]
    with pytest.raises(ValueError, match="seat 3 has 12"):
        Game.from_hands(short)


def test_from_hands_accepts_text_and_numpy_ints() -> None:
    g1 = Game.from_hands([[card_str(c) for c in h] for h in D1])
    g2 = Game.from_hands([np.array(h) for h in D1])
    assert g1.hands == g2.hands == tuple(tuple(sorted(h)) for h in D1)


# ------------------------------------------------------------------ replay, clone, seeds
def test_replay_reproduces_a_game() -> None:
    for seed in range(5):
        g = random_playout(Game(seed=seed), np.random.default_rng(100 + seed))
        r = Game.replay(g.deal, g.actions)
        assert r.tricks == g.tricks and r.exposed == g.exposed
        assert r.captured == g.captured and r.scores() == g.scores()


def test_replay_of_an_illegal_sequence_says_where() -> None:
    with pytest.raises(IllegalActionError, match="#1"):
        Game.replay(D1, [DONE, cards("SA")[0]])


def test_clone_is_independent() -> None:
    g = random_playout(Game(seed=7), np.random.default_rng(7), stop_after=20)
    c = g.clone()
    before = snapshot(g)
    random_playout(c, np.random.default_rng(1))
    assert snapshot(g) == before and c.is_over()
    c2 = g.clone()
    random_playout(g, np.random.default_rng(2))
    assert len(c2.actions) == 20 and c2.hands != g.hands


def test_same_seed_same_deal_and_game() -> None:
    assert Game(seed=11).deal == Game(seed=11).deal
    assert Game(seed=11).deal != Game(seed=12).deal
    a = random_playout(Game(seed=11), np.random.default_rng(5))
    b = random_playout(Game(seed=11), np.random.default_rng(5))
    assert a.actions == b.actions and a.scores() == b.scores()
    rng1, rng2 = np.random.default_rng(9), np.random.default_rng(9)
    assert [Game(rng=rng1).deal for _ in range(3)] == [Game(rng=rng2).deal for _ in range(3)]
    with pytest.raises(ValueError, match="either"):
        Game(seed=1, rng=np.random.default_rng(1))


def test_deal_is_four_disjoint_hands_of_thirteen() -> None:
    g = Game(seed=0)
    assert all(len(h) == 13 for h in g.deal)
    assert sorted(c for h in g.deal for c in h) == list(range(52))


def test_clone_copies_every_slot_and_shares_no_mutable_state() -> None:
    game = random_playout(Game(Rules(first_drawn_exposure=True, team_play=True), seed=3),
                          np.random.default_rng(3), stop_after=30)
    copy = game.clone()
    for name in Game.__slots__:
        mine, theirs = getattr(game, name), getattr(copy, name)
        assert mine == theirs, name
        if isinstance(mine, list):
            assert mine is not theirs, f"{name} is shared between a game and its clone"
    # Guard: a slot left out of clone() would be missing on the copy.
    bare = Game.__new__(Game)
    with pytest.raises(AttributeError):
        getattr(bare, Game.__slots__[1])
