"""What a vector path shows: its box cut to the clipping paths it is drawn under.

MuPDF's box log gives each path's whole box, clip or no clip. A picture pasted in as a page of
its own often starts with a white rectangle the size of that page, clipped to the picture: taken
whole, the rectangle makes the figure reach far past what shows, over the caption under it, and
the caption is never sent.

A stroke's box is also cut to the path's own outline grown by its line's width: MuPDF bounds a
stroke with sharp corners by its miter limit, so a small warning sign drawn with a thick pen was
logged as a box four times its size, over the text around it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from translation.read.layout import Rect

#: The box-log entries of one traced path, in the order the log gives them.
_ENTRIES = {"f": ("fill-path",), "s": ("stroke-path",), "fs": ("fill-path", "stroke-path")}
PATH_KINDS = frozenset(("fill-path", "stroke-path"))


#: Of a stroke's line width: how far its ink may reach past the path's outline (a miter at a
#: sharp corner reaches further than half the width).
_STROKE_REACH = 2.0


def _meet(a: Rect | None, b: Rect) -> Rect:
    if a is None:
        return b
    return (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))


def path_clips(drawings: Sequence[Mapping[str, Any]]) -> list[tuple[str, Rect | None]]:
    """For each box-log path entry a page's drawings stand for (``page.get_drawings(extended=
    True)``, in drawing order), its kind and the area its clipping paths leave it (None: no clip).

    A ``clip`` or ``group`` item at level L holds for the items after it deeper than L, up to the
    next item at level L or above; a path is cut by every clip that holds for it.
    """
    open_: list[tuple[int, Rect | None]] = []  # the clips and groups holding, outermost first
    out: list[tuple[str, Rect | None]] = []
    for item in drawings:
        level = int(item.get("level", 0))
        while open_ and open_[-1][0] >= level:
            open_.pop()
        kind = item.get("type")
        if kind == "clip":
            s = item.get("scissor")
            open_.append((level, None if s is None else (s[0], s[1], s[2], s[3])))
        elif kind == "group":
            open_.append((level, None))
        elif kind in _ENTRIES:
            area: Rect | None = None
            for _, box in open_:
                if box is not None:
                    area = _meet(area, box)
            out.extend(
                (entry, _stroked(area, item) if entry == "stroke-path" else area)
                for entry in _ENTRIES[kind]
            )
    return out


def _stroked(area: Rect | None, item: Mapping[str, Any]) -> Rect | None:
    """``area`` cut to where a stroked path's ink can be: its outline (``rect``) grown by
    :data:`_STROKE_REACH` of its line's width."""
    rect = item.get("rect")
    if rect is None:
        return area
    reach = _STROKE_REACH * float(item.get("width") or 1.0)
    outline = (rect[0] - reach, rect[1] - reach, rect[2] + reach, rect[3] + reach)
    return _meet(area, outline)


def shown_path_boxes(
    log: Sequence[tuple[str, Rect]], clips: Sequence[tuple[str, Rect | None]]
) -> list[tuple[str, Rect]]:
    """The path entries of a box ``log`` (kind, box), each box cut to its clip (``clips``: from
    :func:`path_clips`); a path its clip hides wholly is left out. When ``clips`` does not pair
    with the log's paths one to one, the boxes are kept whole."""
    paths = [(kind, box) for kind, box in log if kind in PATH_KINDS]
    if [kind for kind, _ in paths] != [kind for kind, _ in clips]:
        return paths
    out: list[tuple[str, Rect]] = []
    for (kind, box), (_, area) in zip(paths, clips, strict=True):
        if area is None:
            out.append((kind, box))
            continue
        cut = _meet(area, box)
        if cut[2] >= cut[0] and cut[3] >= cut[1]:
            out.append((kind, cut))
    return out
