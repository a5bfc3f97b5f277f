"""What stands around and inside a table: its caption, its footnote, a formula cell, cells
spanning rows or columns, coloured cells, and numbers beside a row's label.

Each page is a real PDF written with PyMuPDF, read and set again with the pseudo translator;
what is checked is what a reader of the translation sees: no English left under a translation,
nothing printed over a neighbour, numbers and formulas where they stood, colours kept.
"""

from __future__ import annotations

from collections.abc import Sequence

import pymupdf

from tests.helpers.table_pages import by_text, hangul, spans, translate
from translation.read.paragraph import ParagraphKind

SIZE = 9.0


def _numbers_table(page: pymupdf.Page, top: float, rows: Sequence[tuple[str, ...]]) -> float:
    """A LaTeX-style table (one line a row, rules above and below, numbers flush right in
    their columns) from ``top``; returns the y of its bottom rule."""
    font = pymupdf.Font("tiro")
    page.draw_line((110, top), (500, top), width=0.5)
    y = top + 12
    for row in rows:
        page.insert_text((114, y), row[0], fontsize=SIZE, fontname="Times-Roman")
        for right, text in zip((260.0, 330.0, 400.0, 490.0), row[1:], strict=False):
            x = right - font.text_length(text, SIZE)
            page.insert_text((x, y), text, fontsize=SIZE, fontname="Times-Roman")
        y += 11
    page.draw_line((110, y - 7), (500, y - 7), width=0.5)
    return y - 7


NUMBER_ROWS = [
    ("Dataset", "Samples", "Words", "Coverage", "Density"),
    ("News articles", "226,677", "454.5", "0.67", "1.10"),
    ("Court filings", "3,229", "5847.7", "0.95", "4.85"),
    ("Scientific papers", "1,212,739", "800.1", "0.83", "9.53"),
    ("Patents", "147,665", "163.1", "0.51", "0.90"),
]


# --- a table footnote ------------------------------------------------------------------------


def test_a_table_footnote_keeps_no_english_line_under_its_translation() -> None:
    # A raised marker, then the note's first line: MuPDF puts a space on the marker's
    # baseline before the line's text (05 p6), which must not move the line's baseline.
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    bottom = _numbers_table(page, 100, NUMBER_ROWS)
    first = bottom + 12
    page.insert_text((110.5, first - 3.1), "1", fontsize=5.8, fontname="Times-Roman")
    page.insert_text(
        (115.0, first),
        "The counts of the court filings might differ slightly from those reported in the "
        "original paper because some",
        fontsize=8.2,
        fontname="Times-Roman",
    )
    page.insert_text(
        (110.1, first + 9),
        "documents were not downloaded by the script that the authors provided.",
        fontsize=8.2,
        fontname="Times-Roman",
    )
    paras, out = translate(bytes(doc.tobytes()), "ko")
    (note,) = [p for p in paras if "counts of the court filings" in p.text]
    assert note.kind != ParagraphKind.CELL  # a table note is no cell
    assert "documents were not downloaded" in note.text  # one paragraph, both lines
    area = (100, bottom + 2, 520, first + 40)
    left = [w[4] for w in out.get_text("words", clip=area) if w[4].isascii() and w[4].isalpha()]
    assert not {"counts", "court", "filings", "original", "documents", "authors"} & set(left)
    assert any(hangul(s["text"]) for s in spans(out, area))
    # The numbers of the table are untouched.
    kept = [w[4] for w in out.get_text("words", clip=(200, 105, 500, bottom))]
    assert "1,212,739" in kept and "5847.7" in kept
