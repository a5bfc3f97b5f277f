"""Table rules: the ruling lines of a table drawn as a grid (Word, HWP) frame its rows and
part its columns.

A table is found from its text (``translation.read.tables.detect``), which cannot always tell where
it begins and ends or that it is one: a cell's first line set above the lines that have cells
beside them (a label centred on a row of several lines), its last lines hung below them, or a
table of two columns (labels beside list items) that its text alone leaves to lists. A grid
drawn around the rows says it: the lines inside its frame are the table's, and a vertical
rule down the gap between two columns parts them. Pure, in frame coordinates.
"""

from __future__ import annotations

from collections.abc import Sequence

from translation.read.layout import Rect

_THIN = 2.0  # points: a rule is at most this thick
_TOUCH = 1.0  # points: the pieces of one rule (a border drawn cell by cell) meet this close
_OUT = 3.0  # font sizes: how far out of the rows' glyphs a side of the frame may stand
_REACH = 10.0  # font sizes (some eight lines): how far above or below them its ends may
_EDGE_SLACK = 0.5  # points: a rule this close inside the glyphs still frames them
#: The share of a table's height a rule beside it, or one parting its columns, runs along.
ALONG = 0.8


def framed(box: Rect, size: float, rules: Sequence[Rect]) -> Rect | None:
    """The frame of the grid of ``rules`` around a table's rows (``box``: their glyph box;
    ``size``: their font size). Where vertical rules stand left and right of it (the nearest,
    at most _OUT sizes out, running along most of its height), from where both begin to
    where both end; where none do (a grid open at its sides, as HWP sets one), from where a
    rule between its columns (running along most of its height) begins to where it ends.
    Either way with a horizontal rule across the frame at each end. It may reach above and
    below ``box``, up to _REACH sizes: rows of the grid whose text did not tell them rows of
    the table (a cell's lines set above or below them). None where no such frame stands (a
    table ruled only above and below, as LaTeX rules it, has no frame: its rows are told by
    their text alone)."""
    vertical, horizontal = _joined(rules)
    height = box[3] - box[1]
    left: tuple[float, float, float] | None = None
    right: tuple[float, float, float] | None = None
    inner: tuple[float, float, float] | None = None
    for rule in vertical:
        x, y0, y1 = rule
        if min(y1, box[3]) - max(y0, box[1]) < ALONG * height:
            continue
        if box[0] - _OUT * size <= x <= box[0] + _EDGE_SLACK and (left is None or x > left[0]):
            left = rule
        elif box[2] - _EDGE_SLACK <= x <= box[2] + _OUT * size and (right is None or x < right[0]):
            right = rule
        elif box[0] < x < box[2] and (inner is None or y1 - y0 > inner[2] - inner[1]):
            inner = rule
    if left is not None and right is not None:
        x0, x1 = left[0], right[0]
        top, bottom = max(left[1], right[1]), min(left[2], right[2])
        across = (x0, x1)
    elif inner is not None and left is None and right is None:
        # Open at its sides: the frame ends where the rules across it end.
        top, bottom = inner[1], inner[2]
        across = (box[0], box[2])
    else:
        return None
    if max(box[1] - top, bottom - box[3]) > _REACH * size:
        return None  # a box around a page's text and a table, not the table's own grid
    ends = [
        [
            (a, b)
            for y, a, b in horizontal
            if abs(y - end) <= _TOUCH and a <= across[0] + _TOUCH and b >= across[1] - _TOUCH
        ]
        for end in (top, bottom)
    ]
    if not all(ends):
        return None
    if left is None:
        x0 = max(a for a, _ in ends[0])
        x1 = min(b for _, b in ends[0])
        if x0 < box[0] - _OUT * size or x1 > box[2] + _OUT * size:
            return None  # a rule across the page or a column, not a table's
    return (x0, top, x1, bottom)


def ruled_share(gutter: tuple[float, float], frame: Rect, rules: Sequence[Rect]) -> float:
    """The largest share of the height of ``frame`` (a table's frame of rules) that a
    vertical rule standing in ``gutter`` (an x-range between two columns) runs along: most
    of it where the rule parts the columns, less where a cell spanning both breaks it, none
    where the gap is no column of the grid."""
    vertical, _ = _joined(rules)
    height = frame[3] - frame[1]
    shares = [
        (min(y1, frame[3]) - max(y0, frame[1])) / height
        for x, y0, y1 in vertical
        if gutter[0] <= x <= gutter[1]
    ]
    return max(shares, default=0.0)


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
