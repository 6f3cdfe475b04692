"""The batched engine's one public class, ``GameBatch``, and what every table layout shares.

``GameBatch(n, rules)`` plays ``n`` tables of any rule set the batch covers: one deck at three
to eight seats and two decks at four. The class checks its arguments, holds the output arrays,
saves and restores positions and reads tables once for every table; the kernels and the state
rows they run over are supplied by a table layout, a private subclass chosen from the rules
when the batch is made (``GameBatch.__new__``): ``one_deck.OneDeckTables`` (bit masks of the
52 cards) or ``pairs.PairTables`` (two decks: multisets as once/twice masks, pair leads and
two-card follows). A caller only ever names ``GameBatch``; ``isinstance(b, GameBatch)`` holds
for every batch. This module imports neither layout at import time, so both may import it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import operator
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple, SupportsIndex, cast

import numpy as np

from gongzhu_env.cards import EXPOSABLE_MASK, SCORING_MASK, card_str
from gongzhu_env.engine import IllegalActionError
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import check_reward_mode, check_reward_scale


class BatchStep(NamedTuple):
    """The arrays a ``GameBatch`` writes at every call (the same objects each time, overwritten).

    ``observations``, ``action_masks``, ``current_player``, ``terminated``, ``rewards`` and
    ``scores``: see the attributes of the same names on the batch.
    """

    observations: np.ndarray
    action_masks: np.ndarray
    current_player: np.ndarray
    terminated: np.ndarray
    rewards: np.ndarray
    scores: np.ndarray


def _load_numba(engine: str) -> ModuleType:
    """Import numba for ``engine``, or raise an ``ImportError`` that says who needs it.

    numba is a dependency of the package, but an install may lack it; only the batched
    engines need it, so the error names the engine and says the rest of the package works.
    """
    try:
        return importlib.import_module("numba")
    except ImportError as e:
        raise ImportError(f"{engine} needs numba: pip install numba; the rest of gongzhu_env "
                          f"works without it") from e


# numba before the kernels: mypy reads its own annotations; a run without it is told who needs it.
if TYPE_CHECKING:
    import numba
    import numba.extending
    import numba.np.numpy_support
else:
    numba = _load_numba("the batched engine (gongzhu_env.vector)")
    importlib.import_module("numba.extending")
    importlib.import_module("numba.np.numpy_support")

OBS_DTYPES = (np.dtype(np.float32), np.dtype(np.uint8))
"""The dtypes a batch writes its observations in: float32 (``PlayerView.encode()`` exactly) or
uint8, each value ``x`` as the byte ``np.rint(x * 255)`` (the DMC replay's scale), a quarter of
the memory and of the bytes written at every step."""
OBS_SCALE = 255
"""The byte that stands for the value 1.0 in a uint8 observation."""


def obs_dtype_of(obs_dtype: object) -> np.dtype[Any]:
    """Return ``obs_dtype`` as one of ``OBS_DTYPES``, or raise ``ValueError`` naming both."""
    try:
        dtype = np.dtype(cast(Any, obs_dtype))
        accepted = any(dtype == d for d in OBS_DTYPES)
    except TypeError:
        accepted = False
    if not accepted:
        raise ValueError(f"obs_dtype must be numpy.float32 (the observation as encoded) or "
                         f"numpy.uint8 (each value x as the byte rint(x * 255)); got "
                         f"{obs_dtype!r}")
    return cast("np.dtype[Any]", dtype)


def in_obs_dtype(values: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    """Return float32 observation ``values`` as ``dtype`` writes them: as they are, or bytes.

    The one statement of the byte scale: ``np.rint(x * 255)`` of the float32 value (the
    product taken in float32, as the replay takes it), for the tables the kernels copy from
    (the squashed scores) and for the checks that compare a batch with ``PlayerView.encode``.
    """
    values = np.asarray(values, dtype=np.float32)
    if dtype == np.float32:
        return values
    return np.rint(values * np.float32(OBS_SCALE)).astype(np.uint8)


def _unit(out: np.ndarray) -> Any:
    """Return the value that stands for 1.0 in ``out``: 255 in a uint8 array, else 1.

    Compiled, it is a constant of the array's own dtype (numba compiles a kernel once per
    dtype of its arguments), so the same kernel source writes a float32 or a uint8
    observation with no cost of a run-time scale; an int8 action mask gets 1.
    """
    return out.dtype.type(OBS_SCALE if out.dtype == np.uint8 else 1)


def _bit(out: np.ndarray, on: Any) -> Any:
    """Return ``_unit(out)`` if ``on`` else 0, in ``out``'s dtype (what ``_put_bits`` writes).

    A select between two constants of the array's dtype: the compiler vectorises it into
    blends, about twice (float32) to four times (uint8) as fast as converting ``bit * scale``
    from int64 (``benchmarks/bench_env.py``).
    """
    return _unit(out) if on else out.dtype.type(0)


def _fraction(out: np.ndarray, k: int | np.int64, d: int) -> float:
    """Return ``k / d`` as ``out`` holds it: float32, or its byte (``in_obs_dtype``)."""
    x = np.float32(k / d)
    return float(np.rint(x * np.float32(OBS_SCALE))) if out.dtype == np.uint8 else float(x)


def _constants(out: Any) -> tuple[Any, Any]:
    """Return the 1.0 and the 0 of a compiled array type, as numpy scalars of its dtype."""
    dtype = numba.np.numpy_support.as_dtype(out.dtype)
    return dtype.type(OBS_SCALE if dtype == np.uint8 else 1), dtype.type(0)


# (numba wants each implementation's parameters, annotations included, to be the overload's.)
@numba.extending.overload(_unit, inline="always")
def _unit_compiled(out: Any) -> Callable[[Any], Any]:
    """Compile ``_unit`` into a kernel: a constant of the array's dtype."""
    one, _ = _constants(out)

    def unit(out: Any) -> Any:
        return one

    return unit


@numba.extending.overload(_bit, inline="always")
def _bit_compiled(out: Any, on: Any) -> Callable[[Any, Any], Any]:
    """Compile ``_bit`` into a kernel: a select between two constants of the array's dtype."""
    one, zero = _constants(out)

    def bit(out: Any, on: Any) -> Any:
        return one if on else zero

    return bit


@numba.extending.overload(_fraction, inline="always")
def _fraction_compiled(out: Any, k: Any, d: Any) -> Callable[[Any, Any, Any], Any]:
    """Compile ``_fraction`` into a kernel: float32 ``k / d`` or its byte, by the dtype."""
    if out.dtype == numba.types.uint8:
        def byte(out: Any, k: Any, d: Any) -> Any:
            return np.uint8(np.rint(np.float32(k / d) * np.float32(255.0)))

        return byte

    def value(out: Any, k: Any, d: Any) -> Any:
        return np.float32(k / d)

    return value


if OBS_SCALE != 255:
    raise RuntimeError("the compiled _unit and _fraction write 255 for 1.0; OBS_SCALE changed")

# SplitMix64: the deals' generator and the snapshots' digest both scramble with it.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)


@numba.njit(cache=True)
def _mix(z: np.uint64) -> np.uint64:
    """SplitMix64's output function: a bijective scramble of 64 bits."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)


@numba.njit(cache=True, inline="always")
def _shuffle(deck: np.ndarray, size: int, seed: np.uint64, table: int | np.int64,
             hand: np.int64) -> None:
    """Shuffle ``deck[:size]`` in place for hand ``hand`` of ``table`` under ``seed``.

    Both table layouts deal by this shuffle of their decks, so the recipe of the
    ``one_deck`` module docstring is written once. The generator starts at a hash of
    the three keys and steps by the golden-ratio increment (SplitMix64).
    """
    x = _mix(_mix(_mix(seed + _GOLDEN) + np.uint64(table)) + np.uint64(hand))
    for k in range(size - 1, 0, -1):
        bound = np.uint64(k + 1)
        # Lemire: a 32-bit draw times the bound; reject the few low parts that would bias it.
        x += _GOLDEN
        m = (_mix(x) >> _S32) * bound
        low = m & _LOW32
        if low < bound:
            threshold = (_TWO32 - bound) % bound
            while low < threshold:
                x += _GOLDEN
                m = (_mix(x) >> _S32) * bound
                low = m & _LOW32
        j = np.int64(m >> _S32)
        t = deck[k]
        deck[k] = deck[j]
        deck[j] = t


@numba.njit(cache=True)
def _digest_rows(rows: np.ndarray, key: np.uint64, out: np.ndarray) -> None:
    """Write into ``out[i]`` a 64-bit digest of ``rows[i]`` under ``key`` (as int64).

    Each column goes through the scramble with its position, so any change to a row (a flipped
    bit, a swapped pair of columns, a value moved between rows) changes its digest except with
    a chance of about 2**-64. The digest is no secret: it is there to catch damage, not forgery
    (``_check_snapshot`` still checks every column, so even a forged row cannot break a kernel).
    """
    for i in range(rows.shape[0]):
        h = _mix(key + np.uint64(i + 1) * _GOLDEN)
        for c in range(rows.shape[1]):
            h = _mix(h ^ np.uint64(rows[i, c]) ^ (np.uint64(c + 1) * _GOLDEN))
        out[i] = np.int64(h)


@numba.njit(cache=True, inline="always")
def _outside_unit(uniforms: np.ndarray) -> int:
    """Return the first index whose value is not in [0, 1) (NaN included), or -1.

    What every sampling kernel checks before it samples: compiled into the kernel's own loop,
    the check costs a step next to nothing.
    """
    for i in range(uniforms.shape[0]):
        u = uniforms[i]
        if not (u >= 0.0 and u < 1.0):
            return i
    return -1


def _rules_key(engine: str, rules: Rules, columns: int) -> np.uint64:
    """Hash a batch's engine, rules and row width into the key of its snapshots' digests.

    A snapshot is then refused by a batch of other rules or of the other engine even where its
    columns would happen to pass that batch's checks.
    """
    text = f"{engine}|{columns}|{rules!r}".encode()
    return np.uint64(int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little"))


SETTLEMENT_ONLY = ("settlement", "settlement_multiplier", "match_threshold", "double_pig",
                   "match_end", "next_leader")
"""Rule options that change no hand (only settlement and matches): every layout accepts them."""
REWARD_CODES = {"raw": 0, "zero_sum": 1, "team": 2}
"""The reward modes as the kernels of every layout read them."""


def check_options(rules: Rules, covered: dict[str, tuple[object, ...]], default: Rules,
                  what: str) -> Rules:
    """Return ``rules`` if every option takes a value of ``covered``, else raise ``ValueError``.

    One check for every table layout (``what`` names it in the error): an option of
    ``covered`` must take one of its values (of the same type), a settlement option anything,
    and any other option (one added to ``Rules`` later, say) its value in ``default``, so a
    new rule can never be silently ignored by the kernels. The deck and seat counts are
    checked first: with another, every other option is beside the point. The error names the
    first option not covered, with the values that are.
    """
    fields = sorted(dataclasses.fields(rules), key=lambda f: f.name not in ("decks", "players"))
    for f in fields:
        value = getattr(rules, f.name)
        if f.name in SETTLEMENT_ONLY:
            continue
        if f.name in covered:
            ok = value in covered[f.name] and type(value) is type(covered[f.name][0])
            allowed = ", ".join(repr(v) for v in covered[f.name])
        else:
            ok = value == getattr(default, f.name)
            allowed = repr(getattr(default, f.name))
        if not ok:
            raise ValueError(f"the batched engine (gongzhu_env.batch) does not cover rule "
                             f"option {f.name}={value!r} {what} (it plays {allowed}); play "
                             f"these rules with gongzhu_env.engine.Game")
    return rules


def _describe(value: object) -> str:
    """Name an argument's type, dtype and shape for an error message."""
    if isinstance(value, np.ndarray):
        return f"{value.dtype} array of shape {value.shape}"
    return type(value).__name__


def _unsigned(value: object, what: str, limit: int = 1 << 63) -> int:
    """Return ``value`` as a non-negative int below ``limit``, or raise naming ``what``."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be an integer; got {value!r}")
    try:
        v = operator.index(cast(SupportsIndex, value))
    except TypeError:
        raise TypeError(f"{what} must be an integer; got {value!r}") from None
    if not 0 <= v < limit:
        raise ValueError(f"{what} must be in 0..{limit - 1}; got {v}")
    return v


def _bit_counts(x: np.ndarray) -> np.ndarray:
    """Count the bits set in each non-negative int64 of ``x``.

    SWAR, as the kernels' ``_popcount``: ``numpy.bitwise_count`` is missing from the numpy
    1.x allowed.
    """
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


def _refuser(snap: np.ndarray, names: tuple[str, ...]) -> Callable[[np.ndarray, int, str], None]:
    """Return ``need(ok, column, expected)``, which refuses ``snap`` where ``ok`` is False.

    Both engines' ``_check_snapshot`` word a refusal alike (the first bad table, its column by
    number and name, what it holds and what was expected), so ``restore`` errors read the same
    whichever engine raised them. ``ok`` is ``(tables,)`` for one column or ``(tables, k)``
    for ``k`` columns from ``column`` on.
    """
    def need(ok: np.ndarray, column: int, expected: str) -> None:
        bad = ~ok if ok.ndim == 2 else ~ok[:, None]
        if not bad.any():
            return
        table = int(np.argmax(bad.any(axis=1)))
        col = column + int(np.argmax(bad[table]))
        raise ValueError(
            f"snapshot refused: table {table}, column {col} ({names[col]}) holds "
            f"{int(snap[table, col])}; expected {expected}. restore() takes what "
            f"snapshot() of a batch with these rules returned; the batch was not changed")

    return need


def _within(snap: np.ndarray, column: int, width: int, low: int, high: int) -> np.ndarray:
    """Say which of ``width`` columns of ``snap`` from ``column`` on lie in ``low..high``."""
    part = snap[:, column:column + width]
    return (part >= low) & (part <= high)


DECLARE, PLAY = 0, 1
"""The phase codes of every layout's state rows."""
_CARD_BITS = np.arange(52, dtype=np.int64)


class RowColumns(NamedTuple):
    """Where a layout's state row keeps what every table holds: what ``_check_snapshot`` reads.

    A scalar is a column; a per-seat block is the column of seat 0 (one column a seat from
    it). A card set is a multiset, as ``Game`` holds it: the cards held at least once, and
    (the ``*2`` column) those held twice, -1 where the layout has one deck (every card once).
    """

    names: tuple[str, ...]
    """Every column's name, for the refusals."""
    phase: int
    cur: int
    first: int
    turns: int
    """Declaration turns taken."""
    tlen: int
    """Cards in the trick in progress."""
    tlead: int
    led: int
    sled: int
    """Suits led so far."""
    done: int
    """The count of the finished tricks (one deck) or of their cards (two decks)."""
    expall: int
    expall2: int
    legal: int
    trick: int
    """The first card of the trick in progress, in play order."""
    trick_width: int
    hand: int
    hand2: int
    played: int
    played2: int
    exposed: int
    exposed2: int
    capt: int
    capt2: int
    deal: int
    deal2: int
    voids: int
    prov: int


class TrickPlays(NamedTuple):
    """Who played what to the trick in progress, as a layout reads it from its rows."""

    plays: np.ndarray
    """(tables,) plays made to the trick (a two-card follow counts once)."""
    owner: np.ndarray
    """(tables, trick_width) the seat that played each card of the trick."""
    live: np.ndarray
    """(tables, trick_width) which trick columns hold a card of the trick."""
    held: np.ndarray
    """(tables, seats) the cards each seat has played to the trick."""
    finished: np.ndarray
    """(tables,) the cards each seat played to the finished tricks (alike for every seat)."""
    tricks: np.ndarray
    """(tables,) the most finished tricks there can be (one deck: exactly these)."""


_MIXED: dict[tuple[type, type], type] = {}
_LAYOUTS: dict[int, type[GameBatch]] = {}
"""The table layouts by deck count; each registers itself (``GameBatch.__init_subclass__``)."""


def _with_layout(cls: type[GameBatch], layout: type[GameBatch]) -> type[GameBatch]:
    """Return a class that is both ``cls`` (a caller's subclass of ``GameBatch``) and ``layout``.

    A subclass of ``GameBatch`` (one that wraps ``step``, say) then plays every table the
    batch covers, as ``GameBatch`` does: its methods come first, then the layout's. Made once
    per pair.
    """
    mixed = _MIXED.get((cls, layout))
    if mixed is None:
        mixed = _MIXED[cls, layout] = type(cls.__name__, (cls, layout), {
            "__module__": cls.__module__, "__qualname__": cls.__qualname__})
    return cast("type[GameBatch]", mixed)


class GameBatch:
    """``num_tables`` hands of Gong Zhu played side by side by compiled kernels.

    ``GameBatch(num_tables, rules, *, reward_mode="raw", reward_scale=1.0,
    final_observations=False, obs_dtype=numpy.float32)``: ``rules`` (a ``Rules`` or a preset
    name; the standard game by default) may be any rule set ``gongzhu_env.batch.check_covered``
    accepts, one deck or two. ``reward_mode`` and ``reward_scale`` mean what they mean for
    ``gongzhu_env.env``; ``final_observations=True`` also keeps every seat's view of each
    finished hand (one deck).
    ``obs_dtype`` (``numpy.float32`` by default, or ``numpy.uint8``) is the dtype of
    ``observations`` and ``final_observations``: uint8 writes each value ``x`` of
    ``PlayerView.encode()`` as the byte ``np.rint(x * 255)`` (``in_obs_dtype``), straight from
    the kernels, in a quarter of the memory.

    Making one returns an instance of the private table layout that plays ``rules`` (see the
    module docstring). A layout sets the class attributes below and the hooks: ``_covered``
    (its rule check), ``_obs_size``, ``_build`` (its state rows ``_state``, one a table),
    ``_deal_first`` (the reset kernel), ``_step_tables`` (the step kernel), ``_sample`` (the
    sampling kernel), ``_refresh`` (rewrite the outputs after a restore), ``_check_snapshot``,
    ``_illegal``, ``_legal_in`` and ``_deal_in`` (read one row).
    """

    def __init_subclass__(cls, decks: int | None = None, **kwargs: Any) -> None:
        """Register a table layout (``class OneDeckTables(GameBatch, decks=1)``) for its decks."""
        super().__init_subclass__(**kwargs)
        if decks is not None:
            _LAYOUTS[decks] = cls

    def __new__(cls, num_tables: int = 0, rules: Rules | str | None = None,
                **options: Any) -> GameBatch:
        """Return an unmade batch of the layout that plays ``rules`` (``__init__`` follows).

        The layout is picked here, once, from the deck count (the layouts register themselves
        when ``gongzhu_env.batch`` imports them); everything after it is the same class to the
        caller. A caller's subclass of ``GameBatch`` is mixed with the layout, so it plays
        every table too. (``num_tables`` has a default here only so that ``copy`` and
        ``pickle``, which call ``__new__`` with the class alone, can remake a batch.)
        """
        if any(issubclass(cls, layout) for layout in _LAYOUTS.values()):
            return super().__new__(cls)  # a layout named itself (tests, benchmarks)
        layout = _LAYOUTS[Rules.coerce(rules).decks]
        return super().__new__(layout if cls is GameBatch else _with_layout(cls, layout))

    def __init__(self, num_tables: int, rules: Rules | str | None = None, *,
                 reward_mode: str = "raw", reward_scale: float = 1.0,
                 final_observations: bool = False, obs_dtype: object = np.float32) -> None:
        n = _unsigned(num_tables, "num_tables")
        if n < 1:
            raise ValueError(f"num_tables must be at least 1; got {n}")
        if n > self._max_tables:
            # Refused before numpy is asked for the arrays: a huge count would otherwise end
            # in a bare MemoryError, or first push the machine into swap.
            raise ValueError(f"num_tables must be at most {self._max_tables:,} at these rules "
                             f"(the layout's MAX_TABLES): a table's arrays take about "
                             f"{self._table_bytes / 1000:.1f} KB, so {n:,} tables would need "
                             f"about {n * self._table_bytes / 2**30:,.1f} GiB; got {n:,}")
        self.rules = rules = self._covered(rules)
        check_reward_mode(reward_mode, rules)
        self.reward_mode = reward_mode
        self.reward_scale = check_reward_scale(reward_scale)
        if type(final_observations) is not bool:
            raise TypeError(f"final_observations must be True or False; got "
                            f"{final_observations!r}")
        if final_observations and not self._keeps_final_views:
            raise ValueError(f"final_observations=True is not kept at {rules.decks} decks (the "
                             f"tables write the views of the seat to move only)")
        self.obs_dtype = dtype = obs_dtype_of(obs_dtype)
        self.num_tables = n
        self.num_seats = seats = rules.players
        self.obs_size = size = self._obs_size()
        self.num_actions = rules.num_actions
        self.observations = np.zeros((n, size), dtype=dtype)
        self.action_masks = np.zeros((n, rules.num_actions), dtype=np.int8)
        self.current_player = np.zeros(n, dtype=np.int64)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.rewards = np.zeros((n, seats), dtype=np.float32)
        self.scores = np.zeros((n, seats), dtype=np.int32)
        self.final_observations = (np.zeros((n, seats, size), dtype=dtype)
                                   if final_observations else None)
        self._all_tables = np.ones(n, dtype=np.bool_)
        self._build(n)
        self._result = BatchStep(self.observations, self.action_masks, self.current_player,
                                 self.terminated, self.rewards, self.scores)

    _layout_name: str
    """The table layout's name (part of the snapshots' digest key)."""
    _max_tables: int
    """The most tables the layout holds (its ``MAX_TABLES``)."""
    _table_bytes: int
    """About what one table's arrays take, in bytes (for the error of a count too large)."""
    _keeps_final_views: bool = True
    """Whether the layout writes ``final_observations`` (every seat's view of an ended hand)."""
    _dealt_column: int
    """The column of a state row that counts the hands dealt to the table."""
    _max_action: int
    """The largest action number (an unsigned action above it must not wrap into range)."""
    _action_hint: str = ""
    """Words on the actions for the argument errors of ``step`` (empty: none)."""
    _say_what_came: bool = False
    """Whether ``sample_legal``'s argument errors also describe what they were given."""
    rules: Rules
    _state: np.ndarray
    _result: BatchStep
    reward_mode: str
    reward_scale: float
    final_observations: np.ndarray | None
    obs_dtype: np.dtype[Any]
    """The dtype of the observations (one of ``OBS_DTYPES``)."""
    _seed: int | None = None
    _key: np.uint64 | None = None
    """The snapshots' digest key (``_rules_key``), made at the first snapshot."""

    # ------------------------------------------------------------------ hooks
    def _covered(self, rules: Rules | str | None) -> Rules:
        """Return ``rules`` as a ``Rules`` if this layout plays them, else raise ``ValueError``."""
        raise NotImplementedError

    def _obs_size(self) -> int:
        """Return the length of an observation under ``self.rules``."""
        raise NotImplementedError

    def _build(self, num_tables: int) -> None:
        """Make the layout's state rows and kernel arguments (the outputs exist already)."""
        raise NotImplementedError

    def _deal_first(self, seed: np.uint64) -> None:
        """Deal hand 0 of every table under ``seed`` and write the first outputs."""
        raise NotImplementedError

    def _step_tables(self, actions: np.ndarray, active: np.ndarray) -> int:
        """Run the step kernel on checked int64 ``actions``; return the first bad table or -1."""
        raise NotImplementedError

    def _sample(self, uniforms: np.ndarray, out: np.ndarray) -> int:
        """Write one legal action per table into ``out`` (the rule of ``sample_legal``).

        Returns -1, or (writing nothing) the first table whose uniform is outside [0, 1).
        """
        raise NotImplementedError

    def _refresh(self) -> None:
        """Rewrite the observations, masks and seats to move from the state rows."""
        raise NotImplementedError

    def _row_columns(self) -> RowColumns:
        """Return where this layout's state rows keep what every table holds."""
        raise NotImplementedError

    def _snapshot_ranges(self) -> list[tuple[int, int, int, int, str]]:
        """Return ``(column, width, low, high, expected)``: every column's range, in order.

        Checked first, in this order: each later check reads only columns found in range.
        """
        raise NotImplementedError

    def _trick_plays(self, snap: np.ndarray) -> TrickPlays:
        """Return who played what to each row's trick (columns already found in range)."""
        raise NotImplementedError

    def _forced_exposures(self) -> int | None:
        """Return the exposures the deal makes (0: none at all), or None if seats declare."""
        raise NotImplementedError

    def _check_layout(self, snap: np.ndarray, need: Callable[[np.ndarray, int, str], None],
                      counts: Callable[[int], np.ndarray]) -> None:
        """Check what only this layout keeps (after the shared bookkeeping has passed).

        ``need`` refuses (``_refuser``); ``counts(block)`` is a card block's copies of each card
        by seat, shape ``(tables, seats, 52)``.
        """
        raise NotImplementedError

    def _derived(self, snap: np.ndarray) -> list[tuple[int, np.ndarray, str]]:
        """Return ``(column, ok, expected)`` for the columns that follow from the rest.

        The legal sets and the scores, each compared with what the kernels compute from the
        rest of the (checked) row.
        """
        raise NotImplementedError

    def _check_snapshot(self, snap: np.ndarray) -> None:
        """Raise ``ValueError`` unless every row of ``snap`` is a position play can reach.

        One check for every layout (the rows as multisets, the twice masks empty at one deck):
        first every column's range (``_snapshot_ranges``: the kernels index and shift with
        them), then the bookkeeping that ties the columns together (each seat's hand and the
        cards it played make up its deal, the deals make up the cards in play, the trick
        matches the plays made to it and the seat to move follows from them, exposures follow
        the declaration rule, the captured cards are the scoring cards of the finished tricks),
        then what only the layout keeps (``_check_layout``), and last the legal sets and the
        scores, which must be what the rules give for the rest (``_derived``). Together they
        hold after every step from any position that passes them, so play from a restored
        position stays inside the arrays. Vectorised over the tables.
        """
        c = self._row_columns()
        rules, ns = self.rules, self.num_seats
        need = _refuser(snap, c.names)
        for column, width, low, high, what in self._snapshot_ranges():
            ok = _within(snap, column, width, low, high)
            need(ok if width > 1 else ok[:, 0], column, what)

        def seats(column: int) -> np.ndarray:
            return snap[:, column:column + ns]

        twice_of = {c.hand: c.hand2, c.played: c.played2, c.exposed: c.exposed2,
                    c.capt: c.capt2, c.deal: c.deal2}
        for once, twice in twice_of.items():
            if twice >= 0:
                need((seats(twice) & ~seats(once)) == 0, twice,
                     f"cards also in {c.names[once]} (a card twice is a card once too)")
        if c.expall2 >= 0:
            need((snap[:, c.expall2] & ~snap[:, c.expall]) == 0, c.expall2,
                 "cards also exposed once")

        def counts(block: int) -> np.ndarray:
            copies = (seats(block)[:, :, None] >> _CARD_BITS) & 1
            twice = twice_of.get(block, -1)
            if twice >= 0:
                copies = copies + ((seats(twice)[:, :, None] >> _CARD_BITS) & 1)
            return np.asarray(copies)

        def mask_of(cards: np.ndarray) -> np.ndarray:
            return np.asarray((cards.astype(np.int64) << _CARD_BITS).sum(axis=-1))

        # The deal: hands of the hand size that hold each card in play once a deck; the first
        # leader is the first seat dealt the lead card.
        deal = counts(c.deal)
        in_play = rules.decks * ((rules.deck_mask >> _CARD_BITS) & 1)
        need(deal.sum(axis=2) == rules.hand_size, c.deal, f"{rules.hand_size} cards in play")
        wrong = deal.sum(axis=1) != in_play[None, :]
        need(~((deal > 0) & wrong[:, None, :]).any(axis=2), c.deal,
             f"each card in play dealt {'once' if rules.decks == 1 else 'twice'} over the "
             f"seats, no card also dealt to another seat beyond that")
        phase, cur, first = snap[:, c.phase], snap[:, c.cur], snap[:, c.first]
        turns, tlen, tlead = snap[:, c.turns], snap[:, c.tlen], snap[:, c.tlead]
        led, sled, done = snap[:, c.led], snap[:, c.sled], snap[:, c.done]
        need(first == np.argmax((seats(c.deal) >> rules.lead_card) & 1, axis=1), c.first,
             f"the first seat dealt {card_str(rules.lead_card)}")
        hand, played = counts(c.hand), counts(c.played)
        need(((hand + played) == deal).all(axis=2), c.hand,
             "the seat's deal less the cards it played")
        # Whose turn it is, and what each seat has played.
        free = self._forced_exposures() is None
        declaring = phase == DECLARE
        need(~declaring | (turns <= ns - 1), c.turns, f"0..{ns - 1} while declaring")
        need(declaring | (turns == (ns if free else 0)), c.turns,
             f"{ns if free else 0} once the play has begun")
        need(~declaring | (done == 0), c.done, "0 while declaring")
        need(~declaring | (tlen == 0), c.tlen, "0 while declaring")
        t = self._trick_plays(snap)
        need(np.where(declaring, cur == (first + turns) % ns, cur == (tlead + t.plays) % ns),
             c.cur, "the seat after the last to act (the trick leader plus the plays made to "
             "the trick, or the first leader plus the turns taken while declaring)")
        need((done > 0) | (tlead == first), c.tlead, "the first leader in the first trick")
        need(played.sum(axis=2) == t.finished[:, None] + t.held, c.played,
             "the seat's cards of the finished tricks, and those it played to this one")
        trick = snap[:, c.trick:c.trick + c.trick_width]
        owned = played[np.arange(len(snap))[:, None], t.owner, trick]
        need(~t.live | (owned > 0), c.trick,
             "a card played by its seat (the trick leader's, then the next seats')")
        need(np.where(tlen > 0, led == trick[:, 0] // 13, led == -1), c.led,
             "the suit of the trick's first card, or -1 between tricks")
        if rules.first_lead != "any":
            need((done > 0) | (tlen == 0) | (trick[:, 0] == rules.lead_card), c.trick,
                 f"{card_str(rules.lead_card)} to lead the hand")
        need(np.where(done > 0, (sled > 0) & (_bit_counts(sled) <= t.tricks), sled == 0), c.sled,
             "one suit or more per trick taken, and none before the first")
        need(~declaring[:, None] | (seats(c.voids) == 0), c.voids, "none while declaring")
        # Exposures: exposable copies of the seat's own deal, by the declaration rule.
        exposed = counts(c.exposed)
        need(((seats(c.exposed) & ~EXPOSABLE_MASK) == 0) & (exposed <= deal).all(axis=2),
             c.exposed, "exposable cards (SQ, DJ, C10, HA) dealt to the seat")
        shown = exposed.sum(axis=1)
        ok = snap[:, c.expall] == mask_of(shown >= 1)
        if c.expall2 >= 0:
            ok &= snap[:, c.expall2] == mask_of(shown >= 2)
        need(ok, c.expall, "every seat's exposed cards together")
        forced = self._forced_exposures()
        if forced is None:
            waiting = ((np.arange(ns)[None, :] - first[:, None]) % ns) > turns[:, None]
            need(~(declaring[:, None] & waiting) | (seats(c.exposed) == 0), c.exposed,
                 "none for a seat whose declaration turn has not come")
        elif forced == 0:
            need(snap[:, c.expall] == 0, c.expall, "none: these rules have no exposures")
        else:
            need(snap[:, c.expall] == forced, c.expall, "the forced exposures, made at the deal")
        # Captured cards: the scoring copies of the finished tricks, each taken by one seat.
        need((seats(c.capt) & ~SCORING_MASK) == 0, c.capt, "scoring cards only")
        in_trick = np.zeros((len(snap), 52), dtype=np.int64)
        for k in range(c.trick_width):
            in_trick += t.live[:, k:k + 1] & (_CARD_BITS[None, :] == trick[:, k:k + 1])
        finished = (played.sum(axis=1) - in_trick) * ((SCORING_MASK >> _CARD_BITS) & 1)
        need((counts(c.capt).sum(axis=1) == finished).all(axis=1), c.capt,
             "the scoring cards of the finished tricks, together")
        self._check_layout(snap, need, counts)
        # What follows from all the rest: the legal sets and the scores.
        for column, ok, what in self._derived(snap):
            need(ok, column, what)

    def _illegal(self, table: int, action: int) -> IllegalActionError:
        """Return the error naming ``action`` at ``table`` (a checked index) as not legal."""
        raise NotImplementedError

    def _legal_in(self, row: np.ndarray) -> list[int]:
        """Return the legal actions of one state row's seat to move, sorted."""
        raise NotImplementedError

    def _deal_in(self, row: np.ndarray) -> tuple[tuple[int, ...], ...]:
        """Return one state row's hand in progress as dealt, one sorted hand a seat."""
        raise NotImplementedError

    # ------------------------------------------------------------------ playing
    def reset(self, seed: int) -> BatchStep:
        """Deal hand 0 of every table's stream under ``seed`` and write the first outputs."""
        self._seed = _unsigned(seed, "seed")
        self.terminated[:] = False
        self.rewards[:] = 0.0
        self.scores[:] = 0
        self._deal_first(np.uint64(self._seed))
        return self._result

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> BatchStep:
        """Apply one action per table (for its ``current_player``) and write the outputs.

        ``actions`` is an integer array of shape ``(num_tables,)``, one action of the batch's
        rules per table. If any active table's action is not legal, ``IllegalActionError``
        names the table, the action, the seat and the legal set, and no table changes.

        ``active`` (bool, shape ``(num_tables,)``; default every table) picks the tables that
        move: the others keep their position and outputs, their actions are not read, and they
        report ``terminated`` False with zero rewards and scores. This is how a caller holds
        some tables (a learner's seat waiting) while the others play.
        """
        if self._seed is None:
            raise RuntimeError("call reset(seed) before step()")
        n = self.num_tables
        if active is None:
            active = self._all_tables
        elif not isinstance(active, np.ndarray) or active.dtype != np.bool_ \
                or active.shape != (n,):
            raise ValueError(f"active must be a bool array of shape ({n},), one per table; "
                             f"got {_describe(active)}")
        hint = self._action_hint
        if not isinstance(actions, np.ndarray):
            raise TypeError(f"actions must be a numpy array of integers of shape ({n},)"
                            f"{', ' + hint if hint else ''}; got {type(actions).__name__}")
        if actions.dtype.kind not in "iu":
            raise TypeError(f"actions must have an integer dtype{f' ({hint})' if hint else ''}"
                            f"; got {actions.dtype}")
        if actions.shape != (n,):
            raise ValueError(f"actions must have shape ({n},), one per table; got "
                             f"{actions.shape}")
        if actions.dtype != np.int64:
            # Out-of-range unsigned values must stay out of range, not wrap into legal ones.
            if actions.dtype.kind == "u" and actions.size:
                over = (actions > self._max_action) & active
                if over.any():
                    bad = int(np.argmax(over))
                    raise self._illegal(bad, int(actions[bad]))
            actions = actions.astype(np.int64)
        bad = self._step_tables(actions, active)
        if bad >= 0:
            raise self._illegal(int(bad), int(actions[bad]))
        return self._result

    def sample_legal(self, uniforms: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Pick one legal action per table from uniform floats in ``[0, 1)``, compiled.

        Table ``i`` gets ``legal[int(uniforms[i] * len(legal))]`` of its sorted legal actions
        (``legal_actions(i)``): the choice rule of the benchmarks, and a fast random player for
        every seat at once. ``uniforms`` is float64 of shape ``(num_tables,)``; ``out`` (int64,
        same shape) is filled and returned if given.
        """
        self._table(0)  # reset first
        n = self.num_tables
        if not isinstance(uniforms, np.ndarray) or uniforms.dtype != np.float64 \
                or uniforms.shape != (n,):
            came = f"; got {_describe(uniforms)}" if self._say_what_came else ""
            raise ValueError(f"uniforms must be a float64 array of shape ({n},){came}")
        if out is None:
            out = np.empty(n, dtype=np.int64)
        elif not isinstance(out, np.ndarray) or out.dtype != np.int64 or out.shape != (n,):
            came = f"; got {_describe(out)}" if self._say_what_came else ""
            raise ValueError(f"out must be an int64 array of shape ({n},){came}")
        # A NaN, an infinity or a value outside [0, 1) would index outside the legal set (or
        # land on an arbitrary action): the kernel refuses it rather than play something no
        # rule chose, and checks all of them before it samples any.
        table = self._sample(uniforms, out)
        if table >= 0:
            outside = int((~((uniforms >= 0.0) & (uniforms < 1.0))).sum())
            raise ValueError(f"uniforms must lie in [0, 1), one float per table; table {table} "
                             f"has {float(uniforms[table])!r} ({outside} of {n} outside "
                             f"[0, 1), NaN and infinities included)")
        return out

    # ------------------------------------------------------------------ saving positions
    def _digests(self, rows: np.ndarray) -> np.ndarray:
        """Return the digest of each state row of ``rows`` under this batch's key (int64)."""
        if self._key is None:
            self._key = _rules_key(self._layout_name, self.rules, self._state.shape[1])
        out = np.empty(rows.shape[0], dtype=np.int64)
        _digest_rows(np.ascontiguousarray(rows), self._key, out)
        return out

    def snapshot(self) -> np.ndarray:
        """Return a copy of every table's position (for ``restore``): one small int64 array.

        The deal streams are part of it (each table's next hand follows from the seed and its
        count of hands), so a restored batch plays on exactly as the saved one would have.
        Each row is a table's state followed by one column more: a digest of the rest under
        the batch's engine and rules, by which ``restore`` knows a row was not changed.
        """
        self._table(0)  # reset first
        snap = np.empty((self.num_tables, self._state.shape[1] + 1), dtype=np.int64)
        snap[:, :-1] = self._state
        snap[:, -1] = self._digests(self._state)
        return snap

    def restore(self, snapshot: np.ndarray) -> BatchStep:
        """Put every table back where ``snapshot`` (from this batch's ``snapshot``) saw it.

        The outputs are rewritten for the restored positions: the observations, masks and
        seats to move, with ``terminated`` False and zero rewards and scores.

        The kernels index arrays with the numbers of a position (the seat to move, the cards
        of the trick, the score), so a position they could never have produced would make
        them read or write outside their arrays. Every table of ``snapshot`` is therefore
        checked first (``_check_snapshot``): a damaged or foreign one raises ``ValueError``
        naming the table and the column, and the batch is left exactly as it was.

        Those checks cannot tell every change from a real position (a stale card of the last
        trick, a different count of hands dealt, a void flag that play would also have set are
        all positions some play reaches). The digest ``snapshot`` adds to each row can: a row
        whose digest is not that of its columns under this batch's rules is refused too, so a
        snapshot is restored exactly as it was taken or not at all.
        """
        self._table(0)
        shape = (self.num_tables, self._state.shape[1] + 1)
        if not isinstance(snapshot, np.ndarray) or snapshot.shape != shape \
                or snapshot.dtype != self._state.dtype:
            raise ValueError(f"snapshot must be an int64 array of shape {shape}, from "
                             f"snapshot() of this batch; got {_describe(snapshot)}")
        rows = snapshot[:, :-1]
        self._check_snapshot(rows)
        wrong = snapshot[:, -1] != self._digests(rows)
        if wrong.any():
            table = int(np.argmax(wrong))
            raise ValueError(
                f"snapshot refused: table {table}, column {shape[1] - 1} (digest) does not match "
                f"the table's other columns: the snapshot was changed after snapshot() made "
                f"it, or comes from a batch of other rules. restore() takes what snapshot() of "
                f"a GameBatch with these rules returned; the batch was not changed")
        self._state[:] = rows
        self.terminated[:] = False
        self.rewards[:] = 0.0
        self.scores[:] = 0
        self._refresh()
        return self._result

    # ------------------------------------------------------------------ reading tables
    def illegal_action_error(self, table: int, action: int) -> IllegalActionError:
        """Return the error ``step`` would raise for ``action`` at ``table``.

        It names the table, the action, the seat, the phase and the legal set; for a caller
        that checks actions itself before stepping.
        """
        return self._illegal(self._table(table), int(action))

    def deal_of(self, table: int) -> tuple[tuple[int, ...], ...]:
        """Return ``table``'s hand in progress as dealt: a sorted hand a seat, for from_hands."""
        return self._deal_in(self._state[self._table(table)])

    def hands_started(self, table: int) -> int:
        """How many hands ``table`` has been dealt since ``reset`` (1 after the reset)."""
        return int(self._state[self._table(table), self._dealt_column])

    def first_drawn_of(self, table: int) -> tuple[int, ...]:
        """Return the first card dealt to each seat in ``table``'s hand in progress.

        What ``first_drawn_exposure`` reads (``Game.from_hands(..., first_drawn=)``); a
        one-deck rule, so a two-deck batch refuses the question.
        """
        raise ValueError(f"first dealt cards are a one-deck rule (first_drawn_exposure); this "
                         f"batch plays {self.rules.decks} decks")

    def legal_actions(self, table: int) -> list[int]:
        """Return the legal actions of ``table``'s seat to move, sorted (``Game`` order)."""
        return self._legal_in(self._state[self._table(table)])

    def _table(self, table: int) -> int:
        """Return ``table`` as an index, checked: every reader needs a reset batch and a table."""
        if self._seed is None:
            raise RuntimeError("call reset(seed) first")
        t = _unsigned(table, "table")
        if t >= self.num_tables:
            raise ValueError(f"table must be in 0..{self.num_tables - 1}; got {t}")
        return t

    def __repr__(self) -> str:
        return f"GameBatch(num_tables={self.num_tables}, rules={self.rules!r})"
