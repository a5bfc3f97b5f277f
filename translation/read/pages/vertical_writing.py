"""Vertical writing: Chinese, Japanese or Korean set in columns, top to bottom, right to left.

A TeX engine setting vertical text (LuaTeX-ja's tate, a kanbun package) leaves each glyph a
line of its own to MuPDF: a column of twenty characters reads as twenty one-character lines,
and the small glyphs beside them (furigana and okurigana to the right, the return marks of
kanbun to the lower left) as more. Sent as they come, every glyph was a request of its own.

Read here, a stack of single-character lines of CJK glyphs of one size, each starting where
the one above ends, at one x, is one line running down the page (direction (0, 1), the
frame of text turned a quarter clockwise: its lines follow one another right to left, as
columns do); the small glyphs beside a column (half its size or less, inside its height) are
its annotations, never read into the column's text. Both are kept as printed, as marks: a
page's translation, set level, has no place for a column (``bench.corpus --write`` lists
them, reason ``vertical``). Pure: blocks in, blocks out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from translation.read.layout import Block, Line, Rect, Span, axis

#: A stack of at least this many glyphs is a column (a heading of two characters set
#: vertically is too short to tell).
MIN_GLYPHS = 4
#: Of the glyph size: a glyph starts within this of where the one above ends (a slot left
#: for a kanbun return mark beside the column at most) ...
STACK_GAP = 1.05
#: ... or overlaps it by this at most (a font's box is taller than its advance) ...
STACK_OVERLAP = 0.5
#: ... and its left edge within this of the column's.
STACK_SLIP = 0.15
#: Of the column's size: a glyph this small or smaller beside a column is an annotation.
ANNOTATION = 0.6
#: Of an annotation's own size: how far outside the column's sides it may stand (ruby set
#: beside a glyph, a little clear of it).
BESIDE = 1.1
DOWN = (0.0, 1.0)
_ALONG_X = (1.0, 0.0)


def _cjk(char: str) -> bool:
    code = ord(char)
    return (
        0x3000 <= code <= 0x30FF  # CJK punctuation, kana
        or 0x3400 <= code <= 0x9FFF  # ideographs
        or 0xAC00 <= code <= 0xD7A3  # Hangul syllables
        or 0xFE10 <= code <= 0xFE4F  # vertical forms, CJK compatibility forms
        or 0xFF00 <= code <= 0xFFEF  # full-width forms
        or 0xF900 <= code <= 0xFAFF
    )


def _glyph(line: Line) -> Span | None:
    """The one CJK character ``line`` holds, as its span; None for any other line."""
    if axis(line.direction) != _ALONG_X:
        return None
    spans = [s for s in line.spans if s.text.strip()]
    if len(spans) != 1 or len(spans[0].text.strip()) != 1 or not _cjk(spans[0].text.strip()):
        return None
    return spans[0]


def with_vertical_columns(blocks: Sequence[Block]) -> list[Block]:
    """``blocks`` with each column of vertically set CJK glyphs read as one line running down
    the page (a block of its own per column, in reading order: right to left), and the small
    glyphs beside a column as a block of their own after it. Nothing changes on a page
    without such columns."""
    singles: list[tuple[int, int, Span]] = []
    for b, block in enumerate(blocks):
        for n, line in enumerate(block.lines):
            span = _glyph(line)
            if span is not None:
                singles.append((b, n, span))
    if len(singles) < MIN_GLYPHS:
        return list(blocks)
    columns = _columns([s for _, _, s in singles])
    if not columns:
        return list(blocks)
    taken = {id(s) for column in columns for s in column}
    for _, _, span in singles:  # a column's glyph set apart from it (text printed over it)
        if id(span) not in taken:
            k = _aligned(span, columns)
            if k is not None:
                columns[k].append(span)
                taken.add(id(span))
    for column in columns:
        column.sort(key=lambda s: s.bbox[1])
    notes: list[list[Span]] = [[] for _ in columns]
    for _, _, span in singles:
        if id(span) in taken:
            continue
        k = _annotated(span, columns)
        if k is not None:
            notes[k].append(span)
            taken.add(id(span))
    kept = [
        dataclasses.replace(block, lines=lines)
        for block in blocks
        for lines in (
            tuple(ln for ln in block.lines if not (ln.spans and id(_glyph(ln)) in taken)),
        )
        if lines
    ]
    order = sorted(range(len(columns)), key=lambda k: (-_box(columns[k])[2], _box(columns[k])[1]))
    return kept + [_column_block(columns[k], notes[k]) for k in order]


def _columns(glyphs: list[Span]) -> list[list[Span]]:
    """Stacks of ``glyphs`` of one size, one under the other at one x (see :data:`STACK_GAP`)."""
    columns: list[list[Span]] = []
    for span in sorted(glyphs, key=lambda s: (s.bbox[1], s.bbox[0])):
        size = span.size
        for column in columns:
            last = column[-1]
            if (
                abs(last.size - size) <= STACK_SLIP * size
                and abs(last.bbox[0] - span.bbox[0]) <= STACK_SLIP * size
                and -STACK_OVERLAP * size <= span.bbox[1] - last.bbox[3] <= STACK_GAP * size
            ):
                column.append(span)
                break
        else:
            columns.append([span])
    return [c for c in columns if len(c) >= MIN_GLYPHS]


def _aligned(span: Span, columns: list[list[Span]]) -> int | None:
    """The column ``span`` is a glyph of though not stacked on it: of its size and colour,
    at its x (a column runs on behind a title printed over it)."""
    for k, column in enumerate(columns):
        first = column[0]
        if (
            abs(first.size - span.size) <= STACK_SLIP * span.size
            and abs(first.bbox[0] - span.bbox[0]) <= STACK_SLIP * span.size
            and first.color == span.color
        ):
            return k
    return None


def _annotated(span: Span, columns: list[list[Span]]) -> int | None:
    """The column ``span`` annotates: a small glyph beside it, within its height."""
    for k, column in enumerate(columns):
        x0, y0, x1, y1 = _box(column)
        size = column[0].size
        if span.size > ANNOTATION * size:
            continue
        beside = x0 - span.size * BESIDE <= span.bbox[0] and span.bbox[2] <= x1 + span.size * BESIDE
        if beside and y0 - span.size <= span.bbox[1] and span.bbox[3] <= y1 + span.size:
            return k
    return None


def _box(spans: Sequence[Span]) -> Rect:
    return (
        min(s.bbox[0] for s in spans),
        min(s.bbox[1] for s in spans),
        max(s.bbox[2] for s in spans),
        max(s.bbox[3] for s in spans),
    )


def _column_block(column: list[Span], notes: list[Span]) -> Block:
    """A column as a block: its line down the page, then its annotations' (each a line of
    one glyph, down the page too, so no row of the page's level text takes one in). All
    are marks: vertical writing is kept as printed (the translation of a horizontal page
    has no place to set a column in), and its annotations are reading aids of the column."""
    box = _box(column)
    first = column[0]
    span = Span(
        text="".join(s.text.strip() for s in column),
        bbox=box,
        font=first.font,
        size=first.size,
        flags=first.flags,
        color=first.color,
        origin=(box[0], box[1]),
        mark=True,
    )
    lines = [Line(spans=(span,), bbox=box, direction=DOWN)]
    lines += [
        Line(spans=(dataclasses.replace(s, mark=True),), bbox=s.bbox, direction=DOWN)
        for s in sorted(notes, key=lambda s: s.bbox[1])
    ]
    return Block(lines=tuple(lines), bbox=_box([*column, *notes]))
