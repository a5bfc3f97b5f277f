"""Each page cut into its regions before any row is made: the body's blocks, the margin's
blocks (labels, side notes, margin columns: read on their own), and what is kept as it is
(line numbers taken out of every block; running heads, footers and page numbers, whose rows
the rows stage marks as not read), each with the reason it is kept.

Pure: page layouts in, regions out; the later stages read the body and the margin apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from translation.read.layout import Block, Frame, Line, PageLayout, Rect, union
from translation.read.regions.body_frame import body_ranges
from translation.read.regions.furniture import furniture
from translation.read.regions.line_numbers import SpanKey, line_number_spans, listing_numbers
from translation.read.regions.margins import margin_spans

LINE_NUMBER = "line number"


@dataclass(frozen=True, slots=True)
class Kept:
    """Text of a page left as it stands, and why: its page, box (page space), text and
    reason (``line number``, ``running head``, ``page number``, ``figure text``, ...)."""

    page: int
    rect: Rect
    text: str
    reason: str


@dataclass(frozen=True, slots=True)
class PageRegions:
    """One page's regions: ``body`` the blocks of its body (line numbers and margin material
    taken out), ``margin`` the blocks of its margin material (one a line's run of margin
    spans, in the order read), ``kept`` its line numbers and furniture (furniture lines stay
    in ``body``: the rows stage marks their rows), ``listings`` the boxes of each listing's
    line numbers from the top (kept too; the lines they number are each a unit)."""

    body: tuple[Block, ...]
    margin: tuple[Block, ...] = ()
    kept: tuple[Kept, ...] = ()
    listings: tuple[tuple[Rect, ...], ...] = ()


def _line_of(line: Line, keep: Sequence[int]) -> Line | None:
    spans = tuple(line.spans[k] for k in keep)
    if not any(s.text.strip() for s in spans):
        return None
    return Line(spans, union(s.bbox for s in spans), line.direction)


def _split(page: PageLayout, numbers: set[SpanKey], margin: set[SpanKey]) -> PageRegions:
    body: list[Block] = []
    aside: list[Line] = []
    kept: list[Kept] = []
    for b, block in enumerate(page.blocks):
        lines: list[Line] = []
        for n, line in enumerate(block.lines):
            ks = range(len(line.spans))
            for k in ks:
                if (b, n, k) in numbers:
                    span = line.spans[k]
                    kept.append(Kept(page.index, span.bbox, span.text.strip(), LINE_NUMBER))
            outside = [k for k in ks if (b, n, k) in margin]
            inside = [k for k in ks if (b, n, k) not in margin and (b, n, k) not in numbers]
            if len(inside) == len(line.spans):
                lines.append(line)
                continue
            if (kept_line := _line_of(line, inside)) is not None:
                lines.append(kept_line)
            # The runs at the line's start and at its end are two things (two margins).
            for run in _runs(outside):
                if (piece := _line_of(line, run)) is not None:
                    aside.append(piece)
        if lines:
            body.append(Block(tuple(lines), union(ln.bbox for ln in lines)))
    return PageRegions(tuple(body), _gathered(aside), tuple(kept))


#: Lines of margin material are one block when they stand this many of their sizes apart at
#: most: above one another (their boxes may overlap by half a size), or on one baseline (a
#: note's words set wide apart).
GATHER_BELOW = 1.0
#: Two lines stand on one baseline when their boxes share this much of the line's height.
LEVEL_OVERLAP = 0.5
#: A line below another may overlap it by this many of its sizes (tight leading).
OVERLAP_BELOW = 0.5
GATHER_BESIDE = 3.0


def _near(line: Line, block: list[Line]) -> bool:
    size = max(s.size for s in line.spans)
    x0, y0, x1, y1 = line.bbox
    for other in block:
        a0, b0, a1, b1 = other.bbox
        level = min(y1, b1) - max(y0, b0) > LEVEL_OVERLAP * (y1 - y0)
        if level and max(a0 - x1, x0 - a1) <= GATHER_BESIDE * size:
            return True
        if min(x1, a1) > max(x0, a0) and -OVERLAP_BELOW * size <= y0 - b1 <= GATHER_BELOW * size:
            return True
    return False


def _gathered(lines: Sequence[Line]) -> tuple[Block, ...]:
    """The margin's lines as blocks: the lines of one note, label or caption together (so
    that its rows are made as a block's are), each apart from the others."""
    blocks: list[list[Line]] = []
    for line in sorted(lines, key=lambda ln: (ln.bbox[1], ln.bbox[0])):
        block = next((b for b in reversed(blocks) if _near(line, b)), None)
        if block is None:
            blocks.append([line])
        else:
            block.append(line)
    return tuple(Block(tuple(b), union(ln.bbox for ln in b)) for b in blocks)


def _runs(indices: Sequence[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for k in indices:
        if runs and k == runs[-1][-1] + 1:
            runs[-1].append(k)
        else:
            runs.append([k])
    return runs


#: Margin material holds at most this share of a page's characters: more is a column of the
#: page the body's range missed (a column of another size), read as body.
MARGIN_SHARE = 0.2


def _bounded(page: PageLayout, margin: set[SpanKey]) -> set[SpanKey]:
    """``margin``, or nothing where it holds more than :data:`MARGIN_SHARE` of the page."""
    spans = [
        ((b, n, k), len(s.text.strip()))
        for b, block in enumerate(page.blocks)
        for n, line in enumerate(block.lines)
        for k, s in enumerate(line.spans)
    ]
    total = sum(count for _, count in spans)
    held = sum(count for key, count in spans if key in margin)
    return margin if held <= MARGIN_SHARE * total else set()


def page_regions(
    pages: Sequence[PageLayout], frames: Mapping[int, Frame], body_size: float
) -> dict[int, PageRegions]:
    """Per page index, its regions (see :class:`PageRegions`): the body's range measured over
    the document, line-number runs and margin material told against it, running heads,
    footers and page numbers told across pages."""
    ranges = body_ranges(pages, frames, body_size)
    heads = furniture(pages, frames)
    found: dict[int, PageRegions] = {}
    for page in pages:
        body = ranges.get(page.index)
        numbers = line_number_spans(page, body, body_size)
        listings = listing_numbers(page, body_size, numbers)
        numbers = numbers.union(*listings)
        furnished = heads.get(page.index, {})
        taken = numbers | {
            (b, n, k) for (b, n) in furnished for k in range(len(page.blocks[b].lines[n].spans))
        }
        margin = _bounded(page, margin_spans(page, body, body_size, taken) - taken)
        split = _split(page, numbers, margin)
        furniture_kept = tuple(
            Kept(
                page.index,
                page.blocks[b].lines[n].bbox,
                "".join(s.text for s in page.blocks[b].lines[n].spans).strip(),
                reason,
            )
            for (b, n), reason in furnished.items()
        )
        boxes = tuple(
            tuple(page.blocks[b].lines[n].spans[k].bbox for b, n, k in run) for run in listings
        )
        found[page.index] = PageRegions(
            split.body, split.margin, split.kept + furniture_kept, boxes
        )
    return found
