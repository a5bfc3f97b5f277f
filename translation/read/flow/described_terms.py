"""Described terms: a list of terms, each a label set over its description.

A card's or a contract's terms list what each term covers as a label in the text's own size,
set bold on a line of its own ("전월 이용금액 기준"), and under it its description: a noun phrase
or a list of them, ended on purpose on no stop ("매월 1일부터 말일까지 이용한 일시불 및 할부
이용금액"), as Korean sets a term sheet. The label is a heading (its own unit); the description
under it is no sentence left open that a later box goes on: it is an entry of the list, a list
item, which goes on no sentence but an enumeration's (``links._goes_on``), as a definition
list's entries set one a line are (``links.line_series``).

Pure: drafts in, the indexes of the descriptions out.
"""

from __future__ import annotations

from collections.abc import Sequence

from translation.read.blocks.draft import Draft
from translation.read.measures import SIZE_STEP, line_step
from translation.read.paragraph import ParagraphKind
from translation.read.words.word import dangles, ends_sentence

#: A page's list of described terms holds this many at least (one is a heading and its text).
_TERMS = 2
#: Font sizes: a description's first line stands at most this far below its label's line ...
_UNDER = 3.0
#: ... starts this close to the label's x ...
_ALIGN = 0.5
#: ... and its last line ends at least this short of its column's edge (ended on purpose).
_SHORT = 2.0
#: Endings that leave a text open for the next box (a list that goes on, a cut word).
_OPEN_ENDS = (",", ";", ":", "-", "\u2010", "，", "、", "：", "；")


def described_terms(drafts: Sequence[Draft]) -> list[int]:
    """The body drafts that describe the terms of a list of them: each right after (in
    reading order) and right under a heading of one line in the description's own size (a
    term's label, not a section's title set larger), starting at the label's x, its first
    line at most :data:`_UNDER` sizes below it; opening with a word, ending inside a sentence
    on no comma, other open mark or word such as "and", its last line short of its column's
    edge; at least :data:`_TERMS` such on a page, their labels alike in size and weight."""
    found: dict[int, list[tuple[int, float, bool]]] = {}
    for k in range(1, len(drafts)):
        label, draft = drafts[k - 1], drafts[k]
        if _describes(label, draft):
            head = label.rows[0]
            found.setdefault(draft.page, []).append((k, head.size, head.bold))
    result: list[int] = []
    for entries in found.values():
        sizes = sorted(size for _, size, _ in entries)
        mid, bold = sizes[len(sizes) // 2], entries[0][2]
        alike = [k for k, size, b in entries if abs(size - mid) <= SIZE_STEP and b == bold]
        if len(alike) >= _TERMS:
            result.extend(alike)
    return sorted(result)


def _describes(label: Draft, draft: Draft) -> bool:
    """Whether ``draft`` is the description of the term ``label`` (see
    :func:`described_terms`)."""
    if (
        label.kind != ParagraphKind.HEADING
        or draft.kind != ParagraphKind.BODY
        or label.skip
        or draft.skip
        or label.front
        or draft.front
        or label.page != draft.page
        or len(label.rows) != 1
        or label.rows[0].region
        or draft.rows[0].region
    ):
        return False
    head, first, last = label.rows[0], draft.rows[0], draft.rows[-1]
    text = draft.text.rstrip()
    size = first.size
    return (
        bool(text)
        and text.lstrip()[:1].isalpha()
        and not ends_sentence(text)
        and not text.endswith(_OPEN_ENDS)
        and not dangles(text)
        and abs(head.size - size) <= SIZE_STEP
        and abs(head.x0 - first.x0) <= _ALIGN * size
        and 0 < line_step(head, first) <= _UNDER * size
        and last.x1 < last.col_range[1] - _SHORT * size
    )
