"""Issue 11: the manager puts our idle vLLM to sleep and wakes it, never over another tenant.

Real processes: the fake vLLM launched by the manager (sleep mode on), the fake nvidia-smi that
lists it at 28000 MiB awake and 1024 MiB asleep, a fake ComfyUI. Launches are counted from the
line the launch command writes; the fake vLLM's own counters (``/fake/stats``) say whether a
completion ever reached a sleeping engine or a sleep ever ran under a request.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from common.errors import GPUBusyError, LLMUnavailableError
from common.progress import Stage
from common.settings import Settings
from tests.helpers.deploy import PROFILES, clean_env
from tests.helpers.gpu import comfyui_argv
from tests.helpers.jupyter import JupyterServer

# The module-scoped JupyterLab fixture ``jupyter``.
from tests.helpers.jupyter import jupyter_fixture as jupyter_fixture
from tests.helpers.manager import (
    WAIT_TIMEOUT_S,
    Recorder,
    Rig,
    eventually,
    pid_of,
    ready,
    remote_settings,
    translate_one,
)

# The fixtures ``rig`` and ``make_manager`` (pytest finds them by these imports).
from tests.helpers.manager import make_manager_fixture as make_manager_fixture
from tests.helpers.manager import rig_fixture as rig_fixture
from tests.helpers.paths import REPO_ROOT
from vllm_manager import detach
from vllm_manager.decision import GPUDecision, decide_wake
from vllm_manager.gpu import probe_gpu
from vllm_manager.gpu_api import prometheus_text
from vllm_manager.gpu_model import GPUStatus
from vllm_manager.manager import VLLMManager
from vllm_manager.sleep import (
    SleepRecord,
    choose_idle_action,
    confirm_sleep,
    in_flight,
    launch_command,
    parse_meminfo,
)
from vllm_manager.state import VLLMState

AWAKE_MIB, ASLEEP_MIB = 28000, 1024


def vllm_on_gpu(rig: Rig, asleep_mib: int = ASLEEP_MIB, comfy: bool = False) -> None:
    rules: list[dict[str, Any]] = [
        {
            "cmdline_contains": [rig.token, "serve"],
            "used_gpu_memory": AWAKE_MIB,
            "asleep_mib": asleep_mib,
            "gpu": 0,
        }
    ]
    if comfy:
        main = str(rig.tmp / "ComfyUI" / "main.py")
        rules.append({"cmdline_contains": main, "used_gpu_memory": 20480, "gpu": 0})
    rig.smi.set(discover=rules)


def sleepy(rig: Rig, *flags: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "vllm_idle_action": "sleep",
        "vllm_command": rig.vllm_command("--fake-wake-s", "0.05", *flags),
    }
    values.update(overrides)
    return rig.settings(**values)


def stats(rig: Rig) -> dict[str, Any]:
    return dict(httpx.get(f"{rig.base_url}/fake/stats", timeout=5).json())


def is_sleeping(rig: Rig) -> bool:
    return bool(httpx.get(f"{rig.base_url}/is_sleeping", timeout=5).json()["is_sleeping"])


async def gpu_used(manager: VLLMManager) -> int:
    snap = await manager.snapshot()
    assert snap.gpu is not None
    return int(snap.gpu["memory_used_mib"])


# --- pure rules --------------------------------------------------------------------------------


def test_launch_command_adds_sleep_mode_only_when_the_action_may_sleep(rig: Rig) -> None:
    command = launch_command(rig.settings(vllm_idle_action="auto"))
    assert command.startswith("export VLLM_SERVER_DEV_MODE=1; ")
    assert command.endswith(" --enable-sleep-mode")
    assert launch_command(rig.settings(vllm_idle_action="stop")) == rig.vllm_command()
    flagged = "vllm serve m --enable-sleep-mode"
    already = rig.settings(vllm_idle_action="sleep", vllm_command=flagged)
    assert launch_command(already).count("--enable-sleep-mode") == 1


def test_idle_action_rules(rig: Rig) -> None:
    auto = rig.settings(vllm_idle_action="auto", vllm_weights_gb=17.0)
    ram_ok, ram_short = 32 * 1024, 8 * 1024
    choose = choose_idle_action
    assert choose(auto, sleep_routes=True, mem_available_mib=ram_ok, cycles=0)[0] == "sleep"
    action, why = choose(auto, sleep_routes=True, mem_available_mib=ram_short, cycles=0)
    assert action == "stop" and "host RAM" in why
    assert choose(auto, sleep_routes=False, mem_available_mib=ram_ok, cycles=0)[0] == "stop"
    action, why = choose(auto, sleep_routes=True, mem_available_mib=ram_ok, cycles=8)
    assert action == "stop" and "fresh" in why
    forced = rig.settings(vllm_idle_action="sleep")
    assert choose(forced, sleep_routes=True, mem_available_mib=None, cycles=0)[0] == "sleep"
    stop = rig.settings(vllm_idle_action="stop")
    assert choose(stop, sleep_routes=True, mem_available_mib=ram_ok, cycles=0)[0] == "stop"


def test_meminfo_metrics_and_gpu_rules() -> None:
    assert parse_meminfo("MemTotal: 100 kB\nMemAvailable:   33554432 kB\n") == 32768
    assert parse_meminfo("nothing") is None
    text = (
        'vllm:num_requests_running{engine="0",model_name="m"} 2.0\n'
        'vllm:num_requests_waiting{engine="0",model_name="m"} 1.0\n'
    )
    assert in_flight(text) == 3 and in_flight("# nothing") is None

    def status(used: int, *procs: tuple[str, int]) -> GPUStatus:
        return GPUStatus.model_validate(
            {
                "is_idle": False,
                "memory_used_mib": used,
                "memory_total_mib": 32607,
                "utilization_pct": 0,
                "temperature_c": 40,
                "checked_at": "2026-01-01T00:00:00Z",
                "processes": [
                    {"pid": i + 10, "command": c, "memory_mib": m} for i, (c, m) in enumerate(procs)
                ],
            }
        )

    awake = status(28300, ("vllm serve tg", 28000))
    asleep = status(1324, ("vllm serve tg", 1024))
    assert confirm_sleep(awake, asleep, ["vllm"]) == (26976, True)
    assert confirm_sleep(awake, awake, ["vllm"]) == (0, False)
    assert confirm_sleep(awake, None, ["vllm"])[1] is False
    comfy = status(21804, ("vllm serve tg", 1024), ("python3 ComfyUI/main.py", 20480))
    assert decide_wake(comfy, 26976) is GPUDecision.BUSY
    assert decide_wake(asleep, 26976) is GPUDecision.IDLE
    assert decide_wake(None, 1) is GPUDecision.UNKNOWN
    # The GPU status API's metrics count the sleeping vLLM.
    sleeping = asleep.model_copy(
        update={"processes": [asleep.processes[0].model_copy(update={"sleeping": True})]}
    )
    assert "zt_gpu_vllm_sleeping 1" in prometheus_text(sleeping)
    assert "zt_gpu_vllm_sleeping 0" in prometheus_text(asleep)
    assert SleepRecord(1, 1, 2, 3.0).freed_mib == 2


# --- the acceptance scenarios -------------------------------------------------------------------


async def test_idle_vllm_sleeps_and_the_next_paper_wakes_it_without_a_launch(
    rig: Rig, make_manager: Any
) -> None:
    vllm_on_gpu(rig)
    manager = make_manager(sleepy(rig, vllm_idle_shutdown_s=0.4))
    await manager.start()
    async with manager.work():
        await ready(manager)
        assert await translate_one(rig)
    pid = pid_of(rig)
    assert pid is not None and await gpu_used(manager) == 300 + AWAKE_MIB

    await eventually(lambda: manager.state is VLLMState.ASLEEP)
    assert detach.group_alive_local(pid), "asleep, not stopped"
    assert is_sleeping(rig)
    snap = await manager.snapshot()
    assert snap.state == "asleep" and snap.gpu is not None and snap.sleep is not None
    assert snap.gpu["memory_used_mib"] == 300 + ASLEEP_MIB
    assert snap.sleep.cycles == 1 and snap.sleep.freed_mib == AWAKE_MIB - ASLEEP_MIB
    assert snap.gpu["sleeping_vllm"] == [pid]
    # The GPU status API's view: only a sleeping vLLM holds memory, so the card is idle.
    status = await asyncio.to_thread(probe_gpu, manager.settings)
    assert status.is_idle and status.memory_free_mib == 32607 - 300 - ASLEEP_MIB
    assert [(p.pid, p.sleeping, p.memory_mib) for p in status.processes] == [
        (pid, True, ASLEEP_MIB)
    ]

    progress = Recorder()
    async with manager.work():
        await ready(manager, progress)
        assert await translate_one(rig, "The next paper")
    assert rig.launch_count() == 1, "a sleeping vLLM is never a reason to launch another"
    assert pid_of(rig) == pid
    assert "waking vLLM" in progress.messages and "starting vLLM" not in progress.messages
    assert progress.messages[-1] == "ready"
    record = stats(rig)
    assert (record["sleeps"], record["wakes"], record["prefix_cache_resets"]) == (1, 1, 1)
    assert record["completions_while_asleep"] == 0 and record["sleeps_under_load"] == 0
    assert manager.wakes_here == 1 and manager.last_wake_s is not None


async def test_comfyui_on_the_card_keeps_vllm_asleep_and_is_named(
    rig: Rig, make_manager: Any
) -> None:
    vllm_on_gpu(rig, comfy=True)
    # The manager that put it to sleep has no time to wait: it gives up at its first look at
    # the card. Another may wait as long as it takes. Neither outcome races the machine's load
    # (a 0.6 s wait could run out before the first look on a busy machine: no wait reported).
    hasty = make_manager(sleepy(rig, gpu_wait_s=0.0))
    patient = make_manager(sleepy(rig, gpu_wait_s=WAIT_TIMEOUT_S))
    await ready(hasty)
    assert "asleep" in await hasty.sleep_vllm()
    comfy = subprocess.Popen(
        comfyui_argv(rig.tmp), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    progress = Recorder()
    waiting = asyncio.create_task(ready(patient, progress))
    try:
        await eventually(lambda: bool(progress.events) or waiting.done())
        assert not waiting.done(), "woken over another tenant"
        assert progress.events[0].stage is Stage.WAITING_GPU
        with pytest.raises(GPUBusyError) as caught:
            await ready(hasty)
        assert not waiting.done()
    except BaseException:
        waiting.cancel()
        raise
    finally:
        comfy.terminate()
        comfy.wait()
    text = str(caught.value)
    assert "ComfyUI/main.py" in text and f"pid {comfy.pid}" in text
    assert "waking vLLM takes back 26.3 GiB" in text
    assert is_sleeping(rig), "not woken over another tenant"
    assert hasty.state is VLLMState.ASLEEP, "a refused wake leaves it asleep, not failed"
    assert (await hasty.snapshot()).state == "asleep"
    assert rig.launch_count() == 1
    # ComfyUI gone: the paper that waited now wakes it.
    await waiting
    assert not is_sleeping(rig) and rig.launch_count() == 1
    assert patient.state is VLLMState.READY
    assert stats(rig)["completions_while_asleep"] == 0


async def test_sleep_now_waits_for_jobs_in_progress(rig: Rig, make_manager: Any) -> None:
    vllm_on_gpu(rig)
    manager = make_manager(sleepy(rig))
    async with manager.work():
        await ready(manager)
        answer = await manager.sleep_vllm()
        assert answer.startswith("vLLM will sleep when the 1 translation(s)")
        assert await translate_one(rig) and not is_sleeping(rig)
    await eventually(lambda: manager.state is VLLMState.ASLEEP)
    assert is_sleeping(rig) and stats(rig)["sleeps_under_load"] == 0


async def test_no_sleep_under_another_process_request(rig: Rig, make_manager: Any) -> None:
    vllm_on_gpu(rig)
    manager = make_manager(sleepy(rig, "--fake-latency-ms", "1500"))
    await ready(manager)
    other = asyncio.create_task(translate_one(rig, "someone else's paragraph"))
    await eventually(lambda: stats(rig)["running"] == 1)
    answer = await manager.sleep_vllm()
    assert "asleep" in answer
    assert other.done() and await other, "the request finished before the sleep"
    record = stats(rig)
    assert record["sleeps_under_load"] == 0 and record["engine_dead"] is None


async def test_two_managers_wake_it_once(rig: Rig, make_manager: Any) -> None:
    vllm_on_gpu(rig)
    settings = sleepy(rig, "--fake-wake-s", "0.5")
    first, second = make_manager(settings), make_manager(settings)
    await ready(first)
    assert "asleep" in await first.sleep_vllm()
    await asyncio.gather(ready(first), ready(second))
    assert stats(rig)["wakes"] == 1 and rig.launch_count() == 1


async def test_a_sleep_that_frees_nothing_stops_vllm(rig: Rig, make_manager: Any) -> None:
    vllm_on_gpu(rig, asleep_mib=AWAKE_MIB)  # the 16 GB residue regression of vLLM #32714
    manager = make_manager(sleepy(rig))
    await ready(manager)
    pid = pid_of(rig)
    assert pid is not None
    answer = await manager.sleep_vllm()
    assert answer.startswith("stopped vLLM") and "did not free" in answer
    await eventually(lambda: not detach.group_alive_local(pid))


async def test_restarted_fresh_after_max_sleep_cycles(rig: Rig, make_manager: Any) -> None:
    vllm_on_gpu(rig)
    manager = make_manager(sleepy(rig, vllm_max_sleep_cycles=2))
    await ready(manager)
    for _ in range(2):
        assert "asleep" in await manager.sleep_vllm()
        await ready(manager)
    answer = await manager.sleep_vllm()
    assert answer.startswith("stopped vLLM") and "fresh" in answer
    await ready(manager)
    assert rig.launch_count() == 2
    assert (await manager.snapshot()).sleep.cycles == 0


async def test_auto_stops_when_host_ram_is_short(rig: Rig, make_manager: Any) -> None:
    vllm_on_gpu(rig)
    manager = make_manager(sleepy(rig, vllm_idle_action="auto", vllm_weights_gb=100000))
    await ready(manager)
    pid = pid_of(rig)
    assert pid is not None
    idle = rig.settings(vllm_idle_action="auto", vllm_weights_gb=100000, vllm_idle_shutdown_s=0.3)
    watcher = make_manager(idle)
    await watcher.start()
    await eventually(lambda: not detach.group_alive_local(pid))
    assert stats_or_none(rig) is None


def stats_or_none(rig: Rig) -> dict[str, Any] | None:
    try:
        return stats(rig)
    except httpx.HTTPError:
        return None


# --- the launch profiles ------------------------------------------------------------------------


def test_profiles_start_vllm_with_the_sleep_routes_mounted(tmp_path: Path) -> None:
    record = tmp_path / "env.json"
    fake = tmp_path / "bin" / "vllm"
    fake.parent.mkdir()
    fake.write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        f"json.dump({{'dev': os.environ.get('VLLM_SERVER_DEV_MODE'), 'argv': sys.argv[1:]}},"
        f" open({str(record)!r}, 'w'))\n"
    )
    fake.chmod(0o755)
    model = tmp_path / "model"
    model.mkdir()
    for profile in PROFILES.values():
        env = clean_env(tmp_path, VLLM_BIN=str(fake), MODEL=str(model))
        assert subprocess.run([profile], env=env, capture_output=True).returncode == 0
        seen = json.loads(record.read_text())
        assert seen["dev"] == "1" and "--enable-sleep-mode" in seen["argv"], profile


# --- remote: sleep and wake are HTTP calls, host RAM is read through the Jupyter terminal -------


async def test_remote_manager_sleeps_wakes_and_reads_host_ram_on_the_jupyter_host(
    rig: Rig, make_manager: Any, jupyter: JupyterServer
) -> None:
    vllm_on_gpu(rig)
    command = rig.vllm_command("--fake-wake-s", "0.05")
    manager = make_manager(
        remote_settings(
            rig, jupyter, vllm_idle_action="auto", vllm_weights_gb=0.01, vllm_command=command
        )  # fmt: skip
    )
    await ready(manager)
    assert "asleep" in await manager.sleep_vllm()
    assert is_sleeping(rig)
    await ready(manager)
    assert not is_sleeping(rig) and rig.launch_count() == 1
    greedy = make_manager(
        remote_settings(
            rig, jupyter, vllm_idle_action="auto", vllm_weights_gb=1e6, vllm_command=command
        )  # fmt: skip
    )
    answer = await greedy.sleep_vllm()
    assert answer.startswith("stopped vLLM") and "MiB available" in answer, answer
    assert stats_or_none(rig) is None or not is_sleeping(rig)


def test_print_says_where_to_get_the_weights(tmp_path: Path) -> None:
    for gb, profile in PROFILES.items():
        result = subprocess.run(
            [profile, "--print"], env=clean_env(tmp_path), capture_output=True, text=True
        )
        assert result.returncode == 0 and result.stdout.count("\n") == 1, "stdout: the command"
        assert result.stderr.startswith("# weights: "), gb
    found = subprocess.run(
        [PROFILES[32], "--print"], env=clean_env(tmp_path), capture_output=True, text=True
    )
    assert "translategemma-27b-it-NVFP4A16" in found.stderr
    assert found.stdout.split()[2].endswith("translategemma-27b-it-nvfp4a16")


# --- other processes of this host ---------------------------------------------------------------

WORKER = """
import asyncio, sys
from common.settings import load_settings
from zotero_server.manager_factory import create_manager

async def main() -> None:
    manager = create_manager(load_settings())
    async with manager.work():
        await manager.ensure_ready()
        print("working", flush=True)
        sys.stdin.readline()
    await manager.aclose()

asyncio.run(main())
"""


async def test_never_sleeps_under_another_process_translation(rig: Rig, make_manager: Any) -> None:
    vllm_on_gpu(rig)
    settings = sleepy(rig)
    manager = make_manager(settings)
    await ready(manager)
    env = {**rig.env(settings), "PYTHONPATH": str(REPO_ROOT)}
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert worker.stdout is not None and worker.stdin is not None
        line = await asyncio.to_thread(worker.stdout.readline)
        assert line.strip() == b"working"
        answer = await manager.sleep_vllm()
        assert answer == f"vLLM not put to sleep: translations are running in process {worker.pid}"
        assert not is_sleeping(rig)
        worker.stdin.write(b"done\n")
        worker.stdin.flush()
        assert await asyncio.to_thread(worker.wait, 30) == 0
    finally:
        worker.kill()
    assert "asleep" in await manager.sleep_vllm()
    assert rig.launch_count() == 1


# --- the command line -----------------------------------------------------------------------


def cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zotero_server.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_cli_vllm_sleep_wake_and_status(rig: Rig) -> None:
    vllm_on_gpu(rig)
    env = {**rig.env(sleepy(rig)), "PYTHONPATH": str(REPO_ROOT)}
    assert cli(["vllm", "start"], env).returncode == 0
    slept = cli(["vllm", "sleep"], env)
    assert slept.returncode == 0
    assert "asleep: 26.3 GiB of GPU memory freed (sleep 1)" in slept.stdout
    status = cli(["status"], env)
    assert "asleep (sleep 1 of 8)" in status.stdout, status.stdout
    assert "decision: vllm_loading" in status.stdout, "a sleeping vLLM is never launched twice"
    woke = cli(["vllm", "wake"], env)
    assert woke.returncode == 0 and woke.stdout.startswith("vLLM awake in "), woke.stdout
    assert "waking vLLM" in woke.stderr
    assert cli(["vllm", "wake"], env).stdout.strip() == "vLLM is not asleep"
    assert rig.launch_count() == 1 and stats(rig)["completions_while_asleep"] == 0
    # With no vLLM at all, a wake is a failure a script can see, not "not asleep".
    assert cli(["vllm", "stop"], env).returncode == 0
    gone = cli(["vllm", "wake"], env)
    assert gone.returncode != 0 and "nothing to wake" in gone.stderr, (gone.stdout, gone.stderr)


async def test_manager_none_never_sends_work_to_a_sleeping_vllm(
    rig: Rig, make_manager: Any
) -> None:
    vllm_on_gpu(rig)
    owner = make_manager(sleepy(rig))
    await ready(owner)
    assert "asleep" in await owner.sleep_vllm()
    bystander = make_manager(sleepy(rig, manager="none"))
    with pytest.raises(LLMUnavailableError, match="is asleep"):
        await ready(bystander)
    assert is_sleeping(rig) and stats(rig)["completions_while_asleep"] == 0
