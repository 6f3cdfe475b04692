"""Deep Monte-Carlo self-play: one Q network shared by every seat, Monte-Carlo targets.

Why this algorithm: a Gong Zhu hand is short (about 30 real decisions per seat), the only
reward is the hand result, and the value of a card depends on what the other three seats do
later. Monte-Carlo targets (the seat's own final result, no bootstrapping) are unbiased for such
short episodes, and a Q network over the 53 actions needs no critic, no advantage estimation and
no on-policy bookkeeping, so samples from many seats and many tables can be pooled freely. It is
the approach DouZero showed to work for card games with large discrete action sets.

How it runs (``num_actors`` actor processes play, the learner process learns):

* ``num_tables`` games are stepped in lockstep. At each step every table's seat to move is
  either the learner (epsilon-greedy on Q), a frozen snapshot of it (greedy on its Q) or a rule
  agent. All learner seats of all tables are scored by *one* batched forward pass; each snapshot
  in use gets one more. Forced moves (a single legal action) are played without the network
  and produce no sample.
* Each game, one seat is the learner; each other seat is drawn from ``opponent_mix``
  (``"self"`` makes it a learner seat too). Every learner seat learns from its *own* trajectory:
  each of its (observation, action) pairs is labelled with that seat's final result (zero-sum
  by default, scaled and clipped). Seats never share rewards, which is the mix-up the common
  "one agent acts for every seat" recipe makes.
* Samples go into a ring buffer of the most recent ``replay_size``; one Adam step on a uniform
  minibatch is taken every ``batch_size / sample_reuse`` new samples, so each sample is used
  about ``sample_reuse`` times. Observations are stored as ``uint8`` (x255) to keep the
  buffer small; every observation value is a 0/1 bit except four scores in [0, 1].
* Every ``snapshot_interval_s`` a frozen copy of the network joins the opponent pool.
* Optionally (``rollout_share``), a share of the learner's decisions is labelled by rollouts
  instead: each distinct legal card is played on a copy of the real table and the hand finished
  by a rule policy at every seat, and every card gets its own outcome as its target. The
  hidden cards of the copy are the real ones, so over many samples the network learns the
  expectation given what the seat saw, which is exactly Q(s, a) of "play a, then continue like
  the rule policy" under the true distribution of deals. Its greedy policy is a one-step
  improvement on the rule policy (approximate policy iteration); the self-play returns then
  take over as the share decays.

The room, by what each module decides:

==================  ======================================================================
``learner``         ``DMCTrainer``: network, optimiser, replay, snapshots, the update rate
``loss``            ``q_loss``: what a gradient step minimises
``replay``          ``ReplayBuffer``: the most recent decisions, sampled uniformly
``targets``         lambda-returns, per-action target rows, clipping to ``reward_clip``
``acting``          what both simulators share: seats from the opponent mix, exploration
                    (``epsilon_at``), an actor's seed (``actor_seed``), counters
``simulator``       the ``Simulator`` protocol and ``make_simulator`` (``engine``)
``scalar_tables``   ``TableSimulator``: reference games, every rule set, rollout labels
``batch_tables``    ``BatchTableSimulator``: the compiled batched engine
``networks``        fresh and frozen Q networks of a config
``actors``          the one actor loop (``Actor``), local actor processes, ``ActorPool``
``ray_actors``      the same actors on a Ray cluster
``precision``       bfloat16 or float32 products in the learner's steps
``train``           ``train_dmc``: the run's schedule (logs, snapshots, checkpoints, evals)
==================  ======================================================================

Code outside this package imports only the names below (the architecture test holds it):
the modules above are this room's own business.
"""

from training.dmc.acting import ActingSide, actor_seed, epsilon_at
from training.dmc.actors import Actor, ActorPool, Chunk, LocalActors
from training.dmc.batch_tables import BatchTableSimulator
from training.dmc.learner import DMCTrainer
from training.dmc.loss import q_loss
from training.dmc.networks import fresh_network, frozen_network, mixed_input, network_input
from training.dmc.precision import native_bfloat16, q_values, resolve_precision
from training.dmc.ray_actors import MAX_FRUITLESS, RayActors
from training.dmc.replay import ReplayBuffer
from training.dmc.scalar_tables import TableSimulator
from training.dmc.simulator import Simulator, make_simulator
from training.dmc.targets import action_targets, clip_target, clip_targets, lambda_returns
from training.dmc.train import train_dmc

__all__ = ["MAX_FRUITLESS", "ActingSide", "Actor", "ActorPool", "BatchTableSimulator", "Chunk",
           "DMCTrainer", "LocalActors", "RayActors", "ReplayBuffer", "Simulator",
           "TableSimulator", "action_targets", "actor_seed", "clip_target", "clip_targets",
           "epsilon_at",
           "fresh_network", "frozen_network", "lambda_returns", "make_simulator",
           "mixed_input", "native_bfloat16", "network_input", "q_loss", "q_values",
           "resolve_precision",
           "train_dmc"]
