"""Where the translation of a block that fell back goes: set apart from its source.

A block whose translation broke its page (``translation.render.page_check``) keeps its source
as printed. Its translation is still set where the page has room for it, so the reader gets
it: in the free space below the block, down its column; else in the margin beside it; else
in the page's empty bottom, under everything else on it. Each room is what is free of the
page's text, pictures and rules, of the sources put back and of the translations set, kept
:data:`GAP` of the block's size away from them and :data:`EDGE` from the page's edge; the
translation goes into the first room it fits at :data:`~translation.render.fitting.FLOOR` of
its source size or more, and takes only the height it needs, so the next block finds the room
under it. Where it fits none, the block is left as printed. Horizontal blocks only, at most
:data:`MAX_TRIED` a page.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from translation.read.layout import Rect
from translation.read.paragraph import Paragraph
from translation.render.fitting import FLOOR

#: Points a translation set apart keeps from the page's edge (a quarter inch: printers and
#: viewers crop less than that).
EDGE = 18.0
#: The gap (the block's source sizes) kept from anything else on the page: half a line, as a
#: paragraph keeps from the text below it (``fitting.room``).
GAP = 0.6
#: The narrowest room (source sizes) a translation is set apart in: a margin narrower holds
#: a word or two a line.
MIN_WIDTH = 8.0
#: Two boxes are side by side when they share more than this many points across.
_ACROSS = 0.5
#: The most blocks of one page tried: each try scans every box of the page, and a page built
#: to make every block fall back is not worth minutes; those past it are left as printed.
MAX_TRIED = 64

#: fitted(paragraph, text, area, size) -> (the size the text fits ``area`` at, up to ``size``,
#: or 0.0 where it fits not at all; the height and the width its lines take at that size).
Fitted = Callable[[Paragraph, str, Rect, float], tuple[float, float, float]]


def set_apart(
    fallen: Sequence[tuple[Paragraph, str]],
    obstacles: Sequence[Rect],
    page_rect: Rect,
    fitted: Fitted,
) -> dict[str, tuple[Paragraph, Rect, float]]:
    """The area and size each of ``fallen`` (in reading order) is set apart in, by id, with
    the paragraph to set it as (a table cell's growth into its column left out: it would go
    back over its source); a block with no room is not among them. ``obstacles``: the boxes of
    everything on the page (text, pictures, rules, the sources put back, the translations)."""
    taken = list(obstacles)
    x0s = [r[0] for r in taken] + [p.bbox[0] for p, _ in fallen]
    x1s = [r[2] for r in taken] + [p.bbox[2] for p, _ in fallen]
    frame = (min(x0s, default=page_rect[0]), max(x1s, default=page_rect[2]))
    found: dict[str, tuple[Paragraph, Rect, float]] = {}
    row: list[Rect] = []  # the areas set in the page's bottom, the last one last
    tried = [(p, t) for p, t in fallen if p.direction == (1.0, 0.0)][:MAX_TRIED]
    for para, text in tried:
        src = para.font_size or 10.0
        alone = dataclasses.replace(para, max_bbox=None)
        for room in rooms(para, taken, page_rect, frame, row[-1] if row else None):
            size, height, width = fitted(alone, text, room, src)
            if size >= FLOOR * src - 0.01:
                bottom = room[3] >= page_rect[3] - EDGE - 0.01 and room[1] >= _lowest(obstacles)
                # In the page's bottom a translation takes only the width it needs, so the
                # next one is set beside it.
                right = min(room[2], room[0] + width + 0.01) if bottom else room[2]
                area = (room[0], room[1], right, min(room[3], room[1] + height))
                found[para.id] = (alone, area, size)
                taken.append(area)
                if bottom:
                    row.append(area)
                break
    return found


def _lowest(obstacles: Sequence[Rect]) -> float:
    return max((r[3] for r in obstacles), default=0.0)


def rooms(
    para: Paragraph,
    taken: Sequence[Rect],
    page_rect: Rect,
    frame: tuple[float, float],
    last: Rect | None = None,
) -> list[Rect]:
    """The free rooms for ``para``'s translation, nearest first (module doc); ``frame``: the
    left and right of the page's text; ``last``: the last area set apart in the page's
    bottom, beside which the next one goes before a row of its own."""
    size = para.font_size or 10.0
    gap = GAP * size
    px0, py0, px1, py1 = page_rect
    floor = py1 - EDGE
    x0, y0, x1, y1 = para.bbox
    col0, col1 = para.column
    left, right = (col0, col1) if col1 > col0 else (x0, x1)
    found = [(left, y1 + gap, right, _down(left, right, y1 + gap, taken, floor, gap))]
    margins = ((px0 + EDGE, frame[0] - gap), (frame[1] + gap, px1 - EDGE))
    for m0, m1 in margins:
        found.append((m0, y0, m1, _down(m0, m1, y0, taken, floor, gap)))
    if last is not None:
        beside = last[2] + gap
        found.append(
            (beside, last[1], frame[1], _down(beside, frame[1], last[1], taken, floor, gap))
        )
    bottom = max((r[3] for r in taken), default=py0) + gap
    found.append((frame[0], bottom, frame[1], floor))
    return [
        r for r in found if r[2] - r[0] >= MIN_WIDTH * size and r[3] - r[1] >= size and r[1] > py0
    ]


def _down(
    x0: float, x1: float, top: float, taken: Sequence[Rect], floor: float, gap: float
) -> float:
    """How far down from ``top`` the strip ``x0``-``x1`` is free: to ``gap`` above the first
    box across it (``top`` itself where one reaches over ``top``), at most to ``floor``."""
    limit = floor
    for ox0, oy0, ox1, oy1 in taken:
        if min(x1, ox1) - max(x0, ox0) > _ACROSS and oy1 > top:
            limit = min(limit, max(top, oy0 - gap) if oy0 > top else top)
    return limit
