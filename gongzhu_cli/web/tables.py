"""Tables held by the server: what a browser asked for, the game, the AI seats, the records.

``TableConfig.parse`` reads the table a browser asks for (preset and rule options, seat,
opponents, one hand or a match, seed) and refuses anything else with a message that says what
was expected. ``TableSession`` is one table: the ``Game`` of the hand in progress (only the
server holds it), the agents of the other seats (built by ``gongzhu_cli.play.build_opponents``,
as ``gongzhu play`` builds them), the match totals and the hand records of finished hands (the
records ``gongzhu play --save`` writes). ``TableStore`` bounds how many tables live at once, and
how many one client address holds, and frees a table nobody has touched for ``idle_s`` seconds
or whose windows have all been gone for ``grace_s``. ``ReplayIndex`` is an opened hand-record
file, checked and kept small.

Deals. A table whose seed the person typed is a practice table: the same seed deals the same
hands, as ``gongzhu play --seed`` does, and the table says so. Any other table deals each hand
from a generator seeded with 128 bits from the operating system (``Dealer``), drawn afresh for
every hand and never sent, logged or put in a name, so nothing a browser receives (not even
the earlier hands of the match) rebuilds a hand not yet played; the agents' own random choices
are seeded from separate OS entropy, so they lead back to nothing either.

Everything here runs on the server's event loop except an agent's ``act`` (and building the
agents), which the app runs in worker threads on a copy of that seat's view: the game itself is
changed only on the loop, so it needs no lock.
"""

from __future__ import annotations

import os
import secrets
import tempfile
import time
import zlib
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np

from agents import make_agent
from agents.base import Agent, AgentError
from gongzhu_cli.play import build_opponents
from gongzhu_cli.terminal import why_illegal
from gongzhu_cli.web.messages import PublicTable, action_event, hand_result, state_message
from gongzhu_env.cards import ActionCodec
from gongzhu_env.engine import Game
from gongzhu_env.integrity import (
    ReadLimitError,
    StrictJSONError,
    printable,
    read_lines,
    strict_loads,
)
from gongzhu_env.match import match_over, match_result, next_hand_leader
from gongzhu_env.players import start_hand
from gongzhu_env.records import RecordError, record_digest, record_hand, replay_record, save_records
from gongzhu_env.rules import PRESETS, Rules, count_word
from gongzhu_env.scoring import settle
from gongzhu_env.view import PlayerView
from training.arguments import MAX_SEED

OPPONENTS = ("search", "policy:pretrained", "pimc", "expert", "greedy", "random")
"""Agent specs a browser may seat. A spec that names a file (``policy:PATH``) or starts
processes (``search:workers=N``) is for the server's operator (``gongzhu serve --agent``),
never for whoever reaches the page."""
AUTO = "auto"
"""The opponent choice "the best available": the shipped policy for the table, else the
first of ``expert``, ``greedy``, ``random`` that can play it (``build_opponents``)."""
DEAL_BITS = 128
"""Bits of operating-system entropy behind each hand of a table with no typed seed."""
CONFIG_KEYS = ("preset", "options", "players", "seat", "opponents", "match", "threshold", "seed")


class TableError(ValueError):
    """A request about a table that cannot be met; the message says why and what is expected.

    ``retry_after`` (seconds), when given, tells the browser when the same request may succeed
    (a full server, a hint asked too often).
    """

    def __init__(self, code: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.retry_after = retry_after


class Dealer:
    """Where a table's hands come from: a practice seed's generator, or fresh OS entropy.

    With a typed seed every hand of the match comes from one ``default_rng(seed)``, in turn,
    exactly as ``gongzhu play --seed`` deals. Without one each hand gets its own generator
    seeded with ``DEAL_BITS`` bits from ``secrets``: too many to try against one's own cards,
    and, drawn afresh per hand, a finished hand's deal says nothing about the next one.
    """

    def __init__(self, seed: int | None) -> None:
        self._practice = None if seed is None else np.random.default_rng(seed)

    def generator(self) -> np.random.Generator:
        """Return the generator that deals the next hand."""
        if self._practice is not None:
            return self._practice
        return np.random.default_rng(secrets.randbits(DEAL_BITS))


@dataclass(frozen=True)
class TableConfig:
    """The table a browser asked for, checked."""

    rules: Rules
    seat: int
    opponents: tuple[str, ...] | None
    """One spec per other seat in seat order, or ``None`` for ``AUTO``."""
    match: bool
    seed: int | None
    """The seed the person typed (a practice table), or ``None``: secret deals (``Dealer``)."""

    @property
    def practice(self) -> bool:
        """Whether the deals follow a typed seed (and so can be rebuilt by whoever knows it)."""
        return self.seed is not None

    @classmethod
    def parse(cls, data: object, allowed: Sequence[str] = OPPONENTS) -> TableConfig:
        """Check a ``new_table`` request's ``config``; raise ``TableError`` naming a fault."""
        if not isinstance(data, Mapping):
            raise TableError("bad_config", f"'config' must be an object with the keys "
                             f"{list(CONFIG_KEYS)}; got {_show(data)}")
        unknown = sorted(str(k) for k in data if k not in CONFIG_KEYS)
        if unknown:
            raise TableError("bad_config", f"unknown table setting(s) {unknown}; known: "
                             f"{list(CONFIG_KEYS)}")
        preset = data.get("preset", "standard")
        if not isinstance(preset, str) or preset not in PRESETS:
            raise TableError("bad_config", f"'preset' must be one of {sorted(PRESETS)}; got "
                             f"{_show(preset)}")
        options = data.get("options") or {}
        if not isinstance(options, Mapping):
            raise TableError("bad_config", "'options' must be an object of rule options such "
                             f"as {{\"strict_exposure\": true}}; got {_show(options)}")
        merged = {**Rules.preset(preset).to_dict(), **options}
        players = data.get("players")
        if players is not None:
            if type(players) is not int:
                raise TableError("bad_config", f"'players' must be an integer 3..8; got "
                                 f"{_show(players)}")
            merged["players"] = players
        threshold = data.get("threshold")
        if threshold is not None:
            if type(threshold) is not int or threshold >= 0:
                raise TableError("bad_config", "'threshold' must be a negative integer such "
                                 f"as -1000 (a match ends when a total reaches it); got "
                                 f"{_show(threshold)}")
            merged["match_threshold"] = threshold
        try:
            rules = Rules.from_dict(merged)
        except (ValueError, TypeError) as e:
            raise TableError("bad_rules", f"these rules cannot be played: {e}") from None
        seat = data.get("seat", 0)
        if type(seat) is not int or not 0 <= seat < rules.players:
            raise TableError("bad_config", f"'seat' must be a seat 0..{rules.players - 1} at a "
                             f"table of {rules.players}; got {_show(seat)}")
        match = data.get("match", False)
        if type(match) is not bool:
            raise TableError("bad_config", f"'match' must be true or false; got {_show(match)}")
        seed = data.get("seed")
        if seed is not None and (type(seed) is not int or not 0 <= seed <= MAX_SEED):
            raise TableError("bad_config", f"'seed' must be an integer 0..{MAX_SEED} (a "
                             f"practice table: the same seed deals the same hands) or null "
                             f"(secret deals); got {_show(seed)}")
        return cls(rules, seat, _opponents(data.get("opponents", AUTO), rules.players, allowed),
                   match, seed)


def _opponents(given: object, players: int, allowed: Sequence[str]) -> tuple[str, ...] | None:
    """Read ``opponents``: one spec for every other seat, a list of one per seat, or auto."""
    n = players - 1
    if given is None or given == AUTO:
        return None
    specs = [given] if isinstance(given, str) else given
    if not isinstance(specs, list) or len(specs) not in (1, n) or \
            not all(isinstance(s, str) for s in specs):
        raise TableError("bad_config", f"'opponents' must be one agent for all {n} other seats "
                         f"or a list of {n} (one per seat in seat order), each one of "
                         f"{[AUTO, *allowed]}; got {_show(given)}")
    for spec in specs:
        if spec not in allowed:
            raise TableError("bad_config", f"unknown opponent {spec!r}; choose from "
                             f"{[AUTO, *allowed]}")
    return tuple(specs * n if len(specs) == 1 else specs)


def _show(value: object, limit: int = 80) -> str:
    """Return a short representation of a value a browser sent, for an error message."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


class TableSession:
    """One table on the server: the hand in progress, the AI seats, the match and its records.

    Built in a worker thread (agents may load networks); used on the event loop afterwards.
    """

    def __init__(self, table_id: str, config: TableConfig, owner: str = "") -> None:
        self.id = table_id
        self.config = config
        self.rules = config.rules
        self.seat = config.seat
        self.owner = owner
        """The client address that opened the table (``TableStore``'s per-address bound)."""
        # A practice table seeds its agents from its seed (the same seed, the same game);
        # otherwise their random choices come from OS entropy of their own, so that no agent's
        # behaviour can lead back to a deal.
        self.agent_seed = config.seed if config.seed is not None else secrets.randbits(62)
        notes: list[str] = []
        self.players, labels = build_opponents(config.opponents, config.seat, self.agent_seed,
                                               notes.append, config.rules)
        self.notice = " ".join(notes)
        self.labels = [f"You (seat {self.seat})" if s == self.seat else
                       f"Seat {s}: {_short(labels[s])}" for s in range(self.rules.players)]
        self.dealer = Dealer(config.seed)
        self.leader: int | None = None
        self.hand_number = 0
        self.totals = [0] * self.rules.players
        self.history: list[dict[str, Any]] = []
        self.records: list[dict[str, Any]] = []
        self.result: dict[str, Any] | None = None
        self.match_done = False
        self.winners: tuple[int, ...] = ()
        self.losers: tuple[int, ...] = ()
        self.failure: str | None = None
        self.thinking: int | None = None
        self.seq = 0
        self.last_active = time.monotonic()
        self.orphaned_since: float | None = None
        """When the last window playing the table went away (``None`` while one plays it)."""
        self.adviser = Adviser(self.rules, self.seat, self.agent_seed + 1)
        """The hint's agents, when hints are computed in this process (``advise``)."""
        self.hinting = False
        """A hint is being computed (one at a time: the search agent is not shared)."""
        self.hint_budget: RateLimit | None = None
        """How often this table may ask for a hint (set by the server, which knows the rate)."""
        self.game: Game
        self._deal()

    # ---------------------------------------------------------------- the hand
    def _deal(self) -> None:
        self.hand_number += 1
        self.result = None
        self.game = Game(self.rules, rng=self.dealer.generator(), leader=self.leader)
        start_hand(self.players, self.rules)

    def view(self) -> PlayerView:
        """Return the person's view of the hand in progress (their messages' only source)."""
        return self.game.view(self.seat)

    def public(self) -> PublicTable:
        """Return what everyone at the table knows beyond a hand's view."""
        return PublicTable(
            table=self.id, labels=self.labels, match=self.config.match,
            hand_number=self.hand_number, totals=self.totals, history=self.history,
            thinking=self.thinking, match_over=self.match_done, winners=list(self.winners),
            losers=list(self.losers), result=self.result, records=len(self.records),
            failure=self.failure)

    def state(self, event: dict[str, Any] | None = None) -> dict[str, Any]:
        """Build the person's ``state`` message now."""
        return state_message(self.view(), self.public(), self.seq, event)

    def touch(self) -> None:
        """Note activity: the idle timeout counts from the last one."""
        self.last_active = time.monotonic()

    def ai_to_move(self) -> int | None:
        """Return the AI seat to move, or ``None`` (the person's turn, the end, a failure)."""
        g = self.game
        if g.is_over() or self.failure is not None or g.current_player == self.seat:
            return None
        return g.current_player

    def human_move(self, text: object, seat: object = None) -> dict[str, Any]:
        """Play the person's action (card text, ``"SQ+SQ"`` or ``"DONE"``); return its event.

        Raises ``TableError`` (the table unchanged) for anything the person may not do now.
        """
        g = self.game
        if seat is not None and seat != self.seat:
            raise TableError("wrong_seat", f"you sit at seat {self.seat}; a move for seat "
                             f"{_show(seat)} is not yours to make")
        if self.failure is not None:
            raise TableError("table_failed", f"this table cannot go on: {self.failure}")
        if g.is_over():
            raise TableError("hand_over", "the hand is over; ask for the next hand or start a "
                             "new table")
        if g.current_player != self.seat or self.thinking is not None:
            who = self.labels[g.current_player]
            raise TableError("not_your_turn", f"it is not your turn: {who} is to play")
        if not isinstance(text, str):
            raise TableError("bad_action", "'action' must be card text such as \"SQ\", "
                             f"\"C10\", \"DONE\" or a two-deck pair \"SQ+SQ\"; got {_show(text)}")
        try:
            codec = ActionCodec.for_rules(self.rules)
            action = codec.parse(text)
        except ValueError as e:
            raise TableError("bad_action", str(e)) from None
        view = self.view()
        legal = view.legal_actions
        if action not in legal:
            raise TableError("illegal", f"{codec.text(action)} is not legal: "
                             f"{why_illegal(view, action)}. Legal now: "
                             f"{', '.join(codec.text(a) for a in legal)}")
        return self._apply(self.seat, action)

    def ai_move(self, seat: int, action: int) -> dict[str, Any]:
        """Apply the action an agent chose for ``seat``; a refused one ends the table."""
        if self.game.current_player != seat:
            raise RuntimeError(f"seat {seat} is not to move")
        if type(action) is not int or action not in self.game.legal_actions():
            self.fail(f"{self.labels[seat]} chose an illegal action {_show(action)}; the hand "
                      "cannot go on")
            raise TableError("agent_failed", str(self.failure))
        return self._apply(seat, action)

    def _apply(self, seat: int, action: int) -> dict[str, Any]:
        phase = str(self.game.phase)
        self.game.step(action)
        self.seq += 1
        if self.game.is_over():
            self._finish()
        return action_event(self.view(), seat, phase)

    def _finish(self) -> None:
        g = self.game
        scores = g.scores()
        meta: dict[str, Any] = {"hand": self.hand_number, "players": list(self.labels),
                                "human_seat": self.seat, "source": "gongzhu serve"}
        if self.config.practice:
            meta["seed"] = self.config.seed  # typed by the person: it reveals nothing new
        self.records.append(record_hand(g, leader=self.leader, meta=meta))
        self.result = hand_result(scores, settle(scores, self.rules, teams=g.teams),
                                  self.rules, g.teams)
        self.history.append({k: self.result[k] for k in ("scores", "settled")})
        self.totals = [t + s for t, s in zip(self.totals, scores, strict=True)]
        if not self.config.match or match_over(self.totals, self.rules):
            self.match_done = True
            if self.config.match:
                self.winners, self.losers = match_result(self.totals, self.rules)

    def next_hand(self) -> None:
        """Deal the next hand of a match."""
        if not self.game.is_over():
            raise TableError("hand_in_progress", "the hand is still being played")
        if self.match_done:
            raise TableError("match_over", "this table is finished (a single hand, or a match "
                             "that has ended); start a new table")
        self.leader = next_hand_leader(self.game)
        self._deal()
        self.seq += 1

    def fail(self, why: str) -> None:
        """Stop the table: an agent raised; the person is told why."""
        self.failure = why
        self.seq += 1

    # ---------------------------------------------------------------- hint and records
    def hint(self, view: PlayerView) -> tuple[dict[int, float] | None, int, str]:
        """Advise the person on ``view`` in this process (``Adviser.hint``)."""
        return self.adviser.hint(view)

    def record_text(self) -> str:
        """Return the finished hands as hand-record JSON lines (``gongzhu play --save``'s)."""
        if not self.records:
            raise TableError("no_records", "no hand is finished yet; a record holds every "
                             "hand's deal, so it is offered once the hand is over")
        return records_text(self.records)

    def record_name(self) -> str:
        """Return the file name a downloaded record is offered under.

        A practice table's name carries its seed (the person typed it); any other table's
        carries the time of the download, nothing drawn from the deals.
        """
        if self.config.practice:
            return f"gongzhu-seed{self.config.seed}.jsonl"
        return f"gongzhu-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"

    def close(self) -> None:
        """Release what the agents hold (a search's helper processes)."""
        _close_agents(self.players)
        self.adviser.close()


def _close_agents(agents: Sequence[Agent | None]) -> None:
    for agent in agents:
        close = getattr(agent, "close", None)
        if callable(close):
            close()


Hint = tuple[dict[int, float] | None, int, str]
"""A hint: each legal action's value in points (or ``None``), the suggested action, a note."""


class Adviser:
    """The agents that advise one seat of one table: ``search``, else ``pimc``.

    Built lazily, on the first hint, in whichever process computes hints (``advise``).
    """

    def __init__(self, rules: Rules, seat: int, seed: int) -> None:
        self.rules, self.seat, self.seed = rules, seat, seed
        self.search: Any = None
        self.problem: str | None = None
        """Why the search cannot advise here, in a player's words (``None``: it can)."""
        self.fallback: Agent | None = None
        """``pimc``, which suggests a card where the search cannot play."""

    def hint(self, view: PlayerView) -> Hint:
        """Value the person's legal cards with the search agent, from their view only.

        Runs away from the event loop, on ``view`` taken on the loop (the game may move on
        meanwhile). Where the search cannot play (tables without a shipped network: six to
        eight seats, rule sets nothing was trained for), ``pimc``, which plays every table,
        suggests its card instead, and the note says why there are no values.
        """
        search = self._search_agent()
        if search is not None:
            try:
                result = search.search(view)
            except AgentError as e:
                self.problem = _search_problem(e, self.rules)
            else:
                if isinstance(result, int):
                    why = ("the AI does not weigh exposures card by card"
                           if view.phase == "declare" else
                           "every card you may play is worth the same here")
                    if any(a < 0 for a in view.actions):
                        why = "a hidden exposure keeps the AI from weighing the cards"
                    return None, result, f"{why}; this is what it would do"
                scale = getattr(search, "scale", 400.0)
                values = {c: v * scale for c, v in result.card_values().items()}
                what = ("points your team can expect to win from the other team this hand"
                        if self.rules.has_teams else
                        "points you can expect to win or lose this hand")
                return values, result.choice, (f"{what}, averaged over {result.worlds} ways "
                                               "the unseen cards could lie")
        if self.fallback is None:
            self.fallback = make_agent("pimc", seed=self.seed)
            self.fallback.reset(self.seat, self.rules)
        choice = self.fallback.act(view)
        return None, choice, f"{self.problem}; this suggestion comes from pimc"

    def _search_agent(self) -> Any:
        """Return the search agent, built once; ``None`` where it cannot be built."""
        if self.search is None and self.problem is None:
            try:
                self.search = make_agent("search", seed=self.seed, rules=self.rules)
                self.search.reset(self.seat, self.rules)
            except Exception as e:  # noqa: BLE001 - any failure: the fallback advises
                self.search = None
                self.problem = _search_problem(e, self.rules)
        return None if self.problem is not None else self.search

    def close(self) -> None:
        """Release what the agents hold."""
        _close_agents([self.search, self.fallback])


ADVISERS_KEPT = 32
"""Tables whose hint agents a hint process keeps (the most recently advised)."""
_advisers: OrderedDict[str, Adviser] = OrderedDict()


def hint_process_start() -> None:
    """Start a hint process: below the server in the scheduler's eyes, one thread for torch.

    A hint may wait; a move should not. Niced, a hint process gives way to the server's
    process on a busy machine, and one torch thread keeps a search from taking every core.
    """
    os.nice(10)
    try:
        import torch
    except ImportError:
        return
    torch.set_num_threads(1)


def advise(table_id: str, rules: Rules, seat: int, seed: int, view: PlayerView) -> Hint:
    """Compute a hint in a hint process, keeping each table's agents for its next hints.

    The hint processes hold the search agents (a network each) and do the searching, so
    neither the import of torch, the loading of a network, nor a search's Python ever takes
    the server's interpreter from the tables' moves.
    """
    adviser = _advisers.pop(table_id, None) or Adviser(rules, seat, seed)
    _advisers[table_id] = adviser
    while len(_advisers) > ADVISERS_KEPT:
        _advisers.popitem(last=False)[1].close()
    return adviser.hint(view)


def records_text(records: Sequence[Mapping[str, Any]]) -> str:
    """Hand records as the JSON lines ``save_records`` writes (with their digests)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hands.jsonl"
        save_records(path, records)
        return path.read_text(encoding="utf-8")


def _search_problem(error: Exception, rules: Rules) -> str:
    """Say, in a player's words, why the search cannot advise at a table of ``rules``.

    The search needs a network trained for the table; the error that refuses one names
    options and training commands, which mean nothing to someone playing a hand.
    """
    if not isinstance(error, AgentError):
        return "the AI's search is not available on this server"
    try:
        from agents.policy import SHIPPED, shipped_rules
    except ImportError:
        return "the AI's search is not installed on this server"
    if rules.players not in {shipped_rules(name).players for name in SHIPPED}:
        return f"no trained network for {count_word(rules.players)} players yet"
    return "no trained network for these rules yet"


def _short(label: str) -> str:
    """Return an agent's label without the seat prefix ``build_opponents`` gives it."""
    if label.startswith("Seat ") and "(" in label and label.endswith(")"):
        return label[label.index("(") + 1:-1]
    return label


class TableStore:
    """The live tables, bounded in number, per client address and in time.

    At most ``max_tables`` at once, and ``per_client`` opened from one address: a client that
    opens table after table (each new window, each reconnect) frees its own oldest table that
    no window plays rather than crowd out everyone else. A table nobody has touched for
    ``idle_s`` seconds is freed, and so is one whose windows have all been gone for ``grace_s``
    (a reload or a short network break rejoins it well within that).
    """

    def __init__(self, max_tables: int, idle_s: float, per_client: int = 4,
                 grace_s: float = 120.0) -> None:
        self.max_tables = max_tables
        self.idle_s = idle_s
        self.per_client = per_client
        self.grace_s = grace_s
        self.tables: dict[str, TableSession] = {}

    def new_id(self) -> str:
        """Return a fresh table id: unguessable, as it is the key to the table."""
        return secrets.token_urlsafe(18)

    def expires_at(self, table: TableSession) -> float:
        """Return when (``time.monotonic``) ``table`` will be freed if nothing happens."""
        at = table.last_active + self.idle_s
        if table.orphaned_since is not None:
            at = min(at, table.orphaned_since + self.grace_s)
        return at

    def retry_after(self, tables: Sequence[TableSession]) -> float:
        """Seconds until the first of ``tables`` is freed, at least one."""
        now = time.monotonic()
        return max(1.0, round(min(self.expires_at(t) for t in tables) - now, 1))

    def check_room(self, owner: str = "") -> None:
        """Make room for a table of ``owner``, or raise ``TableError`` saying when to retry.

        Frees expired tables first, then, at ``owner``'s own bound, the oldest table of
        ``owner`` that no window plays.
        """
        self.sweep()
        mine = [t for t in self.tables.values() if t.owner == owner]
        if len(mine) >= self.per_client:
            orphans = [t for t in mine if t.orphaned_since is not None and t.thinking is None]
            if not orphans:
                wait = self.retry_after(mine)
                raise TableError("too_many_tables", f"your address already plays "
                                 f"{len(mine)} tables here, the most one address may; close a "
                                 f"window's table (New table) or try again in {wait:g} s",
                                 retry_after=wait)
            self.remove(min(orphans, key=lambda t: t.last_active).id)
        if len(self.tables) >= self.max_tables:
            wait = self.retry_after(list(self.tables.values()))
            raise TableError("full", f"the server is full: it already holds its limit of "
                             f"{self.max_tables} tables; try again in {wait:g} s, when one "
                             f"may be freed", retry_after=wait)

    def add(self, table: TableSession) -> None:
        """Add a built table (``check_room`` again: others may have been added meanwhile)."""
        self.check_room(table.owner)
        self.tables[table.id] = table

    def get(self, table_id: object) -> TableSession:
        """Return the table of that id, or raise ``TableError`` saying it does not exist."""
        if not isinstance(table_id, str) or table_id not in self.tables:
            raise TableError("unknown_table", f"there is no table {_show(table_id, 40)} on this "
                             f"server: it may have been freed after {self.idle_s:g} s without "
                             f"activity or {self.grace_s:g} s without a window, or the server "
                             "restarted; start a new table")
        return self.tables[table_id]

    def remove(self, table_id: str) -> None:
        """Free a table."""
        table = self.tables.pop(table_id, None)
        if table is not None:
            table.close()

    def sweep(self, now: float | None = None) -> list[str]:
        """Free every expired table (none whose AI is thinking); return their ids."""
        now = time.monotonic() if now is None else now
        gone = [i for i, t in self.tables.items()
                if t.thinking is None and now >= self.expires_at(t)]
        for i in gone:
            self.remove(i)
        return gone


class RateLimit:
    """A token bucket: ``burst`` requests at once, refilled at ``rate`` a second."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> float:
        """Spend one token; return 0, or the seconds until one is back when none is left."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate


@dataclass(frozen=True)
class ReplayHand:
    """One hand of an opened record file: what the list shows, and the record, compressed."""

    summary: dict[str, Any]
    """``{"hand", "complete", "scores", "players"}``; the scores are the engine's."""
    line: bytes
    """The record's line of the file, zlib-compressed against the file's first line."""


class ReplayIndex:
    """A hand-record file opened for the replay view, every record checked, kept small.

    Opening reads the file line by line and checks each record as ``gongzhu replay`` does
    (UTF-8, bounded JSON, schema, digest), then replays it with the engine, so the scores
    listed are the engine's, never the file's claim. Unlike ``gongzhu replay``, a record
    without its digest is refused: the files this page and ``gongzhu play --save`` write carry
    one on every record. What is kept is a summary per hand and its line compressed with the
    file's first line as the dictionary (a few hundred bytes a hand, records being much
    alike): a replayed hand is parsed again when it is asked for, so a connection holds
    neither the parsed file nor a second copy of it.
    """

    def __init__(self, name: str, hands: Sequence[ReplayHand], zdict: bytes) -> None:
        self.name = name
        self.hands = list(hands)
        self.zdict = zdict

    @classmethod
    def read(cls, data: bytes, name: str, max_bytes: int) -> ReplayIndex:
        """Check the file ``data`` the person calls ``name``; raise ``RecordError`` naming it."""
        shown = printable(name, 120) or "the file"
        hands: list[ReplayHand] = []
        zdict = b""
        names: dict[tuple[str, ...], list[str]] = {}  # one list for a match's repeated names
        try:
            for n, raw, _ in read_lines(BytesIO(data), max_bytes=max_bytes):
                record = _record_of_line(raw, n, shown)
                if record is None:
                    continue
                try:
                    game = replay_record(record)
                except RecordError as e:
                    raise RecordError(f"{shown}, line {n}: {e}") from None
                players = (record.get("meta") or {}).get("players")
                if players is not None:
                    players = names.setdefault(tuple(players), players)
                summary = {"hand": len(hands) + 1, "complete": game.is_over(),
                           "scores": game.scores() if game.is_over() else None,
                           "players": players}
                zdict = zdict or raw
                hands.append(ReplayHand(summary, _squeeze(raw, zdict)))
        except ReadLimitError as e:
            where = f"{shown}, line {e.line}" if e.line is not None else shown
            raise RecordError(f"{where} {e.problem}") from None
        if not hands:
            raise RecordError(f"{shown} holds no hand records (a hand-record file has one "
                              "JSON record per line)")
        return cls(name, hands, zdict)

    def listing(self) -> list[dict[str, Any]]:
        """Return each hand's summary, for the list the page shows."""
        return [h.summary for h in self.hands]

    def record(self, number: int) -> dict[str, Any]:
        """Return hand ``number`` (1-based) as its record, without the checked digest."""
        raw = zlib.decompressobj(zdict=self.zdict).decompress(self.hands[number - 1].line)
        record = strict_loads(raw.decode("utf-8"))
        record.pop("digest", None)
        return dict(record)

    def __len__(self) -> int:
        return len(self.hands)


def _squeeze(raw: bytes, zdict: bytes) -> bytes:
    """Compress one record's line against ``zdict`` (another record: most of it recurs)."""
    packer = zlib.compressobj(6, zdict=zdict)
    return packer.compress(raw) + packer.flush()


def _record_of_line(raw: bytes, n: int, shown: str) -> dict[str, Any] | None:
    """Return line ``n``'s record, its digest checked and kept; ``None`` for a blank line."""
    if not raw.strip():
        return None  # blank lines are skipped, as gongzhu replay skips them
    try:
        record = strict_loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise RecordError(f"{shown}, line {n}: not UTF-8 text; a hand-record file is JSON "
                          "lines") from None
    except StrictJSONError as e:
        raise RecordError(f"{shown}, line {n}: {e}; expected one hand record per "
                          "line") from None
    if not isinstance(record, dict):
        raise RecordError(f"{shown}, line {n}: a hand record is a JSON object; got "
                          f"{type(record).__name__}")
    if "digest" not in record:
        raise RecordError(f"{shown}, line {n}: the record has no digest, so nothing shows it "
                          "is as it was written; the replay here opens files written by "
                          "this page or gongzhu play --save (`gongzhu replay FILE` reads "
                          "records without one)")
    if record["digest"] != record_digest(record):
        raise RecordError(f"{shown}, line {n}: the record does not match its digest (it was "
                          "edited or damaged after it was written)")
    return record


def config_dict(config: TableConfig) -> dict[str, Any]:
    """Return a table's settings as the browser shows them.

    ``seed`` is the practice seed the person typed, or ``None`` for secret deals, whose
    source never leaves the server (``Dealer``).
    """
    return {"rules": config.rules.to_dict(), "seat": config.seat, "match": config.match,
            "seed": config.seed, "practice": config.practice,
            "opponents": list(config.opponents or [AUTO])}


__all__ = ["AUTO", "OPPONENTS", "Dealer", "RateLimit", "ReplayIndex", "TableConfig",
           "TableError", "TableSession", "TableStore", "config_dict", "records_text"]
