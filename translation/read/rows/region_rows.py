"""The regions' part in the rows: the rows of a page's margin material (read apart from its
body, never joined to a body row) and the rows of its furniture marked as not read."""

from __future__ import annotations

from collections.abc import Sequence

from translation.read.layout import Frame
from translation.read.regions.doc_stats import DocStats
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
    furniture = [k for k in region.kept if k.reason != LINE_NUMBER]
    if not furniture:
        return
    for row in rows:
        if row.drop or not row.rects:
            continue
        found = next((k for k in furniture if _holds(k, row)), None)
        if found is not None:
            row.drop = found.reason
