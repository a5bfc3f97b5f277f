"""Papers of text boxes (``insert_textbox``: PyMuPDF wraps each paragraph in its box), for
the tests that follow a job rather than a reading rule: :func:`small_paper` is the one small
one-column paper every job's test sends (the server's, the CLI's and the pipeline's),
:func:`staged_paper` one of long paragraphs then short ones (the previews'),
:func:`rising_paper` short ones then long ones (the order of a paper's requests)."""

from __future__ import annotations

from collections.abc import Sequence

import pymupdf

LONG = (
    "The committee reviewed the archival evidence gathered over three field seasons and"
    " concluded that the settlement patterns along the river valley changed gradually rather"
    " than abruptly, which contradicts the earlier account of a sudden collapse. {}"
)
SHORT = "Results for setting {} are listed below."


def staged_paper(pages: int = 3) -> bytes:
    """Page 1: three long paragraphs; pages 2..: ten short ones each."""
    doc = pymupdf.open()
    _long_page(doc, [f"Paragraph {i + 1} ends here." for i in range(3)])
    for p in range(1, pages):
        _short_page(doc, p)
    return _written(doc)


def rising_paper(pages: int = 3) -> bytes:
    """Pages 1..n-1: ten short paragraphs each (``Results for setting P.I``); page n: three
    long ones (ending ``Paragraph n.I ends here.``)."""
    doc = pymupdf.open()
    for p in range(1, pages):
        _short_page(doc, p)
    _long_page(doc, [f"Paragraph {pages}.{i + 1} ends here." for i in range(3)])
    return _written(doc)


def _long_page(doc: pymupdf.Document, endings: list[str]) -> None:
    """A page of long paragraphs, one per ending, in boxes 200 pt apart."""
    page = doc.new_page(width=595, height=842)
    for i, ending in enumerate(endings):
        box = pymupdf.Rect(72, 100 + i * 200, 523, 280 + i * 200)
        page.insert_textbox(box, LONG.format(ending), fontsize=11)


def _short_page(doc: pymupdf.Document, number: int) -> None:
    """A page of ten short paragraphs, ``Results for setting NUMBER.I``."""
    page = doc.new_page(width=595, height=842)
    for i in range(10):
        box = pymupdf.Rect(72, 80 + i * 70, 523, 130 + i * 70)
        page.insert_textbox(box, SHORT.format(f"{number}.{i + 1}"), fontsize=11)


def _written(doc: pymupdf.Document) -> bytes:
    data: bytes = doc.tobytes()
    doc.close()
    return data


PARAGRAPHS = [
    "Scientific papers are written for experts, and reading them in a second language costs"
    " time that researchers would rather spend on the ideas themselves.",
    "We describe a server that translates each paragraph with a dedicated translation model"
    " and writes the result back into the original layout of the page.",
    "The method keeps figures, tables and equations where they were, and it replaces only the"
    " running text of the body with its translation.",
]


def paragraph(page_no: int, index: int) -> str:
    """Body text that differs from page to page (repeated text would look like a header)."""
    return PARAGRAPHS[(index + page_no) % len(PARAGRAPHS)] + f" This holds in section {page_no}."


#: The first box's top on the first page: well below the top margin, so a one-line first
#: paragraph reads as body text rather than as a title or a running head.
TOP = 120.0


def small_paper(
    pages: int = 1,
    paragraphs: Sequence[str] = (),
    step: float = 90.0,
    references: Sequence[str] = (),
) -> bytes:
    """The one small paper of text boxes (one column, A4) a job's test sends: ``paragraphs``
    on each of ``pages`` pages, or by default three body paragraphs that differ from page to
    page, their boxes (70 pt high) ``step`` apart (70 fits ten on a page). Each page's boxes
    sit a little lower than the last's (text repeated at one place on every page would look
    like a running head). ``references``: then a last page, a bibliography: the heading
    "References" in Helvetica Bold, then each entry in its box."""
    doc = pymupdf.open()
    for page_no in range(pages):
        page = doc.new_page(width=595, height=842)
        texts = paragraphs or [paragraph(page_no, index) for index in range(len(PARAGRAPHS))]
        y = TOP + 20 * page_no
        for text in texts:
            page.insert_textbox(pymupdf.Rect(72, y, 523, y + 70), text, fontsize=11)
            y += step
    if references:
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 100), "References", fontsize=12, fontname="hebo")
        for i, entry in enumerate(references):
            box = pymupdf.Rect(72, 130 + 40 * i, 523, 170 + 40 * i)
            page.insert_textbox(box, entry, fontsize=10)
    return _written(doc)
