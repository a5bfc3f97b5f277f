"""Document-wide measures the reading rules share: the body text's size, whether Computer
Modern is the math or the text face, each page's main text direction, the usual leading, and
the fonts that set CJK text, and which faces are monospaced (measured from their glyphs)."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from translation.read.layout import PageLayout, Vector, axis
from translation.read.math.formulas import CM_TEXT_FONT_RE, font_base, is_math_font
from translation.read.measures import DEFAULT_LEADING, SAME_SIZE, USUAL_SIZE
from translation.read.pages.monospace import Pitches, layout_samples, measure
from translation.read.words.word import cjk_weight, has_wide

#: Baseline distances of two lines, of their size, that are a line pitch (less: lines set over
#: each other; more: a gap between paragraphs or blocks).
_PITCH_LEAST, _PITCH_MOST = 1.0, 2.5


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


_LONG_LINE = 40  # width (cjk_weight): body text fills lines this long (tables, captions don't)


def doc_stats(pages: Sequence[PageLayout]) -> DocStats:
    sizes: Counter[float] = Counter()
    fonts: Counter[str] = Counter()
    directions: dict[int, Vector] = {}
    pitches: list[float] = []
    cjk_fonts: set[str] = set()
    for page in pages:
        dirs: Counter[Vector] = Counter()
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
                # Body text is what fills long lines (tables and captions have short ones).
                for span in line.spans:
                    n = len(span.text.strip())
                    if n:
                        fonts[font_base(span.font)] += n
                        if has_wide(span.text):
                            cjk_fonts.add(font_base(span.font))
                        if width >= _LONG_LINE:
                            sizes[round(span.size * 2) / 2] += n
        directions[page.index] = dirs.most_common(1)[0][0] if dirs else (1.0, 0.0)
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
    return DocStats(body_size, cm_is_math, directions, leading, frozenset(cjk_fonts), faces)
