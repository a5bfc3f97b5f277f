"""The regions' part in the rows: the rows of a page's margin material (read apart from its
body, never joined to a body row) and the rows of its furniture marked as not read."""

from __future__ import annotations

from collections.abc import Sequence

from translation.read.layout import Frame
from translation.read.regions.doc_stats import DocStats
from translation.read.regions.furniture import RUNNING_HEAD
from translation.read.regions.page_regions import LINE_NUMBER, Kept, PageRegions
from translation.read.rows.row import Row
from translation.read.rows.visual import rows_of_page

#: The region of a margin row (``Row.region``: this, then the number of its margin block,
#: the unit it is read in); body rows have ``""``.
MARGIN = "margin"
#: Points of slack when a row's rects are looked for inside a furniture line's box.
SLACK = 1.0


def margin_rows(region: PageRegions, frame: Frame, stats: DocStats) -> list[Row]:
    """The rows of the page's margin material, each of the region of its margin block (a
    note, a label, a caption: read as one unit, see ``regions.page_regions``)."""
    rows: list[Row] = []
    for n, block in enumerate(region.margin):
        found = rows_of_page((block,), frame, stats)
        for row in found:
            row.region = f"{MARGIN} {n}"
        rows.extend(found)
    return rows


#: Of a line's height: two furniture lines overlapping this much stand on one line.
ONE_LINE = 0.5


def _on_one_line(furniture: list[Kept]) -> list[Kept]:
    """``furniture``, then each set of its lines that stand on one line side by side joined
    into one (a page number and its running head: "10" | "Residual-Based Shadings in vcd"),
    so that a row made of both lies on it wherever its middle falls; the joined line has a
    running head's reason where one of them has it."""
    groups: list[list[Kept]] = []
    for kept in furniture:
        y0, y1 = kept.rect[1], kept.rect[3]
        for group in groups:
            b0, b1 = group[0].rect[1], group[0].rect[3]
            if min(y1, b1) - max(y0, b0) > ONE_LINE * min(y1 - y0, b1 - b0):
                group.append(kept)
                break
        else:
            groups.append([kept])
    joined = [
        Kept(
            group[0].page,
            (
                min(k.rect[0] for k in group),
                min(k.rect[1] for k in group),
                max(k.rect[2] for k in group),
                max(k.rect[3] for k in group),
            ),
            " ".join(k.text for k in sorted(group, key=lambda k: k.rect[0])),
            RUNNING_HEAD if any(k.reason == RUNNING_HEAD for k in group) else group[0].reason,
        )
        for group in groups
        if len(group) > 1
    ]
    return [*furniture, *joined]


def _holds(kept: Kept, row: Row) -> bool:
    x0, y0, x1, y1 = kept.rect
    return all(
        x0 - SLACK <= (r[0] + r[2]) / 2 <= x1 + SLACK
        and y0 - SLACK <= (r[1] + r[3]) / 2 <= y1 + SLACK
        for r in row.rects
    )


def mark_furniture(rows: Sequence[Row], region: PageRegions) -> None:
    """Mark as not read, with the region's reason, the rows lying wholly on the page's
    running heads, footers and page numbers (told across pages by ``regions.furniture``)."""
    furniture = _on_one_line([k for k in region.kept if k.reason != LINE_NUMBER])
    if not furniture:
        return
    for row in rows:
        if row.drop or not row.rects:
            continue
        found = next((k for k in furniture if _holds(k, row)), None)
        if found is not None:
            row.drop = found.reason
