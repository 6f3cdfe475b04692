"""Where the work runs: this machine's processes (``local``) or a Ray cluster (``ray``).

One switch for the commands that spread work out, ``gongzhu eval`` (the arena's chunks of
deals) and ``gongzhu train`` (the Deep Monte-Carlo actors)::

    --backend local|ray      local: a process pool / actor processes on this machine (default)
    --address auto|HOST:PORT with ray: join a running cluster (``ray start --head`` prints the
                             address; ``auto`` finds the one started on this machine); without
                             it a private Ray instance is started on this machine

Ray is imported only here and only when ``--backend ray`` asks for it (``import_ray``), never by
``import gongzhu_env``, ``agents`` or the rest of ``training``; it comes with the ``[ray]``
extra (``pip install -e ".[ray]"``). ``docs/distributed.md`` shows a real cluster at work.

A Ray instance this module starts itself binds every process to the loopback address
(node IP 127.0.0.1, no dashboard web page) and connects to nothing beyond it
(``local_ray_env``): nothing it does reaches beyond this machine. An address that does not
answer is refused within ``CONNECT_TIMEOUT_S`` seconds, never waited on.

``RayExecutor`` runs functions as Ray tasks behind the ``concurrent.futures.Executor``
interface the arena already uses for its process pool, so the local and the Ray arena share
every line of their logic. A task whose worker process or node dies is run again by Ray (up
to ``max_retries`` times); an error raised by the function itself comes back as that error.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any

BACKENDS = ("local", "ray")
INSTALL_HINT = 'pip install -e ".[ray]"'
CONNECT_TIMEOUT_S = 15.0
"""How long an ``--address`` may take to answer, and ``ray.init`` to join it (the environment
variable ``GONGZHU_RAY_CONNECT_TIMEOUT`` overrides it, in seconds)."""
LOOPBACK = "127.0.0.1"
DEAD_END_PROXY = "http://127.0.0.1:1"
"""The HTTP and HTTPS proxy a local Ray instance's processes are given (``local_ray_env``): a
loopback port where nothing listens (port 1, TCPMUX, is long obsolete, and below 1024 only root
may listen), so a request through it is refused at once without leaving the machine."""
NO_PROXY = "localhost,127.0.0.1,::1"
"""Where the processes of a local instance still go directly: loopback only."""


class BackendError(RuntimeError):
    """The backend cannot be used as asked (Ray missing, cluster unreachable); exit code 2."""


class WorkerLostError(RuntimeError):
    """Ray gave up on a task or actor whose process or node kept dying; exit code 1."""


# ---------------------------------------------------------------------------- command line
def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--backend`` and ``--address`` to a command's parser."""
    parser.add_argument("--backend", choices=BACKENDS, default="local",
                        help="where the work runs: local processes (default) or a Ray cluster "
                             f"(needs the [ray] extra: {INSTALL_HINT})")
    parser.add_argument("--address", default=None, metavar="auto|HOST:PORT",
                        help="with --backend ray: the cluster to join (the address 'ray start "
                             "--head' printed, or auto for the one running on this machine); "
                             "default: start a private Ray instance on this machine")


def check_backend(backend: str, address: str | None) -> None:
    """Refuse a backend switch that cannot mean anything (before any work starts)."""
    if backend not in BACKENDS:
        raise BackendError(f"--backend must be one of {', '.join(BACKENDS)}; got {backend!r}")
    if address is not None:
        if backend != "ray":
            raise BackendError("--address names a Ray cluster; it needs --backend ray")
        parse_address(address)


def parse_address(address: str) -> tuple[str, int] | None:
    """Return ``(host, port)`` of ``HOST:PORT``, ``None`` for ``auto``; else ``BackendError``."""
    text = address.strip()
    if text == "auto":
        return None
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise BackendError(f"--address must be auto or HOST:PORT (e.g. 10.0.0.5:6379, the "
                           f"address 'ray start --head' prints); got {address!r}")
    return host, int(port)


# ---------------------------------------------------------------------------- connecting
def import_ray() -> Any:
    """Import Ray, or say how to install it (``BackendError``)."""
    try:
        import ray
    except ImportError as e:
        raise BackendError(f"--backend ray needs Ray, which is not installed here ({e}); "
                           f"install the extra: {INSTALL_HINT}") from None
    return ray


def project_root() -> Path:
    """Return the directory of this checkout's packages (what the Ray workers must import)."""
    return Path(__file__).resolve().parent.parent


def local_ray_env() -> dict[str, str]:
    """Environment for a Ray instance started on this machine, inherited by all its processes.

    ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` keeps Ray from replacing the loopback node address
    by the machine's network address (what it does for a node other nodes must reach), so every
    process binds to 127.0.0.1; ``RAY_USAGE_STATS_ENABLED=0`` keeps it from reporting usage to
    its makers.

    That is not all Ray does on its own: it starts its dashboard process even without a
    dashboard (Ray 2.60, ``--modules-to-load=UsageStatsHead``), and that module asks the cloud
    metadata address (169.254.169.254) and looks up ``metadata.google.internal`` to learn
    which cloud it runs on, usage reports or not; a cluster not started by ``ray.init`` also
    posts "usage reports are off" to ``usage-stats.ray.io``. Ray has no switch for either, but
    all of it is HTTP through ``requests``, which honours the standard proxy variables: with
    ``http_proxy``/``https_proxy`` at ``DEAD_END_PROXY`` such a request goes to a closed port
    on loopback and fails at once, without a name looked up (a proxy resolves the name, not
    the client). ``no_proxy`` keeps loopback direct; ``grpc_proxy`` empty tells gRPC (which
    would read ``https_proxy`` too) to use no proxy, so Ray's own traffic between its
    processes is untouched. ``tests/training/test_ray_network.py`` holds every process of a
    local instance to loopback by tracing its ``connect()`` calls.

    ``RAY_worker_niceness=0`` runs the workers at the priority of the command that started
    them, as the local backend's processes run. Ray lowers its workers to niceness 15 so that
    its own servers stay responsive on a node given over to Ray; on a machine shared with
    other work that hands nearly all their CPU to any other busy process (weight 36 against
    1024 in Linux's scheduler), so an actor took minutes to start and the arena's tasks
    crawled while two busy loops ran.

    ``PYTHONPATH`` lets the workers import this very checkout, as the driver does, whatever
    the current directory.
    """
    path = [str(project_root())]
    if os.environ.get("PYTHONPATH"):
        path.append(os.environ["PYTHONPATH"])
    return {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0",
            "RAY_worker_niceness": "0",
            "http_proxy": DEAD_END_PROXY, "https_proxy": DEAD_END_PROXY,
            "no_proxy": NO_PROXY, "grpc_proxy": "",
            "PYTHONPATH": os.pathsep.join(path)}


@contextlib.contextmanager
def local_environment() -> Iterator[None]:
    """Keep a Ray instance (or test cluster) started inside this block on the loopback address.

    Every local start goes through here (``connect`` without an address, the tests' simulated
    cluster, ``benchmarks/bench_ray.py``). The Ray processes started meanwhile inherit
    ``local_ray_env()`` for their whole life, and so do the workers they start later. Ray
    reads the address switch once, when it is imported, so an already imported Ray is told
    through its constant as well. The caller's environment and Ray's constant are restored
    after.
    """
    saved = {k: os.environ.get(k) for k in local_ray_env()}
    os.environ.update(local_ray_env())
    constants = sys.modules.get("ray._private.ray_constants")
    before = getattr(constants, "ENABLE_RAY_CLUSTER", None)
    if constants is not None:
        constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        if constants is not None:
            constants.ENABLE_RAY_CLUSTER = before
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def check_loopback(ray: Any) -> None:
    """Refuse (and stop) a local Ray instance whose nodes are not all on 127.0.0.1."""
    addresses = sorted({n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]})
    if addresses != [LOOPBACK]:
        ray.shutdown()
        raise BackendError(f"the local Ray instance came up on {', '.join(addresses)} instead "
                           f"of {LOOPBACK} only; it was stopped")


def probe(host: str, port: int, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Open and close one TCP connection to ``host:port``; ``BackendError`` if none opens."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as e:
        why = "no answer" if isinstance(e, TimeoutError) else (e.strerror or str(e))
        raise BackendError(
            f"cannot reach a Ray cluster at {host}:{port} ({why}, within {timeout:g} s). "
            "Start one with 'ray start --head' and pass the address it prints, or leave out "
            "--address to start a Ray instance on this machine") from None


def connect_timeout() -> float:
    """Seconds to wait for a cluster: ``GONGZHU_RAY_CONNECT_TIMEOUT`` or ``CONNECT_TIMEOUT_S``."""
    text = os.environ.get("GONGZHU_RAY_CONNECT_TIMEOUT", "")
    try:
        value = float(text) if text else CONNECT_TIMEOUT_S
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise BackendError(f"GONGZHU_RAY_CONNECT_TIMEOUT must be a positive number of seconds; "
                           f"got {text!r}")
    return value


def connect(address: str | None = None, *, num_cpus: int | None = None,
            timeout: float | None = None) -> tuple[Any, bool]:
    """Make sure this process is connected to Ray; return ``(ray, started_here)``.

    A process already connected (``ray.init`` called by a test or a notebook) is used as it is.
    Without ``address`` a private instance is started on this machine, bound to the loopback
    address, with ``num_cpus`` CPUs (default: all). With ``address`` the cluster there is
    joined; one that does not answer within ``timeout`` seconds is a ``BackendError``.
    ``started_here`` tells the caller to ``ray.shutdown()`` when done.
    """
    if timeout is None:
        timeout = connect_timeout()
    if address is None:
        with local_environment():  # before Ray is imported: it reads the switch then
            ray = import_ray()
            if ray.is_initialized():
                return ray, False
            ray.init(address="local", num_cpus=num_cpus, _node_ip_address=LOOPBACK,
                     include_dashboard=False, logging_level="warning")
        check_loopback(ray)
        return ray, True
    ray = import_ray()
    if ray.is_initialized():
        return ray, False
    found = _running_cluster(ray) if parse_address(address) is None else address
    host, port = parse_address(found) or ("", 0)
    probe(host, port, timeout=timeout)
    # Ray would swap a loopback address for the machine's network address: keep it.
    with local_environment() if is_loopback(host) else contextlib.nullcontext():
        _init_with_timeout(ray, address, timeout)
    return ray, True


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine's loopback interface (127.0.0.0/8, ::1, localhost)."""
    try:
        import ipaddress

        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _running_cluster(ray: Any) -> str:
    """Return the address of the cluster ``ray start`` last began on this machine (``auto``).

    As written there (or in ``RAY_ADDRESS``): Ray's own reading would swap a loopback address
    for the machine's network address. ``ray.init`` is still given ``auto``, which is what
    lets it use the token of a cluster found on this machine.
    """
    from ray._private import services

    try:
        found = services.get_ray_address_from_environment("auto", None)
    except (ConnectionError, ValueError):
        found = None
    if not found:
        raise BackendError("--address auto found no running Ray cluster on this machine; "
                           "start one with 'ray start --head', or leave out --address to "
                           "start a private instance")
    return found


def _init_with_timeout(ray: Any, address: str, timeout: float) -> None:
    """``ray.init(address)`` that gives up after ``timeout`` seconds instead of hanging."""
    box: dict[str, BaseException] = {}

    def join() -> None:
        try:
            ray.init(address=address, logging_level="warning")
        except BaseException as e:  # handed to the caller's thread below
            box["error"] = e

    thread = threading.Thread(target=join, name="ray-connect", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise BackendError(
            f"the Ray cluster at {address} did not accept this process within {timeout:g} s. "
            f"Is it the head node of a Ray {ray.__version__} cluster? A cluster with token "
            "authentication (the default of 'ray start') also needs RAY_AUTH_MODE=token and "
            "its token here (~/.ray/auth_token or RAY_AUTH_TOKEN; 'ray get-auth-token' on the "
            "head node prints it)")
    if "error" in box:
        e = box["error"]
        raise BackendError(f"cannot join the Ray cluster at {address}: "
                           f"{type(e).__name__}: {e}") from None


@contextlib.contextmanager
def ray_session(address: str | None = None, *, num_cpus: int | None = None) -> Iterator[Any]:
    """``connect`` for the length of a ``with`` block; shut down only what it started."""
    ray, started = connect(address, num_cpus=num_cpus)
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()


def cluster_cpus(ray: Any) -> int:
    """CPUs of the connected cluster (at least 1)."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


# ---------------------------------------------------------------------------- tasks
def _call(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Body of every ``RayExecutor`` task: one thread for numpy and torch, then ``fn``."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    return fn(*args, **kwargs)


class RayExecutor(Executor):
    """``concurrent.futures.Executor`` whose calls run as Ray tasks on the connected cluster.

    Each task takes one CPU, spread over the nodes (Ray's ``SPREAD`` strategy: the chunks are
    alike, so every node should get its share from the start). ``max_retries``: how often Ray
    runs a task again whose worker process (or node) died; when they are used up, the future
    fails with ``WorkerLostError``. An exception raised by the function itself is not retried
    and comes back unchanged.
    """

    def __init__(self, ray: Any, *, max_retries: int = 3) -> None:
        self._ray = ray
        self._remote = ray.remote(_call).options(num_cpus=1, max_retries=max_retries,
                                                 scheduling_strategy="SPREAD")
        self._pending: dict[Any, Future] = {}
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        """Start ``fn(*args, **kwargs)`` as a Ray task; return its future."""
        if self._closed:
            raise RuntimeError("cannot submit to a RayExecutor after shutdown")
        ref = self._remote.remote(fn, args, kwargs)
        out: Future = Future()
        with self._lock:
            self._pending[ref] = out
        ref.future().add_done_callback(lambda f: self._settle(ref, f, out))
        return out

    def _settle(self, ref: Any, done: Future, out: Future) -> None:
        with self._lock:
            self._pending.pop(ref, None)
        if out.cancelled():
            return
        try:
            value = done.result()
        except BaseException as e:  # noqa: BLE001 - each kind is passed on below
            if out.set_running_or_notify_cancel():
                out.set_exception(translate_error(self._ray, e))
            return
        if out.set_running_or_notify_cancel():
            out.set_result(value)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop accepting work; with ``cancel_futures`` cancel the tasks not finished yet."""
        self._closed = True
        if not cancel_futures:
            return
        with self._lock:
            pending = list(self._pending.items())
        for ref, fut in pending:
            fut.cancel()
            with contextlib.suppress(Exception):
                self._ray.cancel(ref, force=True)


def translate_error(ray: Any, error: BaseException) -> BaseException:
    """Turn Ray's wrapping of a task's failure into the error a local run would have raised.

    An exception of the task's own code comes back as itself (e.g. an agent's illegal move);
    a task whose process or node died past its retries becomes a ``WorkerLostError``.
    """
    exc = ray.exceptions
    if isinstance(error, exc.RayTaskError):
        cause = getattr(error, "cause", None)
        if isinstance(cause, BaseException):
            return cause
        return RuntimeError(str(error))
    lost = (exc.WorkerCrashedError, exc.NodeDiedError, exc.ObjectLostError,
            exc.RayActorError, exc.LocalRayletDiedError, exc.OutOfMemoryError)
    if isinstance(error, lost):
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        return WorkerLostError(f"a Ray worker was lost and its retries are used up "
                               f"({type(error).__name__}: {first})")
    return error


__all__ = ["BACKENDS", "INSTALL_HINT", "BackendError", "RayExecutor", "WorkerLostError",
           "add_backend_arguments", "check_backend", "cluster_cpus", "connect",
           "connect_timeout", "import_ray", "is_loopback", "local_environment",
           "parse_address", "probe", "ray_session", "translate_error"]
