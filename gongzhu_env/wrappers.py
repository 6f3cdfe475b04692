"""A single-seat gymnasium env: one learner seat against three opponents acting inside ``step``.

Description
-----------
Why a single-seat adapter: the common recipe that lets one SB3 learner act for every seat in
turn mixes up whose reward and value it learns from (with four seats, three of every four
transitions belong to someone else). Here the learner is exactly one seat per episode; the three
other seats are played by opponents inside ``reset``/``step``, so every transition, observation
and reward the learner sees is its own.

==================  =========================================================================
Action space        ``Discrete(rules.num_actions)``: 53 (0..51 a card, 52 DONE), or 105
                    with two decks (as in ``gongzhu_env.env``)
Observation space   ``Box(0, 1, (obs_size(rules),), float32)``: the learner seat's
                    ``PlayerView.encode()`` (seats relative to the learner); 600 values
                    for the standard rules, more where a variant makes more public
Action mask         ``action_masks()`` -> ``bool[num_actions]`` (what sb3-contrib's ``MaskablePPO``
                    calls, also through ``SubprocVecEnv.env_method``); also ``info["action_mask"]``
==================  =========================================================================

Starting State
--------------
``reset(seed=...)`` deals a hand from ``self.np_random``, picks the learner's seat uniformly
(unless ``seat=`` fixes it) and draws each other seat's opponent from the pool, uniformly or
by weight (``gongzhu_env.opponents.OpponentMix``, the draw every trainer uses); the opponents
then play until it is the learner's turn.

Opponents
---------
Each pool entry is an agent object (anything with ``reset(seat, rules)`` and
``act(view)``, e.g. an ``agents.base.Agent``), a plain callable ``f(view) -> action`` (e.g. the
learner's own current policy), or an agent spec string such as ``"greedy"`` when a ``factory``
(``agents.make_agent``) is given to build it; ``gongzhu_env`` itself never imports ``agents``
or torch. Agent objects are copied once per (pool entry, seat), so two seats never share one
agent's memory, and every copy is re-seeded from the env's generator at each reset (its
``reseed(seed)`` if it has one, else its ``seed`` and ``rng`` attributes), so the same seed
gives the same episode. The opponents play through ``gongzhu_env.players.play_turns`` with the
learner's seat left empty; an illegal opponent action raises ``IllegalPlayerActionError``.
The pool is a list (equal chances) or a mapping of entries to weights (or a list with
``weights=``). ``set_opponents(pool, weights=None)`` replaces it between episodes (the SB3
trainer adds frozen snapshots this way, also through ``VecEnv.env_method``).

Rewards
-------
Zero on every step but the last; at the end of the hand the learner receives its hand result:
``"zero_sum"`` (default; own raw score minus the others' mean), ``"raw"`` or, under team
rules, ``"team"`` (the team's result, ``gongzhu_env.scoring.team_results``), divided by
``reward_scale``. An illegal action ends the episode at once with ``illegal_reward`` and
``info["illegal_action"] = True`` (mask your actions to avoid it).

Episode End
-----------
Terminated after the thirteenth trick (or an illegal action); never truncated.
``info["scores"]`` holds every seat's raw score at the end; ``info["seat"]`` the learner's seat.

``episode="match"``: an episode is a whole match (``gongzhu_env.match.Match``); the learner
keeps its seat and its opponents for the whole match, and each hand's result is the reward of
the step in which that hand ended (with ``info["scores"]``, ``"cumulative"`` and
``"hand_number"``). Terminated when the match ends by its rules (``gongzhu_env.match.
match_over``: the threshold, and its opposite with ``match_end="either"``), truncated at
``max_hands``. The observation then has the match blocks (``obs_size(rules, True)``).

Constructor arguments
---------------------
``opponents`` (the pool: a list, or a mapping to weights), ``factory`` (builds spec strings:
``factory(spec, seed=...)``), ``rules``, ``reward_mode``, ``reward_scale`` (default 400),
``seat`` (fix the learner's seat), ``illegal_reward`` (default -1), ``render_mode``
(``"ansi"``), ``episode`` (``"hand"`` or ``"match"``), ``max_hands``, ``weights`` (one per
opponent of a list pool).

>>> from agents import make_agent
>>> from gongzhu_env.wrappers import SingleSeatEnv
>>> env = SingleSeatEnv(opponents=["random", "greedy"], factory=make_agent, reward_scale=100)
>>> obs, info = env.reset(seed=0)

Version History
---------------
* v0: initial release.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from gongzhu_env.engine import Game, seat_index
from gongzhu_env.match import DEFAULT_MAX_HANDS, Match, check_episode, reset_hands
from gongzhu_env.opponents import OpponentMix
from gongzhu_env.players import Player, play_match_turns, play_turns, start_hand
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import REWARD_MODES, check_reward_mode, check_reward_scale, hand_results
from gongzhu_env.view import PlayerView, obs_size

OpponentLike = Any  # a spec string, an ``agents.base.Agent`` or a callable view -> action


def _reseed(agent: Any, seed: int) -> None:
    """Re-seed a copied opponent so that the same env seed always gives the same episode.

    Agents re-seed themselves (``agents.base.Agent.reseed``: the seed, the generator and any
    further seeded state). An object that only has ``act``/``reset`` gets what this env gave
    such objects before ``reseed`` existed: its ``seed`` and ``rng`` attributes replaced, which
    is enough for players that draw from ``self.rng``.
    """
    reseed = getattr(agent, "reseed", None)
    if reseed is not None:
        reseed(seed)
    else:
        agent.seed = seed
        agent.rng = np.random.default_rng(seed)


class _CallableOpponent:
    """Adapts ``f(view) -> action`` to the agent protocol (``reset``/``act``)."""

    def __init__(self, fn: Callable[[PlayerView], int]) -> None:
        self.fn = fn
        # How errors name this seat's player (``gongzhu_env.players.player_label``).
        self.name = getattr(fn, "__qualname__", None) or repr(fn)

    def reset(self, seat: int, rules: Rules) -> None:
        """Nothing to clear: the callable owns its own state."""

    def act(self, view: PlayerView) -> int:
        """Ask the callable."""
        return int(self.fn(view))


def _check_pool(opponents: Sequence[OpponentLike] | Mapping[OpponentLike, float],
                weights: Sequence[float] | None,
                factory: Callable[..., Any] | None) -> OpponentMix:
    if isinstance(opponents, (str, bytes)) or not isinstance(opponents, (Sequence, Mapping)):
        raise TypeError(f"opponents must be a list of agent specs, Agents or callables (or a "
                        f"mapping of them to weights); got {opponents!r}")
    mix = OpponentMix(opponents, weights)
    for o in mix.entries:
        if isinstance(o, str):
            if factory is None:
                raise TypeError(f"opponent spec {o!r} needs factory= (e.g. agents.make_agent) "
                                f"to build it; or pass an agent object or a callable")
            factory(o, seed=0)  # an unknown spec fails here, before any episode
        elif not (hasattr(o, "act") or callable(o)):
            raise TypeError(f"opponent {o!r} is neither an agent spec, an Agent nor a "
                            f"callable view -> action")
    return mix


class SingleSeatEnv(gym.Env[NDArray[np.float32], int]):
    """One learner seat of a Gong Zhu hand; see the module docstring."""

    metadata = {"render_modes": ["ansi"], "name": "gongzhu_single_seat_v0"}

    def __init__(self, opponents: Sequence[OpponentLike] | Mapping[OpponentLike, float],
                 factory: Callable[..., Any] | None = None,
                 rules: Rules | str | None = None, reward_mode: str = "zero_sum",
                 reward_scale: float = 400.0, seat: int | None = None,
                 illegal_reward: float = -1.0, render_mode: str | None = None,
                 episode: str = "hand", max_hands: int = DEFAULT_MAX_HANDS,
                 weights: Sequence[float] | None = None) -> None:
        super().__init__()
        self.rules = Rules.coerce(rules)
        check_episode(episode, max_hands)
        self.episode = episode
        self.max_hands = max_hands
        self.match: Match | None = None
        check_reward_mode(reward_mode, self.rules)
        reward_scale = check_reward_scale(reward_scale)
        n = self.rules.players
        if seat is not None:
            seat = seat_index(seat, n, "seat (or None: random each episode)")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or "
                             f"None; got {render_mode!r}")
        self.factory = factory
        self.mix = _check_pool(opponents, weights, factory)
        """Who sits in the other seats (``gongzhu_env.opponents.OpponentMix``)."""
        self._copies: dict[tuple[int, int], Any] = {}
        self.reward_mode = reward_mode
        self.reward_scale = float(reward_scale)
        self.fixed_seat = seat
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.observation_space = spaces.Box(
            0.0, 1.0, (obs_size(self.rules, episode == "match"),), dtype=np.float32)
        self.action_space = spaces.Discrete(self.rules.num_actions)
        self.game: Game | None = None
        self.seat = 0
        self.players: list[Player | None] = [None] * n
        self._mask = np.zeros(self.rules.num_actions, dtype=bool)

    # ------------------------------------------------------------------ opponents
    def set_opponents(self, opponents: Sequence[OpponentLike] | Mapping[OpponentLike, float],
                      weights: Sequence[float] | None = None) -> None:
        """Replace the opponent pool (takes effect at the next ``reset``)."""
        self.mix = _check_pool(opponents, weights, self.factory)
        self._copies = {}

    @property
    def pool(self) -> list[OpponentLike]:
        """The opponent entries (their weights are ``self.mix.weights``)."""
        return self.mix.entries

    def _build(self, index: int, seat: int, seed: int) -> Any:
        entry = self.mix.entries[index]
        if isinstance(entry, str):
            if self.factory is None:  # refused when the pool is set; kept explicit for -O
                raise TypeError(f"opponent spec {entry!r} needs factory= to build it")
            return self.factory(entry, seed=seed)
        if hasattr(entry, "act"):
            agent = self._copies.get((index, seat))
            if agent is None:
                agent = self._copies[(index, seat)] = copy.deepcopy(entry)
            _reseed(agent, seed)
            return agent
        return _CallableOpponent(entry)

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[NDArray[np.float32], dict[str, Any]]:
        """Deal, seat everyone, and play the opponents up to the learner's first turn.

        The options and a given deal are checked before the generator is reseeded.
        """
        hands = reset_hands(options, self.rules)
        super().reset(seed=seed)
        rng = self.np_random
        if self.episode == "match":
            self.match = Match(self.rules, rng=rng, hands=hands, max_hands=self.max_hands)
            self.game = self.match.game
        else:
            self.game = Game.from_hands(hands, self.rules) if hands is not None \
                else Game(self.rules, rng=rng)
        n = self.rules.players
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(n))
        self.players = [None] * n
        for s in range(n):
            if s == self.seat:
                continue
            draw = self.mix.draw_seat(rng)
            self.players[s] = self._build(draw.entry, s, draw.value)
        start_hand(self.players, self.rules)
        if self.match is not None:
            play_match_turns(self.match, self.players)
        else:
            play_turns(self.game, self.players)
        return self._obs(), self._info()

    def step(self, action: int
             ) -> tuple[NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the opponents' until its next turn or the end."""
        game = self.game
        if game is None:
            raise RuntimeError("call reset() before step()")
        if game.is_over():
            raise RuntimeError("the hand is over; call reset() to start a new one")
        a = int(action)
        if not 0 <= a < self.rules.num_actions or not game.legal_mask() >> a & 1:
            info = self._info()
            info["illegal_action"] = True
            obs = self._obs()
            self.game = None
            return obs, self.illegal_reward, True, False, info
        if self.match is not None:
            return self._step_match(a)
        game.step(a)
        play_turns(game, self.players)
        if game.is_over():
            raw = game.scores()
            res = hand_results(raw, self.reward_mode, game.teams)
            info = self._info()
            info["scores"] = list(raw)
            return self._obs(), float(res[self.seat]) / self.reward_scale, True, False, info
        return self._obs(), 0.0, False, False, self._info()

    def _step_match(self, action: int
                    ) -> tuple[NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        """Play the learner's action in a match, then the others' until its turn or the end.

        The reward is the learner's result of every hand that ended on the way (one at most,
        as the learner plays in every trick), as the env's ``episode="match"`` gives it.
        """
        match = self.match
        if match is None:  # a match episode makes one at every reset
            raise RuntimeError("call reset() before step()")
        before = match.hand_number
        if match.step(action) is not None and not match.is_over():
            start_hand(self.players, self.rules)
        play_match_turns(match, self.players)
        self.game = match.game
        info = self._info()
        reward = 0.0
        for raw in match.hand_scores[before:]:
            reward += float(hand_results(raw, self.reward_mode, self.game.teams)[self.seat])
            info["scores"] = list(raw)
        info["cumulative"] = list(match.cumulative)
        info["hand_number"] = match.hand_number
        over = match.is_over()
        return (self._obs(), reward / self.reward_scale, over and not match.truncated,
                over and match.truncated, info)

    def action_masks(self) -> NDArray[np.bool_]:
        """Return the learner's legal actions as ``bool[num_actions]`` (all False once over)."""
        mask = self._mask
        mask[:] = False
        game = self.game
        if game is not None and not game.is_over() and game.current_player == self.seat:
            mask[game.legal_actions()] = True
        return mask.copy()

    # gymnasium types render() with a type variable bound by nothing (RenderFrame), which no
    # concrete return type can match; the ansi text is what this env renders.
    def render(self) -> str | None:  # type: ignore[override]
        """Return the table as the learner sees it (``"ansi"``)."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        if self.game is None:
            raise RuntimeError("call reset() before render()")
        return self.game.render(self.seat)

    # ------------------------------------------------------------------ internals
    def _obs(self) -> NDArray[np.float32]:
        if self.game is None:
            raise RuntimeError("call reset() before step()")
        if self.match is not None:
            return self.match.view(self.seat).encode()
        return self.game.view(self.seat).encode()

    def _info(self) -> dict[str, Any]:
        return {"seat": self.seat, "action_mask": self.action_masks()}


__all__ = ["SingleSeatEnv", "REWARD_MODES"]
