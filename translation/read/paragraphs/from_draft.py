"""A draft made a paragraph: its box from the first line's ascenders to the last one's
descenders, its alignment, line pitch and first-line indent, its label's look, its style
and runs, and a table cell's room."""

from __future__ import annotations

import statistics
from collections import Counter

from translation.read.blocks.draft import Draft
from translation.read.blocks.label_look import label_look
from translation.read.layout import Rect
from translation.read.measures import ASCENT, DEFAULT_LEADING, DESCENT, line_step
from translation.read.paragraph import Align, Paragraph, ParagraphKind
from translation.read.rows.row import Row
from translation.read.style.paragraph_style import (
    paragraph_style,
    with_lead_stop,
)
from translation.read.style.style_marks import BOLD, ITALIC, marked
from translation.read.tables.cell_align import centred_lines

_AXIS_SLACK = 3.0  # points: centred lines' centres lie this near the column's axis ...
_HEADING_AXIS = 0.4  # ... or this share of its size for a heading kept well off the edge
_INSET = 2.0  # font sizes: a heading starting further right is kept well off the edge
_NARROW = 0.85  # of the column: centred rows are narrower ...
_OFF_EDGE = 1.5  # ... or keep this many sizes off its left edge ...
_RAGGED = 2.0  # ... or differ in width (or in their left edges) by more sizes than this
_JUSTIFIED = 1.5  # font sizes: justified lines but the last end this near the rightmost
_PITCH_LEAST, _PITCH_MOST = 1.0, 2.0  # font sizes: the line pitch set, from least to most
_INDENT_LEAST, _INDENT_MOST = 0.5, 4  # font sizes: a first-line indent kept for the setting

_FEW_ROWS = 3  # rows: a centred block of more is a long caption, ragged on both sides


def _align(rows: list[Row], heading: bool = False) -> Align:
    """Centred: rows on the column's axis that leave wide margins, keep off the column's left
    edge, differ in width (justified rows all have one), or make a heading (a title filling
    the width). Keeping off the edge is not enough for several rows of one width: those are the
    justified lines of a box inset on both sides (a framed block of instructions, 03 p20);
    centred, their translation would be widened over the frame."""
    col0, col1 = rows[0].col_range
    if len(rows) <= _FEW_ROWS:
        center = (col0 + col1) / 2
        widths = [r.x1 - r.x0 for r in rows]
        inset_box = len(rows) > 1 and max(widths) - min(widths) < rows[0].size
        # A heading kept well off its column's left edge may have its axis a little off the
        # column's (a frame's rules set the column a few points off the text's): within 0.4
        # of its size.
        inset = min(r.x0 for r in rows) > col0 + _INSET * rows[0].size
        reach = max(_AXIS_SLACK, _HEADING_AXIS * rows[0].size) if heading and inset else _AXIS_SLACK
        if all(abs((r.x0 + r.x1) / 2 - center) < reach for r in rows) and (
            heading
            or max(widths) < _NARROW * (col1 - col0)
            or (min(r.x0 for r in rows) > col0 + _OFF_EDGE * rows[0].size and not inset_box)
            or max(widths) - min(widths) > _RAGGED * rows[0].size
        ):
            return Align.CENTER
    if len(rows) > _FEW_ROWS:  # a long centred caption: every row on one axis, ragged on both sides
        centers = sorted((r.x0 + r.x1) / 2 for r in rows)
        axis = centers[len(centers) // 2]
        lefts = [r.x0 for r in rows]
        if (
            all(abs(c - axis) < _AXIS_SLACK for c in centers)
            and max(lefts) - min(lefts) > _RAGGED * rows[0].size
        ):
            return Align.CENTER
    if len(rows) >= 2 and not heading:  # a heading's words are never spread to the edge
        right = max(r.x1 for r in rows)
        if all(right - r.x1 < _JUSTIFIED * r.size for r in rows[:-1]):
            return Align.JUSTIFY
    return Align.LEFT


def _line_pitch(rows: list[Row]) -> float:
    gaps = [line_step(a, b) for a, b in zip(rows, rows[1:], strict=False)]
    gaps = [g for g in gaps if g > 0]
    if not gaps:
        return DEFAULT_LEADING
    return max(_PITCH_LEAST, min(_PITCH_MOST, statistics.median(gaps) / rows[0].size))


def _first_indent(rows: list[Row], kind: ParagraphKind) -> float:
    """How far a paragraph's first line is indented from its other lines (0 for none)."""
    if len(rows) < 2 or kind not in (ParagraphKind.BODY, ParagraphKind.FOOTNOTE):
        return 0.0
    indent = rows[0].x0 - min(r.x0 for r in rows[1:])
    return (
        round(indent, 2)
        if _INDENT_LEAST * rows[0].size < indent < _INDENT_MOST * rows[0].size
        else 0.0
    )


def to_paragraph(draft: Draft, number: int) -> Paragraph:
    rows = draft.rows
    sizes = Counter(r.size for r in rows for _ in range(max(1, len(r.text))))
    size = sizes.most_common(1)[0][0]
    # The area of the text proper: from the first line's ascenders to the last one's
    # descenders (line boxes of some producers are far taller than the glyphs).
    box = (
        min(r.x0 for r in rows),
        rows[0].baseline - ASCENT * rows[0].size,
        max(r.x1 for r in rows),
        rows[-1].baseline + DESCENT * rows[-1].size,
    )
    text, label = draft.text, draft.label
    states: list[int | None] = list(draft.states)
    if draft.kind == ParagraphKind.REFERENCE and label:  # an entry's "[3]" is its text
        states[:0] = [None] * len(label)
        text, label = f"{label}{text}", ""
    style = paragraph_style([draft.styled], label)
    stopped, lead = with_lead_stop(text, style.lead)
    if len(stopped) > len(text):  # the lead's added full stop is in the lead's style
        at = len(style.lead)
        states.insert(at, states[at - 1] if at else None)
    text = stopped
    if len(states) == len(text):
        body = (BOLD if style.bold else 0) | (ITALIC if style.italic else 0)
        text = marked(text, states, body)
    label_style, label_scale, label_rise, hang = label_look(rows, label)
    return Paragraph(
        id=f"p{draft.page}-b{number}",
        page=draft.page,
        text=text,
        label=label,
        label_style=label_style,
        label_scale=label_scale,
        label_rise=label_rise,
        hang=hang,
        indent=_first_indent(rows, draft.kind) if not hang else 0.0,
        placeholders=draft.placeholders,
        bbox=draft.frame.to_page(box),
        rects=tuple(rect for r in rows for rect in r.rects),
        font_size=size,
        color=style.color,
        bold=style.bold,
        direction=draft.frame.u,
        align=(
            Align.CENTER
            if draft.kind == ParagraphKind.CELL
            and (rows[0].centred or centred_lines([r.bbox for r in rows], rows[0].size))
            else Align.RIGHT
            if draft.kind == ParagraphKind.CELL and rows[0].flush_right
            else Align.LEFT
            if draft.kind == ParagraphKind.CELL and rows[0].flush_right is False
            else _align(rows, draft.kind == ParagraphKind.HEADING)
        ),
        kind=draft.kind,
        line_pitch=_line_pitch(rows),
        line_count=len(rows),
        formula_boxes=draft.formula_boxes,
        glyph_formulas=frozenset(draft.glyph_formulas),
        formula_descents=draft.formula_descents,
        code_formulas=frozenset(draft.code_formulas),
        italic=style.italic,
        lead=lead,
        lead_style=style.lead_style,
        runs=style.runs,
        column=rows[0].col_range,
        max_bbox=(
            draft.frame.to_page(_cell_room(rows[0].room, rows))
            if draft.kind == ParagraphKind.CELL and rows[0].room is not None
            else None
        ),
    )


def _cell_room(first: Rect, rows: list[Row]) -> Rect:
    """A cell's room: as wide as the rooms of all its lines allow (a number beside its second
    line bounds it there), down as far as the room of any of them reaches (the free space
    below its last line)."""
    rooms = [r.room for r in rows if r.room is not None]
    return (
        max(r[0] for r in rooms),
        first[1],
        min(r[2] for r in rooms),
        max(r[3] for r in rooms),
    )
