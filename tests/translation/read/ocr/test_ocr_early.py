"""A scan is sent as it is read (issue 23 item 6): the paragraphs of the pages read so far go to
the LLM while later pages are still read by OCR; the paragraphs translated and typeset are
still those of the whole document."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pymupdf
import pytest

from common.settings import Settings
from tests.helpers.ocr import needs_ocr
from tests.helpers.server import plugin_body, run_app, wait_until
from tests.helpers.vllm import FakeVLLMFactory
from translation.read.document import open_document
from translation.read.early import EarlyParagraphs
from translation.read.extraction import extract_document, read_layout
from translation.read.paragraph import Paragraph

pytestmark = pytest.mark.corpus

SCAN = "10_scanned_imageonly_naacl2018_s2_literature_graph.pdf"
TEXT = "02_naacl2018_s2_literature_graph_2col_short.pdf"
READING = re.compile(r"reading page (\d+) of (\d+) \(OCR\)")


def test_paragraphs_told_early_are_the_documents_own_and_no_reference(corpus_dir: Path) -> None:
    """Corpus 02 read a page at a time: every paragraph told early is one the whole document
    sends (nothing paid for in vain), most of them are told before the last page is read, and
    no bibliography entry is among them."""
    doc = open_document((corpus_dir / TEXT).read_bytes())
    layouts = [read_layout(page) for page in doc]
    told: list[Paragraph] = []
    early = EarlyParagraphs(len(layouts) - 1, None, False, told.extend)
    for count in range(1, len(layouts) + 1):
        early.read(layouts[:count])
    whole = extract_document(doc)
    final = {p.text for p in whole.paragraphs}
    assert told and all(p.text in final for p in told), [
        p.text[:60] for p in told if p.text not in final
    ]
    assert len({p.text for p in told}) >= 0.6 * len(final)
    assert not [p for p in told if p.page in whole.reference_pages and p.kind == "reference"]
    assert not any(re.match(r"Waleed Ammar, Matthew", p.text) for p in told)


def _scan(corpus_dir: Path, pages: int) -> bytes:
    out = pymupdf.open()
    with pymupdf.open(corpus_dir / SCAN) as src:
        out.insert_pdf(src, from_page=0, to_page=pages - 1)
    return bytes(out.tobytes(garbage=3, deflate=True))


def _task(client: httpx.Client, task_id: str) -> dict[str, Any]:
    answer = client.get(f"/api/tasks/{task_id}")
    assert answer.status_code == 200, answer.text
    task: dict[str, Any] = answer.json()["task"]
    return task


@pytest.mark.slow
@needs_ocr("en")
def test_a_scans_first_pages_reach_the_llm_while_later_pages_are_read(
    corpus_dir: Path, settings: Settings, tmp_path: Path
) -> None:
    # The whole 8-page scan: on a busy machine the first request must still come well before
    # the last page is read (6 pages left too little room for that).
    pages = 8
    scan = _scan(corpus_dir, pages)
    with FakeVLLMFactory(tmp_path) as factory:
        fake = factory.start("--disable-uvicorn-access-log")
        # At most three pages read at once (memory for three; two on two cores): pages remain
        # to read. 1024 MiB was too tight once the worker's address space had grown with the
        # modules a long test run imports (the limit is on address space, not resident memory).
        # Read at 150 dpi: what is checked is when pages are told, not how well they are read,
        # and a page costs a quarter of its 300 dpi time.
        configured = settings.model_copy(
            update={"llm_base_url": fake.base_url, "pdf_worker_memory_mb": 1536, "ocr_dpi": 150}
        )
        with run_app(configured) as srv, srv.client() as client:
            body = plugin_body(scan, "scan.pdf", asyncJob="true", dual="false")
            answer = client.post("/translate", json=body)
            assert answer.status_code == 200, answer.text
            task_id = answer.json()["taskId"]
            messages: list[str] = []

            def first_request() -> bool:
                messages.append(_task(client, task_id)["message"])
                return bool(fake.texts())

            wait_until(first_request, timeout=240, what="the scan's first LLM request")
            # The LLM has the first pages' paragraphs; the scan is still being read.
            reading = READING.fullmatch(messages[-1])
            assert reading is not None, messages[-3:]
            assert int(reading[1]) < pages, messages[-1]
            wait_until(lambda: _task(client, task_id)["finished"], timeout=300, what="the scan")
            task = _task(client, task_id)
            assert task["stage"] == "done" and task["fileList"], (
                task["message"],
                task.get("error"),
            )
            # Nothing was asked twice: early answers were taken, not requested again.
            texts = fake.texts()
            assert len(texts) == len(set(texts))


def test_a_text_layers_first_page_is_told_once_and_is_the_documents_own(
    corpus_dir: Path,
) -> None:
    """Issue 38: with a text layer the model waited for the whole paper to be read (seconds);
    its first page is now told as soon as the second page is read, once: the requests it
    makes are the whole document's own, so the job claims them instead of paying twice."""
    doc = open_document((corpus_dir / TEXT).read_bytes())
    parts: list[list[Paragraph]] = []
    found = extract_document(doc, on_part=parts.append)
    assert len(parts) == 1, [len(part) for part in parts]  # one part, not a prefix per page
    (told,) = parts
    assert told and {p.page for p in told} == {0}
    own = {p.text for p in found.paragraphs}
    assert all(p.text in own for p in told), [p.text[:60] for p in told if p.text not in own]
    first_page = [p for p in found.paragraphs if p.page == 0]
    assert len(told) >= len(first_page) // 2  # most of the first page goes ahead
