"""The renderer's own check of a page it has just set: geometry on the boxes it placed, never
a second rendering.

After a page's translations are laid out (``translation.render.typeset``) and before they are
written, each paragraph's set lines are checked against what is still on the page and against
each other. A paragraph breaks the page when

- ``overprint``: one of its lines lies over text still standing on the page (not a source line
  of a translated paragraph) or over a line of another translation;
- (``unerased``) one of its lines lies over a source glyph standing inside a translated
  paragraph's own lines (a glyph raised or lowered off its line's band, the E of the TeX
  logo): the glyph is erased too (:attr:`Verdict.stray`); where it still stands after
  that (:func:`confirm_erased`), the paragraph falls back (``unerased``);
- ``tiny``: it is set below :data:`MIN_SCALE` of its source size;
- ``outside``: a line reaches past its page, or past its column and the box it was given (and
  the room it may grow into) by half its source size;
- ``unset``: nothing, or only part, of its text could be set (its source is gone).

Such a paragraph *falls back*: its translation is not written there and its source is put back
as it was (:func:`settle` decides which; ``translation.pdf`` puts them back). A source put back
is text standing again, so a translation lying over it falls back too, until nothing does. The
translation of a block that fell back may still be set apart from it, where the page has room
(``translation.render.set_apart``; :func:`check_apart` holds it to the same rules).

Two inks overlap when they share :data:`OVERLAP` of the smaller one's area; an ink is the part
of a line where its glyphs' ink lies (0.7 of the size above its baseline to 0.1 below), the
measure ``bench.corpus_pages`` counts a reader's findings with, so the renderer holds what
the audit counts. A translated line belongs to the paragraph that set it: the audit, which
sees only the written page, attributes a line by the renderer's record of where each
paragraph set its lines (:class:`Placed`, :func:`owner`), so both judge a line's size and
room against the same paragraph.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from translation.read.layout import Rect
from translation.read.math.formulas import mark_key
from translation.read.paragraph import Paragraph
from translation.read.style.style_marks import is_mark

#: The smallest share of its source size a translation may be set at.
MIN_SCALE = 0.6
#: Two inks overlap when they share this share of the smaller one's area.
OVERLAP = 0.3
#: How far (source sizes) a line may reach past its column and box.
SLACK = 0.5
#: The margin (set sizes) a formula copy is shown with above and below its glyphs.
COPY_MARGIN = 0.3
#: How many rounds of "a source put back breaks a translation beside it" are followed.
_ROUNDS = 6
#: A glyph's ink on a horizontal line: from this many sizes above its baseline to this many
#: below it.
INK_ABOVE, INK_BELOW = 0.7, 0.1
#: A glyph *hangs* from its origin when its box (the font's: MuPDF knows no other) reaches
#: more than :data:`HANG_BELOW` sizes below its origin and less than :data:`HANG_ABOVE` above:
#: TeX's math extension font (CMEX10, 2.96 below and 0.77 above), whose big delimiters and
#: radicals hang from an origin at their top, like ``translation.render.glyphs``' probe.
HANG_BELOW, HANG_ABOVE = 1.5, 1.0
#: A glyph hangs too when its box starts at its origin (less than :data:`HANG_FLUSH` sizes
#: above it) and runs below it: the same font with a box of its own (a Type 1 CMEX10 whose
#: box runs 0.04 above and 0.6 below a text-style "⋃").
HANG_FLUSH = 0.1
#: A hanging glyph's ink runs this many sizes down from its origin (the least of them, a
#: "big" parenthesis, 1.2 em tall, reaches further).
HANG_INK = 1.0


@dataclass(frozen=True, slots=True)
class SetBlock:
    """What the check needs of one paragraph as set: its lines' boxes (page space, one per
    line, from ``Placement.rects``), the size it was set at, whether all its characters were
    placed, and the area it was given (``fitting.plan``'s, else its own box)."""

    para: Paragraph
    lines: tuple[Rect, ...]
    size: float
    complete: bool
    area: Rect
    #: Where its formulas' copies were shown (``formula_copies``: their glyphs' box with a
    #: margin of 0.3 of the size above and below).
    copies: tuple[Rect, ...] = ()
    #: Characters of its text that no face sets: they would be left out of the page.
    missing: tuple[str, ...] = ()

    def inks(self) -> list[Rect]:
        """The inks of its lines and of its formulas' copies."""
        inks = [line_ink(line, self.size) for line in self.lines]
        margin = COPY_MARGIN * self.size
        for x0, y0, x1, y1 in self.copies:
            if y1 - y0 > 2 * margin and x1 > x0:
                inks.append((x0, y0 + margin, x1, y1 - margin))
        return inks


@dataclass(slots=True)
class Verdict:
    """The check's result for one page: the paragraphs that fall back, each with its reasons
    (rule names, in the order found), and the source glyphs still to erase."""

    fallen: dict[str, list[str]] = field(default_factory=dict)
    #: Source glyphs left standing in translated paragraphs' own lines, under a translation
    #: (their inks, by the paragraph over them): to be erased, as the paragraph's own.
    stray: dict[str, list[Rect]] = field(default_factory=dict)

    def strays(self) -> list[Rect]:
        """The stray inks under the paragraphs that stay (see ``stray``)."""
        return [r for pid, rects in self.stray.items() if pid not in self.fallen for r in rects]

    def fall(self, para_id: str, reason: str) -> bool:
        reasons = self.fallen.setdefault(para_id, [])
        if reason not in reasons:
            reasons.append(reason)
        return len(reasons) == 1


@dataclass(frozen=True, slots=True)
class Placed:
    """Where a paragraph's translation was set on its page, as the renderer records it for
    whoever reads the written page: the area it was given and its lines' boxes;
    ``apart``: set apart from its source, which was kept (``translation.render.set_apart``)."""

    area: Rect
    lines: tuple[Rect, ...]
    apart: bool = False

    @classmethod
    def of(cls, block: SetBlock, apart: bool = False) -> Placed:
        return cls(block.area, block.lines, apart)


def holder(
    point: tuple[float, float],
    paragraphs: Sequence[Paragraph],
    placed: Mapping[str, Placed] | None = None,
) -> Paragraph | None:
    """The paragraph whose translation holds ``point``: the one that set a line there
    (``placed``, the renderer's record), else the one whose box holds it, else whose room to
    grow into does; None when none does."""
    for para in paragraphs:
        record = (placed or {}).get(para.id)
        if record is not None and any(_holds(line, point) for line in record.lines):
            return para
    for para in paragraphs:
        if _holds(para.bbox, point):
            return para
    for para in paragraphs:
        if para.max_bbox and _holds(para.max_bbox, point):
            return para
    return None


def owner(
    point: tuple[float, float],
    paragraphs: Sequence[Paragraph],
    placed: Mapping[str, Placed] | None = None,
) -> Paragraph:
    """The paragraph a translated line at ``point`` belongs to: its :func:`holder`, else the
    paragraph whose box is nearest."""
    found = holder(point, paragraphs, placed)
    if found is not None:
        return found
    return min(paragraphs, key=lambda p: _distance(point, p.bbox))


def _holds(rect: Rect, point: tuple[float, float]) -> bool:
    return rect[0] <= point[0] <= rect[2] and rect[1] <= point[1] <= rect[3]


def _distance(point: tuple[float, float], rect: Rect) -> float:
    dx = max(rect[0] - point[0], 0.0, point[0] - rect[2])
    dy = max(rect[1] - point[1], 0.0, point[1] - rect[3])
    return math.hypot(dx, dy)


def block_of(
    para: Paragraph,
    text: str,
    boxes: Sequence[Rect | None],
    size: float,
    area: Rect,
    copies: Sequence[Rect] = (),
    sets: Callable[[str], bool] | None = None,
) -> SetBlock:
    """A :class:`SetBlock` from a placement's text and character ``boxes``, and where its
    formula ``copies`` were shown; ``sets``: whether a face has a character (None: all)."""
    lines: list[Rect] = []
    complete = True
    missing: list[str] = []
    for char, box in zip(text, boxes, strict=True):
        if box is None:
            complete = complete and (char.isspace() or is_mark(char))
            continue
        if sets is not None and not (sets(char) or is_mark(char) or mark_key(char)):
            missing.append(char)
        if lines and abs(lines[-1][3] - box[3]) < 0.5 and box[0] >= lines[-1][0] - 0.5:
            last = lines[-1]
            lines[-1] = (last[0], min(last[1], box[1]), max(last[2], box[2]), last[3])
        else:
            lines.append(box)
    done = complete and bool(lines)
    return SetBlock(para, tuple(lines), size, done, area, tuple(copies), tuple(missing))


def line_ink(box: Rect, size: float) -> Rect:
    """The ink of a set line whose box runs from 0.8 of ``size`` above its baseline to 0.2
    below (``typeset.Placement``)."""
    return (box[0], box[1] + 0.1 * size, box[2], box[3] - 0.1 * size)


def band_ink(band: Rect) -> Rect:
    """The ink of a source line from its redaction band (0.6 to 0.1 of its size above its
    baseline, ``translation.read.rows.row``)."""
    size = 2.0 * (band[3] - band[1])
    return (band[0], band[3] - 0.6 * size, band[2], band[3] + 0.2 * size)


def check_page(
    page_rect: Rect,
    blocks: Sequence[SetBlock],
    standing: Sequence[Rect],
) -> Verdict:
    """Which of ``blocks`` (horizontal paragraphs as set) break the page (module doc), and
    why; ``standing``: the inks of the text still on the page once the translated paragraphs'
    sources were removed (:func:`span_inks`)."""
    verdict = Verdict()
    erased = _Grid(r for b in blocks for r in b.para.rects)
    kept = _Grid(standing)
    for block in blocks:
        para = block.para
        src = para.font_size or 10.0
        if not block.complete:
            verdict.fall(para.id, "unset")
        if block.missing:  # a character no face has would vanish from the page, silently
            verdict.fall(para.id, "no glyph")
        if block.lines and block.size < MIN_SCALE * src - 0.01:
            verdict.fall(para.id, "tiny")
        if _outside(block, page_rect):
            verdict.fall(para.id, "outside")
        for ink in block.inks():
            for other in kept.hits(ink):
                if erased.touches(other):
                    verdict.stray.setdefault(para.id, []).append(other)
                else:
                    verdict.fall(para.id, "overprint")
    _overlaps_between(blocks, verdict)
    _settle(blocks, verdict)
    return verdict


def check_apart(page_rect: Rect, apart: Sequence[SetBlock], standing: Sequence[Rect]) -> list[str]:
    """Which of the blocks set apart from their source (``translation.render.set_apart``, in
    the order set) break the page after all: cut short, below :data:`MIN_SCALE`, a line past
    the page or past the area it was given by half its size, or over ``standing`` (the inks
    of everything else on the page, the sources put back and the translations among them) or
    over another one set apart before it. Their ids, in order."""
    grid = _Grid(standing)
    broken: list[str] = []
    for block in apart:
        src = block.para.font_size or 10.0
        slack = SLACK * src
        ax0, ay0, ax1, ay1 = block.area
        px0, py0, px1, py1 = page_rect
        inks = block.inks()
        if (
            not block.complete
            or block.missing
            or block.size < MIN_SCALE * src - 0.01
            or any(
                x0 < max(px0 - 1, ax0 - slack)
                or x1 > min(px1 + 1, ax1 + slack)
                or y0 < max(py0 - 1, ay0 - slack)
                or y1 > min(py1 + 1, ay1 + slack)
                for x0, y0, x1, y1 in (line_ink(r, block.size) for r in block.lines)
            )
            or any(grid.hits(ink) for ink in inks)
        ):
            broken.append(block.para.id)
            continue
        grid = _Grid([*grid.rects, *inks])
    return broken


def confirm_erased(blocks: Sequence[SetBlock], verdict: Verdict, standing: Sequence[Rect]) -> None:
    """After the stray glyphs were erased (``verdict.strays()``): a paragraph with a stray
    still among ``standing`` (the page's inks read again) falls back (``unerased``), and so
    do the translations over its source put back."""
    still = _Grid(standing)
    for ident, rects in verdict.stray.items():
        if ident not in verdict.fallen and any(still.hits(r) for r in rects):
            verdict.fall(ident, "unerased")
    _settle(blocks, verdict)


def _outside(block: SetBlock, page_rect: Rect) -> bool:
    para = block.para
    slack = SLACK * (para.font_size or 10.0)
    boxes = [block.area, para.bbox] + ([para.max_bbox] if para.max_bbox else [])
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    if para.column != (0.0, 0.0):
        x0, x1 = min(x0, para.column[0]), max(x1, para.column[1])
    px0, py0, px1, py1 = page_rect
    for lx0, ly0, lx1, ly1 in (line_ink(r, block.size) for r in block.lines):
        if lx0 < px0 - 1 or lx1 > px1 + 1 or ly0 < py0 - 1 or ly1 > py1 + 1:
            return True
        if lx0 < x0 - slack or lx1 > x1 + slack or ly1 > y1 + slack or ly0 < y0 - slack:
            return True
    return False


def _overlaps_between(blocks: Sequence[SetBlock], verdict: Verdict) -> None:
    """Translations over each other: the one over most others falls back first (a block
    whose box holds the pieces of a line read apart), then, of two, the one whose line lies
    outside its own source box (it went into the other's room), else the later one; until
    no two overlap."""
    inks = [(ink, i) for i, b in enumerate(blocks) for ink in b.inks()]
    grid = _Grid(ink for ink, _ in inks)
    pairs: dict[tuple[int, int], bool] = {}  # (i, j), i < j -> whether i is the intruder
    for ink, i in inks:
        for m in grid.hit_indices(ink):
            other, j = inks[m]
            if j == i:
                continue
            a_out = not _within(ink, blocks[i].para.bbox)
            b_out = not _within(other, blocks[j].para.bbox)
            key = (min(i, j), max(i, j))
            first_out = a_out if i < j else b_out
            second_out = b_out if i < j else a_out
            pairs[key] = pairs.get(key, False) or (first_out and not second_out)
    live = {
        k: v for k, v in pairs.items() if not {blocks[x].para.id for x in k} & set(verdict.fallen)
    }
    while live:
        degree: dict[int, int] = {}
        for i, j in live:
            degree[i] = degree.get(i, 0) + 1
            degree[j] = degree.get(j, 0) + 1
        most = max(degree.values())
        if most > 1:
            fallen = max((n for n, d in degree.items() if d == most), key=lambda n: n)
        else:
            (i, j), first = next(iter(live.items()))
            fallen = i if first else j
        verdict.fall(blocks[fallen].para.id, "overprint")
        live = {k: v for k, v in live.items() if fallen not in k}


def _settle(blocks: Sequence[SetBlock], verdict: Verdict) -> None:
    """A source put back stands again: the translations over it fall back too."""
    for _ in range(_ROUNDS):
        back = _Grid(
            band_ink(r) for b in blocks if b.para.id in verdict.fallen for r in b.para.rects
        )
        changed = False
        for block in blocks:
            if block.para.id in verdict.fallen:
                continue
            if any(back.hits(ink) for ink in block.inks()):
                changed |= verdict.fall(block.para.id, "overprint")
        if not changed:
            return


def _within(ink: Rect, box: Rect) -> bool:
    cx, cy = (ink[0] + ink[2]) / 2, (ink[1] + ink[3]) / 2
    return box[0] - 1 <= cx <= box[2] + 1 and box[1] - 1 <= cy <= box[3] + 1


def ink_rows(top: float, bottom: float, base: float, size: float) -> tuple[float, float]:
    """The top and bottom of the ink of glyphs of ``size`` on a horizontal line whose
    baseline (the glyphs' origin) is at ``base`` and whose box runs from ``top`` to
    ``bottom``: :data:`INK_ABOVE` above the baseline to :data:`INK_BELOW` below, or, for glyphs
    that hang from their origin (:data:`HANG_BELOW`, :data:`HANG_FLUSH`), from it down by
    :data:`HANG_INK`. The corpus audit (``bench.corpus_pages``) measures with it too."""
    deep = bottom - base > HANG_BELOW * size and base - top < HANG_ABOVE * size
    flush = base - top < HANG_FLUSH * size and bottom - base > HANG_FLUSH * size
    if deep or flush:
        return base, base + HANG_INK * size
    return base - INK_ABOVE * size, base + INK_BELOW * size


def span_inks(blocks: Iterable[Mapping[str, object]], notation: bool = False) -> list[Rect]:
    """The inks of the text spans of a page's ``get_text("dict")`` blocks: on a horizontal
    line as :func:`ink_rows` says, over its glyphs' extent (spaces at its ends left out,
    about); else the middle of its box. ``notation``: only the
    spans holding a math symbol, a Greek letter or a glyph without a Unicode meaning."""
    inks: list[Rect] = []
    for block in blocks:
        for line in block.get("lines", ()):  # type: ignore[attr-defined]
            horizontal = abs(line.get("dir", (1.0, 0.0))[0]) > 0.98
            for span in line["spans"]:
                text = span["text"]
                if not text.strip() or (notation and not any(map(_notation, text))):
                    continue
                x0, y0, x1, y1 = span["bbox"]
                size = span["size"]
                if not horizontal:
                    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
                    w, h = 0.4 * (x1 - x0), 0.3 * (y1 - y0)
                    inks.append((cx - w, cy - h, cx + w, cy + h))
                    continue
                # Spaces at the span's ends take no ink (a word processor's padded runs).
                per = (x1 - x0) / len(text)
                lead, trail = len(text) - len(text.lstrip()), len(text) - len(text.rstrip())
                top, bottom = ink_rows(y0, y1, span["origin"][1], size)
                inks.append((x0 + per * lead, top, x1 - per * trail, bottom))
    return inks


def _notation(char: str) -> bool:
    return (
        unicodedata.category(char) == "Sm"
        or "\u0370" <= char <= "\u03ff"
        or char == "\ufffd"
        or "\U0001d400" <= char <= "\U0001d7ff"
    )


def keep_notation(verdict: Verdict, notation: Sequence[Rect]) -> None:
    """A stray glyph of notation (``span_inks(..., notation=True)``) is never erased (a
    formula's glyph beside the line, which no copy would put back): its paragraph falls back
    instead (``unerased``)."""
    grid = _Grid(notation)
    for ident, rects in verdict.stray.items():
        if ident not in verdict.fallen and any(grid.hits(r) for r in rects):
            verdict.fall(ident, "unerased")


def _overlap(a: Rect, b: Rect) -> bool:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return False
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return w * h >= OVERLAP * smaller


class _Grid:
    """Rects in rows of :data:`_STEP` points (lines are wide and low: rows find them fast),
    for overlap lookups."""

    _STEP = 12.0

    def __init__(self, rects: Iterable[Rect]) -> None:
        self.rects = list(rects)
        self._rows: dict[int, list[int]] = {}
        step = self._STEP
        for index, rect in enumerate(self.rects):
            for row in range(math.floor(rect[1] / step), math.floor(rect[3] / step) + 1):
                self._rows.setdefault(row, []).append(index)

    def hit_indices(self, rect: Rect) -> set[int]:
        """The indices of the rects ``rect`` overlaps (:data:`OVERLAP`)."""
        found: set[int] = set()
        step, rects = self._STEP, self.rects
        for row in range(math.floor(rect[1] / step), math.floor(rect[3] / step) + 1):
            for index in self._rows.get(row, ()):
                if index not in found and _overlap(rect, rects[index]):
                    found.add(index)
        return found

    def hits(self, rect: Rect) -> list[Rect]:
        return [self.rects[i] for i in sorted(self.hit_indices(rect))]

    def touches(self, rect: Rect) -> bool:
        """Whether the centre of ``rect`` lies in one of the rects (a third of its height
        around it: a glyph's probe, ``translation.render.glyphs``, may sit at its edge)."""
        cx, cy = (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2
        for index in self._rows.get(math.floor(cy / self._STEP), ()):
            r = self.rects[index]
            pad = 0.3 * (r[3] - r[1])
            if r[0] <= cx <= r[2] and r[1] - pad <= cy <= r[3] + pad:
                return True
        return False
