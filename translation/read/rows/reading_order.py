"""Reading order of the rows of a page: columns, bands, side-by-side streams (a margin note
beside the body, the columns of a table set as separate blocks), pieces of one line joined."""

from __future__ import annotations

from collections import Counter

from translation.read.layout import union
from translation.read.math.formulas import NEUTRAL
from translation.read.measures import SIZE_STEP, WORD_SPACE, line_step
from translation.read.rows.row import Row
from translation.read.words.word import ends_sentence

# --- reading order --------------------------------------------------------------------------


_SPANS = 0.2  # of the half width: a row reaching this far into both halves spans them
_COLUMN_SHARE = 0.15  # of the characters: a column holding less is none (one column)
_ALIGNED = 0.5  # font sizes: rows starting this close line up
_INDENT = 2.5  # font sizes: a first line's indent, at most (two full-width characters and more)
_CLEAR = 0.5  # font sizes: a row of one side stays this clear of the gutter
_STEP_LEAST, _STEP_MOST = 0.5, 2.0  # font sizes: the line step to the next line of a text
_BESIDE = 0.7  # font sizes: baselines this close are beside each other
_ONE_LINE = 0.4  # font sizes: baselines further apart are two lines
_OVERLAP = 1.0  # font sizes: a piece may start this far left of the one before it ...
_PIECE_GAP = 1.0  # ... and at most this far right of it, to be one line with it


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
        if left > _SPANS * half and right > _SPANS * half:
            row.col = 2
        else:
            row.col = 0 if (row.x0 + row.x1) / 2 < mid else 1
    _spanning_tails(live)
    for row in live:
        chars[row.col] += len(row.text)
    total = sum(chars) or 1
    if chars[0] < _COLUMN_SHARE * total or chars[1] < _COLUMN_SHARE * total:
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


def _spanning_tails(rows: list[Row]) -> None:
    """Give a spanning paragraph's short last line the spanning column: a half-width row right
    under a spanning row that ends inside a sentence, on its left edge or centred under it (a
    title's second line) or back at the edge under an indented first line, and in its size,
    one line further down, with nothing else on its line
    ("... All results" / "are the average of ..."). The first line of a column under a spanning
    line has the other column's line beside it."""
    ordered = sorted(rows, key=lambda r: r.baseline)
    for prev, row in zip(ordered, ordered[1:], strict=False):
        size = prev.size
        if prev.col != 2 or row.col == 2 or ends_sentence(prev.text):
            continue
        centred = abs((row.x0 + row.x1) - (prev.x0 + prev.x1)) < size
        # Back at the paragraph's edge under its indented first line ("　　本文的...常见问" |
        # "题集会不断更新...").
        if prev.x0 - _INDENT * size <= row.x0 < prev.x0:
            centred = True
        if (abs(row.x0 - prev.x0) > _ALIGNED * size and not centred) or abs(
            row.size - size
        ) > SIZE_STEP:
            continue
        if not _STEP_LEAST * size < line_step(prev, row) < _STEP_MOST * size:
            continue
        if any(r is not row and abs(line_step(row, r)) < _BESIDE * size for r in rows):
            continue
        row.col = 2


def _top_down(rows: list[Row]) -> list[Row]:
    """Rows sorted top to bottom; rows on one baseline left to right, and joined when they
    are pieces of one line that MuPDF put in different blocks. Where the rows stand in two
    streams side by side (see :func:`_side_run`), the left stream is read before the right."""
    rows = sorted(rows, key=lambda r: r.baseline)
    run = _side_run(rows)
    if run is None:
        return _lines(rows)
    start, end, left, right = run
    for stream in (left, right):
        weights: Counter[int] = Counter()
        for row in stream:
            weights[row.col] += len(row.text)
        col = weights.most_common(1)[0][0]
        for row in stream:  # one stream, one column: its lines may continue each other
            row.col = col
    return _lines(rows[:start]) + _top_down(left) + _top_down(right) + _top_down(rows[end:])


def _side_run(rows: list[Row]) -> tuple[int, int, list[Row], list[Row]] | None:
    """The first run of rows (sorted by baseline) that stand in two streams side by side: two
    rows on one baseline, a font size or more apart and not table cells, open a gutter; the
    run grows up and down over the rows that keep clear of it (each narrows it, half a font
    size of it stays open) and ends at a row that crosses it. Returns (start, end, left
    stream, right stream), or None. Pieces of one line (a run of two rows), a formula's
    number (a stream without words) and rows right under a line that crosses the gutter (a
    table's cells, a formula beside its text) are no streams."""
    for i, a in enumerate(rows):
        for j in range(i + 1, len(rows)):
            b = rows[j]
            if line_step(a, b) > _BESIDE * a.size:  # not beside it
                break
            first, second = (a, b) if a.x0 <= b.x0 else (b, a)
            size = max(a.size, b.size)
            if a.cell or b.cell or second.x0 - first.x1 < size:
                continue
            found = _grow_run(rows, i, j, first.x1, second.x0)
            if found is not None:
                return found
    return None


_RUN_ROWS = 3  # rows: a run beside a gutter holds at least this many


def _grow_run(
    rows: list[Row], i: int, j: int, g0: float, g1: float
) -> tuple[int, int, list[Row], list[Row]] | None:
    side: dict[int, bool] = {}  # row index -> on the right of the gutter
    first_gap = (g0, g1)

    def place(k: int) -> bool:
        nonlocal g0, g1
        row = rows[k]
        gap = _CLEAR * row.size
        if row.cell:
            return False
        if row.x1 <= g1 - gap:
            side[k], g0 = False, max(g0, row.x1)
            return True
        if row.x0 >= g0 + gap:
            side[k], g1 = True, min(g1, row.x0)
            return True
        return False

    place(i)
    place(j)
    lo, hi = i, j
    while lo > 0 and place(lo - 1):
        lo -= 1
    while hi + 1 < len(rows) and place(hi + 1):
        hi += 1
    for k in range(i + 1, j):
        place(k)
    members = range(lo, hi + 1)
    left = [rows[k] for k in members if k in side and not side[k]]
    right = [rows[k] for k in members if k in side and side[k]]
    if len(left) + len(right) < _RUN_ROWS or len(left) + len(right) < hi + 1 - lo:
        return None
    if not (_has_words(left) and _has_words(right)):
        return None
    above = rows[lo - 1] if lo else None
    if (
        above is not None
        and above.x0 < first_gap[1]
        and above.x1 > first_gap[0]
        and above.x0 < max(r.x1 for r in left)
        and line_step(above, rows[lo]) < _STEP_MOST * above.size
    ):
        return None  # a line crossing the gutter right above: the rows of one region go on
    return lo, hi + 1, left, right


def _has_words(rows: list[Row]) -> bool:
    """Some row reads as text: two words or more (a column of one-word labels is a table's)."""
    return any(sum(any(c.isalpha() for c in w) for w in row.text.split()) >= 2 for row in rows)


def _lines(rows: list[Row]) -> list[Row]:
    ordered: list[Row] = []
    line: list[Row] = []
    for row in rows:
        if line and abs(line_step(line[0], row)) > _ONE_LINE * line[0].size:
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
            and row.x0 >= prev.x1 - _OVERLAP * prev.size
            and row.x0 - prev.x1 < _PIECE_GAP * max(prev.size, row.size)
        ):
            gap = row.x0 - prev.x1 > WORD_SPACE * prev.size and not prev.chars[-1:].isspace()
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
