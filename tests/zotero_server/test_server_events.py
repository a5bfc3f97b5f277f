"""The event bus (ids, replay, per-job filters, slow subscribers) and the job registry."""

from __future__ import annotations

import asyncio
import threading

import pytest

from common.errors import GPUBusyError, LLMError
from common.progress import Progress, ProgressSink, Stage
from zotero_server import events as events_module
from zotero_server.events import Event, EventBus, EventType, Subscription
from zotero_server.http_errors import ShuttingDownError
from zotero_server.job import Job, percent_for
from zotero_server.jobs import HISTORY, LINGER_S, JobRegistry


async def drain(subscription: Subscription, count: int) -> list[Event]:
    got = []
    async for event in subscription:
        got.append(event)
        if len(got) == count:
            break
    return got


# --- the bus --------------------------------------------------------------------------------


async def test_subscribers_get_events_in_order_with_ids_of_this_run() -> None:
    bus = EventBus()
    sub = bus.subscribe()
    bus.publish(EventType.STAGE, {"n": 1}, job_id="a")
    bus.publish(EventType.PROGRESS, {"n": 2}, job_id="b")
    got = await drain(sub, 2)
    assert [(e.seq, e.type, e.data["n"]) for e in got] == [
        (1, EventType.STAGE, 1),
        (2, EventType.PROGRESS, 2),
    ]
    assert bus.parse_event_id(bus.event_id(2)) == 2
    assert bus.parse_event_id("other-run.2") is None  # an id from before a restart
    assert bus.parse_event_id(bus.event_id(99)) is None  # never issued
    assert bus.parse_event_id("garbage") is None


async def test_resume_replays_only_missed_events_of_the_job() -> None:
    bus = EventBus()
    for n in range(1, 7):
        bus.publish(EventType.PROGRESS, {"n": n}, job_id="a" if n % 2 else "b")
    assert bus.can_replay(3)
    sub = bus.subscribe("a", after=3)
    bus.publish(EventType.DONE, {"n": 7}, job_id="a")
    bus.publish(EventType.DONE, {"n": 8}, job_id="b")
    bus.close()
    assert [e.data["n"] async for e in sub] == [5, 7]


async def test_resume_after_buffer_overflow_is_refused() -> None:
    bus = EventBus(replay=3)
    for n in range(10):
        bus.publish(EventType.PROGRESS, {"n": n})
    assert not bus.can_replay(2)  # events 3..7 are gone: the client must take a snapshot
    assert bus.can_replay(7)


async def test_slow_subscriber_is_dropped_not_blocking(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(events_module, "QUEUE_EVENTS", 5)
    bus = EventBus()
    slow = bus.subscribe()
    for n in range(10):
        bus.publish(EventType.PROGRESS, {"n": n})
    got = [e async for e in slow]  # ends by itself: the client reconnects with its last id
    assert slow.dropped and len(got) == 5
    assert bus.subscriber_count == 0


async def test_close_ends_every_stream() -> None:
    bus = EventBus()
    sub = bus.subscribe()
    bus.close()
    assert [e async for e in sub] == []
    assert [e async for e in bus.subscribe()] == []


# --- the registry -----------------------------------------------------------------------------


def new_job(name: str = "paper.pdf") -> Job:
    return Job(file_name=name, operation="translate", config={}, model="m")


def registry(bus: EventBus, max_jobs: int = 2) -> JobRegistry:
    return JobRegistry(bus, max_jobs=max_jobs, output_dir="/out")


async def test_a_job_walks_the_stages_and_ends_with_its_files() -> None:
    bus = EventBus()
    reg = registry(bus)
    sub = bus.subscribe()

    async def work(job: Job, sink: ProgressSink) -> list[str]:
        sink(Progress(Stage.WAITING_GPU, "waiting for GPU: ComfyUI holds 19.8 GiB"))
        sink(Progress(Stage.STARTING_LLM, "starting vLLM"))
        for done in range(5):
            sink(Progress(Stage.TRANSLATING, f"translating {done}/4", done, 4))
        sink(Progress(Stage.RENDERING, "rendering"))
        return ["paper-mono.pdf"]

    job = reg.submit(new_job(), work)
    await reg.wait(job)
    stages = []
    async for event in sub:
        if event.type is EventType.STAGE:
            stages.append(event.data["stage"])
        if event.type is EventType.DONE:
            break
    assert stages == ["queued", "waiting_gpu", "starting_llm", "translating", "rendering"]
    task = job.to_task()
    assert task["status"] == "完成" and task["finished"] and task["progress"] == 100
    assert task["fileList"] == ["paper-mono.pdf"]
    assert task["filePaths"] == ["/out/paper-mono.pdf"]
    assert task["result"]["status"] == "success"
    assert job.to_task(history=True)["status"] == "success"
    assert reg.history() == [job]


async def test_a_failed_job_says_why_in_plugin_terms() -> None:
    reg = registry(EventBus())

    async def work(job: Job, sink: ProgressSink) -> list[str]:
        raise GPUBusyError("waiting for GPU: ComfyUI holds 19.8 GiB", retry_after_s=30)

    job = reg.submit(new_job(), work)
    with pytest.raises(GPUBusyError):
        await reg.wait(job)
    task = job.to_task()
    assert task["status"] == "失败"
    assert task["error"] == "waiting for GPU: ComfyUI holds 19.8 GiB"
    assert task["result"] == {
        "status": "error",
        "ok": False,
        "message": "waiting for GPU: ComfyUI holds 19.8 GiB",
        "errorType": "GPUBusy",
    }
    assert job.to_task(history=True)["status"] == "failed"


async def test_unexpected_errors_are_hidden_from_the_task() -> None:
    reg = registry(EventBus())

    async def work(job: Job, sink: ProgressSink) -> list[str]:
        raise KeyError("/home/secret/path")

    job = reg.submit(new_job(), work)
    with pytest.raises(KeyError):
        await reg.wait(job)
    assert "secret" not in job.to_task()["message"]
    assert job.to_task()["errorType"] == "InternalError"


async def test_at_most_max_jobs_run_at_once() -> None:
    reg = registry(EventBus(), max_jobs=2)
    running, peak = 0, 0
    release = asyncio.Event()

    async def work(job: Job, sink: ProgressSink) -> list[str]:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await release.wait()
        running -= 1
        return []

    jobs = [reg.submit(new_job(f"p{i}.pdf"), work) for i in range(5)]
    while running < 2:
        await asyncio.sleep(0)
    await asyncio.sleep(0.01)
    assert [j.started_at is None for j in jobs] == [False, False, True, True, True]
    assert [j.to_task()["stageText"] for j in jobs[1:3]] == ["starting", "queued"]
    assert reg.counts() == {"queued": 3, "running": 2, "finished": 0}
    release.set()
    for job in jobs:
        await reg.wait(job)
    assert peak == 2


async def test_progress_reports_from_worker_threads_reach_the_loop() -> None:
    reg = registry(EventBus())

    async def work(job: Job, sink: ProgressSink) -> list[str]:
        thread = threading.Thread(target=sink, args=(Progress(Stage.RENDERING, "in a thread"),))
        thread.start()
        thread.join()
        for _ in range(100):
            if job.stage is Stage.RENDERING:
                break
            await asyncio.sleep(0.01)
        return [job.message]

    job = await reg.wait(reg.submit(new_job(), work))
    assert job.files == ["in a thread"]


async def test_a_held_back_message_still_reaches_subscribers() -> None:
    """Progress events are rate-limited, but the last word of a stage is never lost."""
    bus = EventBus()
    reg = registry(bus)
    sub = bus.subscribe()
    release = asyncio.Event()

    async def work(job: Job, sink: ProgressSink) -> list[str]:
        sink(Progress(Stage.WAITING_GPU, "waiting for GPU: ComfyUI holds 19.8 GiB"))
        sink(Progress(Stage.WAITING_GPU, "waiting for GPU: ComfyUI holds 20.1 GiB"))
        await release.wait()
        return []

    job = reg.submit(new_job(), work)
    messages: list[str] = []

    async def read() -> None:
        async for event in sub:
            messages.append(event.data["message"])
            if event.data["message"].endswith("20.1 GiB"):
                return

    await asyncio.wait_for(read(), timeout=10)
    assert messages[-2:] == [
        "waiting for GPU: ComfyUI holds 19.8 GiB",
        "waiting for GPU: ComfyUI holds 20.1 GiB",
    ]
    release.set()
    await reg.wait(job)


async def test_the_bar_never_runs_backwards() -> None:
    reg = registry(EventBus())

    async def work(job: Job, sink: ProgressSink) -> list[str]:
        sink(Progress(Stage.TRANSLATING, "3/4", 3, 4))
        sink(Progress(Stage.STARTING_LLM, "lost the LLM mid-paper; bringing it back"))
        assert job.percent == percent_for(Stage.TRANSLATING, 3, 4)
        assert job.stage is Stage.STARTING_LLM
        return []

    await reg.wait(reg.submit(new_job(), work))


async def test_shutdown_fails_queued_and_running_jobs_cleanly() -> None:
    bus = EventBus()
    reg = registry(bus, max_jobs=1)
    started = asyncio.Event()

    async def forever(job: Job, sink: ProgressSink) -> list[str]:
        started.set()
        await asyncio.sleep(3600)
        return []

    running = reg.submit(new_job("a.pdf"), forever)
    queued = reg.submit(new_job("b.pdf"), forever)
    await started.wait()
    await reg.aclose(grace_s=0.05)
    for job in (running, queued):
        assert job.stage is Stage.FAILED
        assert isinstance(job.error, ShuttingDownError)
        assert "shutting down" in job.to_task()["message"]
    with pytest.raises(ShuttingDownError):
        reg.submit(new_job(), forever)


async def test_finished_tasks_linger_then_only_history_keeps_them() -> None:
    reg = registry(EventBus())

    async def quick(job: Job, sink: ProgressSink) -> list[str]:
        return []

    job = await reg.wait(reg.submit(new_job(), quick))
    assert reg.tasks() == [job]
    assert job.finished_at is not None
    assert reg.tasks(now=job.finished_at + LINGER_S + 1) == []
    assert reg.history() == [job]


async def test_history_keeps_the_newest_200() -> None:
    reg = registry(EventBus())

    async def failing(job: Job, sink: ProgressSink) -> list[str]:
        raise LLMError("no")

    jobs = [reg.submit(new_job(f"{i}.pdf"), failing) for i in range(HISTORY + 5)]
    for job in jobs:
        with pytest.raises(LLMError):
            await reg.wait(job)
    history = reg.history()
    assert len(history) == HISTORY
    assert history[0] is jobs[-1]
    assert reg.get(jobs[0].id) is None
