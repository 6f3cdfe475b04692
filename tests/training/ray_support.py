"""Ray for the tests: a simulated two-node cluster on the loopback address, and the markers.

Every Ray test carries ``RAY_GROUP`` (an xdist group), so the suite never runs two Ray
clusters at once and they all share one worker. Every Ray process the tests start binds to
127.0.0.1 and sends its HTTP to a dead end (``training.cluster.local_environment``), and where
the platform allows it (Linux, root) the Ray test modules run inside a network namespace of
their own whose only interface is loopback (``loopback_only_network``), so nothing can leave
this machine even if Ray tried. ``traced_connects`` records every ``connect()`` of a process
tree, for the test that holds a local instance to loopback.

Ray comes with the ``[ray]`` extra, which CI installs; elsewhere the tests are skipped, but
never under ``CI=true``, where a missing Ray is a failure.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import ipaddress
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
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


PATIENT_CLUSTER = {
    "health_check_timeout_ms": 30_000,
    "health_check_failure_threshold": 20,
    "gcs_rpc_server_reconnect_timeout_s": 600,
    "worker_register_timeout_seconds": 600,
}
"""Ray's patience in the simulated cluster, far past its defaults (10 s a health check, 5
missed in a row, 60 s without the head, 60 s for a new worker to register). Its default
patience suits machines to spare: on a loaded 2-core machine, or across a pause of the virtual
machine, the head marked the worker node dead (killing every actor on it) and the driver gave
up on the head, which the tests then reported as failures of the code under test. Every wait
of the tests has its own generous deadline instead."""


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
        cluster = Cluster(initialize_head=True,
                          head_node_args={**node, "_system_config": PATIENT_CLUSTER})
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


def skip_or_fail(why: str) -> None:
    """Skip a test the platform cannot run; under ``CI=true`` that is a failure instead."""
    if os.environ.get("CI"):
        pytest.fail(f"CI must run this test, but {why}")
    pytest.skip(why)


# ---------------------------------------------------------------------------- network namespace
CLONE_NEWNET = 0x40000000
"""``unshare``/``setns`` flag of a network namespace (linux/sched.h)."""
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
_IFREQ = "16sh14x"
"""``struct ifreq`` as far as the interface flags go: name, flags, padding to 40 bytes."""


@contextlib.contextmanager
def loopback_only_network() -> Iterator[str | None]:
    """Run the block in a new network namespace whose only interface is loopback (up).

    Yields ``None`` inside it, or why it could not be entered (then the block runs with the
    machine's network, as before). A namespace belongs to a thread: the calling thread moves,
    and every thread and process it starts meanwhile (Ray's, a subprocess) is born inside, so
    a connection to anything but 127.0.0.0/8 and ::1 fails there with "network is
    unreachable" instead of leaving the machine. Threads that already exist stay outside,
    which is why only the main thread moves, and only while no Ray instance is connected.
    The thread returns to its former namespace after the block.
    """
    why = _namespace_refused()
    if why is not None:
        yield why
        return
    libc = ctypes.CDLL(None, use_errno=True)
    former = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        if libc.unshare(CLONE_NEWNET) != 0:
            yield f"unshare(CLONE_NEWNET) failed: {os.strerror(ctypes.get_errno())}"
            return
        try:
            _bring_loopback_up()
            yield None
        finally:
            if libc.setns(former, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "cannot return to the former network "
                              f"namespace: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(former)


@pytest.fixture(scope="module", autouse=True)
def loopback_only() -> Iterator[str | None]:
    """A Ray test module and all it starts, in a namespace with only loopback where allowed.

    Imported by the Ray test modules, where it applies to every test; it yields ``None``
    inside the namespace, else why not (``loopback_only_network``).
    """
    with loopback_only_network() as why:
        yield why


def _namespace_refused() -> str | None:
    """Why this process cannot enter a namespace of its own now (``None``: it can)."""
    if not sys.platform.startswith("linux"):
        return f"network namespaces are Linux's ({sys.platform} here)"
    if os.geteuid() != 0:
        return "a network namespace needs root (unshare -n)"
    if threading.current_thread() is not threading.main_thread():
        return "only the main thread enters the namespace"
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        return "a Ray instance is already connected from outside the namespace"
    return None


def _bring_loopback_up() -> None:
    """Set the ``lo`` interface of the current namespace up (``ip link set lo up``)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        got = fcntl.ioctl(s, _SIOCGIFFLAGS, struct.pack(_IFREQ, b"lo", 0))
        flags = struct.unpack(_IFREQ, got)[1]
        fcntl.ioctl(s, _SIOCSIFFLAGS, struct.pack(_IFREQ, b"lo", flags | _IFF_UP))


# ---------------------------------------------------------------------------- connect() trace
@dataclass(frozen=True)
class Connect:
    """One ``connect()`` a traced process made: who, and to where."""

    pid: int
    comm: str
    family: str
    address: str = ""
    port: int = 0

    @property
    def stays_here(self) -> bool:
        """Whether it reaches nothing beyond this machine: a Unix socket, the kernel, loopback.

        ``AF_UNSPEC`` only dissolves a socket's association; ``AF_NETLINK`` talks to the
        kernel. An IPv4 address written as IPv6 (``::ffff:127.0.0.1``) counts as IPv4.
        """
        if self.family in ("AF_UNIX", "AF_NETLINK", "AF_UNSPEC"):
            return True
        if self.family not in ("AF_INET", "AF_INET6"):
            return False
        ip = ipaddress.ip_address(self.address)
        mapped = getattr(ip, "ipv4_mapped", None)
        return (mapped or ip).is_loopback

    def __str__(self) -> str:
        where = f"{self.address}:{self.port}" if self.address else ""
        return f"pid {self.pid} ({self.comm}): {self.family} {where}".rstrip()


_CONNECT = re.compile(r"^(?P<pid>\d+)(?:<(?P<comm>[^>]*)>)?\s+connect\(\d+(?:<[^>]*>)?, "
                      r"\{sa_family=(?P<family>\w+)(?P<rest>[^}]*)\}")
_INET = re.compile(r'sin_port=htons\((?P<port>\d+)\), sin_addr=inet_addr\("(?P<addr>[^"]+)"\)')
_INET6 = re.compile(r'sin6_port=htons\((?P<port>\d+)\).*inet_pton\(AF_INET6, "(?P<addr>[^"]+)"')


def parse_connects(trace: str) -> list[Connect]:
    """Every ``connect()`` of an ``strace -f -Y -e trace=connect`` log, in order.

    A call cut in two (``<unfinished ...>``, then ``resumed``) is written with its arguments on
    its first line, which is the one read here.
    """
    out = []
    for line in trace.splitlines():
        m = _CONNECT.match(line)
        if m is None:
            continue
        family, rest = m["family"], m["rest"]
        where = (_INET if family == "AF_INET" else _INET6).search(rest) \
            if family in ("AF_INET", "AF_INET6") else None
        out.append(Connect(int(m["pid"]), m["comm"] or "?", family,
                           where["addr"] if where else "", int(where["port"]) if where else 0))
    return out


def strace_refused() -> str | None:
    """Why ``traced_connects`` cannot run here (``None``: it can)."""
    if shutil.which("strace") is None:
        return "strace is not installed (apt-get install strace)"
    probe = subprocess.run(["strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=connect",
                            "-o", os.devnull, sys.executable, "-c", "pass"],
                           capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        return f"strace cannot trace here: {probe.stderr.strip()[:200]}"
    return None


def traced_connects(argv: list[str], trace: Path, *, cwd: Path, env: dict[str, str],
                    timeout: float) -> tuple[subprocess.CompletedProcess, list[Connect]]:
    """Run ``argv`` under ``strace -f`` and return how it ended and every ``connect()`` of it.

    ``-f`` follows every process and thread it starts (Ray's servers, workers and
    dashboard included); ``--seccomp-bpf`` stops the tracees at ``connect`` only, so the rest
    runs at full speed. strace exits when the last traced process has.
    """
    cmd = ["strace", "-f", "-qq", "-Y", "--seccomp-bpf", "-e", "trace=connect",
           "-e", "signal=none", "-o", str(trace), *argv]
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    return proc, parse_connects(trace.read_text(errors="replace"))


# ---------------------------------------------------------------------------- watched work
def wait_for_line(path: Path, text: str, timeout: float = 600.0) -> None:
    """Wait until the log file ``path`` holds ``text`` (a process reached that point)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.is_file() and text in path.read_text(errors="replace"):
            return
        time.sleep(0.1)
    raise TimeoutError(f"{path} did not say {text!r} within {timeout:g} s")


DASHBOARD_PROBED = "Usage reporting is disabled."
"""What Ray's dashboard logs once its usage module has looked for a cloud (and found none)."""
DASHBOARD_REPORTED = "Starting new HTTPS connection (1): usage-stats.ray.io:443"
"""What it logs (urllib3, at debug level) as it starts to tell Ray's makers that usage reports
are off, which a cluster not started by ``ray.init``, like the simulated one, does: written
the moment before the connection is opened, while the watched program goes on for seconds."""


def exercise_local_instances(out: Path) -> None:
    """The Ray work the network test watches, started the ways the project starts Ray.

    A private instance as ``--backend ray`` starts it (``training.cluster.connect``) running
    an arena match, then the simulated two-node cluster of these tests joined by address
    running tasks on both nodes. Each instance stays up until its dashboard has logged that
    it is past the outside requests it makes at start (``DASHBOARD_PROBED``, and for the
    cluster ``DASHBOARD_REPORTED``; the latter needs ``RAY_LOGGER_LEVEL=debug``), so the
    trace holds them whatever the machine's speed.
    """
    from training.arena.cli import main as eval_main
    from training.cluster import RayExecutor, connect, ray_session

    ray, started = connect(num_cpus=1)
    assert started
    try:
        node = ray._private.worker.global_worker.node
        wait_for_line(Path(node.get_logs_dir_path()) / "dashboard.log", DASHBOARD_PROBED)
        assert eval_main(["--candidate", "expert", "--opponents", "random", "--deals", "2",
                          "--seed", "1", "--no-progress", "--no-plot", "--backend", "ray",
                          "--out", str(out / "eval")]) == 0
    finally:
        ray.shutdown()
    with two_node_cluster() as cluster:
        logs = Path(cluster.head_node.get_logs_dir_path()) / "dashboard.log"
        wait_for_line(logs, DASHBOARD_PROBED)
        wait_for_line(logs, DASHBOARD_REPORTED)
        with ray_session(cluster.address) as ray:
            pool = RayExecutor(ray)
            assert [pool.submit(abs, -k).result(timeout=600) for k in range(4)] == [0, 1, 2, 3]


if __name__ == "__main__":  # the traced program of tests/training/test_ray_network.py
    exercise_local_instances(Path(sys.argv[1]))
