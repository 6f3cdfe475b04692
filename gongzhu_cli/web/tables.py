"""Tables held by the server: what a browser asked for, the game, the AI seats, the records.

``TableConfig.parse`` reads the table a browser asks for (preset and rule options, seat,
opponents, one hand or a match, seed) and refuses anything else with a message that says what
was expected. ``TableSession`` is one table: the ``Game`` of the hand in progress (only the
server holds it), the agents of the other seats (built by ``gongzhu_cli.play.build_opponents``,
as ``gongzhu play`` builds them), the match totals and the hand records of finished hands (the
records ``gongzhu play --save`` writes). ``TableStore`` bounds how many tables live at once and
frees a table nobody has touched for ``idle_s`` seconds.

Everything here runs on the server's event loop except an agent's ``act`` (and building the
agents), which the app runs in worker threads on a copy of that seat's view: the game itself is
changed only on the loop, so it needs no lock.
"""

from __future__ import annotations

import secrets
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents import make_agent
from agents.base import Agent, AgentError
from gongzhu_cli.play import build_opponents
from gongzhu_cli.terminal import why_illegal
from gongzhu_cli.web.messages import PublicTable, action_event, hand_result, state_message
from gongzhu_env.cards import action_str, parse_action
from gongzhu_env.engine import Game
from gongzhu_env.match import match_over, match_result, next_hand_leader
from gongzhu_env.players import start_hand
from gongzhu_env.records import load_records, record_hand, save_records
from gongzhu_env.rules import PRESETS, Rules
from gongzhu_env.scoring import settle
from gongzhu_env.view import PlayerView

OPPONENTS = ("search", "policy:pretrained", "pimc", "expert", "greedy", "random")
"""Agent specs a browser may seat. A spec that names a file (``policy:PATH``) or starts
processes (``search:workers=N``) is for the server's operator (``gongzhu serve --agent``),
never for whoever reaches the page."""
AUTO = "auto"
"""The opponent choice "the best available": the shipped policy for the table, else the
first of ``expert``, ``greedy``, ``random`` that can play it (``build_opponents``)."""
MAX_SEED = 2**63 - 1
CONFIG_KEYS = ("preset", "options", "players", "seat", "opponents", "match", "threshold", "seed")


class TableError(ValueError):
    """A request about a table that cannot be met; the message says why and what is expected."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class TableConfig:
    """The table a browser asked for, checked."""

    rules: Rules
    seat: int
    opponents: tuple[str, ...] | None
    """One spec per other seat in seat order, or ``None`` for ``AUTO``."""
    match: bool
    seed: int

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
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % 2**31)
        elif type(seed) is not int or not 0 <= seed <= MAX_SEED:
            raise TableError("bad_config", f"'seed' must be an integer 0..{MAX_SEED} or null "
                             f"(a fresh one); got {_show(seed)}")
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

    def __init__(self, table_id: str, config: TableConfig) -> None:
        self.id = table_id
        self.config = config
        self.rules = config.rules
        self.seat = config.seat
        notes: list[str] = []
        self.players, labels = build_opponents(config.opponents, config.seat, config.seed,
                                               notes.append, config.rules)
        self.notice = " ".join(notes)
        self.labels = [f"You (seat {self.seat})" if s == self.seat else
                       f"Seat {s}: {_short(labels[s])}" for s in range(self.rules.players)]
        self.rng = np.random.default_rng(config.seed)
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
        self.hint_agent: Agent | None = None
        self.hint_problem: str | None = None
        self.fallback_agent: Agent | None = None
        """``pimc``, which suggests a card where the search cannot play."""
        self.hinting = False
        """A hint is being computed (one at a time: the search agent is not shared)."""
        self.game: Game
        self._deal()

    # ---------------------------------------------------------------- the hand
    def _deal(self) -> None:
        self.hand_number += 1
        self.result = None
        self.game = Game(self.rules, rng=self.rng, leader=self.leader)
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
            action = parse_action(text, self.rules.decks)
        except ValueError as e:
            raise TableError("bad_action", str(e)) from None
        view = self.view()
        legal = view.legal_actions
        if action not in legal:
            decks = self.rules.decks
            raise TableError("illegal", f"{action_str(action, decks)} is not legal: "
                             f"{why_illegal(view, action)}. Legal now: "
                             f"{', '.join(action_str(a, decks) for a in legal)}")
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
        meta = {"seed": self.config.seed, "hand": self.hand_number,
                "players": list(self.labels), "human_seat": self.seat, "source": "gongzhu serve"}
        self.records.append(record_hand(g, leader=self.leader, meta=meta))
        self.result = hand_result(scores, settle(scores, self.rules, teams=g.teams))
        self.history.append(self.result)
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
        """Value the person's legal cards with the search agent, from their view only.

        Runs in a worker thread, on ``view`` taken on the event loop (the game may move on
        meanwhile). Returns (values in points or None, the suggested action, a note). Where
        the search cannot play (tables without a shipped network: six to eight seats, rule
        sets nothing was trained for), ``pimc``, which
        plays every table, suggests its card instead, and the note says why there are no
        values.
        """
        search = self._search_agent()
        if search is not None:
            try:
                result = search.search(view)
            except AgentError as e:
                self.hint_problem = _first_line(e)
            else:
                if isinstance(result, int):
                    why = ("declarations are not searched" if view.phase == "declare" else
                           "every legal card is worth the same here")
                    if any(a < 0 for a in view.actions):
                        why = "hidden exposures cannot be searched"
                    return None, result, f"{why}; the search agent would play this"
                scale = getattr(search, "scale", 400.0)
                values = {c: v * scale for c, v in result.card_values().items()}
                what = ("expected team points (your team's against the other's, per hand)"
                        if self.rules.has_teams else "expected points (zero-sum, per hand)")
                return values, result.choice, f"{what} over {result.worlds} sampled worlds"
        if self.fallback_agent is None:
            self.fallback_agent = make_agent("pimc", seed=self.config.seed)
            self.fallback_agent.reset(self.seat, self.rules)
        choice = self.fallback_agent.act(view)
        return None, choice, (f"the search agent cannot value cards at this table "
                              f"({self.hint_problem}); pimc, averaging sampled worlds, would "
                              "play this")

    def _search_agent(self) -> Agent | None:
        """Return the hint's search agent, built once; ``None`` where it cannot be built."""
        if self.hint_agent is None and self.hint_problem is None:
            try:
                self.hint_agent = make_agent("search", seed=self.config.seed, rules=self.rules)
                self.hint_agent.reset(self.seat, self.rules)
            except Exception as e:  # noqa: BLE001 - any failure: the fallback advises
                self.hint_agent = None
                self.hint_problem = _first_line(e)
        return None if self.hint_problem is not None else self.hint_agent

    def record_text(self) -> str:
        """Return the finished hands as hand-record JSON lines (``gongzhu play --save``'s)."""
        if not self.records:
            raise TableError("no_records", "no hand is finished yet; a record holds every "
                             "hand's deal, so it is offered once the hand is over")
        return records_text(self.records)

    def close(self) -> None:
        """Release what the agents hold (a search's helper processes)."""
        for agent in [*self.players, self.hint_agent, self.fallback_agent]:
            close = getattr(agent, "close", None)
            if callable(close):
                close()


def records_text(records: Sequence[Mapping[str, Any]]) -> str:
    """Hand records as the JSON lines ``save_records`` writes (with their digests)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hands.jsonl"
        save_records(path, records)
        return path.read_text(encoding="utf-8")


def read_records(text: str) -> list[dict[str, Any]]:
    """Read uploaded hand-record text with every check ``gongzhu replay`` makes."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "upload.jsonl"
        path.write_text(text, encoding="utf-8")
        return load_records(path)


def _first_line(error: Exception) -> str:
    """Return the first line of an error's message (its type's name when it has none)."""
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _short(label: str) -> str:
    """Return an agent's label without the seat prefix ``build_opponents`` gives it."""
    if label.startswith("Seat ") and "(" in label and label.endswith(")"):
        return label[label.index("(") + 1:-1]
    return label


class TableStore:
    """The live tables: at most ``max_tables``, each freed after ``idle_s`` without activity."""

    def __init__(self, max_tables: int, idle_s: float) -> None:
        self.max_tables = max_tables
        self.idle_s = idle_s
        self.tables: dict[str, TableSession] = {}

    def new_id(self) -> str:
        """Return a fresh table id: unguessable, as it is the key to the table."""
        return secrets.token_urlsafe(18)

    def check_room(self) -> None:
        """Refuse a new table when the store is full (after freeing idle ones)."""
        self.sweep()
        if len(self.tables) >= self.max_tables:
            raise TableError("full", f"the server already holds its limit of "
                             f"{self.max_tables} tables; try again when one is freed (after "
                             f"{self.idle_s:g} s without activity)")

    def add(self, table: TableSession) -> None:
        """Add a built table (``check_room`` again: others may have been added meanwhile)."""
        self.check_room()
        self.tables[table.id] = table

    def get(self, table_id: object) -> TableSession:
        """Return the table of that id, or raise ``TableError`` saying it does not exist."""
        if not isinstance(table_id, str) or table_id not in self.tables:
            raise TableError("unknown_table", f"there is no table {_show(table_id, 40)} on this "
                             f"server: it may have been freed after {self.idle_s:g} s without "
                             "activity, or the server restarted; start a new table")
        return self.tables[table_id]

    def remove(self, table_id: str) -> None:
        """Free a table."""
        table = self.tables.pop(table_id, None)
        if table is not None:
            table.close()

    def sweep(self, now: float | None = None) -> list[str]:
        """Free every table idle for ``idle_s`` (none whose AI is thinking); return their ids."""
        now = time.monotonic() if now is None else now
        gone = [i for i, t in self.tables.items()
                if t.thinking is None and now - t.last_active >= self.idle_s]
        for i in gone:
            self.remove(i)
        return gone


def config_dict(config: TableConfig) -> dict[str, Any]:
    """Return a table's settings as the browser shows them."""
    return {"rules": config.rules.to_dict(), "seat": config.seat, "match": config.match,
            "seed": config.seed, "opponents": list(config.opponents or [AUTO])}


__all__ = ["AUTO", "OPPONENTS", "TableConfig", "TableError", "TableSession", "TableStore",
           "config_dict", "read_records", "records_text"]
