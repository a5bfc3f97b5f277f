"""`make visual`: original and pseudo-translated pages side by side, as PNGs to judge by eye.

Each corpus paper is translated whole with the pseudo translator of the tests (Korean target;
the Korean paper 09 into Latin-letter "English"), then some of its pages are drawn next to the
original: ``visual-output/<paper>/page-NN.png`` (original left, translation right), one contact
sheet of thumbnails per paper (``contact.png``) and an ``index.html`` that shows them all.
What the model reads is written beside them: ``visual-output/<paper>-requests.txt``, one request
a line, flagged where it starts or ends inside a sentence (``bench.requests.requests_listing``).
By default the first 6 pages and the last one are drawn; the contact sheet shows the same pages.
Pages are drawn as a viewer shows them (``/Rotate`` applied), each from its own pixmap.

    python -m bench.visual [--papers 01,04] [--pages 1-3,7] [--all-pages] [--dpi 70]
                           [--out visual-output] [--corpus DIR]
                           [--font auto|serif|sans-serif|builtin]

``--font`` picks the face as the plugin's ``fontFamily`` does (``builtin``: the fonts inside
PyMuPDF alone, as on a machine without fonts-noto-cjk); each paper's line names the face used.
"""

from __future__ import annotations

import argparse
import html
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from bench.pdf_bench import CORPUS
from bench.requests import paper_requests, requests_listing

#: Translatable papers and their (source, target) languages; the others are error fixtures.
PAPERS: dict[str, tuple[str, str]] = {
    "01": ("en", "ko"),
    "02": ("en", "ko"),
    "03": ("en", "ko"),
    "04": ("en", "ko"),
    "05": ("en", "ko"),
    "07": ("en", "ko"),
    "09": ("ko", "en"),
    "12": ("en", "ko"),
    "13": ("en", "ko"),
}
FIRST_PAGES = 6
GAP = 12.0  # points between the two pages of a pair
LABEL = 14.0  # points of the label strip above a pair
THUMB_DPI = 24
SHEET_COLUMNS = 4


@dataclass(frozen=True)
class PaperResult:
    number: str
    name: str
    pages: int
    paragraphs: int
    target: str
    drawn: tuple[int, ...]  # 1-based page numbers drawn
    seconds: float
    face: str = ""


def parse_pages(spec: str) -> list[int]:
    """``"1-3,7"`` -> [1, 2, 3, 7] (1-based, sorted, no duplicates)."""
    pages: set[int] = set()
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        first, _, last = part.partition("-")
        start, end = int(first), int(last or first)
        if start < 1 or end < start:
            raise ValueError(f"bad page range {part!r}")
        pages.update(range(start, end + 1))
    return sorted(pages)


def pages_to_draw(count: int, wanted: Sequence[int] | None, all_pages: bool) -> list[int]:
    """1-based pages to draw: ``wanted`` (those that exist), every page, or the first
    ``FIRST_PAGES`` and the last."""
    if all_pages:
        return list(range(1, count + 1))
    if wanted:
        return [p for p in wanted if p <= count]
    return sorted({*range(1, min(FIRST_PAGES, count) + 1), count})


def translate(
    data: bytes, source: str, target: str, font: str = "builtin"
) -> tuple[bytes, int, int, str]:
    """The mono translation of ``data`` by the pseudo translator; also page and paragraph counts
    and the face it is set in (``font``: a ``fontFamily``, or ``builtin``).

    ``source`` is informative only: the pseudo translator translates whatever script it knows.
    """
    from common.language import Language
    from common.settings import Settings
    from tests.fakes.pseudo import pseudo_translate
    from translation.pdf import render_mono
    from translation.read.document import open_document
    from translation.read.extraction import extract_paragraphs
    from translation.read.flow.passage import translated
    from translation.render import faces

    del source
    doc = open_document(data)
    paragraphs = extract_paragraphs(doc)
    translations = translated(paragraphs, lambda text: pseudo_translate(text, target))
    count = doc.page_count
    face = None
    if font != "builtin":
        family = faces.FontFamily.parse(font)
        serif = faces.paper_is_serif(doc, list(range(count)))
        folder = Settings.model_fields["font_dir"].default
        face = faces.choose_face(folder, Language.parse(target).code, family, serif)
    mono = render_mono(doc, paragraphs, translations, target, face=face)
    return mono, count, len(paragraphs), faces.describe(face, Language.parse(target).code)


def pair_image(
    original: pymupdf.Page, translated: pymupdf.Page, dpi: int, labels: tuple[str, str]
) -> pymupdf.Pixmap:
    """The two pages as a viewer shows them (``/Rotate`` applied), side by side under a label
    strip; each is an exact copy of its page's own pixmap at ``dpi``."""
    left, right = original.get_pixmap(dpi=dpi), translated.get_pixmap(dpi=dpi)
    gap, top = round(GAP * dpi / 72), round(LABEL * dpi / 72)
    # The label strip and the grey background are drawn as a PDF page, then the pages pasted in.
    scale = 72 / dpi
    canvas = pymupdf.open()
    page = canvas.new_page(
        width=(left.width + gap + right.width) * scale,
        height=(top + max(left.height, right.height)) * scale,
    )
    page.draw_rect(page.rect, color=None, fill=(0.82, 0.82, 0.82))
    for x, text in ((0, labels[0]), ((left.width + gap) * scale, labels[1])):
        page.insert_text((x + 3, LABEL - 4), text, fontsize=min(9.0, 0.7 * LABEL))
    out = page.get_pixmap(dpi=dpi, alpha=False)
    for pix, x in ((left, 0), (right, left.width + gap)):
        pix.set_origin(x, top)
        out.copy(pix, pix.irect)
    return out


def contact_sheet(pairs: Sequence[pymupdf.Pixmap]) -> pymupdf.Pixmap:
    """The ``pairs`` (thumbnails) ``SHEET_COLUMNS`` to a row on a grey sheet."""
    cell_w, cell_h = max(p.width for p in pairs), max(p.height for p in pairs)
    columns = min(SHEET_COLUMNS, len(pairs))
    rows = -(-len(pairs) // columns)
    margin = 6
    sheet = pymupdf.Pixmap(
        pymupdf.csRGB,
        pymupdf.IRect(
            0, 0, columns * (cell_w + margin) + margin, rows * (cell_h + margin) + margin
        ),
        False,
    )
    sheet.clear_with(150)
    for i, pix in enumerate(pairs):
        pix.set_origin(
            margin + (i % columns) * (cell_w + margin), margin + (i // columns) * (cell_h + margin)
        )
        sheet.copy(pix, pix.irect)
    return sheet


def run_paper(
    path: Path,
    out_dir: Path,
    wanted: Sequence[int] | None = None,
    all_pages: bool = False,
    dpi: int = 70,
    font: str = "builtin",
) -> PaperResult:
    """Translate one paper and write its pair PNGs and contact sheet under ``out_dir/<stem>``."""
    started = time.perf_counter()
    number = path.name[:2]
    source, target = PAPERS.get(number, ("en", "ko"))
    data = path.read_bytes()
    mono, count, paragraphs, face = translate(data, source, target, font)
    listing = requests_listing(paper_requests(data), source)
    (out_dir / f"{path.stem}-requests.txt").write_text(listing, encoding="utf-8")
    drawn = pages_to_draw(count, wanted, all_pages)
    folder = out_dir / path.stem
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.png"):
        old.unlink()
    original = pymupdf.open(stream=data)
    translated = pymupdf.open(stream=mono)
    thumbs = []
    for page_number in drawn:
        labels = (f"original p.{page_number}", f"translation ({target}) p.{page_number}")
        pages = original[page_number - 1], translated[page_number - 1]
        pair_image(*pages, dpi, labels).save(folder / f"page-{page_number:02d}.png")
        thumbs.append(pair_image(*pages, THUMB_DPI, ("", "")))
    if thumbs:
        contact_sheet(thumbs).save(folder / "contact.png")
    return PaperResult(
        number=number,
        name=path.stem,
        pages=count,
        paragraphs=paragraphs,
        target=target,
        drawn=tuple(drawn),
        seconds=time.perf_counter() - started,
        face=face,
    )


def write_index(out_dir: Path, results: Sequence[PaperResult]) -> Path:
    """``index.html`` showing every paper's contact sheet and pairs (relative links)."""
    parts = [
        "<!doctype html><meta charset='utf-8'><title>Visual harness</title>",
        "<style>body{font-family:sans-serif;margin:1em;background:#eee}"
        "img{max-width:100%;border:1px solid #999;background:#fff;display:block}"
        "figure{margin:1em 0}h2{margin-top:2em}nav a{margin-right:1em}</style>",
        "<h1>Original (left) and pseudo translation (right)</h1>",
        "<nav>" + "".join(f"<a href='#{r.number}'>{r.number}</a>" for r in results) + "</nav>",
    ]
    for r in results:
        name = html.escape(r.name)
        parts.append(
            f"<h2 id='{r.number}'>{name}</h2><p>{r.pages} pages, {r.paragraphs} paragraphs, "
            f"target {r.target}, {r.seconds:.1f} s</p>"
        )
        if r.drawn:
            parts.append(f"<a href='{name}/contact.png'><img src='{name}/contact.png'></a>")
        for number in r.drawn:
            src = f"{name}/page-{number:02d}.png"
            parts.append(
                f"<figure><figcaption>page {number}</figcaption>"
                f"<a href='{src}'><img src='{src}' loading='lazy'></a></figure>"
            )
    index = out_dir / "index.html"
    index.write_text("\n".join(parts) + "\n", encoding="utf-8")
    return index


def corpus_papers(corpus: Path, numbers: Sequence[str] | None) -> list[Path]:
    """The translatable papers of ``corpus`` (all, or those ``numbers`` name)."""
    chosen = [n.zfill(2) for n in numbers] if numbers else sorted(PAPERS)
    unknown = [n for n in chosen if n not in PAPERS]
    if unknown:
        raise ValueError(f"not translatable papers: {', '.join(unknown)}")
    return [path for n in chosen for path in sorted(corpus.glob(f"{n}_*.pdf"))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.visual", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--papers", help="comma-separated paper numbers (default: all)")
    parser.add_argument(
        "--pdf",
        type=Path,
        action="append",
        default=[],
        help="a PDF of your own to draw instead of the corpus (repeatable; English to Korean)",
    )
    parser.add_argument("--pages", help="1-based pages to draw, e.g. 1-3,7")
    parser.add_argument("--all-pages", action="store_true", help="draw every page")
    parser.add_argument("--dpi", type=int, default=70)
    parser.add_argument("--out", type=Path, default=Path("visual-output"))
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument(
        "--font",
        choices=["auto", "serif", "sans-serif", "builtin"],
        default="auto",
        help="the face of the translation, as the plugin's fontFamily (default: auto)",
    )
    args = parser.parse_args(argv)
    missing = [str(p) for p in args.pdf if not p.is_file()]
    if missing:
        print(f"visual: no such PDF: {', '.join(missing)}", file=sys.stderr)
        return 1
    if not args.pdf and not args.corpus.is_dir():
        print(f"visual: no corpus at {args.corpus}", file=sys.stderr)
        return 1
    try:
        papers = args.pdf or corpus_papers(
            args.corpus, args.papers.split(",") if args.papers else None
        )
        wanted = parse_pages(args.pages) if args.pages else None
    except ValueError as exc:
        parser.error(str(exc))
    args.out.mkdir(parents=True, exist_ok=True)
    results = []
    for path in papers:
        result = run_paper(path, args.out, wanted, args.all_pages, args.dpi, args.font)
        print(
            f"{result.name:<52} {result.pages:>3} pages, drew {len(result.drawn):>2} "
            f"in {result.seconds:5.1f} s, set in {result.face}",
            flush=True,
        )
        results.append(result)
    index = write_index(args.out, results)
    print(f"open {index.resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
