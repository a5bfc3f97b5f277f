"""Cell stacks: the lines of one table cell set on several lines, found and read together.

Pure, in frame coordinates.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from translation.read.layout import Rect
from translation.read.measures import line_step
from translation.read.numbering.grammar import (
    BULLET_SHAPES,
    BULLETS,
    CIRCLED,
    DASHES,
    MIDDLE_DOT,
    REFERENCE_MARK,
)
from translation.read.tables.table_rows import EDGE_SLACK

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class StackLine:
    """What ``stacks`` needs to know of a line of a table: its glyph box, baseline, font
    size and weight, whether it is alone on its visual row, and its text."""

    bbox: Rect
    baseline: float
    size: float
    bold: bool
    lone: bool
    text: str


_ENDS_RE = re.compile(r"[.!?:;)\]]$")
# A cell's line that ends in an article, a preposition or a conjunction goes on below.
_OPEN_END_RE = re.compile(
    r"\b(?:a|an|the|of|for|and|or|to|in|on|with|by|from|at|as|via|into)$", re.IGNORECASE
)
_QUOTES = {"“": "”", "‘": "’", "«": "»"}


_STEP_LEAST, _STEP_MOST = 0.8, 1.6  # font sizes: a wrapped cell's line step, least to most
_STEP_FLOOR = 0.5  # font sizes: a smaller step is no step between lines (one line's pieces)
_SAME_SIZE = 0.5  # points: lines of one cell differ in size by less
_PADDED = 1.3  # steps wider than the tightest by this factor are padded rows ...
_PADDED_LEAST = 2.0  # ... when at least this many (and a quarter of the steps) are
_PITCH_MOST = 1.15  # a line further below than this many wrapped-cell steps starts a row
_SPACE = 0.25  # font sizes: a word space, for whether a word fits the line above
_ALIGN_REACH = 0.5  # font sizes: lines starting this close line up
_HANG_LEAST, _HANG_MOST = 0.3, 2.0  # font sizes: a hanging indent under a list mark


def stacks(
    lines: Sequence[StackLine], gutters: Sequence[tuple[float, float]]
) -> list[tuple[float, float] | None]:
    """Which lines of a table are one cell set on several lines: a line continues the nearest
    line above it in its column when it lines up with it (see ``_aligned``) or hangs under its
    list mark's text (see ``_hanging``), one line below it, in
    the same font size and weight, one of the two standing alone on its row (the other cells
    of a multi-line cell's row sit beside one of its lines, or between them; a word cut at the
    line's end needs neither), and it reads on:
    it starts in lower case (or in a script without case after a line that does not end a
    sentence), or the line above ends in "-", "/" or ",", or both stand alone, the line
    above does not end a sentence and the step between them is the table's tightest between
    lines of their size (see ``_tightest``: a row set further apart is the next row), or the
    line above cannot end a cell (``open_end``), or it hangs under a list mark's text at that
    tightest step. Lines that both have cells beside them stack
    without a hyphen only where the cell plainly wraps (see ``_wrapped``). Numbers never stack.
    Each line of a stack gets the stack's key (the first line's x and baseline); other lines
    get None."""
    keys: list[tuple[float, float] | None] = [None] * len(lines)
    order = sorted(range(len(lines)), key=lambda i: lines[i].baseline)
    columns = [sum(1 for g in gutters if g[1] <= line.bbox[0] + EDGE_SLACK) for line in lines]
    rights: dict[int, float] = {}
    for line, column in zip(lines, columns, strict=True):
        rights[column] = max(rights.get(column, line.bbox[2]), line.bbox[2])
    pitch = _line_pitch(lines)
    above_of = [_line_above(lines, order, n, columns) for n in range(len(order))]
    tightest = _tightest(lines, list(zip(order, above_of, strict=True)))
    for n, i in enumerate(order):
        line = lines[i]
        column = columns[i]
        j = above_of[n]
        if j is None:
            continue
        up = lines[j]
        step = line_step(up, line)
        text, above = line.text, up.text
        reads_on = (
            text[:1].islower()
            or (_uncased(text[:1]) and not _ENDS_RE.search(above))
            or above.endswith(("-", "/", ","))
            or (
                line.lone
                and up.lone
                and not _ENDS_RE.search(above)
                and step <= tightest.get(i, step) + _PITCH_SLACK * line.size
            )
            or open_end(above)
            # A line hung under a list mark's text is that item's next line, whatever the
            # line above ends in ("◦ 대상질병에 U코드 일부(3종)" over "포함"), at the table's
            # tightest step (a row set further apart is the next row).
            or (_hanging(line, up) and step <= tightest.get(i, step) + _PITCH_SLACK * line.size)
        )
        if (
            any(c.isalpha() for c in text)
            and any(c.isalpha() for c in above)
            and (_aligned(line, up) or _hyphen_cut(line, up) or _hanging(line, up))
            and _STEP_LEAST * line.size <= step <= _STEP_MOST * line.size
            and abs(line.size - up.size) < _SAME_SIZE
            and line.bold == up.bold
            and (
                line.lone
                or up.lone
                or (above.endswith("-") and text[:1].islower())
                or _hyphen_cut(line, up)
                or _wrapped(line, up, rights[column], pitch)
            )
            and reads_on
        ):
            key = keys[j] or (up.bbox[0], up.baseline)
            keys[i] = keys[j] = key
    return keys


#: Font sizes a line may stand below the one above it, past the table's tightest step
#: between lines of its size, and still be read on from it with no other sign (both alone
#: on their rows): a row set further apart is the next row, though its cell starts with a
#: capital after a line that ends no sentence ("WMT" over the next row's "BooksCorpus").
_PITCH_SLACK = 0.1


def _line_above(
    lines: Sequence[StackLine], order: Sequence[int], n: int, columns: Sequence[int]
) -> int | None:
    """The line above ``lines[order[n]]``: the nearest one in its column, or over it (a column
    that no gutter marks off: its other rows set between the lines of its cells)."""
    line = lines[order[n]]
    return next(
        (
            k
            for k in reversed(order[max(0, n - 40) : n])
            if columns[k] == columns[order[n]]
            and min(lines[k].bbox[2], line.bbox[2]) > max(lines[k].bbox[0], line.bbox[0])
        ),
        None,
    )


def _tightest(
    lines: Sequence[StackLine], pairs: Sequence[tuple[int, int | None]]
) -> dict[int, float]:
    """For each line below another (``pairs``: line, the line above it), the smallest step
    between such pairs of the table in its font size (within half a point), more than half a
    size: how far apart the table sets the lines of one cell (no more than its rows)."""
    steps = [
        (lines[i].size, line_step(lines[j], lines[i]))
        for i, j in pairs
        if j is not None and abs(lines[i].size - lines[j].size) < _SAME_SIZE
    ]
    by_size: dict[float, float | None] = {}
    out: dict[int, float] = {}
    for i, _ in pairs:
        size = lines[i].size
        if size not in by_size:
            near = [s for z, s in steps if abs(z - size) < _SAME_SIZE and s > _STEP_FLOOR * size]
            by_size[size] = min(near, default=None)
        low = by_size[size]
        if low is not None:
            out[i] = low
    return out


def open_end(text: str) -> bool:
    """Whether a cell's line cannot end its cell: it ends in a word that leads on ("An
    Adaptive Approach for") or inside a quotation it opens (a title in title case wraps with
    a capital)."""
    if _OPEN_END_RE.search(text):
        return True
    return any(text.count(opening) > text.count(closing) for opening, closing in _QUOTES.items())


_PADDED_SHARE = 4  # a quarter of the steps, or more, are padded for a padded table


def _line_pitch(lines: Sequence[StackLine]) -> float | None:
    """The baseline step of a table's wrapped cells where its rows are set further apart
    (padded): the smallest step between its visual rows, when a good share of the steps are
    clearly larger (not just the header's and the gap to another table on the page). None
    for a table whose rows are set at one pitch (a wrapped line and a new row look alike
    there)."""
    bases = sorted(line.baseline for line in lines)
    size = min((line.size for line in lines), default=0.0)
    steps = [b - a for a, b in zip(bases, bases[1:], strict=False) if b - a > _STEP_FLOOR * size]
    if not steps:
        return None
    low = min(steps)
    wide = sum(s > _PADDED * low for s in steps)
    return low if wide >= max(_PADDED_LEAST, len(steps) / _PADDED_SHARE) else None


def _wrapped(line: StackLine, up: StackLine, right: float, pitch: float | None) -> bool:
    """Whether ``line`` is the next line of ``up``'s cell, though both have cells beside
    them: it goes on in lower case after a line that ends no sentence, one line pitch below
    (not a padded row's pitch), and its first word would not have fitted at the end of
    ``up`` (``right``: the right edge of their column's widest line)."""
    if pitch is None or not line.text[:1].islower() or _ENDS_RE.search(up.text):
        return False
    if line_step(up, line) > _PITCH_MOST * pitch:
        return False
    first = line.text.split()[0]
    width = (line.bbox[2] - line.bbox[0]) * len(first) / max(1, len(line.text))
    return up.bbox[2] + _SPACE * line.size + width > right


def _aligned(line: StackLine, up: StackLine) -> bool:
    """Whether two lines of a cell line up: they start together, or both stand alone on
    their rows and are centred on one axis or end together (a cell set centred or flush
    right, wrapped in its box)."""
    reach = _ALIGN_REACH * line.size
    if abs(line.bbox[0] - up.bbox[0]) < reach:
        return True
    centred = abs(line.bbox[0] + line.bbox[2] - up.bbox[0] - up.bbox[2]) < 2 * reach
    return line.lone and up.lone and (centred or abs(line.bbox[2] - up.bbox[2]) < reach)


#: A list item's mark opening a cell's line: a bullet, a dash, a note's asterisk or a
#: circled number, set apart from its text.
_MARK_RE = re.compile(
    rf"^(?:[{BULLETS}{BULLET_SHAPES}*\-{DASHES}{MIDDLE_DOT}{REFERENCE_MARK}]|{CIRCLED})\s"
)


def _hanging(line: StackLine, up: StackLine) -> bool:
    """Whether ``line`` goes on under the text of ``up``, a list item's line in a cell: ``up``
    opens with a mark set apart ("◦ 대상질병에 U코드 일부(3종)") and ``line``, no item of its
    own, starts past it by about the mark's width (a hanging indent: "포함" under the text,
    not under the bullet)."""
    if not _MARK_RE.match(up.text) or _MARK_RE.match(line.text):
        return False
    indent = line.bbox[0] - up.bbox[0]
    return _HANG_LEAST * line.size <= indent <= _HANG_MOST * line.size


def _hyphen_cut(line: StackLine, up: StackLine) -> bool:
    """Whether ``up`` is a header cell's word cut at its hyphen and ``line`` its rest, set
    under it on one axis or from one edge ("Self-" over "BLEU"), whatever stands beside
    them (the one-line header cells of that row sit between their baselines)."""
    if not (_HYPHEN_CUT_RE.search(up.text) and line.text[:1].isalpha()):
        return False
    reach = _ALIGN_REACH * line.size
    centred = abs(line.bbox[0] + line.bbox[2] - up.bbox[0] - up.bbox[2]) < 2 * reach
    return centred or abs(line.bbox[0] - up.bbox[0]) < reach


#: A word of letters cut at its hyphen at the end of a line, the line no longer than it.
_HYPHEN_CUT_RE = re.compile(r"^[^\W\d_]{2,}-$")


def _uncased(char: str) -> bool:
    """A letter of a script without case (Hangul, Han, kana): no capital starts a sentence."""
    return char.isalpha() and not char.isupper() and not char.islower()


def stacked(
    items: Sequence[T], key: Callable[[T], Hashable | None], along: Callable[[T], float]
) -> list[T]:
    """``items`` with the members of each stack (same non-None ``key``) gathered where its
    first member stands, sorted by ``along`` (a multi-line cell read in one go, top to
    bottom, not interleaved with the cells beside it)."""
    groups: dict[Hashable, list[T]] = {}
    for item in items:
        k = key(item)
        if k is not None:
            groups.setdefault(k, []).append(item)
    result: list[T] = []
    for item in items:
        k = key(item)
        if k is None:
            result.append(item)
        elif k in groups and groups[k][0] is item:
            result.extend(sorted(groups.pop(k), key=along))
    return result
