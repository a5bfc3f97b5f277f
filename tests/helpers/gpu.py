"""Test helpers for the GPU status code: a per-test fake nvidia-smi, real processes to find,
and a uvicorn server in a thread.

Other areas (the vLLM manager tests) may use these too: ``FakeSmi`` gives an nvidia-smi path
for ``Settings(nvidia_smi=...)`` whose GPU a test rewrites at will.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from pydantic import SecretStr

from common.settings import Settings
from tests.fakes.fake_nvidia_smi import DEFAULT_STATE
from tests.helpers.net import free_port, wait_for_port

FAKES = Path(__file__).resolve().parent.parent / "fakes"
FAKE_SMI_SCRIPT = FAKES / "fake_nvidia_smi.py"
GPU_UUID = "GPU-5f3c8a1e-2b7d-4c19-9e8f-0a1b2c3d4e5f"
GPU_UUID_2 = "GPU-0b9e7d6c-5a4f-4e3d-8c2b-1a0f9e8d7c6b"
# The fake reports any process titled like vLLM's engine core as holding 28000 MiB, so a fake
# vLLM started with --fake-engine-child shows up on the GPU by itself once loaded.
DISCOVER_VLLM: dict[str, Any] = {"cmdline_contains": "VLLM::EngineCore", "used_gpu_memory": 28000}


def gpu(index: int = 0, uuid: str = GPU_UUID, **fields: Any) -> dict[str, Any]:
    """A GPU of the fake's state: the fake's default RTX 5090 at rest unless ``fields`` say
    otherwise (``memory_used=...`` sets ``memory.used``: underscores become dots)."""
    row: dict[str, Any] = {**DEFAULT_STATE["gpus"][0], "index": index, "uuid": uuid}
    row.update({k.replace("_", "."): v for k, v in fields.items()})
    return row


class FakeSmi:
    """A fake ``nvidia-smi`` executable in ``directory`` with its own state file.

    The generated wrapper names its state file and Python itself, so it behaves the same when
    run from a process that does not inherit our environment (a Jupyter terminal's login shell).
    Starts as one idle GPU with no processes and no discover rules.
    """

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.state_path = directory / "fake_nvidia_smi.json"
        self.path = directory / "nvidia-smi"
        self.call_log = directory / "calls.log"
        self.path.write_text(
            "#!/bin/sh\n"
            f"FAKE_NVIDIA_SMI_STATE={shlex.quote(str(self.state_path))} "
            f"exec {shlex.quote(sys.executable)} -S {shlex.quote(str(FAKE_SMI_SCRIPT))} "
            '"$@"\n'
        )
        self.path.chmod(0o755)
        self.set()

    def set(
        self,
        *,
        mode: str = "normal",
        gpus: Sequence[dict[str, Any]] | None = None,
        processes: Sequence[dict[str, Any]] = (),
        discover: Sequence[dict[str, Any]] = (),
    ) -> None:
        """Replace the whole state (see tests/fakes/fake_nvidia_smi.py for the keys)."""
        state = {
            "mode": mode,
            "gpus": list(gpus) if gpus is not None else [gpu()],
            "processes": list(processes),
            "discover": list(discover),
            "call_log": str(self.call_log),
        }
        self.state_path.write_text(json.dumps(state, indent=2))

    def calls(self) -> list[str]:
        """The argument lines of every call so far."""
        return self.call_log.read_text().splitlines() if self.call_log.exists() else []


@contextmanager
def running(
    argv: Sequence[str], executable: str | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """A real process for the duration of the block; killed and reaped afterwards.

    ``executable`` runs that program with ``argv[0]`` as its title (``VLLM::EngineCore``).
    """
    proc = subprocess.Popen(
        list(argv),
        executable=executable,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_cmdline(proc.pid)
        yield proc
    finally:
        proc.kill()
        proc.wait()


def wait_for_cmdline(pid: int, timeout: float = 10.0) -> None:
    """Popen returns while the child is still inside execve, whose /proc/PID/cmdline reads
    empty for a moment; tests that look at the command line wait for it."""
    deadline = time.monotonic() + timeout
    path = Path(f"/proc/{pid}/cmdline")
    while time.monotonic() < deadline:
        try:
            if path.read_bytes():
                return
        except OSError:
            return  # exited: the test will see that
        time.sleep(0.005)
    raise TimeoutError(f"pid {pid} has no command line after {timeout} s")


def comfyui_argv(directory: Path) -> list[str]:
    """A fake ComfyUI's command line: ``python3 .../ComfyUI/main.py --listen ... --port ...``."""
    main = directory / "ComfyUI" / "main.py"
    main.parent.mkdir(parents=True, exist_ok=True)
    if not main.exists():
        main.symlink_to(FAKES / "fake_comfyui.py")
    return [sys.executable, str(main), "--listen", "127.0.0.1", "--port", "8188"]


def vllm_serve_argv(model: str = "google/translategemma-27b-it") -> list[str]:
    """A process whose command line is that of ``vllm serve`` still loading (holds no GPU).

    The fake vLLM of tests/fakes is used when it exists (it stays in its loading phase for a
    minute); otherwise a sleeping Python whose argv carries ``vllm serve``.
    """
    fake_vllm = FAKES / "fake_vllm.py"
    if fake_vllm.exists():
        port = str(free_port())
        return [
            sys.executable,
            str(fake_vllm),
            "serve",
            model,
            "--port",
            port,
            "--fake-load-s",
            "60",
        ]
    return [sys.executable, "-c", "import time; time.sleep(60)", "vllm", "serve", model]


@contextmanager
def serve_in_thread(app: Any) -> Iterator[str]:
    """Run an ASGI app with uvicorn on a free loopback port; yields its base URL."""
    port = free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", ws="none", lifespan="on"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    try:
        wait_for_port(port, timeout=10.0)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10.0)


TOKEN = "timeline-token"  # the GPU API's token in the timeline tests


def api_settings(settings: Settings, fake: FakeSmi, marker: str) -> Settings:
    return settings.model_copy(
        update={
            "nvidia_smi": fake.path,
            "gpu_watch_keywords": marker,
            "gpu_api_token": SecretStr(TOKEN),
            "gpu_timeline_interval_s": 0.1,
        }
    )
