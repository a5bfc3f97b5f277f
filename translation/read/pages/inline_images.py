"""Math drawn as pictures: the glyphs of formulas painted as small image masks.

Old converters (Acrobat Distiller of the 1990s, some scanner suites) drew each glyph of a
formula as a one-bit image mask of the glyph's shape: the text layer holds the words around it
and nothing where the formula stands ("each disk can service  users"), so a sentence reaches
the model with holes, and a display made only of such pictures is no text at all, while the
words between its pieces ("where", "for") go out as requests of their own.

Read here, each glyph-sized mask becomes a character of its own in a pseudo math face
(:data:`FONT`): a mask on a text line joins that line where it stands (a formula inside the
sentence, kept as a placeholder and copied back as drawn); masks on no text line, side by side,
make a line of their own (a display formula, left as printed). Masks the size of a rule (a
fraction bar) or of a figure stay what they are. Pure: boxes in, blocks out.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Sequence

from translation.read.layout import Block, Line, Rect, Span, axis
from translation.read.measures import USUAL_SIZE

#: The pseudo face of a picture glyph; a math face by its name (``is_math_font``), so a run of
#: pictures is a formula: never sent, copied back from the page as drawn.
FONT = "InlineImageMath"
#: The character a picture glyph reads as: a glyph without text of its own (private use,
#: ``char_class``), never sent.
GLYPH = "\ue000"

#: Of the body font size: a mask is a glyph when it is at most this high and this wide (a big
#: operator, a wide "exp"; a figure is larger); a thinner one than :data:`MIN_HEIGHT` (a minus,
#: a bar) only on a text line (elsewhere it is a rule) ...
MAX_HEIGHT = 2.6
MAX_WIDTH = 4.0
#: ... and a line's glyph when it overlaps the line's band by this share of its own height or
#: of the line's, whichever is less (a subscript hangs below the band) ...
BAND_SHARE = 0.4
#: ... no further (font sizes) from the line's first or last glyph than this.
LINE_REACH = 2.0
MIN_HEIGHT = 0.25
#: A block of this many lines sets a column: a picture outside it is no glyph of its lines.
COLUMN_LINES = 3
#: Points a picture may stand past a column's edge and be its line's.
COLUMN_SLACK = 1.0
#: Font sizes between two pictures of one display line, at most.
DISPLAY_GAP = 2.5
#: Display pictures in a band of at most this many font sizes join one block (the lines of
#: one formula: a fraction's numerator and denominator).
DISPLAY_LEAD = 1.8


def with_inline_images(blocks: Sequence[Block], masks: Sequence[Rect]) -> list[Block]:
    """``blocks`` with the glyph-sized image ``masks`` (see :data:`MIN_HEIGHT`) read as
    picture glyphs: into the text line they stand on, or, on no line, as display lines of
    their own (new blocks at the end, in reading order). Nothing changes without such masks."""
    size = _body_size(blocks)
    glyphs = [m for m in masks if _glyph_sized(m, size)]
    if not any(m[3] - m[1] >= MIN_HEIGHT * size for m in glyphs):
        return list(blocks)
    placed: dict[tuple[int, int], list[Rect]] = {}
    reach: dict[tuple[int, int], Rect] = {}  # each line's extent with the pictures it took
    alone = glyphs
    while alone:  # a formula's pictures chain from the line's words, one beside the next
        left = []
        for box in alone:
            where = _line_of(box, blocks, reach)
            if where is None:
                left.append(box)
            else:
                placed.setdefault(where, []).append(box)
                line = blocks[where[0]].lines[where[1]]
                reach[where] = _union([reach.get(where, line.bbox), box])
        if len(left) == len(alone):
            break
        alone = left
    # A thin picture on no line is a rule (a fraction bar, a table's), no glyph of a display.
    alone = [m for m in alone if m[3] - m[1] >= MIN_HEIGHT * size]
    out = [
        dataclasses.replace(
            block,
            lines=tuple(
                _with_glyphs(line, placed[(b, n)]) if (b, n) in placed else line
                for n, line in enumerate(block.lines)
            ),
            bbox=_union([block.bbox, *_placed_in(b, len(block.lines), placed)]),
        )
        if any((b, n) in placed for n in range(len(block.lines)))
        else block
        for b, block in enumerate(blocks)
    ]
    for display in _display_blocks(alone, size):
        out.insert(_place(display, out), display)
    return out


def _place(display: Block, blocks: Sequence[Block]) -> int:
    """Where ``display`` goes in ``blocks``' reading order: before the first block of its
    column that starts below it (after the text that leads into it), else last."""
    x0, y0, x1, y1 = display.bbox
    for k, block in enumerate(blocks):
        bx0, by0, bx1, _ = block.bbox
        if bx0 < x1 and x0 < bx1 and by0 >= (y0 + y1) / 2:
            return k
    return len(blocks)


def _placed_in(b: int, lines: int, placed: dict[tuple[int, int], list[Rect]]) -> list[Rect]:
    return [box for n in range(lines) for box in placed.get((b, n), ())]


def _body_size(blocks: Sequence[Block]) -> float:
    sizes = [s.size for b in blocks for ln in b.lines for s in ln.spans for _ in s.text.strip()]
    return statistics.median(sizes) if sizes else USUAL_SIZE


def _glyph_sized(box: Rect, size: float) -> bool:
    width, height = box[2] - box[0], box[3] - box[1]
    return 0 < height <= MAX_HEIGHT * size and 0 < width <= MAX_WIDTH * size


_ALONG_X = (1.0, 0.0)


def _level(line: Line) -> bool:
    return axis(line.direction) == _ALONG_X


def _line_of(
    box: Rect, blocks: Sequence[Block], reach: dict[tuple[int, int], Rect]
) -> tuple[int, int] | None:
    """The (block, line) whose band ``box`` stands on, nearest along the line (its extent in
    ``reach`` where it took pictures already); None if none is near."""
    best: tuple[float, tuple[int, int]] | None = None
    height = box[3] - box[1]
    for b, block in enumerate(blocks):
        for n, line in enumerate(block.lines):
            if not _level(line) or not line.spans:
                continue
            _, y0, _, y1 = line.bbox
            x0, _, x1, _ = reach.get((b, n), line.bbox)
            size = max(s.size for s in line.spans)
            overlap = min(box[3], y1) - max(box[1], y0)
            if overlap < BAND_SHARE * min(height, y1 - y0):
                continue
            distance = max(x0 - box[2], box[0] - x1, 0.0)
            if distance > LINE_REACH * size or _elsewhere(box, block, line):
                continue
            if best is None or distance < best[0]:
                best = (distance, (b, n))
    return None if best is None else best[1]


def _elsewhere(box: Rect, block: Block, line: Line) -> bool:
    """Whether ``box``, near ``line``, belongs to another line: it stands over one of the
    line's words (a subscript hanging from the line above), or outside the column the
    line's block sets (the first glyph of the next column's line, across the gutter)."""
    centre = (box[0] + box[2]) / 2
    if any(s.bbox[0] < centre < s.bbox[2] for s in line.spans if s.text.strip()):
        return True
    column = len(block.lines) >= COLUMN_LINES
    slack = COLUMN_SLACK
    return column and (box[2] < block.bbox[0] - slack or box[0] > block.bbox[2] + slack)


def _with_glyphs(line: Line, boxes: list[Rect]) -> Line:
    """``line`` with a picture span per run of ``boxes`` no word of the line stands between
    (one formula, its pieces apart as a formula's are: a gap there is no column's), each
    set among the spans by its left edge."""
    size = statistics.median(s.size for s in line.spans)
    baseline = next((s.origin[1] for s in line.spans if s.origin is not None), line.bbox[3])
    words = sorted((s.bbox[0] + s.bbox[2]) / 2 for s in line.spans if s.text.strip())
    runs: list[list[Rect]] = []
    for box in sorted(boxes):
        centre = (box[0] + box[2]) / 2
        if runs and not any(runs[-1][-1][2] <= w <= centre for w in words):
            runs[-1].append(box)
        else:
            runs.append([box])
    pictures = [
        Span(
            text=GLYPH * len(run),
            bbox=_union(run),
            font=FONT,
            size=size,
            origin=(run[0][0], baseline),
        )
        for run in runs
    ]
    spans = sorted([*line.spans, *pictures], key=lambda s: s.bbox[0])
    return dataclasses.replace(line, spans=tuple(spans), bbox=_union([line.bbox, *boxes]))


def _runs(boxes: list[Rect], gap: float) -> list[list[Rect]]:
    """``boxes`` (sorted by left edge) in runs: a box starting within ``gap`` of the run's
    right end joins it."""
    runs: list[list[Rect]] = []
    for box in boxes:
        if runs and box[0] - max(r[2] for r in runs[-1]) <= gap:
            runs[-1].append(box)
        else:
            runs.append([box])
    return runs


def _display_blocks(boxes: list[Rect], size: float) -> list[Block]:
    """The pictures on no text line as display blocks: pictures sharing a band, near each
    other along it, make a line; lines close above each other make a block."""
    lines: list[Line] = []
    for band in _bands(boxes):
        for run in _runs(sorted(band), DISPLAY_GAP * size):
            bbox = _union(run)
            span = Span(
                text=GLYPH * len(run), bbox=bbox, font=FONT, size=size, origin=(bbox[0], bbox[3])
            )
            lines.append(Line(spans=(span,), bbox=bbox))
    lines.sort(key=lambda ln: (ln.bbox[1], ln.bbox[0]))
    blocks: list[list[Line]] = []
    for line in lines:
        last = blocks[-1][-1] if blocks else None
        if (
            last is not None
            and line.bbox[1] - last.bbox[3] <= DISPLAY_LEAD * size
            and line.bbox[0] < last.bbox[2] + DISPLAY_GAP * size
            and last.bbox[0] < line.bbox[2] + DISPLAY_GAP * size
        ):
            blocks[-1].append(line)
        else:
            blocks.append([line])
    return [Block(lines=tuple(group), bbox=_union([ln.bbox for ln in group])) for group in blocks]


def _bands(boxes: list[Rect]) -> list[list[Rect]]:
    """``boxes`` grouped by vertical overlap (:data:`BAND_SHARE` of a box's height: a
    subscript with its letter)."""
    bands: list[tuple[float, float, list[Rect]]] = []
    for box in sorted(boxes, key=lambda r: r[1]):
        if bands and box[1] < bands[-1][1] - BAND_SHARE * (box[3] - box[1]):
            top, bottom, members = bands[-1]
            bands[-1] = (top, max(bottom, box[3]), [*members, box])
        else:
            bands.append((box[1], box[3], [box]))
    return [members for _, _, members in bands]


def _union(boxes: Sequence[Rect]) -> Rect:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )
