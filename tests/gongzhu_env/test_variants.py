"""Rule variants of RULES.md section 6 and team play: validation, scripted deals, scoring.

Every expected value here is worked out by hand from RULES.md and the variant readings in the
``gongzhu_env.rules`` module docstring, not copied from the engine's output.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gongzhu_env import Game, IllegalActionError, Rules
from gongzhu_env.cards import DONE, parse_cards
from gongzhu_env.match import Match
from gongzhu_env.rules import PRESETS
from gongzhu_env.scoring import score_hand, settle, team_results
from gongzhu_env.view import HIDDEN_ACTION, OBS_SIZE, decode, obs_size
from tests.helpers import finish_declaration, make_deal, random_playout


def c(text: str) -> int:
    return parse_cards(text)[0]


def cs(text: str) -> set[int]:
    return set(parse_cards(text))


# Seat 0 leads freely (leader=0) holding SQ with other spades; seat 1 is void in clubs.
LEAD_DEAL = make_deal(
    "SQ S2 S3 C3 C4 C5 C6 C7 C8 C9 D2 D3 D4",
    "HA H2 H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK",
    "C2 C10 CJ CQ CK CA DJ D5 D6 D7 D8 D9 D10",
    "S4 S5 S6 S7 S8 S9 S10 SJ SK SA DQ DK DA",
)


def lead_game(rules: Rules | str, expose: tuple[str, ...] = ("SQ",)) -> Game:
    return finish_declaration(Game.from_hands(LEAD_DEAL, rules, leader=0), expose)


# ------------------------------------------------------------------ validation and presets
def test_presets_have_their_documented_options() -> None:
    assert Rules.preset("huapai").strict_exposure
    assert Rules.preset("online").exposed_may_lead
    sz = Rules.preset("scrofazero")
    assert sz.team_play and sz.declaration == "none" and sz.first_lead == "any"
    assert Rules.preset("all_but_sheep").declaration == "all_but_sheep"
    for name in PRESETS:
        r = Rules.preset(name)
        assert Rules.from_dict(r.to_dict()) == r
        assert r.is_standard == (name == "standard")


@pytest.mark.parametrize(("options", "named"), [
    ({"declaration": "all", "pig_sheep_team": True}, "pig_sheep_team"),
    ({"declaration": "all_but_sheep", "pig_sheep_team": True}, "declaration"),
    ({"exposed_may_lead": True, "strict_exposure": True}, "strict_exposure"),
    ({"hidden_exposure": True, "declaration": "none"}, "hidden_exposure"),
    ({"first_drawn_exposure": True, "declaration": "none"}, "first_drawn_exposure"),
    ({"team_play": True, "pig_sheep_team": True, "declaration": "none"}, "team_play"),
    ({"auto_expose": False, "declaration": "all"}, "auto_expose"),
    ({"double_pig": True, "team_play": True}, "double_pig"),
])
def test_contradictions_are_refused_naming_the_options(options: dict, named: str) -> None:
    with pytest.raises(ValueError, match="contradictory") as err:
        Rules(**options)
    assert named in str(err.value)


@pytest.mark.parametrize(("name", "bad"), [
    ("strict_exposure", 1), ("first_lead", "c2"), ("declaration", "some"),
    ("hearts_table", "negative"), ("match_threshold", 0), ("match_threshold", 100),
    ("team_play", "yes"), ("match_threshold", -10.0),
])
def test_bad_values_name_the_option(name: str, bad: object) -> None:
    with pytest.raises((TypeError, ValueError), match=name):
        Rules(**{name: bad})


def test_unknown_preset() -> None:
    with pytest.raises(ValueError, match="known presets"):
        Rules.preset("scrofa")


def test_from_hands_rejects_bools_as_cards() -> None:
    hands = [list(h) for h in LEAD_DEAL]
    hands[1][1] = True  # would be index 1 (C3) if bools passed as ints
    with pytest.raises(ValueError, match="bool"):
        Game.from_hands(hands)


# ------------------------------------------------------------------ 6.1 / 6.2 / 6.3 legality
def test_exposed_card_may_be_led_only_online() -> None:
    std, online = lead_game("standard"), lead_game("online")
    assert c("SQ") not in std.legal_actions() and c("S2") in std.legal_actions()
    assert c("SQ") in online.legal_actions()
    # The follow restriction stays online: lead a spade, the exposed SQ... is seat 0's own card,
    # so check a follower's: seat 2 exposes DJ and must not play it to the first diamond trick.
    g = finish_declaration(Game.from_hands(LEAD_DEAL, "online", leader=0), ["DJ"])
    g.step(c("D2"))
    g.step(g.legal_actions()[0])  # seat 1, void in diamonds, discards
    assert c("DJ") not in g.legal_actions() and c("D5") in g.legal_actions()


def test_strict_exposure_bans_leading_even_the_only_card_and_discarding() -> None:
    # Seat 0's only spade is an exposed SQ: standard lets it lead it, Hua Pai does not.
    deal = make_deal(
        "SQ C3 C4 C5 C6 C7 C8 C9 D2 D3 D4 D5 D6",
        "HA H2 H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK",
        "C2 C10 CJ CQ CK CA DJ D7 D8 D9 D10 DQ DK",
        "S2 S3 S4 S5 S6 S7 S8 S9 S10 SJ SK SA DA",
    )
    std = finish_declaration(Game.from_hands(deal, "standard", leader=0), ["SQ"])
    hua = finish_declaration(Game.from_hands(deal, "huapai", leader=0), ["SQ"])
    assert c("SQ") in std.legal_actions()
    assert c("SQ") not in hua.legal_actions() and len(hua.legal_actions()) == 12
    # Seat 1 (only hearts) exposes HA; on a club lead it is void: standard lets it discard HA,
    # strict does not before hearts have been led.
    for rules, allowed in (("standard", True), ("huapai", False)):
        g = finish_declaration(Game.from_hands(deal, rules, leader=0), ["HA"])
        g.step(c("C3"))
        assert (c("HA") in g.legal_actions()) is allowed
        assert c("H2") in g.legal_actions()


def test_strict_exposure_falls_back_when_nothing_else_is_legal() -> None:
    # Seat 1 holds only hearts with HA exposed; led a heart it follows normally; on other leads
    # it may discard any heart but HA. Play until seat 1 holds HA alone before hearts are led.
    deal = make_deal(
        "C3 C4 C5 C6 C7 C8 C9 C10 CJ CQ CK CA D2",
        "HA H2 H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK",
        "C2 D3 D4 D5 D6 D7 D8 D9 D10 DJ DQ DK DA",
        "S2 S3 S4 S5 S6 S7 S8 S9 S10 SJ SQ SK SA",
    )
    g = finish_declaration(Game.from_hands(deal, "huapai", leader=0), ["HA"])
    clubs = parse_cards("CA CK CQ CJ C10 C9 C8 C7 C6 C5 C4 C3 D2")
    for lead in clubs:
        g.step(lead)  # seat 0 wins every club trick and leads again
        if g.current_player != 1:
            raise AssertionError("seat 1 should follow seat 0")
        legal = g.legal_actions()
        if len(g.hands[1]) == 1:
            assert legal == [c("HA")]  # nothing else: the restricted card becomes legal
            return
        assert c("HA") not in legal
        g.step(legal[0])
        g.step(g.legal_actions()[0])
        g.step(g.legal_actions()[0])
    raise AssertionError("seat 1 never held HA alone")


def test_free_first_lead() -> None:
    g = finish_declaration(Game.from_hands(LEAD_DEAL, Rules(first_lead="any")))
    assert g.current_player == 2  # the C2 holder still leads
    assert len(g.legal_actions()) == 13
    std = finish_declaration(Game.from_hands(LEAD_DEAL))
    assert std.legal_actions() == [c("C2")]


# ------------------------------------------------------------------ 6.4 declarations
def test_no_declaration_phase() -> None:
    g = Game.from_hands(LEAD_DEAL, Rules(declaration="none"))
    assert g.phase == "play" and g.legal_actions() == [c("C2")]
    assert g.declarations == () and DONE not in g.legal_actions()


@pytest.mark.parametrize(("mode", "cards"), [("all_but_sheep", "SQ C10 HA"),
                                             ("all", "SQ DJ C10 HA")])
def test_forced_exposures_are_made_by_their_holders(mode: str, cards: str) -> None:
    g = Game.from_hands(LEAD_DEAL, Rules(declaration=mode))
    assert g.phase == "play"
    exposed = {card: seat for seat, card in g.declarations}
    assert set(exposed) == cs(cards)
    for card, seat in exposed.items():
        assert card in g.deal[seat]
    # The forced exposures restrict play like chosen ones: seat 0 wins no lead before spades.
    assert c("SQ") in g.exposed[0]


def test_auto_exposure_can_be_switched_off() -> None:
    for auto, expected in ((True, cs("SQ DJ C10 HA")), (False, cs("SQ DJ C10"))):
        g = finish_declaration(Game.from_hands(LEAD_DEAL, Rules(auto_expose=auto)),
                               ["SQ", "DJ", "C10"])
        assert {x for e in g.exposed for x in e} == expected


# ------------------------------------------------------------------ 6.5 hidden exposure
def test_hidden_exposure_shows_only_counts_and_restricts_nothing() -> None:
    rules = Rules(hidden_exposure=True)
    g = lead_game(rules)
    assert c("SQ") in g.legal_actions()  # no play restriction
    own, other = g.view(0), g.view(1)
    assert own.exposed_masks[0] == 1 << c("SQ")
    assert other.exposed_masks[0] == 0 and other.exposed_counts == (1, 0, 0, 0)
    assert own.actions[0] == c("SQ") and other.actions[0] == HIDDEN_ACTION
    assert other.actions[1:] == own.actions[1:] and DONE in other.actions
    enc = other.encode()
    assert enc.shape == (obs_size(rules),) == (OBS_SIZE + 4,)
    blocks = decode(enc, rules)
    assert blocks["exposed"].sum() == 0 and list(blocks["exposed_count"]) == [0, 0, 0, 0.25]
    # Values change as if exposed: whoever takes SQ scores -200.
    random_playout(g, np.random.default_rng(0))
    taker = next(s for s in range(4) if c("SQ") in g.captured[s])
    assert g.scores()[taker] == score_hand(g.captured[taker], [c("SQ")])


# ------------------------------------------------------------------ 6.6 first-drawn exposure
def test_first_drawn_card_is_the_first_of_each_dealt_block() -> None:
    rules = Rules(first_drawn_exposure=True)
    for seed in range(5):
        deck = np.random.default_rng(seed).permutation(52)
        g = Game(rules, seed=seed)
        assert g.first_drawn == tuple(int(deck[13 * s]) for s in range(4))
        assert g.view(1).first_drawn == g.first_drawn[1]
        assert g.view(2).first_drawn == g.first_drawn[2]
    assert Game(seed=0).first_drawn is None


def test_first_drawn_exposure_doubles_again_and_is_unrestricted() -> None:
    rules = Rules(first_drawn_exposure=True)
    g = lead_game(rules)  # LEAD_DEAL[0][0] is SQ: seat 0's first dealt card by default
    assert g.doubled == (c("SQ"),) and c("SQ") in g.legal_actions()
    g2 = finish_declaration(Game.from_hands(LEAD_DEAL, rules, leader=0, first_drawn=[
        "S2", "H2", "C2", "S4"]), ["SQ"])
    assert g2.doubled == () and c("SQ") not in g2.legal_actions()
    for captured, exposed, first, want in [
        ("SQ", "SQ", "SQ", -400), ("DJ", "DJ", "DJ", 400), ("C10", "C10", "C10", 200),
        ("C10 DJ", "C10", "C10", 800), ("HA H2 H3 H4 H5", "HA", "HA", -60 * 4),
        ("SQ", "SQ", "", -200),
    ]:
        assert score_hand(parse_cards(captured), parse_cards(exposed), rules,
                          first_drawn=parse_cards(first)) == want
    with pytest.raises(ValueError, match="first_drawn"):
        Game.from_hands(LEAD_DEAL, rules, first_drawn=["HA", "H2", "C2", "S4"])


# ------------------------------------------------------------------ 6.7 self-capture
def test_self_capture_doubles_the_own_exposed_card_again() -> None:
    rules = Rules(self_capture_double=True)
    assert score_hand(parse_cards("SQ H2"), parse_cards("SQ"), rules,
                      own_exposed=parse_cards("SQ")) == -400
    assert score_hand(parse_cards("SQ H2"), parse_cards("SQ"), rules) == -200
    assert score_hand(parse_cards("C10"), parse_cards("C10"), rules,
                      own_exposed=parse_cards("C10")) == 200
    # Own HA exposed and taken back: hearts x4; H5 and HA = -60 -> -240.
    assert score_hand(parse_cards("HA H5"), parse_cards("HA"), rules,
                      own_exposed=parse_cards("HA")) == -240
    # An own exposed card someone else took back does not double for this scorer.
    assert score_hand(parse_cards("H5"), parse_cards("HA"), rules,
                      own_exposed=parse_cards("HA")) == -20
    # Without the rule the keyword changes nothing.
    assert score_hand(parse_cards("SQ"), parse_cards("SQ"), own_exposed=parse_cards("SQ")) == -200


# ------------------------------------------------------------------ 6.8 discard colour
COLOUR_DEAL = [
    parse_cards("C2 C3 C4 C5 C6 C7 C8 C9 C10 CJ CQ D2 D3"),
    parse_cards("H2 H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK S2"),
    parse_cards("CK CA HA D4 D5 D6 D7 D8 D9 D10 DQ DK DA"),
    parse_cards("DJ S3 S4 S5 S6 S7 S8 S9 S10 SJ SQ SK SA"),
]


@pytest.mark.parametrize(("rules", "second", "taker"), [
    (Rules(), "H5", 2),                          # standard: the winner takes all
    (Rules(discard_colour=True), "H5", 1),       # H5 on clubs while holding S2: seat 1 first
    (Rules(discard_colour=True), "S2", 3),       # S2 is right-colour; DJ by seat 3 is not
])
def test_first_wrong_colour_discarder_takes_the_scoring_cards(
        rules: Rules, second: str, taker: int) -> None:
    g = finish_declaration(Game.from_hands(COLOUR_DEAL, rules))
    for card in ("C2", second, "CA", "DJ"):
        g.step(c(card))
    assert g.tricks[0].winner == 2 and g.current_player == 2  # the winner still leads
    taken = {x for x in parse_cards(f"{second} DJ") if x in cs("H5 DJ")}
    assert set(g.captured[taker]) == taken
    assert all(not g.captured[s] for s in range(4) if s != taker)


# ------------------------------------------------------------------ 6.9 / 6.10 scoring tables
@pytest.mark.parametrize(("table", "captured", "exposed", "want"), [
    ("book", "H4", "", -10), ("book", "H2 H3", "", -5), ("book", "H9 H8 H7 H6 H5", "", -35),
    ("book", "HA", "HA", -100), ("book", "H2 H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK HA", "", 200),
    ("positive", "H2", "", 10), ("positive", "HA HK", "", 90), ("positive", "HA", "HA", 100),
    ("positive", "H2 H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK HA", "", 430),
    ("positive", "H2 H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK HA", "HA", 860),
    ("positive", "H2 C10", "", 20), ("standard", "H5", "", -10),
])
def test_heart_tables(table: str, captured: str, exposed: str, want: int) -> None:
    assert score_hand(parse_cards(captured), parse_cards(exposed),
                      Rules(hearts_table=table)) == want


ALL_H = "H2 H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK HA"


@pytest.mark.parametrize(("captured", "exposed", "standard", "swapped"), [
    (f"{ALL_H} SQ", "", 100, 300),
    (f"{ALL_H} DJ", "", 300, 100),
    (f"{ALL_H} SQ", "SQ", 0, 400),
    (f"{ALL_H} SQ DJ", "", 200, 200),
    (f"{ALL_H} SQ DJ C10", "", 800, 800),  # the grand slam is not swapped
    ("H5 SQ DJ", "", -10, -10),            # no swap without all hearts
])
def test_pig_sheep_swap(captured: str, exposed: str, standard: int, swapped: int) -> None:
    cap, exp = parse_cards(captured), parse_cards(exposed)
    assert score_hand(cap, exp) == standard
    assert score_hand(cap, exp, Rules(pig_sheep_swap=True)) == swapped


# ------------------------------------------------------------------ section 5 and 6.12 teams
def test_team_settlement_example_of_rules_md() -> None:
    rules = Rules(team_play=True)
    assert team_results([-190, 50, -10, 0]) == [-125, 125, -125, 125]
    assert settle([-190, 50, -10, 0], rules) == [-1500, 1500, -1500, 1500]
    assert settle([-120, -280, 0, 160]) == [-960, -3516, 960, 3516]
    g = Game(rules, seed=0)
    assert g.teams == ((0, 2), (1, 3)) and g.partners(1) == (3,) and g.view(2).partners == (0,)


def test_pig_sheep_teams_are_formed_by_the_deal() -> None:
    rules = Rules(pig_sheep_team=True, declaration="none")
    g = Game.from_hands(LEAD_DEAL, rules)  # SQ with seat 0, DJ with seat 2
    assert g.phase == "play" and g.teams == ((0, 2), (1, 3))
    assert g.view(0).partners == (2,) and g.view(1).partners == (3,)
    lone = [list(h) for h in LEAD_DEAL]
    lone[0][lone[0].index(c("S2"))], lone[2][lone[2].index(c("DJ"))] = c("DJ"), c("S2")
    g1 = Game.from_hands(lone, rules)
    assert g1.teams == ((0,), (1, 2, 3)) and g1.view(0).partners == ()
    assert g1.view(3).partners == (1, 2)
    # 1 vs 3: the lone seat gets S - T/3, each of the others minus a third of that.
    raw = [50, -100, 0, 30]
    res = team_results(raw, g1.teams)
    assert res[0] == pytest.approx(50 + 70 / 3)
    assert res[1:] == pytest.approx([-(50 + 70 / 3) / 3] * 3) and sum(res) == pytest.approx(0)
    assert settle(raw, rules, g1.teams) == [73 * 12, -24 * 12, -24 * 12, -24 * 12]
    with pytest.raises(ValueError, match="teams"):
        settle(raw, rules)


def test_team_encoding_marks_the_partner() -> None:
    rules = Rules.preset("scrofazero")
    g = Game(rules, seed=1)
    for seat in range(4):
        blocks = decode(g.view(seat).encode(), rules)
        assert list(blocks["partners"]) == [0, 0, 1, 0]  # the partner sits across
    assert obs_size("standard") == OBS_SIZE


# ------------------------------------------------------------------ engine-wide checks
def test_standard_rules_keep_the_standard_observation() -> None:
    g = Game(seed=3)
    assert g.view(0).encode().shape == (OBS_SIZE,)
    assert g.view(0).obs_size == OBS_SIZE


def test_variant_game_clone_is_independent() -> None:
    g = finish_declaration(Game.from_hands(COLOUR_DEAL, Rules(discard_colour=True)))
    g.step(c("C2"))
    g.step(c("H5"))
    h = g.clone()
    for card in ("CA", "DJ"):
        h.step(c(card))
    assert set(h.captured[1]) == cs("H5 DJ") and not any(g.captured)
    with pytest.raises(IllegalActionError):
        g.step(c("S2"))  # seat 2 must follow clubs


def test_replace_validates_combinations() -> None:
    with pytest.raises(ValueError, match="contradictory"):
        dataclasses.replace(Rules.preset("online"), strict_exposure=True)


def test_first_drawn_cards_survive_a_replay_from_the_deal() -> None:
    rules = Rules(first_drawn_exposure=True)
    for seed in range(20):
        g = Game(rules, seed=seed)
        random_playout(g, np.random.default_rng(seed))
        h = Game.replay(g.deal, g.actions, rules)
        assert h.first_drawn == g.first_drawn and h.scores() == g.scores()
        assert [sorted(x) for x in h.deal] == [sorted(x) for x in g.deal]


def test_engine_doubles_a_self_captured_exposure() -> None:
    # Hidden exposure lifts the lead ban, so seat 0 can lead its own exposed SQ and win it back:
    # seat 1 (hearts only) and seat 2 (no spades) discard, seat 3 must follow with a low spade.
    for self_capture, want in ((False, -200), (True, -400)):
        rules = Rules(hidden_exposure=True, self_capture_double=self_capture)
        g = lead_game(rules)
        for card in ("SQ", "H2", "D5", "S4"):
            g.step(c(card))
        assert g.tricks[0].winner == 0 and set(g.captured[0]) == cs("SQ H2")
        assert g.provisional_scores()[0] == want
        # Others do not know the SQ was exposed: their view values it unexposed.
        assert g.view(1).scores[0] == -100 and g.view(0).scores[0] == want


def test_env_observation_hides_other_seats_hidden_exposures() -> None:
    from gongzhu_env import raw_env

    rules = Rules(hidden_exposure=True)
    e = raw_env(rules=rules)
    e.reset(options={"hands": LEAD_DEAL})
    first = e.agent_selection  # the C2 holder, seat 2, declares first and holds C10
    assert first == "player_2"
    e.step(c("C10"))
    mine = decode(e.observe("player_2")["observation"], rules)
    other = decode(e.observe("player_3")["observation"], rules)
    assert mine["exposed"].sum() == 1 and other["exposed"].sum() == 0
    assert other["exposed_count"][3] == 0.25  # seat 2 is "previous" for seat 3


@pytest.mark.parametrize(("rules", "match", "extra"), [
    ("standard", False, 0), ("huapai", False, 0), ("online", False, 0),
    ("all_but_sheep", False, 0), ("scrofazero", False, 4),
    (Rules(hidden_exposure=True), False, 4), (Rules(first_drawn_exposure=True), False, 56),
    ("standard", True, 5), ("scrofazero", True, 9),
])
def test_documented_observation_sizes(rules: Rules | str, match: bool, extra: int) -> None:
    # partners 4, exposed_count 4, first_drawn 52 + doubled 4, match_scores 4 + hand_number 1.
    assert obs_size(rules, match) == OBS_SIZE + extra == 600 + extra
    view = Match(rules, seed=0).view(1) if match else Game(rules, seed=0).view(1)
    assert view.encode().shape == (OBS_SIZE + extra,)
