"""PDF engine benchmark: non-LLM time per page, peak memory and output size over the corpus.

Each paper runs in its own process (so peak RSS is that paper's), with an instant stand-in for
the LLM (the pseudo translator of the tests). Printed as a table; targets from the issue:
median <= 150 ms/page (extract + typeset + save), peak RSS <= 400 MB on the 37-page paper,
mono output <= 1.3 x input + 1 MB (built-in fonts), and set in each installed CJK face (Noto
Serif/Sans CJK, ``translation.render.faces``) <= 2 x input. Papers that cannot be translated
(encrypted without a password, truncated, not a PDF) are listed as skipped, and so are scanned
ones: OCR has its
own benchmark (``bench.ocr``), seconds a page would drown these milliseconds.

    python -m bench.pdf_bench [CORPUS_DIR]
"""

from __future__ import annotations

import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench.child import ChildFailed, child_main, measure_in_child

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
TARGET_MS_PER_PAGE = 150.0
TARGET_RSS_MB = 400.0
BIG_PAPER_PAGES = 37
#: Most a mono output set in a CJK face may weigh, in sizes of the input (issue 26).
FACE_RATIO = 2.0


def measure(path: Path) -> dict[str, object]:
    """Translate one paper with the pseudo translator; timings in ms, sizes in bytes."""
    from common.errors import InputError
    from tests.fakes.pseudo import pseudo_translate
    from translation.outputs import render_dual
    from translation.pdf import render_mono
    from translation.read.document import open_document
    from translation.read.extraction import extract_paragraphs
    from translation.read.ocr import OcrMode, OcrOptions
    from translation.read.segment import restore

    data = path.read_bytes()
    started = time.perf_counter()
    try:
        doc = open_document(data, ocr=OcrOptions(OcrMode.NEVER))
    except InputError as exc:
        return {"file": path.name, "skipped": exc.error_type}
    paragraphs = extract_paragraphs(doc)
    extracted = time.perf_counter()
    translations = {p.id: restore(pseudo_translate(p.text, "ko"), p) for p in paragraphs}
    translated = time.perf_counter()
    mono = render_mono(doc, paragraphs, translations, "ko")
    rendered = time.perf_counter()
    dual = render_dual(data, mono, "LR")
    dualed = time.perf_counter()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before the faces load
    return {
        "file": path.name,
        "pages": doc.page_count,
        "paragraphs": len(paragraphs),
        "extract_ms": (extracted - started) * 1000,
        "render_ms": (rendered - translated) * 1000,
        "dual_ms": (dualed - rendered) * 1000,
        "input": len(data),
        "mono": len(mono),
        "dual": len(dual),
        "rss_mb": rss,
        **_face_sizes(data, paragraphs, translations),
    }


def _face_sizes(
    data: bytes, paragraphs: list[Any], translations: dict[str, str]
) -> dict[str, object]:
    """The mono output's size set in the serif and the sans CJK face (where installed)."""
    from common.settings import Settings
    from translation.pdf import render_mono
    from translation.read.document import open_document
    from translation.read.ocr import OcrMode, OcrOptions
    from translation.render.faces import find_face

    sizes: dict[str, object] = {}
    folder = Settings.model_fields["font_dir"].default
    for style, serif in (("serif", True), ("sans", False)):
        face = find_face(folder, "ko", serif)
        if face is not None:
            doc = open_document(data, ocr=OcrOptions(OcrMode.NEVER))
            sizes[style] = len(render_mono(doc, paragraphs, translations, "ko", face=face))
    return sizes


def _measure(path: Path) -> dict[str, object]:
    try:
        return measure_in_child("bench.pdf_bench", path)
    except ChildFailed as exc:
        return {"file": path.name, "skipped": f"crashed: {str(exc)[:60]}"}


def run(corpus: Path | None = None) -> str:
    """Benchmark every PDF of ``corpus`` (default ../shared/corpus); returns the table."""
    folder = corpus or CORPUS
    if not folder.is_dir():
        return f"pdf bench: no corpus at {folder}"
    rows = [_measure(path) for path in sorted(folder.glob("*.pdf"))]
    return _table(rows)


def _table(rows: list[dict[str, object]]) -> str:
    head = (
        f"{'paper':<44} {'pages':>5} {'paras':>5} {'extract':>8} {'render':>8} "
        f"{'ms/page':>8} {'dual':>7} {'RSS MB':>7} {'in MB':>6} {'mono MB':>7} {'dual MB':>7}"
        f" {'serif':>6} {'sans':>6}"
    )
    lines = ["PDF engine (pseudo translation, target ko)", head, "-" * len(head)]
    per_page: list[float] = []
    checks: list[str] = []
    faced = 0
    for row in rows:
        name = str(row["file"])[:44]
        if "skipped" in row:
            lines.append(f"{name:<44} skipped: {row['skipped']}")
            continue
        pages = int(row["pages"])  # type: ignore[call-overload]
        extract, render = float(row["extract_ms"]), float(row["render_ms"])  # type: ignore[arg-type]
        ms_page = (extract + render) / pages
        per_page.append(ms_page)
        size_in, mono = int(row["input"]), int(row["mono"])  # type: ignore[call-overload]
        rss = float(row["rss_mb"])  # type: ignore[arg-type]
        lines.append(
            f"{name:<44} {pages:>5} {row['paragraphs']:>5} {extract:>8.0f} {render:>8.0f} "
            f"{ms_page:>8.1f} {float(row['dual_ms']):>7.0f} {rss:>7.0f} "  # type: ignore[arg-type]
            f"{size_in / 1e6:>6.2f} {mono / 1e6:>7.2f} {int(row['dual']) / 1e6:>7.2f}"  # type: ignore[call-overload]
            + "".join(f" {_mb(row.get(style)):>6}" for style in ("serif", "sans"))
        )
        for style in ("serif", "sans"):
            size = row.get(style)
            if isinstance(size, int):
                faced += 1
                if size > FACE_RATIO * size_in:
                    checks.append(f"FAIL size: {name} in the {style} face {size / size_in:.2f} x")
        if mono > 1.3 * size_in + 1_000_000:
            checks.append(f"FAIL size: {name} mono {mono / size_in:.2f} x input")
        if pages >= BIG_PAPER_PAGES:
            verdict = "ok" if rss <= TARGET_RSS_MB else "FAIL"
            checks.append(f"{verdict} peak RSS {rss:.0f} MB on the {pages}-page paper")
    if per_page:
        median = statistics.median(per_page)
        verdict = "ok" if median <= TARGET_MS_PER_PAGE else "FAIL"
        lines.append("-" * len(head))
        lines.append(
            f"{verdict} median {median:.1f} ms/page (target <= {TARGET_MS_PER_PAGE:.0f}), "
            f"max {max(per_page):.1f}"
        )
    if not any(c.startswith("FAIL size") for c in checks) and per_page:
        checks.append("ok mono size <= 1.3 x input + 1 MB for every paper")
        if faced:
            checks.append(f"ok mono in the CJK faces <= {FACE_RATIO:.0f} x input for every paper")
        else:
            checks.append("-- no CJK faces installed (fonts-noto-cjk): their sizes not measured")
    lines.extend(checks)
    return "\n".join(lines)


def _mb(size: object) -> str:
    return f"{size / 1e6:.2f}" if isinstance(size, int) else "-"


def main(argv: list[str]) -> None:
    child_main(argv, measure, run)


if __name__ == "__main__":
    main(sys.argv[1:])
