"""The rows a table finder sees (``translation.read.tables.detect``, ``label_tables``) and the
table it
makes: a visual row's words, its pieces set apart, its strong gaps; whether it is a caption's
first line or a justified line of running text. Frame coordinates; pure.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from translation.read.layout import Frame, Rect, Span
from translation.read.math.formulas import is_math_font
from translation.read.numbering.captions import caption_label
from translation.read.style.paragraph_style import is_bold, span_style
from translation.read.words.stretched_spaces import (
    EVEN_SLACK,
    EVEN_SPACES,
    INK_EVEN_SPACES,
    ink_measured,
    stretched_gaps,
)

#: The spans of one visual row, sorted by x (frame box, span), and the x-range of each of the
#: MuPDF lines it is made of, sorted.
RowSpans = tuple[list[tuple[Rect, Span]], tuple[tuple[float, float], ...]]

CHUNK_GAP = 0.5  # a gap between words this wide (x font size) may separate two cells
LINE_GAP = 3.5  # rows of one table stand at most this far apart (x font size)
GUTTER_WIDTH = 0.45  # the narrowest gutter (x font size): wider than a word space
EDGE_SLACK = 0.5  # points: edges this close line up (a producer's rounding)
OVERLAP = 0.1  # points: ranges sharing more than this overlap
_INTO = 0.25  # of a box's height: how far it must reach into a table to be in it
_CELL_GAP = 1.5  # font sizes: a gap this wide in one line parts two cells
_WIDEST_CELL = 0.7  # of the row's extent: a row of cells has none wider
_FORMULA_SHARE = 0.5  # of a row's characters: math beyond this share makes a formula row
_STRETCHED_MOST = 2.0  # a justified line's widest gap is at most this many stretched spaces
_STRETCHED_AFTER_STOP = 2.5  # ... and this many after a sentence's stop
_AT_START = 0.01  # points: a box starting this close after a column's start is in it
_TOUCHING = 0.3  # points: words this close are one extent
_WORD_RUN_GAP = 1.6  # font sizes: a gap wider than this ends a run of words


@dataclass(frozen=True, slots=True)
class Table:
    """A table's area and the x-ranges between its columns (frame coordinates)."""

    bbox: Rect
    gutters: tuple[tuple[float, float], ...]
    #: Gutters between columns of numbers set a word space apart, too narrow for ``gutters``
    #: (see ``translation.read.tables.number_columns``): they part the words of a header row only.
    tight: tuple[tuple[float, float], ...] = ()
    #: The x-ranges its numbers cover (``translation.read.tables.number_columns.number_columns``).
    numbers: tuple[tuple[float, float], ...] = ()

    def column(self, box: Rect) -> tuple[float, float]:
        """The x-range of the column a cell with glyph box ``box`` starts in: from the middle
        of the gutter before it to the middle of the one after (or the table's edges)."""
        left, right = self.bbox[0], self.bbox[2]
        for g0, g1 in self.gutters:
            if g1 <= box[0] + EDGE_SLACK:
                left = (g0 + g1) / 2
            elif g0 >= box[0]:
                right = (g0 + g1) / 2
                break
        return left, right

    def holds(self, box: Rect) -> bool:
        """Whether a row with glyph box ``box`` belongs to this table: its middle lies in the
        table's box, or (the top line of a two-line header cell, "Self-" over "BLEU", set
        higher than the one-line header cells beside it) it reaches a quarter of its height
        into the table's top row."""
        cy = (box[1] + box[3]) / 2
        into = box[3] - self.bbox[1] >= _INTO * (box[3] - box[1])
        return (
            (self.bbox[1] <= cy or into)
            and cy <= self.bbox[3]
            and box[0] < self.bbox[2]
            and box[2] > self.bbox[0]
        )


#: The frame of text read left to right, the words' frame unless told.
_UPRIGHT = Frame()


def words(spans: Sequence[tuple[Rect, Span]], frame: Frame = _UPRIGHT) -> list[tuple[Rect, Span]]:
    """The spans cut at their spaces into one span per word (boxes estimated along the span,
    a space taking half a letter); spaces are dropped. Spans without a space stay whole.
    The boxes are in ``frame``, the spans' origins page points: a word's origin is its
    span's moved along the line (on a page turned sideways, not across it)."""
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
                    result.append(((start, box[1], left, box[3]), _part(span, word, start, frame)))
                word, start = "", None
            else:
                if start is None:
                    start = left
                word += char
            left += share * step
    return result


def _part(span: Span, text: str, x: float, frame: Frame) -> Span:
    origin = None
    if span.origin is not None:
        origin = frame.page_point(x, frame.point(*span.origin)[1])
    return Span(text, span.bbox, span.font, span.size, span.flags, span.color, origin)


def outside(spans: list[tuple[Rect, Span]], boxes: Sequence[Rect]) -> list[tuple[Rect, Span]]:
    def inside(box: Rect, out: Rect) -> bool:
        x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        return out[0] <= x <= out[2] and out[1] <= y <= out[3]

    return [(box, span) for box, span in spans if not any(inside(box, b) for b in boxes)]


@dataclass(frozen=True, slots=True)
class RowItem:
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


def row_item(
    spans: list[tuple[Rect, Span]], lines: Sequence[tuple[float, float]]
) -> RowItem | None:
    found = words(spans)
    if not found:
        return None
    size = max(s.size for _, s in found)
    extents = word_extents(found)
    gaps = [b[0] - a[1] for a, b in zip(extents, extents[1:], strict=False)]
    cuts = [k for k, g in enumerate(gaps) if g >= CHUNK_GAP * size]
    cells = bool(cuts) and (len(lines) >= 2 or max(gaps) >= _CELL_GAP * size)
    inked = ink_measured(s.font for _, s in found)
    cells = cells and not _justified(found, extents, gaps, size, inked)
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
        cells = widest <= _WIDEST_CELL * (extents[-1][1] - extents[0][0])
        formula = maths >= _FORMULA_SHARE * text
        if formula:
            cells = cells and any(
                c.isalpha() for _, s in found if not is_math_font(s.font) for c in s.text
            )
    top, bottom = min(b[1] for b, _ in found), max(b[3] for b, _ in found)
    # Word sets an inline formula apart from the text beside it (a MuPDF line ends or
    # starts at it, a justified space wide): a gap there is a word space of running text.
    formula_edges = [edge for box, s in found if is_math_font(s.font) for edge in (box[0], box[2])]
    # A cell's justified line set word by word stretches its spaces alike: no gaps of cells.
    spaces = stretched_gaps(
        [(a, b, t) for (a, b), t in zip(extents, _extent_texts(found, extents), strict=True)],
        size,
        inked,
    )
    strong = [
        (a[1], b[0])
        for k, (a, b) in enumerate(zip(extents, extents[1:], strict=False))
        if k not in spaces
        and (
            b[0] - a[1] >= size
            or not (
                any(x0 <= a[1] + EDGE_SLACK and x1 >= b[0] - EDGE_SLACK for x0, x1 in lines)
                or any(
                    abs(e - a[1]) < EDGE_SLACK or abs(e - b[0]) < EDGE_SLACK for e in formula_edges
                )
            )
        )
    ]
    # A caption's first line is no row of cells, whatever lines up with the columns in it
    # ("Table 4:  A comparison of algorithms", 03 p7), and no table runs past it.
    caption = _caption(found)
    box = (extents[0][0], top, extents[-1][1], bottom)
    apart = strong if pieces and not cells and not formula and not caption else []
    return RowItem(
        box, size, extents, strong if cells and not caption else [], found, caption, formula, apart
    )


_JUSTIFIED_GAPS = 3  # gaps: a justified line stretches at least this many alike


def _justified(
    found: Sequence[tuple[Rect, Span]],
    extents: Sequence[tuple[float, float]],
    gaps: Sequence[float],
    size: float,
    inked: bool = False,
) -> bool:
    """Whether a row is a justified line of running text whose words MuPDF keeps as lines of
    their own: the spaces between its words of letters all stretched alike (at least three),
    those beside an inline formula or a number at most twice as wide. A table's cells stand at
    their columns' places, so the gaps between them differ with their widths, and a cell's
    own word spaces are narrow beside them ("and  a  generic  sequence  of  tokens  denoting"
    and "the  prompt  infix  as  q1:t  =  (q1, ...)": three such lines made a paragraph a
    table). ``inked``: the words' boxes are their ink's (OCR), their gaps alike more loosely
    (``stretched_spaces.INK_EVEN_SPACES``)."""
    texts = _extent_texts(found, extents, math="\0")
    between = _bare_gaps(gaps, texts, _letters_word)
    if len(between) < _JUSTIFIED_GAPS:
        # A line of codes and names ("AMS Classification: Primary: 1AB5 (matsc2020), 2FD5
        # (matsc2020); Sec-") holds few words of letters alone; its words holding a letter
        # are spaced alike all the same, while numbers alone may be a table's even columns.
        # Only spaces stretched as wide as a cell's gap count so: narrower ones part no cells,
        # and a run-in heading's wider space after them is what sets it apart.
        between = _bare_gaps(gaps, texts, _holds_letter)
        if not between or min(between) < CHUNK_GAP * size:
            return False
    alike = max(EVEN_SLACK, (INK_EVEN_SPACES if inked else EVEN_SPACES) * size)
    if len(between) < _JUSTIFIED_GAPS or max(between) - min(between) > alike:
        return False
    widths = [b - a for a, b in extents]
    if max(widths) - min(widths) < size:  # words of one width: a table's uniform cells
        return False
    stretched = sum(between) / len(between)
    # After a sentence's stop TeX stretches the space about twice as far as between words.
    return all(
        g
        <= (_STRETCHED_AFTER_STOP if texts[k].rstrip().endswith(_STOPS) else _STRETCHED_MOST)
        * stretched
        for k, g in enumerate(gaps)
    )


def _bare_gaps(
    gaps: Sequence[float], texts: Sequence[str], word: Callable[[str], bool]
) -> list[float]:
    """The gaps between two ``word``s whose first ends bare: TeX and Word widen the space after
    a comma or a stop, so only the others must be alike (each of those still at most
    ``_STRETCHED_MOST`` of them, in :func:`_justified`)."""
    words = [word(t) for t in texts]
    return [
        g
        for k, g in enumerate(gaps)
        if words[k] and words[k + 1] and not texts[k].rstrip().endswith(_WIDER_AFTER)
    ]


def _holds_letter(text: str) -> bool:
    return any(c.isalpha() for c in text)


#: Marks after which a justified line's space is set wider than between two bare words.
_WIDER_AFTER = tuple(",.;:!?")
_STOPS = tuple(".!?")
#: What a word of letters may carry around it and inside it: quotes, brackets, punctuation
#: outside; hyphens, apostrophes and an initial's stops inside ("Vazquez-Gonzalez", "T.P.").
_WORD_OUTSIDE = "\u201c\u201d\u2018\u2019\"'()[]{},.;:!?-"
_WORD_INSIDE = str.maketrans("", "", "-'\u2019.")


def _letters_word(text: str) -> bool:
    """Whether ``text`` is a word of letters (module doc of :func:`_justified`)."""
    core = text.strip().strip(_WORD_OUTSIDE)
    return bool(core) and core.translate(_WORD_INSIDE).isalpha()


def _extent_texts(
    found: Sequence[tuple[Rect, Span]], extents: Sequence[tuple[float, float]], math: str = ""
) -> list[str]:
    """The text of each word extent of a row (``math``, where given, stands for each piece
    set in a math font)."""
    texts = ["" for _ in extents]
    starts = [a for a, _ in extents]
    for box, span in found:
        k = bisect.bisect_right(starts, box[0] + _AT_START) - 1
        texts[max(k, 0)] += math if math and is_math_font(span.font) else span.text
    return texts


def _caption(found: Sequence[tuple[Rect, Span]]) -> bool:
    """Whether the words of a row (in x order) begin with a caption's label."""
    text = " ".join(s.text for _, s in found)
    lead = 0
    for _, span in found:
        if not is_bold(span_style(span.font, span.flags, span.color)):
            break
        lead += len(span.text) + 1
    return caption_label(text, lead)


def word_extents(items: Sequence[tuple[Rect, Span]]) -> list[tuple[float, float]]:
    """x-ranges of the words of a row, touching pieces (a subscript) merged."""
    result: list[list[float]] = []
    for box, _ in sorted(items, key=lambda it: it[0][0]):
        if result and box[0] <= result[-1][1] + _TOUCHING:
            result[-1][1] = max(result[-1][1], box[2])
        else:
            result.append([box[0], box[2]])
    return [(a, b) for a, b in result]


def line_gaps(lines: Sequence[tuple[float, float]], size: float) -> list[tuple[float, float]]:
    """The gaps between the MuPDF lines of a row wider than 1.6 font sizes (a justified line
    of a reference list can hold a gap of 1.5 between two MuPDF lines, 04 p10): outside a table
    found as such, a row set as separate lines this far apart holds cells (a lone header row
    above cells that are blocks of their own)."""
    result: list[tuple[float, float]] = []
    right: float | None = None
    for x0, x1 in lines:
        if right is not None and x0 - right > _WORD_RUN_GAP * size:
            result.append((right, x0))
        right = x1 if right is None else max(right, x1)
    return result


def crosses(gutters: Sequence[tuple[float, float]], left: float, right: float) -> bool:
    """Whether the gap from ``left`` to ``right`` lies in one of the ``gutters``."""
    k = bisect.bisect_left(gutters, (left,))
    return any(min(right, g[1]) - max(left, g[0]) > OVERLAP for g in gutters[max(0, k - 1) : k + 1])
