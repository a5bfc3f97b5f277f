"""Cell rules: the ruling lines around a table cell bound the room its translation may take.

A cell's room is found from the text around it (halfway to the next column's glyphs, down over
free space). In a ruled table (Word draws every cell's border) the border is the cell's real
edge: a translation set up to the midpoint of the gap would cross it and print over the next
cell where the next column's text starts well past the rule; where a cell spans two columns
or two rows, its border is farther than the text suggests. So a vertical rule beside a cell's
text bounds its room on that side (nearer or farther than the text found), and a horizontal
rule below it bounds its room below. Pure, in frame coordinates.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from translation.read.layout import Rect
from translation.read.tables.table_rows import EDGE_SLACK

_THIN = 2.0  # points: a rule is at most this thick
_PAD = 1.5  # points kept clear of a rule
_CELL_LINES = 4  # lines a ruled frame holds at most to be one cell
_WIDEN = 6.0  # font sizes: how far past its found room a cell's room may reach a rule
_ALONG = 0.7  # of the glyphs' height: a vertical rule beside a cell runs along this much
_UNDER = 0.5  # of the glyphs' width: a horizontal rule under a cell runs under this much
_BELOW = 0.5  # font sizes: such a rule lies at most this far below the cell's room
_STEP_LEAST, _STEP_MOST = 0.5, 1.6  # font sizes: the line step of one ruled cell's lines
_SAME_SIZE = 0.5  # points: the lines of one cell differ in size by less

_RULE_LENGTH = 3  # a rule is longer than this many times its thinness


def rules_of(paths: Sequence[Rect]) -> list[Rect]:
    """The thin horizontal and vertical lines among a page's vector ``paths``."""
    return [
        p
        for p in paths
        if (p[2] - p[0] <= _THIN and p[3] - p[1] > _RULE_LENGTH * _THIN)
        or (p[3] - p[1] <= _THIN and p[2] - p[0] > _RULE_LENGTH * _THIN)
    ]


def ruled_room(
    room: Rect, glyphs: Rect, size: float, rules: Sequence[Rect], others: Sequence[Rect]
) -> Rect:
    """``room`` (a cell's room, holding its glyph box ``glyphs``; ``size``: its font size)
    bounded by the nearest vertical rule on each side of its glyphs that runs along most of
    their height (moved in to it, or out to it when it stands at most _WIDEN sizes past the
    room and no glyphs of ``others`` lie in between), and by the nearest horizontal rule below
    them that runs under them (moved up to it only)."""
    x0, y0, x1, y1 = room
    gx0, gy0, gx1, gy1 = glyphs
    height = gy1 - gy0
    left: float | None = None
    right: float | None = None
    below: float | None = None
    for r in rules:
        vertical = r[2] - r[0] <= _THIN
        if vertical and min(r[3], gy1) - max(r[1], gy0) >= _ALONG * height:
            mid = (r[0] + r[2]) / 2
            if x0 - _WIDEN * size <= mid <= gx0 and (left is None or mid > left):
                left = mid
            elif gx1 <= mid <= x1 + _WIDEN * size and (right is None or mid < right):
                right = mid
        elif not vertical and min(r[2], gx1) - max(r[0], gx0) > _UNDER * (gx1 - gx0):
            mid = (r[1] + r[3]) / 2
            if gy1 <= mid <= y1 + _BELOW * size and (below is None or mid < below):
                below = mid
    if left is not None:
        edge = min(left + _PAD, gx0)
        x0 = edge if edge >= x0 or _clear(others, glyphs, (edge, gy0, x0, gy1)) else x0
    if right is not None:
        edge = max(right - _PAD, gx1)
        x1 = edge if edge <= x1 or _clear(others, glyphs, (x1, gy0, edge, gy1)) else x1
    if below is not None:
        y1 = max(min(y1, below - _PAD), gy1)
    return (x0, y0, x1, y1)


def _clear(others: Sequence[Rect], own: Rect, strip: Rect) -> bool:
    """Whether no glyph box of ``others`` (but ``own``) overlaps ``strip``."""
    return not any(
        o != own
        and min(o[2], strip[2]) - max(o[0], strip[0]) > 0
        and min(o[3], strip[3]) - max(o[1], strip[1]) > 0
        for o in others
    )


def ruled_cells(
    lines: Sequence[tuple[Rect, float, bool, str]], rules: Sequence[Rect]
) -> list[int | None]:
    """Which lines of table cells (glyph box, font size, bold, text) share one ruled cell:
    each line joins the nearest line above it that overlaps it in x, one line below it (at
    most 1.6 font sizes from bottom to bottom), in the same size and weight, when both lie in
    one frame of rules (a rule on every side, the same rules) that holds at most _CELL_LINES
    lines (a cell, not a column of rows ruled only around the table), and it reads on: it
    starts in lower case or in a script without case, or the line above ends in "-", "/"
    or ",". A Word cell set centred, or spanning rows beside the lines of other rows, has its
    lines in blocks of their own and beside other cells' lines. Returns for each line the
    index of the first line of its cell, or None."""
    first: list[int | None] = [None] * len(lines)
    frames = [_frame(line[0], rules) for line in lines]
    held = Counter(f for f in frames if f is not None)
    order = sorted(range(len(lines)), key=lambda i: lines[i][0][3])
    for n, i in enumerate(order):
        box, size, bold, text = lines[i]
        frame = frames[i]
        if frame is None or held[frame] > _CELL_LINES:
            continue
        for j in reversed(order[max(0, n - 40) : n]):
            up, up_size, up_bold, above = lines[j]
            if min(up[2], box[2]) <= max(up[0], box[0]):
                continue
            step = box[3] - up[3]
            reads_on = (
                text[:1].islower()
                or (text[:1].isalpha() and not text[:1].isupper())
                or above.rstrip().endswith(("-", "/", ","))
            )
            if (
                _STEP_LEAST * size <= step <= _STEP_MOST * size
                and abs(size - up_size) < _SAME_SIZE
                and bold == up_bold
                and frames[j] == frame
                and reads_on
            ):
                first[i] = first[j] if first[j] is not None else j
                first[j] = first[i]
            break
    return first


def _frame(box: Rect, rules: Sequence[Rect]) -> Rect | None:
    """The nearest rules left, above, right and below ``box`` that run along it (a ruled
    cell's borders), or None when a side has none."""
    left = right = top = bottom = None
    for r in rules:
        if r[2] - r[0] <= _THIN:  # vertical
            if r[1] <= box[1] + EDGE_SLACK and r[3] >= box[3] - EDGE_SLACK:
                mid = (r[0] + r[2]) / 2
                if mid <= box[0] and (left is None or mid > left):
                    left = mid
                elif mid >= box[2] and (right is None or mid < right):
                    right = mid
        elif (
            r[0] <= box[0] + EDGE_SLACK and r[2] >= box[2] - EDGE_SLACK
        ):  # horizontal, running along it
            mid = (r[1] + r[3]) / 2
            if mid <= box[1] and (top is None or mid > top):
                top = mid
            elif mid >= box[3] and (bottom is None or mid < bottom):
                bottom = mid
    if left is None or right is None or top is None or bottom is None:
        return None
    return (left, top, right, bottom)


def clear_room(room: Rect, glyphs: Rect, others: Sequence[Rect]) -> Rect:
    """``room`` narrowed, on each side of the cell's ``glyphs``, to halfway to the nearest
    glyphs of ``others`` that stand beside them (their heights overlap): a cell of a row whose
    neighbour sits on another baseline (a number centred on a two-line cell, 05 p18) must not
    reach over it. Never narrower than the glyphs."""
    x0, y0, x1, y1 = room
    gx0, gy0, gx1, gy1 = glyphs
    for other in others:
        if other == glyphs or min(other[3], gy1) - max(other[1], gy0) <= 0:
            continue
        if other[2] <= gx0 and other[2] > x0:
            x0 = max(x0, (other[2] + gx0) / 2)
        elif other[0] >= gx1 and other[0] < x1:
            x1 = min(x1, (gx1 + other[0]) / 2)
    return (min(x0, gx0), y0, max(x1, gx1), y1)
