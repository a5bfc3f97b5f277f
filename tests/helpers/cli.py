"""The CLI run as a process against the fake vLLM (also a real process, over loopback): the
paper it translates, its environment, and what the fake vLLM was asked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pymupdf
import pytest

from tests.fakes.pseudo import pseudo_words
from tests.helpers.net import free_port, wait_for_port
from tests.helpers.vllm import PROFILE_FLAGS

REPO = Path(__file__).resolve().parent.parent.parent
FAKE_VLLM = REPO / "tests" / "fakes" / "fake_vllm.py"
MODEL = "google/translategemma-27b-it"


def found_share(text: str, source: str) -> float:
    """Share of the pseudo-translated words of ``source`` that appear in ``text``."""
    words = pseudo_words(source, "ko")
    return sum(word in text for word in words) / len(words)


@pytest.fixture
def fake_vllm(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The fake vLLM as a real process; yields (base_url, request_log)."""
    port = free_port()
    log = tmp_path / "requests.jsonl"
    proc = subprocess.Popen(
        [sys.executable, str(FAKE_VLLM), "serve", MODEL, "--port", str(port)]
        + ["--fake-load-s", "0", "--fake-request-log", str(log), *PROFILE_FLAGS],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}/v1", log
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def run_cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **env}
    return subprocess.run(
        [sys.executable, "-m", "zotero_server.cli", *args],
        env=full_env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def requests_made(log: Path) -> list[str]:
    if not log.exists():
        return []
    return [json.loads(line)["text"] for line in log.read_text().splitlines() if line.strip()]


@pytest.fixture
def env(tmp_path: Path, fake_vllm: tuple[str, Path]) -> dict[str, str]:
    return {
        "ZT_LLM_BASE_URL": fake_vllm[0],
        "ZT_DATA_DIR": str(tmp_path / "data"),
        "ZT_MANAGER": "none",
    }


def page_text(pdf_path: Path, page: int = 0) -> str:
    with pymupdf.open(pdf_path) as doc:
        return " ".join(doc[page].get_text().split())
