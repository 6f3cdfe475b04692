"""The evaluation arena: agents compared on the same fixed, seeded deals (duplicate play).

Every number this project reports about playing strength comes from here. The room holds:

==================  ===============================================================================
``deals``           fixed, seeded deal sets for any table size; ``.npz`` / ``.json`` files
``formats``         duplicate formats (1 vs N-1, 2 vs 2, teams) and the difference of a deal
``hands``           one hand at a table: per-hand agent seeding and errors that name the hand
``duplicate``       a duplicate match over a deal set, in parallel, with ``MatchResult``
``journal``         the record of finished deals that lets an interrupted match resume
``stats``           mean, bootstrap confidence interval and win/tie/loss rates of the differences
``ratings``         Bradley–Terry ratings on the Elo scale
``round_robin``     every pair of agents on the same deals, then one rating each
``reports``         terminal (rich), Markdown and JSON forms of results
``plots``           matplotlib figures of matches and ratings
``cli``             the command line (``python -m training eval``, ``gongzhu eval``)
==================  ===============================================================================

The arena depends on ``agents`` and ``gongzhu_env`` only (and its command line on
``training.cluster``, the local/Ray backend switch); the trainers use it to measure their
policies, never the other way round. The names most callers need are importable from the package
itself::

    from training.arena import duplicate_match, round_robin, match_table, plot_matches
"""

from training.arena.deals import DealFileError, DealSet, generate_deals, load_deals
from training.arena.duplicate import ArenaError, MatchResult, against, duplicate_match
from training.arena.hands import HandRecord, IllegalAgentActionError, agent_seed, play_hand
from training.arena.plots import plot_matches, plot_ratings
from training.arena.ratings import RatingTable, fit_bradley_terry
from training.arena.reports import markdown_table, match_table, rating_table
from training.arena.round_robin import RoundRobinResult, round_robin
from training.arena.stats import Stats, summarize

__all__ = [
    "ArenaError", "DealFileError", "DealSet", "HandRecord", "IllegalAgentActionError",
    "MatchResult", "RatingTable", "RoundRobinResult", "Stats", "agent_seed", "against",
    "duplicate_match",
    "fit_bradley_terry", "generate_deals", "load_deals", "markdown_table", "match_table",
    "play_hand", "plot_matches", "plot_ratings", "rating_table", "round_robin", "summarize",
]
