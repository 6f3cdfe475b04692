"""Measurements of single decisions, apart from whole-game strength.

The arena (``training.arena``) measures play strength over thousands of deals; these functions
measure what one decision costs (``latency``), what it is worth in the real deal
(``decisions``) and how well the search's inference places the hidden cards (``inference``), on
positions from seeded hands (``positions``). The commands under ``benchmarks/`` wrap them; the
tests call them directly.
"""
