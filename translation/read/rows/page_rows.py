"""Page rows: the visual rows of a page for finding its tables, a table row whose cells MuPDF
put in blocks of their own (Word sets each cell as one; a cell's text wrapped in a box of its
own) joined into one row again.

Joining is narrow on purpose: a row of a block is joined to the row of another block beside it
on the same baseline only when its own block may be one cell (narrow, one MuPDF line a row,
with letters), so the lines of two page columns that share a baseline grid, or a small table
beside a column of text, never become one row of cells. The other join is the body of a table
under a header row already cut into cells: rows of separate blocks (a column of multi-line
cells is one block, or a staircase of them) on one baseline, each inside its own header
column, down to the first row that crosses a column or stands a gap apart (see
``_header_joins``). Two page columns of running text have no such header above them.
Pure, in frame coordinates.
"""

from __future__ import annotations

from collections.abc import Sequence

from translation.read.layout import Rect
from translation.read.tables.table_rows import LINE_GAP, RowSpans

_NARROW = 0.3  # a block this narrow (share of the page's text width) may be one cell
_SHORT = 4  # rows of running text a wrapped cell beside a cell holds at most
_SAME_SIZE = 1.0  # points: the cells of one row share a font size about this closely
_BELOW_SLACK = 0.2  # font sizes: a row from this far above a table's foot is below it
_LEVEL = 0.7  # of the lower height: rows side by side overlap this much in height
_APART = 0.5  # points: a row reaching at most this far into a gap is not in it
_AT_HEIGHT = 0.5  # of the gap's height: a row in the gap overlaps more of it


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
    # Each row of a narrow block joins the nearest row of another block on its baseline,
    # unless text stands between them (the other page column's formula between a line of
    # this column and a piece of that formula); joins chain, so three cells in three blocks
    # make one row.
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
                or _between(row, other, flat)
            ):
                continue
            gap = _gap(_box(row), _box(other))
            if best is None or gap < best[0]:
                best = (gap, j)
        if best is not None:
            parent[_root(parent, i)] = _root(parent, best[1])
    for i, j in _header_joins(flat):
        parent[_root(parent, i)] = _root(parent, j)
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


def _header_joins(flat: Sequence[tuple[int, RowSpans]]) -> list[tuple[int, int]]:
    """Pairs of rows (indices into ``flat``) of different blocks on one baseline that are
    cells of one table row: both under a header row (one row of several MuPDF lines set
    apart by gaps, its cells), each inside a different header column (starting in it, not
    reaching the next), in the run of rows below the header that stay inside its columns
    with no gap wider than a table's row gap (rows wholly left of the header are passed
    over)."""
    pairs: list[tuple[int, int]] = []
    for _, head in flat:
        columns = _columns(head)
        if columns is None:
            continue
        size = _size(head)
        bottom = _box(head)[3]
        left = columns[0][0] - size
        # Rows beside the table (the other page column) are no part of its run.
        below = sorted(
            (
                i
                for i, (_, row) in enumerate(flat)
                if _box(row)[1] >= bottom - _BELOW_SLACK * size and _box(row)[2] > left
            ),
            key=lambda i: _box(flat[i][1])[1],
        )
        body: list[tuple[int, int]] = []  # (row index, its column)
        for i in below:
            box = _box(flat[i][1])
            if box[1] - bottom > LINE_GAP * size:
                break
            column = _column_of(box, columns, size)
            if column is None:
                break
            body.append((i, column))
            bottom = max(bottom, box[3])
        for a, (i, ci) in enumerate(body):
            for j, cj in body[a + 1 :]:
                if ci != cj and flat[i][0] != flat[j][0] and _beside(flat[i][1], flat[j][1]):
                    pairs.append((i, j))
    return pairs


def _columns(head: RowSpans) -> list[tuple[float, float]] | None:
    """The x-ranges of a header row's cells: its MuPDF lines, when there are several and each
    stands a clear gap (a font size) from the next; else None."""
    lines = head[1]
    size = _size(head)
    if len(lines) < 2 or any(b[0] - a[1] < size for a, b in zip(lines, lines[1:], strict=False)):
        return None
    return list(lines)


def _column_of(box: Rect, columns: Sequence[tuple[float, float]], size: float) -> int | None:
    """The header column a row with glyph box ``box`` lies in: it starts at or after the
    column's left edge (a font size of slack) and ends before the next column starts (the last
    column is open to the right); None for a row that crosses columns or starts left of them."""
    for c, (left, _) in enumerate(columns):
        right = columns[c + 1][0] if c + 1 < len(columns) else None
        if box[0] >= left - size and (right is None or box[2] <= right):
            if right is None or box[0] < right:
                return c
    return None


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
    return overlap > _LEVEL * height and (box_a[2] <= box_b[0] or box_b[2] <= box_a[0])


def _between(a: RowSpans, b: RowSpans, flat: Sequence[tuple[int, RowSpans]]) -> bool:
    """Whether the glyphs of another row stand in the gap between two rows side by side, at
    their height (over half the height they share): the cells of one table row are
    neighbours, with nothing set between them."""
    box_a, box_b = sorted((_box(a), _box(b)))
    left, right = box_a[2], box_b[0]
    top, bottom = max(box_a[1], box_b[1]), min(box_a[3], box_b[3])
    for _, row in flat:
        if row is a or row is b:
            continue
        box = _box(row)
        if min(right, box[2]) - max(left, box[0]) <= _APART:
            continue
        if min(bottom, box[3]) - max(top, box[1]) > _AT_HEIGHT * (bottom - top):
            return True
    return False


def _gap(a: Rect, b: Rect) -> float:
    return max(b[0] - a[2], a[0] - b[2])
