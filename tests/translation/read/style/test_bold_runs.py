"""A sentence that turns bold inside a line and goes on in bold over the next lines (03 p9:
"... the generated text. **Overall, our research questions and** / **findings are more
relevant ...**") is one paragraph, its bold run kept as a mark inside it: it was cut where
the bold lines begin and set as two boxes.

The page is a real PDF written with PyMuPDF (Times and Times Bold), laid out as LaTeX sets a
justified column; what is checked is what is sent to the model.
"""

from __future__ import annotations

import pymupdf

from tests.helpers.pdfgen.sheet import lines_at, put_runs, spaced_at, words_at
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs

_LINES = [
    ("Reliable annotation of long summaries remains a hard problem for", ""),
    ("every dataset we studied, and judging faithfulness is costly due", ""),
    ("to the long length of the generated text.", " Overall, our findings and"),
    ("", "recommendations are more relevant for long-form datasets than"),
    ("", "for the short-form summarization datasets."),
]


def _page() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    y = 100.0
    for plain, bold in _LINES:
        put_runs(page, 72.0, y, [(t, b) for t, b in ((plain, False), (bold, True)) if t], 10)
        y += 12.0
    words_at(
        page,
        [
            (72, y + 14, "Related Work", 11, "tibo"),
            (72, y + 32, "Earlier studies looked at short news summaries only.", 10, "helv"),
        ],
    )
    data: bytes = doc.tobytes()
    return data


def test_a_sentence_turning_bold_mid_line_is_one_paragraph_with_its_bold_marked() -> None:
    paragraphs = extract_paragraphs(open_document(_page()))
    texts = [" ".join(p.text.split()) for p in paragraphs]
    assert texts[0] == (
        "Reliable annotation of long summaries remains a hard problem for every dataset we "
        "studied, and judging faithfulness is costly due to the long length of the generated "
        "text. <b>Overall, our findings and recommendations are more relevant for long-form "
        "datasets than for the short-form summarization datasets.</b>"
    ), texts
    # The bold heading after it is still a heading of its own.
    assert texts[1] == "Related Work" and texts[2].startswith("Earlier studies"), texts


def _justified_lead_page() -> bytes:
    """A paragraph, then a bold lead that fills its line, its spaces stretched to the column's
    edge word by word (04 p7: "Row, Column, & Global Positional IDs."), then its paragraph."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    before = (
        "The attention biases are learned jointly with the",
        "rest of the model, and they add only a few param-",
        "eters to every layer of the network we train.",
    )
    after = (
        "With the full version we first tried to predict the",
        "positions of each cell, which did not help on any",
        "of the datasets we tested.",
    )
    left, y = 72.0, 100.0
    right = left + max(pymupdf.get_text_length(t, "tiro", 10) for t in before + after)
    y = lines_at(page, left, y, before, 10, pitch=12.0)
    words = ["Row,", "Column,", "&", "Global", "Positional", "IDs."]
    widths = [pymupdf.get_text_length(w, "tibo", 10) for w in words]
    gap = (right - left - sum(widths)) / (len(words) - 1)
    y += 8.0
    spaced_at(page, left, y, words, gap, 10, "tibo")
    lines_at(page, left, y + 12.0, after, 10, pitch=12.0)
    data: bytes = doc.tobytes()
    return data


def test_a_justified_bold_lead_with_an_ampersand_is_not_cut_into_cells() -> None:
    texts = [
        " ".join(p.text.split()) for p in extract_paragraphs(open_document(_justified_lead_page()))
    ]
    assert any("Row, Column, & Global Positional IDs." in t for t in texts), texts
    assert not any(t.rstrip(" </b>").endswith("Column,") for t in texts), texts


def test_a_bold_lead_filling_its_line_leads_the_paragraph_below_it() -> None:
    """Justification stretched the lead's spaces to the column's edge, so its paragraph goes
    on below it: one request, the lead marked bold at its start (it was sent alone)."""
    texts = [
        " ".join(p.text.split()) for p in extract_paragraphs(open_document(_justified_lead_page()))
    ]
    assert texts[-1] == (
        "<b>Row, Column, & Global Positional IDs.</b> With the full version we first tried to "
        "predict the positions of each cell, which did not help on any of the datasets we "
        "tested."
    ), texts
    assert texts[0].startswith("The attention biases") and len(texts) == 2, texts
