"""The batched engine's older address: ``gongzhu_env.vector.GameBatch`` and its companions.

The engine lives in ``gongzhu_env.batch``; this module re-exports its public names so that
code written against ``gongzhu_env.vector`` keeps working. Importing it loads numba.
"""

from __future__ import annotations

from gongzhu_env.batch import COVERED, MAX_TABLES, BatchStep, GameBatch, check_covered, deal

__all__ = ["GameBatch", "BatchStep", "COVERED", "MAX_TABLES", "check_covered", "deal"]
