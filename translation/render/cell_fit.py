"""A table cell's translation: grown into its column's free room before it shrinks, and kept
in the source language when even that would set it too small."""

from __future__ import annotations

from collections.abc import Callable

from translation.read.layout import Frame
from translation.read.math.formulas import mark_key
from translation.read.paragraph import Align, Paragraph, ParagraphKind
from translation.render.fonts import Fitted, FontChain, fit
from translation.render.measure import leading

#: A cell's translation is never set smaller than this share of the source size.
CELL_MIN_SCALE = 0.6
#: A wrapped cell's translation wraps as its source does down to this share of its size.
WRAP_SCALE = 0.85


def fit_cell(
    para: Paragraph,
    text: str,
    box: tuple[float, float, float, float],
    frame: Frame,
    src: float,
    leading: float,
    measure: Callable[[str], float],
) -> tuple[Fitted, tuple[float, float, float, float]] | None:
    """A table cell's translation that does not fit its glyph box at the source size grows
    into ``para.max_bbox`` (its column's free width, the free space below), centred on the
    source text (flush with its edge in a column set flush right or left) as far as the room
    allows, and shrinks no further than CELL_MIN_SCALE (a wrapped cell wraps as its source
    does: see ``wrapped``); None when even that does not fit (the source is then kept: see
    ``cell_fits``)."""
    assert para.max_bbox is not None
    rx0, _, rx1, ry1 = frame.to_frame(para.max_bbox)
    x0, y0, x1, y1 = box
    rx0, rx1, ry1 = min(rx0, x0), max(rx1, x1), max(ry1, y1)
    fitted = fit(text, rx1 - rx0, ry1 - y0, src, leading, measure, CELL_MIN_SCALE * src)
    if not fitted.fits or not fitted.lines:
        return None
    widest = max(line.width for line in fitted.lines) * fitted.size
    if len(fitted.lines) < para.line_count and widest > x1 - x0 + 0.5:
        # Fewer lines than the source, spread sideways towards the neighbours: wrap instead.
        narrow = wrapped(para, text, (x1 - x0, rx1 - rx0, ry1 - y0), src, leading, measure)
        fitted = narrow or fitted
    used = max(line.width for line in fitted.lines) * fitted.size + 0.5
    if used >= rx1 - rx0:
        return fitted, (rx0, y0, rx1, ry1)
    # Flush with the source's edge where its column is set flush, else centred on it.
    anchor = {Align.RIGHT: x1 - used, Align.LEFT: x0}.get(para.align, (x0 + x1 - used) / 2)
    left = min(max(anchor, rx0), rx1 - used)
    return fitted, (left, y0, left + used, ry1)


def wrapped(
    para: Paragraph,
    text: str,
    widths: tuple[float, float, float],
    src: float,
    leading: float,
    measure: Callable[[str], float],
) -> Fitted | None:
    """A cell the source wraps (two lines or more: a header over a narrow column, "Self-" over
    "TER") wraps its translation too rather than spread it on fewer lines towards its
    neighbours: in the narrowest width from its glyphs' up to its room's (``widths``: the
    glyphs' width, the room's width, the room's height) where it takes no more lines than the
    source at WRAP_SCALE of the source size or more; None when no width allows that, or for a
    cell of one line."""
    narrow, wide, height = widths
    if para.line_count < 2:
        return None
    width = narrow
    while width < wide + 0.25 * src:
        fitted = fit(text, min(width, wide), height, src, leading, measure, WRAP_SCALE * src)
        if fitted.fits and fitted.lines and len(fitted.lines) <= para.line_count:
            return fitted
        width += 0.25 * src
    return None


def cell_fits(para: Paragraph, text: str, chain: FontChain, target_lang: str) -> bool:
    """Whether a translation can be set in ``para`` without shrinking a table cell below
    CELL_MIN_SCALE of its source size (other paragraphs always can)."""
    if para.kind != ParagraphKind.CELL or para.max_bbox is None:
        return True
    frame = Frame(para.direction)
    box = frame.to_frame(para.bbox)
    src = para.font_size or 10.0
    pitch = leading(para, target_lang)
    text = " ".join(text.split())

    def measure(unit: str) -> float:
        total = 0.0
        for char in unit:
            key = mark_key(char)
            if key is not None:
                total += (
                    sum(
                        frame.to_frame(r)[2] - frame.to_frame(r)[0]
                        for r in para.formula_boxes.get(key, ())
                    )
                    / src
                )
            else:
                total += chain.advance(char)
        return total

    if fit(text, box[2] - box[0], box[3] - box[1], src, pitch, measure).size >= src:
        return True
    return fit_cell(para, text, box, frame, src, pitch, measure) is not None
