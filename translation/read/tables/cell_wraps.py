"""Cell wraps: a cell's line that wraps onto a line of its own below it, outside any table
found on the page.

A row set as cells (a label and its text, a category and its members: "온라인쇼핑몰 | 삼성카드
쇼핑, G마켓, 옥션, 11번가, 인터파크,") is cut into its cells where its pieces stand apart, but
the line its last cell wraps onto stands alone on its row ("쿠팡, 티몬, 위메프"): nothing beside
it makes it a cell, so it would go out as a line of the body, a list's pieces cut from its
start. Such a line is the cell's next line when it starts at the cell's left edge, one line
below it (a line step, not a row's), in the cell's size and weight, ends no further right
than the cell's line by a font size (the cell's line wrapped because the next word did not
fit), and reads on from it: it starts in lower case, or the cell's line ends in ",", "-" or
"/", or in a word that leads on ("... for"). A line that wraps again goes on the same way.

:func:`wrapped_cells` is the rule on plain data. Pure, in frame coordinates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from translation.read.layout import Rect
from translation.read.tables.cell_stacks import open_end

_ALIGN = 0.5  # font sizes: a wrapped line starts this close to its cell's left edge
_STEP_LEAST, _STEP_MOST = 0.8, 1.6  # font sizes: baseline step from the cell's line to it
_REACH = 1.0  # font sizes: it ends at most this far past the cell's line
_SAME_SIZE = 0.5  # points: a cell's lines differ in size by less
_READS_ON = ("-", "/", ",", "，", "、")


@dataclass(frozen=True, slots=True)
class WrapLine:
    """What :func:`wrapped_cells` needs of a row: its glyph box, baseline, font size and
    weight, its text, whether it is a table cell and whether it stands alone on its row."""

    bbox: Rect
    baseline: float
    size: float
    bold: bool
    text: str
    cell: bool
    lone: bool


def wrapped_cells(lines: Sequence[WrapLine]) -> list[int | None]:
    """For each line, the index of the cell line it is the wrapped next line of (the line
    just above it in the chain: a cell, or a line already found to go on one), or None."""
    found: list[int | None] = [None] * len(lines)
    order = sorted(range(len(lines)), key=lambda i: lines[i].baseline)
    for n, i in enumerate(order):
        line = lines[i]
        if line.cell or not line.lone or not line.text:
            continue
        up_index = _line_above(lines, order, n)
        if up_index is None:
            continue
        up = lines[up_index]
        if not (up.cell or found[up_index] is not None):
            continue
        if _goes_on(up, line):
            found[i] = up_index
    return found


def _line_above(lines: Sequence[WrapLine], order: Sequence[int], n: int) -> int | None:
    """The nearest line above ``lines[order[n]]`` whose x-range overlaps it."""
    line = lines[order[n]]
    for k in reversed(order[max(0, n - 40) : n]):
        other = lines[k]
        if other.baseline >= line.baseline - _STEP_LEAST * line.size:
            continue  # its own row
        if min(other.bbox[2], line.bbox[2]) > max(other.bbox[0], line.bbox[0]):
            return k
    return None


def _goes_on(up: WrapLine, line: WrapLine) -> bool:
    size = line.size
    step = line.baseline - up.baseline
    above = up.text.rstrip()
    reads_on = line.text[:1].islower() or above.endswith(_READS_ON) or open_end(above)
    return (
        reads_on
        and abs(line.bbox[0] - up.bbox[0]) < _ALIGN * size
        and _STEP_LEAST * size <= step <= _STEP_MOST * size
        and abs(line.size - up.size) < _SAME_SIZE
        and line.bold == up.bold
        and line.bbox[2] <= up.bbox[2] + _REACH * size
        and any(c.isalpha() for c in line.text)
    )
