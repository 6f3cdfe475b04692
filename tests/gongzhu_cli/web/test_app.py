"""The web table's application, driven through Starlette's test client (no network).

WebSocket sessions from the first message to the downloaded record, reconnecting after a
reload, the bounds (tables, idle time, message size, rate), and every kind of bad input: each
answered with a clear error to that browser alone, the table unchanged, the server and the
other tables unaffected. An agent that waits on a gate shows that a thinking AI holds up
neither its own connection nor another table.
"""

from __future__ import annotations

import contextlib
import gc
import json
import threading
import time
import tracemalloc
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from agents import factory
from agents.base import Agent
from gongzhu_cli.serve import is_loopback
from gongzhu_env.cards import card_symbol, parse_card
from gongzhu_env.records import record_digest, replay_record
from tests.gongzhu_cli.web.support import record_file, require_web
from tests.helpers import HANG_S

testclient = require_web("starlette.testclient")
from gongzhu_cli.web.app import Limits, create_app  # noqa: E402 - after the [web] check
from tests.gongzhu_cli.web.support import TEST_HOSTS  # noqa: E402

GATE = threading.Event()


class GateAgent(Agent):
    """Plays the first legal action, but only once the test opens ``GATE``."""

    name = "gate"

    def act(self, view):  # noqa: D102
        assert GATE.wait(HANG_S), "the gate was never opened"
        return view.legal_actions[0]


@pytest.fixture
def gate(monkeypatch) -> Iterator[threading.Event]:
    monkeypatch.setitem(factory.BUILDERS, "gate", GateAgent)
    GATE.clear()
    yield GATE
    GATE.set()


class BrokenAgent(Agent):
    """Answers with a card index that is no action at all."""

    name = "broken"

    def act(self, view):  # noqa: D102
        return 999


@pytest.fixture
def broken(monkeypatch) -> None:
    monkeypatch.setitem(factory.BUILDERS, "broken", BrokenAgent)


def client(**limits: Any) -> Any:
    opponents = ("expert", "greedy", "random", "gate", "broken", "search", "policy:pretrained",
                 "pimc")
    return testclient.TestClient(create_app(Limits(**limits), opponents=opponents,
                                            allowed_hosts=TEST_HOSTS))


def open_table(ws: Any, **config: Any) -> tuple[dict, dict]:
    """Start a table on a fresh connection; return the ``table`` and first ``state``."""
    hello = ws.receive_json()
    assert hello["type"] == "hello" and "expert" in hello["opponents"]
    ws.send_json({"type": "new_table", "config": config})
    table = ws.receive_json()
    assert table["type"] == "table", table
    state = ws.receive_json()
    assert state["type"] == "state"
    return table, state


def until_turn(ws: Any, state: dict) -> dict:
    """Read states until the person is to act or the hand is over."""
    while not (state["your_turn"] or state["phase"] == "over"):
        state = ws.receive_json()
        assert state["type"] == "state", state
    return state


def play_out(ws: Any, state: dict, rng: np.random.Generator) -> dict:
    """Play random legal moves for the person until the hand is over; return the last state."""
    state = until_turn(ws, state)
    while state["phase"] != "over":
        legal = state["legal"]
        ws.send_json({"type": "move", "action": legal[int(rng.integers(len(legal)))]})
        state = until_turn(ws, ws.receive_json())
    return state


def snapshot(state: dict) -> tuple:
    return (state["seq"], state["hand"], state["legal"], state["trick"], state["exposed"],
            state["captured"], state["phase"])


def rejoin(ws: Any, table_id: str) -> dict:
    ws.send_json({"type": "join", "table": table_id})
    assert ws.receive_json()["type"] == "table"
    return ws.receive_json()


def expect_error(ws: Any, code: str) -> dict:
    msg = ws.receive_json()
    assert msg["type"] == "error" and msg["code"] == code, msg
    assert len(msg["message"]) > 20  # a sentence for a person, not a bare code
    return msg


# --------------------------------------------------------------------------- a whole hand
def test_a_hand_from_deal_to_record_and_replay():
    rng = np.random.default_rng(0)
    with client() as c, c.websocket_connect("/ws") as ws:
        table, state = open_table(ws, opponents=["expert", "greedy", "random"], seed=4, seat=2)
        assert table["labels"][2] == "You (seat 2)" and "expert" in table["labels"][0]
        assert len(state["hand"]) == 13 and state["seat"] == 2
        final = play_out(ws, state, rng)
        assert final["result"] is not None and final["records"] == 1
        assert sum(final["result"]["settled"]) in range(-3, 4)  # zero-sum, up to rounding
        ws.send_json({"type": "record"})
        rec_msg = ws.receive_json()
        lines = rec_msg["text"].splitlines()
        assert rec_msg["type"] == "record" and len(lines) == 1
        record = json.loads(lines[0])
        assert record["meta"]["human_seat"] == 2 and record["meta"]["seed"] == 4
        assert record["scores"] == final["result"]["scores"]
        record.pop("digest")
        replay_record(record)
        # The same record replays in the browser's replay view, step by step.
        ws.send_json({"type": "replay_open", "text": rec_msg["text"]})
        listing = ws.receive_json()
        assert listing["type"] == "replay" and listing["hands"][0]["scores"] == record["scores"]
        ws.send_json({"type": "replay_hand", "hand": 1})
        frames = ws.receive_json()
        assert len(frames["frames"]) == len(record["actions"]) + 1
        assert frames["frames"][0]["hands"][2] == record["deal"][2]
        assert frames["frames"][-1]["scores"] == record["scores"]


def test_the_same_seed_deals_the_same_table():
    hands = []
    for _ in range(2):
        with client() as c, c.websocket_connect("/ws") as ws:
            _, state = open_table(ws, opponents="expert", seed=99)
            hands.append(state["hand"])
    assert hands[0] == hands[1]


def test_a_match_runs_hand_after_hand_to_its_end():
    rng = np.random.default_rng(1)
    with client() as c, c.websocket_connect("/ws") as ws:
        _, state = open_table(ws, opponents="greedy", seed=3, match=True, threshold=-150)
        hands = 0
        while True:
            state = play_out(ws, state, rng)
            hands += 1
            assert state["records"] == hands and len(state["match"]["history"]) == hands
            if state["match"]["over"]:
                break
            ws.send_json({"type": "next_hand"})
            state = ws.receive_json()
            assert state["hand_number"] == hands + 1 and state["phase"] != "over"
        totals = state["match"]["totals"]
        assert min(totals) <= -150
        assert state["match"]["winners"] == [s for s in range(4) if totals[s] == max(totals)]
        ws.send_json({"type": "next_hand"})
        expect_error(ws, "match_over")


# --------------------------------------------------------------------------- sessions
def test_reconnect_after_a_reload_finds_the_same_table():
    with client() as c:
        with c.websocket_connect("/ws") as ws:
            table, state = open_table(ws, opponents="expert", seed=8)
            state = until_turn(ws, state)
            ws.send_json({"type": "move", "action": state["legal"][0]})
            state = until_turn(ws, ws.receive_json())
        # The page reloads: a new connection joins the table by its id.
        with c.websocket_connect("/ws") as ws2:
            assert ws2.receive_json()["type"] == "hello"
            again = rejoin(ws2, table["table"])
            assert snapshot(again) == snapshot(state)
            # A second window takes the table over; the first is told.
            with c.websocket_connect("/ws") as ws3:
                ws3.receive_json()
                rejoin(ws3, table["table"])
                detached = ws2.receive_json()
                assert detached["type"] == "detached"
                ws2.send_json({"type": "move", "action": again["legal"][0]})
                expect_error(ws2, "no_table")


def test_tables_are_bounded_and_freed_when_idle():
    with client(max_tables=2, idle_s=600) as c:
        server = c.app.state.server
        ids = []
        for _ in range(2):
            with c.websocket_connect("/ws") as ws:
                table, state = open_table(ws, opponents="random")
                until_turn(ws, state)  # no AI is thinking (a thinking table is not freed)
                ids.append(table["table"])
        with c.websocket_connect("/ws") as ws:
            ws.receive_json()
            ws.send_json({"type": "new_table", "config": {"opponents": "random"}})
            assert "limit of 2 tables" in expect_error(ws, "full")["message"]
            # Ten minutes without activity later, both are freed and the id is refused.
            freed = server.store.sweep(now=time.monotonic() + 601)
            assert sorted(freed) == sorted(ids)
            ws.send_json({"type": "join", "table": ids[0]})
            expect_error(ws, "unknown_table")
            ws.send_json({"type": "new_table", "config": {"opponents": "random"}})
            assert ws.receive_json()["type"] == "table"


def test_the_server_frees_an_idle_table_by_itself():
    # The sweeper runs in the background; the test waits for the table to be gone.
    with client(idle_s=0.2, sweep_s=0.05) as c, c.websocket_connect("/ws") as ws:
        table, _ = open_table(ws, opponents="random")
        with c.websocket_connect("/ws") as probe:
            probe.receive_json()
            deadline = time.monotonic() + HANG_S
            while table["table"] in c.app.state.server.store.tables:
                assert time.monotonic() < deadline, "the idle table was never freed"
                time.sleep(0.05)
            probe.send_json({"type": "join", "table": table["table"]})
            expect_error(probe, "unknown_table")
        ws.send_json({"type": "hint"})
        msg = ws.receive_json()
        while msg["type"] == "state":  # the AI seats' moves made before the table was freed
            msg = ws.receive_json()
        assert msg["type"] == "error" and msg["code"] == "no_table", msg


def test_a_thinking_ai_holds_up_neither_its_connection_nor_another_table(gate):
    with client() as c, c.websocket_connect("/ws") as ws:
        # Seat 3 holds C2 in this deal and declares first: the gate agent is thinking.
        table, state = open_table(ws, opponents="gate", seed=0, seat=0)
        assert state["thinking"] is not None and not state["your_turn"]
        ws.send_json({"type": "move", "action": "DONE"})
        assert "not your turn" in expect_error(ws, "not_your_turn")["message"]
        ws.send_json({"type": "ping"})
        assert ws.receive_json()["type"] == "pong"
        # Another table on the same server plays on meanwhile.
        with c.websocket_connect("/ws") as other:
            _, st = open_table(other, opponents="expert", seed=2)
            st = until_turn(other, st)
            other.send_json({"type": "move", "action": st["legal"][0]})
            assert other.receive_json()["type"] == "state"
        gate.set()
        state = until_turn(ws, ws.receive_json())
        assert state["your_turn"]


def test_an_agent_that_fails_stops_its_table_with_the_reason(broken):
    with client() as c, c.websocket_connect("/ws") as ws, \
            c.websocket_connect("/ws") as other:
        table, state = open_table(ws, opponents="broken", seed=0)
        while state["failure"] is None:
            state = ws.receive_json()
        assert "illegal action 999" in state["failure"] and not state["your_turn"]
        ws.send_json({"type": "move", "action": "DONE"})
        expect_error(ws, "table_failed")
        # Nothing else is touched: a table on the same server plays on.
        _, st = open_table(other, opponents="random", seed=1)
        st = until_turn(other, st)
        other.send_json({"type": "move", "action": st["legal"][0]})
        assert other.receive_json()["type"] == "state"


# --------------------------------------------------------------------------- bad input
def test_every_kind_of_bad_input_is_answered_and_changes_nothing():
    with client(max_message=4096) as c, c.websocket_connect("/ws") as ws, \
            c.websocket_connect("/ws") as bystander:
        table, state = open_table(ws, opponents="expert", seed=21)
        state = until_turn(ws, state)
        _, theirs = open_table(bystander, opponents="random", seed=22)
        before = snapshot(state)
        hand = set(state["hand"])
        not_held = next(f"{s}{r}" for s in "CDHS" for r in ("2", "3", "A", "K")
                        if f"{s}{r}" not in hand)
        illegal = next((card for card in state["hand"] if card not in state["legal"]), None)
        cases = [
            ("{not json", "bad_json"),
            ("[1, 2]", "bad_message"),
            (json.dumps({"type": "teleport"}), "unknown_type"),
            (json.dumps({"type": "move"}), "bad_action"),
            (json.dumps({"type": "move", "action": 49}), "bad_action"),
            (json.dumps({"type": "move", "action": "ZZ"}), "bad_action"),
            (json.dumps({"type": "move", "action": not_held}), "illegal"),
            (json.dumps({"type": "move", "action": state["legal"][0], "seat": 1}), "wrong_seat"),
            (json.dumps({"type": "move", "action": "x" * 5000}), "too_large"),
            (json.dumps({"type": "join", "table": "no-such-table"}), "unknown_table"),
            (json.dumps({"type": "replay_hand", "hand": 1}), "no_replay"),
            (json.dumps({"type": "replay_open", "text": "{\"format\": 1}\n"}), "bad_record"),
        ]
        if illegal is not None:
            cases.append((json.dumps({"type": "move", "action": illegal}), "illegal"))
        for text, code in cases:
            ws.send_text(text)
            msg = expect_error(ws, code)
            if code == "illegal":
                assert "is not legal" in msg["message"] and "Legal now" in msg["message"]
        ws.send_bytes(b"\x00\x01")
        expect_error(ws, "binary")
        # The table is as it was, the connection still plays it, and the bystander too.
        assert snapshot(rejoin(ws, table["table"])) == before
        ws.send_json({"type": "move", "action": state["legal"][0]})
        assert ws.receive_json()["seq"] == before[0] + 1
        theirs = until_turn(bystander, theirs)
        bystander.send_json({"type": "move", "action": theirs["legal"][0]})
        assert bystander.receive_json()["type"] == "state"


def test_bad_table_settings_are_refused_by_name():
    with client() as c, c.websocket_connect("/ws") as ws:
        ws.receive_json()
        for config, words in [
            ({"players": 9}, "players"),
            ({"preset": "poker"}, "preset"),
            ({"options": {"decks": 3}}, "decks"),
            ({"seat": 4}, "seat"),
            ({"opponents": "policy:/etc/passwd"}, "unknown opponent"),
            ({"opponents": ["expert", "greedy"]}, "one per seat"),
            ({"seed": -1}, "seed"),
            # The same range as every --seed of the command line (2**32 - 1 at most).
            ({"seed": 2**32}, "0..4294967295"),
            ({"threshold": 100}, "negative"),
            ({"colour": "red"}, "unknown table setting"),
            ({"preset": "two_decks", "opponents": "pimc", "players": 5}, "players"),
        ]:
            ws.send_json({"type": "new_table", "config": config})
            msg = ws.receive_json()
            assert msg["type"] == "error" and words in msg["message"], (config, msg)


def test_a_flood_of_messages_is_refused_then_the_table_plays_on():
    # Two a second after a burst of ten: the sixty pings are answered within seconds even
    # on a loaded machine, so most of them find the budget spent.
    with client(rate=2, burst=10) as c, c.websocket_connect("/ws") as ws:
        table, state = open_table(ws, opponents="expert", seed=5)
        state = until_turn(ws, state)
        for _ in range(60):
            ws.send_json({"type": "ping"})
        answers = [ws.receive_json() for _ in range(60)]
        refused = [a for a in answers if a.get("code") == "rate_limited"]
        assert len(refused) >= 30 and "too many messages" in refused[0]["message"]
        # Once the budget refills, the same connection plays its table, which is unchanged.
        deadline = time.monotonic() + HANG_S
        while True:
            ws.send_json({"type": "join", "table": table["table"]})
            msg = ws.receive_json()
            if msg["type"] == "table":
                break
            assert msg["code"] == "rate_limited" and time.monotonic() < deadline
            time.sleep(msg["retry_after"])
        assert snapshot(ws.receive_json()) == snapshot(state)


def test_a_page_of_another_site_cannot_connect():
    with client() as c:
        with pytest.raises(Exception), c.websocket_connect(  # noqa: B017 - closed by the server
                "/ws", headers={"origin": "http://evil.example"}) as ws:
            ws.receive_json()
        with c.websocket_connect("/ws", headers={"origin": "http://testserver"}) as ws:
            assert ws.receive_json()["type"] == "hello"


def test_the_page_and_its_files_are_served_with_a_strict_policy():
    with client() as c:
        page = c.get("/")
        assert page.status_code == 200 and "Gong Zhu" in page.text
        assert "default-src 'self'" in page.headers["content-security-policy"]
        for name in ("app.js", "cards.js", "style.css"):
            r = c.get(f"/static/{name}")
            assert r.status_code == 200 and r.headers["x-content-type-options"] == "nosniff"


# --------------------------------------------------------------------------- the hint
def test_the_hint_values_every_legal_card_from_the_persons_view():
    pytest.importorskip("torch")
    with client() as c, c.websocket_connect("/ws") as ws:
        _, state = open_table(ws, opponents="expert", seed=11)
        state = until_turn(ws, state)
        ws.send_json({"type": "move", "action": "DONE"})  # seat 0 holds no exposable card
        state = until_turn(ws, ws.receive_json())
        assert state["phase"] == "play" and len(state["legal"]) > 1
        ws.send_json({"type": "hint"})
        hint = ws.receive_json()
        assert hint["type"] == "hint" and hint["seq"] == state["seq"]
        assert set(hint["values"]) == set(state["legal"])
        # The choice is a best card (equal cards, such as C5 and C6 here, tie).
        assert hint["values"][hint["choice"]] == max(hint["values"].values())


def _first_play_hint(**config: object) -> tuple[dict, dict]:
    """Open a table against ``expert``, declare nothing, ask for a hint at the first play."""
    with client() as c, c.websocket_connect("/ws") as ws:
        _, state = open_table(ws, opponents="expert", seed=5, **config)
        state = until_turn(ws, state)
        if state["phase"] == "declare":
            ws.send_json({"type": "move", "action": "DONE"})
            state = until_turn(ws, ws.receive_json())
        ws.send_json({"type": "hint"})
        return state, ws.receive_json()


def test_where_the_search_cannot_play_pimc_suggests_a_card_and_the_hint_says_why():
    state, hint = _first_play_hint(players=6)
    assert hint["type"] == "hint" and hint["values"] is None, hint
    assert hint["choice"] in state["legal"]
    # In a player's words: no option names, preset lists or commands.
    assert hint["note"] == "no trained network for six players yet; this suggestion comes " \
        "from pimc"


@pytest.mark.parametrize("config", [{"players": 5}, {"preset": "two_decks"}],
                         ids=["five_players", "two_decks"])
def test_where_a_network_is_shipped_the_search_values_the_cards(config):
    # A network is shipped for five seats and for two decks, so the search (which needs one)
    # gives the hint; at two decks pair leads are valued as actions of their own.
    state, hint = _first_play_hint(**config)
    assert hint["type"] == "hint" and hint["values"] is not None, hint
    assert set(hint["values"]) == set(state["legal"])
    assert "ways the unseen cards could lie" in hint["note"]
    # Under team rules (two decks) the values are the team's result, and the note says so.
    assert ("your team" in hint["note"]) == ("preset" in config)


def test_loopback_addresses():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("127.3.4.5")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.2")


# --------------------------------------------------------------------------- bounds
def _wait_for(condition: Any, what: str) -> None:
    """Wait until ``condition()`` holds (the server acts on a disconnect in its own time)."""
    deadline = time.monotonic() + HANG_S
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.01)


def test_a_table_whose_window_is_gone_is_freed_after_the_grace_unless_rejoined():
    with client(grace_s=60, idle_s=600) as c:
        store = c.app.state.server.store
        with c.websocket_connect("/ws") as ws:
            table, state = open_table(ws, opponents="random")
            until_turn(ws, state)
        held = store.tables[table["table"]]
        _wait_for(lambda: held.orphaned_since is not None, "the table noticed its window left")
        assert store.sweep(now=held.orphaned_since + 59) == []
        # A window that comes back within the grace keeps the table, for as long as it plays.
        with c.websocket_connect("/ws") as ws:
            ws.receive_json()
            rejoin(ws, table["table"])
            assert held.orphaned_since is None
            assert store.sweep(now=time.monotonic() + 61) == []
        _wait_for(lambda: held.orphaned_since is not None, "the table noticed its window left")
        assert store.sweep(now=held.orphaned_since + 60) == [table["table"]]


def test_one_address_holds_its_share_of_tables_and_a_full_server_says_when_to_retry():
    with client(tables_per_client=2, idle_s=600) as c, contextlib.ExitStack() as stack:
        store = c.app.state.server.store
        windows = [stack.enter_context(c.websocket_connect("/ws")) for _ in range(3)]
        first, _ = open_table(windows[0], opponents="random")
        open_table(windows[1], opponents="random")
        windows[2].receive_json()
        windows[2].send_json({"type": "new_table", "config": {"opponents": "random"}})
        refused = expect_error(windows[2], "too_many_tables")
        assert refused["retry_after"] > 0 and "try again in" in refused["message"]
        # The first window goes: its table is the one this address gives up for a new one.
        windows[0].close()
        held = store.tables[first["table"]]
        _wait_for(lambda: held.orphaned_since is not None, "the table noticed its window left")
        windows[2].send_json({"type": "new_table", "config": {"opponents": "random"}})
        assert windows[2].receive_json()["type"] == "table"
        assert first["table"] not in store.tables and len(store.tables) == 2
    with client(max_tables=1) as c, c.websocket_connect("/ws") as ws, \
            c.websocket_connect("/ws") as other:
        open_table(ws, opponents="random")
        other.receive_json()
        other.send_json({"type": "new_table", "config": {"opponents": "random"}})
        full = expect_error(other, "full")
        assert 0 < full["retry_after"] <= 1800 and "try again in" in full["message"]


def test_connections_are_bounded_per_address_and_a_silent_socket_is_closed():
    with client(connections_per_client=2, socket_idle_s=600) as c, \
            c.websocket_connect("/ws") as a, c.websocket_connect("/ws") as b:
        assert a.receive_json()["type"] == b.receive_json()["type"] == "hello"
        with c.websocket_connect("/ws") as third:
            refused = third.receive_json()
            assert refused["code"] == "too_many_connections" and refused["retry_after"] > 0
            assert third.receive()["code"] == 1013  # "try again later"
    with client(socket_idle_s=0.5) as c, c.websocket_connect("/ws") as ws:
        assert ws.receive_json()["type"] == "hello"
        assert "nothing was received" in expect_error(ws, "idle")["message"]
        assert ws.receive()["type"] == "websocket.close"


def test_a_request_naming_another_host_is_refused():
    # DNS rebinding: a page of attacker.test whose name now points at this machine sends
    # Host: attacker.test, and a matching Origin.
    with client() as c:
        assert c.get("/", headers={"host": "attacker.test"}).status_code == 400
        with pytest.raises(Exception), c.websocket_connect(  # noqa: B017 - refused
                "/ws", headers={"host": "attacker.test",
                                "origin": "http://attacker.test"}) as ws:
            ws.receive_json()
        assert c.get("/").status_code == 200


# --------------------------------------------------------------------------- hints, shared
def test_a_hint_being_computed_holds_up_no_other_tables_moves(monkeypatch):
    from gongzhu_cli.web.tables import TableSession

    started, release = threading.Event(), threading.Event()

    def slow_hint(self: TableSession, view: Any) -> tuple[None, int, str]:
        started.set()
        released = release.wait(HANG_S)
        return None, view.legal_actions[0], "released" if released else "waited out"

    monkeypatch.setattr(TableSession, "hint", slow_hint)
    rng = np.random.default_rng(3)
    # One thread for the moves of every table: a hint that took it would stop them all.
    with client(ai_threads=1, hint_processes=0, hint_threads=1) as c, \
            c.websocket_connect("/ws") as ws, c.websocket_connect("/ws") as other:
        _, state = open_table(ws, opponents="random", seed=1)
        until_turn(ws, state)
        ws.send_json({"type": "hint"})
        assert started.wait(HANG_S)
        _, theirs = open_table(other, opponents="random", seed=2)
        assert play_out(other, theirs, rng)["phase"] == "over"
        release.set()
        hint = ws.receive_json()
        assert hint["type"] == "hint" and hint["note"] == "released", hint


def test_hints_are_rate_limited_per_table(monkeypatch):
    from gongzhu_cli.web.tables import TableSession

    monkeypatch.setattr(TableSession, "hint",
                        lambda self, view: (None, view.legal_actions[0], "a quick answer"))
    with client(hint_rate=0.001, hint_burst=2, hint_processes=0) as c, \
            c.websocket_connect("/ws") as ws, c.websocket_connect("/ws") as other:
        _, state = open_table(ws, opponents="random", seed=1)
        until_turn(ws, state)
        for _ in range(2):
            ws.send_json({"type": "hint"})
            assert ws.receive_json()["type"] == "hint"
        ws.send_json({"type": "hint"})
        refused = expect_error(ws, "hint_rate")
        assert refused["retry_after"] > 0 and "try again in" in refused["message"]
        # Another table has a budget of its own.
        _, theirs = open_table(other, opponents="random", seed=2)
        until_turn(other, theirs)
        other.send_json({"type": "hint"})
        assert other.receive_json()["type"] == "hint"


# --------------------------------------------------------------------------- replay files
MIB4 = 4 * 1024 * 1024


def _open_file(ws: Any, name: str, data: bytes) -> dict:
    """Open a replay file as the page does: its name and size, then the bytes."""
    ws.send_json({"type": "replay_open", "name": name, "size": len(data)})
    ws.send_bytes(data)
    return ws.receive_json()


def test_a_replay_file_of_the_stated_limit_opens_and_a_larger_one_is_refused_by_name():
    data = record_file(MIB4)
    with client() as c, c.websocket_connect("/ws") as ws:
        assert ws.receive_json()["limits"]["max_upload"] == MIB4
        listing = _open_file(ws, "big.jsonl", data)
        assert listing["type"] == "replay" and len(listing["hands"]) == 8, listing
        ws.send_json({"type": "replay_open", "name": "bigger.jsonl", "size": MIB4 + 1})
        message = expect_error(ws, "too_large")["message"]
        assert "bigger.jsonl" in message and "4 MiB" in message
        ws.send_json({"type": "replay_hand", "hand": 8})
        assert ws.receive_json()["type"] == "replay_hand"


def test_an_opened_replay_is_held_as_a_small_index():
    data = record_file(None, hands=600)
    assert len(data) > 800_000
    with client() as c, c.websocket_connect("/ws") as ws:
        ws.receive_json()
        gc.collect()
        tracemalloc.start()
        try:
            ws.send_json({"type": "replay_open", "name": "hands.jsonl",
                          "text": data.decode("utf-8")})
            listing = ws.receive_json()
            assert listing["type"] == "replay" and len(listing["hands"]) == 600
            del listing
            gc.collect()
            held = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
        # The compressed lines and the summaries: well under the file itself (the parsed
        # records took ten times the file).
        assert held < len(data) / 2, (held, len(data))
        ws.send_json({"type": "replay_hand", "hand": 600})
        assert ws.receive_json()["hand"] == 600


def test_a_record_without_digest_or_with_forged_scores_is_refused_before_any_score():
    lines = record_file(None, hands=3).decode("utf-8").splitlines()
    bare = json.loads(lines[1])
    del bare["digest"]
    forged = json.loads(lines[2])
    forged["scores"] = [s + 100 if k == 0 else s for k, s in enumerate(forged["scores"])]
    forged["scores"][1] -= 100
    forged["digest"] = record_digest(forged)
    with client() as c, c.websocket_connect("/ws") as ws:
        ws.receive_json()
        for bad, words in [(json.dumps(bare), "line 2: the record has no digest"),
                           (json.dumps(forged), "line 3: stored scores")]:
            text = "\n".join([lines[0], *( [bad] if "line 2" in words else [lines[1], bad])])
            ws.send_json({"type": "replay_open", "name": "mine.jsonl", "text": text + "\n"})
            message = expect_error(ws, "bad_record")["message"]
            assert f"mine.jsonl, {words}" in message, message


def test_replay_errors_name_the_persons_file_not_a_server_path():
    with client() as c, c.websocket_connect("/ws") as ws:
        ws.receive_json()
        for text in ("not json\n", "", "{\"format\": 1}\n"):
            ws.send_json({"type": "replay_open", "name": "my-hands.jsonl", "text": text})
            message = expect_error(ws, "bad_record")["message"]
            assert "my-hands.jsonl" in message and "/tmp" not in message \
                and "upload" not in message, message


# --------------------------------------------------------------------------- words
def test_the_declaration_prompt_names_only_the_cards_one_may_expose():
    seen = set()
    with client() as c:
        for seed in range(40):
            with c.websocket_connect("/ws") as ws:
                _, state = open_table(ws, opponents="random", seed=seed)
                state = until_turn(ws, state)
            if state["phase"] != "declare":
                continue
            may = [card_symbol(parse_card(a)) for a in state["legal"] if a != "DONE"]
            prompt = state["prompt"]
            for card in ("♠Q", "♦J", "♣10", "♥A"):
                assert (card in prompt) == (card in may), (prompt, state["legal"])
            if not may:
                assert "no card you may expose" in prompt
            seen.add(bool(may))
            if seen == {True, False}:
                break
    assert seen == {True, False}, "both a hand with exposable cards and one without"


@pytest.mark.parametrize(("config", "words"), [
    ({}, "minus the average of the other seats' scores"),
    ({"options": {"team_play": True}}, "each team's hand score against the other team's"),
    ({"options": {"settlement": "yuanbao"}}, "pays the top scorer the difference"),
], ids=["zero_sum", "teams", "coins"])
def test_the_result_explains_the_settlement_and_groups_teams(config, words):
    rng = np.random.default_rng(2)
    with client() as c, c.websocket_connect("/ws") as ws:
        _, state = open_table(ws, opponents="random", seed=6, **config)
        result = play_out(ws, state, rng)["result"]
    assert words in result["explain"]
    if "team_play" in str(config):
        assert sorted(map(sorted, result["teams"])) == [[0, 2], [1, 3]]
    else:
        assert result["teams"] is None
