"""The items of one list set at one size, one after another.

Each paragraph is planned in its own box (``translation.render.fitting``): a one-line item whose
translation needs two lines is set small, while the item under it may need fewer lines than
its source had. Where the items of one list (adjacent list items of one column and source
size) came out at different sizes (one could not fit even at the floor size), they are set
again as one block: at the largest size, from the largest item's down to the smallest's, at
which all of them fit the block's area one after another, each starting on a new line with
the source's gap between items (the room left over goes to the list's end). Where none fits,
the plan stays as it was, as it does for a list of more than ``_MOST_ITEMS`` items.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from translation.read.layout import Rect
from translation.read.paragraph import Paragraph, ParagraphKind

#: size_in(paragraph, text, area, size): the largest size up to ``size`` at which ``text``
#: fits ``area`` (as in ``translation.render.fitting``).
SizeIn = Callable[[Paragraph, str, Rect, float], float]

#: Sizes tried from the largest item's down to the smallest's, in this many steps.
_STEPS = 8
#: Halvings of the search for the height an item needs at a size.
_HALVINGS = 10
#: Longer lists keep their plan: each item costs up to (_STEPS + 1) * (_HALVINGS + 1) fits,
#: and a page built of tiny items must not make typesetting take minutes.
_MOST_ITEMS = 40


def runs(items: Sequence[tuple[Paragraph, str]]) -> list[list[int]]:
    """Indexes of ``items`` (in reading order) that make up one list: two or more list items
    in a row, in one column, of one source size, each starting just below the one before
    (within a line and a half) with its label where the one before had its own."""
    found: list[list[int]] = []
    current: list[int] = []
    for i, (para, _) in enumerate(items):
        if current and _follows(items[current[-1]][0], para):
            current.append(i)
            continue
        if len(current) > 1:
            found.append(current)
        current = [i] if para.kind == ParagraphKind.LIST_ITEM else []
    if len(current) > 1:
        found.append(current)
    return found


def _follows(before: Paragraph, para: Paragraph) -> bool:
    size = before.font_size or 10.0
    gap = para.bbox[1] - before.bbox[3]
    return (
        para.kind == ParagraphKind.LIST_ITEM
        and para.column == before.column
        and abs((para.font_size or 10.0) - size) < 0.25
        and abs(para.bbox[0] - before.bbox[0]) < 2.0 * size
        and -0.5 * size < gap < 1.5 * size
    )


def restack(
    items: Sequence[tuple[Paragraph, str]],
    planned: dict[str, tuple[Rect, float]],
    size_in: SizeIn,
) -> None:
    """Set each list among ``items`` whose items ``planned`` gives different sizes as one block
    (module doc), updating ``planned`` (paragraph id -> (area, size)) in place."""
    for run in runs(items):
        members = [items[i] for i in run]
        if len(members) > _MOST_ITEMS or any(p.id not in planned for p, _ in members):
            continue
        sizes = [planned[p.id][1] for p, _ in members]
        high, low = max(sizes), min(sizes)
        if high - low < 0.05:
            continue  # one size already: each item stays where its source was
        tried = [high - (high - low) * step / _STEPS for step in range(_STEPS + 1)]
        top = planned[members[0][0].id][0][1]
        bottom = max(planned[p.id][0][3] for p, _ in members)
        for size in tried:
            areas = _stacked(members, planned, size_in, size, top, bottom)
            if areas is not None:
                for (para, _), area in zip(members, areas, strict=True):
                    planned[para.id] = (area, size)
                break


def _stacked(
    members: Sequence[tuple[Paragraph, str]],
    planned: dict[str, tuple[Rect, float]],
    size_in: SizeIn,
    size: float,
    top: float,
    bottom: float,
) -> list[Rect] | None:
    """The areas of ``members`` set one after another from ``top`` at ``size``, or None when
    they do not all fit above ``bottom``."""
    areas: list[Rect] = []
    y = top
    for k, (para, text) in enumerate(members):
        if k:
            y += max(0.0, para.bbox[1] - members[k - 1][0].bbox[3])  # the source's gap
        x0, _, x1, _ = planned[para.id][0]
        room = (x0, y, x1, bottom)
        if size_in(para, text, room, size) < size - 1e-3:
            return None
        low, high = 0.0, bottom - y  # the height it needs: between these
        for _ in range(_HALVINGS):
            middle = (low + high) / 2
            if size_in(para, text, (x0, y, x1, y + middle), size) >= size - 1e-3:
                high = middle
            else:
                low = middle
        last = k == len(members) - 1
        areas.append((x0, y, x1, bottom if last else y + high))
        y += high
    return areas
