"""Issue 25: `zotero-translate vllm start|stop|sleep|wake --gpu-host NAME` with two GPU hosts.

Each host is a real local manager with its own fake nvidia-smi and its own fake vLLM command
(``tests.helpers.manager.Rig``: a launch is logged per start); the CLI runs as a process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from common.settings import load_settings
from tests.helpers.gpu import comfyui_argv, running
from tests.helpers.manager import MODEL, Rig
from tests.helpers.paths import REPO_ROOT
from tests.helpers.server import run_app

REPO = REPO_ROOT
COMFY_MIB = 20480


@pytest.fixture
def rigs(tmp_path: Path) -> Iterator[tuple[Rig, Rig]]:
    a, b = Rig(tmp_path / "host-a"), Rig(tmp_path / "host-b")
    yield a, b
    a.reap()
    b.reap()


def _config(tmp_path: Path, *rigs: tuple[str, Rig], idle_action: str = "stop") -> Path:
    lines = [
        f'vllm_idle_action = "{idle_action}"',
        "vllm_idle_shutdown_s = 0.0",
        f"data_dir = {json.dumps(str(tmp_path / 'data'))}",
        f'llm_model = "{MODEL}"',
        "gpu_poll_s = 0.2",
        "gpu_wait_s = 0.5",
        "vllm_ready_timeout_s = 30.0",
        "vllm_stop_grace_s = 3.0",
    ]
    for name, rig in rigs:
        lines += [
            "[[hosts]]",
            f'name = "{name}"',
            f'llm_base_url = "{rig.base_url}/v1"',
            'manager = "local"',
            f"vllm_command = {json.dumps(rig.vllm_command())}",
            f"nvidia_smi = {json.dumps(str(rig.smi.path))}",
            f'vllm_match_keywords = "{rig.token}"',
            f'gpu_watch_keywords = "{rig.token}"',
        ]
    config = tmp_path / "zt.toml"
    config.write_text("\n".join(lines) + "\n")
    return config


def cli(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZT_")}
    return subprocess.run(
        [sys.executable, "-m", "zotero_server.cli", "--config", str(config), *args],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(REPO)},
        cwd=REPO,
        timeout=120,
    )


def test_vllm_actions_address_the_named_host_and_stop_reaches_every_host(
    rigs: tuple[Rig, Rig], tmp_path: Path
) -> None:
    a, b = rigs
    config = _config(tmp_path, ("desk", a), ("attic", b))

    unknown = cli(config, "vllm", "start", "--gpu-host", "cellar")
    assert unknown.returncode == 2
    assert "cellar" in unknown.stderr and "desk, attic" in unknown.stderr

    started = cli(config, "vllm", "start", "--gpu-host", "attic")
    assert started.returncode == 0, started.stderr
    assert started.stdout.startswith("attic: vLLM ready")
    assert (a.launch_count(), b.launch_count()) == (0, 1)

    # Without --gpu-host, start brings up one host as a paper would: one is ready, so none more.
    again = cli(config, "vllm", "start")
    assert again.returncode == 0, again.stderr
    assert "attic is ready already" in again.stdout
    assert (a.launch_count(), b.launch_count()) == (0, 1)

    stopped = cli(config, "vllm", "stop")
    assert stopped.returncode == 0, stopped.stderr
    lines = dict(line.split(": ", 1) for line in stopped.stdout.splitlines())
    assert lines["attic"].startswith("stopped vLLM")
    assert lines["desk"] == "no vLLM launched by zotero-translate is running"


def test_a_named_host_is_never_started_over_its_tenant(
    rigs: tuple[Rig, Rig], tmp_path: Path
) -> None:
    a, b = rigs
    config = _config(tmp_path, ("desk", a), ("attic", b))
    with running(comfyui_argv(a.tmp)) as comfy:
        a.smi.set(processes=[{"pid": comfy.pid, "used_gpu_memory": COMFY_MIB}])
        refused = cli(config, "vllm", "start", "--gpu-host", "desk")
    assert refused.returncode == 1
    assert "busy" in refused.stderr.lower() or "comfy" in refused.stderr.lower(), refused.stderr
    assert (a.launch_count(), b.launch_count()) == (0, 0)


@pytest.mark.slow
def test_sleep_and_wake_address_one_host_and_leave_the_other_serving(
    rigs: tuple[Rig, Rig], tmp_path: Path
) -> None:
    a, b = rigs
    for rig in rigs:  # each card shows its own vLLM's memory, so a wake knows it fits
        rig.smi.set(discover=[{"cmdline_contains": [rig.token, "serve"], "used_gpu_memory": 28000}])
    config = _config(tmp_path, ("desk", a), ("attic", b), idle_action="sleep")
    for name in ("desk", "attic"):
        assert cli(config, "vllm", "start", "--gpu-host", name).returncode == 0

    slept = cli(config, "vllm", "sleep", "--gpu-host", "attic")
    assert slept.returncode == 0, slept.stderr
    assert slept.stdout.startswith("attic: ") and "asleep" in slept.stdout
    assert "asleep" in cli(config, "vllm", "status", "--gpu-host", "attic").stdout
    assert "healthy" in cli(config, "vllm", "status", "--gpu-host", "desk").stdout

    # Without --gpu-host, wake brings up one host as a paper would: desk serves, so none.
    idle = cli(config, "vllm", "wake")
    assert idle.returncode == 0 and "desk is ready already" in idle.stdout
    assert "asleep" in cli(config, "vllm", "status", "--gpu-host", "attic").stdout

    woken = cli(config, "vllm", "wake", "--gpu-host", "attic")
    assert woken.returncode == 0, woken.stderr
    assert woken.stdout.startswith("attic: ")
    assert "healthy" in cli(config, "vllm", "status", "--gpu-host", "attic").stdout
    assert (a.launch_count(), b.launch_count()) == (1, 1)  # woken, never launched again

    # The cooperative hand-back over HTTP names the card its tenant wants.
    with run_app(load_settings(config)) as srv:
        unknown = httpx.post(f"{srv.url}/api/vllm/sleep", params={"host": "cellar"}, timeout=30)
        assert unknown.status_code == 404
        assert "desk, attic" in unknown.json()["message"]
        answer = httpx.post(f"{srv.url}/api/vllm/sleep", params={"host": "desk"}, timeout=30)
        assert answer.status_code == 200, answer.text
        assert answer.json()["message"].startswith("desk: ")
    assert "asleep" in cli(config, "vllm", "status", "--gpu-host", "desk").stdout
    assert "healthy" in cli(config, "vllm", "status", "--gpu-host", "attic").stdout
