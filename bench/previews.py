"""Page-preview benchmark (issue 24): what a thumbnail costs next to the PDF worker's own work.

For each paper of the corpus, with the pseudo translator: the worker's time per page (all it
does for a job, as in ``bench.pdf_bench``: reading, typesetting each page, writing the mono
and the dual outputs) and the time to render each typeset page's thumbnail
(``translation.render.preview.page_png`` at ``THUMB_WIDTH``), which the worker adds per page
only while someone watches the job. Target: under 10 % of the worker's time per page.
``first ms`` is the first thumbnail alone, which draws what later pages share (fonts, images)
for the first time. Thumbnails are drawn without ICC colour management, as the worker draws
them (``page_png``'s ``colour_managed``).
Papers that cannot be translated without OCR or a password are skipped.

    python -m bench.previews [CORPUS_DIR]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from bench.pdf_bench import CORPUS

TARGET_SHARE = 0.10


def measure(path: Path) -> dict[str, object]:
    from common.errors import InputError
    from tests.fakes.pseudo import pseudo_translate
    from translation.outputs import render_dual
    from translation.pdf import MonoRenderer
    from translation.read.document import open_document
    from translation.read.extraction import extract_paragraphs
    from translation.read.ocr import OcrMode, OcrOptions
    from translation.read.segment import restore
    from translation.render.preview import THUMB_WIDTH, page_png

    data = path.read_bytes()
    started = time.perf_counter()
    try:
        doc = open_document(data, ocr=OcrOptions(OcrMode.NEVER))
    except InputError as exc:
        return {"file": path.name, "skipped": exc.error_type}
    paragraphs = extract_paragraphs(doc)
    worker_s = time.perf_counter() - started
    if not paragraphs:
        return {"file": path.name, "skipped": "nothing to translate"}
    translations = {p.id: restore(pseudo_translate(p.text, "ko"), p) for p in paragraphs}
    renderer = MonoRenderer(doc, "ko")
    by_page: dict[int, list[object]] = {}
    for paragraph in paragraphs:
        by_page.setdefault(paragraph.page, []).append(paragraph)
    thumbs_s, first_s, size = 0.0, 0.0, 0
    for number, group in sorted(by_page.items()):
        begun = time.perf_counter()
        renderer.render_page(number, group, translations)  # type: ignore[arg-type]
        typeset = time.perf_counter()
        size += len(page_png(doc[number], THUMB_WIDTH, colour_managed=False))
        worker_s += typeset - begun
        thumbs_s += time.perf_counter() - typeset
        first_s = first_s or time.perf_counter() - typeset
    begun = time.perf_counter()
    render_dual(data, renderer.finish(), "LR")
    worker_s += time.perf_counter() - begun
    pages = len(by_page)
    return {
        "file": path.name,
        "pages": pages,
        "worker_ms": worker_s * 1000 / pages,
        "thumb_ms": thumbs_s * 1000 / pages,
        "first_ms": first_s * 1000,
        "thumb_kib": size / 1024 / pages,
    }


def run(corpus: Path | None = None) -> str:
    folder = corpus or CORPUS
    if not folder.is_dir():
        return f"preview bench: no corpus at {folder}"
    head = f"{'paper':<44} {'pages':>5} {'worker ms/p':>11} {'thumb ms/p':>10} {'share':>6}"
    head += f" {'KiB':>5} {'first ms':>8}"
    title = "Page previews (thumbnail per typeset page, pseudo translation)"
    lines = [title, head, "-" * len(head)]
    shares = []
    for path in sorted(folder.glob("*.pdf")):
        row = measure(path)
        name = str(row["file"])[:44]
        if "skipped" in row:
            lines.append(f"{name:<44} skipped: {row['skipped']}")
            continue
        worker, thumb = float(row["worker_ms"]), float(row["thumb_ms"])  # type: ignore[arg-type]
        shares.append(thumb / worker)
        lines.append(
            f"{name:<44} {row['pages']:>5} {worker:>11.1f} {thumb:>10.1f} "
            f"{thumb / worker:>6.1%} {float(row['thumb_kib']):>5.1f}"  # type: ignore[arg-type]
            f" {float(row['first_ms']):>8.1f}"  # type: ignore[arg-type]
        )
    if shares:
        median = statistics.median(shares)
        verdict = "ok" if median < TARGET_SHARE else "FAIL"
        lines.append("-" * len(head))
        lines.append(
            f"{verdict} median thumbnail cost {median:.1%} of the worker's time per page"
            f" (target < {TARGET_SHARE:.0%}), max {max(shares):.1%}; none while nobody watches"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(run(Path(sys.argv[1]) if len(sys.argv) > 1 else None))
