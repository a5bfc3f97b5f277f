"""The requests side of the corpus audit: each request of a paper flagged by what a reader of it
would see, and the body text that reached no request.

Everything here is computed from what the pipeline read (its page layouts: the text layer, or
OCR's reading) and what it decided (its paragraphs, their redaction rects); the figures are
defined in ``bench.corpus``'s docstring. Pure: layouts and paragraphs in, records out.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from translation.read.blocks.front_matter import looks_like_names
from translation.read.flow.passage import passages
from translation.read.layout import Line, PageLayout, Rect, Span
from translation.read.math.formulas import LIGATURES
from translation.read.numbering.captions import FIGURE_CJK, FIGURE_LATIN, TABLE_CJK, TABLE_LATIN
from translation.read.numbering.contents import ends_entry
from translation.read.numbering.grammar import SECTION
from translation.read.pages.monospace import layout_samples, measure
from translation.read.paragraph import Paragraph, ParagraphKind
from translation.read.request_audit import (
    PROSE_WORDS,
    UNSENTENCED_KINDS,
    caption_words,
    code_like,
    flags,
    glued_caption,
    looks_like_reference,
    word_count,
)
from translation.read.style.style_marks import without_tags
from translation.read.words.word import dangles

#: Request figures, in the order printed.
REQUEST_FIGURES = ("cut", "frag", "cutword", "spliced", "glued", "code_sent", "refs_sent")

#: A text is code when this share of its characters or more is set in monospaced faces.
CODE_SHARE = 0.6
#: How far outside the body's frame (in body sizes) a glyph is margin material, and the gap
#: (in its own size) that parts it from the body text of its line.
_MARGIN_OUT = 1.0
_MARGIN_GAP = 1.5
#: A line is a full line of the body at this share of the widest lines' width.
_FULL_LINE = 0.6
#: Running heads and footers: lines in this share of the page's height at its top or bottom,
#: whose text (digits aside) recurs at the same height (points) on this many pages. A line kept
#: may be a head as far as :data:`_KEPT_BAND` (the reader's band for a repeated head: a paper
#: with wide top margins sets its heads 13 % down); a table's rows at a page's top can recur
#: that far down too, so glued to body text only the narrower band counts (``spliced``).
_BAND = 0.12
_KEPT_BAND = 0.15
#: Page furniture told on one page: a line in the outer :data:`_EDGE` of the page's height set
#: at most :data:`_SMALL_PRINT` of the body size (a venue line, a licence note at the foot).
_EDGE = 0.12
_SMALL_PRINT = 0.9
_RECUR_Y = 4.0
_RECUR_PAGES = 3
#: A line reaching no request is prose when it has this many words (of two letters or more,
#: letters being half of its characters), or this many CJK characters.
_PROSE_LINE_WORDS = 5
_PROSE_LINE_CJK = 8
#: A line is math when this share of its characters is math.
_MATH_SHARE = 0.3
#: A relation between two terms: what makes a line of letters an equation.
_RELATION_RE = re.compile(r"\S\s*[=<>≤≥≈≃≅∼∝≡≠]\s*\S")
#: A display (an equation or a listing no paragraph holds) takes a sentence over when its
#: first line starts within this many of the paragraph's sizes below the paragraph's last line.
_DISPLAY_REACH = 3.0
#: Lines that far above the paragraph's last line's foot (in its sizes) are beside it, not below.
_BELOW_SLACK = 0.3

_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3\uf900-\ufaff]")
_LATIN_WORD_RE = re.compile(r"[^\W\d_]{2,}")
_DIGITS_RE = re.compile(r"\d+")
#: A heading's number set by itself: "2", "3.2", "4.1." (digits recur as a page number's do);
#: or a caption's label and number ("表1", "Table 4."), a float at the top of its pages.
_HEADING_NUMBER_RE = re.compile(
    rf"(?:(?:{FIGURE_LATIN}|{TABLE_LATIN}|{FIGURE_CJK}|{TABLE_CJK})\s*)?{SECTION}[.:：]?",
    re.IGNORECASE,
)
_WORDS_IN_PARENS_RE = re.compile(r"\([^\W\d_]{2,}")
_ADDRESS_RE = re.compile(r"https?://|www\.|\S@\S+\.\w")


@dataclass(frozen=True, slots=True)
class Glyph:
    """One source character: its text, box (unrotated page space), face and size."""

    char: str
    box: Rect
    font: str
    size: float


@dataclass(frozen=True, slots=True)
class SourceLine:
    """One line as the pipeline read it, as glyphs."""

    page: int
    glyphs: tuple[Glyph, ...]
    bbox: Rect
    direction: tuple[float, float] = (1.0, 0.0)

    @property
    def text(self) -> str:
        return "".join(g.char for g in self.glyphs)


@dataclass(slots=True)
class RequestRecord:
    """One request: its id, text, the kind of its first piece, and the figures it counts for
    (``cutword``: how many words it cuts)."""

    ident: str
    text: str
    kind: ParagraphKind
    page: int
    marks: set[str] = field(default_factory=set)
    cutwords: int = 0


@dataclass(frozen=True, slots=True)
class KeptLine:
    """A source line that reached no request, and why it was kept (``""``: for no stated
    reason, an ``unsent`` line)."""

    page: int
    text: str
    reason: str


def span_glyphs(span: Span, line: Line) -> list[Glyph]:
    """The glyphs of ``span``: each character's box from its own advance where the reader
    measured it, else an even share of the span along its line."""
    text = span.text
    if not text:
        return []
    x0, y0, x1, y1 = span.bbox
    horizontal = abs(line.direction[0]) > 0.98
    if not horizontal:
        return [Glyph(c, span.bbox, span.font, span.size) for c in text]
    if span.advances and len(span.advances) == len(text):
        start = span.origin[0] if span.origin else x0
        steps = span.advances
    else:
        start, steps = x0, tuple([(x1 - x0) / len(text)] * len(text))
    glyphs, x = [], start
    sign = 1.0 if line.direction[0] > 0 else -1.0
    for char, step in zip(text, steps, strict=True):
        a, b = sorted((x, x + sign * step))
        glyphs.append(Glyph(char, (a, y0, b, y1), span.font, span.size))
        x += sign * step
    return glyphs


def source_lines(layouts: Sequence[PageLayout]) -> list[SourceLine]:
    """Every line of every page read, as glyphs, in the reader's order."""
    lines = []
    for layout in layouts:
        for block in layout.blocks:
            for line in block.lines:
                glyphs = tuple(g for span in line.spans for g in span_glyphs(span, line))
                if glyphs:
                    lines.append(SourceLine(layout.index, glyphs, line.bbox, line.direction))
    return lines


class RectIndex:
    """Rects of one page bucketed by height, to ask which hold a point."""

    _STEP = 20.0

    def __init__(self) -> None:
        self._bands: dict[int, list[tuple[Rect, str]]] = defaultdict(list)

    def add(self, rect: Rect, owner: str) -> None:
        for band in range(int(rect[1] // self._STEP), int(rect[3] // self._STEP) + 1):
            self._bands[band].append((rect, owner))

    def owners(self, x: float, y: float, slack: float = 0.5) -> set[str]:
        found = set()
        for (x0, y0, x1, y1), owner in self._bands.get(int(y // self._STEP), ()):
            if x0 - slack <= x <= x1 + slack and y0 - slack <= y <= y1 + slack:
                found.add(owner)
        return found


def _centre(box: Rect) -> tuple[float, float]:
    return ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)


def body_size(lines: Sequence[SourceLine]) -> float:
    """The size most of the text is set in."""
    sizes: Counter[float] = Counter()
    for line in lines:
        for g in line.glyphs:
            if g.char.isalpha():
                sizes[round(g.size, 1)] += 1
    return sizes.most_common(1)[0][0] if sizes else 10.0


def _gapped(glyphs: Sequence[Glyph]) -> bool:
    """Whether a line's glyphs hold a gap of :data:`_MARGIN_GAP` of their size (a margin label
    or line number beside the text, a table's cells)."""
    visible = [g for g in glyphs if not g.char.isspace()]
    pairs = zip(visible, visible[1:], strict=False)
    return any(b.box[0] - a.box[2] >= _MARGIN_GAP * a.size for a, b in pairs)


def body_frames(lines: Sequence[SourceLine], size: float) -> dict[int, tuple[float, float]]:
    """The body's frame (left, right) on odd and even pages (margins mirror): the 5th and 95th
    percentiles of where the body's full lines start and end (their first and last glyph, of
    any size). A full line has letters of the body size for half its glyphs (three at least),
    no wide gap (no line number or label beside it, no table row), and is :data:`_FULL_LINE`
    of the widest lines' width or more (a margin label or side note is narrow)."""
    found: dict[int, list[tuple[float, float]]] = {0: [], 1: []}
    for line in lines:
        visible = [g for g in line.glyphs if not g.char.isspace()]
        body = [g for g in visible if abs(g.size - size) <= 0.6]
        # The line's own ends, whatever their size: Japanese set at 0.92 of its Latin words
        # (LuaTeX-ja's scale) is the body size, and a line may open or end with a Latin word.
        if sum(g.char.isalpha() for g in body) * 2 >= len(visible) >= 3 and not _gapped(visible):
            found[line.page % 2].append((visible[0].box[0], visible[-1].box[2]))
    frames = {}
    for parity, edges in found.items():
        if len(edges) < 10:
            continue
        widths = sorted(right - left for left, right in edges)
        wide = widths[int(0.9 * (len(widths) - 1))]
        full = [(left, right) for left, right in edges if right - left >= _FULL_LINE * wide]
        if len(full) >= 5:
            lefts = statistics.quantiles([e[0] for e in full], n=20, method="inclusive")
            rights = statistics.quantiles([e[1] for e in full], n=20, method="inclusive")
            frames[parity] = (lefts[0], rights[-1])
    return frames


def margin_glyphs(line: SourceLine, frame: tuple[float, float] | None, size: float) -> set[int]:
    """Indices of ``line``'s glyphs that are margin material: runs of glyphs outside the body's
    ``frame`` by :data:`_MARGIN_OUT` body sizes, parted from the line's body text by a gap of
    :data:`_MARGIN_GAP` of their size (a hung section number or list label stays nearer)."""
    if frame is None:
        return set()
    left, right = frame[0] - _MARGIN_OUT * size, frame[1] + _MARGIN_OUT * size
    visible = [(i, g) for i, g in enumerate(line.glyphs) if not g.char.isspace()]
    inside = [g for _, g in visible if left <= (g.box[0] + g.box[2]) / 2 <= right]
    out: set[int] = set()
    lefts = [(i, g) for i, g in visible if (g.box[0] + g.box[2]) / 2 < left]
    rights = [(i, g) for i, g in visible if (g.box[0] + g.box[2]) / 2 > right]
    if lefts:
        edge = max(g.box[2] for _, g in lefts)
        after = min((g.box[0] for g in inside if g.box[0] >= edge - 0.5), default=None)
        gap = _MARGIN_GAP * max(g.size for _, g in lefts)
        if after is None or after - edge >= gap:
            out.update(i for i, _ in lefts)
    if rights:
        edge = min(g.box[0] for _, g in rights)
        before = max((g.box[2] for g in inside if g.box[2] <= edge + 0.5), default=None)
        gap = _MARGIN_GAP * max(g.size for _, g in rights)
        if before is None or edge - before >= gap:
            out.update(i for i, _ in rights)
    return out


def recurring_lines(
    lines: Sequence[SourceLine], heights: dict[int, float], band: float = _BAND
) -> set[int]:
    """Indices (into ``lines``) of running heads and footers: lines in the top or bottom
    ``band`` (share of its height) of their page whose text, digits aside, stands at the same
    height on :data:`_RECUR_PAGES` pages or more (on two, in a paper of under six pages)."""
    keyed: dict[tuple[str, int], list[int]] = defaultdict(list)
    for i, line in enumerate(lines):
        height = heights.get(line.page, 0.0)
        top, bottom = line.bbox[1], line.bbox[3]
        if not height or (top > band * height and bottom < (1 - band) * height):
            continue
        key = _DIGITS_RE.sub("#", " ".join(line.text.split()).lower())
        keyed[(key, round(top / _RECUR_Y))].append(i)
    pages = len(heights)
    need = _RECUR_PAGES if pages >= 6 else 2
    found: set[int] = set()
    for members in keyed.values():
        if len({lines[i].page for i in members}) >= need:
            found.update(members)
    return found


_MATH_FONT_RE = re.compile(
    r"cmmi|cmsy|cmex|msam|msbm|math|symbol|stix|eufm|eusm|rsfs|txsy|txmi|txex|pxsy|pxmi|"
    r"lmmi|lmsy|lmex|mtmi|mtsy",
    re.IGNORECASE,
)


#: Reference and footnote marks, and list bullets, a math face may hold: marks, not math.
_MARKS = frozenset("†‡§¶∗*⋆★•·▪")


def is_math_glyph(char: str, font: str) -> bool:
    """A glyph of math: set in a face whose name says math (CMMI, CMSY, MSBM, ... Math,
    Symbol), or a character of math outside ASCII (Greek, operators, arrows, math letters);
    reference marks (†, ‡, §, ∗) and bullets are marks, not math: the Symbol face's bullets
    too, which arrive as private-use characters (read as the reader reads them,
    ``formulas.LIGATURES``)."""
    if char.isspace() or char in _MARKS or LIGATURES.get(char) in _MARKS:
        return False
    if _MATH_FONT_RE.search(font):
        return True
    code = ord(char)
    return (
        0x0370 <= code <= 0x03FF
        or 0x2190 <= code <= 0x22FF
        or 0x27C0 <= code <= 0x27EF
        or 0x2980 <= code <= 0x2AFF
        or 0x1D400 <= code <= 0x1D7FF
    )


def is_prose_line(text: str) -> bool:
    """Whether a line's text is prose a reader would want translated (see
    :data:`_PROSE_LINE_WORDS`)."""
    if len(_CJK_RE.findall(text)) >= _PROSE_LINE_CJK:
        return True
    words = _LATIN_WORD_RE.findall(text)
    letters = sum(len(w) for w in words)
    visible = sum(not c.isspace() for c in text)
    return len(words) >= _PROSE_LINE_WORDS and letters >= 0.5 * max(1, visible)


@dataclass(slots=True)
class Reading:
    """What one paper's reading gave, with the indices the audit asks of it."""

    layouts: Sequence[PageLayout]
    paragraphs: Sequence[Paragraph]
    reference_pages: tuple[int, ...]
    lines: list[SourceLine] = field(default_factory=list)
    mono: frozenset[str] = frozenset()
    size: float = 10.0
    frames: dict[int, tuple[float, float]] = field(default_factory=dict)
    heads: set[int] = field(default_factory=set)
    kept_heads: set[int] = field(default_factory=set)  # the same, in the wider kept band
    #: (page, line index) of every glyph a paragraph's rects hold -> the paragraph ids.
    owners: dict[int, list[set[str]]] = field(default_factory=dict)
    #: Page -> the indices (into ``lines``) of its lines.
    on_page: dict[int, list[int]] = field(default_factory=dict)
    #: Paragraph id -> its kind.
    kinds: dict[str, ParagraphKind] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        layouts: Sequence[PageLayout],
        paragraphs: Sequence[Paragraph],
        reference_pages: Sequence[int] = (),
    ) -> Reading:
        reading = cls(layouts, paragraphs, tuple(reference_pages))
        reading.kinds = {p.id: p.kind for p in paragraphs}
        reading.lines = source_lines(layouts)
        # Monospaced as the reader measures it (from the glyphs' advances, never the name).
        reading.mono = measure(layout_samples(layouts)).mono
        reading.size = body_size(reading.lines)
        reading.frames = body_frames(reading.lines, reading.size)
        heights = {layout.index: layout.height for layout in layouts}
        reading.heads = recurring_lines(reading.lines, heights)
        reading.kept_heads = recurring_lines(reading.lines, heights, _KEPT_BAND)
        index: dict[int, RectIndex] = defaultdict(RectIndex)
        for para in paragraphs:
            for rect in para.rects:
                index[para.page].add(rect, para.id)
        for i, line in enumerate(reading.lines):
            reading.on_page.setdefault(line.page, []).append(i)
            page_index = index.get(line.page)
            reading.owners[i] = [
                page_index.owners(*_centre(g.box)) if page_index else set() for g in line.glyphs
            ]
        return reading

    def glyphs_of(self) -> dict[str, list[tuple[int, int]]]:
        """Paragraph id -> (line index, glyph index) of the source glyphs its rects hold."""
        held: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i, owners in self.owners.items():
            for k, ids in enumerate(owners):
                for ident in ids:
                    held[ident].append((i, k))
        return held


#: A meta-variable: the name between its brackets stands for what the user writes in a line
#: of command syntax ("pandoc ⟨入力ファイル名⟩ -o ..."), code or prose whatever it is set in.
_META_RE = re.compile(r"[⟨\u2329][^⟨⟩\u2329\u232a]*[⟩\u232a]")


#: CJK angle brackets enclose a meta-variable after code ("author = {〈姓名〉}" set
#: monospaced); in prose they mark a title.
_CJK_META_RE = re.compile(r"〈[^〈〉]*〉")


def _outside_meta(glyphs: Sequence[Glyph], mono: frozenset[str] = frozenset()) -> list[Glyph]:
    """``glyphs`` but spaces and those of a meta-variable, its brackets and name (after a
    glyph of a face of ``mono`` for CJK angle brackets)."""
    text = "".join(g.char[:1] or " " for g in glyphs)
    inside = [False] * len(glyphs)
    spans = [m.span() for m in _META_RE.finditer(text)]
    for match in _CJK_META_RE.finditer(text):
        before = text[: match.start()].rstrip()
        if before and glyphs[len(before) - 1].font in mono:
            spans.append(match.span())
    for start, end in spans:
        inside[start:end] = [True] * (end - start)
    return [g for g, meta in zip(glyphs, inside, strict=True) if not meta and not g.char.isspace()]


def _in_figure(reading: Reading, line: SourceLine) -> bool:
    """Whether ``line``'s middle lies inside one of its page's figures."""
    cx, cy = _centre(line.bbox)
    layout = next((lay for lay in reading.layouts if lay.index == line.page), None)
    figures = layout.figures if layout is not None else ()
    return any(x0 <= cx <= x1 and y0 <= cy <= y1 for x0, y0, x1, y1 in figures)


def is_display_line(reading: Reading, i: int) -> bool:
    """Whether line ``i`` is part of a display no paragraph holds: none of its glyphs held,
    and math (:data:`_MATH_SHARE` of its glyphs) or code (monospaced, or code by its tokens),
    outside any figure's area."""
    if any(reading.owners[i]):
        return False
    line = reading.lines[i]
    visible = [g for g in line.glyphs if not g.char.isspace()]
    if not visible or _in_figure(reading, line):
        return False
    math = sum(is_math_glyph(g.char, g.font) for g in visible) >= _MATH_SHARE * len(visible)
    # An equation set in the text's own faces (Word's, RevTeX's Times italics: "mBnB = ΩBρc.")
    # has few math glyphs by face; a relation in a line of no prose makes it one.
    relation = bool(_RELATION_RE.search(line.text)) and not is_prose_line(line.text)
    code = _mono_share(line.glyphs, reading.mono) >= CODE_SHARE or code_like(line.text)
    return math or relation or code


def display_follows(reading: Reading, para: Paragraph) -> bool:
    """Whether a display takes ``para``'s last sentence over: the lines just below its last
    line in its column, up to the first a paragraph holds and :data:`_DISPLAY_REACH` of its
    size down, none of them prose but a display's own, are a display
    (:func:`is_display_line`) by one of them at least ("... the error of any solution is at
    most" [equation]; "... the R code is" [listing]). Where the paragraph ends its column
    (no line below it but a running foot), the display is the next column's head: the
    topmost lines right of it on its page, else the next page's. The sentence's words all
    went in the request; its end is the display's."""
    return _display_beside(reading, para, above=False)


def display_precedes(reading: Reading, para: Paragraph) -> bool:
    """Whether ``para`` takes up a sentence a display broke off: the mirror of
    :func:`display_follows`, the lines just above its first line (or, at its column's head,
    the previous column's or page's last lines) a display ([listing] "which by default
    tries ..."; [equation] "where n is the sample size."). The words before the display went
    in their own request; the source itself starts this one inside the sentence."""
    return _display_beside(reading, para, above=True)


def _display_beside(reading: Reading, para: Paragraph, above: bool) -> bool:
    """Whether the lines next to ``para`` on one side (above its first line or below its
    last, in its column) are a display no paragraph holds, before any prose."""
    if not para.rects or para.direction != (1.0, 0.0):
        return False
    size = para.font_size
    edge = min(r[1] for r in para.rects) if above else max(r[3] for r in para.rects)
    left, right = para.column if para.column[1] > para.column[0] else (para.bbox[0], para.bbox[2])

    def body_lines(page: int) -> list[int]:
        return [i for i in reading.on_page.get(page, ()) if i not in reading.heads]

    def in_column(i: int) -> bool:
        box = reading.lines[i].bbox
        return box[2] > left and box[0] < right

    def flowing(lines: list[int]) -> list[int]:
        return [i for i in lines if not _float_line(reading, i)]

    def distance(i: int, mark: float) -> float:
        box = reading.lines[i].bbox
        return mark - box[3] if above else box[1] - mark

    near = [
        i
        for i in body_lines(para.page)
        if in_column(i)
        and distance(i, edge) >= -_BELOW_SLACK * size
        and not _stray_line(reading, i)
    ]
    if not near:
        # The paragraph opens (or ends) its column: the display is the end of the column
        # before it (or the head of the next), on its page, else on the page before (after).
        # A float (a figure, its caption, a table) set at the turn is passed over.
        if above:
            other = [i for i in body_lines(para.page) if reading.lines[i].bbox[2] <= left]
            near = flowing(other) or flowing(body_lines(para.page - 1))
            mark = max((reading.lines[i].bbox[3] for i in near), default=0.0)
        else:
            other = [i for i in body_lines(para.page) if reading.lines[i].bbox[0] >= right]
            near = flowing(other) or flowing(body_lines(para.page + 1))
            mark = min((reading.lines[i].bbox[1] for i in near), default=0.0)
        if not near:
            return False
        edge = mark
    ordered = sorted(
        (distance(i, edge), i) for i in near if distance(i, edge) <= _DISPLAY_REACH * size
    )
    found = False
    for _, i in ordered:
        held = set().union(*reading.owners[i])
        if held == {para.id}:
            continue  # a piece of its own first or last line (an index set low)
        if held:
            break
        if is_display_line(reading, i):
            found = True  # a listing's line may read as prose ("> fit <- lm(y ~ x, data)")
        elif is_prose_line(reading.lines[i].text):
            break
    return found


#: Kinds of a float's text: a paragraph of these is no part of the body's run of lines.
_FLOAT_KINDS = frozenset({ParagraphKind.CAPTION, ParagraphKind.CELL})


def _stray_line(reading: Reading, i: int) -> bool:
    """Whether line ``i`` is held by no paragraph and is neither a display's nor prose: a
    running head the recurring-line test missed, a page or line number, a figure's word."""
    line = reading.lines[i]
    return (
        not any(reading.owners[i])
        and not is_display_line(reading, i)
        and not is_prose_line(line.text)
    )


def _float_line(reading: Reading, i: int) -> bool:
    """Whether line ``i`` is a float's: inside a figure's area, held by a caption or a
    table's cell, or held by none and no display's or prose."""
    line = reading.lines[i]
    if _in_figure(reading, line):
        return True
    held = set().union(*reading.owners[i])
    if not held:
        # A figure's words no paragraph holds (its axes' labels), where no figure area was
        # found: neither a display's line nor prose.
        return not is_display_line(reading, i) and not is_prose_line(line.text)
    return all(reading.kinds.get(ident) in _FLOAT_KINDS for ident in held)


def _mono_share(glyphs: Sequence[Glyph], mono: frozenset[str], kept: int = 0) -> float:
    """The share of ``glyphs`` set monospaced: Latin glyphs of a monospaced face (a CJK
    face's Latin may be, its CJK characters are no code for it); a meta-variable of command
    syntax ("⟨入力ファイル名⟩") counts for neither; ``kept``: how many of them went as
    placeholders, never translated (code inside a sentence), which are no code sent."""
    visible = _outside_meta(glyphs, mono)
    coded = sum(g.font in mono and not _CJK_RE.match(g.char) for g in visible)
    kept = min(kept, coded)
    sent = len(visible) - kept
    return (coded - kept) / sent if sent > 0 else 0.0


def _kept_code(pieces: Sequence[Paragraph]) -> int:
    """The characters (spaces aside) of the code that ``pieces`` send as placeholders."""
    return sum(
        sum(not c.isspace() for c in piece.placeholders[key])
        for piece in pieces
        for key in piece.code_formulas
        if key in piece.placeholders
    )


#: Placeholders after a text's last word (a formula, a footnote's mark: "{v1}", "*{v1}") and
#: style tags.
_TRAILING_RE = re.compile(r"(?:\s*(?:[*†‡]?\{v\d+\}|</?[bi]>))+\s*$")


def _ends_inside(text: str) -> bool:
    """Whether ``text`` ends with no sentence stop, placeholders after its last word aside (a
    footnote mark, "*" before it or not, a formula after the stop)."""
    return flags(_TRAILING_RE.sub("", text)).ends_inside


def _caseless(letter: str) -> bool:
    """Whether ``letter`` is of a script without case (Han, kana, Hangul)."""
    return letter.isalpha() and letter.lower() == letter.upper()


def _starts_sentence(text: str) -> bool:
    """Whether ``text`` opens a sentence: a capital, a digit or a caseless letter first."""
    stripped = without_tags(text).strip().strip("\"'“”‘’()[]")
    if not stripped:
        return False
    head = stripped[0]
    return head.isupper() or head.isdigit() or _caseless(head)


def _whole(text: str) -> bool:
    """Whether a short text stands whole: a sentence (a capital or digit first, a stop last) or
    a title or label (no stop, each word capitalised, or the first and a few words in all). A
    letter of a script without case (Han, kana) opens a sentence as a capital does ("作者姓名。"),
    though not a title (told by its capitals); a sentence cut before such a tail leaves the
    piece before it flagged ``cut``."""
    stripped = without_tags(_TRAILING_RE.sub("", text)).strip().strip("\"'“”‘’()[]")
    if not stripped:
        return True
    head = stripped[0]
    opens = head.isupper() or head.isdigit() or not head.isalpha()
    if (opens or _caseless(head)) and stripped.endswith(tuple(".!?。．！？:：")):
        return True
    words = stripped.split()
    return opens and not stripped.endswith((",", ";", "-")) and len(words) <= 5


#: Full-width commas: a text that stops on one goes on ("例えば，" before a listing).
_CJK_COMMAS = ("，", "、")


def _whole_item(text: str) -> bool:
    """Whether the short text of a list item sent alone is the whole item: a phrase ("tables",
    "headings and subheadings") that stops on no comma (full-width ones too), hyphen or word
    such as "and" or "the" (the rest of it then went elsewhere)."""
    tail = without_tags(_TRAILING_RE.sub("", text)).rstrip()
    return not (dangles(tail) or tail.endswith(_CJK_COMMAS))


#: Font sizes: a list item's last line that ends this far short of its column's edge ends it.
_ITEM_SHORT = 2.0


def _ends_item(text: str, item: Paragraph, after: Paragraph | None = None) -> bool:
    """Whether a list item sent alone ends with its request though on no stop (a bullet of a
    noun phrase, "...40만원 이상 시 제공"): it stops on no comma, hyphen or word such as
    "and", and its last line (set left to right) ends :data:`_ITEM_SHORT` sizes or more short
    of its column's edge, or the paragraph ``after`` it is the list's next item, its marker
    on the line under its last (:func:`_next_item`). A last line run full with no item under
    it goes on in some other block."""
    if not _whole_item(text) or item.direction != (1.0, 0.0) or not item.rects:
        return False
    if after is not None and _next_item(item, after):
        return True
    bottom = max(r[3] for r in item.rects)
    last = [r for r in item.rects if r[3] > bottom - 0.5 * item.font_size]
    return max(r[2] for r in last) < item.column[1] - _ITEM_SHORT * item.font_size


#: Font sizes: the next item's first line starts at most this far under an item's last line
#: (a line's leading and the space lists put between items), and its marker this near the
#: item's own left edge.
_NEXT_ITEM_GAP = 2.0
_NEXT_ITEM_ALIGN = 1.0


def _next_item(item: Paragraph, after: Paragraph) -> bool:
    """Whether ``after`` is the next item of ``item``'s list: a list item of the same page,
    size and direction whose first line is the line under ``item``'s last, at its left edge
    ("• ... 월 단위로 자동 소멸" | "• 보너스클럽 이용 시 ..."): the item ends where it does."""
    if (
        after.kind is not ParagraphKind.LIST_ITEM
        or after.page != item.page
        or after.direction != item.direction
        or not after.rects
        or abs(after.font_size - item.font_size) > 0.5
    ):
        return False
    size = item.font_size
    bottom = max(r[3] for r in item.rects)
    top = min(r[1] for r in after.rects)
    left = min(r[0] for r in item.rects)
    start = min(r[0] for r in after.rects)
    return (
        -0.5 * size < top - bottom < _NEXT_ITEM_GAP * size
        and abs(start - left) < _NEXT_ITEM_ALIGN * size
    )


def _whole_notes(paragraphs: Sequence[Paragraph]) -> set[int]:
    """The footnotes (by ``id``) that are whole notes as printed: opened by their own mark
    (:data:`_NOTE_MARK_RE`: "¹ because there's ...") and followed by no unmarked note (the
    next note in reading order has a mark of its own, or there is none). Such a note starts
    and ends where its author did, however its words run ("because ...", no stop at the
    end); a note whose words go on in an unmarked note (on the next page, or split by the
    reader) is not one."""
    notes = [p for p in paragraphs if p.kind is ParagraphKind.FOOTNOTE]
    return {
        id(note)
        for note, after in zip(notes, [*notes[1:], None], strict=False)
        if _NOTE_MARK_RE.fullmatch(note.label.strip())
        and (note.label_scale < _MARK_SCALE or note.label_rise > _MARK_RISE)
        and (after is None or after.label.strip())
    }


#: A note's own mark: a number or a reference symbol, set small or raised (of the note's
#: size: smaller than this, or raised by more than this). A letter, or a number at the
#: text's size, is left out: a subscript ("x_i") or a figure's tick ("2 4 6 ...") read as a
#: mark would make a piece of a note look whole.
_NOTE_MARK_RE = re.compile(r"\d{1,3}|[*∗†‡§¶‖#]{1,3}")
_MARK_SCALE = 0.9
_MARK_RISE = 0.1


#: Of the page's height: the foot a text the file cuts runs down into.
_FOOT = 0.3


def _cut_by_the_file(reading: Reading) -> int | None:
    """The ``id`` of the paragraph the file itself cuts: the last body or list text of the
    last page, run down to the page's foot (its last line in the page's lowest
    :data:`_FOOT` share), that line set full to its column's edge: the sentence goes on on a
    page the file does not hold (an excerpt, "p1-2"). None if the text ends otherwise."""
    if not reading.layouts:
        return None
    last = max(reading.layouts, key=lambda layout: layout.index)
    last_page = last.index
    flowing = [
        p
        for p in reading.paragraphs
        if p.page == last_page
        and p.kind in (ParagraphKind.BODY, ParagraphKind.LIST_ITEM)
        and p.rects
    ]
    if not flowing:
        return None
    para = flowing[-1]
    if max(r[3] for r in para.rects) < (1 - _FOOT) * last.height:
        return None
    right = para.column[1] if para.column[1] > para.column[0] else para.bbox[2]
    foot = max(r[3] for r in para.rects)
    last_line = [r[2] for r in para.rects if r[3] >= foot - para.font_size]
    full = max(last_line) >= right - para.font_size
    return id(para) if full else None


#: Of the text's size: a list that takes a sentence over starts this near under its end.
_LIST_REACH = 3.0


def _list_follows(para: Paragraph, after: Paragraph | None) -> bool:
    """Whether a list takes ``para``'s last sentence over: the next paragraph is a list
    item of the same page starting just under ``para``'s last line ("... the estimated
    integral value with two attributes" | "• error: ...")."""
    if (
        after is None
        or para.kind is ParagraphKind.LIST_ITEM
        or after.kind is not ParagraphKind.LIST_ITEM
        or after.page != para.page
        or not para.rects
        or not after.rects
    ):
        return False
    gap = min(r[1] for r in after.rects) - max(r[3] for r in para.rects)
    return -0.5 * para.font_size < gap < _LIST_REACH * para.font_size


def audit_requests(
    reading: Reading, language: str, budget: int
) -> tuple[list[RequestRecord], list[KeptLine]]:
    """Every request the pipeline sends for ``reading`` (a passage over the ``budget`` as its
    pieces), flagged, and the prose lines that reached none, with why each was kept."""
    from translation.model.sentence_budget import budget_pieces

    held = reading.glyphs_of()
    records: list[RequestRecord] = []
    previous = ""
    following = {
        id(para): after
        for para, after in zip(reading.paragraphs, reading.paragraphs[1:], strict=False)
    }
    own_labels = caption_words(
        p.text for p in reading.paragraphs if p.kind is ParagraphKind.CAPTION
    )
    whole_notes = _whole_notes(reading.paragraphs)
    file_cut = _cut_by_the_file(reading)
    for passage in passages(reading.paragraphs):
        first = passage.pieces[0]
        ident = first.id + ("+" if len(passage.pieces) > 1 else "")
        pieces = budget_pieces(passage.text, budget)
        glyph_keys = [key for piece in passage.pieces for key in held.get(piece.id, ())]
        glyphs = [reading.lines[i].glyphs[k] for i, k in glyph_keys]
        spliced = _spliced(reading, glyph_keys)
        kept = _kept_code(passage.pieces)
        for n, text in enumerate(pieces, 1):
            record = RequestRecord(
                ident if len(pieces) == 1 else f"{ident}.{n}", text, first.kind, first.page
            )
            found = flags(text, previous, language)
            previous = text
            words = word_count(text)
            last = passage.pieces[-1]
            # A contents entry (its leader and page number kept) is a title, not a sentence,
            # whatever its first line's kind.
            entry = ends_entry(last.text, last.placeholders)
            sentenced = first.kind not in UNSENTENCED_KINDS and not entry
            lone_item = first.kind is ParagraphKind.LIST_ITEM and len(passage.pieces) == 1
            # A footnote opened by its mark and ended by the next mark is the author's unit.
            whole_note = len(pieces) == 1 and all(id(p) in whole_notes for p in passage.pieces)
            # A text whose sentence a display takes over ends with its words, however few
            # ("Define multiplication for the elements of X by" [equation]).
            led_in = n == len(pieces) and (
                display_follows(reading, passage.pieces[-1])
                or _list_follows(passage.pieces[-1], following.get(id(passage.pieces[-1])))
            )
            # ... and one a display broke off goes on with its words ("where n is ...").
            led_out = n == 1 and found.starts_inside and display_precedes(reading, first)
            ends_inside = _ends_inside(text) and not (
                (
                    lone_item
                    and len(pieces) == 1
                    and _ends_item(text, first, following.get(id(first)))
                )
                or led_in
                # The file ends inside the sentence: the reader cut nothing.
                or (n == len(pieces) and id(passage.pieces[-1]) == file_cut)
            )
            cut = (found.starts_inside and not led_out) or ends_inside
            if sentenced and found.prose and cut and not whole_note:
                record.marks.add("cut")
            if (
                first.kind in (ParagraphKind.BODY, ParagraphKind.LIST_ITEM, ParagraphKind.FOOTNOTE)
                and not whole_note
                and 0 < words < PROSE_WORDS
                and not _whole(text)
                and not (lone_item and len(pieces) == 1 and _whole_item(text))
                and not (led_in and _starts_sentence(text))
                and not (led_out and not ends_inside)
            ):
                record.marks.add("frag")
            if found.cut_words:
                record.cutwords = found.cut_words
                record.marks.add("cutword")
            if spliced:
                record.marks.add("spliced")
            if first.kind is ParagraphKind.BODY and glued_caption(text, own_labels):
                record.marks.add("glued")
            if _mono_share(glyphs, reading.mono, kept) >= CODE_SHARE or code_like(text):
                record.marks.add("code_sent")
            if first.kind is ParagraphKind.REFERENCE or looks_like_reference(text):
                record.marks.add("refs_sent")
            records.append(record)
    return records, kept_lines(reading)


#: Line numbers in a row, at the starts of their lines, that are a margin's line numbers.
LINE_NUMBER_RUN = 3
_LEADING_NUMBER_RE = re.compile(r"\s*(\d{1,4})(?!\S)")


def _leading_number(line: SourceLine, held: Sequence[int]) -> int | None:
    """The number a line starts with, parted from the rest of the line by a gap of most of a
    character (a margin's line number), or standing alone; None when it starts otherwise."""
    glyphs = [line.glyphs[k] for k in sorted(held) if not line.glyphs[k].char.isspace()]
    text = "".join(g.char for g in glyphs)
    match = _LEADING_NUMBER_RE.match(text)
    if match is None:
        return None
    digits = len(match.group(1))
    if digits < len(glyphs):
        before, after = glyphs[digits - 1], glyphs[digits]
        if after.box[0] - before.box[2] < 0.8 * before.size:
            return None
    return int(match.group(1))


def _numbered_lines(numbers: Sequence[int | None]) -> bool:
    """Whether :data:`LINE_NUMBER_RUN` lines in a row start with numbers that count up by one
    (or by five: a number every fifth line, the lines between unnumbered)."""
    found = [n for n in numbers if n is not None]
    for step in (1, 5):
        run = 1
        for a, b in zip(found, found[1:], strict=False):
            run = run + 1 if b - a == step else 1
            if run >= LINE_NUMBER_RUN:
                return True
    return False


def _number_beside(reading: Reading, i: int, held: dict[int, list[int]]) -> bool:
    """Whether line ``i``, read as a running head's, is a number alone beside another line the
    request holds, on its baseline: a heading's number set apart from its title ("2" |
    "코로나-19 관련 보험 현황", "57" | "如何生成固定宽度的表格？", "3.2" | "Additional
    macros"), which recurs at the top of the pages a section opens, as a page number would;
    a caption's label set apart from its title alike ("表1" | "fduthesis 的主要组成部分")."""
    line = reading.lines[i]
    number = line.text.strip()
    if not (number.isdigit() or _HEADING_NUMBER_RE.fullmatch(number)):
        return False
    top, bottom = line.bbox[1], line.bbox[3]
    return any(
        j != i
        and j not in reading.heads
        and min(bottom, reading.lines[j].bbox[3]) - max(top, reading.lines[j].bbox[1])
        > _BESIDE_SHARE * (bottom - top)
        for j in held
    )


#: Of a line's height: two lines overlapping this much stand on one baseline.
_BESIDE_SHARE = 0.5


def _spliced(reading: Reading, keys: Sequence[tuple[int, int]]) -> bool:
    """Whether the glyphs ``keys`` of one request mix margin material with body text: a
    margin's line numbers (:func:`_numbered_lines`), glyphs outside the body's frame
    (:func:`margin_glyphs`), or a running head's or footer's line."""
    by_line: dict[int, list[int]] = defaultdict(list)
    for i, k in keys:
        by_line[i].append(k)
    if _numbered_lines(
        [_leading_number(reading.lines[i], ks) for i, ks in sorted(by_line.items())]
    ):
        return True
    margin = body = 0
    # Lines wholly outside the frame, by their left edge; the lines reaching inside it.
    out_lines: dict[int, tuple[float, int]] = {}
    starts: list[tuple[int, float]] = []
    for i, ks in by_line.items():
        line = reading.lines[i]
        visible = [k for k in ks if line.glyphs[k].char.isalnum()]
        if i in reading.heads and not _number_beside(reading, i, by_line):
            margin += len(visible)
            continue
        outside = margin_glyphs(line, reading.frames.get(line.page % 2), reading.size)
        if visible and all(k in outside for k in visible):
            out_lines[i] = (min(line.glyphs[k].box[0] for k in visible), len(visible))
            continue
        if visible:
            starts.append((line.page, min(line.glyphs[k].box[0] for k in visible)))
        margin += sum(k in outside for k in visible)
        body += sum(k not in outside for k in visible)
    for i, (left, count) in out_lines.items():
        # A line that starts where a line of the request reaching into the frame starts is
        # one block with it, set across the frame's edge (a margin column's caption whose
        # lines' ends reach into the body's frame, a cover's heading): no margin material.
        page, size = reading.lines[i].page, reading.size
        if not any(p == page and abs(x - left) < _SAME_START * size for p, x in starts):
            margin += count
    return margin >= 1 and body >= 3


#: Body sizes: lines of one block start this near each other.
_SAME_START = 1.0


def _small_print_at_edge(line: SourceLine, height: float, body: float) -> bool:
    """Whether ``line`` is small print in the page's outer :data:`_EDGE` (top or foot)."""
    top, bottom = line.bbox[1], line.bbox[3]
    if not height or (_EDGE * height < bottom and top < (1 - _EDGE) * height):
        return False
    sizes = [g.size for g in line.glyphs if not g.char.isspace()]
    return bool(sizes) and statistics.median(sizes) <= _SMALL_PRINT * body


#: A line running down the page, and the share of its letters that must be CJK for it to be a
#: column of vertical writing.
VERTICAL_DOWN = (0.0, 1.0)
_CJK_VERTICAL = 0.8


def _cjk_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    cjk = [c for c in letters if unicodedata.east_asian_width(c) in ("W", "F")]
    return len(cjk) / len(letters) if letters else 0.0


def kept_lines(reading: Reading) -> list[KeptLine]:
    """The prose lines none of whose glyphs a paragraph holds, each with the reason it is kept
    that the audit can state: ``references`` (the references section's pages), ``address`` (a
    URL or an e-mail address, sent as placeholders when in a sentence), ``code``
    (monospaced, or code by its tokens), ``head`` (a running head or footer), ``furniture``
    (small print at the page's top or foot: a venue line, a licence note), ``names`` (a list
    of people's names, printed as they are), ``figure`` (inside a figure's area), ``math``,
    ``reference`` (it reads as an entry), ``vertical`` (a column of CJK vertical writing);
    ``""`` for none."""
    figures = {layout.index: layout.figures for layout in reading.layouts}
    heights = {layout.index: layout.height for layout in reading.layouts}
    refs = set(reading.reference_pages)
    kept = []
    for i, line in enumerate(reading.lines):
        if any(reading.owners[i]):
            continue
        text = line.text
        if not is_prose_line(text):
            continue
        visible = [g for g in line.glyphs if not g.char.isspace()]
        cx, cy = _centre(line.bbox)
        if line.page in refs:
            reason = "references"
        elif _ADDRESS_RE.search(text):
            reason = "address"
        elif _mono_share(line.glyphs, reading.mono) >= CODE_SHARE or code_like(text):
            reason = "code"
        elif i in reading.kept_heads:
            reason = "head"
        elif line.direction == VERTICAL_DOWN and _cjk_share(text) >= _CJK_VERTICAL:
            reason = "vertical"  # CJK columns, kept as printed (pages.vertical_writing)
        elif any(x0 <= cx <= x1 and y0 <= cy <= y1 for x0, y0, x1, y1 in figures[line.page]):
            reason = "figure"
        elif sum(is_math_glyph(g.char, g.font) for g in visible) >= _MATH_SHARE * len(visible):
            reason = "math"
        elif looks_like_reference(text):
            reason = "reference"
        elif _small_print_at_edge(line, heights.get(line.page, 0.0), reading.size):
            reason = "furniture"
        elif looks_like_names(text) and not _WORDS_IN_PARENS_RE.search(text):
            reason = "names"  # "Hardware Dependencies (And Other ...)" is a title
        else:
            reason = ""
        kept.append(KeptLine(line.page, " ".join(text.split()), reason))
    return kept
