"""Rows: a visual line of a page as a :class:`Row`, its characters classified (text, math,
code, formula glyphs), its baseline and size; made by :func:`make_row` from the spans of a
visual row (``translation.read.rows.visual``)."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass, field

from translation.read.layout import Frame, Rect, Span, union
from translation.read.math.formulas import (
    CODE,
    GLYPH,
    LIGATURES,
    MATH,
    NEUTRAL,
    TEXT,
    char_class,
    font_base,
    is_literal_symbol,
    is_math_font,
)
from translation.read.measures import (
    ASCENT,
    DESCENT,
    GLYPH_HEIGHT,
    INK_FOOT,
    INK_TOP,
    SAME_SIZE,
    SCRIPT,
    SCRIPT_SHIFT,
    WORD_SPACE,
)
from translation.read.regions.doc_stats import DocStats
from translation.read.rows.baselines import hanging_base, hangs
from translation.read.style.paragraph_style import span_style, tex_bold
from translation.read.words.word import WORD_RE, has_wide


@dataclass(slots=True)
class Row:
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
    #: How many characters of ``text`` from its start are bold (a run-in heading, a label).
    bold_lead: int = 0
    #: Style of each character (``translation.read.style.paragraph_style.style_code``: colour,
    #: bold, italic).
    styles: list[int] = field(default_factory=list)
    room: Rect | None = None  # a cell's box grown to its column's free width (frame)
    stack: tuple[float, float] | None = None  # the lines of one multi-line cell share this
    flush_right: bool | None = None  # a cell of a column set flush right/left (cell_align)
    centred: bool = False  # a cell centred over the columns of numbers it spans (cell_align)
    #: The page region the row was read in ("": the body; "margin": margin material, read
    #: on its own and never joined to a body row, see ``rows.region_rows``).
    region: str = ""
    #: The listing that numbers its lines the row is read in (from 1; 0: none), and whether
    #: the row is the start of one of its numbered lines (``rows.listing_rows``).
    listing: int = 0
    numbered: bool = False

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
        return self.baseline - INK_TOP * self.size

    @property
    def bottom(self) -> float:
        return self.baseline + INK_FOOT * self.size

    @property
    def mathy(self) -> bool:
        """A display-formula line: math characters and at most one short word, besides the
        names a formula holds ("LSTM", "softmax")."""
        math = self.classes.count(MATH) + self.classes.count(GLYPH)
        if math < 2:
            return False
        # Math that is all sub- and superscripts is a name's index ("BERT" + "LARGE", 04 p5:
        # a paragraph's last line "BERTLARGE."), never a formula of its own.
        script = SCRIPT * GLYPH_HEIGHT * self.size
        if all(
            b[3] - b[1] < script
            for b, k in zip(self.boxes, self.classes, strict=True)
            if k in (MATH, GLYPH)
        ):
            return False
        pairs = zip(self.chars, self.classes, strict=True)
        words = WORD_RE.findall("".join(c if k == TEXT else " " for c, k in pairs))
        prose = [w for w in words if not (w.isupper() or w in _FUNCTIONS)]
        return len(prose) <= 1 and sum(len(w) for w in words) < math


#: Names of functions set in a formula's text font.
_FUNCTIONS = frozenset("exp log ln max min argmax argmin softmax sigmoid tanh sin cos".split())


_NARROW = set(",.;:'|!il")


def _shares(span: Span, text: str) -> list[float]:
    """How much of the span's width each character of ``text`` (the span's text, ligatures
    spelt out) takes: its glyph's advance, a ligature's shared by its letters; where the
    advances are not known, estimated, spaces and narrow punctuation taking half a letter."""
    if len(span.advances) == len(span.text):
        shares: list[float] = []
        for char, advance in zip(span.text, span.advances, strict=True):
            letters = len(LIGATURES.get(char, char))
            shares.extend([advance / letters] * letters)
        if len(shares) == len(text) and sum(shares) > 0:
            return shares
    return [0.5 if c.isspace() or c in _NARROW else 1.0 for c in text]


# TeX's math symbol fonts (cmsy10, MT2SYT, txsys, ...), whose 0x0F glyph is a bullet.
#: The "ff" ligature some TeX fonts map to U+21B5 in their ToUnicode ("o\u21b5-the-shelf"):
#: between letters it is no arrow (12 p2: sent as a formula, drawn as an arrow).
_FF_RE = re.compile(r"(?<=[A-Za-z])\u21b5|\u21b5(?=[a-z])")
_TEX_SYMBOLS_RE = re.compile(r"cmsy|sy[a-z]?\d*$|^mt2sy|txsy|pxsy", re.IGNORECASE)


#: Points a bullet stands apart from the words after it when no space separates them.
_BULLET_GAP = 0.2


def _bullet(span: Span, piece: list[tuple[Rect, Span]], before: list[str]) -> bool:
    """``span`` is a glyph without Unicode of a TeX symbol font (its bullet, 0x0F, reads as
    U+FFFD) opening a row, with words after it: a list's bullet."""
    if "".join(before).strip() or not _TEX_SYMBOLS_RE.search(font_base(span.font)):
        return False
    at = next(i for i, (_, s) in enumerate(piece) if s is span)
    if at + 1 >= len(piece):
        return False
    after = "".join(s.text for _, s in piece[at + 1 :])
    apart = after[:1].isspace() or piece[at + 1][0][0] - piece[at][0][2] > _BULLET_GAP * span.size
    return apart and bool(WORD_RE.match(after.lstrip()))


#: Smaller capitals are set at this share of their capital's size, from the least to the most.
_SMALL_CAPS_LEAST, _SMALL_CAPS_MOST = 0.6, 0.85


def _small_caps(capital: Span, span: Span) -> bool:
    """``span`` is set in smaller capitals after the text of ``capital``: the rest of the
    word it ends ("T" + "ABLE"), or words of their own ("for" + "COARSE", 03 p6)."""
    text = span.text.strip()
    return (
        _SMALL_CAPS_LEAST * capital.size <= span.size <= _SMALL_CAPS_MOST * capital.size
        and any(c.isalpha() for c in capital.text)
        and text[:1].isupper()
        and text.replace(" ", "").isalpha()
        and text.upper() == text
    )


def _mono_span(span: Span, stats: DocStats) -> bool:
    """Whether ``span`` is set in a face measured monospaced (a CJK face's ideographs aside)."""
    base = font_base(span.font)
    if base in stats.cjk_fonts:
        return base in stats.pitches.mono and not has_wide(span.text)
    return stats.pitches.is_mono(base, bool(span.flags & 8))


def _carrier_size(
    piece: list[tuple[Rect, Span]], weights: Counter[float], frame: Frame, cm_is_math: bool
) -> float:
    """The main size of a row whose characters are weighed by size (``weights``): the most
    common one, unless those characters are a few scripts in a text face raised or lowered
    off the baseline of bigger glyphs they belong to ("V" + "th", a display equation's
    first piece in a block of its own): then the bigger glyphs' size, so the scripts stay
    scripts (read at their own size they made a word, "Vth", sent as text and erased from
    the equation). Scripts all in a math font are math at any size: the row stays as it was
    read (Word's equation pieces, which other rows join by their size)."""
    size = weights.most_common(1)[0][0]
    if weights[size] > _FEW_SCRIPTS:
        return size
    scripts = [s for _, s in piece if abs(s.size - size) < SAME_SIZE and s.text.strip()]
    if all(s.mark or is_math_font(s.font, cm_is_math) for s in scripts):
        return size
    standing = [
        (s.size, frame.point(*s.origin)[1])
        for _, s in piece
        if s.origin and s.text.strip() and s.size * SCRIPT > size and not hangs(s, frame)
    ]
    if not standing:
        return size
    carrier = max(standing, key=lambda item: weights[item[0]])[0]
    base = statistics.median(y for s, y in standing if abs(s - carrier) < SAME_SIZE)
    if all(
        s.origin and abs(frame.point(*s.origin)[1] - base) > SCRIPT_SHIFT * carrier for s in scripts
    ):
        return carrier
    return size


_FEW_SCRIPTS = 8  # characters: more are words of a smaller size, not scripts of a glyph


#: A row's redaction bands: from this share of its size above each span's baseline ...
_BAND_TOP = 0.6
#: ... to this many points above it, inset as much at either end (thin bands miss the lines
#: above and below).
_BAND_INSET = 0.1
#: Points within which the bands of two spans in a row lie level and make one band.
_BAND_JOIN = 0.5
#: Where the glyph filter probes a glyph hanging from its origin: from this share of its size
#: below the origin to this share (translation.render.glyphs: half an em, or its box's middle).
_HANG_PROBE_FROM, _HANG_PROBE_TO = 0.4, 0.7
#: A row is bold when this share of its letters is.
BOLD_SHARE = 0.95


def make_row(
    piece: list[tuple[Rect, Span]],
    frame: Frame,
    stats: DocStats,
    cell: bool,
    size: float | None = None,
) -> Row:
    """A row of the spans of ``piece``; ``size``: its main font size, if not that of most of
    its characters. The row's redaction ``rects`` are thin bands around each span's baseline,
    from 0.6 to 0.1 of its font size above it: a glyph is removed when its probe point, just
    above its baseline, lies in one (thin bands miss the lines above and below)."""
    if not size:
        weights: Counter[float] = Counter()
        before: Span | None = None
        # In a line of CJK text, code set in a smaller typewriter face is the sentence's
        # commands ("用 \\listoffigures 和 \\listoftables 生成..."): the text's size is the
        # line's, however many characters the commands have.
        voters = [(b, s) for b, s in piece if not _mono_span(s, stats)]
        if any(has_wide(s.text) for _, s in voters):
            piece_votes = voters
        else:
            piece_votes = piece
        for _, span in piece_votes:
            # Small capitals ("T" + "ABLEFORMER" set smaller) count at their capital's size.
            weight_size = span.size
            if before is not None and _small_caps(before, span):
                weight_size = before.size
            weights[weight_size] += max(1, len(span.text.strip()))
            if span.text.strip() and weight_size == span.size:
                before = span  # the spaces between words are no capital's size
        size = _carrier_size(piece, weights, frame, stats.cm_is_math)
    # A big delimiter hanging from its origin tells nothing of the baseline; alone, its
    # origin does (see _hanging_base).
    standing = [
        (s, s.origin)
        for _, s in piece
        if s.origin and abs(s.size - size) < SAME_SIZE and not hangs(s, frame)
    ]
    bases = [frame.point(*o)[1] for s, o in standing if not s.text[:1].isspace()] or [
        frame.point(*o)[1] for _, o in standing
    ]
    if bases:
        baseline = statistics.median(bases)
    elif all(hangs(s, frame) for _, s in piece):
        baseline = hanging_base([s for _, s in piece], frame)
    else:
        baseline = piece[0][0][3] - INK_FOOT * size
    chars: list[str] = []
    classes: list[str] = []
    boxes: list[Rect] = []
    rects: list[Rect] = []
    styles: list[int] = []
    bold_letters = letters = mono_chars = total = 0
    bold_lead, lead_open, lead_letters = 0, True, 0  # the text's bold start, its letters
    colors: Counter[int] = Counter()
    right: float | None = None
    math_marks: list[int] = []  # where a math face's bullet or mark stands in ``chars``
    for box, span in piece:
        text = _FF_RE.sub("ff", "".join(LIGATURES.get(c, c) for c in span.text))
        if text.strip() in ("\x0f", "\ufffd") and _bullet(span, piece, chars):
            text = text.replace("\x0f", "•").replace("\ufffd", "•")
        if not text:
            continue
        # MuPDF lines of one row meet without a space: add one where the glyphs are apart.
        if right is not None and chars and not chars[-1].isspace() and not text[0].isspace():
            if box[0] - right > WORD_SPACE * size:
                chars.append(" ")
                classes.append(NEUTRAL)
                boxes.append((right, baseline - ASCENT * size, box[0], baseline + DESCENT * size))
                styles.append(styles[-1] if styles else 0)
        right = box[2] if right is None else max(right, box[2])
        span_base = frame.point(*span.origin)[1] if span.origin else baseline
        if hangs(span, frame):
            span_base = baseline  # a big delimiter: its origin is at its top
        if text[0].isspace() and abs(span.size - size) < SAME_SIZE:
            # MuPDF puts a span's leading space on the glyph before it: after a raised
            # footnote marker its origin is the marker's, not this text's baseline.
            span_base = baseline
        script = span.size < SCRIPT * size and abs(span_base - baseline) > SCRIPT_SHIFT * size
        math_span = script or span.mark or is_math_font(span.font, stats.cm_is_math)
        # A raised or lowered math glyph the font maps to a space (MathTime's arrow over a
        # bold vector name) is a glyph of the formula, not a word gap.
        blank_glyph = script and not span.text.strip()
        # Monospaced as measured from the face's glyphs, whatever its name (its own flag
        # where it shows too few to tell). A CJK face sets its ideographs on one em and
        # flags itself fixed-pitch: no sign of code; its Latin measured monospaced (a coding
        # face's) is, in a run without CJK characters.
        mono = _mono_span(span, stats)
        # Bold by its flag or its face's name, TeX's too ("CMBX12", "CMB10", "ptmb8t").
        bold = bool(span.flags & 16) or "Bold" in span.font or tex_bold(span.font)
        # Glyph area around the span's own baseline (line boxes of some producers are far
        # taller than their glyphs); x along the span by the glyphs' advances (a formula
        # copied as it looks keeps its edges).
        shares = _shares(span, text)
        step = (box[2] - box[0]) / sum(shares)
        top, bottom = span_base - ASCENT * span.size, span_base + DESCENT * span.size
        left = box[0]
        style = span_style(span.font, span.flags, span.color)
        for char, share in zip(text, shares, strict=True):
            chars.append(char)
            kind = GLYPH if blank_glyph else char_class(char, math_span)
            if math_span and is_literal_symbol(char):
                math_marks.append(len(chars) - 1)
            classes.append(CODE if mono and kind != GLYPH and not char.isspace() else kind)
            styles.append(style)
            boxes.append((left, top, left + share * step, bottom))
            left += share * step
            if not char.isspace():
                total += 1
                mono_chars += mono
                colors[span.color] += 1
            if char.isalpha():
                lead_open = lead_open and bold
                lead_letters += lead_open
                letters += 1
                bold_letters += bold
            if lead_open and (total or not char.isspace()):
                bold_lead += 1
        if span.text.strip() or blank_glyph:
            # A glyph is redacted when its probe point, just above its own baseline, lies in
            # one of these bands (translation.render.glyphs): thin bands miss the lines around.
            tight = (
                box[0] + _BAND_INSET,
                span_base - _BAND_TOP * span.size,
                box[2] - _BAND_INSET,
                span_base - _BAND_INSET,
            )
            if (
                rects
                and abs(rects[-1][1] - tight[1]) < _BAND_JOIN
                and abs(rects[-1][3] - tight[3]) < _BAND_JOIN
            ):
                last = rects[-1]
                rects[-1] = (min(last[0], tight[0]), last[1], max(last[2], tight[2]), last[3])
            else:
                rects.append(tight)
            if hangs(span, frame) and span.origin is not None:
                # A glyph hanging from its origin is probed below it (half an em: the least
                # such glyph's middle); a tall one's origin stands so high over the baseline
                # (a radical over a fraction) that its probe misses the band above: a band
                # of its own holds it, so it is erased and copied with its line.
                top = frame.point(*span.origin)[1]
                probe = (top + _HANG_PROBE_FROM * span.size, top + _HANG_PROBE_TO * span.size)
                if probe[0] < tight[1] or probe[1] > tight[3]:
                    rects.append((tight[0], probe[0], tight[2], probe[1]))
    # A bullet or mark of a math face set tight between two glyphs is an operator of a
    # formula (TeX's \circ reads "◦": "A◦N"), not the plain mark it is at a line's start.
    for i in math_marks:
        if 0 < i < len(chars) - 1 and not chars[i - 1].isspace() and not chars[i + 1].isspace():
            classes[i] = GLYPH
    glyphs = [b for b, s in piece if s.text.strip()]
    return Row(
        chars="".join(chars),
        classes="".join(classes),
        boxes=boxes,
        bbox=union(glyphs),
        baseline=baseline,
        size=size,
        rects=[frame.to_page(r) for r in rects],
        bold=letters > 0 and bold_letters >= BOLD_SHARE * letters,
        mono=mono_chars / total if total else 0.0,
        color=colors.most_common(1)[0][0] if colors else 0,
        cell=cell,
        bold_lead=bold_lead if lead_letters else 0,
        styles=styles,
    )


#: Classes of a row holding math only (formula glyphs, math characters, digits, spaces).
MATH_ONLY_RE = re.compile(f"^[{NEUTRAL}]*[{GLYPH}{MATH}][{GLYPH}{MATH}{NEUTRAL}]*$")
