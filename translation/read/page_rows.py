"""Page rows: the visual rows of a page for finding its tables, a table row whose cells MuPDF
put in blocks of their own (Word sets each cell as one; a cell's text wrapped in a box of its
own) joined into one row again.

Joining is narrow on purpose: a row of a block is joined to the row of another block beside it
on the same baseline only when its own block may be one cell (narrow, one MuPDF line a row,
with letters), so the lines of two page columns that share a baseline grid, or a small table
beside a column of text, never become one row of cells.
Pure, in frame coordinates.
"""

from __future__ import annotations

from collections.abc import Sequence

from translation.read.layout import Rect
from translation.read.table_rows import RowSpans

_NARROW = 0.3  # a block this narrow (share of the page's text width) may be one cell
_SHORT = 4  # rows of running text a wrapped cell beside a cell holds at most
_SAME_SIZE = 1.0  # points: the cells of one row share a font size about this closely


def page_rows(blocks: Sequence[Sequence[RowSpans]]) -> list[RowSpans]:
    """The rows of every block (each block's visual rows), those of narrow blocks joined to
    the row of another block that stands beside them on the same baseline (the nearest one);
    the rest as they are."""
    boxes = [_block_box(rows) for rows in blocks]
    found = [b for b in boxes if b is not None]
    if not found:
        return []
    page_width = max(b[2] for b in found) - min(b[0] for b in found)
    narrow = [
        b is not None and b[2] - b[0] <= _NARROW * page_width and _one_cell(rows)
        for b, rows in zip(boxes, blocks, strict=True)
    ]
    # A block of cells: one cell, or rows already of several cells.
    cells = [
        n or any(len(lines) > 1 for _, lines in rows)
        for n, rows in zip(narrow, blocks, strict=True)
    ]
    flat = [(k, row) for k, rows in enumerate(blocks) for row in rows if row[0]]
    # Each row of a narrow block joins the nearest row of another block on its baseline;
    # joins chain, so three cells in three blocks make one row.
    parent = list(range(len(flat)))
    for i, (k, row) in enumerate(flat):
        if not narrow[k]:
            continue
        best: tuple[float, int] | None = None
        for j, (m, other) in enumerate(flat):
            if (
                m == k
                or not _beside(row, other)
                or not (cells[m] or _abreast(blocks[k], blocks[m]))
            ):
                continue
            gap = _gap(_box(row), _box(other))
            if best is None or gap < best[0]:
                best = (gap, j)
        if best is not None:
            parent[_root(parent, i)] = _root(parent, best[1])
    groups: dict[int, list[int]] = {}
    for i in range(len(flat)):
        groups.setdefault(_root(parent, i), []).append(i)
    result: list[RowSpans] = []
    for members in groups.values():
        spans = sorted(
            (item for i in members for item in flat[i][1][0]), key=lambda item: item[0][0]
        )
        lines = tuple(sorted(line for i in members for line in flat[i][1][1]))
        result.append((spans, lines))
    return result


def _root(parent: list[int], i: int) -> int:
    while parent[i] != i:
        i = parent[i]
    return i


def _abreast(cell: Sequence[RowSpans], other: Sequence[RowSpans]) -> bool:
    """Whether a short block of running text (a cell's text wrapped in it) starts on the
    baseline ``cell`` starts on: the cells of one row start together; a column of text is
    longer."""
    own = [row for row in cell if row[0]]
    first = [row for row in other if row[0]]
    return bool(own) and 0 < len(first) <= _SHORT and _beside(own[0], first[0])


def _one_cell(rows: Sequence[RowSpans]) -> bool:
    """Whether a block may be one cell: each row one MuPDF line (a block whose rows hold
    several is a table of its own, or a paragraph beside its formula numbers) with letters
    (a column of line numbers in the margin is no cell)."""
    return all(len(lines) <= 1 for _, lines in rows) and any(
        any(c.isalpha() for _, s in spans for c in s.text) for spans, _ in rows
    )


def _block_box(rows: Sequence[RowSpans]) -> Rect | None:
    boxes = [_box(row) for row in rows if row[0]]
    if not boxes:
        return None
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _box(row: RowSpans) -> Rect:
    spans = row[0]
    return (
        min(b[0] for b, _ in spans),
        min(b[1] for b, _ in spans),
        max(b[2] for b, _ in spans),
        max(b[3] for b, _ in spans),
    )


def _size(row: RowSpans) -> float:
    return max(s.size for _, s in row[0])


def _beside(a: RowSpans, b: RowSpans) -> bool:
    """Whether two rows stand side by side on one baseline: boxes overlapping most of the
    lower one's height, apart in x, of one font size."""
    box_a, box_b = _box(a), _box(b)
    if abs(_size(a) - _size(b)) > _SAME_SIZE:
        return False
    overlap = min(box_a[3], box_b[3]) - max(box_a[1], box_b[1])
    height = min(box_a[3] - box_a[1], box_b[3] - box_b[1])
    return overlap > 0.7 * height and (box_a[2] <= box_b[0] or box_b[2] <= box_a[0])


def _gap(a: Rect, b: Rect) -> float:
    return max(b[0] - a[2], a[0] - b[2])
