"""Expert iteration: the search labels decisions, the network learns from them, a gate decides.

==========  =========================================================================
``labels``  label sets: hands played by the search, every legal card of a decision valued
            (``gongzhu_env`` + ``agents.search``), stored in resumable chunks
``rounds``  ``ExpertIteration``: rounds of labels, a fine-tune on them, and a gate
``recipe``  the shipped standard network's whole chain in one command
==========  =========================================================================

Each is a subcommand of ``python -m training`` (``labels``, ``expert-iteration``,
``recipe``); the fine-tunes are Deep Monte-Carlo runs (``training.dmc``) with
``search_labels`` set.
"""

from training.expert_iteration.rounds import ExpertIteration, Recipe

__all__ = ["ExpertIteration", "Recipe"]
