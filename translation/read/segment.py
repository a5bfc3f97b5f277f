"""Segmentation: page layouts -> translatable paragraphs in reading order.

The concepts live in their own modules: :mod:`translation.read.layout` (what the reader saw, and
geometry), :mod:`translation.read.rows` (visual lines, header/footer and figure filters),
:mod:`translation.read.reading_order`, :mod:`translation.read.formulas` (math protection and
placeholders)
and :mod:`translation.read.paragraph` (the output type). This module groups rows into paragraphs,
gives each its role and decides what is sent:

* not translated: running headers, footers and page numbers, display equations, text inside
  figures, table cells made of numbers or symbols, code, text that does not run in the page's
  main direction (an arXiv side stamp), author names, pseudo-code keywords, and the references
  section unless asked for;
* hyphenated line breaks are joined; inline math, code, URLs and e-mail addresses become
  placeholders; a paragraph's label (list item, footnote marker, algorithm line number) is kept
  out of its text and put back first (:mod:`translation.read.roles` says what starts a paragraph
  and what role it has).

Nothing here touches PyMuPDF, so every rule is testable with literals. The names other code
imports from here are re-exported (``__all__``).
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from translation.read import roles
from translation.read.doc_stats import DocStats, doc_stats
from translation.read.figure_text import mark_figure_text
from translation.read.formulas import (
    GLYPH,
    MATH,
    MATHS,
    NEUTRAL,
    PLACEHOLDER_RE,
    TEXT,
    formula_mark,
    mark_key,
    protect,
    restore,
)
from translation.read.layout import (
    Block,
    Frame,
    Line,
    PageLayout,
    Rect,
    Span,
    column_split,
    figure_regions,
    union,
)
from translation.read.page_range import parse_pages
from translation.read.paragraph import Align, Paragraph, ParagraphKind
from translation.read.reading_order import reading_order
from translation.read.references import REFS_HEADING_RE, Piece, find_references
from translation.read.rows import Row, attach_scripts, join_pieces, rows_of_block, visual_rows
from translation.read.running_heads import mark_headers_footers
from translation.read.style import paragraph_style, with_lead_stop
from translation.read.tables import cell_rooms, find_tables, stacked
from translation.read.words import URL_TAIL_RE, WORD_RE, ends_sentence

__all__ = [
    "PLACEHOLDER_RE",
    "Align",
    "Block",
    "Frame",
    "Line",
    "PageLayout",
    "Paragraph",
    "ParagraphKind",
    "Rect",
    "Segmentation",
    "Span",
    "column_split",
    "figure_regions",
    "formula_mark",
    "mark_key",
    "parse_pages",
    "protect",
    "restore",
    "segment",
    "segment_document",
]

# --- paragraphs -----------------------------------------------------------------------------

_REFS_RE = REFS_HEADING_RE


def _continues(
    prev: Row, cur: Row, para: list[Row], leading: float, body_size: float = 0.0
) -> bool:
    """Whether ``cur`` continues the paragraph whose last row is ``prev`` (``leading``: the
    document's usual baseline distance in font sizes; ``body_size``: the body text's size,
    which tells footnotes apart)."""
    if prev.cell or cur.cell or prev.col != cur.col or prev.mathy or cur.mathy:
        return False
    if _display_row(prev) or (
        _display_row(cur) and (ends_sentence(prev.text) or cur.x0 > prev.x0 + 0.8 * prev.size)
    ):
        return False
    if _REFS_RE.match(prev.text) or _REFS_RE.match(cur.text):
        return False
    left = min(r.x0 for r in para)
    right = max(r.x1 for r in para)
    overlap = min(right, cur.x1) - max(left, cur.x0)
    if overlap < 0.5 * min(right - left, cur.x1 - cur.x0):
        return False
    size = prev.size
    if cur.baseline < prev.baseline + 0.5 * size:  # not below: another column, or back up
        return False
    if cur.baseline - prev.baseline > (max(leading, 1.0) + 0.5) * size:
        return False
    if abs(cur.size - prev.size) > 0.8 or prev.bold != cur.bold:
        return False
    if roles.new_unit(prev, cur, para, body_size):  # a list item, footnote, heading...
        return False
    jump = abs(cur.x0 - prev.x0) > 3.0 * size
    centered = abs((cur.x0 + cur.x1) - (prev.x0 + prev.x1)) < 6.0
    if jump and not centered:  # a different block that happens to sit below (authors, cells)
        return False
    col_left, col_right = prev.col_range
    col_right = max(right, col_right)
    # The last line of a paragraph ends well before the column's edge (ragged-right text
    # can end a line a few letters early, so "well" is a quarter of the column).
    short = prev.x1 < col_right - max(2.0 * size, 0.25 * (col_right - col_left))
    # A full line ending in a colon goes on ("... three modules:" / "encoding module, ...").
    ended = ends_sentence(prev.text) and (short or not prev.text.endswith((":", "：")))
    indented = cur.x0 > prev.x0 + 0.8 * size
    # Back to the column's edge after a paragraph's indented first line is no new paragraph.
    first_line = len(para) == 1 and not roles.list_label(prev.chars)
    outdented = cur.x0 < prev.x0 - 0.8 * size and not first_line
    hanging = indented and len(para) == 1 and not short  # a reference entry's second line
    return not (ended and (short or outdented or (indented and not hanging)))


def _display_row(row: Row) -> bool:
    """A line of a display equation with a short text label ("token ids (W) = {...}"): at
    most three words, more math than letters, math to its end, and not a full column line (an
    inline formula's line runs from edge to edge)."""
    math = row.classes.count(MATH) + row.classes.count(GLYPH)
    if math < 6:
        return False
    pairs = list(zip(row.chars, row.classes, strict=True))
    words = WORD_RE.findall("".join(c if k == TEXT else " " for c, k in pairs))
    if len(words) > 3 or sum(len(w) for w in words) >= math:
        return False
    last = next((k for c, k in reversed(pairs) if k != NEUTRAL), TEXT)
    col0, col1 = row.col_range
    full = row.x0 <= col0 + 1.5 * row.size and row.x1 >= col1 - 1.5 * row.size
    return last in MATHS and not full


@dataclass(slots=True)
class _Draft:
    rows: list[Row]
    page: int
    frame: Frame
    kind: ParagraphKind = ParagraphKind.BODY
    text: str = ""
    placeholders: dict[str, str] = field(default_factory=dict)
    formula_boxes: dict[str, tuple[Rect, ...]] = field(default_factory=dict)
    formula_descents: dict[str, tuple[float, ...]] = field(default_factory=dict)
    glyph_formulas: set[str] = field(default_factory=set)
    skip: str = ""
    front: bool = False  # in the first page's front matter (title, authors, affiliations)
    label: str = ""


def _is_cjk(char: str) -> bool:
    code = ord(char)
    return 0x3000 <= code <= 0x30FF or 0x3400 <= code <= 0x9FFF or 0xF900 <= code <= 0xFFEF


def _joins_hyphenated(chars: list[str], text: str) -> bool:
    """A word broken at a line end ("ap-" + "proach", "How-" + "ever"); a compound made
    with an acronym or a number ("BERT-" + "based", "GPT2-" + "style") keeps its hyphen."""
    if len(chars) < 2 or not chars[-2].isalnum() or not text[:1].islower():
        return False
    start = len(chars) - 1
    while start > 0 and chars[start - 1].isalnum():
        start -= 1
    fragment = chars[start:-1]
    return sum(c.isupper() or c.isdigit() for c in fragment) < 2


def _join_rows(rows: list[Row]) -> tuple[str, str, list[Rect], list[float]]:
    """The paragraph's characters, classes, character boxes and the baseline of each
    character's row, line breaks undone."""
    chars: list[str] = []
    classes: list[str] = []
    boxes: list[Rect] = []
    bases: list[float] = []
    for row in rows:
        start = len(row.chars) - len(row.chars.lstrip())
        end = len(row.chars.rstrip())
        text = row.chars[start:end]
        if chars:
            last = chars[-1]
            if last in "-\u00ad\u2010" and _joins_hyphenated(chars, text) or last == "\u00ad":
                del chars[-1], classes[-1], boxes[-1], bases[-1]
            elif URL_TAIL_RE.search("".join(chars[-200:])):
                pass
            elif not (_is_cjk(last) and _is_cjk(text[0])) and last not in "-\u2010":
                chars.append(" ")
                classes.append(NEUTRAL)
                boxes.append(boxes[-1])
                bases.append(bases[-1])
        chars.extend(text)
        classes.extend(row.classes[start:end])
        boxes.extend(row.boxes[start:end])
        bases.extend([row.baseline] * (end - start))
    return "".join(chars), "".join(classes), boxes, bases


def _absorb_variables(chars: str, classes: str) -> str:
    """Letters in a text font glued to math set in a math font are part of the formula: a
    bold vector name before its subscript ("x" + "k"), a name between math glyphs ("; lm ^").
    Only runs of one or two letters of an alphabet: a word with a footnote mark stays a word,
    and so do Hangul and Han, where one or two characters make a word ("상해" + "1)")."""
    marks = list(classes)
    i, n = 0, len(chars)
    while i < n:
        if not (marks[i] == TEXT and _variable_letter(chars[i])):
            i += 1
            continue
        j = i
        while j < n and marks[j] == TEXT and _variable_letter(chars[j]):
            j += 1
        glued = (j < n and marks[j] == GLYPH) or (i > 0 and marks[i - 1] == GLYPH)
        after = next((k for k in range(j, n) if not chars[k].isspace()), n)
        before = next((k for k in range(i - 1, -1, -1) if not chars[k].isspace()), -1)
        between = after < n and before >= 0 and marks[after] == marks[before] == GLYPH
        if j - i <= 2 and (glued or between):
            marks[i:j] = [GLYPH] * (j - i)
        i = j
    return "".join(marks)


def _variable_letter(char: str) -> bool:
    """A letter that can name a variable: Latin, Greek or Cyrillic (not Hangul, kana or Han)."""
    return char.isalpha() and ord(char) < 0x1100


def _words(text: str) -> list[str]:
    return WORD_RE.findall(PLACEHOLDER_RE.sub(" ", text))


def _classify(draft: _Draft, stats: DocStats) -> None:
    chars, classes, boxes, bases = _join_rows(draft.rows)
    role, label = roles.label_of(draft.rows, stats.body_size)
    if role is not None and not draft.rows[0].cell:
        # The label is printed first as it is, never sent (see Paragraph.label).
        cut = len(label.strip())
        cut += len(chars[cut:]) - len(chars[cut:].lstrip())
        if cut < len(chars):
            draft.kind, draft.label = role, label.strip() + (" " if label[-1:].isspace() else "")
            chars, classes, boxes, bases = chars[cut:], classes[cut:], boxes[cut:], bases[cut:]
    classes = _absorb_variables(chars, classes)
    text, originals, ranges = protect(chars, classes)
    draft.text, draft.placeholders = re.sub(r"\s+", " ", text).strip(), originals
    for key, (start, end) in zip(originals, ranges, strict=True):
        rects, descents = _formula_rects(boxes[start:end], bases[start:end], draft.frame)
        draft.formula_boxes[key], draft.formula_descents[key] = rects, descents
        if GLYPH in classes[start:end]:
            draft.glyph_formulas.add(key)
    words = _words(draft.text)
    letters = sum(len(w) for w in words)
    math_chars = classes.count(MATH) + classes.count(GLYPH)
    rows = draft.rows
    mono = sum(r.mono * len(r.text) for r in rows) / max(1, sum(len(r.text) for r in rows))
    if not words:
        draft.skip = "no words"
    elif mono >= 0.6 and len(words) < 4:  # code (a sentence around a long URL is not)
        draft.skip = "code"
    elif math_chars and len(words) <= 3 and letters <= 2 * math_chars + 2:
        draft.skip = "equation"
    elif roles.only_keywords(words) and not draft.front:
        draft.skip = "pseudo-code keywords"
    elif draft.front and roles.looks_like_names(" ".join(r.text for r in rows)):
        draft.skip = "author names"
    elif rows[0].cell:
        draft.kind = ParagraphKind.CELL
    elif draft.label:
        pass  # a list item, footnote or algorithm line
    elif (
        draft.front
        and not rows[0].bold
        and len(rows) <= 2
        and rows[0].size < stats.body_size + 2.5  # not a title set in a large light face
    ):
        draft.kind = ParagraphKind.AUTHOR
    elif (
        len(rows) <= 2
        and len(words) <= 15
        and (rows[0].bold or rows[0].size >= stats.body_size + 0.8)
        and not ends_sentence(draft.text)
        and not roles.colon_lead(rows[0])  # "Gold Answer: 5:02" is bold but for "5:02"
    ) or (len(rows) <= 2 and roles.heading_number(rows[0])):
        draft.kind = ParagraphKind.HEADING
    elif roles.caption_start(rows[0]):
        draft.kind = ParagraphKind.CAPTION
    elif roles.algorithm_label(rows[0].text):
        draft.kind = ParagraphKind.ALGORITHM


def _formula_rects(
    boxes: list[Rect], bases: list[float], frame: Frame
) -> tuple[tuple[Rect, ...], tuple[float, ...]]:
    """Page rects of a formula's characters, one per line it runs over, and how far the
    bottom of each lies below its line's baseline. Characters of one row stay in one piece
    even when they step back left (a label stacked over an arrow)."""
    lines: list[list[Rect]] = []
    line_bases: list[float] = []
    for box, base in zip(boxes, bases, strict=True):
        if lines and base == line_bases[-1]:
            lines[-1].append(box)
        else:
            lines.append([box])
            line_bases.append(base)
    unions = [union(line) for line in lines]
    rects = tuple(frame.to_page(u) for u in unions)
    return rects, tuple(u[3] - base for u, base in zip(unions, line_bases, strict=True))


def _align(rows: list[Row], heading: bool = False) -> Align:
    """Centred: rows on the column's axis that leave wide margins, keep off the column's left
    edge, differ in width (justified rows all have one), or make a heading (a title filling
    the width)."""
    col0, col1 = rows[0].col_range
    if len(rows) <= 3:
        center = (col0 + col1) / 2
        widths = [r.x1 - r.x0 for r in rows]
        if all(abs((r.x0 + r.x1) / 2 - center) < 3.0 for r in rows) and (
            heading
            or max(widths) < 0.85 * (col1 - col0)
            or min(r.x0 for r in rows) > col0 + 1.5 * rows[0].size
            or max(widths) - min(widths) > 2.0 * rows[0].size
        ):
            return Align.CENTER
    if len(rows) > 3:  # a long centred caption: every row on one axis, ragged on both sides
        centers = sorted((r.x0 + r.x1) / 2 for r in rows)
        axis = centers[len(centers) // 2]
        lefts = [r.x0 for r in rows]
        if (
            all(abs(c - axis) < 3.0 for c in centers)
            and max(lefts) - min(lefts) > 2.0 * rows[0].size
        ):
            return Align.CENTER
    if len(rows) >= 2:
        right = max(r.x1 for r in rows)
        if all(right - r.x1 < 1.5 * r.size for r in rows[:-1]):
            return Align.JUSTIFY
    return Align.LEFT


def _line_pitch(rows: list[Row]) -> float:
    gaps = [b.baseline - a.baseline for a, b in zip(rows, rows[1:], strict=False)]
    gaps = [g for g in gaps if g > 0]
    if not gaps:
        return 1.2
    return max(1.0, min(2.0, statistics.median(gaps) / rows[0].size))


@dataclass(frozen=True, slots=True)
class Segmentation:
    """The paragraphs to translate, and the pages (0-based, among the wanted ones) where the
    references section was found (kept as it is unless references are included)."""

    paragraphs: list[Paragraph]
    reference_pages: tuple[int, ...] = ()


def segment(
    pages: Sequence[PageLayout],
    wanted: Collection[int] | None = None,
    include_references: bool = False,
) -> list[Paragraph]:
    """The paragraphs of :func:`segment_document`."""
    return segment_document(pages, wanted, include_references).paragraphs


def segment_document(
    pages: Sequence[PageLayout],
    wanted: Collection[int] | None = None,
    include_references: bool = False,
) -> Segmentation:
    """Turn page layouts into the paragraphs to translate, in reading order.

    ``pages`` must be in document order and should include every page up to the last wanted one
    (the references section is found from the whole document, see ``translation.read.references``);
    only paragraphs of pages in ``wanted`` (0-based indices, None = all) are returned.
    Paragraph ids are ``p<page>-b<n>``.
    """
    stats = doc_stats(pages)
    frames = {p.index: Frame(stats.directions[p.index]) for p in pages}
    rows_by_page: dict[int, list[Row]] = {}
    for page in pages:
        frame = frames[page.index]
        tables = find_tables([r for block in page.blocks for r in visual_rows(block, frame)])
        rows = [row for b in page.blocks for row in rows_of_block(b, frame, stats, tables)]
        rows = join_pieces(attach_scripts(rows))
        _grow_cells(rows)
        mark_figure_text(rows, page, frame, stats.body_size)
        rows_by_page[page.index] = rows
    mark_headers_footers(rows_by_page, pages, frames, stats)
    roles.rescue_edge_rows(rows_by_page, stats.body_size)

    drafts: list[_Draft] = []
    for page in pages:
        first = len(drafts)
        # The lines of a multi-line table cell are read together (tables.stacked).
        ordered = stacked(
            reading_order(rows_by_page[page.index]), lambda r: r.stack, lambda r: r.baseline
        )
        end = roles.front_matter_end(ordered) if page.index == 0 else None
        front = end is not None
        for row in ordered:
            front = front and row is not end
            last = drafts[-1].rows if len(drafts) > first else []
            if last and row.stack is not None and last[-1].stack == row.stack:
                last.append(row)  # the next line of a multi-line table cell
            elif (
                last
                and _continues(last[-1], row, last, stats.leading, stats.body_size)
                and not (front and roles.front_break(last[-1], row, stats.body_size))
            ):
                last.append(row)
            else:
                draft = _Draft(rows=[row], page=page.index, frame=frames[page.index])
                draft.front = front
                drafts.append(draft)
        for draft in drafts[first:]:
            _classify(draft, stats)
    references = {i for span in find_references([_piece(d) for d in drafts]) for i in span}

    result: list[Paragraph] = []
    kept: set[int] = set()
    numbers: Counter[int] = Counter()
    for i, draft in enumerate(drafts):
        if draft.skip or (wanted is not None and draft.page not in wanted):
            continue
        if i in references:
            kept.add(draft.page)
            if not include_references:
                continue
            draft.kind = ParagraphKind.REFERENCE
        numbers[draft.page] += 1
        result.append(_to_paragraph(draft, numbers[draft.page]))
    return Segmentation(result, tuple(sorted(kept)))


def _piece(draft: _Draft) -> Piece:
    heading = draft.kind == ParagraphKind.HEADING
    text = draft.label + draft.text  # an entry's "[3]" is cut off as a label by _classify
    for key, original in draft.placeholders.items():
        text = text.replace(key, original)
    return Piece(
        page=draft.page,
        text=text,
        heading=heading,
        heading_like=heading or (len(draft.rows) <= 2 and len(_words(draft.text)) <= 12),
        size=draft.rows[0].size,
        bold=draft.rows[0].bold,
        skipped=bool(draft.skip),
    )


def _grow_cells(rows: list[Row]) -> None:
    """Let each cell's room reach down over the free space below it."""
    cells = [r for r in rows if r.room is not None]
    rooms = [(r.room, r.size) for r in cells if r.room is not None]
    bottoms = cell_rooms(rooms, [r.bbox for r in rows])
    for cell, (room, _), bottom in zip(cells, rooms, bottoms, strict=True):
        cell.room = (room[0], room[1], room[2], bottom)


def _first_indent(rows: list[Row], kind: ParagraphKind) -> float:
    """How far a paragraph's first line is indented from its other lines (0 for none)."""
    if len(rows) < 2 or kind not in (ParagraphKind.BODY, ParagraphKind.FOOTNOTE):
        return 0.0
    indent = rows[0].x0 - min(r.x0 for r in rows[1:])
    return round(indent, 2) if 0.5 * rows[0].size < indent < 4 * rows[0].size else 0.0


def _to_paragraph(draft: _Draft, number: int) -> Paragraph:
    rows = draft.rows
    sizes = Counter(r.size for r in rows for _ in range(max(1, len(r.text))))
    size = sizes.most_common(1)[0][0]
    # The area of the text proper: from the first line's ascenders to the last one's
    # descenders (line boxes of some producers are far taller than the glyphs).
    box = (
        min(r.x0 for r in rows),
        rows[0].baseline - 0.8 * rows[0].size,
        max(r.x1 for r in rows),
        rows[-1].baseline + 0.25 * rows[-1].size,
    )
    text, label = draft.text, draft.label
    if draft.kind == ParagraphKind.REFERENCE and label:  # an entry's "[3]" is its text
        text, label = f"{label}{text}", ""
    style = paragraph_style([(r.chars, r.classes, r.styles) for r in rows], label)
    text, lead = with_lead_stop(text, style.lead)
    label_style, label_scale, label_rise, hang = roles.label_look(rows, label)
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
        align=_align(rows, draft.kind == ParagraphKind.HEADING),
        kind=draft.kind,
        line_pitch=_line_pitch(rows),
        line_count=len(rows),
        formula_boxes=draft.formula_boxes,
        glyph_formulas=frozenset(draft.glyph_formulas),
        formula_descents=draft.formula_descents,
        italic=style.italic,
        lead=lead,
        lead_style=style.lead_style,
        runs=style.runs,
        column=rows[0].col_range,
        max_bbox=(
            draft.frame.to_page(rows[0].room)
            if draft.kind == ParagraphKind.CELL and rows[0].room is not None
            else None
        ),
    )
