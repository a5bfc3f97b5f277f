"""The body column's measured x-range: where the full lines of body text start and end, on
odd and even pages apart (margins mirror) and on each page that has enough of its own.

What lies outside it by more than a little is margin material (``regions.margins``,
``regions.line_numbers``). Only pages whose text runs left to right are measured; the range
is in page coordinates (the frame of such a page).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

from translation.read.layout import Frame, Line, PageLayout, axis

Range = tuple[float, float]

#: A span is body text when its size is within this many points of the body size.
SAME_SIZE = 0.6
#: A line is full when it is this share of the widest lines' width (a side note is narrow).
FULL_LINE = 0.6
#: The widest lines' width: this quantile of the widths (a stray wide line does not count).
WIDE_QUANTILE = 0.9
#: Spans of one line parted by this many body sizes are two things (a label beside a line).
INNER_GAP = 1.5
#: Full lines needed to measure a range, over a parity of pages and on one page.
PARITY_LINES = 10
PAGE_LINES = 5
#: A page's own range stands for it when it is this share of its parity's width or more
#: (narrower, it is one column of a page whose other column is set in another size).
OWN = 0.75
#: The percentiles of the lines' starts and ends taken as the range's edges (of 20ths).
EDGE_TWENTIETH = 1

LEFT_TO_RIGHT = (1.0, 0.0)

#: A line of fewer letters is no part of a body column's measure.
LINE_LETTERS = 3


def line_extent(line: Line, body_size: float) -> Range | None:
    """Where a line's body-size text starts and ends, or None for a line that is no part of
    a body column's measure (other sizes, under three letters, or a wide gap inside it)."""
    spans = [s for s in line.spans if s.text.strip() and abs(s.size - body_size) <= SAME_SIZE]
    if sum(c.isalpha() for s in spans for c in s.text) < LINE_LETTERS:
        return None
    for a, b in zip(spans, spans[1:], strict=False):
        if b.bbox[0] - a.bbox[2] >= INNER_GAP * body_size:
            return None
    return (spans[0].bbox[0], spans[-1].bbox[2])


#: Line ends are cut into this many quantiles; the frame's edge is ``EDGE_TWENTIETH`` in.
_TWENTIETHS = 20


def _measure(edges: Sequence[Range], needed: int) -> Range | None:
    """The range of a set of line extents: the edge percentiles of the full ones."""
    if len(edges) < needed:
        return None
    widths = sorted(right - left for left, right in edges)
    wide = widths[int(WIDE_QUANTILE * (len(widths) - 1))]
    full = [(left, right) for left, right in edges if right - left >= FULL_LINE * wide]
    if len(full) < PAGE_LINES:
        return None
    lefts = statistics.quantiles([e[0] for e in full], n=_TWENTIETHS, method="inclusive")
    rights = statistics.quantiles([e[1] for e in full], n=_TWENTIETHS, method="inclusive")
    return (lefts[EDGE_TWENTIETH - 1], rights[-EDGE_TWENTIETH])


def _narrowed(own: Range, usual: Range, body_size: float) -> bool:
    """Whether a page's own range is its parity's narrowed on one side only, and by little
    (a margin column of captions beside the text): else it is no measure of the page."""
    same_left = abs(own[0] - usual[0]) <= body_size
    same_right = abs(own[1] - usual[1]) <= body_size
    wide = own[1] - own[0] >= OWN * (usual[1] - usual[0])
    return wide and (same_left or same_right)


def body_ranges(
    pages: Sequence[PageLayout], frames: Mapping[int, Frame], body_size: float
) -> dict[int, Range]:
    """Per page index (left-to-right pages only), the body's x-range: the range measured over
    the page's own full lines where it has :data:`PARITY_LINES` of them and that range is its
    parity's narrowed on one side by little (see :func:`_narrowed`: a column beside a margin
    of captions), else over
    the pages of its parity (over all pages where one page alone is of that parity), widened
    by the page's own where it has a few (a page set wider keeps its text in the body). A
    range is measured over two pages at least: on a paper of one page a table's label column
    looks like a margin; nothing there is told margin material."""
    own: dict[int, list[Range]] = {}
    by_parity: dict[int, list[Range]] = {0: [], 1: []}
    counted: dict[int, int] = {0: 0, 1: 0}
    for page in pages:
        if frames[page.index].u != LEFT_TO_RIGHT:
            continue
        edges = [
            extent
            for block in page.blocks
            for line in block.lines
            if axis(line.direction) == LEFT_TO_RIGHT
            and (extent := line_extent(line, body_size)) is not None
        ]
        own[page.index] = edges
        by_parity[page.index % 2].extend(edges)
        counted[page.index % 2] += bool(edges)
    if sum(counted.values()) < 2:
        return {}
    every = _measure(by_parity[0] + by_parity[1], PARITY_LINES)
    parity = {
        k: _measure(v, PARITY_LINES) if counted[k] >= 2 else every for k, v in by_parity.items()
    }
    found: dict[int, Range] = {}
    for index, edges in own.items():
        measured = _measure(edges, PARITY_LINES)
        usual = parity[index % 2]
        if measured is not None and (usual is None or _narrowed(measured, usual, body_size)):
            found[index] = measured  # a page of running text is its own measure
            continue
        ranges = [r for r in (usual, _measure(edges, PAGE_LINES)) if r is not None]
        if ranges:
            found[index] = (min(r[0] for r in ranges), max(r[1] for r in ranges))
    return found
