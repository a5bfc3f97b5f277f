"""A real ``jupyter server`` (jupyter_server + jupyter_server_terminals) for tests.

Started on a free loopback port with a token, ``--allow-root`` (CI runs as root), no browser,
a temporary root dir, and private Jupyter config/data/runtime dirs so the developer's own
Jupyter configuration never leaks in. Its process group is killed at the end, terminals
included.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.helpers.net import free_port

JUPYTER_START_TIMEOUT_S = 60.0
TOKEN = "zt-test-token-5d1c"


@dataclass(frozen=True)
class JupyterServer:
    url: str  # http://127.0.0.1:PORT
    port: int
    token: str
    root: Path
    log: Path


@contextmanager
def run_jupyter(
    directory: Path, *, token: str = TOKEN, extra_args: Sequence[str] = ()
) -> Iterator[JupyterServer]:
    """Run ``jupyter server`` until the block ends; yields when ``GET /api`` answers."""
    root = directory / "root"
    root.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log = directory / "jupyter.log"
    env = dict(os.environ)
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR"):
        env[name] = str(directory / name.lower())
    env.pop("JUPYTER_TOKEN", None)
    argv = [
        sys.executable,
        "-m",
        "jupyter_server",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        "--allow-root",
        "--ServerApp.open_browser=False",
        f"--ServerApp.root_dir={root}",
        *extra_args,
    ]
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    try:
        _wait_ready(proc, f"http://127.0.0.1:{port}", log)
        yield JupyterServer(f"http://127.0.0.1:{port}", port, token, root, log)
    finally:
        stop_group(proc)


def stop_group(proc: subprocess.Popen[bytes], grace_s: float = 10.0) -> None:
    """SIGTERM the process group (Jupyter stops its terminals), then SIGKILL what is left."""
    with suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        pass
    with suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    with suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def _wait_ready(proc: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + JUPYTER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyter server exited ({proc.returncode}):\n{log.read_text()}")
        try:
            if httpx.get(url + "/api", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise TimeoutError(
        f"jupyter server not up after {JUPYTER_START_TIMEOUT_S} s:\n{log.read_text()}"
    )


@pytest.fixture(name="jupyter", scope="module")
def jupyter_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    """A JupyterLab server for the tests of one module."""
    with run_jupyter(tmp_path_factory.mktemp("jupyter")) as server:
        yield server
