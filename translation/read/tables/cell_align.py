"""Cell alignment: which table cells are set flush right or flush left, so a translation keeps
its column's alignment (a label column on the left, a column of counts right-aligned, a header
centred over its numbers).

A cell is right-aligned when the cells above and below it in its column (numbers included)
end where it ends more often than they start where it starts; left-aligned the other way
round. A cell centred over a group of columns of numbers it spans stays centred. Pure, in frame
coordinates.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from translation.read.layout import Rect

_EDGE = 1.0  # points: edges this close line up
_REACH = 12.0  # font sizes: how far up and down a column's other cells are looked for


def right_aligned(
    cells: Sequence[tuple[Rect, float]], stacks: Sequence[Hashable | None] = ()
) -> list[bool | None]:
    """For each cell line (its glyph box, its font size), whether its column is set flush
    right (True), flush left (False) or neither (None: centred, or alone): at least two other
    lines overlapping it in x within _REACH sizes share that edge with it, more than the other.

    ``stacks`` gives the lines of one multi-line cell a common key (None for a line alone).
    Lines of one cell are no witnesses for each other. A line with more of its cell below it
    ends where the cell wrapped, whichever way the column is set: it is no witness for a right
    edge, and any line ending at that edge is judged by lines that do not (a left-set list
    item that fills its line, beside wrapped items, looked flush right), a one-line cell by
    the others where those say nothing. A multi-line cell is judged by its last line, and all
    its lines get that judgement."""
    keys = list(stacks) or [None] * len(cells)
    last: dict[Hashable, int] = {}
    for i, key in enumerate(keys):
        if key is not None and (key not in last or cells[i][0][3] > cells[last[key]][0][3]):
            last[key] = i
    wrapped = [key is not None and last[key] != i for i, key in enumerate(keys)]
    near = [
        [j for j in _neighbours(cells, i) if keys[i] is None or keys[j] != keys[i]]
        for i in range(len(cells))
    ]
    at_wrap = [
        wrapped[i] or any(wrapped[j] and abs(cells[j][0][2] - box[2]) < _EDGE for j in near[i])
        for i, (box, _) in enumerate(cells)
    ]
    alone: list[bool | None] = []
    for i, (box, _) in enumerate(cells):
        ends = [not wrapped[j] and abs(cells[j][0][2] - box[2]) < _EDGE for j in near[i]]
        starts = [abs(cells[j][0][0] - box[0]) < _EDGE for j in near[i]]
        judges = [not (at_wrap[i] and at_wrap[j]) for j in near[i]]
        verdict = _verdict(
            sum(e and k for e, k in zip(ends, judges, strict=True)),
            sum(s and k for s, k in zip(starts, judges, strict=True)),
        )
        if verdict is None and at_wrap[i] and keys[i] is None:
            # A one-line cell with nothing but lines at the wrap edge to judge it by: those
            # lines again (a right-set column with one wrapped cell in it).
            verdict = _verdict(sum(ends), sum(starts))
        alone.append(verdict)
    return [alone[i] if key is None else alone[last[key]] for i, key in enumerate(keys)]


def _verdict(right: int, left: int) -> bool | None:
    """Flush right, flush left or neither, from the lines sharing each edge."""
    return True if right >= 2 and right > left else False if left >= 2 and left > right else None


def _neighbours(cells: Sequence[tuple[Rect, float]], i: int) -> list[int]:
    """The other lines of ``cells`` overlapping line ``i`` in x, on other baselines within
    _REACH of its font sizes."""
    box, size = cells[i]
    return [
        j
        for j, (other, _) in enumerate(cells)
        if j != i
        and abs(other[1] - box[1]) <= _REACH * size
        and other[1] != box[1]
        and min(other[2], box[2]) > max(other[0], box[0])
    ]


_AXIS = 0.4  # font sizes: how near a spanning cell's centre lies to its columns' centre
_INSET = 1.0  # font sizes: how far inside its columns' edges a centred cell keeps
_SPREAD = 0.5  # font sizes: lines whose left edges spread further are centred, not flush


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


def centred_lines(boxes: Sequence[Rect], size: float) -> bool:
    """Whether the lines of one multi-line cell (their glyph boxes, top to bottom) are set on
    a common axis: their left edges differ by half a size or more and their centres agree,
    within _AXIS sizes, better than either their left or their right edges ("Self-" over
    "BLEU", a header centred over its numbers; not a list item's lines hung under its text
    and ending ragged, whose centres may come near by chance)."""
    if len(boxes) < 2:
        return False

    def spread(values: list[float]) -> float:
        return max(values) - min(values)

    lefts = spread([b[0] for b in boxes])
    rights = spread([b[2] for b in boxes])
    axes = spread([(b[0] + b[2]) / 2 for b in boxes])
    return lefts >= _SPREAD * size and axes < min(lefts, rights, _AXIS * size)
