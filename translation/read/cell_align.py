"""Cell alignment: which table cells are set flush right or flush left, so a translation keeps
its column's alignment (a label column on the left, a column of counts right-aligned, a header
centred over its numbers).

A cell is right-aligned when the cells above and below it in its column (numbers included)
end where it ends more often than they start where it starts; left-aligned the other way
round. Pure, in frame coordinates.
"""

from __future__ import annotations

from collections.abc import Sequence

from translation.read.layout import Rect

_EDGE = 1.0  # points: edges this close line up
_REACH = 12.0  # font sizes: how far up and down a column's other cells are looked for


def right_aligned(cells: Sequence[tuple[Rect, float]]) -> list[bool | None]:
    """For each cell (its glyph box, its font size), whether its column is set flush right
    (True), flush left (False) or neither (None: centred, or alone): at least two other cells
    overlapping it in x within _REACH sizes share that edge with it, more than the other."""
    result: list[bool | None] = []
    for i, (box, size) in enumerate(cells):
        right = left = 0
        for j, (other, _) in enumerate(cells):
            if j == i or abs(other[1] - box[1]) > _REACH * size or other[1] == box[1]:
                continue
            if min(other[2], box[2]) <= max(other[0], box[0]):
                continue
            right += abs(other[2] - box[2]) < _EDGE
            left += abs(other[0] - box[0]) < _EDGE
        result.append(
            True if right >= 2 and right > left else False if left >= 2 and left > right else None
        )
    return result
