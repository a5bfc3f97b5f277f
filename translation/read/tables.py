"""Tables: where a page's table columns are, so each cell is cut out as its own unit.

A table is found from its text alone: a stack of rows that each hold several pieces apart
(MuPDF keeps the cells of a table row as separate lines), whose gaps line up from row to row.
Its columns are divided by *gutters*: x-ranges that the gaps of many rows share and the glyphs
of almost no row cross (a header spanning several columns may). A row inside a table is cut at
every gap that falls in a gutter, however narrow the gap (a tight header row, a label set
close to its first number). Everything here is in frame coordinates and pure.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from translation.read.captions import caption_label
from translation.read.formulas import is_math_font
from translation.read.gutter_scan import STEP as _STEP
from translation.read.gutter_scan import open_runs
from translation.read.layout import Rect, Span, union
from translation.read.number_columns import number_gutters
from translation.read.style import is_bold, span_style

#: The spans of one visual row, sorted by x (frame box, span), and the x-range of each of the
#: MuPDF lines it is made of, sorted.
RowSpans = tuple[list[tuple[Rect, Span]], tuple[tuple[float, float], ...]]

_CHUNK_GAP = 0.5  # a gap between words this wide (x font size) may separate two cells
_LINE_GAP = 3.5  # rows of one table stand at most this far apart (x font size)
_GUTTER_WIDTH = 0.45  # the narrowest gutter (x font size): wider than a word space
_BRIDGE = 8  # one-cell rows between two rows of cells of one table (a cell's running text)
#: A list's marker or a reference's label: a bullet, "1.", "(ii)", "a)", "[12]", "[Smi20]".
_MARKER_RE = re.compile(
    r"^(?:[•·∙◦▪‣–—*-]|\(?[0-9ivxIVX]{1,4}[.)\]]|\[[^\]]{1,12}\]|\(?[a-zA-Z][.)])$"
)
_NUMBER_RE = re.compile(r"^\(?[-+−±]?\d+(?:[.,]\d+)*%?\)?[*†‡]?$")


@dataclass(frozen=True, slots=True)
class Table:
    """A table's area and the x-ranges between its columns (frame coordinates)."""

    bbox: Rect
    gutters: tuple[tuple[float, float], ...]
    #: Gutters between columns of numbers set a word space apart, too narrow for ``gutters``
    #: (see ``translation.read.number_columns``): they part the words of a header row only.
    tight: tuple[tuple[float, float], ...] = ()

    def column(self, box: Rect) -> tuple[float, float]:
        """The x-range of the column a cell with glyph box ``box`` starts in: from the middle
        of the gutter before it to the middle of the one after (or the table's edges)."""
        left, right = self.bbox[0], self.bbox[2]
        for g0, g1 in self.gutters:
            if g1 <= box[0] + 0.5:
                left = (g0 + g1) / 2
            elif g0 >= box[0]:
                right = (g0 + g1) / 2
                break
        return left, right

    def holds(self, box: Rect) -> bool:
        """Whether a row with glyph box ``box`` belongs to this table."""
        cy = (box[1] + box[3]) / 2
        return (
            self.bbox[1] <= cy <= self.bbox[3] and box[0] < self.bbox[2] and box[2] > self.bbox[0]
        )


def words(spans: Sequence[tuple[Rect, Span]]) -> list[tuple[Rect, Span]]:
    """The spans cut at their spaces into one span per word (boxes estimated along the span,
    a space taking half a letter); spaces are dropped. Spans without a space stay whole."""
    result: list[tuple[Rect, Span]] = []
    for box, span in spans:
        text = span.text
        if not text.strip():
            continue
        if " " not in text.strip() and text == text.strip():
            result.append((box, span))
            continue
        shares = [0.5 if c.isspace() else 1.0 for c in text]
        step = (box[2] - box[0]) / sum(shares)
        left = box[0]
        start: float | None = None
        word = ""
        for char, share in zip(text + " ", [*shares, 0.0], strict=True):
            if char.isspace():
                if word and start is not None:
                    result.append(((start, box[1], left, box[3]), _part(span, word, start)))
                word, start = "", None
            else:
                if start is None:
                    start = left
                word += char
            left += share * step
    return result


def _part(span: Span, text: str, x: float) -> Span:
    origin = (x, span.origin[1]) if span.origin is not None else None
    return Span(text, span.bbox, span.font, span.size, span.flags, span.color, origin)


def find_tables(rows: Sequence[RowSpans], leave_out: Sequence[Rect] = ()) -> list[Table]:
    """The tables among a page's visual rows (all blocks, any order): stacks of at least three
    rows of several cells, each at most _LINE_GAP font sizes below the one before, or below at
    most _BRIDGE rows of one cell in between (a group label, the lines of a cell running over
    several), whose gaps line up into gutters. Up to two lines of a cell of its last row
    (set close below, starting where a cell starts) belong to the table too. Spans whose
    middle lies in a ``leave_out`` box (a running head's lines) are no part of any row."""
    if leave_out:
        rows = [(_outside(spans, leave_out), lines) for spans, lines in rows]
    items = sorted(
        (item for spans, lines in rows if (item := _row_item(spans, lines)) is not None),
        key=lambda item: item.box[1],
    )
    clusters: list[_Cluster] = []
    for item in items:
        box, size, strong = item.box, item.size, item.strong
        for cluster in reversed(clusters):
            if cluster.closed:
                continue
            near = box[1] - cluster.reach <= _LINE_GAP * size
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
                    aligned = box[2] - box[0] <= 0.75 * (cluster.x1 - cluster.x0) and any(
                        abs(box[0] - e[0]) < 1.0 for row in cluster.rows for e in row
                    )
                    if aligned and len(cluster.tail) < _BRIDGE:
                        tight = box[1] - cluster.reach <= size
                        cluster.tail.append(box if tight else (0.0, 0.0, 0.0, 0.0))
                        cluster.reach = max(cluster.reach, box[3])
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
        if len(cluster.rows) < 3:
            continue
        if cluster.running_text():
            continue
        gutters = _gutters(cluster.rows, sorted(cluster.sizes), cluster.strong)
        # One gutter alone is a list's markers or labels, unless numbers stand right of it
        # (or a table caption stands by it: ``label_tables``).
        if len(gutters) >= 2 or (gutters and cluster.numbers_after(gutters[0])):
            tail = list(itertools.takewhile(lambda b: b[2] > 0, cluster.tail))[:2]
            boxes = _without_overhang(
                cluster.boxes, cluster.row_gaps, sorted(cluster.sizes), gutters
            )
            narrow = number_gutters(cluster.words, gutters)
            reach = max(b[2] for b in boxes)
            tail = [b for b in tail if b[0] < reach]  # not a line of the next page column
            tables.append(Table(union(boxes + tail), tuple(gutters), tuple(narrow)))
    return tables + label_tables(items, tables)


def label_tables(items: Sequence[_RowItem], found: Sequence[Table]) -> list[Table]:
    """Tables of two columns, a short label beside a cell of running text (``ID | topic``,
    ``category | title``), among rows (``items``, by top) that no table in ``found`` holds.
    One gutter alone is also a list's markers, a term beside its definition or a reference's
    hanging indent, so such a stack is a table only where a table's caption ("Table 7:")
    stands directly below it or above it, with at least three labels, each short and none a
    list marker. Its rows are *label rows* whose first piece (the label) stands apart from
    the rest at one x; between them, lines of a cell start where the text of the rows starts,
    and a short group label ("Region B") where the labels start."""
    result: list[Table] = []
    done = -1
    for i, item in enumerate(items):
        if i <= done or _label_gap(item) is None:
            continue
        if any(t.holds(item.box) for t in [*found, *result]):
            continue
        table, done = _label_stack(items, i)
        if table is not None:
            result.append(table)
    return result


def _label_gap(item: _RowItem) -> tuple[float, float] | None:
    """The gap after a row's label: its first gap set apart (strong, or apart), with at most
    three words before it."""
    gaps = sorted(item.strong or item.apart)
    if not gaps or item.caption:
        return None
    first = gaps[0]
    if first[1] - first[0] < _CHUNK_GAP * item.size:
        return None
    before = [span for box, span in item.found if box[2] <= first[0] + 0.5]
    if not before or len(before) > 3:
        return None
    return first


def _label_stack(items: Sequence[_RowItem], start: int) -> tuple[Table | None, int]:
    """The label table whose first label row is ``items[start]`` (None where the stack is
    none), and the index of the last row looked at as part of it."""
    first = items[start]
    gap = _label_gap(first)
    assert gap is not None
    left, size = first.box[0], first.size
    text_x = gap[1]
    gutter = gap
    boxes = [first.box]
    labels = [[s.text for b, s in first.found if b[2] <= gap[0] + 0.5]]
    reach, x1 = first.box[3], first.box[2]
    lines = 0  # lines of a cell (or group labels) since the last label row
    captioned = _caption_above(items, start, size)
    last = start
    head = _group_label_above(items, start)
    if head is not None:
        boxes.append(head)
    for j in range(start + 1, len(items)):
        other = items[j]
        box = other.box
        if box[1] - reach > _LINE_GAP * size:
            break  # so is every row after it (by top)
        if box[2] <= left or box[0] >= x1 + size:
            continue  # a row of another page column
        if other.caption:
            captioned = captioned or box[1] - reach <= _LINE_GAP * size
            break
        own = _label_gap(other)
        if own is not None and abs(box[0] - left) <= 1.0 and abs(own[1] - text_x) <= 1.0:
            gutter = (max(gutter[0], own[0]), min(gutter[1], own[1]))
            labels.append([s.text for b, s in other.found if b[2] <= own[0] + 0.5])
            lines = 0
        elif lines >= 4:
            break
        elif abs(box[0] - text_x) <= 1.0 and box[2] <= x1 + size and box[1] - reach <= size:
            lines += 1  # a line of the text cell above
        elif (
            abs(box[0] - left) <= 1.0
            and box[2] - box[0] <= 0.5 * (x1 - left)
            and not other.strong
            and not other.apart
        ):
            lines += 1  # a group label over the rows below it
        else:
            break
        boxes.append(box)
        reach, x1, last = max(reach, box[3]), max(x1, box[2]), j
    short = all(len(" ".join(t)) <= 24 for t in labels)
    markers = all(_MARKER_RE.match(" ".join(t)) for t in labels)
    narrow = gutter[0] - left <= 0.35 * (x1 - left)
    if len(labels) >= 3 and captioned and short and narrow and not markers:
        if gutter[1] - gutter[0] >= _GUTTER_WIDTH * size:
            return Table(union(boxes), (gutter,)), last
    return None, start


def _group_label_above(items: Sequence[_RowItem], start: int) -> Rect | None:
    """The box of a short row of one piece set where the labels start, directly above the
    first label row (a group label or a header over the labels), if there is one."""
    first = items[start]
    for k in range(start - 1, -1, -1):
        box = items[k].box
        if box[2] <= first.box[0] or box[0] >= first.box[2]:
            continue
        near = first.box[1] - box[3] <= first.size
        lone = not items[k].strong and not items[k].apart and not items[k].caption
        short = box[2] - box[0] <= 0.5 * (first.box[2] - first.box[0])
        if near and lone and short and abs(box[0] - first.box[0]) <= 1.0:
            return box
        return None
    return None


def _caption_above(items: Sequence[_RowItem], start: int, size: float) -> bool:
    """Whether a table caption (its first line, then up to three more lines set close
    together) ends directly above ``items[start]``."""
    first = items[start]
    top = first.box[1]
    limit = _LINE_GAP * size
    seen = 0
    for k in range(start - 1, -1, -1):
        other = items[k]
        box = other.box
        if box[2] <= first.box[0] or box[0] >= first.box[2] or box[3] > top + 0.5:
            continue
        if top - box[3] > limit or seen > 3:
            return False
        if other.caption:
            return True
        if other.strong:
            return False
        top, limit, seen = box[1], size, seen + 1
    return False


def _outside(spans: list[tuple[Rect, Span]], boxes: Sequence[Rect]) -> list[tuple[Rect, Span]]:
    def inside(box: Rect, out: Rect) -> bool:
        x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        return out[0] <= x <= out[2] and out[1] <= y <= out[3]

    return [(box, span) for box, span in spans if not any(inside(box, b) for b in boxes)]


@dataclass(frozen=True, slots=True)
class _RowItem:
    """A visual row as ``find_tables`` sees it: its glyph box, font size, word extents,
    *strong* gaps (between MuPDF lines, or a font size wide: a row of cells has some), words,
    whether it begins a caption, whether it holds cells with a formula making half its
    text (a row of a table only where a table's columns are found without it), and *apart*:
    the strong gaps of a row set in pieces whose widest piece makes most of it (a row of a
    table only where its gaps are a table's: a wide cell of running text beside a short one)."""

    box: Rect
    size: float
    extents: list[tuple[float, float]]
    strong: list[tuple[float, float]]
    found: list[tuple[Rect, Span]]
    caption: bool
    formula: bool
    apart: list[tuple[float, float]] = field(default_factory=list)


def _row_item(
    spans: list[tuple[Rect, Span]], lines: Sequence[tuple[float, float]]
) -> _RowItem | None:
    found = words(spans)
    if not found:
        return None
    size = max(s.size for _, s in found)
    extents = _extents(found)
    gaps = [b[0] - a[1] for a, b in zip(extents, extents[1:], strict=False)]
    cuts = [k for k, g in enumerate(gaps) if g >= _CHUNK_GAP * size]
    cells = bool(cuts) and (len(lines) >= 2 or max(gaps) >= 1.5 * size)
    cells = cells and not _justified(found, extents, gaps, size)
    pieces = cells
    formula = False
    if cells:
        # A piece making most of the row is a line of text with something set apart (a
        # section number, a small-caps initial, a wide space), not a row of cells; nor is
        # a line of a display formula (mostly math, no text apart from it).
        starts = [extents[0][0]] + [extents[k + 1][0] for k in cuts]
        ends = [extents[k][1] for k in cuts] + [extents[-1][1]]
        widest = max(b - a for a, b in zip(starts, ends, strict=True))
        maths = sum(len(s.text) for _, s in found if is_math_font(s.font))
        text = sum(len(s.text) for _, s in found)
        cells = widest <= 0.7 * (extents[-1][1] - extents[0][0])
        formula = maths >= 0.5 * text
        if formula:
            cells = cells and any(
                c.isalpha() for _, s in found if not is_math_font(s.font) for c in s.text
            )
    top, bottom = min(b[1] for b, _ in found), max(b[3] for b, _ in found)
    # Word sets an inline formula apart from the text beside it (a MuPDF line ends or
    # starts at it, a justified space wide): a gap there is a word space of running text.
    formula_edges = [edge for box, s in found if is_math_font(s.font) for edge in (box[0], box[2])]
    strong = [
        (a[1], b[0])
        for a, b in zip(extents, extents[1:], strict=False)
        if b[0] - a[1] >= size
        or not (
            any(x0 <= a[1] + 0.5 and x1 >= b[0] - 0.5 for x0, x1 in lines)
            or any(abs(e - a[1]) < 0.5 or abs(e - b[0]) < 0.5 for e in formula_edges)
        )
    ]
    # A caption's first line is no row of cells, whatever lines up with the columns in it
    # ("Table 4:  A comparison of algorithms", 03 p7), and no table runs past it.
    caption = _caption(found)
    box = (extents[0][0], top, extents[-1][1], bottom)
    apart = strong if pieces and not cells and not formula and not caption else []
    return _RowItem(
        box, size, extents, strong if cells and not caption else [], found, caption, formula, apart
    )


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
            any(b[0] >= gutter[1] - 0.5 and _NUMBER_RE.match(s.text) for b, s in found)
            for found in self.words
        )
        return rows >= max(2, 0.6 * len(self.words))

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
            edges = abs(box[0] - self.x0) <= 0.15 * size and abs(box[2] - self.x1) <= 0.15 * size
            flush += edges and first[:1].islower()
        return flush >= max(2, len(self.boxes) / 2) and numbers <= len(self.boxes) / 4

    def fits(self, box: Rect) -> bool:
        """Whether a row of cells spanning ``box`` is about as wide as the table (a table in
        one column below a caption under one over both columns is not)."""
        width, own = self.x1 - self.x0, box[2] - box[0]
        overlap = min(self.x1, box[2]) - max(self.x0, box[0])
        return overlap >= 0.6 * max(width, own)

    def lone_wide(self, box: Rect) -> bool:
        """Whether this cluster is one row of two pieces set far apart (a gap making most of
        it: a running head and its page number, across both page columns) far wider than a
        row of cells spanning ``box``. The rows below start a table of their own (2302.07302
        p12: the header row "Action P1 ... AVG SD" went with the running head above it and
        was no row of the table, so it was sent as one string); a header's second line
        ("(words)" under "source" and "summary") is narrow too, but its first line is no
        such row."""
        width = self.x1 - self.x0
        if len(self.rows) != 1 or len(self.strong) != 1 or box[2] - box[0] >= 0.6 * width:
            return False
        return self.strong[0][1] - self.strong[0][0] > 0.5 * width

    def shares(self, strong: Sequence[tuple[float, float]]) -> bool:
        """Whether one of the ``strong`` gaps of a row overlaps one of this table's."""
        return any(min(b, d) - max(a, c) > 0.1 for a, b in strong for c, d in self.strong)

    def add(self, item: _RowItem) -> None:
        self.strong.extend(item.strong)
        self.row_gaps.append(item.strong)
        self.words.append(item.found)
        self.boxes.append(item.box)
        self.sizes.append(item.size)
        self.rows.append(item.extents)
        self.x0, self.x1 = min(self.x0, item.box[0]), max(self.x1, item.box[2])
        self.reach = max(self.reach, item.box[3])
        self.tail, self.loose = [], 0


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
    right = ends[int(0.6 * len(ends))] if len(ends) >= 3 else ends[-1]
    out: list[Rect] = []
    for box, strong in zip(boxes, gaps, strict=True):
        if box[2] <= right + size:
            out.append(box)
            continue
        if box[0] >= right + size and not any(right < g[0] < box[0] for g in gutters):
            continue  # a row of the next page column
        x1 = box[2]
        for g0, g1 in strong:
            column = any(g0 - 0.5 < g[0] and g[1] < g1 + 0.5 for g in gutters)
            if g0 <= right + 0.5 * size and g1 > right + size and not column:
                x1 = min(x1, g0)
        out.append((box[0], box[1], x1, box[3]))
    return out or list(boxes)


def _justified(
    found: Sequence[tuple[Rect, Span]],
    extents: Sequence[tuple[float, float]],
    gaps: Sequence[float],
    size: float,
) -> bool:
    """Whether a row is a justified line of running text whose words MuPDF keeps as lines of
    their own: the spaces between its words of letters all stretched alike (at least three),
    those beside an inline formula or a number at most twice as wide. A table's cells stand at
    their columns' places, so the gaps between them differ with their widths, and a cell's
    own word spaces are narrow beside them ("and  a  generic  sequence  of  tokens  denoting"
    and "the  prompt  infix  as  q1:t  =  (q1, ...)": three such lines made a paragraph a
    table)."""
    texts = ["" for _ in extents]
    for box, span in found:
        k = bisect.bisect_right([a for a, _ in extents], box[0] + 0.01) - 1
        math = is_math_font(span.font)
        texts[max(k, 0)] += "\0" if math else span.text
    plain = [t.strip().strip("\u201c\u201d\"'(),.;:-") for t in texts]
    letters = [t.isalpha() for t in plain]
    between = [g for k, g in enumerate(gaps) if letters[k] and letters[k + 1]]
    if len(between) < 3 or max(between) - min(between) > max(0.5, 0.05 * size):
        return False
    widths = [b - a for a, b in extents]
    if max(widths) - min(widths) < size:  # words of one width: a table's uniform cells
        return False
    stretched = sum(between) / len(between)
    return max(gaps) <= 2.0 * stretched


def _caption(found: Sequence[tuple[Rect, Span]]) -> bool:
    """Whether the words of a row (in x order) begin with a caption's label."""
    text = " ".join(s.text for _, s in found)
    lead = 0
    for _, span in found:
        if not is_bold(span_style(span.font, span.flags, span.color)):
            break
        lead += len(span.text) + 1
    return caption_label(text, lead)


def _extents(items: Sequence[tuple[Rect, Span]]) -> list[tuple[float, float]]:
    """x-ranges of the words of a row, touching pieces (a subscript) merged."""
    result: list[list[float]] = []
    for box, _ in sorted(items, key=lambda it: it[0][0]):
        if result and box[0] <= result[-1][1] + 0.3:
            result[-1][1] = max(result[-1][1], box[2])
        else:
            result.append([box[0], box[2]])
    return [(a, b) for a, b in result]


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
    allowed = len(rows) // 5
    width = _GUTTER_WIDTH * sizes[len(sizes) // 2]
    result: list[tuple[float, float]] = []
    for i, j in open_runs(cover, gaps, allowed):
        lo, hi = x0 + i * _STEP, x0 + j * _STEP
        backed = any(min(hi, b) - max(lo, a) > 0.1 for a, b in strong)
        enough = any(gaps[k] >= max(2, math.ceil(0.3 * spans[k])) for k in range(i, j))
        if enough and hi - lo >= width and backed:
            # Where a few rows' glyphs reach into it, the gutter is its least crossed part
            # (a column's middle, a cell's room, lies there, not over those glyphs).
            least = min(cover[i:j])
            core = [k for k in range(i, j) if cover[k] == least]
            if (core[-1] + 1 - core[0]) * _STEP >= width:
                lo, hi = x0 + core[0] * _STEP, x0 + (core[-1] + 1) * _STEP
            result.append((lo, hi))
    return result


def line_gaps(lines: Sequence[tuple[float, float]], size: float) -> list[tuple[float, float]]:
    """The gaps between the MuPDF lines of a row wider than 1.6 font sizes (a justified line
    of a reference list can hold a gap of 1.5 between two MuPDF lines, 04 p10): outside a table
    found as such, a row set as separate lines this far apart holds cells (a lone header row
    above cells that are blocks of their own)."""
    result: list[tuple[float, float]] = []
    right: float | None = None
    for x0, x1 in lines:
        if right is not None and x0 - right > 1.6 * size:
            result.append((right, x0))
        right = x1 if right is None else max(right, x1)
    return result


def crosses(gutters: Sequence[tuple[float, float]], left: float, right: float) -> bool:
    """Whether the gap from ``left`` to ``right`` lies in one of the ``gutters``."""
    k = bisect.bisect_left(gutters, (left,))
    return any(min(right, g[1]) - max(left, g[0]) > 0.1 for g in gutters[max(0, k - 1) : k + 1])


def cell_rooms(cells: Sequence[tuple[Rect, float]], others: Sequence[Rect]) -> list[float]:
    """For each cell (its x-room as a box whose y-range is its glyphs, and its font size),
    how far down its text may grow: to just above the first glyphs below it within its
    x-room (``others``: the glyph boxes of every row of the page), at most three lines."""
    ordered = sorted(others, key=lambda r: r[1])
    tops = [r[1] for r in ordered]
    result = []
    for room, size in cells:
        limit = room[3] + 3.0 * 1.2 * size
        for other in ordered[bisect.bisect_left(tops, room[3] - 0.2 * size) :]:
            if other[1] >= limit:
                break
            if other[0] < room[2] and other[2] > room[0] and other[1] > room[1] + 0.5 * size:
                limit = other[1] - 0.15 * size
                break
        result.append(max(room[3], limit))
    return result
