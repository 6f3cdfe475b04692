"""Fit a network to label sets offline and watch its regret on held-out rows.

Screens what a fine-tune's loss can learn from the search's labels before a trainer run and an
arena match pay for it: the network starts from ``--init``, takes Adam steps on minibatches of
the training sets only, and every ``--every`` steps reports its choices' agreement and regret
(``regret.py``) on the held-out set's rows, which it never trains on.

python experiments/label-regret/distill.py --train A:B --test runs/own-pimc --loss rank
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch
from regret import UNIT, choices_regret, network_q, unpacked  # type: ignore[import-not-found]

from agents.policy import load_policy_file, save_policy
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from training.dmc.loss import q_loss
from training.expert_iteration.labels import hand_seeds
from training.label_sets import load_label_sets


def rank_loss(q: torch.Tensor, tgt: torch.Tensor, tau: float) -> torch.Tensor:
    """Cross-entropy from softmax(tgt / tau) to softmax(q / tau) over each row's valued cards."""
    mask = ~torch.isnan(tgt)
    neg = torch.finfo(q.dtype).min
    logp = torch.log_softmax(torch.where(mask, q / tau, neg), dim=1)
    p = torch.softmax(torch.where(mask, torch.nan_to_num(tgt) / tau, neg), dim=1)
    return -(p * torch.where(mask, logp, 0.0)).sum(1).mean()


def anchor_rows(net: torch.nn.Module, rules: Rules, deals: int,
                seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Return ``net``'s own Q at every choice it meets playing ``deals`` deals.

    It plays every seat, declarations and cards, each decision with several legal actions a row
    whose targets are its Q of those actions: training toward them keeps what the network knew
    wherever the labels say nothing (the declarations, above all). Deal ``d`` is dealt from
    ``hand_seeds(seed, d)``, as the label sets deal their hands.
    """
    obs: list[np.ndarray] = []
    tgt: list[np.ndarray] = []
    for deal in range(deals):
        game = Game(rules, seed=hand_seeds(seed, deal)[0])
        while not game.is_over():
            legal = game.legal_actions()
            if len(legal) > 1:
                o = np.rint(game.view(game.current_player).encode() * 255.0).astype(np.uint8)
                q = network_q(net, unpacked(o[None]))[0]
                row = np.full(rules.num_actions, np.nan, dtype=np.float32)
                row[legal] = q[legal]
                obs.append(o)
                tgt.append(row)
                game.step(legal[int(np.argmax(q[legal]))])
            else:
                game.step(legal[0])
    return np.array(obs), np.array(tgt)


def evaluate(net: torch.nn.Module, x: torch.Tensor, tgt: np.ndarray) -> tuple[float, float]:
    """Agreement and mean regret (points) of the network's choices on the rows."""
    agree, regret = choices_regret(network_q(net, x), tgt)
    return float(agree.mean()), float(regret.mean() * UNIT)


def main() -> None:
    """Train on ``--train`` and print held-out agreement and regret as it goes."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--train", required=True)
    p.add_argument("--test", required=True)
    p.add_argument("--init", default="pretrained")
    p.add_argument("--loss", choices=("mse", "rel", "rank"), default="rank")
    p.add_argument("--tau", type=float, default=0.02, help="rank loss temperature (units)")
    p.add_argument("--mix", type=float, default=0.0,
                   help="weight of the mse loss added to the rank loss")
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--steps", type=int, default=4000)
    p.add_argument("--every", type=int, default=500)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--split", type=float, default=0.0,
                   help="train also on this leading share of the test set's rows (its hands "
                        "come first); the rest stays held out")
    p.add_argument("--subset", type=float, default=1.0,
                   help="train on only this share of the training rows (a learning curve)")
    p.add_argument("--anchor", type=int, default=0,
                   help="deals of the --init network's own play whose Q it keeps (0: none)")
    p.add_argument("--anchor-share", type=float, default=0.5,
                   help="share of each batch from the anchor rows")
    p.add_argument("--save", type=Path, default=None)
    args = p.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    rules = Rules()
    obs, tgt = load_label_sets(args.train, rules)
    tobs, ttgt = load_label_sets(args.test, rules)
    if args.split:
        cut = int(len(ttgt) * args.split)
        obs, tgt = np.concatenate([obs, tobs[:cut]]), np.concatenate([tgt, ttgt[:cut]])
        tobs, ttgt = tobs[cut:], ttgt[cut:]
    if args.subset < 1.0:
        keep = np.random.default_rng(args.seed + 1).permutation(len(obs))
        keep = np.sort(keep[:int(len(obs) * args.subset)])
        obs, tgt = obs[keep], tgt[keep]
    x = unpacked(obs)
    y = torch.from_numpy(tgt.astype(np.float32))
    tx = unpacked(tobs)
    net, _ = load_policy_file(args.init)
    k = round(args.batch * args.anchor_share) if args.anchor else 0
    if k:
        aobs, atgt = anchor_rows(net, rules, args.anchor, args.seed)
        ax = unpacked(aobs)
        ay = torch.from_numpy(atgt)
        print(f"{len(ax)} anchor rows from {args.anchor} deals", flush=True)
    net.train()
    for prm in net.parameters():
        prm.requires_grad_(True)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    rng = np.random.default_rng(args.seed)
    a, r = evaluate(net, tx, ttgt)
    print(f"{len(x)} training rows, {len(tx)} held out; step 0: best card {a:.1%}, "
          f"regret {r:.2f}", flush=True)
    t0 = time.perf_counter()
    for step in range(1, args.steps + 1):
        i = torch.from_numpy(rng.integers(0, len(x), args.batch - k))
        q = net(x[i])
        if args.loss == "rank":
            loss = rank_loss(q, y[i], args.tau)
            if args.mix:
                loss = loss + args.mix * q_loss(q, y[i], 1.0)
        else:
            loss = q_loss(q, y[i], 1.0 if args.loss == "mse" else 0.0)
        if k:
            j = torch.from_numpy(rng.integers(0, len(ax), k))
            loss = loss + q_loss(net(ax[j]), ay[j], 1.0)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 10.0)
        opt.step()
        if step % args.every == 0:
            a, r = evaluate(net, tx, ttgt)
            ta, tr = evaluate(net, x[:20000], tgt[:20000])
            print(f"step {step} ({time.perf_counter() - t0:.0f} s): held out best card {a:.1%}, "
                  f"regret {r:.2f}; training rows {ta:.1%}, {tr:.2f}", flush=True)
    if args.save:
        net.eval()
        save_policy(args.save, net, rules, metadata={
            "recipe": "python experiments/label-regret/distill.py " + " ".join(sys.argv[1:]),
            "init": args.init})


if __name__ == "__main__":
    main()
