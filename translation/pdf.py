"""PyMuPDF I/O: open and validate, read page layouts, redact, typeset, build mono/dual outputs.

Everything here is synchronous and CPU-bound (the pipeline runs it in a worker thread).
PyMuPDF exceptions never leave this module: they become ``common.errors`` types.
Coordinates are the unrotated page space PyMuPDF's text extraction, redaction and text insertion
share, which is why pages with ``/Rotate`` need no special handling.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

import pymupdf

from common.errors import (
    EmptyPDFError,
    InputError,
    NotAPDFError,
    NoTextLayerError,
    PasswordRequiredError,
    ZTError,
)
from translation.read import word_gaps
from translation.read.formulas import font_base
from translation.read.layout import (
    Block,
    Line,
    PageLayout,
    Span,
    column_split,
    figure_regions,
)
from translation.read.marks import is_mark, page_marks
from translation.read.ocr import (
    DEFAULT_OCR,
    OcrMode,
    OcrOptions,
    OnPage,
    needs_ocr,
    paint_covers,
    read_ocr_page,
    tall_box_bands,
    tessdata,
    words_are_pixels,
)
from translation.read.ocr.pages import OcrTurns
from translation.read.paragraph import Paragraph
from translation.read.pdf_limits import DEFAULT_LIMITS, PdfLimits, TextTally
from translation.read.segment import Segmentation, segment_document
from translation.render.fonts import FontChain
from translation.render.glyphs import FormulaSource, Sheet
from translation.render.links import put_back, take
from translation.render.redaction import TEXT_FLAGS, redact
from translation.render.sanitize import strip_active_content
from translation.render.typeset import (
    cell_fits,
    copied_formulas,
    formula_copies,
    typeset_page,
)

# PyMuPDF is not thread-safe, not even for different documents, and holds the GIL while it
# works; the server therefore does all of its PDF work in worker processes, one job per process
# (``translation.worker``). This lock only keeps the threads of one process apart (the CLI,
# tests, benchmarks); it never makes one server job wait for another.
_LOCK = threading.RLock()


class RenderError(ZTError):
    """Writing the translated PDF failed."""

    error_type = "RenderError"


def open_document(
    data: bytes,
    password: str | None = None,
    limits: PdfLimits = DEFAULT_LIMITS,
    ocr: OcrOptions = DEFAULT_OCR,
) -> pymupdf.Document:
    """Open ``data`` as a PDF and check that it can be translated.

    Raises NotAPDFError (garbage, unparsable), EmptyPDFError (no pages: a truncated upload
    "repairs" to zero pages without an error), PasswordRequiredError (no or wrong password),
    PDFTooComplexError (more pages than ``limits`` allow) and NoTextLayerError (no text on any
    page, and no scan to OCR or OCR off by ``ocr``; ``OcrUnavailableError`` when the scan
    needs Tesseract or language data that is not installed). A PDF restricted only by an owner
    password opens.
    """
    if b"%PDF" not in data[:1024]:
        raise NotAPDFError("not a PDF file")
    with _LOCK:
        return _open_checked(data, password, limits, ocr)


def _parse(data: bytes) -> pymupdf.Document:
    try:
        return pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # PyMuPDF raises FileDataError, RuntimeError, ValueError...
        raise NotAPDFError(f"not a readable PDF file ({_reason(exc)})") from None


def _open_checked(
    data: bytes, password: str | None, limits: PdfLimits, ocr: OcrOptions
) -> pymupdf.Document:
    doc = _parse(data)
    try:
        if doc.needs_pass:
            if not password:
                raise PasswordRequiredError("the PDF is password-protected: give the password")
            if not doc.authenticate(password):
                raise PasswordRequiredError("wrong password for this PDF")
        if doc.page_count == 0:
            raise EmptyPDFError("the PDF has no pages (truncated or damaged file)")
        limits.check_page_count(doc.page_count)
        if not _has_text(doc):
            if doc.is_repaired:  # what is left of a truncated file: pages without content
                raise EmptyPDFError("the PDF is truncated or damaged: nothing readable in it")
            _check_ocr(doc, ocr)
    except InputError:
        doc.close()
        raise
    except Exception as exc:
        doc.close()
        raise NotAPDFError(f"damaged PDF file ({_reason(exc)})") from None
    return doc


def _check_ocr(doc: pymupdf.Document, ocr: OcrOptions) -> None:
    """A document without text opens only when OCR may read its scanned pages."""
    if ocr.mode is OcrMode.NEVER:
        raise NoTextLayerError(
            "the PDF has no text layer: it is scanned and needs OCR, which is off"
            " (--ocr never, ZT_OCR=never)"
        )
    if not any(needs_ocr(page, ocr.mode, TEXT_FLAGS) for page in doc):
        raise NoTextLayerError("the PDF has no text layer and no scanned page to read by OCR")
    tessdata(ocr.language)


def _reason(exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:120]


@contextmanager
def _writing(what: str, *docs: pymupdf.Document) -> Iterator[None]:
    """Turn an unexpected error of the block into ``RenderError("cannot {what} (...)")`` (our
    own errors pass unchanged); close ``docs`` when the block ends, however it ends."""
    try:
        yield
    except ZTError:
        raise
    except Exception as exc:
        raise RenderError(f"cannot {what} ({_reason(exc)})") from exc
    finally:
        for doc in docs:
            doc.close()


def _has_text(doc: pymupdf.Document) -> bool:
    for page in doc:
        if page.get_text("text", flags=TEXT_FLAGS).strip():
            return True
    return False


def read_layout(page: pymupdf.Page) -> PageLayout:
    """The text, image and vector-figure layout of one page as plain data."""
    raw = page.get_text("dict", flags=TEXT_FLAGS)
    if word_gaps.runs_together(raw):  # no space glyphs drawn: read the gaps between glyphs
        raw = word_gaps.with_gap_spaces(page.get_text("rawdict", flags=TEXT_FLAGS))
    marks = page_marks(page)
    blocks: list[Block] = []
    for block in raw["blocks"]:
        if block.get("type", 0) != 0:
            continue
        lines: list[Line] = []
        for line in block["lines"]:
            spans = tuple(
                Span(
                    text=span["text"],
                    bbox=tuple(span["bbox"]),
                    font=span["font"],
                    size=float(span["size"]),
                    flags=int(span["flags"]),
                    color=int(span["color"]),
                    origin=tuple(span["origin"]),
                    mark=is_mark(span["text"], marks.get(font_base(span["font"]), frozenset())),
                )
                for span in line["spans"]
            )
            if spans:
                lines.append(Line(spans=spans, bbox=tuple(line["bbox"]), direction=line["dir"]))
        if lines:
            blocks.append(Block(lines=tuple(lines), bbox=tuple(block["bbox"])))
    paths: list[tuple[float, float, float, float]] = []
    images: list[tuple[float, float, float, float]] = []
    for kind, rect in page.get_bboxlog():
        if kind in ("fill-path", "stroke-path"):
            paths.append(tuple(rect))
        elif kind.endswith("image"):
            images.append(tuple(rect))
    box = page.cropbox
    text_lines = [line.bbox for block in blocks for line in block.lines]
    figures = figure_regions(paths, images, box.width, box.height, text_lines)
    return PageLayout(
        index=page.number,
        width=box.width,
        height=box.height,
        blocks=tuple(blocks),
        figures=tuple(figures),
    )


def _read_page(
    page: pymupdf.Page, ocr: OcrOptions, on_ocr: OnPage | None, turns: OcrTurns
) -> PageLayout:
    layout = read_layout(page)
    if (ocr.mode is OcrMode.AUTO and layout.blocks) or not needs_ocr(page, ocr.mode, TEXT_FLAGS):
        return layout
    turn = turns.next(page)
    if on_ocr is not None:
        on_ocr(turn, False)
    layout = read_ocr_page(page, ocr, TEXT_FLAGS, layout.figures)
    if on_ocr is not None:
        on_ocr(turn, True)
    return layout


#: Pages read past the last wanted one for the references decision.
_LOOKAHEAD = 2


def extract_paragraphs(
    doc: pymupdf.Document,
    pages: Sequence[int] | None = None,
    include_references: bool = False,
    limits: PdfLimits = DEFAULT_LIMITS,
    ocr: OcrOptions = DEFAULT_OCR,
) -> list[Paragraph]:
    """The paragraphs of :func:`extract_document`."""
    return extract_document(doc, pages, include_references, limits, ocr).paragraphs


def extract_document(
    doc: pymupdf.Document,
    pages: Sequence[int] | None = None,
    include_references: bool = False,
    limits: PdfLimits = DEFAULT_LIMITS,
    ocr: OcrOptions = DEFAULT_OCR,
    on_ocr: OnPage | None = None,
) -> Segmentation:
    """The paragraphs to translate, in reading order, and the pages of the references section
    (see ``translation.read.segment``).

    ``pages``: 0-based page indices to translate (None = all). Pages before the last wanted page
    are read too, and a few after it: the references section is found from the document read
    (a bibliography is told by the entries that follow its heading, a body section named
    "References" by the sections after it). Raises PDFTooComplexError at the first page over
    ``limits`` (spans or characters on a page, text in all). Pages are read by OCR as
    ``ocr`` says (``translation.read.ocr``); ``on_ocr(turn, done)`` is told before and after
    each (``turn``: page k of the n read by OCR).
    """
    last = doc.page_count - 1
    if pages is not None:
        wanted_last = max(pages, default=-1)
        last = min(last, wanted_last + _LOOKAHEAD) if wanted_last <= last else wanted_last
    tally = TextTally(limits)
    layouts: list[PageLayout] = []
    turns = OcrTurns(doc, last, ocr.mode, TEXT_FLAGS)
    try:
        with _LOCK:
            for i in range(last + 1):
                layouts.append(_read_page(doc[i], ocr, on_ocr, turns))
                tally.add(layouts[-1])
    except ZTError:
        raise
    except Exception as exc:
        raise InputError(f"cannot read the PDF's text ({_reason(exc)})") from None
    wanted = None if pages is None else set(pages)
    found = segment_document(layouts, wanted=wanted, include_references=include_references)
    return _cover_tall_boxes(found, layouts)


def _cover_tall_boxes(found: Segmentation, layouts: Sequence[PageLayout]) -> Segmentation:
    """``found`` with the paragraphs of OCR'd pages also covering the parts of Tesseract's
    too-tall line boxes that lie in them (``translation.read.ocr.covers.tall_box_bands``)."""
    tall = {layout.index: layout.tall_boxes for layout in layouts if layout.tall_boxes}
    if not tall:
        return found
    paragraphs = []
    for para in found.paragraphs:
        boxes = tall.get(para.page, ())
        bands = tall_box_bands(para.bbox, para.font_size or 10.0, boxes) if boxes else []
        paragraphs.append(dataclasses.replace(para, rects=(*para.rects, *bands)) if bands else para)
    return dataclasses.replace(found, paragraphs=paragraphs)


def render_mono(
    doc: pymupdf.Document,
    paragraphs: Sequence[Paragraph],
    translations: Mapping[str, str],
    target_lang: str,
    ocr: OcrOptions = DEFAULT_OCR,
) -> bytes:
    """Replace each translated paragraph of ``doc`` by its translation; return the PDF bytes.

    ``translations`` maps paragraph ids to final text (placeholders already restored);
    paragraphs without one stay as they are. The source text of a translated paragraph is
    redacted (images and vector graphics untouched), and the translation is set in the
    paragraph's box and the free room around it, in its source style
    (``translation.render.fitting``, ``translation.read.style``); its links and highlights move
    with it (``translation.render.links``).
    Fonts are embedded once per document and subset on save. ``doc`` is modified; all pages
    are kept. The output is not encrypted. On the pages ``ocr`` reads by OCR and on scans
    with an invisible OCR text layer, the scanned words are covered
    (``translation.read.ocr.covers.paint_covers``) too.
    """
    renderer = MonoRenderer(doc, target_lang, ocr)
    by_page: dict[int, list[Paragraph]] = {}
    for para in paragraphs:
        by_page.setdefault(para.page, []).append(para)
    for number, page_paragraphs in sorted(by_page.items()):
        renderer.render_page(number, page_paragraphs, translations)
    return renderer.finish()


class MonoRenderer:
    """:func:`render_mono` page by page, so pages can be typeset while others still translate.

    Call ``render_page`` once per page (any order, from one thread at a time), then ``finish``.
    """

    def __init__(
        self, doc: pymupdf.Document, target_lang: str, ocr: OcrOptions = DEFAULT_OCR
    ) -> None:
        self._doc = doc
        self._target_lang = target_lang
        self._ocr = ocr
        with _LOCK:
            self._chain = FontChain(target_lang)
            # Formulas are copied from the original pages, before any redaction.
            original = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_NONE)
            self._formulas = FormulaSource(pymupdf.open(stream=original, filetype="pdf"), doc)

    def render_page(
        self, number: int, paragraphs: Sequence[Paragraph], translations: Mapping[str, str]
    ) -> None:
        items = [
            (para, text)
            for para in paragraphs
            if (text := translations.get(para.id)) is not None and text.strip()
        ]
        if not items:
            return
        with _LOCK, _writing("write the translated PDF"):
            page = self._doc[number]
            scanned = words_are_pixels(page, self._ocr.mode, TEXT_FLAGS)
            _render_page(page, items, self._chain, self._target_lang, self._formulas, scanned)

    def finish(self) -> bytes:
        """Subset the embedded fonts and return the PDF bytes (not encrypted), without the
        input's active content (``translation.render.sanitize``)."""
        with _LOCK, _writing("write the translated PDF"):
            strip_active_content(self._doc)
            self._doc.subset_fonts()
            return bytes(
                self._doc.tobytes(garbage=3, deflate=True, encryption=pymupdf.PDF_ENCRYPT_NONE)
            )


def _render_page(
    page: pymupdf.Page,
    items: Sequence[tuple[Paragraph, str]],
    chain: FontChain,
    target_lang: str,
    formulas: FormulaSource,
    scanned: bool = False,
) -> None:
    # Work in the unrotated space everything else uses; /Rotate is put back at the end.
    rotation = page.rotation
    if rotation:
        page.set_rotation(0)
    # A table cell whose translation would be set too small keeps its source text.
    items = [(p, t) for p, t in items if cell_fits(p, t, chain, target_lang)]
    paragraphs = [p for p, _ in items]
    carried = take(page, paragraphs)  # links and highlights, put back over the translation
    redact(page, paragraphs)
    if scanned:  # the words are pixels of the scan: paint over them
        paint_covers(page, [r for p in paragraphs for r in p.rects])
    sheet = Sheet(formulas.page_matrix(page.number))
    wanted = copied_formulas(items)
    copies = formula_copies(formulas, page.number, sheet, page.rect, wanted) if wanted else {}
    placed = typeset_page(page, items, chain, target_lang, copies)
    sheet.write(page)
    put_back(page, carried, placed)
    if rotation:
        page.set_rotation(rotation)


def render_dual(
    original: bytes,
    mono: bytes,
    mode: str = "LR",
    translation_first: bool = False,
    password: str | None = None,
) -> bytes:
    """Original and translation together: ``LR`` puts both on one wide page, side by side;
    ``TB`` alternates their pages. ``translation_first`` puts the translation left (first).
    Both inputs must have the same pages (``mono`` is ``render_mono``'s output)."""
    mode = mode.upper()
    if mode not in ("LR", "TB"):
        raise InputError(f"unknown dual mode {mode!r}: use LR or TB")
    with _LOCK:
        source, translated = _open_pair(original, mono, password)
        with _writing("write the dual PDF", source, translated):
            first, second = (translated, source) if translation_first else (source, translated)
            out = pymupdf.open()
            if mode == "LR":
                for number in range(source.page_count):
                    _show(out, [(first, number, None), (second, number, None)])
            else:
                count = source.page_count
                out.insert_pdf(first)
                out.insert_pdf(second)
                out.select([i + half for i in range(count) for half in (0, count)])
            return _save(out)


def _open_plain(data: bytes, password: str | None) -> pymupdf.Document:
    """Open PDF bytes without the translatability checks of :func:`open_document`."""
    doc = _parse(data)
    if doc.needs_pass and not doc.authenticate(password or ""):
        doc.close()
        raise PasswordRequiredError("the PDF is password-protected: give the password")
    if doc.page_count == 0:
        doc.close()
        raise EmptyPDFError("the PDF has no pages (truncated or damaged file)")
    return doc


def _open_pair(
    original: bytes, translated: bytes, password: str | None
) -> tuple[pymupdf.Document, pymupdf.Document]:
    """Open an original and its translation (``password`` is the original's); both must have
    the same pages."""
    source = _open_plain(original, password)
    target = _open_plain(translated, None)
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


# --- /crop, /compare, /crop-compare (issue 5) -----------------------------------------------


def crop_columns(pdf: bytes, password: str | None = None) -> bytes:
    """Cut every two-column page into two one-column pages (left column first); other pages
    are kept whole. Pages turned by ``/Rotate`` are kept whole."""
    with _LOCK:
        source = _open_plain(pdf, password)
        with _writing("cut the PDF into columns", source):
            out = pymupdf.open()
            for number in range(source.page_count):
                for clip in _columns(source[number]):
                    _show(out, [(source, number, clip)])
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
    with _LOCK:
        source, target = _open_pair(original, translated, password)
        with _writing("build the comparison", source, target):
            out = pymupdf.open()
            for number in range(source.page_count):
                for clip in _columns(source[number]):
                    pair = [(source, number, clip), (target, number, clip)]
                    _show(out, pair[::-1] if translation_first else pair)
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


def _show(out: pymupdf.Document, parts: Sequence[Part]) -> None:
    """One new page showing ``parts`` (document, page, area or None for the whole page) next
    to each other, left to right, each as a reader sees it.

    ``show_pdf_page`` does not show a page turned by ``/Rotate`` as a viewer does, so such a
    whole page is shown unturned, turned by the same angle (its ``/Rotate`` is reset: the
    documents given here are throwaway copies).
    """
    placed: list[tuple[pymupdf.Document, int, pymupdf.Rect | None, pymupdf.Rect, int]] = []
    for doc, number, clip in parts:
        page = doc[number]
        turn = page.rotation if clip is None else 0
        placed.append((doc, number, clip, pymupdf.Rect(clip or page.rect), turn))
    width = sum(area.width for *_, area, _ in placed)
    height = max(area.height for *_, area, _ in placed)
    target_page = out.new_page(width=width, height=height)
    x = 0.0
    for doc, number, clip, area, turn in placed:
        target = pymupdf.Rect(x, 0, x + area.width, area.height)
        if turn:
            doc[number].set_rotation(0)
            target_page.show_pdf_page(target, doc, number, rotate=(360 - turn) % 360)
        else:
            target_page.show_pdf_page(target, doc, number, clip=clip)
        x += area.width
