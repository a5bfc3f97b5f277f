"""Running headers, footers and page numbers: the rows at a page's top and bottom edges that
repeat from page to page or number the page, which are not translated."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence

from translation.read.layout import Frame, PageLayout, Rect
from translation.read.measures import line_step
from translation.read.numbering.grammar import PAGE_NUMBER
from translation.read.regions.doc_stats import DocStats
from translation.read.rows.row import Row
from translation.read.words.word import ends_sentence

_PAGE_NUMBER_RE = re.compile(rf"^(page\s*)?[-–—]?\s*({PAGE_NUMBER})\s*[-–—]?$", re.I)


_HEAD_BAND = 0.08  # of the page's height: rows this near its top or foot are running heads ...
_HEAD_LARGER = 1.0  # ... unless larger than the body text by more points than this
_NUMBER_BAND = 0.15  # of the page's height: page numbers and repeated heads lie this near
_TOP_BAND = 0.13  # of the page's height: an isolated topmost row this near is a head ...
_TOP_LARGER = 0.5  # ... when at most this many points larger than the body text ...
_TOP_APART = 1.4  # ... and this many of its sizes above the next row
_REPEAT_SIZE = 1.0  # points: a repeated head keeps its size this closely
_CELLS_BELOW = 8.0  # font sizes: a head over a table's cells stands at most this far above
_SAME_LINE = 0.5  # font sizes: baselines this close are one line
_JOIN_SIZE = 0.5  # points: two band rows of one sentence differ in size by less ...
_JOIN_STEP_LEAST, _JOIN_STEP_MOST = 0.5, 1.8  # ... and stand a line step apart (font sizes)
_SMALL_PRINT = 0.5  # points: rows smaller than the body text by this much are small print
_HEAD_LINE_STEP_LEAST = 0.5  # font sizes: a head's next line stands at least this far down


def _normalized(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\d+", "#", text.lower())).strip()


_TOP_CHARS = 80  # characters: a page's first row this short may be its header
_FEW_PAGES = 4  # pages: in a paper of at most this many, two copies make a running head


#: In a longer paper a running head stands on this many pages at least, and on one in
#: ``_RECURS_ONE_IN`` (a head printed on even or odd pages, a chapter's, recurs less).
_RECURS_LEAST, _RECURS_ONE_IN = 3, 4


def mark_headers_footers(
    rows_by_page: dict[int, list[Row]],
    pages: Sequence[PageLayout],
    frames: dict[int, Frame],
    stats: DocStats,
) -> None:
    """Mark running headers, footers and page numbers: rows in the outer 8% of the page no
    larger than body text; page numbers in the outer 15%; an isolated topmost row in the outer
    13%; and rows of the outer 15% repeated on several pages (digits ignored)."""
    band_rows: dict[int, list[tuple[Row, str]]] = {}
    for page in pages:
        fy0, fy1 = frames[page.index].to_frame((0.0, 0.0, page.width, page.height))[1::2]
        height = fy1 - fy0
        rows = [r for r in rows_by_page.get(page.index, []) if not r.drop]
        marked: list[tuple[Row, str]] = []
        for row in rows:
            top = row.bottom <= fy0 + _HEAD_BAND * height
            bottom = row.top >= fy1 - _HEAD_BAND * height
            if (top or bottom) and row.size <= stats.body_size + _HEAD_LARGER:
                row.drop = "header/footer"
            elif _PAGE_NUMBER_RE.match(row.text) and (
                row.bottom <= fy0 + _NUMBER_BAND * height or row.top >= fy1 - _NUMBER_BAND * height
            ):
                row.drop = "page number"
            if row.bottom <= fy0 + _NUMBER_BAND * height:
                marked.append((row, "top"))
            elif row.top >= fy1 - _NUMBER_BAND * height:
                marked.append((row, "bottom"))
        live = sorted((r for r in rows if not r.drop), key=lambda r: r.top)
        if len(live) > 1:
            first, second = live[0], live[1]
            if (
                first.bottom <= fy0 + _TOP_BAND * height
                and first.size <= stats.body_size + _TOP_LARGER
                and second.top - first.bottom >= _TOP_APART * first.size
                and len(first.text) <= _TOP_CHARS
            ):
                first.drop = "header"
        _join_band_sentences(rows, stats.body_size)
        band_rows[page.index] = marked
    if len(pages) < 2:
        return
    seen: Counter[tuple[str, str]] = Counter()
    sizes: dict[tuple[str, str], list[float]] = {}
    for marked in band_rows.values():
        for key in {(where, _normalized(row.text)) for row, where in marked}:
            seen[key] += 1
        for row, where in marked:
            sizes.setdefault((where, _normalized(row.text)), []).append(row.size)
    needed = 2 if len(pages) <= _FEW_PAGES else max(_RECURS_LEAST, len(pages) // _RECURS_ONE_IN)
    # Where a row cut into cells recurs with no table under it on enough pages, it is a head
    # on every page, a table under it on some of them too (2302.07302 p11-12).
    heads: Counter[tuple[str, str]] = Counter()
    over_cells: set[int] = set()
    for index, marked in band_rows.items():
        page_rows = rows_by_page.get(index, [])
        for row, where in marked:
            if row.cell and _heads_cells(row, page_rows):
                over_cells.add(id(row))
            else:
                heads[(where, _normalized(row.text))] += 1
    for marked in band_rows.values():
        for row, where in marked:
            headed = heads[(where, _normalized(row.text))] >= needed
            if id(row) in over_cells and not headed and not _beside_page_number(row, marked):
                # A table's header cell recurs where the same table layout heads several
                # pages (04: "After Perturb" over Tables 1, 2 and 4); a running head's lines
                # never become cells (``running_head_boxes`` keeps them out of the tables),
                # but a head line cut in two at its gap (2302.07302: the venue left, "Chang
                # et al." right) or its last line set apart from the page number (2203.00130:
                # "Processing" ... "3") is cut into cells with nothing of a table under them.
                continue
            key = (where, _normalized(row.text))
            # A paper's title repeated small in the running head is still the title where it
            # is set large (page 1): only the rows of the repeats' own size are the head.
            usual = _usual_size(sizes[key])
            if row.text and seen[key] >= needed and abs(row.size - usual) < _REPEAT_SIZE:
                # Told by its recurrence, whatever the band said: a foot that opens with its
                # page number ("2 Row and Column ...") is never a footnote given back, nor a
                # page's isolated top row the previous page's sentence that runs on into it.
                if row.drop in ("", "header/footer", "header"):
                    row.drop = "running header/footer"
    _mark_head_lines(rows_by_page, needed)


def _mark_head_lines(rows_by_page: dict[int, list[Row]], needed: int) -> None:
    """A running head set over two lines whose second runs past the band (Emerald's outer
    margin: "Shift work" | "interventions" over the page number): the row a line step under
    a running head's row (over a running foot's), of its size and across its width, is the
    head's next line where the same text stands there on as many pages as the head needs."""
    found: dict[str, list[tuple[int, Row]]] = {}
    for index, rows in rows_by_page.items():
        heads = [r for r in rows if r.drop == "running header/footer"]
        for head in heads:
            for row in rows:
                if row.drop or not row.text.strip():
                    continue
                below = _HEAD_LINE_STEP_LEAST * head.size < line_step(head, row)
                above = _HEAD_LINE_STEP_LEAST * head.size < line_step(row, head)
                step = line_step(head, row) if below else line_step(row, head)
                if (
                    (below or above)
                    and step < _JOIN_STEP_MOST * head.size
                    and abs(row.size - head.size) < _REPEAT_SIZE
                    and min(row.x1, head.x1) > max(row.x0, head.x0)
                ):
                    key = f"{_normalized(head.text)}|{'below' if below else 'above'}|"
                    found.setdefault(key + _normalized(row.text), []).append((index, row))
    for lines in found.values():
        if len({index for index, _ in lines}) >= needed:
            for _, row in lines:
                row.drop = "running header/footer"


def _heads_cells(row: Row, rows: list[Row]) -> bool:
    """Whether cells stand under ``row`` (within eight of its lines, across its width): it
    heads a table's column, where a running head has running text under it."""
    return any(
        other.cell
        and 0 <= other.top - row.bottom <= _CELLS_BELOW * row.size
        and min(other.x1, row.x1) > max(other.x0, row.x0)
        for other in rows
        if other is not row
    )


def _beside_page_number(row: Row, marked: list[tuple[Row, str]]) -> bool:
    """Whether a page number stands on ``row``'s baseline in the same band."""
    return any(
        other is not row
        and abs(line_step(row, other)) < _SAME_LINE * row.size
        and _PAGE_NUMBER_RE.match(other.text)
        for other, _ in marked
    )


def _usual_size(sizes: list[float]) -> float:
    """The size most of a repeated row's copies have; of two as common, the smaller (a title
    set once large and once small in the running head)."""
    counts = Counter(round(size * 2) / 2 for size in sizes)
    return min(counts, key=lambda size: (-counts[size], size))


def _next_line(upper: Row, lower: Row) -> bool:
    """Whether ``lower`` is set as the line after ``upper``: their size, a line step apart,
    one above the other."""
    return (
        abs(upper.size - lower.size) < _JOIN_SIZE
        and _JOIN_STEP_LEAST * upper.size < line_step(upper, lower) < _JOIN_STEP_MOST * upper.size
        and min(upper.x1, lower.x1) > max(upper.x0, lower.x0)
    )


def _joins_below(upper: Row, lower: Row) -> bool:
    """Whether ``lower`` is the next line of the sentence ``upper`` leaves unfinished."""
    return _next_line(upper, lower) and not ends_sentence(upper.text)


def _join_band_sentences(rows: list[Row], body_size: float) -> None:
    """A sentence the edge of the header/footer band cuts in two is one unit (a licence
    note's first line above the band): small print above a dropped footer line, or below a
    dropped header line, is dropped too; a body-size line running into the bottom band is a
    paragraph's end and is translated with it."""
    ordered = sorted(rows, key=lambda r: r.baseline)
    middle = ordered[len(ordered) // 2].baseline if ordered else 0.0
    for i in range(len(ordered) - 1, 0, -1):  # upwards from the bottom: small print above
        row = ordered[i]
        if row.drop != "header/footer":
            continue
        above = [r for r in ordered[:i] if not r.drop and _joins_below(r, row)]
        if above and above[-1].size <= body_size - _SMALL_PRINT:
            above[-1].drop = "header/footer"
    # Downwards: body text that runs into the band keeps every line of it there, each given
    # back before the next is looked at (a column ending two lines into the band), a new
    # sentence's line too; a line repeated page after page is still a foot (below).
    for i, row in enumerate(ordered):
        if row.drop != "header/footer" or row.baseline <= middle:
            continue
        above = [r for r in ordered[:i] if not r.drop and _next_line(r, row)]
        if above and above[-1].size > body_size - _SMALL_PRINT:
            row.drop = ""
    # Upwards: a body-size line in the top band with the body's next line a line step under
    # it is a column's first line (a hanging term's "usecmfonts By use of this option ..."
    # over its indented rest), not a head, which stands apart from the text; a head
    # repeated page after page is still a head (below).
    for i in range(len(ordered) - 1, -1, -1):
        row = ordered[i]
        if row.drop != "header/footer" or row.baseline > middle:
            continue
        if row.size <= body_size - _SMALL_PRINT:
            continue
        below = [r for r in ordered[i + 1 :] if not r.drop and _next_line(row, r)]
        if below and below[0].size > body_size - _SMALL_PRINT:
            row.drop = ""
    for i, row in enumerate(ordered):  # downwards from the top
        if row.drop != "header/footer":
            continue
        below = [r for r in ordered[i + 1 :] if not r.drop and _joins_below(row, r)]
        if below and below[0].size <= body_size - _SMALL_PRINT:
            below[0].drop = "header/footer"


#: Points: a line's height on the page, rounded to this step, tells the same head apart.
_HEIGHT_STEP = 3


def running_head_boxes(
    pages: Sequence[PageLayout], frames: Mapping[int, Frame]
) -> dict[int, list[Rect]]:
    """Per page index, the frame boxes of the text lines in the outer 15 % of the page (top or
    bottom) whose words recur, digits ignored, at the same height on at least half the pages:
    a running head's or foot's lines, read from the layout before any row is made. The table
    finder leaves them out: a running head set in pieces far apart looks like a row of cells,
    and over a page's first lines of text it made a table of them (07 p5: the text under
    "JCRAI-2021 ... IOP Publishing" sent cell by cell). A table's header at the top of a few
    pages, or its rows of numbers, are no such lines (half the pages, letters, one height).
    """
    if len(pages) < 2:
        return {}
    needed = max(2, math.ceil(len(pages) / 2))
    found: dict[int, list[tuple[tuple[str, str, int], Rect]]] = {}
    seen: Counter[tuple[str, str, int]] = Counter()
    for page in pages:
        frame = frames[page.index]
        fy0, fy1 = frame.to_frame((0.0, 0.0, page.width, page.height))[1::2]
        band = _NUMBER_BAND * (fy1 - fy0)
        lines = []
        for block in page.blocks:
            for line in block.lines:
                box = frame.to_frame(line.bbox)
                where = "top" if box[3] <= fy0 + band else "bottom" if box[1] >= fy1 - band else ""
                text = _normalized("".join(span.text for span in line.spans))
                if where and sum(c.isalpha() for c in text) >= 2:
                    lines.append(
                        ((where, text, round((box[1] + box[3]) / (2 * _HEIGHT_STEP))), box)
                    )
        found[page.index] = lines
        seen.update({key for key, _ in lines})
    return {
        index: [box for key, box in lines if seen[key] >= needed] for index, lines in found.items()
    }
