"""Pure text segmentation: page layouts -> translatable paragraphs, and back.

Input is a plain-data copy of what the PDF reader saw (:class:`PageLayout`: blocks, lines and
spans with their boxes and fonts, plus the figure areas); nothing here touches PyMuPDF, so every
rule is testable with literals. :func:`segment` returns :class:`Paragraph` objects in reading
order, holding only what must be translated:

* not translated: running headers, footers and page numbers (position bands and repetition across
  pages), display equations, text inside figures, table cells made of numbers or symbols, code,
  text that does not run in the page's main direction (an arXiv side stamp), and the references
  section unless asked for (translation resumes at an appendix or any later top-level heading);
* inline math and symbols (math fonts, math Unicode, Greek, sub/superscripts), URLs and e-mail
  addresses become placeholders ``{v1}``, ``{v2}``... (:data:`PLACEHOLDER_RE`) that
  :func:`restore` puts back after translation; hyphenated line breaks are joined.

Coordinates are PyMuPDF's unrotated page space (y down), the space ``get_text`` reports and
redaction and text insertion use, so a page with ``/Rotate`` needs no special case. A page whose
text runs vertically is analysed in a "text frame" (x along its reading direction).
"""

from __future__ import annotations

import bisect
import re
import statistics
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from common.errors import InputError

Rect = tuple[float, float, float, float]
Vector = tuple[float, float]

#: A placeholder as sent to the LLM: ``{v1}``, ``{v2}``... (the pdf2zh convention).
PLACEHOLDER_RE = re.compile(r"\{v(\d+)\}")

# What models make of a placeholder: "{ v1 }", "{V1}", "{{v1}}", full-width braces, "v1}", "{v1".
_MANGLED_RE = re.compile(
    r"[{｛](?:\s*[{｛])?\s*[vV]\s*(\d+)(?:\s*[}｝])?(?:\s*[}｝])?"
    r"|(?<![A-Za-z0-9])[vV]\s*(\d+)\s*[}｝]{1,2}"
)


# --- input: what the PDF reader saw --------------------------------------------------------


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


# --- output ---------------------------------------------------------------------------------


class ParagraphKind(StrEnum):
    BODY = "body"
    HEADING = "heading"
    CELL = "cell"
    REFERENCE = "reference"


class Align(StrEnum):
    LEFT = "left"
    CENTER = "center"
    JUSTIFY = "justify"


@dataclass(slots=True)
class Paragraph:
    """One unit of translation and of typesetting.

    ``text`` is what the LLM gets: the source with inline math, URLs and the like replaced by
    placeholders; ``placeholders`` maps each placeholder to its original text and
    ``formula_boxes`` to the page areas of its glyphs (for glyphs without Unicode, which can only
    be copied as they look). ``bbox`` is the area the translation must fit in; ``rects`` are the
    areas to redact, tight around the source glyphs so nothing else is touched (all in unrotated
    page coordinates). ``direction`` is the reading direction (unit vector, y down).
    """

    id: str
    page: int
    text: str
    placeholders: dict[str, str]
    bbox: Rect
    rects: tuple[Rect, ...]
    font_size: float
    color: int = 0
    bold: bool = False
    direction: Vector = (1.0, 0.0)
    align: Align = Align.LEFT
    kind: ParagraphKind = ParagraphKind.BODY
    line_pitch: float = 1.2  # baseline distance of the source lines / font size
    line_count: int = 1
    formula_boxes: dict[str, tuple[Rect, ...]] = field(default_factory=dict)
    #: Formulas to copy as their original glyphs (math fonts, sub/superscripts), and for each
    #: piece of their ``formula_boxes`` how far its bottom lies below the source baseline.
    glyph_formulas: frozenset[str] = frozenset()
    formula_descents: dict[str, tuple[float, ...]] = field(default_factory=dict)


# --- character classes and placeholders -----------------------------------------------------

_MATH_FONT_RE = re.compile(
    r"^(CM(MI|SY|EX|BSY|MIB)|MSAM|MSBM|EUFM|EUSM|EUEX|RSFS|LMMath|"
    r"MT(MI|SY|EX)|MT2(MI|SY|EX|MS|BS|BE)|TX(MI|SY|EX)|PX(MI|SY|EX)|rtx(mi|sy|ex)|"
    r"NewTXMI|ztmcm|esint|wasy|stmary|Asana|XITSMath|STIX.*Math|.*Math|Symbol|Euclid|"
    r"MathematicalPi|Mathematica)",
    re.IGNORECASE,
)
# Computer Modern text fonts: math in a paper set in Times, text in a paper set in CM.
_CM_TEXT_FONT_RE = re.compile(r"^(CMR|CMBX|CMTI|CMSL|CMSS|CMCSC|SFRM|LMRoman)", re.IGNORECASE)
_MONO_FONT_RE = re.compile(r"(Mono|Courier|Consola|Code|CMTT|SFTT|t1xtt|txtt|Inconsolata)", re.I)
_SUBSET_PREFIX_RE = re.compile(r"^[A-Z]{6}\+")

_MATH_RANGES = (
    (0x0370, 0x03FF),  # Greek
    (0x1D00, 0x1DBF),  # phonetic extensions (math modifiers)
    (0x1F00, 0x1FFF),  # Greek extended
    (0x2032, 0x2037),  # primes
    (0x2070, 0x209F),  # super- and subscripts
    (0x20D0, 0x20FF),  # combining marks for symbols
    (0x2100, 0x214F),  # letterlike (ℝ, ℓ, ℕ)
    (0x2190, 0x21FF),  # arrows
    (0x2200, 0x22FF),  # mathematical operators
    (0x2300, 0x23FF),  # misc technical (⌈ ⌉ ⌊ ⌋)
    (0x25A0, 0x25FF),  # geometric shapes
    (0x27C0, 0x27FF),
    (0x2900, 0x2AFF),
    (0x1D400, 0x1D7FF),  # mathematical alphanumerics
    (0xE000, 0xF8FF),  # private use: unmapped glyphs of math fonts
    (0xFFFD, 0xFFFD),  # a glyph without Unicode (math fonts without ToUnicode)
)
_MATH_LATIN1 = set("±×÷¬²³¹µ·∗")
_NEUTRAL_CHARS = set("0123456789()[]{}=+-−/,.:;'|<>!*^_~%&")
_LITERAL_SYMBOLS = set("•◦▪‣●○■□◆◇†‡§¶*")  # bullets and footnote marks: plain text for the LLM
_URL_RE = re.compile(r"(?:https?://|www\.)[^\s)\]}>,;]+[^\s)\]}>,;.]|[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# Ligatures, and the bullets of the Symbol font that arrive as private-use characters.
_LIGATURES = {"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"}
_LIGATURES |= {"\uf0b7": "•", "\uf0a7": "▪"}
_PAIRS = (("(", ")"), ("[", "]"), ("{", "}"))

MATH, NEUTRAL, TEXT = "m", "n", "t"
#: Math set in a math font or as a sub/superscript: its text cannot be trusted (TeX and MathTime
#: fonts map glyphs to wrong Unicode, "=" reads "D") nor re-typeset flat, so the renderer copies
#: the original glyphs of a formula holding any such character.
GLYPH = "g"
_MATHS = (MATH, GLYPH)


def _is_math_char(char: str) -> bool:
    if char in _MATH_LATIN1:
        return True
    code = ord(char)
    return any(lo <= code <= hi for lo, hi in _MATH_RANGES)


def font_base(name: str) -> str:
    """The font name without a subset prefix (``ABCDEF+CMMI10`` -> ``CMMI10``)."""
    return _SUBSET_PREFIX_RE.sub("", name)


def is_math_font(name: str, cm_is_math: bool = False) -> bool:
    """Whether text in font ``name`` is math (``cm_is_math``: the document's text is not set
    in Computer Modern, so CMR and friends only appear in formulas)."""
    base = font_base(name)
    if _MATH_FONT_RE.match(base):
        return True
    return cm_is_math and bool(_CM_TEXT_FONT_RE.match(base))


def _char_class(char: str, span_is_math: bool) -> str:
    if char.isspace():
        return NEUTRAL
    if char in _LITERAL_SYMBOLS:
        return TEXT
    if span_is_math:
        return GLYPH
    if _is_math_char(char):
        return MATH
    if char in _NEUTRAL_CHARS:
        return NEUTRAL
    return TEXT


def protect(chars: str, classes: str) -> tuple[str, dict[str, str], list[tuple[int, int]]]:
    """Replace math runs and URLs in ``chars`` with placeholders.

    ``classes`` holds one class per character: ``m`` or ``g`` (math), ``n`` (neutral: digits,
    spaces, operators, brackets, punctuation) or ``t`` (text). A math run is a stretch of math and
    neutral characters holding at least one math character, narrowed to its math characters
    plus the brackets they open or close and digits glued to them. Text that looks like a
    placeholder is protected too, so it can never be mistaken for one. Returns the text, the
    placeholders (in order) and the (start, end) character range of each.
    """
    if len(chars) != len(classes):
        raise ValueError("one class per character is needed")
    marks = list(classes)
    for pattern in (_URL_RE, _MANGLED_RE):
        for match in pattern.finditer(chars):
            marks[match.start() : match.end()] = [MATH] * (match.end() - match.start())
    out: list[str] = []
    originals: dict[str, str] = {}
    ranges: list[tuple[int, int]] = []
    i, n = 0, len(chars)
    while i < n:
        if marks[i] == TEXT:
            out.append(chars[i])
            i += 1
            continue
        j = i
        while j < n and marks[j] != TEXT:
            j += 1
        if not any(mark in _MATHS for mark in marks[i:j]):
            out.append(chars[i:j])
            i = j
            continue
        start, end = _trim_run(chars, i, j, marks)
        out.append(chars[i:start])
        key = f"{{v{len(originals) + 1}}}"
        originals[key] = chars[start:end]
        ranges.append((start, end))
        out.append(key)
        out.append(chars[end:j])
        i = j
    return "".join(out), originals, ranges


def _trim_run(chars: str, start: int, end: int, marks: Sequence[str]) -> tuple[int, int]:
    """Narrow a run to its math characters plus what belongs to them: brackets they open or
    close and digits glued to them (not surrounding spaces and sentence punctuation)."""
    first = next(i for i in range(start, end) if marks[i] in _MATHS)
    last = next(i for i in range(end - 1, start - 1, -1) if marks[i] in _MATHS) + 1
    while True:
        run = chars[first:last]
        if last < end and (
            chars[last] in _GLUE
            or any(chars[last] == c and run.count(o) > run.count(c) for o, c in _PAIRS)
        ):
            last += 1
        elif first > start and (
            chars[first - 1] in _GLUE
            or any(chars[first - 1] == o and run.count(c) > run.count(o) for o, c in _PAIRS)
        ):
            first -= 1
        elif (
            first > start
            and last < end
            and any(chars[first - 1] == o and chars[last] == c for o, c in _PAIRS)
        ):
            first, last = first - 1, last + 1  # "(a, b)": brackets around the formula
        else:
            break
    # Operators at the edges belong to the formula only with something after/before them.
    while last > first + 1 and chars[last - 1] in "+-−=*/^_<>|~":
        last -= 1
    return first, last


# Digits and operators written against a formula ("x+1", "2x", "n^2") are part of it.
_GLUE = set("0123456789+-−=*/^_'<>|~")


#: Stands for formula ``{vN}`` in restored text when its glyphs have no Unicode (U+FFFD or
#: private-use characters): the renderer copies such a formula as it looks on the page.
FORMULA_MARK_BASE = 0xF0000


def formula_mark(key: str) -> str:
    """The marker character of placeholder ``key`` (``{v3}`` -> U+F0003)."""
    return chr(FORMULA_MARK_BASE + int(key[2:-1]))


def mark_key(char: str) -> str | None:
    """The placeholder a marker character stands for, or None."""
    code = ord(char) - FORMULA_MARK_BASE
    return f"{{v{code}}}" if 0 < code < 0xFFFD else None


def _needs_copy(original: str) -> bool:
    return any(c == "\ufffd" or 0xE000 <= ord(c) <= 0xF8FF for c in original)


def restore(translation: str, paragraph: Paragraph) -> str:
    """Put the originals back in place of the placeholders of ``paragraph``.

    Recognises the mangled forms models produce (``{ v1 }``, ``{V1}``, ``{{v1}}``, full-width
    braces, a lost brace). Policy: a placeholder the paragraph does not have is dropped; one the
    model used twice is restored twice; one the model dropped is appended at the end of the text,
    in source order, so the formula still appears in its paragraph. No placeholder ever remains:
    originals are inserted in a single pass and never rescanned. A formula whose glyphs have no
    Unicode or whose text cannot be trusted (``paragraph.glyph_formulas``) comes back as its
    marker character (:func:`formula_mark`), which the renderer draws as a copy of the
    original glyphs.
    """
    originals = {
        key: formula_mark(key) if _needs_copy(value) or key in paragraph.glyph_formulas else value
        for key, value in paragraph.placeholders.items()
    }
    seen: set[str] = set()

    def put_back(match: re.Match[str]) -> str:
        key = f"{{v{int(match.group(1) or match.group(2))}}}"
        if key not in originals:
            return ""
        seen.add(key)
        return originals[key]

    text = _MANGLED_RE.sub(put_back, translation)
    missing = [value for key, value in originals.items() if key not in seen]
    if missing:
        text = " ".join([text.rstrip(), *missing]) if text.strip() else " ".join(missing)
    return text


# --- page ranges ----------------------------------------------------------------------------

_RANGE_RE = re.compile(r"^\s*(\d*)\s*(?:([-–])\s*(\d*))?\s*$")


def parse_pages(spec: str, page_count: int) -> list[int]:
    """Parse ``"1-3,7"`` (1-based, inclusive; ``"5-"`` to the end, ``"-3"`` from the start)
    into sorted unique 0-based page indices. Raises InputError on anything else, including an
    empty spec and pages past the end."""
    if not spec or not spec.strip():
        raise InputError("empty page range: use e.g. 1-3,7")
    pages: set[int] = set()
    for part in spec.split(","):
        match = _RANGE_RE.match(part)
        if not match or (not match.group(1) and not match.group(3)):
            raise InputError(f"invalid page range {spec!r}: use e.g. 1-3,7")
        first_s, dash, last_s = match.groups()
        first = int(first_s) if first_s else 1
        last = (int(last_s) if last_s else page_count) if dash else first
        if first < 1 or last < 1:
            raise InputError(f"invalid page range {spec!r}: pages start at 1")
        if first > last:
            raise InputError(f"invalid page range {part.strip()!r}: start is after end")
        if last > page_count:
            plural = "s" if page_count != 1 else ""
            raise InputError(
                f"page {last} is out of range: the document has {page_count} page{plural}"
            )
        pages.update(range(first - 1, last))
    return sorted(pages)


# --- geometry -------------------------------------------------------------------------------


def _axis(direction: Vector) -> Vector | None:
    """The axis direction closest to ``direction``, or None for slanted text."""
    dx, dy = direction
    if abs(dx) > 0.98:
        return (1.0 if dx > 0 else -1.0, 0.0)
    if abs(dy) > 0.98:
        return (0.0, 1.0 if dy > 0 else -1.0)
    return None


@dataclass(frozen=True, slots=True)
class Frame:
    """Coordinates along a reading direction ``u`` (x) and the line-advance direction ``v``
    (y, "down" for a reader of that text). The identity for ordinary horizontal text."""

    u: Vector = (1.0, 0.0)

    @property
    def v(self) -> Vector:
        return (-self.u[1], self.u[0])

    def point(self, x: float, y: float) -> Vector:
        """Page point -> frame point."""
        (ux, uy), (vx, vy) = self.u, self.v
        return (x * ux + y * uy, x * vx + y * vy)

    def to_frame(self, rect: Rect) -> Rect:
        pts = [self.point(x, y) for x, y in _corners(rect)]
        return _bounds(pts)

    def page_point(self, a: float, b: float) -> Vector:
        """Frame point -> page point."""
        (ux, uy), (vx, vy) = self.u, self.v
        return (a * ux + b * vx, a * uy + b * vy)

    def to_page(self, rect: Rect) -> Rect:
        return _bounds([self.page_point(a, b) for a, b in _corners(rect)])


def _corners(rect: Rect) -> list[Vector]:
    x0, y0, x1, y1 = rect
    return [(x0, y0), (x1, y0), (x0, y1), (x1, y1)]


def _bounds(points: Sequence[Vector]) -> Rect:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


def _union(rects: Iterable[Rect]) -> Rect:
    items = list(rects)
    return (
        min(r[0] for r in items),
        min(r[1] for r in items),
        max(r[2] for r in items),
        max(r[3] for r in items),
    )


def _touch(a: Sequence[float], b: Sequence[float], gap: float) -> bool:
    return a[0] <= b[2] + gap and a[2] >= b[0] - gap and a[1] <= b[3] + gap and a[3] >= b[1] - gap


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
    big = 0.6 * page_width * page_height
    gap = 3.0
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
        two_d = 1.0 if (w > 2.0 and h > 2.0) else 0.0
        for cluster in clusters:
            if _touch(rect, cluster, gap):
                cluster[:4] = [*_union([rect, (cluster[0], cluster[1], cluster[2], cluster[3])])]
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
                    box = _union([(a[0], a[1], a[2], a[3]), (b[0], b[1], b[2], b[3])])
                    clusters[i] = [*box, a[4] + b[4], a[5] + b[5]]
                    del clusters[j]
                    merged = True
                    break
            if merged:
                break
    regions: list[Rect] = []
    for x0, y0, x1, y1, count, count2d in clusters:
        area = (x1 - x0) * (y1 - y0)
        if count >= 4 and count2d >= 2 and 900 <= area < big:
            regions.append((x0, y0, x1, y1))
    for rect in images:
        if 100 <= (rect[2] - rect[0]) * (rect[3] - rect[1]) < big:
            regions.append(rect)
    return regions


def _is_highlight(rect: Rect, lines: Sequence[Rect], tops: Sequence[float], tallest: float) -> bool:
    height = rect[3] - rect[1]
    if height <= 2.0:
        return False
    for line in lines[bisect.bisect_left(tops, rect[1] - tallest) :]:
        if line[1] > rect[3]:
            break
        line_h = line[3] - line[1]
        overlap = min(rect[3], line[3]) - max(rect[1], line[1])
        if (
            0.6 * line_h <= height <= 1.6 * line_h
            and overlap >= 0.7 * min(height, line_h)
            and min(rect[2], line[2]) - max(rect[0], line[0]) > 0.5 * (rect[2] - rect[0])
        ):
            return True
    return False


# --- rows: visual lines with classified characters ------------------------------------------


@dataclass(slots=True)
class _Row:
    """A visual line in frame coordinates: pieces of the MuPDF lines of a block that share a
    baseline (one piece per cell of a table row)."""

    chars: str
    classes: str
    boxes: list[Rect]  # frame box of each character (estimated inside its span)
    bbox: Rect  # frame box of the glyphs
    baseline: float
    size: float
    rects: list[Rect]  # tight page rects of the spans, for redaction
    bold: bool
    mono: float
    color: int
    cell: bool = False
    drop: str = ""  # why the row is not translated ("" = translate)
    col: int = 0  # 0 left or single column, 1 right, 2 spanning both
    col_range: tuple[float, float] = (0.0, 0.0)

    @property
    def text(self) -> str:
        return self.chars.strip()

    @property
    def x0(self) -> float:
        return self.bbox[0]

    @property
    def x1(self) -> float:
        return self.bbox[2]

    @property
    def top(self) -> float:
        """Top of the main-size glyphs (a tall box from sub/superscripts does not count)."""
        return self.baseline - 0.75 * self.size

    @property
    def bottom(self) -> float:
        return self.baseline + 0.22 * self.size

    @property
    def mathy(self) -> bool:
        """A display-formula line: math characters and at most one short word."""
        math = self.classes.count(MATH) + self.classes.count(GLYPH)
        if math < 2:
            return False
        pairs = zip(self.chars, self.classes, strict=True)
        words = _WORD_RE.findall("".join(c if k == TEXT else " " for c, k in pairs))
        return len(words) <= 1 and sum(len(w) for w in words) < math


@dataclass(slots=True)
class _DocStats:
    body_size: float
    cm_is_math: bool
    directions: dict[int, Vector]
    leading: float = 1.2  # usual baseline distance of consecutive lines / font size


def _doc_stats(pages: Sequence[PageLayout]) -> _DocStats:
    sizes: Counter[float] = Counter()
    fonts: Counter[str] = Counter()
    directions: dict[int, Vector] = {}
    pitches: list[float] = []
    for page in pages:
        dirs: Counter[Vector] = Counter()
        for block in page.blocks:
            for a, b in zip(block.lines, block.lines[1:], strict=False):
                sa, sb = a.spans[0], b.spans[0]
                if sa.origin and sb.origin and abs(sa.size - sb.size) < 0.3 and sa.size > 0:
                    ratio = abs(sb.origin[1] - sa.origin[1]) / sa.size
                    if 1.0 <= ratio <= 2.5:
                        pitches.append(round(ratio, 2))
            for line in block.lines:
                axis = _axis(line.direction)
                count = sum(len(s.text.strip()) for s in line.spans)
                if axis is not None:
                    dirs[axis] += count
                # Body text is what fills long lines (tables and captions have short ones).
                for span in line.spans:
                    n = len(span.text.strip())
                    if n:
                        fonts[font_base(span.font)] += n
                        if count >= 40:
                            sizes[round(span.size * 2) / 2] += n
        directions[page.index] = dirs.most_common(1)[0][0] if dirs else (1.0, 0.0)
    body_size = sizes.most_common(1)[0][0] if sizes else 10.0
    text_font = next((f for f, _ in fonts.most_common() if not is_math_font(f)), "")
    cm_is_math = not _CM_TEXT_FONT_RE.match(text_font)
    leading = statistics.median(pitches) if pitches else 1.2
    return _DocStats(body_size, cm_is_math, directions, leading)


def _baseline(line: Line, frame: Frame) -> tuple[float, float]:
    """(baseline, size) of a line's main-size glyphs, in frame y."""
    size = max(s.size for s in line.spans)
    for span in line.spans:
        if span.size >= size - 0.3 and span.origin is not None and span.text.strip():
            return frame.point(*span.origin)[1], size
    box = frame.to_frame(line.bbox)
    return box[3] - 0.22 * size, size


# A section number or list marker set apart from its text is a label, not a table cell.
_LABEL_RE = re.compile(
    r"^\s*(\d+(\.\d+)*\.?|[A-Z](\.\d+)*\.?|[IVX]+\.|[•◦▪‣●○■□–—*\-\ue000-\uf8ff]|"
    r"\(?[a-z0-9]{1,3}[.)])\s*$"
)
_NUMERIC_RE = re.compile(r"^[\s\d.,:;%±+\-−–()\[\]/*×]*$")
_NUMBER_RE = re.compile(r"^\(?[-+−±]?\d+(?:[.,]\d+)*%?\)?[*†‡]?$")


def _rows_of_block(block: Block, frame: Frame, stats: _DocStats) -> list[_Row]:
    """Group the lines of a block that run in the frame's direction into visual rows (by
    baseline, so a superscript line joins its row); cut table rows into cells."""
    lines = []
    for line in block.lines:
        if any(s.text.strip() for s in line.spans) and _axis(line.direction) == frame.u:
            base, size = _baseline(line, frame)
            lines.append((base, size, line))
    lines.sort(key=lambda item: item[0])
    groups: list[list[tuple[float, float, Line]]] = []
    for item in lines:
        if groups:
            base, size, _ = max(groups[-1], key=lambda it: it[1])
            if abs(item[0] - base) < 0.5 * max(size, item[1]):
                groups[-1].append(item)
                continue
        groups.append([item])
    rows: list[_Row] = []
    for group in groups:
        spans = sorted(
            ((frame.to_frame(s.bbox), s) for _, _, line in group for s in line.spans if s.text),
            key=lambda item: item[0][0],
        )
        pieces = [p for p in _split_cells(spans) if any(s.text.strip() for _, s in p)]
        for piece in pieces:
            rows.append(_make_row(piece, frame, stats, cell=len(pieces) > 1))
    return rows


def _split_cells(spans: list[tuple[Rect, Span]]) -> list[list[tuple[Rect, Span]]]:
    """Cut a row at wide gaps (table cells); a text cell followed by three or more numbers is
    cut before the numbers even when they touch (a table row set tight). A section number
    before a heading is not a cell."""
    pieces: list[list[tuple[Rect, Span]]] = [[]]
    right: float | None = None
    for box, span in spans:
        if not span.text.strip():
            if pieces[-1]:
                pieces[-1].append((box, span))
            continue
        if right is not None and pieces[-1]:
            gap = box[0] - right
            before = "".join(s.text for _, s in pieces[-1])
            numeric = not _has_letters(span.text) or not _has_letters(before)
            label = len(pieces) == 1 and _LABEL_RE.match(before)
            if not label and (gap > 2.5 * span.size or (gap > 1.0 * span.size and numeric)):
                pieces.append([])
        pieces[-1].append((box, span))
        right = box[2] if right is None else max(right, box[2])
    result: list[list[tuple[Rect, Span]]] = []
    for piece in pieces:
        cut = len(piece)
        while cut > 0 and _NUMERIC_RE.match(piece[cut - 1][1].text):
            cut -= 1
        tail = "".join(s.text for _, s in piece[cut:])
        head = "".join(s.text for _, s in piece[:cut])
        numbers = tail.split()
        if (
            0 < cut < len(piece)
            and len(numbers) >= 3
            and all(_NUMBER_RE.match(t) for t in numbers)
            and _has_letters(head)
        ):
            result.extend([piece[:cut], piece[cut:]])
        else:
            result.append(piece)
    return result


_NARROW = set(",.;:'|!il")


def _has_letters(text: str) -> bool:
    return any(c.isalpha() for c in text)


def _make_row(piece: list[tuple[Rect, Span]], frame: Frame, stats: _DocStats, cell: bool) -> _Row:
    weights: Counter[float] = Counter()
    for _, span in piece:
        weights[span.size] += max(1, len(span.text.strip()))
    size = weights.most_common(1)[0][0]
    bases = [frame.point(*s.origin)[1] for _, s in piece if s.origin and abs(s.size - size) < 0.3]
    baseline = statistics.median(bases) if bases else piece[0][0][3] - 0.22 * size
    chars: list[str] = []
    classes: list[str] = []
    boxes: list[Rect] = []
    rects: list[Rect] = []
    bold_letters = letters = mono_chars = total = 0
    colors: Counter[int] = Counter()
    right: float | None = None
    for box, span in piece:
        text = "".join(_LIGATURES.get(c, c) for c in span.text)
        if not text:
            continue
        # MuPDF lines of one row meet without a space: add one where the glyphs are apart.
        if right is not None and chars and not chars[-1].isspace() and not text[0].isspace():
            if box[0] - right > 0.15 * size:
                chars.append(" ")
                classes.append(NEUTRAL)
                boxes.append((right, baseline - 0.8 * size, box[0], baseline + 0.25 * size))
        right = box[2] if right is None else max(right, box[2])
        span_base = frame.point(*span.origin)[1] if span.origin else baseline
        script = span.size < 0.85 * size and abs(span_base - baseline) > 0.12 * size
        math_span = script or is_math_font(span.font, stats.cm_is_math)
        mono = bool(span.flags & 8) or bool(_MONO_FONT_RE.search(font_base(span.font)))
        bold = bool(span.flags & 16) or "Bold" in span.font
        # Glyph area around the span's own baseline (line boxes of some producers are far
        # taller than their glyphs); x estimated along the span, spaces and narrow
        # punctuation taking half a letter (a formula copied as a picture keeps its edges).
        shares = [0.5 if c.isspace() or c in _NARROW else 1.0 for c in text]
        step = (box[2] - box[0]) / sum(shares)
        top, bottom = span_base - 0.8 * span.size, span_base + 0.25 * span.size
        left = box[0]
        for char, share in zip(text, shares, strict=True):
            chars.append(char)
            classes.append(_char_class(char, math_span))
            boxes.append((left, top, left + share * step, bottom))
            left += share * step
            if not char.isspace():
                total += 1
                mono_chars += mono
                colors[span.color] += 1
            if char.isalpha():
                letters += 1
                bold_letters += bold
        if span.text.strip():
            # Redaction removes every glyph whose box it touches: stay inside the glyphs' band
            # around their own baseline so neighbouring lines survive.
            tight = (box[0] + 0.1, span_base - 0.6 * span.size, box[2] - 0.1, span_base - 0.1)
            if rects and abs(rects[-1][1] - tight[1]) < 0.5 and abs(rects[-1][3] - tight[3]) < 0.5:
                last = rects[-1]
                rects[-1] = (min(last[0], tight[0]), last[1], max(last[2], tight[2]), last[3])
            else:
                rects.append(tight)
    glyphs = [b for b, s in piece if s.text.strip()]
    return _Row(
        chars="".join(chars),
        classes="".join(classes),
        boxes=boxes,
        bbox=_union(glyphs),
        baseline=baseline,
        size=size,
        rects=[frame.to_page(r) for r in rects],
        bold=letters > 0 and bold_letters >= 0.95 * letters,
        mono=mono_chars / total if total else 0.0,
        color=colors.most_common(1)[0][0] if colors else 0,
        cell=cell,
    )


# --- per-page filters -----------------------------------------------------------------------

_PAGE_NUMBER_RE = re.compile(r"^(page\s*)?[-–—]?\s*(\d{1,4}|[ivxlcdm]{1,7})\s*[-–—]?$", re.I)


def _normalized(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\d+", "#", text.lower())).strip()


def _mark_headers_footers(
    rows_by_page: dict[int, list[_Row]],
    pages: Sequence[PageLayout],
    frames: dict[int, Frame],
    stats: _DocStats,
) -> None:
    """Mark running headers, footers and page numbers: rows in the outer 8% of the page no
    larger than body text; page numbers in the outer 15%; an isolated topmost row in the outer
    13%; and rows of the outer 15% repeated on several pages (digits ignored)."""
    band_rows: dict[int, list[tuple[_Row, str]]] = {}
    for page in pages:
        fy0, fy1 = frames[page.index].to_frame((0.0, 0.0, page.width, page.height))[1::2]
        height = fy1 - fy0
        rows = [r for r in rows_by_page.get(page.index, []) if not r.drop]
        marked: list[tuple[_Row, str]] = []
        for row in rows:
            top = row.bottom <= fy0 + 0.08 * height
            bottom = row.top >= fy1 - 0.08 * height
            if (top or bottom) and row.size <= stats.body_size + 1.0:
                row.drop = "header/footer"
            elif _PAGE_NUMBER_RE.match(row.text) and (
                row.bottom <= fy0 + 0.15 * height or row.top >= fy1 - 0.15 * height
            ):
                row.drop = "page number"
            if row.bottom <= fy0 + 0.15 * height:
                marked.append((row, "top"))
            elif row.top >= fy1 - 0.15 * height:
                marked.append((row, "bottom"))
        live = sorted((r for r in rows if not r.drop), key=lambda r: r.top)
        if len(live) > 1:
            first, second = live[0], live[1]
            if (
                first.bottom <= fy0 + 0.13 * height
                and first.size <= stats.body_size + 0.5
                and second.top - first.bottom >= 1.4 * first.size
                and len(first.text) <= 80
            ):
                first.drop = "header"
        _join_band_sentences(rows, stats.body_size)
        band_rows[page.index] = marked
    if len(pages) < 2:
        return
    seen: Counter[tuple[str, str]] = Counter()
    for marked in band_rows.values():
        for key in {(where, _normalized(row.text)) for row, where in marked}:
            seen[key] += 1
    needed = 2 if len(pages) <= 4 else max(3, len(pages) // 4)
    for marked in band_rows.values():
        for row, where in marked:
            if row.text and seen[(where, _normalized(row.text))] >= needed:
                row.drop = row.drop or "running header/footer"


def _joins_below(upper: _Row, lower: _Row) -> bool:
    """Whether ``lower`` is the next line of the sentence ``upper`` leaves unfinished."""
    return (
        abs(upper.size - lower.size) < 0.5
        and 0.5 * upper.size < lower.baseline - upper.baseline < 1.8 * upper.size
        and min(upper.x1, lower.x1) > max(upper.x0, lower.x0)
        and not _ends_sentence(upper.text)
    )


def _join_band_sentences(rows: list[_Row], body_size: float) -> None:
    """A sentence the edge of the header/footer band cuts in two is one unit (a licence
    note's first line above the band): small print above a dropped footer line, or below a
    dropped header line, is dropped too; a body-size line running into the bottom band is a
    paragraph's end and is translated with it."""
    ordered = sorted(rows, key=lambda r: r.baseline)
    for i in range(len(ordered) - 1, 0, -1):  # upwards from the bottom
        row = ordered[i]
        if row.drop != "header/footer":
            continue
        above = [r for r in ordered[:i] if not r.drop and _joins_below(r, row)]
        if above:
            upper = above[-1]
            if upper.size <= body_size - 0.5:
                upper.drop = "header/footer"
            elif upper.baseline > ordered[len(ordered) // 2].baseline:
                row.drop = ""
    for i, row in enumerate(ordered):  # downwards from the top
        if row.drop != "header/footer":
            continue
        below = [r for r in ordered[i + 1 :] if not r.drop and _joins_below(row, r)]
        if below and below[0].size <= body_size - 0.5:
            below[0].drop = "header/footer"


def _mark_figure_text(rows: list[_Row], page: PageLayout, frame: Frame) -> None:
    figures = [frame.to_frame(f) for f in page.figures]
    for row in rows:
        cx, cy = (row.x0 + row.x1) / 2, (row.top + row.bottom) / 2
        if not row.drop and any(f[0] <= cx <= f[2] and f[1] <= cy <= f[3] for f in figures):
            row.drop = "figure"


# --- reading order --------------------------------------------------------------------------


def _reading_order(rows: list[_Row]) -> list[_Row]:
    """Rows in reading order: single-column pages top to bottom; two-column pages band by band
    (a band ends at a row spanning both columns), left column before right column.

    Rows, not MuPDF blocks, are ordered: blocks of some producers (Word) interleave vertically.
    """
    live = [r for r in rows if not r.drop]
    if not live:
        return []
    x0 = min(r.x0 for r in live)
    x1 = max(r.x1 for r in live)
    mid = (x0 + x1) / 2
    half = (x1 - x0) / 2
    chars = [0, 0, 0]
    for row in live:
        left = min(row.x1, mid) - row.x0
        right = row.x1 - max(row.x0, mid)
        if left > 0.2 * half and right > 0.2 * half:
            row.col = 2
        else:
            row.col = 0 if (row.x0 + row.x1) / 2 < mid else 1
        chars[row.col] += len(row.text)
    total = sum(chars) or 1
    if chars[0] < 0.15 * total or chars[1] < 0.15 * total:
        for row in live:
            row.col, row.col_range = 0, (x0, x1)
        return _top_down(live)
    ranges = {2: (x0, x1)}
    for col in (0, 1):
        rows_in = [r for r in live if r.col == col]
        ranges[col] = (min(r.x0 for r in rows_in), max(r.x1 for r in rows_in))
    ordered: list[_Row] = []
    band: list[_Row] = []
    for row in _top_down(live):
        row.col_range = ranges[row.col]
        if row.col == 2:
            ordered.extend(_top_down([r for r in band if r.col == 0]))
            ordered.extend(_top_down([r for r in band if r.col == 1]))
            band.clear()
            ordered.append(row)
        else:
            band.append(row)
    ordered.extend(_top_down([r for r in band if r.col == 0]))
    ordered.extend(_top_down([r for r in band if r.col == 1]))
    return ordered


def _top_down(rows: list[_Row]) -> list[_Row]:
    """Rows sorted top to bottom; rows on one baseline left to right, and joined when they
    are pieces of one line that MuPDF put in different blocks."""
    ordered: list[_Row] = []
    line: list[_Row] = []
    for row in sorted(rows, key=lambda r: r.baseline):
        if line and abs(row.baseline - line[0].baseline) > 0.4 * line[0].size:
            ordered.extend(_join_pieces(sorted(line, key=lambda r: r.x0)))
            line = []
        line.append(row)
    ordered.extend(_join_pieces(sorted(line, key=lambda r: r.x0)))
    return ordered


def _join_pieces(line: list[_Row]) -> list[_Row]:
    joined: list[_Row] = []
    for row in line:
        prev = joined[-1] if joined else None
        if (
            prev is not None
            and not prev.cell
            and not row.cell
            and prev.col == row.col
            and row.x0 >= prev.x1 - 1.0 * prev.size
            and row.x0 - prev.x1 < 1.0 * max(prev.size, row.size)
        ):
            gap = row.x0 - prev.x1 > 0.15 * prev.size and not prev.chars[-1:].isspace()
            joined[-1] = _Row(
                chars=prev.chars + (" " if gap else "") + row.chars,
                classes=prev.classes + (NEUTRAL if gap else "") + row.classes,
                boxes=prev.boxes + ([prev.boxes[-1]] if gap else []) + row.boxes,
                bbox=_union([prev.bbox, row.bbox]),
                baseline=prev.baseline,
                size=prev.size if len(prev.text) >= len(row.text) else row.size,
                rects=prev.rects + row.rects,
                bold=prev.bold and row.bold,
                mono=(prev.mono * len(prev.text) + row.mono * len(row.text))
                / max(1, len(prev.text) + len(row.text)),
                color=prev.color,
                col=prev.col,
                col_range=prev.col_range,
            )
        else:
            joined.append(row)
    return joined


# --- paragraphs -----------------------------------------------------------------------------

_ENUM_RE = re.compile(r"^\s*(?:[•◦▪‣●○■□–—*]|\(?\d{1,2}[.)]|\(?[a-z][.)]|\[\d{1,3}\])\s")
_TERMINAL = tuple(".!?:;。．！？")
_REFS_RE = re.compile(
    r"^(?:[\dIVX]+\.?\s+)?(references?|bibliography|works\s+cited|literature\s+cited|"
    r"reference\s+list|참고\s*문헌|参考文献|參考文獻)\s*:?$",
    re.IGNORECASE,
)
_APPENDIX_RE = re.compile(
    r"^(?:[A-Z](?:\.\d+)*\.?\s+)?(appendix|appendices|supplementary|supplemental)\b", re.I
)
# A line ending inside a URL ("https://github." / "example.org/a-"): the next line continues it.
_URL_TAIL_RE = re.compile(r"(?:https?://|www\.)\S*[./_-]$")
_WORD_RE = re.compile(r"[^\W\d_]{2,}|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _ends_sentence(text: str) -> bool:
    if _URL_TAIL_RE.search(text):
        return False
    return text.rstrip(" \"'”’)]").endswith(_TERMINAL)


def _continues(prev: _Row, cur: _Row, para: list[_Row], leading: float) -> bool:
    """Whether ``cur`` continues the paragraph whose last row is ``prev`` (``leading``: the
    document's usual baseline distance in font sizes)."""
    if prev.cell or cur.cell or prev.col != cur.col or prev.mathy or cur.mathy:
        return False
    if _display_row(prev) or (
        _display_row(cur) and (_ends_sentence(prev.text) or cur.x0 > prev.x0 + 0.8 * prev.size)
    ):
        return False
    if _REFS_RE.match(prev.text) or _REFS_RE.match(cur.text):
        return False
    left = min(r.x0 for r in para)
    right = max(r.x1 for r in para)
    overlap = min(right, cur.x1) - max(left, cur.x0)
    if overlap < 0.5 * min(right - left, cur.x1 - cur.x0):
        return False
    size = prev.size
    if cur.baseline < prev.baseline + 0.5 * size:  # not below: another column, or back up
        return False
    if cur.baseline - prev.baseline > (max(leading, 1.0) + 0.5) * size:
        return False
    if abs(cur.size - prev.size) > 0.8 or prev.bold != cur.bold:
        return False
    if _ENUM_RE.match(cur.chars):
        return False
    jump = abs(cur.x0 - prev.x0) > 3.0 * size
    centered = abs((cur.x0 + cur.x1) - (prev.x0 + prev.x1)) < 6.0
    if jump and not centered:  # a different block that happens to sit below (authors, cells)
        return False
    ended = _ends_sentence(prev.text)
    col_left, col_right = prev.col_range
    col_right = max(right, col_right)
    # The last line of a paragraph ends well before the column's edge (ragged-right text
    # can end a line a few letters early, so "well" is a quarter of the column).
    short = prev.x1 < col_right - max(2.0 * size, 0.25 * (col_right - col_left))
    indented = cur.x0 > prev.x0 + 0.8 * size
    outdented = cur.x0 < prev.x0 - 0.8 * size
    hanging = indented and len(para) == 1 and not short  # a reference entry's second line
    return not (ended and (short or outdented or (indented and not hanging)))


def _display_row(row: _Row) -> bool:
    """A line of a display equation with a short text label ("token ids (W) = {...}"): at
    most three words, more math than letters, math to its end, and not a full column line (an
    inline formula's line runs from edge to edge)."""
    math = row.classes.count(MATH) + row.classes.count(GLYPH)
    if math < 6:
        return False
    pairs = list(zip(row.chars, row.classes, strict=True))
    words = _WORD_RE.findall("".join(c if k == TEXT else " " for c, k in pairs))
    if len(words) > 3 or sum(len(w) for w in words) >= math:
        return False
    last = next((k for c, k in reversed(pairs) if k != NEUTRAL), TEXT)
    col0, col1 = row.col_range
    full = row.x0 <= col0 + 1.5 * row.size and row.x1 >= col1 - 1.5 * row.size
    return last in _MATHS and not full


@dataclass(slots=True)
class _Draft:
    rows: list[_Row]
    page: int
    frame: Frame
    kind: ParagraphKind = ParagraphKind.BODY
    text: str = ""
    placeholders: dict[str, str] = field(default_factory=dict)
    formula_boxes: dict[str, tuple[Rect, ...]] = field(default_factory=dict)
    formula_descents: dict[str, tuple[float, ...]] = field(default_factory=dict)
    glyph_formulas: set[str] = field(default_factory=set)
    skip: str = ""


def _is_cjk(char: str) -> bool:
    code = ord(char)
    return 0x3000 <= code <= 0x30FF or 0x3400 <= code <= 0x9FFF or 0xF900 <= code <= 0xFFEF


def _joins_hyphenated(chars: list[str], text: str) -> bool:
    """A word broken at a line end ("ap-" + "proach", "How-" + "ever"); a compound made
    with an acronym or a number ("BERT-" + "based", "GPT2-" + "style") keeps its hyphen."""
    if len(chars) < 2 or not chars[-2].isalnum() or not text[:1].islower():
        return False
    start = len(chars) - 1
    while start > 0 and chars[start - 1].isalnum():
        start -= 1
    fragment = chars[start:-1]
    return sum(c.isupper() or c.isdigit() for c in fragment) < 2


def _join_rows(rows: list[_Row]) -> tuple[str, str, list[Rect], list[float]]:
    """The paragraph's characters, classes, character boxes and the baseline of each
    character's row, line breaks undone."""
    chars: list[str] = []
    classes: list[str] = []
    boxes: list[Rect] = []
    bases: list[float] = []
    for row in rows:
        start = len(row.chars) - len(row.chars.lstrip())
        end = len(row.chars.rstrip())
        text = row.chars[start:end]
        if chars:
            last = chars[-1]
            if last in "-\u00ad\u2010" and _joins_hyphenated(chars, text) or last == "\u00ad":
                del chars[-1], classes[-1], boxes[-1], bases[-1]
            elif _URL_TAIL_RE.search("".join(chars[-200:])):
                pass
            elif not (_is_cjk(last) and _is_cjk(text[0])) and last not in "-\u2010":
                chars.append(" ")
                classes.append(NEUTRAL)
                boxes.append(boxes[-1])
                bases.append(bases[-1])
        chars.extend(text)
        classes.extend(row.classes[start:end])
        boxes.extend(row.boxes[start:end])
        bases.extend([row.baseline] * (end - start))
    return "".join(chars), "".join(classes), boxes, bases


def _absorb_variables(chars: str, classes: str) -> str:
    """Letters in a text font glued to math set in a math font are part of the formula: a
    bold vector name before its subscript ("x" + "k"), a name between math glyphs ("; lm ^").
    Only runs of one or two letters: a word with a footnote mark stays a word."""
    marks = list(classes)
    i, n = 0, len(chars)
    while i < n:
        if not (marks[i] == TEXT and chars[i].isalpha()):
            i += 1
            continue
        j = i
        while j < n and marks[j] == TEXT and chars[j].isalpha():
            j += 1
        glued = (j < n and marks[j] == GLYPH) or (i > 0 and marks[i - 1] == GLYPH)
        after = next((k for k in range(j, n) if not chars[k].isspace()), n)
        before = next((k for k in range(i - 1, -1, -1) if not chars[k].isspace()), -1)
        between = after < n and before >= 0 and marks[after] == marks[before] == GLYPH
        if j - i <= 2 and (glued or between):
            marks[i:j] = [GLYPH] * (j - i)
        i = j
    return "".join(marks)


def _words(text: str) -> list[str]:
    return _WORD_RE.findall(PLACEHOLDER_RE.sub(" ", text))


def _classify(draft: _Draft, stats: _DocStats) -> None:
    chars, classes, boxes, bases = _join_rows(draft.rows)
    classes = _absorb_variables(chars, classes)
    text, originals, ranges = protect(chars, classes)
    draft.text, draft.placeholders = re.sub(r"\s+", " ", text).strip(), originals
    for key, (start, end) in zip(originals, ranges, strict=True):
        rects, descents = _formula_rects(boxes[start:end], bases[start:end], draft.frame)
        draft.formula_boxes[key], draft.formula_descents[key] = rects, descents
        if GLYPH in classes[start:end]:
            draft.glyph_formulas.add(key)
    words = _words(draft.text)
    letters = sum(len(w) for w in words)
    math_chars = classes.count(MATH) + classes.count(GLYPH)
    rows = draft.rows
    mono = sum(r.mono * len(r.text) for r in rows) / max(1, sum(len(r.text) for r in rows))
    if not words:
        draft.skip = "no words"
    elif mono >= 0.6:
        draft.skip = "code"
    elif math_chars and len(words) <= 3 and letters <= 2 * math_chars + 2:
        draft.skip = "equation"
    elif rows[0].cell:
        draft.kind = ParagraphKind.CELL
    elif (
        len(rows) <= 2
        and len(words) <= 15
        and (rows[0].bold or rows[0].size >= stats.body_size + 0.8)
        and not _ends_sentence(draft.text)
    ):
        draft.kind = ParagraphKind.HEADING


def _formula_rects(
    boxes: list[Rect], bases: list[float], frame: Frame
) -> tuple[tuple[Rect, ...], tuple[float, ...]]:
    """Page rects of a formula's characters, one per line it runs over, and how far the
    bottom of each lies below its line's baseline."""
    lines: list[list[Rect]] = []
    line_bases: list[float] = []
    for box, base in zip(boxes, bases, strict=True):
        if lines and box[0] >= lines[-1][-1][0] - 1.0:
            lines[-1].append(box)
        else:
            lines.append([box])
            line_bases.append(base)
    unions = [_union(line) for line in lines]
    rects = tuple(frame.to_page(u) for u in unions)
    return rects, tuple(u[3] - base for u, base in zip(unions, line_bases, strict=True))


def _align(rows: list[_Row]) -> Align:
    col0, col1 = rows[0].col_range
    if len(rows) <= 3:
        center = (col0 + col1) / 2
        if all(abs((r.x0 + r.x1) / 2 - center) < 3.0 for r in rows) and max(
            r.x1 - r.x0 for r in rows
        ) < 0.85 * (col1 - col0):
            return Align.CENTER
    if len(rows) >= 2:
        right = max(r.x1 for r in rows)
        if all(right - r.x1 < 1.5 * r.size for r in rows[:-1]):
            return Align.JUSTIFY
    return Align.LEFT


def _line_pitch(rows: list[_Row]) -> float:
    gaps = [b.baseline - a.baseline for a, b in zip(rows, rows[1:], strict=False)]
    gaps = [g for g in gaps if g > 0]
    if not gaps:
        return 1.2
    return max(1.0, min(2.0, statistics.median(gaps) / rows[0].size))


def segment(
    pages: Sequence[PageLayout],
    wanted: Collection[int] | None = None,
    include_references: bool = False,
) -> list[Paragraph]:
    """Turn page layouts into the paragraphs to translate, in reading order.

    ``pages`` must be in document order and should include every page up to the last wanted one
    (the references section is found by reading from the start); only paragraphs of pages in
    ``wanted`` (0-based indices, None = all) are returned. Paragraph ids are ``p<page>-b<n>``.
    """
    stats = _doc_stats(pages)
    frames = {p.index: Frame(stats.directions[p.index]) for p in pages}
    rows_by_page: dict[int, list[_Row]] = {}
    for page in pages:
        frame = frames[page.index]
        rows = [row for block in page.blocks for row in _rows_of_block(block, frame, stats)]
        _mark_figure_text(rows, page, frame)
        rows_by_page[page.index] = rows
    _mark_headers_footers(rows_by_page, pages, frames, stats)

    result: list[Paragraph] = []
    in_references = False
    refs_size = 0.0
    for page in pages:
        drafts: list[_Draft] = []
        for row in _reading_order(rows_by_page[page.index]):
            if drafts and _continues(drafts[-1].rows[-1], row, drafts[-1].rows, stats.leading):
                drafts[-1].rows.append(row)
            else:
                drafts.append(_Draft(rows=[row], page=page.index, frame=frames[page.index]))
        number = 0
        for draft in drafts:
            _classify(draft, stats)
            heading_like = draft.kind == ParagraphKind.HEADING or (
                len(draft.rows) <= 2 and len(_words(draft.text)) <= 12
            )
            if _REFS_RE.match(draft.text) and heading_like:
                in_references, refs_size = True, draft.rows[0].size
            elif (
                in_references
                and not draft.skip
                and (
                    (draft.kind == ParagraphKind.HEADING and draft.rows[0].size >= refs_size - 0.5)
                    or (_APPENDIX_RE.match(draft.text) and heading_like)
                )
            ):
                in_references = False
            if draft.skip or (in_references and not include_references):
                continue
            if in_references:
                draft.kind = ParagraphKind.REFERENCE
            if wanted is None or page.index in wanted:
                number += 1
                result.append(_to_paragraph(draft, number))
    return result


def _to_paragraph(draft: _Draft, number: int) -> Paragraph:
    rows = draft.rows
    sizes = Counter(r.size for r in rows for _ in range(max(1, len(r.text))))
    colors = Counter(r.color for r in rows for _ in range(max(1, len(r.text))))
    size = sizes.most_common(1)[0][0]
    # The area of the text proper: from the first line's ascenders to the last one's
    # descenders (line boxes of some producers are far taller than the glyphs).
    box = (
        min(r.x0 for r in rows),
        rows[0].baseline - 0.8 * rows[0].size,
        max(r.x1 for r in rows),
        rows[-1].baseline + 0.25 * rows[-1].size,
    )
    return Paragraph(
        id=f"p{draft.page}-b{number}",
        page=draft.page,
        text=draft.text,
        placeholders=draft.placeholders,
        bbox=draft.frame.to_page(box),
        rects=tuple(rect for r in rows for rect in r.rects),
        font_size=size,
        color=colors.most_common(1)[0][0],
        bold=all(r.bold for r in rows),
        direction=draft.frame.u,
        align=_align(rows),
        kind=draft.kind,
        line_pitch=_line_pitch(rows),
        line_count=len(rows),
        formula_boxes=draft.formula_boxes,
        glyph_formulas=frozenset(draft.glyph_formulas),
        formula_descents=draft.formula_descents,
    )


# --- page geometry for /crop and /crop-compare ----------------------------------------------


def column_split(page: PageLayout) -> float | None:
    """The x where a two-column page divides into its columns, or None for other pages.

    A page has two columns when at least 15% of its horizontal text sits wholly left of the
    text area's middle and 15% wholly right of it; the split is halfway across the gutter.
    """
    boxes: list[tuple[Rect, int]] = []
    for block in page.blocks:
        lines = [ln for ln in block.lines if _axis(ln.direction) == (1.0, 0.0)]
        count = sum(len(s.text.strip()) for ln in lines for s in ln.spans)
        if count:
            boxes.append((_union(ln.bbox for ln in lines), count))
    if not boxes:
        return None
    x0 = min(b[0] for b, _ in boxes)
    x1 = max(b[2] for b, _ in boxes)
    mid = (x0 + x1) / 2
    left = [(b, n) for b, n in boxes if b[2] < mid + 4]
    right = [(b, n) for b, n in boxes if b[0] > mid - 4]
    total = sum(n for _, n in boxes)
    if sum(n for _, n in left) < 0.15 * total or sum(n for _, n in right) < 0.15 * total:
        return None
    left_edge = max(b[2] for b, _ in left)
    right_edge = min(b[0] for b, _ in right)
    if right_edge <= left_edge:
        return mid
    return (left_edge + right_edge) / 2
