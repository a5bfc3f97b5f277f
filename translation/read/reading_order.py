"""Reading order of the rows of a page: columns, bands, pieces of one line joined."""

from __future__ import annotations

from translation.read.formulas import NEUTRAL
from translation.read.layout import union
from translation.read.rows import Row

# --- reading order --------------------------------------------------------------------------


def reading_order(rows: list[Row]) -> list[Row]:
    """Rows in reading order: single-column pages top to bottom; two-column pages band by band
    (a band ends at a row spanning both columns), left column before right column.

    Rows, not MuPDF blocks, are ordered: blocks of some producers (Word) interleave vertically.
    """
    live = [r for r in rows if not r.drop]
    if not live:
        return []
    x0 = min(r.x0 for r in live)
    x1 = max(r.x1 for r in live)
    mid = (x0 + x1) / 2
    half = (x1 - x0) / 2
    chars = [0, 0, 0]
    for row in live:
        left = min(row.x1, mid) - row.x0
        right = row.x1 - max(row.x0, mid)
        if left > 0.2 * half and right > 0.2 * half:
            row.col = 2
        else:
            row.col = 0 if (row.x0 + row.x1) / 2 < mid else 1
        chars[row.col] += len(row.text)
    total = sum(chars) or 1
    if chars[0] < 0.15 * total or chars[1] < 0.15 * total:
        for row in live:
            row.col, row.col_range = 0, (x0, x1)
        return _top_down(live)
    ranges = {2: (x0, x1)}
    for col in (0, 1):
        rows_in = [r for r in live if r.col == col]
        ranges[col] = (min(r.x0 for r in rows_in), max(r.x1 for r in rows_in))
    ordered: list[Row] = []
    band: list[Row] = []
    for row in _top_down(live):
        row.col_range = ranges[row.col]
        if row.col == 2:
            ordered.extend(_top_down([r for r in band if r.col == 0]))
            ordered.extend(_top_down([r for r in band if r.col == 1]))
            band.clear()
            ordered.append(row)
        else:
            band.append(row)
    ordered.extend(_top_down([r for r in band if r.col == 0]))
    ordered.extend(_top_down([r for r in band if r.col == 1]))
    return ordered


def _top_down(rows: list[Row]) -> list[Row]:
    """Rows sorted top to bottom; rows on one baseline left to right, and joined when they
    are pieces of one line that MuPDF put in different blocks."""
    ordered: list[Row] = []
    line: list[Row] = []
    for row in sorted(rows, key=lambda r: r.baseline):
        if line and abs(row.baseline - line[0].baseline) > 0.4 * line[0].size:
            ordered.extend(_join_pieces(sorted(line, key=lambda r: r.x0)))
            line = []
        line.append(row)
    ordered.extend(_join_pieces(sorted(line, key=lambda r: r.x0)))
    return ordered


def _join_pieces(line: list[Row]) -> list[Row]:
    joined: list[Row] = []
    for row in line:
        prev = joined[-1] if joined else None
        if (
            prev is not None
            and not prev.cell
            and not row.cell
            and prev.col == row.col
            and row.x0 >= prev.x1 - 1.0 * prev.size
            and row.x0 - prev.x1 < 1.0 * max(prev.size, row.size)
        ):
            gap = row.x0 - prev.x1 > 0.15 * prev.size and not prev.chars[-1:].isspace()
            joined[-1] = Row(
                chars=prev.chars + (" " if gap else "") + row.chars,
                classes=prev.classes + (NEUTRAL if gap else "") + row.classes,
                boxes=prev.boxes + ([prev.boxes[-1]] if gap else []) + row.boxes,
                bbox=union([prev.bbox, row.bbox]),
                baseline=prev.baseline,
                size=prev.size if len(prev.text) >= len(row.text) else row.size,
                rects=prev.rects + row.rects,
                bold=prev.bold and row.bold,
                bold_lead=prev.bold_lead + (len(row.chars) if prev.bold and row.bold else 0),
                mono=(prev.mono * len(prev.text) + row.mono * len(row.text))
                / max(1, len(prev.text) + len(row.text)),
                color=prev.color,
                col=prev.col,
                col_range=prev.col_range,
                styles=prev.styles + (prev.styles[-1:] if gap else []) + row.styles,
            )
        else:
            joined.append(row)
    return joined
