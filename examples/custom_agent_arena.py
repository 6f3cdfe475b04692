"""Write your own agent and rank it against the shipped ones in the duplicate arena.

    python examples/custom_agent_arena.py --deals 500 --workers 2

An agent is a subclass of ``agents.Agent`` with one method, ``act(view) -> action``. It sees a
``PlayerView`` (everything its seat may know, nothing more) and returns one of
``view.legal_actions``. The arena plays it in every seat of the same seeded deals against three
copies of each opponent, so the numbers measure play, not the cards dealt: a positive mean is
points per hand gained over that opponent, with its bootstrap 95 % confidence interval.
"""

from __future__ import annotations

import argparse

from agents import Agent
from gongzhu_env.cards import card_str, parse_card, rank_of
from gongzhu_env.view import PlayerView
from training.arena import against, markdown_table, round_robin

# --8<-- [start:agent]
PIG = parse_card("SQ")


class PigDumper(Agent):
    """Exposes nothing, plays its lowest card, and drops the pig on the first trick it can."""

    name = "pig_dumper"

    def act(self, view: PlayerView) -> int:
        """Choose among ``view.legal_actions`` (sorted card indices, and DONE while declaring)."""
        legal = view.legal_actions
        if view.phase == "declare":
            return view.rules.done_action  # expose nothing: end the declaration turn
        if PIG in legal and view.current_trick:
            # Following a lead: drop the pig now. (Under a spade lead it may win the trick: a
            # better agent would look at ``view.current_trick`` first.)
            return PIG
        # The lowest rank, ties broken at random from the seeded generator the arena re-seeds.
        low = min(rank_of(c) for c in legal)
        ties = [c for c in legal if rank_of(c) == low]
        return int(self.rng.choice(ties))
# --8<-- [end:agent]


def main(argv: list[str] | None = None) -> int:
    """Rank ``PigDumper`` against random, greedy and expert, then play a small round robin."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=500, help="duplicate deals per match")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents")
    p.add_argument("--workers", type=int, default=1, help="processes sharing the deals")
    args = p.parse_args(argv)

    mine = PigDumper(seed=args.seed)
    print(f"{mine.name} (drops {card_str(PIG)} when it can), {args.deals} deals, seed {args.seed}")
    results = against(mine, ["random", "greedy", "expert"], args.deals, seed=args.seed,
                      workers=args.workers)
    print(markdown_table(results))

    # Every pair on the same deals, one Bradley-Terry rating each (Elo scale, random = 0).
    table = round_robin([mine, "random", "greedy"], args.deals, seed=args.seed,
                        workers=args.workers, anchor="random")
    for name, rating in table.ratings.ranking():
        print(f"{name:>12} {rating:+7.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
