"""Word gaps: word spaces recovered from the gaps between glyphs.

Some PDFs draw no space glyphs: each word is placed on its own, the space being only a gap. The
PDF reader then runs the words together (a Korean report: "패키지를이용하여문서를빠르게검토";
Latin text set with narrow gaps: "Wereadthepaper"). Like pdftotext, a gap wider than a tenth
of the font size, and clearly wider than the line's usual gap between letters (letter-spaced
text), is a word space. Chinese and Japanese put no spaces between words: a gap between two
Han characters, kana or full-width marks stays a gap.

Works on the reader's plain data (PyMuPDF's ``rawdict`` page: blocks, lines, spans, and each
span's characters with their boxes), so the rule is testable with literals; the page is read
per character only when its text has words run together (:func:`runs_together`).
"""

from __future__ import annotations

import re
import statistics
from typing import Any

from translation.read.layout import AXIS_ALIGNED
from translation.read.measures import USUAL_SIZE
from translation.read.pages.glyph_advances import advances

#: A word gap is wider than this share of the font size...
MIN_GAP = 0.1
#: ...and than the line's usual gap between letters by this share of it.
OVER_USUAL = 0.08
# Letters run together: 8 Hangul syllables (a Korean word rarely has more than 6) or 18 Latin
# letters (longer than nearly every word of a paper).
_RUN_TOGETHER_RE = re.compile(
    r"[\uac00-\ud7a3]{8,}|[^\W\d_\u1100-\u11ff\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3]{18,}"
)
_NO_SPACE_RE = re.compile(r"[\u2e80-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")

Page = dict[str, Any]


def runs_together(page: Page) -> bool:
    """Whether a page read as PyMuPDF's ``dict`` has text with words run together."""
    return any(
        _RUN_TOGETHER_RE.search(span["text"])
        for block in page.get("blocks", ())
        for line in block.get("lines", ())
        for span in line["spans"]
    )


def with_gap_spaces(page: Page) -> Page:
    """A ``rawdict`` page as a ``dict`` page (each span's ``text`` from its ``chars``), with a
    space where a horizontal line's glyphs leave a word gap and none is drawn. The space ends
    the span before the gap (the boxes of the glyphs stay as they were). Each span keeps its
    characters' ``advances`` (``glyph_advances``), one per character of its new text: a glyph
    a gap follows advances to its box's end, its space over the gap."""
    for block in page.get("blocks", ()):
        for line in block.get("lines", ()):
            spans = line["spans"]
            after = _gap_ends(spans) if _horizontal(line) else set()
            for i, span in enumerate(spans):
                chars = span.get("chars", ())
                steps = advances(chars, line.get("dir", (1.0, 0.0)))
                text: list[str] = []
                spaced: list[float] = []
                for k, char in enumerate(chars):
                    text.append(char["c"])
                    step = steps[k] if steps else 0.0
                    if (i, k) in after:
                        glyph = min(step, max(0.0, char["bbox"][2] - char["origin"][0]))
                        text.append(" ")
                        spaced.extend((glyph, step - glyph))
                    else:
                        spaced.append(step)
                span["text"] = "".join(text)
                span["advances"] = tuple(spaced) if steps else ()
                span.pop("chars", None)
    return page


#: A line whose direction rises or falls by less than this (a sine) runs level.
_LEVEL = 0.02


def _horizontal(line: Page) -> bool:
    dx, dy = line.get("dir", (1.0, 0.0))
    return bool(dx > AXIS_ALIGNED and abs(dy) < _LEVEL)


def _gap_ends(spans: list[Page]) -> set[tuple[int, int]]:
    """(span, character) indices of the glyphs a word gap follows."""
    glyphs = [(i, k, c) for i, span in enumerate(spans) for k, c in enumerate(span["chars"])]
    pairs = [
        (a, b)
        for a, b in zip(glyphs, glyphs[1:], strict=False)
        if not a[2]["c"].isspace() and not b[2]["c"].isspace()
    ]
    if not pairs:
        return set()
    gaps = [b[2]["origin"][0] - a[2]["bbox"][2] for a, b in pairs]
    usual = statistics.median(gaps)
    ends = set()
    for (a, b), gap in zip(pairs, gaps, strict=True):
        size = spans[a[0]].get("size") or USUAL_SIZE
        if gap <= max(MIN_GAP * size, usual + OVER_USUAL * size):
            continue
        if _NO_SPACE_RE.match(a[2]["c"]) and _NO_SPACE_RE.match(b[2]["c"]):
            continue  # Chinese and Japanese: no word spaces
        ends.add((a[0], a[1]))
    return ends
