"""Text inside figures: rows that lie in a picture are not translated, unless the "figure" is
the background of text (a coloured band behind a heading, a summary box, shaded table cells)."""

from __future__ import annotations

import re

from translation.read.layout import Frame, PageLayout, Rect
from translation.read.numbering.captions import FIGURE_CJK, FIGURE_LATIN, TABLE_CJK, TABLE_LATIN
from translation.read.rows.row import Row


def mark_figure_text(
    rows: list[Row], page: PageLayout, frame: Frame, body_size: float = 0.0
) -> None:
    """Mark the text inside figures, except where the "figure" is the background of text (see
    :func:`_text_background`)."""
    figures = [frame.to_frame(f) for f in page.figures]
    figures = [f for f in figures if not _text_background(f, rows, body_size)]
    for row in rows:
        cx, cy = (row.x0 + row.x1) / 2, (row.top + row.bottom) / 2
        if not row.drop and any(f[0] <= cx <= f[2] and f[1] <= cy <= f[3] for f in figures):
            row.drop = "figure"
    if body_size > 0:
        for box in figures:
            _take_labels(box, rows, body_size)


#: A chart's label (a tick's number, an axis's title) set outside its frame stands within
#: this many of its sizes of the figure's edge (or of a label already taken) ...
_LABEL_NEAR = 2.0
#: ... is set smaller than the body (of its size) ...
_LABEL_SMALLER = 0.95
#: ... and has a few words at most (numbers aside: a row of ticks is one label).
_LABEL_WORDS = 3


def _take_labels(box: Rect, rows: list[Row], body_size: float) -> None:
    """Mark the labels a figure's frame leaves outside it as the figure's text: short rows
    set smaller than the body just below, left or right of the figure's area, the area
    growing with each ("10 15 20" under a plot's axis, then "age" under them). Never a
    caption's line, a bold one, or one above the figure (the last line of the text before
    it)."""
    taken: set[int] = set()
    x0, y0, x1, y1 = box
    # Read from the top, a chain under the figure (ticks, then the axis's title) is taken in
    # one pass; a second finds the labels beside what the first took. Bounded passes keep a
    # page of thousands of small rows linear.
    candidates = sorted(
        (r for r in rows if r.drop != "figure" and _label_like(r, body_size)), key=lambda r: r.top
    )
    for _ in range(_LABEL_PASSES):
        grew = False
        for row in candidates:
            if id(row) in taken:
                continue
            near = _LABEL_NEAR * row.size
            across = min(row.x1, x1) > max(row.x0, x0)
            beside = min(row.bottom, y1) > max(row.top, y0)
            below = across and 0 <= row.top - y1 < near
            side = beside and (0 <= x0 - row.x1 < near or 0 <= row.x0 - x1 < near)
            if below or side:
                # A tick's number, kept already as a number, grows the area all the same.
                row.drop = row.drop or "figure"
                taken.add(id(row))
                x0, y0 = min(x0, row.x0), min(y0, row.top)
                x1, y1 = max(x1, row.x1), max(y1, row.bottom)
                grew = True
        if not grew:
            return


#: Passes over a figure's candidate labels at most.
_LABEL_PASSES = 3


def _label_like(row: Row, body_size: float) -> bool:
    """Whether ``row`` may be a chart's label: a few words (any numbers), smaller than the
    body, not bold, no caption's opening."""
    return (
        row.size < _LABEL_SMALLER * body_size
        and not row.bold
        and sum(any(c.isalpha() for c in w) for w in row.text.split()) <= _LABEL_WORDS
        and not _FIGURE_CAPTION_RE.match(row.text)
        and not _TABLE_CAPTION_RE.match(row.text)
    )


_TABLE_CAPTION_RE = re.compile(rf"^\s*(?:{TABLE_LATIN}|{TABLE_CJK})\s*\d", re.IGNORECASE)
_FIGURE_CAPTION_RE = re.compile(rf"^\s*(?:{FIGURE_LATIN}|{FIGURE_CJK})\s*\d", re.IGNORECASE)


_CAPTION_NEAR = 2.5  # font sizes: a caption this near a shaded area is its table's
_BODY_SIZED = 0.9  # of the body size: text on a background is at least this large ...
_BODY_SHARE = 0.8  # ... in this share of its rows
_BAR_LINES = 3.0  # font sizes: a bar behind a heading is at most this high ...
_BAR_LONG = 4.0  # ... and this many times as wide as high
_ACROSS = 0.6  # of a box's width: a line running across it is at least this wide


def _inside(row: Row, box: Rect) -> bool:
    cx, cy = (row.x0 + row.x1) / 2, (row.top + row.bottom) / 2
    return box[0] <= cx <= box[2] and box[1] <= cy <= box[3]


def _text_background(box: Rect, rows: list[Row], body_size: float) -> bool:
    """Whether a figure area (an image or a cluster of filled shapes) is the background of
    text rather than a picture: a bar one or two lines high behind a heading ("1 Introduction"
    on a coloured band), a box whose lines run across it (a summary box), or a table with
    shaded cells (a "Table 1" caption just above or below it). Text in a picture is small or
    short; text on a background is body-sized and long."""
    if body_size <= 0:
        return False
    inside = [r for r in rows if not r.drop and _inside(r, box)]
    if not inside:
        return False
    near = [
        r
        for r in rows
        if min(r.x1, box[2]) > max(r.x0, box[0])
        and (
            0 <= box[1] - r.bottom < _CAPTION_NEAR * r.size
            or 0 <= r.top - box[3] < _CAPTION_NEAR * r.size
        )
    ]
    if any(_TABLE_CAPTION_RE.match(r.text) for r in near) and not any(
        _FIGURE_CAPTION_RE.match(r.text) for r in near
    ):
        return True
    if sum(r.size >= _BODY_SIZED * body_size for r in inside) < _BODY_SHARE * len(inside):
        return False
    width, height = box[2] - box[0], box[3] - box[1]
    if height <= _BAR_LINES * max(r.size for r in inside) and width >= _BAR_LONG * height:
        return True
    wide = [r for r in inside if r.x1 - r.x0 >= _ACROSS * width]
    return len(wide) >= 2 and 2 * len(wide) >= len(inside)
