"""Test spies on the arena: which deals a run actually played."""

from __future__ import annotations

import pytest

import training.arena.duplicate as ev


def count_played(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record the index of every deal actually played (the in-process path calls _run_task)."""
    played: list[int] = []
    real = ev._run_task

    def spy(task):
        played.extend(task.deal_indices)
        return real(task)

    monkeypatch.setattr(ev, "_run_task", spy)
    return played
