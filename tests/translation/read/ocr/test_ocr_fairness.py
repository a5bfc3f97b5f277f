"""Issue 20 item 4: a scan being read by OCR (minutes) does not starve a short paper.

A job hands its ``ZT_MAX_JOBS`` slot on as its OCR starts, so with one slot a short text paper
sent behind a long scan starts and finishes while the scan is still being read; the scan's task
says which page it reads ("reading page k of n (OCR)"). A scan with more pages to read by OCR
than ``ZT_OCR_MAX_PAGES`` fails at once with the setting's name.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pymupdf
import pytest

from common.settings import ConcurrencyMode, Settings
from tests.helpers.ocr import needs_ocr
from tests.helpers.server import plugin_body, run_app, wait_until
from tests.helpers.vllm import FakeVLLMFactory

pytestmark = [needs_ocr("en"), pytest.mark.corpus]

SCAN = "10_scanned_imageonly_naacl2018_s2_literature_graph.pdf"
TEXT = "02_naacl2018_s2_literature_graph_2col_short.pdf"
#: Pages of the long scan: the eight of the corpus scan, twice (seconds each to read).
SCAN_PAGES = 16
READING = re.compile(r"reading page (\d+) of (\d+) \(OCR\)")


def _scan(corpus_dir: Path, pages: int) -> bytes:
    """A scan of ``pages`` pages, the corpus scan's pages over and over."""
    out = pymupdf.open()
    with pymupdf.open(corpus_dir / SCAN) as src:
        while out.page_count < pages:
            last = min(src.page_count, pages - out.page_count) - 1
            out.insert_pdf(src, from_page=0, to_page=last)
    return bytes(out.tobytes(garbage=3, deflate=True))


def _first_page(path: Path) -> bytes:
    out = pymupdf.open()
    with pymupdf.open(path) as src:
        out.insert_pdf(src, from_page=0, to_page=0)
    return bytes(out.tobytes())


def _task(client: httpx.Client, task_id: str) -> dict[str, Any]:
    answer = client.get(f"/api/tasks/{task_id}")
    assert answer.status_code == 200, answer.text
    task: dict[str, Any] = answer.json()["task"]
    return task


def test_a_short_paper_finishes_while_a_scan_sent_before_it_is_read_by_ocr(
    corpus_dir: Path, settings: Settings, tmp_path: Path
) -> None:
    scan = _scan(corpus_dir, SCAN_PAGES)
    short = _first_page(corpus_dir / TEXT)
    with FakeVLLMFactory(tmp_path) as factory:
        fake = factory.start("--disable-uvicorn-access-log")
        configured = settings.model_copy(
            update={
                "llm_base_url": fake.base_url,
                "concurrency_mode": ConcurrencyMode.FIXED,
                "concurrency": 4,
                "max_jobs": 1,
            }
        )
        with run_app(configured) as srv, srv.client() as client:
            body = plugin_body(scan, "scan.pdf", asyncJob="true", dual="false")
            answer = client.post("/translate", json=body)
            assert answer.status_code == 200, answer.text
            scan_id = answer.json()["taskId"]
            seen: list[str] = []

            def reading_the_scan() -> bool:
                task = _task(client, scan_id)
                assert not task["finished"], task
                seen.append(task["message"])
                return bool(READING.fullmatch(task["message"]))

            wait_until(reading_the_scan, timeout=120, what="the scan's OCR to start")
            assert f"of {SCAN_PAGES} (OCR)" in seen[-1], seen[-1]

            body = plugin_body(short, "short.pdf", asyncJob="true", dual="false")
            answer = client.post("/translate", json=body)
            assert answer.status_code == 200, answer.text
            short_id = answer.json()["taskId"]
            wait_until(
                lambda: _task(client, short_id)["finished"], timeout=300, what="the short paper"
            )
            done, scan_task = _task(client, short_id), _task(client, scan_id)
            assert done["stage"] == "done" and done["fileList"], done
            # The scan is still being read: the short paper did not wait for its slot.
            assert not scan_task["finished"], scan_task
            reading = READING.fullmatch(scan_task["message"])
            assert reading is not None, scan_task["message"]
            assert int(reading[1]) < SCAN_PAGES and int(reading[2]) == SCAN_PAGES
            assert scan_task["done"] == int(reading[1]) - 1
            assert scan_task["total"] == SCAN_PAGES

            # Cancelled now: reading the rest would only cost time.
            assert client.delete(f"/api/tasks/{scan_id}").status_code in (200, 202)
            wait_until(lambda: _task(client, scan_id)["finished"], what="the cancelled scan")


def test_a_scan_over_the_ocr_page_limit_fails_at_once_naming_the_setting(
    corpus_dir: Path, settings: Settings, tmp_path: Path
) -> None:
    scan = _scan(corpus_dir, 3)
    with FakeVLLMFactory(tmp_path) as factory:
        fake = factory.start("--disable-uvicorn-access-log")
        configured = settings.model_copy(update={"llm_base_url": fake.base_url, "ocr_max_pages": 2})
        with run_app(configured) as srv, srv.client() as client:
            answer = client.post("/translate", json=plugin_body(scan, "scan.pdf"))
            assert answer.status_code == 400, answer.text
            message = answer.text
            assert "3 scanned pages" in message and "ZT_OCR_MAX_PAGES" in message, message
            # The server keeps serving.
            assert client.get("/health").status_code == 200
