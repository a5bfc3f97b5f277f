"""Cell alignment: which table cells are set flush right or flush left, so a translation keeps
its column's alignment (a label column on the left, a column of counts right-aligned, a header
centred over its numbers).

A cell is right-aligned when the cells above and below it in its column (numbers included)
end where it ends more often than they start where it starts; left-aligned the other way
round. A cell centred over a group of columns of numbers it spans stays centred. Pure, in frame
coordinates.
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


_AXIS = 0.4  # font sizes: how near a spanning cell's centre lies to its columns' centre
_INSET = 1.0  # font sizes: how far inside its columns' edges a centred cell keeps


def centred_over(box: Rect, size: float, columns: Sequence[tuple[float, float]]) -> bool:
    """Whether a cell (glyph box ``box``, font size ``size``) is centred over a run of two or
    more of a table's ``columns`` of numbers (x-ranges, sorted) that it spans: it stands over two
    of them at least, its centre within _AXIS sizes of the run's centre, both its edges at least
    _INSET sizes inside the run's (a header over a group of columns, "Dataset: QQP 50K" over six
    columns of scores; not a wrapped header over one column that happens to lie mid-run)."""
    middle = (box[0] + box[2]) / 2
    over = sum(min(c[1], box[2]) > max(c[0], box[0]) for c in columns)
    if over < 2:
        return False
    for i, first in enumerate(columns):
        for last in columns[i + 1 :]:
            axis = (first[0] + last[1]) / 2
            if (
                abs(middle - axis) <= _AXIS * size
                and box[0] - first[0] >= _INSET * size
                and last[1] - box[2] >= _INSET * size
            ):
                return True
    return False
