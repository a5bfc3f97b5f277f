"""A table's cells on a page's rows: the lines of one ruled cell read as one (a common
``stack``), and each cell's room, the area its translation may take, grown down over the free
space below it up to the rules around it, and whether the cell is set flush right."""

from __future__ import annotations

from collections.abc import Sequence

from translation.read.layout import Rect
from translation.read.rows.row import Row
from translation.read.tables.cell_align import right_aligned
from translation.read.tables.cell_rules import clear_room, ruled_cells, ruled_room
from translation.read.tables.detect import cell_rooms


def stack_ruled_cells(rows: list[Row], rules: Sequence[Rect]) -> None:
    """Give the lines of one ruled table cell a common ``stack`` (see cell_rules.ruled_cells),
    merging the stacks they had."""
    cells = [r for r in rows if r.cell]
    firsts = ruled_cells([(r.bbox, r.size, r.bold, r.text) for r in cells], rules)
    keys = {f: cells[f].stack or (cells[f].x0, cells[f].baseline) for f in firsts if f is not None}
    for row, first in zip(cells, firsts, strict=True):
        if first is None:
            continue
        old, new = row.stack, keys[first]
        if old is not None and old != new:
            for other in rows:
                if other.stack == old:
                    other.stack = new
        row.stack = new


def grow_cells(rows: list[Row], rules: Sequence[Rect]) -> None:
    """Let each cell's room reach down over the free space below it, up to the ruling lines
    around it (``rules``, frame coordinates)."""
    cells = [r for r in rows if r.room is not None]
    rooms = [(r.room, r.size) for r in cells if r.room is not None]
    bottoms = cell_rooms(rooms, [r.bbox for r in rows])
    others = [r.bbox for r in rows]
    for cell, (room, _), bottom in zip(cells, rooms, bottoms, strict=True):
        grown = (room[0], room[1], room[2], bottom)
        ruled = ruled_room(grown, cell.bbox, cell.size, rules, others) if rules else grown
        cell.room = clear_room(ruled, cell.bbox, others)
    flush = right_aligned([(r.bbox, r.size) for r in cells], [r.stack for r in cells])
    for cell, right in zip(cells, flush, strict=True):
        cell.flush_right = right
