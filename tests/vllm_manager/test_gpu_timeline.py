"""The GPU over time (issue 24 items 3, 4): samples and events, ``/timeline`` and ``/metrics``."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path

import httpx

from common.settings import Settings
from tests.helpers.gpu import (
    TOKEN,
    FakeSmi,
    api_settings,
    comfyui_argv,
    running,
    serve_in_thread,
    vllm_serve_argv,
)
from tests.helpers.server import wait_until
from vllm_manager.gpu_api import create_gpu_app
from vllm_manager.gpu_model import GPUProcess, GPUStatus
from vllm_manager.timeline import EventKind, Timeline

VLLM = "python3 -m vllm.entrypoints.openai.api_server --model m"
COMFY = "python3 /opt/ComfyUI/main.py --listen"


def status(*processes: GPUProcess) -> GPUStatus:
    used = sum(p.memory_mib for p in processes)
    return GPUStatus(
        is_idle=not processes,
        memory_used_mib=used,
        memory_total_mib=32_000,
        utilization_pct=0,
        temperature_c=40,
        processes=list(processes),
        checked_at=datetime.now(UTC),
    )


def vllm(memory: int, sleeping: bool = False, pid: int = 7) -> GPUProcess:
    return GPUProcess(pid=pid, command=VLLM, memory_mib=memory, sleeping=sleeping)


def test_events_follow_what_the_api_sees() -> None:
    timeline = Timeline(["vllm"], hours=1, interval_s=10)
    comfy = GPUProcess(pid=3, command=COMFY, memory_mib=20_000)
    timeline.observe(status(comfy), waiting=0, now=100)
    timeline.observe(status(comfy), waiting=2, now=110)  # a paper waits behind ComfyUI
    timeline.observe(status(vllm(0)), waiting=2, now=120)  # ComfyUI left; vLLM loading
    timeline.observe(status(vllm(28_000)), waiting=0, now=130)
    timeline.observe(status(vllm(1_000, sleeping=True)), waiting=0, now=140)
    timeline.observe(status(vllm(28_000)), waiting=0, now=150)
    timeline.observe(None, waiting=0, now=155)  # unreadable: no sample, no event
    timeline.observe(status(), waiting=0, now=160)
    body = timeline.since()
    assert [(e["t"], e["kind"]) for e in body["events"]] == [
        (110, "waiting"),
        (120, "started"),
        (130, "served"),
        (140, "slept"),
        (150, "woke"),
        (160, "stopped"),
    ]
    assert body["events"][0]["text"] == "2 papers wait for the GPU"
    assert len(body["samples"]) == 7
    first = body["samples"][0]
    assert first["processes"] == [
        {"name": "ComfyUI", "kind": "other", "memory_mib": 20_000, "pid": 3}
    ]
    assert body["samples"][3]["processes"][0]["name"] == "vLLM"
    assert [s["t"] for s in timeline.since(140)["samples"]] == [150, 160]


def test_a_vllm_there_at_the_first_reading_is_running_not_started() -> None:
    """Issue 39: every vLLM already on the card when the API started was shown as started."""
    timeline = Timeline(["vllm"], hours=1, interval_s=10)
    timeline.observe(status(vllm(28_000, pid=7), vllm(1_000, sleeping=True, pid=8)), 0, now=100)
    timeline.observe(status(vllm(28_000, pid=7), vllm(1_000, True, 8), vllm(0, pid=9)), 0, now=110)
    assert [(e["t"], e["kind"], e["text"]) for e in timeline.since()["events"]] == [
        (100, "running", "vLLM already running (pid 7)"),
        (100, "running", "vLLM already running (pid 8)"),
        (100, "slept", "vLLM asleep (pid 8)"),
        (110, "started", "vLLM started (pid 9)"),
    ]
    assert timeline.counts[EventKind.STARTED] == 1


def test_samples_are_bounded_by_the_window_and_processes_by_count() -> None:
    timeline = Timeline(["vllm"], hours=1, interval_s=60)  # 61 samples
    many = [GPUProcess(pid=i, command=f"/usr/bin/job{i}", memory_mib=100 + i) for i in range(30)]
    for minute in range(200):
        timeline.observe(status(*many), waiting=0, now=minute * 60.0)
    samples = timeline.since()["samples"]
    assert len(samples) == 61
    assert samples[0]["t"] == 139 * 60
    names = [p["name"] for p in samples[-1]["processes"]]
    assert len(names) == 12 and names[-1] == "others"
    assert sum(p["memory_mib"] for p in samples[-1]["processes"]) == sum(p.memory_mib for p in many)


def test_timeline_and_metrics_over_http(settings: Settings, tmp_path: Path) -> None:
    marker = f"zt-tl-{uuid.uuid4().hex[:8]}"
    fake = FakeSmi(tmp_path / "smi")
    app = create_gpu_app(api_settings(settings, fake, marker))
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with running(comfyui_argv(tmp_path)) as comfy, serve_in_thread(app) as url:
        fake.set(processes=[{"pid": comfy.pid, "used_gpu_memory": 20480}])
        with httpx.Client(base_url=url, timeout=10) as client:
            assert client.get("/timeline").status_code == 401
            assert client.get("/timeline?since=soon", headers=auth).status_code == 400
            assert client.get("/timeline?since=nan", headers=auth).status_code == 400

            def comfy_seen() -> bool:
                samples = client.get("/timeline", headers=auth).json()["samples"]
                return any(p["name"] == "ComfyUI" for s in samples for p in s["processes"])

            wait_until(comfy_seen, 20, "ComfyUI in a sample")
            waiting = {"client": "zotero", "papers": 1, "ttl_s": 60}
            assert client.post("/waiting", json=waiting, headers=auth).status_code == 200

            def kinds() -> list[str]:
                events = client.get("/timeline", headers=auth).json()["events"]
                return [e["kind"] for e in events]

            wait_until(lambda: "waiting" in kinds(), 20, "papers waiting")
            with running(vllm_serve_argv(f"/models/{marker}")):
                wait_until(lambda: "started" in kinds(), 20, "vLLM started")
            wait_until(lambda: "stopped" in kinds(), 20, "vLLM stopped")
            assert kinds() == ["waiting", "started", "stopped"]
            body = client.get("/timeline", headers=auth).json()
            newest = body["samples"][-1]["t"]
            newer = client.get(f"/timeline?since={newest}", headers=auth).json()
            assert len(newer["samples"]) < len(body["samples"])
            assert all(sample["t"] > newest for sample in newer["samples"])
            assert newer["events"] == []
            metrics = client.get("/metrics", headers=auth).text
            assert (
                f'zt_gpu_process_memory_mib{{name="ComfyUI",kind="other",pid="{comfy.pid}"}} 20480'
                in metrics
            )
            assert 'zt_gpu_vllm_events_total{event="started"} 1' in metrics
            assert 'zt_gpu_vllm_events_total{event="stopped"} 1' in metrics
