"""What the PDF reader saw, as plain data, and the geometry on it.

:class:`PageLayout` (blocks, lines and spans with their boxes and fonts, plus the figure areas)
is a copy of PyMuPDF's text extraction; nothing here touches PyMuPDF. Coordinates are PyMuPDF's
unrotated page space (y down). A page whose text runs vertically is analysed in a
:class:`Frame` (x along its reading direction).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Rect = tuple[float, float, float, float]
Vector = tuple[float, float]
#: The reading direction of ordinary horizontal text.
HORIZONTAL: Vector = (1.0, 0.0)

# --- input: what the PDF reader saw --------------------------------------------------------

#: The font name OCR'd spans carry (MuPDF's own, kept so a reader of the layout can tell).
OCR_FONT = "GlyphLessFont"
#: The font name of the spans of an OCR'd equation line: a math font's name, so the reading
#: rules keep the line out of the text as they do a typeset formula (never sent as prose).
OCR_MATH_FONT = "GlyphLessMath"


@dataclass(frozen=True, slots=True)
class Span:
    """A run of characters in one font, size and colour; ``origin`` is its first baseline
    point."""

    text: str
    bbox: Rect
    font: str
    size: float
    flags: int = 0
    color: int = 0
    origin: Vector | None = None
    #: Glyphs without Unicode (``translation.read.pages.marks``): kept as drawn, never sent as text.
    mark: bool = False
    #: How far each character of ``text`` advances along the line, from the glyphs' own
    #: origins (``translation.read.pages.glyph_advances``); empty where not known.
    advances: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class Line:
    spans: tuple[Span, ...]
    bbox: Rect
    direction: Vector = (1.0, 0.0)


@dataclass(frozen=True, slots=True)
class Block:
    lines: tuple[Line, ...]
    bbox: Rect


@dataclass(frozen=True, slots=True)
class PageLayout:
    """One page as read: ``width``/``height`` of the unrotated page, its text blocks, and the
    areas of images and vector figures (text inside them is never translated)."""

    index: int
    width: float
    height: float
    blocks: tuple[Block, ...]
    figures: tuple[Rect, ...] = ()
    #: OCR'd pages: the line boxes Tesseract made taller than their text, before the lines
    #: were cut down to it (``translation.read.ocr.ink.cut_to_ink``); their words are to be
    #: covered.
    tall_boxes: tuple[Rect, ...] = ()
    #: Thin horizontal and vertical vector lines: a ruled table's borders.
    rules: tuple[Rect, ...] = ()


# --- geometry -------------------------------------------------------------------------------


#: Points to the inch in PDF user space.
POINTS_PER_INCH = 72.0
#: A direction whose cosine with an axis is at least this (within about 11 degrees) is along it.
AXIS_ALIGNED = 0.98


def axis(direction: Vector) -> Vector | None:
    """The axis direction closest to ``direction``, or None for slanted text."""
    dx, dy = direction
    if abs(dx) > AXIS_ALIGNED:
        return (1.0 if dx > 0 else -1.0, 0.0)
    if abs(dy) > AXIS_ALIGNED:
        return (0.0, 1.0 if dy > 0 else -1.0)
    return None


@dataclass(frozen=True, slots=True)
class Frame:
    """Coordinates along a reading direction ``u`` (x) and the line-advance direction ``v``
    (y, "down" for a reader of that text). The identity for ordinary horizontal text.

    The mappings are asked for every span, row and box a stage looks at: the identity's take
    the page's coordinates as they are (the same values, without the arithmetic)."""

    u: Vector = HORIZONTAL

    @property
    def v(self) -> Vector:
        return (-self.u[1], self.u[0])

    def point(self, x: float, y: float) -> Vector:
        """Page point -> frame point."""
        if self.u == HORIZONTAL:
            return (x, y)
        (ux, uy), (vx, vy) = self.u, self.v
        return (x * ux + y * uy, x * vx + y * vy)

    def to_frame(self, rect: Rect) -> Rect:
        if self.u == HORIZONTAL:
            return _ordered(rect)
        pts = [self.point(x, y) for x, y in _corners(rect)]
        return _bounds(pts)

    def page_point(self, a: float, b: float) -> Vector:
        """Frame point -> page point."""
        if self.u == HORIZONTAL:
            return (a, b)
        (ux, uy), (vx, vy) = self.u, self.v
        return (a * ux + b * vx, a * uy + b * vy)

    def to_page(self, rect: Rect) -> Rect:
        if self.u == HORIZONTAL:
            return _ordered(rect)
        return _bounds([self.page_point(a, b) for a, b in _corners(rect)])


def _ordered(rect: Rect) -> Rect:
    """``rect``'s corners as :func:`_bounds` orders them: the least x and y first."""
    x0, y0, x1, y1 = rect
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def _corners(rect: Rect) -> list[Vector]:
    x0, y0, x1, y1 = rect
    return [(x0, y0), (x1, y0), (x0, y1), (x1, y1)]


def _bounds(points: Sequence[Vector]) -> Rect:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


def union(rects: Iterable[Rect]) -> Rect:
    items = list(rects)
    return (
        min(r[0] for r in items),
        min(r[1] for r in items),
        max(r[2] for r in items),
        max(r[3] for r in items),
    )


def visible_images(drawn: Sequence[Rect], shown: Sequence[Rect]) -> list[Rect]:
    """Each box of ``drawn`` (images as drawn, whole) cut to the union of the ``shown`` boxes
    (images as they show through their clipping paths) it overlaps; a box no shown box
    overlaps is kept whole.

    A picture placed larger than its clip reaches past what it shows: taken whole, it would
    hide the caption printed under the visible part (an outside paper's figure: its caption
    never sent).
    """
    out: list[Rect] = []
    for box in drawn:
        parts = [
            s
            for s in shown
            if min(box[2], s[2]) > max(box[0], s[0]) and min(box[3], s[3]) > max(box[1], s[1])
        ]
        if not parts:
            out.append(box)
            continue
        u = union(parts)
        out.append((max(box[0], u[0]), max(box[1], u[1]), min(box[2], u[2]), min(box[3], u[3])))
    return out


def _touch(a: Sequence[float], b: Sequence[float], gap: float) -> bool:
    return a[0] <= b[2] + gap and a[2] >= b[0] - gap and a[1] <= b[3] + gap and a[3] >= b[1] - gap


#: Of the page's area: a box covering more is a background, not a figure.
_BACKGROUND = 0.6
#: Points: paths this close are clustered into one figure.
_CLUSTER_GAP = 3.0
#: Points: a path at most this thick is a line (a rule), not a two-dimensional shape.
_THIN = 2.0
#: A figure holds at least this many paths, this many of them two-dimensional ...
_FIGURE_PATHS, _FIGURE_SHAPES = 4, 2
#: ... and covers at least this many square points (an image, this many).
_FIGURE_AREA, _IMAGE_AREA = 900, 100


def figure_regions(
    paths: Sequence[Rect],
    images: Sequence[Rect],
    page_width: float,
    page_height: float,
    text_lines: Sequence[Rect] = (),
) -> list[Rect]:
    """Areas of figures on a page, from the boxes of its vector paths and images.

    Paths close to each other are clustered; a cluster is a figure when it holds several paths
    of which some are two-dimensional (curves, filled shapes, diagonals). Clusters of thin
    horizontal/vertical rules are tables and stay translatable. Boxes covering most of the page
    are backgrounds, not figures, and so are highlights: paths one line of ``text_lines`` high
    lying behind that line (marked words; shaded table rows).
    """
    big = _BACKGROUND * page_width * page_height
    gap = _CLUSTER_GAP
    lines = sorted(text_lines, key=lambda r: r[1])
    line_tops = [r[1] for r in lines]
    tallest = max((r[3] - r[1] for r in lines), default=0.0)
    clusters: list[list[float]] = []  # x0, y0, x1, y1, paths, two-dimensional paths
    for rect in sorted(paths, key=lambda r: (r[1], r[0])):
        if lines and _is_highlight(rect, lines, line_tops, tallest):
            continue
        w, h = rect[2] - rect[0], rect[3] - rect[1]
        if w * h > big:
            continue
        two_d = 1.0 if (w > _THIN and h > _THIN) else 0.0
        for cluster in clusters:
            if _touch(rect, cluster, gap):
                cluster[:4] = [*union([rect, (cluster[0], cluster[1], cluster[2], cluster[3])])]
                cluster[4] += 1
                cluster[5] += two_d
                break
        else:
            clusters.append([*rect, 1.0, two_d])
    merged = True
    while merged:  # clusters that grew into each other
        merged = False
        for i in range(len(clusters)):
            for j in range(i + 1, len(clusters)):
                a, b = clusters[i], clusters[j]
                if _touch(a, b, gap):
                    box = union([(a[0], a[1], a[2], a[3]), (b[0], b[1], b[2], b[3])])
                    clusters[i] = [*box, a[4] + b[4], a[5] + b[5]]
                    del clusters[j]
                    merged = True
                    break
            if merged:
                break
    regions: list[Rect] = []
    for x0, y0, x1, y1, count, count2d in clusters:
        area = (x1 - x0) * (y1 - y0)
        if count >= _FIGURE_PATHS and count2d >= _FIGURE_SHAPES and _FIGURE_AREA <= area < big:
            regions.append((x0, y0, x1, y1))
    for rect in images:
        if _IMAGE_AREA <= (rect[2] - rect[0]) * (rect[3] - rect[1]) < big:
            regions.append(rect)
    return regions


#: A highlight is from this many to this many line heights high ...
_HIGHLIGHT_LEAST, _HIGHLIGHT_MOST = 0.6, 1.6
#: ... overlaps this share of the lower of it and the line ...
_HIGHLIGHT_OVERLAP = 0.7
#: ... and lies behind the line for more than this share of its width.
_HIGHLIGHT_ALONG = 0.5


def _is_highlight(rect: Rect, lines: Sequence[Rect], tops: Sequence[float], tallest: float) -> bool:
    height = rect[3] - rect[1]
    if height <= _THIN:
        return False
    for line in lines[bisect.bisect_left(tops, rect[1] - tallest) :]:
        if line[1] > rect[3]:
            break
        line_h = line[3] - line[1]
        overlap = min(rect[3], line[3]) - max(rect[1], line[1])
        if (
            _HIGHLIGHT_LEAST * line_h <= height <= _HIGHLIGHT_MOST * line_h
            and overlap >= _HIGHLIGHT_OVERLAP * min(height, line_h)
            and min(rect[2], line[2]) - max(rect[0], line[0])
            > _HIGHLIGHT_ALONG * (rect[2] - rect[0])
        ):
            return True
    return False


# --- page geometry for /crop and /crop-compare ----------------------------------------------


#: Points a box may reach past the text area's middle and still lie wholly on its side.
_MIDDLE_SLACK = 4
#: Of the text's characters: each column of a two-column page holds at least this share.
_COLUMN_SHARE = 0.15


def column_split(page: PageLayout) -> float | None:
    """The x where a two-column page divides into its columns, or None for other pages.

    A page has two columns when at least 15% of its horizontal text sits wholly left of the
    text area's middle and 15% wholly right of it; the split is halfway across the gutter.
    """
    boxes: list[tuple[Rect, int]] = []
    for block in page.blocks:
        lines = [ln for ln in block.lines if axis(ln.direction) == HORIZONTAL]
        count = sum(len(s.text.strip()) for ln in lines for s in ln.spans)
        if count:
            boxes.append((union(ln.bbox for ln in lines), count))
    if not boxes:
        return None
    x0 = min(b[0] for b, _ in boxes)
    x1 = max(b[2] for b, _ in boxes)
    mid = (x0 + x1) / 2
    left = [(b, n) for b, n in boxes if b[2] < mid + _MIDDLE_SLACK]
    right = [(b, n) for b, n in boxes if b[0] > mid - _MIDDLE_SLACK]
    total = sum(n for _, n in boxes)
    if (
        sum(n for _, n in left) < _COLUMN_SHARE * total
        or sum(n for _, n in right) < _COLUMN_SHARE * total
    ):
        return None
    left_edge = max(b[2] for b, _ in left)
    right_edge = min(b[0] for b, _ in right)
    if right_edge <= left_edge:
        return mid
    return (left_edge + right_edge) / 2
