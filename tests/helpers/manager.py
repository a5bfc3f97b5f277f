"""A per-test rig for the vLLM manager: fake nvidia-smi, fake vLLM command, process reaper.

Every rig has a unique ``token`` that appears in the command line of every process it launches
(the fake vLLM's model path). The manager's vLLM keywords and the probe's watch keywords are set
to that token, so fake vLLMs of other tests running on the same machine are invisible, and
teardown kills exactly the process groups that carry the token.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from openai import AsyncOpenAI

from common.progress import Progress
from common.settings import Settings, load_settings
from tests.helpers.gpu import FakeSmi
from tests.helpers.jupyter import JupyterServer
from tests.helpers.net import free_port
from tests.helpers.vllm import PROFILE_FLAGS
from vllm_manager import detach
from vllm_manager.manager import VLLMManager
from zotero_server.manager_factory import create_manager

FAKES = Path(__file__).resolve().parent.parent / "fakes"
FAKE_VLLM = FAKES / "fake_vllm.py"
MODEL = "google/translategemma-27b-it"
GUARD_S = 30.0  # a hung ensure_ready fails the test instead of hanging the suite

# Timing knobs: tiny, so the whole manager suite stays fast.
GPU_POLL_S = 0.2
LOAD_S = 0.3
WAIT_TIMEOUT_S = 30.0  # upper bound for a polling helper; never reached when things work


@dataclass
class Rig:
    tmp: Path
    token: str = field(default_factory=lambda: "zt" + uuid.uuid4().hex[:12])
    port: int = field(default_factory=free_port)

    def __post_init__(self) -> None:
        self.smi = FakeSmi(self.tmp / "smi")
        self.launches = self.tmp / "launches.txt"
        self.request_log = self.tmp / "requests.jsonl"
        self.data_dir = self.tmp / "data"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def vllm_command(self, *flags: str, load_s: float = LOAD_S) -> str:
        """The fake vLLM by absolute path (a terminal's login shell resets PATH); each launch
        appends a line to :attr:`launches` first."""
        argv = [
            sys.executable,
            str(FAKE_VLLM),
            "serve",
            f"/models/{self.token}/translategemma-27b-it",
            "--served-model-name",
            MODEL,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--fake-load-s",
            str(load_s),
            "--fake-request-log",
            str(self.request_log),
            *PROFILE_FLAGS,
            *flags,
        ]
        return f"echo launch >> {shlex.quote(str(self.launches))}; exec {shlex.join(argv)}"

    def fake_vllm_argv(self, *flags: str, load_s: float = 0.0) -> list[str]:
        """The same fake vLLM, for a test that starts "someone else's" vLLM by hand."""
        return shlex.split(self.vllm_command(*flags, load_s=load_s).split("; exec ", 1)[1])

    def settings(self, **overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "data_dir": self.data_dir,
            "manager": "local",
            "llm_base_url": f"{self.base_url}/v1",
            "llm_model": MODEL,
            "vllm_command": self.vllm_command(),
            "vllm_match_keywords": self.token,
            "gpu_watch_keywords": self.token,
            "nvidia_smi": self.smi.path,
            "gpu_poll_s": GPU_POLL_S,
            "gpu_wait_s": 5.0,
            "vllm_ready_timeout_s": 30.0,
            "vllm_lease_s": 60.0,
            "vllm_idle_shutdown_s": 0.0,
            "vllm_idle_action": "stop",  # the sleep tests (test_sleep_*.py) ask for sleep
            "vllm_stop_grace_s": 3.0,
            "jupyter_terminal": "zt" + self.token,
        }
        values.update(overrides)
        return load_settings(**values)

    def env(self, settings: Settings) -> dict[str, str]:
        """``ZT_*`` variables reproducing ``settings`` (for a manager in another process)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("ZT_")}
        for name in Settings.model_fields:
            value = getattr(settings, name)
            if value is None:
                continue
            if hasattr(value, "get_secret_value"):
                value = value.get_secret_value()
            env[f"ZT_{name.upper()}"] = str(value)
        return env

    def launch_count(self) -> int:
        return len(self.launches.read_text().splitlines()) if self.launches.exists() else 0

    def our_processes(self) -> list[int]:
        """Live (non-zombie) pids whose command line carries the token."""
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                state = (entry / "stat").read_text().rpartition(")")[2].split()[0]
            except (OSError, IndexError, UnicodeDecodeError):
                continue
            if self.token in cmdline and state != "Z":
                found.append(int(entry.name))
        return found

    def reap(self) -> None:
        """Kill the process group of every process carrying the token (test teardown)."""
        for _ in range(3):
            pids = self.our_processes()
            if not pids:
                return
            for pid in pids:
                for kill in (os.killpg, os.kill):
                    try:
                        kill(pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
            time.sleep(0.1)


class Recorder:
    """A progress sink that keeps every event."""

    def __init__(self) -> None:
        self.events: list[Progress] = []

    def __call__(self, event: Progress) -> None:
        self.events.append(event)

    @property
    def messages(self) -> list[str]:
        return [e.message for e in self.events]


async def eventually(predicate: Callable[[], bool], timeout: float = WAIT_TIMEOUT_S) -> None:
    """Poll ``predicate`` (without blocking the loop) until true; AssertionError on timeout."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await asyncio.sleep(0.05)


# Fixtures for the manager test modules: import them (``rig_fixture``, ``make_manager_fixture``)
# into a module to use ``rig`` and ``make_manager`` there.


@pytest.fixture(name="rig")
def rig_fixture(tmp_path: Path) -> Iterator[Rig]:
    """A fresh :class:`Rig`; every process it launched is killed at teardown."""
    r = Rig(tmp_path)
    yield r
    r.reap()


@pytest.fixture(name="make_manager")
async def make_manager_fixture() -> AsyncIterator[Callable[[Settings], VLLMManager]]:
    """``make_manager(settings)``: ``create_manager(settings)``, closed at teardown."""
    made: list[VLLMManager] = []

    def make(settings: Settings) -> VLLMManager:
        manager = create_manager(settings)
        made.append(manager)
        return manager

    yield make
    for manager in made:
        await manager.aclose()


def pid_of(rig: Rig) -> int | None:
    return detach.read_pid_file(rig.data_dir / "vllm" / "vllm.pid")


async def ready(manager: VLLMManager, sink: Any = None) -> None:
    if sink is None:
        await asyncio.wait_for(manager.ensure_ready(), GUARD_S)
    else:
        await asyncio.wait_for(manager.ensure_ready(sink), GUARD_S)


async def translate_one(rig: Rig, text: str = "Hello world") -> str:
    messages: list[Any] = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": text, "source_lang_code": "en", "target_lang_code": "ko"}
            ],
        }
    ]
    async with AsyncOpenAI(base_url=f"{rig.base_url}/v1", api_key="x", max_retries=0) as client:
        answer = await client.chat.completions.create(model=MODEL, messages=messages, temperature=0)
    return answer.choices[0].message.content or ""


def remote_settings(rig: Rig, jupyter: JupyterServer, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "manager": "remote",
        "jupyter_url": jupyter.url,
        "jupyter_token": jupyter.token,
        "vllm_workdir": str(rig.tmp / "remote-home" / "vllm"),
    }
    values.update(overrides)
    return rig.settings(**values)
