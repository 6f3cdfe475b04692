"""Differential check of the batched engine (``gongzhu_env.vector``) against the scalar ``Game``.

Run: ``python -m benchmarks.check_vector --hands 100000 --seed 0``. The hands are spread evenly
over the targets, each run with its own reward mode and scale. By default the targets are the
presets, every valid four-seat combination of the exposure, lead, declaration and team options,
the standard game and team play (where the size allows it) at every other table size (3 to 8),
each further covered option alone at four seats, and ``--random`` rule sets drawn at random
from everything ``vector.COVERED`` allows (every table size and option at once). ``--players``
keeps only the targets of those table sizes; ``--rules`` (a preset name or a JSON object of
options, repeatable) checks exactly the rule sets given instead; ``--random N --only-random``
checks N random rule sets only.

Each target plays a ``GameBatch`` of ``--tables`` tables and, beside each table, a
``Game.from_hands`` of the same deal (with the same first dealt cards); both receive the same
seeded random legal actions. At every step the seat to move, its legal set, its observation
(exactly ``PlayerView.encode()``) and action mask are compared, and at every hand's end the
raw scores, the rewards, every seat's view of the finished hand (``final_observations``) and
the next deal (``gongzhu_env.vector.deal``). One line per target counts its hands; the last
line counts the hands that disagreed anywhere; the exit status is 1 if any did.

``differential`` is also what ``tests/gongzhu_env/test_vector.py`` runs on fewer hands.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time

import numpy as np

from benchmarks.differential import Report, compare_result, finish, play_side_by_side
from gongzhu_env import Game, Rules
from gongzhu_env.rules import rules_value
from gongzhu_env.vector import COVERED, GameBatch, check_covered, deal

PRESET_NAMES = ("standard", "huapai", "online", "scrofazero", "all_but_sheep")
TABLE_SIZES = (3, 4, 5, 6, 7, 8)
OPTION_RULES: tuple[dict[str, object], ...] = (
    {"hidden_exposure": True}, {"first_drawn_exposure": True}, {"self_capture_double": True},
    {"discard_colour": True}, {"hearts_table": "book"}, {"hearts_table": "positive"},
    {"pig_sheep_swap": True}, {"pig_sheep_team": True, "declaration": "none"},
    {"auto_expose": False}, {"declaration": "all"},
)
"""One rule set per covered option beyond the presets' (at four seats), each alone."""


def covered_combinations(players: int = 4) -> list[Rules]:
    """Every valid rule set of the presets' options at a table size, standard first.

    The options are those of the presets (exposure restrictions, first lead, declaration,
    team play); combinations that ``Rules`` refuses as contradictory are left out.
    """
    out = []
    for strict, may_lead, first, decl, team in itertools.product(
            (False, True), (False, True), ("club2", "any"), ("free", "none", "all_but_sheep"),
            (False, True)):
        try:
            out.append(Rules(strict_exposure=strict, exposed_may_lead=may_lead,
                             first_lead=first, declaration=decl, team_play=team,
                             players=players))
        except ValueError:
            continue
    return out


def random_covered_rules(rng: np.random.Generator, players: tuple[int, ...] = TABLE_SIZES
                         ) -> Rules:
    """Draw a rule set the batch covers: a table size of ``players``, every option at random.

    Each covered option takes a value of ``vector.COVERED`` uniformly; a draw that ``Rules``
    refuses as contradictory is drawn again.
    """
    while True:
        options: dict[str, object] = {
            name: values[int(rng.integers(len(values)))] for name, values in COVERED.items()}
        options["players"] = players[int(rng.integers(len(players)))]
        try:
            return check_covered(Rules.from_dict(options))
        except ValueError:
            continue


def _compare_end(batch: GameBatch, i: int, game: Game, seed: int) -> str | None:
    """Describe how the end of table ``i``'s hand differs from ``game``'s, or return ``None``."""
    if why := compare_result(batch, i, game):
        return why
    if batch.final_observations is not None:
        for s in range(batch.num_seats):
            obs = game.view(s).encode()
            got = batch.final_observations[i, s]
            if not np.array_equal(got, obs):
                return f"final observation of seat {s} differs at {np.flatnonzero(got != obs)}"
    j = batch.hands_started(i) - 1
    if batch.deal_of(i) != deal(seed, i, j, batch.rules):
        return f"the next deal is not deal({seed}, {i}, {j})"
    return None


def differential(rules: Rules, tables: int, hands: int, seed: int, *, reward_mode: str = "raw",
                 reward_scale: float = 1.0, batch: GameBatch | None = None,
                 reference_rules: Rules | None = None) -> Report:
    """Play at least ``hands`` hands on a batch and on reference games side by side; compare.

    ``seed`` seeds the deals (``reset``) and the choice of actions. A table that disagrees is
    counted once for its hand and is then played on alone (with actions legal in the batch)
    until its hand ends, when comparison resumes from the next deal. ``batch`` may be passed
    to check a batch set up (or tampered with) by the caller, and ``reference_rules`` to play
    the reference under other rules than the batch (both only to prove that the check can fail).
    """
    if batch is None:
        batch = GameBatch(tables, rules, reward_mode=reward_mode, reward_scale=reward_scale,
                          final_observations=True)
        batch.reset(seed)
    rng = np.random.default_rng([seed, 7])
    ref_rules = batch.rules if reference_rules is None else reference_rules

    def reference(i: int) -> Game:
        first = batch.first_drawn_of(i) if ref_rules.first_drawn_exposure else None
        return Game.from_hands(batch.deal_of(i), ref_rules, first_drawn=first)

    return play_side_by_side(batch, hands, seed, rng, reference, _compare_end)


def default_rule_sets(rng: np.random.Generator, players: tuple[int, ...] = TABLE_SIZES,
                      random_sets: int = 20) -> list[tuple[str, Rules]]:
    """The default targets (see the module docstring), named, for the table sizes given."""
    out: list[tuple[str, Rules]] = []
    if 4 in players:
        out += [(n, Rules.preset(n)) for n in PRESET_NAMES]
        out += [(f"combination#{k}", r) for k, r in enumerate(covered_combinations())]
        out += [(json.dumps(o), Rules.from_dict(o)) for o in OPTION_RULES]
    for n in players:
        if n != 4:
            out.append((f"players={n}", Rules(players=n)))
            if n % 2 == 0:
                out.append((f"players={n},team", Rules(players=n, team_play=True)))
    out += [(f"random#{k}", random_covered_rules(rng, players)) for k in range(random_sets)]
    return out


def targets(rng: np.random.Generator, rule_sets: list[tuple[str, Rules]] | None = None
            ) -> list[tuple[str, Rules, str, float]]:
    """Rule sets (the default ones unless given), each with a reward mode and scale drawn."""
    out = []
    for name, rules in default_rule_sets(rng) if rule_sets is None else rule_sets:
        modes = ["raw", "zero_sum", *(["team"] if rules.has_teams else [])]
        mode = modes[int(rng.integers(len(modes)))]
        scale = float(rng.choice([1.0, 100.0, 3.0]))
        out.append((name, rules, mode, scale))
    return out


def _describe_rules(rules: Rules) -> str:
    """Name the hand options that differ from the standard game (``players=4`` shown too)."""
    default = Rules()
    diff = {k: v for k, v in rules.to_dict().items() if v != getattr(default, k)}
    diff.setdefault("players", rules.players)
    return ", ".join(f"{k}={v!r}" for k, v in diff.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100_000,
                        help="hands in all, spread evenly over the targets")
    parser.add_argument("--tables", type=int, default=64, help="tables per batch")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--players", type=int, nargs="+", choices=TABLE_SIZES,
                        default=list(TABLE_SIZES), metavar="N",
                        help="table sizes of the default targets (3 to 8; default all)")
    parser.add_argument("--random", type=int, default=20, metavar="N",
                        help="rule sets drawn at random from the covered options (default 20)")
    parser.add_argument("--only-random", action="store_true",
                        help="check only the --random rule sets")
    parser.add_argument("--rules", action="append", type=rules_value, metavar="RULES",
                        help="check this rule set (a preset name or a JSON object of options) "
                             "instead of the default targets; repeatable")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    players = tuple(sorted(set(args.players)))
    if args.rules:
        sets = [(r if isinstance(r, str) else json.dumps(r), check_covered(Rules.coerce(r)))
                for r in args.rules]
    elif args.only_random:
        sets = [(f"random#{k}", random_covered_rules(rng, players)) for k in range(args.random)]
    else:
        sets = default_rule_sets(rng, players, args.random)
    todo = targets(rng, sets)
    per_target = max(1, -(-args.hands // len(todo)))
    total = Report()
    t0 = time.perf_counter()
    for k, (name, rules, mode, scale) in enumerate(todo):
        r = differential(rules, args.tables, per_target, args.seed + k, reward_mode=mode,
                         reward_scale=scale)
        total.add(r)
        print(f"{name:<16} {mode:<8} x1/{scale:g}: {r.hands} hands, {r.decisions} decisions, "
              f"{r.bad_hands} disagreeing  [{_describe_rules(rules)}]", file=sys.stderr)
    return finish(total, f"{total.hands} hands ({total.decisions} decisions) over {len(todo)} "
                  f"rule sets in {time.perf_counter() - t0:.0f} s: {total.bad_hands} "
                  f"disagreements")


if __name__ == "__main__":
    raise SystemExit(main())
