"""Contents lists: an entry's text is translated in place, its leader dots and page number kept
as they were printed (never a second row of dots over them, nor dots re-set in another face).

An entry is a horizontal paragraph whose text ends in a leader, four dots or more (spaced or
not), with or without the page number after them. Its box and its redaction bands are cut
short before the first dot, so the dots (and a number after them) stay on the page untouched;
its translation is set in what is left, without the leader the answer repeats. A translation
longer than its source takes the dots it needs, keeping :data:`MIN_DOTS` at least.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence

import pymupdf

from translation.read.numbering.contents import with_leader
from translation.read.paragraph import Paragraph

#: A leader at a text's end: four dots or more, then perhaps a page number (arabic or roman).
LEADER = re.compile(r"(?:[ \u00a0]*[.·․…]){4,}[ \u00a0]*(?:\d+|[ivxlcdm]+)?[ \u00a0]*$", re.I)
_DOTS = set(".·․…")
#: Room (font sizes) left between the translation and the first dot kept.
GAP = 0.3
#: The fewest dots a leader keeps when its entry's translation takes some of them.
MIN_DOTS = 3

#: width(paragraph, text): how wide ``text`` is set at the paragraph's source size.
Width = Callable[[Paragraph, str], float]


def keep_leaders(
    page: pymupdf.Page, items: Sequence[tuple[Paragraph, str]], width: Width
) -> list[tuple[Paragraph, str]]:
    """``items`` with each contents entry (module doc) cut short before its leader, and its
    translation without the leader; ``width`` measures a translation. Call it before the
    page's source text is removed."""
    out: list[tuple[Paragraph, str]] = []
    for para, text in items:
        # An entry whose leader the reader kept out of the request: as printed.
        source = with_leader(para.text, para.placeholders)
        match = LEADER.search(source)
        dots = _leader_dots(page, para) if match and para.direction == (1.0, 0.0) else []
        body = LEADER.sub("", text).rstrip() if dots else ""
        if not dots or not body or dots[0] <= para.bbox[0]:
            out.append((para, text))
            continue
        assert match is not None
        size = para.font_size or 10.0
        start = dots[0]
        if para.line_count == 1:  # a longer translation takes the dots it needs
            need = para.bbox[0] + width(para, body) + GAP * size
            taken = [x for x in dots[: len(dots) - MIN_DOTS + 1] if x >= need]
            start = max(start, taken[0] if taken else dots[len(dots) - MIN_DOTS])
        right = start - GAP * size
        bands = tuple(
            (r[0], r[1], min(r[2], start - 0.1), r[3]) for r in para.rects if r[0] < start - 0.1
        )
        x0, y0, x1, y1 = para.bbox
        cut = dataclasses.replace(
            para,
            text=source[: match.start()].rstrip(),
            bbox=(x0, y0, min(x1, right), y1),
            rects=bands,
            max_bbox=None,
            column=(0.0, 0.0) if para.line_count == 1 else para.column,
        )
        out.append((cut, body))
    return out


def _leader_dots(page: pymupdf.Page, para: Paragraph) -> list[float]:
    """The left edges of the leader dots of ``para``'s last line on ``page``, left to right,
    read from the page's glyphs in that line's band (empty when no dots are found)."""
    if not para.rects:
        return []
    last = max(para.rects, key=lambda r: (r[3], r[2]))
    size = para.font_size or 10.0
    clip = pymupdf.Rect(last[0] - 1, last[1] - 0.3 * size, last[2] + 1, last[3] + 0.3 * size)
    chars = [
        char
        for block in page.get_text("rawdict", clip=clip)["blocks"]
        for line in block.get("lines", ())
        for span in line["spans"]
        for char in span["chars"]
    ]
    chars.sort(key=lambda c: c["bbox"][0])
    i = len(chars) - 1
    while i >= 0 and (chars[i]["c"].isspace() or chars[i]["c"].isalnum()):
        i -= 1  # the page number, when the entry holds it
    dots: list[float] = []
    while i >= 0 and (chars[i]["c"] in _DOTS or chars[i]["c"].isspace()):
        if chars[i]["c"] in _DOTS:
            dots.append(chars[i]["bbox"][0])
        i -= 1
    return dots[::-1] if len(dots) >= MIN_DOTS else []
