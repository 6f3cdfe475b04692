"""Test-session settings that apply to the notebooks as well as to ``tests/``.

The notebooks are executed by nbmake, each in its own Jupyter kernel. A kernel picks free TCP
ports when it starts, and two kernels starting at the same moment in two pytest-xdist workers
can pick the same port and die. So every notebook goes to one worker (``--dist loadgroup`` in
pyproject.toml), and they run one after another while the other worker runs the tests.
"""

from __future__ import annotations

import pytest


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put every notebook in one xdist group (the key of ``--dist loadgroup``)."""
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.xdist_group("notebooks"))
