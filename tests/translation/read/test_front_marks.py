"""Raised marks of a paper's front matter (issue 23, corpus 07 p1 and 12 p1): the affiliation
mark before an affiliation is drawn raised, right before its translated first word.

A copy of the mark's glyphs set back where its source was got a placement offset of a few
hundred-thousandths of a point, written ``-4.6e-05``: PDF numbers have no exponent, the reader
took the placement as degenerate and drew nothing.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pymupdf
import pytest

from tests.helpers.pdfgen.sheet import TIMES, TIMES_BOLD, Sheet
from tests.helpers.pdfgen.typeset import paper_bytes, render_page, translation_glyphs
from translation.read.blocks.front_matter import author_note_marks
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.paragraph import Paragraph, ParagraphKind

_BODY = (
    "Event detection is a task that requires capturing deep semantic information in text to "
    "correctly identify specific types of events in a sentence or a document of any length."
)


def _front() -> bytes:
    """A title, bold author names with raised marks, an affiliation of two lines that starts
    with a raised "1", as Word sets it (the mark's box starts a few hundred-thousandths of a
    point right of the paragraph's left edge, as 07 p1's does), an e-mail line, an abstract."""
    p = Sheet()
    p.put(70.92, 180.0, "A Novel Approach to Event Detection with Graphs", 17.05, TIMES_BOLD)
    x = p.put(141.7157, 241.2462, "Yuqi Xi", 11.05, TIMES_BOLD)
    x = p.put(x, 237.25, "1", 7.45)
    x = p.put(x + 3, 241.2462, "and Jiamin Lu", 11.05, TIMES_BOLD)
    p.put(x, 237.25, "1", 7.45)
    x = p.put(141.715744, 268.0035, "1", 7.45)
    p.put(x, 271.9642, "Key Laboratory of Water Big Data Technology of Ministry", 11.05)
    p.put(141.715698, 284.5625, "School of Computer and Information, Hohai University", 11.05)
    p.put(141.7157, 330.0, "E-mail: someone@example.org", 11.05)
    y = 370.0
    for line in (_BODY[:95], _BODY[95:]) * 4:
        p.put(70.92, y, line, 10)
        y += 12.0
    return p.done()


@functools.cache
def _rendered() -> tuple[list[Paragraph], pymupdf.Page]:
    return render_page(_front(), 0)


def _marks_drawn(page: pymupdf.Page, mark: str) -> list[pymupdf.Rect]:
    """The boxes of ``mark`` drawn small (a raised mark) below the author line: a copy of the
    source's glyph or set in the translation's font."""
    return [
        pymupdf.Rect(c[3])
        for t in page.get_texttrace()
        if t["size"] < 8
        for c in t["chars"]
        if chr(c[0]) == mark and c[3][1] > 250
    ]


def _first_word(page: pymupdf.Page, near_y: float) -> pymupdf.Rect:
    """The box of the first translated glyph of the line whose glyphs sit about ``near_y``."""
    boxes = [pymupdf.Rect(g.bbox) for g in translation_glyphs(page) if g.size >= 8]
    line = [b for b in boxes if b.y0 - 6 < near_y < b.y1 + 2]
    assert line, f"no translated line at y {near_y}"
    return min(line, key=lambda b: b.x0)


def test_affiliation_mark_is_drawn_raised_before_its_word() -> None:
    _, page = _rendered()
    drawn = _marks_drawn(page, "1")
    assert len(drawn) == 1, f"the affiliation mark is drawn {len(drawn)} times"
    box, word = drawn[0], _first_word(page, 268.0)
    assert box.y1 < word.y1 - 1.5, f"the mark ({box}) is not raised beside {word}"
    assert box.x1 <= word.x0 + 0.5, f"the mark ({box}) is not before its word {word}"
    assert word.x0 - box.x1 < 2.0, f"the mark ({box}) is far from its word {word}"


@pytest.mark.corpus
def test_centred_affiliations_keep_their_marks_beside_their_first_words(corpus_dir: Path) -> None:
    """12 p1: five centred affiliations, each opened by a raised number, read as notes with the
    number as a hanging label; the label was set at the left edge of a box wider than the
    centred line, far left of its words. Each mark must end within 3 pt before the first
    translated glyph of its line."""
    _, page = render_page(paper_bytes(corpus_dir, "12"), 0)
    glyphs = [pymupdf.Rect(g.bbox) for g in translation_glyphs(page) if g.size >= 8]
    marks = [
        (chr(c[0]), pymupdf.Rect(c[3]))
        for t in page.get_texttrace()
        if t["size"] < 8
        for c in t["chars"]
        if chr(c[0]) in "12345" and c[3][1] > 175  # below the author lines: the affiliations
    ]
    gaps = {}
    for mark, box in marks:
        line = [g for g in glyphs if g.x0 >= box.x1 - 1 and g.y0 < box.y1 and box.y0 < g.y1]
        if line:
            gaps[mark] = round(min(g.x0 for g in line) - box.x1, 2)
    assert sorted(gaps) == list("12345"), f"marks drawn beside an affiliation: {gaps}"
    assert all(-0.5 < gap < 3.0 for gap in gaps.values()), gaps


def _author_grid() -> bytes:
    """An ACM author block: three columns of cells, each a name over an e-mail address over
    an affiliation and a city, centred on its column; the third column's second cell beside
    the abstract's heading line of a two-column body."""
    p = Sheet()
    p.put(120.0, 80.0, "Augmenting Citations in Scientific Papers", 17.0, TIMES_BOLD)
    cells = [
        (150.0, 120.0, ["Joseph Chee Chang", "josephc@allenai.org", "Allen Institute for AI"]),
        (300.0, 120.0, ["Amy X. Zhang", "axz@cs.uw.edu", "University of Washington"]),
        (450.0, 120.0, ["Jonathan Bragg", "jbragg@allenai.org", "Allen Institute for AI"]),
        (150.0, 180.0, ["Andrew Head", "head@seas.upenn.edu", "University of Pennsylvania"]),
        (300.0, 180.0, ["Kyle Lo", "Doug Downey", "kylel@allenai.org", "Allen Institute for AI"]),
        (450.0, 180.0, ["Daniel S. Weld", "danw@allenai.org", "Allen Institute for AI"]),
    ]
    for axis, top, lines in cells:
        for k, text in enumerate(lines):
            size = 9.0 if "@" in text or "Institute" in text or "Univ" in text else 11.0
            p.put(axis - TIMES.text_length(text, size) / 2, top + 12.0 * k, text, size, TIMES)
    p.put(60.0, 250.0, "ABSTRACT", 10.0, TIMES_BOLD)
    y = 264.0
    for _ in range(6):
        p.put(60.0, y, _BODY[:60], 9.0, TIMES)
        p.put(310.0, y, _BODY[60:120], 9.0, TIMES)
        y += 11.0
    return p.done()


def test_an_author_grid_keeps_its_names_and_whole_e_mail_addresses() -> None:
    """Names standing alone in an author grid's cells are printed as they are (they were sent,
    "Kyle Lo" over "Doug Downey" as one cell); each e-mail address stays whole on its line in
    the translation (set in a wider face, it was cut between its letters to fit the cell)."""
    paras, page = render_page(_author_grid(), 0)
    sent = " | ".join(p.text for p in paras)
    for name in ("Joseph", "Zhang", "Bragg", "Andrew Head", "Kyle", "Downey", "Weld"):
        assert name not in sent, (name, sent)
    text = page.get_text()
    for name in ("Joseph Chee Chang", "Amy X. Zhang", "Kyle Lo", "Doug Downey", "Daniel S. Weld"):
        assert name in text, name
    lines = text.splitlines()
    for mail in ("josephc@allenai.org", "head@seas.upenn.edu", "jbragg@allenai.org"):
        assert any(mail in ln for ln in lines), (mail, [ln for ln in lines if "@" in ln])


def test_a_marked_affiliation_of_the_front_matter_is_no_footnote() -> None:
    """Origin: 116 p1 (JCAP: "¹ School of Physics, University of Melbourne, VIC 3010,
    Australia" under the authors, before the abstract): the raised mark read as a footnote's,
    the affiliation went out as a footnote, a request cut at its end. In the front matter a
    line opened by a mark is an affiliation, its mark kept as its label; a footnote with the
    same mark below the body text is still a footnote."""
    p = Sheet()
    p.put(70.92, 150.0, "Apparent and Average Accelerations of the Universe", 17.05, TIMES_BOLD)
    x = p.put(141.7, 190.0, "Ann Lee", 11.05)
    x = p.put(x, 186.0, "1", 7.45)
    x = p.put(x + 3, 190.0, "and Bo Kim", 11.05)
    p.put(x, 186.0, "2", 7.45)
    affiliations = (
        "School of Physics, University of Melbourne, VIC 3010, Australia",
        "Department of Mathematics, University of Miami, Coral Gables, FL 33124, USA",
    )
    for k, text in enumerate(affiliations):
        x = p.put(90.0, 216.0 + 14 * k, str(k + 1), 7.45)
        p.put(x + 1, 220.0 + 14 * k, text, 9.0)
    p.put(70.92, 270.0, "Abstract", 10, TIMES_BOLD)
    y = 290.0
    for line in (_BODY[:95], _BODY[95:]) * 4:
        p.put(70.92, y, line, 10)
        y += 12.0
    x = p.put(70.92, 696.0, "3", 6.0)
    p.put(x + 1, 700.0, "The data of every run are kept with the code of the paper online.", 8)
    paragraphs = extract_paragraphs(open_document(p.done()))
    kinds = {" ".join(q.text.split()): (q.kind, q.label.strip()) for q in paragraphs}
    for k, text in enumerate(affiliations):
        assert kinds[text] == (ParagraphKind.AUTHOR, str(k + 1)), kinds
    note = "The data of every run are kept with the code of the paper online."
    assert kinds[note] == (ParagraphKind.FOOTNOTE, "3"), kinds


def test_the_note_an_authors_mark_points_to_is_an_author_block() -> None:
    """Origin: 09 p1 (a Korean issue brief: the author "김 창 호*" under the title, and at
    the page's foot "* 경제산업조사실 금융공정거래팀 입법조사관, 02-788-4582, e-mail"): the
    author's note went out as a footnote, a text of four words and no sentence. A note whose
    mark an author's line ends with is an author block (an affiliation, a contact), its mark
    kept as its label; a note with another mark is still a footnote."""
    p = Sheet()
    p.put(70.92, 150.0, "Apparent and Average Accelerations of the Universe", 17.05, TIMES_BOLD)
    p.put(400.0, 190.0, "Ann Lee*", 11.05)
    p.put(70.92, 215.0, "Abstract", 10, TIMES_BOLD)
    y = 235.0
    for line in (_BODY[:95], _BODY[95:]) * 6:
        p.put(70.92, y, line, 10)
        y += 12.0
    contact = "Department of Physics, University of Melbourne, 02-788-4582"
    p.put(70.92, 690.0, "* " + contact, 8)
    p.put(70.92, 702.0, "† The data of every run are kept with the code of the paper online.", 8)
    paragraphs = extract_paragraphs(open_document(p.done()))
    kinds = {" ".join(q.text.split()): (q.kind, q.label.strip()) for q in paragraphs}
    assert kinds[contact] == (ParagraphKind.AUTHOR, "*"), kinds
    note = "The data of every run are kept with the code of the paper online."
    assert kinds[note] == (ParagraphKind.FOOTNOTE, "†"), kinds
    # Origin: corpus2 132 p1: a front line that is no name ("... mailing list for
    # discussion{v2}†", its mark a thank-you note's) names no author's note.
    lines = ["김 창 호*", "{v1} mailing list for discussion{v2}†", "release 5.2‡"]
    assert author_note_marks(lines) == {"*"}


def test_the_authors_note_of_a_korean_brief_is_an_author_block(corpus_dir: Path) -> None:
    """09 p1: the note of "김 창 호*" is an author block; the page's other notes are
    footnotes."""
    data = paper_bytes(corpus_dir, "09")
    paragraphs = extract_paragraphs(open_document(data), pages=[0])
    notes = [q for q in paragraphs if q.label.strip() == "*"]
    assert [q.kind for q in notes] == [ParagraphKind.AUTHOR]
    assert notes[0].text.startswith("경제산업조사실")
    assert any(q.kind is ParagraphKind.FOOTNOTE and q.label.strip() == "1)" for q in paragraphs)
