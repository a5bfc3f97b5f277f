"""Tables of two columns, labels and text (an ID or a category beside a sentence that wraps):
one gutter only, which ``translation.read.tables.detect`` leaves to lists, so such a table is told
by
a table caption standing by it. Frame coordinates; pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from translation.read.layout import Rect, union
from translation.read.numbering.grammar import (
    ASCII_DIGIT,
    BRACKETED,
    BULLET_OPERATOR,
    BULLETS,
    DASHES,
    LETTER,
    LETTER_ITEM,
    MIDDLE_DOT,
    ROMAN_DIGIT,
    ROMAN_ITEM_DIGIT,
)
from translation.read.tables.table_rows import (
    CHUNK_GAP,
    EDGE_SLACK,
    GUTTER_WIDTH,
    LINE_GAP,
    RowItem,
    Table,
)

#: A list's marker or a reference's label: a bullet, "1.", "(ii)", "a)", "[12]", "[Smi20]".
_MARKER_RE = re.compile(
    rf"^(?:[{BULLETS}{MIDDLE_DOT}{BULLET_OPERATOR}{DASHES}*\-]|"
    rf"\(?(?:{ASCII_DIGIT}|{ROMAN_ITEM_DIGIT}|{ROMAN_DIGIT}){{1,4}}[.)\]]|{BRACKETED}|"
    rf"\(?(?:{LETTER_ITEM}|{LETTER})[.)])$"
)


_EDGE = 1.0  # points: labels and texts starting this close line up
_GROUP_LABEL = 0.5  # of the labels' width: a group label over them is at most this wide
_NARROW_LABELS = 0.45  # of the rows' width: a column of labels is at most this wide


def label_tables(items: Sequence[RowItem], found: Sequence[Table]) -> list[Table]:
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


#: Words a row's label holds at most before its gap; below the first label row, a longer one
#: (a citation as label) whose gap lines up.
_LABEL_WORDS, _LONG_LABEL_WORDS = 3, 8


def _label_gap(item: RowItem, most: int = _LABEL_WORDS) -> tuple[float, float] | None:
    """The gap after a row's label: its first gap set apart (strong, or apart), with at most
    ``most`` words before it."""
    gaps = sorted(item.strong or item.apart)
    if not gaps or item.caption:
        return None
    first = gaps[0]
    if first[1] - first[0] < CHUNK_GAP * item.size:
        return None
    before = [span for box, span in item.found if box[2] <= first[0] + EDGE_SLACK]
    if not before or len(before) > most:
        return None
    return first


_CELL_LINES_MOST = 4  # lines: a cell (or group labels) this long since a label ends the table
_LABEL_CHARS = 24  # characters: a short label ...
_LABEL_LETTERS = 20  # ... or, cut at its punctuation, this many without spaces
_LABEL_ROWS = 3  # rows: a label table has at least this many labels


def _label_stack(items: Sequence[RowItem], start: int) -> tuple[Table | None, int]:
    """The label table whose first label row is ``items[start]`` (None where the stack is
    none), and the index of the last row looked at as part of it."""
    first = items[start]
    gap = _label_gap(first)
    assert gap is not None
    left, size = first.box[0], first.size
    text_x = gap[1]
    gutter = gap
    boxes = [first.box]
    labels = [[s.text for b, s in first.found if b[2] <= gap[0] + EDGE_SLACK]]
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
        if box[1] - reach > LINE_GAP * size:
            break  # so is every row after it (by top)
        if box[2] <= left or box[0] >= x1 + size:
            continue  # a row of another page column
        if other.caption:
            captioned = captioned or box[1] - reach <= LINE_GAP * size
            break
        # Below the first label row, a label of more words ("(Smith et al., 2019)") counts
        # where its gap lines up with the first's (and it is short: see ``short``).
        own = _label_gap(other, most=_LONG_LABEL_WORDS)
        if own is not None and abs(box[0] - left) <= _EDGE and abs(own[1] - text_x) <= _EDGE:
            gutter = (max(gutter[0], own[0]), min(gutter[1], own[1]))
            labels.append([s.text for b, s in other.found if b[2] <= own[0] + EDGE_SLACK])
            lines = 0
        elif lines >= _CELL_LINES_MOST:
            break
        elif (
            abs(box[0] - text_x) <= _EDGE
            and (box[2] <= x1 + size or not (other.strong or other.apart))
            and box[1] - reach <= size
        ):
            lines += 1  # a line of the text cell above (one piece: it may be its widest)
        elif (
            abs(box[0] - left) <= _EDGE
            and box[2] - box[0] <= _GROUP_LABEL * (x1 - left)
            and not other.strong
            and not other.apart
        ):
            lines += 1  # a group label over the rows below it
        else:
            break
        boxes.append(box)
        reach, x1, last = max(reach, box[3]), max(x1, box[2]), j
    # A label cut into words at its punctuation ("( Peters et al. , 2018a )") is as short as
    # its letters.
    short = all(
        len(" ".join(t)) <= _LABEL_CHARS or len("".join(t)) <= _LABEL_LETTERS for t in labels
    )
    markers = all(_MARKER_RE.match(" ".join(t)) for t in labels)
    narrow = gutter[0] - left <= _NARROW_LABELS * (x1 - left)
    if len(labels) >= _LABEL_ROWS and captioned and short and narrow and not markers:
        if gutter[1] - gutter[0] >= GUTTER_WIDTH * size:
            return Table(union(boxes), (gutter,)), last
    return None, start


def _group_label_above(items: Sequence[RowItem], start: int) -> Rect | None:
    """The box of a short row of one piece set where the labels start, directly above the
    first label row (a group label or a header over the labels), if there is one."""
    first = items[start]
    for k in range(start - 1, -1, -1):
        box = items[k].box
        if box[2] <= first.box[0] or box[0] >= first.box[2]:
            continue
        near = first.box[1] - box[3] <= first.size
        lone = not items[k].strong and not items[k].apart and not items[k].caption
        short = box[2] - box[0] <= _GROUP_LABEL * (first.box[2] - first.box[0])
        if near and lone and short and abs(box[0] - first.box[0]) <= _EDGE:
            return box
        return None
    return None


_CAPTION_LINES = 3  # lines: a caption above a table has at most this many more over its first


def _caption_above(items: Sequence[RowItem], start: int, size: float) -> bool:
    """Whether a table caption (its first line, then up to three more lines set close
    together) ends directly above ``items[start]``."""
    first = items[start]
    top = first.box[1]
    limit = LINE_GAP * size
    seen = 0
    for k in range(start - 1, -1, -1):
        other = items[k]
        box = other.box
        if box[2] <= first.box[0] or box[0] >= first.box[2] or box[3] > top + EDGE_SLACK:
            continue
        if top - box[3] > limit or seen > _CAPTION_LINES:
            return False
        if other.caption:
            return True
        if other.strong:
            return False
        top, limit, seen = box[1], size, seen + 1
    return False
