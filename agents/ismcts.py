"""OpenSpiel's Information-Set MCTS as a player: ``"ismcts:sims=N"``.

A search nobody here wrote, for the ladder: OpenSpiel's Python IS-MCTS
(``open_spiel.python.algorithms.ismcts.ISMCTSBot``, Cowling, Powley and Whitehouse's
single-observer IS-MCTS) runs on the game ``python_gongzhu`` (``gongzhu_env.openspiel``), with
OpenSpiel's random-rollout evaluator at the leaves. Its tree is keyed by information states, and
each simulation starts from a world the project's sampler deals (``GongZhuState.resample``,
through ``ISMCTSBot.set_resampler``), so the hidden cards it imagines follow every public fact
(voids, exposures, hand sizes) exactly as ``pimc``'s and ``search``'s worlds do.

The agent sees only its ``PlayerView``: it builds a state of the OpenSpiel game that the seat
cannot tell from the real one (``gongzhu_env.openspiel.state_from_view``) and searches from it.
The search plays every decision, the declaration included.

Options (``"ismcts:sims=64,uct=2,rollouts=1,worlds=0,returns=zero_sum"``):

* ``sims``: simulations a decision (default 64), 1 to ``MAX_SIMS``;
* ``uct``: the UCT exploration constant, on returns divided by 100 (default 2);
* ``rollouts``: random rollouts averaged at each new leaf (default 1);
* ``worlds``: distinct sampled worlds a decision cycles through, 0 for a new one every
  simulation (the default);
* ``returns``: what a seat maximises, ``zero_sum`` (its score minus the others' mean, the
  default) or ``raw`` (its own score).

Needs the ``[openspiel]`` extra. Not for ``hidden_exposure`` tables: the sampler needs the
exposures the view hides (``AgentError`` at the first decision there).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from agents.base import Agent, AgentError
from gongzhu_env.rules import Rules
from gongzhu_env.view import PlayerView

MAX_SIMS = 100_000
RETURNS = ("zero_sum", "raw")
SCALE = 100.0
"""Returns are divided by this before UCT sees them, so ``uct`` is on a scale of hands."""


def _modules() -> tuple[Any, Any, Any]:
    """Import the adapter and OpenSpiel's search, or say which extra is missing.

    Imported when asked for, not kept on the agent: the arena deep-copies agents per seat,
    and modules do not copy.
    """
    try:
        from open_spiel.python.algorithms import ismcts, mcts

        from gongzhu_env import openspiel
    except ImportError as e:
        raise AgentError(f"agent spec 'ismcts' needs OpenSpiel (the [openspiel] extra: "
                         f"pip install open_spiel==2.0.2), which could not be imported: "
                         f"{e}") from None
    return openspiel, ismcts, mcts


@lru_cache(maxsize=16)
def _game(rules: Rules, returns: str) -> Any:
    """Return the OpenSpiel game of a table (its rules as options over the standard ones)."""
    openspiel = _modules()[0]
    standard = Rules().to_dict()
    options = {k: v for k, v in rules.to_dict().items() if v != standard[k]}
    return openspiel.load(rules=openspiel.rules_parameter(options), returns=returns,
                          return_scale=SCALE)


def _check_rules(rules: Rules) -> None:
    if rules.hidden_exposure:
        raise AgentError("ismcts does not play hidden_exposure tables: the world sampler "
                         "needs the exposures the view hides")


class IsmctsAgent(Agent):
    """OpenSpiel's IS-MCTS on the adapter game; see the module docstring."""

    name = "ismcts"
    decks = None

    def __init__(self, seed: int | None = None, sims: int = 64, uct: float = 2.0,
                 rollouts: int = 1, worlds: int = 0, returns: str = "zero_sum") -> None:
        super().__init__(seed)
        if type(sims) is not int or not 1 <= sims <= MAX_SIMS:
            raise ValueError(f"ismcts option sims must be an integer 1..{MAX_SIMS}; "
                             f"got {sims!r}")
        if isinstance(uct, bool) or not isinstance(uct, (int, float)) or not uct >= 0:
            raise ValueError(f"ismcts option uct must be a number >= 0; got {uct!r}")
        if type(rollouts) is not int or not 1 <= rollouts <= 1000:
            raise ValueError(f"ismcts option rollouts must be an integer 1..1000; "
                             f"got {rollouts!r}")
        if type(worlds) is not int or not 0 <= worlds <= MAX_SIMS:
            raise ValueError(f"ismcts option worlds must be an integer 0..{MAX_SIMS} (0: a new "
                             f"world every simulation); got {worlds!r}")
        if returns not in RETURNS:
            raise ValueError(f"ismcts option returns must be one of {RETURNS}; got {returns!r}")
        _modules()  # fail at construction, not at the first decision, without OpenSpiel
        self.sims, self.uct, self.rollouts, self.worlds = sims, float(uct), rollouts, worlds
        self.returns = returns
        self.name = f"ismcts:sims={sims}"
        defaults = {"uct": 2.0, "rollouts": 1, "worlds": 0, "returns": "zero_sum"}
        for key, default in defaults.items():
            if getattr(self, key) != default:
                self.name += f",{key}={getattr(self, key)}"

    def reset(self, seat: int, rules: Rules) -> None:
        """Refuse a ``hidden_exposure`` table at the start of its hand, not mid-way."""
        _check_rules(rules)

    def act(self, view: PlayerView) -> int:
        """Search from a state consistent with ``view``; return the most visited action."""
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        _check_rules(view.rules)
        openspiel, ismcts, mcts = _modules()
        game = _game(view.rules, self.returns)
        rng = self.rng
        state = openspiel.state_from_view(game, view, rng)
        random_state = np.random.RandomState(int(rng.integers(2**31)))
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, random_state)
        bot = ismcts.ISMCTSBot(
            game, evaluator, self.uct, self.sims,
            max_world_samples=self.worlds or ismcts.UNLIMITED_NUM_WORLD_SAMPLES,
            random_state=random_state,
            final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)
        bot.set_resampler(lambda s, player: s.resample(player, rng))
        action = int(bot.step(state))
        if action not in legal:
            raise AgentError(f"ismcts chose {action}, which is not legal here ({legal})")
        return action
