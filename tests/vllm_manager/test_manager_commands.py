"""`zotero-translate vllm start|stop|status` and `status`: what the commands return."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from common.errors import GPUBusyError
from tests.helpers.gpu import comfyui_argv
from tests.helpers.manager import Recorder, Rig, eventually
from vllm_manager import detach
from zotero_server import vllm_commands as commands


@pytest.fixture
def rig(tmp_path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.reap()


def pid_of(rig: Rig) -> int | None:
    return detach.read_pid_file(rig.data_dir / "vllm" / "vllm.pid")


async def test_start_status_stop_round_trip(rig) -> None:
    settings = rig.settings()
    progress = Recorder()
    text = await commands.vllm_start(settings, progress)
    pid = pid_of(rig)
    assert pid is not None
    assert text.startswith(f"vLLM ready at {rig.base_url} serving ")
    assert f"pid {pid}, launched by zotero-translate" in text
    assert progress.messages[0] == "starting vLLM"
    assert detach.group_alive_local(pid), "the command's exit leaves vLLM running"

    report = commands.format_status(await commands.status(settings))
    assert f"vLLM     {rig.base_url}  healthy" in report
    assert f"pid {pid}, launched by zotero-translate" in report
    assert "lease    none" in report
    assert "[decision: vllm_loading]" in report, "our running vLLM is seen on the GPU side"
    vllm_only = commands.format_status(await commands.status(settings), vllm_only=True)
    assert "GPU" not in vllm_only and "healthy" in vllm_only

    assert await commands.vllm_stop(settings) == f"stopped vLLM (pid {pid})"
    assert not detach.group_alive_local(pid)
    assert await commands.vllm_stop(settings) == "no vLLM launched by zotero-translate is running"
    report = commands.format_status(await commands.status(settings))
    assert "down (connection refused)" in report
    assert "GPU idle (0.3 GiB in use)  [decision: idle]" in report
    assert rig.launch_count() == 1


async def test_stop_leaves_someone_elses_vllm_running(rig) -> None:
    theirs = subprocess.Popen(
        rig.fake_vllm_argv(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        settings = rig.settings()
        text = await commands.vllm_start(settings)
        assert text.endswith("(started by someone else)")
        text = await commands.vllm_stop(settings)
        assert "was not started by zotero-translate; left running" in text
        assert theirs.poll() is None
    finally:
        theirs.kill()
        theirs.wait()


async def test_status_names_who_holds_the_gpu(rig) -> None:
    main = str(rig.tmp / "ComfyUI" / "main.py")
    rig.smi.set(discover=[{"cmdline_contains": main, "used_gpu_memory": 20480, "gpu": 0}])
    comfy = subprocess.Popen(comfyui_argv(rig.tmp))
    try:
        settings = rig.settings(gpu_wait_s=0)
        report = commands.format_status(await commands.status(settings))
        python = Path(sys.executable).name  # python or python3, as the venv's scripts name it
        assert f"GPU      GPU busy: {python} …/ComfyUI/main.py --listen" in report
        assert f"(pid {comfy.pid}, 20.0 GiB)  [decision: busy]" in report
        assert "memory 20.3 GiB of 31.8 GiB in use" in report
        with pytest.raises(GPUBusyError):
            await commands.vllm_start(settings)
    finally:
        comfy.terminate()
        comfy.wait()
    assert rig.launch_count() == 0


async def test_status_with_manager_none_still_reads_the_gpu(rig) -> None:
    settings = rig.settings(manager="none")
    snap = await commands.status(settings)
    assert snap.gpu is not None and snap.gpu["decision"] == "idle"
    report = commands.format_status(snap)
    assert report.startswith("manager  none")
    assert "no vLLM launched" not in report
    assert await commands.vllm_stop(settings) == (
        "ZT_MANAGER=none: zotero-translate never starts or stops vLLM"
    )


async def test_status_shows_a_start_in_progress(rig) -> None:
    settings = rig.settings(vllm_command=rig.vllm_command(load_s=1.0))
    start = asyncio.create_task(commands.vllm_start(settings))
    await eventually(lambda: (rig.data_dir / "vllm" / "lease.json").exists())
    report = commands.format_status(await commands.status(settings))
    assert "lease    held by pid " in report
    await start


async def test_snapshot_state_follows_health_between_bring_ups(rig) -> None:
    """Regression (QA): /health showed state "unknown" beside healthy: true."""
    settings = rig.settings(manager="none")
    snap = await commands.status(settings)
    assert snap.vllm.healthy is False
    assert snap.state == "down"


async def test_snapshot_says_ready_for_a_vllm_someone_else_runs(rig, fake_vllm_factory) -> None:
    fake = fake_vllm_factory.start()
    settings = rig.settings(manager="none", llm_base_url=fake.base_url)
    snap = await commands.status(settings)
    assert snap.vllm.healthy is True
    assert snap.state == "ready"
