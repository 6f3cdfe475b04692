"""Load the shipped policy and play one hand with it.

    python examples/play_pretrained.py --rules huapai --seed 3

``make_agent("policy:pretrained")`` picks the network shipped for the table's rules (standard,
huapai, scrofazero, two_decks; the model cards on the documentation site say how each was
trained and how strong it is). Here it holds seat 0 against three ``expert`` players; the other
way to use it is ``agents.policy.load_policy_file``, which returns the bare torch network and
the file's metadata (what it was trained on, for how long).
"""

from __future__ import annotations

import argparse

from agents import make_agent
from agents.policy import load_policy_file, pretrained_path
from gongzhu_env import Game, Rules
from gongzhu_env.render import render_game


def main(argv: list[str] | None = None) -> int:
    """Describe the shipped network for the rules, then play one seeded hand and print it."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="standard", help="a preset with a shipped policy")
    p.add_argument("--seed", type=int, default=0, help="seed of the deal and the agents")
    args = p.parse_args(argv)
    rules = Rules.preset(args.rules)

    path = pretrained_path(rules)
    net, data = load_policy_file(path, rules)
    meta = data.get("metadata", {})
    print(f"{path.name}: {data['trainer']} network {data['architecture']['hidden']} over "
          f"{data['obs_size']} inputs, {sum(p.numel() for p in net.parameters()):,} weights, "
          f"{meta.get('decisions', 0):,} training decisions")

    # Seat 0: the network; the others: expert. Every agent sees only its seat's view.
    seats = [make_agent("policy:pretrained", seed=args.seed, rules=rules)]
    seats += [make_agent("expert", seed=args.seed + s, rules=rules)
              for s in range(1, rules.players)]
    game = Game(rules, seed=args.seed)
    for s, agent in enumerate(seats):
        agent.reset(s, rules)
    while not game.is_over():
        s = game.current_player
        game.step(seats[s].act(game.view(s)))
    print(render_game(game))
    print("raw scores (seat 0 is the network):", game.scores())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
