"""Issue 16: patient jobs. An async paper that meets a busy GPU waits (``waiting_gpu``) in one
shared queue until the GPU frees or ``ZT_JOB_GPU_WAIT_S`` passes, instead of failing after
``ZT_GPU_WAIT_S``; sync requests keep their 503. The GPU API's dashboard shows how many wait.

Real pieces throughout: the fake nvidia-smi reporting a fake ComfyUI process, the real manager
launching the fake vLLM, the real server and GPU API on loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from common.errors import GPUBusyError
from common.language import Language
from common.progress import ProgressSink, Stage, ignore_progress
from common.settings import Settings
from tests.helpers.browser import BROWSER_MARKS, launch
from tests.helpers.gpu import FakeSmi, comfyui_argv, running, serve_in_thread
from tests.helpers.manager import Recorder, Rig, eventually
from tests.helpers.manager import make_manager_fixture as make_manager_fixture
from tests.helpers.manager import rig_fixture as rig_fixture
from tests.helpers.paths import REPO_ROOT
from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import PARAGRAPHS, SSEReader, plugin_body, run_app, wait_until
from tests.helpers.vllm import FakeVLLMFactory
from translation.pipeline import Translator
from translation.request import TranslationRequest
from translation.worker import PdfWorker
from vllm_manager.decision import GPUDecision
from vllm_manager.gpu_api import create_gpu_app
from vllm_manager.gpu_model import GPUProcess, GPUStatus
from vllm_manager.gpu_wait import GPUWaitQueue, holder_name, wait_message
from vllm_manager.manager import VLLMManager
from zotero_server.cli import duration
from zotero_server.events import EventBus
from zotero_server.http_errors import BusyError
from zotero_server.job import Job
from zotero_server.jobs import JobRegistry

COMFY_MIB = 20480  # "ComfyUI holding 20 GB"
GPU_TOKEN = "patient-gpu-token-0123456789"
REPO = REPO_ROOT


@pytest.fixture
def comfy(rig: Rig) -> Iterator[subprocess.Popen[bytes]]:
    """A fake ComfyUI holding 20 GiB of the rig's GPU; the GPU is idle again after the test."""
    with running(comfyui_argv(rig.tmp)) as proc:
        hold(rig.smi, proc)
        yield proc


def hold(smi: FakeSmi, proc: subprocess.Popen[bytes]) -> None:
    smi.set(processes=[{"pid": proc.pid, "used_gpu_memory": COMFY_MIB}])


# --- words ----------------------------------------------------------------------------------


def test_holders_are_named_as_the_person_at_the_card_knows_them() -> None:
    assert holder_name("/usr/bin/python3 /home/u/ComfyUI/main.py --listen 0.0.0.0") == "ComfyUI"
    assert holder_name("python3 -u -m whisper_server.app --port 9000") == "whisper_server"
    assert holder_name("python train_lora.py --steps 100") == "train_lora"
    assert holder_name("/opt/blender/blender -b scene.blend") == "blender"
    assert holder_name("<unknown: pid 7: permission denied>").startswith("<unknown: pid 7")


def test_the_waiting_line_says_who_how_much_since_when_and_how_many() -> None:
    comfy = GPUProcess(pid=41, command="python3 /srv/ComfyUI/main.py --listen", memory_mib=20480)
    small = GPUProcess(pid=42, command="python3 -m whisper", memory_mib=2048)
    status = GPUStatus(
        is_idle=False,
        memory_used_mib=22828,
        memory_total_mib=32607,
        utilization_pct=90,
        temperature_c=60,
        processes=[small, comfy],
        checked_at="2026-11-30T14:05:00Z",  # type: ignore[arg-type]
    )
    since = time.mktime((2026, 11, 30, 14, 2, 0, 0, 0, -1))
    line = wait_message(GPUDecision.BUSY, status, "", ["vllm"], {41: since}, since + 60, 2)
    assert line == (
        "waiting for the GPU: ComfyUI (pid 41) holds 20.0 GiB (+1 more) since 14:02; "
        "2 papers waiting"
    )
    unknown = wait_message(GPUDecision.UNKNOWN, None, "GPU API unreachable", [], {}, since, 1)
    assert unknown == (
        "waiting for the GPU: GPU status unknown (GPU API unreachable) since 14:02; 1 paper waiting"
    )


# --- the queue --------------------------------------------------------------------------------


def waiting_settings(rig: Rig, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"gpu_poll_s": 0.1, "gpu_wait_s": 0.3, "job_gpu_wait_s": 30.0}
    return rig.settings(**{**values, **overrides})


def record_calls(manager: VLLMManager, calls: list[str], name_of: dict[int, str]) -> None:
    """Wrap ``manager.ensure_ready`` so the order in which the queue lets jobs in is seen."""
    original = manager.ensure_ready

    async def ensure_ready(progress: ProgressSink = ignore_progress) -> None:
        calls.append(name_of[id(progress)])
        await original(progress)

    manager.ensure_ready = ensure_ready  # type: ignore[method-assign]


async def test_two_waiting_jobs_share_one_poll_loop_and_start_in_submission_order(
    rig: Rig, comfy: subprocess.Popen[bytes], make_manager: Any
) -> None:
    manager = make_manager(waiting_settings(rig))
    queue = GPUWaitQueue(manager, manager.settings)
    first, second = Recorder(), Recorder()
    calls: list[str] = []
    record_calls(manager, calls, {id(first): "first", id(second): "second"})

    # The later job reaches the GPU first (a shorter paper, say): it still goes second.
    later = asyncio.create_task(queue.ensure_ready(second, order=2.0))
    await eventually(lambda: queue.waiting == 1)
    earlier = asyncio.create_task(queue.ensure_ready(first, order=1.0))
    await eventually(lambda: queue.waiting == 2)
    polls_before, t0 = queue.polls, time.monotonic()
    await asyncio.sleep(1.0)  # 3x ZT_GPU_WAIT_S: a sync request would have failed by now
    polls = queue.polls - polls_before
    elapsed = time.monotonic() - t0
    assert polls <= elapsed / 0.1 + 2, f"{polls} decisions in {elapsed:.1f} s: one loop, not two"
    assert not later.done() and not earlier.done()
    assert rig.launch_count() == 0 and calls == []
    for recorder in (first, second):
        assert recorder.events[-1].stage is Stage.WAITING_GPU
        assert "ComfyUI" in recorder.messages[-1] and "holds 20.0 GiB" in recorder.messages[-1]
        assert recorder.messages[-1].endswith("2 papers waiting")
        assert recorder.events[-1].data["holders"][0]["pid"] == comfy.pid

    rig.smi.set()  # ComfyUI hands the GPU back
    await asyncio.wait_for(asyncio.gather(earlier, later), 30)
    assert calls == ["first", "second"]
    assert rig.launch_count() == 1, "one launch for both jobs"
    assert (await manager.health()).ok
    await eventually(lambda: not queue.polling)


async def test_a_cancelled_waiter_leaves_at_once_and_the_loop_stops(
    rig: Rig, comfy: subprocess.Popen[bytes], make_manager: Any
) -> None:
    manager = make_manager(waiting_settings(rig))
    queue = GPUWaitQueue(manager, manager.settings)
    recorder = Recorder()
    job = asyncio.create_task(queue.ensure_ready(recorder))
    await eventually(lambda: bool(recorder.events))
    assert queue.waiting == 1 and queue.polling
    job.cancel()
    with pytest.raises(asyncio.CancelledError):
        await job
    assert queue.waiting == 0
    await eventually(lambda: not queue.polling)
    polls = queue.polls
    await asyncio.sleep(0.3)
    assert queue.polls == polls, "nobody waits: nobody polls"
    assert rig.launch_count() == 0


async def test_a_waiter_gives_up_after_its_limit_naming_the_holder(
    rig: Rig, comfy: subprocess.Popen[bytes], make_manager: Any
) -> None:
    manager = make_manager(waiting_settings(rig))
    queue = GPUWaitQueue(manager, manager.settings)
    with pytest.raises(GPUBusyError) as caught:
        await asyncio.wait_for(queue.ensure_ready(Recorder(), limit_s=0.5), 10)
    message = str(caught.value)
    assert "ComfyUI/main.py" in message and f"pid {comfy.pid}" in message, message
    assert "ZT_JOB_GPU_WAIT_S=0.5" in message
    assert queue.waiting == 0 and rig.launch_count() == 0


async def test_a_released_job_that_meets_busy_again_waits_again(
    rig: Rig, comfy: subprocess.Popen[bytes], make_manager: Any
) -> None:
    """The race: the queue saw the GPU free, but ComfyUI took it back before the launch."""
    manager = make_manager(waiting_settings(rig))
    queue = GPUWaitQueue(manager, manager.settings)
    real_decision = manager.start_decision
    lies = [True]

    async def stale_decision() -> Any:
        if lies and lies.pop():
            return GPUDecision.IDLE, None  # what the GPU looked like a moment ago
        return await real_decision()

    manager.start_decision = stale_decision
    recorder = Recorder()
    job = asyncio.create_task(queue.ensure_ready(recorder))
    # The bring-up meets BUSY, fails after ZT_GPU_WAIT_S (0.3 s), and the job queues again.
    await eventually(lambda: queue.waiting == 1 and not lies and "since" in recorder.messages[-1])
    await asyncio.sleep(0.5)
    assert not job.done() and rig.launch_count() == 0
    rig.smi.set()
    await asyncio.wait_for(job, 30)
    assert rig.launch_count() == 1


# --- what waiting holds --------------------------------------------------------------------


class GateThatWaits:
    """A ``WaitsOutside`` ensure_ready that would wait; records how many PDF workers were open
    while it waited."""

    def __init__(self, open_workers: list[int]) -> None:
        self.open_workers = open_workers
        self.seen: list[int] = []

    async def __call__(self, progress: ProgressSink = ignore_progress) -> None:
        self.seen.append(self.open_workers[0])
        await asyncio.sleep(0.05)

    async def would_wait(self) -> bool:
        return not self.seen


async def test_a_paper_waits_for_the_gpu_with_no_pdf_worker_open(
    settings: Settings,
    fake_vllm_factory: FakeVLLMFactory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    open_workers = [0]
    enter, leave = PdfWorker.__aenter__, PdfWorker.__aexit__

    async def counted_enter(self: PdfWorker) -> PdfWorker:
        open_workers[0] += 1
        return await enter(self)

    async def counted_exit(self: PdfWorker, *exc: object) -> None:
        open_workers[0] -= 1
        await leave(self, *exc)

    monkeypatch.setattr(PdfWorker, "__aenter__", counted_enter)
    monkeypatch.setattr(PdfWorker, "__aexit__", counted_exit)
    fake = fake_vllm_factory.start()
    translator = Translator.from_settings(
        settings.model_copy(update={"llm_base_url": fake.base_url}), GateThatWaits([0])
    )
    gate = GateThatWaits(open_workers)
    try:
        result = await translator.translate(
            TranslationRequest(
                pdf=small_paper(paragraphs=PARAGRAPHS),
                source_lang=Language.parse("en"),
                target_lang=Language.parse("ko"),
                dual=False,
            ),
            ensure_ready=gate,
        )
    finally:
        await translator.aclose()
    assert gate.seen[0] == 0, "the wait held a PDF worker"
    assert result.mono is not None and result.llm_calls > 0
    stats = translator.stats  # the paper read twice counts once
    assert stats.papers == 1 and stats.pages == 1
    assert stats.paragraphs_from_llm + stats.paragraphs_from_cache == result.paragraphs
    assert open_workers == [0]


# --- job slots -----------------------------------------------------------------------------


async def test_a_job_waiting_for_the_gpu_lends_its_slot_and_a_cancel_ends_it_at_once() -> None:
    registry = JobRegistry(EventBus(), max_jobs=1, output_dir="/out")
    waiting_task: list[asyncio.Task[Any]] = []

    async def wait_for_gpu(job: Job, sink: ProgressSink) -> list[str]:
        waiting_task.append(asyncio.current_task())  # type: ignore[arg-type]
        async with registry.slot_set_aside():
            await asyncio.Event().wait()  # the GPU never frees
        return []

    hold = asyncio.Event()

    async def work(job: Job, sink: ProgressSink) -> list[str]:
        await hold.wait()
        return [job.file_name]

    patient = registry.submit(Job("patient.pdf", "translate", {}), wait_for_gpu)
    await eventually(lambda: bool(waiting_task))
    crop = registry.submit(Job("crop.pdf", "crop", {}), work)
    await eventually(lambda: crop.started_at is not None)  # the one slot was lent
    hold.set()
    await asyncio.wait_for(registry.wait(crop), 5)

    hold.clear()
    blocker = registry.submit(Job("blocker.pdf", "translate", {}), work)
    await eventually(lambda: blocker.started_at is not None)
    waiting_task[0].cancel()  # while no slot is free to take back
    await asyncio.wait_for(patient.finished_event.wait(), 5)
    assert patient.stage is Stage.FAILED

    # Still exactly one slot: a second job queues behind the running one.
    queued = registry.submit(Job("queued.pdf", "translate", {}), work)
    await asyncio.sleep(0.2)
    assert queued.started_at is None
    hold.set()
    await asyncio.wait_for(asyncio.gather(registry.wait(blocker), registry.wait(queued)), 5)


async def test_jobs_waiting_for_the_gpu_count_against_the_queue_limit() -> None:
    registry = JobRegistry(EventBus(), max_jobs=1, output_dir="/out", max_queued=1)
    aside = asyncio.Event()

    async def wait_for_gpu(job: Job, sink: ProgressSink) -> list[str]:
        async with registry.slot_set_aside():
            aside.set()
            await asyncio.Event().wait()
        return []

    waiting = registry.submit(Job("waiting.pdf", "translate", {}), wait_for_gpu)
    await asyncio.wait_for(aside.wait(), 5)
    with pytest.raises(BusyError):
        registry.check_room()
    await registry.aclose(0)
    assert waiting.stage is Stage.FAILED


# --- the server -----------------------------------------------------------------------------


def test_an_async_paper_waits_for_comfyui_and_is_translated_when_it_leaves(
    rig: Rig, comfy: subprocess.Popen[bytes]
) -> None:
    """The acceptance of issue 16, scaled: ZT_GPU_WAIT_S=0.5; the paper still waits 1.5 s later,
    its task names ComfyUI, no vLLM was launched, the GPU API shows 2 papers waiting from one
    poll loop; a sync request still gets 503; ComfyUI exits and both papers are done."""
    gpu_app = create_gpu_app(rig.settings(gpu_api_token=SecretStr(GPU_TOKEN)), source=None)
    status_calls: list[float] = []

    @gpu_app.middleware("http")
    async def count_status(request: Any, call_next: Any) -> Any:
        if request.url.path == "/status":
            status_calls.append(time.monotonic())
        return await call_next(request)

    with serve_in_thread(gpu_app) as gpu_url:
        settings = rig.settings(
            gpu_api_url=gpu_url,
            gpu_api_token=SecretStr(GPU_TOKEN),
            gpu_poll_s=0.25,
            gpu_wait_s=0.5,
            max_jobs=2,
        )
        with run_app(settings) as srv, srv.client() as client:
            ids = []
            for name in ("first.pdf", "second.pdf"):
                body = plugin_body(
                    small_paper(
                        paragraphs=(f"A paper called {name} waits for the GPU to be free.",)
                    ),
                    name,
                )
                answer = client.post("/translate", json={**body, "asyncJob": True})
                assert answer.status_code == 200 and answer.json()["status"] == "accepted"
                ids.append(answer.json()["taskId"])

            def tasks() -> dict[str, dict[str, Any]]:
                return {t["taskId"]: t for t in client.get("/api/tasks").json()["tasks"]}

            wait_until(
                lambda: all(
                    tasks()[i]["stage"] == "waiting_gpu"
                    and "2 papers waiting" in tasks()[i]["message"]
                    for i in ids
                ),
                what="both papers waiting",
            )
            t0, calls0 = time.monotonic(), len(status_calls)
            # A sync request keeps today's behaviour: 503 after ZT_GPU_WAIT_S, naming ComfyUI.
            # It finds a job slot although both slots' jobs wait: they set them aside.
            sync = client.post(
                "/translate", json=plugin_body(small_paper(paragraphs=PARAGRAPHS), "sync.pdf")
            )
            assert sync.status_code == 503 and "ComfyUI" in sync.json()["message"]
            assert int(sync.headers["retry-after"]) >= 1
            time.sleep(max(0.0, 1.5 - (time.monotonic() - t0)))  # 3x ZT_GPU_WAIT_S
            for task_id in ids:
                task = tasks()[task_id]
                assert task["stage"] == "waiting_gpu" and task["status"] == "开始翻译", task
                assert "ComfyUI (pid" in task["message"] and "holds 20.0 GiB" in task["message"]
            assert rig.launch_count() == 0
            # The queue's own reads, plus the sync bring-up's for its 0.5 s, at 0.25 s each.
            reads = len(status_calls) - calls0
            window = time.monotonic() - t0
            assert reads <= window / 0.25 + 0.5 / 0.25 + 3, f"{reads} reads in {window:.1f} s"
            gpu_status = httpx.get(
                f"{gpu_url}/status", headers={"Authorization": f"Bearer {GPU_TOKEN}"}
            ).json()
            assert gpu_status["waiting"] == {"papers": 2, "clients": 1}

            # The task's event stream says it too, then follows it to the end.
            with client.stream("GET", f"/api/tasks/{ids[0]}/events") as stream:
                reader = SSEReader(stream)
                snapshot = reader.until(lambda e: e["event"] == "snapshot")[-1]["data"]["job"]
                assert snapshot["stage"] == "waiting_gpu" and "ComfyUI" in snapshot["message"]
                rig.smi.set()  # ComfyUI exits
                comfy.kill()
                events = reader.until(lambda e: e["event"] in ("done", "failed"))
            stages = [e["data"]["stage"] for e in events if e["event"] != "comment"]
            assert stages[-1] == "done" and "translating" in stages, stages
            wait_until(lambda: all(tasks()[i]["stage"] == "done" for i in ids), 60, "papers done")
            assert rig.launch_count() == 1
            for task_id in ids:
                name = tasks()[task_id]["fileList"][0]
                pdf = client.get(f"/translatedFile/{name}")
                assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
            wait_until(
                lambda: (
                    httpx.get(
                        f"{gpu_url}/status", headers={"Authorization": f"Bearer {GPU_TOKEN}"}
                    ).json()["waiting"]["papers"]
                    == 0
                ),
                what="the GPU API told that nobody waits",
            )


def test_a_paper_waiting_for_the_gpu_waits_again_after_a_restart(
    rig: Rig, comfy: subprocess.Popen[bytes]
) -> None:
    """A waiting job survives a server restart like any other: same task id, still waiting
    (naming ComfyUI), no launch while it waits, translated once ComfyUI exits."""
    settings = rig.settings(gpu_poll_s=0.25, gpu_wait_s=1.0)
    body = plugin_body(
        small_paper(paragraphs=("A paper that outlives a restart of the server.",)), "r.pdf"
    )

    def task(client: httpx.Client, task_id: str) -> dict[str, Any]:
        answer = client.get(f"/api/tasks/{task_id}")
        assert answer.status_code == 200, answer.text
        found: dict[str, Any] = answer.json()["task"]
        return found

    with run_app(settings) as srv, srv.client() as client:
        answer = client.post("/translate", json={**body, "asyncJob": True})
        task_id = answer.json()["taskId"]
        wait_until(lambda: task(client, task_id)["stage"] == "waiting_gpu", what="waiting")
    with run_app(settings) as srv, srv.client() as client:
        wait_until(
            lambda: (
                task(client, task_id)["stage"] == "waiting_gpu"
                and "ComfyUI" in task(client, task_id)["message"]
            ),
            what="waiting again after the restart",
        )
        assert rig.launch_count() == 0
        rig.smi.set()  # ComfyUI exits
        comfy.kill()
        wait_until(lambda: task(client, task_id)["stage"] == "done", 60, "done after restart")
        assert rig.launch_count() == 1
        name = task(client, task_id)["fileList"][0]
        assert client.get(f"/translatedFile/{name}").content.startswith(b"%PDF")


# --- the GPU API and its dashboard --------------------------------------------------------


def test_the_gpu_api_counts_waiting_papers_behind_its_token(settings: Settings) -> None:
    app = create_gpu_app(settings.model_copy(update={"gpu_api_token": SecretStr(GPU_TOKEN)}))
    auth = {"Authorization": f"Bearer {GPU_TOKEN}"}
    with serve_in_thread(app) as url:
        body = {"client": "zt-a", "papers": 2, "ttl_s": 1}
        assert httpx.post(f"{url}/waiting", json=body).status_code == 401
        assert httpx.post(f"{url}/waiting", json=body, headers=auth).json()["papers"] == 2
        other = {"client": "zt-b", "papers": 3, "ttl_s": 60}
        assert httpx.post(f"{url}/waiting", json=other, headers=auth).json() == {
            "papers": 5,
            "clients": 2,
        }
        bad = httpx.post(f"{url}/waiting", json={"client": "x", "papers": -1}, headers=auth)
        assert bad.status_code == 400
        huge = httpx.post(f"{url}/waiting", content=b"{" + b" " * 4096, headers=auth)
        assert huge.status_code == 413
        metrics = httpx.get(f"{url}/metrics", headers=auth).text
        assert "zt_gpu_papers_waiting 5" in metrics
        time.sleep(1.1)  # zt-a's word expires
        summary = app.state.waiting.summary()
        assert summary == {"papers": 3, "clients": 1}


@BROWSER_MARKS[0]
@BROWSER_MARKS[1]
def test_the_dashboard_shows_how_many_papers_wait(
    settings: Settings, tmp_path: Path, test_output_dir: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    fake = FakeSmi(tmp_path / "smi")
    app = create_gpu_app(
        settings.model_copy(
            update={
                "nvidia_smi": fake.path,
                "gpu_api_token": SecretStr(GPU_TOKEN),
                "gpu_watch_keywords": f"zt-none-{uuid.uuid4().hex[:8]}",  # other tests' vLLMs
            }
        )
    )
    auth = {"Authorization": f"Bearer {GPU_TOKEN}"}
    with serve_in_thread(app) as url, sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 600})
            page.goto(url + f"/#token={GPU_TOKEN}")
            expect(page.locator("#idle")).to_have_text("IDLE")
            expect(page.locator("#waiting")).to_be_hidden()
            body = {"client": "zt-test", "papers": 2, "ttl_s": 60}
            assert httpx.post(f"{url}/waiting", json=body, headers=auth).status_code == 200
            expect(page.locator("#waiting")).to_have_text(
                "2 papers wait for this GPU (zotero-translate)", timeout=10_000
            )
            page.screenshot(path=str(test_output_dir / "gpu-dashboard-waiting.png"))
            body["papers"] = 0
            httpx.post(f"{url}/waiting", json=body, headers=auth)
            expect(page.locator("#waiting")).to_be_hidden(timeout=10_000)
        finally:
            browser.close()


# --- the command line -----------------------------------------------------------------------


def test_durations_read_as_people_write_them() -> None:
    assert [duration(t) for t in ("3h", "90m", "1h30m", "45s", "600")] == [
        10800.0,
        5400.0,
        5400.0,
        45.0,
        600.0,
    ]
    for bad in ("", "h", "soon", "3x"):
        with pytest.raises(argparse.ArgumentTypeError):
            duration(bad)


def test_translate_with_wait_gpu_waits_for_comfyui_then_translates(
    rig: Rig, comfy: subprocess.Popen[bytes]
) -> None:
    paper = rig.tmp / "paper.pdf"
    paper.write_bytes(small_paper(paragraphs=PARAGRAPHS))
    env = rig.env(waiting_settings(rig))
    env["PYTHONPATH"] = str(REPO)
    proc = subprocess.Popen(
        [sys.executable, "-m", "zotero_server.cli", "translate", str(paper), "--wait-gpu", "2m"],
        env=env,
        cwd=rig.tmp,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()  # the command's first word, once the paper is read
        assert first.startswith("waiting for the GPU: ComfyUI (pid"), first
        time.sleep(1.0)  # 3x ZT_GPU_WAIT_S: without --wait-gpu it would have failed
        assert proc.poll() is None and rig.launch_count() == 0
        rig.smi.set()
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert (rig.tmp / "paper-mono.pdf").exists() and str(rig.tmp / "paper-mono.pdf") in out
    assert rig.launch_count() == 1
