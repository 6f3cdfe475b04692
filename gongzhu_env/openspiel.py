"""Gong Zhu as an OpenSpiel game: ``import gongzhu_env.openspiel`` registers ``python_gongzhu``.

OpenSpiel (``pip install gongzhu-rl[openspiel]``) runs its algorithms — IS-MCTS, its consistency
checks, DQN and NFSP through ``rl_environment`` — on any game registered with
``pyspiel.register_game``. This module is that registration: an adapter over ``Game`` that
writes no rule of its own. Legality, turn order, tricks and scores are the engine's; what a
seat sees is its ``PlayerView``; hidden hands are resampled by ``gongzhu_env.worlds``.

Parameters (``pyspiel.load_game("python_gongzhu", {...})`` or the game string
``python_gongzhu(preset=scrofazero,players=6)``):

=============  =========  ==================================================================
name           default    meaning
=============  =========  ==================================================================
preset         standard   a ``Rules`` preset (``gongzhu_env.rules.PRESETS``)
players        0          seats at the table, 3..8; 0 keeps the preset's (4 unless changed)
decks          0          1 or 2; 0 keeps the preset's
rules          ""         rule options over the preset: a JSON object (``{"team_play": true}``)
                          or ``option:value;option:value`` (the form game strings keep, as
                          their parser splits parameters at commas)
returns        raw        ``raw`` hand scores; ``zero_sum`` or ``team`` (the env's reward
                          modes); ``settled`` (``scoring.settle``: rounded, times the room's
                          multiplier)
return_scale   1.0        every return is divided by it (e.g. 100 for learners and UCT)
=============  =========  ==================================================================

The game tree: the deal is chance nodes, one card at a time around the table (the card dealt
at chance step ``i`` goes to seat ``i % players``, so each seat's first card is its first
drawn card); a card held twice with two decks is dealt twice. Then every declaration and play
is a move with the engine's action ids (``0..51`` cards, ``52`` DONE; with two decks
``52 + k`` the pair lead of card ``k`` and ``104`` DONE). Returns are zero until the hand is
over, then the hand's results (a terminal reward model).

What a seat is told:

* ``information_state_string``: the seat, its dealt cards (and first drawn card when the rules
  use it) and the public history of actions as its view records it (another seat's hidden
  exposure stays hidden): perfect recall of everything the seat has seen.
* ``observation_string``: the seat's view now: phase, hand, trick, exposures, captures and
  provisional scores.
* ``information_state_tensor`` and ``observation_tensor``: ``PlayerView.encode()``, the
  project's observation vector (``gongzhu_env.view.layout(rules)`` names its blocks; the
  observer's ``dict`` holds the same blocks by name). While cards are still being dealt the
  ``hand`` block (and ``hand_twice``) holds the seat's cards so far and every other value is 0.

``resample_from_infostate(player, sampler)`` deals the cards ``player`` has not seen with the
world sampler (``gongzhu_env.worlds.sample_hands``), seeded from ``sampler``, and replays the
history through the engine, so a resampled state is always legal and ``player``'s information
state in it is unchanged. The sampler does not model hidden exposures, so under
``hidden_exposure`` a state after the declaration cannot be resampled (``ValueError``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from functools import cache, lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "gongzhu_env.openspiel needs OpenSpiel: pip install 'gongzhu-rl[openspiel]' "
        "(open_spiel 2.0.2)") from error

from gongzhu_env.cards import (
    EXPOSABLE,
    HEARTS,
    NUM_CARDS,
    NUM_RANKS,
    SCORING_MASK,
    ActionCodec,
    card_str,
    cards_of,
    multiset_cards,
)
from gongzhu_env.engine import Game
from gongzhu_env.rules import PRESETS, Rules
from gongzhu_env.scoring import REWARD_MODES, hand_results, score_masks, score_two_decks, settle
from gongzhu_env.view import HIDDEN_ACTION, PlayerView, layout, obs_size
from gongzhu_env.worlds import sample_hands

__all__ = ["GAME_NAME", "RETURNS", "GongZhuGame", "GongZhuState", "GongZhuObserver",
           "load", "rules_of", "rules_parameter", "deal_actions", "state_from_view",
           "score_bound"]

GAME_NAME = "python_gongzhu"
RETURNS = (*REWARD_MODES, "settled")
"""The ``returns`` parameter's values: the env's reward modes, and the room's settlement."""

_DEFAULTS: dict[str, Any] = {"preset": "standard", "players": 0, "decks": 0, "rules": "",
                             "returns": "raw", "return_scale": 1.0}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Gong Zhu (Chase the Pig)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=8,
    min_num_players=3,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


# ---------------------------------------------------------------------------- parameters
def _parse_rules_text(text: str) -> dict[str, Any]:
    """Read the ``rules`` parameter: a JSON object, or ``option:value;option:value``."""
    text = text.strip()
    if not text:
        return {}
    if text.startswith("{"):
        try:
            options = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"the rules parameter is not valid JSON ({e}); expected an "
                             f"object of rule options such as {{\"team_play\": true}}; got "
                             f"{text!r}") from None
        if not isinstance(options, dict):
            raise ValueError(f"the rules parameter must be a JSON object of rule options; "
                             f"got {text!r}")
        return options
    options = {}
    for item in text.split(";"):
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            raise ValueError(f"the rules parameter must be a JSON object or "
                             f"'option:value;option:value'; {item!r} in {text!r} is neither")
        try:
            options[name.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[name.strip()] = value.strip()  # a bare word: a string option's value
    return options


def rules_parameter(options: Mapping[str, Any]) -> str:
    """Write rule options in the ``option:value;...`` form that survives a game string."""
    return ";".join(f"{k}:{json.dumps(v)}" for k, v in sorted(options.items()))


def _check_int(params: Mapping[str, Any], name: str, allowed: range) -> int:
    value = params[name]
    if isinstance(value, bool) or not isinstance(value, int) or \
            (value != 0 and value not in allowed):
        raise ValueError(f"parameter {name} must be 0 (the preset's) or "
                         f"{allowed.start}..{allowed.stop - 1}; got {value!r}")
    return value


def rules_of(params: Mapping[str, Any] | None = None) -> Rules:
    """Return the ``Rules`` that game parameters describe.

    The preset first, then the ``rules`` options over it, then ``players`` and ``decks``;
    unknown names and bad values raise ``ValueError`` naming what was expected.
    """
    params = {**_DEFAULTS, **(params or {})}
    unknown = sorted(set(params) - set(_DEFAULTS))
    if unknown:
        raise ValueError(f"unknown {GAME_NAME} parameter(s) {unknown}; expected some of "
                         f"{sorted(_DEFAULTS)}")
    preset = params["preset"]
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; known presets: {sorted(PRESETS)}")
    options = {**PRESETS[preset], **_parse_rules_text(str(params["rules"]))}
    players = _check_int(params, "players", range(3, 9))
    decks = _check_int(params, "decks", range(1, 3))
    if players:
        options["players"] = players
    if decks:
        options["decks"] = decks
    return Rules.from_dict(options)


def _returns_mode(params: Mapping[str, Any], rules: Rules) -> tuple[str, float]:
    mode, scale = params["returns"], params["return_scale"]
    if mode not in RETURNS:
        raise ValueError(f"parameter returns must be one of {RETURNS}; got {mode!r}")
    if mode == "team" and not rules.has_teams:
        raise ValueError("returns='team' needs team rules (team_play or pig_sheep_team)")
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) \
            or not math.isfinite(scale) or scale <= 0:
        raise ValueError(f"parameter return_scale must be a finite positive number; "
                         f"got {scale!r}")
    return mode, float(scale)


@cache
def score_bound(rules: Rules) -> int:
    """Return the largest magnitude of a raw hand score under ``rules`` (the utility bounds).

    Found by scoring the extreme captures with the scoring module itself (no card value is
    written here): no hearts, all, all but one, or one heart (every heart table is of one
    sign, so these reach the largest sums), with every subset of the pig, sheep and
    transformer, under every exposure and doubling of the exposable cards.
    """
    all_hearts = ((1 << NUM_RANKS) - 1) << (HEARTS * NUM_RANKS)
    hearts = [0, all_hearts]
    for c in range(HEARTS * NUM_RANKS, (HEARTS + 1) * NUM_RANKS):
        hearts += [all_hearts & ~(1 << c), 1 << c]
    others = [c for c in EXPOSABLE if not (c >= HEARTS * NUM_RANKS
                                           and c < (HEARTS + 1) * NUM_RANKS)]
    specials = [sum(1 << c for i, c in enumerate(others) if k >> i & 1)
                for k in range(1 << len(others))]
    expose = sum(1 << c for c in EXPOSABLE)
    best = 0
    if rules.decks == 1:
        for h in hearts:
            for s in specials:
                taken = (h | s) & SCORING_MASK
                for exposed in (0, expose):
                    for own in (0, expose):
                        for doubled in (0, expose):
                            best = max(best, abs(score_masks(taken, exposed, rules,
                                                             own_exposed=own, doubled=doubled)))
        return best
    for once in hearts:
        for twice in hearts:
            if twice & ~once:
                continue
            for s1 in specials:
                for s2 in specials:
                    if s2 & ~s1:
                        continue
                    for copies in ((0, 0), (expose, 0), (expose, expose)):
                        best = max(best, abs(score_two_decks((once | s1, twice | s2), copies)))
    return best


def _utility_range(rules: Rules, mode: str, scale: float) -> float:
    """Bound the magnitude of a return: raw scores, and what each settlement makes of them."""
    bound = float(score_bound(rules))
    if mode in ("zero_sum", "team"):
        bound *= 2  # own score minus a mean of others' (or a team's share of it)
    elif mode == "settled":
        n = rules.players
        spread = 2 * bound * (n - 1 if rules.settlement == "yuanbao" else 1) + 1
        bound = spread * rules.settlement_multiplier
    return bound / scale


# ---------------------------------------------------------------------------- the game
class GongZhuGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game of one Gong Zhu hand under the rules its parameters describe."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        given = dict(params or {})
        merged = {**_DEFAULTS, **given}
        self.rules = rules_of(merged)
        self.returns_mode, self.return_scale = _returns_mode(merged, self.rules)
        # The stored parameters are what game strings (and so serialized states) carry: the
        # rule options in their comma-free form.
        if merged["rules"]:
            merged["rules"] = rules_parameter(_parse_rules_text(str(merged["rules"])))
        bound = _utility_range(self.rules, self.returns_mode, self.return_scale)
        zero_sum = self.returns_mode in ("zero_sum", "team")
        game_type = _GAME_TYPE if not zero_sum else pyspiel.GameType(
            **{**_type_fields(), "utility": pyspiel.GameType.Utility.ZERO_SUM})
        rules = self.rules
        info = pyspiel.GameInfo(
            num_distinct_actions=rules.num_actions,
            max_chance_outcomes=NUM_CARDS,
            num_players=rules.players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0 if zero_sum else None,
            # Declaration: each seat's DONE and at most every exposable copy; play: one action
            # per card at most (a pair lead plays two).
            max_game_length=rules.players + len(EXPOSABLE) * rules.decks + rules.num_cards,
        )
        super().__init__(game_type, info, {k: v for k, v in merged.items()
                                           if k in given or k == "rules" and v})
        self.deck_counts = tuple(rules.decks if rules.deck_mask >> c & 1 else 0
                                 for c in range(NUM_CARDS))

    def new_initial_state(self) -> GongZhuState:
        """Return a hand before its first card is dealt."""
        return GongZhuState(self)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: Mapping[str, Any] | None = None) -> GongZhuObserver:
        """Return an observer: perfect recall for information states, else the view now."""
        if params:
            raise ValueError(f"{GAME_NAME} observers take no parameters; got {dict(params)}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return GongZhuObserver(self.rules, perfect_recall)


def _type_fields() -> dict[str, Any]:
    t = _GAME_TYPE
    return {name: getattr(t, name) for name in (
        "short_name", "long_name", "dynamics", "chance_mode", "information", "utility",
        "reward_model", "max_num_players", "min_num_players",
        "provides_information_state_string", "provides_information_state_tensor",
        "provides_observation_string", "provides_observation_tensor",
        "parameter_specification")}


class GongZhuState(pyspiel.State):  # type: ignore[misc]
    """A hand in progress: the cards dealt so far, then the engine's ``Game``."""

    def __init__(self, game: GongZhuGame) -> None:
        super().__init__(game)
        self._h = _Hand(game.rules, game.returns_mode, game.return_scale,
                        list(game.deck_counts), [], None)

    @property
    def rules(self) -> Rules:
        """The table's rules."""
        return self._h.rules

    @property
    def engine(self) -> Game | None:
        """The engine's game once every card is dealt (``None`` while dealing)."""
        return self._h.engine

    @property
    def undealt(self) -> int:
        """How many cards are still to be dealt (0 once the engine plays)."""
        return sum(self._h.left)

    @property
    def dealt(self) -> tuple[int, ...]:
        """The chance outcomes so far: the cards dealt, in order."""
        return tuple(self._h.dealt)

    # ------------------------------------------------------------ OpenSpiel's state API
    def current_player(self) -> int:
        """Return the seat to move, ``CHANCE`` while dealing, ``TERMINAL`` once it is over."""
        engine = self.engine
        if engine is None:
            return int(pyspiel.PlayerId.CHANCE)
        if engine.is_over():
            return int(pyspiel.PlayerId.TERMINAL)
        return engine.current_player

    def _legal_actions(self, player: int) -> list[int]:
        """Return the engine's legal actions (sorted) for the seat to move."""
        assert self.engine is not None and player == self.engine.current_player
        return self.engine.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Return the next card's outcomes: each undealt copy equally likely."""
        left = self._h.left
        total = sum(left)
        return [(c, k / total) for c, k in enumerate(left) if k]

    def _apply_action(self, action: int) -> None:
        """Deal a card, or pass a move to the engine (which checks it)."""
        h = self._h
        if h.engine is not None:
            h.engine.step(action)
            return
        if not 0 <= action < NUM_CARDS or not h.left[action]:
            raise ValueError(f"chance outcome {action} is not an undealt card; undealt: "
                             f"{[c for c, k in enumerate(h.left) if k]}")
        h.left[action] -= 1
        h.dealt.append(action)
        if not any(h.left):
            h.engine = Game.from_hands(self.hands_dealt(), h.rules)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {card_str(action)}"
        return ActionCodec.for_rules(self.rules).text(action)

    def is_terminal(self) -> bool:
        """Whether the hand is over."""
        return self.engine is not None and self.engine.is_over()

    def returns(self) -> list[float]:
        """Zeros until the hand is over, then each seat's result (``returns`` parameter)."""
        engine = self.engine
        if engine is None or not engine.is_over():
            return [0.0] * self.rules.players
        raw = engine.scores()
        mode = self._h.mode
        if mode == "settled":
            results = [float(v) for v in settle(raw, self.rules, engine.teams
                                                if self.rules.pig_sheep_team else None)]
        else:
            results = hand_results(raw, mode, engine.teams)
        return [r / self._h.scale for r in results]

    def resample_from_infostate(self, player_id: int,
                                probability_sampler: Callable[[], float]) -> GongZhuState:
        """Return a state ``player_id`` cannot tell from this one, hidden cards redealt.

        The sampler's draws seed the world sampler, so a seeded sampler gives the same worlds.
        """
        seed = int(probability_sampler() * 2**62)
        return self.resample(player_id, np.random.default_rng(seed))

    def resample(self, player: int, rng: np.random.Generator) -> GongZhuState:
        """``resample_from_infostate`` with a numpy generator (the IS-MCTS player's)."""
        n = self.rules.players
        if not 0 <= player < n:
            raise ValueError(f"player must be 0..{n - 1}; got {player}")
        game = self.get_game()
        state: GongZhuState = game.new_initial_state()
        if self.engine is None:
            for card in self._redeal(player, rng):
                state.apply_action(card)
            return state
        return state_from_view(game, self.engine.view(player), rng,
                               GongZhuObserver.info_string(self, player))

    def _redeal(self, player: int, rng: np.random.Generator) -> list[int]:
        """Return the cards dealt so far, every card not dealt to ``player`` drawn again."""
        n = self.rules.players
        pool = [c for c, k in enumerate(self.get_game().deck_counts) for _ in range(k)]
        for i, c in enumerate(self._h.dealt):
            if i % n == player:
                pool.remove(c)
        others = list(rng.permutation(pool))
        return [c if i % n == player else int(others.pop())
                for i, c in enumerate(self._h.dealt)]

    def hands_dealt(self) -> list[list[int]]:
        """Each seat's cards dealt so far, in the order dealt (first card first)."""
        n = self.rules.players
        return [self._h.dealt[s::n] for s in range(n)]

    def __str__(self) -> str:
        if self.engine is None:
            return (f"dealing: {len(self._h.dealt)} cards dealt\n" + "\n".join(
                f"seat {s}: {_text(h)}" for s, h in enumerate(self.hands_dealt())))
        text = _action_texts(ActionCodec.for_rules(self.rules))
        return "deal: " + " | ".join(_text(h) for h in self.hands_dealt()) + \
            "\nactions: " + " ".join([text[a] for a in self.engine.actions])



class _Hand:
    """A state's own data, in one object that copies itself cheaply.

    OpenSpiel clones a Python state by deep-copying its attributes; this one shares the
    (frozen) rules, copies the two short deal lists and lets the engine clone itself.
    """

    __slots__ = ("rules", "mode", "scale", "left", "dealt", "engine")

    def __init__(self, rules: Rules, mode: str, scale: float, left: list[int],
                 dealt: list[int], engine: Game | None) -> None:
        self.rules, self.mode, self.scale = rules, mode, scale
        self.left, self.dealt, self.engine = left, dealt, engine

    def __deepcopy__(self, memo: dict[int, Any]) -> _Hand:
        return _Hand(self.rules, self.mode, self.scale, self.left[:], self.dealt[:],
                     None if self.engine is None else self.engine.clone())


def state_from_view(game: GongZhuGame, view: PlayerView, rng: np.random.Generator,
                    target: str | None = None, attempts: int = 16) -> GongZhuState:
    """Return a state of ``game`` that ``view.seat`` cannot tell from the one it sees.

    The other seats' hidden cards come from the world sampler (``worlds.sample_hands``); each
    seat's dealt hand is what it holds plus what it played, dealt in a random order that
    keeps what is public about first dealt cards (the observer's own, and an exposed card
    doubled as its holder's first; another exposed card was not dealt first). The view's
    history then replays through the engine. ``target`` (an information-state string the
    result must have) makes a draw that misses it draw again, up to ``attempts`` draws.
    """
    rules, me, n = view.rules, view.seat, view.rules.players
    if any(a == HIDDEN_ACTION for a in view.actions):
        raise ValueError("no state can be built from this view: other seats' exposures are "
                         "hidden (hidden_exposure) and the world sampler needs them")
    for _ in range(attempts):
        hands = sample_hands(view, rng)
        order: list[list[int]] = []
        for s in range(n):
            cards = list(multiset_cards(*hands[s])) + list(
                multiset_cards(view.played_masks[s], view.played_pair_masks[s]))
            rng.shuffle(cards)
            first = view.first_drawn if s == me else next(
                (c for c in cards if view.doubled_mask >> c & 1), None)
            if first is None and rules.first_drawn_exposure:
                exposed = view.exposed_masks[s]
                first = next(c for c in cards if not exposed >> c & 1)
            if first is not None:
                cards.remove(first)
                cards.insert(0, first)
            order.append(cards)
        state: GongZhuState = game.new_initial_state()
        for card in deal_actions(order):
            state.apply_action(card)
        try:
            for a in view.actions:
                state.apply_action(a)
        except ValueError:
            continue
        engine = state.engine
        assert engine is not None
        if target is not None:
            if GongZhuObserver.info_string(state, me) == target:
                return state
        elif engine.current_player == view.current_player and \
                engine.view(me).legal_mask == view.legal_mask:
            return state
    raise RuntimeError(f"no sampled world reproduced seat {me}'s view in {attempts} draws: "
                       f"the view and the world sampler disagree")


def deal_actions(hands: list[list[int]]) -> list[int]:
    """Return the chance actions that deal ``hands`` (each in dealing order, first card first).

    Round by round around the table, the inverse of ``GongZhuState.hands_dealt``: the chance
    steps of ``Game.from_hands(hands, rules)``'s deal.
    """
    size = len(hands[0])
    if any(len(h) != size for h in hands):
        raise ValueError(f"every hand must have the same number of cards; got "
                         f"{[len(h) for h in hands]}")
    return [int(hands[s][i]) for i in range(size) for s in range(len(hands))]


# ---------------------------------------------------------------------------- observer
class GongZhuObserver:
    """OpenSpiel's Python observer: ``tensor`` and its named blocks ``dict``, and strings.

    The tensor is ``PlayerView.encode()`` (``gongzhu_env.view.layout`` names the blocks) for an
    information state and an observation alike; the strings differ (see the module docstring).
    """

    def __init__(self, rules: Rules, perfect_recall: bool) -> None:
        self.rules = rules
        self.perfect_recall = perfect_recall
        self.tensor: NDArray[np.float32] = np.zeros(obs_size(rules), np.float32)
        self.dict: dict[str, NDArray[np.float32]] = {}
        start = 0
        for name, shape, _ in layout(rules):
            size = math.prod(shape)
            self.dict[name] = self.tensor[start:start + size].reshape(shape)
            start += size

    def set_from(self, state: GongZhuState, player: int) -> None:
        """Write ``player``'s view of ``state`` into ``tensor``."""
        if state.engine is not None:
            state.engine.view(player).encode(out=self.tensor)
            return
        self.tensor.fill(0)
        for c in state.hands_dealt()[player]:
            if self.dict["hand"][c]:
                self.dict["hand_twice"][c] = 1
            self.dict["hand"][c] = 1

    def string_from(self, state: GongZhuState, player: int) -> str:
        """``player``'s information state (perfect recall) or observation, as text."""
        if self.perfect_recall:
            return self.info_string(state, player)
        if state.engine is None:
            return _dealing_string(state, player)
        return _view_string(state.engine.view(player))

    @staticmethod
    def info_string(state: GongZhuState, player: int) -> str:
        """Return the seat, its dealt cards and the public history as it saw it."""
        if state.engine is None:
            return _dealing_string(state, player)
        view = state.engine.view(player)
        dealt = sorted(state.hands_dealt()[player])
        first = "" if view.first_drawn is None else \
            f" first:{card_str(view.first_drawn)} doubled:{_text(cards_of(view.doubled_mask))}"
        text = _action_texts(ActionCodec.for_rules(state.rules))
        history = " ".join([text[a] for a in view.actions])
        return f"p{player} dealt:{_text(dealt)}{first} actions:{history}"


_CARD_TEXT = tuple(card_str(c) for c in range(NUM_CARDS))


def _text(cards: Iterable[int]) -> str:
    """Space-separated card text (``cards.cards_str``, looked up: strings are built often)."""
    return " ".join([_CARD_TEXT[c] for c in cards])


@lru_cache(maxsize=2)
def _action_texts(codec: ActionCodec) -> dict[int, str]:
    """Each action's text (``HIDDEN_ACTION`` as ``?``), looked up: histories are long."""
    return {HIDDEN_ACTION: "?", **{a: codec.text(a) for a in range(codec.num_actions)}}


def _dealing_string(state: GongZhuState, player: int) -> str:
    own = sorted(state.hands_dealt()[player])
    dealt = len(state.dealt)
    return f"p{player} dealing {dealt}/{dealt + state.undealt}: {_text(own)}"


def _view_string(view: PlayerView) -> str:
    """One seat's view now, as one line per fact."""
    n, decks = view.rules.players, view.rules.decks
    trick = " ".join(card_str(c) for c in view.current_trick)
    lines = [
        f"p{view.seat} phase:{view.phase.value} to_move:{view.current_player}",
        f"hand: {_text(view.hand)}",
        f"trick (led by {view.trick_leader}): {trick}",
        "exposed: " + " | ".join(_text(multiset_cards(view.exposed_masks[s],
                                                          view.exposed_pair_masks[s]))
                                 + f" ({view.exposed_counts[s]})" for s in range(n)),
        "captured: " + " | ".join(_text(multiset_cards(view.captured_masks[s],
                                                           view.captured_pair_masks[s]))
                                  for s in range(n)),
        f"tricks: {len(view.tricks)} scores: {' '.join(str(s) for s in view.scores)}",
    ]
    if decks == 2:
        lines.append(f"pair lead: {view.pair_lead}")
    return "\n".join(lines)


def load(**params: Any) -> GongZhuGame:
    """Return ``pyspiel.load_game("python_gongzhu", params)``, typed."""
    game: GongZhuGame = pyspiel.load_game(GAME_NAME, params)
    return game


pyspiel.register_game(_GAME_TYPE, GongZhuGame)
