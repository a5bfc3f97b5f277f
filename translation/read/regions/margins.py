"""Margin material: text set outside the body column's measured range, read on its own.

A margin label (a command's name beside its description), a side note (a ``todo`` box, a
``marginpar``) and a margin column (captions and small tables set beside the text) are each
a run of spans at a line's start or end lying wholly outside the body's range, parted from
the line's body text, holding letters. They become their own requests, set where they stand:
never spliced into the body line they sit beside, never cutting the body paragraph.
"""

from __future__ import annotations

from collections.abc import Sequence

from translation.read.layout import Line, PageLayout, Rect, Span, axis, union
from translation.read.regions.body_frame import LEFT_TO_RIGHT, Range
from translation.read.regions.line_numbers import SpanKey

#: How far outside the body's range (in body sizes) margin material lies at least.
OUTSIDE = 0.3
#: The gap (in body sizes) that parts margin material from the body text of its line.
APART = 1.0
#: Letters margin material holds at least (a hung bullet or section number has none) ...
LETTERS = 2
#: ... or, at a line's end, where no number hangs, this many letters and digits with one
#: letter among them (a side note's version, "v0.5"; an equation's bare "(3)" has none).
END_CHARACTERS = 3
#: Margin material is set no larger than the body by more than this many points (a title
#: or a heading may hang into the margin).
LARGER = 0.5
#: A line within this many body sizes above or below margin material that starts in its
#: margin and reaches into the body makes it part of something set wider than the column.
NEIGHBOUR = 1.5
#: A rule reaching this far into the body (in body sizes) from under margin material makes
#: it part of something set wider than the column (a table, a figure): not margin material.
RULE_REACH = 2.0
#: A table's top and bottom rules stand this many body sizes apart at most.
RULE_SPAN = 30.0


def _outside(spans: Sequence[tuple[int, Span]], body: Range, size: float, left: bool) -> int:
    """How many spans from the line's start (``left``) or end lie wholly outside ``body``."""
    count = 0
    ordered = spans if left else list(reversed(spans))
    for _, span in ordered:
        if left and span.bbox[2] <= body[0] - OUTSIDE * size:
            count += 1
        elif not left and span.bbox[0] >= body[1] + OUTSIDE * size:
            count += 1
        else:
            break
    return count


def _part_of_wider(box: Rect, lines: Sequence[Rect], body: Range, size: float) -> bool:
    """Whether a line just above or below ``box`` starts in the same margin and reaches into
    the body: ``box`` is a short line of something set wider than the column (a code
    listing, a heading's second line), no margin material."""
    out, reach = OUTSIDE * size, size
    left = box[2] <= body[0]
    for other in lines:
        if max(other[1] - box[3], box[1] - other[3]) > NEIGHBOUR * size:
            continue
        if left and other[0] < body[0] - out and other[2] > body[0] + reach:
            return True
        if not left and other[2] > body[1] + out and other[0] < body[1] - reach:
            return True
    return False


def _wider_than_body(box: Rect, rules: Sequence[Rect], body: Range, size: float) -> bool:
    """Whether ``box`` lies inside something set wider than the column: between two
    horizontal rules (a table's top and bottom, :data:`RULE_SPAN` body sizes apart at most)
    that run from over and under it well into the body, or just under or over one; its
    cells outside the body are no margin material (a caption in a margin column beside a
    table ruled across both stays with the table; a rule across the whole page's head
    makes no table of what is far below it)."""
    reach = RULE_REACH * size
    heights = [
        (y0 + y1) / 2
        for x0, y0, x1, y1 in rules
        if y1 - y0 <= x1 - x0
        and x0 <= box[2]
        and x1 >= box[0]
        and x1 >= body[0] + reach
        and x0 <= body[1] - reach
    ]
    above = [y for y in heights if y <= box[1] + size]
    below = [y for y in heights if y >= box[3] - size]
    if any(box[1] - y <= size for y in above) or any(y - box[3] <= size for y in below):
        return True
    return bool(above and below and min(below) - max(above) <= RULE_SPAN * size)


def _inside(box: Rect, areas: Sequence[Rect]) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return any(x0 <= cx <= x1 and y0 <= cy <= y1 for x0, y0, x1, y1 in areas)


def _worded(run: Sequence[tuple[int, Span]], left: bool) -> bool:
    """Whether a run outside the body holds words enough for margin material (see
    :data:`LETTERS` and :data:`END_CHARACTERS`)."""
    text = "".join(s.text for _, s in run)
    letters = sum(c.isalpha() for c in text)
    if letters >= LETTERS:
        return True
    return not left and letters >= 1 and sum(c.isalnum() for c in text) >= END_CHARACTERS


def _margin_part(line: Line, body: Range, size: float, skip: set[int]) -> list[tuple[int, ...]]:
    """The span indices of ``line`` that are margin material, as runs (at its start, at its
    end); ``skip``: spans already told (line numbers), left out of every run."""
    visible = [(k, s) for k, s in enumerate(line.spans) if s.text.strip() and k not in skip]
    parts: list[tuple[int, ...]] = []
    for left in (True, False):
        count = _outside(visible, body, size, left)
        if not count:
            continue
        run = visible[:count] if left else visible[len(visible) - count :]
        rest = visible[count:] if left else visible[: len(visible) - count]
        if not _worded(run, left):
            continue
        if max(s.size for _, s in run) > size + LARGER:
            continue
        if rest:
            gap = (
                rest[0][1].bbox[0] - run[-1][1].bbox[2]
                if left
                else run[0][1].bbox[0] - rest[-1][1].bbox[2]
            )
            if gap < APART * size:
                continue
        parts.append(tuple(range(run[0][0], run[-1][0] + 1)))  # the spaces between too
    return parts


def margin_spans(
    page: PageLayout, body: Range | None, body_size: float, taken: set[SpanKey]
) -> set[SpanKey]:
    """The spans of ``page`` that are margin material (see the module docstring); ``body``
    is the body column's range (None: unknown, nothing is), ``taken`` the spans already told
    (line numbers)."""
    if body is None:
        return set()
    found: set[SpanKey] = set()
    boxes = {(b, n): ln.bbox for b, blk in enumerate(page.blocks) for n, ln in enumerate(blk.lines)}
    for b, block in enumerate(page.blocks):
        for n, line in enumerate(block.lines):
            if axis(line.direction) != LEFT_TO_RIGHT:
                continue
            skip = {k for (bb, nn, k) in taken if (bb, nn) == (b, n)}
            for run in _margin_part(line, body, body_size, skip):
                box = union(line.spans[k].bbox for k in run)
                others = [r for k, r in boxes.items() if k != (b, n)]
                if (
                    _inside(box, page.figures)
                    or _wider_than_body(box, page.rules, body, body_size)
                    or _part_of_wider(box, others, body, body_size)
                ):
                    continue
                found.update((b, n, k) for k in run)
    return found
