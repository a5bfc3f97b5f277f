"""Issue 13, fair share: a short paper submitted while a long one translates finishes within
1.5x (+2 s) of its time alone, on the real server with a fake vLLM of fixed latency and slots.

Before, every paragraph of every job queued on one first-come-first-served limiter: the 8-page
paper waited for all of the 51-page one's paragraphs (20.8 s instead of 6.3 s alone).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from common.language import Language
from common.progress import Progress, Stage
from common.settings import ConcurrencyMode, Settings
from tests.helpers.pdfgen import join_pages
from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import RunningServer, plugin_body, run_app, wait_until
from tests.helpers.vllm import FakeVLLMFactory
from translation.pipeline import Translator
from translation.request import TranslationRequest
from zotero_server.job import Job

#: The fake vLLM: this many requests run at once, each takes this long. The 51-page paper
#: (about 620 distinct paragraphs) then needs about 9 s of LLM time, the 8-page one (about 130)
#: about 2 s: the LLM dominates the short job, as on a real GPU.
SLOTS = 4
LATENCY_MS = 60


def _submit(client: httpx.Client, pdf: bytes, name: str, **fields: str) -> str:
    # The mono file only: the dual one costs CPU time that says nothing of the LLM's share.
    body = plugin_body(pdf, name, asyncJob="true", dual="false", **fields)
    answer = client.post("/translate", json=body)
    assert answer.status_code == 200, answer.text
    return str(answer.json()["taskId"])


def _job(srv: RunningServer, job_id: str) -> Job:
    job = srv.services.registry.get(job_id)
    assert job is not None
    return job


def _wait_done(srv: RunningServer, job_id: str) -> float:
    """Wait for the job; return its time from submission to its end (seconds)."""
    wait_until(lambda: _job(srv, job_id).finished, timeout=120, what=f"job {job_id}")
    job = _job(srv, job_id)
    assert job.error is None, job.error
    assert job.finished_at is not None
    return job.finished_at - job.created_at


@pytest.mark.slow
@pytest.mark.corpus
def test_a_short_paper_behind_a_long_one_finishes_about_as_fast_as_alone(
    corpus_dir: Path, settings: Settings, tmp_path: Path
) -> None:
    long_pdf = join_pages(
        corpus_dir,
        [
            ("05_arxiv2206.10883_multilexsum_1col_preprint_37p.pdf", None),
            ("01_acl2020_specter_2col_math.pdf", None),
            ("04_arxiv2203.00274_tableformer_2col_math_tables.pdf", [0]),
        ],
    )
    short_pdf = (corpus_dir / "02_naacl2018_s2_literature_graph_2col_short.pdf").read_bytes()
    with FakeVLLMFactory(tmp_path) as factory:
        fake = factory.start(
            "--max-num-seqs", str(SLOTS), "--fake-latency-ms", str(LATENCY_MS),
            "--disable-uvicorn-access-log",
        )  # fmt: skip
        configured = settings.model_copy(
            update={
                "llm_base_url": fake.base_url,
                "concurrency_mode": ConcurrencyMode.FIXED,
                "concurrency": SLOTS,
                "max_jobs": 2,
            }
        )
        with run_app(configured) as srv, srv.client() as client:
            alone_s = _wait_done(srv, _submit(client, short_pdf, "short.pdf"))

            long_id = _submit(client, long_pdf, "long.pdf")
            limiter = srv.services.translator.limiter

            # The short paper must arrive while the long one's paragraphs fill the queue: its
            # first page goes ahead while the rest is read, so wait for the whole paper's
            # requests (the job translating, its queue full), not for its first request.
            def long_queue_full() -> bool:
                translating = _job(srv, long_id).stage is Stage.TRANSLATING
                return translating and limiter.waiting(long_id) > SLOTS

            wait_until(long_queue_full, timeout=120, what="the long job's queue")
            short_id = _submit(client, short_pdf, "short-again.pdf", force="true")
            wait_until(lambda: limiter.held(short_id) > 0, timeout=60, what="the short job's LLM")
            long_waiting = limiter.waiting(long_id)
            shared_s = _wait_done(srv, short_id)
            long_running = not _job(srv, long_id).finished
            # The long job is left to the server's shutdown: its end tells nothing here.

    assert shared_s <= 1.5 * alone_s + 2.0, (
        f"alone {alone_s:.1f} s, behind a long one {shared_s:.1f} s"
    )
    # It really shared: the long job still had requests waiting when the short one got its first
    # slot, and was still running when the short one ended.
    assert long_waiting > 0 and long_running


async def _ready(_: object) -> None:
    """The fake is up already."""


async def test_a_cancelled_job_drops_its_queued_requests_at_once_and_the_other_goes_on(
    settings: Settings, fake_vllm_factory: FakeVLLMFactory, tmp_path: Path
) -> None:
    fake = fake_vllm_factory.start("--fake-latency-ms", "100")
    configured = settings.model_copy(
        update={
            "llm_base_url": fake.base_url,
            "concurrency": 2,
            "concurrency_mode": ConcurrencyMode.FIXED,
        }
    )
    translator = Translator.from_settings(configured, _ready)
    limiter = translator.limiter
    paper = small_paper(pages=5)  # 15 paragraphs
    done_a: list[int] = []

    def progress_a(event: Progress) -> None:
        done_a.append(event.done)

    try:
        # Two targets: the same paragraphs are two sets of requests (and of cache keys).
        job_a = asyncio.create_task(
            translator.translate(
                TranslationRequest(paper, Language.parse("en"), Language.parse("ko"), owner="a"),
                progress_a,
            )
        )
        job_b = asyncio.create_task(
            translator.translate(
                TranslationRequest(paper, Language.parse("en"), Language.parse("ja"), owner="b")
            )
        )
        async with asyncio.timeout(30):
            while limiter.waiting("a") == 0:
                await asyncio.sleep(0.01)
        job_a.cancel()
        with pytest.raises(asyncio.CancelledError):
            await job_a
        answered_a = max(done_a, default=0)
        assert limiter.waiting("a") == 0 and limiter.held("a") == 0
        async with asyncio.timeout(30):
            result_b = await job_b
    finally:
        await translator.aclose()
    assert result_b.llm_calls == 15
    # Job "a" sent only what it had answered or in flight (2 slots) when it was cancelled.
    assert len(fake.requests()) <= 15 + answered_a + 2
