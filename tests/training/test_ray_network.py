"""A Ray instance the project starts on this machine reaches nothing beyond loopback.

Ray 2.60 starts its dashboard process even without a dashboard, and that process's usage
module asks the cloud metadata address (169.254.169.254) and looks up outside names whether or
not usage reports are off. ``training.cluster.local_environment`` sends that HTTP to a dead end
on loopback; these tests hold every local instance to it by recording each ``connect()`` of
every Ray process, inside a network namespace with only loopback, so that nothing can leave
even when the test fails.
"""

from __future__ import annotations

import errno
import os
import socket
import sys
from pathlib import Path

import pytest

from tests.training.ray_support import (
    RAY_GROUP,
    loopback_only,  # noqa: F401 - the module's network namespace (an autouse fixture)
    parse_connects,
    require_ray,
    skip_or_fail,
    strace_refused,
    traced_connects,
)
from training.cluster import DEAD_END_PROXY

ROOT = Path(__file__).resolve().parents[2]


def _require_namespace(request: pytest.FixtureRequest) -> None:
    """Skip (fail under CI) unless the module runs in its loopback-only namespace."""
    why = request.getfixturevalue("loopback_only")
    if why is not None:
        skip_or_fail(f"no network namespace to hold the test: {why}")


def _dead_end() -> tuple[str, int]:
    host, _, port = DEAD_END_PROXY.removeprefix("http://").rpartition(":")
    return host, int(port)


def test_inside_the_namespace_only_loopback_answers(request):
    _require_namespace(request)
    listener = socket.create_server(("127.0.0.1", 0))
    with listener, socket.create_connection(listener.getsockname(), timeout=60):
        pass  # loopback is up
    with socket.socket() as out, pytest.raises(OSError) as e:
        out.connect(("169.254.169.254", 80))
    assert e.value.errno == errno.ENETUNREACH


@RAY_GROUP
def test_local_ray_instances_connect_to_nothing_beyond_loopback(request, tmp_path):
    """Every connect() of every Ray process goes to 127.0.0.0/8, ::1 or a Unix socket.

    The traced program (``ray_support.exercise_local_instances``) starts a private instance
    as ``--backend ray`` does and plays an arena match on it, then the tests' simulated
    two-node cluster, and keeps each up until its dashboard is past the outside requests it
    makes at start; the trace must show those requests ending at the dead-end proxy.
    """
    require_ray()
    _require_namespace(request)
    why = strace_refused()
    if why is not None:
        skip_or_fail(why)
    env = {**os.environ, "RAY_LOGGER_LEVEL": "debug"}
    proc, connects = traced_connects(
        [sys.executable, "-m", "tests.training.ray_support", str(tmp_path)],
        tmp_path / "connect.strace", cwd=ROOT, env=env, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-4000:]
    outside = [c for c in connects if not c.stays_here]
    assert not outside, "Ray processes connected beyond loopback:\n" + "\n".join(
        str(c) for c in outside)
    assert any(c.family == "AF_INET" and c.stays_here and c.port != _dead_end()[1]
               for c in connects), "the trace holds none of Ray's own loopback traffic"
    dead_end = [c for c in connects if (c.address, c.port) == _dead_end()]
    assert dead_end, "the dashboards' outside requests were not seen at the dead end"


def test_the_trace_reader_tells_loopback_from_the_outside():
    trace = "\n".join([
        '17<python> connect(7, {sa_family=AF_INET, sin_port=htons(6379), '
        'sin_addr=inet_addr("127.0.0.1")}, 16) = 0',
        '18<python> connect(9, {sa_family=AF_INET6, sin6_port=htons(6379), sin6_flowinfo='
        'htonl(0), inet_pton(AF_INET6, "::ffff:127.0.0.1", &sin6_addr), sin6_scope_id=0}, 28) '
        '<unfinished ...>',
        '18<python> <... connect resumed>) = -1 EINPROGRESS (Operation now in progress)',
        '19<raylet> connect(3, {sa_family=AF_UNIX, sun_path="/tmp/ray/s"}, 110) = 0',
        '20<python> connect(24, {sa_family=AF_INET, sin_port=htons(80), '
        'sin_addr=inet_addr("169.254.169.254")}, 16) = -1 ENETUNREACH (Network is unreachable)',
        '21<python> connect(5, {sa_family=AF_INET6, sin6_port=htons(53), sin6_flowinfo=htonl(0), '
        'inet_pton(AF_INET6, "2001:4860:4860::8888", &sin6_addr), sin6_scope_id=0}, 28) = -1',
        '22<python> connect(6, {sa_family=AF_INET6, sin6_port=htons(80), sin6_flowinfo=htonl(0), '
        'inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0',
    ])
    connects = parse_connects(trace)
    assert [(c.pid, c.family, c.address, c.port) for c in connects] == [
        (17, "AF_INET", "127.0.0.1", 6379), (18, "AF_INET6", "::ffff:127.0.0.1", 6379),
        (19, "AF_UNIX", "", 0), (20, "AF_INET", "169.254.169.254", 80),
        (21, "AF_INET6", "2001:4860:4860::8888", 53), (22, "AF_INET6", "::1", 80)]
    assert [c.stays_here for c in connects] == [True, True, True, False, False, True]
    assert str(connects[3]) == "pid 20 (python): AF_INET 169.254.169.254:80"
