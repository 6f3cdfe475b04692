"""What the text and HTML tables and the seat views show of a two-deck hand."""

from __future__ import annotations

import re

from gongzhu_env import Game, Rules
from gongzhu_env.cards import parse_cards
from gongzhu_env.html import game_html, view_html
from gongzhu_env.render import hand_by_suit
from tests.gongzhu_env.two_deck_deals import act, declare, legal_text, suit_deal

R2 = Rules(decks=2)


def _pair_trick() -> Game:
    """Seat 0 has exposed both SQ and led S9+S9; seat 1 has played S3 S3, seat 2 one S5."""
    game = declare(Game.from_hands(suit_deal("S", "S3 S3 S4", "S5 S6", "SK"), R2, leader=0),
                   {0: "SQ SQ"})
    return act(game, "S9+S9", "S3", "S3", "S5")


def test_a_hand_shows_every_copy() -> None:
    assert hand_by_suit(*_masks("SA SA SQ S3 H10 H10")) == "♠ A A Q 3  ♥ 10 10"


def _masks(text: str) -> tuple[int, int]:
    once = twice = 0
    for c in parse_cards(text):
        if once >> c & 1:
            twice |= 1 << c
        once |= 1 << c
    return once, twice


def test_text_table_of_a_pair_led_trick() -> None:
    game = _pair_trick()
    text = game.render()
    assert "trick in progress (led by seat 0 with a pair): 0:♠9 ♠9  1:♠3 ♠3  2:♠5" in text
    assert "/13" not in text.splitlines()[0]  # a two-deck hand has no fixed trick count
    rows = {int(line[1]): line for line in text.splitlines()[2:6]}
    assert "♠Q ♠Q" in rows[0]  # both exposed copies
    assert "♠ A A K Q Q J J" in rows[0]  # seat 3 holds the other SK
    seat_view = game.render(3)
    # Seats 0 and 1 have played two cards, seat 2 one of its two: counted, not shown.
    assert seat_view.count("(24 cards)") == 2 and "(25 cards)" in seat_view


def test_text_table_of_the_last_pair_trick() -> None:
    game = _pair_trick()
    act(game, "S6", "SK")
    act(game, next(t for t in legal_text(game) if t[0] != "S"))
    last = game.render().splitlines()[-1]
    assert re.match(r"last trick: 0:♠9 ♠9  1:♠3 ♠3  2:♠5 ♠6  3:♠K \S+  -> seat 2", last), last


def test_html_shows_copies_pairs_and_pair_leads() -> None:
    game = _pair_trick()
    html = game_html(game)
    trick = re.search(r"Trick in progress \(led with a pair\): (.*?)</div>", html).group(1)
    assert re.sub(r"<[^>]+>", "", trick) == "seat 0 ♠9 ♠9, seat 1 ♠3 ♠3, seat 2 ♠5"
    assert "trick 1/13" not in html and "trick 1 " in html.replace("&middot;", " ")
    # Seat 0 to lead next time: its hand cell draws ranks held twice twice.
    cells = re.findall(r"<tr>(.*?)</tr>", html)
    seat0 = re.sub(r"<[^>]+>", " ", cells[1])
    assert "A A K Q Q J J 10 10" in " ".join(seat0.split())


def _legal_html(game: Game) -> list[str]:
    found = re.search(r"Legal actions: (.*?)</div>", game_html(game))
    return re.sub(r"<[^>]+>", "", found.group(1)).split()


def test_html_lists_pair_leads_and_done_of_105_actions() -> None:
    game = Game.from_hands(suit_deal("S", "S3", "S4", "S5"), R2, leader=0)
    assert _legal_html(game) == ["♠Q", "DONE"]  # declaring: DONE is action 104
    declare(game, {})
    legal = _legal_html(game)
    assert len(legal) == len(game.legal_actions())
    pair_leads = [t for t in legal if "+" in t]
    assert len(pair_leads) == sum(a >= 52 for a in game.legal_actions()) > 0
    assert "♠A+♠A" in pair_leads and "DONE" not in legal


def test_a_seat_view_counts_26_cards_and_shows_its_own_copies() -> None:
    game = _pair_trick()
    view = game.view(1)
    assert view.hand == game.hands[1] and len(view.hand) == 24
    assert view.exposed[0] == tuple(parse_cards("SQ SQ"))
    html = view_html(view)
    assert "24 cards" in html and "26 cards" in html
    assert game.view(0).hand.count(parse_cards("SA")[0]) == 2


def test_the_documented_observation_layout_is_the_views() -> None:
    from pathlib import Path

    from gongzhu_env.view import layout, obs_size

    text = Path(__file__).parents[2].joinpath("docs", "rules.md").read_text(encoding="utf-8")
    chapter = text[text.index("### 7.6 Actions and observation"):]
    rows = re.findall(r"^\| (\w+) \| ([\d × ]+) \|", chapter, flags=re.M)
    documented = [(name, size.replace(" ", "")) for name, size in rows if name != "name"]
    extra = layout(Rules(decks=2))[13:]
    assert documented == [(n, "×".join(map(str, shape))) for n, shape, _ in extra]
    assert f"`Rules(decks=2)` has {obs_size(Rules(decks=2))} values" in chapter
    assert f"`\"two_decks\"` (with the 4 `partners` values after these\nblocks) " \
        f"{obs_size('two_decks')}" in chapter
    assert f"match episode {obs_size('two_decks', True)}" in chapter
