"""Run the real Zotero-facing app on loopback and talk to it the way the plugins do.

    with run_app(settings) as srv:           # uvicorn in a thread, on a free port
        httpx.post(srv.url + "/translate", json=plugin_body(pdf, "paper.pdf"))
        srv.services.outputs ...             # the live app's state, for waiting on it

``plugin_body`` builds the body exactly as zotero-pdf2zh does: every setting a string, the PDF as
a data URL. ``raw_request`` sends a request line byte for byte (httpx would normalise ``..``).
"""

from __future__ import annotations

import base64
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pymupdf
import pytest
import uvicorn
from fastapi import FastAPI
from pydantic import SecretStr

from common.settings import ConcurrencyMode, Settings
from tests.helpers.net import free_port
from tests.helpers.vllm import FakeVLLMFactory, FakeVLLMProcess
from zotero_server.app import create_app
from zotero_server.connection_limits import server_config
from zotero_server.services import Services

#: Test-speed knobs of create_app.
FAST = {"sse_ping_s": 0.5, "status_poll_s": 0.2, "shutdown_grace_s": 1.0}


@dataclass
class RunningServer:
    url: str
    port: int
    app: FastAPI
    server: uvicorn.Server

    @property
    def services(self) -> Services:
        services: Services = self.app.state.services
        return services

    def client(self, **kwargs: Any) -> httpx.Client:
        kwargs.setdefault("timeout", 60.0)
        return httpx.Client(base_url=self.url, **kwargs)


@contextmanager
def one_at_a_time(
    settings: Settings, tmp_path: Path, token: str, *fake_args: str
) -> Iterator[tuple[RunningServer, FakeVLLMProcess]]:
    """A server behind the fake vLLM started with ``fake_args``, its requests sent one at a
    time in order (fixed concurrency 1: adaptive mode has two or more in flight, and a later
    page's request could reach the fake first), under the API token ``token``."""
    with FakeVLLMFactory(tmp_path) as factory:
        fake = factory.start(*fake_args)
        configured = settings.model_copy(
            update={
                "llm_base_url": fake.base_url,
                "concurrency_mode": ConcurrencyMode.FIXED,
                "concurrency": 1,
                "api_token": SecretStr(token),
            }
        )
        with run_app(configured) as running:
            yield running, fake


@contextmanager
def run_app(settings: Settings, **knobs: Any) -> Iterator[RunningServer]:
    """The app from ``create_app(settings)`` served by uvicorn in a thread until the block ends."""
    options = {**FAST, **knobs}
    app = create_app(settings, **options)
    port = free_port()
    # The configuration ``serve`` uses (its connection limits included).
    config = server_config(
        app, settings, "127.0.0.1", port, log_level="warning", timeout_graceful_shutdown=2
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"zt-server-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the app did not start (see the log above)")
        time.sleep(0.02)
    try:
        yield RunningServer(f"http://127.0.0.1:{port}", port, app, server)
    finally:
        server.should_exit = True
        thread.join(timeout=20)


# Fixtures for the server test modules: import them (``fake_llm_fixture``, ``srv_fixture``) into
# a module to use ``fake_llm`` and ``srv`` there.


@pytest.fixture(name="fake_llm")
def fake_llm_fixture(tmp_path: Path) -> Iterator[FakeVLLMProcess]:
    """One fake vLLM with default flags, killed at teardown."""
    with FakeVLLMFactory(tmp_path) as factory:
        yield factory.start()


@pytest.fixture(name="srv")
def srv_fixture(settings: Settings, fake_llm: FakeVLLMProcess) -> Iterator[RunningServer]:
    """The app, configured (the ``settings`` fixture) to translate with ``fake_llm``."""
    configured = settings.model_copy(update={"llm_base_url": fake_llm.base_url})
    with run_app(configured) as running:
        yield running


API_KEY = "sk-live-0123456789abcdefSECRETKEY"

#: What ``getActiveLLMApiConfig`` builds for an active "openailiked" entry.
LLM_API: dict[str, Any] = {
    "service": "openailiked",
    "model": "gpt-4o-mini",
    "apiKey": API_KEY,
    "apiUrl": "https://api.example.invalid/v1",
    "extraData": {
        "openai_compatible_temperature": "0.2",
        "openai_compatible_send_temprature": "true",
        "openai_compatible_reasoning": "",
        "openai_compatible_timeout": "120",
    },
}


def data_url(pdf: bytes) -> str:
    return "data:application/pdf;base64," + base64.b64encode(pdf).decode()


def plugin_body(pdf: bytes, file_name: str, **fields: Any) -> dict[str, Any]:
    """A ``/translate`` body as zotero-pdf2zh 4.x sends it: ~35 string settings."""
    body: dict[str, Any] = {
        "fileName": file_name,
        "fileContent": data_url(pdf),
        "serverUrl": "http://localhost:8890",
        "engine": "pdf2zh_next",
        "service": "bing",
        "next_service": "siliconflowfree",
        "sourceLang": "en",
        "targetLang": "ko",
        "threadNum": "4",
        "qps": "10",
        "poolSize": "0",
        "skipLastPages": "0",
        "mono": "true",
        "dual": "true",
        "mono_cut": "false",
        "dual_cut": "false",
        "crop_compare": "false",
        "compare": "false",
        "babeldoc": "false",
        "skipSubsetFonts": "false",
        "fontFile": "",
        "fontFamily": "auto",
        "dualMode": "LR",
        "transFirst": "false",
        "ocr": "false",
        "autoOcr": "true",
        "noWatermark": "true",
        "saveGlossary": "false",
        "disableGlossary": "false",
        "noDual": "false",
        "noMono": "false",
        "skipClean": "false",
        "disableRichTextTranslate": "false",
        "enhanceCompatibility": "false",
        "translateTableText": "false",
        "onlyIncludeTranslatedPage": "false",
    }
    body.update(fields)
    return body


def pdf_text(pdf: bytes) -> str:
    """All text of a PDF, as PyMuPDF reads it."""
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        return "\n".join(page.get_text() for page in doc)


def hangul_count(text: str) -> int:
    return sum(1 for c in text if "\uac00" <= c <= "\ud7a3")


def raw_request(
    port: int, method: str, target: str, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """Send ``METHOD target HTTP/1.1`` exactly as given; return status, headers, body."""
    lines = [f"{method} {target} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    parsed = {}
    for line in header_lines:
        key, _, value = line.partition(":")
        parsed[key.strip().lower()] = value.strip()
    return int(status_line.split()[1]), parsed, body


def wait_until(predicate: Callable[[], bool], timeout: float = 30.0, what: str = "") -> None:
    """Poll ``predicate`` until true; fail with ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or predicate}")
        time.sleep(0.02)


class SSEReader:
    """Parses an SSE response into ``{"event", "id", "data"}`` dicts, across several reads.

    Comment lines (heartbeats) come out as ``{"event": "comment", "data": text}``.
    """

    def __init__(self, response: httpx.Response) -> None:
        self._lines = response.iter_lines()

    def until(self, stop: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        """Events up to and including the first for which ``stop`` is true, or to the end."""
        events: list[dict[str, Any]] = []
        current: dict[str, Any] = {}
        for line in self._lines:
            if line.startswith(":"):
                events.append({"event": "comment", "data": line[1:].strip()})
                if stop(events[-1]):
                    return events
                continue
            if line == "":
                if current:
                    if "data" in current:
                        current["data"] = json.loads(current["data"])
                    current.setdefault("event", "message")
                    events.append(current)
                    if stop(current):
                        return events
                    current = {}
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "data":
                current["data"] = current.get("data", "") + value
            elif field in ("event", "id", "retry"):
                current[field] = value
        return events


def read_sse(
    response: httpx.Response, stop: Callable[[dict[str, Any]], bool]
) -> list[dict[str, Any]]:
    """One read of a fresh SSE response (see ``SSEReader``)."""
    return SSEReader(response).until(stop)


#: English paragraphs with distinctive words, for generated test papers.
PARAGRAPHS = (
    "Neural machine translation models learn to map sentences between languages.",
    "We evaluate the proposed method on several benchmark datasets and report results.",
    "Experiments show consistent improvements over strong baselines in every setting.",
    "Future work will explore document level context and terminology constraints.",
)
