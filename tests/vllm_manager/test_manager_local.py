"""The vLLM manager on this host (direct launch): the issue's scenarios with real processes.

The fake vLLM is launched for real (detached, own session); the GPU is the fake nvidia-smi,
read by the real in-process probe. Launches are counted from a line the launch command itself
writes, so "exactly one vLLM ever started" is what the processes did, not what the manager says.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess

import httpx
import pytest

from common.errors import GPUBusyError, GPUStatusUnknownError, LLMUnavailableError, VLLMStartError
from common.progress import Stage
from tests.helpers.gpu import comfyui_argv
from tests.helpers.manager import (
    GUARD_S,
    MODEL,
    Recorder,
    Rig,
    eventually,
    pid_of,
    ready,
    translate_one,
)

# The fixtures ``rig`` and ``make_manager`` (pytest finds them by these imports).
from tests.helpers.manager import make_manager_fixture as make_manager_fixture
from tests.helpers.manager import rig_fixture as rig_fixture
from vllm_manager import detach
from vllm_manager.local import LocalLauncher
from vllm_manager.none import NoLauncher

# --- 1. cold start --------------------------------------------------------------------------


async def test_cold_start_launches_once_and_the_request_completes(rig, make_manager) -> None:
    manager = make_manager(rig.settings())
    assert isinstance(manager.launcher, LocalLauncher)
    progress = Recorder()
    await ready(manager, progress)

    assert rig.launch_count() == 1
    assert await translate_one(rig)
    assert progress.messages[0] == "starting vLLM"
    assert any(m.startswith("vLLM loading ") for m in progress.messages)
    assert progress.messages[-1] == "ready"
    assert {e.stage for e in progress.events} == {Stage.STARTING_LLM}
    pid = pid_of(rig)
    assert pid is not None and detach.pid_alive(pid)
    assert os.getsid(pid) == pid, "vLLM must run in its own session to outlive us"
    assert "Starting vLLM API server" in (rig.data_dir / "vllm" / "vllm.log").read_text()


async def test_healthy_vllm_returns_at_once_without_events(rig, make_manager) -> None:
    manager = make_manager(rig.settings())
    await ready(manager)
    progress = Recorder()
    await ready(manager, progress)
    assert progress.events == []
    assert rig.launch_count() == 1


# --- 2. concurrent requests -------------------------------------------------------------------


async def test_twenty_concurrent_requests_share_one_launch(rig, make_manager) -> None:
    manager = make_manager(rig.settings())
    sinks = [Recorder() for _ in range(20)]
    await asyncio.wait_for(asyncio.gather(*(manager.ensure_ready(s) for s in sinks)), GUARD_S)

    assert rig.launch_count() == 1
    assert all(s.messages[-1] == "ready" for s in sinks)
    assert len(rig.our_processes()) == 1


# --- 3. vLLM loading but not on the GPU yet ---------------------------------------------------


async def test_loading_vllm_invisible_on_gpu_is_not_started_twice(rig, make_manager) -> None:
    """The seeds' double-start bug: a second server saw an idle GPU while vLLM was importing.

    The probe is told to watch nothing, so the GPU looks idle; only our lease and pid file
    know a vLLM is on its way.
    """
    settings = rig.settings(
        vllm_command=rig.vllm_command(load_s=1.5), gpu_watch_keywords="nothing-matches-this"
    )
    first, second = make_manager(settings), make_manager(settings)
    first_done = asyncio.create_task(ready(first))
    await eventually(lambda: rig.launch_count() == 1)
    progress = Recorder()
    await ready(second, progress)
    await first_done

    assert rig.launch_count() == 1
    assert "starting vLLM" not in progress.messages
    assert any("vLLM loading" in m for m in progress.messages)


# --- 4. ComfyUI holds the GPU -----------------------------------------------------------------


def comfy_on_gpu(rig: Rig) -> None:
    main = str(rig.tmp / "ComfyUI" / "main.py")
    rig.smi.set(discover=[{"cmdline_contains": main, "used_gpu_memory": 20480, "gpu": 0}])


def start_comfy(rig: Rig) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        comfyui_argv(rig.tmp), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


async def test_busy_gpu_waits_naming_comfyui_then_starts_once_it_exits(rig, make_manager) -> None:
    comfy = start_comfy(rig)
    try:
        comfy_on_gpu(rig)
        manager = make_manager(rig.settings(gpu_wait_s=60))
        progress = Recorder()
        task = asyncio.create_task(ready(manager, progress))
        waiting = [Stage.WAITING_GPU]
        await eventually(lambda: [e.stage for e in progress.events][:3] == waiting * 3)

        assert rig.launch_count() == 0
        message = progress.messages[0]
        assert "ComfyUI/main.py" in message and f"pid {comfy.pid}" in message
        assert "20.0 GiB" in message
        assert progress.events[0].data["holders"][0]["pid"] == comfy.pid
    finally:
        comfy.terminate()
        comfy.wait()
    await task
    assert rig.launch_count() == 1
    assert progress.messages[-1] == "ready"


async def test_busy_gpu_fails_after_the_wait_naming_the_holder(rig, make_manager) -> None:
    comfy = start_comfy(rig)
    try:
        comfy_on_gpu(rig)
        manager = make_manager(rig.settings(gpu_wait_s=0.5))
        with pytest.raises(GPUBusyError) as caught:
            await ready(manager)
    finally:
        comfy.terminate()
        comfy.wait()
    text = str(caught.value)
    assert text.startswith("GPU busy: ") and "ComfyUI/main.py" in text
    assert f"(pid {comfy.pid}, 20.0 GiB)" in text
    assert caught.value.retry_after_s > 0
    assert rig.launch_count() == 0


# --- 5. GPU status unavailable ----------------------------------------------------------------


async def test_unknown_gpu_status_never_launches_and_says_why(rig, make_manager) -> None:
    rig.smi.set(mode="missing")
    manager = make_manager(rig.settings(gpu_wait_s=0.6))
    progress = Recorder()
    with pytest.raises(GPUStatusUnknownError) as caught:
        await ready(manager, progress)

    assert "GPU status unknown" in str(caught.value)
    assert "NVIDIA" in str(caught.value), "the reason nvidia-smi gave is passed on"
    assert progress.messages and progress.messages[0].startswith("waiting for GPU: status unknown")
    assert rig.launch_count() == 0


# --- 6. vLLM crashes while loading ------------------------------------------------------------


async def test_crash_while_loading_fails_at_once_with_the_log_tail(rig, make_manager) -> None:
    settings = rig.settings(
        vllm_command=rig.vllm_command("--fake-crash-during-load", load_s=0.3),
        vllm_ready_timeout_s=600,
    )
    manager = make_manager(settings)
    with pytest.raises(VLLMStartError) as caught:
        await ready(manager)

    text = str(caught.value)
    assert "exited while loading" in text
    assert "Free memory on device cuda:0" in text
    assert rig.launch_count() == 1
    snapshot = await manager.snapshot()
    assert snapshot.lease is None, "a failed start must not block the next one"
    assert snapshot.state == "failed" and "exited while loading" in (snapshot.last_error or "")


async def test_vllm_never_healthy_is_stopped_after_the_timeout(rig, make_manager) -> None:
    settings = rig.settings(
        vllm_command=rig.vllm_command("--fake-health-503", load_s=0.1),
        vllm_ready_timeout_s=1.0,
        vllm_stop_grace_s=1.0,
    )
    manager = make_manager(settings)
    with pytest.raises(VLLMStartError, match="did not become healthy within 1 s"):
        await ready(manager)
    assert rig.our_processes() == []


# --- 8. our server restarted while vLLM runs --------------------------------------------------


async def test_restarted_server_reuses_running_vllm_untouched(rig, make_manager) -> None:
    first = make_manager(rig.settings())
    await ready(first)
    pid = pid_of(rig)
    await first.aclose()
    assert pid is not None and detach.pid_alive(pid), "aclose never stops vLLM"

    second = make_manager(rig.settings())
    await second.start()
    progress = Recorder()
    await ready(second, progress)

    assert rig.launch_count() == 1
    assert progress.events == []
    assert pid_of(rig) == pid and detach.pid_alive(pid)
    snapshot = await second.snapshot()
    assert snapshot.vllm.healthy is True
    assert snapshot.vllm.pid == pid and snapshot.vllm.ours is True


# --- 9. idle give-back ------------------------------------------------------------------------


async def test_idle_give_back_stops_our_vllm(rig, make_manager) -> None:
    manager = make_manager(rig.settings(vllm_idle_shutdown_s=0.4))
    await manager.start()
    await ready(manager)
    pid = pid_of(rig)
    assert pid is not None

    await eventually(lambda: not detach.group_alive_local(pid))
    await eventually(lambda: pid_of(rig) is None)
    assert (await manager.snapshot()).vllm.healthy is False


async def test_idle_give_back_stops_a_vllm_left_by_a_previous_run(rig, make_manager) -> None:
    first = make_manager(rig.settings())
    await ready(first)
    pid = pid_of(rig)
    assert pid is not None
    await first.aclose()

    second = make_manager(rig.settings(vllm_idle_shutdown_s=0.3))
    await second.start()
    await eventually(lambda: not detach.group_alive_local(pid))


async def test_idle_give_back_never_stops_someone_elses_vllm(rig, make_manager) -> None:
    theirs = subprocess.Popen(
        rig.fake_vllm_argv(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        manager = make_manager(rig.settings(vllm_idle_shutdown_s=0.2))
        await manager.start()
        await ready(manager)
        assert rig.launch_count() == 0, "a healthy vLLM is used, not launched"
        await asyncio.sleep(0.6)  # three idle periods: a give-back would have happened
        assert theirs.poll() is None
        assert (await manager.health()).ok
        assert (await manager.snapshot()).vllm.ours is False
        assert await manager.stop_vllm() is False
        assert theirs.poll() is None
    finally:
        theirs.kill()
        theirs.wait()


async def test_idle_give_back_waits_for_running_work(rig, make_manager) -> None:
    manager = make_manager(rig.settings(vllm_idle_shutdown_s=0.2))
    await manager.start()
    async with manager.work():
        await ready(manager)
        pid = pid_of(rig)
        assert pid is not None
        await asyncio.sleep(0.6)  # three idle periods pass while a translation runs
        assert detach.group_alive_local(pid)
        assert (await manager.health()).ok
    await eventually(lambda: not detach.group_alive_local(pid))


async def test_stop_kills_a_vllm_that_ignores_sigterm(rig, make_manager) -> None:
    settings = rig.settings(
        vllm_command=rig.vllm_command("--fake-ignore-sigterm", "--fake-engine-child"),
        vllm_stop_grace_s=0.3,
    )
    manager = make_manager(settings)
    await ready(manager)
    pid = pid_of(rig)
    assert pid is not None

    assert await manager.stop_vllm() is True
    assert not detach.group_alive_local(pid), "the engine child dies with the group"
    assert pid_of(rig) is None


async def test_stop_lets_vllm_shut_down_gracefully(rig, make_manager) -> None:
    manager = make_manager(rig.settings())
    await ready(manager)
    assert await manager.stop_vllm() is True
    log = (rig.data_dir / "vllm" / "vllm.log").read_text()
    assert "Received signal SIGTERM" in log and "Application shutdown complete" in log


# --- ZT_MANAGER=none --------------------------------------------------------------------------


async def test_manager_none_reports_a_down_vllm_and_never_launches(rig, make_manager) -> None:
    manager = make_manager(rig.settings(manager="none"))
    assert isinstance(manager.launcher, NoLauncher)
    with pytest.raises(LLMUnavailableError) as caught:
        await ready(manager)
    assert str(caught.value).startswith(f"vLLM at {rig.base_url} is not answering")
    assert "ZT_MANAGER=none, start it yourself" in str(caught.value)
    assert rig.launch_count() == 0


async def test_manager_none_accepts_a_healthy_vllm(rig, make_manager) -> None:
    theirs = subprocess.Popen(
        rig.fake_vllm_argv(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        manager = make_manager(rig.settings(manager="none"))
        await eventually(lambda: _healthy(rig))
        await ready(manager)
        snapshot = await manager.snapshot()
        assert snapshot.manager == "none" and snapshot.vllm.healthy is True
    finally:
        theirs.send_signal(signal.SIGTERM)
        theirs.wait()


async def test_wrong_model_is_not_healthy_and_says_what_is_served(rig, make_manager) -> None:
    theirs = subprocess.Popen(
        rig.fake_vllm_argv(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        await eventually(lambda: _healthy(rig))
        manager = make_manager(rig.settings(manager="none", llm_model="other/model"))
        with pytest.raises(LLMUnavailableError, match=f"it serves {MODEL}, not other/model"):
            await ready(manager)
    finally:
        theirs.kill()
        theirs.wait()


async def test_vllm_serving_another_model_fails_at_once(rig, make_manager) -> None:
    theirs = subprocess.Popen(
        rig.fake_vllm_argv(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        await eventually(lambda: _healthy(rig))
        manager = make_manager(rig.settings(llm_model="other/model"))
        with pytest.raises(VLLMStartError, match="fix ZT_LLM_MODEL"):
            await ready(manager)
        assert rig.launch_count() == 0
    finally:
        theirs.kill()
        theirs.wait()


def _healthy(rig: Rig) -> bool:
    try:
        return httpx.get(f"{rig.base_url}/health", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False
