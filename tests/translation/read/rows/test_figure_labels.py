"""What a figure's area holds (issue 35, point 4: text outside the main flow): a chart's
labels set outside its frame (the numbers under an axis, the axis's title) are the figure's
text, never a body request; a thick stroke's miter reach takes in no text around it.
Constructed pages drawn with PyMuPDF, and real pages of ``corpus2/``."""

from __future__ import annotations

import pymupdf
import pytest

from tests.helpers.corpus2 import corpus2_pages
from tests.helpers.pdfgen.sheet import read, words_at, wrap
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.paragraph import ParagraphKind

_TEXT = (
    "Royston and Altman discuss a linear regression model for data taken from a study of "
    "fetal mandible length, where the mandible length is measured against gestational age, "
    "and the fitted values of the model are shown together with the raw data below."
)


def _chart_page(title_gap: float = 17.0) -> bytes:
    """Body text, then a plot drawn as paths (a frame, a curve, points), its tick numbers
    just under the frame at 7 pt, the x axis's title "age" ``title_gap`` below the frame,
    the y axis's "length" left of it, then the caption and more body text."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 100.0
    for line in wrap(_TEXT, 420.0):
        words_at(page, [(90.0, y, line, 10.0, "tiro")])
        y += 12.0
    frame = pymupdf.Rect(205, 180, 411, 280)
    shape = page.new_shape()
    shape.draw_rect(frame)
    shape.finish(color=(0, 0, 0), width=0.6)
    shape.draw_bezier((210, 270), (260, 240), (330, 230), (405, 190))
    shape.finish(color=(0.6, 0, 0), width=1.0)
    for k in range(6):
        shape.draw_circle((220 + 30 * k, 265 - 14 * k), 2)
        shape.finish(color=(0, 0, 0), width=0.6)
    shape.commit()
    ticks = [(229.0 + 37 * k, 292.0, f"{2.6 + 0.2 * k:.1f}", 7.0, "helv") for k in range(5)]
    words_at(page, ticks)
    words_at(page, [(304.0, 280 + title_gap + 7, "age", 7.0, "helv")])
    words_at(page, [(180.0, 235.0, "length", 7.0, "helv")])
    words_at(page, [(236.0, 330.0, "Figure 2: The mandible data", 10.0, "tiro")])
    y = 360.0
    for line in wrap(_TEXT, 420.0):
        words_at(page, [(90.0, y, line, 10.0, "tiro")])
        y += 12.0
    return bytes(doc.tobytes())


def test_a_charts_axis_title_under_its_ticks_is_the_figures_text() -> None:
    """Origin: corpus2 121 p3-p4, 120 p3 (R's plots: "age" under an axis's numbers, "Time"):
    the figure's area is its frame, the labels lie outside it, and the axis's title went out
    as a body request of one word. Short rows set smaller than the body just below, left or
    right of the figure, the area growing with each, are the figure's; the caption under
    them and the text stay as they were."""
    paras = read(_chart_page())
    texts = {p.text: p.kind for p in paras}
    assert "age" not in texts and "length" not in texts, texts
    assert texts.get("Figure 2: The mandible data") is ParagraphKind.CAPTION, texts
    assert [p.text for p in paras].count(_TEXT) == 2, texts  # the text is all sent
    # A short line standing well clear of the figure is no label of it.
    clear = {p.text for p in read(_chart_page(title_gap=40.0))}
    assert "age" in clear, clear


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("name", "pages", "label"),
    [
        ("121_jss_lmtest_vignette_5p.pdf", [2, 3], "age"),
        ("120_jss_strucchange_vignette_p12of17.pdf", [2], "Time"),
    ],
)
def test_an_r_plots_axis_titles_are_not_sent(name: str, pages: list[int], label: str) -> None:
    paras = extract_paragraphs(open_document(corpus2_pages(name, pages)))
    sent = [p.text for p in paras]
    assert label not in " ".join(sent).split(), sent
    assert any(p.kind is ParagraphKind.CAPTION for p in paras)


def _warning_sign_page() -> bytes:
    """Body text over a grey box (a missing figure's placeholder) holding a narrow warning
    sign stroked with a thick pen, mitred: MuPDF bounds the stroke by its miter limit, far
    past the sign, over the text above the box."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 100.0
    for line in wrap(_TEXT, 420.0) * 2:
        words_at(page, [(90.0, y, line, 10.0, "tiro")])
        y += 12.0
    shape = page.new_shape()
    shape.draw_rect(pymupdf.Rect(150, 200, 450, 360))
    shape.finish(color=(0, 0, 0), fill=(0.6, 0.6, 0.6), width=0.8)
    shape.draw_polyline([(200, 300), (215, 215), (230, 300)])
    shape.finish(color=(0, 0, 0), fill=(1, 1, 1), width=8, closePath=True, lineJoin=0)
    shape.commit()
    return bytes(doc.tobytes())


def test_a_thick_mitred_stroke_covers_no_text_its_ink_does_not() -> None:
    """Origin: corpus2 133 p3, p9 (todonotes' \\missingfigure: a grey box with a warning
    sign): the sign's stroke was logged as a box hundreds of points wide, the figure's area
    took in the paragraphs and the heading around the box, and they were never sent. A
    stroke's box is cut to its outline grown by its line's width."""
    sent = [p.text for p in read(_warning_sign_page())]
    assert sent.count(_TEXT) == 2, sent


@pytest.mark.corpus
def test_a_missing_figures_sign_leaves_the_text_around_it_sent() -> None:
    paras = extract_paragraphs(
        open_document(corpus2_pages("133_tex_todonotes_doc_margin_notes_p12of37.pdf", [8]))
    )
    sent = " ".join(p.text for p in paras)
    for words in ("warning sign to pop out of the gray area", "sets the background color"):
        assert words in sent, sent
    assert any(p.text.startswith("1.5 Options for the") for p in paras)
