"""Glyph advances: how far along its line each character of a span reaches, read from the
glyphs' own origins.

A row gives each of its characters a box (``translation.read.rows.row``), and a formula copied as
it looks is shown through the union of its characters' boxes. Estimated evenly along a span, a
wide capital at the end of a span of narrow letters ("transistors M" before the subscript "3")
got the box of an average letter, its left half outside the formula's copy. The glyphs' origins
say where each character really starts.

Works on PyMuPDF's ``rawdict`` page (blocks, lines, spans, and each span's characters with their
origins and boxes) as plain data, so the rule is testable with literals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Page = dict[str, Any]
#: (block, line, span) index of a span in its page -> the advance of each of its characters.
Advances = dict[tuple[int, int, int], tuple[float, ...]]


def advances(chars: Sequence[Page], direction: Sequence[float]) -> tuple[float, ...]:
    """The advance of each of ``chars`` along ``direction`` (a unit vector): from its origin to
    the next character's, the last one's to the far end of its box. A character set back (an
    accent drawn over the letter before it) advances nothing. Empty when the glyphs advance
    nothing at all."""
    dx, dy = direction[0], direction[1]

    def along(x: float, y: float) -> float:
        return x * dx + y * dy

    starts = [along(*c["origin"]) for c in chars]
    if not starts:
        return ()
    box = chars[-1]["bbox"]
    end = max(along(box[0], box[1]), along(box[2], box[3]), along(box[0], box[3]))
    out = tuple(max(0.0, b - a) for a, b in zip(starts, [*starts[1:], end], strict=True))
    return out if sum(out) > 0 else ()


def page_advances(page: Page) -> Advances:
    """The advances of every span of a ``rawdict`` page whose characters it lists."""
    found: Advances = {}
    for b, block in enumerate(page.get("blocks", ())):
        for n, line in enumerate(block.get("lines", ())):
            direction = line.get("dir", (1.0, 0.0))
            for s, span in enumerate(line.get("spans", ())):
                chars = span.get("chars")
                if chars:
                    found[(b, n, s)] = advances(chars, direction)
    return found
