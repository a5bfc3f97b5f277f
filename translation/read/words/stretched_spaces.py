"""Stretched spaces: the word spaces of a justified line, widened alike to fill it.

A justified line of running text inside a table cell may be set word by word, its spaces
stretched past a font size ("SentencePredictor   wraps   sciSpaCy   (Neumann   et   al.,
2019)   and"). Such a gap is no gap between cells: the gaps between a table's cells differ
with the cells' widths, while a justified line's spaces are all alike between words of
any width. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Gaps between words of letters a run must hold to be a justified line's.
_MIN_SPACES = 3
#: Words a line may hold for its spaces to be looked at: no line of a page holds more, and
#: the search is quadratic in them (a crafted row of thousands of words would stall it).
_MOST_WORDS = 400
#: Stretched spaces of one line differ by at most this many points, or this share of the font
#: size if more.
EVEN_SLACK, EVEN_SPACES = 0.5, 0.05


def stretched_gaps(words: Sequence[tuple[float, float, str]], size: float) -> set[int]:
    """The indices ``k`` of the gaps (between ``words[k]`` and ``words[k + 1]``; each word an
    x-range and its text, in x order) that are a justified line's stretched word spaces: the
    gaps of a run of consecutive gaps all about as wide (within half a point, or a twentieth
    of the font ``size``, of each other) holding at least three gaps between words of
    letters, between words of different widths (a font size apart at least: a header of one
    word per column, "CLS  USR  CITE  REC", has gaps alike where its columns are evenly
    spaced and its words about as wide). Gaps beside a bracket, a year or a number in that
    run are such spaces too. A row of more than _MOST_WORDS words has none."""
    if len(words) > _MOST_WORDS:
        return set()
    gaps = [b[0] - a[1] for a, b in zip(words, words[1:], strict=False)]
    letters = [
        _has_letters(a[2]) and _has_letters(b[2]) for a, b in zip(words, words[1:], strict=False)
    ]
    slack = max(EVEN_SLACK, EVEN_SPACES * size)
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


def _has_letters(text: str) -> bool:
    return any(c.isalpha() for c in text)
