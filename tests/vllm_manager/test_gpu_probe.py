"""The in-process probe: the fake nvidia-smi reporting real processes, /proc read for real.

Most tests watch a keyword unique to the test, so processes of other programs on this machine
(a developer's real vLLM, another test's fake) cannot change the answer. The tests about the
default keywords only assert about processes they started themselves.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from common.errors import GPUReadError
from common.settings import Settings
from tests.helpers.gpu import (
    DISCOVER_VLLM,
    FAKES,
    GPU_UUID,
    GPU_UUID_2,
    FakeSmi,
    comfyui_argv,
    gpu,
    running,
    vllm_serve_argv,
    wait_for_cmdline,
)
from tests.helpers.net import free_port, wait_for_port
from tests.helpers.paths import REPO_ROOT
from vllm_manager import procscan
from vllm_manager.gpu import ProbeSource, StatusReading, assemble_status, is_idle, probe_gpu
from vllm_manager.gpu_model import GPUProcess, GPUStatus
from vllm_manager.smi import SmiGPU

SLEEP = [sys.executable, "-c", "import time; time.sleep(60)"]
DEFAULT_KEYWORDS = "vllm,VLLM::,translategemma,ComfyUI,whisper"


@pytest.fixture
def fake(tmp_path: Path) -> FakeSmi:
    return FakeSmi(tmp_path / "smi")


@pytest.fixture
def marker() -> str:
    return f"zt-gpu-test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def probe_settings(settings: Settings, fake: FakeSmi, marker: str) -> Settings:
    return settings.model_copy(
        update={"nvidia_smi": fake.path, "smi_timeout_s": 5.0, "gpu_watch_keywords": marker}
    )


def with_default_keywords(s: Settings) -> Settings:
    return s.model_copy(update={"gpu_watch_keywords": DEFAULT_KEYWORDS})


def by_pid(status: GPUStatus) -> dict[int, GPUProcess]:
    return {p.pid: p for p in status.processes}


# --- the idle rule --------------------------------------------------------------------------


def test_idle_rule() -> None:
    watched = GPUProcess(pid=5, command="vllm serve m", on_gpu=False)
    assert is_idle([], [300], idle_mib=1024)
    assert not is_idle([], [1024], idle_mib=1024)
    assert not is_idle([watched], [0], idle_mib=1024)
    assert not is_idle([], [], idle_mib=1024)  # no GPU at all is not an idle GPU
    assert not is_idle([], [10, 5000], idle_mib=1024)  # every GPU must be below


def test_a_process_on_two_gpus_is_listed_once() -> None:
    cards = [
        SmiGPU(0, "GPU-a", "A", 50, 9000, 24000, 60),
        SmiGPU(1, "GPU-b", "B", 40, 8000, 24000, 55),
    ]
    tp = [
        GPUProcess(pid=7, command="VLLM::Worker_TP0", memory_mib=8500, gpu_uuid="GPU-a"),
        GPUProcess(pid=7, command="VLLM::Worker_TP0", memory_mib=7500, gpu_uuid="GPU-b"),
    ]
    status = assemble_status(cards, tp, [], idle_mib=1024, checked_at=datetime.now(UTC))
    assert [(p.pid, p.memory_mib, p.gpu_uuid) for p in status.processes] == [(7, 16000, None)]
    assert [[p.memory_mib for p in g.processes] for g in status.gpus] == [[8500], [7500]]


# --- scenarios ------------------------------------------------------------------------------


def test_idle(probe_settings: Settings, fake: FakeSmi) -> None:
    status = probe_gpu(probe_settings)
    assert status.is_idle
    assert status.processes == []
    assert (status.memory_used_mib, status.memory_total_mib) == (300, 32607)
    assert (status.utilization_pct, status.temperature_c) == (0, 38)
    (card,) = status.gpus
    assert (card.index, card.uuid, card.name, card.is_idle) == (
        0,
        GPU_UUID,
        "NVIDIA GeForce RTX 5090",
        True,
    )
    assert abs((datetime.now(UTC) - status.checked_at).total_seconds()) < 60
    assert len(fake.calls()) == 2  # one GPU query, one process query


def test_vllm_loading_is_watched_not_idle(probe_settings: Settings) -> None:
    """Right after ``vllm serve`` starts nothing is on the GPU: memory alone says idle."""
    argv = vllm_serve_argv()
    with running(argv) as proc:
        status = probe_gpu(with_default_keywords(probe_settings))
    mine = by_pid(status)[proc.pid]
    assert mine.command == " ".join(argv)
    assert (mine.on_gpu, mine.memory_mib) == (False, 0)
    assert status.memory_used_mib == 300
    assert not status.is_idle


def test_vllm_on_the_gpu(probe_settings: Settings, fake: FakeSmi, marker: str) -> None:
    """vLLM's engine core retitles itself ``VLLM::EngineCore``; the fake finds it by that."""
    fake.set(
        discover=[{"cmdline_contains": ["VLLM::EngineCore", marker], "used_gpu_memory": 28000}]
    )
    core_argv = ["VLLM::EngineCore", *SLEEP[1:], marker]
    with (
        running(vllm_serve_argv()) as parent,
        running(core_argv, executable=sys.executable) as core,
    ):
        status = probe_gpu(with_default_keywords(probe_settings))
    procs = by_pid(status)
    assert procs[core.pid].on_gpu
    assert procs[core.pid].memory_mib == 28000
    assert procs[core.pid].command == " ".join(core_argv)
    assert procs[core.pid].gpu_uuid == GPU_UUID
    assert (procs[parent.pid].on_gpu, procs[parent.pid].memory_mib) == (False, 0)
    assert status.memory_used_mib == 300 + 28000
    assert [p.pid for p in status.gpus[0].processes] == [core.pid]
    assert not status.is_idle


def _children(pid: int) -> list[int]:
    return [
        int(name)
        for name in os.listdir("/proc")
        if name.isdigit() and procscan.parent_pid(int(name)) == pid
    ]


def test_fake_vllm_appears_on_the_gpu_by_itself(probe_settings: Settings, fake: FakeSmi) -> None:
    """The fake vLLM's engine core child (``VLLM::EngineCore``) is found by the fake nvidia-smi's
    discover rule: what the manager tests rely on."""
    fake.set(discover=[DISCOVER_VLLM])
    port = free_port()
    argv = [sys.executable, str(FAKES / "fake_vllm.py"), "serve", "m", "--port", str(port)]
    with running([*argv, "--fake-engine-child"]) as server:
        wait_for_port(port)
        (core,) = _children(server.pid)
        wait_for_cmdline(core)
        status = probe_gpu(with_default_keywords(probe_settings))
    procs = by_pid(status)
    assert procs[core].command.startswith("VLLM::EngineCore")
    assert (procs[core].on_gpu, procs[core].memory_mib) == (True, 28000)
    assert procs[server.pid].command == " ".join([*argv, "--fake-engine-child"])
    assert not procs[server.pid].on_gpu
    assert status.memory_used_mib >= 300 + 28000


def test_comfyui_holding_20_gb(probe_settings: Settings, fake: FakeSmi, tmp_path: Path) -> None:
    with running(comfyui_argv(tmp_path)) as comfy:
        fake.set(processes=[{"pid": comfy.pid, "used_gpu_memory": 20480}])
        status = probe_gpu(probe_settings)
    (proc,) = status.processes
    assert proc.pid == comfy.pid
    assert proc.command == " ".join(comfyui_argv(tmp_path))
    assert "ComfyUI/main.py --listen 127.0.0.1" in proc.command
    assert (proc.memory_mib, proc.on_gpu, proc.gpu_uuid) == (20480, True, GPU_UUID)
    assert status.memory_used_mib == 20780
    assert not status.is_idle and not status.gpus[0].is_idle


def test_wsl_style_no_process_rows(probe_settings: Settings, fake: FakeSmi, tmp_path: Path) -> None:
    """WSL2: nvidia-smi lists no process; memory use and the /proc watch still tell."""
    with running(comfyui_argv(tmp_path)) as comfy:
        fake.set(mode="wsl", processes=[{"pid": comfy.pid, "used_gpu_memory": 20480}])
        status = probe_gpu(with_default_keywords(probe_settings))
    mine = by_pid(status)[comfy.pid]
    assert (mine.on_gpu, mine.memory_mib) == (False, 0)
    assert status.memory_used_mib == 20780
    assert not status.is_idle


def test_wsl_memory_used_by_an_unlisted_process(probe_settings: Settings, fake: FakeSmi) -> None:
    fake.set(mode="wsl", gpus=[gpu(memory_used=9000)])
    status = probe_gpu(probe_settings)
    assert status.processes == []
    assert status.memory_used_mib == 9000
    assert not status.is_idle


def test_unavailable_fields(probe_settings: Settings, fake: FakeSmi) -> None:
    with running(SLEEP) as proc:
        fake.set(
            gpus=[gpu(utilization_gpu="[N/A]", temperature_gpu="[Not Supported]")],
            processes=[{"pid": proc.pid, "used_gpu_memory": "[N/A]"}],  # Windows WDDM
        )
        status = probe_gpu(probe_settings)
    (card,) = status.gpus
    assert (card.utilization_pct, card.temperature_c) == (0, 0)
    assert card.unavailable == ["utilization.gpu", "temperature.gpu"]
    (holder,) = status.processes
    assert (holder.pid, holder.on_gpu, holder.memory_mib) == (proc.pid, True, 0)
    assert not status.is_idle
    assert any("utilization.gpu" in n for n in status.notes)
    assert any("per-process memory" in n for n in status.notes)


def test_unknown_memory_use_is_an_error_not_idle(probe_settings: Settings, fake: FakeSmi) -> None:
    fake.set(gpus=[gpu(memory_used="[N/A]")])
    with pytest.raises(GPUReadError, match="no memory use for GPU 0"):
        probe_gpu(probe_settings)


def test_nvidia_smi_missing(probe_settings: Settings, tmp_path: Path) -> None:
    s = probe_settings.model_copy(update={"nvidia_smi": tmp_path / "no-such-nvidia-smi"})
    with pytest.raises(GPUReadError, match="not an executable file"):
        probe_gpu(s)


def test_driver_missing(probe_settings: Settings, fake: FakeSmi) -> None:
    fake.set(mode="missing")
    with pytest.raises(GPUReadError, match="couldn't communicate with the NVIDIA driver"):
        probe_gpu(probe_settings)


def test_garbage(probe_settings: Settings, fake: FakeSmi) -> None:
    fake.set(mode="garbage")
    with pytest.raises(GPUReadError, match="unexpected nvidia-smi output"):
        probe_gpu(probe_settings)


@pytest.fixture
def reaped_victim() -> Iterator[subprocess.Popen[bytes]]:
    """A process reaped the moment it dies, so its /proc entry disappears (no zombie)."""
    proc = subprocess.Popen(SLEEP)
    reaper = threading.Thread(target=proc.wait, daemon=True)
    reaper.start()
    yield proc
    proc.kill()
    reaper.join(timeout=10)


def test_pid_exits_between_nvidia_smi_and_proc(
    probe_settings: Settings, fake: FakeSmi, reaped_victim: subprocess.Popen[bytes]
) -> None:
    """nvidia-smi lists the pid, then it exits before /proc is read: dropped with a note."""
    fake.set(
        processes=[{"pid": reaped_victim.pid, "used_gpu_memory": 4096, "kill_after_report": True}]
    )
    status = probe_gpu(probe_settings)
    assert status.processes == []
    assert f"pid {reaped_victim.pid} left the GPU during the check" in status.notes
    assert len(fake.calls()) == 3  # the process query was asked again to be sure
    assert not status.is_idle  # its memory was still counted by the GPU query


def _free_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    assert not Path(f"/proc/{proc.pid}").exists()
    return proc.pid


def test_pid_of_another_namespace_is_reported(probe_settings: Settings, fake: FakeSmi) -> None:
    """In a container nvidia-smi lists host PIDs that /proc does not show: never ignored."""
    pid = _free_pid()
    fake.set(processes=[{"pid": pid, "used_gpu_memory": 12000, "foreign": True}])
    status = probe_gpu(probe_settings)
    (proc,) = status.processes
    assert proc.pid == pid and proc.on_gpu and proc.memory_mib == 12000
    assert proc.command.startswith(f"<unknown: pid {pid}: not visible in /proc")
    assert not status.is_idle


def test_unreadable_cmdline_is_reported(
    probe_settings: Settings, fake: FakeSmi, tmp_path: Path
) -> None:
    proc_root = tmp_path / "proc"
    (proc_root / "4242" / "cmdline").mkdir(parents=True)
    fake.set(
        processes=[
            {"pid": 4242, "used_gpu_memory": 5000, "foreign": True, "process_name": "python3"}
        ]
    )
    status = probe_gpu(probe_settings, proc_root=proc_root)
    (proc,) = status.processes
    assert proc.command.startswith("<unknown: pid 4242: ")
    assert proc.command.endswith("; nvidia-smi name: python3>")
    assert (proc.on_gpu, proc.memory_mib) == (True, 5000)


def test_two_gpus(probe_settings: Settings, fake: FakeSmi) -> None:
    with running(SLEEP) as a, running(SLEEP) as b:
        fake.set(
            gpus=[
                gpu(0, GPU_UUID, utilization_gpu=90, temperature_gpu=70),
                gpu(1, GPU_UUID_2, name="NVIDIA RTX A6000", memory_total=49140, temperature_gpu=80),
            ],
            processes=[
                {"pid": a.pid, "used_gpu_memory": 1000, "gpu": 0},
                {"pid": b.pid, "used_gpu_memory": 2000, "gpu": 1},
            ],
        )
        status = probe_gpu(probe_settings)
    first, second = status.gpus
    assert [p.pid for p in first.processes] == [a.pid]
    assert [p.pid for p in second.processes] == [b.pid]
    assert (first.memory_used_mib, second.memory_used_mib) == (1300, 2300)
    assert status.memory_used_mib == 3600
    assert status.memory_total_mib == 32607 + 49140
    assert (status.utilization_pct, status.temperature_c) == (90, 80)
    assert [p.pid for p in status.processes] == [b.pid, a.pid]  # largest first


def test_own_process_and_ancestors_are_not_watched(probe_settings: Settings, marker: str) -> None:
    """A probe whose own command line (and its shell's) carries a keyword does not report
    itself; an unrelated process with the keyword is reported."""
    code = (
        "from common.settings import load_settings; from vllm_manager.gpu import probe_gpu; "
        f"s = load_settings(nvidia_smi={str(probe_settings.nvidia_smi)!r}, "
        f"gpu_watch_keywords={marker!r}, data_dir={str(probe_settings.data_dir)!r}); "
        "print(probe_gpu(s).model_dump_json())"
    )
    script = f'{sys.executable} -c "$0" {marker}-probe; true'
    with running([*SLEEP, f"{marker}-sibling"]) as sibling:
        out = subprocess.run(
            ["sh", "-c", script, code],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
            cwd=REPO_ROOT,
            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        )
    pids = [p["pid"] for p in json.loads(out.stdout)["processes"]]
    assert pids == [sibling.pid]


# --- ProbeSource ----------------------------------------------------------------------------


async def test_probe_source_reads(probe_settings: Settings) -> None:
    reading = await ProbeSource(probe_settings).read()
    assert isinstance(reading, StatusReading)
    assert reading.status is not None and reading.status.is_idle
    assert reading.reason == ""


async def test_probe_source_gives_the_reason_instead_of_raising(
    probe_settings: Settings, fake: FakeSmi
) -> None:
    fake.set(mode="missing")
    status, reason = await ProbeSource(probe_settings).read()
    assert status is None
    assert "couldn't communicate with the NVIDIA driver" in reason


async def test_probe_source_hang_gives_up(probe_settings: Settings, fake: FakeSmi) -> None:
    fake.set(mode="hang")
    source = ProbeSource(probe_settings.model_copy(update={"smi_timeout_s": 0.3}))
    status, reason = await source.read()
    assert status is None
    assert reason == "nvidia-smi did not answer within 0.3 s"


async def test_concurrent_readers_share_one_probe(probe_settings: Settings, fake: FakeSmi) -> None:
    source = ProbeSource(probe_settings)
    readings = await asyncio.gather(*(source.read() for _ in range(5)))
    assert all(r.status is not None and r.status.is_idle for r in readings)
    assert len(fake.calls()) == 2
    await source.read()  # a later read probes afresh
    assert len(fake.calls()) == 4
