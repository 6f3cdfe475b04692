"""Evaluate a policy against ``search``, the strongest shipped player, on duplicate deals.

    python examples/evaluate_against_search.py --policy pretrained --deals 200 --workers 2
    python examples/evaluate_against_search.py --policy runs/my-run/policy.pt --worlds 16

``search`` samples the hidden hands consistent with a seat's view, weights each world by how
likely the network finds the plays the other seats made in it, and values each legal card by
the network's value and an expert play-out in every world (the documentation's "Network-guided
search" page). It thinks tens of milliseconds a decision, so a match against it is slow: the
duplicate arena seats one copy of the slow player (it is the candidate here) against three
copies of your policy, and splits the deals between worker processes with the same numbers as
one process. A match stopped part-way resumes with ``--out DIR`` and ``--resume``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agents import make_agent
from training.arena import duplicate_match, markdown_table


def main(argv: list[str] | None = None) -> int:
    """Play ``search`` (candidate) against the policy and print the policy's side of it."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--policy", default="pretrained",
                   help="a policy file, or 'pretrained' for the shipped network")
    p.add_argument("--deals", type=int, default=200, help="duplicate deals")
    p.add_argument("--worlds", type=int, default=32, help="worlds search samples a decision")
    p.add_argument("--seed", type=int, default=1, help="seed of the deals and the agents")
    p.add_argument("--workers", type=int, default=1, help="processes sharing the deals")
    p.add_argument("--out", default=None, help="keep a journal here (resumable)")
    p.add_argument("--resume", action="store_true", help="continue the match in --out")
    args = p.parse_args(argv)

    search = f"search:worlds={args.worlds}"
    policy = f"policy:{args.policy}"
    make_agent(policy)  # a missing or foreign policy file fails here, before any deal
    journal = Path(args.out) / "journal.jsonl" if args.out else None
    if journal is not None:
        journal.parent.mkdir(parents=True, exist_ok=True)
    result = duplicate_match(search, policy, args.deals, seed=args.seed, workers=args.workers,
                             journal=journal, resume=args.resume)
    print(markdown_table([result]))
    s = result.stats
    print(f"{policy} against {search}: {-s.mean:+.1f} points/hand "
          f"(95 % CI [{-s.ci_high:+.1f}, {-s.ci_low:+.1f}]) over {args.deals} deals")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
