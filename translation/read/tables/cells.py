"""Table cells in a visual row: where a row is cut into cells (wide gaps, a table's column
gutters, a text cell followed by numbers), and the lines of one multi-line cell stacked."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from translation.read.layout import Rect, Span
from translation.read.numbering.grammar import (
    ASCII_DIGIT,
    BULLET_SHAPES,
    BULLETS,
    DASHES,
    DIGITS,
    LETTER,
    LETTER_ITEM,
    PRIVATE_USE,
    ROMAN_RUN,
)
from translation.read.tables.number_columns import lines_up
from translation.read.tables.table_rows import EDGE_SLACK, crosses
from translation.read.words.stretched_spaces import ink_measured, stretched_gaps
from translation.read.words.word import has_letters

# A section number or list marker set apart from its text is a label, not a table cell.
_LABEL_RE = re.compile(
    rf"^\s*({DIGITS}(\.{DIGITS})*\.?|{LETTER}(\.{DIGITS})*\.?|{ROMAN_RUN}\.|"
    rf"[{BULLETS}{BULLET_SHAPES}{DASHES}*\-{PRIVATE_USE}]|"
    rf"\(?(?:{LETTER_ITEM}|{ASCII_DIGIT}){{1,3}}[.)])\s*$"
)
_NUMERIC_RE = re.compile(r"^[\s\d.,:;%±+\-−–()\[\]/*×]*$")
_NUMBER_RE = re.compile(r"^\(?[-+−±]?\d+(?:[.,]\d+)*%?\)?[*†‡]?$")
# Relation and operator signs of an inline formula (never a cell of running text alone).
_RELATIONS = frozenset("=<>≤≥≈≃∼≡≠±×→←↔∈∉⊂⊆∝+−·⇒")
# Arrows set between two words ("Source → Target"): one cell, never a column's edge.
_ARROWS = frozenset("→←↔⇒⇐⇔⟶⟵⟷↦")
# A citation's year with its punctuation ("1983;", "(2020)", "2007).").
_CITED_YEAR_RE = re.compile(r"^\(?(1[89]|20)\d\d[a-z]?\)?[.,;:)]*$")

_TOUCHING = 0.3  # points: spans this close are one word
_WIDE_GAP = 2.5  # font sizes: a wider gap parts two cells ...
_NUMBER_GAP = 1.0  # ... and this wide one where a number stands beside it
_SPACE = 0.4  # font sizes: a gap in a column gutter wider than this is no word space ...
_WIDE_SPACE = 0.75  # ... and than this between two full-width letters


def _full_width(text: str) -> bool:
    """Whether ``text`` starts with a letter of a script set full width (Hangul, Han, kana)."""
    return bool(text) and unicodedata.east_asian_width(text[0]) in ("W", "F")


def cell_gaps(
    spans: Sequence[tuple[Rect, Span]], gaps: Sequence[tuple[float, float]]
) -> list[tuple[float, float]]:
    """The ``gaps`` between MuPDF lines that part cells: not one after a sentence's end (a
    justified line of running text or of a reference list stretches its spaces there: "Bad for
    Graph Representation?  arXiv preprint", 04 p10)."""
    kept = []
    for gap in gaps:
        left = [
            (box[2], s.text) for box, s in spans if box[2] <= gap[0] + EDGE_SLACK and s.text.strip()
        ]
        if not left or max(left)[1].rstrip()[-1:] not in ".?!;:,":
            kept.append(gap)
    return kept


def _cited_year(before: str, after: str) -> bool:
    """Whether the words on either side of a gap are running text with a citation's year on
    one side of it."""
    left, right = before.split()[-1:], after.split()[:1]
    if not left or not right:
        return False
    years = [_CITED_YEAR_RE.match(w) is not None for w in (left[0], right[0])]
    return any(years) and has_letters(before + after)


def _beside_relation(before: str, after: str) -> bool:
    """Whether a gap lies beside an inline formula's relation or operator sign."""
    return before.rstrip()[-1:] in _RELATIONS or after.lstrip()[:1] in _RELATIONS


def _arrow_between(before: str, word: str, after: str) -> bool:
    """Whether a gap between ``before`` and ``word`` (``after``: the text after ``word``)
    lies beside an arrow set between two words: a header "Source →Target" over two columns
    of numbers is one cell, though its arrow stands at their gutter (05 p6)."""
    left, right = before.rstrip(), word.strip()
    if right[:1] in _ARROWS:
        return has_letters(left[-1:]) and has_letters((right[1:] or after.lstrip())[:1])
    if left[-1:] in _ARROWS:
        return has_letters(left[:-1].rstrip()[-1:]) and has_letters(right[:1])
    return False


def _stretched_spaces(
    spans: Sequence[tuple[Rect, Span]], gutters: Sequence[tuple[float, float]]
) -> set[int]:
    """The indices of the spans after a justified line's stretched word space
    (``translation.read.words.stretched_spaces``), in each stretch of the row between ``gutters``
    (the whole row without them); touching pieces ("al." and ",") are one word."""
    words: list[tuple[float, float, str, float, int]] = []  # x0, x1, text, size, first span
    for k, (box, span) in enumerate(spans):
        if not span.text.strip():
            continue
        if (
            words
            and box[0] <= words[-1][1] + _TOUCHING
            and not crosses(gutters, words[-1][1], box[0])
        ):
            x0, x1, text, size, first = words[-1]
            words[-1] = (x0, max(x1, box[2]), text + span.text, max(size, span.size), first)
        else:
            words.append((box[0], box[2], span.text, span.size, k))
    runs: list[list[tuple[float, float, str, float, int]]] = []
    for word in words:
        if runs and not crosses(gutters, runs[-1][-1][1], word[0]):
            runs[-1].append(word)
        else:
            runs.append([word])
    found: set[int] = set()
    inked = ink_measured(s.font for _, s in spans)
    for run in runs:
        size = sorted(w[3] for w in run)[len(run) // 2]
        gaps = stretched_gaps([(w[0], w[1], w[2]) for w in run], size, inked)
        found.update(run[g + 1][4] for g in gaps)
    return found


_NUMBERS_LEAST = 3  # numbers: a piece's tail of this many is a row's cells


def split_cells(
    spans: list[tuple[Rect, Span]],
    gutters: Sequence[tuple[float, float]] = (),
    prose: bool = False,
    tight: Sequence[tuple[float, float]] = (),
    columns: Sequence[tuple[float, float]] = (),
) -> list[list[tuple[Rect, Span]]]:
    """Cut a row at wide gaps and at gaps in a table's ``gutters`` (table cells); a text cell
    followed by three or more numbers is cut before the numbers even when they touch (a table
    row set tight). A header of one word per column of numbers is cut at the ``tight``
    gutters too, unless one of its words stands over none of the table's ``columns`` of
    numbers (x-ranges; a header spanning columns is one cell); an arrow set a word space
    from the words on both sides of it joins them across a gutter. A section number before a
    heading is not a cell, and in ``prose`` (a row of a paragraph, not of a table) neither is
    a run-in heading's sentence before a wide gap (02 p2 "Entity-entity relations.      While
    mention-")."""
    pieces: list[list[tuple[Rect, Span]]] = [[]]
    right: float | None = None
    # A header of one word per column of numbers is cut at its word spaces (``tight``); a
    # header spanning the ``columns`` of numbers is one cell however they are cut.
    aligned = lines_up([(b, s) for b, s in spans if s.text.strip()], tight, gutters, columns)
    stretched = _stretched_spaces(spans, gutters)
    for k, (box, span) in enumerate(spans):
        if not span.text.strip():
            if pieces[-1]:
                pieces[-1].append((box, span))
            continue
        if right is not None and pieces[-1]:
            gap = box[0] - right
            before = "".join(s.text for _, s in pieces[-1])
            numeric = not has_letters(span.text) or not has_letters(before)
            label = len(pieces) == 1 and _LABEL_RE.match(before)
            # A relation sign set apart in a justified cell ("WxL      =") is no number cell.
            numeric = numeric and not _beside_relation(before, span.text)
            wide = gap > _WIDE_GAP * span.size or (gap > _NUMBER_GAP * span.size and numeric)
            # A justified line of a cell's running text stretches all its word spaces alike,
            # those beside a bracket or a year too ("sciSpaCy   (Neumann   et   al.,   2019)").
            wide = wide and k not in stretched
            if prose and not numeric and before.rstrip()[-1:] in ".:?!":
                wide = False
            # A justified line stretches its spaces beside a citation's year too ("(McKeown
            # 1983;   Kozlowski, McCoy, and Vijay-Shanker   2003;"): no number cell in prose.
            if prose and gap <= _WIDE_GAP * span.size and _cited_year(before, span.text):
                wide = False
            # TeX stretches the spaces around a relation in an inline formula with the line's
            # ("as p1:s   =   (p1, ..., ps)"): an operator there is no number cell in prose.
            if prose and gap <= _WIDE_GAP * span.size and _beside_relation(before, span.text):
                wide = False
            # An ampersand is a word of the sentence, no number cell ("Row, Column,   &   Global
            # Positional IDs.", a justified bold lead: 04 p7).
            if (
                prose
                and gap <= _WIDE_GAP * span.size
                and "&" in (before.strip()[-1:], span.text.strip())
            ):
                wide = False
            # In a table, a gap in a column gutter divides cells unless it is a word space
            # (a header spanning columns).
            # (A word space between two full-width letters is estimated at half a letter.)
            space = (
                _WIDE_SPACE
                if _full_width(before.rstrip()[-1:]) and _full_width(span.text)
                else _SPACE
            )
            column = (gap > space * span.size and crosses(gutters, right, box[0])) or (
                aligned and crosses(tight, right, box[0])
            )
            if column and gap <= span.size:
                after = next((s.text for _, s in spans[k + 1 :] if s.text.strip()), "")
                column = not _arrow_between(before, span.text, after)
            if not label and (wide or column):
                pieces.append([])
        pieces[-1].append((box, span))
        right = box[2] if right is None else max(right, box[2])
    result: list[list[tuple[Rect, Span]]] = []
    for piece in pieces:
        cut = len(piece)
        while cut > 0 and _NUMERIC_RE.match(piece[cut - 1][1].text):
            cut -= 1
        tail = " ".join(s.text for _, s in piece[cut:])  # a table row's words hold no spaces
        head = "".join(s.text for _, s in piece[:cut])
        numbers = tail.split()
        if (
            0 < cut < len(piece)
            and len(numbers) >= _NUMBERS_LEAST
            and all(_NUMBER_RE.match(t) for t in numbers)
            and has_letters(head)
        ):
            result.extend([piece[:cut], piece[cut:]])
        else:
            result.append(piece)
    return result
