"""Segmentation: page layouts -> translatable paragraphs in reading order.

The concepts live in their own modules: :mod:`translation.read.layout` (what the reader saw, and
geometry), :mod:`translation.read.rows` (visual lines), :mod:`translation.read.running_heads`
and :mod:`translation.read.figure_text` (rows not translated),
:mod:`translation.read.reading_order`, :mod:`translation.read.continuation` (where a paragraph
goes on), :mod:`translation.read.flow` (where it goes on in another box: one passage, one
request), :mod:`translation.read.draft` (a paragraph in the making),
:mod:`translation.read.formulas` (math protection and placeholders) and
:mod:`translation.read.paragraph` (the output type). This module runs them page by page,
groups rows into paragraphs and decides what is sent:

* not translated: running headers, footers and page numbers, display equations, text inside
  figures, table cells made of numbers or symbols, code, text that does not run in the page's
  main direction (an arXiv side stamp), author names, pseudo-code keywords, and the references
  section unless asked for (a numbered bibliography without a heading too);
* hyphenated line breaks are joined; inline math, code, URLs and e-mail addresses become
  placeholders; a paragraph's label (list item, footnote marker, algorithm line number) is kept
  out of its text and put back first (:mod:`translation.read.roles` says what starts a paragraph
  and what role it has).

Nothing here touches PyMuPDF, so every rule is testable with literals. The names other code
imports from here are re-exported (``__all__``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from translation.read import flow, roles
from translation.read.cell_align import right_aligned
from translation.read.cell_rules import clear_room, ruled_cells, ruled_room
from translation.read.cell_stacks import stacked
from translation.read.continuation import continues, opens_led_series
from translation.read.doc_stats import doc_stats
from translation.read.draft import Draft, classify, to_paragraph, words_of
from translation.read.figure_text import mark_figure_text
from translation.read.formulas import (
    GLYPH,
    PLACEHOLDER_RE,
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
)
from translation.read.lexicon import joins_at_break
from translation.read.page_range import parse_pages
from translation.read.page_rows import page_rows
from translation.read.paragraph import Align, Paragraph, ParagraphKind
from translation.read.passage import hyphen_break
from translation.read.reading_order import reading_order
from translation.read.references import Piece, find_references, is_entry
from translation.read.row_joins import attach_drop_caps, attach_scripts, join_pieces
from translation.read.rows import Row, rows_of_page, visual_rows
from translation.read.running_heads import mark_headers_footers, running_head_boxes
from translation.read.tables import cell_rooms, find_tables
from translation.read.unheaded_references import find_unheaded_references
from translation.read.vocabulary import Vocabulary, vocabulary

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
    seen = vocabulary(pages)
    frames = {p.index: Frame(stats.directions[p.index]) for p in pages}
    rows_by_page: dict[int, list[Row]] = {}
    heads = running_head_boxes(pages, frames)
    for page in pages:
        frame = frames[page.index]
        visual = page_rows([visual_rows(block, frame) for block in page.blocks])
        rules = [frame.to_frame(r) for r in page.rules]
        tables = find_tables(visual, heads.get(page.index, ()), rules)
        rows = rows_of_page(page.blocks, frame, stats, tables)
        rows = attach_drop_caps(join_pieces(attach_scripts(rows)))
        if rules:
            _stack_ruled_cells(rows, rules)
        _grow_cells(rows, rules)
        mark_figure_text(rows, page, frame, stats.body_size)
        rows_by_page[page.index] = rows
    mark_headers_footers(rows_by_page, pages, frames, stats)
    roles.rescue_edge_rows(rows_by_page, stats.body_size)

    drafts: list[Draft] = []
    for page in pages:
        first = len(drafts)
        # The lines of a multi-line table cell are read together (cell_stacks.stacked).
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
                and continues(last[-1], row, last, stats.leading, stats.body_size)
                and not (front and roles.front_break(last[-1], row, stats.body_size))
            ):
                last.append(row)
            else:
                draft = Draft(rows=[row], page=page.index, frame=frames[page.index])
                # A cell of an author grid read after the front matter's end (its last
                # column beside the abstract, read with the right-hand column) is still above it.
                draft.front = front or (end is not None and row.cell and row.bottom <= end.top)
                drafts.append(draft)
        _split_led_series(drafts, first)
        for draft in drafts[first:]:
            classify(draft, stats, seen)
    for i in flow.run_on_captions(drafts):
        drafts[i].kind = ParagraphKind.BODY  # "Table 4. On average, ..." going on a sentence
    pieces = [_piece(d) for d in drafts]
    references = {i for span in find_references(pieces) for i in span}
    references.update(i for span in find_unheaded_references(pieces, references) for i in span)
    references.update(_cited_by_label(drafts))
    references -= _own_footnotes(drafts, references)

    result: list[Paragraph] = []
    kept: set[int] = set()
    numbers: Counter[int] = Counter()
    position: dict[int, int] = {}  # draft index -> its paragraph's index in ``result``
    for i, draft in enumerate(drafts):
        if draft.skip or (wanted is not None and draft.page not in wanted):
            continue
        if i in references:
            kept.add(draft.page)
            if not include_references:
                continue
            draft.kind = ParagraphKind.REFERENCE
        numbers[draft.page] += 1
        position[i] = len(result)
        result.append(to_paragraph(draft, numbers[draft.page]))
    # A paragraph cut by a column, a page, a float or an equation is one request.
    found = flow.links(drafts, lambda i: i in position and i not in references)
    after = {position[i]: (position[j], eq) for i, (j, eq) in found.items()}
    chained = _hyphens_decided(flow.chain(result, after), seen)
    return Segmentation(chained, tuple(sorted(kept)))


def _split_led_series(drafts: list[Draft], first: int) -> None:
    """Make the first line of a series led by one word and a number its own draft (see
    continuation.opens_led_series) among the page's drafts from index ``first``."""
    i = first
    while i + 1 < len(drafts):
        here, after = drafts[i], drafts[i + 1]
        if not here.front and opens_led_series(here.rows, after.rows[0]):
            tail = Draft(rows=[here.rows.pop()], page=here.page, frame=here.frame)
            drafts.insert(i + 1, tail)
            i += 1
        i += 1


def _own_footnotes(drafts: Sequence[Draft], references: Collection[int]) -> set[int]:
    """The drafts of ``references`` that are the paper's own footnotes: small print opening
    with a raised marker, as the notes of the text are, set at the foot of its column below
    every entry of that page (an entry's number is never raised). They are translated."""
    own: set[int] = set()
    for i in references:
        draft = drafts[i]
        first = draft.rows[0]
        if draft.kind is not ParagraphKind.FOOTNOTE or first.classes.lstrip("n")[:1] != GLYPH:
            continue
        top = min(r.top for r in draft.rows)
        if not any(
            j != i
            and drafts[j].page == draft.page
            and drafts[j].rows[0].col == first.col
            and max(r.bottom for r in drafts[j].rows) > top
            for j in references
            if drafts[j].kind is not ParagraphKind.FOOTNOTE
        ):
            own.add(i)
    return own


def _hyphens_decided(paragraphs: list[Paragraph], seen: Vocabulary) -> list[Paragraph]:
    """``paragraphs`` with ``hyphen_joins`` set on each piece whose passage's previous piece
    ends in a line-end hyphen (decided with the document's vocabulary ``seen``)."""
    last: dict[str, Paragraph] = {}
    out: list[Paragraph] = []
    for paragraph in paragraphs:
        before = last.get(paragraph.passage) if paragraph.passage else None
        pair = before and hyphen_break(before.text, paragraph.text.lstrip())
        if pair and not paragraph.break_before:
            paragraph = replace(paragraph, hyphen_joins=joins_at_break(*pair, seen=seen))
        if paragraph.passage:
            last[paragraph.passage] = paragraph
        out.append(paragraph)
    return out


def _piece(draft: Draft) -> Piece:
    heading = draft.kind == ParagraphKind.HEADING
    text = draft.label + draft.text  # an entry's "[3]" is cut off as a label by classify
    for key, original in draft.placeholders.items():
        text = text.replace(key, original)
    return Piece(
        page=draft.page,
        text=text,
        heading=heading,
        heading_like=heading or (len(draft.rows) <= 2 and len(words_of(draft.text)) <= 12),
        size=draft.rows[0].size,
        bold=draft.rows[0].bold,
        skipped=bool(draft.skip),
    )


#: A label that introduces the paper's own citation ("ACM Reference Format:", "Cite as:").
_CITE_LABEL_RE = re.compile(
    r"(?:reference format|cite (?:this|as)|to cite this (?:article|paper)|citation)\s*:?\s*$",
    re.IGNORECASE,
)


def _cited_by_label(drafts: Sequence[Draft]) -> list[int]:
    """The paper's own citation under the label that introduces it (ACM's "ACM Reference
    Format:" on the first page): a bibliography entry, kept as it is like the references."""
    return [
        i
        for i in range(1, len(drafts))
        if drafts[i].page == drafts[i - 1].page
        and _CITE_LABEL_RE.search(drafts[i - 1].text)
        and is_entry(drafts[i].text)
    ]


def _stack_ruled_cells(rows: list[Row], rules: Sequence[Rect]) -> None:
    """Give the lines of one ruled table cell a common ``stack`` (see cell_rules.ruled_cells),
    merging the stacks they had."""
    cells = [r for r in rows if r.cell]
    firsts = ruled_cells([(r.bbox, r.size, r.bold, r.text) for r in cells], rules)
    keys = {f: cells[f].stack or (cells[f].x0, cells[f].baseline) for f in firsts if f is not None}
    for row, first in zip(cells, firsts, strict=True):
        if first is None:
            continue
        old, new = row.stack, keys[first]
        if old is not None and old != new:
            for other in rows:
                if other.stack == old:
                    other.stack = new
        row.stack = new


def _grow_cells(rows: list[Row], rules: Sequence[Rect]) -> None:
    """Let each cell's room reach down over the free space below it, up to the ruling lines
    around it (``rules``, frame coordinates)."""
    cells = [r for r in rows if r.room is not None]
    rooms = [(r.room, r.size) for r in cells if r.room is not None]
    bottoms = cell_rooms(rooms, [r.bbox for r in rows])
    others = [r.bbox for r in rows]
    for cell, (room, _), bottom in zip(cells, rooms, bottoms, strict=True):
        grown = (room[0], room[1], room[2], bottom)
        ruled = ruled_room(grown, cell.bbox, cell.size, rules, others) if rules else grown
        cell.room = clear_room(ruled, cell.bbox, others)
    flush = right_aligned([(r.bbox, r.size) for r in cells], [r.stack for r in cells])
    for cell, right in zip(cells, flush, strict=True):
        cell.flush_right = right
