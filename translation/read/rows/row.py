"""Rows: the visual lines of a page with classified characters (text, math, code, formula
glyphs), a table row cut into its cells, scripts and pieces of one line joined."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from translation.read.layout import Block, Frame, Line, Rect, Span, axis, union
from translation.read.math.formulas import (
    CODE,
    GLYPH,
    LIGATURES,
    MATH,
    MONO_FONT_RE,
    NEUTRAL,
    TEXT,
    char_class,
    font_base,
    is_math_font,
)
from translation.read.regions.doc_stats import DocStats
from translation.read.style.paragraph_style import span_style
from translation.read.tables.cell_align import centred_over
from translation.read.tables.cell_stacks import StackLine, stacks
from translation.read.tables.cells import cell_gaps, split_cells
from translation.read.tables.table_rows import RowSpans, Table, line_gaps, words
from translation.read.words.word import WORD_RE

# --- rows: visual lines with classified characters ------------------------------------------


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
        """A display-formula line: math characters and at most one short word, besides the
        names a formula holds ("LSTM", "softmax")."""
        math = self.classes.count(MATH) + self.classes.count(GLYPH)
        if math < 2:
            return False
        # Math that is all sub- and superscripts is a name's index ("BERT" + "LARGE", 04 p5:
        # a paragraph's last line "BERTLARGE."), never a formula of its own.
        script = 0.85 * 1.05 * self.size  # a character's box is 1.05 times its span's size
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


def _hangs(span: Span, frame: Frame) -> bool:
    """Whether a span's glyphs hang from its origin: a big delimiter of TeX's math extension
    font (a floor bracket around a fraction) has its origin at its top, a line above the
    baseline of the text it stands in."""
    if span.origin is None:
        return False
    box = frame.to_frame(span.bbox)
    return frame.point(*span.origin)[1] < box[1] + 0.25 * (box[3] - box[1])


def _baseline(line: Line, frame: Frame) -> tuple[float, float]:
    """(baseline, size) of a line's main-size glyphs, in frame y (see _hanging_base where
    they all hang from their origins)."""
    size = max(s.size for s in line.spans)
    hanging = []
    for span in line.spans:
        if span.size >= size - 0.3 and span.origin is not None and span.text.strip():
            if not _hangs(span, frame):
                return frame.point(*span.origin)[1], size
            hanging.append(span)
    if hanging:
        return _hanging_base(hanging, frame), size
    box = frame.to_frame(line.bbox)
    return box[3] - 0.22 * size, size


def _hanging_base(spans: Sequence[Span], frame: Frame) -> float:
    """The baseline, in frame y, of glyphs that all hang from their origins (a big operator
    MuPDF sets in a block of its own): TeX centres them on the math axis, a quarter of a size
    over the baseline, and the least of them, a text-style sum one size tall, has its origin
    three quarters of a size over it. Not the foot of their boxes: the math extension
    font's box reaches three sizes below the origin (corpus 03 p4), two lines too low."""
    top, size = min((frame.point(*s.origin)[1], s.size) for s in spans if s.origin is not None)
    return top + 0.75 * size


def visual_rows(block: Block, frame: Frame) -> list[RowSpans]:
    """The visual rows of a block: the spans of its lines that run in the frame's direction,
    grouped by baseline (so a superscript line joins its row), sorted by x, with the x-range
    of each of its MuPDF lines."""
    lines = []
    for line in block.lines:
        if any(s.text.strip() for s in line.spans) and axis(line.direction) == frame.u:
            base, size = _baseline(line, frame)
            lines.append((base, size, line))
    lines.sort(key=lambda item: item[0])
    groups: list[list[tuple[float, float, Line]]] = []
    for item in lines:
        if groups and any(_same_row(item, other) for other in _peers(item, groups[-1])):
            groups[-1].append(item)
        else:
            groups.append([item])
    return [
        (
            sorted(
                ((frame.to_frame(s.bbox), s) for _, _, line in group for s in line.spans if s.text),
                key=lambda item: item[0][0],
            ),
            tuple(sorted(frame.to_frame(line.bbox)[::2] for _, _, line in group)),
        )
        for group in groups
    ]


def rows_of_page(
    blocks: Sequence[Block], frame: Frame, stats: DocStats, tables: Sequence[Table] = ()
) -> list[Row]:
    """The rows of every block of a page (see ``rows_of_block``), the lines of each multi-line
    table cell stacked over the whole page: MuPDF may set each row of a table as a block of
    its own (the cells of one row share a baseline), so a cell's lines are in several blocks."""
    rows: list[Row] = []
    in_table: list[tuple[Row, int, Table]] = []
    for block in blocks:
        rows.extend(rows_of_block(block, frame, stats, tables, in_table))
    _stack_cells(in_table)
    return rows


def rows_of_block(
    block: Block,
    frame: Frame,
    stats: DocStats,
    tables: Sequence[Table] = (),
    in_table: list[tuple[Row, int, Table]] | None = None,
) -> list[Row]:
    """The visual rows of a block (see ``visual_rows``), table rows cut into cells: at the
    columns of a table found on the page (``tables``, see translation.read.tables.detect),
    elsewhere at
    wide gaps and between MuPDF lines set well apart (a table's header row). The lines of a
    multi-line cell are stacked here, or, given ``in_table``, the block's table rows (with
    their visual row's pieces) are added to it for stacking over the page."""
    rows: list[Row] = []
    gathered = in_table is not None
    if in_table is None:
        in_table = []  # a table's rows, with their visual row's pieces
    found = visual_rows(block, frame)
    # Lines set apart part cells only in a block of one or two rows (a lone header row): in a
    # paragraph they are the stretched spaces of a justified line (Word sets words apart).
    lone = len(found) <= 2
    for spans, lines in found:
        glyphs = [b for b, s in spans if s.text.strip()]
        if not glyphs:
            continue
        table = next((t for t in tables if t.holds(union(glyphs))), None)
        if table is not None:
            spans = words(spans)
        size = max(s.size for _, s in spans)
        gaps = table.gutters if table else cell_gaps(spans, line_gaps(lines, size)) if lone else []
        tight, numbers = (table.tight, table.numbers) if table else ((), ())
        cut = split_cells(spans, gaps, table is None and not lone, tight, numbers)
        pieces = [p for p in cut if any(s.text.strip() for _, s in p)]
        for i, piece in enumerate(pieces):
            # A table cell's size is its main text's, not its subscripts' ("TAPAS_LARGE" in
            # small caps has more letters in the subscript than at the full size).
            main = max((s.size for _, s in piece if any(c.isalnum() for c in s.text)), default=0)
            # Inside a table every piece is a cell, one alone on its row too (a cell that
            # MuPDF set as a block of its own, a line of a cell wrapped in its box).
            cell = len(pieces) > 1 or table is not None
            row = make_row(piece, frame, stats, cell, main if table else None)
            if row.cell:
                # The cell may use its column's free width: up to halfway to its neighbours.
                left = (pieces[i - 1][-1][0][2] + row.x0) / 2 if i else row.x0
                right = (row.x1 + pieces[i + 1][0][0][0]) / 2 if i + 1 < len(pieces) else row.x1
                if table is not None:  # the row's first and last cells reach its edges
                    x0, x1 = table.column(row.bbox)
                    left = x0 if i == 0 else left
                    right = x1 if i + 1 == len(pieces) else right
                row.room = (min(left, row.x0), row.top, max(right, row.x1), row.bottom)
                if table is not None:
                    row.centred = centred_over(row.bbox, row.size, table.numbers)
            rows.append(row)
            if table is not None:
                in_table.append((row, len(pieces), table))
    if not gathered:
        _stack_cells(in_table)
    return rows


def _peers(
    item: tuple[float, float, Line], group: list[tuple[float, float, Line]]
) -> list[tuple[float, float, Line]]:
    """The lines of ``group`` a line may join it by: a line of text joins a row through its
    lines of text, not through a fraction's denominator hanging below them (the next line of
    the paragraph would join the formula's row); through its scripts only where it has
    nothing else."""
    peers = [other for other in group if other[1] >= 0.85 * item[1]]
    return peers or group


def _same_row(a: tuple[float, float, Line], b: tuple[float, float, Line]) -> bool:
    """Whether two lines (baseline, size, line) share a row: their baselines are within half
    a font size, or within three quarters when one is script-size (a label stacked over an
    arrow, a fraction's numerator, limits sit higher or lower than a superscript would)."""
    small, large = sorted((a[1], b[1]))
    reach = 0.5 if small >= 0.85 * large else 0.75
    return abs(a[0] - b[0]) < reach * large


def _stack_cells(rows: list[tuple[Row, int, Table]]) -> None:
    """Give the lines of one multi-line table cell a common ``stack`` (see cell_stacks.stacks);
    each becomes a cell, its room its column's width."""
    lines = [
        StackLine(row.bbox, row.baseline, row.size, row.bold, pieces == 1, row.text)
        for row, pieces, _ in rows
    ]
    keys = stacks(lines, rows[0][2].gutters if rows else ())
    for (row, _, table), stack in zip(rows, keys, strict=True):
        if stack is None:
            continue
        row.stack, row.cell = stack, True
        x0, x1 = table.column(row.bbox)
        room = row.room or row.bbox
        row.room = (min(room[0], x0), row.top, max(room[2], x1), row.bottom)


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


def _bullet(span: Span, piece: list[tuple[Rect, Span]], before: list[str]) -> bool:
    """``span`` is a glyph without Unicode of a TeX symbol font (its bullet, 0x0F, reads as
    U+FFFD) opening a row, with words after it: a list's bullet."""
    if "".join(before).strip() or not _TEX_SYMBOLS_RE.search(font_base(span.font)):
        return False
    at = next(i for i, (_, s) in enumerate(piece) if s is span)
    if at + 1 >= len(piece):
        return False
    after = "".join(s.text for _, s in piece[at + 1 :])
    apart = after[:1].isspace() or piece[at + 1][0][0] - piece[at][0][2] > 0.2 * span.size
    return apart and bool(WORD_RE.match(after.lstrip()))


def _small_caps(capital: Span, span: Span) -> bool:
    """``span`` is set in smaller capitals after the text of ``capital``: the rest of the
    word it ends ("T" + "ABLE"), or words of their own ("for" + "COARSE", 03 p6)."""
    text = span.text.strip()
    return (
        0.6 * capital.size <= span.size <= 0.85 * capital.size
        and any(c.isalpha() for c in capital.text)
        and text[:1].isupper()
        and text.replace(" ", "").isalpha()
        and text.upper() == text
    )


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
    scripts = [s for _, s in piece if abs(s.size - size) < 0.3 and s.text.strip()]
    if all(s.mark or is_math_font(s.font, cm_is_math) for s in scripts):
        return size
    standing = [
        (s.size, frame.point(*s.origin)[1])
        for _, s in piece
        if s.origin and s.text.strip() and s.size * 0.85 > size and not _hangs(s, frame)
    ]
    if not standing:
        return size
    carrier = max(standing, key=lambda item: weights[item[0]])[0]
    base = statistics.median(y for s, y in standing if abs(s - carrier) < 0.3)
    if all(s.origin and abs(frame.point(*s.origin)[1] - base) > 0.12 * carrier for s in scripts):
        return carrier
    return size


_FEW_SCRIPTS = 8  # characters: more are words of a smaller size, not scripts of a glyph


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
        for _, span in piece:
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
        if s.origin and abs(s.size - size) < 0.3 and not _hangs(s, frame)
    ]
    bases = [frame.point(*o)[1] for s, o in standing if not s.text[:1].isspace()] or [
        frame.point(*o)[1] for _, o in standing
    ]
    if bases:
        baseline = statistics.median(bases)
    elif all(_hangs(s, frame) for _, s in piece):
        baseline = _hanging_base([s for _, s in piece], frame)
    else:
        baseline = piece[0][0][3] - 0.22 * size
    chars: list[str] = []
    classes: list[str] = []
    boxes: list[Rect] = []
    rects: list[Rect] = []
    styles: list[int] = []
    bold_letters = letters = mono_chars = total = 0
    bold_lead, lead_open, lead_letters = 0, True, 0  # the text's bold start, its letters
    colors: Counter[int] = Counter()
    right: float | None = None
    for box, span in piece:
        text = _FF_RE.sub("ff", "".join(LIGATURES.get(c, c) for c in span.text))
        if text.strip() in ("\x0f", "\ufffd") and _bullet(span, piece, chars):
            text = text.replace("\x0f", "•").replace("\ufffd", "•")
        if not text:
            continue
        # MuPDF lines of one row meet without a space: add one where the glyphs are apart.
        if right is not None and chars and not chars[-1].isspace() and not text[0].isspace():
            if box[0] - right > 0.15 * size:
                chars.append(" ")
                classes.append(NEUTRAL)
                boxes.append((right, baseline - 0.8 * size, box[0], baseline + 0.25 * size))
                styles.append(styles[-1] if styles else 0)
        right = box[2] if right is None else max(right, box[2])
        span_base = frame.point(*span.origin)[1] if span.origin else baseline
        if _hangs(span, frame):
            span_base = baseline  # a big delimiter: its origin is at its top
        if text[0].isspace() and abs(span.size - size) < 0.3:
            # MuPDF puts a span's leading space on the glyph before it: after a raised
            # footnote marker its origin is the marker's, not this text's baseline.
            span_base = baseline
        script = span.size < 0.85 * size and abs(span_base - baseline) > 0.12 * size
        math_span = script or span.mark or is_math_font(span.font, stats.cm_is_math)
        # A raised or lowered math glyph the font maps to a space (MathTime's arrow over a
        # bold vector name) is a glyph of the formula, not a word gap.
        blank_glyph = script and not span.text.strip()
        base = font_base(span.font)
        # A CJK face's fixed pitch is no sign of code; one named so ("D2Coding") is.
        fixed = bool(span.flags & 8) and base not in stats.cjk_fonts
        mono = fixed or bool(MONO_FONT_RE.search(base))
        bold = bool(span.flags & 16) or "Bold" in span.font
        # Glyph area around the span's own baseline (line boxes of some producers are far
        # taller than their glyphs); x along the span by the glyphs' advances (a formula
        # copied as it looks keeps its edges).
        shares = _shares(span, text)
        step = (box[2] - box[0]) / sum(shares)
        top, bottom = span_base - 0.8 * span.size, span_base + 0.25 * span.size
        left = box[0]
        style = span_style(span.font, span.flags, span.color)
        for char, share in zip(text, shares, strict=True):
            chars.append(char)
            kind = GLYPH if blank_glyph else char_class(char, math_span)
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
            tight = (box[0] + 0.1, span_base - 0.6 * span.size, box[2] - 0.1, span_base - 0.1)
            if rects and abs(rects[-1][1] - tight[1]) < 0.5 and abs(rects[-1][3] - tight[3]) < 0.5:
                last = rects[-1]
                rects[-1] = (min(last[0], tight[0]), last[1], max(last[2], tight[2]), last[3])
            else:
                rects.append(tight)
    glyphs = [b for b, s in piece if s.text.strip()]
    return Row(
        chars="".join(chars),
        classes="".join(classes),
        boxes=boxes,
        bbox=union(glyphs),
        baseline=baseline,
        size=size,
        rects=[frame.to_page(r) for r in rects],
        bold=letters > 0 and bold_letters >= 0.95 * letters,
        mono=mono_chars / total if total else 0.0,
        color=colors.most_common(1)[0][0] if colors else 0,
        cell=cell,
        bold_lead=bold_lead if lead_letters else 0,
        styles=styles,
    )


#: Classes of a row holding math only (formula glyphs, math characters, digits, spaces).
MATH_ONLY_RE = re.compile(f"^[{NEUTRAL}]*[{GLYPH}{MATH}][{GLYPH}{MATH}{NEUTRAL}]*$")
