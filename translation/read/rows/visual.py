"""Visual rows: a block's lines read as the rows of a page (lines of one baseline
joined, a table row cut into its cells at the columns found, cells stacked), each made a
:class:`~translation.read.rows.row.Row`."""

from __future__ import annotations

from collections.abc import Sequence

from translation.read.layout import Block, Frame, Line, axis, union
from translation.read.measures import SCRIPT
from translation.read.regions.doc_stats import DocStats
from translation.read.rows.baselines import line_baseline
from translation.read.rows.row import Row, make_row
from translation.read.tables.cell_align import centred_over
from translation.read.tables.cell_stacks import StackLine, stacks
from translation.read.tables.cells import cell_gaps, split_cells
from translation.read.tables.table_rows import RowSpans, Table, line_gaps, words
from translation.read.words.stretched_spaces import justified_edge, justified_line


def visual_rows(block: Block, frame: Frame) -> list[RowSpans]:
    """The visual rows of a block: the spans of its lines that run in the frame's direction,
    grouped by baseline (so a superscript line joins its row), sorted by x, with the x-range
    of each of its MuPDF lines."""
    lines = []
    for line in block.lines:
        if any(s.text.strip() for s in line.spans) and axis(line.direction) == frame.u:
            base, size = line_baseline(line, frame)
            lines.append((base, size, line))
    lines.sort(key=lambda item: item[0])
    groups: list[list[tuple[float, float, Line]]] = []
    for item in lines:
        if groups and any(_same_row(item, other) for other in _peers(item, groups[-1])):
            groups[-1].append(item)
        else:
            groups.append([item])
    return [
        (
            sorted(
                ((frame.to_frame(s.bbox), s) for _, _, line in group for s in line.spans if s.text),
                key=lambda item: item[0][0],
            ),
            tuple(sorted(frame.to_frame(line.bbox)[::2] for _, _, line in group)),
        )
        for group in groups
    ]


def rows_of_page(
    blocks: Sequence[Block], frame: Frame, stats: DocStats, tables: Sequence[Table] = ()
) -> list[Row]:
    """The rows of every block of a page (see ``rows_of_block``), the lines of each multi-line
    table cell stacked over the whole page: MuPDF may set each row of a table as a block of
    its own (the cells of one row share a baseline), so a cell's lines are in several blocks."""
    rows: list[Row] = []
    in_table: list[tuple[Row, int, Table]] = []
    for block in blocks:
        rows.extend(rows_of_block(block, frame, stats, tables, in_table))
    _stack_cells(in_table)
    return rows


def rows_of_block(
    block: Block,
    frame: Frame,
    stats: DocStats,
    tables: Sequence[Table] = (),
    in_table: list[tuple[Row, int, Table]] | None = None,
) -> list[Row]:
    """The visual rows of a block (see ``visual_rows``), table rows cut into cells: at the
    columns of a table found on the page (``tables``, see translation.read.tables.detect),
    elsewhere at
    wide gaps and between MuPDF lines set well apart (a table's header row). The lines of a
    multi-line cell are stacked here, or, given ``in_table``, the block's table rows (with
    their visual row's pieces) are added to it for stacking over the page."""
    rows: list[Row] = []
    gathered = in_table is not None
    if in_table is None:
        in_table = []  # a table's rows, with their visual row's pieces
    found = visual_rows(block, frame)
    # Lines set apart part cells only in a block of one or two rows (a lone header row): in a
    # paragraph they are the stretched spaces of a justified line (Word sets words apart).
    lone = len(found) <= 2
    edge = None if lone else _justified_edge(found)
    for spans, lines in found:
        glyphs = [b for b, s in spans if s.text.strip()]
        if not glyphs:
            continue
        table = next((t for t in tables if t.holds(union(glyphs))), None)
        if table is not None:
            spans = words(spans, frame)
        size = max(s.size for _, s in spans)
        gaps = table.gutters if table else cell_gaps(spans, line_gaps(lines, size)) if lone else []
        tight, numbers = (table.tight, table.numbers) if table else ((), ())
        # A justified line of the paragraph is cut at none of its stretched spaces, however
        # wide (a line of a few words before one too long to fit on it).
        words_at = [(b[0], b[2], s.text) for b, s in spans if s.text.strip()]
        if table is None and edge is not None and justified_line(words_at, size, edge):
            cut = [spans]
        else:
            cut = split_cells(spans, gaps, table is None and not lone, tight, numbers)
        pieces = [p for p in cut if any(s.text.strip() for _, s in p)]
        for i, piece in enumerate(pieces):
            # A table cell's size is its main text's, not its subscripts' ("TAPAS_LARGE" in
            # small caps has more letters in the subscript than at the full size).
            main = max((s.size for _, s in piece if any(c.isalnum() for c in s.text)), default=0)
            # Inside a table every piece is a cell, one alone on its row too (a cell that
            # MuPDF set as a block of its own, a line of a cell wrapped in its box).
            cell = len(pieces) > 1 or table is not None
            row = make_row(piece, frame, stats, cell, main if table else None)
            if row.cell:
                # The cell may use its column's free width: up to halfway to its neighbours.
                left = (pieces[i - 1][-1][0][2] + row.x0) / 2 if i else row.x0
                right = (row.x1 + pieces[i + 1][0][0][0]) / 2 if i + 1 < len(pieces) else row.x1
                if table is not None:  # the row's first and last cells reach its edges
                    x0, x1 = table.column(row.bbox)
                    left = x0 if i == 0 else left
                    right = x1 if i + 1 == len(pieces) else right
                row.room = (min(left, row.x0), row.top, max(right, row.x1), row.bottom)
                if table is not None:
                    row.centred = centred_over(row.bbox, row.size, table.numbers)
            rows.append(row)
            if table is not None:
                in_table.append((row, len(pieces), table))
    if not gathered:
        _stack_cells(in_table)
    return rows


def _justified_edge(found: Sequence[RowSpans]) -> tuple[float, float] | None:
    """The left and right edges of a block of running text set justified (its rows ending at
    one right edge, see ``justified_edge``), or None."""
    rows = [[b for b, s in spans if s.text.strip()] for spans, _ in found]
    rows = [boxes for boxes in rows if boxes]
    if not rows:
        return None
    size = max(s.size for spans, _ in found for _, s in spans)
    right = justified_edge([max(b[2] for b in boxes) for boxes in rows], size)
    return None if right is None else (min(boxes[0][0] for boxes in rows), right)


def _peers(
    item: tuple[float, float, Line], group: list[tuple[float, float, Line]]
) -> list[tuple[float, float, Line]]:
    """The lines of ``group`` a line may join it by: a line of text joins a row through its
    lines of text, not through a fraction's denominator hanging below them (the next line of
    the paragraph would join the formula's row); through its scripts only where it has
    nothing else."""
    peers = [other for other in group if other[1] >= SCRIPT * item[1]]
    return peers or group


_SAME_ROW = 0.5  # font sizes: baselines of one row lie this close ...
_SCRIPT_ROW = 0.75  # ... or this close when one line is script-size


def _same_row(a: tuple[float, float, Line], b: tuple[float, float, Line]) -> bool:
    """Whether two lines (baseline, size, line) share a row: their baselines are within half
    a font size, or within three quarters when one is script-size (a label stacked over an
    arrow, a fraction's numerator, limits sit higher or lower than a superscript would)."""
    small, large = sorted((a[1], b[1]))
    reach = _SAME_ROW if small >= SCRIPT * large else _SCRIPT_ROW
    return abs(a[0] - b[0]) < reach * large


def _stack_cells(rows: list[tuple[Row, int, Table]]) -> None:
    """Give the lines of one multi-line table cell a common ``stack`` (see cell_stacks.stacks);
    each becomes a cell, its room its column's width."""
    lines = [
        StackLine(row.bbox, row.baseline, row.size, row.bold, pieces == 1, row.text)
        for row, pieces, _ in rows
    ]
    keys = stacks(lines, rows[0][2].gutters if rows else ())
    for (row, _, table), stack in zip(rows, keys, strict=True):
        if stack is None:
            continue
        row.stack, row.cell = stack, True
        x0, x1 = table.column(row.bbox)
        room = row.room or row.bbox
        row.room = (min(room[0], x0), row.top, max(room[2], x1), row.bottom)
