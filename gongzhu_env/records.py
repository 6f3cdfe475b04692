"""Hand records: one played (or interrupted) hand as a JSON object, many hands as JSON lines.

A record keeps everything needed to replay a hand exactly — the rules, the deal, who led and
every action in order — plus what the hand produced (declarations, tricks, raw scores) so that a
replay can be checked against it. Records are written one per line (JSON lines), so a match, an
arena run or a long self-play log can be appended hand by hand and read back one line at a time.

Format (``"version": 1``)
-------------------------
Every card is written as card text (``"SQ"``, ``"C10"``, ``"H2"``); the action that ends a
declaration turn is ``"DONE"``; with two decks a pair lead is ``"SQ+SQ"``. Seats are ``0..3``
(``0..N-1`` at a table of ``rules.players`` = N seats; a record whose rules do not name
``players`` is a table of four).

================  ===========================================================================
key               value
================  ===========================================================================
format            ``"gongzhu-hand"`` (identifies the file type)
version           ``1``
rules             ``Rules.to_dict()``: every rule option by name
deal              four lists of 13 cards (26 with two decks; N lists of ``rules.hand_size`` at
                  N seats): seat ``i``'s hand as dealt
leader            ``null`` when the lead-card holder led it (C2 at four seats; the first hand of
                  a match); otherwise the
                  seat that led the first trick with any card (a later hand of a match)
first_leader      the seat that declared first and led the first trick
declarations      ``[[seat, card], ...]`` in order; an auto-exposed card comes last
actions           every action in order (exposures, ``"DONE"``, plays)
tricks            ``[{"leader": seat, "cards": [N cards in play order], "winner": seat}, ...]``
                  (8 cards, two per seat, for a trick led with a pair)
complete          ``true`` once the hand is played out; an interrupted hand is ``false``
scores            every seat's raw hand score, or ``null`` for an incomplete hand
meta              an object of free-form information (seed, hand number in a match...):
                  optional; ``meta.players``, when present, is one name per seat (strings of
                  at most 256 characters)
digest            SHA-256 of the canonical JSON of the other fields (``save_records`` writes
                  it): optional
================  ===========================================================================

``rules``, ``deal``, ``leader`` and ``actions`` define the hand; the other fields are derived,
kept for readers of the file and checked on replay. Example (shortened)::

    {"format": "gongzhu-hand", "version": 1, "rules": {"settlement_multiplier": 12},
     "deal": [["C2", "C9", ...], ...], "leader": null, "first_leader": 0,
     "declarations": [[2, "SQ"]], "actions": ["DONE", "DONE", "SQ", "DONE", "DONE", "C2", ...],
     "tricks": [{"leader": 0, "cards": ["C2", "CK", "C5", "C7"], "winner": 1}, ...],
     "complete": true, "scores": [0, -240, 100, -30], "meta": {"players": [...]}}

Integrity. A record is checked field by field before any of it is used: keys (no unknown
ones), types (a bool is not a seat, a string is not a score), shapes (one hand per seat of
``rules.hand_size`` cards, ``N`` scores) and ranges, with the file read within a bound on its
size (``MAX_FILE_BYTES``) and lines within fixed bounds of length, nesting and number size
(``gongzhu_env.integrity``). ``save_records``
adds a ``digest`` to every record, so an edit that still replays (a changed name in ``meta``,
say, or a hand rewritten consistently) is refused on load; a record without a digest (files
written before digests, or by hand) is still read. The digest detects damage and careless
edits; it is no signature. Replaying (``replay_record``) then checks the hand itself against
the engine. Text from a record that reaches a terminal is escaped first
(``gongzhu_env.integrity.printable``).

API: ``record_hand(game)`` builds a record, ``save_records(path, games_or_records)`` writes
JSON lines (``append=True`` adds to a file only where it ends with a whole line:
``append_problem``), ``load_records(path)`` reads and checks them, ``replay_record(record)``
rebuilds the ``Game`` through ``Game.replay`` and checks it against the stored tricks and
scores. Problems raise ``RecordError`` (a ``ValueError``) naming the file and the line.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from gongzhu_env.cards import ActionCodec, card_str, parse_card
from gongzhu_env.engine import Game, IllegalActionError
from gongzhu_env.integrity import (
    ReadLimitError,
    StrictJSONError,
    content_digest,
    is_int,
    printable,
    read_lines,
    strict_loads,
)
from gongzhu_env.rules import Rules, count_word

__all__ = [
    "FORMAT",
    "VERSION",
    "RecordError",
    "append_problem",
    "load_records",
    "record_digest",
    "record_hand",
    "replay_record",
    "save_records",
    "sq_taker",
]

FORMAT = "gongzhu-hand"
VERSION = 1
_REQUIRED = ("format", "version", "rules", "deal", "leader", "actions")
_OPTIONAL = ("first_leader", "declarations", "tricks", "complete", "scores", "meta", "digest")
MAX_NAME = 256
"""Longest player name (``meta.players``) a record may hold."""
MAX_SCORE = 10**6
"""Largest raw hand score magnitude accepted (real hands stay within a few thousand)."""
_MAX_TOKEN = 16
MAX_FILE_BYTES = 2**30
"""Largest hand-record file ``load_records`` reads (1 GiB). A hand's line is 2-3.5 KB: a
10,000-deal arena match recorded at eight seats, the most hands per deal, writes about 150 MB;
lines are read within ``integrity.MAX_LINE_BYTES``."""
"""Longest card or action text ("S10+S10" is 7 characters)."""


class RecordError(ValueError):
    """A hand record (or a file of them) is missing, malformed or does not replay."""


def _infer_leader(game: Game) -> int | None:
    """Return the ``leader`` argument that reproduces ``game``'s first lead.

    ``None`` (the holder of the lead card, C2 at four seats, leads it) reproduces the hand
    whenever the first leader holds that card and led it; otherwise the hand must have been
    started with a free lead by its first leader.
    """
    lead = game.rules.lead_card
    holder = next(s for s, hand in enumerate(game.deal) if lead in hand)
    if game.first_leader != holder:
        return game.first_leader
    first = game.tricks[0].cards if game.tricks else game.trick_cards
    if first and first[0] != lead:
        return game.first_leader
    return None


def record_hand(game: Game, *, leader: int | None | str = "infer",
                meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Return the record of ``game`` (finished or not) as a JSON-ready dict.

    ``leader`` is the value the hand was started with (``Game(..., leader=seat)``); by default it
    is inferred from the deal and the first lead, which always reproduces the hand. ``meta`` is
    stored as given (it must be JSON-serialisable).
    """
    if not isinstance(game, Game):
        raise TypeError(f"record_hand needs a Game, got {type(game).__name__}")
    if leader == "infer":
        leader = _infer_leader(game)
    elif leader is not None and (type(leader) is not int
                                 or leader not in range(game.rules.players)):
        raise ValueError(f"leader must be a seat 0..{game.rules.players - 1}, None or 'infer'; "
                         f"got {leader!r}")
    over = game.is_over()
    codec = ActionCodec.for_rules(game.rules)
    record: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "rules": game.rules.to_dict(),
        "deal": [[card_str(c) for c in hand] for hand in game.deal],
        "leader": leader,
        "first_leader": game.first_leader,
        "declarations": [[seat, card_str(c)] for seat, c in game.declarations],
        "actions": [codec.text(a) for a in game.actions],
        "tricks": [{"leader": t.leader, "cards": [card_str(c) for c in t.cards],
                    "winner": t.winner} for t in game.tricks],
        "complete": over,
        "scores": game.scores() if over else None,
    }
    if meta:
        record["meta"] = dict(meta)
    return record


def sq_taker(game_or_record: Game | Mapping[str, Any]) -> int | None:
    """Return the seat that took the pig (the first SQ with two decks); it leads the next hand.

    A record is replayed first, so its answer is the engine's (under discard colour the taker
    of SQ need not be the trick's winner).
    """
    game = game_or_record if isinstance(game_or_record, Game) else replay_record(game_or_record)
    return game.first_pig_taker


def _show(value: object) -> str:
    """Render a value from a record short and safe to print (control characters escaped)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return printable(text, 60)


def _seat(value: object, n: int, what: str) -> None:
    if not is_int(value) or not 0 <= value < n:
        raise ValueError(f"{what} must be a seat 0..{n - 1}, got {_show(value)}")


def _texts(value: object, what: str, *, size: int | None = None,
           most: int | None = None) -> None:
    """Check that ``value`` is a list of short strings (cards or actions)."""
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list of card texts, got {_show(value)}")
    if size is not None and len(value) != size:
        raise ValueError(f"{what} must hold {size} cards, got {len(value)}")
    if most is not None and len(value) > most:
        raise ValueError(f"{what} holds {len(value)} entries; at most {most} fit one hand")
    for i, token in enumerate(value):
        if not isinstance(token, str) or not 0 < len(token) <= _MAX_TOKEN:
            raise ValueError(f"{what}[{i}] must be card text such as 'SQ', got {_show(token)}")


def _check_meta(meta: object, n: int) -> None:
    if not isinstance(meta, dict):
        raise ValueError(f"'meta' must be an object, got {_show(meta)}")
    players = meta.get("players")
    if "players" in meta and not (
            isinstance(players, list) and len(players) == n
            and all(isinstance(p, str) and len(p) <= MAX_NAME for p in players)):
        raise ValueError(f"'meta.players' must be a list of {count_word(n)} names (strings of "
                         f"at most {MAX_NAME} characters), one per seat; got {_show(players)}")


def _check_structure(record: object) -> dict[str, Any]:
    """Check the schema of one record (see the module docstring); raise ``ValueError`` if bad.

    Everything a reader uses is checked here, before use, so a damaged file gives a message
    naming the field rather than an exception from deep inside a replay or the terminal.
    """
    if not isinstance(record, dict):
        raise ValueError(f"a hand record must be a JSON object, got {type(record).__name__}")
    missing = [k for k in _REQUIRED if k not in record]
    if missing:
        raise ValueError(f"missing key(s) {missing}; a record needs {list(_REQUIRED)}")
    unknown = [k for k in record if k not in _REQUIRED + _OPTIONAL]
    if unknown:
        raise ValueError(f"unknown key(s) {_show(unknown)}; a record holds "
                         f"{list(_REQUIRED + _OPTIONAL)}")
    if record["format"] != FORMAT:
        raise ValueError(f"'format' must be {FORMAT!r}, got {_show(record['format'])}")
    if not is_int(record["version"]) or record["version"] != VERSION:
        raise ValueError(f"unsupported record version {_show(record['version'])}; this "
                         f"version of gongzhu_env reads version {VERSION}")
    if not isinstance(record["rules"], dict):
        raise ValueError("'rules' must be an object of rule options")
    # The table size comes from the rules (a record without 'players' is a table of four).
    n = record["rules"].get("players", 4)
    if not is_int(n) or not 3 <= n <= 8:
        raise ValueError(f"'rules' has players={_show(n)}; expected an int 3..8")
    try:
        rules = Rules.from_dict(record["rules"])
    except (ValueError, TypeError) as e:
        raise ValueError(f"'rules': {printable(e, 300)}") from None
    deal = record["deal"]
    if not (isinstance(deal, list) and len(deal) == n):
        raise ValueError(f"'deal' must be a list of {count_word(n)} lists of cards "
                         f"(players={n})")
    for s, hand in enumerate(deal):
        _texts(hand, f"'deal' seat {s}", size=rules.hand_size)
    leader = record["leader"]
    if leader is not None:
        _seat(leader, n, "'leader' (null or a seat)")
    if "first_leader" in record:
        _seat(record["first_leader"], n, "'first_leader'")
    most = 4 * rules.num_actions  # every card played once, plus declaration turns
    _texts(record["actions"], "'actions'", most=most)
    if "declarations" in record:
        decls = record["declarations"]
        if not isinstance(decls, list) or len(decls) > most:
            raise ValueError(f"'declarations' must be a list of [seat, card], got "
                             f"{_show(decls)}")
        for i, pair in enumerate(decls):
            if not (isinstance(pair, list) and len(pair) == 2):
                raise ValueError(f"'declarations'[{i}] must be [seat, card], got {_show(pair)}")
            _seat(pair[0], n, f"'declarations'[{i}] seat")
            _texts(pair[1:], f"'declarations'[{i}] card")
    if "tricks" in record:
        tricks = record["tricks"]
        if not isinstance(tricks, list) or len(tricks) > rules.hand_size:
            raise ValueError(f"'tricks' must be a list of at most {rules.hand_size} tricks")
        for i, trick in enumerate(tricks):
            if not (isinstance(trick, dict) and set(trick) == {"leader", "cards", "winner"}):
                raise ValueError(f"'tricks'[{i}] must be an object with leader, cards and "
                                 f"winner, got {_show(trick)}")
            _seat(trick["leader"], n, f"'tricks'[{i}] leader")
            _seat(trick["winner"], n, f"'tricks'[{i}] winner")
            _texts(trick["cards"], f"'tricks'[{i}] cards", most=2 * n)
    if "complete" in record and not isinstance(record["complete"], bool):
        raise ValueError(f"'complete' must be true or false, got {_show(record['complete'])}")
    scores = record.get("scores")
    if scores is not None and not (isinstance(scores, list) and len(scores) == n
                                   and all(is_int(s) and abs(s) <= MAX_SCORE for s in scores)):
        raise ValueError(f"'scores' must be null or {count_word(n)} integers, got "
                         f"{_show(scores)}")
    if "meta" in record:
        _check_meta(record["meta"], n)
    if "digest" in record:
        digest = record["digest"]
        if not (isinstance(digest, str) and len(digest) == 64):
            raise ValueError(f"'digest' must be 64 hex digits, got {_show(digest)}")
    return record


def record_digest(record: Mapping[str, Any]) -> str:
    """Return the SHA-256 of a record's canonical JSON, without its own ``digest`` field."""
    return content_digest({k: v for k, v in record.items() if k != "digest"})


def replay_record(record: Mapping[str, Any]) -> Game:
    """Rebuild the hand of a record with ``Game.replay`` and check it against the record.

    Every action is re-checked for legality by the engine; the rebuilt tricks, declarations and
    (for a complete hand) raw scores must equal the stored ones, otherwise ``RecordError``.
    """
    try:
        _check_structure(record)
        rules = Rules.from_dict(record["rules"])
        deal = [[parse_card(c) for c in hand] for hand in record["deal"]]
        codec = ActionCodec.for_rules(rules)
        actions = [codec.parse(a) for a in record["actions"]]
    except (ValueError, TypeError) as e:
        raise RecordError(f"malformed hand record: {printable(e, 400)}") from None
    try:
        game = Game.replay(deal, actions, rules, leader=record["leader"])
    except IllegalActionError as e:
        raise RecordError(f"the record does not replay: {printable(e, 400)}") from None
    except ValueError as e:
        raise RecordError(f"the record's deal is not valid: {printable(e, 400)}") from None
    fresh = record_hand(game, leader=record["leader"])
    for key in ("first_leader", "declarations", "tricks"):
        if key in record and record[key] != fresh[key]:
            raise RecordError(f"the replayed hand's {key!r} differ from the record: "
                              f"stored {printable(record[key], 300)}, replayed "
                              f"{fresh[key]!r}")
    complete = record.get("complete", record.get("scores") is not None)
    if complete != game.is_over():
        raise RecordError(f"the record says complete={complete} but its {len(actions)} "
                          f"actions leave the hand {'over' if game.is_over() else 'unfinished'}")
    if game.is_over() and record.get("scores") is not None \
            and list(record["scores"]) != game.scores():
        raise RecordError(f"stored scores {_show(record['scores'])} differ from the replayed "
                          f"scores {game.scores()}")
    return game


def save_records(path: str | os.PathLike[str], games_or_records: Iterable[Game | Mapping[str, Any]],
                 *, append: bool = False) -> int:
    """Write games (recorded with ``record_hand``) or records as JSON lines; return the count.

    ``append=True`` adds to an existing file (one match, hand after hand). Every record is
    checked first and written with its ``digest`` (module docstring), so nothing malformed
    reaches the file and a later edit is detected on load.

    Appending never makes a readable file unreadable: a file that does not end with a whole
    line (``append_problem``: cut by a crash, a full disk or a copy) is refused with
    ``RecordError`` before anything is written, since the first new record would be glued
    onto the cut line and both lost to ``load_records``; and a write that fails part way (an
    ``OSError``, re-raised) is cut back to the file's former length. The refusal leaves the
    repair to the person, who can see which line was cut: deleting it would lose a hand.
    """
    lines = []
    for item in games_or_records:
        rec = record_hand(item) if isinstance(item, Game) else dict(item)
        rec.pop("digest", None)  # the digest is of this content, computed here
        try:
            _check_structure(rec)
            rec["digest"] = record_digest(rec)
            lines.append(json.dumps(rec, ensure_ascii=False, separators=(",", ":"),
                                    allow_nan=False))
        except (ValueError, TypeError) as e:
            raise RecordError(f"refusing to save a malformed record: {printable(e, 400)}") \
                from None
    if not append:
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(line + "\n" for line in lines)
        return len(lines)
    problem = append_problem(path)
    if problem is not None:
        raise RecordError(f"cannot append hand records to {printable(Path(path))}: {problem}. "
                          "Nothing was written; make the file end with a whole line first "
                          "(delete the cut last line, or end a whole last record with a "
                          "newline), or append to another file")
    try:
        before: int | None = os.stat(path).st_size
    except FileNotFoundError:
        before = None
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.writelines(line + "\n" for line in lines)
    except OSError:
        # Cut back what part of a line reached the file (a full disk, say), so the records
        # already there stay readable; remove the file if this call created it.
        try:
            if before is None:
                Path(path).unlink(missing_ok=True)
            else:
                os.truncate(path, before)
        except OSError:
            pass  # the write's error is the one to report; this was a best effort
        raise
    return len(lines)


def append_problem(path: str | os.PathLike[str]) -> str | None:
    """Say why a record appended to ``path`` would not start a line of its own (None if not).

    A missing or empty file takes records; a regular file whose last byte is a newline does
    too. Anything else does not: a file cut mid-line would have the next record glued onto its
    last line, a FIFO or a device is no record file. Cheap (one byte is read), so a caller that
    appends hand after hand can ask before each one. ``save_records(..., append=True)`` asks
    it, and refuses what it names.
    """
    try:
        # Non-blocking: a plain open of a FIFO would wait for a writer; the check below then
        # refuses it (a directory too, which opens read-only).
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return "it is not a regular file"
            size = os.lseek(fd, 0, os.SEEK_END)
            if size == 0:
                return None
            last = os.pread(fd, 1, size - 1)
        finally:
            os.close(fd)
    except FileNotFoundError:
        return None
    except OSError as e:
        return f"it cannot be read ({printable(e.strerror or e)})"
    if last != b"\n":
        return ("its last line does not end with a newline (the file was cut or edited), so a "
                "record appended now would be joined onto it")
    return None


def load_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Read a JSON-lines file of hand records, checking the schema and digest of each.

    Blank lines are skipped. A missing file, a file over ``MAX_FILE_BYTES`` or with a line
    over ``integrity.MAX_LINE_BYTES`` (``/dev/zero`` is refused after a megabyte), a line that
    is not UTF-8 or not JSON, a line beyond the bounds of ``strict_loads``, a record of the
    wrong shape or one whose digest does not match its content raises ``RecordError`` naming
    the file and the line. The records are returned without their ``digest`` field (as
    ``record_hand`` builds them).
    """
    p = Path(path)
    name = printable(p)
    records: list[dict[str, Any]] = []
    try:
        with p.open("rb") as f:
            # Line by line within bounds: a device or an endless line is refused after at
            # most MAX_FILE_BYTES, never read into memory whole.
            for n, raw, _ in read_lines(f, max_bytes=MAX_FILE_BYTES):
                records.extend(_parse_line(raw, n, name))
    except FileNotFoundError:
        raise RecordError(f"hand-record file {name!r} does not exist") from None
    except IsADirectoryError:
        raise RecordError(f"{name!r} is a directory, not a hand-record file") from None
    except OSError as e:
        raise RecordError(f"cannot read the hand-record file {name!r}: "
                          f"{printable(e.strerror or e)}") from None
    except ReadLimitError as e:
        where = f"{name}, line {e.line}" if e.line is not None else name
        raise RecordError(f"{where} {e.problem}; a hand-record file holds one hand record "
                          f"(JSON) per line") from None
    if not records:
        raise RecordError(f"{name}: no hand records in the file (expected JSON lines)")
    return records


def _parse_line(raw: bytes, n: int, name: str) -> list[dict[str, Any]]:
    """Check line ``n`` of a record file; return its record without digest ([] if blank)."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{name}, line {n}: not UTF-8 text; expected one hand record "
                          "(JSON) per line") from None
    if not line.strip():
        return []
    try:
        rec = strict_loads(line)
    except StrictJSONError as e:
        raise RecordError(f"{name}, line {n}: {e}; expected one hand record per "
                          "line") from None
    try:
        _check_structure(rec)
    except ValueError as e:
        raise RecordError(f"{name}, line {n}: {printable(e, 400)}") from None
    if "digest" in rec:
        if rec["digest"] != record_digest(rec):
            raise RecordError(f"{name}, line {n}: the record does not match its digest "
                              "(it was edited or damaged after it was written)")
        del rec["digest"]
    return [rec]
