"""Literal page layouts for the pure reading tests: spans, lines and blocks whose boxes
follow from their text (half a font size per character, baseline at ``base``), on a page of
:data:`W` by :data:`H` points."""

from __future__ import annotations

from collections.abc import Sequence

from translation.read.layout import Block, Line, PageLayout, Span, union

W, H = 600.0, 800.0
CELL_SIZE = 9.0  # a table's text, in points


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


def lines_block(lines: Sequence[Line]) -> Block:
    """One block of ``lines``."""
    return block(*lines)


def text_block(
    rows: list[str], x: float, top: float, size: float = 10.0, font: str = "Times-Roman"
) -> Block:
    """A block of one line per row from ``top``, 1.2 sizes apart."""
    return block(*(line(span(r, x, top + i * 1.2 * size, size, font)) for i, r in enumerate(rows)))


def page(
    index: int, *blocks: Block, figures: tuple[tuple[float, float, float, float], ...] = ()
) -> PageLayout:
    return PageLayout(index=index, width=W, height=H, blocks=blocks, figures=figures)


def cell_span(text: str, x: float, base: float, size: float = CELL_SIZE) -> Span:
    """A span of a table's text."""
    return span(text, x, base, size)


def cell_row(cells: list[tuple[str, float]], base: float) -> list[Line]:
    """One MuPDF line per cell (text, left x), as LaTeX tables come out."""
    return [line(cell_span(t, x, base)) for t, x in cells]
