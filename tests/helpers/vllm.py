"""Start the fake vLLM (tests/fakes/vllm) as a real process on a free loopback port.

    from tests.helpers.vllm import FakeVLLMFactory

    @pytest.fixture
    def fake_vllm(tmp_path):
        with FakeVLLMFactory(tmp_path) as factory:
            yield factory

    def test_something(fake_vllm):
        server = fake_vllm.start("--fake-latency-ms", "5", max_model_len=512)
        ... server.base_url, server.model, server.requests(), server.texts() ...

``FakeVLLMFactory.start`` waits until ``/health`` answers 200 (or the process dies, with its log
in the error). Every process is killed, with its process group, when the factory closes.
Its stdout/stderr go to a file (never a pipe nobody reads); ``server.output()`` returns it.
``FAKE_VLLM`` / ``fake_vllm_argv()`` give the command line for code that launches it itself (the
vLLM manager tests): always absolute paths, because a Jupyter login shell resets PATH.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx
import pytest

from common.language import Language
from tests.helpers.net import free_port
from translation.model.limiter import Limiter
from translation.model.llm import LLMClient

FAKES_DIR = Path(__file__).resolve().parent.parent / "fakes"
#: The fake ``vllm`` executable (``#!/usr/bin/env python3``).
FAKE_VLLM = FAKES_DIR / "vllm"
#: The same program as a script, for ``python3 fake_vllm.py serve ...``.
FAKE_VLLM_SCRIPT = FAKES_DIR / "fake_vllm.py"
DEFAULT_MODEL = "google/translategemma-27b-it"
#: Flags every fake gets first, as deploy/vllm/_launch.sh and the default ZT_VLLM_COMMAND start
#: vLLM (a test's own flags come after and win): a paper's paragraphs carry a priority, which
#: vLLM's default fcfs policy would refuse once per client (tests of that pass ``fcfs``).
PROFILE_FLAGS = ("--scheduling-policy", "priority")
START_TIMEOUT_S = 20.0


def fake_vllm_argv(
    model: str = DEFAULT_MODEL,
    port: int | None = None,
    *extra: str,
    python: str = sys.executable,
) -> list[str]:
    """``[python, /abs/fake_vllm.py, "serve", MODEL, "--host", "127.0.0.1", "--port", P, ...]``."""
    argv = [python, str(FAKE_VLLM_SCRIPT), "serve", model, "--host", "127.0.0.1"]
    if port is not None:
        argv += ["--port", str(port)]
    return argv + [*PROFILE_FLAGS, *extra]


@dataclass
class FakeVLLMProcess:
    """A running fake vLLM: where it listens, what it was asked, what it printed."""

    process: subprocess.Popen[bytes]
    port: int
    model: str
    api_key: str | None
    log_path: Path
    request_log: Path
    argv: list[str] = field(default_factory=list)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI base URL (``ZT_LLM_BASE_URL``)."""
        return f"{self.root_url}/v1"

    def requests(self, status: int | None = None) -> list[dict[str, Any]]:
        """Completion requests logged so far (``--fake-request-log``), optionally by status."""
        entries = read_request_log(self.request_log)
        return [e for e in entries if status is None or e["status"] == status]

    def texts(self) -> list[str]:
        """Source texts translated successfully, in order (from ``GET /fake/requests``)."""
        response = httpx.get(f"{self.root_url}/fake/requests", timeout=5)
        response.raise_for_status()
        return list(response.json())

    def output(self) -> str:
        """Everything the process printed so far."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def alive(self) -> bool:
        return self.process.poll() is None

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> None:
        """Block until ``/health`` is 200; raise with the log if the process exits first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"fake vLLM exited with {self.process.returncode}:\n{self.output()}"
                )
            try:
                if httpx.get(f"{self.root_url}/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise TimeoutError(f"fake vLLM not ready after {timeout} s:\n{self.output()}")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 5.0) -> int:
        """Signal the process (group) and wait; SIGKILL after ``timeout``. Returns the code."""
        if self.process.poll() is None:
            _signal_group(self.process.pid, sig)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                _signal_group(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=timeout)
        return int(self.process.returncode)


class FakeVLLMFactory:
    """Starts fake vLLM processes for one test and kills them all when closed."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.started: list[FakeVLLMProcess] = []

    def start(
        self,
        *extra: str,
        model: str = DEFAULT_MODEL,
        served_model_name: str | None = None,
        api_key: str | None = None,
        max_model_len: int | None = None,
        port: int | None = None,
        wait: bool = True,
        timeout: float = START_TIMEOUT_S,
    ) -> FakeVLLMProcess:
        """Launch ``vllm serve MODEL`` with ``extra`` flags; by default wait until healthy."""
        port = port or free_port()
        index = len(self.started)
        log_path = self.workdir / f"fake-vllm-{index}.log"
        request_log = self.workdir / f"fake-vllm-{index}.requests.jsonl"
        flags = ["--fake-request-log", str(request_log)]
        if served_model_name:
            flags += ["--served-model-name", served_model_name]
        if api_key:
            flags += ["--api-key", api_key]
        if max_model_len:
            flags += ["--max-model-len", str(max_model_len)]
        argv = fake_vllm_argv(model, port, *flags, *extra)
        env = {k: v for k, v in os.environ.items() if k != "VLLM_API_KEY"}
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                argv,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                start_new_session=True,  # its own group: teardown kills the engine child too
            )
        server = FakeVLLMProcess(
            process=process,
            port=port,
            model=served_model_name or model,
            api_key=api_key,
            log_path=log_path,
            request_log=request_log,
            argv=argv,
        )
        self.started.append(server)
        if wait:
            server.wait_ready(timeout)
        return server

    def close(self) -> None:
        for server in self.started:
            server.stop(signal.SIGKILL)

    def __enter__(self) -> FakeVLLMFactory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


@pytest.fixture
def fake_vllm_factory(tmp_path: Path) -> Iterator[FakeVLLMFactory]:
    """A ``FakeVLLMFactory`` in the test's tmp_path (import it into a test module to use it)."""
    with FakeVLLMFactory(tmp_path) as factory:
        yield factory


async def translate_all(
    server: FakeVLLMProcess,
    limiter: Limiter,
    texts: list[str],
    target: str = "de",
    timeout_s: float = 60,
) -> list[str]:
    """Translate ``texts`` from English with the real :class:`LLMClient` against ``server``, every
    request inside a ``limiter`` slot, all at once; the answers in order."""
    client = LLMClient(
        base_url=server.base_url,
        model=server.model,
        api_key=None,
        prompt_format="translategemma",
        timeout_s=timeout_s,
        deadline_s=timeout_s,
        max_attempts=2,
    )

    async def one(text: str) -> str:
        async with limiter.slot():
            return await client.translate(text, Language.parse("en"), Language.parse(target))

    async with client:
        return await asyncio.gather(*(one(t) for t in texts))


def read_request_log(path: Path) -> list[dict[str, Any]]:
    """Entries of a ``--fake-request-log`` file written by a fake started elsewhere."""
    if not path.exists():
        return []
    # A line still being appended by the fake has no newline yet: leave it for the next read.
    complete = path.read_text("utf-8").split("\n")[:-1]
    return [json.loads(line) for line in complete if line.strip()]


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass
    except PermissionError:
        os.kill(pid, sig)


__all__: Sequence[str] = [
    "DEFAULT_MODEL",
    "FAKE_VLLM",
    "FAKE_VLLM_SCRIPT",
    "FakeVLLMFactory",
    "FakeVLLMProcess",
    "fake_vllm_argv",
    "fake_vllm_factory",
    "read_request_log",
    "translate_all",
]
