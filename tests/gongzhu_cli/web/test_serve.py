"""``gongzhu serve`` as a command: bad flags refused, loopback by default, a warning beyond it.

Every server these tests start runs inside a loopback-only network namespace where the
platform allows; the one that listens on 0.0.0.0 runs only there.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import subprocess
import sys
import urllib.request
from typing import Any

import pytest

from tests.gongzhu_cli.web.support import ROOT, isolated, record_file, require_web, served
from tests.helpers import HANG_S

require_web("starlette")


@pytest.mark.parametrize(("flags", "words"), [
    (["--port", "70000"], "--port must be 0..65535"),
    (["--max-tables", "0"], "--max-tables must be at least 1"),
    (["--idle-timeout", "-5"], "--idle-timeout must be a positive number"),
    # An address of no interface here (TEST-NET-1): the bind fails, nothing is sent.
    (["--host", "192.0.2.1"], "cannot listen on 192.0.2.1:8000"),
    (["--agent", "wizard"], "--agent 'wizard': unknown agent"),
    (["--agent", "pimc:worlds=0"], "worlds must be a positive integer"),
    (["--allow-host", "https://cards.example.org"], "--allow-host takes a host name"),
])
def test_bad_flags_are_refused_with_a_reason(flags, words):
    with isolated():
        proc = subprocess.run([sys.executable, "-m", "gongzhu_cli", "serve", *flags],
                              cwd=ROOT, capture_output=True, text=True, timeout=HANG_S)
    assert proc.returncode == 2 and words in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_it_serves_the_page_on_loopback_by_default():
    with isolated(), served() as (proc, url):
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url, timeout=HANG_S) as r:
            assert r.status == 200 and b"Gong Zhu" in r.read()


def test_a_host_beyond_loopback_is_warned_about():
    with isolated() as why:
        if why is not None:
            pytest.skip(f"listening beyond loopback only inside a namespace: {why}")
        with served("--host", "0.0.0.0") as (proc, url):
            head = proc.head
    assert "warning: listening on 0.0.0.0, beyond this machine's loopback" in head


# --------------------------------------------------------------------------- bounds, for real
def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].strip("/"))


def _socket_from(address: str, port: int) -> socket.socket:
    """A TCP connection to the server from the loopback ``address`` (127.0.0.2: a stranger)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(HANG_S)
    sock.bind((address, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def _ws_from(address: str, port: int) -> Any:
    from websockets.sync.client import connect

    return connect(f"ws://127.0.0.1:{port}/ws", sock=_socket_from(address, port),
                   open_timeout=HANG_S, close_timeout=HANG_S, max_size=2**24, proxy=None)


def _get_page(address: str, port: int, host: str | None = None) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG_S,
                                      source_address=(address, 0))
    try:
        conn.request("GET", "/", headers={"Host": host or f"127.0.0.1:{port}"})
        return conn.getresponse().status
    finally:
        conn.close()


def _new_table(ws: Any) -> dict[str, Any]:
    ws.send(json.dumps({"type": "new_table", "config": {"opponents": "random"}}))
    while True:
        msg = json.loads(ws.recv(HANG_S))
        if msg["type"] in ("table", "error"):
            return msg


def test_one_address_opening_table_after_table_leaves_a_table_for_the_next_visitor():
    with isolated(), served() as (_, url):
        port = _port(url)
        for _ in range(64):
            with _ws_from("127.0.0.1", port) as ws:
                assert json.loads(ws.recv(HANG_S))["type"] == "hello"
                assert _new_table(ws)["type"] == "table"
        with _ws_from("127.0.0.2", port) as ws:
            json.loads(ws.recv(HANG_S))
            got = _new_table(ws)
            assert got["type"] == "table", got


def test_idle_sockets_of_one_address_keep_the_page_from_no_one_and_are_closed():
    with isolated(), served("--max-tables", "1") as (_, url), \
            contextlib.ExitStack() as stack:
        port = _port(url)
        # Sockets that never send a request, and WebSockets up to this address's cap.
        raw = [stack.enter_context(_socket_from("127.0.0.1", port)) for _ in range(64)]
        sockets = [stack.enter_context(_ws_from("127.0.0.1", port)) for _ in range(16)]
        for ws in sockets:
            assert json.loads(ws.recv(HANG_S))["type"] == "hello"
        with _ws_from("127.0.0.1", port) as extra:
            refused = json.loads(extra.recv(HANG_S))
            assert refused["code"] == "too_many_connections" and refused["retry_after"] > 0
        # A visitor from elsewhere gets the page and a connection.
        assert _get_page("127.0.0.2", port) == 200
        with _ws_from("127.0.0.2", port) as ws:
            assert json.loads(ws.recv(HANG_S))["type"] == "hello"
        # A socket that never sent a request is closed by the server.
        assert raw[0].recv(1) == b""


def test_only_the_allowed_host_names_are_answered():
    with isolated(), served("--allow-host", "cards.example.org") as (_, url):
        port = _port(url)
        assert _get_page("127.0.0.1", port, "attacker.test") == 400
        assert _get_page("127.0.0.1", port, f"attacker.test:{port}") == 400
        assert _get_page("127.0.0.1", port, "cards.example.org") == 200
        assert _get_page("127.0.0.1", port, f"localhost:{port}") == 200


def test_a_replay_file_of_four_mebibytes_travels_whole():
    data = record_file(4 * 1024 * 1024)
    with isolated(), served() as (_, url), _ws_from("127.0.0.1", _port(url)) as ws:
        json.loads(ws.recv(HANG_S))
        ws.send(json.dumps({"type": "replay_open", "name": "big.jsonl", "size": len(data)}))
        ws.send(data)
        listing = json.loads(ws.recv(HANG_S))
        assert listing["type"] == "replay" and len(listing["hands"]) == 8, listing
