"""A bibliography without a heading: a numbered list of entries ("[1] A. Author, J. Phys. 12,
345 (2001).", "[2] ...") or an author-year list ("Burke, R.J. (1988), "Some antecedents ...",
Journal of ...", often set hanging) that no "References" heading opens (letters, short
communications, a Word document's endnotes, a page cut out of a paper).

:func:`find_unheaded_references` finds such lists among a document's classified paragraphs
(:class:`~translation.read.references.entries.Piece`), apart from the sections
:func:`~translation.read.references.entries.find_references` found and the lists a references
heading opens (that decision is its own). A numbered list counts when it is numbered from 1
without a gap, holds at least :data:`MIN_ENTRIES` entries, and its entries read like
references: a year or a venue each, most of them an author list after the number. A numbered
list of the body (steps, findings) has no author lists. An author-year list counts when
:data:`MIN_ENTRIES` paragraphs or more in a row each open with an author list and give a year
within their first words (:data:`_YEAR_HEAD`), most of them a venue too: a paragraph of the
body may open with names ("The Transformer, ...") but seldom with a year after them, five
times in a row. Pure logic, no PyMuPDF.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from translation.read.numbering.grammar import ENTRY_NUMBER
from translation.read.references.entries import (
    REFS_HEADING_RE,
    Piece,
    has_venue,
    is_entry,
    starts_entry,
)
from translation.read.words.word import WORD_RE, ends_sentence

#: The fewest entries a list without a heading needs to be taken for a bibliography.
MIN_ENTRIES = 5
#: Of the entries, the share that must read like references, and the share that must name
#: their authors first.
_ENTRY_SHARE, _AUTHOR_SHARE = 0.8, 0.6
#: Of a run that goes on with a bibliography's numbering, the share of entries that must read
#: like references (the numbering is evidence already; an entry cut by a column reads less).
_CONTINUED_SHARE = 0.5
_NUMBER_RE = re.compile(
    rf"^\s*(?:\[({ENTRY_NUMBER})\]|\(({ENTRY_NUMBER})\)|({ENTRY_NUMBER})\.(?=\s))\s*"
)
_LABEL_ONLY_RE = re.compile(rf"^\s*(?:\[{ENTRY_NUMBER}\]|\({ENTRY_NUMBER}\)|{ENTRY_NUMBER}\.)\s*$")
#: An author-year entry gives its year within this many characters of its start (after the
#: authors' names: "Folkard, S., Waterhouse, J.M. and Minors, D.S. (1985), ...").
_YEAR_HEAD = 160
_YEAR_RE = re.compile(r"(?<![\d.])(?:1[5-9]|20)\d\d[a-z]?(?!\d)")


def _number(text: str) -> int | None:
    match = _NUMBER_RE.match(text)
    if not match:
        return None
    return int(next(group for group in match.groups() if group))


def find_unheaded_references(pieces: Sequence[Piece], taken: Collection[int]) -> list[range]:
    """The spans of ``pieces`` that are numbered bibliographies without a heading (module
    doc); ``taken``: indices already in a references section, never part of one."""
    spans: list[range] = []
    i = 0
    while i < len(pieces):
        if i not in taken and not pieces[i].skipped and not _under_references_heading(pieces, i):
            span = (
                _list_from(pieces, i, taken)
                if _number(pieces[i].text) == 1
                else _author_year_from(pieces, i, taken)
            )
            if span is not None:
                spans.append(span)
                spans.extend(_continued(pieces, span, taken))
                i = spans[-1].stop
                continue
        i += 1
    return spans


def _continued(pieces: Sequence[Piece], span: range, taken: Collection[int]) -> list[range]:
    """The runs that go on with the numbered list ``span`` after other text (the list's next
    column, set beside the end of the body: "[17]" after the acknowledgements), each opening
    with the next number on the list's last page or the page after, its entries read as
    references too. Empty for an author-year list."""
    found: list[range] = []
    while True:
        last = _last_number(pieces, span)
        if last is None:
            return found
        start = _next_entry(pieces, span.stop, pieces[span.stop - 1].page + 1, last + 1, taken)
        if start is None:
            return found
        more = _list_from(pieces, start, taken, last + 1, 1, _CONTINUED_SHARE)
        if more is None:
            return found
        found.append(more)
        span = more


def _next_entry(
    pieces: Sequence[Piece], start: int, last_page: int, number: int, taken: Collection[int]
) -> int | None:
    """The first piece from ``start`` on, up to page ``last_page`` (pieces are in reading
    order: the scan stops there), that opens entry ``number``."""
    for j in range(start, len(pieces)):
        piece = pieces[j]
        if piece.page > last_page:
            return None
        if j not in taken and not piece.skipped and _number(piece.text) == number:
            return j
    return None


def _last_number(pieces: Sequence[Piece], span: range) -> int | None:
    """The highest entry number that opens a piece of ``span`` (None: no numbered entry)."""
    numbers = [n for j in span if (n := _number(pieces[j].text)) is not None]
    return max(numbers) if numbers else None


def _author_year(piece: Piece) -> bool:
    """Whether ``piece`` opens an author-year entry: an author list first, a year soon."""
    return (
        not piece.heading
        and _number(piece.text) is None
        and starts_entry(piece.text)
        and _YEAR_RE.search(piece.text[:_YEAR_HEAD]) is not None
    )


def _author_year_from(pieces: Sequence[Piece], start: int, taken: Collection[int]) -> range | None:
    """The author-year list of entries that begins at ``start``, if it reads as a
    bibliography (module doc). An entry may go on in the next paragraphs (a page or column
    break inside it)."""
    if not _author_year(pieces[start]):
        return None
    texts: list[str] = []
    stop = start
    for j in range(start, len(pieces)):
        piece = pieces[j]
        if j in taken:
            break
        if piece.skipped:
            continue
        if _author_year(piece):
            texts.append(piece.text)
            stop = j + 1
        elif texts and _goes_on(texts[-1], piece):
            texts[-1] += " " + piece.text
            stop = j + 1
        else:
            break
    if len(texts) < MIN_ENTRIES:
        return None
    if sum(has_venue(text) for text in texts) < _ENTRY_SHARE * len(texts):
        return None
    return range(start, stop)


def _under_references_heading(pieces: Sequence[Piece], start: int) -> bool:
    """Whether a "References" heading opens the list at ``start``: then the list was judged
    with its section (and found doubtful, or it would be taken), not to be judged again."""
    before = next((p for p in reversed(pieces[:start]) if not p.skipped), None)
    return before is not None and before.heading_like and bool(REFS_HEADING_RE.match(before.text))


def _list_from(
    pieces: Sequence[Piece],
    start: int,
    taken: Collection[int],
    first: int = 1,
    least: int = MIN_ENTRIES,
    share: float = _ENTRY_SHARE,
) -> range | None:
    """The numbered list of entries that begins at ``start`` with entry ``first``, if it
    reads as a bibliography (``least`` entries at least, ``share`` of them reading like
    references). An entry's text may come apart from
    its number (a label set alone) and may go on in the next paragraphs (a page or column
    break inside it)."""
    texts: list[str] = []  # one per entry, its number cut off
    expected, stop, label_apart = first, start, False
    for j in range(start, len(pieces)):
        piece = pieces[j]
        if j in taken:
            break
        number = _number(piece.text)
        if piece.skipped:
            if number == expected and _LABEL_ONLY_RE.match(piece.text):
                label_apart, expected = True, expected + 1
                texts.append("")
            continue
        if label_apart:
            texts[-1], label_apart, stop = piece.text, False, j + 1
        elif number == expected:
            texts.append(_NUMBER_RE.sub("", piece.text, count=1))
            expected, stop = expected + 1, j + 1
        elif texts and _goes_on(texts[-1], piece):
            texts[-1] += " " + piece.text
            stop = j + 1
        else:
            break
    if len(texts) < least:
        return None
    entries = sum(is_entry(text, labelled=True) for text in texts)
    authors = sum(starts_entry(text) for text in texts)
    if entries < share * len(texts) or authors < _AUTHOR_SHARE * len(texts):
        return None
    return range(start, stop)


#: The rest of an unfinished entry has fewer words than this (running text more).
_ENTRY_REST_WORDS = 12


def _goes_on(entry: str, piece: Piece) -> bool:
    """Whether ``piece`` is the rest of the unfinished ``entry`` (not a heading, not a
    paragraph of running text)."""
    if piece.heading or ends_sentence(entry):
        return False
    return (
        is_entry(piece.text, labelled=True) or len(WORD_RE.findall(piece.text)) < _ENTRY_REST_WORDS
    )
