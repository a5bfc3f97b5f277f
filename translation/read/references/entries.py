"""The references section: which paragraphs of a document are its bibliography.

A heading with the word "References" is not enough: a body subsection may be called that (a
guide on how to cite). The decision is made once for the whole document, from its classified
paragraphs (:class:`Piece`), by :func:`find_references`:

* a candidate is a short heading-like paragraph named like a bibliography ("References",
  "Bibliography", "참고문헌", optionally numbered);
* its section ends at the next heading of the same or a higher level (numbering first, then
  typography), at an appendix heading, or where the paragraphs stop reading like entries;
* it counts only when what it holds reads as reference entries (a label ``[12]``/``12.`` or an
  author list at the start, and a year, a venue, a DOI, a URL...), and when no body section of
  the paper's own numbering follows it unless it is a long list of entries (a thesis chapter's);
* of several, the last one is the bibliography, with the earlier ones that an appendix closes
  or that are long lists of entries;
* a section that would cover more than a third of the pages before the appendix is checked
  again, page by page; when in doubt, nothing is kept out of the translation.

Pure logic, no PyMuPDF.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from translation.read.measures import ONE_SIZE
from translation.read.numbering.grammar import (
    DIGITS,
    ENTRY_NUMBER,
    LETTER,
    LEVEL,
    LOOSE_NUMBER,
    NUMBER,
    ROMAN_SECTION,
)
from translation.read.words.word import WORD_RE, ends_sentence

REFS_HEADING_RE = re.compile(
    rf"^(?:{LOOSE_NUMBER}\.?\s+)?(references?|bibliography|works\s+cited|literature\s+cited|"
    r"reference\s+list|참고\s*문헌|参考文献|參考文獻)\s*:?$",
    re.IGNORECASE,
)
APPENDIX_RE = re.compile(
    rf"^(?:{LETTER}(?:\.{DIGITS})*\.?\s+)?(appendix|appendices|supplementary|supplemental)\b", re.I
)

# Section numbering: "3.", "3.2", "B.", "B.1", "II." (a letter or Roman numeral needs its dot:
# "A Study of..." is a title, not section A).
_ARABIC_RE = re.compile(rf"^({NUMBER}(?:{LEVEL})*)\.?\s+\S")
_ROMAN_RE = re.compile(rf"^({ROMAN_SECTION})\.\s+\S")
_LETTER_RE = re.compile(rf"^({LETTER})(?:((?:{LEVEL})+)\.?|\.)\s+\S")
# After a bibliography, "A Dataset release" is appendix A (ACL and NeurIPS set no dot).
_SECTION_LETTER_RE = re.compile(rf"^{LETTER}(?:{LEVEL})*\.?\s+[A-Z]")

# "2018. His research..." opens a line that goes on a sentence ("... in fall"): a year with its
# full stop is not an entry's number.
_LABEL_RE = re.compile(
    rf"^\s*(?:\[{ENTRY_NUMBER}\]|\({ENTRY_NUMBER}\)|(?!(?:19|20)\d\d\.){ENTRY_NUMBER}\.(?=\s+\S))\s*"
)
_LABEL_ONLY_RE = re.compile(rf"^\s*(?:\[{ENTRY_NUMBER}\]|\({ENTRY_NUMBER}\)|{ENTRY_NUMBER}\.)\s*$")
_NAME = r"(?:[A-Z][\w'’`´¨˚ˇ.-]*|van|von|der|de|den|da|di|du|del|dos|le|la)"
_AUTHOR_RE = re.compile(
    rf"""^(?:
        [A-Z][\w'’`-]+,\s+(?:[A-Z]\.|[A-Z][a-z]+)                   # Surname, A. / Surname, Ann
      | (?:[A-Z]\.\s?)+(?:-\s?[A-Z]\.\s?)?[A-Z][\w'’`-]+              # A. Surname
      | [A-Z][\w'’`-]+\s[A-Z]{{1,3}}[,.]                              # Surname AB,
      | {_NAME}(?:\s+{_NAME}){{1,4}}(?:,|\s+and\s|\s+et\s+al|\.?\s+(?:19|20)\d\d)  # Ann Lee,
      | [\u3400-\u9fff\uac00-\ud7af]{{2,4}}\s?[,，、・·.．(（]                   # 김창호, 山田(
    )""",
    re.VERBOSE,
)
_YEAR_RE = re.compile(r"(?<![\d.])(?:19|20)\d{2}[a-z]?(?![\d])")
_VENUE_RE = re.compile(
    r"\b(?:In\s+Proc|Proceedings|Conference|Workshop|Symposium|Journal|Transactions|Trans\.|"
    r"arXiv|preprint|doi|DOI|ISBN|ISSN|pp\.|vol\.|Vol\.|pages?\s+\d|Press|Rev\.|Lett\.|"
    r"ACM|IEEE|Springer|Elsevier)|\d+\s*\(\d+\)\s*[:,]\s*\d+|\d+\s*[–-]\s*\d+|"
    r"\[[JMCDRSPNZ]\]|[「『《]|https?://|www\.|"
    # An arXiv identifier of the old scheme, archive/YYMMNNN ("astro-ph/0003365").
    r"\b[a-z]+(?:-[a-z]+)?(?:\.[A-Z]{2})?/\d{4}\.?\d{3}"
)

#: Paragraphs of at least this many words that do not read like entries end a references
#: section when this many come in a row.
_STOP_WORDS, _STOP_RUN = 12, 3
#: How many of a section's first paragraphs decide whether it holds entries.
_SAMPLE = 10
#: A section of at least this many entries (and little else) is a bibliography wherever it is.
_LONG_LIST = 5
#: Points by which an entry's continuation may differ in size from the entry (sub- and
#: superscripts, a rounded size).
_SIZE_SLACK = 1.0
#: A section covering more than this share of the pages before the appendix is checked twice.
_PLAUSIBLE_SHARE = 1 / 3
#: Of a section's first paragraphs, the share that must read like entries (two at least).
_SAMPLE_SHARE = 0.5
#: Of a long list's paragraphs, the share that must be entries.
_LONG_LIST_SHARE = 0.8
#: Of a section checked page by page, the share of entries each page needs ...
_PAGE_SHARE = 0.6
#: ... and the share of entries of the whole section.
_ENTRY_SHARE = 0.7


@dataclass(frozen=True, slots=True)
class Piece:
    """What the references decision needs of one paragraph, in document order."""

    page: int
    #: The text as printed (URLs and formulas in place, not as placeholders).
    text: str
    #: Classified as a heading (short, bold or larger, no sentence end).
    heading: bool
    #: Short enough to be a heading (at most two lines and a dozen words).
    heading_like: bool
    size: float
    bold: bool
    #: Not translated anyway (an equation, code, no words): ignored here.
    skipped: bool = False


@dataclass(frozen=True, slots=True)
class _Number:
    scheme: str  # "arabic", "roman" or "letter"
    depth: int  # "3" 1, "3.2" 2; "B.1" is letter depth 2


def _numbering(text: str) -> _Number | None:
    """The section number a heading starts with, if any."""
    if _ROMAN_RE.match(text):
        return _Number("roman", 1)
    if match := _LETTER_RE.match(text):
        return _Number("letter", 1 + (match.group(2) or "").count("."))
    if match := _ARABIC_RE.match(text):
        return _Number("arabic", 1 + match.group(1).count("."))
    return None


def starts_entry(text: str) -> bool:
    """Whether a paragraph starts like a bibliography entry: a label or an author list."""
    rest = _LABEL_RE.sub("", text, count=1)
    return len(rest) < len(text) or bool(_AUTHOR_RE.match(rest))


def has_venue(text: str) -> bool:
    """Whether ``text`` names where a work appeared: "In Proceedings", a journal, pages, a
    volume, a DOI or a URL, a publisher."""
    return _VENUE_RE.search(text) is not None


def is_entry(text: str, labelled: bool = False) -> bool:
    """Whether a text reads like one or more bibliography entries: it starts with a label (or
    follows one set apart: ``labelled``) or an author list, and holds a year or a venue ("In
    Proceedings", a journal, pages, a DOI)."""
    evidence = _YEAR_RE.search(text) or _VENUE_RE.search(text)
    return (labelled or starts_entry(text)) and evidence is not None


def find_references(pieces: Sequence[Piece]) -> list[range]:
    """The spans of ``pieces`` (heading included) that make up the bibliography.

    The last section that reads as one; an earlier one too where an appendix closes it (the
    main bibliography before an appendix with its own) or where it holds many entries and
    little else (a thesis's chapters, a proceedings volume). Body sections may follow only such
    a long list, not a few entry-like paragraphs. Empty when there is none or when in doubt.
    """
    ranks = _ranks(pieces)
    found: list[_Section] = []
    for i, piece in enumerate(pieces):
        if piece.skipped or not piece.heading_like or not REFS_HEADING_RE.match(piece.text):
            continue
        section = _section(pieces, i, ranks)
        if not section.holds_entries():
            continue
        if section.long_list() or not _body_follows(pieces, section.span, ranks, i):
            found.append(section)
    kept = [s for s in found[:-1] if s.before_appendix or s.long_list()] + found[-1:]
    return [s.span for s in kept if s.plausible(pieces)]


@dataclass(slots=True)
class _Entry:
    """Consecutive paragraphs read as one entry (an entry may be split into lines)."""

    pieces: list[int]
    text: str
    labelled: bool

    @property
    def is_entry(self) -> bool:
        return is_entry(self.text, self.labelled)

    @property
    def bodylike(self) -> bool:
        return not self.is_entry and len(WORD_RE.findall(self.text)) >= _STOP_WORDS


@dataclass(slots=True)
class _Section:
    span: range
    entries: list[_Entry]
    #: Closed by an appendix heading.
    before_appendix: bool = False

    def holds_entries(self) -> bool:
        sample = self.entries[:_SAMPLE]
        found = sum(e.is_entry for e in sample)
        return found >= 2 and found >= _SAMPLE_SHARE * len(sample)

    def long_list(self) -> bool:
        """Many entries and little else: a bibliography wherever it stands."""
        found = sum(e.is_entry for e in self.entries)
        return found >= _LONG_LIST and found >= _LONG_LIST_SHARE * len(self.entries)

    def plausible(self, pieces: Sequence[Piece]) -> bool:
        """A bibliography rarely covers more than a third of the pages before the appendix
        (what follows it is appendix or back matter: body sections would have ruled it out);
        when it would, every page of it must read like entries."""
        first, last = pieces[self.span.start].page, pieces[self.span.stop - 1].page
        body_pages = last + 1 - pieces[0].page
        if last - first + 1 <= _PLAUSIBLE_SHARE * max(1, body_pages):
            return True
        for page in range(first, last + 1):
            here = [e for e in self.entries if pieces[e.pieces[0]].page == page]
            if here and sum(e.is_entry for e in here) < _PAGE_SHARE * len(here):
                return False
        return sum(e.is_entry for e in self.entries) >= _ENTRY_SHARE * len(self.entries)


def _ranks(pieces: Sequence[Piece]) -> dict[_Number, int]:
    """Numbering styles ranked by where they first appear (the index of that heading): the
    document's outer sections come first ("II." before "B." before "3."); an appendix's
    numbering comes after the bibliography."""
    ranks: dict[_Number, int] = {}
    for i, piece in enumerate(pieces):
        if piece.heading and not piece.skipped and (number := _numbering(piece.text)):
            ranks.setdefault(number, i)
    return ranks


def _appendix(pieces: Sequence[Piece], j: int, start: int, ranks: dict[_Number, int]) -> bool:
    """Whether the paragraph at ``j`` is an appendix heading after the heading at ``start``:
    named so, numbered in a style first seen after ``start``, or a letter ("A Dataset release")
    set as large as that heading."""
    piece = pieces[j]
    if piece.heading_like and APPENDIX_RE.match(piece.text):
        return True
    if not piece.heading:
        return False
    number = _numbering(piece.text)
    if number is not None and ranks.get(number, -1) > start:
        return True
    return (
        bool(_SECTION_LETTER_RE.match(piece.text)) and piece.size >= pieces[start].size - ONE_SIZE
    )


def _ends(pieces: Sequence[Piece], j: int, start: int, ranks: dict[_Number, int]) -> bool:
    """Whether the paragraph at ``j`` ends the section opened by the heading at ``start``: an
    appendix heading, a heading of the same or a higher level by numbering, or (without
    numbering to compare) by size."""
    heading, opening = pieces[j], pieces[start]
    if _appendix(pieces, j, start, ranks):
        return True
    if not heading.heading:
        return False
    theirs = _numbering(heading.text)
    mine = _numbering(opening.text)
    if mine is not None and theirs is not None and mine in ranks:
        return ranks[theirs] <= ranks[mine]
    return heading.size >= opening.size - ONE_SIZE


def _section(pieces: Sequence[Piece], start: int, ranks: dict[_Number, int]) -> _Section:
    """The section opened by the heading at ``start``, read as entries: up to the heading that
    ends it, or to the first of a run of paragraphs that do not read like entries."""
    entries: list[_Entry] = []
    labelled = False  # a label set apart ("[3]" alone on its line) opens the next entry
    stop = len(pieces)
    for j in range(start + 1, len(pieces)):
        piece = pieces[j]
        if piece.skipped:
            labelled = labelled or bool(_LABEL_ONLY_RE.match(piece.text))
            continue
        if _ends(pieces, j, start, ranks):
            stop = j
            break
        if piece.heading:
            continue
        last = entries[-1] if entries else None
        # An entry goes on in its own size: a larger paragraph after an entry ending in a URL
        # (an author's biography beside the list) starts something else.
        same_size = (
            last is not None and abs(piece.size - pieces[last.pieces[-1]].size) <= _SIZE_SLACK
        )
        if (
            last
            and same_size
            and not labelled
            and not starts_entry(piece.text)
            and not ends_sentence(last.text)
        ):
            last.pieces.append(j)
            last.text += " " + piece.text
        else:
            entries.append(_Entry([j], piece.text, labelled))
        labelled = False
    for k in range(len(entries) - _STOP_RUN + 1):
        if all(e.bodylike for e in entries[k : k + _STOP_RUN]):
            stop, entries = entries[k].pieces[0], entries[:k]
            floor = entries[-1].pieces[-1] if entries else start
            while stop - 1 > floor and (pieces[stop - 1].heading or pieces[stop - 1].skipped):
                stop -= 1  # the run's own heading is not a reference either
            break
    closed = stop < len(pieces) and _appendix(pieces, stop, start, ranks)
    return _Section(range(start, stop), entries, closed)


def _body_follows(
    pieces: Sequence[Piece], span: range, ranks: dict[_Number, int], start: int
) -> bool:
    """Whether the paper's own sections go on after the section: a heading numbered in a style
    the body used before ``start`` (so not an appendix) followed by running text."""
    end = span.stop
    if end >= len(pieces):
        return False
    heading = pieces[end]
    if APPENDIX_RE.match(heading.text):
        return False
    number = _numbering(heading.text)
    if not heading.heading or number is None or ranks.get(number, start) >= start:
        return False  # unnumbered (acknowledgements, checklist) or appendix-style numbering
    for piece in pieces[end + 1 :]:
        if piece.skipped or piece.heading:
            continue
        return not is_entry(piece.text) and len(WORD_RE.findall(piece.text)) >= _STOP_WORDS
    return False
