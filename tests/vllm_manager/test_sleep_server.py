"""Issue 11 end to end: the real server, the real manager, the fake vLLM it launches.

A server with ``ZT_VLLM_IDLE_ACTION=sleep`` translates a paper, puts vLLM to sleep after the
idle time, says so on ``/health`` and in ``zotero-translate status``, and the next paper wakes
it without a second launch; ``POST /api/vllm/sleep`` (behind the token) hands the GPU back at
once. The fake vLLM's own counters prove no completion ever reached it asleep.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from tests.helpers.gpu import comfyui_argv
from tests.helpers.manager import Rig
from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import RunningServer, plugin_body, run_app, wait_until
from vllm_manager import detach
from vllm_manager.state import VLLMState
from zotero_server import vllm_commands as commands

TOKEN = "sleep-test-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
FIRST = ("Sleep mode keeps the process and frees almost all of the graphics memory.",)
SECOND = ("The next paper wakes the engine in seconds instead of loading it again.",)
THIRD = ("A third paper arrives after the hand-back and wakes the engine once more.",)


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    r.smi.set(
        discover=[
            {"cmdline_contains": [r.token, "serve"], "used_gpu_memory": 28000, "gpu": 0},
        ]
    )
    yield r
    r.reap()


def translate(srv: RunningServer, paragraphs: tuple[str, ...], name: str) -> None:
    with srv.client(headers=AUTH) as client:
        answer = client.post(
            "/translate", json=plugin_body(small_paper(paragraphs=paragraphs), name)
        )
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "success"


def fake_stats(rig: Rig) -> dict[str, Any]:
    return dict(httpx.get(f"{rig.base_url}/fake/stats", timeout=5).json())


def health_state(srv: RunningServer) -> str:
    return str(httpx.get(f"{srv.url}/health", timeout=10).json()["vllm"]["state"])


@pytest.mark.slow
def test_server_sleeps_vllm_when_idle_and_the_next_paper_wakes_it(rig: Rig) -> None:
    settings = rig.settings(
        vllm_idle_action="sleep",
        vllm_idle_shutdown_s=0.5,
        vllm_command=rig.vllm_command(load_s=1.0),
        api_token=SecretStr(TOKEN),
    )
    with run_app(settings) as srv:
        translate(srv, FIRST, "first.pdf")
        pid = detach.read_pid_file(rig.data_dir / "vllm" / "vllm.pid")
        assert pid is not None and rig.launch_count() == 1

        wait_until(lambda: srv.services.manager.state is VLLMState.ASLEEP, what="asleep")
        assert detach.group_alive_local(pid), "the process stays; only the GPU is freed"
        assert health_state(srv) == "asleep"
        snap = httpx.get(f"{srv.url}/health", timeout=10).json()
        assert snap["gpu"]["memory_used_mib"] == 300 + 1024, "the residue is all that is left"
        status_text = commands.format_status(asyncio.run(commands.status(settings)))
        assert "asleep (sleep 1 of 8)" in status_text

        translate(srv, SECOND, "second.pdf")
        assert rig.launch_count() == 1, "woken, not launched again"
        stats = fake_stats(rig)
        assert stats["wakes"] == 1 and stats["sleeps"] >= 1

        # Cooperative hand-back: token required, then asleep at once (or already, by idle).
        refused = httpx.post(f"{srv.url}/api/vllm/sleep", timeout=30)
        assert refused.status_code == 401
        answer = httpx.post(f"{srv.url}/api/vllm/sleep", headers=AUTH, timeout=30)
        assert answer.status_code == 200 and "asleep" in answer.json()["message"]
        assert answer.json()["state"] == "asleep"

        translate(srv, THIRD, "third.pdf")
        metrics = httpx.get(f"{srv.url}/metrics", headers=AUTH, timeout=10).text
        wakes = [line for line in metrics.splitlines() if line.startswith("zt_vllm_wakes_total ")]
        assert wakes and float(wakes[0].split()[1]) >= 2
        assert httpx.get(f"{srv.url}/metrics", timeout=10).status_code == 401
    stats = fake_stats(rig)
    assert rig.launch_count() == 1
    assert stats["completions_while_asleep"] == 0 and stats["sleeps_under_load"] == 0
    assert stats["engine_dead"] is None and stats["wakes"] >= 2


def test_a_paper_does_not_wake_vllm_over_comfyui_and_the_error_names_it(rig: Rig) -> None:
    main = str(rig.tmp / "ComfyUI" / "main.py")
    rig.smi.set(
        discover=[
            {"cmdline_contains": [rig.token, "serve"], "used_gpu_memory": 28000, "gpu": 0},
            {"cmdline_contains": main, "used_gpu_memory": 20480, "gpu": 0},
        ]
    )
    settings = rig.settings(vllm_idle_action="sleep", gpu_wait_s=0.5, api_token=SecretStr(TOKEN))
    with run_app(settings) as srv:
        translate(srv, FIRST, "first.pdf")
        answer = httpx.post(f"{srv.url}/api/vllm/sleep", headers=AUTH, timeout=30)
        assert "asleep" in answer.json()["message"]
        comfy = subprocess.Popen(
            comfyui_argv(rig.tmp), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            with srv.client(headers=AUTH) as client:
                refused = client.post(
                    "/translate", json=plugin_body(small_paper(paragraphs=SECOND), "second.pdf")
                )
        finally:
            comfy.terminate()
            comfy.wait()
        assert refused.status_code == 503, refused.text
        message = refused.json()["message"]
        assert "ComfyUI/main.py" in message and f"pid {comfy.pid}" in message, message
        assert health_state(srv) == "asleep"
    stats = fake_stats(rig)
    assert stats["is_sleeping"] and stats["wakes"] == 0 and rig.launch_count() == 1
    assert stats["completions_while_asleep"] == 0
