"""Rows the page-edge filters must not drop: a footnote running into the bottom band, the
top line of a page that finishes the previous page's sentence."""

from __future__ import annotations

from translation.read.blocks.roles import footnote_label
from translation.read.measures import line_step
from translation.read.rows.row import Row
from translation.read.words.word import (
    ends_sentence,
)

# --- rows the page-edge filters must not drop -----------------------------------------------


def rescue_edge_rows(rows_by_page: dict[int, list[Row]], body_size: float) -> None:
    """Give back to the text what the header/footer filters took from it: footnotes whose last
    lines run into the bottom band (a footnote starts with its marker and is not repeated page
    after page), and the top line of a page that finishes the previous page's sentence."""
    pages = sorted(rows_by_page)
    for index in pages:
        rows = rows_by_page[index]
        _rescue_footnotes(rows, body_size)
        previous = rows_by_page.get(index - 1)
        if previous:
            _rescue_continuation(rows, previous, body_size)


def _rescue_footnotes(rows: list[Row], body_size: float) -> None:
    if not rows:
        return
    middle = (min(r.baseline for r in rows) + max(r.baseline for r in rows)) / 2
    chains: list[list[Row]] = []
    for row in sorted(rows, key=lambda r: r.baseline):
        if row.drop not in ("", "header/footer"):
            continue
        if row.baseline > middle and footnote_label(row, body_size):
            chains.append([row])
            continue
        chain = next((c for c in reversed(chains) if _below(c[-1], row)), None)
        if chain is not None:
            chain.append(row)
    for chain in chains:
        for member in chain:
            if member.drop == "header/footer":
                member.drop = ""


_SAME_SIZE = 0.6  # points: rows of one text across the page's edge differ in size by less
_STEP_LEAST, _STEP_MOST = 0.5, 1.9  # font sizes: the line step between two such rows


def _below(upper: Row, lower: Row) -> bool:
    return (
        abs(upper.size - lower.size) < _SAME_SIZE
        and _STEP_LEAST * upper.size < line_step(upper, lower) < _STEP_MOST * upper.size
        and min(upper.x1, lower.x1) > max(upper.x0, lower.x0)
    )


def _rescue_continuation(rows: list[Row], previous: list[Row], body_size: float) -> None:
    live = [r for r in previous if not r.drop and abs(r.size - body_size) < _SAME_SIZE]
    if not live:
        return
    # The page's last line of body text: the lowest of its rightmost column.
    right = max(r.x0 for r in live)
    last_col = [r for r in live if r.x1 > right]
    last = max(last_col or live, key=lambda r: r.baseline)
    for row in rows:
        if (
            row.drop == "header"
            and abs(row.size - last.size) < _SAME_SIZE
            and not ends_sentence(last.text)
        ):
            row.drop = ""
