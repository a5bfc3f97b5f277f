"""Footnotes read as footnotes, on constructed pages: a footnote whose last line is short
and left of its indented first line, and a note at the foot of the references column."""

from __future__ import annotations

import random

import pymupdf

from tests.helpers.pdfgen.columns import INTRO, LEFT, OUTRO, RIGHT, TEXT, TOP
from tests.helpers.pdfgen.paper import BODY_WORDS
from tests.helpers.pdfgen.sheet import SIZE as SIZE_OF_WRAP
from tests.helpers.pdfgen.sheet import TIMES_BOLD, Sheet, read, words_at, wrap
from translation.read.flow.passage import passages


def test_a_footnotes_short_last_line_left_of_its_indented_first_line_goes_with_it() -> None:
    """A footnote whose first line is indented (its mark hangs before the text) ends with a
    word cut at the line's end and a short last line at the column's edge ("dimen-" |
    "sions"): that short line lies mostly left of the first one, yet it is the same footnote,
    one request with the word whole.

    Origin: a paper outside the corpus (issue 22), the layout that broke a request."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    below = sheet.paragraph(INTRO, RIGHT, TOP)
    sheet.paragraph(OUTRO, RIGHT, below + 4)
    small, y = 9.0, 760.0
    line = "Used to determine the PDF page number and the page dimen-"
    sheet.writer.append((RIGHT[0] + 12, y - 3), "20", TEXT, 6.0)
    sheet.writer.append((RIGHT[0] + 18, y), line, TEXT, small)
    sheet.writer.append((RIGHT[0], y + 10), "sions", TEXT, small)
    sheet.write()
    texts = [" ".join(p.text.split()) for p in read(doc.tobytes())]
    notes = [t for t in texts if "page number" in t or "sions" in t]
    assert len(notes) == 1 and notes[0].endswith("the page dimensions"), texts


def test_a_footnote_at_the_foot_of_the_references_column_is_translated() -> None:
    """The last page of the text, its references begun under it: the note at the foot of that
    column (a raised marker, small print, under a short rule) is the paper's own footnote and
    is translated; the entries above it and beside it are not.

    Origin: a paper outside the corpus (issue 22), the layout that broke a request."""
    doc = pymupdf.open()
    text = Sheet(doc)  # the page before: the paper's text, in two columns
    for column in (LEFT, RIGHT):
        y = TOP
        while y < 700:
            y = text.paragraph(OUTRO, column, text.paragraph(INTRO, column, y) + 4) + 4
    text.write()
    sheet = Sheet(doc)
    below = sheet.paragraph(INTRO, LEFT, TOP)
    sheet.writer.append((LEFT[0], below + 14), "References", TIMES_BOLD, 12)
    y = below + 34
    entries = [
        f"Ann Lee, Bo Chen, and Cy Diaz. 20{10 + k}. A method for task {k} of many kinds. In"
        f" Proceedings of the {k}th Conference on Methods, pages {k}1-{k}9."
        for k in range(1, 13)
    ]
    for k, entry in enumerate(entries):
        column = LEFT if k < 5 else RIGHT
        if k == 5:
            y = TOP
        for i, line in enumerate(wrap(entry, column[1] - column[0] - 8)):
            sheet.writer.append((column[0] + (8 if i else 0), y), line, TEXT, 9)
            y += 11
        y += 5
    foot = 760.0
    shape = sheet.page.new_shape()
    shape.draw_line((LEFT[0], foot - 14), (LEFT[0] + 70, foot - 14))
    shape.finish(color=(0, 0, 0), width=0.4)
    shape.commit()
    sheet.writer.append((LEFT[0], foot - 3), "19", TEXT, 6)
    sheet.writer.append(
        (LEFT[0] + 6, foot), "The Kaggle CORD-19 and TREC-COVID competitions.", TEXT, 9
    )
    sheet.writer.append((LEFT[0], foot + 11), "See Wang et al. (2020) for details.", TEXT, 9)
    sheet.write()
    texts = [" ".join(p.text.split()) for p in read(doc.tobytes())]
    assert (
        "The Kaggle CORD-19 and TREC-COVID competitions. See Wang et al. (2020) for details."
        in texts
    ), texts
    assert not [t for t in texts if "Ann Lee" in t or "Proceedings" in t], texts


#: A three-column page (the Federal Register's): each column's left edge, its measure.
THREE_COLUMNS, MEASURE = (45.0, 207.0, 369.0), 150.0
BODY, NOTE = 9.0, 7.0


def _set_in(page: pymupdf.Page, x: float, y: float, lines: list[str], size: float) -> float:
    for line in lines:
        words_at(page, [(x, y, line, size, "tiro")])
        y += size * 1.15
    return y


def test_three_narrow_columns_over_wider_footnotes_are_read_as_the_body() -> None:
    """Origin: 147 (a Federal Register page: three columns of 9 pt text, 38 characters to a
    line, over 7 pt footnotes of 50): the document's body size was measured from lines of
    40 characters or more, so from the footnotes alone; the body's lines, larger than that,
    were read as headings, and the footnotes as body text cutting the body's sentences. The
    lines that fill their block's measure count too: the body's sentence runs on past the
    column's footnotes into the next column as one request, each footnote one of its own."""
    rng = random.Random(35)
    words = [rng.choice(BODY_WORDS) for _ in range(1800)]
    text = " ".join(
        " ".join(words[s : s + 13]).capitalize() + "." for s in range(0, len(words), 13)
    )
    lines = wrap(text, MEASURE * SIZE_OF_WRAP / BODY)
    doc = pymupdf.open()
    breaks = []
    at = 0
    for p in range(2):
        page = doc.new_page(width=612, height=792)
        for c, x in enumerate(THREE_COLUMNS):
            n = 3 * p + c
            column = lines[at : at + 40]
            at += 40
            breaks.append((column[-1].split()[-2:], lines[at].split()[:2]))
            _set_in(page, x, 60, column, BODY)
            page.draw_line((x, 480), (x + 50, 480), width=0.4)
            words_at(page, [(x + 6, 491, str(2 * n + 1), 4.5, "tiro")])
            first = wrap(
                f"The rule {n} is described in the manual for the pilots and the crews, "
                f"which sets out step {n} of the procedure in the order of its use, and is "
                f"updated after revision {n} of the software of the flight computers."
                " Each crew member reads the whole of it before the first flight of the day,"
                " and the operator keeps a record of who has read which revision of it."
                + " It is kept on board in the cockpit for the crews."
                * (c % 2),
                MEASURE * SIZE_OF_WRAP / NOTE,
            )
            y = _set_in(page, x + 9, 493, first[:1], NOTE)
            y = _set_in(page, x, y, first[1:], NOTE)
    texts = [" ".join(p.text.split()) for p in passages(read(doc.tobytes()))]
    sent = " | ".join(texts)
    for end, start in breaks[:-1]:
        if end[-1].endswith("."):
            continue  # a sentence ends at the column's foot
        assert any(" ".join([*end, *start]) in t for t in texts), (end, start, sent)
    for n in range(6):
        rule = [t for t in texts if f"The rule {n} is described" in t]
        assert len(rule) == 1 and rule[0].endswith(("of it.", "crews.")), sent


def test_a_footnote_opened_by_a_raised_mark_goes_on_at_a_line_opening_with_a_number() -> None:
    """Origin: 147 p3 (footnote 13: "More than 10 degrees difference for more than" | "10
    seconds."): a line of small print that opens with a number after an unfinished line
    was read as the next footnote, numbered "10", where the footnotes of the page are
    marked raised. A footnote opened by a raised mark goes on there: one request, whole;
    the next footnote, raised, is its own, and so is one a symbol marks after a line with
    no stop (132 p1: "∗The author ..." | "†Martin Blais for his suggestions")."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    below = sheet.paragraph(INTRO, LEFT, TOP)
    sheet.paragraph(OUTRO, LEFT, below + 4)
    y = 730.0
    sheet.writer.append((LEFT[0], y - 3), "13", TEXT, 5.0)
    sheet.writer.append((LEFT[0] + 8, y), "Sensors that differ by more than ten degrees", TEXT, 8)
    sheet.writer.append((LEFT[0], y + 9), "for more than", TEXT, 8)
    sheet.writer.append((LEFT[0], y + 18), "10 seconds in a row are both set aside.", TEXT, 8)
    sheet.writer.append((LEFT[0], y + 24), "14", TEXT, 5.0)
    sheet.writer.append((LEFT[0] + 8, y + 27), "The crew is told of it at once by", TEXT, 8)
    sheet.writer.append((LEFT[0], y + 36), "the alert on the display", TEXT, 8)
    sheet.writer.append((LEFT[0], y + 45), "\u2020Martin Blais for his suggestions", TEXT, 8)
    sheet.write()
    texts = [" ".join(p.text.split()) for p in read(doc.tobytes())]
    assert (
        "Sensors that differ by more than ten degrees for more than 10 seconds in a row are"
        " both set aside." in texts
    ), texts
    assert "The crew is told of it at once by the alert on the display" in texts, texts
    assert "Martin Blais for his suggestions" in texts, texts


def test_numbered_items_on_a_page_set_small_throughout_are_no_footnotes() -> None:
    """Origin: 147 p7-p10 (a Federal Register rule: its preamble in 9 pt, the rule's own
    text after it in 8 pt, page after page): "(3) In the Operating Procedures chapter,
    replace the existing Airspeed Unreliable" | "paragraph with the information in figure 2
    ..." in the next column was read as a footnote, smaller than the body and numbered, and
    cut at the column. Small print is smaller than its page's text; on a page that sets no
    text larger, a numbered item is a list item and its sentence runs on into the next
    column as one request."""
    doc = pymupdf.open()
    for _ in range(2):  # the preamble: the body's size
        sheet = Sheet(doc)
        for column in (LEFT, RIGHT):
            y = TOP
            while y < 700:
                y = sheet.paragraph(OUTRO, column, sheet.paragraph(INTRO, column, y) + 4) + 4
        sheet.write()
    page = doc.new_page(width=595, height=842)
    small = 8.0
    item = (
        "(2) In the Operating Procedures chapter, replace the existing Airspeed Unreliable",
        "paragraph with the information in figure 2 of this rule.",
    )
    y = TOP
    for k in range(40):
        line = f"The operator keeps a record of the revision {k} of the manual on file and"
        words_at(page, [(LEFT[0], y, line, small, "tiro")])
        y += 10
    words_at(page, [(LEFT[0], y, "shows it on request.", small, "tiro")])
    words_at(
        page,
        [
            (
                LEFT[0] + 8,
                y + 14,
                "(1) In the Limitations chapter, remove the information",
                small,
                "tiro",
            )
        ],
    )
    words_at(
        page, [(LEFT[0], y + 24, "identified as required by the earlier rule.", small, "tiro")]
    )
    first, rest = item[0].rsplit(" ", 2)[0], " ".join(item[0].rsplit(" ", 2)[1:])
    words_at(page, [(LEFT[0] + 8, y + 38, first, small, "tiro")])
    words_at(page, [(LEFT[0], y + 48, rest, small, "tiro")])
    words_at(page, [(RIGHT[0], TOP, item[1], small, "tiro")])
    texts = [" ".join(p.text.split()) for p in passages(read(doc.tobytes()))]
    whole = f"{item[0][4:]} {item[1]}"
    assert any(t.endswith(whole) for t in texts), texts


def test_a_footnote_left_open_at_a_columns_foot_goes_on_in_the_next_columns_notes() -> None:
    """Origin: 147 p3 (footnote 12: "The magnitude of the command varies according to
    parameters such as the airplane's" at the left column's foot, "altitude and airspeed,
    and would be limited ..." at the top of the next column's notes): the note was sent in
    two pieces, the second as body text. A footnote left open goes on in the next column's
    first small print, past that column's text, where it opens inside a sentence: one
    request; the next note, marked, is its own."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    for column in (LEFT, RIGHT):
        y = TOP
        while y < 540:
            y = sheet.paragraph(OUTRO, column, sheet.paragraph(INTRO, column, y) + 4) + 4
    foot = 700.0
    for column in (LEFT, RIGHT):
        shape = sheet.page.new_shape()
        shape.draw_line((column[0], foot - 14), (column[0] + 70, foot - 14))
        shape.finish(color=(0, 0, 0), width=0.4)
        shape.commit()
    sheet.writer.append((LEFT[0], foot - 3), "12", TEXT, 5)
    width = (LEFT[1] - LEFT[0]) * SIZE_OF_WRAP / 8
    opened = "The magnitude of the command that the system makes varies according to the"
    first = wrap(f"{opened} parameters of the flight such as the airplane's", width, 8)
    for k, line in enumerate(first):
        sheet.writer.append((LEFT[0] + (8 if k == 0 else 0), foot + 10 * k), line, TEXT, 8)
    rest = wrap(
        "altitude and airspeed, and is limited such that the pilot can still climb and"
        " descend using the control column alone.",
        width,
    )
    for k, line in enumerate(rest):
        sheet.writer.append((RIGHT[0], foot - 10 + 10 * k), line, TEXT, 8)
    sheet.writer.append((RIGHT[0], foot + 17), "13", TEXT, 5)
    sheet.writer.append((RIGHT[0] + 8, foot + 20), "More than ten degrees of difference.", TEXT, 8)
    sheet.write()
    texts = [" ".join(p.text.split()) for p in passages(read(doc.tobytes()))]
    assert (
        f"{opened} parameters of the flight such as the airplane's altitude and airspeed, and"
        " is limited such that the pilot can still climb and descend using the control column"
        " alone." in texts
    ), texts
    assert "More than ten degrees of difference." in texts, texts
