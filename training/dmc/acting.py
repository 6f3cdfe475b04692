"""What every Deep Monte-Carlo table simulator holds: the acting network, seats and counters.

``scalar_tables.TableSimulator`` (reference games) and ``batch_tables.BatchTableSimulator``
(the batched engine) differ in how they play the tables, not in who sits at them, how the
learner explores or what they count; those live here once, so the two cannot drift apart.
So do the rules every actor and the learner share: the exploration schedule (``epsilon_at``)
and an actor's seed (``actor_seed``), each written once. Who sits next to the learner is
drawn from the run's ``gongzhu_env.opponents.OpponentMix`` (``draw_seating``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents import make_agent
from agents.base import Agent
from agents.policy import QNetwork
from gongzhu_env.opponents import SELF, SNAPSHOT, OpponentMix
from gongzhu_env.rules import Rules
from training.config import DMCConfig


def epsilon_at(cfg: DMCConfig, decisions: int) -> float:
    """Exploration rate after ``decisions`` learner decisions of the run (linear decay).

    From ``epsilon_start`` to ``epsilon_end`` over ``epsilon_decay_decisions``, then flat. The
    actors and the learner's log read it from here with the run's decision count.
    """
    frac = min(1.0, decisions / max(1, cfg.epsilon_decay_decisions))
    return cfg.epsilon_start + frac * (cfg.epsilon_end - cfg.epsilon_start)


def actor_seed(cfg: DMCConfig, actor_id: int) -> int:
    """Return the seed of actor ``actor_id``, a local process's or a Ray actor's.

    Replacements get fresh ids, so a restarted actor does not replay its predecessor's hands.
    """
    return cfg.seed * 7919 + 1000 * (actor_id + 1)


class ActingSide:
    """The state shared by both simulators (see the module docstring).

    Labelled decisions go to ``sink(obs, targets)``: uint8 observation rows and float32 rows
    of per-action targets, NaN where an action has none.
    """

    def __init__(self, cfg: DMCConfig, net: QNetwork, seed: int,
                 sink: Callable[[np.ndarray, np.ndarray], None]) -> None:
        self.cfg = cfg
        self.rules = cfg.game_rules
        self.num_actions = self.rules.num_actions
        self.net = net
        self.sink = sink
        self.rng = np.random.default_rng(seed)
        self.snapshots: list[QNetwork] = []
        self.mix = OpponentMix(cfg.opponent_mix, what="opponent_mix")
        """Who sits next to the learner (``DMCConfig.opponent_mix``)."""
        self.decisions = 0
        """Learner decisions made here (non-forced moves of learner seats)."""
        self.samples = 0
        """Training samples produced here (a rollout-labelled decision gives one per card)."""
        self.global_decisions = 0
        """Decisions of the whole run, which sets epsilon (the learner tells actors)."""
        self.progress = 0.0
        """Fraction of the time budget spent so far (sets the rollout share; the learner
        tells actors)."""
        self.forced = 0
        self.games = 0
        self.ret_sum = 0.0
        self.ret_n = 0
        self.seconds_env = 0.0
        """Wall-clock seconds of ``step_tables`` outside the forward passes."""
        self.seconds_inference = 0.0
        """Wall-clock seconds of the forward passes that chose moves."""

    def draw_seating(self, rules: Rules, native: tuple[str, ...] = ()
                     ) -> dict[int, tuple[str, int | Agent]]:
        """Draw one table's seating: the learner's own seat, then who sits in each other one.

        Each other seat is drawn from ``self.mix`` (``OpponentMix.draw_seat``, with the
        snapshot pool's size). Returns a map from each seat not played by the learner to
        ``("snapshot", index)``, ``(spec, seed)`` for a spec in ``native`` (one the simulator
        plays itself, e.g. the batch's compiled ``"random"``) or ``("agent", agent)``, an agent
        built and reset for that seat. Seats the learner plays (``"self"``, and snapshots
        before the first) are left out.
        """
        me = int(self.rng.integers(rules.players))
        others: dict[int, tuple[str, int | Agent]] = {}
        for seat in range(rules.players):
            if seat == me:
                continue
            kind, entry, value = self.mix.draw_seat(self.rng, len(self.snapshots))
            spec = self.mix.entries[entry]
            if kind == SNAPSHOT or spec in native:
                others[seat] = (kind if kind == SNAPSHOT else spec, value)
            elif kind != SELF:
                agent = make_agent(spec, seed=value)
                agent.reset(seat, rules)
                others[seat] = ("agent", agent)
        return others

    @property
    def epsilon(self) -> float:
        """Current exploration rate (linear decay over the run's learner decisions)."""
        return epsilon_at(self.cfg, self.global_decisions)

    def timings(self) -> dict[str, float]:
        """Seconds spent in the engine and bookkeeping, and in forward passes, so far."""
        return {"env_s": self.seconds_env, "inference_s": self.seconds_inference}
