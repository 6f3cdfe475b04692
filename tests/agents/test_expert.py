"""``expert``: legal play at whole tables, exposure by hand shape, scripted situations."""

from __future__ import annotations

import numpy as np

from agents import make_agent
from agents.expert import expert_declare
from gongzhu_env.cards import DONE, mask_of, parse_card, parse_cards
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from tests.agents.helpers import choose, deal, game_at, play_hand


def test_expert_and_greedy_tables_play_legal_actions():
    rng = np.random.default_rng(11)
    for spec in ("greedy", "expert"):
        for _ in range(500):
            agents = [make_agent(spec, seed=k) for k in range(4)]
            play_hand(Game(rng=rng), agents)


def test_expert_exposes_by_hand_shape():
    strong = mask_of(parse_cards("SQ SK SA S9 S5 C10 D2 D3 H2 H3 H4 C2 C3"))
    legal = mask_of(parse_cards("SQ C10")) | 1 << DONE
    assert expert_declare(strong, legal) == parse_card("SQ")
    weak = mask_of(parse_cards("SQ S2 C10 CK CA H9 HJ HQ D2 D3 D4 D5 D6"))
    assert expert_declare(weak, legal) == DONE  # short spades, no cage; C10 never
    sheep = mask_of(parse_cards("DJ DA D5 D6 S2 S3 C2 C3 C4 H2 H3 H4 H5"))
    assert expert_declare(sheep, mask_of([parse_card("DJ")]) | 1 << DONE) == parse_card("DJ")
    bare_sheep = mask_of(parse_cards("DJ D9 D5 D6 S2 S3 C2 C3 C4 H2 H3 H4 H5"))  # no cage
    assert expert_declare(bare_sheep, mask_of([parse_card("DJ")]) | 1 << DONE) == DONE
    c10_only = 1 << parse_card("C10") | 1 << DONE
    long_low_clubs = mask_of(parse_cards("C10 C2 C3 C5 CK D2 D3 D4 S2 S3 S4 H2 H9"))
    assert expert_declare(long_low_clubs, c10_only) == parse_card("C10")
    with_big_hearts = mask_of(parse_cards("C10 C2 C3 C5 CK D2 D3 D4 S2 S3 S4 H2 HQ"))
    assert expert_declare(with_big_hearts, c10_only) == DONE


def test_expert_ducks_under_the_pig():
    # SQ is out (seat 2); the expert (seat 1) holds S5 SJ SK behind a S3 lead: it plays SJ,
    # the highest spade that the pig still beats, keeping SK off a trick the pig may fall on.
    hands = deal("S2 S3 S4 C2 C3 C4 C5 C6 C7 C8 C9 C10 D2",
                 "S5 SJ SK CJ CQ CK CA D3 D4 D5 D6 D7 D8",
                 "SQ S6 S7 D9 D10 DJ DQ DK DA H2 H3 H4 H5",
                 "S8 S9 S10 SA H6 H7 H8 H9 H10 HJ HQ HK HA")
    g = game_at(hands, 0, "S3")
    assert choose("expert", g) == "SJ"
    assert choose("greedy", g) == "S5"  # greedy only sees that everything wins: lowest


def test_expert_catches_the_sheep_with_a_master_cage():
    # DJ is out with only four other diamonds: the expert's DA, the master, goes to fetch it.
    hands = deal("DA D2 D3 D4 D5 D6 D7 D8 SK C2 C3 C4 H2",
                 "DJ D9 S2 S3 S4 C10 CJ CQ CK CA H3 C5 C6",
                 "D10 DQ DK S5 S6 S7 H4 H5 H6 H7 C7 C8 C9",
                 "SQ SA S8 S9 S10 SJ H8 H9 H10 HJ HQ HK HA")
    g = game_at(hands, 0, "")
    assert choose("expert", g) == "DA"
    assert choose("greedy", g) == "C2"


def test_expert_leads_the_pig_into_the_cages():
    # Every spade the expert cannot see is SK or SA: led, the pig goes to whoever covers it.
    hands = deal("SQ S2 S3 S4 S5 S6 S7 S8 S9 S10 SJ C2 H2",
                 "SK C3 C4 C5 C6 C7 C8 C9 C10 CJ CQ CK CA",
                 "SA D2 D3 D4 D5 D6 D7 D8 D9 D10 DJ DQ DK",
                 "DA H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK HA")
    g = game_at(hands, 0, "")
    assert choose("expert", g) == "SQ"


def test_expert_flushes_the_pig_with_low_spades():
    hands = deal("S2 S5 S9 D2 D3 D4 D5 D6 C2 C3 C4 C5 C6",
                 "SQ S3 S4 D7 D8 D9 D10 C7 C8 C9 C10 H2 H3",
                 "SK S6 S7 S8 DJ DQ DK DA CJ CQ CK CA H4",
                 "SA S10 SJ H5 H6 H7 H8 H9 H10 HJ HQ HK HA")
    g = game_at(hands, 0, "")
    assert choose("expert", g) == "S2"
    assert choose("greedy", g) == "C2"


def test_expert_does_not_take_the_transformer_with_hearts():
    # Clubs: C3 led, C10 played, HQ discarded. Last to play with CA C2, the expert ducks.
    hands = deal("CA C2 D2 D3 D4 D5 D6 S2 S3 S4 S5 S6 H2",
                 "C3 C4 C5 C6 C7 C8 C9 D7 D8 D9 D10 S7 S8",
                 "C10 CJ CQ CK DJ DQ DK DA S9 S10 SJ H3 H4",
                 "SQ SK SA H5 H6 H7 H8 H9 H10 HJ HQ HK HA")
    g = game_at(hands, 1, "C3 C10 HQ")
    assert choose("expert", g) == "C2"


def test_expert_takes_a_clean_transformer():
    # Same, but the trick is C3 C10 C5 and the expert has taken nothing: CA takes a clean +50.
    hands = deal("CA C2 D2 D3 D4 D5 D6 S2 S3 S4 S5 S6 H2",
                 "C3 C4 H5 C6 C7 C8 C9 D7 D8 D9 D10 S7 S8",
                 "C10 CJ CQ CK DJ DQ DK DA S9 S10 SJ H3 H4",
                 "SQ SK SA C5 H6 H7 H8 H9 H10 HJ HQ HK HA")
    g = game_at(hands, 1, "C3 C10 C5")
    assert choose("expert", g) == "CA"
    assert choose("greedy", g) == "C2"


def test_expert_sheds_its_own_pig_under_a_cage():
    hands = deal("SQ S3 D2 D3 D4 D5 D6 C2 C3 C4 C5 C6 H2",
                 "S4 S5 D7 D8 D9 D10 C7 C8 C9 C10 H3 H4 H5",
                 "SK S6 S7 S8 DJ DQ DK DA CJ CQ CK CA H6",
                 "SA S2 S9 S10 SJ H7 H8 H9 H10 HJ HQ HK HA")
    g = game_at(hands, 2, "SK S2")
    assert choose("expert", g) == "SQ"


def test_expert_keeps_its_pig_behind_a_lower_spade():
    # S4 S6 S9 played, SK and SA still out: the expert ducks with S8, its highest spade under
    # S9, and keeps the pig.
    hands = deal("SQ S3 S8 D3 D4 D5 D6 C2 C3 C4 C5 C6 H2",
                 "S4 S5 D7 D8 D9 D10 C7 C8 C9 C10 H3 H4 H5",
                 "SK S6 S7 D2 DJ DQ DK DA CJ CQ CK CA H6",
                 "SA S2 S9 S10 SJ H7 H8 H9 H10 HJ HQ HK HA")
    g = game_at(hands, 1, "S4 S6 S9")
    assert choose("expert", g) == "S8"


def test_expert_feeds_its_partner_the_sheep_not_the_pig():
    # Team play: the partner (seat 2) wins with CA; void in clubs, the expert gives it DJ.
    hands = deal("SQ S3 D2 D3 D4 D5 D6 H2 H3 H4 H5 H6 DJ",
                 "C2 C4 C5 D7 D8 D9 D10 C7 C8 C9 C10 H8 H9",
                 "SK S6 S7 S8 H7 DQ DK DA CJ CQ CK CA H10",
                 "SA S2 S4 S5 S9 S10 SJ C3 C6 HJ HQ HK HA")
    g = game_at(hands, 2, "CA C3", Rules(team_play=True))
    assert choose("expert", g) == "DJ"
    alone = game_at(hands, 2, "CA C3")
    assert choose("expert", alone) == "SQ"
