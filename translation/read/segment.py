"""Segmentation: page layouts -> translatable paragraphs in reading order.

The concepts live in their own modules: :mod:`translation.read.layout` (what the reader saw, and
geometry), :mod:`translation.read.rows.row` (visual lines),
:mod:`translation.read.rows.running_heads`
and :mod:`translation.read.rows.figure_text` (rows not translated),
:mod:`translation.read.rows.reading_order`, :mod:`translation.read.blocks.continuation` (where a
paragraph
goes on), :mod:`translation.read.flow.links` (where it goes on in another box: one passage, one
request), :mod:`translation.read.blocks.draft` (a paragraph in the making),
:mod:`translation.read.math.formulas` (math protection and placeholders) and
:mod:`translation.read.paragraph` (the output type). This module runs them page by page,
groups rows into paragraphs and decides what is sent, in the stages of
:mod:`translation.read.pipeline`:

* not translated: running headers, footers and page numbers, display equations, text inside
  figures, table cells made of numbers or symbols, code, text that does not run in the page's
  main direction (an arXiv side stamp), author names, pseudo-code keywords, and the references
  section unless asked for (a numbered bibliography without a heading too);
* hyphenated line breaks are joined; inline math, code, URLs and e-mail addresses become
  placeholders; a paragraph's label (list item, footnote marker, algorithm line number) is kept
  out of its text and put back first (:mod:`translation.read.blocks.roles` says what starts a
  paragraph
  and what role it has).

Nothing here touches PyMuPDF, so every rule is testable with literals. The names other code
imports from here are re-exported (``__all__``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from translation.read.layout import (
    Block,
    Frame,
    Line,
    PageLayout,
    Rect,
    Span,
    column_split,
    figure_regions,
)
from translation.read.math.formulas import PLACEHOLDER_RE, formula_mark, mark_key, protect, restore
from translation.read.pages.page_range import parse_pages
from translation.read.paragraph import Align, Paragraph, ParagraphKind
from translation.read.pipeline import read
from translation.read.segmentation import Segmentation

__all__ = [
    "PLACEHOLDER_RE",
    "Align",
    "Block",
    "Frame",
    "Line",
    "PageLayout",
    "Paragraph",
    "ParagraphKind",
    "Rect",
    "Segmentation",
    "Span",
    "column_split",
    "figure_regions",
    "formula_mark",
    "mark_key",
    "parse_pages",
    "protect",
    "restore",
    "segment",
    "segment_document",
]


def segment(
    pages: Sequence[PageLayout],
    wanted: Collection[int] | None = None,
    include_references: bool = False,
) -> list[Paragraph]:
    """The paragraphs of :func:`segment_document`."""
    return segment_document(pages, wanted, include_references).paragraphs


def segment_document(
    pages: Sequence[PageLayout],
    wanted: Collection[int] | None = None,
    include_references: bool = False,
) -> Segmentation:
    """Turn page layouts into the paragraphs to translate, in reading order
    (:func:`translation.read.pipeline.read`).

    ``pages`` must be in document order and should include every page up to the last wanted one
    (the references section is found from the whole document, see
    ``translation.read.references.entries``);
    only paragraphs of pages in ``wanted`` (0-based indices, None = all) are returned.
    Paragraph ids are ``p<page>-b<n>``.
    """
    return read(pages, wanted, include_references)
