"""Helpers of the web-table tests: a real ``gongzhu serve`` process, Chromium, the namespace.

A test that starts a real server starts it inside a network namespace whose only interface is
loopback where the platform allows (``tests.training.ray_support.loopback_only_network``), so
nothing it or the browser does can leave the machine; the server binds 127.0.0.1 in any case.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import HANG_S
from tests.training.ray_support import loopback_only_network

ROOT = Path(__file__).resolve().parents[3]
URL = re.compile(r"http://127\.0\.0\.1:(\d+)/")
TEST_HOSTS = ("testserver", "127.0.0.1", "localhost")
"""Host names the in-process apps answer: Starlette's test client sends ``testserver``."""


def chromium() -> str:
    """The system Chromium (Debian's ``chromium``); skip without it, fail under CI."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the browser test, but Chromium is not installed "
                        "(.ci/run installs Debian's chromium with apt-get)")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    return path


def require_web(module: str = "starlette.testclient"):
    """Import a module of the ``[web]`` extra; skip without it, but fail under CI."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail(f'CI must run the web table tests, but {module} is missing: '
                        'pip install -e ".[web]"')
        pytest.skip(f'{module} is not installed (pip install -e ".[web]")')


def playwright_module():
    """``playwright.sync_api``; skip without it (fail under CI, which installs ``[web]``)."""
    try:
        from playwright import sync_api
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail('CI must run the browser test: pip install -e ".[web]"')
        pytest.skip('Playwright is not installed (pip install -e ".[web]")')
    return sync_api


@contextlib.contextmanager
def served(*args: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """Run ``gongzhu serve --port 0 ARGS`` until the block ends; yield it and its URL.

    Waits for the line that names the address (the event itself), bounded by ``HANG_S``; what
    the server printed up to it is ``proc.head``.
    """
    proc = subprocess.Popen([sys.executable, "-m", "gongzhu_cli", "serve", "--port", "0",
                             *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        # A thread reads the output line by line: a select() on the pipe would miss lines
        # that arrived together and already sit in the reader's buffer.
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout or ()],
                         daemon=True).start()
        seen: list[str] = []
        url = None
        deadline = time.monotonic() + HANG_S
        while url is None:
            left = deadline - time.monotonic()
            try:
                line = lines.get(timeout=max(0.0, min(left, 1.0)))
            except queue.Empty:
                if left <= 0 or proc.poll() is not None:
                    raise AssertionError("gongzhu serve did not print its address: "
                                         + "".join(seen)) from None
                continue
            seen.append(line)
            m = URL.search(line)
            url = m.group(0) if m else None
        proc.head = "".join(seen)  # type: ignore[attr-defined] - what it printed first
        yield proc, url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=HANG_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def isolated() -> Iterator[str | None]:
    """The loopback-only namespace where it can be entered (``None``), else why not."""
    with loopback_only_network() as why:
        yield why


def record_file(size: int | None, hands: int = 8, seed: int = 0) -> bytes:
    """A readable hand-record file of exactly ``size`` bytes: ``hands`` random hands, padded.

    Each record's ``meta`` carries a padding string (free-form meta is part of the format) so
    that the file, digests included, is exactly as large as a test needs: one byte under or
    over a limit. ``size=None``: no padding, the hands as they are.
    """
    import tempfile

    import numpy as np

    from gongzhu_env.engine import Game
    from gongzhu_env.records import record_hand, save_records
    from tests.helpers import random_playout

    rng = np.random.default_rng(seed)
    records = [record_hand(random_playout(Game(seed=seed * 1000 + k), rng)) for k in range(hands)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hands.jsonl"

        def write(pad: int) -> int:
            per, extra = divmod(pad, hands)
            for k, rec in enumerate(records):
                rec["meta"] = {"pad": "x" * (per + (k < extra))}
            save_records(path, records)
            return path.stat().st_size

        bare = write(0)
        if size is None:
            return path.read_bytes()
        if size < bare:
            raise ValueError(f"{hands} hands take {bare} bytes already; asked for {size}")
        assert write(size - bare) == size
        return path.read_bytes()
