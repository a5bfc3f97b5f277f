"""Reading rules found on papers outside the corpus (issue 22): constructed pages that copy the
layout that broke a request, read for real."""

from __future__ import annotations

import pymupdf

from tests.test_read_flow import INTRO, LEADING, LEFT, OUTRO, RIGHT, SIZE, TEXT, TOP, WIDE, Sheet
from tests.test_read_flow import read as read_paragraphs

CAPTION = [
    "Table 1: Test scores of all model variants on all tasks and data sets. Bold marks the best",
    "result of each row (several results are bold where they differ within the confidence",
    "interval). We report macro scores for the span tasks and micro scores for the relation",
    "task, with the settings tuned on the development data of each task. All results",
    "are the average of five runs.",
]


def test_a_wide_captions_short_last_line_stays_with_it() -> None:
    """A full-width caption over a two-column page whose last line is short (it sits over the
    left column only) is one request, not a caption cut in the middle of its last sentence."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    y = TOP
    for line in CAPTION:
        sheet.writer.append((WIDE[0], y), line, TEXT, SIZE)
        y += LEADING
    assert TEXT.text_length(CAPTION[-1], SIZE) < 0.25 * (WIDE[1] - WIDE[0])
    top = y + 2 * LEADING
    for column in (LEFT, RIGHT):
        below = sheet.paragraph(INTRO, column, top)
        sheet.paragraph(OUTRO, column, below + 4)
    sheet.done()
    found = read_paragraphs(doc.tobytes())
    texts = [" ".join(p.text.split()) for p in found]
    captions = [t for t in texts if "All results" in t or "average of five" in t]
    assert captions == [" ".join(CAPTION)], captions
    assert sum("Automatic evaluation" in t for t in texts) == 2
