"""Gong Zhu (拱猪) as a PettingZoo AEC environment.

Description
-----------
Four players, one 52-card deck, thirteen tricks (or 3 to 8 players with ``Rules(players=N)``:
the low cards D2, C2, S2, D3 leave the deck until it divides evenly). The pig SQ costs -100,
the sheep DJ gives +100, hearts are negative, and the transformer C10 doubles its taker's
score. Before the first trick each player may expose SQ, DJ, C10 or HA to double its effect.
The rules are
``gongzhu_env.engine.Game``'s; this module only translates.

==================  ==============================================================
Agents              ``player_0`` .. ``player_{N-1}`` (seat ``i`` is ``player_i``;
                    N = ``rules.players``, 4 by default)
Action space        ``Discrete(53)``: 0..51 a card (expose it while declaring, play
                    it while playing), 52 DONE (end my declaration turn). Two decks:
                    ``Discrete(105)``, 52 + k leads the pair of card k, 104 is DONE
Observation space   ``Dict(observation=Box(0, 1, (obs_size(rules, match),), float32),
                    action_mask=Box(0, 1, (rules.num_actions,), int8))``
Import              ``from gongzhu_env import env, raw_env``
==================  ==============================================================

Observation Space
-----------------
``observation`` is ``PlayerView.encode()`` for the observing seat, with seats relative to the
observer (self, next, across, previous; at N seats: self, then the others in play order). The
layout table is in ``gongzhu_env.view``; its blocks are available as
``gongzhu_env.view.SLICES`` and ``decode()``.

Legal Actions Mask
------------------
``action_mask[a] == 1`` iff action ``a`` is legal for the agent to act; all zeros for every other
agent. In declaration it holds the agent's unexposed exposable cards and DONE; in play, the cards
it may play.

Rewards
-------
Zero on every step but the last of a hand. When the last trick is taken every agent
receives its hand result, by ``reward_mode``: ``"raw"`` (default), the raw hand score;
``"zero_sum"``, the raw score minus the mean of the other seats' (settlement without rounding or
x12); ``"team"`` (team rules only), its team's result unrounded and without x12: ``(A - B) / 2``
for two against two, (own team - mean of the other teams) / 2 at six or eight seats
(``gongzhu_env.scoring.team_results``). Rewards are divided by
``reward_scale`` (e.g. 100 for learning).

Episode End
-----------
``episode="hand"`` (default): after the last trick every agent is terminated.
``episode="match"``: an episode is a whole match (``gongzhu_env.match.Match``); each hand's
rewards arrive at its last trick and the next hand is dealt at once, led by the seat
``rules.next_leader`` names (the SQ taker by default); every agent is terminated when a
cumulative score reaches ``rules.match_threshold`` or, with ``match_end="either"``, its
opposite (truncated instead if the match hits ``max_hands``). ``infos[agent]`` carries
``"phase"`` on every step and, at the end of each hand, ``"scores"`` (every seat's raw score
of that hand); in match mode also ``"cumulative"``, ``"hand_number"`` and, at the end,
``"result"`` (winners, losers).
The observation size depends on the rules and the episode mode (``gongzhu_env.view.obs_size``).

Constructor arguments
---------------------
``rules`` (a ``Rules``, a preset name or ``None`` for the standard game), ``reward_mode``,
``reward_scale``, ``render_mode`` (``"ansi"`` returns the table, ``"human"`` prints it),
``render_seat`` (render only that seat's hand; default: a spectator sees all), ``episode``
(``"hand"`` or ``"match"``), ``max_hands`` (match safety cap). ``reset(seed=...,
options={"hands": [[...13 cards...] x 4]})`` starts from a given deal (N hands of
``rules.hand_size`` cards at other table sizes).

>>> from gongzhu_env import env
>>> e = env(reward_mode="zero_sum", reward_scale=100)
>>> e.reset(seed=0)

Illegal actions: ``raw_env.step`` raises ``IllegalActionError`` and changes nothing; ``env()``
follows the PettingZoo convention (the offender gets ``illegal_reward`` and the game ends).

Version History
---------------
* v0: initial release (standard rules); rule variants, team rewards and match episodes.
"""

from __future__ import annotations

import operator
from typing import Any, SupportsIndex, cast

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from gongzhu_env.engine import Game, IllegalActionError, seat_index
from gongzhu_env.match import DEFAULT_MAX_HANDS, Match, check_episode, reset_hands
from gongzhu_env.render import render_game
from gongzhu_env.rules import Rules
from gongzhu_env.scoring import check_reward_mode, check_reward_scale, hand_results
from gongzhu_env.view import obs_size


def agent_names(players: int = 4) -> tuple[str, ...]:
    """Return the agents of a table of ``players`` seats: ``player_0`` .. ``player_{N-1}``."""
    return tuple(f"player_{i}" for i in range(players))


AGENTS = agent_names(4)
"""The agents of the usual table of four (``agent_names(rules.players)`` for any size)."""


class raw_env(AECEnv[str, dict[str, np.ndarray], int | None]):  # noqa: N801 - PettingZoo naming
    """The unwrapped Gong Zhu AEC environment (see the module docstring)."""

    metadata = {"name": "gongzhu_v0", "render_modes": ["ansi", "human"],
                "is_parallelizable": False}

    def __init__(self, rules: Rules | str | None = None, reward_mode: str = "raw",
                 reward_scale: float = 1.0, render_mode: str | None = None,
                 render_seat: int | None = None, episode: str = "hand",
                 max_hands: int = DEFAULT_MAX_HANDS) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # PettingZoo leaves it unannotated
        self.rules = Rules.coerce(rules)
        check_reward_mode(reward_mode, self.rules)
        check_episode(episode, max_hands)
        self.episode = episode
        self.max_hands = max_hands
        self.match: Match | None = None
        reward_scale = check_reward_scale(reward_scale)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or "
                             f"None; got {render_mode!r}")
        n = self.rules.players
        if render_seat is not None:
            render_seat = seat_index(render_seat, n, "render_seat")
        self.reward_mode = reward_mode
        self.reward_scale = float(reward_scale)
        self.render_mode = render_mode
        self.render_seat = render_seat
        self._names = agent_names(n)
        self.possible_agents = list(self._names)
        self.agents = list(self._names)
        self._seat = {a: i for i, a in enumerate(self._names)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (obs_size(self.rules, episode == "match"),),
                                      dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (self.rules.num_actions,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self._names}
        self.action_spaces = {a: spaces.Discrete(self.rules.num_actions) for a in self._names}
        self._np_random: np.random.Generator | None = None
        self.game: Game | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """Return the (shared) observation space."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """Return the (shared) action space."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new hand (or the deal in ``options["hands"]``).

        The options and a given deal are checked before anything changes, the random
        generator included: a refused ``reset`` leaves the next one dealing exactly what it
        would have dealt.
        """
        hands = reset_hands(options, self.rules)
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        if self.episode == "match":
            self.match = Match(self.rules, rng=self._np_random, hands=hands,
                               max_hands=self.max_hands)
            self.game = self.match.game
        elif hands is not None:
            self.game = Game.from_hands(hands, self.rules)
        else:
            self.game = Game(self.rules, rng=self._np_random)
        self.agents = list(self._names)
        self.rewards = dict.fromkeys(self._names, 0.0)
        self._cumulative_rewards = dict.fromkeys(self._names, 0.0)
        self.terminations = dict.fromkeys(self._names, False)
        self.truncations = dict.fromkeys(self._names, False)
        phase = self.game.phase.value
        self.infos = {a: {"phase": phase} for a in self._names}
        if self.match is not None and self.episode == "match":
            for a in self._names:
                self.infos[a].update(cumulative=[0] * len(self._names), hand_number=0)
        self.agent_selection = self._names[self.game.current_player]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Return the agent's observation vector and action mask."""
        if self.game is None:
            raise RuntimeError("call reset() before observe(): there is no hand yet")
        seat = self._seat.get(agent)
        if seat is None:
            raise ValueError(f"unknown agent {agent!r}; the agents are {list(self._names)}")
        if self.match is None:
            obs, mask = self.game.observation(seat)
        else:
            obs, mask = self.match.view(seat).observation()
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action; raises ``IllegalActionError`` if it is illegal."""
        action = self.check_action(action)
        agent = self.agent_selection
        # (``check_action`` returns None exactly for an agent that is done.)
        if action is None or self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if self.episode == "match":
            self._step_match(agent, action)
            return
        game = self.game
        if game is None:  # refused by check_action; kept explicit for the type checker
            raise RuntimeError("call reset() before step(): there is no hand yet")
        before = game.phase
        game.step(action)  # validates; on error nothing has changed
        self._cumulative_rewards[agent] = 0.0
        self.agent_selection = self._names[game.current_player]
        if game.phase is before:
            # The common case: mid-phase, every reward is still zero and the infos are current,
            # so there is nothing to accumulate or rewrite.
            pass
        elif game.is_over():
            phase = game.phase
            raw = game.scores()
            self.rewards = self._hand_rewards(raw, game)
            self.terminations = dict.fromkeys(self._names, True)
            self.infos = {a: {"phase": phase.value, "scores": list(raw)} for a in self._names}
            self._accumulate_rewards()
        else:
            phase_name = game.phase.value
            for a in self._names:
                self.infos[a]["phase"] = phase_name
        if self.render_mode == "human":
            self.render()

    def _hand_rewards(self, raw: list[int], game: Game) -> dict[str, float]:
        """Each agent's reward for a finished hand, by ``reward_mode``, over ``reward_scale``."""
        results = hand_results(raw, self.reward_mode, game.teams)
        scale = self.reward_scale
        return {a: results[i] / scale for i, a in enumerate(self._names)}

    def _step_match(self, agent: str, action: int) -> None:
        """Play a match step: hand rewards at each hand's end, termination at the match's."""
        match = self.match
        if match is None:  # a match episode makes one at every reset
            raise RuntimeError("call reset() before step()")
        game = match.game
        scores = match.step(action)  # validates; on error nothing has changed
        self._cumulative_rewards[agent] = 0.0
        self.game = match.game
        phase = self.game.phase.value
        if scores is None:
            self.rewards = dict.fromkeys(self._names, 0.0)
            for a in self._names:
                self.infos[a] = {"phase": phase, "cumulative": list(match.cumulative),
                                 "hand_number": match.hand_number}
        else:
            self.rewards = self._hand_rewards(scores, game)
            info = {"phase": phase, "scores": list(scores), "cumulative": list(match.cumulative),
                    "hand_number": match.hand_number}
            if match.is_over():
                info["result"] = match.result
                if match.truncated:
                    self.truncations = dict.fromkeys(self._names, True)
                else:
                    self.terminations = dict.fromkeys(self._names, True)
            self.infos = {a: dict(info) for a in self._names}
            self._accumulate_rewards()
        self.agent_selection = self._names[self.game.current_player]
        if self.render_mode == "human":
            self.render()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``, with a clear error before the first ``reset``."""
        if self.game is None:
            raise RuntimeError("call reset() before last(): there is no hand yet")
        return super().last(observe)

    def check_action(self, action: object) -> int | None:
        """Return ``action`` as an int, or raise a clear error for one that is not an action.

        Explicit checks rather than asserts, so they hold under ``python -O``: before any
        ``reset`` there is nothing to act on; a bool, a float, text or a number outside
        ``0..num_actions - 1`` is not an action (the engine names what is legal); an agent
        that is done steps with ``None``. Numpy integers are accepted as ints.
        """
        if self.game is None:
            raise RuntimeError("call reset() before step(): there is no hand yet")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise IllegalActionError(f"{agent} is done: step it with None, got {action!r}")
            return None
        if type(action) is int and 0 <= action < self.rules.num_actions:
            return action
        n = self.rules.num_actions
        if action is None or isinstance(action, (bool, np.bool_)):
            raise IllegalActionError(f"{action!r} is not an action; expected an int in "
                                     f"0..{n - 1} (see the action mask)")
        try:
            index = operator.index(cast(SupportsIndex, action))  # numpy integers are fine
        except TypeError:
            raise IllegalActionError(f"{action!r} (type {type(action).__name__}) is not an "
                                     f"action; expected an int in 0..{n - 1}") from None
        if not 0 <= index < n:
            raise IllegalActionError(f"action {index} is out of range; expected an int in "
                                     f"0..{n - 1}")
        return index

    def render(self) -> str | None:
        """Return the table as text (``"ansi"``) or print it (``"human"``)."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=")
            return None
        if self.game is None:
            raise RuntimeError("call reset() before render()")
        text = render_game(self.game, self.render_seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


def env(illegal_reward: float = -1.0,
        **kwargs: Any) -> AECEnv[str, dict[str, np.ndarray], int | None]:
    """Build the Gong Zhu env with PettingZoo's standard wrapper behaviour.

    An illegal action ends the game with ``illegal_reward`` for the offender instead of raising;
    calls out of order (before ``reset``) are refused; a malformed action raises
    ``IllegalActionError``. Keyword arguments go to ``raw_env``.
    """
    return TableWrapper(raw_env(**kwargs), illegal_reward=illegal_reward)


class TableWrapper(wrappers.OrderEnforcingWrapper[str, dict[str, np.ndarray], int | None]):
    """PettingZoo's three standard wrappers of a board-game env, as one layer.

    It does what the chain ``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(
    TerminateIllegalWrapper(env)))`` does: the order checks (it is an ``OrderEnforcingWrapper``,
    with the same errors), an illegal move (a legal-range action its mask forbids) ends the hand
    with ``illegal_reward`` for the offender, and a malformed action is refused (by
    ``raw_env.check_action``, an explicit check that holds under ``python -O``, where the bounds
    wrapper's assert would vanish). Why one layer: every attribute read through a wrapper goes
    through ``__getattr__`` once per layer, and the AEC loop reads several per step; the chain
    cost three quarters of the env's speed. The hot attributes are read straight from the env.
    """

    def __init__(self, env: raw_env, illegal_reward: float = -1.0) -> None:
        super().__init__(env)
        self._raw = env
        self._illegal_value = float(illegal_reward)
        self._prev_mask: np.ndarray | None = None
        self._terminated = False  # ended by an illegal move

    # The attributes the AEC loop reads at every step, without the per-layer lookups. The
    # factory runs while the class body runs and is removed after: it is part of this class.
    def _env_attribute(name: str, doc: str) -> property:  # type: ignore[misc]
        """Return a wrapper attribute read straight from the env.

        Before ``reset`` it is refused, as PettingZoo's order check refuses it.
        """

        def get(self: TableWrapper) -> Any:
            if not self._has_reset:
                raise AttributeError(f"{name} cannot be accessed before reset")
            return getattr(self._raw, name)

        return property(get, doc=doc)

    agent_selection = _env_attribute("agent_selection", "The agent to act.")
    agents = _env_attribute("agents", "The agents still in the game.")
    rewards = _env_attribute("rewards", "Each agent's reward of the last step.")
    terminations = _env_attribute("terminations", "Which agents are terminated.")
    truncations = _env_attribute("truncations", "Which agents are truncated.")
    infos = _env_attribute("infos", "Each agent's info dict.")
    del _env_attribute

    @property
    def _cumulative_rewards(self) -> dict[str, float]:  # type: ignore[override]
        return self._raw._cumulative_rewards

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset the env (its options are checked before anything changes)."""
        self._raw.reset(seed=seed, options=options)
        self._terminated = False
        self._prev_mask = None
        self._has_reset = True
        self._has_updated = True

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Return the agent's observation (the acting agent's mask is kept for the check)."""
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        obs = self._raw.observe(agent)
        if agent == self._raw.agent_selection:
            self._prev_mask = obs["action_mask"]
        return obs

    def step(self, action: Any) -> None:
        """Step the env; an illegal move ends the hand with the illegal reward instead."""
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self._raw
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        action = raw.check_action(action)
        agent = raw.agent_selection
        mask = self._prev_mask
        if mask is None:
            mask = raw.observe(agent)["action_mask"]
        self._prev_mask = None
        done = raw.terminations[agent] or raw.truncations[agent]
        if self._terminated and done:
            raw._was_dead_step(action)
        elif not done and not mask[action]:
            EnvLogger.warn_on_illegal_move()
            raw._cumulative_rewards[agent] = 0
            raw.terminations = dict.fromkeys(raw.agents, True)
            raw.truncations = dict.fromkeys(raw.agents, True)
            raw.rewards = dict.fromkeys(raw.truncations, 0)
            raw.rewards[agent] = self._illegal_value
            raw._accumulate_rewards()
            raw._deads_step_first()
            self._terminated = True
        else:
            raw.step(action)

    def __str__(self) -> str:
        return str(self._raw)
