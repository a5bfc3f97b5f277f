"""Cell alignment: which table cells are set flush right, so a translation keeps its column's
alignment (a label column on the left, a column of counts and names right-aligned).

A cell is right-aligned when the cells above and below it in its column (numbers included)
end where it ends and do not start where it starts. Pure, in frame coordinates.
"""

from __future__ import annotations

from collections.abc import Sequence

from translation.read.layout import Rect

_EDGE = 1.0  # points: edges this close line up
_REACH = 12.0  # font sizes: how far up and down a column's other cells are looked for


def right_aligned(cells: Sequence[tuple[Rect, float]]) -> list[bool]:
    """For each cell (its glyph box, its font size), whether its column is set flush right:
    at least two other cells overlapping it in x within _REACH sizes end at its right edge,
    and more of them end there than start at its left edge."""
    result = []
    for i, (box, size) in enumerate(cells):
        right = left = 0
        for j, (other, _) in enumerate(cells):
            if j == i or abs(other[1] - box[1]) > _REACH * size or other[1] == box[1]:
                continue
            if min(other[2], box[2]) <= max(other[0], box[0]):
                continue
            right += abs(other[2] - box[2]) < _EDGE
            left += abs(other[0] - box[0]) < _EDGE
        result.append(right >= 2 and right > left)
    return result
