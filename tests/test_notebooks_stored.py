"""The notebooks are stored executed (``python notebooks/execute.py``), and cleanly.

A reader of the repository sees the stored outputs without running anything, so a notebook
committed stripped, half-run, with an error or a warning in it, with machine-specific text or
grown large fails here. Executing the notebooks is a separate test (nbmake).
"""

import json
import re
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
MAX_BYTES = 250 * 1024
"""Largest stored notebook; plots are small PNGs and tables are text."""
MAX_TOTAL_BYTES = 600 * 1024


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _code_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def _output_text(out: dict) -> str:
    if out["output_type"] == "stream":
        return "".join(out["text"])
    data = out.get("data", {})
    return "".join("".join(v) if isinstance(v, list) else str(v)
                   for k, v in data.items() if k.startswith("text/"))


def test_the_three_notebooks_are_there():
    assert [p.name for p in NOTEBOOKS] == [
        "01_env_tour.ipynb", "02_baselines_and_arena.ipynb", "03_selfplay_training.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_code_cell_ran_once_top_to_bottom(path):
    cells = _code_cells(_load(path))
    counts = [c["execution_count"] for c in cells]
    assert counts == list(range(1, len(cells) + 1)), (
        f"{path.name} is not stored as one fresh run (execution counts {counts}); "
        f"refresh it with: python notebooks/execute.py")
    with_output = sum(bool(c["outputs"]) for c in cells)
    assert with_output >= len(cells) // 2, f"{path.name}: most code cells show nothing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_errors_warnings_or_machine_specific_text(path):
    # Paths of this checkout or of temporary files, and object addresses; progress bars and
    # warnings go to stderr.
    volatile = [re.escape(str(ROOT)), re.escape(tempfile.gettempdir()) + "/", r" at 0x[0-9a-f]+"]
    for i, cell in enumerate(_code_cells(_load(path)), start=1):
        for out in cell["outputs"]:
            assert out["output_type"] != "error", f"{path.name} cell {i}: {out.get('ename')}"
            assert out.get("name") != "stderr", (
                f"{path.name} cell {i} wrote to stderr: {_output_text(out)[:200]!r}")
            text = _output_text(out)
            for pattern in volatile:
                assert not re.search(pattern, text), (
                    f"{path.name} cell {i}: output matches {pattern!r}, which differs from "
                    f"machine to machine or run to run")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_metadata_is_normalised(path):
    nb = _load(path)
    assert set(nb["metadata"]) == {"kernelspec"}, f"{path.name}: {sorted(nb['metadata'])}"
    for cell in nb["cells"]:
        assert "execution" not in cell["metadata"], f"{path.name}: timestamps in a cell"
        streams = [o.get("name") if o["output_type"] == "stream" else None
                   for o in cell.get("outputs", [])]
        assert not any(a is not None and a == b
                       for a, b in zip(streams, streams[1:], strict=False)), (
            f"{path.name}: consecutive writes to one stream are not joined")


def test_sizes():
    sizes = {p.name: p.stat().st_size for p in NOTEBOOKS}
    for name, size in sizes.items():
        assert size <= MAX_BYTES, f"{name} is {size // 1024} KiB (limit {MAX_BYTES // 1024})"
    assert sum(sizes.values()) <= MAX_TOTAL_BYTES, sizes
