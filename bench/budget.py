"""The engine's cost budget on a 51-page paper: non-LLM time not overlapped with translation
<= 100 ms/page, peak RSS <= 600 MB (issue 10).

The corpus has no 51-page paper, so one is made by joining corpus papers (05, 01 and the first
page of 02). It is translated in a child process (its peak RSS is the paper's) with the pseudo
translator standing in for the LLM, step by step as the pipeline does it
(``translation/pipeline.py``): extraction happens before the first paragraph can be sent; each
page is typeset as soon as its paragraphs are translated, so typesetting overlaps translation
except for the page the last answer completes; then the fonts are subset, the PDF saved and the
dual built. The part that is not overlapped is therefore extract + one page's typesetting (the
slowest, to be safe) + finish + dual.

    python -m bench.budget [CORPUS_DIR]
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

from bench.child import child_main, measure_in_child
from bench.pdf_bench import CORPUS

TARGET_MS_PER_PAGE = 100.0
TARGET_RSS_MB = 600.0
#: (paper number, pages to take: None = all) joined into the 51-page paper.
PARTS: tuple[tuple[str, int | None], ...] = (("05", None), ("01", None), ("02", 1))


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build_paper(corpus: Path, out: Path) -> int:
    """Join the ``PARTS`` of ``corpus`` into one PDF at ``out``; returns its page count."""
    import pymupdf

    joined = pymupdf.open()
    for number, pages in PARTS:
        (path,) = corpus.glob(f"{number}_*.pdf")
        with pymupdf.open(path) as part:
            last = part.page_count - 1 if pages is None else pages - 1
            joined.insert_pdf(part, from_page=0, to_page=last)
    count = int(joined.page_count)
    joined.save(out, garbage=3, deflate=True)
    return count


def measure(path: Path) -> dict[str, object]:
    """Translate ``path`` as the pipeline would, timing each step (ms); peak RSS in MB."""
    import pymupdf

    from tests.fakes.pseudo import pseudo_translate
    from translation.outputs import render_dual
    from translation.pdf import MonoRenderer
    from translation.read.document import open_document
    from translation.read.extraction import extract_paragraphs
    from translation.read.math.formulas import restore
    from translation.read.paragraph import Paragraph

    imported_rss = _rss_mb()
    data = path.read_bytes()
    started = time.perf_counter()
    doc = open_document(data)
    paragraphs = extract_paragraphs(doc)
    extract_ms = (time.perf_counter() - started) * 1000
    translations = {p.id: restore(pseudo_translate(p.text, "ko"), p) for p in paragraphs}
    renderer = MonoRenderer(doc, "ko")
    by_page: dict[int, list[Paragraph]] = {}
    for para in paragraphs:
        by_page.setdefault(para.page, []).append(para)
    page_ms: list[float] = []
    for number, group in sorted(by_page.items()):
        began = time.perf_counter()
        renderer.render_page(number, group, translations)
        page_ms.append((time.perf_counter() - began) * 1000)
    began = time.perf_counter()
    mono = renderer.finish()
    finish_ms = (time.perf_counter() - began) * 1000
    began = time.perf_counter()
    render_dual(data, mono, "LR")
    dual_ms = (time.perf_counter() - began) * 1000
    return {
        "pages": doc.page_count,
        "paragraphs": len(paragraphs),
        "extract_ms": extract_ms,
        "render_ms": sum(page_ms),
        "slowest_page_ms": max(page_ms, default=0.0),
        "mean_page_ms": sum(page_ms) / max(1, len(page_ms)),
        "finish_ms": finish_ms,
        "dual_ms": dual_ms,
        "imported_rss_mb": imported_rss,
        # With pymupdf_layout installed, ``import pymupdf`` loads its ONNX model (~50 MB).
        "layout_model_loaded": getattr(pymupdf, "_get_layout", None) is not None,
        "rss_mb": _rss_mb(),
    }


def run(corpus: Path | None = None) -> str:
    """Build the 51-page paper, measure it in a child process; returns the table."""
    folder = corpus or CORPUS
    if not all(any(folder.glob(f"{n}_*.pdf")) for n, _ in PARTS):
        return f"cost budget: corpus papers {', '.join(n for n, _ in PARTS)} not found in {folder}"
    with tempfile.TemporaryDirectory(prefix="zt-budget-") as tmp:
        path = Path(tmp) / "joined.pdf"
        build_paper(folder, path)
        row = measure_in_child("bench.budget", path)
    return table(row)


def _part_name(number: str, pages: int | None) -> str:
    return number if pages is None else f"{number} p.1" + ("" if pages == 1 else f"-{pages}")


def table(row: dict[str, object]) -> str:
    """The measured steps beside the budget, with an ok/FAIL verdict per target."""
    pages = int(row["pages"])  # type: ignore[call-overload]
    ms = {k: float(v) for k, v in row.items() if k.endswith("_ms")}  # type: ignore[arg-type]
    rss = float(row["rss_mb"])  # type: ignore[arg-type]
    exposed = ms["extract_ms"] + ms["slowest_page_ms"] + ms["finish_ms"] + ms["dual_ms"]
    per_page = exposed / pages
    parts = " + ".join(_part_name(n, p) for n, p in PARTS)
    lines = [
        f"Engine cost budget: a {pages}-page paper ({parts}), {row['paragraphs']} paragraphs,"
        " pseudo translation into ko",
        f"{'step':<52} {'ms':>8} {'ms/page':>8}  target",
        "-" * 80,
    ]

    def line(label: str, value: float, target: str = "") -> None:
        lines.append(f"{label:<52} {value:>8.0f} {value / pages:>8.1f}  {target}".rstrip())

    line("extract (open, read layout, segment)", ms["extract_ms"])
    line("typeset every page (overlaps translation)", ms["render_ms"])
    line(f"  one page: slowest (mean {ms['mean_page_ms']:.0f} ms)", ms["slowest_page_ms"])
    line("finish (subset fonts, save mono)", ms["finish_ms"])
    line("dual (LR)", ms["dual_ms"])
    verdict = "ok" if per_page <= TARGET_MS_PER_PAGE else "FAIL"
    lines.append("-" * 80)
    line(
        "not overlapped: extract + slowest page + finish + dual",
        exposed,
        f"<= {TARGET_MS_PER_PAGE:.0f} ms/page  {verdict}",
    )
    verdict = "ok" if rss <= TARGET_RSS_MB else "FAIL"
    lines.append(
        f"{'peak RSS of the child (MB)':<52} {rss:>8.0f} {'':>8}  <= {TARGET_RSS_MB:.0f} MB  "
        f"{verdict}  (after imports: {float(row['imported_rss_mb']):.0f} MB)"  # type: ignore[arg-type]
    )
    if row.get("layout_model_loaded"):
        lines.append(
            "  (pymupdf_layout is installed: import pymupdf loads its model, ~50 MB of that)"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    child_main(argv, measure, run)


if __name__ == "__main__":
    main(sys.argv[1:])
