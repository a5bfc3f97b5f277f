"""Measures of type that every reading rule shares, one definition each: how tall a glyph is
from its font size, when a line is indented, a line step (the distance between baselines),
and when two font sizes are one size or two.

Sizes are a span's font size in points; fractions here are "of the font size" unless they
say points. Rules of one stage keep their own thresholds beside them; what several stages
measure alike lives here, so that a rule written for one paper measures as the others do.
"""

from __future__ import annotations

from typing import Protocol

# --- a glyph's height from its font size ------------------------------------------------------

#: How far a character's box reaches above its baseline: capitals and ascenders (about 0.7)
#: with the font's own margin, as PyMuPDF draws its boxes.
ASCENT = 0.8
#: How far a character's box reaches below its baseline: descenders.
DESCENT = 0.25
#: A character's box (and an OCR'd line's ink), ascender top to descender foot: 1.05 sizes.
GLYPH_HEIGHT = ASCENT + DESCENT
#: The ink of a row's main-size glyphs, tighter than their boxes (where a row is, not where a
#: character's box is; taking ASCENT and DESCENT instead changes how 55 corpus papers read):
#: capitals reach this far above the baseline (a tall box from scripts does not count) ...
INK_TOP = 0.75
#: ... and descenders this far below it; also where a baseline lies over a line box's foot.
INK_FOOT = 0.22

# --- sub- and superscripts, spaces ----------------------------------------------------------

#: A span smaller than this share of a line's size is set as a script (TeX sets them at 0.7,
#: Word at 0.65), when it also stands off the baseline ...
SCRIPT = 0.85
#: ... by more than this share of the line's size.
SCRIPT_SHIFT = 0.12
#: Glyphs this far apart (of the size) are two words: a thin space is a sixth of an em, the
#: tracking inside a word far less.
WORD_SPACE = 0.15

# --- indented -----------------------------------------------------------------------------------

#: A line is indented when it starts this far right of the line it is read against: a first
#: line's indent is about one em; less is ragged alignment or a wider first glyph.
INDENT = 0.8


def indented(x0: float, than: float, size: float) -> bool:
    """Whether a line starting at ``x0`` starts indented from one starting at ``than``."""
    return x0 > than + INDENT * size


def outdented(x0: float, than: float, size: float) -> bool:
    """Whether a line starting at ``x0`` starts left of one starting at ``than`` by an indent
    (a hanging indent's first line, a new entry)."""
    return x0 < than - INDENT * size


# --- a line step ------------------------------------------------------------------------------

#: Baseline distance of consecutive lines, of the font size, where no pair of lines tells:
#: single spacing as TeX and Word set it.
DEFAULT_LEADING = 1.2


class OnBaseline(Protocol):
    """Anything set on a baseline (a row, a table line), in frame y (down)."""

    @property
    def baseline(self) -> float: ...


def line_step(upper: OnBaseline, lower: OnBaseline) -> float:
    """How far ``lower``'s baseline lies below ``upper``'s: a line step (negative when it
    stands above)."""
    return lower.baseline - upper.baseline


#: Points: the body size assumed where none is known (a typical paper's).
USUAL_SIZE = 10.0

# --- one size or two --------------------------------------------------------------------------

#: Points within which two sizes are one size (a size rounded or scaled apart by the producer).
SAME_SIZE = 0.3
#: Points within which two lines are set in one size: lines of one paragraph, cell or list
#: (their sizes rounded apart, a script raising a line's size).
ONE_SIZE = 0.5
#: Points by which a size must differ from another to be another size of type (a heading over
#: body text, small print under it).
SIZE_STEP = 0.8
#: Points by which a line smaller than the body text is small print (a footnote, a credit).
SMALL_PRINT = 0.5
