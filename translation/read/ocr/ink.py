"""Where a line's text is in the ink of a scan: a line box Tesseract stretched over its
neighbours (or over a drawing beside it) cut down to its text's band (pure)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from translation.read.layout import Rect
from translation.read.measures import GLYPH_HEIGHT

#: Dark pixels in each pixel row of an area of the page, top to bottom (``INK_SCALE`` rows a
#: point).
Ink = Callable[[Rect], Sequence[int]]
INK_SCALE = 2.0

#: How much the ink in the spaces between a line's words counts against a band (see
#: :func:`cut_to_ink`): spaces are about a tenth of a line's length.
SPACE_WEIGHT = 4
#: A line box this many times as high as its text is stretched over its neighbours.
_TALL = 1.3
#: Two boxes overlap across and down by this share of the narrower and the lower: one band.
_SAME_BAND = 0.5


def cut_to_ink(
    boxes: Sequence[Rect],
    sizes: Sequence[float],
    ink: Ink,
    spaces: Sequence[Sequence[tuple[float, float]]] = (),
) -> list[Rect]:
    """Each line box much taller than its text (``GLYPH_HEIGHT`` x its size) cut down to the
    band of its text's height that holds the most ``ink``, not counting the ink inside the
    boxes of the lines beside it that are as high as their text: Tesseract stretches a line
    box over its neighbour lines, whose ink would pull the band onto them, leaving the line's
    own words uncovered. ``spaces`` are the x ranges between a line's words: blank in the
    rows of its own text, and a band of another line across them is scored down by the ink
    found there (``SPACE_WEIGHT`` times). Two stretched lines never end on one band."""
    text_heights = [GLYPH_HEIGHT * size for size in sizes]
    tall = [b[3] - b[1] > _TALL * h for b, h in zip(boxes, text_heights, strict=True)]

    def cut(i: int, taken: Sequence[Rect]) -> Rect:
        box = boxes[i]
        rows = list(ink(box))
        first = int(box[1] * INK_SCALE)
        for other in taken:
            if other[2] <= box[0] or box[2] <= other[0]:
                continue
            start, end = int(other[1] * INK_SCALE) - first, int(other[3] * INK_SCALE) - first
            for k in range(max(0, start), min(len(rows), end + 1)):
                rows[k] = 0
        for x0, x1 in spaces[i] if i < len(spaces) else ():
            for k, dark in enumerate(ink((x0, box[1], x1, box[3]))[: len(rows)]):
                rows[k] = max(0, rows[k] - SPACE_WEIGHT * dark)
        start_row = ink_band(rows, round(text_heights[i] * INK_SCALE))
        if start_row is None:
            return box
        top = box[1] + start_row / INK_SCALE
        return (box[0], top, box[2], top + text_heights[i])

    short = [b for b, t in zip(boxes, tall, strict=True) if not t]
    out = [cut(i, short) if tall[i] else box for i, box in enumerate(boxes)]
    # Two stretched lines over each other may settle on the same printed line (the one with
    # more ink): the one whose box reaches further from that band is cut again, that band
    # taken, and finds its own line (corpus 10 page 7, footnotes 10 and 11).
    for i, j in _same_band(out, [n for n, t in enumerate(tall) if t]):
        mover, stays = (i, j) if _reach(boxes[i], out[i]) >= _reach(boxes[j], out[j]) else (j, i)
        out[mover] = cut(mover, [*short, out[stays]])
    return out


def _reach(box: Rect, band: Rect) -> float:
    """How far the middle of a line box lies from the band it was cut to."""
    return abs((box[1] + box[3]) / 2 - (band[1] + band[3]) / 2)


def _same_band(boxes: Sequence[Rect], among: Sequence[int]) -> list[tuple[int, int]]:
    """Pairs of ``among`` whose boxes overlap across by half the width of the narrower and
    down by half the height of the lower."""
    pairs = []
    for n, i in enumerate(among):
        for j in among[n + 1 :]:
            a, b = boxes[i], boxes[j]
            x = min(a[2], b[2]) - max(a[0], b[0])
            y = min(a[3], b[3]) - max(a[1], b[1])
            narrow = min(a[2] - a[0], b[2] - b[0])
            low = min(a[3] - a[1], b[3] - b[1])
            if x > _SAME_BAND * narrow and y > _SAME_BAND * low:
                pairs.append((i, j))
    return pairs


def ink_band(rows: Sequence[int], height: int) -> int | None:
    """The first of the ``height`` consecutive ``rows`` that hold the most ink, the middle one
    of several that hold as much (a window taller than the ink centred on it); None when
    there are not that many rows, or no ink."""
    if height <= 0 or len(rows) < height:
        return None
    window = sum(rows[:height])
    sums = [window]
    for i in range(height, len(rows)):
        window += rows[i] - rows[i - height]
        sums.append(window)
    best = max(sums)
    if best <= 0:
        return None
    first = sums.index(best)
    last = first
    while last + 1 < len(sums) and sums[last + 1] == best:
        last += 1
    return (first + last) // 2
