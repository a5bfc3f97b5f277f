"""Reading as an ordered list of stages: page layouts -> the paragraphs to translate.

Each stage is a function from one typed value to the next, and :func:`read` runs them in
order (:data:`STAGES`)::

    page layout      translation.read.extraction.read_layout (PyMuPDF; every stage after it
                     works on plain data, testable with literals)
    page regions     regions(Reading) -> Regions
    rows             rows(Regions) -> Rows
    blocks           blocks(Rows) -> Blocks
    kinds            kinds(Blocks) -> Kinds
    paragraphs       paragraphs(Kinds) -> Paragraphs
    flow             flow(Paragraphs) -> Segmentation
    requests         requests(Segmentation) -> list[Passage] (the translator's own step)

A stage receives everything the stages before it decided (each value holds the one before
it) and decides one thing more; what it must not decide is said in its docstring. The order
is the policy: a later stage never changes what an earlier one decided, except where its
docstring says so.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from translation.read.blocks.continuation import continues, opens_led_series
from translation.read.blocks.draft import Draft, classify
from translation.read.blocks.edge_rows import rescue_edge_rows
from translation.read.blocks.front_matter import (
    author_note_marks,
    front_break,
    front_matter_end,
    note_sized,
    title_page,
)
from translation.read.blocks.reference_drafts import citation_notes, reference_drafts
from translation.read.blocks.roles import algorithm_label, caption_start
from translation.read.flow import links as flows
from translation.read.flow.described_terms import described_terms
from translation.read.flow.passage import Passage, passages
from translation.read.layout import Frame, PageLayout, Rect, union
from translation.read.paragraph import Paragraph, ParagraphKind
from translation.read.paragraphs.from_draft import to_paragraph
from translation.read.regions.doc_stats import DocStats, doc_stats
from translation.read.regions.page_regions import LINE_NUMBER, Kept, PageRegions, page_regions
from translation.read.rows.cell_rooms import grow_cells, stack_ruled_cells, stack_wrapped_cells
from translation.read.rows.figure_text import mark_figure_text
from translation.read.rows.listing_rows import mark_listing_rows
from translation.read.rows.page_rows import page_rows
from translation.read.rows.reading_order import reading_order
from translation.read.rows.region_rows import margin_rows, mark_furniture
from translation.read.rows.row import Row
from translation.read.rows.row_joins import attach_drop_caps, attach_scripts, join_pieces
from translation.read.rows.running_heads import mark_headers_footers, running_head_boxes
from translation.read.rows.visual import rows_of_page, visual_rows
from translation.read.segmentation import Segmentation
from translation.read.tables.cell_stacks import stacked
from translation.read.tables.detect import find_tables
from translation.read.words.vocabulary import Vocabulary, vocabulary

# --- the values passed from stage to stage ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reading:
    """What reading is asked: the page layouts in document order (every page up to the last
    wanted one, and a few after it), the pages wanted (0-based; None: all) and whether the
    references section is translated."""

    pages: Sequence[PageLayout]
    wanted: Collection[int] | None = None
    include_references: bool = False


@dataclass(frozen=True, slots=True)
class Regions:
    """The document's measures (body size, leading, directions), its vocabulary, each page's
    frame (its reading direction), the boxes of its running heads and feet, and each page's
    regions (its body's blocks, its margin's blocks, its line numbers and furniture)."""

    reading: Reading
    stats: DocStats
    seen: Vocabulary
    frames: dict[int, Frame]
    heads: dict[int, list[Rect]]
    areas: dict[int, PageRegions]


@dataclass(frozen=True, slots=True)
class Rows:
    """Each page's rows (visual lines, in frame coordinates), tables and cells found, running
    heads, feet and figure text marked as not read."""

    regions: Regions
    by_page: dict[int, list[Row]]


@dataclass(frozen=True, slots=True)
class Blocks:
    """The rows grouped, page by page in reading order, into drafts: the blocks that become
    paragraphs (a draft's rows, its page and whether it is in the front matter)."""

    rows: Rows
    drafts: list[Draft]


@dataclass(frozen=True, slots=True)
class Kinds:
    """Each draft's text, kind (body, heading, caption, list item, footnote, cell, ...) and
    whether it is sent, and which drafts are the references section."""

    blocks: Blocks
    references: set[int]


@dataclass(frozen=True, slots=True)
class Paragraphs:
    """The paragraphs of the wanted pages (ids ``p<page>-b<n>``), and for each draft sent the
    index of its paragraph."""

    kinds: Kinds
    paragraphs: list[Paragraph]
    position: dict[int, int]
    reference_pages: tuple[int, ...]


# --- the stages, in order ---------------------------------------------------------------------


def regions(reading: Reading) -> Regions:
    """Page regions. Receives the page layouts; decides the document's measures, each page's
    reading direction, where its running heads and feet may lie, and its regions: the body
    column's range, the margin's line numbers (kept) and labels, side notes and columns (read
    on their own), running heads, footers and page numbers told across pages (kept). Must not
    decide what a line is, nor any line's role (floats are still told by the stages after
    it)."""
    pages = reading.pages
    stats = doc_stats(pages)
    frames = {p.index: Frame(stats.directions[p.index]) for p in pages}
    heads = running_head_boxes(pages, frames)
    areas = page_regions(pages, frames, stats.body_size)
    return Regions(reading, stats, vocabulary(pages), frames, heads, areas)


def rows(regions: Regions) -> Rows:
    """Rows. Receives the regions; decides each page's visual lines (spans joined, scripts and
    drop caps attached), its tables and their cells' rooms, and which rows are not read
    (figure text, running heads and feet, page numbers). Must not decide which rows make one
    paragraph, nor what a paragraph is."""
    pages, stats, frames = regions.reading.pages, regions.stats, regions.frames
    by_page: dict[int, list[Row]] = {}
    for page in pages:
        frame = frames[page.index]
        area = regions.areas[page.index]
        visual = page_rows([visual_rows(block, frame) for block in area.body])
        rules = [frame.to_frame(r) for r in page.rules]
        tables = find_tables(visual, regions.heads.get(page.index, ()), rules)
        found = rows_of_page(area.body, frame, stats, tables)
        found = attach_drop_caps(join_pieces(attach_scripts(found)))
        if rules:
            stack_ruled_cells(found, rules)
        stack_wrapped_cells(found)
        grow_cells(found, rules)
        mark_listing_rows(found, area.listings, frame)
        found.extend(margin_rows(area, frame, stats))
        mark_furniture(found, area)
        mark_figure_text(found, page, frame, stats.body_size)
        by_page[page.index] = found
    mark_headers_footers(by_page, pages, frames, stats)
    rescue_edge_rows(by_page, stats.body_size)
    return Rows(regions, by_page)


def blocks(rows: Rows) -> Blocks:
    """Blocks. Receives the rows; decides, page by page in reading order, which rows make one
    block (a paragraph in the making: a line goes on the one before it, a table cell's lines
    are read together, the front matter's lines break apart, a series led by a word and a
    number opens its own block). Must not decide a block's text or kind."""
    stats, frames = rows.regions.stats, rows.regions.frames
    drafts: list[Draft] = []
    for page in rows.regions.reading.pages:
        first = len(drafts)
        # The lines of a multi-line table cell are read together (cell_stacks.stacked).
        # The body is read first, then the margin's material on its own (never joined to it).
        ordered = [
            row
            for region in _regions(rows.by_page[page.index])
            for row in stacked(reading_order(region), lambda r: r.stack, lambda r: r.baseline)
        ]
        end = front_matter_end(ordered) if page.index == 0 else None
        # A title page is front matter to its foot (its notes aside), though no "Abstract"
        # ends it.
        title = end is None and page.index == 0 and title_page(ordered, stats.body_size)
        front = end is not None or title
        for row in ordered:
            front = front and row is not end
            last = drafts[-1].rows if len(drafts) > first else []
            if row.numbered:
                last = []  # a listing's numbered line opens its own unit
            if last and row.listing and _listing_goes_on(last[-1], row):
                last.append(row)  # a numbered line's wrapped rest
            elif last and row.stack is not None and last[-1].stack == row.stack:
                last.append(row)  # the next line of a multi-line table cell
            elif (
                last
                and last[-1].region == row.region
                # A margin block (a note, a label, a caption) is one unit; the body's lines
                # go on by the continuation rules.
                and (
                    row.region
                    or continues(
                        last[-1],
                        row,
                        last,
                        stats.leading_at(last[-1].size),
                        stats.text_size(page.index),
                    )
                )
                and not (front and front_break(last[-1], row, stats.body_size))
            ):
                last.append(row)
            else:
                draft = Draft(rows=[row], page=page.index, frame=frames[page.index])
                # A cell of an author grid read after the front matter's end (its last
                # column beside the abstract, read with the right-hand column) is still above it.
                draft.front = (front and not (title and note_sized(row, stats.body_size))) or (
                    end is not None and row.cell and row.bottom <= end.top
                )
                drafts.append(draft)
        _split_led_series(drafts, first)
    return Blocks(rows, drafts)


def kinds(blocks: Blocks) -> Kinds:
    """Kinds. Receives the blocks; decides each one's text (line-end hyphens, placeholders for
    math and code), its kind and label, whether it is sent, and which blocks are the
    references section. Must not decide paragraph ids, nor what goes on in another box (a
    caption that runs on a sentence is body text, lines set apart alike one below another are
    a list's items, and so are descriptions under their terms' labels: the looks across blocks
    it takes)."""
    drafts = blocks.drafts
    for draft in drafts:
        classify(draft, blocks.rows.regions.stats, blocks.rows.regions.seen)
    for i in flows.run_on_captions(drafts):
        drafts[i].kind = ParagraphKind.BODY  # "Table 4. On average, ..." going on a sentence
    for i in flows.line_series(drafts):
        drafts[i].kind = ParagraphKind.LIST_ITEM  # "dgeMatrix Real matrices in ..." one a line
    for i in described_terms(drafts):
        drafts[i].kind = ParagraphKind.LIST_ITEM  # "전월 이용금액 기준" over "매월 1일부터 ..."
    _author_notes(drafts)
    if not blocks.rows.regions.reading.include_references:
        for i in citation_notes(drafts):  # a note that is an entry alone, kept as entries are
            drafts[i].skip = drafts[i].skip or "reference"
    return Kinds(blocks, reference_drafts(drafts))


def paragraphs(kinds: Kinds) -> Paragraphs:
    """Paragraphs. Receives the kinds; decides the paragraphs of the wanted pages, numbered on
    each page, the references section left out unless it is included (then of kind
    REFERENCE). Must not decide what flows into what."""
    reading = kinds.blocks.rows.regions.reading
    result: list[Paragraph] = []
    kept: set[int] = set()
    numbers: dict[int, int] = {}
    position: dict[int, int] = {}  # draft index -> its paragraph's index in ``result``
    for i, draft in enumerate(kinds.blocks.drafts):
        if draft.skip or (reading.wanted is not None and draft.page not in reading.wanted):
            continue
        if i in kinds.references:
            kept.add(draft.page)
            if not reading.include_references:
                continue
            draft.kind = ParagraphKind.REFERENCE
        numbers[draft.page] = numbers.get(draft.page, 0) + 1
        position[i] = len(result)
        result.append(to_paragraph(draft, numbers[draft.page]))
    return Paragraphs(kinds, result, position, tuple(sorted(kept)))


def flow(paragraphs: Paragraphs) -> Segmentation:
    """Flow. Receives the paragraphs; decides which go on in a later box (a column, a page, a
    float or an equation cuts them: one passage, one request) and how a line-end hyphen
    between two pieces joins. Must not change a paragraph's text, kind or box."""
    kinds, position = paragraphs.kinds, paragraphs.position
    references = kinds.references
    found = flows.links(kinds.blocks.drafts, lambda i: i in position and i not in references)
    after = {position[i]: (position[j], eq) for i, (j, eq) in found.items()}
    chained = flows.chain(paragraphs.paragraphs, after)
    seen = kinds.blocks.rows.regions.seen
    kept = _kept(kinds, position)
    return Segmentation(flows.hyphens_decided(chained, seen), paragraphs.reference_pages, kept)


def requests(segmentation: Segmentation) -> list[Passage]:
    """Requests. Receives the paragraphs; decides the passages sent to the model, one per
    paragraph or per chain of pieces. Must not change any paragraph (the translator cuts a
    passage over its sentence budget)."""
    return passages(segmentation.paragraphs)


#: The stages :func:`read` runs, in order (``requests`` is the translator's, after it).
STAGES: tuple[Callable[..., object], ...] = (regions, rows, blocks, kinds, paragraphs, flow)


def read(
    pages: Sequence[PageLayout],
    wanted: Collection[int] | None = None,
    include_references: bool = False,
) -> Segmentation:
    """Turn page layouts into the paragraphs to translate, in reading order.

    ``pages`` must be in document order and should include every page up to the last wanted one
    (the references section is found from the whole document, see
    ``translation.read.references.entries``);
    only paragraphs of pages in ``wanted`` (0-based indices, None = all) are returned.
    Paragraph ids are ``p<page>-b<n>``.
    """
    reading = Reading(pages, wanted, include_references)
    return flow(paragraphs(kinds(blocks(rows(regions(reading))))))


def _regions(rows: list[Row]) -> list[list[Row]]:
    """A page's rows by region: the body's, then each margin block's, from the top (each read
    in its own order)."""
    found: dict[str, list[Row]] = {"": []}
    for row in rows:
        found.setdefault(row.region, []).append(row)
    body = found.pop("")
    aside = sorted(found.values(), key=lambda block: min(r.top for r in block))
    return [body, *aside]


def _kept(kinds: Kinds, position: dict[int, int]) -> tuple[Kept, ...]:
    """The text of the wanted pages that reached no paragraph, each with its reason: the
    regions' line numbers, the rows not read (their ``drop``: running heads, figure text,
    ...), the drafts not sent (their ``skip``: code, an equation, ...; or the references
    section)."""
    regions = kinds.blocks.rows.regions
    wanted = regions.reading.wanted
    found: list[Kept] = []

    def add(page: int, reason: str, rows: Sequence[Row]) -> None:
        if wanted is None or page in wanted:
            box = regions.frames[page].to_page(union(r.bbox for r in rows))
            text = " ".join(r.text for r in rows)
            found.append(Kept(page, box, text, reason))

    for index, area in regions.areas.items():
        if wanted is None or index in wanted:
            found.extend(k for k in area.kept if k.reason == LINE_NUMBER)
    for index, on_page in kinds.blocks.rows.by_page.items():
        for row in on_page:
            if row.drop:
                add(index, row.drop, [row])
    for i, draft in enumerate(kinds.blocks.drafts):
        reason = "reference" if i in kinds.references else draft.skip
        if i not in position and reason and draft.rows:
            add(draft.page, reason, draft.rows)
    return tuple(found)


def _author_notes(drafts: list[Draft]) -> None:
    """Make the notes of the first page that bear a mark its author lines end with ("김 창
    호*" and "* 경제산업조사실 ..., 02-788-4582, ...") author blocks: an affiliation and a
    contact, no footnote of the text."""
    marks = author_note_marks(
        [
            d.text
            for d in drafts
            if d.page == 0
            and d.front
            and (d.kind is ParagraphKind.AUTHOR or d.skip == "author names")
        ]
    )
    for draft in drafts:
        if (
            marks
            and draft.page == 0
            and draft.kind is ParagraphKind.FOOTNOTE
            and draft.label.strip() in marks
        ):
            draft.kind = ParagraphKind.AUTHOR


#: Of a row's size: a row this much into the one above it still lies below it.
BELOW = 0.3


def _listing_goes_on(last: Row, row: Row) -> bool:
    """Whether ``row``, of a listing but no numbered line's start, goes on the line above it:
    the line above is of the same listing, ``row`` lies below it (a row beside it, a comment's
    end, goes by the usual rules) and opens with no label of its own ("Data:", "Output:") nor
    a caption ("Algorithm 5: ...")."""
    return (
        last.listing == row.listing
        and row.top >= last.bottom - BELOW * row.size
        and not algorithm_label(row.text)
        and not caption_start(row)
    )


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
