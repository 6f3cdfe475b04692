"""Train OpenSpiel's PyTorch DQN on Gong Zhu, then rank it in the project's arena.

    pip install -e '.[train,openspiel]'
    python examples/openspiel_dqn.py --episodes 3000 --deals 200

``import gongzhu_env.openspiel`` registers the game ``python_gongzhu``; OpenSpiel's
``rl_environment`` plays it (chance nodes deal the cards) and hands each seat its information
state tensor, which is the project's observation vector (``PlayerView.encode()``). Four
independent ``open_spiel.python.pytorch.dqn.DQN`` learners play each other, one per seat, on
zero-sum returns divided by 100. The seat-0 learner's greedy policy is then wrapped as an
``agents.Agent`` (it reads the same vector from its ``PlayerView``) and played in the duplicate
arena against ``random`` and ``expert``: points per hand over each, with a 95 % interval.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from open_spiel.python import rl_environment
from open_spiel.python.pytorch import dqn

from agents import Agent
from gongzhu_env import openspiel
from gongzhu_env.view import PlayerView
from training.arena import against, markdown_table


class DqnPlayer(Agent):
    """A trained DQN learner as a seat at our tables: greedy on its Q-values, legal only."""

    name = "openspiel_dqn"

    def __init__(self, learner: dqn.DQN, seed: int | None = None) -> None:
        super().__init__(seed)
        self.learner = learner

    def __deepcopy__(self, memo: dict[int, object]) -> DqnPlayer:
        # The arena copies an agent per seat; greedy play never changes the learner, so the
        # copies share it (a learner that has trained holds tensors that do not deep-copy).
        return DqnPlayer(self.learner, seed=self.seed)

    def act(self, view: PlayerView) -> int:
        """Return the legal action of highest Q-value for the view's observation vector."""
        action, _ = self.learner.act_epsilon_greedy(view.encode(), view.legal_actions, 0.0)
        return int(action)


def train(episodes: int, seed: int) -> tuple[list[dqn.DQN], float]:
    """Self-play ``episodes`` hands of four DQN learners; return them and the mean loss."""
    # OpenSpiel's DQN explores with numpy's global generator and torch's: seed both.
    np.random.seed(seed)
    torch.manual_seed(seed)
    game = openspiel.load(returns="zero_sum", return_scale=100.0)
    env = rl_environment.Environment(
        game, chance_event_sampler=rl_environment.ChanceEventSampler(seed=seed))
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    learners = [dqn.DQN(player_id=p, state_representation_size=size, num_actions=actions,
                        hidden_layers_sizes=[256, 256], replay_buffer_capacity=50_000,
                        batch_size=64, learning_rate=1e-3, optimizer_str="adam",
                        min_buffer_size_to_learn=500, learn_every=8,
                        update_target_network_every=500,
                        epsilon_decay_duration=max(1, episodes * 15), seed=seed + p)
                for p in range(game.num_players())]
    for _ in range(episodes):
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            out = learners[player].step(step)
            step = env.step([out.action])
        for learner in learners:
            learner.step(step)  # each learner sees the hand's end and its return
    # A learner's loss is NaN until its replay buffer holds enough to learn from.
    losses = [float(learner.loss) for learner in learners if learner.loss is not None]
    return learners, float(np.mean(losses)) if losses else float("nan")


def main(argv: list[str] | None = None) -> int:
    """Train, then rank the seat-0 learner against random and expert."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--episodes", type=int, default=3000, help="self-play hands to train on")
    p.add_argument("--deals", type=int, default=200, help="duplicate deals per arena match")
    p.add_argument("--seed", type=int, default=0, help="seed of training and the arena")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    start = time.perf_counter()
    learners, loss = train(args.episodes, args.seed)
    learned = "no learning step yet" if np.isnan(loss) else f"last loss {loss:.4f}"
    print(f"trained {args.episodes} self-play hands in {time.perf_counter() - start:.0f} s "
          f"({learned})")
    player = DqnPlayer(learners[0], seed=args.seed)
    results = against(player, ["random", "expert"], args.deals, seed=args.seed, workers=1)
    print(markdown_table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
