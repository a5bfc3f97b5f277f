"""Literal page layouts for the pure segmentation tests: spans, lines and blocks whose boxes
follow from their text (half a font size per character, baseline at ``base``)."""

from __future__ import annotations

from translation.read.layout import Block, Line, Span, union


def span(
    text: str,
    x: float,
    base: float,
    size: float = 10.0,
    font: str = "Times-Roman",
    fixed: bool = False,
) -> Span:
    """A span of ``text``; ``fixed``: set in a typewriter face, which is what its glyphs say
    (each advancing alike, the PDF's fixed-pitch flag set), whatever its name."""
    width = 0.5 * size * len(text)
    return Span(
        text=text,
        bbox=(x, base - 0.8 * size, x + width, base + 0.2 * size),
        font=font,
        size=size,
        flags=8 if fixed else 0,
        origin=(x, base),
        advances=(0.5 * size,) * len(text) if fixed else (),
    )


def line(*spans: Span) -> Line:
    return Line(spans=spans, bbox=union(s.bbox for s in spans))


def block(*lines: Line) -> Block:
    return Block(lines=lines, bbox=union(ln.bbox for ln in lines))
