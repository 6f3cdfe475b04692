"""The web table in a real browser: Debian's Chromium, headless, driven by Playwright.

A person's whole session, by clicks and keys: choose the table, declare (Enter for done),
play every trick by clicking the highlighted cards (one by typing it), ask the AI for a hint
and see its values on the cards, reload the page in the middle of the hand and find the same
table, download the hand record, and replay it step by step. Once with the standard rules and
once with two decks (pair leads, two-card follows). The server is a real ``gongzhu serve``
process on 127.0.0.1, inside a loopback-only network namespace where the platform allows.

Screenshots go to ``$GONGZHU_WEB_SHOTS`` when set (docs/images/web_*.png come from there), else
to the test's temporary directory.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gongzhu_env.records import load_records, replay_record
from tests.gongzhu_cli.web.support import (
    chromium,
    isolated,
    playwright_module,
    record_file,
    served,
)
from tests.helpers import HANG_S

pytestmark = pytest.mark.xdist_group("web_browser")
"""Both tests on one worker: they share one server and one Chromium."""

WAIT_MS = HANG_S * 1000
"""Every wait is for an event on the page, bounded only against a hang."""


@pytest.fixture(scope="module")
def browser() -> Iterator[tuple[str, Any]]:
    """A served table and a headless Chromium, both inside the loopback-only namespace."""
    path = chromium()
    sync_api = playwright_module()
    with isolated(), served("--max-tables", "8") as (_, url), \
            sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=path, headless=True)
        try:
            yield url, browser
        finally:
            browser.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    where = os.environ.get("GONGZHU_WEB_SHOTS")
    out = Path(where) if where else tmp_path / "shots"
    out.mkdir(parents=True, exist_ok=True)
    return out


def _open_page(browser: Any) -> tuple[str, Any, Any, list[str]]:
    """Open a desktop-sized page that accepts downloads; collect its script errors.

    Returns the server's URL, the browser context (closed by the test), the page and the list
    the page's uncaught errors are appended to.
    """
    url, chromium_browser = browser
    context = chromium_browser.new_context(viewport={"width": 1100, "height": 900},
                                           accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return url, context, page, errors


def _deal(page: Any, url: str, preset: str, seed: int, opponents: str) -> None:
    page.goto(url)
    page.wait_for_selector("#setup:not([hidden])", timeout=WAIT_MS)
    page.select_option("#cfg-preset", preset)
    page.fill("#cfg-seed", str(seed))
    page.select_option("#cfg-pace", "0")
    for select in page.query_selector_all("select.opponent"):
        select.select_option(opponents)


def _your_turn_or_result(page: Any) -> str:
    """Wait until the person may act or the hand is over; return which."""
    page.wait_for_function(
        "() => document.querySelector('#result:not([hidden])') || "
        "document.querySelector('#hand button.legal') || "
        "document.querySelector('#done:not([hidden])')", timeout=WAIT_MS)
    return "over" if page.is_visible("#result") else "turn"


def _play_hand(page: Any, shots: Path, name: str, *, hint: bool, reload_at: int = -1,
               expose: bool = False) -> dict[str, Any]:
    """Play the person's whole hand by clicking; return what happened.

    ``expose``: in the declaration, click the first exposable card held before saying done.
    """
    seen: dict[str, Any] = {"turns": 0, "declared": False, "pairs": 0, "typed": False,
                            "hinted": False, "reloaded": False, "two_card": 0, "exposed": []}
    while _your_turn_or_result(page) == "turn":
        seen["turns"] += 1
        before = int(page.get_attribute("#table", "data-seq"))
        legal = page.query_selector_all("#hand button.legal")
        illegal = page.query_selector_all("#hand button.illegal")
        # Illegal cards are drawn, but not clickable.
        assert all(b.is_disabled() for b in illegal)
        if seen["turns"] == reload_at:
            hand = page.eval_on_selector_all("#hand button", "bs => bs.map(b => b.dataset.card)")
            page.reload()
            _your_turn_or_result(page)
            again = page.eval_on_selector_all("#hand button",
                                              "bs => bs.map(b => b.dataset.card)")
            assert again == hand, "a reload must find the same table and hand"
            assert "Back at your table" in page.inner_text("#message")
            seen["reloaded"] = True
            continue
        if page.is_visible("#done"):
            # The prompt names exactly the cards this person may expose.
            status = page.inner_text("#status")
            exposable = [b.get_attribute("aria-label") for b in legal]
            assert all(card in status for card in exposable), (status, exposable)
            assert exposable or "no card you may expose" in status, status
        if page.is_visible("#done") and expose and legal:
            # Declaration: expose a card by clicking it (the turn goes on).
            seen["exposed"].append(legal[0].get_attribute("data-card"))
            legal[0].click()
        elif page.is_visible("#done"):
            # Declaration: the Enter key says done.
            page.keyboard.press("Enter")
            seen["declared"] = True
        elif "second card" in page.inner_text("#status") or \
                "first card of two" in page.inner_text("#status"):
            seen["two_card"] += 1
            legal[0].click()
        elif page.query_selector("#hand .pair-btn") and seen["pairs"] == 0:
            page.click("#hand .pair-btn")
            seen["pairs"] += 1
        elif hint and not seen["hinted"] and len(legal) > 1:
            page.click("#hint")
            page.wait_for_function(
                "() => document.querySelector('#hand .value') || "
                "/cannot advise|would do|comes from/.test("
                "document.querySelector('#message').textContent)",
                timeout=WAIT_MS)
            values = page.query_selector_all("#hand .value")
            page.screenshot(path=str(shots / f"web_{name}_hint.png"), full_page=True)
            if values:
                assert len(values) == len(legal), "every legal card gets a value"
                # A pair lead is valued on its own button; the best action is marked once.
                pairs = page.query_selector_all("#hand .pair-btn")
                assert len(page.query_selector_all("#hand .pair-value")) == len(pairs)
                assert len(page.query_selector_all("#hand .best")) >= 1
                seen["hinted"] = "values"
                page.click("#hand .best")
            else:
                # No values where the search cannot play: pimc's card is marked, and named.
                assert "pimc" in page.inner_text("#message")
                seen["hinted"] = "suggestion"
                page.click("#hand button.legal.suggested")
        elif not seen["typed"] and seen["declared"] and not page.query_selector("#hand .pair-btn"):
            card = legal[-1].get_attribute("data-card")
            rank = card[1:].lower()
            for key in card[0].lower() + rank:
                page.keyboard.press(key)
            seen["typed"] = card
        else:
            legal[0].click()
        if seen["turns"] == 6:
            page.screenshot(path=str(shots / f"web_{name}_play.png"), full_page=True)
        # The move is answered: a newer state is on the page.
        page.wait_for_function(f"() => Number(document.querySelector('#table').dataset.seq) "
                               f"> {before}", timeout=WAIT_MS)
    page.screenshot(path=str(shots / f"web_{name}_result.png"), full_page=True)
    return seen


def _download_and_replay(page: Any, tmp_path: Path, shots: Path, name: str,
                         players: int) -> list[dict[str, Any]]:
    with page.expect_download(timeout=WAIT_MS) as info:
        page.click("#download")
    path = tmp_path / f"{name}.jsonl"
    info.value.save_as(path)
    records = load_records(path)
    assert len(records) == 1 and records[0]["complete"]
    replay_record(records[0])  # the engine replays it
    shown = page.eval_on_selector_all(
        "#result tr[data-seat]",
        "rows => rows.map(r => [Number(r.dataset.seat), Number(r.cells[1].textContent)])")
    assert [score for _, score in sorted(shown)] == records[0]["scores"], \
        "the result shown is the record's"
    assert "Settled:" in page.inner_text("#result .explain")
    page.click("#nav-replay")
    page.set_input_files("#replay-file", str(path))
    page.wait_for_selector("#replay-view:not([hidden])", timeout=WAIT_MS)
    assert page.inner_text("#rp-text") == "The deal"
    assert len(page.query_selector_all("#rp-seats .seat")) == players
    first = page.inner_text("#rp-text")
    page.click("#rp-next")
    assert page.inner_text("#rp-text") != first
    page.keyboard.press("ArrowRight")
    assert "step 2 of" in page.inner_text("#rp-step")
    for _ in range(20):
        page.click("#rp-next")
    page.screenshot(path=str(shots / f"web_{name}_replay.png"), full_page=True)
    page.click("#rp-last")
    assert "final scores" in page.inner_text("#rp-text")
    return records


def test_standard_hand_by_clicking_with_hint_reload_download_and_replay(browser, tmp_path,
                                                                         shots):
    url, context, page, errors = _open_page(browser)
    _deal(page, url, "standard", 11, "expert")
    page.screenshot(path=str(shots / "web_setup.png"), full_page=True)
    page.click("#start")
    seen = _play_hand(page, shots, "standard", hint=True, reload_at=3)
    assert seen["declared"] and seen["hinted"] == "values" and seen["reloaded"] and seen["typed"]
    assert seen["turns"] >= 13
    records = _download_and_replay(page, tmp_path, shots, "standard", 4)
    rec = records[0]
    assert rec["meta"]["human_seat"] == 0 and rec["rules"]["decks"] == 1
    # The typed card was played by seat 0.
    assert seen["typed"] in [c for t in rec["tricks"] for c in t["cards"]]
    # A phone's width: the same page, one column.
    page.set_viewport_size({"width": 390, "height": 844})
    page.click("#nav-new")
    _deal(page, url, "standard", 12, "greedy")
    page.click("#start")
    _your_turn_or_result(page)
    page.screenshot(path=str(shots / "web_phone.png"), full_page=True)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide at a phone's 390"
    assert not errors, errors
    context.close()


def test_two_deck_hand_by_clicking_pairs_and_two_card_follows(browser, tmp_path, shots):
    url, context, page, errors = _open_page(browser)
    # Seed 5: the person leads a pair and follows a pair lead with two cards in this deal.
    _deal(page, url, "two_decks", 5, "expert")
    page.click("#start")
    seen = _play_hand(page, shots, "two_decks", hint=True)
    assert seen["declared"] and seen["turns"] >= 26 and seen["hinted"] == "values"
    records = _download_and_replay(page, tmp_path, shots, "two_decks", 4)
    rec = records[0]
    assert rec["rules"]["decks"] == 2
    # The person led a pair (by its button) and followed pair leads with two cards.
    assert seen["pairs"] == 1 and seen["two_card"] >= 2, seen
    assert any(len(t["cards"]) == 8 and t["leader"] == 0 for t in rec["tricks"])
    # Team results are grouped by team, each headed by its total; the partners sit together.
    heads = page.eval_on_selector_all("#result tr.team", "rows => rows.map(r => r.textContent)")
    assert len(heads) == 2 and heads[0].startswith("Your team"), heads
    order = page.eval_on_selector_all("#result tr[data-seat]",
                                      "rows => rows.map(r => Number(r.dataset.seat))")
    assert order == [0, 2, 1, 3], order
    assert "each team's hand score" in page.inner_text("#result .explain")
    assert not errors, errors
    context.close()


def test_a_three_player_match_to_its_end_with_the_standings(browser, tmp_path, shots):
    url, context, page, errors = _open_page(browser)
    _deal(page, url, "standard", 7, "expert")
    page.select_option("#cfg-players", "3")
    page.select_option("#cfg-match", "match")
    page.fill("#cfg-threshold", "-1000")
    for select in page.query_selector_all("select.opponent"):
        select.select_option("random")
    page.click("#start")
    hands = 0
    exposed: list[tuple[int, str]] = []
    while True:
        seen = _play_hand(page, shots, "match", hint=False, expose=True)
        hands += 1
        exposed += [(hands, card) for card in seen["exposed"]]
        if seen["exposed"]:
            # The exposure is shown at the person's seat.
            shown = page.eval_on_selector_all("#me .exposed .card",
                                              "cs => cs.map(c => c.dataset.card)")
            assert set(seen["exposed"]) <= set(shown)
        assert seen["turns"] >= 17  # seventeen cards each at three seats
        assert "Match totals after this hand" in page.inner_text("#standings")
        if not page.is_visible("#next-hand"):
            break
        before = int(page.get_attribute("#table", "data-seq"))
        page.click("#next-hand")
        page.wait_for_function(f"() => Number(document.querySelector('#table').dataset.seq) "
                               f"> {before}", timeout=WAIT_MS)
        assert "before this hand" in page.inner_text("#standings")
    assert f"Match over after {hands} hands" in page.inner_text("#result")
    totals = [int(x.inner_text()) for x in page.query_selector_all("#result tr td:nth-child(4)")]
    assert hands >= 2 and len(totals) == 3 and min(totals) <= -1000
    with page.expect_download(timeout=WAIT_MS) as info:
        page.click("#download")
    path = tmp_path / "match.jsonl"
    info.value.save_as(path)
    records = load_records(path)
    assert len(records) == hands
    assert [sum(r["scores"][s] for r in records) for s in range(3)] == totals
    # Every card the person exposed by clicking is a declaration of seat 0 in the records.
    assert exposed, "the person never held an exposable card in this match"
    for hand, card in exposed:
        assert [0, card] in records[hand - 1]["declarations"]
    page.screenshot(path=str(shots / "web_match_result.png"), full_page=True)
    assert not errors, errors
    context.close()


def test_replay_files_up_to_the_stated_limit_open_and_a_larger_one_is_explained(browser,
                                                                                 tmp_path):
    url, context, page, errors = _open_page(browser)
    page.goto(url)
    page.wait_for_selector("#setup:not([hidden])", timeout=WAIT_MS)
    limit = 4 * 1024 * 1024
    at_limit, over = tmp_path / "at-limit.jsonl", tmp_path / "too-big.jsonl"
    at_limit.write_bytes(record_file(limit))
    over.write_bytes(record_file(limit + 1))
    page.click("#nav-replay")
    assert "4.0 MiB" in page.inner_text("#replay")
    page.set_input_files("#replay-file", str(over))
    page.wait_for_selector("#replay-error:not([hidden])", timeout=WAIT_MS)
    assert "too-big.jsonl" in page.inner_text("#replay-error")
    assert "up to 4.0 MiB" in page.inner_text("#replay-error")
    page.set_input_files("#replay-file", str(at_limit))
    page.wait_for_function("() => document.querySelectorAll('#replay-hands li').length === 8",
                           timeout=WAIT_MS)
    assert page.is_hidden("#replay-error")
    assert page.inner_text("#conn") == "connected", "the connection was never dropped"
    assert not errors, errors
    context.close()
