"""Monospaced faces, measured: a face is monospaced when its glyphs advance alike, whatever its
name says (a typewriter face a PDF calls ``F25``, ``Type3 (16 0 R)`` or ``Iosevka-Slab``).

Code is set in such a face, prose almost never, so the measure tells a listing from the text
around it without a list of font names. Each character's advance is measured against the
advances of its own span (a listing may be set at a scale its size does not say: the same face
advancing 0.525 of its size in a URL and 0.62 in a listing), and taken as the median over its
occurrences (the glyph before a word gap may reach on to the next word's origin); a face is
measured once it has shown :data:`MIN_CHARS` different letters or
digits, a narrow and a wide one among them, and is monospaced when those advances stay within
:data:`SPREAD` of each other. A face shown too little to be measured is neither: the caller
decides (the PDF's own fixed-pitch flag). Pure: samples or page layouts in, faces out.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from translation.read.layout import PageLayout

#: A face is monospaced when the advances of its letters and digits stay within this share of
#: each other (a proportional face's "i" and "m" differ twofold; rounding and kerning a
#: typewriter face's by a few hundredths) ...
SPREAD = 1.1
#: ... over at least this many different characters, a narrow and a wide one among them.
MIN_CHARS = 6
NARROW = frozenset("iljtf1I")
WIDE = frozenset("mwMW@")

#: A span shows its face's pitch from this many measured letters or digits on.
SPAN_GLYPHS = 3

#: One glyph as measured: its face, its character, its advance and the unit it is measured in
#: (the median advance of its span's letters and digits).
Sample = tuple[str, str, float, float]


@dataclass(frozen=True, slots=True)
class Pitches:
    """The faces measured monospaced, and every face measured at all (monospaced or not)."""

    mono: frozenset[str] = frozenset()
    measured: frozenset[str] = frozenset()

    def is_mono(self, face: str, flagged: bool) -> bool:
        """Whether ``face`` sets code: as measured, or where it was too little shown to be
        measured, as its font says of itself (``flagged``: the PDF's fixed-pitch flag)."""
        return face in self.mono if face in self.measured else flagged


def measure(samples: Iterable[Sample]) -> Pitches:
    """The pitches of the faces of ``samples`` (module doc); only ASCII letters and digits
    count (a CJK face sets its ideographs on one em, which says nothing of code; a
    typewriter face's hyphen or a mark may come from another glyph than its own)."""
    found: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for face, char, advance, unit in samples:
        if char.isascii() and char.isalnum() and unit > 0 and advance > 0:
            found[face][char].append(advance / unit)
    mono, measured = set(), set()
    for face, by_char in found.items():
        chars = set(by_char)
        if len(chars) < MIN_CHARS or not (chars & NARROW and chars & WIDE):
            continue
        measured.add(face)
        widths = [statistics.median(values) for values in by_char.values()]
        if max(widths) <= SPREAD * min(widths):
            mono.add(face)
    return Pitches(frozenset(mono), frozenset(measured))


def layout_samples(
    pages: Sequence[PageLayout], face: Callable[[str], str] | None = None
) -> Iterable[Sample]:
    """The letters and digits of ``pages`` whose advance the reader measured from their origin
    to the next glyph's (``Span.advances``; a span's last glyph runs to its box's end, and a
    span without advances, as OCR gives, shows nothing), in spans of :data:`SPAN_GLYPHS` such
    glyphs or more, each against its span's median; its face named by ``face`` (a function of
    the font name; the name itself by default)."""
    name = face or str
    for page in pages:
        for block in page.blocks:
            for line in block.lines:
                for span in line.spans:
                    if len(span.advances) != len(span.text):
                        continue
                    pairs = [
                        (char, advance)
                        for char, advance in zip(span.text[:-1], span.advances[:-1], strict=True)
                        if char.isascii() and char.isalnum() and advance > 0
                    ]
                    if len(pairs) < SPAN_GLYPHS:
                        continue
                    base = name(span.font)
                    unit = statistics.median(advance for _, advance in pairs)
                    for char, advance in pairs:
                        yield base, char, advance, unit
