"""OCR benchmark on a 10-page scan (corpus 10, 02 rendered to black-and-white images with its
even pages skewed, and its first two pages again): seconds per scanned page with the pages read
in parallel as a PDF worker reads them, the time until the first paragraph can be sent to the
LLM (pages are sent as they are read, ``translation.read.early``) against the time until the
whole scan is read, peak memory, and how many of the paper's words reach the LLM.

The scan is translated with the pseudo translator in a child process (its peak RSS is its
own); 02's own paragraphs, read from its text layer, are the reference word set for the scan's
first eight pages. Targets from issue 14: at least 90% of 02's body words sent; the engine's
peak RSS budget (600 MB).

    python -m bench.ocr [CORPUS_DIR]
"""

from __future__ import annotations

import re
import resource
import sys
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from bench.child import ChildFailed, child_main, measure_in_child

if TYPE_CHECKING:
    from translation.read.ocr import OcrTurn
    from translation.read.paragraph import Paragraph

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
SCAN, TEXT = "10_", "02_"
TARGET_RECALL = 0.9
TARGET_RSS_MB = 600.0


def _words(text: str) -> Counter[str]:
    return Counter(re.findall(r"[a-z]{2,}", text.lower()))


#: Pages of the benchmark's scan (the corpus scan has 8: its first pages follow again).
SCAN_PAGES = 10


def _ten_pages(path: Path) -> bytes:
    import pymupdf

    out = pymupdf.open()
    with pymupdf.open(path) as src:
        while out.page_count < SCAN_PAGES:
            last = min(src.page_count, SCAN_PAGES - out.page_count) - 1
            out.insert_pdf(src, from_page=0, to_page=last)
    return bytes(out.tobytes(garbage=3, deflate=True))


def measure(path: Path) -> dict[str, object]:
    """OCR and translate the scan ``path`` made 10 pages long; compare its words with the text
    paper beside it."""
    import dataclasses

    from tests.fakes.pseudo import pseudo_translate
    from translation.pdf import render_mono
    from translation.read.document import open_document
    from translation.read.extraction import extract_document, extract_paragraphs
    from translation.read.math.formulas import restore
    from translation.read.ocr import OcrOptions
    from translation.read.ocr.pool import ocr_processes
    from translation.worker import WorkerConfig

    data = _ten_pages(path)
    with open_document(path.read_bytes()) as original:
        scan_pages = original.page_count
    processes = ocr_processes(WorkerConfig().memory_mb)
    ocr = dataclasses.replace(OcrOptions(), processes=processes)
    ocr_seconds: list[float] = []
    page_started = [0.0]
    first_part: list[float] = []

    def timed(turn: OcrTurn, done: bool) -> None:
        if done:
            ocr_seconds.append(time.perf_counter() - page_started[0])
        else:
            page_started[0] = time.perf_counter()

    def part(paragraphs: list[Paragraph]) -> None:
        if not first_part:
            first_part.append(time.perf_counter())

    started = time.perf_counter()
    doc = open_document(data)
    paragraphs = extract_document(doc, ocr=ocr, on_ocr=timed, on_part=part).paragraphs
    extracted = time.perf_counter()
    translations = {p.id: restore(pseudo_translate(p.text, "ko"), p) for p in paragraphs}
    render_mono(doc, paragraphs, translations, "ko")
    rendered = time.perf_counter()
    (text_path,) = path.parent.glob(f"{TEXT}*.pdf")
    reference = extract_paragraphs(open_document(text_path.read_bytes()))
    sent, wanted = Counter[str](), Counter[str]()
    for p in paragraphs:
        if p.page < scan_pages:
            sent += _words(p.text)
    for p in reference:
        wanted += _words(p.text)
    return {
        "file": path.name,
        "pages": doc.page_count,
        "processes": processes,
        "ocr_s": ocr_seconds,
        "extract_s": extracted - started,
        "first_request_s": (first_part[0] if first_part else extracted) - started,
        "render_s": rendered - extracted,
        "recall": sum((sent & wanted).values()) / max(1, sum(wanted.values())),
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "ocr_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    }


def run(corpus: Path | None = None) -> str:
    """The OCR table for the scan in ``corpus`` (default ../shared/corpus)."""
    from tests.helpers.ocr import ocr_missing

    folder = corpus or CORPUS
    scans = sorted(folder.glob(f"{SCAN}*.pdf")) if folder.is_dir() else []
    if not scans:
        return f"ocr bench: no scanned paper {SCAN}* in {folder}"
    if missing := ocr_missing("en"):
        return f"ocr bench: skipped, {missing}"
    try:
        row = measure_in_child("bench.ocr", scans[0])
    except ChildFailed as exc:
        return f"ocr bench: crashed: {exc}"
    return _table(row)


def _table(row: dict[str, object]) -> str:
    seconds = [float(s) for s in row["ocr_s"]]  # type: ignore[attr-defined]
    pages = int(row["pages"])  # type: ignore[call-overload]
    extract = float(row["extract_s"])  # type: ignore[arg-type]
    recall, rss = float(row["recall"]), float(row["rss_mb"])  # type: ignore[arg-type]
    lines = [
        f"OCR (Tesseract through PyMuPDF) on {row['file']}, made {pages} pages",
        f"pages read at once   {row['processes']} (cores, ZT_PDF_WORKER_MEMORY_MB)",
        f"pages read by OCR    {len(seconds)} of {pages}",
        f"OCR s/page (wall)    {extract / max(1, len(seconds)):.2f}",
        "OCR s/page (waited)  "
        + (
            f"mean {sum(seconds) / len(seconds):.2f}, min {min(seconds):.2f},"
            f" max {max(seconds):.2f}"
            if seconds
            else "-"
        ),
        f"first request at s   {float(row['first_request_s']):.1f}"  # type: ignore[arg-type]
        f" (whole scan read at {extract:.1f})",
        f"render s (all)       {float(row['render_s']):.2f}",  # type: ignore[arg-type]
        f"{'ok' if recall >= TARGET_RECALL else 'FAIL'} {recall:.1%} of 02's words sent"
        f" (target >= {TARGET_RECALL:.0%})",
        f"{'ok' if rss <= TARGET_RSS_MB else 'FAIL'} peak RSS {rss:.0f} MB"
        f" (target <= {TARGET_RSS_MB:.0f}); an OCR process {float(row['ocr_rss_mb']):.0f} MB",  # type: ignore[arg-type]
    ]
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    child_main(argv, measure, run)


if __name__ == "__main__":
    main(sys.argv[1:])
