"""The rows of a listing that numbers its lines (an algorithm, a code float: its numbers
told by ``regions.line_numbers.listing_numbers`` and kept as printed): each row beside a
number is a numbered line, the rows between them are the listing's too (a numbered line's
wrapped rest, a label line)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from translation.read.layout import Frame, Rect
from translation.read.rows.row import Row


def _area(numbers: Sequence[Rect]) -> Rect:
    """The part of the page a listing's rows lie in: right of its numbers (a line of prose
    between two stretches of a listing starts under the numbers, not right of them: "First
    reset the parameters to their default values:"), from its first number's top to a line
    below its last one (the last numbered line's wrapped rest)."""
    steps = [b[1] - a[1] for a, b in zip(numbers, numbers[1:], strict=False)]
    step = statistics.median(steps) if steps else numbers[-1][3] - numbers[-1][1]
    right = max(r[2] for r in numbers) - _NUMBER_SLACK
    return (right, numbers[0][1], float("inf"), numbers[-1][3] + step)


#: Points: a listing's line starts right of its numbers' right edge, this much kept over.
_NUMBER_SLACK = 1.0


def mark_listing_rows(
    rows: Sequence[Row], listings: Sequence[Sequence[Rect]], frame: Frame
) -> None:
    """Give the body rows of each listing of ``listings`` (its numbers' page boxes, from the
    top) its number (``Row.listing``, from 1), and mark the first row right of each number,
    at its height, as a numbered line (``Row.numbered``)."""
    for n, boxes in enumerate(listings, start=1):
        numbers = [frame.to_frame(box) for box in boxes]
        x0, y0, _, y1 = _area(numbers)
        inside = [
            r for r in rows if not r.region and r.x0 >= x0 and y0 <= (r.top + r.bottom) / 2 <= y1
        ]
        for row in inside:
            row.listing = n
        for number in numbers:
            middle = (number[1] + number[3]) / 2
            level = [r for r in inside if r.x0 >= number[2] and r.top <= middle <= r.bottom]
            if level:
                min(level, key=lambda r: r.x0).numbered = True
