"""How far a network's card choices fall short of a label set's values: agreement and regret.

At every labelled decision the network picks the legal card of highest Q; the set says what
each card is worth (the search's value, in the network's unit, 400 points). The regret of a
decision is the best card's label minus the label of the card the network picked; its mean,
times the labelled decisions of a hand, estimates the points a hand the network leaves to the
labeller's choices at those positions. It costs seconds, where a match against ``pimc`` costs
an hour, so it screens fine-tunes before the arena measures them.

python experiments/label-regret/regret.py runs/own-pimc --policy pretrained runs/ft-own/policy.pt
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from agents.policy import load_policy_agent, load_policy_file
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from gongzhu_env.state import Phase
from training.config import DMCConfig
from training.label_sets import load_label_sets

UNIT = DMCConfig.reward_scale
"""Points in one unit of the labels and the network (the trainers' ``reward_scale``)."""


def unpacked(obs: np.ndarray) -> torch.Tensor:
    """Return the network's input from stored observations (``uint8``, x255, as sets keep them)."""
    return torch.from_numpy(obs.astype(np.float32) / 255.0)


def network_q(net: torch.nn.Module, x: torch.Tensor) -> np.ndarray:
    """Return the network's Q of every action at each row of ``x``, in batches, no gradients."""
    with torch.no_grad():
        return torch.cat([net(b) for b in torch.split(x, 4096)]).numpy()


def choices_regret(q: np.ndarray, tgt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: whether the network's card is a best-labelled one, and its regret in units."""
    valued = ~np.isnan(tgt)
    pick = np.argmax(np.where(valued, q, -np.inf), axis=1)
    best = np.nanmax(tgt, axis=1)
    got = tgt[np.arange(len(tgt)), pick]
    return got >= best - 1e-6, best - got


def declarations_agree(base: str, other: str, deals: int) -> tuple[int, float]:
    """Share of ``base``'s declaration choices (deals 0..deals-1) that ``other`` makes too.

    The labels hold no declaration, so a fine-tune on them alone leaves the declaration outputs
    to drift; this says how far. ``base`` declares for the whole table.
    """
    rules = Rules()
    a, b = load_policy_agent(base, seed=0), load_policy_agent(other, seed=0)
    n = same = 0
    for deal in range(deals):
        game = Game(rules, seed=deal)
        while not game.is_over() and game.phase == Phase.DECLARE:
            legal, seat = game.legal_actions(), game.current_player
            choice = legal[0]
            if len(legal) > 1:
                a.reset(seat, rules)
                b.reset(seat, rules)
                view = game.view(seat)
                choice = a.act(view)
                n += 1
                same += choice == b.act(view)
            game.step(choice)
    return n, same / max(n, 1)


def main() -> None:
    """Print, per network, agreement and regret on the set's rows (optionally a slice)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("labels", help="label directory (or several joined with ':')")
    p.add_argument("--policy", nargs="+", default=["pretrained"], help="policy files")
    p.add_argument("--rows", type=int, default=0, help="only the first ROWS rows (0: all)")
    p.add_argument("--declare-deals", type=int, default=0,
                   help="also compare each policy's declarations with the first's on this "
                        "many deals")
    args = p.parse_args()
    obs, tgt = load_label_sets(args.labels, Rules())
    if args.rows:
        obs, tgt = obs[:args.rows], tgt[:args.rows]
    x = unpacked(obs)
    spread = np.nanmax(tgt, axis=1) - np.nanmin(tgt, axis=1)
    print(f"{args.labels}: {len(tgt)} rows; best minus worst card {spread.mean() * UNIT:.1f} "
          f"points on average; a random legal card's regret "
          f"{np.nanmean(np.nanmax(tgt, 1)[:, None] - tgt) * UNIT:.2f} points")
    for spec in args.policy:
        net, _ = load_policy_file(spec)
        agree, regret = choices_regret(network_q(net, x), tgt)
        se = regret.std() / np.sqrt(len(regret)) * UNIT
        print(f"  {spec}: best card {agree.mean():.1%}, regret {regret.mean() * UNIT:.2f} "
              f"± {1.96 * se:.2f} points a decision")
        if args.declare_deals and spec != args.policy[0]:
            n, share = declarations_agree(args.policy[0], spec, args.declare_deals)
            print(f"    declares as {args.policy[0]} does at {share:.1%} of {n} declaration "
                  f"choices ({args.declare_deals} deals)")


if __name__ == "__main__":
    main()
