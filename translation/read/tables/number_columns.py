"""Columns of numbers set a word space apart ("84.2 88.4 91.5", 01 p8 Table 3): LaTeX's
``tabular`` leaves only a few points between them, so their gutters are too narrow for
``translation.read.tables.detect``' gutter scan, and a header of one word per column above them
("CLS USR CITE REC All") is one MuPDF span. Such a gutter is an x-range where most rows of
a table have a gap between two numbers and almost none has a glyph. Pure; frame coordinates.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from translation.read.layout import Rect, Span
from translation.read.tables.gutter_scan import CROSSED_BY_ONE_IN, open_runs
from translation.read.tables.gutter_scan import STEP as _STEP
from translation.read.tables.table_rows import OVERLAP

_NUMBER_RE = re.compile(r"^\(?[-+−±]?\d+(?:[.,]\d+)*%?\)?[*†‡]?$")
_COLUMN = 2.0  # font sizes: the narrowest column of numbers between two gutters
_NARROWEST = 0.15  # a gap between two numbers at least this wide (x font size) parts them
_MOST_ROWS = 0.5  # of the rows: a column of numbers needs numbers in this share (two at least)


def number_gutters(
    rows: Sequence[Sequence[tuple[Rect, Span]]], taken: Sequence[tuple[float, float]]
) -> list[tuple[float, float]]:
    """The x-ranges (not overlapping ``taken``, the gutters found already) between two
    numbers in at least half the ``rows`` (words in x order) and at least two, that the
    glyphs of at most a fifth of them cross (a header spanning columns)."""
    boxes = [box for row in rows for box, _ in row]
    if not boxes:
        return []
    x0, x1 = min(b[0] for b in boxes), max(b[2] for b in boxes)
    n = int((x1 - x0) / _STEP) + 1
    cover, gaps = [0] * n, [0] * n
    for row in rows:
        for box, _ in row:
            for i in range(int((box[0] - x0) / _STEP), min(n, math.ceil((box[2] - x0) / _STEP))):
                cover[i] += 1
        ordered = sorted(row, key=lambda item: item[0][0])
        for (a, sa), (b, sb) in zip(ordered, ordered[1:], strict=False):
            if not (_NUMBER_RE.match(sa.text) and _NUMBER_RE.match(sb.text)):
                continue
            if b[0] - a[2] < _NARROWEST * max(sa.size, sb.size):
                continue
            for i in range(math.ceil((a[2] - x0) / _STEP), min(n, int((b[0] - x0) / _STEP))):
                gaps[i] += 1
    allowed = len(rows) // CROSSED_BY_ONE_IN
    needed = max(2, math.ceil(_MOST_ROWS * len(rows)))
    result: list[tuple[float, float]] = []
    for i, j in open_runs(cover, gaps, allowed):
        lo, hi = x0 + i * _STEP, x0 + j * _STEP
        free = not any(min(hi, b) - max(lo, a) > 0 for a, b in taken)
        if max(gaps[i:j]) >= needed and free:
            result.append((lo, hi))
    return result


def number_columns(rows: Sequence[Sequence[tuple[Rect, Span]]]) -> list[tuple[float, float]]:
    """The x-ranges the numbers of a table's ``rows`` cover, overlapping ones merged (a column
    of numbers, or several where a number is wider than the gutter beside it), in x order."""
    spans = sorted((box[0], box[2]) for row in rows for box, s in row if _NUMBER_RE.match(s.text))
    merged: list[tuple[float, float]] = []
    for a, b in spans:
        if merged and a < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _over_gap(words: Sequence[tuple[Rect, Span]], columns: Sequence[tuple[float, float]]) -> bool:
    """Whether a word among the table's ``columns`` of numbers stands over none of them: a
    header spanning columns, centred over them ("Dataset: ParaSCI ACL", its "ACL" over the
    gap between two columns), not one word to a column."""
    if not columns:
        return False
    lo, hi = columns[0][0], columns[-1][1]
    return any(
        lo < box[0]
        and box[2] < hi
        and not any(min(b, box[2]) - max(a, box[0]) > 0 for a, b in columns)
        for box, _ in words
    )


def lines_up(
    words: Sequence[tuple[Rect, Span]],
    tight: Sequence[tuple[float, float]],
    gutters: Sequence[tuple[float, float]] = (),
    columns: Sequence[tuple[float, float]] = (),
) -> bool:
    """Whether a row's ``words`` (in x order, no number among them) stand one to a column of
    numbers: at least two of the table's gutters lie under the row, one of them ``tight``, and
    a gap between two of its words falls in each of them (a header "CLS USR CITE REC All" over
    five columns of numbers; "BLEU iBLEU SARI", its last gutter wide, ``gutters``), and none of
    its words among the ``columns`` of numbers (see ``number_columns``) stands over no number."""
    if not words or any(_NUMBER_RE.match(span.text) for _, span in words):
        return False  # a row of numbers is cut before its numbers (translation.read.tables.cells)
    if _over_gap(words, columns):
        return False
    left, right = words[0][0][0], max(box[2] for box, _ in words)
    inside = [g for g in tight if left < g[0] and g[1] < right]
    wide = [g for g in gutters if left < g[0] and g[1] < right] if len(inside) == 1 else []
    # A tight gutter just past a wide one is the space between a header's words ("all
    # agree" over one column), not a column of its own: it counts with wide ones only where
    # a column fits between them.
    room = _COLUMN * max(span.size for _, span in words)
    if wide and any(
        min(abs(g[0] - inside[0][1]), abs(inside[0][0] - g[1])) < room for g in gutters
    ):
        return False
    if not inside or len(inside) + len(wide) < 2:
        return False
    gaps = [(a[2], b[0]) for (a, _), (b, _) in zip(words, words[1:], strict=False)]
    return all(
        any(min(g1, b) - max(g0, a) > OVERLAP for a, b in gaps) for g0, g1 in [*inside, *wide]
    )
