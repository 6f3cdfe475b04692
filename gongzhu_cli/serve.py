"""``gongzhu serve``: the web table, served by uvicorn on 127.0.0.1 unless a host is given.

The server binds its socket itself before uvicorn starts, so that ``--port 0`` (any free port)
prints the port it really got, and so that a host that is not a loopback address is known,
and warned about, before anything listens. The application is ``gongzhu_cli.web.app``;
docs/web.md describes it and how to run it for others behind a reverse proxy.

The server answers only the host names it is given (loopback names, the ``--host`` given and
each ``--allow-host``). Connections are bounded by the application (per client address), not
by uvicorn's ``limit_concurrency``, which would answer 503 for the page itself to everyone
once one client held enough sockets; a socket that sends no request is closed after uvicorn's
keep-alive timeout (``FirstRequestTimeout``), as an idle kept-alive one already is.

Starlette, uvicorn and websockets come with the ``[web]`` extra; without them the command says
which package is missing and how to install it.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from agents import make_agent

LOOPBACK = "127.0.0.1"


def is_loopback(address: str) -> bool:
    """Whether ``address`` (an IP address, as bound) is a loopback address."""
    try:
        return ipaddress.ip_address(address.split("%")[0]).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """Open a listening TCP socket on ``host``:``port`` (``0``: a free port)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    """Return the address a browser opens for a bound socket."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    if host in ("0.0.0.0", "::"):
        shown = "127.0.0.1" if host == "0.0.0.0" else "[::1]"
    return f"http://{shown}:{port}/"


def allowed_hosts(host: str, extra: Sequence[str] = ()) -> list[str]:
    """Return the ``Host`` names the server answers: loopback, ``host``, then ``extra``.

    A wildcard ``host`` (0.0.0.0, ::) names no host, so it adds none; an IPv6 address is
    written in brackets, as a ``Host`` header carries it.
    """
    from gongzhu_cli.web.app import LOOPBACK_HOSTS

    names = list(LOOPBACK_HOSTS)
    for name in (host, *extra):
        name = name.strip().lower()
        if name in ("", "0.0.0.0", "::", "[::]"):
            continue
        if ":" in name and not name.startswith("["):
            name = f"[{name}]"
        if name not in names:
            names.append(name)
    return names


def first_request_timeout(base: type) -> type:
    """Return uvicorn's HTTP protocol class that also closes a socket which sends no request.

    uvicorn arms its keep-alive timer only after a response, so a client could open sockets
    and never speak, holding them forever; armed at the connection, the same timer closes
    such a socket after ``timeout_keep_alive`` seconds (it is disarmed once a request's
    headers have arrived, as uvicorn does).
    """

    class FirstRequestTimeout(base):  # type: ignore[misc]
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self.timeout_keep_alive_task = self.loop.call_later(
                self.timeout_keep_alive, self.timeout_keep_alive_handler)

    return FirstRequestTimeout


def run_serve(*, host: str, port: int, max_tables: int, idle_timeout: float,
              agents: Sequence[str] = (), allow_origins: Sequence[str] = (),
              allow_hosts: Sequence[str] = (), hint_rate: float = 0.5,
              out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Serve the web table until Ctrl-C; return the exit status.

    ``hint_rate`` is how many hints a table may ask for a second, on average.
    ``allow_hosts`` names a reverse proxy's public host names; given any, the client address
    of a connection from the proxy (on loopback) is read from its ``X-Forwarded-For``, so that
    the per-address bounds count visitors rather than the proxy.
    """
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        import uvicorn
        from uvicorn.protocols.http.h11_impl import H11Protocol

        from gongzhu_cli.web.app import Limits, create_app
        from gongzhu_cli.web.tables import OPPONENTS
    except ModuleNotFoundError as e:
        print(f"gongzhu serve: the web table needs the package {e.name!r}, which is not "
              "installed; install the extra: pip install 'gongzhu-rl[web]'", file=err)
        return 2
    if not 0 <= port <= 65535:
        print(f"gongzhu serve: --port must be 0..65535 (0: any free port); got {port}",
              file=err)
        return 2
    if max_tables < 1:
        print(f"gongzhu serve: --max-tables must be at least 1; got {max_tables}", file=err)
        return 2
    if not idle_timeout > 0:
        print(f"gongzhu serve: --idle-timeout must be a positive number of seconds; got "
              f"{idle_timeout}", file=err)
        return 2
    if not (hint_rate > 0 and hint_rate != float("inf")):
        print(f"gongzhu serve: --hint-rate must be a positive number of hints a second per "
              f"table (e.g. 0.5: one every two seconds); got {hint_rate}", file=err)
        return 2
    for name in allow_hosts:
        if not name or any(c in name for c in "/ \t@") or name.count(":") == 1:
            print(f"gongzhu serve: --allow-host takes a host name as browsers send it, such as "
                  f"cards.example.org (no scheme, port or path); got {name!r}", file=err)
            return 2
    for spec in agents:
        # An operator's spec is built once now, so that a typo is refused here rather than
        # offered to every visitor as an opponent that cannot be seated.
        try:
            make_agent(spec, seed=0)
        except Exception as e:  # noqa: BLE001 - any failure: the spec cannot be offered
            print(f"gongzhu serve: --agent {spec!r}: {e}", file=err)
            return 2
    try:
        sock = bind(host, port)
    except (OSError, UnicodeError) as e:
        print(f"gongzhu serve: cannot listen on {host}:{port}: {e}", file=err)
        return 2
    bound = sock.getsockname()[0]
    if not is_loopback(bound):
        print(f"gongzhu serve: warning: listening on {bound}, beyond this machine's loopback: "
              "anyone who can reach it may open tables here. Put it behind a reverse proxy "
              "with TLS to serve others (docs/web.md).", file=err)
        if not allow_hosts:
            print("gongzhu serve: only requests for this machine's loopback names"
                  + ("" if bound in ("0.0.0.0", "::") else f" and {host}")
                  + " are answered; name the host others use with --allow-host NAME",
                  file=err)
    limits = Limits(max_tables=max_tables, idle_s=float(idle_timeout),
                    max_connections=max(256, 4 * max_tables), hint_rate=float(hint_rate),
                    sweep_s=min(30.0, max(0.5, idle_timeout / 4)))
    app = create_app(limits, opponents=(*OPPONENTS, *[a for a in agents if a not in OPPONENTS]),
                     allowed_origins=allow_origins,
                     allowed_hosts=allowed_hosts(host, allow_hosts))
    # A replay file travels as one binary frame of at most max_upload bytes; other messages
    # are far smaller. Connections are bounded by the app (per address), not here.
    config = uvicorn.Config(app, log_level="warning", ws_max_size=limits.max_upload + 65536,
                            lifespan="on", timeout_graceful_shutdown=5,
                            http=first_request_timeout(H11Protocol),
                            proxy_headers=bool(allow_hosts))
    server = uvicorn.Server(config)
    print(f"Gong Zhu web table: {url_of(sock)}  (Ctrl-C stops it)", file=out, flush=True)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return 0
