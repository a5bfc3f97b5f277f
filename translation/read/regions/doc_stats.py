"""Document-wide measures the reading rules share: the body text's size, whether Computer
Modern is the math or the text face, each page's main text direction, the usual leading, and
the fonts that set CJK text, and which faces are monospaced (measured from their glyphs)."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from translation.read.layout import Block, Line, PageLayout, Vector, axis
from translation.read.math.formulas import CM_TEXT_FONT_RE, font_base, is_math_font
from translation.read.measures import DEFAULT_LEADING, SAME_SIZE, USUAL_SIZE
from translation.read.pages.monospace import Pitches, layout_samples, measure
from translation.read.words.word import cjk_weight, has_wide

#: Baseline distances of two lines, of their size, that are a line pitch (less: lines set over
#: each other; more: a gap between paragraphs or blocks).
_PITCH_LEAST, _PITCH_MOST = 1.0, 2.5


#: Baseline distances of one size a size's own leading is told from; with fewer, the
#: document's usual leading stands for it.
_FEW_PITCHES = 3
#: Characters a line holds at least for its distance to the next to be a line pitch (a
#: vertical line's glyphs, each read as a line of its own, stack one em apart; a figure's
#: tick labels and axis titles stand apart at their own distances).
_PITCH_CHARS = 8
#: The direction of a line set left to right (vertical lines have their own pitch).
_HORIZONTAL: Vector = (1.0, 0.0)


@dataclass(slots=True)
class DocStats:
    body_size: float
    cm_is_math: bool
    directions: dict[int, Vector]
    leading: float = DEFAULT_LEADING  # usual baseline distance of consecutive lines / font size
    #: Fonts (names without subset prefix) that set CJK characters somewhere in the document.
    #: Such a font sets every ideograph on one em, so it reports itself fixed-pitch (MS Gothic,
    #: MS Mincho, GulimChe, BatangChe): that says nothing about code, in any of its characters.
    cjk_fonts: frozenset[str] = frozenset()
    #: Which faces (names without subset prefix) are monospaced, measured from their glyphs'
    #: advances (:mod:`translation.read.pages.monospace`), never told by their names.
    pitches: Pitches = Pitches()
    #: Size (to half a point) -> the usual baseline distance of consecutive lines of that size
    #: / the size, where the document holds enough of them: a report set double-spaced
    #: beside tables set tight, a manual's body beside its vertical examples.
    leadings: dict[float, float] = field(default_factory=dict)
    #: Page index -> the largest size (to half a point) that sets :data:`_PAGE_TEXT_LINES`
    #: or more of the page's running text lines, where it has any.
    page_text: dict[int, float] = field(default_factory=dict)

    def text_size(self, page: int) -> float:
        """The size of ``page``'s running text, which its small print is smaller than: the
        body's, or, on a page set in a smaller size throughout (a rule's text after the
        preamble), that size."""
        return min(self.body_size, self.page_text.get(page, self.body_size))

    def leading_at(self, size: float) -> float:
        """The usual line pitch of text of ``size`` (font sizes): its own where measured, else
        the document's."""
        return self.leadings.get(round(size * 2) / 2, self.leading)


_LONG_LINE = 40  # width (cjk_weight): body text fills lines this long (tables, captions don't)
#: A line reaching across this share of the widest line of its block, in a block of
#: :data:`_FILLED_LINES` lines or more, is running text however few characters its column
#: holds (a three-column page's body sets 38 to a line, its footnotes in a smaller size 50).
_FILLS_BLOCK = 0.9
_FILLED_LINES = 3
#: Running text lines of one size a page holds at least for that size to be its text's (a
#: running head is one line).
_PAGE_TEXT_LINES = 2


def _fills(line: Line, block: Block) -> bool:
    """Whether ``line`` fills its block's measure (see :data:`_FILLS_BLOCK`)."""
    if len(block.lines) < _FILLED_LINES:
        return False
    widest = max(other.bbox[2] - other.bbox[0] for other in block.lines)
    return line.bbox[2] - line.bbox[0] >= _FILLS_BLOCK * widest


def doc_stats(pages: Sequence[PageLayout]) -> DocStats:
    sizes: Counter[float] = Counter()
    fonts: Counter[str] = Counter()
    directions: dict[int, Vector] = {}
    pitches: list[float] = []
    cjk_fonts: set[str] = set()
    page_text: dict[int, float] = {}
    for page in pages:
        dirs: Counter[Vector] = Counter()
        running: Counter[float] = Counter()  # the page's running text lines, by size
        for block in page.blocks:
            for a, b in zip(block.lines, block.lines[1:], strict=False):
                sa, sb = a.spans[0], b.spans[0]
                if sa.origin and sb.origin and abs(sa.size - sb.size) < SAME_SIZE and sa.size > 0:
                    ratio = abs(sb.origin[1] - sa.origin[1]) / sa.size
                    if _PITCH_LEAST <= ratio <= _PITCH_MOST:
                        pitches.append(round(ratio, 2))
            for line in block.lines:
                line_axis = axis(line.direction)
                count = sum(len(s.text.strip()) for s in line.spans)
                width = sum(cjk_weight(s.text.strip()) for s in line.spans)
                if line_axis is not None:
                    dirs[line_axis] += count
                # Body text is what fills long lines (tables and captions have short ones),
                # or fills the measure of its block, a narrow column's.
                long = width >= _LONG_LINE or _fills(line, block)
                if long and count:
                    running[round(max(s.size for s in line.spans) * 2) / 2] += 1
                for span in line.spans:
                    n = len(span.text.strip())
                    if n:
                        fonts[font_base(span.font)] += n
                        if has_wide(span.text):
                            cjk_fonts.add(font_base(span.font))
                        if long:
                            sizes[round(span.size * 2) / 2] += n
        directions[page.index] = dirs.most_common(1)[0][0] if dirs else (1.0, 0.0)
        text_sizes = [size for size, lines in running.items() if lines >= _PAGE_TEXT_LINES]
        if text_sizes:
            page_text[page.index] = max(text_sizes)
    body_size = sizes.most_common(1)[0][0] if sizes else USUAL_SIZE
    faces = measure(layout_samples(pages, font_base))
    # The face of the running Latin text: not a CJK face (in a Chinese, Japanese or Korean
    # paper it sets most characters, its Latin words may be in Computer Modern, which is then
    # text), nor a typewriter face (a manual's listings may outnumber its prose).
    texts = [f for f, _ in fonts.most_common() if not is_math_font(f)]
    plain = [f for f in texts if f not in cjk_fonts and f not in faces.mono]
    text_font = next(iter(plain), texts[0] if texts else "")
    cm_is_math = not CM_TEXT_FONT_RE.match(text_font)
    leading = statistics.median(pitches) if pitches else DEFAULT_LEADING
    leadings = _leadings(pages)
    return DocStats(
        body_size,
        cm_is_math,
        directions,
        leading,
        frozenset(cjk_fonts),
        faces,
        leadings,
        page_text,
    )


def _leadings(pages: Sequence[PageLayout]) -> dict[float, float]:
    """Each size's usual line pitch (font sizes) from horizontal lines of :data:`_PITCH_CHARS`
    characters or more: a line and the nearest one of its size above it that it overlaps
    across, in its block or not (a producer may put each line in a block of its own)."""
    found: dict[float, list[float]] = {}
    for page in pages:
        lines = [
            (round(sp.size * 2) / 2, line.bbox[0], line.bbox[2], sp.origin[1], sp.size)
            for block in page.blocks
            for line in block.lines
            if line.direction == _HORIZONTAL
            and (sp := line.spans[0]).origin
            and sp.size > 0
            and sum(len(s.text.strip()) for s in line.spans) >= _PITCH_CHARS
        ]
        for key, x0, x1, base, size in lines:
            above = [
                b
                for k, a0, a1, b, _ in lines
                if k == key and b < base and min(x1, a1) > max(x0, a0)
            ]
            if above:
                ratio = (base - max(above)) / size
                if _PITCH_LEAST <= ratio <= _PITCH_MOST:
                    found.setdefault(key, []).append(round(ratio, 2))
    return {k: statistics.median(v) for k, v in found.items() if len(v) >= _FEW_PITCHES}
