"""A page turned by ``/Rotate`` is read by OCR as its viewer shows it (pure).

A scan stored sideways and shown upright through ``/Rotate`` has its words upright only in the
viewer's frame. Tesseract reads the page as shown, and the OCR rules (lines cut at gutters,
blocks of lines one above the other, sizes from line pitch) work in that frame, where lines run
left to right. The reader and the renderer work in the unrotated page space, so the layout
found is then carried into it: every box and baseline point through the page's derotation, and
each line's direction turned with it (a page shown through ``/Rotate 90`` reads upwards in its
unrotated space, as MuPDF reports the text of such a page).
"""

from __future__ import annotations

import dataclasses

from translation.read.layout import Block, Line, PageLayout, Rect, Span, Vector

#: A PDF matrix ``(a, b, c, d, e, f)``: a point (x, y) goes to (a x + c y + e, b x + d y + f).
Matrix = tuple[float, float, float, float, float, float]


def point(m: Matrix, p: Vector) -> Vector:
    """``p`` under ``m``."""
    a, b, c, d, e, f = m
    return (a * p[0] + c * p[1] + e, b * p[0] + d * p[1] + f)


def rect(m: Matrix, r: Rect) -> Rect:
    """The box holding ``r``'s corners under ``m`` (a quarter turn keeps a box a box)."""
    xs, ys = zip(*(point(m, (x, y)) for x in (r[0], r[2]) for y in (r[1], r[3])), strict=True)
    return (min(xs), min(ys), max(xs), max(ys))


def direction(m: Matrix, v: Vector) -> Vector:
    """The direction ``v`` under ``m``'s turn (its translation left out)."""
    a, b, c, d, _, _ = m
    return (a * v[0] + c * v[1], b * v[0] + d * v[1])


def unturned(layout: PageLayout, m: Matrix, width: float, height: float) -> PageLayout:
    """``layout``, read in the viewer's frame, carried into the unrotated page space of
    ``width`` by ``height`` through ``m`` (the page's derotation matrix)."""

    def span(s: Span) -> Span:
        origin = None if s.origin is None else point(m, s.origin)
        return dataclasses.replace(s, bbox=rect(m, s.bbox), origin=origin)

    def line(ln: Line) -> Line:
        spans = tuple(span(s) for s in ln.spans)
        return Line(spans=spans, bbox=rect(m, ln.bbox), direction=direction(m, ln.direction))

    blocks = tuple(
        Block(lines=tuple(line(ln) for ln in b.lines), bbox=rect(m, b.bbox)) for b in layout.blocks
    )
    return dataclasses.replace(
        layout,
        width=width,
        height=height,
        blocks=blocks,
        figures=tuple(rect(m, r) for r in layout.figures),
        tall_boxes=tuple(rect(m, r) for r in layout.tall_boxes),
        rules=tuple(rect(m, r) for r in layout.rules),
    )
