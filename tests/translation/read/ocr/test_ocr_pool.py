"""Scanned pages read in parallel (issue 23 item 6): a PDF worker reads as many pages at once as
its cores and memory allow, tells them one after the other in page order, reads them as the
one-at-a-time path does, and leaves no OCR process behind when it is killed."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pymupdf
import pytest

from common.errors import PDFProcessingError
from common.language import Language
from tests.helpers.ocr import needs_ocr
from translation.read.document import open_document
from translation.read.extraction import extract_document
from translation.read.ocr import OcrOptions, OcrTurn
from translation.read.ocr.pool import OCR_PROCESS_MB, ocr_processes
from translation.worker import PdfWorker, WorkerConfig

SCAN = "10_scanned_imageonly_naacl2018_s2_literature_graph.pdf"
#: Enough to read the scan's words; what is checked here is the order and the sameness of the
#: pages read, not how well they are read, and each page costs less the fewer its pixels.
OCR_DPI = 100


def _scan(corpus_dir: Path, first: int, last: int) -> bytes:
    out = pymupdf.open()
    with pymupdf.open(corpus_dir / SCAN) as src:
        out.insert_pdf(src, from_page=first, to_page=last)
    return bytes(out.tobytes())


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(c) for c in (task / "children").read_text().split()}
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_pages_read_at_once_are_bounded_by_cores_and_memory() -> None:
    assert ocr_processes(0, cores=8) == 8  # no memory limit: one page per core
    assert ocr_processes(3 * OCR_PROCESS_MB, cores=8) == 3
    assert ocr_processes(3 * OCR_PROCESS_MB, cores=2) == 2
    assert ocr_processes(OCR_PROCESS_MB // 2, cores=8) == 1  # always one


@pytest.mark.slow
@needs_ocr("en")
@pytest.mark.corpus
def test_pages_read_at_once_come_out_as_pages_read_one_by_one(corpus_dir: Path) -> None:
    data = _scan(corpus_dir, 2, 4)
    results = []
    seen: list[tuple[int, int, bool]] = []
    for processes in (1, 3):
        seen.clear()
        segmentation = extract_document(
            open_document(data),
            ocr=OcrOptions(dpi=OCR_DPI, processes=processes),
            on_ocr=lambda turn, done: seen.append((turn.nth, turn.of, done)),
        )
        # One page after the other, in page order, whatever the pages read at once.
        assert seen == [(k, 3, done) for k in (1, 2, 3) for done in (False, True)]
        results.append([(p.page, p.text) for p in segmentation.paragraphs])
    assert results[0] == results[1]
    assert {page for page, _ in results[1]} == {0, 1, 2}


@pytest.mark.slow
@needs_ocr("en")
@pytest.mark.corpus
@pytest.mark.skipif(ocr_processes(0) < 2, reason="one core: pages are read one at a time")
async def test_a_killed_worker_leaves_no_ocr_process_behind(corpus_dir: Path) -> None:
    """The worker reads two pages at once; killed (as for its memory), its readers go too."""
    data = _scan(corpus_dir, 0, 3)
    readers: set[int] = set()
    async with PdfWorker(WorkerConfig(ocr_dpi=OCR_DPI)) as worker:

        def second_page(turn: OcrTurn) -> None:
            if turn.nth == 2 and worker.pid is not None:
                readers.update(_children(worker.pid))
                os.kill(worker.pid, signal.SIGKILL)

        await worker.inspect(data, None, OcrOptions())
        with pytest.raises(PDFProcessingError, match="worker died"):
            await worker.open(
                data, None, None, True, Language.parse("ko"), OcrOptions(), second_page
            )
    assert len(readers) >= 2
    for _ in range(100):
        if not any(_alive(pid) for pid in readers):
            break
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in readers)
