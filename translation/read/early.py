"""Paragraphs to send before the whole document is read: a scan is read by OCR for minutes,
and its first pages can be translated meanwhile; a paper with a text layer is read in seconds,
and its first page's paragraphs are sent as soon as the next page is read (one part only, see
:data:`TEXT_PARTS`), so the model starts within a second of the upload.

The pages read so far are segmented as a document of their own, and the paragraphs of its
pages that the next page no longer changes (a paragraph running on to the next page, a
bibliography told by the entries after its heading) are handed on. These are a head start,
not the answer: the paragraphs a job translates and typesets are still those of the whole
document, segmented once it is read. A paragraph read early the same way is the same text,
whose answer is then waiting in the cache; one read otherwise (a running head that only more
pages reveal) costs one request and nothing else.

Segmenting a prefix costs as much as its pages, so prefixes are taken at growing steps (half
again as many pages each time): a document is segmented about three times over in all.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from translation.read.flow.passage import passages
from translation.read.layout import PageLayout
from translation.read.paragraph import Paragraph
from translation.read.segment import segment_document

#: Pages read past a page before its paragraphs are handed on.
LOOKAHEAD = 1

#: Parts handed on while pages with a text layer are read: each segments a prefix again, and
#: the whole document follows in seconds; one part (the first page) is the head start that
#: counts, more would read the document about three times over.
TEXT_PARTS = 1

#: Told the new paragraphs read early, in reading order.
OnPart = Callable[[list[Paragraph]], None]


class EarlyParagraphs:
    """Hands on the paragraphs of a document's pages as its pages are read in order.

    ``last`` is the last page that will be read, ``wanted`` the pages to translate (None =
    all). Call :meth:`read` each time more pages are read; ``on_part`` is told of the
    paragraphs not told before. Nothing is told once the last page is read (the whole
    document's segmentation follows at once).
    """

    def __init__(
        self,
        last: int,
        wanted: Collection[int] | None,
        include_references: bool,
        on_part: OnPart,
    ) -> None:
        self._last, self._wanted, self._references = last, wanted, include_references
        self._on_part = on_part
        self._settled = 0  # pages before this one were handed on
        self._next = 1 + LOOKAHEAD  # the number of pages read that triggers the next part
        self._told: set[str] = set()
        self._text_parts = 0  # parts handed on from pages read from their text layer

    def read_text_page(self, layouts: Sequence[PageLayout]) -> None:
        """:meth:`read` for pages read from their text layer: the first :data:`TEXT_PARTS`
        parts only."""
        if self._text_parts >= TEXT_PARTS or len(layouts) < self._next:
            return
        self._text_parts += 1
        self.read(layouts)

    def read(self, layouts: Sequence[PageLayout]) -> None:
        """``layouts`` are the pages read so far, from the first, in order."""
        count = len(layouts)
        if count > self._last or count < self._next:
            return
        self._next = count + max(1, count // 2)
        settled = count - LOOKAHEAD
        pages = [
            i for i in range(self._settled, settled) if self._wanted is None or i in self._wanted
        ]
        first = self._settled
        self._settled = settled
        if not pages:
            return
        # Read from the page before (a passage may begin there) through the lookahead, and
        # hand on only whole passages: one with a piece on a page still to settle may go on
        # beyond what is read, and its request would be a piece of a sentence.
        around = [
            i for i in range(max(0, first - 1), count) if self._wanted is None or i in self._wanted
        ]
        found = segment_document(layouts, wanted=around, include_references=self._references)
        whole = [
            passage
            for passage in passages(found.paragraphs)
            if all(piece.page < settled for piece in passage.pieces)
            and any(piece.page in pages for piece in passage.pieces)
        ]
        new = [
            piece for passage in whole if passage.text not in self._told for piece in passage.pieces
        ]
        self._told.update(passage.text for passage in whole)
        if new:
            self._on_part(new)
