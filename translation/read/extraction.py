"""Reading a document's pages into plain layouts, and from them the paragraphs to translate.

Synchronous and CPU-bound (the pipeline runs it in a worker process).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pymupdf

from common.errors import InputError, ZTError
from translation.read import word_gaps
from translation.read.annotations import text_annotation_areas, without_annotation_text
from translation.read.cell_rules import rules_of
from translation.read.comment_balloons import balloon_areas
from translation.read.document import PDF_LOCK, TEXT_FLAGS, error_reason
from translation.read.formulas import font_base
from translation.read.layout import Block, Line, PageLayout, Span, figure_regions
from translation.read.marks import is_mark, page_marks
from translation.read.ocr import (
    DEFAULT_OCR,
    OcrMode,
    OcrOptions,
    OnPage,
    needs_ocr,
    read_ocr_page,
    tall_box_bands,
)
from translation.read.ocr.pages import OcrTurns
from translation.read.paragraph import Paragraph
from translation.read.pdf_limits import DEFAULT_LIMITS, PdfLimits, TextTally
from translation.read.segment import Segmentation, segment_document
from translation.read.span_origins import fix_origins


def read_layout(page: pymupdf.Page) -> PageLayout:
    """The text, image and vector-figure layout of one page as plain data."""
    textpage = page.get_textpage(flags=TEXT_FLAGS)
    raw = page.get_text("dict", textpage=textpage)
    if word_gaps.runs_together(raw):  # no space glyphs drawn: read the gaps between glyphs
        raw = word_gaps.with_gap_spaces(page.get_text("rawdict", textpage=textpage))
    else:
        raw = fix_origins(raw, lambda: page.get_text("rawdict", textpage=textpage))
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
    fills: list[tuple[float, float, float, float]] = []
    images: list[tuple[float, float, float, float]] = []
    for kind, rect in page.get_bboxlog():
        if kind in ("fill-path", "stroke-path"):
            paths.append(tuple(rect))
            if kind == "fill-path":
                fills.append(tuple(rect))
        elif kind.endswith("image"):
            images.append(tuple(rect))
    # A free-text note, a stamp or a comment balloon in the margin is no part of the text:
    # its words stay as they are.
    notes = text_annotation_areas(page)
    notes += balloon_areas(fills, [ln.bbox for b in blocks for ln in b.lines], page.cropbox.width)
    blocks = without_annotation_text(blocks, notes)
    box = page.cropbox
    text_lines = [line.bbox for block in blocks for line in block.lines]
    figures = figure_regions(paths, images, box.width, box.height, text_lines)
    return PageLayout(
        index=page.number,
        width=box.width,
        height=box.height,
        blocks=tuple(blocks),
        figures=tuple(figures),
        rules=tuple(rules_of(paths)),
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
        with PDF_LOCK:
            for i in range(last + 1):
                layouts.append(_read_page(doc[i], ocr, on_ocr, turns))
                tally.add(layouts[-1])
    except ZTError:
        raise
    except Exception as exc:
        raise InputError(f"cannot read the PDF's text ({error_reason(exc)})") from None
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
