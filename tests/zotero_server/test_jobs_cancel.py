"""Cancelling a job (``DELETE /api/tasks/{id}``, the page's Cancel button), and what a task says
about waiting: its place in line and the time left at its own pace."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from common.progress import ProgressSink, Stage
from common.settings import ConcurrencyMode, Settings
from tests.helpers.browser import BROWSER_MARKS, launch
from tests.helpers.pdfgen import make_paper
from tests.helpers.server import RunningServer, plugin_body, run_app, wait_until
from tests.helpers.vllm import FakeVLLMFactory, FakeVLLMProcess
from zotero_server.events import EventBus
from zotero_server.file_names import OutputKind
from zotero_server.files import OutputStore
from zotero_server.http_errors import TaskFinishedError
from zotero_server.job import Job
from zotero_server.job_store import JobStore
from zotero_server.jobs import JobRegistry

CONCURRENCY = 2
LATENCY_S = 0.2


@pytest.fixture(scope="module")
def paper() -> bytes:
    pdf, _truth = make_paper(pages=4)
    return pdf


@pytest.fixture
def slow(settings: Settings, tmp_path: Path) -> Iterator[tuple[RunningServer, FakeVLLMProcess]]:
    """One job at a time, two LLM requests in flight, each answer takes ``LATENCY_S``."""
    with FakeVLLMFactory(tmp_path) as factory:
        fake = factory.start("--fake-latency-ms", str(int(LATENCY_S * 1000)))
        configured = settings.model_copy(
            update={
                "llm_base_url": fake.base_url,
                "concurrency_mode": ConcurrencyMode.FIXED,
                "concurrency": CONCURRENCY,
                "max_jobs": 1,
            }
        )
        with run_app(configured) as running:
            yield running, fake


def submit(client: httpx.Client, pdf: bytes, name: str) -> str:
    answer = client.post("/translate", json=plugin_body(pdf, name, asyncJob="true"))
    assert answer.status_code == 200, answer.text
    return str(answer.json()["taskId"])


def task(client: httpx.Client, task_id: str) -> dict[str, Any]:
    answer = client.get(f"/api/tasks/{task_id}")
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()["task"]
    return result


def test_cancel_drops_the_queued_requests_at_once(
    slow: tuple[RunningServer, FakeVLLMProcess], paper: bytes
) -> None:
    srv, fake = slow
    with srv.client() as client:
        task_id = submit(client, paper, "paper.pdf")
        wait_until(lambda: len(fake.requests()) >= 2, what="the first answers")
        answer = client.delete(f"/api/tasks/{task_id}")
        at_cancel = len(fake.requests())
        assert answer.status_code == 200, answer.text
        cancelled = answer.json()["task"]
        assert cancelled["finished"] and cancelled["status"] == "失败"
        assert cancelled["errorType"] == "Cancelled" and cancelled["message"] == "cancelled"
        assert cancelled["result"]["status"] == "error"  # the plugin's failure test
        assert task(client, task_id) == cancelled
        assert srv.services.uploads.names() == []
        assert srv.services.translator.limiter.in_flight == 0

        # Five answers' time later: at most the requests in flight at the cancel came back;
        # nothing was sent after it (the paper has dozens of paragraphs left).
        time.sleep(5 * LATENCY_S)
        assert len(fake.requests()) <= at_cancel + CONCURRENCY

        again = client.delete(f"/api/tasks/{task_id}")
        assert again.status_code == 409 and again.json()["errorType"] == "TaskFinished"
        unknown = client.delete("/api/tasks/" + "f" * 32)
        assert unknown.status_code == 404 and unknown.json()["errorType"] == "NotFound"


def test_queued_jobs_know_their_place_and_a_cancelled_one_gives_it_up(
    slow: tuple[RunningServer, FakeVLLMProcess], paper: bytes
) -> None:
    srv, fake = slow
    with srv.client() as client:
        running = submit(client, paper, "a.pdf")
        wait_until(lambda: task(client, running)["stage"] == "translating", what="a translating")
        # With its requests queued, a hands its one slot on to b (issue 13: ZT_MAX_JOBS bounds
        # PDF work); b keeps it, since a took the one further place: c and d queue.
        also = submit(client, paper, "b.pdf")
        wait_until(lambda: task(client, also)["stage"] == "translating", what="b translating")
        second = submit(client, paper, "c.pdf")
        third = submit(client, paper, "d.pdf")
        places = [task(client, t)["position"] for t in (running, also, second, third)]
        assert places == [None, None, 1, 2]
        assert task(client, second)["etaSeconds"] is None

        # Once answers come back, the running job says how long it still needs at its pace.
        wait_until(lambda: task(client, running)["etaSeconds"] is not None, what="an ETA")
        eta = task(client, running)["etaSeconds"]
        assert isinstance(eta, int) and 0 <= eta < 600

        assert client.delete(f"/api/tasks/{second}").status_code == 200
        assert task(client, second)["errorType"] == "Cancelled"
        assert task(client, third)["position"] == 1
        for task_id in (running, also, third):
            assert client.delete(f"/api/tasks/{task_id}").status_code == 200
    assert srv.services.uploads.names() == []
    assert srv.services.registry.counts() == {"queued": 0, "running": 0, "finished": 4}


def test_a_sync_request_whose_job_is_cancelled_gets_409(
    slow: tuple[RunningServer, FakeVLLMProcess], paper: bytes
) -> None:
    srv, _ = slow
    answer: dict[str, httpx.Response] = {}

    def sync_client() -> None:
        with srv.client() as client:
            answer["response"] = client.post("/translate", json=plugin_body(paper, "p.pdf"))

    thread = threading.Thread(target=sync_client)
    thread.start()
    registry = srv.services.registry
    wait_until(lambda: registry.counts()["running"] == 1, what="the job to start")
    with srv.client() as client:
        assert client.delete(f"/api/tasks/{registry.all_jobs()[0].id}").status_code == 200
    thread.join(timeout=30)
    response = answer["response"]
    assert response.status_code == 409
    assert response.json() == {
        "status": "error",
        "ok": False,
        "message": "cancelled",
        "errorType": "Cancelled",
    }


def test_the_eta_is_the_jobs_own_pace_since_it_began_translating() -> None:
    job = Job(file_name="p.pdf", operation="translate", config={})
    job.stage, job.done, job.total = Stage.TRANSLATING, 10, 130
    assert job.eta_seconds(now=100.0) is None  # no pace yet
    job.rate_origin = (100.0, 10)  # 10 paragraphs came from the cache at once
    assert job.eta_seconds(now=105.0) is None  # nothing translated since
    job.done = 30
    assert job.eta_seconds(now=110.0) == 50  # 20 in 10 s: 100 left take 50 s
    job.stage = Stage.RENDERING
    assert job.eta_seconds(now=110.0) is None


@BROWSER_MARKS[0]
@BROWSER_MARKS[1]
def test_the_page_cancels_a_job_and_shows_the_line(
    slow: tuple[RunningServer, FakeVLLMProcess], test_output_dir: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    srv, _fake = slow
    # Long enough (about 20 s of answers) that the first job is still running when a busy
    # machine has started Chromium and loaded the page.
    paper, _truth = make_paper(pages=14)
    with srv.client() as client:
        first = submit(client, paper, "first.pdf")
        wait_until(lambda: task(client, first)["stage"] == "translating", what="first to run")
        # first hands its slot on to second (issue 13), which keeps it: third waits.
        second = submit(client, paper, "second.pdf")
        wait_until(lambda: task(client, second)["stage"] == "translating", what="second to run")
        submit(client, paper, "third.pdf")
    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 900})
            page.goto(srv.url + "/")
            expect(page.locator("#live")).to_have_text("live")
            running = page.locator("li.job", has_text="first.pdf")
            waiting = page.locator("li.job", has_text="third.pdf")
            expect(waiting.locator(".when")).to_have_text("next in line")
            expect(running.locator(".when")).to_contain_text("left", timeout=10_000)
            expect(running.locator(".cancel")).to_be_visible()
            page.screenshot(path=str(test_output_dir / "progress-page-queue.png"), full_page=True)

            running.locator(".cancel").click()
            expect(running.locator(".stage")).to_have_text("failed")
            expect(running.locator(".message")).to_have_text("cancelled")
            expect(running.locator(".cancel")).to_be_hidden()
            # Once the job holding the slot ends, the next job moves up and runs.
            holder = page.locator("li.job", has_text="second.pdf")
            holder.locator(".cancel").click()
            expect(holder.locator(".stage")).to_have_text("failed")
            expect(waiting.locator(".stage")).not_to_have_text("queued", timeout=10_000)
            waiting.locator(".cancel").click()
            expect(waiting.locator(".stage")).to_have_text("failed")
        finally:
            browser.close()


def job() -> Job:
    return Job(file_name="p.pdf", operation="translate", config={}, resumable=True)


async def test_a_cancel_while_a_finished_job_cleans_up_is_already_finished(tmp_path: Path) -> None:
    """Origin: hardening, issue 20 (durable state)."""
    reg = JobRegistry(EventBus(), max_jobs=1, output_dir="/out", store=JobStore(tmp_path / "j"))
    cleaning, release = asyncio.Event(), asyncio.Event()

    async def work(job: Job, sink: ProgressSink) -> list[str]:
        return ["p-mono.pdf"]

    async def discard() -> None:  # the upload's removal, slow
        cleaning.set()
        await release.wait()

    running = reg.submit(job(), work, discard)
    await asyncio.wait_for(cleaning.wait(), 10)
    with pytest.raises(TaskFinishedError, match="already finished"):
        reg.cancel(running.id)
    release.set()
    done = await reg.wait(running)
    assert done.to_task()["status"] == "完成" and done.files == ["p-mono.pdf"]


async def test_a_cancel_before_the_outputs_are_claimed_wins_and_leaves_no_output(
    tmp_path: Path,
) -> None:
    """Origin: hardening, issue 20 (durable state)."""
    outputs = OutputStore(tmp_path / "out", 3600.0)
    outputs.prepare()
    reg = JobRegistry(EventBus(), max_jobs=1, output_dir="/out", store=JobStore(tmp_path / "j"))
    about_to_claim, go = threading.Event(), threading.Event()

    async def work(job: Job, sink: ProgressSink) -> list[str]:
        claim = reg.claimer(job)

        def slow_claim(names: list[str]) -> None:  # the thread is slow to get there
            about_to_claim.set()
            go.wait(10)
            claim(names)

        data = [(OutputKind.MONO, b"%PDF-mono")]
        return await asyncio.to_thread(outputs.save, "p", data, slow_claim)

    running = reg.submit(job(), work)
    await asyncio.to_thread(about_to_claim.wait, 10)
    reg.cancel(running.id)  # wins: the claim comes after it
    go.set()
    await asyncio.wait_for(running.finished_event.wait(), 10)
    assert running.to_task()["errorType"] == "Cancelled"
    await asyncio.sleep(0.2)  # the writing thread finishes after the job ended
    assert list(outputs.directory.iterdir()) == []


async def test_a_cancel_after_the_outputs_are_claimed_is_already_finished(tmp_path: Path) -> None:
    """Origin: hardening, issue 20 (durable state)."""
    outputs = OutputStore(tmp_path / "out", 3600.0)
    outputs.prepare()
    reg = JobRegistry(EventBus(), max_jobs=1, output_dir="/out", store=JobStore(tmp_path / "j"))
    claimed, go = threading.Event(), threading.Event()

    async def work(job: Job, sink: ProgressSink) -> list[str]:
        claim = reg.claimer(job)

        def claim_then_wait(names: list[str]) -> None:
            claim(names)
            claimed.set()
            go.wait(10)  # the bytes are on their way

        data = [(OutputKind.MONO, b"%PDF-mono")]
        return await asyncio.to_thread(outputs.save, "p", data, claim_then_wait)

    running = reg.submit(job(), work)
    await asyncio.to_thread(claimed.wait, 10)
    with pytest.raises(TaskFinishedError):
        reg.cancel(running.id)
    go.set()
    done = await reg.wait(running)
    assert done.files == ["p-mono.pdf"]
    assert (outputs.directory / "p-mono.pdf").read_bytes() == b"%PDF-mono"
