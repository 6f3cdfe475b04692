"""The rule agents of this tree against those of an earlier commit: decisions and arena.

Issue 60 folded the two-deck rule agents (``expert_two_decks``, ``greedy_two_decks``, their
knowledge and ``TwoDeckPimcAgent``) into one module each. This script measures what that did
to play, against the agents of the commit before the fold (``6f581ea``):

* ``parity``: seeded deals played by the new agent at every seat; at every decision with a
  choice the old agent of that deck count is asked too, on the same view, and the decisions
  that differ are counted (then again with the old agent playing);
* ``arena``: ``training.arena.duplicate_match`` of the new agent against the old one, 1v3 (or
  ``--mode 2v2`` at the two-deck preset), the paired difference per deal with its 95 % CI.

The old ``agents`` package is taken from git (``git archive``) into a temporary folder as
``oldagents`` (its imports renamed), beside the current one, on the current engine.

    python experiments/agent-fold/compare_old.py parity --deals 1000
    python experiments/agent-fold/compare_old.py arena --deals 1000 --mode 1v3
"""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agents import Agent  # noqa: E402
from agents.expert import ExpertAgent  # noqa: E402
from agents.greedy import GreedyAgent  # noqa: E402
from gongzhu_env.engine import Game  # noqa: E402
from gongzhu_env.rules import Rules  # noqa: E402
from training.arena.duplicate import duplicate_match  # noqa: E402

NEW = {"expert": ExpertAgent, "greedy": GreedyAgent}
TABLES = {"standard": Rules(), "two_decks": Rules.preset("two_decks"),
          "two_decks_solo": Rules(decks=2), "five": Rules(players=5)}


def load_old(commit: str) -> dict[tuple[str, int], type]:
    """Unpack ``agents/`` of ``commit`` as the package ``oldagents``; its classes by deck count."""
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "agents"], check=True,
                         capture_output=True).stdout
    where = Path(tempfile.mkdtemp(prefix="oldagents-"))
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        t.extractall(where, filter="data")
    (where / "agents").rename(where / "oldagents")
    for path in (where / "oldagents").glob("*.py"):
        text = re.sub(r"\b(from|import) agents\b", r"\1 oldagents", path.read_text())
        path.write_text(re.sub(r'"agents\.', '"oldagents.', text))
    sys.path.insert(0, str(where))
    from oldagents.expert import ExpertAgent as OldExpert
    from oldagents.expert_two_decks import TwoDeckExpertAgent as OldExpert2
    from oldagents.greedy import GreedyAgent as OldGreedy
    from oldagents.greedy_two_decks import TwoDeckGreedyAgent as OldGreedy2

    return {("expert", 1): OldExpert, ("expert", 2): OldExpert2,
            ("greedy", 1): OldGreedy, ("greedy", 2): OldGreedy2}


class Old(Agent):
    """An old agent behind the current ``Agent`` class (the arena checks the class)."""

    def __init__(self, inner: object, name: str, seed: int | None = None) -> None:
        super().__init__(seed)
        self.inner = inner
        self.name = name

    def reseed(self, seed: int | None) -> None:
        """Re-seed this wrapper and the old agent inside it."""
        super().reseed(seed)
        if hasattr(self, "inner"):
            self.inner.reseed(seed)

    def reset(self, seat: int, rules: Rules) -> None:
        """Start a hand: the old agent's own hook."""
        self.inner.reset(seat, rules)

    def act(self, view: object) -> int:
        """Return the old agent's action."""
        return self.inner.act(view)


def parity(new: object, old: object, rules: Rules, deals: int, seed: int,
           old_plays: bool) -> tuple[int, int]:
    """Decisions with a choice, and how many of them the two agents answer differently."""
    decisions = differ = 0
    for d in range(deals):
        game = Game(rules, rng=np.random.default_rng([seed, d]))
        while not game.is_over():
            view = game.view(game.current_player)
            a, b = new.act(view), old.act(view)
            if len(view.legal_actions) > 1:
                decisions += 1
                differ += a != b
            game.step(b if old_plays else a)
    return decisions, differ


def main() -> None:
    """Run the parity count or the arena for every agent and table (see the docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=("parity", "arena"))
    ap.add_argument("--commit", default="6f581ea", help="the commit of the old agents")
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1, help="deal seed (the tuning seed: 1)")
    ap.add_argument("--mode", default="1v3", choices=("1v3", "2v2"))
    args = ap.parse_args()
    old = load_old(args.commit)
    for name in ("expert", "greedy"):
        for label, rules in TABLES.items():
            cls = old[(name, rules.decks)]
            start = time.time()
            if args.what == "parity":
                for old_plays in (False, True):
                    n, k = parity(NEW[name](), cls(), rules, args.deals, args.seed, old_plays)
                    print(f"{name} {label}, played by the {'old' if old_plays else 'new'} "
                          f"agent: {k} of {n} decisions differ ({time.time() - start:.0f} s)",
                          flush=True)
                continue
            if label not in ("standard", "two_decks") or (args.mode == "2v2"
                                                         and not rules.team_play):
                continue
            r = duplicate_match(NEW[name](), Old(cls(), f"old-{name}"), args.deals, rules=rules,
                                seed=args.seed, workers=1, mode=args.mode)
            print(f"new {name} vs old {name}, {label}, {args.mode}: {r.stats.mean:+.3f} "
                  f"[{r.stats.ci_low:+.3f}, {r.stats.ci_high:+.3f}], "
                  f"{int((r.diffs != 0).sum())} of {len(r.diffs)} deals differ "
                  f"({time.time() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
