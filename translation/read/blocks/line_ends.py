"""Where a line ends in its column: well short of the column's right edge (a paragraph's last
line, a heading, an item's last line) or filled. Pure, on
:class:`~translation.read.rows.row.Row`."""

from __future__ import annotations

from translation.read.rows.row import Row

#: A short line ends this many font sizes before its column's right edge, or this share of
#: the column's width if more (ragged-right text can end a line a few letters early).
SHORT_SIZES, SHORT_SHARE = 2.0, 0.25


def short(row: Row) -> bool:
    """The line ends well before its column's right edge (a last line, a heading)."""
    col0, col1 = row.col_range
    col1 = max(col1, row.x1)
    return row.x1 < col1 - max(SHORT_SIZES * row.size, SHORT_SHARE * (col1 - col0))
