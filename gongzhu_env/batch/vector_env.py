"""Vector environments over the batched engines (one deck or two).

Two drivers of one batch of tables, neither of which imports torch. The batch is a
``gongzhu_env.batch.GameBatch`` of the rules: one deck (3 to 8 seats) or two decks (four
seats, the rule sets ``gongzhu_env.batch.check_covered`` accepts, e.g. ``"two_decks"``). Both
drivers read the action count from the rules (``Rules.num_actions``, ``num_actions`` here):
53 at one deck (0..51 a card, 52 DONE), 105 at two (0..51 one copy of a card, 52 + k lead the
pair of card k, 104 DONE; a follower to a pair lead plays its two cards as two decisions in a
row, as in ``Game``).

* ``SingleSeatVectorEnv``: a Gymnasium ``VectorEnv`` of ``num_envs`` tables with one learner
  seat each, the other three seats played *in batch* by opponent policies between the
  learner's turns. What ``gongzhu_env.wrappers.SingleSeatEnv`` is for one table, for many, at
  the speed of the compiled engine.
* ``SelfPlayBatch``: every seat of every table played by batched policies, returning each
  decision with its hand result, for self-play with one forward pass per policy per step.

Batched policies
----------------
Both take opponents or players as *batched policies*: ``"random"`` (a uniformly random legal
action, drawn by the compiled ``GameBatch.sample_legal`` from the driver's seeded generator),
or any callable ``policy(observations, action_masks) -> actions`` that receives the rows of
the tables where it is to move, ``observations`` ``(k, obs_size)`` float32 (exactly
``PlayerView.encode()`` of the seat to move; uint8 bytes with ``obs_dtype=np.uint8``, see
"Compact observations") and ``action_masks`` ``(k, num_actions)`` bool, and
returns ``k`` integer actions (a numpy array, a list, or anything ``numpy.asarray`` reads,
e.g. a CPU torch tensor). A frozen network, or the learner itself, then plays all its seats of
all tables in one forward pass per engine step. The arrays passed are copies: a policy may
keep or change them. Rule-based agents (``agents``) read Python views one seat at a time and
cannot sit at these tables; use ``SingleSeatEnv`` for them.

A policy's action is checked before any table moves: a wrong shape or dtype raises
``TypeError``/``ValueError`` and an illegal action ``IllegalPlayerActionError``, naming the
policy, the table, the seat, the action and the legal set, and the whole call that asked for
it (``step`` or ``play``) is undone: every table, the generator and the seating are as they
were before it (``GameBatch.snapshot``/``restore``). An exception raised inside a policy
propagates unchanged after the same undo.

``SingleSeatVectorEnv``
-----------------------
==================  =========================================================================
Action space        ``MultiDiscrete([A] * num_envs)`` (``single_action_space``
                    ``Discrete(A)``), ``A = num_actions = rules.num_actions``: 53 at one
                    deck, 105 at two (changes with the rules)
Observation space   ``Box(0, 1, (num_envs, obs_size), float32)``; a row is the learner seat's
                    ``PlayerView.encode()`` (seats relative to the learner); ``obs_size``
                    changes with the rules: 600 for the standard rules, 1,153 for
                    ``"two_decks"``. With ``obs_dtype=np.uint8``:
                    ``Box(0, 255, (num_envs, obs_size), uint8)`` (see below)
Action mask         ``action_masks()`` -> ``bool[num_envs, A]``; also ``info["action_mask"]``
Rewards             float32 ``(num_envs,)``: 0 but at the end of the learner's hand, then its
                    hand result (``reward_mode``, default ``"zero_sum"``, divided by
                    ``reward_scale``, default 400), as ``SingleSeatEnv``
Termination         the learner's hand ended (its last card, or an opponent's); never truncated
Autoreset           ``AutoresetMode.SAME_STEP`` (``metadata["autoreset_mode"]``, Gymnasium 1.x)
==================  =========================================================================

Seating: at every hand, each table draws its learner seat uniformly (or ``seat=`` fixes it)
and each of its three other seats an opponent from the pool by weight, all from the env's
generator. ``set_opponents(pool, weights)`` replaces the pool for hands dealt from then on
(tables keep the players of the hand in progress). Opponents act between the learner's turns:
each engine step moves the tables whose seat to move is not the learner's
(``GameBatch.step(actions, active)``), one call per opponent policy with all its rows, until
every table waits for its learner again.

Autoreset (same step): a table whose learner hand ends in ``step`` reports ``terminated`` and
its reward there, and the observation returned for it is already the learner's first observation
of its next hand (with its new seat, after the opponents before it have played). As Gymnasium's
``SyncVectorEnv`` does in that mode, the info then holds ``info["final_obs"]`` (an object array:
the learner's view of the finished hand, phase "over", where a table ended, else ``None``; at
two decks see below) and ``info["final_info"]`` (``"scores"``: the raw hand scores of every
seat, by absolute seat; ``"seat"``: the learner's seat in that hand), each with its
``_``-prefixed bool mask. Every info has ``"seat"`` (each table's learner seat now) and
``"action_mask"``.

Final observations at two decks: the batch keeps no view of a finished hand
(its ``final_observations`` is ``None``), so there ``info["final_obs"][i]`` falls back to the
learner's observation *at its last decision* of the finished hand (phase "play", the cards
then still in hand), not the phase-"over" view. ``final_obs_is_terminal`` says which one an
env gives (True at one deck, False at two). A hand always ends by termination, never by
truncation, so no value bootstraps from it (Gymnasium's and SB3's learners read it only on
truncation); it is there so that wrappers that expect one observation-shaped row per ended
table (``RecordEpisodeStatistics``, SB3's ``terminal_observation``, ``VecNormalize``) work.

Deals and seeds: ``reset(seed=s)`` seeds the env's generator, which draws the batch's deal
seed, the seating and the random opponents' choices; the same seed and the same actions give
the same episodes (with deterministic policies). Hand ``j`` of table ``i`` is
``gongzhu_env.batch.deal(deal_seed, i, j, rules)``, one deck or two (``batch.deal_of(i)``
gives the hand in progress). Only the reset of all
tables at once exists (``options`` are refused): tables are reset by autoreset.

>>> from gongzhu_env.vector_env import SingleSeatVectorEnv
>>> envs = SingleSeatVectorEnv(64, opponents=["random"])
>>> obs, info = envs.reset(seed=0)
>>> obs.shape, envs.action_masks().shape
((64, 600), (64, 53))
>>> pairs = SingleSeatVectorEnv(8, opponents=["random"], rules="two_decks")
>>> obs, info = pairs.reset(seed=0)
>>> obs.shape, pairs.action_masks().shape, pairs.num_actions
((8, 1153), (8, 105), 105)

Compact observations
--------------------
Both drivers take ``obs_dtype``, passed to their ``GameBatch``: ``np.float32`` (the default,
the observation exactly as ``PlayerView.encode()`` gives it) or ``np.uint8``, where the engine
writes each value ``x`` as the byte ``np.rint(x * 255)`` (every value but the squashed scores
is 0 or 1, so those are exactly 0 or 255; a score is rounded to 1/255). That is a quarter of the
bytes written at every step and held per table, and the scale the Deep Monte-Carlo replay keeps.
The spaces say it: ``single_observation_space`` is ``Box(0, 255, (obs_size,), uint8)``, and
everything observation-shaped follows (the rows a policy receives, ``info["final_obs"]``,
``SelfPlayRollout.observations``). A network reads ``obs / 255``. The space is one-dimensional,
so Stable-Baselines3 does not take it for an image (``is_image_space`` is False) and does *not*
divide it by 255: its ``preprocess_obs`` gives floats in [0, 255]. With SB3, keep the float32
default or scale inside the policy.

``SelfPlayBatch``
-----------------
``SelfPlayBatch(num_tables, rules)`` drives every seat. ``play(policies, steps)`` makes
``steps`` engine steps (one decision at every table each) and returns a ``SelfPlayRollout``: the
decisions of every hand that *finished* during the call, each with its hand result, as flat
arrays (observations, masks of ``num_actions`` columns, actions, table, seat, hand index, which
policy acted and the return: that seat's hand result), and the finished hands' scores. Decisions
of hands still in progress are kept and returned by the ``play`` call in which their hand
finishes, so no decision is lost or returned twice. ``policies`` is one batched policy for every
seat, or a list of them with ``assignment``: which policy plays each seat, an int array of shape
``(seats,)`` (by absolute seat) or ``(num_tables, seats)``; a list of one policy per seat with
no assignment means seat ``s`` plays ``policies[s]``. Both classes play every table size the
batched engines cover (3 to 8 seats at one deck, 4 at two: ``num_seats``); the shapes above with
4 are those of four seats. At two decks a pair follow is two decisions of the same seat, each
its own row (the same ``table``, ``seat`` and ``hands``). For example, a learner against a
frozen copy at every table::

    sp = SelfPlayBatch(256, "standard", reward_mode="zero_sum", reward_scale=400)
    sp.reset(seed=0)
    out = sp.play([learner, frozen], steps=64, assignment=[0, 1, 0, 1])
    mine = out.players == 0          # the learner's own decisions
    loss = ...(out.observations[mine], out.actions[mine], out.returns[mine])

Version History
---------------
* v0: initial release.
* v0 (two decks): both drivers play the two-deck tables of ``GameBatch``; spaces, masks
  and action checks take their size from the rules (``num_actions``). The one-deck envs, and
  their seeded streams, are unchanged.
* v0 (compact observations): ``obs_dtype`` (default float32, unchanged); ``np.uint8`` gives
  byte observations and a ``Box(0, 255, ..., uint8)`` space. The seeded streams do not depend
  on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from gongzhu_env.batch import GameBatch, check_covered
from gongzhu_env.batch.base import OBS_SCALE
from gongzhu_env.engine import seat_index
from gongzhu_env.opponents import OpponentMix
from gongzhu_env.players import IllegalPlayerActionError, player_label
from gongzhu_env.rules import Rules

RANDOM = "random"
"""The built-in batched opponent: a uniformly random legal action (``sample_legal``)."""

BatchPolicy = Callable[[np.ndarray, np.ndarray], Any]
"""``policy(observations (k, obs), action_masks (k, num_actions) bool) -> k actions``; the
observations are float32, or uint8 bytes in a driver built with ``obs_dtype=np.uint8``."""

PolicyLike = Any  # RANDOM or a BatchPolicy


# ---------------------------------------------------------------------------------------------
# Batched policies: checking them, naming them, asking them.
def check_policy(policy: PolicyLike, what: str = "policy") -> PolicyLike:
    """Return ``policy`` if it can play in a batch (``"random"`` or a callable), else raise.

    Any other agent spec (``"greedy"``, ``"expert"``, ...) is refused with a ``ValueError``
    naming it: those agents read Python views one at a time and cannot play inside the
    batched engine.
    """
    if isinstance(policy, str):
        if policy == RANDOM:
            return policy
        raise ValueError(
            f"{what} {policy!r} cannot play in the batched engine: rule agents read Python "
            f"views one seat at a time. The batched envs take {RANDOM!r} and batched callables "
            f"policy(observations, action_masks) -> actions (a network, or the learner "
            f"itself); play {policy!r} with gongzhu_env.wrappers.SingleSeatEnv")
    if hasattr(policy, "act") and not callable(policy):
        raise TypeError(f"{what} {player_label(policy)!r} is an agent (act(view)), which reads "
                        f"one Python view at a time; the batched envs need a callable "
                        f"policy(observations, action_masks) -> actions")
    if not callable(policy):
        raise TypeError(f"{what} {policy!r} is neither {RANDOM!r} nor a callable "
                        f"policy(observations, action_masks) -> actions")
    return policy


def policy_label(policy: PolicyLike) -> str:
    """How errors name a batched policy: ``"random"``, its ``name``, or its qualified name."""
    if isinstance(policy, str):
        return policy
    name = getattr(policy, "name", None)
    if isinstance(name, str) and name:
        return name
    return getattr(policy, "__qualname__", None) or repr(policy)


def _as_actions(out: Any, k: int, policy: PolicyLike) -> np.ndarray:
    """Check what a policy returned for ``k`` rows and return it as int64."""
    try:
        arr = np.asarray(out)
    except Exception:  # anything numpy cannot read is the policy's fault: say whose
        arr = None
    if arr is None or arr.dtype.kind not in "iu":
        got = "an object numpy cannot read" if arr is None else f"{arr.dtype} values"
        raise TypeError(f"policy {policy_label(policy)!r} returned {got}; it must return "
                        f"{k} integer actions (one per row it was given)")
    if arr.shape != (k,):
        raise ValueError(f"policy {policy_label(policy)!r} returned an array of shape "
                         f"{arr.shape} for {k} rows; it must return shape ({k},)")
    return arr.astype(np.int64, copy=False)


def _policy_actions(batch: GameBatch, rows: np.ndarray, ids: np.ndarray,
                    policies: Sequence[PolicyLike], rng: np.random.Generator,
                    out: np.ndarray) -> None:
    """Write into ``out[rows]`` the action of policy ``policies[ids[j]]`` at table ``rows[j]``.

    One call per distinct policy, with all its rows; ``"random"`` rows share one compiled
    draw. Every action is checked against its table's legal set before anything moves.
    """
    masks = batch.action_masks.view(np.bool_)
    first = ids[0]
    uniq = [first] if (ids == first).all() else np.unique(ids)
    for p in uniq:
        sel = rows if len(uniq) == 1 else rows[ids == p]
        policy = policies[int(p)]
        if isinstance(policy, str):  # legal by construction
            out[sel] = batch.sample_legal(rng.random(batch.num_tables))[sel]
            continue
        got = _as_actions(policy(batch.observations[sel], masks[sel]), len(sel), policy)
        bad = (got < 0) | (got >= masks.shape[1])
        bad |= ~masks[sel, np.where(bad, 0, got)]
        if bad.any():
            j = int(np.argmax(bad))
            table, action = int(sel[j]), int(got[j])
            seat = int(batch.current_player[table])
            reason = str(batch.illegal_action_error(table, action))
            raise IllegalPlayerActionError(seat, policy_label(policy), action, reason)
        out[sel] = got


def _policy_mix(policies: PolicyLike | Sequence[PolicyLike] | Mapping[PolicyLike, float],
                weights: Sequence[float] | None, what: str) -> OpponentMix:
    """Check a pool of batched policies with optional weights; return it as a mix."""
    if isinstance(policies, str) or callable(policies):
        policies = [policies]
    elif not isinstance(policies, (Sequence, Mapping)):
        raise TypeError(f"{what} must be {RANDOM!r}, a batched callable, or a list of them "
                        f"(or a mapping of them to weights); got {policies!r}")
    mix = OpponentMix(policies, weights, what=what)
    for p in mix.entries:
        check_policy(p, what)
    return mix


def observation_space(obs_size: int, obs_dtype: np.dtype[Any]) -> spaces.Box:
    """Return the space of one observation row written in ``obs_dtype`` (float32 or uint8).

    float32: ``Box(0, 1)``, the values as encoded; uint8: ``Box(0, 255)``, each value as the
    byte ``rint(x * 255)``. One-dimensional either way, so no library takes it for an image.
    """
    if obs_dtype == np.uint8:
        return spaces.Box(0, OBS_SCALE, (obs_size,), dtype=np.uint8)
    return spaces.Box(0.0, 1.0, (obs_size,), dtype=np.float32)


def _seed(seed: object, where: str) -> int:
    """Return ``seed`` as a Python int if it is a non-negative integer, else raise.

    Python and numpy integers are seeds (a seed often comes out of a numpy array); a bool, a
    float or text is not. Checked here because Gymnasium takes only a Python ``int`` and
    numpy's generators say little more than "expected non-negative integer".
    """
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{where}: seed must be a non-negative integer (an int or a numpy "
                        f"integer); got {seed!r}")
    if seed < 0:
        raise ValueError(f"{where}: seed must be a non-negative integer; got {seed}")
    return int(seed)


def _check_actions(actions: Any, n: int) -> np.ndarray:
    if not isinstance(actions, np.ndarray):
        raise TypeError(f"actions must be a numpy array of {n} integer actions, one per table; "
                        f"got {type(actions).__name__}")
    if actions.dtype.kind not in "iu":
        raise TypeError(f"actions must have an integer dtype; got {actions.dtype}")
    if actions.shape != (n,):
        raise ValueError(f"actions must have shape ({n},), one per table; got {actions.shape}")
    return actions


class _Undo:
    """What a call may change, saved so that a failure can put it all back."""

    def __init__(self, batch: GameBatch, rng: np.random.Generator,
                 arrays: Sequence[np.ndarray]) -> None:
        self.batch, self.rng, self.arrays = batch, rng, arrays
        self.state = batch.snapshot()
        self.rng_state = rng.bit_generator.state
        self.copies = [a.copy() for a in arrays]

    def __call__(self) -> None:
        self.batch.restore(self.state)
        self.rng.bit_generator.state = self.rng_state
        for a, c in zip(self.arrays, self.copies, strict=True):
            a[...] = c


# ---------------------------------------------------------------------------------------------
class SingleSeatVectorEnv(VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """One learner seat at each of ``num_envs`` batched tables; see the module docstring.

    ``opponents``: ``"random"``, a batched callable, a list of them (drawn per seat per hand,
    uniformly or by ``weights``), or a mapping of them to weights. ``rules`` must be covered by
    the batched engine (``gongzhu_env.batch.check_covered``: one deck or two). ``seat``
    fixes the learner's seat at every table; ``None`` draws it at every hand. ``obs_dtype``
    (``np.float32`` or ``np.uint8``) is the batch's, and the spaces' (see "Compact
    observations" in the module docstring).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": [],
                "name": "gongzhu_single_seat_vector_v0"}

    def __init__(self, num_envs: int,
                 opponents: PolicyLike | Sequence[PolicyLike] | Mapping[PolicyLike, float]
                 = (RANDOM,), weights: Sequence[float] | None = None, *,
                 rules: Rules | str | None = None, reward_mode: str = "zero_sum",
                 reward_scale: float = 400.0, seat: int | None = None,
                 obs_dtype: object = np.float32) -> None:
        rules = check_covered(rules)
        # The views of ended hands are kept where the batch keeps them (one deck).
        self.batch = GameBatch(num_envs, rules, reward_mode=reward_mode,
                               reward_scale=reward_scale, final_observations=rules.decks == 1,
                               obs_dtype=obs_dtype)
        self.obs_dtype = obs_dtype = self.batch.obs_dtype
        """The dtype of every observation row (``GameBatch.obs_dtype``)."""
        self.rules = self.batch.rules
        self.num_actions = self.rules.num_actions
        self.final_obs_is_terminal = self.batch.final_observations is not None
        """Whether ``info["final_obs"]`` is the phase-"over" view (see the module docstring)."""
        self.num_envs = n = self.batch.num_tables
        self.reward_mode = reward_mode
        self.reward_scale = self.batch.reward_scale
        self.num_seats = seats = self.batch.num_seats
        self.fixed_seat = None if seat is None else seat_index(
            seat, seats, "seat (or None: drawn at every hand)")
        self.render_mode = None
        self.single_observation_space = observation_space(self.batch.obs_size, obs_dtype)
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        # Opponents: every policy ever seated is kept in ``_policies`` while a table uses it;
        # ``players[i, s]`` indexes it (-1 at the learner's seat).
        self._policies: list[PolicyLike] = []
        self._pool = np.zeros(0, dtype=np.int64)
        self._mix = OpponentMix([RANDOM])
        self.players = np.full((n, seats), -1, dtype=np.int64)
        self.seats = np.zeros(n, dtype=np.int64)
        """The learner's seat at each table, in the hand now in progress."""
        self.set_opponents(opponents, weights)
        # What one step produces (filled by ``_advance``).
        self._rewards = np.zeros(n, dtype=np.float32)
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._final_obs = np.zeros((n, self.batch.obs_size), dtype=obs_dtype)
        # Without final views (two decks): the learner's observation at its last decision.
        self._last_obs = None if self.final_obs_is_terminal else \
            np.zeros((n, self.batch.obs_size), dtype=obs_dtype)
        self._final_scores = np.zeros((n, seats), dtype=np.int32)
        self._final_seats = np.zeros(n, dtype=np.int64)
        self._actions = np.zeros(n, dtype=np.int64)
        self._started = False
        self.deal_seed: int | None = None
        """The batch's deal seed: hand ``j`` of table ``i`` is
        ``gongzhu_env.batch.deal(deal_seed, i, j, rules)``; the first draw
        ``integers(2**63)`` of the generator at ``reset``."""

    # ------------------------------------------------------------------ opponents
    def set_opponents(self, opponents: PolicyLike | Sequence[PolicyLike]
                      | Mapping[PolicyLike, float],
                      weights: Sequence[float] | None = None) -> None:
        """Replace the opponent pool for the hands dealt from now on (by weight, per seat).

        The tables keep the opponents of their hands in progress.
        """
        mix = _policy_mix(opponents, weights, "opponents")
        pool = mix.entries
        # Keep the policies seated now, then add the new pool's; renumber the seating.
        used = np.unique(self.players[self.players >= 0])
        kept = [self._policies[int(k)] for k in used]
        remap = np.full(len(self._policies) + 1, -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        self.players[:] = remap[self.players]  # -1 maps to remap[-1] = -1
        policies = list(kept)
        ids = []
        for q in pool:
            k = next((j for j, x in enumerate(policies)
                      if x is q or (isinstance(q, str) and x == q)), None)
            if k is None:
                policies.append(q)
                k = len(policies) - 1
            ids.append(k)
        self._policies = policies
        self._pool = np.array(ids, dtype=np.int64)
        self._mix = mix

    @property
    def opponents(self) -> list[PolicyLike]:
        """The current pool, one entry per policy (see ``opponent_weights``)."""
        return [self._policies[int(k)] for k in self._pool]

    @property
    def opponent_weights(self) -> np.ndarray:
        """The probability of each pool entry at each opponent seat of a new hand."""
        return self._mix.probabilities.copy()

    def seated(self, table: int) -> list[PolicyLike | None]:
        """Return who plays each seat of ``table`` in its hand now (``None``: the learner)."""
        return [None if k < 0 else self._policies[int(k)] for k in self.players[table]]

    def _seat(self, tables: np.ndarray) -> None:
        """Draw the learner seat and the opponents of the new hands at ``tables``."""
        k = len(tables)
        rng = self.np_random
        seats = np.full(k, self.fixed_seat, dtype=np.int64) if self.fixed_seat is not None \
            else rng.integers(self.num_seats, size=k)
        draws = self._pool[self._mix.draw_many(rng, (k, self.num_seats))]
        draws[np.arange(k), seats] = -1
        self.seats[tables] = seats
        self.players[tables] = draws

    # ------------------------------------------------------------------ the engine
    def _end_hands(self, ended: np.ndarray) -> None:
        """Record the learner's end of hand at the tables ``ended`` and seat the next hand."""
        b = self.batch
        if self._terminated[ended].any():  # a learner has a turn in every hand
            raise RuntimeError("a table ended two learner hands in one step")
        seats = self.seats[ended]
        self._terminated[ended] = True
        self._rewards[ended] = b.rewards[ended, seats]
        final = b.final_observations
        if final is not None:
            self._final_obs[ended] = final[ended, seats]
        elif self._last_obs is not None:  # two decks: the learner's last decision
            self._final_obs[ended] = self._last_obs[ended]
        else:  # a one-deck batch is built with final_observations=True
            raise RuntimeError("the batch keeps no final observations")
        self._final_scores[ended] = b.scores[ended]
        self._final_seats[ended] = seats
        self._seat(ended)

    def _play_opponents(self) -> None:
        """Step the tables whose seat to move is an opponent's until every learner is to move."""
        b = self.batch
        while True:
            waiting = b.current_player != self.seats
            if not waiting.any():
                return
            rows = np.flatnonzero(waiting)
            ids = self.players[rows, b.current_player[rows]]
            _policy_actions(b, rows, ids, self._policies, self.np_random, self._actions)
            b.step(self._actions, waiting)
            if b.terminated.any():
                self._end_hands(np.flatnonzero(b.terminated))

    def _advance(self, actions: np.ndarray | None) -> None:
        """Play the learner's ``actions`` (``None``: a reset), then the opponents.

        A failure of an opponent undoes the whole step, the learner's actions included.
        """
        self._rewards[:] = 0.0
        self._terminated[:] = False
        b = self.batch
        undo = _Undo(b, self.np_random, (self.seats, self.players)) if actions is not None \
            else None
        if actions is not None:
            if self._last_obs is not None:
                self._last_obs[...] = b.observations  # every learner is to move here
            b.step(actions)  # checks every table's action first: a bad one changes nothing
        try:
            if actions is not None and b.terminated.any():
                self._end_hands(np.flatnonzero(b.terminated))
            self._play_opponents()
        except BaseException:
            if undo is not None:
                undo()
                self._rewards[:] = 0.0
                self._terminated[:] = False
            raise

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal every table a new hand, seat everyone, play the opponents to the learners.

        ``seed`` (a non-negative Python or numpy integer) seeds the env's generator
        (``None``: go on from it, or from OS entropy at the first reset).
        """
        if options:
            raise ValueError(f"SingleSeatVectorEnv.reset takes no options (every table is "
                             f"reset; tables autoreset at the end of their hands); got "
                             f"{options!r}")
        if seed is not None:
            seed = _seed(seed, "SingleSeatVectorEnv.reset")
            self._np_random, self._np_random_seed = seeding.np_random(seed)
        self._started = False
        rng = self.np_random
        self.deal_seed = int(rng.integers(2**63))
        self.batch.reset(self.deal_seed)
        self.players[:] = -1  # no hand in progress holds a policy any more
        self._seat(np.arange(self.num_envs))
        self._advance(None)
        self._started = True
        return self.batch.observations.copy(), self._info(final=False)

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                 np.ndarray, dict[str, Any]]:
        """Play one learner action per table, then the opponents up to the learners' turns."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        self._advance(_check_actions(actions, self.num_envs))
        return (self.batch.observations.copy(), self._rewards.copy(), self._terminated.copy(),
                np.zeros(self.num_envs, dtype=np.bool_), self._info(final=True))

    def action_masks(self) -> np.ndarray:
        """Return the learners' legal actions, ``bool[num_envs, num_actions]``."""
        if not self._started:
            raise RuntimeError("call reset() before action_masks()")
        return self.batch.action_masks.astype(np.bool_)

    def _info(self, final: bool) -> dict[str, Any]:
        n = self.num_envs
        everyone = np.ones(n, dtype=np.bool_)
        info: dict[str, Any] = {"seat": self.seats.copy(), "_seat": everyone,
                                "action_mask": self.action_masks(),
                                "_action_mask": everyone.copy()}
        done = self._terminated
        if final and done.any():
            rows = np.flatnonzero(done)
            final_obs = np.full(n, None, dtype=object)
            for i in rows:
                final_obs[i] = self._final_obs[i].copy()
            scores = np.zeros((n, self.num_seats), dtype=np.int32)
            scores[rows] = self._final_scores[rows]
            seats = np.zeros(n, dtype=np.int64)
            seats[rows] = self._final_seats[rows]
            info["final_obs"], info["_final_obs"] = final_obs, done.copy()
            info["final_info"] = {"scores": scores, "_scores": done.copy(), "seat": seats,
                                  "_seat": done.copy()}
            info["_final_info"] = done.copy()
        return info

    def __repr__(self) -> str:
        return (f"SingleSeatVectorEnv(num_envs={self.num_envs}, rules={self.rules!r}, "
                f"opponents={[policy_label(p) for p in self.opponents]})")


# ---------------------------------------------------------------------------------------------
class SelfPlayRollout(NamedTuple):
    """What one ``SelfPlayBatch.play`` returns: the decisions of the hands finished in it.

    Decision arrays (one row per decision, in the order they were made):
    ``observations`` ``(N, obs_size)`` float32 (uint8 bytes in a ``SelfPlayBatch`` built with
    ``obs_dtype=np.uint8``) and ``action_masks`` ``(N, num_actions)`` bool
    (what the acting seat saw), ``actions`` ``(N,)``, ``tables``, ``seats`` (absolute),
    ``hands`` (the hand's index in its table's stream since ``reset``), ``players`` (the index
    of the policy that acted, in the list given to ``play``) and ``returns`` ``(N,)`` float32:
    the acting seat's hand result (``reward_mode``/``reward_scale``). Hand arrays (one row per
    finished hand): ``hand_tables``, ``hand_numbers``, ``hand_scores`` ``(H, seats)`` raw scores
    by absolute seat.
    """

    observations: np.ndarray
    action_masks: np.ndarray
    actions: np.ndarray
    tables: np.ndarray
    seats: np.ndarray
    hands: np.ndarray
    players: np.ndarray
    returns: np.ndarray
    hand_tables: np.ndarray
    hand_numbers: np.ndarray
    hand_scores: np.ndarray


_DECISION_FIELDS = ("observations", "action_masks", "actions", "tables", "seats", "hands",
                    "players")


class SelfPlayBatch:
    """Every seat of ``num_tables`` batched tables played by batched policies.

    See "SelfPlayBatch" in the module docstring. ``batch`` is the ``GameBatch`` of ``rules``
    (its arrays show the tables between calls); ``obs_dtype`` is its observations' dtype
    (``np.float32`` or ``np.uint8``, "Compact observations" in the module docstring).
    """

    def __init__(self, num_tables: int, rules: Rules | str | None = None, *,
                 reward_mode: str = "zero_sum", reward_scale: float = 1.0,
                 obs_dtype: object = np.float32) -> None:
        self.batch = GameBatch(num_tables, check_covered(rules), reward_mode=reward_mode,
                               reward_scale=reward_scale, obs_dtype=obs_dtype)
        self.obs_dtype = self.batch.obs_dtype
        """The dtype of the observations the rollouts return (``GameBatch.obs_dtype``)."""
        self.single_observation_space = observation_space(self.batch.obs_size, self.obs_dtype)
        """The space of one observation row (``Box(0, 1)`` float32 or ``Box(0, 255)`` uint8)."""
        self.rules = self.batch.rules
        self.num_actions = self.rules.num_actions
        self.num_tables = self.batch.num_tables
        self.num_seats = self.batch.num_seats
        self.rng: np.random.Generator | None = None
        self.hand_number = np.zeros(self.num_tables, dtype=np.int64)
        """The index of the hand in progress at each table (0 after ``reset``)."""
        self._pending: dict[str, np.ndarray] | None = None

    def reset(self, seed: int) -> None:
        """Deal every table's first hand under ``seed``, which also seeds ``"random"``.

        ``seed`` is a non-negative Python or numpy integer.
        """
        self.rng = np.random.default_rng(_seed(seed, "SelfPlayBatch.reset"))
        self.batch.reset(int(self.rng.integers(2**63)))
        self.hand_number[:] = 0
        self._pending = None

    @property
    def pending_decisions(self) -> int:
        """Decisions made in hands still in progress (a later ``play`` returns them)."""
        return 0 if self._pending is None else len(self._pending["actions"])

    def play(self, policies: PolicyLike | Sequence[PolicyLike], steps: int, *,
             assignment: Any = None) -> SelfPlayRollout:
        """Make ``steps`` engine steps; return the decisions of the hands finished meanwhile.

        ``policies``: one batched policy (every seat) or a list; ``assignment``: the index in
        ``policies`` of the player of each seat, shape ``(seats,)`` (by seat) or
        ``(num_tables, seats)``; with one policy per seat and no assignment, seat ``s`` plays
        ``policies[s]``. Nothing is changed if the call fails (see the module docstring).
        """
        if self.rng is None:
            raise RuntimeError("call reset(seed) before play()")
        if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
            raise ValueError(f"steps must be a positive integer; got {steps!r}")
        pool = _policy_mix(policies, None, "policies").entries
        seating = self._assignment(pool, assignment)
        undo = _Undo(self.batch, self.rng, (self.hand_number,))
        pending = self._pending
        try:
            return self._play(pool, seating, int(steps))
        except BaseException:
            undo()
            self._pending = pending
            raise

    def _assignment(self, pool: list[PolicyLike], assignment: Any) -> np.ndarray:
        n, seats = self.num_tables, self.num_seats
        if assignment is None:
            if len(pool) == 1:
                return np.zeros((n, seats), dtype=np.int64)
            if len(pool) == seats:
                return np.tile(np.arange(seats, dtype=np.int64), (n, 1))
            shape = f"({seats},) or ({n}, {seats})"
            raise ValueError(f"{len(pool)} policies need an assignment (which policy plays "
                             f"each seat): an int array of shape {shape}")
        a = np.asarray(assignment)
        if a.dtype.kind not in "iu" or a.shape not in ((seats,), (n, seats)):
            raise ValueError(f"assignment must be integers of shape ({seats},) or "
                             f"({n}, {seats}); got {a.dtype} of shape {a.shape}")
        if a.min() < 0 or a.max() >= len(pool):
            raise ValueError(f"assignment must index the {len(pool)} policies (0.."
                             f"{len(pool) - 1}); got values {a.min()}..{a.max()}")
        return np.broadcast_to(a.astype(np.int64), (n, seats))

    def _play(self, pool: list[PolicyLike], seating: np.ndarray, steps: int) -> SelfPlayRollout:
        b, n, rng = self.batch, self.num_tables, self.rng
        assert rng is not None
        obs = np.empty((steps, n, b.obs_size), dtype=b.obs_dtype)
        masks = np.empty((steps, n, self.num_actions), dtype=np.bool_)
        ints = {k: np.empty((steps, n), dtype=np.int64)
                for k in ("actions", "tables", "seats", "hands", "players")}
        start = self.hand_number.copy()
        every = np.arange(n)
        ended_tables, ended_hands, ended_rewards, ended_scores = [], [], [], []
        for t in range(steps):
            seats = b.current_player
            players = seating[every, seats]
            obs[t] = b.observations
            masks[t] = b.action_masks.view(np.bool_)
            ints["tables"][t] = every
            ints["seats"][t] = seats
            ints["hands"][t] = self.hand_number
            ints["players"][t] = players
            _policy_actions(b, every, players, pool, rng, ints["actions"][t])
            b.step(ints["actions"][t])
            if b.terminated.any():
                done = np.flatnonzero(b.terminated)
                ended_tables.append(done)
                ended_hands.append(self.hand_number[done].copy())
                ended_rewards.append(b.rewards[done].copy())
                ended_scores.append(b.scores[done].copy())
                self.hand_number[done] += 1
        fresh = {"observations": obs.reshape(steps * n, -1),
                 "action_masks": masks.reshape(steps * n, -1),
                 **{k: v.reshape(-1) for k, v in ints.items()}}
        if self._pending is not None:
            fresh = {k: np.concatenate([self._pending[k], fresh[k]]) for k in fresh}
        h_tables = np.concatenate(ended_tables) if ended_tables else np.zeros(0, np.int64)
        h_numbers = np.concatenate(ended_hands) if ended_hands else np.zeros(0, np.int64)
        h_rewards = np.concatenate(ended_rewards) if ended_rewards else \
            np.zeros((0, self.num_seats), np.float32)
        h_scores = np.concatenate(ended_scores) if ended_scores else \
            np.zeros((0, self.num_seats), np.int32)
        # The result of each decision's hand, looked up by (table, hand since the start).
        span = int((self.hand_number - start).max()) + 1
        results = np.full((n, span, self.num_seats), np.nan, dtype=np.float32)
        results[h_tables, h_numbers - start[h_tables]] = h_rewards
        returns = results[fresh["tables"], fresh["hands"] - start[fresh["tables"]],
                          fresh["seats"]]
        done = ~np.isnan(returns)
        self._pending = {k: v[~done] for k, v in fresh.items()}
        out = {k: v[done] for k, v in fresh.items()}
        return SelfPlayRollout(returns=returns[done], hand_tables=h_tables,
                               hand_numbers=h_numbers, hand_scores=h_scores, **out)

    def __repr__(self) -> str:
        return f"SelfPlayBatch(num_tables={self.num_tables}, rules={self.rules!r})"


__all__ = ["SingleSeatVectorEnv", "SelfPlayBatch", "SelfPlayRollout", "RANDOM",
           "check_policy", "observation_space", "policy_label"]
