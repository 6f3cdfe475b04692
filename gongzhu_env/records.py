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
meta              free-form information (players, seed, hand number in a match...): optional
================  ===========================================================================

``rules``, ``deal``, ``leader`` and ``actions`` define the hand; the other fields are derived,
kept for readers of the file and checked on replay. Example (shortened)::

    {"format": "gongzhu-hand", "version": 1, "rules": {"settlement_multiplier": 12},
     "deal": [["C2", "C9", ...], ...], "leader": null, "first_leader": 0,
     "declarations": [[2, "SQ"]], "actions": ["DONE", "DONE", "SQ", "DONE", "DONE", "C2", ...],
     "tricks": [{"leader": 0, "cards": ["C2", "CK", "C5", "C7"], "winner": 1}, ...],
     "complete": true, "scores": [0, -240, 100, -30], "meta": {"players": [...]}}

API: ``record_hand(game)`` builds a record, ``save_records(path, games_or_records)`` writes
JSON lines, ``load_records(path)`` reads and checks them, ``replay_record(record)`` rebuilds the
``Game`` through ``Game.replay`` and checks it against the stored tricks and scores. Problems
raise ``RecordError`` (a ``ValueError``) naming the file and the line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from gongzhu_env.cards import action_str, card_str, parse_action, parse_card
from gongzhu_env.engine import Game, IllegalActionError
from gongzhu_env.rules import Rules, count_word

__all__ = [
    "FORMAT",
    "VERSION",
    "RecordError",
    "load_records",
    "record_hand",
    "replay_record",
    "save_records",
    "sq_taker",
]

FORMAT = "gongzhu-hand"
VERSION = 1
_REQUIRED = ("format", "version", "rules", "deal", "leader", "actions")


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
    record: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "rules": game.rules.to_dict(),
        "deal": [[card_str(c) for c in hand] for hand in game.deal],
        "leader": leader,
        "first_leader": game.first_leader,
        "declarations": [[seat, card_str(c)] for seat, c in game.declarations],
        "actions": [action_str(a, game.rules.decks) for a in game.actions],
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


def _check_structure(record: object) -> dict[str, Any]:
    """Check the shape of one record; raise ``ValueError`` saying what is wrong."""
    if not isinstance(record, dict):
        raise ValueError(f"a hand record must be a JSON object, got {type(record).__name__}")
    missing = [k for k in _REQUIRED if k not in record]
    if missing:
        raise ValueError(f"missing key(s) {missing}; a record needs {list(_REQUIRED)}")
    if record["format"] != FORMAT:
        raise ValueError(f"'format' must be {FORMAT!r}, got {record['format']!r}")
    if record["version"] != VERSION:
        raise ValueError(f"unsupported record version {record['version']!r}; this version of "
                         f"gongzhu_env reads version {VERSION}")
    if not isinstance(record["rules"], dict):
        raise ValueError("'rules' must be an object of rule options")
    # The table size comes from the rules (a record without 'players' is a table of four).
    n = record["rules"].get("players", 4)
    if type(n) is not int or not 3 <= n <= 8:
        raise ValueError(f"'rules' has players={n!r}; expected an int 3..8")
    deal = record["deal"]
    if not (isinstance(deal, list) and len(deal) == n
            and all(isinstance(h, list) for h in deal)):
        raise ValueError(f"'deal' must be a list of {count_word(n)} lists of cards "
                         f"(players={n})")
    leader = record["leader"]
    if leader is not None and (type(leader) is not int or leader not in range(n)):
        raise ValueError(f"'leader' must be null or a seat 0..{n - 1}, got {leader!r}")
    if not isinstance(record["actions"], list):
        raise ValueError("'actions' must be a list of card texts and 'DONE'")
    scores = record.get("scores")
    if scores is not None and not (isinstance(scores, list) and len(scores) == n
                                   and all(type(s) is int for s in scores)):
        raise ValueError(f"'scores' must be null or {count_word(n)} integers, got {scores!r}")
    return record


def replay_record(record: Mapping[str, Any]) -> Game:
    """Rebuild the hand of a record with ``Game.replay`` and check it against the record.

    Every action is re-checked for legality by the engine; the rebuilt tricks, declarations and
    (for a complete hand) raw scores must equal the stored ones, otherwise ``RecordError``.
    """
    try:
        _check_structure(record)
        rules = Rules.from_dict(record["rules"])
        deal = [[parse_card(c) for c in hand] for hand in record["deal"]]
        actions = [parse_action(a, rules.decks) for a in record["actions"]]
    except (ValueError, TypeError) as e:
        raise RecordError(f"malformed hand record: {e}") from None
    try:
        game = Game.replay(deal, actions, rules, leader=record["leader"])
    except IllegalActionError as e:
        raise RecordError(f"the record does not replay: {e}") from None
    except ValueError as e:
        raise RecordError(f"the record's deal is not valid: {e}") from None
    fresh = record_hand(game, leader=record["leader"])
    for key in ("first_leader", "declarations", "tricks"):
        if key in record and record[key] != fresh[key]:
            raise RecordError(f"the replayed hand's {key!r} differ from the record: "
                              f"stored {record[key]!r}, replayed {fresh[key]!r}")
    complete = record.get("complete", record.get("scores") is not None)
    if complete != game.is_over():
        raise RecordError(f"the record says complete={complete} but its {len(actions)} "
                          f"actions leave the hand {'over' if game.is_over() else 'unfinished'}")
    if game.is_over() and record.get("scores") is not None \
            and list(record["scores"]) != game.scores():
        raise RecordError(f"stored scores {record['scores']} differ from the replayed "
                          f"scores {game.scores()}")
    return game


def save_records(path: str | os.PathLike[str], games_or_records: Iterable[Game | Mapping],
                 *, append: bool = False) -> int:
    """Write games (recorded with ``record_hand``) or records as JSON lines; return the count.

    ``append=True`` adds to an existing file (one match, hand after hand).
    """
    lines = []
    for item in games_or_records:
        rec = record_hand(item) if isinstance(item, Game) else dict(item)
        try:
            _check_structure(rec)
        except ValueError as e:
            raise RecordError(f"refusing to save a malformed record: {e}") from None
        lines.append(json.dumps(rec, ensure_ascii=False, separators=(",", ":")))
    with open(path, "a" if append else "w", encoding="utf-8") as f:
        for line in lines:
            f.write(line + "\n")
    return len(lines)


def load_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Read a JSON-lines file of hand records, checking the shape of each.

    Blank lines are skipped. A missing file, a line that is not JSON or a record of the wrong
    shape raises ``RecordError`` naming the file and the line.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordError(f"hand-record file {str(p)!r} does not exist") from None
    except IsADirectoryError:
        raise RecordError(f"{str(p)!r} is a directory, not a hand-record file") from None
    except UnicodeDecodeError:
        raise RecordError(f"{str(p)!r} is not a UTF-8 text file of JSON lines") from None
    records = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise RecordError(f"{p}, line {n}: not valid JSON ({e.msg} at column {e.colno}); "
                              "expected one hand record per line") from None
        try:
            records.append(_check_structure(rec))
        except ValueError as e:
            raise RecordError(f"{p}, line {n}: {e}") from None
    if not records:
        raise RecordError(f"{p}: no hand records in the file (expected JSON lines)")
    return records
