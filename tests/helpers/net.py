"""Loopback helpers: free ports and waiting for a server to listen."""

from __future__ import annotations

import itertools
import os
import random
import socket
import time

# Ports are handed out below Linux's ephemeral range (32768-60999): a port the kernel picked for
# bind(0) or for an outgoing connection is released and can be picked again for another server
# or client before the test binds it (one host's health check then reached another host's fake).
# Each xdist worker draws from its own slice, and a process never hands out a port twice.
_LOW, _HIGH = 10_000, 32_000
_SLICES = 8
_given: set[int] = set()


def _worker_slice() -> range:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    index = int(worker) % _SLICES if worker.isdigit() else 0
    width = (_HIGH - _LOW) // _SLICES
    return range(_LOW + index * width, _LOW + (index + 1) * width)


_candidates = _worker_slice()
_cursor = itertools.count(random.randrange(len(_candidates)))


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now and this process never handed out."""
    for _ in range(len(_candidates)):
        port = _candidates[next(_cursor) % len(_candidates)]
        if port in _given:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
        _given.add(port)
        return port
    raise RuntimeError("no free loopback port left in this worker's slice")


def wait_for_port(port: int, host: str = "127.0.0.1", timeout: float = 20.0) -> None:
    """Block until something accepts connections on host:port, or raise TimeoutError."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on {host}:{port} after {timeout} s")
