"""Links and highlights of translated text: taken off before the text is replaced, put back
over the translation.

A link (a citation, a cross-reference, a URL) or a highlight over a translated paragraph
would stay where the source text was, over unrelated translated text. Each one is taken off
the page with the text it covered; once the translation is set it goes back over that text
where the translation still holds it (numbers, names and URLs usually survive translation):
the occurrence closest to where the source had it. A link whose text is not found covers the
stretch of the translation at the same relative place (it still leads somewhere sensible); a
highlight whose text is not found is dropped (a highlight on the wrong words misleads).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pymupdf

from translation.read.layout import Rect
from translation.read.paragraph import Paragraph
from translation.render.typeset import Placement

_MARKUP = (
    pymupdf.PDF_ANNOT_HIGHLIGHT,
    pymupdf.PDF_ANNOT_UNDERLINE,
    pymupdf.PDF_ANNOT_SQUIGGLY,
    pymupdf.PDF_ANNOT_STRIKE_OUT,
)
_MARKUP_ADD: dict[int, Callable[[pymupdf.Page, pymupdf.Rect], pymupdf.Annot]] = {
    pymupdf.PDF_ANNOT_HIGHLIGHT: pymupdf.Page.add_highlight_annot,
    pymupdf.PDF_ANNOT_UNDERLINE: pymupdf.Page.add_underline_annot,
    pymupdf.PDF_ANNOT_SQUIGGLY: pymupdf.Page.add_squiggly_annot,
    pymupdf.PDF_ANNOT_STRIKE_OUT: pymupdf.Page.add_strikeout_annot,
}
_TOKEN_RE = re.compile(r"\d+(?:[.,:]\d+)*|[A-Za-z][A-Za-z-]+")


@dataclass(slots=True)
class Carried:
    """A link, markup annotation or drawn highlight taken off a translated paragraph."""

    para: str  # paragraph id
    source: str  # the text it covered
    where: float  # how far into the paragraph it was (0..1)
    link: dict[str, Any] | None = None  # get_links() entry, without its rect
    annot: int = -1  # markup annotation type
    fill: tuple[float, ...] = ()  # colour of a drawn highlight or of the annotation
    rects: list[Rect] = field(default_factory=list)  # where it was


def take(page: pymupdf.Page, paragraphs: Sequence[Paragraph]) -> list[Carried]:
    """Take the links, markup annotations and drawn highlights of ``paragraphs`` off ``page``
    (call it before their text is removed: their text is read here)."""
    flat = [p for p in paragraphs if p.direction == (1.0, 0.0) and p.rects]
    if not flat:
        return []
    carried: list[Carried] = []
    words = _Words(page)
    for link in page.get_links():
        rect = tuple(link["from"])
        para = _owner(rect, flat)
        if para is None:
            continue
        entry = {k: v for k, v in link.items() if k not in ("from", "xref", "id")}
        carried.append(_carry(words, para, rect, link=entry))
        page.delete_link(link)
    for annot in list(page.annots(types=_MARKUP)):
        rect = tuple(annot.rect)
        para = _owner(rect, flat)
        if para is None:
            continue
        stroke = annot.colors.get("stroke") or (1.0, 1.0, 0.0)
        carried.append(_carry(words, para, rect, annot=annot.type[0], fill=tuple(stroke)))
        page.delete_annot(annot)
    highlights = _drawn_highlights(page, flat)
    if highlights:
        for rect, _, _ in highlights:
            x0, y0, x1, y1 = rect
            page.add_redact_annot(pymupdf.Rect(x0 - 0.5, y0 - 0.5, x1 + 0.5, y1 + 0.5))
        page.apply_redactions(
            images=pymupdf.PDF_REDACT_IMAGE_NONE,
            graphics=pymupdf.PDF_REDACT_LINE_ART_REMOVE_IF_COVERED,
            text=pymupdf.PDF_REDACT_TEXT_NONE,
        )
        carried.extend(_carry(words, para, rect, fill=fill) for rect, para, fill in highlights)
    return carried


class _Words:
    """The words of a page, read once and only when asked for (get_textbox reads the whole
    page at every call)."""

    def __init__(self, page: pymupdf.Page) -> None:
        self._page = page
        self._words: list[tuple[float, float, float, float, str]] | None = None

    def inside(self, rect: Rect) -> str:
        """The words whose middle lies in ``rect``, in reading order, without the
        punctuation around them."""
        if self._words is None:
            self._words = [tuple(w[:5]) for w in self._page.get_text("words")]
        x0, y0, x1, y1 = rect
        found = [
            w[4]
            for w in self._words
            if x0 - 1 <= (w[0] + w[2]) / 2 <= x1 + 1 and y0 - 1 <= (w[1] + w[3]) / 2 <= y1 + 1
        ]
        return " ".join(found).strip(_PUNCTUATION)


_PUNCTUATION = " ()[]{},;:.\"'“”‘’"


def _carry(words: _Words, para: Paragraph, rect: Rect, **kw: Any) -> Carried:
    text = words.inside(rect)
    return Carried(para=para.id, source=text, where=_where(rect, para), rects=[rect], **kw)


def _owner(rect: Rect, paragraphs: Sequence[Paragraph]) -> Paragraph | None:
    """The paragraph whose source text the rect covers most."""
    best, area = None, 0.0
    for para in paragraphs:
        for r in para.rects:
            w = min(rect[2], r[2]) - max(rect[0], r[0])
            h = min(rect[3], r[3]) - max(rect[1], r[1])
            if w > 0 and h > 0 and w * h > area:
                best, area = para, w * h
    return best


def _where(rect: Rect, para: Paragraph) -> float:
    """How far into ``para``'s text (0..1) the rect's middle lies, by the widths of its rows."""
    cx, cy = (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2
    widths = [r[2] - r[0] for r in para.rects]
    total = sum(widths) or 1.0
    before = 0.0
    best, distance = 0.0, float("inf")
    for r, w in zip(para.rects, widths, strict=True):
        d = 0.0 if r[1] <= cy <= r[3] else min(abs(cy - r[1]), abs(cy - r[3]))
        if d < distance:
            best, distance = before + min(max(cx - r[0], 0.0), w), d
        before += w
    return best / total


def _drawn_highlights(
    page: pymupdf.Page, paragraphs: Sequence[Paragraph]
) -> list[tuple[Rect, Paragraph, tuple[float, ...]]]:
    """Filled, unstroked shapes one text line high behind the text of ``paragraphs``, lighter
    than that text: marked words. Pieces touching on one line are joined."""
    rows = sorted(((r, p) for p in paragraphs for r in p.rects), key=lambda item: item[0][1])
    tops = [r[1] for r, _ in rows]
    candidates = []
    for kind, box in page.get_bboxlog():
        if kind == "fill-path" and _behind_row(tuple(box), rows, tops) is not None:
            candidates.append(tuple(box))
    if not candidates:
        return []
    found: list[tuple[Rect, Paragraph, tuple[float, ...]]] = []
    for path in page.get_drawings():
        fill = path.get("fill")
        if not fill or path.get("color") is not None or min(fill) > 0.97 or max(fill) < 0.03:
            continue
        rect = tuple(path["rect"])
        para = _behind_row(rect, rows, tops)
        # A marker is lighter than the words it marks; under lighter words a fill is their
        # background (white text on a coloured header cell), which they need to be read.
        if para is None or _luma(_rgb(para.color)) >= _luma(tuple(fill)):
            continue
        if found and found[-1][1] is para and found[-1][2] == tuple(fill):
            last = found[-1][0]
            if abs(last[1] - rect[1]) < 1 and abs(last[3] - rect[3]) < 1 and rect[0] <= last[2] + 1:
                found[-1] = ((last[0], last[1], max(last[2], rect[2]), last[3]), para, found[-1][2])
                continue
        found.append((rect, para, tuple(fill)))
    return found


def _rgb(color: int) -> tuple[float, float, float]:
    return ((color >> 16) & 255) / 255, ((color >> 8) & 255) / 255, (color & 255) / 255


def _luma(rgb: Sequence[float]) -> float:
    """Relative luminance of an RGB (or grey) colour in 0..1, Rec. 709 weights."""
    if len(rgb) < 3:
        return float(rgb[0]) if rgb else 0.0
    return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]


def _behind_row(
    rect: Rect, rows: Sequence[tuple[Rect, Paragraph]], tops: Sequence[float]
) -> Paragraph | None:
    height = rect[3] - rect[1]
    if height <= 1.0:
        return None
    for row, para in rows[bisect.bisect_left(tops, rect[1] - 3 * height) :]:
        if row[1] > rect[3]:
            break
        size = para.font_size or 10.0
        inside = min(rect[2], row[2]) - max(rect[0], row[0]) > 0.5 * (rect[2] - rect[0])
        covers = rect[1] <= row[1] + 0.2 * size and rect[3] >= row[3] - 0.2 * size
        if inside and covers and height <= 1.8 * size:
            return para
    return None


def put_back(
    page: pymupdf.Page, carried: Sequence[Carried], placements: Mapping[str, Placement]
) -> None:
    """Put what :func:`take` took back over the translations (see the module doc)."""
    used: dict[str, list[tuple[int, int]]] = {}
    for item in carried:
        placement = placements.get(item.para)
        if placement is None or not placement.text:
            continue
        taken = used.setdefault(item.para, [])
        # A highlight goes back only over its own words; a link at least near them.
        exact = item.link is None
        span = locate(item.source, placement.text, item.where, taken, whole=exact)
        if span is None and item.link is not None:
            span = _around(placement.text, item.where, len(item.source))
        if span is None:
            continue
        taken.append(span)
        rects = placement.rects(*span)
        for rect in rects:
            if item.link is not None:
                page.insert_link({**item.link, "from": pymupdf.Rect(rect)})
            elif item.annot >= 0:
                annot = _MARKUP_ADD[item.annot](page, pymupdf.Rect(rect))
                annot.set_colors(stroke=item.fill)
                annot.update()
            else:
                page.draw_rect(pymupdf.Rect(rect), color=None, fill=item.fill, overlay=False)


def locate(
    source: str,
    text: str,
    where: float,
    taken: Sequence[tuple[int, int]] = (),
    whole: bool = False,
) -> tuple[int, int] | None:
    """Where ``source`` is in the translation ``text``: the whole of it, or else its longest
    number (a citation's year, a reference number), or else its longest Latin word; of several
    occurrences not in ``taken``, the one closest to ``where`` x the length of ``text``.
    ``whole``: only the whole of ``source`` will do."""
    if not source:
        return None
    tokens = sorted(_TOKEN_RE.findall(source), key=lambda t: (not t[0].isdigit(), -len(t)))
    if whole:
        tokens = []
    for part in [source, *tokens]:
        spans = [
            (i, i + len(part))
            for i in _occurrences(text, part)
            if not any(a < i + len(part) and i < b for a, b in taken)
        ]
        if spans:
            goal = where * len(text)
            return min(spans, key=lambda s: abs((s[0] + s[1]) / 2 - goal))
    return None


def _occurrences(text: str, part: str) -> list[int]:
    found = []
    i = text.find(part)
    while i >= 0:
        before = text[i - 1] if i > 0 else " "
        after = text[i + len(part)] if i + len(part) < len(text) else " "
        if not (_glued(before, part[0]) or _glued(after, part[-1])):
            found.append(i)
        i = text.find(part, i + 1)
    return found


def _glued(neighbour: str, edge: str) -> bool:
    """Whether ``neighbour`` continues the word or number ``edge`` belongs to."""
    if edge.isdigit():
        return neighbour.isdigit()
    return neighbour.isascii() and neighbour.isalnum() and edge.isascii() and edge.isalnum()


def _around(text: str, where: float, length: int) -> tuple[int, int]:
    """A stretch of ``length`` characters (at most a third of the text) at ``where``."""
    length = max(1, min(length, len(text) // 3 or 1))
    start = int(where * len(text) - length / 2)
    start = max(0, min(start, len(text) - length))
    return start, start + length
