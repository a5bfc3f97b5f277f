"""Where each translation of a page goes and at what size.

A paragraph's own box is where its source sat. A translation that does not fit there at the
source size may first use free room: a one-line or centred paragraph widens across its column
(a short line keeps its size), and any paragraph may grow down into the empty space below it,
up to the next text, picture or rule in its column. Sizes are then made alike: paragraphs of
one role and one source size on a page get one size, the largest every one of them fits at,
but never below ``FLOOR`` x the source size (a paragraph that cannot fit even then keeps its
own smaller size). The items of one list that still differ in size are set again one after
another at one size where they fit (``translation.render.list_fit``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pymupdf

from translation.read.layout import Rect
from translation.read.pages.annotations import annotation_areas
from translation.read.paragraph import Align, Paragraph, ParagraphKind
from translation.render.list_fit import restack

#: The smallest share of the source size a translation is set at while room allows.
FLOOR = 0.8

#: size_in(paragraph, text, area, size): the largest size up to ``size`` at which ``text``
#: fits ``area``.
SizeIn = Callable[[Paragraph, str, Rect, float], float]


def page_text(page: pymupdf.Page) -> list[dict[str, Any]]:
    """The text blocks of ``page`` (``get_text("dict")``, clipped to its media box): read once
    for both :func:`page_obstacles` and the page's check (``translation.render.page_check``)."""
    blocks: list[dict[str, Any]] = page.get_text("dict", flags=pymupdf.TEXT_MEDIABOX_CLIP)["blocks"]
    return blocks


def page_obstacles(
    page: pymupdf.Page, blocks: Sequence[Mapping[str, Any]] | None = None
) -> tuple[list[Rect], list[Rect]]:
    """(text lines, pictures, vector paths and annotations) on ``page``: call it once the
    page's translated text has been removed, so what is left is what translations must stay
    clear of. Paths covering most of the page are backgrounds, not obstacles. ``blocks``:
    the page's :func:`page_text`, when read already."""
    texts: list[Rect] = []
    for block in page_text(page) if blocks is None else blocks:
        for line in block.get("lines", ()):
            if any(span["text"].strip() for span in line["spans"]):
                texts.append(tuple(line["bbox"]))
    big = 0.6 * page.rect.width * page.rect.height
    shapes: list[Rect] = annotation_areas(page)  # a note in the margin is drawn over the page
    for kind, rect in page.get_bboxlog():
        # An image mask is drawn too: a converter's table rule one pixel high is one.
        if kind in ("fill-path", "stroke-path", "fill-imgmask") or kind.endswith("image"):
            r = tuple(rect)
            if (r[2] - r[0]) * (r[3] - r[1]) < big:
                shapes.append(r)
    return texts, shapes


def plan(
    items: Sequence[tuple[Paragraph, str]],
    texts: Sequence[Rect],
    shapes: Sequence[Rect],
    size_in: SizeIn,
) -> dict[str, tuple[Rect, float]]:
    """The area and the largest size to set each horizontal paragraph's translation in
    (paragraph id -> (area, size)); see the module doc. ``texts`` and ``shapes``: what else
    is on the page (:func:`page_obstacles`)."""
    flat = [(p, t) for p, t in items if p.direction == (1.0, 0.0)]
    boxes = [p.bbox for p, _ in flat]
    bottom = max([b[3] for b in boxes] + [t[3] for t in texts], default=0.0)
    # Widened boxes first (no growth: bottom 0), so nothing grows down into the room another
    # paragraph widens into.
    wide = [
        room(p, [*boxes[:i], *boxes[i + 1 :], *texts], shapes, 0.0) for i, (p, _) in enumerate(flat)
    ]
    areas: dict[str, Rect] = {}
    best: dict[str, float] = {}
    for i, (para, text) in enumerate(flat):
        others = wide[:i] + wide[i + 1 :]
        area = room(para, [*others, *texts], shapes, bottom)
        areas[para.id] = area
        best[para.id] = size_in(para, text, area, para.font_size or 10.0)
    groups: dict[tuple[str, float], list[Paragraph]] = {}
    for para, _ in flat:
        groups.setdefault(_role(para), []).append(para)
    result: dict[str, tuple[Rect, float]] = {}
    for members in groups.values():
        floor = FLOOR * (members[0].font_size or 10.0)
        # A paragraph that cannot reach the floor does not pull the others down to it.
        common = min((best[p.id] for p in members if best[p.id] >= floor), default=floor)
        for para in members:
            result[para.id] = (areas[para.id], min(common, best[para.id]))
    restack(flat, result, size_in)  # a list's items at one size where they fit
    return result


def _role(para: Paragraph) -> tuple[str, float]:
    kind = ParagraphKind.BODY if para.kind == ParagraphKind.REFERENCE else para.kind
    return str(kind), round((para.font_size or 10.0) * 2) / 2


def room(para: Paragraph, texts: Sequence[Rect], shapes: Sequence[Rect], bottom: float) -> Rect:
    """``para``'s box widened and lengthened into the free space around it (module doc).
    ``texts``: boxes of other text (other paragraphs included); ``shapes``: pictures and paths;
    ``bottom``: the lowest text of the page (nothing grows below it)."""
    x0, y0, x1, y1 = para.bbox
    size = para.font_size or 10.0
    gap = 0.3 * size  # from a shape (a rule under a table)
    col0, col1 = para.column
    if (
        para.kind != ParagraphKind.CELL
        and col1 > col0
        and (para.line_count == 1 or para.align == Align.CENTER)
    ):
        left, right = min(x0, col0), max(x1, col1)
        for ox0, oy0, ox1, oy1 in [*texts, *shapes]:
            if oy0 < y1 - 0.2 * size and oy1 > y0 + 0.2 * size:  # beside the box
                if ox0 >= x1 - 0.5:
                    right = min(right, ox0 - gap)
                elif ox1 <= x0 + 0.5:
                    left = max(left, ox1 + gap)
        right, left = max(right, x1), min(left, x0)
        if para.align == Align.CENTER:
            half = min((x0 + x1) / 2 - left, right - (x0 + x1) / 2)
            x0, x1 = (x0 + x1) / 2 - half, (x0 + x1) / 2 + half
        else:
            x1 = right
    limit = max(y1, bottom)
    for ox0, oy0, ox1, oy1 in texts:
        if min(x1, ox1) - max(x0, ox0) > 0.5 and oy1 > y1 + 0.5:
            # Half a line from the text below, so paragraphs and headings stay apart.
            limit = min(limit, max(y1, oy0 - 0.6 * size))
    for ox0, oy0, ox1, oy1 in shapes:
        if min(x1, ox1) - max(x0, ox0) > 0.5 and oy1 > y1 + 0.5:
            # A frame around the paragraph stops it at its bottom edge, anything else at its top.
            edge = oy1 if oy0 < y0 and ox0 <= x0 + 1 and ox1 >= x1 - 1 else oy0
            limit = min(limit, max(y1, edge - gap))
    return (x0, y0, x1, limit)
