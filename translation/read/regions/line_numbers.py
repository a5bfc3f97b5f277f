"""Line-number runs: the small increasing integers a manuscript prints in its margin beside
its lines (``lineno``, review copies), told by what they are: a vertical run of integers at
one margin x, counting up down the page, outside the body column's range.

A listing's own line numbers (an algorithm or a code float numbering its lines) are the same
run inside the body's range: smaller than the text, each at the left of the line it numbers,
with no text of the page beside the run on its left (the float's own margin).

They are never sent and never join a line of text; they stay on the page as they were.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from translation.read.layout import PageLayout, Rect, axis
from translation.read.regions.body_frame import LEFT_TO_RIGHT, Range

#: (block, line, span) indices of a span in its page's layout.
SpanKey = tuple[int, int, int]

#: Numbers in a run: this many at least, each one more than the one above it by at most
#: :data:`MAX_STEP` (lines without a number between: display math, a figure).
RUN = 5
MAX_STEP = 10
#: Numbers of one run are aligned at their right or their left edge within this many points.
ALIGN = 1.5
#: A number parted from the text of its line by this share of its size stands apart.
APART = 0.5
#: The run lies outside the body's range by this share of the body size at least (a
#: contents list's section numbers, at the column's edge, count up too).
OUTSIDE = 0.3
#: Digits a line number has at most, and the size over the body's it may have.
DIGITS = 4
LARGER = 0.5
#: A listing's line number is set at this share of the size of the text it numbers at most.
SMALLER = 0.85
#: Text ending this many of its sizes before a number, at its height, runs on into it: no
#: listing's margin.
BEFORE = 1.0


@dataclass(frozen=True, slots=True)
class _Number:
    key: SpanKey
    x0: float
    x1: float
    y: float
    value: int
    size: float


def _candidates(page: PageLayout, body_size: float) -> list[_Number]:
    """Spans that hold a lone integer: a line's first or last visible span, parted from the
    rest of its line (or the whole line)."""
    found = []
    for b, block in enumerate(page.blocks):
        for n, line in enumerate(block.lines):
            if axis(line.direction) != LEFT_TO_RIGHT:
                continue
            visible = [(k, s) for k, s in enumerate(line.spans) if s.text.strip()]
            for place in {0, len(visible) - 1} if visible else ():
                k, span = visible[place]
                text = span.text.strip()
                if not (text.isdigit() and len(text) <= DIGITS):
                    continue
                if span.size > body_size + LARGER:
                    continue
                if len(visible) > 1:
                    neighbour = visible[1] if place == 0 else visible[place - 1]
                    gap = (
                        neighbour[1].bbox[0] - span.bbox[2]
                        if place == 0
                        else span.bbox[0] - neighbour[1].bbox[2]
                    )
                    if gap < APART * span.size:
                        continue
                y = (span.bbox[1] + span.bbox[3]) / 2
                found.append(
                    _Number((b, n, k), span.bbox[0], span.bbox[2], y, int(text), span.size)
                )
    return found


def _aligned(numbers: Sequence[_Number], edge: int) -> list[list[_Number]]:
    """The numbers grouped by one edge (0: left, 1: right) lying within :data:`ALIGN`."""
    ordered = sorted(numbers, key=lambda n: (n.x0, n.x1)[edge])
    groups: list[list[_Number]] = []
    for number in ordered:
        x = (number.x0, number.x1)[edge]
        if groups and x - (groups[-1][-1].x0, groups[-1][-1].x1)[edge] <= ALIGN:
            groups[-1].append(number)
        else:
            groups.append([number])
    return groups


def _runs(group: Sequence[_Number]) -> list[list[_Number]]:
    """The runs of a group read down the page: each number above the next by 1 to
    :data:`MAX_STEP`; runs of :data:`RUN` or more."""
    runs: list[list[_Number]] = []
    current: list[_Number] = []
    for number in sorted(group, key=lambda n: n.y):
        if current and 1 <= number.value - current[-1].value <= MAX_STEP:
            current.append(number)
        else:
            if len(current) >= RUN:
                runs.append(current)
            current = [number]
    if len(current) >= RUN:
        runs.append(current)
    return runs


def _in_margin(run: Sequence[_Number], body: Range | None, body_size: float) -> bool:
    if body is None:
        return False
    out = OUTSIDE * body_size
    return max(n.x1 for n in run) <= body[0] - out or min(n.x0 for n in run) >= body[1] + out


#: Points: the height of the bands :class:`_TextBands` files the page's texts in.
BAND = 8.0


class _TextBands:
    """The visible spans of a page that are not its number candidates (box and size),
    filed by the bands of :data:`BAND` points their boxes cover, so that the texts at a
    number's height are found without reading the whole page for each number."""

    def __init__(self, page: PageLayout, numbers: set[SpanKey]) -> None:
        self.bands: dict[int, list[tuple[Rect, float]]] = {}
        for b, block in enumerate(page.blocks):
            for n, line in enumerate(block.lines):
                for k, span in enumerate(line.spans):
                    if not span.text.strip() or (b, n, k) in numbers:
                        continue
                    box = span.bbox
                    for band in range(int(box[1] // BAND), int(box[3] // BAND) + 1):
                        self.bands.setdefault(band, []).append((box, span.size))

    def at(self, y: float) -> list[tuple[Rect, float]]:
        """The texts whose boxes reach across height ``y``."""
        return [
            (box, size) for box, size in self.bands.get(int(y // BAND), ()) if box[1] < y < box[3]
        ]


def _numbers_lines(run: Sequence[_Number], texts: _TextBands) -> bool:
    """``run`` is a listing's numbering: the first text on the right of each number, apart
    from it, is bigger than it (the line it numbers, at any indent), and no text ends just
    before it on its left."""
    for number in run:
        level = texts.at(number.y)
        right = [(box[0], size) for box, size in level if box[0] >= number.x1 + APART * number.size]
        if not right or number.size > SMALLER * min(right)[1]:
            return False
        if any(number.x0 - BEFORE * size < box[2] <= number.x0 for box, size in level):
            return False
    return True


def line_number_spans(page: PageLayout, body: Range | None, body_size: float) -> set[SpanKey]:
    """The spans of ``page`` that are its margin's line numbers (see the module docstring);
    ``body`` is the body column's range (None: unknown, no line number is told)."""
    numbers = _candidates(page, body_size)
    found: set[SpanKey] = set()
    for edge in (0, 1):
        for group in _aligned(numbers, edge):
            for run in _runs(group):
                if _in_margin(run, body, body_size):
                    found.update(n.key for n in run)
    return found


def listing_numbers(
    page: PageLayout, body_size: float, taken: Collection[SpanKey] = ()
) -> list[tuple[SpanKey, ...]]:
    """The line-number runs of ``page``'s listings (see the module docstring), each its
    numbers' spans from the top, none of them in ``taken`` (the margin's line numbers); the
    runs of a listing told by both edges of its numbers are one."""
    numbers = [n for n in _candidates(page, body_size) if n.key not in taken]
    texts = _TextBands(page, {n.key for n in numbers})
    runs: list[set[SpanKey]] = []
    for edge in (0, 1):
        for group in _aligned(numbers, edge):
            for run in _runs(group):
                if not _numbers_lines(run, texts):
                    continue
                keys = {n.key for n in run}
                joined = [r for r in runs if r & keys]
                for r in joined:
                    keys |= r
                    runs.remove(r)
                runs.append(keys)
    at = {n.key: n.y for n in numbers}
    return sorted((tuple(sorted(r, key=lambda k: at[k])) for r in runs), key=lambda run: at[run[0]])
