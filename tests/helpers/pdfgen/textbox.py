"""Papers of text boxes (``insert_textbox``: PyMuPDF wraps each paragraph in its box), for
the tests that follow a job rather than a reading rule."""

from __future__ import annotations

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
    page = doc.new_page(width=595, height=842)
    for i in range(3):
        box = pymupdf.Rect(72, 100 + i * 200, 523, 280 + i * 200)
        page.insert_textbox(box, LONG.format(f"Paragraph {i + 1} ends here."), fontsize=11)
    for p in range(1, pages):
        page = doc.new_page(width=595, height=842)
        for i in range(10):
            box = pymupdf.Rect(72, 80 + i * 70, 523, 130 + i * 70)
            page.insert_textbox(box, SHORT.format(f"{p}.{i + 1}"), fontsize=11)
    data: bytes = doc.tobytes()
    doc.close()
    return data
