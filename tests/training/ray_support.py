"""Ray for the tests: a simulated two-node cluster on the loopback address, and the markers.

Every Ray test carries ``RAY_GROUP`` (an xdist group), so the suite never runs two Ray
clusters at once and they all share one worker. Every Ray process the tests start binds to
127.0.0.1 (``training.cluster.local_environment``): nothing leaves this machine.

Ray comes with the ``[ray]`` extra, which CI installs; elsewhere the tests are skipped, but
never under ``CI=true``, where a missing Ray is a failure.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

import pytest

from training.cluster import LOOPBACK, local_environment

RAY_GROUP = pytest.mark.xdist_group("ray")


def require_ray() -> Any:
    """Return the ``ray`` module; skip the test without it (fail under CI)."""
    try:
        import ray
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail('Ray is not installed, and CI must run the Ray tests: '
                        'pip install -e ".[ray]"')
        pytest.skip('Ray is not installed (pip install -e ".[ray]")')
    return ray


@contextlib.contextmanager
def two_node_cluster(cpus_per_node: int = 1) -> Iterator[Any]:
    """A simulated cluster of a head and one worker node (``ray.cluster_utils.Cluster``).

    The driver is not connected: a test joins it with ``--address`` (``cluster.address``), as
    a user would join a real cluster.
    """
    ray = require_ray()
    assert not ray.is_initialized(), "another Ray instance is still connected"
    from ray.cluster_utils import Cluster

    node = {"num_cpus": cpus_per_node, "node_ip_address": LOOPBACK, "include_dashboard": False}
    with local_environment():
        cluster = Cluster(initialize_head=True, head_node_args=node)
        try:
            cluster.add_node(**node)
        except BaseException:
            cluster.shutdown()
            raise
    try:
        yield cluster
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.shutdown()
