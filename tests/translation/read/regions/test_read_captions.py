"""Captions read as captions, and only captions, on constructed pages read for real: a wide
caption's short last line, a caption under a picture pasted larger than its clip, a paragraph
that opens with a table's label, a figure reference on a paragraph's last line, labels
numbered in Roman numerals."""

from __future__ import annotations

import pymupdf

from tests.helpers.pdfgen.columns import INTRO, LEFT, OUTRO, RIGHT, TEXT, TOP, WIDE
from tests.helpers.pdfgen.sheet import LEADING, SIZE, Sheet, read, wrap
from translation.read.flow.passage import passages

CAPTION = [
    "Table 1: Test scores of all model variants on all tasks and data sets. Bold marks the best",
    "result of each row (several results are bold where they differ within the confidence",
    "interval). We report macro scores for the span tasks and micro scores for the relation",
    "task, with the settings tuned on the development data of each task. All results",
    "are the average of five runs.",
]


def test_a_wide_captions_short_last_line_stays_with_it() -> None:
    """A full-width caption over a two-column page whose last line is short (it sits over the
    left column only) is one request, not a caption cut in the middle of its last sentence.

    Origin: a paper outside the corpus (issue 22), the layout that broke a request."""
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
    sheet.write()
    found = read(doc.tobytes())
    texts = [" ".join(p.text.split()) for p in found]
    captions = [t for t in texts if "All results" in t or "average of five" in t]
    assert captions == [" ".join(CAPTION)], captions
    assert sum("Automatic evaluation" in t for t in texts) == 2


def test_a_paragraph_opening_with_a_table_label_that_goes_on_a_sentence_is_body_text() -> None:
    """2020.acl-main.447 p4: the left column ends "... bibliography linking in"; the right
    column opens with a figure and its caption, then "Table 4. On average, ..." at the body
    text's size. That paragraph goes on the sentence (one request), it is no caption.

    Origin: a paper outside the corpus (issue 22), the layout that broke a request."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    y = TOP
    while y < 640:
        y = sheet.paragraph(INTRO, LEFT, y)
    sheet.paragraph(
        "We provide statistics for the full text parses and the bibliography linking in", LEFT, y
    )
    sheet.figure(RIGHT, TOP - 10, TOP + 70)
    caption = "Figure 2: Distribution of papers by field of study."
    sheet.writer.append((RIGHT[0], TOP + 84), caption, TEXT, 9.0)
    run_on = (
        "Table 4. On average, the parses of the sources contain many more paragraphs of body"
        " text, because the source files keep line breaks rather than paragraph breaks. We"
        " think that the other differences are due to a number of reasons."
    )
    y = sheet.paragraph(run_on, RIGHT, TOP + 106, indent=False)
    sheet.paragraph(OUTRO, RIGHT, y)
    sheet.write()
    found = passages(read(doc.tobytes()))
    texts = [" ".join(p.text.split()) for p in found]
    assert any("bibliography linking in Table 4. On average, the parses" in t for t in texts), texts
    assert caption in texts
    (piece,) = [p for f in found for p in f.pieces if p.text.startswith("Table 4.")]
    assert piece.kind == "body"


def _picture_page() -> pymupdf.Document:
    """A picture made as a page of its own, as plotting and screenshot tools make them: a white
    rectangle the size of that page behind a few outlined shapes in its middle."""
    picture = pymupdf.open()
    page = picture.new_page(width=360, height=220)
    shape = page.new_shape()
    shape.draw_rect(page.rect)
    shape.finish(color=None, fill=(1, 1, 1))
    for k in range(4):
        shape.draw_circle((90 + 60 * k, 100), 18)
        shape.finish(color=(0, 0, 0), fill=(0.9, 0.6, 0.2), width=1)
    shape.draw_rect(pymupdf.Rect(50, 70, 310, 130))
    shape.finish(color=(0.2, 0.2, 0.2), width=1)
    shape.commit()
    return picture


def test_a_caption_under_a_picture_pasted_larger_than_its_clip_is_sent() -> None:
    """A picture pasted in clipped to its middle: the white rectangle behind it, the size of
    the picture's own page, reaches past the clip over the caption below. The figure is what
    shows, so the caption under it is sent whole and the body text after it too.

    Origin: a paper outside the corpus (issue 22), the layout that broke a request."""
    picture = _picture_page()
    doc = pymupdf.open()
    sheet = Sheet(doc)
    # The middle of the picture's page (280 x 80 of 360 x 220) fills the figure's place: the
    # page's white rectangle reaches 130 pt below it, less than a page in size.
    shown = pymupdf.Rect(WIDE[0], TOP, WIDE[1], TOP + (WIDE[1] - WIDE[0]) * 80 / 280)
    sheet.page.show_pdf_page(shown, picture, 0, clip=pymupdf.Rect(40, 60, 320, 140))
    caption = (
        "Figure 1: The reading interface helps readers find their way through a paper: it "
        "shows a guide of key questions beside the text and jumps to the passage that answers "
        "each one, with a plain summary of that passage."
    )
    below = shown.y1 + 14
    for line in wrap(caption, (WIDE[1] - WIDE[0]) * SIZE / 8):  # set small, as captions are
        sheet.writer.append((WIDE[0], below), line, TEXT, 8)
        below += 10
    sheet.paragraph(INTRO, WIDE, below + 10)
    for column in (LEFT, RIGHT):  # the page's body text, under the picture's page
        sheet.paragraph(OUTRO, column, sheet.paragraph(INTRO, column, 400) + 4)
    sheet.write()
    drawn = [d for d in sheet.page.get_drawings() if d.get("fill") == (1.0, 1.0, 1.0)]
    assert drawn and drawn[0]["rect"].y1 > below + 2 * LEADING  # it does reach over both
    texts = [" ".join(p.text.split()) for p in read(doc.tobytes())]
    assert " ".join(caption.split()) in texts, texts
    assert sum("Automatic evaluation" in t for t in texts) == 3, texts


def test_a_figure_reference_on_a_paragraphs_last_line_is_no_caption() -> None:
    """A sentence runs to the column's edge with "... displayed in" and ends on the next line
    with "Fig. 2.": that line goes on the sentence, it is no caption of its own, and the
    paragraph after it is not read as the sentence's continuation (2021 key-error p9).

    Origin: a paper outside the corpus (issue 22), the layout that broke a request."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    text = (
        "A similar development as in the first appendix can be done for the full-transistor"
        " circuit. In this case, the resistor is replaced by a transistor working in its triode"
        " region, which gives the circuit that is displayed in"
    )
    lines = wrap(text, LEFT[1] - LEFT[0], 12.0)
    assert TEXT.text_length(lines[-1], SIZE) > 0.8 * (LEFT[1] - LEFT[0])
    y = TOP
    for k, line in enumerate([*lines, "Fig. 2."]):
        sheet.writer.append((LEFT[0] + (12.0 if k == 0 else 0.0), y), line, TEXT, SIZE)
        y += LEADING
    sheet.paragraph(OUTRO, LEFT, y)
    sheet.paragraph(INTRO, RIGHT, TOP)
    sheet.write()
    texts = [" ".join(p.text.split()) for p in read(doc.tobytes())]
    assert f"{text} Fig. 2." in texts, texts
    assert OUTRO in texts, texts
    found = passages(read(doc.tobytes()))
    assert not [p.text for p in found if "displayed in" in p.text and "judgments" in p.text]


def test_labels_in_roman_numerals_open_captions() -> None:
    """IEEE sets "TABLE III" alone on its line, centred over its title in capitals; Emerald
    sets "Table I." before its title. Both are captions (never a sentence cut at their ends,
    nor body text the sentence before them runs on into); "Table III shows ..." is prose.

    Origin: 104 p3 ("TABLE III" | "COST PER FULL-RATE STREAM AS A FUNCTION OF"), 114 p6
    ("Table I. MANOVA: effect of work-life training and family involvement on")."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    y = sheet.paragraph(INTRO, LEFT, TOP)
    middle = (LEFT[0] + LEFT[1]) / 2
    label, title = "TABLE III", "COST PER STREAM AS A FUNCTION OF THE ROUND"
    sheet.writer.append((middle - TEXT.text_length(label, 8) / 2, y + 10), label, TEXT, 8)
    sheet.writer.append((middle - TEXT.text_length(title, 8) / 2, y + 20), title, TEXT, 8)
    sheet.figure(LEFT, y + 26, y + 90)
    y = sheet.paragraph(
        "Table III shows the cost of each stream for the round lengths that we tried, and the"
        " cost falls as the rounds grow longer.",
        LEFT,
        y + 104,
    )
    emerald = "Table I. MANOVA: effect of training and family involvement on"
    sheet.writer.append((RIGHT[0], TOP), emerald, TEXT, 8)
    sheet.writer.append((RIGHT[0], TOP + 10), "the conflict scores", TEXT, 8)
    sheet.figure(RIGHT, TOP + 16, TOP + 80)
    sheet.paragraph(OUTRO, RIGHT, TOP + 96)
    sheet.write()
    kinds = {" ".join(p.text.split()): p.kind for p in read(doc.tobytes())}
    assert kinds[f"{label} {title}"] == "caption", kinds
    assert kinds[f"{emerald} the conflict scores"] == "caption", kinds
    prose = [t for t in kinds if t.startswith("Table III shows")]
    assert [kinds[t] for t in prose] == ["body"], kinds
