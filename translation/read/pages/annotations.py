"""Annotations that carry text of their own: a free-text note, a stamp, a form field.

MuPDF reads the text such an annotation draws together with the page's own text, but it is
not the page's: the annotation is drawn over the page, so a translation set in its place
would lie under it (or show through it), and redaction cannot remove it. Its text is therefore
left as it is, never sent; the area it covers is kept clear of translations
(:func:`annotation_areas`). Sticky notes (``Text``) show an icon and keep their words in a
pop-up: nothing of them is on the page. Markup over the page's text (highlights, underlines)
and shapes drawn around it (boxes, ink) carry no text and change nothing here.
"""

from __future__ import annotations

import pymupdf

from translation.read.layout import Block, Line, Rect

#: Annotation types whose appearance draws text of its own.
TEXT_ANNOTATIONS = frozenset(
    {pymupdf.PDF_ANNOT_FREE_TEXT, pymupdf.PDF_ANNOT_STAMP, pymupdf.PDF_ANNOT_WIDGET}
)
#: Annotation types that draw nothing on the page, or draw only over the text they mark.
_SEE_THROUGH = frozenset(
    {
        pymupdf.PDF_ANNOT_LINK,
        pymupdf.PDF_ANNOT_POPUP,
        pymupdf.PDF_ANNOT_HIGHLIGHT,
        pymupdf.PDF_ANNOT_UNDERLINE,
        pymupdf.PDF_ANNOT_SQUIGGLY,
        pymupdf.PDF_ANNOT_STRIKE_OUT,
        pymupdf.PDF_ANNOT_REDACT,
    }
)


def text_annotation_areas(page: pymupdf.Page) -> list[Rect]:
    """The areas of ``page``'s annotations that draw text of their own (unrotated page
    space), hidden ones left out."""
    return [
        tuple(annot.rect)
        for annot in page.annots()
        if annot.type[0] in TEXT_ANNOTATIONS and not annot.flags & pymupdf.PDF_ANNOT_IS_HIDDEN
    ]


def annotation_areas(page: pymupdf.Page) -> list[Rect]:
    """The areas of ``page`` that visible annotations draw over, which a translation must stay
    clear of (a note in the margin, a stamp, a box drawn by a reviewer)."""
    return [
        tuple(annot.rect)
        for annot in page.annots()
        if annot.type[0] not in _SEE_THROUGH and not annot.flags & pymupdf.PDF_ANNOT_IS_HIDDEN
    ]


def without_annotation_text(blocks: list[Block], areas: list[Rect]) -> list[Block]:
    """``blocks`` without the lines that lie in ``areas`` (the text annotations draw)."""
    if not areas:
        return blocks
    kept: list[Block] = []
    for block in blocks:
        lines = tuple(line for line in block.lines if not _inside(line, areas))
        if len(lines) == len(block.lines):
            kept.append(block)
        elif lines:
            kept.append(Block(lines=lines, bbox=_union(lines)))
    return kept


def _inside(line: Line, areas: list[Rect]) -> bool:
    cx, cy = (line.bbox[0] + line.bbox[2]) / 2, (line.bbox[1] + line.bbox[3]) / 2
    return any(a[0] <= cx <= a[2] and a[1] <= cy <= a[3] for a in areas)


def _union(lines: tuple[Line, ...]) -> Rect:
    return (
        min(line.bbox[0] for line in lines),
        min(line.bbox[1] for line in lines),
        max(line.bbox[2] for line in lines),
        max(line.bbox[3] for line in lines),
    )
