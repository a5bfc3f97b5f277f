"""Stretched spaces: the word spaces of a justified line, widened alike to fill it.

A justified line of running text stretches its word spaces alike to reach the column's
edge, however wide that makes them (a line of a few words before a long one that would not
fit: "comes          back          whole"), and none of them parts it (:func:`justified_line`).
A justified line of running text inside a table cell may be set word by word, its spaces
stretched past a font size ("SentencePredictor   wraps   sciSpaCy   (Neumann   et   al.,
2019)   and"). Such a gap is no gap between cells: the gaps between a table's cells differ
with the cells' widths, while a justified line's spaces are all alike between words of
any width. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from translation.read.layout import OCR_FONT, OCR_MATH_FONT

#: The faces OCR'd spans carry (``translation.read.ocr.lines``).
_OCR_FONTS = frozenset((OCR_FONT, OCR_MATH_FONT))
#: Gaps between words of letters a run must hold to be a justified line's.
_MIN_SPACES = 3
#: Words a line may hold for its spaces to be looked at: no line of a page holds more, and
#: the search is quadratic in them (a crafted row of thousands of words would stall it).
_MOST_WORDS = 400
#: Stretched spaces of one line differ by at most this many points, or this share of the font
#: size if more.
EVEN_SLACK, EVEN_SPACES = 0.5, 0.05
#: ... or this share where the words are measured by their ink (an OCR'd line: a gap is the
#: space plus the side bearings of the letters beside it, which differ by letter).
INK_EVEN_SPACES = 0.2


def stretched_gaps(
    words: Sequence[tuple[float, float, str]], size: float, inked: bool = False
) -> set[int]:
    """The indices ``k`` of the gaps (between ``words[k]`` and ``words[k + 1]``; each word an
    x-range and its text, in x order) that are a justified line's stretched word spaces: the
    gaps of a run of consecutive gaps all about as wide (within half a point, or a twentieth
    of the font ``size``, of each other) holding at least three gaps between words of
    letters, between words of different widths (a font size apart at least: a header of one
    word per column, "CLS  USR  CITE  REC", has gaps alike where its columns are evenly
    spaced and its words about as wide). Gaps beside a bracket, a year or a number in that
    run are such spaces too. A row of more than _MOST_WORDS words has none. ``inked``: the
    words' ranges are their ink's (OCR), alike within a fifth of the size: a typewritten
    line's spaces, each one character wide, are such a run too."""

    if len(words) > _MOST_WORDS:
        return set()
    gaps = [b[0] - a[1] for a, b in zip(words, words[1:], strict=False)]
    letters = [
        _has_letters(a[2]) and _has_letters(b[2]) for a, b in zip(words, words[1:], strict=False)
    ]
    slack = max(EVEN_SLACK, (INK_EVEN_SPACES if inked else EVEN_SPACES) * size)
    found: set[int] = set()
    start = 0
    while start < len(gaps):
        end, low, high = start + 1, gaps[start], gaps[start]
        while end < len(gaps) and max(high, gaps[end]) - min(low, gaps[end]) <= slack:
            low, high = min(low, gaps[end]), max(high, gaps[end])
            end += 1
        widths = [b - a for a, b, _ in words[start : end + 1]]
        if sum(letters[start:end]) >= _MIN_SPACES and max(widths) - min(widths) >= size:
            found.update(range(start, end))
            start = end
        else:
            start += 1
    return found


def ink_measured(fonts: Iterable[str]) -> bool:
    """Whether spans of these ``fonts`` are words read by OCR, their boxes their ink's."""
    named = list(fonts)
    return bool(named) and all(font in _OCR_FONTS for font in named)


def _has_letters(text: str) -> bool:
    return any(c.isalpha() for c in text)


#: Gaps narrower than this (in font sizes) are no stretched spaces: glyphs set close, or a
#: span's own trailing space.
_WORD_GAP = 0.5
#: How many of its block's rows must end at its right edge for a block to be justified.
_FULL_ROWS = 3


#: A row reaches a justified block's right edge within this much of its font size.
_EDGE_REACH = 0.5
#: A justified line starts within this many font sizes of the block's left edge (an indent).
_INDENT_REACH = 3
#: Stretched gaps of one justified line are alike within this many points, or this share of
#: the font size: the justification spreads a line's slack evenly.
_ALIKE_PT, _ALIKE = 0.5, 0.05


def justified_line(
    words: Sequence[tuple[float, float, str]], size: float, edge: tuple[float, float]
) -> bool:
    """Whether a row of a paragraph (``words``: each an x-range and its text, in x order) is a
    justified line of running text, which no gap between its words may cut, however wide:
    it starts within three font sizes of the block's left ``edge`` (an indent) and reaches its
    right one (``(left, right)``), and its word gaps wider than half a font ``size``, two or
    more, are all alike (within half a point, or a twentieth of ``size``), each between words
    of letters. The block is justified where :func:`justified_edge` finds its edge."""
    if len(words) < 2 or words[-1][1] < edge[1] - _EDGE_REACH * size:
        return False
    if words[0][0] > edge[0] + _INDENT_REACH * size:
        return False
    gaps = [
        (b[0] - a[1], a[2], b[2])
        for a, b in zip(words, words[1:], strict=False)
        if b[0] - a[1] > _WORD_GAP * size
    ]
    # One wide gap alone is a label's beside its description as often (a definition list).
    if len(gaps) < 2 or not all(_has_letters(a) and _has_letters(b) for _, a, b in gaps):
        return False
    widths = [g for g, _, _ in gaps]
    return max(widths) - min(widths) <= max(_ALIKE_PT, _ALIKE * size)


def justified_edge(rights: Sequence[float], size: float) -> float | None:
    """The right edge of a justified block whose rows end at ``rights``: the rightmost, where
    :data:`_FULL_ROWS` rows or more end there (within half a font ``size``); None otherwise."""
    if not rights:
        return None
    edge = max(rights)
    full = sum(r >= edge - _EDGE_REACH * size for r in rights)
    return edge if full >= _FULL_ROWS else None
