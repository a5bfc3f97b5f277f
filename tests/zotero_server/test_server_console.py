"""Issue 39: `zotero-translate serve` says in its terminal where it is and what each paper did.

The server runs as a process (what a user sees in the terminal), translating with the fake vLLM;
the second paper is sent after that vLLM stopped, so it fails with the reason the page shows.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.helpers.net import free_port, wait_for_port
from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import PARAGRAPHS, plugin_body
from tests.helpers.vllm import FakeVLLMFactory


class Terminal:
    """The server's stderr, read line by line as it comes."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        assert proc.stderr is not None
        stream = proc.stderr
        threading.Thread(target=lambda: self.lines.extend(stream), daemon=True).start()

    def wait_for(self, text: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if text in line:
                    return line
            time.sleep(0.05)
        raise AssertionError(f"{text!r} never printed; the terminal:\n{''.join(self.lines)}")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Terminal, FakeVLLMFactory, str]]:
    with FakeVLLMFactory(tmp_path) as factory:
        llm = factory.start()
        port = free_port()
        env = {
            **os.environ,
            "ZT_MANAGER": "none",
            "ZT_LLM_BASE_URL": llm.base_url,
            "ZT_DATA_DIR": str(tmp_path / "data"),
        }
        proc = subprocess.Popen(
            [sys.executable, "-m", "zotero_server.cli", "serve", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            wait_for_port(port, timeout=60)
            yield f"http://127.0.0.1:{port}", Terminal(proc), factory, llm.base_url
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def test_banner_and_one_line_per_job(served: tuple[str, Terminal, FakeVLLMFactory, str]) -> None:
    url, terminal, factory, llm_url = served
    assert url + "/" in terminal.wait_for("the page and the Zotero plugin's address")
    assert llm_url in terminal.wait_for("model    ")
    assert "none (ZT_MANAGER=none)" in terminal.wait_for("manager  ")

    with httpx.Client(base_url=url, timeout=120) as client:
        done = client.post(
            "/translate", json=plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf")
        )
        assert done.json()["status"] == "success", done.text
        assert "paper.pdf" in terminal.wait_for(" started: ")
        line = terminal.wait_for(" done in ")
        assert "paper.pdf -> paper-mono.pdf, paper-dual.pdf" in line

        factory.close()  # the model goes away: the next paper fails, and the terminal says why
        unseen = small_paper(paragraphs=("A paragraph no cache holds, so it needs the model.",))
        failed = client.post("/translate", json=plugin_body(unseen, "second.pdf"))
        assert failed.json()["status"] == "error"
    line = terminal.wait_for(" failed")
    assert "second.pdf" in line and "not answering" in line, line
