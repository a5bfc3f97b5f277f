"""The data folder's lock (zotero_server/data_lock.py): one server per data folder, and a
lock left by a dead server does not block the next one. Real server processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from common.settings import Settings
from tests.helpers.net import free_port, wait_for_port
from tests.helpers.paths import REPO_ROOT
from tests.helpers.server import run_app
from zotero_server.data_lock import FILE_NAME as LOCK_FILE
from zotero_server.data_lock import DataDirInUseError, DataDirLock

REPO = REPO_ROOT


def serve(port: int, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    code = "import sys; from zotero_server.cli import main; sys.exit(main(sys.argv[1:]))"
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-c", code, "serve", "--port", str(port)],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )


def test_a_second_server_on_the_same_data_folder_refuses_to_start(tmp_path: Path) -> None:
    """Origin: hardening, issue 20 (durable state)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZT_")}
    env.update(ZT_DATA_DIR=str(tmp_path / "data"), ZT_LLM_BASE_URL="http://127.0.0.1:9/v1")
    port = free_port()
    first = serve(port, env, tmp_path / "first.log")
    try:
        wait_for_port(port, timeout=60)
        second_port = free_port()
        code = "import sys; from zotero_server.cli import main; sys.exit(main(sys.argv[1:]))"
        second = subprocess.run(
            [sys.executable, "-c", code, "serve", "--port", str(second_port)],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 2, second.stderr
        lines = [line for line in second.stderr.splitlines() if line.strip()]
        assert len(lines) == 1, second.stderr
        assert f"pid {first.pid}" in lines[0] and f"127.0.0.1:{port}" in lines[0]
        assert "in use by another zotero-translate server" in lines[0]
        assert httpx.get(f"http://127.0.0.1:{port}/health", timeout=10).status_code == 200
    finally:
        first.terminate()
        first.wait(timeout=30)


def test_a_lock_file_left_by_a_dead_server_does_not_block(settings: Settings) -> None:
    """Origin: hardening, issue 20 (durable state)."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    stale = {"pid": int(dead.stdout), "address": "http://127.0.0.1:1", "started": "earlier"}
    (settings.data_dir / LOCK_FILE).write_text(json.dumps(stale))
    with run_app(settings) as srv, srv.client() as client:
        assert client.get("/health").status_code == 200
        owner = json.loads((settings.data_dir / LOCK_FILE).read_text())
        assert owner["pid"] == os.getpid()
        with pytest.raises(DataDirInUseError, match=f"pid {os.getpid()}"):
            DataDirLock.acquire(settings.data_dir, "http://127.0.0.1:2")  # held while it runs
    with run_app(settings) as srv:  # released at the stop
        assert srv.client().get("/health").status_code == 200
