"""Card index and text notation (RULES.md section 1)."""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest

from gongzhu_env.cards import (
    FULL_DECK,
    ONE_DECK,
    SCORING_CARDS,
    TWO_DECKS,
    ActionCodec,
    action_str,
    actions_of,
    card_str,
    card_symbol,
    cards_of,
    mask_of,
    parse_action,
    parse_card,
    parse_cards,
)
from gongzhu_env.rules import Rules

# The examples RULES.md section 1 gives for the canonical index.
CANONICAL = {"C2": 0, "C10": 8, "CA": 12, "DJ": 22, "H2": 26, "HA": 38, "SQ": 49, "SA": 51}


@pytest.mark.parametrize(("text", "index"), sorted(CANONICAL.items()))
def test_canonical_index(text: str, index: int) -> None:
    assert parse_card(text) == index
    assert card_str(index) == text


def test_index_formula_for_every_card() -> None:
    # index = suit * 13 + (rank - 2), suits C D H S, ranks 2..14.
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    for s, letter in enumerate("CDHS"):
        for r, rank in enumerate(ranks):
            assert parse_card(letter + rank) == s * 13 + r


def test_round_trip_all_52() -> None:
    texts = [card_str(c) for c in range(52)]
    assert len(set(texts)) == 52
    assert parse_cards(" ".join(texts)) == list(range(52))


@pytest.mark.parametrize(
    ("token", "index"),
    [
        ("SQ", 49), ("sq", 49), ("Sq", 49), ("C10", 8), ("c10", 8), ("CT", 8), ("ct", 8),
        ("♠Q", 49), ("♤Q", 49), ("Q♠", 49), ("♥10", 34), ("♡10", 34), ("♥T", 34),
        ("♣2", 0), ("♧2", 0), ("♦J", 22), ("♢j", 22), ("10♥", 34), ("ha", 38),
    ],
)
def test_accepted_forms(token: str, index: int) -> None:
    assert parse_card(token) == index


def test_parse_cards_keeps_order_and_accepts_commas_and_lists() -> None:
    assert parse_cards("SQ DJ C10") == [49, 22, 8]
    assert parse_cards("SQ,DJ, C10") == [49, 22, 8]
    assert parse_cards(["SQ", "♦J", "ct"]) == [49, 22, 8]
    assert parse_cards("") == []


@pytest.mark.parametrize("bad", ["X5", "S1", "S11", "SZ", "Q", "S", "10", "", "SQQ", "♠", "H0"])
def test_bad_token_is_named(bad: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_card(bad)
    assert repr(bad) in str(err.value)


def test_bad_token_in_a_list_is_named() -> None:
    with pytest.raises(ValueError, match="'ZZ'"):
        parse_cards("SQ DJ ZZ C10")


def test_non_text_token_is_rejected() -> None:
    with pytest.raises(ValueError, match="49"):
        parse_card(49)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, 53, 100])
def test_card_str_out_of_range(bad: int) -> None:
    with pytest.raises(ValueError, match=str(bad)):
        card_str(bad)


def test_done_has_a_name() -> None:
    assert card_str(52) == "DONE"


def test_masks_round_trip() -> None:
    cards = (0, 8, 22, 26, 38, 49, 51)
    assert cards_of(mask_of(cards)) == cards
    assert cards_of(FULL_DECK) == tuple(range(52))
    assert cards_of(0) == ()
    # The 16 scoring cards: all hearts, SQ, DJ, C10.
    assert set(SCORING_CARDS) == set(range(26, 39)) | {49, 22, 8}


# ---------------------------------------------------------------------- the action codec
CODECS = [(ONE_DECK, 1), (TWO_DECKS, 2)]


@pytest.mark.parametrize(("codec", "decks"), CODECS)
def test_codec_layout_per_deck_count(codec: ActionCodec, decks: int) -> None:
    rules = Rules(decks=decks)
    assert ActionCodec.for_rules(rules) is codec is ActionCodec.for_decks(decks)
    assert (codec.num_actions, codec.done, codec.pairs) == (
        rules.num_actions, rules.done_action, rules.pair_leads)
    assert codec.num_actions == (53 if decks == 1 else 105)


@pytest.mark.parametrize(("codec", "decks"), CODECS)
def test_every_action_round_trips_through_its_text(codec: ActionCodec, decks: int) -> None:
    texts = [codec.text(a) for a in range(codec.num_actions)]
    assert len(set(texts)) == codec.num_actions  # one text per action
    for a, text in enumerate(texts):
        assert codec.parse(text) == a
        assert codec.parse(text.lower()) == a
        # The wrappers kept for callers that hold a deck count say the same.
        assert action_str(a, decks) == text and parse_action(text, decks) == a
        assert codec.is_action(a) and codec.is_action(np.int64(a))
        kinds = (codec.is_card(a), codec.is_pair(a), codec.is_done(a))
        assert kinds.count(True) == 1, (a, kinds)
    assert texts[:52] == [card_str(c) for c in range(52)]
    assert texts[-1] == "DONE"


def test_pair_actions_and_their_cards() -> None:
    for c in range(52):
        a = TWO_DECKS.pair_action(c)
        assert a == 52 + c and TWO_DECKS.pair_card(a) == c
        assert TWO_DECKS.cards(a) == (c, c) and TWO_DECKS.cards(c) == (c,)
        assert TWO_DECKS.text(a) == f"{card_str(c)}+{card_str(c)}"
        assert TWO_DECKS.text(a, card_symbol) == f"{card_symbol(c)}+{card_symbol(c)}"
    assert TWO_DECKS.cards(104) == () and ONE_DECK.cards(52) == ()
    assert TWO_DECKS.parse("♠Q+♠Q") == TWO_DECKS.parse(" sq + SQ".replace(" ", "")) == 52 + 49
    assert TWO_DECKS.parse("done") == 104 and ONE_DECK.parse("Done") == 52


def test_action_masks_list_cards_then_pairs_then_done() -> None:
    mask = 1 << 49 | 1 << 0 | 1 << (52 + 3) | 1 << 104
    assert TWO_DECKS.actions_of(mask) == [0, 49, 55, 104]
    assert ONE_DECK.actions_of(1 << 52 | 1 << 8) == [8, 52]
    assert actions_of(mask, 2) == TWO_DECKS.actions_of(mask)


@pytest.mark.parametrize(("codec", "text", "words"), [
    (ONE_DECK, "SQ+SQ", "exists only with two decks"),
    (TWO_DECKS, "SQ+HA", "two copies of one card"),
    (TWO_DECKS, "SQ+", "bad card token"),
    (ONE_DECK, "S11", "bad card token 'S11'"),
    (TWO_DECKS, "", "bad card token"),
])
def test_bad_action_text_is_named(codec: ActionCodec, text: str, words: str) -> None:
    with pytest.raises(ValueError, match=re.escape(words)):
        codec.parse(text)


@pytest.mark.parametrize("bad", [None, 49, ["SQ"]])
def test_action_text_must_be_text(bad: object) -> None:
    with pytest.raises(ValueError, match="an action must be card text or 'DONE'"):
        ONE_DECK.parse(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(("codec", "bad"), [(ONE_DECK, 53), (ONE_DECK, 104), (ONE_DECK, -1),
                                            (TWO_DECKS, 105), (TWO_DECKS, -2)])
def test_a_number_outside_the_space_is_no_action(codec: ActionCodec, bad: int) -> None:
    assert not codec.is_action(bad)
    with pytest.raises(ValueError, match=rf"not an action with .*0\.\.{codec.done}"):
        codec.text(bad)
    with pytest.raises(ValueError, match="not an action"):
        codec.cards(bad)


def test_codec_refusals() -> None:
    for bad in (True, np.bool_(True), 1.0, "1", None):
        assert not TWO_DECKS.is_action(bad)
    for decks in (0, 3, 2.0, True, "2"):
        with pytest.raises(ValueError, match="decks must be 1 or 2"):
            ActionCodec.for_decks(decks)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no pair leads with 1 deck"):
        ONE_DECK.pair_action(49)
    with pytest.raises(ValueError, match="card index 0..51"):
        TWO_DECKS.pair_action(52)
    with pytest.raises(ValueError, match="none with one deck"):
        ONE_DECK.pair_card(52)
    with pytest.raises(ValueError, match="pair leads are 52..103"):
        TWO_DECKS.pair_card(104)


def test_codec_pickles_as_the_shared_instance() -> None:
    assert pickle.loads(pickle.dumps(TWO_DECKS)) is TWO_DECKS
    assert repr(ONE_DECK) == "ActionCodec(decks=1)"
