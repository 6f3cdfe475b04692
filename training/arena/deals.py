"""Fixed, seeded deal sets: the same hands for every contender in the arena.

A *deal* is one hand per seat, seat ``i`` holding ``hands[i]``: four hands of 13 cards in the
standard game, ``N`` hands of ``52 // N`` cards at a table of ``N = 3..8`` players (RULES.md
6.14: the low cards ``Rules.removed_cards`` leave the deck first and are in no hand), four hands
of 26 under two-deck rules (every card index twice). A ``DealSet`` is an array of shape
``(n, players, hand_size)`` of card indices (each hand sorted) plus the seed that produced it.
It is generated once from a seed with a ``numpy.random.Generator`` and can be saved to and
loaded from a file, so a ladder measured today can be re-measured on exactly the same hands
later.

Deals are drawn one after the other from one generator, so the first ``k`` deals of a set of
``n`` are the set of ``k`` for the same seed: a quick run on 200 deals is a prefix of the full
run on 2,000.

The shape of a set says what table it is for: one hand size fits each number of players
(17, 13, 10, 8, 7, 6 cards for 3..8 players, 26 for two decks at four), so a set needs no
separate record of its rules, and ``check_deals`` refuses a set made for another table size or
number of decks before any hand is played.

File formats (chosen by the suffix):

* ``.npz``: arrays ``hands`` (int8, ``(n, players, hand_size)``), ``seed`` (int64, ``-1``
  when unknown), ``format_version`` and ``digest`` (a string).
* ``.json``: ``{"format": "gongzhu-deals", "format_version": 2, "seed": s, "digest": "...",
  "deals": [[[...card texts...] x players] ...]}`` with cards as text (``"SQ"``), readable by
  hand.

Both formats kept their version when other table sizes arrived: a four-seat file reads as it
always did, and only the shape of the hands differs at other sizes. Version 2 added the
``digest``: the SHA-256 (``deals_digest``) of the hands (sorted within each hand, as a
``DealSet`` holds them), their shape and the seed. It is checked on load, so a deal set that
was edited or damaged after it was saved is refused rather than measured on; it detects
damage, it is no signature. Version 1 files (no digest) are still read, which is also the
way to give a deal set written by hand.

Before anything is used, a file is checked against its format: a regular file (not a device
or a FIFO) of at most ``MAX_FILE_BYTES`` bytes and ``MAX_DEALS`` deals (an ``.npz`` array's
shape and type are read from its header, before the array is decompressed), no unknown arrays
or keys, integer arrays (no floats, NaN or bools, no pickled objects), scalar ``seed`` and
``format_version``, card texts or integer card indices in ``.json`` (JSON read within the
bounds of ``gongzhu_env.integrity.strict_loads``).

Every deal is checked on load by the engine (``Game.from_hands``) under the rules its shape
stands for: disjoint hands that cover the cards in play (no removed card), or four hands of
26 that hold each card twice. A bad file raises ``DealFileError`` naming the file, the deal and
the problem.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gongzhu_env.cards import card_str, parse_card
from gongzhu_env.deal import shuffled_deck
from gongzhu_env.engine import Game
from gongzhu_env.integrity import (
    ReadLimitError,
    StrictJSONError,
    check_regular,
    content_digest,
    is_int,
    printable,
    read_bounded,
    strict_loads,
)
from gongzhu_env.rules import Rules, count_word

FORMAT_NAME = "gongzhu-deals"
FORMAT_VERSION = 2
READ_VERSIONS = (1, 2)
"""Format versions ``load_deals`` reads: 1 (without digest) and 2."""
MAX_DEALS = 1_000_000
"""Most deals a file may hold (a million four-seat deals are 52 MB as int8)."""
MAX_FILE_BYTES = 256 * 2**20
"""Largest deal file read. A 10,000-deal set takes 0.3 MB as ``.npz`` and 2.7 MB as ``.json``
(5.4 MB with two decks)."""
_NPZ_ARRAYS = {1: {"hands", "seed", "format_version"},
               2: {"hands", "seed", "format_version", "digest"}}
_JSON_KEYS = {1: {"format", "format_version", "seed", "deals"},
              2: {"format", "format_version", "seed", "deals", "digest"}}
NUM_SEATS = 4
"""Seats of the standard table (the default of ``generate_deals``)."""
HAND_SIZE = 13
HAND_SIZES = {1: 13, 2: 26}
"""Cards per hand at four seats, for one and for two decks."""
TABLE_SIZES: tuple[int, ...] = tuple(sorted(Rules.choices()["players"]))
"""The numbers of players the rules allow (RULES.md 6.14), in the order the rules list them."""
_TABLE_OF_SHAPE: dict[tuple[int, int], tuple[int, int]] = {
    (4, HAND_SIZES[2]): (4, 2),
    **{(n, Rules(players=n).hand_size): (n, 1) for n in TABLE_SIZES},
}
"""``(hands per deal, cards per hand)`` -> ``(players, decks)``: the table each shape is for."""
_SHAPES_TEXT = ("(n, 4, 13) for four players, (n, N, 52 // N) for N = 3..8 players "
                "(e.g. (n, 5, 10)), or (n, 4, 26) for two decks")


class DealFileError(ValueError):
    """A deal file is missing, unreadable or holds something other than valid deals."""


def deals_digest(hands: np.ndarray, seed: int | None) -> str:
    """SHA-256 (hex) of a deal set's content: its hands (as int8 bytes), their shape and seed.

    The same for both file formats, so converting a set from ``.npz`` to ``.json`` keeps its
    digest.
    """
    h = np.ascontiguousarray(hands, dtype=np.int8)
    return content_digest({"shape": list(h.shape), "seed": seed,
                           "hands": hashlib.sha256(h.tobytes()).hexdigest()})


def table_rules(players: int, decks: int = 1) -> Rules:
    """Return the rules that decide what a deal for ``players`` seats and ``decks`` decks holds.

    Only the table size and the number of decks change which cards a deal holds; every other
    option is about play and scoring, so these minimal rules check a deal for any table.
    """
    return Rules(decks=decks, players=players)


def describe_table(players: int, decks: int) -> str:
    """Say what a deal holds, ``"five hands of 10 cards (players=5)"``, for error messages."""
    size = table_rules(players, decks).hand_size
    extra = ", 2 decks" if decks == 2 else ""
    return f"{count_word(players)} hands of {size} cards (players={players}{extra})"


@dataclass(frozen=True, eq=False)
class DealSet:
    """``hands[d, s]``: the sorted cards seat ``s`` holds in deal ``d``.

    Shape ``(n, players, hand_size)``: ``(n, 4, 13)`` for the standard table, ``(n, 5, 10)``
    for five players, ``(n, 4, 26)`` for two decks (see the module docstring). ``seed`` is the
    generator seed the set was drawn from (``None`` for a set built from given hands). Build
    one with ``generate_deals``, ``DealSet.from_hands`` or ``load_deals``.
    """

    hands: np.ndarray
    seed: int | None = None

    def __post_init__(self) -> None:
        h = np.asarray(self.hands)
        if h.ndim != 3 or tuple(h.shape[1:]) not in _TABLE_OF_SHAPE:
            raise ValueError(f"a deal set is an array of shape {_SHAPES_TEXT}; got shape "
                             f"{h.shape}")
        if not np.issubdtype(h.dtype, np.integer):
            raise ValueError(f"deal cards must be integer card indices; got dtype {h.dtype}")
        h = np.sort(h.astype(np.int8), axis=2)
        h.setflags(write=False)
        object.__setattr__(self, "hands", h)

    @property
    def players(self) -> int:
        """Number of seats the deals are for (hands per deal)."""
        return _TABLE_OF_SHAPE[self._shape][0]

    @property
    def decks(self) -> int:
        """Number of decks the deals are for: 2 for four hands of 26 cards, else 1."""
        return _TABLE_OF_SHAPE[self._shape][1]

    @property
    def hand_size(self) -> int:
        """Cards in each hand (and tricks in a hand)."""
        return int(self.hands.shape[2])

    @property
    def _shape(self) -> tuple[int, int]:
        return int(self.hands.shape[1]), int(self.hands.shape[2])

    def describe(self) -> str:
        """Say what each deal of the set holds, e.g. ``"five hands of 10 cards (players=5)"``."""
        return describe_table(self.players, self.decks)

    @classmethod
    def from_hands(cls, deals: Sequence[Sequence[Sequence[int | str]]],
                   seed: int | None = None, rules: Rules | None = None) -> DealSet:
        """Build a set from explicit deals (card indices or texts), each checked by the engine.

        Without ``rules`` the first deal's shape says which table the deals are for (its
        number of hands and their size: 26 cards at four seats is two decks), and every deal
        is checked by the engine for that table. With ``rules``, every deal must fit them.
        """
        rows = []
        check: Rules | None = None if rules is None else table_rules(rules.players, rules.decks)
        for d, deal in enumerate(deals):
            if d == 0:
                shaped = _rules_of_first_deal(deal)
                if check is not None and (shaped.players, shaped.decks) != (check.players,
                                                                            check.decks):
                    # Deals for another table: say so, rather than what one hand lacks.
                    raise ValueError(_other_table(shaped.players, shaped.decks, check))
                check = shaped
            try:
                game = Game.from_hands(deal, check)
            except ValueError as e:
                raise ValueError(f"deal {d} is not a valid deal: {e}") from None
            rows.append(game.deal)
        if not rows:
            raise ValueError("a deal set needs at least one deal")
        return cls(np.array(rows, dtype=np.int8), seed)

    def __len__(self) -> int:
        return int(self.hands.shape[0])

    def __getitem__(self, index: int) -> list[list[int]]:
        """Deal ``index`` as one list of card indices per seat (what ``Game.from_hands`` takes)."""
        return self.hands[index].tolist()

    def __iter__(self) -> Iterator[list[list[int]]]:
        for d in range(len(self)):
            yield self[d]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DealSet):
            return NotImplemented
        return self.seed == other.seed and np.array_equal(self.hands, other.hands)

    def __hash__(self) -> int:
        return hash((self.seed, self.hands.shape, self.hands.tobytes()))

    def head(self, n: int) -> DealSet:
        """Return the first ``n`` deals (a prefix keeps the seed: it is what that seed gives)."""
        if not 1 <= n <= len(self):
            raise ValueError(f"head(n) needs 1 <= n <= {len(self)}; got {n}")
        return DealSet(self.hands[:n].copy(), self.seed)

    def save(self, path: str | Path) -> Path:
        """Write the set to ``path`` (``.npz`` or ``.json``); returns the path."""
        return save_deals(self, path)


def _rules_of_first_deal(deal: Sequence[Sequence[int | str]]) -> Rules:
    """Return the table a deal's shape stands for (a shape no table has: standard rules).

    The engine then names what a standard deal holds, which is the most likely intent of a
    malformed deal (a card missing from a four-seat hand, say).
    """
    if isinstance(deal, (str, bytes)) or not isinstance(deal, Sequence) or not len(deal):
        return Rules()
    first = deal[0]
    size = len(first) if isinstance(first, Sequence) and not isinstance(first, str) else 0
    table = _TABLE_OF_SHAPE.get((len(deal), size))
    if table is None:
        # A hand too many or too few cards: judge it by its number of hands, when that is a
        # table size, so the error speaks of that table's hand size.
        table = (len(deal), 1) if len(deal) in TABLE_SIZES else (NUM_SEATS, 1)
    return table_rules(*table)


def generate_deals(n: int, seed: int, decks: int = 1, players: int = NUM_SEATS) -> DealSet:
    """Draw ``n`` deals from ``numpy.random.default_rng(seed)``, one shuffled deck per deal.

    Each deal is the engine's deal (``gongzhu_env.deal.shuffled_deck``): one shuffle of the
    cards in play (``Rules.deck_mask``: the removed low cards of RULES.md 6.14 never appear),
    cut into ``players`` hands. With ``decks=2`` (four
    players only) each deal shuffles the 104 cards of two decks into four hands of 26. At four
    seats the cards in play are all 52 in index order, so a seed gives the deals it always
    gave.
    """
    if type(n) is not int or n < 1:
        raise ValueError(f"number of deals must be a positive int; got {n!r}")
    if type(seed) is not int or seed < 0:
        raise ValueError(f"deal seed must be a non-negative int; got {seed!r}")
    if decks not in HAND_SIZES:
        raise ValueError(f"decks must be 1 or 2; got {decks!r}")
    if type(players) is not int or players not in TABLE_SIZES:
        raise ValueError(f"players must be one of {list(TABLE_SIZES)} (seats at the table); "
                         f"got {players!r}")
    rules = table_rules(players, decks)  # refuses two decks at other than four seats
    rng = np.random.default_rng(seed)
    hands = np.empty((n, players, rules.hand_size), dtype=np.int8)
    for d in range(n):
        # The engine's own deal (``gongzhu_env.deal``): deal d of a set is the hand
        # ``Game(rules, rng=rng)`` would deal as the (d+1)-th hand of that generator.
        hands[d] = shuffled_deck(rules, rng).reshape(players, rules.hand_size)
    return DealSet(hands, seed)


def check_deals(deals: DealSet, rules: Rules) -> None:
    """Raise ``ValueError`` when ``deals`` were dealt for another table than ``rules``.

    The table is the number of players and of decks; the message names both the set's and
    the rules' (e.g. four hands of 13 cards against ``players=5``).
    """
    if deals.players == rules.players and deals.decks != rules.decks:
        raise ValueError(
            f"the deal set holds hands of {HAND_SIZES[deals.decks]} cards ({deals.decks} "
            f"deck{'s' if deals.decks > 1 else ''}), but the rules play {rules.decks} "
            f"deck{'s' if rules.decks > 1 else ''} ({HAND_SIZES[rules.decks]} cards a hand); "
            "use a deal set made for these rules")
    if deals.players != rules.players:
        raise ValueError(_other_table(deals.players, deals.decks, rules))


def _other_table(players: int, decks: int, rules: Rules) -> str:
    """Say that deals of one table were offered to the rules of another."""
    return (f"the deal set holds {describe_table(players, decks)} in each deal, but the rules "
            f"deal {describe_table(rules.players, rules.decks)}; use a deal set made for "
            f"these rules (e.g. generate_deals(n, seed, players={rules.players}))")


def save_deals(deals: DealSet, path: str | Path) -> Path:
    """Save a deal set as ``.npz`` (compact) or ``.json`` (readable); the suffix decides."""
    path = Path(path)
    suffix = path.suffix.lower()
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = deals_digest(deals.hands, deals.seed)
    if suffix == ".npz":
        np.savez_compressed(
            path, hands=deals.hands, seed=np.int64(-1 if deals.seed is None else deals.seed),
            format_version=np.int64(FORMAT_VERSION), digest=np.array(digest),
        )
    elif suffix == ".json":
        doc = {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "seed": deals.seed,
            "digest": digest,
            "deals": [[[card_str(int(c)) for c in hand] for hand in deal]
                      for deal in deals.hands],
        }
        path.write_text(json.dumps(doc, separators=(",", ":")) + "\n", encoding="utf-8")
    else:
        raise ValueError(f"deal file {str(path)!r} must end in .npz or .json; got {suffix!r}")
    return path


def load_deals(path: str | Path, rules: Rules | None = None) -> DealSet:
    """Load and validate a deal set saved by ``save_deals``; raises ``DealFileError`` if bad.

    The checks are those of the module docstring; with ``rules``, a set made for another table
    (``check_deals``) is refused too, the error naming the file, what its deals hold and what
    the rules deal.
    """
    path = Path(path)
    name = repr(printable(path))
    if path.is_dir():
        raise DealFileError(f"deal file {name} is a directory, not a deal file")
    try:
        check_regular(path)  # a device or a FIFO would be read without end, or block
    except FileNotFoundError:
        raise DealFileError(f"deal file {name} does not exist") from None
    except OSError as e:
        raise DealFileError(f"cannot read the deal file {name}: {e.strerror or e}") from None
    except ReadLimitError as e:
        raise DealFileError(f"deal file {name} {e.problem}") from None
    suffix = path.suffix.lower()
    if suffix not in (".npz", ".json"):
        raise DealFileError(f"deal file {name} must end in .npz or .json; got "
                            f"{printable(suffix)!r}")
    try:
        size = path.stat().st_size
    except OSError as e:
        raise DealFileError(f"cannot read the deal file {name}: {e.strerror or e}") from None
    if size > MAX_FILE_BYTES:
        raise DealFileError(f"deal file {name} is {size:,} bytes; at most {MAX_FILE_BYTES:,} "
                            "are read")
    if suffix == ".npz":
        hands, seed, digest = _read_npz(path, name)
    else:
        hands, seed, digest = _read_json(path, name)
    if not len(hands):
        raise DealFileError(f"deal file {name} holds no deals")
    try:
        deals = DealSet.from_hands(hands, seed)
    except ValueError as e:
        raise DealFileError(f"deal file {name}: {printable(e, 400)}") from None
    if digest is not None and digest != deals_digest(deals.hands, deals.seed):
        raise DealFileError(
            f"deal file {name}: its deals do not match the digest stored in it (the file was "
            "edited or damaged after it was saved); save the deal set again, or give hands "
            "written by hand as format_version 1 without a digest")
    if rules is not None:
        try:
            check_deals(deals, rules)
        except ValueError as e:
            raise DealFileError(f"deal file {name}: {e}") from None
    return deals


def _npz_header(z: zipfile.ZipFile, member: str) -> tuple[tuple[int, ...], np.dtype]:
    """Read the shape and dtype of one array of an ``.npz`` without decompressing its data."""
    with z.open(member) as f:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(f)
        else:
            shape, _, dtype = np.lib.format.read_array_header_2_0(f)
    return shape, dtype


def _scalar_int(z: Any, key: str, name: str) -> int:
    value = z[key]
    if value.shape != () or value.dtype.kind not in "iu":
        raise DealFileError(f"deal file {name}: {key!r} must be one integer, got an array of "
                            f"shape {value.shape} and dtype {value.dtype}")
    return int(value)


def _read_npz(path: Path, name: str) -> tuple[np.ndarray, int | None, str | None]:
    """Check and read an ``.npz`` deal file: hands, seed, and the stored digest (version 2)."""
    try:
        with zipfile.ZipFile(path) as zf:
            members = {m[:-4] for m in zf.namelist() if m.endswith(".npy")}
            if len(members) != len(zf.namelist()):
                raise DealFileError(f"deal file {name} holds members that are not arrays: "
                                    f"{printable(sorted(zf.namelist()), 200)}")
            # Every array this module reads is checked from its header first, so that no
            # member is decompressed beyond the size its role allows (a zip bomb is a few
            # kilobytes that inflate to gigabytes).
            if "hands" in members:
                shape, dtype = _npz_header(zf, "hands.npy")
                if len(shape) == 3 and shape[0] > MAX_DEALS:
                    raise DealFileError(f"deal file {name} holds {shape[0]:,} deals; at most "
                                        f"{MAX_DEALS:,} are read")
                if dtype.kind not in "iu":
                    raise DealFileError(f"deal file {name}: 'hands' must hold integer card "
                                        f"indices; got dtype {dtype}")
                if len(shape) != 3 or tuple(shape[1:]) not in _TABLE_OF_SHAPE:
                    raise DealFileError(f"deal file {name}: 'hands' must have shape "
                                        f"{_SHAPES_TEXT}; got {shape}")
            for key in ("seed", "format_version", "digest"):
                if key in members:
                    shape, dtype = _npz_header(zf, f"{key}.npy")
                    if key == "digest":
                        if shape != () or dtype.kind != "U" or dtype.itemsize > 4 * 64:
                            raise DealFileError(
                                f"deal file {name}: 'digest' must be one string of 64 hex "
                                f"digits; got shape {shape}, dtype {dtype}")
                    elif shape != () or dtype.kind not in "iu":
                        raise DealFileError(f"deal file {name}: {key!r} must be one integer, "
                                            f"got an array of shape {shape} and dtype {dtype}")
        with np.load(path, allow_pickle=False) as z:
            missing = {"hands", "seed", "format_version"} - set(z.files)
            if missing:
                raise DealFileError(f"deal file {name} lacks the array(s) "
                                    f"{sorted(missing)}; expected hands, seed, format_version")
            version = _scalar_int(z, "format_version", name)
            _check_version(name, version)
            extra = set(z.files) - _NPZ_ARRAYS[version]
            missing = _NPZ_ARRAYS[version] - set(z.files)
            if extra or missing:
                raise DealFileError(
                    f"deal file {name} (format version {version}) must hold exactly the arrays "
                    f"{sorted(_NPZ_ARRAYS[version])}; "
                    + (f"unknown: {printable(sorted(extra), 200)}" if extra else
                       f"missing: {sorted(missing)}"))
            seed = _scalar_int(z, "seed", name)
            digest = None
            if version >= 2:
                d = z["digest"]
                if d.shape != () or d.dtype.kind != "U" or len(str(d)) != 64:
                    raise DealFileError(f"deal file {name}: 'digest' must be one string of 64 "
                                        f"hex digits; got shape {d.shape}, dtype {d.dtype}")
                digest = str(d)
            hands = z["hands"]
    except DealFileError:
        raise
    except Exception as e:  # a truncated or foreign file: zipfile, OSError, ValueError...
        raise DealFileError(f"deal file {name} is not a readable .npz: "
                            f"{printable(e, 200)}") from None
    if hands.ndim != 3 or tuple(hands.shape[1:]) not in _TABLE_OF_SHAPE:
        raise DealFileError(f"deal file {name}: 'hands' must have shape "
                            f"{_SHAPES_TEXT}; got {hands.shape}")
    if seed < -1:
        raise DealFileError(f"deal file {name}: seed must be -1 (unknown) or a non-negative "
                            f"int; got {seed}")
    return hands.astype(np.int64).tolist(), None if seed < 0 else seed, digest


def _read_json(path: Path, name: str) -> tuple[list, int | None, str | None]:
    """Check and read a ``.json`` deal file: hands, seed, and the stored digest (version 2)."""
    try:
        with path.open("rb") as f:
            # Bounded even if the file grew since load_deals looked at its size.
            data = read_bounded(f, max_bytes=MAX_FILE_BYTES)
        doc = strict_loads(data.decode("utf-8"), max_chars=MAX_FILE_BYTES)
    except ReadLimitError as e:
        raise DealFileError(f"deal file {name} {e.problem}") from None
    except OSError as e:
        raise DealFileError(f"cannot read the deal file {name}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise DealFileError(f"deal file {name} is not valid JSON: it is not UTF-8 "
                            "text") from None
    except StrictJSONError as e:
        msg = str(e) if str(e).startswith("not valid JSON") else f"not valid JSON: {e}"
        raise DealFileError(f"deal file {name} is {msg}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT_NAME:
        raise DealFileError(f"deal file {name} is not a {FORMAT_NAME!r} file "
                            "(expected a JSON object with \"format\": \"gongzhu-deals\")")
    version = doc.get("format_version")
    _check_version(name, version)
    keys = _JSON_KEYS[version]
    if set(doc) != keys:
        raise DealFileError(f"deal file {name} (format version {version}) must hold exactly "
                            f"the keys {sorted(keys)}; got {printable(sorted(doc), 200)}")
    seed = doc["seed"]
    if seed is not None and (not is_int(seed) or seed < 0):
        raise DealFileError(f"deal file {name}: seed must be a non-negative int or "
                            f"null; got {printable(repr(seed), 40)}")
    digest = doc.get("digest")
    if version >= 2 and not (isinstance(digest, str) and len(digest) == 64):
        raise DealFileError(f"deal file {name}: 'digest' must be a string of 64 hex digits; "
                            f"got {printable(repr(digest), 80)}")
    deals = doc["deals"]
    if not isinstance(deals, list):
        raise DealFileError(f"deal file {name}: 'deals' must be a list of deals")
    if len(deals) > MAX_DEALS:
        raise DealFileError(f"deal file {name} holds {len(deals):,} deals; at most "
                            f"{MAX_DEALS:,} are read")
    hands = []
    # Deal 0 sets the table size for the file (a size no table has: the standard four).
    seats = len(deals[0]) if deals and isinstance(deals[0], list) else NUM_SEATS
    if seats not in TABLE_SIZES:
        seats = NUM_SEATS
    for d, deal in enumerate(deals):
        if not isinstance(deal, list) or len(deal) != seats or not all(
                isinstance(h, list) for h in deal):
            raise DealFileError(f"deal file {name}: deal {d} must be a list of "
                                f"{count_word(seats)} hands (lists of cards), like deal 0 "
                                f"(one hand per seat, {min(TABLE_SIZES)} to "
                                f"{max(TABLE_SIZES)} seats)")
        try:
            hands.append([[_card(c) for c in h] for h in deal])
        except ValueError as e:
            raise DealFileError(f"deal file {name}: deal {d}: {printable(e, 200)}") from None
    return hands, seed, digest


def _card(value: object) -> int:
    """Read a card of a ``.json`` deal: its text (``"SQ"``), or an index as older files allow."""
    if isinstance(value, str):
        return parse_card(value)
    if is_int(value):
        return value
    raise ValueError(f"a card must be card text such as 'SQ' (or a card index 0..51); got "
                     f"{printable(json.dumps(value), 40)}")


def _check_version(name: str, version: object) -> None:
    if not is_int(version) or version not in READ_VERSIONS:
        raise DealFileError(f"deal file {name} has format version "
                            f"{printable(repr(version), 40)}; this "
                            f"version of gongzhu reads versions "
                            f"{', '.join(map(str, READ_VERSIONS))}")
