"""The font size of each OCR'd line, from its height, its advance per character and the
distance to its neighbour lines (a skewed line's box is taller than its text) (pure)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from translation.read.layout import Rect
from translation.read.measures import DEFAULT_LEADING, GLYPH_HEIGHT

#: A size from this share of the body size to this one is the body size (OCR's jitter).
_BODY_LEAST, _BODY_MOST = 0.72, 1.25
#: Of the narrower line: two lines overlapping this much across stand in one column ...
_ABOVE = 0.5
#: ... and centres further apart than this share of a line's height are two lines.
_OTHER_LINE = 0.4
#: Line heights within which the next line of a column is looked for.
_NEXT_REACH = 2.0
#: A short line's size is at most this many times the size its width tells ...
_BY_WIDTH_MOST = 1.15
#: ... and a shorter one's the size by width when its height is more than this many times it.
_TALL_FOR_WIDTH = 1.8

#: A line of this many characters or more tells the body size (and is sized by its width).
_LONG_LINE = 20
#: A line of fewer characters than this is a speck or a label, sized as body text.
_SPECK_CHARS = 4


def even_sizes(sizes: Sequence[float], chars: Sequence[int]) -> list[float]:
    """Line sizes with the OCR's jitter taken out: a size from 72% to 125% of the page's body
    size (the median size of its lines of 20 characters or more) becomes the body size (a
    footnote's text too: the fitting sets it in its box), and so does the size of a line of
    fewer than 4 characters (a speck read as "(by" is no heading)."""
    long = [s for s, n in zip(sizes, chars, strict=True) if n >= _LONG_LINE]
    if not long:
        return list(sizes)
    body = statistics.median(long)
    return [
        body if _BODY_LEAST * body <= s <= _BODY_MOST * body or n < _SPECK_CHARS else s
        for s, n in zip(sizes, chars, strict=True)
    ]


def cap_by_pitch(
    boxes: Sequence[Rect], sizes: Sequence[float], chars: Sequence[int]
) -> list[float]:
    """``sizes`` with each size above the page's body size (see :func:`even_sizes`) cut down
    to the distance from its line to the nearest line above or below it (half overlapping it)
    over ``DEFAULT_LEADING``, but not below the body size (and to it when within 125% of it). A
    line's size from its advance per character is too large where Tesseract misread it with
    fewer characters than printed ("To oil an then" for "To give an example for the"); a line
    set at body pitch among others is body text however it reads, and a heading has room
    around it."""
    long = [s for s, n in zip(sizes, chars, strict=True) if n >= _LONG_LINE]
    if not long:
        return list(sizes)
    body = statistics.median(long)
    out = list(sizes)
    for i, (box, size) in enumerate(zip(boxes, sizes, strict=True)):
        if size <= body:
            continue
        centre, height = (box[1] + box[3]) / 2, box[3] - box[1]
        pitches = [
            abs((other[1] + other[3]) / 2 - centre)
            for j, other in enumerate(boxes)
            if j != i
            and min(box[2], other[2]) - max(box[0], other[0])
            > _ABOVE * min(box[2] - box[0], other[2] - other[0])
            and abs((other[1] + other[3]) / 2 - centre) > _OTHER_LINE * height
        ]
        if pitches:
            capped = min(size, max(body, min(pitches) / DEFAULT_LEADING))
            out[i] = body if capped <= _BODY_MOST * body else capped  # as even_sizes does
    return out


#: A shorter line of this many characters or more is sized by its height, capped by its width.
_SOME_CHARS = 6


def line_sizes(boxes: Sequence[Rect], chars: Sequence[int]) -> list[float]:
    """The font size of each OCR line box (``chars`` characters long).

    A box grows taller than its text with the skew, and Tesseract sometimes gives a line next
    to a figure the height of two; neither the distance between lines nor the advance per
    character changes. So the page's body size is its usual line pitch / ``DEFAULT_LEADING`` or its
    usual line height / ``GLYPH_HEIGHT``, whichever is less (Korean is set with more leading), the
    advance of a character of that size the median over the long lines (it depends on the
    script and typeface), and a long line's size is its advance per character over that. A
    shorter line's is its height / ``GLYPH_HEIGHT``, unless its advance says it is smaller.
    """
    heights = [(b[3] - b[1]) / GLYPH_HEIGHT for b in boxes]
    advances = [(b[2] - b[0]) / n if n else 0.0 for b, n in zip(boxes, chars, strict=True)]
    typical = statistics.median(heights or [0.0])
    pitch = body_size(boxes)
    body = min(pitch, typical) if pitch else typical
    ratios = [
        a / body for a, n in zip(advances, chars, strict=True) if n >= _LONG_LINE and body > 0
    ]
    if not ratios:
        return heights
    ratio = statistics.median(ratios)
    sizes = []
    for height, advance, n in zip(heights, advances, chars, strict=True):
        by_width = advance / ratio
        if n >= _LONG_LINE:  # long enough for its width to tell
            sizes.append(by_width)
            continue
        if n >= _SOME_CHARS:
            sizes.append(min(height, _BY_WIDTH_MOST * by_width))
            continue
        sizes.append(
            by_width if n >= _SPECK_CHARS and height > _TALL_FOR_WIDTH * by_width else height
        )
    return sizes


#: Fewer line pitches than this tell no body size.
_PITCHES_LEAST = 3


def body_size(boxes: Sequence[Rect]) -> float | None:
    """The page's usual distance between a line and the next one below it in its column,
    over ``DEFAULT_LEADING``; None when no two lines follow each other."""
    centres = sorted(((b[1] + b[3]) / 2, b) for b in boxes)
    pitches = []
    for i, (cy, box) in enumerate(centres):
        height = box[3] - box[1]
        for cy2, other in centres[i + 1 :]:
            if cy2 - cy > _NEXT_REACH * height:
                break
            overlap = min(box[2], other[2]) - max(box[0], other[0])
            if (
                overlap > _ABOVE * min(box[2] - box[0], other[2] - other[0])
                and cy2 - cy > _OTHER_LINE * height
            ):
                pitches.append(cy2 - cy)
                break
    return statistics.median(pitches) / DEFAULT_LEADING if len(pitches) >= _PITCHES_LEAST else None


#: Lines closer to each other than this share of the page's line pitch are small print...
SMALL_PITCH = 0.85
#: ...when each is at least this wide (pt): a scrap of a few letters is no footnote's line.
FOOT_MIN_WIDTH = 30.0


def foot_print(boxes: Sequence[Rect], sizes: Sequence[float]) -> list[float]:
    """``sizes`` with the lines of a column's foot set at a tighter pitch than the page's (a
    footnote: two or more lines ``FOOT_MIN_WIDTH`` wide or more, the lowest with no line below
    it in its column, each closer to the next than ``SMALL_PITCH`` of the page's pitch) at the size
    their pitch leaves room for. :func:`even_sizes` sets them at the body size: read as body
    text, a footnote between
    a column's foot and the next column's head cuts the paragraph running over them in two,
    and its translation overprints its next line (corpus 10 page 7)."""
    page = body_size(boxes)
    if page is None:
        return list(sizes)
    below = {n: (m, pitch) for n, m, pitch in _next_lines(boxes)}
    above = {m: (n, pitch) for n, (m, pitch) in below.items()}
    out = list(sizes)
    for foot in range(len(boxes)):
        if foot in below or boxes[foot][2] - boxes[foot][0] < FOOT_MIN_WIDTH:
            continue
        run, pitches, line = [foot], [], foot
        while (
            line in above
            and above[line][1] < SMALL_PITCH * page * DEFAULT_LEADING
            and boxes[above[line][0]][2] - boxes[above[line][0]][0] >= FOOT_MIN_WIDTH
        ):
            line, pitch = above[line]
            run.append(line)
            pitches.append(pitch)
        if pitches:
            size = statistics.median(pitches) / DEFAULT_LEADING
            for n in run:
                out[n] = min(out[n], size)
    return out


def _next_lines(boxes: Sequence[Rect]) -> list[tuple[int, int, float]]:
    """(line, the next line below it in its column, the distance between their centres) for
    each line that has one within twice its height."""
    centres = sorted(((b[1] + b[3]) / 2, n) for n, b in enumerate(boxes))
    out = []
    for a, (cy, n) in enumerate(centres):
        box = boxes[n]
        height = box[3] - box[1]
        for cy2, m in centres[a + 1 :]:
            if cy2 - cy > _NEXT_REACH * height:
                break
            other = boxes[m]
            overlap = min(box[2], other[2]) - max(box[0], other[0])
            if (
                overlap > _ABOVE * min(box[2] - box[0], other[2] - other[0])
                and cy2 - cy > _OTHER_LINE * height
            ):
                out.append((n, m, cy2 - cy))
                break
    return out
