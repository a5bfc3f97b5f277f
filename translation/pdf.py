"""The translated PDF: each page's source text redacted and its translation typeset in its
place (mono), without the input's active content.

Opening a document and reading its pages is ``translation.read.document`` and
``translation.read.extraction``; the dual and column outputs are ``translation.outputs``.
Everything here is synchronous and CPU-bound (the pipeline runs it in a worker process);
unexpected PyMuPDF errors while writing become ``RenderError``.
Coordinates are the unrotated page space PyMuPDF's text extraction, redaction and text insertion
share, which is why pages with ``/Rotate`` need no special handling.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

import pymupdf

from common.errors import (
    ZTError,
)
from translation.read.document import PDF_LOCK, error_reason
from translation.read.ocr import (
    DEFAULT_OCR,
    OcrOptions,
    paint_covers,
    words_are_pixels,
)
from translation.read.pages.page_space import TEXT_FLAGS
from translation.read.paragraph import Paragraph
from translation.render.cell_fit import cell_fits
from translation.render.cff import FontFormatError
from translation.render.face_subset import cff_table, subset_faces
from translation.render.faces import Face
from translation.render.faces import load as load_face
from translation.render.fallback import FallBack
from translation.render.fonts import FontChain
from translation.render.formula_copies import (
    Prepared,
    copied_formulas,
    every_formula,
    formula_copies,
    prepare_copies,
)
from translation.render.glyphs import FormulaSource, Sheet
from translation.render.leaders import keep_leaders
from translation.render.links import put_back, take
from translation.render.outline import set_translated_outline
from translation.render.page_check import Placed
from translation.render.page_set import PageSet, set_page
from translation.render.redaction import redact
from translation.render.sanitize import strip_active_content
from translation.render.writers import write_all


class RenderError(ZTError):
    """Writing the translated PDF failed."""

    error_type = "RenderError"


@contextmanager
def writing(what: str, *docs: pymupdf.Document) -> Iterator[None]:
    """Turn an unexpected error of the block into ``RenderError("cannot {what} (...)")`` (our
    own errors pass unchanged); close ``docs`` when the block ends, however it ends."""
    try:
        yield
    except ZTError:
        raise
    except Exception as exc:
        raise RenderError(f"cannot {what} ({error_reason(exc)})") from exc
    finally:
        for doc in docs:
            doc.close()


def render_mono(
    doc: pymupdf.Document,
    paragraphs: Sequence[Paragraph],
    translations: Mapping[str, str],
    target_lang: str,
    ocr: OcrOptions = DEFAULT_OCR,
    face: Face | None = None,
) -> bytes:
    """Replace each translated paragraph of ``doc`` by its translation; return the PDF bytes.

    ``translations`` maps paragraph ids to final text (placeholders already restored);
    paragraphs without one stay as they are. The source text of a translated paragraph is
    redacted (images and vector graphics untouched), and the translation is set in the
    paragraph's box and the free room around it, in its source style
    (``translation.render.fitting``, ``translation.read.style.paragraph_style``); its links and
    highlights move
    with it (``translation.render.links``).
    Fonts (``face``, else the built-in ones) are embedded once per document and subset on
    save; the outline's titles are translated. ``doc`` is modified; all pages
    are kept. The output is not encrypted. On the pages ``ocr`` reads by OCR and on scans
    with an invisible OCR text layer, the scanned words are covered
    (``translation.read.ocr.covers.paint_covers``) too.
    """
    renderer = MonoRenderer(doc, target_lang, ocr, face)
    renderer.render_all(paragraphs, translations)
    return renderer.finish()


#: Set once on a scratch page by ``MonoRenderer.warm_up``: a few glyphs of every script.
_WARM_UP_TEXT = "Abc 번역 翻訳 翻译 1.5"

#: The longest source text an outline title is looked up in.
_TITLE_CHARS = 300


class MonoRenderer:
    """:func:`render_mono` page by page, so pages can be typeset while others still translate.

    Call ``render_page`` once per page (any order, from one thread at a time), then ``finish``.
    """

    def __init__(
        self,
        doc: pymupdf.Document,
        target_lang: str,
        ocr: OcrOptions = DEFAULT_OCR,
        face: Face | None = None,
    ) -> None:
        self._doc = doc
        self._target_lang = target_lang
        self._ocr = ocr
        #: Short paragraphs (headings among them) and their translations, by page: the
        #: outline's titles are looked up there.
        self._titles: dict[int, list[tuple[str, str]]] = {}
        #: The blocks kept as printed because their translation broke the page
        #: (``translation.render.page_check``), in the order their pages were set.
        self.fallbacks: list[FallBack] = []
        #: Where each page's translations were set, by page and paragraph id
        #: (``page_check.Placed``): what a reader of the written pages attributes lines by.
        self.placed: dict[int, dict[str, Placed]] = {}
        #: Formula copies made ahead (``prepare_page``), by page.
        self._prepared: dict[int, Prepared] = {}
        #: Seconds spent setting pages, and of them in the renderer's own check.
        self.seconds = 0.0
        self.check_seconds = 0.0
        with PDF_LOCK:
            self._chain = FontChain(target_lang, face)
            # Formulas are copied from the original pages, before any redaction.
            original = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_NONE)
            self._formulas = FormulaSource(pymupdf.open(stream=original, filetype="pdf"), doc)

    def prepare_page(self, number: int, paragraphs: Sequence[Paragraph]) -> None:
        """Make page ``number``'s formula copies now, before its translations are known (a
        third of a math page's typesetting): for a worker that waits for answers anyway. Its
        ``render_page`` then takes those whose paragraph is still what they were made from."""
        wanted = every_formula(paragraphs)
        if not wanted or number in self._prepared:
            return
        with PDF_LOCK, writing("write the translated PDF"):
            page = self._doc[number]
            if page.rotation:  # its copies are made in the unrotated space, when it is set
                return
            self._prepared[number] = prepare_copies(self._formulas, number, page.rect, wanted)

    def render_page(
        self, number: int, paragraphs: Sequence[Paragraph], translations: Mapping[str, str]
    ) -> None:
        prepared = self._prepared.pop(number, None)
        items = [
            (para, text)
            for para in paragraphs
            if (text := translations.get(para.id)) is not None and text.strip()
        ]
        if not items:
            return
        self._titles[number] = [(p.text, t) for p, t in items if len(p.text) <= _TITLE_CHARS]
        with PDF_LOCK, writing("write the translated PDF"):
            started = time.perf_counter()
            page = self._doc[number]
            scanned = words_are_pixels(page, self._ocr.mode, TEXT_FLAGS)
            result = _render_page(
                page, items, self._chain, self._target_lang, self._formulas, scanned, prepared
            )
            self.seconds += time.perf_counter() - started
            self.check_seconds += result.check_seconds
            self.placed[number] = result.placed
            self.fallbacks.extend(
                FallBack(number, ident, tuple(reasons), ident in result.placed)
                for ident, reasons in result.fallen.items()
            )

    def render_all(self, paragraphs: Sequence[Paragraph], translations: Mapping[str, str]) -> None:
        """``render_page`` for every page that holds one of ``paragraphs``, in page order."""
        by_page: dict[int, list[Paragraph]] = {}
        for para in paragraphs:
            by_page.setdefault(para.page, []).append(para)
        for number, page_paragraphs in sorted(by_page.items()):
            self.render_page(number, page_paragraphs, translations)

    def warm_up(self) -> None:
        """Pay now, while the answers are awaited, what the first page set in this process
        would: reading the face's files (regular and bold) and MuPDF's first glyphs of each
        (0.15-0.3 s of the first page), and the CFF table the output's subset is cut from."""
        face = self._chain.face
        if face is None:
            return
        with PDF_LOCK:
            for file in (face.regular, face.bold):
                if file is None:
                    continue
                font, data = load_face(file)
                with pymupdf.open() as scratch:
                    page = scratch.new_page()
                    writer = pymupdf.TextWriter(page.rect)
                    writer.append((72, 72), _WARM_UP_TEXT, font=font, fontsize=10)
                    writer.write_text(page)
                with contextlib.suppress(FontFormatError):  # the output's cut says why
                    cff_table(data)

    def subset_faces(self, doc: pymupdf.Document) -> None:
        """Cut the CJK faces embedded in ``doc`` (this renderer's, or a copy of it) to the
        characters set in them (``translation.render.face_subset``)."""
        subset_faces(doc, self._chain.used_faces())

    def finish(self) -> bytes:
        """Subset the embedded fonts, translate the outline's titles and return the PDF bytes
        (not encrypted), without the input's active content (``translation.render.sanitize``)."""
        with PDF_LOCK, writing("write the translated PDF"):
            strip_active_content(self._doc)
            set_translated_outline(self._doc, self._titles)
            self.subset_faces(self._doc)
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
    prepared: Prepared | None = None,
) -> PageSet:
    """Set ``items`` on ``page``; the paragraphs that fall back (``translation.render.page_set``)
    keep their source as it was: its glyphs are copied back from the original page. The
    formula copies ``prepared`` holds are taken from there."""
    # Work in the unrotated space everything else uses; /Rotate is put back at the end.
    rotation = page.rotation
    if rotation:
        page.set_rotation(0)
    # A contents entry keeps its leader dots and page number as printed.
    items = keep_leaders(page, items, lambda p, t: sum(map(chain.advance, t)) * p.font_size)
    # A table cell whose translation would be set too small keeps its source text.
    items = [(p, t) for p, t in items if cell_fits(p, t, chain, target_lang)]
    paragraphs = [p for p, _ in items]
    carried = take(page, paragraphs)  # links and highlights, put back over the translation
    # The page is still as printed: its glyphs' probes serve the formula copies' first pass.
    redact(page, paragraphs, formulas.note(page.number, page))
    sheet = Sheet(formulas.page_matrix(page.number))
    wanted = copied_formulas(items)
    copies = (
        formula_copies(formulas, page.number, sheet, page.rect, wanted, prepared) if wanted else {}
    )
    result = set_page(page, items, chain, target_lang, copies, sheet, scanned)
    kept = [p for p in paragraphs if p.id in result.fallen]
    if scanned:  # the words are pixels of the scan: paint over those translated
        lines = [r for p in paragraphs if p.id not in result.fallen for r in p.rects]
        paint_covers(page, [*lines, *result.covers])
    if kept:  # their source back where it was: the original's glyphs in their lines
        (xobject,) = formulas.xobjects(page.number, [[r for p in kept for r in p.rects]])
        sheet.place_back(xobject, page.rect)
    write_all(page, result.writers, chain.real_bold)
    for placement in result.placements.values():
        if placement.turned is not None:
            placement.turned.write(page)
    sheet.write(page)
    put_back(page, carried, result.placements)
    if rotation:
        page.set_rotation(rotation)
    return result
