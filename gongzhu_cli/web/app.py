"""The Starlette application of ``gongzhu serve``: the page, its files and one WebSocket.

A browser opens ``/ws`` and speaks JSON messages, one object per WebSocket text message, each
with a ``type``. From the browser:

===============  ===========================================================================
type             meaning
===============  ===========================================================================
new_table        ``{"config": {...}}`` (``TableConfig.parse``): build a table, seat the
                 person, answer ``table`` then ``state``
join             ``{"table": id}``: reconnect to a table (after a page reload), answer ``state``
move             ``{"action": "SQ" | "SQ+SQ" | "DONE"}`` (optional ``"seat"``, which must be
                 the person's own): play it
hint             what would the AI play here: answer ``hint``
next_hand        deal the next hand of a match
record           the finished hands as hand-record JSON lines: answer ``record``
leave            free the table
replay_open      a hand-record file to replay, ``{"name": "hands.jsonl", "size": n}`` followed
                 by the file as one binary frame of ``n`` bytes (the page), or ``{"name":
                 ..., "text": "..."}``: answer ``replay``
replay_hand      ``{"hand": n}`` (1-based): answer ``replay_hand`` with every step's frame
ping             answer ``pong`` (the page pings now and then: a silent socket is closed)
===============  ===========================================================================

From the server: ``hello`` (on connecting: presets, opponents, limits), ``table``,
``state`` (after every action, from the person's view: ``gongzhu_cli.web.messages``),
``hint``, ``record``, ``replay``, ``replay_hand``, ``detached`` (the table was opened in another
window), ``pong`` and ``error`` (``code`` and ``message``). Anything wrong a browser sends is
answered with an ``error`` to that browser alone, and changes nothing: malformed JSON, an
unknown type, an illegal or out-of-turn move, a move for another seat, a message over the size
limit, messages beyond the rate limit, an unknown table.

Agents act in worker threads (``anyio.to_thread``), on a copy of their seat's view, so a slow
``search`` never holds up another table; the game is changed only on the event loop. Hints
run in a pool of their own, with a per-table rate, so that tables asking for hints never
queue another table's moves behind their searches.

Bounds beyond the messages: WebSockets at once in all and per client address (checked here,
so that the page itself is always served), a socket that stays silent is closed, tables per
client address and a table whose windows are gone are freed (``TableStore``), and only the
host names given may reach the server (``TrustedHostMiddleware``), which stops a page of
another site from reaching a loopback server through DNS rebinding.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import multiprocessing
import operator
import time
from collections import Counter
from collections.abc import AsyncIterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from gongzhu_cli.web.messages import (
    describe,
    error_message,
    hello_message,
    hint_message,
    spectator_frame,
)
from gongzhu_cli.web.tables import (
    AUTO,
    OPPONENTS,
    Hint,
    RateLimit,
    ReplayIndex,
    TableConfig,
    TableError,
    TableSession,
    TableStore,
    advise,
    config_dict,
    hint_process_start,
)
from gongzhu_env.cards import ActionCodec, parse_card
from gongzhu_env.engine import Game
from gongzhu_env.integrity import printable
from gongzhu_env.records import RecordError, replay_record
from gongzhu_env.rules import PRESETS, Rules
from gongzhu_env.view import PlayerView

STATIC = Path(__file__).resolve().parent / "static"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
"""Host names a server answers by default: this machine's own (``--allow-host`` adds more)."""
TRY_AGAIN = 1013
"""WebSocket close code "try again later": the server has no room for the connection."""


@dataclass(frozen=True)
class Limits:
    """The server's bounds; ``gongzhu serve`` flags set them."""

    max_tables: int = 64
    """Live tables at once; a new table beyond it is refused until one is freed."""
    idle_s: float = 1800.0
    """A table nobody has touched for this long is freed."""
    grace_s: float = 120.0
    """A table whose windows have all gone is freed after this long (a reload rejoins it)."""
    tables_per_client: int = 4
    """Live tables opened from one client address."""
    max_connections: int = 256
    """WebSockets at once, from everyone."""
    connections_per_client: int = 16
    """WebSockets at once from one client address."""
    socket_idle_s: float = 120.0
    """A WebSocket that sends nothing for this long is closed (the page pings more often)."""
    max_message: int = 16 * 1024
    """Largest message a browser may send (bytes), but for a replay file."""
    max_upload: int = 4 * 1024 * 1024
    """Largest hand-record file the replay opens (bytes): some three thousand hands."""
    rate: float = 20.0
    """Messages per second a connection may send on average..."""
    burst: int = 60
    """...and at once."""
    ai_threads: int = 4
    """Worker threads for the agents' moves, shared by every table."""
    hint_processes: int = 1
    """Processes that compute hints, apart from the server's (0: threads of its own)."""
    hint_threads: int = 1
    """With ``hint_processes=0``, threads for hints, apart from the moves' threads."""
    hint_rate: float = 0.5
    """Hints a table may ask for a second on average..."""
    hint_burst: int = 4
    """...and at once."""
    hint_queue: int = 8
    """Hints waiting for a hint thread at once; beyond it a hint is refused for now."""
    sweep_s: float = 30.0
    """How often expired tables are looked for."""


class Connection:
    """One browser connection: its socket, the table it plays, its replay file, its budget."""

    def __init__(self, websocket: WebSocket, limits: Limits) -> None:
        self.websocket = websocket
        self.address = websocket.client.host if websocket.client else ""
        self.table: TableSession | None = None
        self.replay: ReplayIndex | None = None
        self.upload: tuple[str, int] | None = None
        """A replay file announced by ``replay_open`` (its name and size), its frame to come."""
        self.rate = RateLimit(limits.rate, limits.burst)
        self._send_lock = asyncio.Lock()
        self.open = True

    async def send(self, message: Mapping[str, Any]) -> None:
        """Send one message; a connection that has gone away is just marked closed."""
        if not self.open:
            return
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        async with self._send_lock:
            try:
                await self.websocket.send_text(text)
            except Exception:  # noqa: BLE001 - the browser left; the table lives on
                self.open = False


class Server:
    """The tables and the connections of one app."""

    def __init__(self, limits: Limits, opponents: Sequence[str]) -> None:
        self.limits = limits
        self.opponents = tuple(opponents)
        self.store = TableStore(limits.max_tables, limits.idle_s, limits.tables_per_client,
                                limits.grace_s)
        self.limiter = anyio.CapacityLimiter(limits.ai_threads)
        self.hint_limiter = anyio.CapacityLimiter(limits.hint_threads)
        self.hint_pool: ProcessPoolExecutor | None = None
        self.hints_waiting = 0
        self.sockets: Counter[str] = Counter()
        """Open WebSockets per client address."""
        self.attached: dict[str, Connection] = {}
        """Table id -> the connection that plays it now."""
        self.drivers: dict[str, asyncio.Task[None]] = {}

    # ------------------------------------------------------------------ lifecycle
    async def sweeper(self) -> None:
        """Free idle tables, forever (cancelled when the app stops)."""
        while True:
            await asyncio.sleep(self.limits.sweep_s)
            for table_id in self.store.sweep():
                conn = self.attached.pop(table_id, None)
                if conn is not None:
                    conn.table = None

    def hello(self) -> dict[str, Any]:
        """Return what a browser needs to offer a table (the ``hello`` message)."""
        return hello_message({
            "presets": {name: Rules.preset(name).to_dict() for name in PRESETS},
            "opponents": [AUTO, *self.opponents],
            "limits": {k: v for k, v in asdict(self.limits).items()
                       if k in ("max_tables", "idle_s", "grace_s", "socket_idle_s",
                                "max_message", "max_upload", "rate", "burst", "hint_rate")},
        })

    async def advise(self, table: TableSession, view: PlayerView) -> Hint:
        """Compute a hint for ``view`` away from the moves: in a hint process, or thread."""
        if self.limits.hint_processes <= 0:
            return await anyio.to_thread.run_sync(table.hint, view, limiter=self.hint_limiter)
        if self.hint_pool is None:
            # Spawned, not forked: the server runs threads, which a fork would copy midway.
            self.hint_pool = ProcessPoolExecutor(self.limits.hint_processes,
                                                 mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=hint_process_start)
        job = functools.partial(advise, table.id, table.rules, table.seat,
                                table.adviser.seed, view)
        try:
            return await asyncio.get_running_loop().run_in_executor(self.hint_pool, job)
        except BrokenProcessPool:
            self.hint_pool = None  # a hint process died; the next hint starts a fresh pool
            raise

    def close(self) -> None:
        """Free every table and stop the hint processes (the app is stopping)."""
        for table_id in list(self.store.tables):
            self.store.remove(table_id)
        if self.hint_pool is not None:
            self.hint_pool.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------------ one connection
    async def serve(self, websocket: WebSocket) -> None:
        """Read a connection's messages until it closes or falls silent; answer each."""
        await websocket.accept()
        conn = Connection(websocket, self.limits)
        refusal = self._no_room(conn.address)
        if refusal is not None:
            await conn.send(refusal)
            await websocket.close(code=TRY_AGAIN, reason="no room for another connection")
            return
        self.sockets[conn.address] += 1
        await conn.send(self.hello())
        try:
            while True:
                try:
                    message = await asyncio.wait_for(websocket.receive(),
                                                     self.limits.socket_idle_s)
                except asyncio.TimeoutError:
                    await conn.send(error_message(
                        "idle", f"nothing was received for {self.limits.socket_idle_s:g} s; "
                        "the connection is closed (reload the page to go on)"))
                    conn.open = False
                    await websocket.close(code=1000, reason="idle")
                    break
                if message["type"] == "websocket.disconnect":
                    break
                # Popped, not read: the message stays bound while the next one is awaited,
                # and must not keep a replay file's text alive with it.
                await self.handle(conn, message.pop("text", None), message.pop("bytes", None))
        except WebSocketDisconnect:
            pass
        finally:
            conn.open = False
            self.sockets[conn.address] -= 1
            if self.sockets[conn.address] <= 0:
                del self.sockets[conn.address]
            table = conn.table
            if table is not None and self.attached.get(table.id) is conn:
                del self.attached[table.id]
                table.orphaned_since = time.monotonic()

    def _no_room(self, address: str) -> dict[str, Any] | None:
        """Return the refusal of one more WebSocket from ``address``, or ``None`` if there is room.

        Counted here rather than by uvicorn (whose ``limit_concurrency`` answers 503 to every
        request, the page included, once reached), so that one client's sockets never keep
        the page from anyone else.
        """
        limits = self.limits
        wait = round(min(limits.socket_idle_s, 60.0), 1)
        if self.sockets[address] >= limits.connections_per_client:
            return error_message(
                "too_many_connections", f"your address already has "
                f"{limits.connections_per_client} connections open here, the most one address "
                f"may; close a window, or try again in {wait:g} s", retry_after=wait)
        if sum(self.sockets.values()) >= limits.max_connections:
            return error_message(
                "busy", f"the server is full: it holds its limit of {limits.max_connections} "
                f"connections; try again in {wait:g} s", retry_after=wait)
        return None

    async def handle(self, conn: Connection, text: str | None, data: bytes | None) -> None:
        """Check one raw message (size, rate, JSON, type) and dispatch it."""
        limits = self.limits
        wait = conn.rate.take()
        if wait:
            conn.upload = None
            await conn.send(error_message(
                "rate_limited", f"too many messages: at most {limits.rate:g} a second on "
                f"average ({limits.burst} at once); this one was ignored, try again in "
                f"{wait:.2f} s", retry_after=round(wait, 3)))
            return
        if text is None:
            upload, conn.upload = conn.upload, None
            if upload is None:
                await conn.send(error_message(
                    "binary", "messages are JSON text; a binary frame is a replay file, sent "
                    "after its replay_open {\"name\": ..., \"size\": n}; a binary frame of "
                    f"{len(data or b'')} bytes was ignored"))
                return
            try:
                await open_replay(self, conn, upload[0], data or b"", upload[1])
            except TableError as e:
                await conn.send(error_message(e.code, str(e), request="replay_open"))
            return
        conn.upload = None
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > limits.max_upload:
            await conn.send(self._too_large(size, limits.max_upload))
            return
        try:
            msg = json.loads(text)
        except (ValueError, RecursionError) as e:
            await conn.send(error_message("bad_json", f"the message is not JSON ({e}); send "
                                          "one JSON object such as {\"type\": \"ping\"}"))
            return
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            await conn.send(error_message("bad_message", "a message is a JSON object with a "
                                          "'type' string, e.g. {\"type\": \"move\", \"action\": "
                                          "\"SQ\"}"))
            return
        kind = msg["type"]
        if size > limits.max_message and kind != "replay_open":
            await conn.send(self._too_large(size, limits.max_message))
            return
        handler = HANDLERS.get(kind)
        if handler is None:
            await conn.send(error_message("unknown_type", f"unknown message type "
                                          f"{kind[:40]!r}; known types: {sorted(HANDLERS)}"))
            return
        try:
            await handler(self, conn, msg)
        except TableError as e:
            extra = {} if e.retry_after is None else {"retry_after": e.retry_after}
            await conn.send(error_message(e.code, str(e), request=kind, **extra))

    def _too_large(self, size: int, cap: int) -> dict[str, Any]:
        return error_message(
            "too_large", f"a message of {size} bytes is over the limit of {cap} bytes (only "
            f"replay_open, a hand-record file, may have up to {self.limits.max_upload}); it "
            "was ignored")

    # ------------------------------------------------------------------ tables
    def table_of(self, conn: Connection) -> TableSession:
        """Return the table this window plays, or raise ``TableError`` saying it plays none."""
        if conn.table is None or conn.table.id not in self.store.tables:
            conn.table = None
            raise TableError("no_table", "this window plays no table (it may have been freed "
                             "after a long idle time); start a new table")
        conn.table.touch()
        return conn.table

    async def attach(self, conn: Connection, table: TableSession) -> None:
        """Make ``conn`` the window that plays ``table``; the former one is told."""
        former = self.attached.get(table.id)
        if former is not None and former is not conn:
            former.table = None
            await former.send({"type": "detached", "table": table.id,
                               "message": "this table was opened in another window"})
        if conn.table is not None and conn.table is not table:
            self.attached.pop(conn.table.id, None)
        conn.table = table
        table.orphaned_since = None
        self.attached[table.id] = conn

    async def notify(self, table: TableSession, message: Mapping[str, Any]) -> None:
        """Send to the window playing ``table``, if there is one."""
        conn = self.attached.get(table.id)
        if conn is not None:
            await conn.send(message)

    def drive(self, table: TableSession) -> None:
        """Let the AI seats play until it is the person's turn (in the background)."""
        task = self.drivers.get(table.id)
        if task is not None and not task.done():
            return
        if table.ai_to_move() is None:
            return
        table.thinking = table.ai_to_move()
        self.drivers[table.id] = asyncio.get_running_loop().create_task(self._drive(table))

    async def _drive(self, table: TableSession) -> None:
        try:
            while (seat := table.ai_to_move()) is not None:
                table.thinking = seat
                agent = table.players[seat]
                assert agent is not None  # every seat but the person's has one
                view = table.game.view(seat)
                try:
                    action = await anyio.to_thread.run_sync(agent.act, view,
                                                            limiter=self.limiter)
                    action = operator.index(action)
                except Exception as e:  # noqa: BLE001 - an agent's failure stops its table
                    table.thinking = None
                    table.fail(f"{table.labels[seat]} failed: {type(e).__name__}: {e}")
                    break
                table.thinking = None
                if table.id not in self.store.tables:
                    return  # freed meanwhile
                try:
                    event = table.ai_move(seat, action)
                except TableError:
                    break
                table.touch()
                await self.notify(table, table.state(event))
        finally:
            table.thinking = None
            self.drivers.pop(table.id, None)
        if table.failure is not None:
            await self.notify(table, table.state())


# ---------------------------------------------------------------------- handlers
async def on_new_table(server: Server, conn: Connection, msg: dict[str, Any]) -> None:
    """Build a table (agents may load networks: in a worker thread), seat the person."""
    config = TableConfig.parse(msg.get("config", {}), server.opponents)
    former = conn.table
    if former is not None and former.id in server.store.tables:
        # One table per window: the one this window played is freed, not left to idle (and
        # before the new one is counted against this address).
        server.attached.pop(former.id, None)
        server.store.remove(former.id)
        conn.table = None
    server.store.check_room(conn.address)
    table_id = server.store.new_id()
    try:
        table = await anyio.to_thread.run_sync(TableSession, table_id, config, conn.address,
                                                limiter=server.limiter)
    except Exception as e:  # noqa: BLE001 - a table that cannot be seated is explained
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise TableError("bad_opponents", f"cannot seat the opponents: {first}") from None
    try:
        server.store.add(table)
    except TableError:
        table.close()
        raise
    await server.attach(conn, table)
    await conn.send({"type": "table", "table": table.id, "config": config_dict(config),
                     "labels": table.labels, "notice": table.notice})
    server.drive(table)
    await conn.send(table.state())


async def on_join(server: Server, conn: Connection, msg: dict[str, Any]) -> None:
    """Reconnect to a table by id (a reload, another window)."""
    table = server.store.get(msg.get("table"))
    table.touch()
    await server.attach(conn, table)
    await conn.send({"type": "table", "table": table.id, "config": config_dict(table.config),
                     "labels": table.labels, "notice": table.notice, "rejoined": True})
    await conn.send(table.state())


async def on_move(server: Server, conn: Connection, msg: dict[str, Any]) -> None:
    """Play the person's move; the AI seats then play on, in the background."""
    table = server.table_of(conn)
    event = table.human_move(msg.get("action"), msg.get("seat"))
    server.drive(table)
    await conn.send(table.state(event))


async def on_hint(server: Server, conn: Connection, msg: dict[str, Any]) -> None:
    """Send the search agent's value of each legal card, for the person's own position."""
    table = server.table_of(conn)
    view = table.view()
    if view.current_player != table.seat or view.phase == "over" or table.thinking is not None:
        raise TableError("not_your_turn", "a hint is for your own turn; wait for it")
    if table.hinting:
        raise TableError("hint_busy", "the AI is already thinking about your position; its "
                         "answer is on the way")
    limits = server.limits
    if table.hint_budget is None:
        table.hint_budget = RateLimit(limits.hint_rate, limits.hint_burst)
    wait = table.hint_budget.take()
    if wait:
        raise TableError("hint_rate", f"hints are limited to one every {1 / limits.hint_rate:g} "
                         f"s on average ({limits.hint_burst} at once); try again in "
                         f"{wait:.1f} s", retry_after=round(wait, 2))
    if server.hints_waiting >= limits.hint_queue:
        raise TableError("hint_busy", "the server is answering many hints just now; try again "
                         "in a few seconds", retry_after=2.0)
    seq = table.seq
    table.hinting = True
    server.hints_waiting += 1
    try:
        values, choice, note = await server.advise(table, view)
    except Exception as e:  # noqa: BLE001 - e.g. no network for the table
        raise TableError("hint_unavailable", f"the AI cannot advise here: "
                         f"{printable(e, 200)}") from None
    finally:
        table.hinting = False
        server.hints_waiting -= 1
    await conn.send(hint_message(seq, values, choice, ActionCodec.for_rules(table.rules), note))


async def on_next_hand(server: Server, conn: Connection, msg: dict[str, Any]) -> None:
    """Deal the next hand of a match."""
    table = server.table_of(conn)
    table.next_hand()
    server.drive(table)
    await conn.send(table.state())


async def on_record(server: Server, conn: Connection, msg: dict[str, Any]) -> None:
    """Send the finished hands as hand-record JSON lines, for the browser to save."""
    table = server.table_of(conn)
    text = await anyio.to_thread.run_sync(table.record_text, limiter=server.limiter)
    await conn.send({"type": "record", "filename": table.record_name(),
                     "hands": len(table.records), "text": text})


async def on_leave(server: Server, conn: Connection, msg: dict[str, Any]) -> None:
    """Free the table this window plays."""
    table = server.table_of(conn)
    server.attached.pop(table.id, None)
    server.store.remove(table.id)
    conn.table = None
    await conn.send({"type": "left", "table": table.id})


async def on_replay_open(server: Server, conn: Connection, msg: dict[str, Any]) -> None:
    """Open a hand-record file: its text here, or its size, the file then following as bytes."""
    name = msg.get("name", "the file")
    if not isinstance(name, str) or not name.strip():
        raise TableError("bad_message", "replay_open's 'name' is the file's name, as the "
                         f"person knows it; got {name!r:.80}")
    text, size = msg.get("text"), msg.get("size")
    if isinstance(text, str):
        data = text.encode("utf-8", "surrogatepass")
        await open_replay(server, conn, name, data, len(data))
        return
    if type(size) is not int or size < 0:
        raise TableError("bad_message", "replay_open needs 'size', the file's length in bytes "
                         "(the file follows as one binary frame), or 'text', its content")
    if size > server.limits.max_upload:
        raise TableError("too_large", _file_too_large(name, size, server.limits.max_upload))
    conn.upload = (name, size)


def _file_too_large(name: str, size: int, cap: int) -> str:
    return (f"{printable(name, 120)} has {size:,} bytes; the replay opens files of up to "
            f"{cap:,} bytes ({cap / 2**20:g} MiB). Open a part of it, or replay it with "
            "gongzhu replay FILE")


async def open_replay(server: Server, conn: Connection, name: str, data: bytes,
                      size: int) -> None:
    """Check a replay file with every check ``gongzhu replay`` makes and list its hands."""
    cap = server.limits.max_upload
    if len(data) > cap:
        raise TableError("too_large", _file_too_large(name, len(data), cap))
    if len(data) != size:
        raise TableError("bad_message", f"{printable(name, 120)}: {len(data):,} bytes arrived, "
                         f"{size:,} were announced; open the file again")
    conn.replay = None  # the former file is let go before the new one is read
    try:
        index = await anyio.to_thread.run_sync(ReplayIndex.read, data, name, cap,
                                               limiter=server.limiter)
    except RecordError as e:
        raise TableError("bad_record", f"this is not a readable hand-record file: {e}") \
            from None
    conn.replay = index
    await conn.send({"type": "replay", "name": name, "hands": index.listing()})


async def on_replay_hand(server: Server, conn: Connection, msg: dict[str, Any]) -> None:
    """Every step of one recorded hand, replayed by the engine, as spectator frames."""
    if conn.replay is None:
        raise TableError("no_replay", "open a hand-record file first (replay_open)")
    n = msg.get("hand")
    if type(n) is not int or not 1 <= n <= len(conn.replay):
        raise TableError("bad_message", f"'hand' must be a hand number 1..{len(conn.replay)}; "
                         f"got {n!r}")
    frames = await anyio.to_thread.run_sync(replay_frames, conn.replay.record(n),
                                            limiter=server.limiter)
    await conn.send({"type": "replay_hand", "hand": n, **frames})


def replay_frames(record: Mapping[str, Any]) -> dict[str, Any]:
    """Return the frames of one record: its deal, then one per action, checked by the engine."""
    try:
        final = replay_record(record)
    except RecordError as e:
        raise TableError("bad_record", f"the hand does not replay: {e}") from None
    rules = final.rules
    n = rules.players
    meta = record.get("meta") or {}
    labels = [str(x) for x in (meta.get("players") or [f"Seat {s}" for s in range(n)])]
    game = Game.from_hands([[parse_card(c) for c in h] for h in record["deal"]], rules,
                           leader=record["leader"])
    frames = [spectator_frame(game, "The deal", 0)]
    codec = ActionCodec.for_rules(rules)
    for step, action in enumerate(final.actions, start=1):
        seat, phase = game.current_player, str(game.phase)
        game.step(action)
        frames.append(spectator_frame(game, describe(labels, seat, phase, action, codec), step))
    return {"labels": labels, "players": n, "decks": rules.decks, "rules": rules.to_dict(),
            "frames": frames, "scores": game.scores() if game.is_over() else None}


async def on_ping(server: Server, conn: Connection, msg: dict[str, Any]) -> None:
    """Answer ``pong`` (a client's check that the connection is alive)."""
    await conn.send({"type": "pong"})


HANDLERS = {
    "new_table": on_new_table, "join": on_join, "move": on_move, "hint": on_hint,
    "next_hand": on_next_hand, "record": on_record, "leave": on_leave,
    "replay_open": on_replay_open, "replay_hand": on_replay_hand, "ping": on_ping,
}


# ---------------------------------------------------------------------- the app
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                               "style-src 'self'; script-src 'self'; connect-src 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


class SecurityHeaders:
    """ASGI middleware: ``SECURITY_HEADERS`` on every HTTP response (the page and its files)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.headers = [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Pass the request on, adding the headers to the response's start."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.headers]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _same_origin(websocket: WebSocket, allowed: Sequence[str]) -> bool:
    """Whether a WebSocket comes from this server's own page (or an allowed origin).

    A browser always sends ``Origin`` with a WebSocket; a page of another site that tries to
    reach this server from the person's browser is refused. Programs that send no ``Origin``
    (the load benchmark, tests) are let in.
    """
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    if origin in allowed:
        return True
    host = websocket.headers.get("host", "")
    return urlsplit(origin).netloc == host


def create_app(limits: Limits | None = None, opponents: Sequence[str] = OPPONENTS,
               allowed_origins: Sequence[str] = (),
               allowed_hosts: Sequence[str] = LOOPBACK_HOSTS) -> Starlette:
    """Build the application: ``/`` the page, ``/static`` its files, ``/ws`` the game.

    Requests whose ``Host`` is not one of ``allowed_hosts`` are refused (400), WebSockets
    included: a name that an attacker's DNS points at this machine is not among them.
    """
    limits = limits or Limits()
    server = Server(limits, opponents)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def ws(websocket: WebSocket) -> None:
        if not _same_origin(websocket, allowed_origins):
            await websocket.close(code=1008, reason="cross-origin connection refused")
            return
        await server.serve(websocket)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        sweeper = asyncio.get_running_loop().create_task(server.sweeper())
        try:
            yield
        finally:
            sweeper.cancel()
            server.close()

    app = Starlette(routes=[
        Route("/", index),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
        WebSocketRoute("/ws", ws),
    ], lifespan=lifespan, middleware=[
        Middleware(SecurityHeaders),
        Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)),
    ])
    app.state.server = server
    return app
