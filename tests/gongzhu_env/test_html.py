from html.parser import HTMLParser

import numpy as np
import pytest

from gongzhu_env.cards import SUIT_SYMBOLS, parse_card
from gongzhu_env.engine import Game
from gongzhu_env.html import card_html, game_html, view_html
from tests.helpers import random_playout

_VOID = {"br", "hr", "img", "meta", "input", "wbr"}


class _Checker(HTMLParser):
    """Checks that tags are balanced and collects the table cells and coloured spans."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.rows: list[list[str]] = []
        self.spans: list[tuple[str, str]] = []  # (style, text) of innermost spans
        self.tags: list[str] = []
        self._cell: list[str] | None = None
        self._span_style: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag not in _VOID:
            self.stack.append(tag)
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "th"):
            self._cell = []
        if tag == "span":
            self._span_style.append(dict(attrs).get("style", ""))

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> with open tags {self.stack}")
            return
        self.stack.pop()
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None
        if tag == "span":
            self._span_style.pop()

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._span_style and data.strip():
            self.spans.append((self._span_style[-1], data))


def check(markup: str) -> _Checker:
    parser = _Checker()
    parser.feed(markup)
    parser.close()
    assert not parser.errors, parser.errors
    assert not parser.stack, f"unclosed tags: {parser.stack}"
    return parser


def hand_cell_cards(text: str) -> list[int]:
    """Read a hand cell ('♠ A Q  ♥ 10 2') back into card indices."""
    cards, suit = [], None
    for token in text.replace("\xa0", " ").split():
        if token in SUIT_SYMBOLS:
            suit = token
        else:
            cards.append(parse_card(suit + token))
    return sorted(cards)


def _states(seed: int) -> list[Game]:
    """Games stopped at several points: declaration, mid-trick, between tricks, over."""
    out = []
    for stop in (0, 3, 9, 30, 59, None):
        rng = np.random.default_rng(seed)
        out.append(random_playout(Game(rng=rng), rng, stop_after=stop))
    return out


@pytest.mark.parametrize("seed", range(5))
def test_game_html_is_balanced_and_shows_every_hand(seed):
    for game in _states(seed):
        parsed = check(game_html(game))
        body = parsed.rows[1:]  # the first row is the header
        assert len(body) == 4
        for s in range(4):
            shown = hand_cell_cards(body[s][1]) if game.hands[s] else []
            assert shown == list(game.hands[s])
            assert int(body[s][4]) == game.provisional_scores()[s]


@pytest.mark.parametrize("seed", range(3))
def test_seat_html_hides_the_other_hands(seed):
    for game in _states(seed):
        parsed = check(game_html(game, seat=1))
        body = parsed.rows[1:]
        for s in range(4):
            if s == 1:
                shown = hand_cell_cards(body[s][1]) if game.hands[1] else []
                assert shown == list(game.hands[1])
            else:
                assert body[s][1] == f"{len(game.hands[s])} cards"


def test_view_html_matches_the_view():
    rng = np.random.default_rng(21)
    game = random_playout(Game(rng=rng), rng, stop_after=25)
    for seat in range(4):
        view = game.view(seat)
        parsed = check(view_html(view))
        body = parsed.rows[1:]
        assert hand_cell_cards(body[seat][1]) == list(game.hands[seat])
        for s in range(4):
            if s != seat:
                assert body[s][1] == f"{len(game.hands[s])} cards"
        highlighted = [t for style, t in parsed.spans if "background" in style]
        if seat == game.current_player:
            # Exactly the legal cards are highlighted in the hand.
            assert len(highlighted) == len([a for a in view.legal_actions if a < 52])
        else:
            assert highlighted == []


def test_repr_html_delegates():
    game = Game(seed=4)
    assert game._repr_html_() == game_html(game)
    view = game.view(2)
    assert view._repr_html_() == view_html(view)


def test_final_scores_and_red_hearts():
    rng = np.random.default_rng(2)
    game = random_playout(Game(rng=rng), rng)
    parsed = check(game_html(game))
    assert [int(r[4]) for r in parsed.rows[1:]] == game.scores()
    red = [t for style, t in parsed.spans if "#c62828" in style]
    black = [t for style, t in parsed.spans if "#1b1b1b" in style]
    assert red and black
    assert all(t[0] in "♥♦" for t in red)
    assert all(t[0] in "♠♣" for t in black)
    captured_hearts = sum(1 for cards in game.captured for c in cards if c // 13 == 2)
    # Captured hearts show in red (the last trick may repeat some of them).
    assert sum(1 for t in red if t.startswith("♥")) >= captured_hearts


def test_names_are_escaped():
    game = Game(seed=0)
    names = ["<script>alert(1)</script>", "a & b", '"quoted"', "seat <3>"]
    markup = game_html(game, names=names)
    parsed = check(markup)
    assert "script" not in parsed.tags
    assert [r[0].replace(" \u25c0", "") for r in parsed.rows[1:]] == names
    with pytest.raises(ValueError, match="one name per seat"):
        game_html(game, names=["a"])
    with pytest.raises(ValueError, match="seat must be 0..3"):
        game_html(game, seat=7)


def test_card_html_colours():
    assert "#c62828" in card_html(parse_card("HQ"))
    assert "#c62828" in card_html(parse_card("DJ"))
    assert "#1b1b1b" in card_html(parse_card("SQ"))
    check(card_html(parse_card("C10"), legal=True))
