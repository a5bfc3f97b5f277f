"""A heading set on two lines is one request: a numbered section heading wrapped under its
title, past its number ("3 DESIGNING AI SUPPORTS FOR" | "EXPOSITORY WRITING"), and a paper's
title whose short second line is centred under the first on a two-column page. Constructed
pages, read for real; what is checked is what is sent to the model."""

from __future__ import annotations

import pymupdf
import pytest

from tests.helpers.pdfgen.columns import INTRO, LEFT, OUTRO, RIGHT, TEXT, TOP
from tests.helpers.pdfgen.sheet import TIMES_BOLD, Sheet, read
from translation.read.paragraph import ParagraphKind

HEADING = 10.0


def _texts(data: bytes) -> list[tuple[ParagraphKind, str]]:
    return [(p.kind, " ".join(p.text.split())) for p in read(data)]


@pytest.mark.parametrize(
    ("first", "second", "hanging"),
    [
        ("3 DESIGNING AI SUPPORTS", "FOR EXPOSITORY WRITING", True),  # under the title
        ("3 DESIGNING AI SUPPORTS FOR", "EXPOSITORY WRITING", False),  # after "FOR"
    ],
)
def test_a_numbered_heading_on_two_lines_is_one_heading(
    first: str, second: str, hanging: bool
) -> None:
    doc = pymupdf.open()
    sheet = Sheet(doc)
    y = sheet.paragraph(INTRO, LEFT, TOP)
    y = sheet.paragraph(OUTRO, LEFT, y)
    y = sheet.paragraph(INTRO, RIGHT, TOP)
    y += 14.0
    sheet.writer.append((RIGHT[0], y), first, TIMES_BOLD, HEADING)
    indent = TIMES_BOLD.text_length("3 ", HEADING) if hanging else 0.0
    sheet.writer.append((RIGHT[0] + indent, y + 13.0), second, TIMES_BOLD, HEADING)
    sheet.paragraph(OUTRO, RIGHT, y + 30.0)
    sheet.write()

    texts = _texts(bytes(doc.tobytes()))
    headings = [text for kind, text in texts if kind == ParagraphKind.HEADING]
    assert headings == [f"{first} {second}"], texts


def test_a_bold_heading_a_narrow_column_breaks_over_three_lines_is_one_heading() -> None:
    """Origin: 147 p5 (a Federal Register page, three columns 160 pt wide: "Explanation of
    Certain Provisions for" | "Alternative Methods of Compliance" | "(AMOCs)" in bold): a
    heading was a line or two, so the three lines were sent as a body paragraph, a sentence
    with no end. A bold title of a few words over three lines is one heading; the paragraph
    under it is its own request."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    column = (RIGHT[0], RIGHT[0] + 160.0)
    y = sheet.paragraph(INTRO, LEFT, TOP)
    sheet.paragraph(OUTRO, LEFT, y)
    y = sheet.paragraph(INTRO, column, TOP) + 14.0
    lines = (
        "Explanation of Certain Provisions for",
        "Alternative Methods of Compliance",
        "(AMOCs)",
    )
    for k, line in enumerate(lines):
        sheet.writer.append((column[0], y + 11.0 * k), line, TIMES_BOLD, HEADING)
    sheet.paragraph(OUTRO, column, y + 40.0)
    sheet.write()

    texts = _texts(bytes(doc.tobytes()))
    assert (ParagraphKind.HEADING, " ".join(lines)) in texts, texts
    assert (ParagraphKind.BODY, " ".join(OUTRO.split())) in texts, texts


def test_a_title_s_centred_second_line_is_one_heading_with_its_first() -> None:
    doc = pymupdf.open()
    sheet = Sheet(doc)
    first, second = "Novelty Controlled Paraphrase Generation with Retrieval", "Prompt Tuning"
    middle = (LEFT[0] + RIGHT[1]) / 2
    for text, y in ((first, 70.0), (second, 86.0)):
        width = TEXT.text_length(text, 14.0)
        sheet.writer.append((middle - width / 2, y), text, TEXT, 14.0)
    y = sheet.paragraph(INTRO, LEFT, TOP + 20)
    sheet.paragraph(OUTRO, LEFT, y)
    y = sheet.paragraph(INTRO, RIGHT, TOP + 20)
    sheet.paragraph(OUTRO, RIGHT, y)
    sheet.write()

    texts = _texts(bytes(doc.tobytes()))
    assert texts[0] == (ParagraphKind.HEADING, f"{first} {second}"), texts
    assert not any(text == second for _, text in texts)


def test_a_line_opening_with_a_decimal_in_running_text_is_no_heading() -> None:
    """Origin: 111 p8 (AI Magazine, three columns: "... lifting it from precision" | "0.91
    at recall 0.21. Precision increased" | "with each new iteration ..."): the line, short of
    the column range the reader took for two columns, opens with a decimal and read as a
    numbered heading "0.91", cutting the sentence in two around it. A section's title opens
    with no word in lower case; the sentence is one request."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    columns = ((51.0, 213.0), (230.0, 392.0), (402.0, 564.0))
    for column in columns:
        y = TOP
        while y < 520:
            y = sheet.paragraph(INTRO, column, y)
    lines = (
        "lifting the curve from precision",
        "0.91 at recall 0.21. Precision increased",
        "with each new iteration of learning.",
    )
    for k, line in enumerate(lines):
        sheet.writer.append((columns[0][0], 560 + 12.5 * k), line, TEXT, 10)
    sheet.write()
    texts = _texts(doc.tobytes())
    assert [t for _, t in texts if "0.91" in t] == [" ".join(lines)], texts
