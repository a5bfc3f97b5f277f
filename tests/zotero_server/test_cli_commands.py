"""`zotero-translate status`, `vllm start|status|stop` and a cold-start `translate`, as processes.

The GPU is the fake nvidia-smi about real processes; vLLM is the fake vLLM launched by the
local manager (detached, as in production), so these show what a user sees in a terminal.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.gpu import FakeSmi, comfyui_argv, running
from tests.helpers.net import free_port
from tests.helpers.paths import REPO_ROOT
from tests.helpers.pdfgen.textbox import small_paper

REPO = REPO_ROOT
FAKE_VLLM = REPO / "tests" / "fakes" / "fake_vllm.py"
MODEL = "google/translategemma-27b-it"


def run_cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zotero_server.cli", *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[tuple[dict[str, str], FakeSmi]]:
    """Settings for a local manager that launches the fake vLLM directly; stops it afterwards."""
    smi = FakeSmi(tmp_path / "smi")
    port = free_port()
    # A token only our fake vLLM's command line carries: other tests' processes on this machine
    # (and the fake ComfyUI, whose path is under tmp_path) must not look like our vLLM.
    token = f"ztvllm{uuid.uuid4().hex[:12]}"
    command = shlex.join(
        [sys.executable, str(FAKE_VLLM), "serve", MODEL, "--port", str(port)]
        + ["--fake-load-s", "0.5", "--fake-engine-child", "--download-dir", f"/tmp/{token}"]
    )
    env = {
        "ZT_MANAGER": "local",
        "ZT_LLM_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "ZT_DATA_DIR": str(tmp_path / "data"),
        "ZT_NVIDIA_SMI": str(smi.path),
        "ZT_VLLM_COMMAND": command,
        "ZT_GPU_POLL_S": "0.2",
        "ZT_GPU_WAIT_S": "1",
        "ZT_VLLM_READY_TIMEOUT_S": "30",
        "ZT_VLLM_STOP_GRACE_S": "5",
        "ZT_GPU_WATCH_KEYWORDS": f"{token},{tmp_path.name}",
        "ZT_VLLM_MATCH_KEYWORDS": f"{token},VLLM::",
    }
    yield env, smi
    pid_files = list((tmp_path / "data").rglob("*.pid"))
    for pid_file in pid_files:
        try:
            os.killpg(int(pid_file.read_text().strip()), signal.SIGKILL)
        except (ValueError, ProcessLookupError, PermissionError):
            pass


def test_status_on_an_idle_gpu(rig: tuple[dict[str, str], FakeSmi]) -> None:
    env, _ = rig
    result = run_cli(["status"], env)
    assert result.returncode == 3, result.stderr  # vLLM is down (the next paper starts it)
    assert "decision: idle" in result.stdout
    assert "down" in result.stdout  # vLLM is not running yet
    assert "\nfonts    " in result.stdout  # the faces translations are set in


def test_vllm_start_status_stop(rig: tuple[dict[str, str], FakeSmi]) -> None:
    env, _ = rig
    started = run_cli(["vllm", "start"], env)
    assert started.returncode == 0, started.stderr
    assert "vLLM ready" in started.stdout
    assert "launched by zotero-translate" in started.stdout

    status = run_cli(["vllm", "status"], env)
    assert "healthy" in status.stdout and status.returncode == 0

    stopped = run_cli(["vllm", "stop"], env)
    assert stopped.returncode == 0, stopped.stderr
    assert stopped.stdout.startswith("stopped vLLM")
    deadline = time.monotonic() + 10
    while "healthy" in run_cli(["vllm", "status"], env).stdout and time.monotonic() < deadline:
        time.sleep(0.2)
    assert "down" in run_cli(["vllm", "status"], env).stdout


def test_translate_cold_starts_vllm_once(
    rig: tuple[dict[str, str], FakeSmi], tmp_path: Path
) -> None:
    env, _ = rig
    paper = tmp_path / "paper.pdf"
    paper.write_bytes(small_paper(pages=1))
    result = run_cli(["translate", str(paper), "--no-dual"], env)
    assert result.returncode == 0, result.stderr
    assert "starting vLLM" in result.stderr
    assert (tmp_path / "paper-mono.pdf").exists()
    logs = list((tmp_path / "data").rglob("*.log"))
    assert logs, "the launched vLLM writes a log file"
    assert run_cli(["vllm", "stop"], env).stdout.startswith("stopped vLLM")


def test_busy_gpu_fails_naming_the_holder(
    rig: tuple[dict[str, str], FakeSmi], tmp_path: Path
) -> None:
    env, smi = rig
    with running(comfyui_argv(tmp_path)) as comfy:
        smi.set(processes=[{"pid": comfy.pid, "used_memory": 20480}])
        paper = tmp_path / "paper.pdf"
        paper.write_bytes(small_paper(pages=1))
        result = run_cli(["translate", str(paper)], env)
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert "GPU busy" in last and "ComfyUI/main.py" in last
    assert not (tmp_path / "paper-mono.pdf").exists()
    assert not list((tmp_path / "data").rglob("*.log")), "nothing was launched"


def test_vllm_stop_without_a_manager_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli(["vllm", "stop"], {"ZT_MANAGER": "none", "ZT_DATA_DIR": str(tmp_path)})
    assert result.returncode == 2
    assert "ZT_MANAGER=none" in result.stderr and result.stdout == ""
