"""Fixed, seeded deal sets: the same hands for every contender in the arena.

A *deal* is four 13-card hands, seat ``i`` holding ``hands[i]`` (four 26-card hands under
two-deck rules, in which every card index appears twice). A ``DealSet`` is an array of shape
``(n, 4, 13)`` (or ``(n, 4, 26)``) of card indices (each hand sorted) plus the seed that
produced it. It is generated once from a seed with a ``numpy.random.Generator`` and can be saved
to and loaded from a file, so a ladder measured today can be re-measured on exactly the same
hands later.

Deals are drawn one after the other from one generator, so the first ``k`` deals of a set of
``n`` are the set of ``k`` for the same seed: a quick run on 200 deals is a prefix of the full
run on 2,000.

File formats (chosen by the suffix):

* ``.npz``: arrays ``hands`` (int8, ``(n, 4, 13)`` or ``(n, 4, 26)``), ``seed`` (int64, ``-1``
  when unknown) and ``format_version``.
* ``.json``: ``{"format": "gongzhu-deals", "format_version": 1, "seed": s, "deals": [[[...13
  (or 26) card texts...] x 4] ...]}`` with cards as text (``"SQ"``), readable by hand.

Every deal is checked on load by the engine (``Game.from_hands``): four disjoint hands of 13
that cover the deck, or four hands of 26 that hold each card twice. The hand size tells the
number of decks (``DealSet.decks``); ``check_deals`` refuses a set dealt for the other number.
A bad file raises ``DealFileError`` naming the file, the deal and the problem.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gongzhu_env.cards import card_str, parse_card
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules

FORMAT_NAME = "gongzhu-deals"
FORMAT_VERSION = 1
NUM_SEATS = 4
HAND_SIZE = 13
HAND_SIZES = {1: 13, 2: 26}
"""Cards per hand for one and for two decks."""
_DECKS_OF_SIZE = {size: decks for decks, size in HAND_SIZES.items()}


class DealFileError(ValueError):
    """A deal file is missing, unreadable or holds something other than valid deals."""


@dataclass(frozen=True, eq=False)
class DealSet:
    """``hands[d, s]``: the 13 (two decks: 26) sorted cards seat ``s`` holds in deal ``d``.

    ``seed`` is the generator seed the set was drawn from (``None`` for a set built from given
    hands). Build one with ``generate_deals``, ``DealSet.from_hands`` or ``load_deals``.
    """

    hands: np.ndarray
    seed: int | None = None

    def __post_init__(self) -> None:
        h = np.asarray(self.hands)
        if h.ndim != 3 or h.shape[1] != NUM_SEATS or h.shape[2] not in _DECKS_OF_SIZE:
            raise ValueError(
                f"a deal set is an array of shape (n, 4, 13), or (n, 4, 26) for two decks; "
                f"got shape {h.shape}"
            )
        if not np.issubdtype(h.dtype, np.integer):
            raise ValueError(f"deal cards must be integer card indices; got dtype {h.dtype}")
        h = np.sort(h.astype(np.int8), axis=2)
        h.setflags(write=False)
        object.__setattr__(self, "hands", h)

    @property
    def decks(self) -> int:
        """Number of decks the deals are for: 1 (13 cards a hand) or 2 (26)."""
        return _DECKS_OF_SIZE[int(self.hands.shape[2])]

    @classmethod
    def from_hands(cls, deals: Sequence[Sequence[Sequence[int | str]]],
                   seed: int | None = None) -> DealSet:
        """Build a set from explicit deals (card indices or texts), each checked by the engine.

        The first hand's size says whether the deals are for one deck (13) or two (26); every
        deal is then checked by the engine under that number of decks.
        """
        rows = []
        rules = None
        for d, deal in enumerate(deals):
            if rules is None:
                size = len(deal[0]) if len(deal) and not isinstance(deal[0], str) else 0
                rules = Rules(decks=_DECKS_OF_SIZE.get(size, 1))
            try:
                game = Game.from_hands(deal, rules)
            except ValueError as e:
                raise ValueError(f"deal {d} is not a valid deal: {e}") from None
            rows.append(game.deal)
        if not rows:
            raise ValueError("a deal set needs at least one deal")
        return cls(np.array(rows, dtype=np.int8), seed)

    def __len__(self) -> int:
        return int(self.hands.shape[0])

    def __getitem__(self, index: int) -> list[list[int]]:
        """Deal ``index`` as four lists of card indices (what ``Game.from_hands`` takes)."""
        return self.hands[index].tolist()

    def __iter__(self) -> Iterator[list[list[int]]]:
        for d in range(len(self)):
            yield self[d]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DealSet):
            return NotImplemented
        return self.seed == other.seed and np.array_equal(self.hands, other.hands)

    def __hash__(self) -> int:
        return hash((self.seed, self.hands.tobytes()))

    def head(self, n: int) -> DealSet:
        """Return the first ``n`` deals (a prefix keeps the seed: it is what that seed gives)."""
        if not 1 <= n <= len(self):
            raise ValueError(f"head(n) needs 1 <= n <= {len(self)}; got {n}")
        return DealSet(self.hands[:n].copy(), self.seed)

    def save(self, path: str | Path) -> Path:
        """Write the set to ``path`` (``.npz`` or ``.json``); returns the path."""
        return save_deals(self, path)


def generate_deals(n: int, seed: int, decks: int = 1) -> DealSet:
    """Draw ``n`` deals from ``numpy.random.default_rng(seed)``, one shuffled deck per deal.

    With ``decks=2`` each deal shuffles the 104 cards of two decks into four hands of 26.
    """
    if type(n) is not int or n < 1:
        raise ValueError(f"number of deals must be a positive int; got {n!r}")
    if type(seed) is not int or seed < 0:
        raise ValueError(f"deal seed must be a non-negative int; got {seed!r}")
    if decks not in HAND_SIZES:
        raise ValueError(f"decks must be 1 or 2; got {decks!r}")
    rng = np.random.default_rng(seed)
    size = HAND_SIZES[decks]
    hands = np.empty((n, NUM_SEATS, size), dtype=np.int8)
    for d in range(n):
        hands[d] = (rng.permutation(52 * decks) % 52).reshape(NUM_SEATS, size)
    return DealSet(hands, seed)


def check_deals(deals: DealSet, rules: Rules) -> None:
    """Raise ``ValueError`` when ``deals`` were dealt for another number of decks than ``rules``."""
    if deals.decks != rules.decks:
        raise ValueError(
            f"the deal set holds hands of {HAND_SIZES[deals.decks]} cards ({deals.decks} "
            f"deck{'s' if deals.decks > 1 else ''}), but the rules play {rules.decks} "
            f"deck{'s' if rules.decks > 1 else ''} ({HAND_SIZES[rules.decks]} cards a hand); "
            "use a deal set made for these rules")


def save_deals(deals: DealSet, path: str | Path) -> Path:
    """Save a deal set as ``.npz`` (compact) or ``.json`` (readable); the suffix decides."""
    path = Path(path)
    suffix = path.suffix.lower()
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".npz":
        np.savez_compressed(
            path, hands=deals.hands, seed=np.int64(-1 if deals.seed is None else deals.seed),
            format_version=np.int64(FORMAT_VERSION),
        )
    elif suffix == ".json":
        doc = {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "seed": deals.seed,
            "deals": [[[card_str(int(c)) for c in hand] for hand in deal]
                      for deal in deals.hands],
        }
        path.write_text(json.dumps(doc, separators=(",", ":")) + "\n", encoding="utf-8")
    else:
        raise ValueError(f"deal file {str(path)!r} must end in .npz or .json; got {suffix!r}")
    return path


def load_deals(path: str | Path) -> DealSet:
    """Load and validate a deal set saved by ``save_deals``; raises ``DealFileError`` if bad."""
    path = Path(path)
    if not path.is_file():
        raise DealFileError(f"deal file {str(path)!r} does not exist")
    suffix = path.suffix.lower()
    if suffix == ".npz":
        hands, seed = _read_npz(path)
    elif suffix == ".json":
        hands, seed = _read_json(path)
    else:
        raise DealFileError(f"deal file {str(path)!r} must end in .npz or .json; got {suffix!r}")
    if not hands:
        raise DealFileError(f"deal file {str(path)!r} holds no deals")
    try:
        return DealSet.from_hands(hands, seed)
    except ValueError as e:
        raise DealFileError(f"deal file {str(path)!r}: {e}") from None


def _read_npz(path: Path) -> tuple[list, int | None]:
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = {"hands", "seed", "format_version"} - set(z.files)
            if missing:
                raise DealFileError(f"deal file {str(path)!r} lacks the array(s) "
                                    f"{sorted(missing)}; expected hands, seed, format_version")
            version = int(z["format_version"])
            hands = z["hands"]
            seed = int(z["seed"])
    except DealFileError:
        raise
    except Exception as e:  # a truncated or foreign file: zipfile, OSError, ValueError...
        raise DealFileError(f"deal file {str(path)!r} is not a readable .npz: {e}") from None
    _check_version(path, version)
    if hands.ndim != 3 or hands.shape[1] != NUM_SEATS or hands.shape[2] not in _DECKS_OF_SIZE:
        raise DealFileError(f"deal file {str(path)!r}: 'hands' must have shape (n, 4, 13), or "
                            f"(n, 4, 26) for two decks; got {hands.shape}")
    if not np.issubdtype(hands.dtype, np.integer):
        raise DealFileError(f"deal file {str(path)!r}: 'hands' must hold integer card indices; "
                            f"got dtype {hands.dtype}")
    return hands.astype(np.int64).tolist(), None if seed < 0 else seed


def _read_json(path: Path) -> tuple[list, int | None]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise DealFileError(f"deal file {str(path)!r} is not valid JSON: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT_NAME:
        raise DealFileError(f"deal file {str(path)!r} is not a {FORMAT_NAME!r} file "
                            "(expected a JSON object with \"format\": \"gongzhu-deals\")")
    _check_version(path, doc.get("format_version"))
    seed = doc.get("seed")
    if seed is not None and (type(seed) is not int or seed < 0):
        raise DealFileError(f"deal file {str(path)!r}: seed must be a non-negative int or "
                            f"null; got {seed!r}")
    deals = doc.get("deals")
    if not isinstance(deals, list):
        raise DealFileError(f"deal file {str(path)!r}: 'deals' must be a list of deals")
    hands = []
    for d, deal in enumerate(deals):
        if not isinstance(deal, list) or len(deal) != NUM_SEATS or not all(
                isinstance(h, list) for h in deal):
            raise DealFileError(f"deal file {str(path)!r}: deal {d} must be a list of four "
                                "hands (lists of cards)")
        try:
            hands.append([[parse_card(c) if isinstance(c, str) else c for c in h]
                          for h in deal])
        except ValueError as e:
            raise DealFileError(f"deal file {str(path)!r}: deal {d}: {e}") from None
    return hands, seed


def _check_version(path: Path, version: object) -> None:
    if version != FORMAT_VERSION:
        raise DealFileError(f"deal file {str(path)!r} has format version {version!r}; this "
                            f"version of gongzhu reads version {FORMAT_VERSION}")
