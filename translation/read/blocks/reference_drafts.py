"""Which drafts of a document are its references section (kept as they are unless asked for):
a bibliography under its heading, a numbered one without a heading, the paper's own citation
under the label that introduces it, but never the paper's own footnotes set among them."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from translation.read.blocks.draft import Draft, words_of
from translation.read.math.formulas import GLYPH
from translation.read.paragraph import ParagraphKind
from translation.read.references.entries import Piece, find_references, has_venue, is_entry
from translation.read.references.unheaded import find_unheaded_references


def reference_drafts(drafts: Sequence[Draft]) -> set[int]:
    """The indices of the drafts that make the references section."""
    pieces = [piece_of(d) for d in drafts]
    references = {i for span in find_references(pieces) for i in span}
    references.update(i for span in find_unheaded_references(pieces, references) for i in span)
    references.update(_cited_by_label(drafts))
    references -= _own_footnotes(drafts, references)
    return references


def _own_footnotes(drafts: Sequence[Draft], references: Collection[int]) -> set[int]:
    """The drafts of ``references`` that are the paper's own footnotes: small print opening
    with a raised marker, as the notes of the text are, set at the foot of its column below
    every entry of that page (an entry's number is never raised). They are translated."""
    own: set[int] = set()
    for i in references:
        draft = drafts[i]
        first = draft.rows[0]
        if draft.kind is not ParagraphKind.FOOTNOTE or first.classes.lstrip("n")[:1] != GLYPH:
            continue
        top = min(r.top for r in draft.rows)
        if not any(
            j != i
            and drafts[j].page == draft.page
            and drafts[j].rows[0].col == first.col
            and max(r.bottom for r in drafts[j].rows) > top
            for j in references
            if drafts[j].kind is not ParagraphKind.FOOTNOTE
        ):
            own.add(i)
    return own


#: A draft of a line or two and at most this many words may be a heading.
_HEADING_LIKE_WORDS = 12


def piece_of(draft: Draft) -> Piece:
    """What the references rules see of ``draft``
    (``translation.read.references.entries.Piece``)."""
    heading = draft.kind == ParagraphKind.HEADING
    text = draft.label + draft.text  # an entry's "[3]" is cut off as a label by classify
    for key, original in draft.placeholders.items():
        text = text.replace(key, original)
    return Piece(
        page=draft.page,
        text=text,
        heading=heading,
        heading_like=heading
        or (len(draft.rows) <= 2 and len(words_of(draft.text)) <= _HEADING_LIKE_WORDS),
        size=draft.rows[0].size,
        bold=draft.rows[0].bold,
        skipped=bool(draft.skip),
    )


#: A label that introduces the paper's own citation ("ACM Reference Format:", "Cite as:").
_CITE_LABEL_RE = re.compile(
    r"(?:reference format|cite (?:this|as)|to cite this (?:article|paper)|citation)\s*:?\s*$",
    re.IGNORECASE,
)


def _cited_by_label(drafts: Sequence[Draft]) -> list[int]:
    """The paper's own citation under the label that introduces it (ACM's "ACM Reference
    Format:" on the first page): a bibliography entry, kept as it is like the references."""
    return [
        i
        for i in range(1, len(drafts))
        if drafts[i].page == drafts[i - 1].page
        and _CITE_LABEL_RE.search(drafts[i - 1].text)
        and is_entry(drafts[i].text)
    ]


#: A note that is a citation alone has at most this many words (a long note cites and says
#: more, and is translated).
_CITATION_NOTE_WORDS = 40
#: A raised mark's text: a footnote's number or symbol.
_MARK_RE = re.compile(r"^[\d*∗†‡§¶]{1,3}$")


def citation_notes(drafts: Sequence[Draft]) -> list[int]:
    """Notes that are a bibliography entry and nothing more ("¹ Gebru, Timnit, et al.
    "Datasheets for datasets." Communications of the ACM 64.12 (2021): 86-92."): a block
    opening with a raised mark, the rest an entry (an author list first, a year and a venue
    in it), of at most :data:`_CITATION_NOTE_WORDS` words. Kept, as the references are, unless
    they are asked for; no references section for it (the pages said kept are the section's)."""
    found = []
    for i, draft in enumerate(drafts):
        if not draft.rows or draft.rows[0].classes.lstrip("n")[:1] != GLYPH:
            continue
        if draft.label:  # a footnote's mark, cut off as its label
            mark, rest = draft.label, draft.text
        else:  # a raised mark kept as a placeholder ("{v1} Gebru, ...")
            head, _, rest = draft.text.lstrip().partition(" ")
            mark = draft.placeholders.get(head, "")
        if not _MARK_RE.match(mark.strip()):
            continue
        for key, original in draft.placeholders.items():
            rest = rest.replace(key, original)
        if (
            len(words_of(rest)) <= _CITATION_NOTE_WORDS
            and is_entry(rest)
            and has_venue(rest)
            and _YEAR_RE.search(rest)
        ):
            found.append(i)
    return found


_YEAR_RE = re.compile(r"(?<![\d.])(?:19|20)\d{2}[a-z]?(?![\d])")
