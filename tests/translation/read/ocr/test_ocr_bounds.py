"""What one document's OCR may take (issue 20 item 4): seconds in all (``ZT_OCR_MAX_SECONDS``),
and memory: OCR over the worker's memory limit is named as that limit, not as a bad PDF."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from common.errors import PDFProcessingError, PDFTooComplexError
from common.language import Language
from tests.helpers.ocr import needs_ocr
from translation.read.ocr import OcrBudget, OcrOptions, OcrTurn
from translation.worker import PdfWorker, WorkerConfig

SCAN = "10_scanned_imageonly_naacl2018_s2_literature_graph.pdf"


def _scan(corpus_dir: Path, pages: int) -> bytes:
    out = pymupdf.open()
    with pymupdf.open(corpus_dir / SCAN) as src:
        out.insert_pdf(src, from_page=0, to_page=pages - 1)
    return bytes(out.tobytes())


def address_space_mb() -> int:
    """This process's address space (MiB), as ``RLIMIT_AS`` counts it (run in a worker)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) // 1024
    raise AssertionError("no VmSize in /proc/self/status")


def test_the_budget_gives_a_page_what_is_left_of_the_document_time() -> None:
    budget = OcrBudget(max_pages=3, max_seconds=100.0, page_timeout_s=60.0)
    assert budget.start(OcrTurn(page=4, nth=1, of=3), now=0.0) == 60.0
    budget.finish(now=50.0)
    # 50 s left in all, less than a page may take: the document's limit ends first.
    assert budget.start(OcrTurn(page=5, nth=2, of=3), now=50.0) == 100.0
    message = str(budget.overrun())
    assert "100 s in all (ZT_OCR_MAX_SECONDS)" in message and "page 6 (2 of 3)" in message
    with pytest.raises(PDFTooComplexError, match=r"4 scanned pages.*at most 3.*ZT_OCR_MAX_PAGES"):
        budget.start(OcrTurn(page=0, nth=1, of=4), now=60.0)


@needs_ocr("en")
async def test_a_scan_over_the_ocr_time_in_all_is_stopped_naming_the_setting(
    corpus_dir: Path,
) -> None:
    data = _scan(corpus_dir, 2)
    seen: list[OcrTurn] = []
    # Reading a page takes seconds; the document may take a hundredth of one in all.
    config = WorkerConfig(ocr_max_seconds=0.01)
    async with PdfWorker(config) as worker:
        with pytest.raises(PDFProcessingError, match=r"in all \(ZT_OCR_MAX_SECONDS\)"):
            await worker.open(
                data, None, None, True, Language.parse("ko"), OcrOptions(dpi=150), seen.append
            )
        assert worker.pid is None  # stopped
    assert seen == [OcrTurn(page=0, nth=1, of=2)]


@needs_ocr("en")
async def test_ocr_over_the_worker_memory_limit_is_named_as_that_limit(corpus_dir: Path) -> None:
    data = _scan(corpus_dir, 1)
    async with PdfWorker(WorkerConfig(memory_mb=0)) as worker:
        await worker.inspect(data, None, OcrOptions())
        opened = await worker.call(address_space_mb)
    # Room to open the scan again, not to render it at 1200 dpi (400 MB) for Tesseract.
    async with PdfWorker(WorkerConfig(memory_mb=opened + 150)) as worker:
        await worker.inspect(data, None, OcrOptions())
        with pytest.raises(PDFProcessingError, match="ZT_PDF_WORKER_MEMORY_MB"):
            await worker.open(data, None, None, True, Language.parse("ko"), OcrOptions(dpi=1200))
