"""Tables: where a page's table columns are, so each cell is cut out as its own unit.

A table is found from its text alone: a stack of rows that each hold several pieces apart
(MuPDF keeps the cells of a table row as separate lines), whose gaps line up from row to row.
Its columns are divided by *gutters*: x-ranges that the gaps of many rows share and the glyphs
of almost no row cross (a header spanning several columns may). A row inside a table is cut at
every gap that falls in a gutter, however narrow the gap (a tight header row, a label set
close to its first number). Everything here is in frame coordinates and pure.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from translation.read.layout import Rect, Span, union
from translation.read.numbering.grammar import (
    BULLET_OPERATOR,
    BULLET_SHAPES,
    BULLETS,
    DASHES,
    MIDDLE_DOT,
    REFERENCE_MARK,
)
from translation.read.tables.gutter_scan import CROSSED_BY_ONE_IN, open_runs
from translation.read.tables.gutter_scan import STEP as _STEP
from translation.read.tables.label_tables import label_tables
from translation.read.tables.number_columns import number_columns, number_gutters
from translation.read.tables.table_rows import (
    EDGE_SLACK,
    GUTTER_WIDTH,
    LINE_GAP,
    OVERLAP,
    RowItem,
    RowSpans,
    Table,
    outside,
    row_item,
)
from translation.read.tables.table_rules import ALONG, framed, ruled_share

_BRIDGE = 8  # one-cell rows between two rows of cells of one table (a cell's running text)
_FAR_GUTTER = 3.0  # a gutter this much wider than the others: lone pieces past it are no column
#: A list item's mark: a bullet or a dash.
_EDGE = 1.0  # points: a box starting this close to a row's word lines up with it
_ALIGNED_WIDTH = 0.75  # of the cluster's width: a narrower box lined up is a cell
_NUMBER_ROWS = 0.6  # of the rows: numbers after a gutter in this share make a column
_RUNNING_EDGE = 0.15  # font sizes: a row of running text fills the cluster to this close
_FITS = 0.6  # of the wider: a box overlapping this much of a cluster fits it
_LONE_WIDE = 0.6  # of the cluster's width: a row of cells narrower is not of a lone wide row
_STRONG_WIDE = 0.5  # of the cluster's width: a lone row's gap wider makes most of it
_FAR_GUTTER_LEAST = 6.0  # font sizes: a far gutter is at least this wide
_OVERHANG_RANK = 0.6  # where most rows end: this far up the order of their right ends
_OVERHANG_REACH = 0.5  # font sizes: a gutter starting this close past that edge overhangs
_GAP_SHARE = 0.3  # of the spans: a gutter needs gaps in this share of them (at least two)
_ITEM_MARK_RE = re.compile(
    rf"^[{BULLETS}{MIDDLE_DOT}{BULLET_OPERATOR}{BULLET_SHAPES}*{REFERENCE_MARK}\-{DASHES}]$"
)
_NUMBER_RE = re.compile(r"^\(?[-+−±]?\d+(?:[.,]\d+)*%?\)?[*†‡]?$")

_TABLE_ROWS = 3  # rows: a cluster of fewer is no table


def find_tables(
    rows: Sequence[RowSpans], leave_out: Sequence[Rect] = (), rules: Sequence[Rect] = ()
) -> list[Table]:
    """The tables among a page's visual rows (all blocks, any order): stacks of at least three
    rows of several cells, each at most LINE_GAP font sizes below the one before, or below at
    most _BRIDGE rows of one cell in between (a group label, the lines of a cell running over
    several), whose gaps line up into gutters. Up to two lines of a cell of its last row
    (set close below, starting where a cell starts) belong to the table too. Spans whose
    middle lies in a ``leave_out`` box (a running head's lines) are no part of any row."""
    if leave_out:
        rows = [(outside(spans, leave_out), lines) for spans, lines in rows]
    items = sorted(
        (item for spans, lines in rows if (item := row_item(spans, lines)) is not None),
        key=lambda item: item.box[1],
    )
    clusters: list[_Cluster] = []
    for item in items:
        box, size, strong = item.box, item.size, item.strong
        for cluster in reversed(clusters):
            if cluster.closed:
                continue
            near = box[1] - cluster.reach <= LINE_GAP * size
            if near and box[0] < cluster.x1 and box[2] > cluster.x0:
                if item.caption:
                    cluster.closed = True
                    break
                if not strong and item.apart and cluster.shares(item.apart):
                    # A wide cell makes most of this row, yet its gaps are the table's.
                    item = replace(item, strong=item.apart)
                    strong = item.strong
                # A row with a formula cell is a row of the table whose columns it shares.
                cells = bool(strong) and (not item.formula or cluster.shares(strong))
                if cells and cluster.loose and not cluster.fits(box):
                    continue  # past a caption: another table, of another width
                if cells and cluster.lone_wide(box):
                    continue  # below a running head: a table of its own
                if cells:
                    cluster.add(item)
                elif box[0] >= cluster.x0 - size and box[2] <= cluster.x1 + size:
                    # A line of a cell's running text starts where a cell starts and is
                    # narrower than the table; other rows of one cell (group labels) may
                    # stand between rows of cells two at a time at most.
                    aligned = box[2] - box[0] <= _ALIGNED_WIDTH * (cluster.x1 - cluster.x0) and any(
                        abs(box[0] - e[0]) < _EDGE for row in cluster.rows for e in row
                    )
                    if aligned and len(cluster.tail) < _BRIDGE:
                        tight = box[1] - cluster.reach <= size
                        cluster.tail.append(box if tight else (0.0, 0.0, 0.0, 0.0))
                        cluster.reach = max(cluster.reach, box[3])
                    elif not aligned and cluster.crossed_by(item):
                        # A line of running text across the columns (a paragraph's, or a
                        # definition's description between its terms): the rows below it
                        # are no rows of the same table.
                        cluster.closed = True
                    elif not aligned and cluster.loose < 2:
                        cluster.tail.append((0.0, 0.0, 0.0, 0.0))
                        cluster.loose += 1
                        cluster.reach = max(cluster.reach, box[3])
                break
        else:
            if strong and not item.formula:  # a formula row alone is a display formula
                clusters.append(_Cluster(box[0], box[2], box[3]))
                clusters[-1].add(item)
    tables = []
    for cluster in clusters:
        if len(cluster.rows) < _TABLE_ROWS:
            continue
        if cluster.running_text():
            continue
        gutters = _gutters(cluster.rows, sorted(cluster.sizes), cluster.strong)
        gutters, cluster = _without_far_cells(cluster, gutters)
        if not gutters:
            continue
        tail = list(itertools.takewhile(lambda b: b[2] > 0, cluster.tail))[:2]
        boxes = _without_overhang(cluster.boxes, cluster.row_gaps, sorted(cluster.sizes), gutters)
        reach = max(b[2] for b in boxes)
        tail = [b for b in tail if b[0] < reach]  # not a line of the next page column
        box = union(boxes + tail)
        size = sorted(cluster.sizes)[len(cluster.sizes) // 2]
        frame = framed(box, size, rules) if rules else None
        if frame is not None:
            # A list item's dash set apart by a justified line's stretched space, lined up
            # from row to row, is no column of a grid: no rule runs down the gap after it.
            gutters = [
                g
                for g in gutters
                if ruled_share(g, frame, rules) > 0 or not cluster.marks_before(g, gutters)
            ]
            if not gutters:
                continue
        # One gutter alone is a list's markers or labels, unless numbers stand right of it,
        # or a grid's rule parts it (or a table caption stands by it: ``label_tables``).
        parted = frame is not None and ruled_share(gutters[0], frame, rules) >= ALONG
        if not (len(gutters) >= 2 or cluster.numbers_after(gutters[0]) or parted):
            continue
        if frame is not None:
            # Lines of a cell above or below the rows found by their cells (a label centred
            # on a row of several lines, an item's lines hung below it) lie in its frame.
            box = (box[0], min(box[1], frame[1]), box[2], max(box[3], frame[3]))
        narrow = number_gutters(cluster.words, gutters)
        columns = tuple(number_columns(cluster.words))
        tables.append(Table(box, tuple(gutters), tuple(narrow), columns))
    return tables + label_tables(items, tables)


_NUMBER_SHARE = 4  # running text: at most a quarter of its rows end in a number
_CROSSING_WORDS = 5  # words: a line of running text across a table's columns holds this many
_CROSSING_WIDTH = 0.8  # of the table's width: ... and spans this much of it


@dataclass(slots=True)
class _Cluster:
    x0: float
    x1: float
    reach: float  # the bottom of its last row, or of a row bridged below it
    tail: list[Rect] = field(default_factory=list)  # rows of one cell below its last row
    loose: int = 0  # of which not lines of a cell
    closed: bool = False  # a caption below it: no later row belongs to it
    boxes: list[Rect] = field(default_factory=list)
    sizes: list[float] = field(default_factory=list)
    rows: list[list[tuple[float, float]]] = field(default_factory=list)
    strong: list[tuple[float, float]] = field(default_factory=list)
    words: list[list[tuple[Rect, Span]]] = field(default_factory=list)
    row_gaps: list[list[tuple[float, float]]] = field(default_factory=list)  # strong, by row

    def numbers_after(self, gutter: tuple[float, float]) -> bool:
        """Whether most rows hold a number right of ``gutter``: two columns are a table of
        names and values, not a list (markers, reference numbers, bullets) or labels."""
        rows = sum(
            any(b[0] >= gutter[1] - EDGE_SLACK and _NUMBER_RE.match(s.text) for b, s in found)
            for found in self.words
        )
        return rows >= max(2, _NUMBER_ROWS * len(self.words))

    def marks_before(
        self, gutter: tuple[float, float], gutters: Sequence[tuple[float, float]]
    ) -> bool:
        """Whether the words between ``gutter`` and the gutter before it (or the table's left
        edge) are list items' marks alone, in two rows or more, each followed by a word of
        letters past the gutter: a dash or bullet opening its item's text, not a column."""
        start = max((g[1] for g in gutters if g[1] <= gutter[0]), default=-math.inf)
        rows = 0
        for found in self.words:
            before = [
                s.text
                for b, s in found
                if start - EDGE_SLACK <= b[0] and b[2] <= gutter[0] + EDGE_SLACK
            ]
            after = [s.text for b, s in found if b[0] >= gutter[1] - EDGE_SLACK]
            if not before:
                continue
            if not all(_ITEM_MARK_RE.match(t) for t in before) or len(before) > 1:
                return False
            if not after or not after[0][:1].isalpha():
                return False
            rows += 1
        return rows >= 2

    def running_text(self) -> bool:
        """Whether the rows are lines of a justified paragraph, their spaces stretched wide
        around inline formulas ("as p1:s  =  (p1, ..., ps)") or set one word at a time: at
        least half of them (two or more) run from the left edge to the right edge and start
        with a lower-case word, going on with the sentence of a line above, and at most a
        quarter end in a number (a table's rows also run edge to edge where its last column
        is of right-aligned numbers, but a row of cells rarely starts in lower case)."""
        flush = 0
        numbers = 0
        for box, size, found in zip(self.boxes, self.sizes, self.words, strict=True):
            first, last = found[0][1].text, found[-1][1].text
            numbers += bool(_NUMBER_RE.match(last.rstrip(".,;:")))
            edges = (
                abs(box[0] - self.x0) <= _RUNNING_EDGE * size
                and abs(box[2] - self.x1) <= _RUNNING_EDGE * size
            )
            flush += edges and first[:1].islower()
        return flush >= max(2, len(self.boxes) / 2) and numbers <= len(self.boxes) / _NUMBER_SHARE

    def crossed_by(self, item: RowItem) -> bool:
        """Whether ``item``, a row of one piece, is a line of running text across this
        table's columns: words (``_CROSSING_WORDS`` or more) set a word space apart, none
        of them a number, spanning most of the table's width, and the glyphs of one of them
        lying inside a gap that parts two cells in every row of it so far. No cell holds
        such a line (a cell's lines stay in its column): it is a paragraph between two
        tables or between a definition list's terms ("\\keywords{...}  [an NRC macro]" |
        "Automatically prints ‘Keywords:’, followed by what-")."""
        box = item.box
        found = [s.text for _, s in item.found]
        if item.apart or len(found) < _CROSSING_WORDS or not self.rows:
            return False
        if any(_NUMBER_RE.match(t.rstrip(".,;:")) for t in found):
            return False
        if box[2] - box[0] < _CROSSING_WIDTH * (self.x1 - self.x0):
            return False
        shared = [
            gap
            for gap in self.row_gaps[0]
            if all(any(g[0] <= gap[1] and g[1] >= gap[0] for g in gaps) for gaps in self.row_gaps)
        ]
        return any(
            any(gap[0] + EDGE_SLACK < (e[0] + e[1]) / 2 < gap[1] - EDGE_SLACK for gap in shared)
            for e in item.extents
        )

    def fits(self, box: Rect) -> bool:
        """Whether a row of cells spanning ``box`` is about as wide as the table (a table in
        one column below a caption under one over both columns is not)."""
        width, own = self.x1 - self.x0, box[2] - box[0]
        overlap = min(self.x1, box[2]) - max(self.x0, box[0])
        return overlap >= _FITS * max(width, own)

    def lone_wide(self, box: Rect) -> bool:
        """Whether this cluster is one row of two pieces set far apart (a gap making most of
        it: a running head and its page number, across both page columns) far wider than a
        row of cells spanning ``box``. The rows below start a table of their own (2302.07302
        p12: the header row "Action P1 ... AVG SD" went with the running head above it and
        was no row of the table, so it was sent as one string); a header's second line
        ("(words)" under "source" and "summary") is narrow too, but its first line is no
        such row."""
        width = self.x1 - self.x0
        if len(self.rows) != 1 or len(self.strong) != 1 or box[2] - box[0] >= _LONE_WIDE * width:
            return False
        return self.strong[0][1] - self.strong[0][0] > _STRONG_WIDE * width

    def shares(self, strong: Sequence[tuple[float, float]]) -> bool:
        """Whether one of the ``strong`` gaps of a row overlaps one of this table's."""
        return any(min(b, d) - max(a, c) > OVERLAP for a, b in strong for c, d in self.strong)

    def without(self, far: Callable[[float, float], bool]) -> _Cluster:
        """This cluster without the words whose x-range is ``far`` (and the gaps before or
        after them); a row of nothing else is left out."""
        kept = _Cluster(self.x0, self.x1, self.reach, list(self.tail), self.loose, self.closed)
        rows = zip(self.rows, self.words, self.boxes, self.sizes, self.row_gaps, strict=True)
        for extents, found, box, size, gaps in rows:
            near = [e for e in extents if not far(*e)]
            if not near:
                continue
            kept.rows.append(near)
            kept.words.append([(b, s) for b, s in found if not far(b[0], b[2])])
            kept.boxes.append((near[0][0], box[1], near[-1][1], box[3]))
            kept.sizes.append(size)
            strong = [g for g in gaps if near[0][0] <= g[0] and g[1] <= near[-1][1]]
            kept.row_gaps.append(strong)
            kept.strong.extend(strong)
        kept.x0 = min(b[0] for b in kept.boxes)
        kept.x1 = max(b[2] for b in kept.boxes)
        return kept

    def add(self, item: RowItem) -> None:
        self.strong.extend(item.strong)
        self.row_gaps.append(item.strong)
        self.words.append(item.found)
        self.boxes.append(item.box)
        self.sizes.append(item.size)
        self.rows.append(item.extents)
        self.x0, self.x1 = min(self.x0, item.box[0]), max(self.x1, item.box[2])
        self.reach = max(self.reach, item.box[3])
        self.tail, self.loose = [], 0


def _without_far_cells(
    cluster: _Cluster, gutters: list[tuple[float, float]]
) -> tuple[list[tuple[float, float]], _Cluster]:
    """The gutters and rows of a table without lone pieces set far out beside some of its
    rows: past its last gutter (or before its first) where that gutter is at least
    _FAR_GUTTER times as wide as the others (their median) and six font sizes, and the
    column beyond holds one piece (no strong gap) in at most half the rows. Such a piece is
    text of the next page column sharing a row's baseline (a figure's legend label,
    "pred_hints" beside a row of a table in the left column, 03 p16); taken for a column it
    stretched the table across the page's gutter, and the body lines of the next column
    inside that stretch were read as cells. The table then ends where that gutter begins."""
    size = sorted(cluster.sizes)[len(cluster.sizes) // 2]
    for last in (True, False):
        if len(gutters) < 2:
            break
        g0, g1 = gutters[-1] if last else gutters[0]
        others = gutters[:-1] if last else gutters[1:]
        widths = sorted(b - a for a, b in others)
        if g1 - g0 < max(_FAR_GUTTER * widths[len(widths) // 2], _FAR_GUTTER_LEAST * size):
            continue

        def far(x0: float, x1: float, g0: float = g0, g1: float = g1, last: bool = last) -> bool:
            return x0 >= g1 - EDGE_SLACK if last else x1 <= g0 + EDGE_SLACK

        held = [i for i, row in enumerate(cluster.rows) if any(far(*e) for e in row)]
        split = any(far(*gap) for i in held for gap in cluster.row_gaps[i])
        if not held or split or len(held) > len(cluster.rows) / 2:
            continue
        cluster = cluster.without(far)
        gutters = others
    return gutters, cluster


_OVERHANG_ROWS = 3  # rows: with fewer, where most end is the last end


def _without_overhang(
    boxes: Sequence[Rect],
    gaps: Sequence[Sequence[tuple[float, float]]],
    sizes: Sequence[float],
    gutters: Sequence[tuple[float, float]],
) -> list[Rect]:
    """The rows' boxes without what runs on past where most rows end across a strong gap
    holding no gutter of the table: a line of the next page column sharing a row's baseline
    ("Number of Parameters" beside "MSRPC (Dolan, Quirk..."), or a row of it taken for one of
    the table. That text is no part of the table (else the column's paragraphs are read as
    cells and set over the table); a row lying wholly there is left out."""
    size = sizes[len(sizes) // 2]
    ends = sorted(b[2] for b in boxes)
    right = ends[int(_OVERHANG_RANK * len(ends))] if len(ends) >= _OVERHANG_ROWS else ends[-1]
    out: list[Rect] = []
    for box, strong in zip(boxes, gaps, strict=True):
        if box[2] <= right + size:
            out.append(box)
            continue
        if box[0] >= right + size and not any(right < g[0] < box[0] for g in gutters):
            continue  # a row of the next page column
        x1 = box[2]
        for g0, g1 in strong:
            column = any(g0 - EDGE_SLACK < g[0] and g[1] < g1 + EDGE_SLACK for g in gutters)
            if g0 <= right + _OVERHANG_REACH * size and g1 > right + size and not column:
                x1 = min(x1, g0)
        out.append((box[0], box[1], x1, box[3]))
    return out or list(boxes)


def _gutters(
    rows: Sequence[list[tuple[float, float]]],
    sizes: Sequence[float],
    strong: Sequence[tuple[float, float]],
) -> list[tuple[float, float]]:
    """x-ranges crossed by the glyphs of at most a fifth of ``rows`` (spanning headers) and
    falling in a gap between words in at least three in ten (and two) of the rows reaching
    across them, one of them a ``strong`` gap (word spaces that line up, "The word" over "The
    entity", are no column). A row lying wholly right or left of an x-range does not count
    there: where the cells of the later columns run over more lines than the first one's,
    most rows start at the second column (2203.00130 p39: "What did the paper do?" merged
    with its answer cell when the gutter after the question column was missed)."""
    x0 = min(r[0][0] for r in rows)
    x1 = max(r[-1][1] for r in rows)
    n = int((x1 - x0) / _STEP) + 1
    cover = [0] * n
    gaps = [0] * n
    spans = [0] * n  # rows reaching across each x
    for extents in rows:
        for i in range(int(math.ceil((extents[0][0] - x0) / _STEP)), n):
            if x0 + i * _STEP >= extents[-1][1]:
                break
            spans[i] += 1
        for a, b in extents:
            for i in range(int((a - x0) / _STEP), min(n, int(math.ceil((b - x0) / _STEP)))):
                cover[i] += 1
        for (_, a), (b, _) in zip(extents, extents[1:], strict=False):
            for i in range(int(math.ceil((a - x0) / _STEP)), min(n, int((b - x0) / _STEP))):
                gaps[i] += 1
    allowed = len(rows) // CROSSED_BY_ONE_IN
    width = GUTTER_WIDTH * sizes[len(sizes) // 2]
    result: list[tuple[float, float]] = []
    for i, j in open_runs(cover, gaps, allowed):
        lo, hi = x0 + i * _STEP, x0 + j * _STEP
        backed = any(min(hi, b) - max(lo, a) > OVERLAP for a, b in strong)
        enough = any(gaps[k] >= max(2, math.ceil(_GAP_SHARE * spans[k])) for k in range(i, j))
        if enough and hi - lo >= width and backed:
            # Where a few rows' glyphs reach into it, the gutter is its least crossed part
            # (a column's middle, a cell's room, lies there, not over those glyphs).
            least = min(cover[i:j])
            core = [k for k in range(i, j) if cover[k] == least]
            if (core[-1] + 1 - core[0]) * _STEP >= width:
                lo, hi = x0 + core[0] * _STEP, x0 + (core[-1] + 1) * _STEP
            result.append((lo, hi))
    return result
