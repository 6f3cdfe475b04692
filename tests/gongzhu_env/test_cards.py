"""Card index and text notation (RULES.md section 1)."""

from __future__ import annotations

import pytest

from gongzhu_env.cards import (
    FULL_DECK,
    SCORING_CARDS,
    card_str,
    cards_of,
    mask_of,
    parse_card,
    parse_cards,
)

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
