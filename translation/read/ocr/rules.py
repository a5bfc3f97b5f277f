"""Ruled lines of a scan, found in its pixels and taken out of the image Tesseract reads.

Tesseract reads a table's rules as letters (``|``, ``l``, ``FA``) and, beside them, loses the
numbers of a cell altogether; without the rules it reads the cells as words apart. A rule is a
long, thin run of dark pixels: at least ``min_length`` pixels along it (longer than any glyph
stroke) and at most ``max_thickness`` across it (a filled area of a figure is thicker). The
runs of a rule skewed by the scan step from row to row (or column to column), so a rule is
the runs of consecutive rows that touch one another.

Pure: pixels in, pixel runs out; the image is rebuilt by the caller.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: Gray levels darker than this are ink.
_INK = 160

#: A pixel run: its line (row or column) and its start and end along that line (end excluded).
Run = tuple[int, int, int]


@dataclass
class _Stroke:
    """Runs of consecutive lines that touch: one rule, or a filled area."""

    runs: list[Run] = field(default_factory=list)

    @property
    def last(self) -> Run:
        return self.runs[-1]

    def thickness(self) -> int:
        return self.runs[-1][0] - self.runs[0][0] + 1


def _runs(line: bytes, min_length: int) -> list[tuple[int, int]]:
    ink = re.compile(rb"[\x00-\x%02x]{%d,}" % (_INK - 1, min_length))
    return [(m.start(), m.end()) for m in ink.finditer(line)]


def _strokes(lines: list[bytes], min_length: int, max_thickness: int) -> list[Run]:
    """The runs of ``lines`` that belong to strokes at most ``max_thickness`` lines thick."""
    done: list[_Stroke] = []
    open_: list[_Stroke] = []
    for index, line in enumerate(lines):
        still: list[_Stroke] = []
        for start, end in _runs(line, min_length):
            stroke = next(
                (
                    s
                    for s in open_
                    if s.last[0] == index - 1 and s.last[1] < end and start < s.last[2]
                ),
                None,
            )
            if stroke is None:
                stroke = _Stroke()
            else:
                open_.remove(stroke)
            stroke.runs.append((index, start, end))
            still.append(stroke)
        done += open_
        open_ = still
    done += open_
    return [run for s in done if s.thickness() <= max_thickness for run in s.runs]


def rule_pixels(
    samples: bytes, width: int, height: int, min_length: int, max_thickness: int
) -> tuple[list[Run], list[Run]]:
    """The horizontal runs (row, x0, x1) and vertical runs (column, y0, y1) of the rules in a
    gray image (one byte a pixel, ``width`` a row)."""
    rows = [samples[y * width : (y + 1) * width] for y in range(height)]
    columns = [samples[x::width] for x in range(width)]
    return (
        _strokes(rows, min_length, max_thickness),
        _strokes(columns, min_length, max_thickness),
    )


def erase_rules(
    samples: bytes, width: int, horizontal: list[Run], vertical: list[Run], margin: int = 1
) -> bytes:
    """``samples`` with the rule runs (and ``margin`` pixels around them, their blurred edge)
    painted white."""
    out = bytearray(samples)
    height = len(samples) // width
    for y, x0, x1 in horizontal:
        x0, x1 = max(0, x0 - margin), min(width, x1 + margin)
        for row in range(max(0, y - margin), min(height, y + margin + 1)):
            out[row * width + x0 : row * width + x1] = b"\xff" * (x1 - x0)
    for x, y0, y1 in vertical:
        for column in range(max(0, x - margin), min(width, x + margin + 1)):
            for row in range(max(0, y0 - margin), min(height, y1 + margin)):
                out[row * width + column] = 0xFF
    return bytes(out)
