"""The outputs built from finished PDFs: original and translation side by side or alternating
(dual), and the column views of ``/crop``, ``/compare`` and ``/crop-compare``.

Synchronous and CPU-bound; PyMuPDF errors become ``RenderError`` or ``InputError``.
"""

from __future__ import annotations

from collections.abc import Sequence

import pymupdf

from common.errors import InputError
from translation.pdf import writing
from translation.read.document import PDF_LOCK, open_plain
from translation.read.extraction import read_layout
from translation.read.layout import column_split
from translation.read.pages.orientation import reading_turn
from translation.render.outline import dual_outline
from translation.render.sanitize import strip_active_content


def render_dual(
    original: bytes,
    mono: bytes,
    mode: str = "LR",
    translation_first: bool = False,
    password: str | None = None,
) -> bytes:
    """Original and translation together: ``LR`` puts both on one wide page, side by side;
    ``TB`` alternates their pages. ``translation_first`` puts the translation left (first).
    An ``LR`` page is laid out the way the original page reads (``reading_turn``), so the
    source is left of its translation on a page stored upright under any ``/Rotate``.
    Both inputs must have the same pages (``mono`` is ``render_mono``'s output); the outline
    carries both titles of each entry (``translation.render.outline.dual_outline``)."""
    mode = mode.upper()
    if mode not in ("LR", "TB"):
        raise InputError(f"unknown dual mode {mode!r}: use LR or TB")
    with PDF_LOCK:
        source, translated = _open_pair(original, mono, password)
        with writing("write the dual PDF", source, translated):
            first, second = (translated, source) if translation_first else (source, translated)
            out = pymupdf.open()
            if mode == "LR":
                for number in range(source.page_count):
                    turn = reading_turn(source[number])
                    _show(out, [(first, number, None), (second, number, None)], turn)
            else:
                count = source.page_count
                out.insert_pdf(first)
                out.insert_pdf(second)
                out.select([i + half for i in range(count) for half in (0, count)])
            # Both titles of each heading (the translation's outline is translated).
            toc = dual_outline(
                source.get_toc(simple=False),
                translated.get_toc(simple=False),
                mode,
                translation_first,
            )
            if toc:
                out.set_toc(toc)
            return _save(out)


def _open_pair(
    original: bytes, translated: bytes, password: str | None
) -> tuple[pymupdf.Document, pymupdf.Document]:
    """Open an original and its translation (``password`` is the original's); both must have
    the same pages."""
    source = open_plain(original, password)
    target = open_plain(translated, None)
    if source.page_count != target.page_count:
        source.close()
        target.close()
        raise InputError("the translation does not have the pages of the original")
    return source, target


def _save(doc: pymupdf.Document) -> bytes:
    # Pages copied whole (dual TB) bring the original's annotations and links along.
    strip_active_content(doc)
    # garbage=4 also merges identical objects: fonts and images the original and the
    # translation share are stored once.
    return bytes(doc.tobytes(garbage=4, deflate=True, encryption=pymupdf.PDF_ENCRYPT_NONE))


# --- /crop, /compare, /crop-compare ------------------------------------------------------


def crop_columns(pdf: bytes, password: str | None = None) -> bytes:
    """Cut every two-column page into two one-column pages (left column first); other pages
    are kept whole. Pages turned by ``/Rotate`` are kept whole."""
    with PDF_LOCK:
        source = open_plain(pdf, password)
        with writing("cut the PDF into columns", source):
            out = pymupdf.open()
            for number in range(source.page_count):
                turn = reading_turn(source[number])
                for clip in _columns(source[number]):
                    _show(out, [(source, number, clip)], turn)
            return _save(out)


def compare(
    original: bytes,
    translated: bytes,
    translation_first: bool = False,
    password: str | None = None,
) -> bytes:
    """Each page of the original and of its translation side by side on one wide page."""
    return render_dual(original, translated, "LR", translation_first, password)


def crop_compare(
    original: bytes,
    translated: bytes,
    translation_first: bool = False,
    password: str | None = None,
) -> bytes:
    """Columns side by side: each column of the original next to the same column of the
    translation (the columns are found on the original)."""
    with PDF_LOCK:
        source, target = _open_pair(original, translated, password)
        with writing("build the comparison", source, target):
            out = pymupdf.open()
            for number in range(source.page_count):
                turn = reading_turn(source[number])
                for clip in _columns(source[number]):
                    pair = [(source, number, clip), (target, number, clip)]
                    _show(out, pair[::-1] if translation_first else pair, turn)
            return _save(out)


def _columns(page: pymupdf.Page) -> list[pymupdf.Rect | None]:
    """The areas of a page's columns; ``[None]`` (the whole page) when it is not a two-column
    page or is turned by ``/Rotate``."""
    if page.rotation:
        return [None]
    whole = pymupdf.Rect(page.rect)
    split = column_split(read_layout(page))
    if split is None or not whole.x0 < split < whole.x1:
        return [None]
    return [
        pymupdf.Rect(whole.x0, whole.y0, split, whole.y1),
        pymupdf.Rect(split, whole.y0, whole.x1, whole.y1),
    ]


Part = tuple[pymupdf.Document, int, pymupdf.Rect | None]


def _show(out: pymupdf.Document, parts: Sequence[Part], turn: int) -> None:
    """One new page showing ``parts`` (document, page, area or None for the whole page) next
    to each other, left to right, each whole page turned clockwise by ``turn`` from its
    unrotated space (``reading_turn``); an area is shown unturned.

    ``show_pdf_page`` ignores a page's ``/Rotate``, so the page's ``/Rotate`` is reset (the
    documents given here are throwaway copies) and the turn is applied explicitly.
    """
    placed: list[tuple[pymupdf.Document, int, pymupdf.Rect | None, pymupdf.Rect, int]] = []
    for doc, number, clip in parts:
        page = doc[number]
        angle = turn % 360 if clip is None else 0
        area = pymupdf.Rect(clip or page.cropbox)
        if angle in (90, 270):
            area = pymupdf.Rect(0, 0, area.height, area.width)
        placed.append((doc, number, clip, area, angle))
    width = sum(area.width for *_, area, _ in placed)
    height = max(area.height for *_, area, _ in placed)
    target_page = out.new_page(width=width, height=height)
    x = 0.0
    for doc, number, clip, area, angle in placed:
        target = pymupdf.Rect(x, 0, x + area.width, area.height)
        if clip is None:
            doc[number].set_rotation(0)
            target_page.show_pdf_page(target, doc, number, rotate=(360 - angle) % 360)
        else:
            target_page.show_pdf_page(target, doc, number, clip=clip)
        x += area.width


def keep_pages(pdf: bytes, pages: Sequence[int]) -> bytes:
    """``pdf`` with only ``pages`` (0-based, in document order); the outline keeps the entries
    that point at them."""
    with PDF_LOCK:
        doc = open_plain(pdf, None)
        with writing("cut the PDF to the translated pages", doc):
            doc.select(sorted(set(pages)))
            return _save(doc)
