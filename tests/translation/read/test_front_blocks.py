"""Author and affiliation blocks of the front matter (issue 35, point 2): the front matter
ends at a first section's heading set in a TeX bold face, which MuPDF does not flag bold
(JSS's "1 Introduction" in CMB10); an affiliation opened by a circled number is a line of its
own; a centred address set larger than the body breaks into its lines, each an author block,
as one set at the body's size does. Each test sets a page with PyMuPDF and reads what the
pipeline sends; the last ones read real pages of ``corpus2/``."""

from __future__ import annotations

import pymupdf
import pytest

from tests.helpers.corpus2 import corpus2_pages
from tests.helpers.pdfgen.sheet import words_at, wrap
from translation.read.blocks.front_matter import affiliation_mark
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.paragraph import Paragraph, ParagraphKind
from translation.read.style.paragraph_style import tex_bold

_BODY = (
    "The classical linear regression model is still one of the most popular tools for data "
    "analysis despite its simple structure. Although it is appropriate in many situations, "
    "there are many pitfalls that might affect the quality of conclusions drawn from fitted "
    "models or might even lead to results that cannot be interpreted at all by the analyst."
)


def _named(doc: pymupdf.Document, alias: str, name: str) -> None:
    """Give the face put on the document's first page as ``alias`` the PDF name ``name`` (a
    TeX face's: "CMB10"), as MuPDF reads it from the descendant font and its descriptor."""
    (xref,) = [f[0] for f in doc.get_page_fonts(0) if f[4] == alias]
    descendant = int(doc.xref_get_key(xref, "DescendantFonts")[1].strip("[]").split()[0])
    descriptor = int(doc.xref_get_key(descendant, "FontDescriptor")[1].split()[0])
    for target, key in ((xref, "BaseFont"), (descendant, "BaseFont"), (descriptor, "FontName")):
        doc.xref_set_key(target, key, f"/{name}")


def _centred(page: pymupdf.Page, y: float, text: str, size: float, font: str) -> None:
    """``text`` centred on the page's middle at baseline ``y``."""
    width = pymupdf.Font(font if font in ("tiro", "tibo") else "tiro").text_length(text, size)
    words_at(page, [((page.rect.width - width) / 2, y, text, size, font)])


def _body(page: pymupdf.Page, y: float, size: float, times: int = 3) -> None:
    """Running text from baseline ``y``, 90 pt to 505 pt, ``times`` paragraphs."""
    for _ in range(times):
        for line in wrap(_BODY, 415.0 * 10.0 / size):
            words_at(page, [(90.0, y, line, size, "tiro")])
            y += 1.2 * size
        y += 0.6 * size


def _kinds(data: bytes) -> dict[str, ParagraphKind]:
    return {" ".join(q.text.split()): q.kind for q in extract_paragraphs(open_document(data))}


def _jss_front() -> bytes:
    """A JSS vignette's first page: a light title, the authors' names with marks, two
    affiliations in small italics each opened by a circled number (the first one run near
    the column's width), then "1 Introduction" set in CMB10 at 14.3 pt, and the body."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_font(fontname="F1", fontbuffer=pymupdf.Font("tiro").buffer)
    page.insert_font(fontname="F2", fontbuffer=pymupdf.Font("cjk").buffer)
    _centred(page, 160.0, "Diagnostic Checking in Regression Relationships", 17.2, "tiro")
    _centred(page, 190.0, "Ann Lee and Bo Kim", 12.0, "tiro")
    for k, text in enumerate(_AFFILIATIONS):
        y = 205.0 + 14 * k
        words_at(page, [(96.0, y, "①②"[k], 9.0, "F2"), (104.0, y, text, 9.0, "tiro")])
    words_at(page, [(90.0, 258.0, "1 Introduction", 14.3, "F1")])
    _body(page, 282.0, 10.0)
    _named(doc, "F1", "CMB10")
    return bytes(doc.tobytes())


_AFFILIATIONS = (
    "Institut für Statistik und Wahrscheinlichkeitstheorie, Technische Universität Wien, Austria",
    "Department of Medical Informatics, Biometry and Epidemiology, Erlangen, Germany",
)


def test_tex_bold_faces_by_their_names() -> None:
    assert tex_bold("CMB10") and tex_bold("ABCDEF+CMBX12") and tex_bold("ptmb8t")
    assert not tex_bold("CMR12") and not tex_bold("TsukuBOldMinPr6N-R")


def test_a_circled_or_raised_digit_opens_an_affiliation() -> None:
    """A digit that is no decimal one ("①", "❸", "¹") is a mark, never a word's first letter;
    a plain digit or a letter opens no affiliation."""
    for text in ("① Department of Physics", "❸Institut für Statistik", "¹ School of Law"):
        assert affiliation_mark(text), text
    for text in ("1 Introduction", "Institut für Statistik", "(a) the first case"):
        assert not affiliation_mark(text), text


def test_a_first_section_in_a_tex_bold_face_ends_the_front_matter() -> None:
    """Origin: corpus2 121 p1: "1 Introduction" in CMB10 was not read as bold, no front
    matter was found, and the two affiliations went out as one body request cut at its end.
    Each affiliation is now an author block of its own; the heading is a heading."""
    kinds = _kinds(_jss_front())
    for text in _AFFILIATIONS:
        found = [k for t, k in kinds.items() if t.endswith(text)]
        assert found == [ParagraphKind.AUTHOR], (text, kinds)
    assert kinds["1 Introduction"] is ParagraphKind.HEADING, kinds


_ADDRESSES = (
    ("Ann Lee", ["Institute of Statistics", "University of Munich", "Ludwigstr. 33, Munich"]),
    ("Bo Kim", ["Statistical Methodology", "Pharma Research AG", "CH-4002 Basel, Switzerland"]),
)


def _centred_addresses() -> bytes:
    """A report's first page set in 12 pt: a title at 20.7 pt, then per author a bold name
    and three centred address lines at 14.3 pt (LaTeX's \\large), "Abstract", the body."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    _centred(page, 150.0, "Simultaneous Inference in General Models", 20.7, "tiro")
    y = 200.0
    for name, lines in _ADDRESSES:
        _centred(page, y, name, 14.3, "tibo")
        for line in lines:
            y += 18.0
            _centred(page, y, line, 14.3, "tiro")
        y += 40.0
    _centred(page, y, "Abstract", 12.0, "tibo")
    _body(page, y + 24.0, 12.0, times=2)
    return bytes(doc.tobytes())


def test_centred_address_lines_set_large_are_author_blocks_each() -> None:
    """Origin: corpus2 125 p1 (three authors, each a bold name over a centred address in
    \\large): an address line larger than the body by more than a point did not break from
    the next, and each address went out as one body request cut at its end. A light line
    larger by less than a title is (2.5 pt) is an author's line, one unit each."""
    kinds = _kinds(_centred_addresses())
    for _, lines in _ADDRESSES:
        for line in lines:
            assert kinds.get(line) is ParagraphKind.AUTHOR, (line, kinds)
    assert kinds["Simultaneous Inference in General Models"] is ParagraphKind.HEADING, kinds


_THESIS_TITLE = (
    "The Suitability of the Text Formatter for Thesis",
    "Preparation by Technical and Non-technical Degree",
    "Candidates in the Sciences and the Humanities",
)
_DEGREE = (
    "A dissertation submitted in partial fulfillment of",
    "the requirements for the degree of",
)


def _title_page(running: bool = False) -> bytes:
    """A thesis's title page, set off the paper's middle (for the binding): a title of 19
    words in three lines at 14.3 pt, the author, the degree's two lines, the university and
    the year, all centred on one axis at 11 pt, a line set flush right, and a note at the
    foot; ``running``: a line of running text under the year, across the column. A page of
    running text follows."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    times = pymupdf.Font("tiro")

    def centred(y: float, text: str, size: float) -> None:
        words_at(page, [(324.0 - times.text_length(text, size) / 2, y, text, size, "tiro")])

    for k, line in enumerate(_THESIS_TITLE):
        centred(121.0 + 17.5 * k, line, 14.3)
    centred(261.0, "Ann Lee", 11.0)
    for k, line in enumerate(_DEGREE):
        centred(353.0 + 18.0 * k, line, 11.0)
    centred(432.0, "Doctor of Philosophy", 11.0)
    centred(493.0, "University of Washington", 11.0)
    centred(534.0, "2008", 11.0)
    flush = "Program Authorized to Offer Degree: Technology Services"
    words_at(page, [(476.0 - times.text_length(flush, 11.0), 630.0, flush, 11.0, "tiro")])
    if running:
        (line, *_) = wrap(_BODY, 415.0 * 10.0 / 11.0)
        words_at(page, [(90.0, 560.0, line, 11.0, "tiro")])
    words_at(page, [(120.0, 712.0, "1", 6.0, "tiro"), (124.0, 714.0, _NOTE, 8.0, "tiro")])
    _body(doc.new_page(width=595, height=842), 100.0, 11.0, times=4)  # the body's column
    return bytes(doc.tobytes())


_NOTE = "The style file is kept with the source of this thesis."


def test_a_title_page_is_front_matter_to_its_foot() -> None:
    """Origin: corpus2 118 p1 (a thesis's title page): no "Abstract" ends its front matter,
    so none was found; the title of 16 words went out as a body request cut at its end, as
    did the degree's lines. A page of a few lines, most centred on one axis, none running
    the column's width, is a title page: the title a heading, each centred group an author
    block, the note at its foot a footnote."""
    kinds = _kinds(_title_page())
    assert kinds[" ".join(_THESIS_TITLE)] is ParagraphKind.HEADING, kinds
    for text in (" ".join(_DEGREE), "Doctor of Philosophy", "University of Washington"):
        assert kinds.get(text) is ParagraphKind.AUTHOR, (text, kinds)
    assert kinds.get("Program Authorized to Offer Degree: Technology Services") is (
        ParagraphKind.AUTHOR
    ), kinds
    assert kinds[_NOTE] is ParagraphKind.FOOTNOTE, kinds
    # A line of running text makes it a page of the body: its lines are read as ever.
    kinds = _kinds(_title_page(running=True))
    assert kinds.get(" ".join(_DEGREE)) is ParagraphKind.BODY, kinds


@pytest.mark.corpus
def test_a_theses_title_page_sends_no_body_text() -> None:
    """118 p1: the title is a heading; the degree, university and program lines are author
    blocks; the note under them stays a footnote."""
    paras = extract_paragraphs(
        open_document(corpus2_pages("118_thesis_uwthesis_chapters_p12of34.pdf", [0, 1])),
        pages=[0],
    )
    kinds = {q.text: q.kind for q in paras}
    title = next(t for t in kinds if t.startswith("The Suitability of the"))
    assert kinds[title] is ParagraphKind.HEADING, kinds
    assert [q.text for q in paras if q.kind is ParagraphKind.BODY] == []
    assert kinds["an egocentric imitation, actually"] is ParagraphKind.FOOTNOTE, kinds


def _first_page(name: str) -> list[Paragraph]:
    return extract_paragraphs(open_document(corpus2_pages(name, [0, 1])), pages=[0])


@pytest.mark.corpus
def test_a_jss_vignettes_affiliations_are_two_author_blocks() -> None:
    """121 p1: the two affiliations under the names are two author blocks, the names are
    printed as they are, "1 Introduction" is a heading."""
    paras = _first_page("121_jss_lmtest_vignette_5p.pdf")
    authors = [q.text for q in paras if q.kind is ParagraphKind.AUTHOR]
    assert len(authors) == 2, authors
    assert "Wien, Austria" in authors[0] and "Erlangen-Nürnberg, Germany" in authors[1]
    heading = next(i for i, q in enumerate(paras) if q.text == "1 Introduction")
    assert paras[heading].kind is ParagraphKind.HEADING
    front = " ".join(q.text for q in paras[:heading])
    assert "Zeileis" not in front and "Hothorn" not in front, front


@pytest.mark.corpus
def test_centred_addresses_in_large_type_are_author_lines() -> None:
    """125 p1: each line of the three centred addresses is an author block; nothing above
    "Abstract" is sent as body text."""
    paras = _first_page("125_r_multcomp_generalsiminf_p12of24.pdf")
    kinds = {q.text: q.kind for q in paras}
    lines = (
        "Institut für Statistik",
        "Ludwigstraße 33, D–80539 München, Germany",
        "CH-4002 Basel, Switzerland",
        "Texas Tech University",
    )
    for line in lines:
        assert kinds.get(line) is ParagraphKind.AUTHOR, (line, kinds)
    abstract = next(i for i, q in enumerate(paras) if q.text == "Abstract")
    assert all(q.kind is not ParagraphKind.BODY for q in paras[:abstract]), paras[:abstract]
