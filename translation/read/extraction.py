"""Reading a document's pages into plain layouts, and from them the paragraphs to translate.

Synchronous and CPU-bound (the pipeline runs it in a worker process).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pymupdf

from common.errors import InputError, ZTError
from translation.read.document import PDF_LOCK, error_reason
from translation.read.early import EarlyParagraphs, OnPart
from translation.read.layout import (
    Block,
    Line,
    PageLayout,
    Span,
    figure_regions,
    visible_images,
)
from translation.read.math.formulas import font_base
from translation.read.measures import USUAL_SIZE
from translation.read.ocr import (
    DEFAULT_OCR,
    OcrMode,
    OcrOptions,
    OcrTurn,
    OnPage,
    needs_ocr,
    tall_box_bands,
)
from translation.read.ocr.pool import read_pages
from translation.read.pages import word_gaps
from translation.read.pages.annotations import text_annotation_areas, without_annotation_text
from translation.read.pages.comment_balloons import balloon_areas
from translation.read.pages.font_weights import BOLD_FLAG, bold_faces
from translation.read.pages.glyph_advances import page_advances
from translation.read.pages.inline_images import with_inline_images
from translation.read.pages.marks import is_mark, page_marks
from translation.read.pages.page_space import TEXT_FLAGS, page_size
from translation.read.pages.path_clips import PATH_KINDS, path_clips, shown_path_boxes
from translation.read.pages.pdf_limits import DEFAULT_LIMITS, PdfLimits, TextTally
from translation.read.pages.span_origins import fix_origins
from translation.read.pages.vertical_writing import with_vertical_columns
from translation.read.paragraph import Paragraph
from translation.read.pipeline import read
from translation.read.segmentation import Segmentation
from translation.read.tables.cell_rules import rules_of


def read_layout(page: pymupdf.Page) -> PageLayout:
    """The text, image and vector-figure layout of one page as plain data."""
    textpage = page.get_textpage(flags=TEXT_FLAGS)
    raw = page.get_text("dict", textpage=textpage)
    glyphs = page.get_text("rawdict", textpage=textpage)
    advances = page_advances(glyphs)  # before the gap spaces take the characters away
    if word_gaps.runs_together(raw):  # no space glyphs drawn: read the gaps between glyphs
        raw = word_gaps.with_gap_spaces(glyphs)
    else:
        raw = fix_origins(raw, lambda: glyphs)
    marks = page_marks(page)
    heavy = bold_faces(page)  # bold by the weight its descriptor states, not by its name
    blocks: list[Block] = []
    for b, block in enumerate(raw["blocks"]):
        if block.get("type", 0) != 0:
            continue
        lines: list[Line] = []
        for n, line in enumerate(block["lines"]):
            spans = tuple(
                Span(
                    text=span["text"],
                    bbox=tuple(span["bbox"]),
                    font=span["font"],
                    size=float(span["size"]),
                    flags=int(span["flags"])
                    | (BOLD_FLAG if font_base(span["font"]) in heavy else 0),
                    color=int(span["color"]),
                    origin=tuple(span["origin"]),
                    mark=is_mark(span["text"], marks.get(font_base(span["font"]), frozenset())),
                    advances=_advances(
                        span.get("advances") or advances.get((b, n, s), ()), span["text"]
                    ),
                )
                for s, span in enumerate(line["spans"])
            )
            if spans:
                lines.append(Line(spans=spans, bbox=tuple(line["bbox"]), direction=line["dir"]))
        if lines:
            blocks.append(Block(lines=tuple(lines), bbox=tuple(block["bbox"])))
    paths: list[tuple[float, float, float, float]] = []
    fills: list[tuple[float, float, float, float]] = []
    log = [(kind, (r[0], r[1], r[2], r[3])) for kind, r in page.get_bboxlog()]
    if any(kind in PATH_KINDS for kind, _ in log):
        clips = path_clips(page.get_drawings(extended=True))
        for kind, box in shown_path_boxes(log, clips):
            paths.append(box)
            if kind == "fill-path":
                fills.append(box)
    images = [box for kind, box in log if kind.endswith("image")]
    # A converter may draw a table's rules as image masks one pixel high: they rule it the same.
    masks = [box for kind, box in log if kind == "fill-imgmask"]
    blocks = with_inline_images(blocks, masks)  # formulas drawn as pictures of their glyphs
    blocks = with_vertical_columns(blocks)
    if images:  # MuPDF's box log gives an image's whole box, the text page its clipped one
        flags = TEXT_FLAGS | pymupdf.TEXT_PRESERVE_IMAGES | pymupdf.TEXT_CLIP
        shown = [tuple(b[:4]) for b in page.get_text("blocks", flags=flags) if b[6] == 1]
        images = visible_images(images, shown)
    # A free-text note, a stamp or a comment balloon in the margin is no part of the text:
    # its words stay as they are.
    notes = text_annotation_areas(page)
    width, height = page_size(page)
    notes += balloon_areas(fills, [ln.bbox for b in blocks for ln in b.lines], width)
    blocks = without_annotation_text(blocks, notes)
    text_lines = [line.bbox for block in blocks for line in block.lines]
    figures = figure_regions(paths, images, width, height, text_lines)
    return PageLayout(
        index=page.number,
        width=width,
        height=height,
        blocks=tuple(blocks),
        figures=tuple(figures),
        rules=tuple(rules_of([*paths, *masks])),
    )


def _advances(got: tuple[float, ...], text: str) -> tuple[float, ...]:
    """A span's advances ``got``, if they hold one per character of its ``text``."""
    return got if len(got) == len(text) else ()


def _read_pages(
    doc: pymupdf.Document,
    last: int,
    ocr: OcrOptions,
    on_ocr: OnPage | None,
    tally: TextTally,
    early: EarlyParagraphs | None = None,
) -> list[PageLayout]:
    """The layouts of pages 0..``last``: each from its text layer, or by OCR where ``ocr``
    says (``ocr.processes`` pages at once, ``on_ocr`` told of them one after the other;
    ``early`` of the pages read so far as each is read)."""
    layouts: list[PageLayout] = []
    scanned: list[int] = []
    for i in range(last + 1):
        layouts.append(read_layout(doc[i]))
        if not (ocr.mode is OcrMode.AUTO and layouts[-1].blocks) and needs_ocr(
            doc[i], ocr.mode, TEXT_FLAGS
        ):
            scanned.append(i)
        else:  # at once: a page over the limits stops the reading there
            tally.add(layouts[-1])
            if early is not None and not scanned:  # the first pages, all from their text
                early = _told_early(early, layouts, text=True)
    if not scanned:
        return layouts
    turns = [OcrTurn(page=i, nth=k, of=len(scanned)) for k, i in enumerate(scanned, 1)]
    tasks = [(i, layouts[i].figures) for i in scanned]

    def tell(k: int, done: bool) -> None:
        if on_ocr is not None and k < len(turns):
            on_ocr(turns[k], done)

    # The pages are read at once, and told in order: a page's turn starts when the one before
    # it is done, so the time limits and the progress see one page after the other.
    tell(0, False)
    read = read_pages(doc, tasks, ocr, TEXT_FLAGS, ocr.processes)
    try:
        for k, (number, layout) in enumerate(zip(scanned, read, strict=False)):
            tell(k, True)
            layouts[number] = layout
            tally.add(layout)
            if early is not None:
                # Read so far: every page before the next one still to read by OCR.
                read_so_far = scanned[k + 1] if k + 1 < len(scanned) else last + 1
                early = _told_early(early, layouts[:read_so_far])
            tell(k + 1, False)
    finally:
        read.close()
    return layouts


def _told_early(
    early: EarlyParagraphs, layouts: Sequence[PageLayout], *, text: bool = False
) -> EarlyParagraphs | None:
    """``early`` told of ``layouts`` (``text``: read from their text layer); None (no more
    early parts) when that failed: a head start must never fail the reading (the whole
    document's segmentation says what is wrong)."""
    try:
        if text:
            early.read_text_page(layouts)
        else:
            early.read(layouts)
    except Exception:
        return None
    return early


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
    on_part: OnPart | None = None,
) -> Segmentation:
    """The paragraphs to translate, in reading order, and the pages of the references section
    (see ``translation.read.segment``).

    ``pages``: 0-based page indices to translate (None = all). Pages before the last wanted page
    are read too, and a few after it: the references section is found from the document read
    (a bibliography is told by the entries that follow its heading, a body section named
    "References" by the sections after it). Raises PDFTooComplexError at the first page over
    ``limits`` (spans or characters on a page, text in all). Pages are read by OCR as
    ``ocr`` says (``translation.read.ocr``), ``ocr.processes`` at once
    (``translation.read.ocr.pool``); ``on_ocr(turn, done)`` is told as each page's turn starts
    and ends, one page after the other in page order (``turn``: page k of the n read by OCR).
    While pages are read, ``on_part`` is told paragraphs of the pages read so far, to send
    ahead (``translation.read.early``: the first page of a text layer, the pages read so far
    of a scan); the result alone is what the document holds.
    """
    return read_document(doc, pages, include_references, limits, ocr, on_ocr, on_part)[0]


def read_document(
    doc: pymupdf.Document,
    pages: Sequence[int] | None = None,
    include_references: bool = False,
    limits: PdfLimits = DEFAULT_LIMITS,
    ocr: OcrOptions = DEFAULT_OCR,
    on_ocr: OnPage | None = None,
    on_part: OnPart | None = None,
) -> tuple[Segmentation, list[PageLayout]]:
    """:func:`extract_document`'s result and the page layouts it was read from (the text layer,
    or OCR's reading, of every page read), for tools that check the reading against its source
    (``bench.corpus``)."""
    last = doc.page_count - 1
    if pages is not None:
        wanted_last = max(pages, default=-1)
        last = min(last, wanted_last + _LOOKAHEAD) if wanted_last <= last else wanted_last
    tally = TextTally(limits)
    wanted = None if pages is None else set(pages)
    early = None if on_part is None else EarlyParagraphs(last, wanted, include_references, on_part)
    try:
        with PDF_LOCK:
            layouts = _read_pages(doc, last, ocr, on_ocr, tally, early)
    except ZTError:
        raise
    except Exception as exc:
        raise InputError(f"cannot read the PDF's text ({error_reason(exc)})") from None
    found = read(layouts, wanted=wanted, include_references=include_references)
    return _cover_tall_boxes(found, layouts), layouts


def _cover_tall_boxes(found: Segmentation, layouts: Sequence[PageLayout]) -> Segmentation:
    """``found`` with the paragraphs of OCR'd pages also covering the parts of Tesseract's
    too-tall line boxes that lie in them (``translation.read.ocr.covers.tall_box_bands``)."""
    tall = {layout.index: layout.tall_boxes for layout in layouts if layout.tall_boxes}
    if not tall:
        return found
    paragraphs = []
    for para in found.paragraphs:
        boxes = tall.get(para.page, ())
        bands = tall_box_bands(para.bbox, para.font_size or USUAL_SIZE, boxes) if boxes else []
        paragraphs.append(dataclasses.replace(para, rects=(*para.rects, *bands)) if bands else para)
    return dataclasses.replace(found, paragraphs=paragraphs)
