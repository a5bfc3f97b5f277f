"""Formulas set as they look: vector copies of a formula's original glyphs, taken from the
source page before redaction, to be placed where the translation's formula marker is set."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pymupdf
from pymupdf import mupdf

from translation.read.layout import Frame, Rect
from translation.read.math.formulas import LIGATURES, mark_key
from translation.read.paragraph import Paragraph
from translation.render.glyphs import FormulaSource, Sheet, glyph_like
from translation.render.redaction import RULE_REACH


@dataclass(frozen=True, slots=True)
class FormulaCopy:
    """A piece of a formula, as an XObject holding only its original glyphs (vectors), to be
    placed on the page's ``sheet``."""

    xobject: mupdf.PdfObj
    sheet: Sheet


#: (paragraph id, placeholder) -> [(copy, source rect, source descent)], one per piece.
Copies = Mapping[tuple[str, str], list[tuple[FormulaCopy, pymupdf.Rect, float]]]


def copied_formulas(items: Sequence[tuple[Paragraph, str]]) -> list[tuple[Paragraph, str]]:
    """(paragraph, placeholder) of the formulas the translations mark for copying."""
    wanted: list[tuple[Paragraph, str]] = []
    for para, text in items:
        keys = {key for key in map(mark_key, text) if key is not None}
        wanted.extend((para, key) for key in sorted(keys) if para.formula_boxes.get(key))
    return wanted


#: One formula's pieces before they are given a page's sheet: [(XObject, rect, descent)].
Pieces = list[tuple[mupdf.PdfObj, pymupdf.Rect, float]]
#: (paragraph id, placeholder) -> (what the paragraph was, its pieces): copies made ahead of
#: the page's translations (``prepare_copies``).
Prepared = dict[tuple[str, str], tuple[object, Pieces]]


def every_formula(paragraphs: Sequence[Paragraph]) -> list[tuple[Paragraph, str]]:
    """(paragraph, placeholder) of every formula of ``paragraphs`` a translation may mark
    for copying: what ``copied_formulas`` can ask for, whatever the translations."""
    return [(p, key) for p in paragraphs for key in sorted(p.formula_boxes) if p.formula_boxes[key]]


def formula_copies(
    source: FormulaSource,
    number: int,
    sheet: Sheet,
    page_rect: pymupdf.Rect,
    wanted: Sequence[tuple[Paragraph, str]],
    prepared: Prepared | None = None,
) -> dict[tuple[str, str], list[tuple[FormulaCopy, pymupdf.Rect, float]]]:
    """Vector copies of the formulas to copy as they look (see formulas.restore), taken from
    the original page ``number``, with how far each piece reaches below its baseline (see
    ``Copies``), on ``sheet``; those ``prepared`` holds (``prepare_copies`` of the same page
    and rect) are taken from there.

    A piece's XObject holds the glyphs of the paragraph's glyph bands (``rects``) of its own
    line inside the piece, never those of the lines above and below that a tall piece (a
    big operator, a fraction) reaches over; so the area shown can reach a little above and
    below the estimated glyph box, to show the whole ink of the glyphs and nothing else."""
    made = prepared or {}
    pieces: dict[tuple[str, str], Pieces] = {}
    missing = []
    for para, key in wanted:
        # A copy made ahead serves while its paragraph is what it was made from (a contents
        # entry's leaders, say, change its boxes as it is set); the others are made now.
        found = made.get((para.id, key))
        if found is not None and found[0] == _made_from(para):
            pieces[(para.id, key)] = found[1]
        else:
            missing.append((para, key))
    if missing:
        now = prepare_copies(source, number, page_rect, missing)
        pieces.update((ident, value) for ident, (_, value) in now.items())
    return {
        ident: [(FormulaCopy(xobject, sheet), shown, below) for xobject, shown, below in found]
        for ident, found in pieces.items()
    }


def _made_from(para: Paragraph) -> object:
    """What a paragraph's formula copies are made from (``prepare_copies``)."""
    return (
        tuple(para.rects),
        tuple(sorted(para.formula_boxes.items())),
        tuple(sorted(para.formula_descents.items())),
        tuple(sorted(para.placeholders.items())),
        para.direction,
        para.font_size,
    )


def prepare_copies(
    source: FormulaSource,
    number: int,
    page_rect: pymupdf.Rect,
    wanted: Sequence[tuple[Paragraph, str]],
) -> Prepared:
    """The XObjects of ``formula_copies``, for no sheet yet: they are taken from the
    original page alone, so they can be made before the page's translations are known (and
    the XObjects no translation places are dropped with the unused objects on save)."""
    pieces: list[tuple[tuple[str, str], pymupdf.Rect, float, float, list[Rect], Frame]] = []
    for para, key in wanted:
        size = para.font_size or 10.0
        descents = para.formula_descents.get(key) or ()
        # Across the line is the frame's y (down the page for horizontal text, along x for a
        # rotated table's lines), as the reader measured the descents.
        frame = Frame(para.direction)
        horizontal = frame.u == (1.0, 0.0)
        for i, box in enumerate(para.formula_boxes[key]):
            descent = descents[i] if i < len(descents) else 0.25 * size
            rect = pymupdf.Rect(box)
            if horizontal:
                if len(para.formula_boxes[key]) == 1:
                    text = para.placeholders.get(key, "")
                    rect = _on_glyphs(rect, text, box[3] - descent, size, source.lines(number))
                rect = _with_paths(rect, source.paths(number), size)
            rect &= page_rect
            if rect.is_empty:
                continue
            own = frame.to_frame(box)
            base = own[3] - descent
            bands = [
                tuple(pymupdf.Rect(band) & rect)
                for band in para.rects
                if base - 1.2 * size < _middle(frame.to_frame(band)) < base + 0.5 * size
                and rect.intersects(band)
            ]
            # The formula's rules (bars, overlines) may stand a little outside its glyph box.
            reach = RULE_REACH * size
            gx0, gy0 = rect.x0 - 1.0, rect.y0 - reach
            gx1, gy1 = rect.x1 + 1.0, rect.y1 + reach
            # A path's box leaves out half its stroke width: the band holds the whole stroke
            # (else the culler, which measures it, drops a bracket by a hair).
            bands.extend(
                (p[0] - _STROKE, p[1] - _STROKE, p[2] + _STROKE, p[3] + _STROKE)
                for p in source.paths(number)
                if gx0 <= p[0] <= p[2] <= gx1 and gy0 <= p[1] <= p[3] <= gy1  # inside, as Rect
            )
            below = descent + frame.to_frame(tuple(rect))[3] - own[3]
            pieces.append(((para.id, key), rect, below, size, bands, frame))
    xobjects = source.xobjects(number, [bands for *_, bands, _ in pieces])
    copies: Prepared = {(p.id, k): (_made_from(p), []) for p, k in wanted}
    for (ident, rect, descent, size, _, frame), xobject in zip(pieces, xobjects, strict=True):
        margin = _COPY_MARGIN * size
        x0, y0, x1, y1 = frame.to_frame(tuple(rect))
        shown = pymupdf.Rect(frame.to_page((x0, y0 - margin, x1, y1 + margin))) & page_rect
        copies[ident][1].append((xobject, shown, descent + margin))
    return copies


def _middle(rect: Rect) -> float:
    return (rect[1] + rect[3]) / 2


def _on_glyphs(
    rect: pymupdf.Rect,
    text: str,
    base: float,
    size: float,
    lines: Sequence[Sequence[tuple[str, float, float, float]]],
) -> pymupdf.Rect:
    """``rect`` (a one-line formula's estimated glyph box, its baseline at ``base``) moved onto
    the formula's own glyphs: the run of the page's glyphs (``FormulaSource.lines``) on that
    baseline spelling ``text``, the nearest one. The reader estimates a character's box where
    it cannot measure it (a table cell's words cut from their line), and a copy shown through
    an estimate beside its glyphs shows a part of them, or nothing. Kept as it is where no such
    run stands near it."""
    wanted = "".join(LIGATURES.get(c, c) for c in text if not c.isspace())
    if not wanted:
        return rect
    centre = (rect.x0 + rect.x1) / 2
    best: tuple[float, float, float] | None = None  # (distance, x0, x1)
    for line in lines:
        if not line or abs(line[0][3] - base) > _SAME_BASE * size:
            continue
        spelt = [(c, x0, x1) for char, x0, x1, _ in line for c in LIGATURES.get(char, char)]
        chars = "".join(c for c, _, _ in spelt)
        at = chars.find(wanted)
        while at >= 0:
            x0, x1 = spelt[at][1], spelt[at + len(wanted) - 1][2]
            distance = abs((x0 + x1) / 2 - centre)
            if best is None or distance < best[0]:
                best = (distance, x0, x1)
            at = chars.find(wanted, at + 1)
    if best is None or best[0] > _NEAR_GLYPHS * size:
        return rect
    return pymupdf.Rect(best[1], rect.y0, best[2], rect.y1)


def _with_paths(rect: pymupdf.Rect, paths: Sequence[Rect], size: float) -> pymupdf.Rect:
    """``rect`` grown over the glyph-like paths at its ends or inside it (Word draws
    stretched brackets and braces of a formula as paths, outside its text)."""
    for box in paths:
        cy = (box[1] + box[3]) / 2
        if (
            rect.y0 <= cy <= rect.y1
            and rect.x0 - 0.6 * size < box[2]
            and box[0] < rect.x1 + 0.6 * size
            and glyph_like(box, size)
        ):
            rect |= box
    return rect


_SAME_BASE = 0.3  # font sizes: glyphs whose origins stand this near a baseline are on it
_NEAR_GLYPHS = 3.0  # font sizes: the farthest an estimated formula box stands from its glyphs
_STROKE = 0.5  # points: the most half a formula path's stroke is taken to reach past its box
_COPY_MARGIN = 0.3  # font sizes shown above and below a formula piece's estimated glyph box
