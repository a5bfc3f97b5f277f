"""Comment balloons: the boxes a word processor prints in the page's margin for its comments
and tracked changes ("Comment [AB1]: ...", tied by a dotted line to their place in the text).

A balloon is part of the page's content, but not of the text: read with the body, its lines
are taken into the body's rows (a line beside it becomes a two-cell "table" row) and its
translation set over the margin. Its words are therefore left as they are, like an
annotation's (:mod:`translation.read.pages.annotations`); the box stays clear of translations, as
every drawn shape does. Pure logic.
"""

from __future__ import annotations

from collections.abc import Sequence

from translation.read.layout import Rect

#: A balloon is narrower than this share of the page.
_MAX_WIDTH = 0.35
#: How far (points) a balloon may reach into the text's side edge.
_TOLERANCE = 2.0


def balloon_areas(fills: Sequence[Rect], lines: Sequence[Rect], width: float) -> list[Rect]:
    """The filled boxes among ``fills`` that are comment balloons: narrow, holding text, and
    entirely beside every line of text outside them (in the right or the left margin of the
    text). ``lines``: the boxes of the page's text lines; ``width``: the page's width."""
    found: list[Rect] = []
    for box in fills:
        if box[2] - box[0] > _MAX_WIDTH * width or box[3] <= box[1]:
            continue
        inside = [line for line in lines if _within(line, box)]
        outside = [line for line in lines if not _within(line, box)]
        if not inside or not outside:
            continue
        right = max(line[2] for line in outside)
        left = min(line[0] for line in outside)
        if box[0] >= right - _TOLERANCE or box[2] <= left + _TOLERANCE:
            found.append(box)
    return found


def _within(line: Rect, box: Rect) -> bool:
    cx, cy = (line[0] + line[2]) / 2, (line[1] + line[3]) / 2
    return box[0] <= cx <= box[2] and box[1] <= cy <= box[3]
