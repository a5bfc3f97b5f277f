"""Issue 13: a job slot (``ZT_MAX_JOBS``) bounds PDF work, not waiting for answers. Once all of
a job's LLM requests are queued it hands its slot on, so a short paper sent behind a long one
starts at once (and the fair limiter serves it first) even with one slot; at most
``2 * max_jobs`` jobs run at a time, since each keeps a PDF worker process alive.

Uploads read at once are bounded (``ZT_MAX_UPLOADS``), jobs waiting are bounded
(``ZT_MAX_QUEUED``), both answered 503 with ``Retry-After``, and a graceful stop leaves no upload
of a job that will never run.
"""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import pytest

from common.progress import ProgressSink
from common.settings import ConcurrencyMode, Settings
from tests.helpers.manager import eventually
from tests.helpers.pdfgen.textbox import small_paper

# The fixture ``fake_llm`` (pytest finds it by this import).
from tests.helpers.server import PARAGRAPHS, plugin_body, run_app, wait_until
from tests.helpers.server import fake_llm_fixture as fake_llm_fixture
from tests.helpers.vllm import FakeVLLMFactory
from zotero_server.events import EventBus
from zotero_server.job import Job
from zotero_server.jobs import JobRegistry


async def test_a_job_that_hands_its_slot_on_lets_one_more_start_and_no_more() -> None:
    registry = JobRegistry(EventBus(), max_jobs=1, output_dir="/out")
    release = {name: asyncio.Event() for name in ("long", "short", "third", "fourth")}
    handed: dict[str, bool] = {}

    async def work(job: Job, sink: ProgressSink) -> list[str]:
        handed[job.file_name] = registry.hand_on_slot(job)  # "all its requests are queued"
        await release[job.file_name].wait()
        return [job.file_name]

    jobs = {name: registry.submit(Job(name, "translate", {}), work) for name in release}
    await eventually(lambda: "short" in handed)
    # The long one handed its slot on; the short one found the one further place taken.
    assert handed == {"long": True, "short": False}
    assert jobs["third"].started_at is None and jobs["fourth"].started_at is None

    release["short"].set()  # the short one ends: its slot goes to the third
    await asyncio.wait_for(registry.wait(jobs["short"]), 5)
    await eventually(lambda: "third" in handed)
    assert handed["third"] is False and jobs["fourth"].started_at is None

    release["long"].set()  # the long one ends on its further place: no slot freed
    await asyncio.wait_for(registry.wait(jobs["long"]), 5)
    await asyncio.sleep(0.1)
    assert jobs["fourth"].started_at is None, "the long job gave back a slot it did not hold"

    release["third"].set()
    await eventually(lambda: "fourth" in handed)
    assert handed["fourth"] is True  # the further place is free again
    release["fourth"].set()
    await asyncio.wait_for(registry.wait(jobs["fourth"]), 5)
    assert all(job.error is None for job in jobs.values())


@pytest.mark.slow
@pytest.mark.corpus
def test_with_one_job_slot_a_short_paper_sent_behind_a_long_one_finishes_first(
    corpus_dir: Path, settings: Settings, tmp_path: Path
) -> None:
    long_pdf = (corpus_dir / "05_arxiv2206.10883_multilexsum_1col_preprint_37p.pdf").read_bytes()
    short_pdf = (corpus_dir / "02_naacl2018_s2_literature_graph_2col_short.pdf").read_bytes()
    with FakeVLLMFactory(tmp_path) as factory:
        fake = factory.start(
            "--max-num-seqs", "4", "--fake-latency-ms", "60", "--disable-uvicorn-access-log",
        )  # fmt: skip
        configured = settings.model_copy(
            update={
                "llm_base_url": fake.base_url,
                "concurrency_mode": ConcurrencyMode.FIXED,
                "concurrency": 4,
                "max_jobs": 1,
            }
        )
        with run_app(configured) as srv, srv.client() as client:
            ids = []
            for pdf, name in ((long_pdf, "long.pdf"), (short_pdf, "short.pdf")):
                body = plugin_body(pdf, name, asyncJob="true", dual="false")
                answer = client.post("/translate", json=body)
                assert answer.status_code == 200, answer.text
                ids.append(answer.json()["taskId"])
            registry = srv.services.registry

            def finished(job_id: str) -> bool:
                job = registry.get(job_id)
                return job is not None and job.finished

            wait_until(lambda: finished(ids[1]), timeout=120, what="the short paper")
            long_job, short_job = registry.get(ids[0]), registry.get(ids[1])
            assert short_job is not None and short_job.error is None, short_job
            assert long_job is not None and not long_job.finished, (
                "the short paper waited for the long one's slot"
            )
            wait_until(lambda: finished(ids[0]), timeout=120, what="the long paper")
            assert long_job.error is None, long_job.error


def test_uploads_beyond_max_uploads_get_a_503_with_retry_after(
    settings: Settings, fake_llm: Any
) -> None:
    """Origin: hardening, issue 12 finding 4 (bounded work per queue)."""
    configured = settings.model_copy(update={"llm_base_url": fake_llm.base_url, "max_uploads": 1})
    with run_app(configured) as srv:
        # One upload that is still arriving holds the only place.
        slow = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        try:
            slow.sendall(
                b"POST /translate HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n"
                b'{"fileName": "slow.pdf", "fileContent": "'
            )
            wait_until(lambda: srv.services.uploading == 1, what="the slow upload to begin")
            with srv.client() as client:
                body = plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf", asyncJob="true")
                busy = client.post("/translate", json=body)
                assert busy.status_code == 503
                assert busy.json()["errorType"] == "ServerBusy"
                assert int(busy.headers["retry-after"]) > 0
        finally:
            slow.close()
        wait_until(lambda: srv.services.uploading == 0, what="the slow upload to be dropped")
        with srv.client() as client:
            assert client.post("/translate", json=body).status_code == 200


def test_a_full_queue_is_a_503_and_a_stop_keeps_only_the_uploads_of_jobs_to_resume(
    settings: Settings, tmp_path: Path
) -> None:
    """Origin: hardening, issue 12 finding 4 (bounded work per queue)."""
    with FakeVLLMFactory(tmp_path) as factory:
        slow = factory.start("--fake-latency-ms", "30000")  # every answer takes 30 s
        configured = settings.model_copy(
            update={"llm_base_url": slow.base_url, "max_jobs": 1, "max_queued": 1}
        )
        uploads = configured.data_dir / "uploads"
        with run_app(configured) as srv, srv.client() as client:
            registry = srv.services.registry

            def post(name: str) -> Any:
                body = plugin_body(small_paper(paragraphs=PARAGRAPHS), name, asyncJob="true")
                return client.post("/translate", json=body)

            first = post("running.pdf")
            assert first.status_code == 200
            wait_until(lambda: registry.counts()["running"] == 1, what="the first job to run")
            second = post("queued.pdf")
            assert second.status_code == 200
            assert registry.counts()["queued"] == 1
            full = post("refused.pdf")
            assert full.status_code == 503, full.text
            assert full.json()["errorType"] == "ServerBusy"
            assert "ZT_MAX_QUEUED" in full.json()["message"]
            assert int(full.headers["retry-after"]) > 0
            assert len(list(uploads.iterdir())) == 2  # the refused upload was never kept
        # Graceful stop: both async jobs stay unfinished and run again at the next start, so
        # their uploads stay, and nothing else does.
        kept = sorted(p.name for p in uploads.iterdir())
        assert kept == sorted(f"{r.json()['taskId']}.pdf" for r in (first, second))
