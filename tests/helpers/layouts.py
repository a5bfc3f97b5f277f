"""Literal page layouts for the pure segmentation tests: spans, lines and blocks whose boxes
follow from their text (half a font size per character, baseline at ``base``)."""

from __future__ import annotations

from translation.layout import Block, Line, Span


def span(text: str, x: float, base: float, size: float = 10.0, font: str = "Times-Roman") -> Span:
    width = 0.5 * size * len(text)
    return Span(
        text=text,
        bbox=(x, base - 0.8 * size, x + width, base + 0.2 * size),
        font=font,
        size=size,
        origin=(x, base),
    )


def line(*spans: Span) -> Line:
    return Line(
        spans=spans,
        bbox=(
            min(s.bbox[0] for s in spans),
            min(s.bbox[1] for s in spans),
            max(s.bbox[2] for s in spans),
            max(s.bbox[3] for s in spans),
        ),
    )


def block(*lines: Line) -> Block:
    return Block(
        lines=lines,
        bbox=(
            min(ln.bbox[0] for ln in lines),
            min(ln.bbox[1] for ln in lines),
            max(ln.bbox[2] for ln in lines),
            max(ln.bbox[3] for ln in lines),
        ),
    )
