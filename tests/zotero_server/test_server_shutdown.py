"""Ctrl-C with a translation in flight: the job fails cleanly, vLLM is left alone.

The server runs as a real process (as ``zotero-translate serve`` does: ``create_app`` under
``uvicorn.run``), with a short grace period so the test does not wait ten seconds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers.net import free_port, wait_for_port
from tests.helpers.paths import REPO_ROOT
from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import PARAGRAPHS, plugin_body, wait_until
from tests.helpers.vllm import FakeVLLMFactory

REPO = REPO_ROOT
LAUNCHER = (
    "import sys, uvicorn\n"
    "from common.settings import load_settings\n"
    "from zotero_server.app import create_app\n"
    "app = create_app(load_settings(), shutdown_grace_s=0.5)\n"
    "try:\n"
    "    uvicorn.run(app, host='127.0.0.1', port=int(sys.argv[1]), log_level='info')\n"
    "except KeyboardInterrupt:\n"
    "    pass\n"
)


@pytest.mark.slow
def test_ctrl_c_fails_running_jobs_and_never_touches_vllm(tmp_path: Path) -> None:
    with FakeVLLMFactory(tmp_path) as factory:
        slow = factory.start("--fake-latency-ms", "30000")  # every answer takes 30 s
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("ZT_")}
        env.update(ZT_DATA_DIR=str(tmp_path / "data"), ZT_LLM_BASE_URL=slow.base_url)
        log = (tmp_path / "server.log").open("wb")
        server = subprocess.Popen(
            [sys.executable, "-c", LAUNCHER, str(port)],
            cwd=REPO,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        try:
            wait_for_port(port)
            url = f"http://127.0.0.1:{port}"
            answer: dict[str, Any] = {}

            def sync_client() -> None:
                body = plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf")
                answer["response"] = httpx.post(url + "/translate", json=body, timeout=60)

            client = threading.Thread(target=sync_client)
            client.start()

            def translating() -> bool:
                tasks = httpx.get(url + "/api/tasks", timeout=5).json()["tasks"]
                return bool(tasks) and tasks[0]["stage"] == "translating"

            wait_until(translating, what="the job to reach the LLM")
            server.send_signal(signal.SIGINT)
            client.join(timeout=30)
            assert server.wait(timeout=30) == 0, (tmp_path / "server.log").read_text()

            response: httpx.Response = answer["response"]
            assert response.status_code == 503
            assert response.json()["errorType"] == "ShuttingDown"
            assert "shutting down" in response.json()["message"]
            assert int(response.headers["retry-after"]) >= 1
            # vLLM is someone else's process here, and even our own would be left running.
            assert slow.alive()
            assert httpx.get(slow.root_url + "/health", timeout=5).status_code == 200
            assert list((tmp_path / "data" / "uploads").iterdir()) == []
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
            log.close()
