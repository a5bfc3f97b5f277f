"""The pages side of the corpus audit: what a reader of the translated page sees wrong.

The translated page is compared with its source page glyph by glyph, as PyMuPDF reads both.
A glyph of the translated page is *original* when the source page has the same character in
the same face and size at the same place (within :data:`_SAME_PLACE` points): it is source
text still standing. Every other glyph was set by us: a translation's characters, or a
formula copied as its source glyphs. The figures are defined in ``bench.corpus``'s
docstring; this module computes them for one page pair. Pure but for PyMuPDF's text extraction.
"""

from __future__ import annotations

import math
import re
import statistics
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import pymupdf

from bench.corpus_requests import is_math_glyph
from translation.read.layout import Rect
from translation.read.paragraph import Paragraph
from translation.render.page_check import ink_rows

#: Page figures, in the order printed.
PAGE_FIGURES = ("overprint", "left_under", "tiny", "outside", "math_changed")

#: A glyph's ink, for overlaps: the middle of its box (PyMuPDF's boxes run from the face's
#: ascender to its descender, so the boxes of tightly set lines overlap where no ink does).
_INK_WIDTH = 0.8
_INK_HEIGHT = 0.6
#: Two glyphs overlap when they share this share of the smaller one's ink.
_OVERLAP = 0.3
#: How near (points) a glyph must stand to its source's place to be that glyph, still there.
_SAME_PLACE = 0.6
#: A translation is tiny below this share of its source's size.
TINY = 0.6
#: How far (in the source's size) a translation may reach past its column or box.
_COLUMN_SLACK = 0.5
#: PyMuPDF names a Type 3 font that has no name of its own by its object ("Type3 (29 0 R)"),
#: and writing the translated file renumbers the objects: a face is known without that number.
_UNNAMED_TYPE3 = re.compile(r"^Type3 \(\d+ \d+ R\)$")


@dataclass(frozen=True, slots=True)
class PageGlyph:
    char: str
    box: Rect
    font: str
    size: float
    origin: tuple[float, float]
    line: int  # the line's number on its page, as PyMuPDF reads it
    horizontal: bool = True

    @property
    def ink(self) -> Rect:
        """Where the glyph's ink is, about: on a horizontal line, from a little below its
        baseline to 0.7 of its size above (a face's own box may run far past its ink: a math
        face's ascender is twice its size), or down from its origin for a glyph that hangs
        from it (the renderer's own measure, ``page_check.ink_rows``), across the middle of
        its advance; else the middle of its box."""
        x0, y0, x1, y1 = self.box
        if not self.horizontal:
            return _ink(self.box)
        inset = (x1 - x0) * (1 - _INK_WIDTH) / 2
        top, bottom = ink_rows(y0, y1, self.origin[1], self.size)
        return (x0 + inset, top, x1 - inset, bottom)


@dataclass(slots=True)
class PageFindings:
    """The figures of one translated page, and what each counted (for the listing)."""

    page: int
    counts: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)

    def add(self, figure: str, note: str, n: int = 1) -> None:
        self.counts[figure] += n
        self.notes.append(f"{figure}: {note}")


def page_glyphs(page: pymupdf.Page, flags: int) -> list[PageGlyph]:
    """Every visible glyph of ``page`` (unrotated page space)."""
    glyphs = []
    raw = page.get_text("rawdict", flags=flags)
    number = 0
    for block in raw.get("blocks", ()):
        for line in block.get("lines", ()):
            number += 1
            horizontal = abs(line.get("dir", (1.0, 0.0))[0]) > 0.98
            for span in line.get("spans", ()):
                for char in span.get("chars", ()):
                    c = char["c"]
                    if c.isspace() or not c:
                        continue
                    x0, y0, x1, y1 = char["bbox"]
                    if x1 <= x0 or y1 <= y0:
                        continue
                    glyphs.append(
                        PageGlyph(
                            c,
                            (x0, y0, x1, y1),
                            _face(span["font"]),
                            span["size"],
                            tuple(char["origin"]),
                            number,
                            horizontal,
                        )
                    )
    return glyphs


def _face(font: str) -> str:
    """A glyph's face as both files name it: an unnamed Type 3 font's object number dropped."""
    return "Type3" if _UNNAMED_TYPE3.match(font) else font


def _solid(char: str) -> bool:
    """Whether a glyph's box says where its ink is: a letter, digit or symbol. Accents overlap
    their letters by design ("ˆ" over "@"), and the boxes of punctuation (a comma, a closing
    quote) are much wider than its ink."""
    return unicodedata.category(char)[0] in "LNS" and unicodedata.category(char) not in (
        "Lm",
        "Sk",
    )


def _ink(box: Rect) -> Rect:
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    w, h = (x1 - x0) * _INK_WIDTH / 2, (y1 - y0) * _INK_HEIGHT / 2
    return (cx - w, cy - h, cx + w, cy + h)


def _overlaps(a: Rect, b: Rect) -> bool:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return False
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return w * h >= _OVERLAP * smaller


class _Grid:
    _STEP = 12.0

    def __init__(self, items: Iterable[tuple[Rect, int]]) -> None:
        self._cells: dict[tuple[int, int], list[tuple[Rect, int]]] = defaultdict(list)
        for rect, index in items:
            for cx in range(int(rect[0] // self._STEP), int(rect[2] // self._STEP) + 1):
                for cy in range(int(rect[1] // self._STEP), int(rect[3] // self._STEP) + 1):
                    self._cells[(cx, cy)].append((rect, index))

    def hits(self, rect: Rect) -> set[int]:
        found = set()
        for cx in range(int(rect[0] // self._STEP), int(rect[2] // self._STEP) + 1):
            for cy in range(int(rect[1] // self._STEP), int(rect[3] // self._STEP) + 1):
                for other, index in self._cells.get((cx, cy), ()):
                    if _overlaps(rect, other):
                        found.add(index)
        return found


PlaceKey = tuple[str, str, float, int, int]


def _place_key(glyph: PageGlyph) -> PlaceKey:
    """Character, face, size and place: a formula's copy set smaller than its source (with
    the translation around it) is ours even where one of its glyphs lands on a source glyph
    of the same character (TeX's "‖", two "|" a point apart)."""
    x, y = glyph.origin
    return (
        glyph.char,
        glyph.font,
        round(glyph.size, 1),
        round(x / _SAME_PLACE),
        round(y / _SAME_PLACE),
    )


def _original(glyph: PageGlyph, places: set[PlaceKey]) -> bool:
    char, font, size, kx, ky = _place_key(glyph)
    return any(
        (char, font, size, kx + dx, ky + dy) in places for dx in (-1, 0, 1) for dy in (-1, 0, 1)
    )


def _inside(point: tuple[float, float], rect: Rect, slack: float = 0.0) -> bool:
    return (
        rect[0] - slack <= point[0] <= rect[2] + slack
        and rect[1] - slack <= point[1] <= rect[3] + slack
    )


def _distance(point: tuple[float, float], rect: Rect) -> float:
    dx = max(rect[0] - point[0], 0.0, point[0] - rect[2])
    dy = max(rect[1] - point[1], 0.0, point[1] - rect[3])
    return math.hypot(dx, dy)


def _owner(centre: tuple[float, float], paragraphs: Sequence[Paragraph]) -> Paragraph:
    """The paragraph a translated line belongs to: the one whose box holds it (its room to grow
    into next), else the nearest."""
    holding = [p for p in paragraphs if _inside(centre, p.bbox)]
    if not holding:
        holding = [p for p in paragraphs if p.max_bbox and _inside(centre, p.max_bbox)]
    pool = holding or list(paragraphs)
    return min(pool, key=lambda p: _distance(centre, p.bbox))


def _holder(glyph: PageGlyph, paragraphs: Sequence[Paragraph]) -> Paragraph | None:
    """The paragraph whose box (else its room to grow into) holds ``glyph``'s centre."""
    x0, y0, x1, y1 = glyph.box
    centre = ((x0 + x1) / 2, (y0 + y1) / 2)
    for para in paragraphs:
        if _inside(centre, para.bbox):
            return para
    for para in paragraphs:
        if para.max_bbox and _inside(centre, para.max_bbox):
            return para
    return None


def _runs(
    members: Sequence[int], glyphs: Sequence[PageGlyph], paragraphs: Sequence[Paragraph]
) -> list[list[int]]:
    """One PyMuPDF line cut where its glyphs pass from one paragraph's box to another's:
    PyMuPDF joins the cells of a table row set on one baseline into one line. A glyph no box
    holds stays with the run before it (a line run past its column is still that line)."""
    runs: list[list[int]] = []
    owner: Paragraph | None = None
    for i in members:
        holder = _holder(glyphs[i], paragraphs)
        if runs and (holder is None or owner is None or holder is owner):
            runs[-1].append(i)
            owner = owner or holder
            continue
        runs.append([i])
        owner = holder
    return runs


def _allowed_x(para: Paragraph) -> tuple[float, float]:
    lefts, rights = [para.bbox[0]], [para.bbox[2]]
    if para.column != (0.0, 0.0):
        lefts.append(para.column[0])
        rights.append(para.column[1])
    if para.max_bbox:
        lefts.append(para.max_bbox[0])
        rights.append(para.max_bbox[2])
    slack = _COLUMN_SLACK * (para.font_size or 10.0)
    return min(lefts) - slack, max(rights) + slack


def audit_page(
    number: int,
    source: Sequence[PageGlyph],
    translated: Sequence[PageGlyph],
    page_rect: Rect,
    paragraphs: Sequence[Paragraph],
) -> PageFindings:
    """The page figures of page ``number``: ``source`` and ``translated`` are its glyphs before
    and after, ``paragraphs`` the ones translated on it (their source boxes and sizes)."""
    findings = PageFindings(number)
    if not paragraphs:
        return findings
    places = {_place_key(g) for g in source}
    original = [_original(g, places) for g in translated]
    solid = [_solid(g.char) for g in translated]
    kept = [i for i, o in enumerate(original) if o and solid[i]]
    ours = [i for i, o in enumerate(original) if not o and solid[i]]
    # Our glyphs in a face of the source are formulas copied as their glyphs (at their own
    # size: a subscript is small by design); the rest is the translation's text.
    faces = {g.font for g in source}
    typed = {i for i in ours if translated[i].font not in faces}
    kept_grid = _Grid((translated[i].ink, i) for i in kept)
    ours_grid = _Grid((translated[i].ink, i) for i in ours)
    erased = _Grid((rect, 0) for p in paragraphs for rect in p.rects)
    lines: dict[int, list[int]] = defaultdict(list)
    for i in ours:
        lines[translated[i].line].append(i)
    for all_members in (
        run for line in lines.values() for run in _runs(line, translated, paragraphs)
    ):
        members = [i for i in all_members if i in typed] or all_members
        text = "".join(translated[i].char for i in members)[:60]
        over_kept = {k for i in members for k in kept_grid.hits(translated[i].ink)}
        left = {k for k in over_kept if erased.hits(translated[k].ink)}
        if left:
            findings.add("left_under", f"'{text}' over its source '{_chars(translated, left)}'")
        over_ours = {
            k
            for i in members
            for k in ours_grid.hits(translated[i].ink)
            if translated[k].line != translated[i].line and (i in typed or k in typed)
        }
        if (over_kept - left) or over_ours:
            under = _chars(translated, (over_kept - left) | over_ours)
            findings.add("overprint", f"'{text}' over '{under}'")
        if not any(i in typed for i in members):
            continue  # a formula's copy alone: its size and place are its source's
        boxes = [translated[i].box for i in members]
        centre = (
            statistics.median((b[0] + b[2]) / 2 for b in boxes),
            statistics.median((b[1] + b[3]) / 2 for b in boxes),
        )
        para = _owner(centre, paragraphs)
        size = statistics.median(translated[i].size for i in members)
        if para.font_size and size < TINY * para.font_size:
            findings.add("tiny", f"'{text}' at {size:.1f} pt, source {para.font_size:.1f} pt")
        x0, y0, x1, y1 = page_rect
        low, high = _allowed_x(para)
        off_page = any(
            b[0] < x0 - 1 or b[2] > x1 + 1 or b[1] < y0 - 1 or b[3] > y1 + 1 for b in boxes
        )
        horizontal = abs(para.direction[0]) > 0.98
        off_column = horizontal and any(b[0] < low or b[2] > high for b in boxes)
        if off_page or off_column:
            where = "its page" if off_page else f"its column {low:.0f}-{high:.0f}"
            findings.add("outside", f"'{text}' outside {where} ({para.id})")
    findings_math(findings, source, translated)
    return findings


def _chars(glyphs: Sequence[PageGlyph], indices: Iterable[int]) -> str:
    ordered = sorted(indices, key=lambda i: (glyphs[i].line, glyphs[i].box[0]))
    return "".join(glyphs[i].char for i in ordered)[:40]


def findings_math(
    findings: PageFindings, source: Sequence[PageGlyph], translated: Sequence[PageGlyph]
) -> None:
    """Count the source's math glyphs (``bench.corpus_requests.is_math_glyph``) that the
    translated page no longer shows in their own face: missing, or re-set as text."""
    before = Counter(
        (g.char, g.font)
        for i, g in enumerate(source)
        if is_math_glyph(g.char, g.font) and not _ligature(source, i)
    )
    after = Counter((g.char, g.font) for g in translated if (g.char, g.font) in before)
    missing = before - after
    if missing:
        total = sum(missing.values())
        shown = "".join(char * n for (char, _), n in missing.most_common(12))[:40]
        findings.add("math_changed", f"{total} math glyphs gone: {shown}", total)


#: What some TeX text faces map their "ff" ligature to (their ToUnicode says "↵"): between
#: letters it is the ligature, as the reader reads it (``translation.read.rows.row``).
_FF_AS_ARROW = "\u21b5"
#: Two glyphs of a line are one word's when no more than this share of the size parts them.
_TOUCHING = 0.15


def _ligature(glyphs: Sequence[PageGlyph], i: int) -> bool:
    """Whether glyph ``i`` is a text face's "ff" read as an arrow: right after a letter, or
    right before a lower-case one, of its line, in a face whose name says nothing of math."""
    glyph = glyphs[i]
    if glyph.char != _FF_AS_ARROW or is_math_glyph("a", glyph.font):
        return False

    def touching(other: int, left: bool) -> PageGlyph | None:
        if not 0 <= other < len(glyphs) or glyphs[other].line != glyph.line:
            return None
        near = glyphs[other]
        gap = glyph.box[0] - near.box[2] if left else near.box[0] - glyph.box[2]
        return near if abs(gap) <= _TOUCHING * glyph.size else None

    before, after = touching(i - 1, True), touching(i + 1, False)
    return bool(
        (before is not None and before.char.isascii() and before.char.isalpha())
        or (after is not None and after.char.isascii() and after.char.islower())
    )


def audit_pages(
    source: pymupdf.Document,
    translated: pymupdf.Document,
    paragraphs: Sequence[Paragraph],
    translations: Mapping[str, str],
    flags: int,
) -> list[PageFindings]:
    """:func:`audit_page` for every page that has a translated paragraph."""
    by_page: dict[int, list[Paragraph]] = defaultdict(list)
    for para in paragraphs:
        if translations.get(para.id, "").strip():
            by_page[para.page].append(para)
    found = []
    for number, paras in sorted(by_page.items()):
        if number >= translated.page_count:
            continue
        out_page = translated[number]
        rect = tuple(out_page.cropbox)
        found.append(
            audit_page(
                number,
                page_glyphs(source[number], flags),
                page_glyphs(out_page, flags),
                (rect[0], rect[1], rect[2], rect[3]),
                paras,
            )
        )
    return found
