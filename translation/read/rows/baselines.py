"""Where a line's baseline is: at its main-size glyphs' origins, or, where those glyphs hang
from their origins (TeX's big delimiters and operators), a computed one. Pure, in frame
coordinates."""

from __future__ import annotations

from collections.abc import Sequence

from translation.read.layout import Frame, Line, Span
from translation.read.measures import INK_FOOT, SAME_SIZE

#: A span hangs from its origin when the origin lies in the top quarter of its box, not on
#: the box's foot.
_HANGING_TOP = 0.25
#: TeX's least big operator (a text-style sum) has its origin this far over the baseline.
_HANGING_ORIGIN = 0.75


def hangs(span: Span, frame: Frame) -> bool:
    """Whether a span's glyphs hang from its origin: a big delimiter of TeX's math extension
    font (a floor bracket around a fraction) has its origin at its top, a line above the
    baseline of the text it stands in."""
    if span.origin is None:
        return False
    box = frame.to_frame(span.bbox)
    return frame.point(*span.origin)[1] < box[1] + _HANGING_TOP * (box[3] - box[1])


def line_baseline(line: Line, frame: Frame) -> tuple[float, float]:
    """(baseline, size) of a line's main-size glyphs, in frame y (see hanging_base where
    they all hang from their origins)."""
    size = max(s.size for s in line.spans)
    hanging = []
    for span in line.spans:
        if span.size >= size - SAME_SIZE and span.origin is not None and span.text.strip():
            if not hangs(span, frame):
                return frame.point(*span.origin)[1], size
            hanging.append(span)
    if hanging:
        return hanging_base(hanging, frame), size
    box = frame.to_frame(line.bbox)
    return box[3] - INK_FOOT * size, size


def hanging_base(spans: Sequence[Span], frame: Frame) -> float:
    """The baseline, in frame y, of glyphs that all hang from their origins (a big operator
    MuPDF sets in a block of its own): TeX centres them on the math axis, a quarter of a size
    over the baseline, and the least of them, a text-style sum one size tall, has its origin
    three quarters of a size over it. Not the foot of their boxes: the math extension
    font's box reaches three sizes below the origin (corpus 03 p4), two lines too low."""
    top, size = min((frame.point(*s.origin)[1], s.size) for s in spans if s.origin is not None)
    return top + _HANGING_ORIGIN * size
