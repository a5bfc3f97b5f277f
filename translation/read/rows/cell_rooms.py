"""A table's cells on a page's rows: the lines of one ruled cell read as one (a common
``stack``), and each cell's room, the area its translation may take, grown down over the free
space below it up to the rules around it, and whether the cell is set flush right."""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from translation.read.layout import Rect
from translation.read.measures import DEFAULT_LEADING
from translation.read.rows.row import Row
from translation.read.tables.cell_align import right_aligned
from translation.read.tables.cell_rules import clear_room, ruled_cells, ruled_room
from translation.read.tables.cell_wraps import WrapLine, wrapped_cells

#: Font sizes: rows whose baselines lie this close share a visual row.
_SAME_ROW = 0.5


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


def stack_wrapped_cells(rows: list[Row]) -> None:
    """Make each line that a cell's line wraps onto, alone on its row below it (see
    ``cell_wraps.wrapped_cells``), a line of that cell: its ``stack``, its column's room."""
    body = [r for r in rows if not r.drop and not r.region]
    if not any(r.cell for r in body):
        return
    baselines = sorted(r.baseline for r in body)
    lines = [
        WrapLine(r.bbox, r.baseline, r.size, r.bold, r.text, r.cell, _lone(r, baselines))
        for r in body
    ]
    for row, up in zip(body, wrapped_cells(lines), strict=True):
        if up is None:
            continue
        cell = body[up]
        cell.stack = cell.stack or (cell.x0, cell.baseline)
        room = cell.room or cell.bbox
        row.stack, row.cell = cell.stack, True
        row.room = (min(room[0], row.x0), row.top, max(room[2], row.x1), row.bottom)


def _lone(row: Row, baselines: Sequence[float]) -> bool:
    """Whether no other row shares ``row``'s visual row (``baselines``: every row's, sorted,
    ``row``'s among them)."""
    near = _SAME_ROW * row.size
    lo = bisect.bisect_right(baselines, row.baseline - near)
    hi = bisect.bisect_left(baselines, row.baseline + near)
    return hi - lo <= 1


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


_ROOM_LINES = 3.0  # lines below a cell its room may reach (at the usual leading)
_ROOM_SLACK = 0.2  # font sizes: boxes from this far above a room's foot may stop it
_ROOM_BELOW = 0.5  # font sizes: a box this far below a room's top stops it
_ROOM_CLEAR = 0.15  # font sizes: a room stops this far above the box that stops it


def cell_rooms(cells: Sequence[tuple[Rect, float]], others: Sequence[Rect]) -> list[float]:
    """For each cell (its x-room as a box whose y-range is its glyphs, and its font size),
    how far down its text may grow: to just above the first glyphs below it within its
    x-room (``others``: the glyph boxes of every row of the page), at most three lines."""
    ordered = sorted(others, key=lambda r: r[1])
    tops = [r[1] for r in ordered]
    result = []
    for room, size in cells:
        limit = room[3] + _ROOM_LINES * DEFAULT_LEADING * size
        for other in ordered[bisect.bisect_left(tops, room[3] - _ROOM_SLACK * size) :]:
            if other[1] >= limit:
                break
            if (
                other[0] < room[2]
                and other[2] > room[0]
                and other[1] > room[1] + _ROOM_BELOW * size
            ):
                limit = other[1] - _ROOM_CLEAR * size
                break
        result.append(max(room[3], limit))
    return result
