"""The vLLM manager through a real JupyterLab terminal (remote, and local-through-Jupyter).

The Jupyter server runs on loopback, so "remote" is this host reached only through the
terminals API: every launch, probe, signal and log read of the JupyterLauncher goes through it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from common.errors import JupyterError, VLLMStartError

# The module-scoped JupyterLab fixture ``jupyter``.
from tests.helpers.jupyter import jupyter_fixture as jupyter_fixture
from tests.helpers.manager import Recorder, Rig, eventually, remote_settings

# The fixtures ``rig`` and ``make_manager`` (pytest finds them by these imports).
from tests.helpers.manager import make_manager_fixture as make_manager_fixture
from tests.helpers.manager import rig_fixture as rig_fixture
from tests.helpers.net import free_port
from vllm_manager import detach
from vllm_manager.jupyter import JupyterTerminals
from vllm_manager.local import LocalLauncher
from vllm_manager.manager import VLLMManager
from vllm_manager.remote import JupyterLauncher

GUARD_S = 30.0


def remote_pid(rig: Rig) -> int | None:
    return detach.read_pid_file(rig.tmp / "remote-home" / "vllm" / "vllm.pid")


async def ready(manager: VLLMManager, sink: Any = None) -> None:
    if sink is None:
        await asyncio.wait_for(manager.ensure_ready(), GUARD_S)
    else:
        await asyncio.wait_for(manager.ensure_ready(sink), GUARD_S)


def environ_of(pid: int) -> str:
    return Path(f"/proc/{pid}/environ").read_bytes().replace(b"\0", b"\n").decode()


async def test_remote_cold_start_goes_through_the_terminal(rig, jupyter, make_manager) -> None:
    settings = remote_settings(rig, jupyter)
    manager = make_manager(settings)
    assert isinstance(manager.launcher, JupyterLauncher)
    progress = Recorder()
    await ready(manager, progress)

    assert rig.launch_count() == 1
    assert progress.messages[0] == "starting vLLM" and progress.messages[-1] == "ready"
    pid = remote_pid(rig)
    assert pid is not None and detach.group_alive_local(pid)
    assert "JUPYTER_SERVER_URL=" in environ_of(pid), "launched from a Jupyter terminal"
    terminals = JupyterTerminals(jupyter.url, jupyter.token)
    assert settings.jupyter_terminal in await terminals.list_terminals()
    await terminals.aclose()
    snapshot = await manager.snapshot()
    assert snapshot.vllm.ours is True and snapshot.vllm.pid == pid
    assert snapshot.vllm.log == f"127.0.0.1:{rig.tmp}/remote-home/vllm/vllm.log"


async def test_remote_concurrent_requests_share_one_launch(rig, jupyter, make_manager) -> None:
    manager = make_manager(remote_settings(rig, jupyter))
    await asyncio.wait_for(asyncio.gather(*(manager.ensure_ready() for _ in range(20))), GUARD_S)
    assert rig.launch_count() == 1


async def test_remote_crash_while_loading_shows_the_remote_log_tail(
    rig, jupyter, make_manager
) -> None:
    settings = remote_settings(
        rig, jupyter, vllm_command=rig.vllm_command("--fake-crash-during-load", load_s=0.3)
    )
    manager = make_manager(settings)
    with pytest.raises(VLLMStartError) as caught:
        await ready(manager)
    assert "exited while loading" in str(caught.value)
    assert "Engine core initialization failed" in str(caught.value)
    assert rig.launch_count() == 1


async def test_remote_restart_reuses_vllm_and_gives_it_back_when_idle(
    rig, jupyter, make_manager
) -> None:
    first = make_manager(remote_settings(rig, jupyter))
    await ready(first)
    pid = remote_pid(rig)
    assert pid is not None
    await first.aclose()
    assert detach.group_alive_local(pid)

    second = make_manager(remote_settings(rig, jupyter, vllm_idle_shutdown_s=0.3))
    await ready(second)
    assert rig.launch_count() == 1
    await second.start()
    await eventually(lambda: not detach.group_alive_local(pid))
    await eventually(lambda: remote_pid(rig) is None)
    log = (rig.tmp / "remote-home" / "vllm" / "vllm.log").read_text()
    assert "Received signal SIGTERM" in log, "stopped gracefully, through the terminal"


async def test_terminal_deleted_under_us_leaves_vllm_running(rig, jupyter, make_manager) -> None:
    settings = remote_settings(rig, jupyter)
    manager = make_manager(settings)
    await ready(manager)
    pid = remote_pid(rig)
    assert pid is not None
    terminals = JupyterTerminals(jupyter.url, jupyter.token)
    await terminals.delete_terminal(settings.jupyter_terminal)
    await terminals.aclose()

    assert detach.group_alive_local(pid)
    assert (await manager.health()).ok
    assert await manager.stop_vllm() is True, "the terminal is created again to stop it"
    assert not detach.group_alive_local(pid)


async def test_wrong_jupyter_token_fails_clearly_and_frees_the_lease(
    rig, jupyter, make_manager
) -> None:
    manager = make_manager(remote_settings(rig, jupyter, jupyter_token="wrong"))
    with pytest.raises(JupyterError, match="the token was rejected"):
        await ready(manager)
    assert rig.launch_count() == 0
    snapshot = await manager.snapshot()
    assert snapshot.lease is None
    assert "token was rejected" in (snapshot.vllm.error or "")


async def test_jupyter_down_fails_clearly(rig, make_manager) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    manager = make_manager(
        rig.settings(manager="remote", jupyter_url=url, jupyter_token="t", vllm_workdir="/x")
    )
    with pytest.raises(JupyterError, match=f"Jupyter at {url} is not answering"):
        await ready(manager)
    assert rig.launch_count() == 0


async def test_local_manager_launches_through_a_local_jupyter(rig, jupyter, make_manager) -> None:
    manager = make_manager(rig.settings(jupyter_url=jupyter.url, jupyter_token=jupyter.token))
    assert isinstance(manager.launcher, LocalLauncher)
    await ready(manager)
    assert rig.launch_count() == 1
    pid = detach.read_pid_file(rig.data_dir / "vllm" / "vllm.pid")
    assert pid is not None
    assert "JUPYTER_SERVER_URL=" in environ_of(pid)
    assert await manager.stop_vllm() is True
    assert not detach.group_alive_local(pid)
