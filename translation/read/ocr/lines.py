"""OCR text as our layout: Tesseract's lines rebuilt as the lines and blocks of a
:class:`~translation.read.layout.PageLayout`, so segmentation needs no special case (pure).

Tesseract's line boxes are ink boxes, and on a skewed scan a line's box grows by its width
times the skew; MuPDF puts every word of a line in the line's box and the baseline at its
bottom. :func:`ocr_layout` therefore takes a line's font size from its height or, where that is
inflated by skew, from the distance to its neighbour lines (``sizes``), and puts the baseline a
descent above the middle of the slant.
"""

from __future__ import annotations

import functools
import re
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from translation.read.layout import (
    OCR_FONT,
    OCR_MATH_FONT,
    Block,
    Line,
    PageLayout,
    Rect,
    Span,
    union,
)
from translation.read.measures import ASCENT, DESCENT, GLYPH_HEIGHT
from translation.read.ocr.equations import is_equation
from translation.read.ocr.ink import Ink, cut_to_ink
from translation.read.ocr.sizes import (
    cap_by_pitch,
    even_sizes,
    foot_print,
    line_sizes,
)

Word = tuple[str, Rect]


def ocr_layout(
    raw: Mapping[str, Any],
    index: int,
    width: float,
    height: float,
    figures: Sequence[Rect] = (),
    ink: Ink | None = None,
) -> PageLayout:
    """The layout of an OCR'd page from PyMuPDF's ``dict`` of its OCR text page.

    Lines are cut where a gap wider than their height runs through them (Tesseract joins the
    two columns of a skewed page into one line), grouped into blocks of lines one above the
    other, and each gets a font size and baseline (see the module's docstring). A line box
    much taller than its text (Tesseract joins a line with a figure's drawing beside it) is
    cut down to the band of its text's height holding the most ``ink``. ``figures`` are kept
    as given: the scan is one image, so none are found from it.
    """
    raw_lines: list[list[Word]] = []
    for block in raw.get("blocks", ()):
        if block.get("type", 0) != 0:
            continue
        for line in block.get("lines", ()):
            words = [
                (without_specks(str(span["text"]).strip()), _rect(span["bbox"]))
                for span in line.get("spans", ())
                if str(span["text"]).strip() and not is_rule(str(span["text"]))
            ]
            words = with_bullet([w for w in words if w[0]])
            if sum(c.isalnum() for t, _ in words for c in t) >= 2:  # not a speck
                raw_lines.append(words)
    raw_lines = drop_inner_scraps(join_fragments(raw_lines))
    gutter = find_gutter(raw_lines, width)
    pieces = [piece for words in raw_lines for piece in split_line(words, gutter)]
    boxes = [union(box for _, box in piece) for piece in pieces]
    chars = [sum(len(t) for t, _ in piece) for piece in pieces]
    sizes = even_sizes(line_sizes(boxes, chars), chars)
    tall: list[Rect] = []
    if ink is not None:
        ink = functools.lru_cache(maxsize=None)(ink)  # the two cuts look at the same areas
        spaces = [word_spaces(piece, size) for piece, size in zip(pieces, sizes, strict=True)]
        sizes = cap_by_pitch(cut_to_ink(boxes, sizes, ink, spaces), sizes, chars)
        cut = cut_to_ink(boxes, sizes, ink, spaces)
        tall = [box for box, new in zip(boxes, cut, strict=True) if new != box]
        boxes = cut
    else:
        sizes = cap_by_pitch(boxes, sizes, chars)
    sizes = foot_print(boxes, sizes)
    scraps = overlapping_scraps(chars, boxes)
    lines = [
        _line(piece, box, size)
        for n, (piece, box, size) in enumerate(zip(pieces, boxes, sizes, strict=True))
        if n not in scraps
    ]
    # A scrap's words are pixels under the line it overlaps: covered with that line's paragraph.
    tall += [boxes[n] for n in sorted(scraps)]
    return PageLayout(
        index=index,
        width=width,
        height=height,
        blocks=tuple(group_blocks(lines)),
        figures=tuple(figures),
        tall_boxes=tuple(tall),
    )


#: A scrap has at most this many characters...
_SCRAP_CHARS = 8
#: ...at most this share of the line it overlaps...
_SCRAP_SHARE = 0.35
#: ...and lies over that line by this share of the lower height, within its width.
_SCRAP_OVERLAP = 0.3
#: Of a scrap's width: the line it overlaps covers at least this much of it.
_SCRAP_ACROSS = 0.5


def overlapping_scraps(chars: Sequence[int], boxes: Sequence[Rect]) -> set[int]:
    """The lines (indices) that are scraps of another line read twice: a few characters whose
    box lies over a longer line's by a third of their height, within its width. On a skewed
    scan Tesseract reads one printed line both whole and in pieces ("longest", "f tok",
    "ith th" over "gest continuous sequence of tokens wi", corpus 10 page 3); each piece set
    as a line of its own overprints its neighbours' translations."""
    out = set()
    for n, (count, box) in enumerate(zip(chars, boxes, strict=True)):
        if count > _SCRAP_CHARS:
            continue
        width = box[2] - box[0]
        for m, (other, line) in enumerate(zip(chars, boxes, strict=True)):
            if m == n or count > _SCRAP_SHARE * other:
                continue
            x = min(box[2], line[2]) - max(box[0], line[0])
            y = min(box[3], line[3]) - max(box[1], line[1])
            low = min(box[3] - box[1], line[3] - line[1])
            if x >= _SCRAP_ACROSS * width and y >= _SCRAP_OVERLAP * low:
                out.add(n)
                break
    return out


def is_rule(text: str) -> bool:
    """Whether an OCR word is a rule of a table read as text ("|", "_", "||"): dropped, so
    that the cells on either side of it stay apart as in a text table (Table 2 of corpus 10
    page 4: "Hybrid | 91.5" made one cell, its translation set over the numbers)."""
    stripped = text.strip()
    return bool(stripped) and all(c in "|_¦" for c in stripped)


#: Specks Tesseract reads at a word's edge as underscores, with a dash before them at a line's
#: start ("—_struct", "_In", "sta-__").
_SPECK_HEAD_RE = re.compile(r"^[\u2014\u2013-]?_+")
_SPECK_TAIL_RE = re.compile(r"_+$")
#: What Tesseract reads a round bullet as.
_BULLET_READINGS = frozenset("e«°©¢")


def without_specks(text: str) -> str:
    """An OCR word without the underscores read from specks at its ends (and a dash before
    them): "—_struct the main" set alone as a dash-led list item cut a paragraph in two
    (corpus 10 page 6). An underscore inside a word (``max_len``) stays."""
    return _SPECK_TAIL_RE.sub("", _SPECK_HEAD_RE.sub("", text))


def with_bullet(words: Sequence[Word]) -> list[Word]:
    """A line's words with a round bullet that Tesseract read as a letter ("e Which of my
    co-authors ...", corpus 10 page 1) given back as "•": a lone "e" before a capital starts
    no English sentence, and read as a word the item's request starts in lower case."""
    out = list(words)
    if len(out) > 1 and out[0][0] in _BULLET_READINGS and out[1][0][:1].isupper():
        out[0] = ("•", out[0][1])
    return out


def _rect(values: Sequence[float]) -> Rect:
    return (float(values[0]), float(values[1]), float(values[2]), float(values[3]))


def _wordy(text: str) -> bool:
    return any(c.isalnum() for c in text)


#: Of the page's width: a gutter lies between these shares of it ...
_GUTTER_FROM, _GUTTER_TO = 0.3, 0.7
#: ... and is from these points to this share of the page wide.
_GUTTER_NARROWEST, _GUTTER_WIDEST = 4, 0.12

#: With fewer lines a page tells no gutter from a margin.
_GUTTER_LINES = 8


#: A gutter between columns is crossed by at most one line in this many.
_CROSSED_BY_ONE_IN = 5


def find_gutter(lines: Sequence[Sequence[Word]], width: float) -> tuple[float, float] | None:
    """The page's column gutter (x0, x1): the widest run of x in the middle 40% of the page
    that the words of at most a fifth of the lines reach into (the title, authors and footer
    run across it; a skewed scan has lines across both columns, and Tesseract reads specks in
    the gutter as dashes); None on a one-column page, and where the run is too wide for a
    gutter (a page of a few lines)."""
    if len(lines) < _GUTTER_LINES or width <= 0:  # too few lines to tell a gutter from a margin
        return None
    lo, hi = int(_GUTTER_FROM * width), int(_GUTTER_TO * width)
    reach = [0] * (hi - lo + 1)
    for words in lines:
        hit: set[int] = set()
        for text, box in words:
            if _wordy(text):
                hit.update(range(max(lo, int(box[0])), min(hi, int(box[2])) + 1))
        for x in hit:
            reach[x - lo] += 1
    limit = max(1, len(lines) // _CROSSED_BY_ONE_IN)
    best: tuple[int, int] | None = None
    start = None
    for x, count in enumerate([*reach, limit + 1]):
        if count <= limit and start is None:
            start = x
        elif count > limit and start is not None:
            if best is None or x - start > best[1] - best[0]:
                best = (start, x)
            start = None
    # A wider run: no columns.
    if best is None or not _GUTTER_NARROWEST <= best[1] - best[0] <= _GUTTER_WIDEST * width:
        return None
    return (lo + best[0], lo + best[1])


def split_line(words: Sequence[Word], gutter: tuple[float, float] | None) -> list[list[Word]]:
    """One OCR line (in reading order) cut at the page's ``gutter`` when no word runs through it
    (then the specks read in the gutter go). Wide gaps elsewhere (table cells) are left to
    ``rows``, as in a text layer's lines."""
    # Tesseract's order: a line it joined with a line below reads each in turn, and a sort by
    # x would shuffle their words.
    ordered = list(words)
    through = True
    if gutter is not None:
        g0, g1 = gutter
        through = any(_wordy(t) and b[0] < g0 and b[2] > g1 for t, b in ordered)
        if not through:
            ordered = [w for w in ordered if _wordy(w[0]) or not g0 - 2 <= w[1][0] <= g1 + 2]
    if not ordered:
        return []
    pieces = [[ordered[0]]]
    for word in ordered[1:]:
        before = pieces[-1][-1][1]
        cut = (
            gutter is not None
            and not through
            and before[2] <= gutter[1]
            and word[1][0] >= gutter[0]
        )
        if cut:
            pieces.append([word])
        else:
            pieces[-1].append(word)
    return pieces


#: A gap between OCR'd words from these points to this share of the size is a word space ...
_SPACE_LEAST, _SPACE_MOST = 0.5, 0.6
#: ... inset by these points.
_SPACE_INSET = 0.2
#: A line this many times as high as the usual line is stretched over its neighbours.
_TALL = 1.5
#: Points within which two pieces of one line have their box's top and foot ...
_LEVEL = 0.5
#: ... the second starting at most this many points left of the first's end or this many of
#: its heights right of it.
_PIECE_OVERLAP, _PIECE_GAP = 1.0, 1.5
#: ... or, after a sentence's stop (or a colon, a semicolon), this many: a typist leaves two
#: spaces there, a character each.
_PIECE_GAP_AFTER_STOP = 2.2
_STOPS = tuple(".!?:;")


def word_spaces(words: Sequence[Word], size: float) -> list[tuple[float, float]]:
    """The x ranges between the ``words`` of a line set at ``size`` that are as narrow as a
    space (a wider one may hold a word Tesseract did not read), inset by a fifth of a point."""
    out = []
    for (_, left), (_, right) in zip(words, words[1:], strict=False):
        if _SPACE_LEAST <= right[0] - left[2] <= _SPACE_MOST * size:
            out.append((left[2] + _SPACE_INSET, right[0] - _SPACE_INSET))
    return out


#: An inner scrap of a stretched line has fewer characters than this.
_SCRAP_MOST = 4


def drop_inner_scraps(lines: Sequence[Sequence[Word]]) -> list[list[Word]]:
    """``lines`` without the lines of fewer than 4 characters whose middle lies in the box of
    a line half again as high as the usual line: a scrap of a line Tesseract stretched over
    its neighbours, read again on its own ("wt" in "et al., 2013) titled", page 4), which
    would be sent alone; its ink is under the stretched line's cover."""
    boxes = [union(box for _, box in words) for words in lines]
    if not boxes:
        return []
    usual = statistics.median(b[3] - b[1] for b in boxes)
    tall = [b for b in boxes if b[3] - b[1] > _TALL * usual]
    out = []
    for words, box in zip(lines, boxes, strict=True):
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        inner = any(t != box and t[0] <= cx <= t[2] and t[1] <= cy <= t[3] for t in tall)
        if not (inner and sum(len(t) for t, _ in words) < _SCRAP_MOST):
            out.append(list(words))
    return out


def join_fragments(lines: Sequence[Sequence[Word]]) -> list[list[Word]]:
    """OCR lines with the pieces of one printed line that Tesseract gave as lines of their
    own joined: a piece whose first word has the same box height and place as the last word
    of an earlier line, and starts less than one and a half box heights to its right (a
    little more than two after a sentence's stop: typed text leaves two spaces there), follows
    it. Sized alone, a piece of a few words reads as a heading ("To give an") or as small
    print (a line of one-word pieces), and its box, taller than the text, is cut alone."""
    out: list[list[Word]] = []
    for words in lines:
        first = words[0][1]
        for line in out:
            last = line[-1][1]
            height = last[3] - last[1]
            reach = _PIECE_GAP_AFTER_STOP if line[-1][0].endswith(_STOPS) else _PIECE_GAP
            if (
                abs(first[1] - last[1]) <= _LEVEL
                and abs(first[3] - last[3]) <= _LEVEL
                and -_PIECE_OVERLAP <= first[0] - last[2] <= reach * height
            ):
                line.extend(words)
                break
        else:
            out.append(list(words))
    return out


def _line(words: Sequence[Word], box: Rect, size: float) -> Line:
    # The ink box's bottom is a descent below the baseline at the line's lower end; a slanted
    # line's baseline runs through the middle of the extra height the slant adds.
    slant = max(0.0, (box[3] - box[1]) - GLYPH_HEIGHT * size)
    baseline = box[3] - DESCENT * size - slant / 2
    font = OCR_MATH_FONT if is_equation(" ".join(text for text, _ in words)) else OCR_FONT
    spans = []
    for n, (text, wbox) in enumerate(words):
        after = words[n + 1] if n + 1 < len(words) else None
        spaced = after is not None and word_space(text, after[0], after[1][0] - wbox[2], size)
        spans.append(
            Span(
                text=text + " " if spaced else text,
                bbox=(wbox[0], box[1], wbox[2], box[3]),
                font=font,
                size=size,
                origin=(wbox[0], baseline),
            )
        )
    return Line(spans=tuple(spans), bbox=box)


def _cjk(char: str) -> str:
    """ "hangul", "han" (Chinese characters and kana) or "" for another character."""
    code = ord(char)
    if 0xAC00 <= code <= 0xD7A3 or 0x1100 <= code <= 0x11FF or 0x3130 <= code <= 0x318F:
        return "hangul"
    if 0x3040 <= code <= 0x30FF or 0x3400 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF:
        return "han"
    return ""


#: Font sizes: a gap between two Korean words this wide is a space (a third of an em).
_KOREAN_SPACE = 0.2
#: A line joins a block whose last line it overlaps across by this share of the narrower and
#: reaches above by at most this share of its height.
_BLOCK_ACROSS, _BLOCK_OVERLAP = 0.5, 0.5
#: Font sizes: a line's text band reaches this far below its estimated baseline.
_BAND_FOOT = 0.3


def word_space(left: str, right: str, gap: float, size: float) -> bool:
    """Whether two OCR words ``gap`` apart are separated by a space. Tesseract splits Korean
    and Chinese text into words of one character: Chinese and Japanese use no spaces, Korean
    only between words, where the gap is a third of an em rather than a sliver."""
    a, b = _cjk(left[-1]) if left else "", _cjk(right[0]) if right else ""
    if not a or not b:
        return True
    if a == "han" or b == "han":
        return False
    return gap >= _KOREAN_SPACE * size


def group_blocks(lines: Sequence[Line]) -> list[Block]:
    """Consecutive lines (top to bottom) of one column in one block: a line joins the block
    whose last line it overlaps horizontally by half and follows within one line height."""
    blocks: list[list[Line]] = []
    for line in sorted(lines, key=lambda ln: (ln.bbox[1], ln.bbox[0])):
        x0, y0, x1, y1 = line.bbox
        for group in blocks:
            last = group[-1].bbox
            overlap = min(x1, last[2]) - max(x0, last[0])
            across = overlap > _BLOCK_ACROSS * min(x1 - x0, last[2] - last[0])
            if across and -_BLOCK_OVERLAP * (y1 - y0) < y0 - last[3] < (y1 - y0):
                group.append(line)
                break
        else:
            blocks.append([line])
    return [Block(lines=tuple(g), bbox=union(ln.bbox for ln in g)) for g in blocks]


def text_band(line: Line) -> Rect:
    """Where a line's letters are: from its ascenders to its descenders (Tesseract's box may
    take in a drawing beside them)."""
    span = line.spans[0]
    base = span.origin[1] if span.origin else line.bbox[3]
    return (line.bbox[0], base - ASCENT * span.size, line.bbox[2], base + _BAND_FOOT * span.size)
