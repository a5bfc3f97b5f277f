"""Regions stay apart (issue 22 item 4): every request is translated alone, so a run-in lead,
a table cell, a drop cap, a margin note and a figure's sub-caption each reach the model whole
and unmixed. Each test sets a real PDF page with PyMuPDF and reads what the pipeline sends."""

from __future__ import annotations

import pymupdf
import pytest

from tests.helpers.pdfgen.sheet import TIMES, put_runs, read_doc, words_at
from translation.read.style.style_marks import without_tags


def test_a_bold_run_in_lead_over_two_lines_stays_with_its_paragraph() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    lines = [
        [("This is the paragraph before the lead, and it runs over two lines of the", False)],
        [("page until the sentence ends at this point, with a full stop at its end.", False)],
        [("Highlighted hints have almost no effect on the eval-", True)],
        [("uating of long-form summaries:", True), (" Surprisingly, we observe that in", False)],
        [("all three metrics the scores are quite similar across the three settings", False)],
        [("of the study, and so the hints do not help the readers very much at all.", False)],
    ]
    for i, parts in enumerate(lines):
        put_runs(page, 72, 120 + i * 12, parts, 10)
    first, second = read_doc(doc)
    lead = "Highlighted hints have almost no effect on the evaluating of long-form summaries:"
    assert first.text.endswith("with a full stop at its end.")
    assert without_tags(second.text).startswith(
        lead + " Surprisingly, we observe that in all three"
    )
    assert second.text.endswith("very much at all.")
    assert second.kind == "body"
    assert second.lead == lead  # set in bold up to where the source's bold ends
    assert not second.bold


def test_a_question_lead_keeps_its_own_mark() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    lines = [
        [("What do the instances that comprise the dataset represent (e.g., people,", True)],
        [("documents, photos)?", True), (" Are there several types of instances? Please", False)],
        [("provide a description of each of them, with the number of instances.", False)],
    ]
    for i, parts in enumerate(lines):
        put_runs(page, 72, 120 + i * 12, parts, 10)
    (para,) = read_doc(doc)
    assert without_tags(para.text).startswith("What do the instances")
    assert "photos)? Are there" in without_tags(para.text)  # no stop added after the question mark
    assert para.lead.endswith("photos)?")


def test_a_multi_line_table_cell_is_one_request() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    rows = [
        (
            "Complaint",
            "1.52",
            [
                "The document that starts a case and will usually",
                "be the first thing filed by the plaintiffs.",
            ],
        ),
        (
            "Opinion",
            "3.30",
            ["Created by judges, opinions or orders memorialize", "the rulings in the case."],
        ),
        (
            "Settlement",
            "0.50",
            [
                "An agreement among parties that resolves some or",
                "all of the issues in the lawsuit.",
            ],
        ),
        (
            "Dockets",
            "1.09",
            [
                "The docket is the court's index to everything that",
                "has happened in a case, in that court.",
            ],
        ),
    ]
    y = 120.0
    for x, head in ((72, "Type"), (160, "Docs"), (220, "Description")):
        put_runs(page, x, y, [(head, True)], 9)
    y += 16
    for name, number, description in rows:
        middle = y + (len(description) - 1) * 11 / 2  # name and number centred on the cell
        put_runs(page, 72, middle, [(name, False)], 9)
        put_runs(page, 160, middle, [(number, False)], 9)
        for k, text in enumerate(description):
            put_runs(page, 220, y + k * 11, [(text, False)], 9)
        y += len(description) * 11 + 6
    # A cell whose lines each have a neighbour (a name set over two lines beside them): the
    # word cut at its line's end says it goes on.
    put_runs(page, 72, y, [("Internal", False)], 9)
    put_runs(page, 72, y + 11, [("Memorandum", False)], 9)
    put_runs(page, 160, y + 5.5, [("0.01", False)], 9)
    memo = ["An internal memo of an organization (unlike the litigation docu-", "ments)."]
    for k, text in enumerate(memo):
        put_runs(page, 220, y + k * 11, [(text, False)], 9)
    texts = [p.text for p in read_doc(doc)]
    for name, _, description in rows:
        assert " ".join(description) in texts
        assert name in texts
    assert "An internal memo of an organization (unlike the litigation documents)." in texts


def test_table_columns_set_as_blocks_side_by_side_are_read_one_after_the_other() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    left = [
        "Q: Did you find the highlighted",
        "hints useful while making your",
        "judgment?",
        "",
        "TL;DR: four of the five annota-",
        "tors said they sometimes did.",
    ]
    right = [
        "With summaries that had poor correctness, the hints were often a mess, and",
        "even the correct spans had to be checked with great care by the annotators.",
        "They were more useful when the summary was a near verbatim reproduction.",
        "Yes, they were useful. Often they would highlight the exact passage needed.",
        "In the medical papers, they were a little more chaotic, even for good ones.",
        "For the stories, they were mostly accurate and helpful for the readers.",
    ]
    for i, text in enumerate(left):
        if text:
            put_runs(page, 72, 120 + i * 11, [(text, False)], 9)
    for i, text in enumerate(right):
        put_runs(page, 210, 120 + i * 11, [(text, False)], 8)
    texts = [p.text for p in read_doc(doc)]
    assert "Q: Did you find the highlighted hints useful while making your judgment?" in texts
    assert "TL;DR: four of the five annotators said they sometimes did." in texts
    assert any(t.startswith("With summaries that had poor") and "annotators." in t for t in texts)


def test_a_drop_cap_joins_its_word() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    cap = 31.0
    width = TIMES.text_length("W", cap)
    lines = [
        "ITH a recent advance in the methods of machine learning, the",
        "field of translation has changed in a way that few of the old",
        "papers foresaw, and so the readers of this journal will find that",
        "the results below are stated with a care that the topic deserves.",
    ]
    put_runs(page, 72, 132, [("W", False)], cap)  # set down over the first two lines
    for i, text in enumerate(lines):
        put_runs(page, 72 + width + 2 if i < 2 else 72, 120 + i * 12, [(text, False)], 10)
    (para,) = read_doc(doc)
    assert para.text == "W" + " ".join(lines)


@pytest.mark.parametrize("side", ["left", "right"])
def test_a_margin_note_is_its_own_request_and_the_body_stays_whole(side: str) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    body = [
        "The body of the page runs in one column, and its lines are long",
        "enough to reach the right edge of the text block, so that a note",
        "set in the margin beside them stands on the same baselines as",
        "the body lines do, which is where a reader could mix them up.",
    ]
    note = ["A side note", "in the margin."]
    body_x = 150.0 if side == "left" else 72.0
    ends = [
        put_runs(page, body_x, 120 + i * 12, [(text, False)], 10) for i, text in enumerate(body)
    ]
    note_x = 72.0 if side == "left" else max(ends) + 12  # a little over a font size apart
    for i, text in enumerate(note):
        put_runs(page, note_x, 132 + i * 12, [(text, False)], 8)
    texts = sorted(p.text for p in read_doc(doc))
    assert texts == sorted([" ".join(body), " ".join(note)])


def test_glyphs_inside_a_figure_never_join_its_sub_captions() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    body = [
        "The body of the page runs in one column above the figure, and its",
        "lines are long enough to fill the text block from edge to edge.",
    ]
    for i, text in enumerate(body):
        put_runs(page, 72, 120 + i * 12, [(text, False)], 10)
    for x in (72, 240):  # two panels of vector art, a letter inside each, near its bottom
        shape = page.new_shape()
        shape.draw_rect(pymupdf.Rect(x, 160, x + 150, 260))
        shape.draw_circle((x + 75, 205), 30)
        shape.draw_line((x + 10, 250), (x + 140, 170))
        shape.finish(color=(0, 0, 0), fill=(0.8, 0.9, 1.0))
        shape.commit()
    put_runs(page, 140, 256, [("A", False)], 9)
    put_runs(page, 308, 256, [("B", False)], 9)
    put_runs(page, 110, 282, [("(a) Image of the scene", False)], 9)
    put_runs(page, 270, 282, [("(b) Map of the scene", False)], 9)
    put_runs(
        page, 72, 302, [("Figure 1: Two views of one scene, the image and its map.", False)], 9
    )
    texts = [p.text for p in read_doc(doc)]
    assert "(a) Image of the scene" in texts
    assert "(b) Map of the scene" in texts
    assert "Figure 1: Two views of one scene, the image and its map." in texts
    assert not any(word in text.split() for text in texts for word in ("A", "B"))


def test_a_title_line_ending_in_a_colon_is_sent_not_taken_for_author_names() -> None:
    """ "Beyond Summarization:" over the rest of a title (a bold face whose name does not say
    so, as Linux Biolinum's "LinBiolinumTB"): two capitalised words and a mark, like a line
    of names, but a title's first line, so it is translated."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for y, text in (
        (90, "Beyond Summarization:"),
        (110, "Designing AI Support for Real-World Expository Writing Tasks"),
    ):
        width = TIMES.text_length(text, 17)
        words_at(page, [((612 - width) / 2, y, text, 17, "tiro")])
    put_runs(page, 200, 140, [("Zejiang Shen, Tal August, Kyle Lo", False)], 12)
    put_runs(page, 72, 175, [("ABSTRACT", True)], 10)
    body = "Large language models have introduced new opportunities in writing support tools."
    for i in range(4):
        put_runs(page, 72, 190 + 12 * i, [(body, False)], 10)
    texts = [without_tags(p.text) for p in read_doc(doc)]
    assert any(t.startswith("Beyond Summarization:") for t in texts), texts


def test_a_caption_under_a_picture_placed_larger_than_its_clip_is_sent() -> None:
    # A plot's picture set 200 pt tall but clipped to its upper 100 pt, as TeX does with a
    # trimmed \includegraphics; the caption is printed under the part that shows.
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 40), False)
    pix.clear_with(90)
    page.insert_image(pymupdf.Rect(72, 160, 372, 360), pixmap=pix)
    (xref,) = page.get_contents()
    stream = doc.xref_stream(xref).replace(b"q\n", b"q\n72 582 300 100 re W n\n", 1)
    doc.update_stream(xref, stream)
    put_runs(
        page, 72, 120, [("The body of the page runs in one column above the figure.", False)], 10
    )
    caption = "Figure 2: Readers' ratings of the four variants, in the order they were shown."
    put_runs(page, 72, 282, [(caption, False)], 9)
    assert caption in [p.text for p in read_doc(doc)]
