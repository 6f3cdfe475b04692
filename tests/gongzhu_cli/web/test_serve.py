"""``gongzhu serve`` as a command: bad flags refused, loopback by default, a warning beyond it.

Every server these tests start runs inside a loopback-only network namespace where the
platform allows; the one that listens on 0.0.0.0 runs only there.
"""

from __future__ import annotations

import subprocess
import sys
import urllib.request

import pytest

from tests.gongzhu_cli.web.support import ROOT, isolated, require_web, served
from tests.helpers import HANG_S

require_web("starlette")


@pytest.mark.parametrize(("flags", "words"), [
    (["--port", "70000"], "--port must be 0..65535"),
    (["--max-tables", "0"], "--max-tables must be at least 1"),
    (["--idle-timeout", "-5"], "--idle-timeout must be a positive number"),
    # An address of no interface here (TEST-NET-1): the bind fails, nothing is sent.
    (["--host", "192.0.2.1"], "cannot listen on 192.0.2.1:8000"),
    (["--agent", "wizard"], "--agent 'wizard': unknown agent"),
    (["--agent", "pimc:worlds=0"], "worlds must be a positive integer"),
])
def test_bad_flags_are_refused_with_a_reason(flags, words):
    with isolated():
        proc = subprocess.run([sys.executable, "-m", "gongzhu_cli", "serve", *flags],
                              cwd=ROOT, capture_output=True, text=True, timeout=HANG_S)
    assert proc.returncode == 2 and words in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_it_serves_the_page_on_loopback_by_default():
    with isolated(), served() as (proc, url):
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url, timeout=HANG_S) as r:
            assert r.status == 200 and b"Gong Zhu" in r.read()


def test_a_host_beyond_loopback_is_warned_about():
    with isolated() as why:
        if why is not None:
            pytest.skip(f"listening beyond loopback only inside a namespace: {why}")
        with served("--host", "0.0.0.0") as (proc, url):
            head = proc.head
    assert "warning: listening on 0.0.0.0, beyond this machine's loopback" in head
