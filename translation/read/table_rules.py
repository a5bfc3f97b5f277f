"""Table rules: the ruling lines of a table drawn as a grid (Word, HWP) frame its rows and
part its columns.

A table is found from its text (``translation.read.tables``), which cannot always tell where
it begins and ends or that it is one: a cell's first line set above the lines that have cells
beside them (a label centred on a row of several lines), its last lines hung below them, or a
table of two columns (labels beside list items) that its text alone leaves to lists. A grid
drawn around the rows says it: the lines inside its frame are the table's, a vertical rule
down the gap between two columns parts them, and a gap no rule runs down is no column (a
justified line's stretched space after a list mark). Pure, in frame coordinates.
"""

from __future__ import annotations

from collections.abc import Sequence

from translation.read.layout import Rect

_THIN = 2.0  # points: a rule is at most this thick
_TOUCH = 1.0  # points: the pieces of one rule (a border drawn cell by cell) meet this close
_OUT = 3.0  # font sizes: how far out of the rows' glyphs a side of the frame may stand
_ALONG = 0.8  # the share of a table's height a rule beside or inside it runs along
_SPANNED = 0.2  # the share of a frame's height a rule between two columns runs along at least


def framed(box: Rect, size: float, rules: Sequence[Rect]) -> Rect | None:
    """The frame of the grid of ``rules`` around a table's rows (``box``: their glyph box;
    ``size``: their font size): the nearest vertical rules left and right of it (at most
    _OUT sizes out, running along most of its height), from where both begin to where both
    end, with a horizontal rule running from the one to the other at each end. It may reach
    above and below ``box``: rows of the grid whose text did not tell them rows of the table.
    None where no such frame stands (a table ruled only above and below, as LaTeX rules it,
    has no frame: its rows are told by their text alone)."""
    vertical, horizontal = _joined(rules)
    height = box[3] - box[1]
    left: tuple[float, float, float] | None = None
    right: tuple[float, float, float] | None = None
    for rule in vertical:
        x, y0, y1 = rule
        if min(y1, box[3]) - max(y0, box[1]) < _ALONG * height:
            continue
        if box[0] - _OUT * size <= x <= box[0] + 0.5 and (left is None or x > left[0]):
            left = rule
        elif box[2] - 0.5 <= x <= box[2] + _OUT * size and (right is None or x < right[0]):
            right = rule
    if left is None or right is None:
        return None
    top, bottom = max(left[1], right[1]), min(left[2], right[2])
    ends = [
        any(
            abs(y - end) <= _TOUCH and x0 <= left[0] + _TOUCH and x1 >= right[0] - _TOUCH
            for y, x0, x1 in horizontal
        )
        for end in (top, bottom)
    ]
    return (left[0], top, right[0], bottom) if all(ends) else None


def ruled_columns(
    gutters: Sequence[tuple[float, float]], frame: Rect, rules: Sequence[Rect]
) -> list[tuple[float, float]]:
    """The ``gutters`` (x-ranges between a table's columns, found from its text) that the
    grid of ``rules`` in ``frame`` parts, where a vertical rule runs down one of them along
    most of the frame's height: those a vertical rule runs down along at least a fifth of it
    (a cell spanning two columns above or below breaks the rule between them). A gap no rule
    runs down is a cell's own (a justified line's space stretched after a list mark's dash,
    lined up from row to row). Empty where no rule runs down most of the frame."""
    vertical, _ = _joined(rules)
    height = frame[3] - frame[1]

    def along(gutter: tuple[float, float], share: float) -> bool:
        return any(
            gutter[0] <= x <= gutter[1] and min(y1, frame[3]) - max(y0, frame[1]) >= share * height
            for x, y0, y1 in vertical
        )

    if not any(along(g, _ALONG) for g in gutters):
        return []
    return [g for g in gutters if along(g, _SPANNED)]


def _joined(
    rules: Sequence[Rect],
) -> tuple[list[tuple[float, float, float]], list[tuple[float, float, float]]]:
    """The vertical rules as (x, top, bottom) and the horizontal ones as (y, left, right), the
    pieces of one rule (on one line, meeting end to end) joined into one."""
    vertical = sorted(
        ((r[0] + r[2]) / 2, r[1], r[3]) for r in rules if r[2] - r[0] <= _THIN < r[3] - r[1]
    )
    horizontal = sorted(
        ((r[1] + r[3]) / 2, r[0], r[2]) for r in rules if r[3] - r[1] <= _THIN < r[2] - r[0]
    )
    return _chains(vertical), _chains(horizontal)


def _chains(lines: list[tuple[float, float, float]]) -> list[tuple[float, float, float]]:
    """``lines`` (position across, start, end) with the pieces on one line (positions within
    _TOUCH of each other) whose ends meet (within _TOUCH) joined."""
    groups: list[list[tuple[float, float, float]]] = []
    for line in sorted(lines):
        if groups and line[0] - groups[-1][-1][0] <= _TOUCH:
            groups[-1].append(line)
        else:
            groups.append([line])
    out: list[tuple[float, float, float]] = []
    for group in groups:
        at = sum(g[0] for g in group) / len(group)
        first = len(out)
        for _, a, b in sorted(group, key=lambda g: g[1]):
            if len(out) > first and a <= out[-1][2] + _TOUCH:
                out[-1] = (at, out[-1][1], max(out[-1][2], b))
            else:
                out.append((at, a, b))
    return out
