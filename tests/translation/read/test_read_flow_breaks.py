"""One sentence, one request, where the piece before a break stops on no telling word: a
justified paragraph cut by the page (and a float at the next page's head) or by a photo beside
it goes on in a capital or a number ("... we used" | "Specter as ...", "... manager," | "1
assistant professor ...", "... in fall" | "2018. His ..."); a line broken after "Fig." goes on
in the figure's number ("5. The ..."), no list label. Constructed pages, read for real; what is
checked is what is sent to the model."""

from __future__ import annotations

import pymupdf
import pytest

from tests.helpers.pdfgen.columns import INTRO, OUTRO, TEXT, TOP, WIDE
from tests.helpers.pdfgen.sheet import LEADING, SIZE, Sheet, lines_at, read, spaced_at, wrap
from translation.read.flow.passage import Passage, passages

FILLER = (
    "Research on reading tools has a long history in the field, and many systems help people"
    " find the papers that matter to them among the many that they are shown while reading."
)


def justified(sheet: Sheet, text: str, column: tuple[float, float], top: float) -> float:
    """Set ``text`` in ``column`` from ``top``, its first line indented, every line (the last
    too: the sentence goes on past the break) stretched to the column's edge; return the
    baseline after its last line."""
    y = top
    for i, row in enumerate(wrap(text, column[1] - column[0], 12.0)):
        left = column[0] + (12.0 if i == 0 else 0.0)
        words = row.split()
        widths = [TEXT.text_length(w, SIZE) for w in words]
        gap = (column[1] - left - sum(widths)) / max(len(words) - 1, 1)
        x = left
        for word, width in zip(words, widths, strict=True):
            sheet.writer.append((x, y), word, TEXT, SIZE)
            x += width + gap
        y += LEADING
    return y


def cut_before_a_float(last_lines: str, first_lines: str) -> bytes:
    """A full page of justified text ending in ``last_lines`` (its last line full), the next
    page opening with a figure and its caption, then ``first_lines``, unindented."""
    doc = pymupdf.open()
    first = Sheet(doc)
    y = TOP
    while y < 680:
        y = justified(first, f"{FILLER} {FILLER}", WIDE, y)
    justified(first, last_lines, WIDE, y)
    first.write()
    second = Sheet(doc)
    second.figure(WIDE, TOP, TOP + 120)
    y = second.paragraph("Figure 3: The reading tool.", WIDE, TOP + 136, indent=False)
    y = second.paragraph(first_lines, WIDE, y + 12, indent=False)
    second.paragraph(OUTRO, WIDE, y)
    second.write()
    return bytes(doc.tobytes())


def whole(found: list[Passage], words: str) -> Passage:
    (passage,) = [p for p in found if words in p.text]
    return passage


#: (piece before the page break and the float, piece after it): a justified paragraph's last
#: line as full as the others, stopping on "used", no telling word; a sentence cut after a
#: comma that goes on in a number.
CUT_SENTENCES = [
    (
        "Other work recommends papers by computing embeddings of whole documents with a language"
        " model trained on their titles, abstracts and their references, and its authors share"
        " it with everyone. In the evaluation of our own tool for the readers of the papers in"
        " the lab study and in the long field study of this paper we used",
        "Specter as one of our baselines for ranking citations.",
    ),
    (
        "For this we recruited five participants with varying research backgrounds and years of"
        " experience in reading papers for their work, from the industry and from two of the"
        " universities nearby: 1 industry research manager,",
        "1 assistant professor and 2 students working on NLP.",
    ),
]


@pytest.mark.parametrize(("before", "after"), CUT_SENTENCES)
def test_a_sentence_goes_on_in_a_capital_or_a_number_after_the_page_and_a_float(
    before: str, after: str
) -> None:
    found = passages(read(cut_before_a_float(before, after)))
    passage = whole(found, before[:20])
    assert [p.page for p in passage.pieces] == [0, 1]
    assert passage.text.endswith(before[-20:] + " " + after)
    assert not any(p.text.startswith(after[:10]) for p in found)


def test_a_footnote_mark_after_the_comma_leaves_the_sentence_open() -> None:
    """The comma before a raised footnote mark ("... like arXiv,²" | "PubMed Central, ...")
    still leaves the sentence open, the line ragged."""
    doc = pymupdf.open()
    first = Sheet(doc)
    y = TOP
    while y < 680:
        y = first.paragraph(FILLER, WIDE, y)
    y = first.paragraph("Many resources support research over papers, such as arXiv,", WIDE, y)
    end = TEXT.text_length("Many resources support research over papers, such as arXiv,", SIZE)
    first.writer.append((WIDE[0] + 12.0 + end, y - LEADING - 4.0), "2", TEXT, 7.0)
    first.writer.append((WIDE[0], 780.0), "2 https://arxiv.org", TEXT, 7.0)
    first.write()
    second = Sheet(doc)
    y = second.paragraph("PubMed Central and the ACL Anthology.", WIDE, TOP, indent=False)
    second.paragraph(OUTRO, WIDE, y)
    second.write()

    found = passages(read(bytes(doc.tobytes())))
    passage = whole(found, "Many resources")
    assert [p.page for p in passage.pieces] == [0, 1]
    assert passage.text.endswith("PubMed Central and the ACL Anthology.")


def test_a_figure_number_opening_a_line_is_no_list_label() -> None:
    """A justified line ending "... displayed in Fig." and the next opening with the figure's
    number "5. The ...": one paragraph, not a list item "5." after a sentence."""
    lines = [
        "The results of the strain measurements are displayed in Fig.",
        "5. The piezoresistive coefficients are extracted by computing a",
        "linear interpolation on the mobility variation of the devices.",
    ]
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    right = 72.0 + max(TEXT.text_length(line, SIZE) for line in lines)
    for i, line in enumerate(lines):
        words = line.split()
        widths = [TEXT.text_length(w, SIZE) for w in words]
        gap = (right - 72.0 - sum(widths)) / (len(words) - 1) if i < 2 else 2.5
        spaced_at(page, 72.0, 100.0 + i * LEADING, words, gap, SIZE, "tiro")
    texts = [(p.label, " ".join(p.text.split())) for p in read(bytes(doc.tobytes()))]
    assert texts == [("", " ".join(lines))], texts


def test_short_example_lines_keep_their_breaks() -> None:
    """03 p20: after a paragraph, lines led by one word and a number ("Summary 2 ...",
    "Summary 3 ...") each end a sentence, one of them nearly at the column's edge; a remark in
    parentheses ends its line with room for the next line's first word. Each is a paragraph
    of its own, not run into one flowing paragraph with the text around it.

    Origin: a paper outside the corpus (issue 22), the layout that broke a request."""
    width = 420.0
    summaries = [
        "Summary 2 (snippet shown) = Albert Szent-Gyorgyi won the 1955 Nobel Prize for"
        " finding Vitamin C.",
        "Summary 3 (snippet shown) = Vitamin C was the first chemically produced Vitamin.",
        "Summary 4 (snippet shown) = Apple contains vitamin C.",
    ]
    remark = (
        "(This is an illustrative example only, the actual annotation task has much longer"
        " summaries.)"
    )
    after = "The rating scale is from 0 to 5, where 0 is the lowest possible rating " * 3
    lines = [*wrap(INTRO, width), *summaries, *wrap(OUTRO, width), remark, *wrap(after, width)]
    # "Summary 2" ends near the column's edge, the others and the remark within a quarter.
    assert width - 2 * SIZE < TEXT.text_length(summaries[0], SIZE) < width
    assert TEXT.text_length(remark, SIZE) > 0.75 * width
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    lines_at(page, WIDE[0], TOP, lines, SIZE, pitch=LEADING)
    texts = [" ".join(p.text.split()) for p in read(doc.tobytes())]
    assert [*summaries, remark] == [t for t in texts if t in [*summaries, remark]], texts
    assert INTRO in texts and OUTRO in texts, texts
