"""References stay untouched (issue 23 item 3) on pages set with PyMuPDF: across page breaks,
without a heading, and around annotations; the report names the pages kept."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pymupdf
import pytest

from tests.conftest import CORPUS_DIR
from tests.helpers.pdfgen.sheet import lines_at, words_at
from translation.read.document import open_document
from translation.read.extraction import extract_document
from translation.read.references.entries import has_venue
from translation.read.segmentation import Segmentation

PROSE = (
    "We describe a careful method for the evaluation of the models that we study in this",
    "paper, and we compare it with the previous approaches on several of the datasets that",
    "are common in the field, with results that support the main hypothesis of the work.",
)
# Names found only in the entries: a request holding one is a reference sent.
NAMES = "Quillfeather Bramblewood Ostrander Vexley Marrowgate Thistlecombe".split()
JOURNALS = ("J. Phys.", "Phys. Rev. B", "Phys. Rev. Lett.", "J. Chem. Phys.", "Nature")


def entry(number: int) -> tuple[str, ...]:
    """An APS-style entry, "[n] A. Author, B. Author, J. Phys. 12, 345 (2001).", one or two
    lines long."""
    rng = random.Random(number)
    first, second = rng.sample(NAMES, 2)
    venue = f"{rng.choice(JOURNALS)} {rng.randint(10, 99)}, {rng.randint(100, 999)}"
    year = rng.randint(1990, 2022)
    if number % 3:
        return (f"[{number}] {first[0]}. {first}, {second[0]}. {second}, {venue} ({year}).",)
    return (
        f"[{number}] {first[0]}. {first}, {second[0]}. {second}, and C. Linden, Magnetic order",
        f"in layered compounds seen by neutron scattering, {venue} ({year}).",
    )


def new_page(doc: pymupdf.Document) -> pymupdf.Page:
    page = doc.new_page(width=595, height=842)
    head = (230, 40, "Journal of Synthetic Physics 2024", 8, "tiro")
    words_at(page, [head, (295, 805, str(doc.page_count), 9, "tiro")])
    return page


def prose(page: pymupdf.Page, y: float, paragraphs: int) -> float:
    for _ in range(paragraphs):
        y = lines_at(page, 72, y, PROSE, 10, pitch=12.5) + 8
    return y


def entries(page: pymupdf.Page, y: float, first: int, last: int) -> float:
    for number in range(first, last + 1):
        lines = entry(number)
        words_at(
            page, [(72 + 14 * (i > 0), y + 11 * i, line, 9, "tiro") for i, line in enumerate(lines)]
        )
        y += 11 * len(lines) + 2
    return y


def read(doc: pymupdf.Document) -> Segmentation:
    return extract_document(open_document(bytes(doc.tobytes())))


def sent_references(found: Segmentation) -> list[str]:
    return [p.text for p in found.paragraphs if any(name in p.text for name in NAMES)]


def test_a_bibliography_continued_on_the_next_pages_is_kept_on_every_page() -> None:
    doc = pymupdf.open()
    page = new_page(doc)
    y = prose(page, 90, 4)
    words_at(page, [(72, y + 10, "References", 11, "tibo")])
    entries(page, y + 30, 1, 26)
    entries(new_page(doc), 90, 27, 70)
    entries(new_page(doc), 90, 71, 80)
    found = read(doc)
    assert sent_references(found) == []
    assert found.reference_pages == (0, 1, 2)
    assert len(found.paragraphs) == 4  # the prose


def test_a_numbered_bibliography_without_a_heading_is_kept() -> None:
    doc = pymupdf.open()
    page = new_page(doc)
    y = prose(page, 90, 5)
    entries(page, y + 20, 1, 22)
    entries(new_page(doc), 90, 23, 40)
    found = read(doc)
    assert sent_references(found) == []
    assert found.reference_pages == (0, 1)
    assert len(found.paragraphs) == 5


def test_a_numbered_list_of_the_body_without_authors_is_translated() -> None:
    doc = pymupdf.open()
    page = new_page(doc)
    y = prose(page, 90, 2)
    steps = [
        f"[{n}] Measure the sample again in {1990 + n} and compare it with the last run."
        for n in range(1, 8)
    ]
    for step in steps:
        words_at(page, [(72, y, step, 10, "tiro")])
        y += 14
    found = read(doc)
    assert found.reference_pages == ()
    assert sum("Measure the sample" in p.text for p in found.paragraphs) == 7


def test_a_reference_list_broken_by_annotations_is_kept_and_so_are_the_notes() -> None:
    doc = pymupdf.open()
    page = new_page(doc)
    y = prose(page, 90, 4)
    words_at(page, [(72, y + 10, "References", 11, "tibo")])
    top = y + 30
    entries(page, top, 1, 20)
    question = "is this the published version of the paper or only a preprint of it?"
    for k, at in enumerate((2, 3, 7, 8, 9)):  # notes in the margin, level with the entries
        y = top + 17 * (at - 1) - 9
        page.add_freetext_annot(
            pymupdf.Rect(425, y, 585, y + 24), f"Note {k + 1}: {question}", fontsize=8
        ).update()
    y = top + 17 * 12 - 10  # one across the list, between two entries
    page.add_freetext_annot(
        pymupdf.Rect(72, y, 400, y + 11),
        "Reviewer: the entries below are missing their digital object identifiers",
        fontsize=8,
        fill_color=(1, 1, 0.8),
    ).update()
    found = read(doc)
    assert sent_references(found) == []
    assert [p.text for p in found.paragraphs if "Note" in p.text or "Reviewer" in p.text] == []
    assert found.reference_pages == (0,)


SHORT_PROSE = (
    "We describe a careful method for the",
    "evaluation of the models that we study,",
    "and compare it with earlier approaches.",
)


def short_entries(page: pymupdf.Page, x: float, y: float, first: int, last: int) -> float:
    """Entries of one short line, "[n] A. Author, J. Phys. 12, 345 (2001).", at ``x``."""
    for number in range(first, last + 1):
        rng = random.Random(number)
        name = rng.choice(NAMES)
        text = f"[{number}] {name[0]}. {name}, {rng.choice(JOURNALS)} {rng.randint(10, 99)} (2001)."
        words_at(page, [(x, y, text, 8, "tiro")])
        y += 11
    return y


def test_a_headless_bibliography_goes_on_in_the_next_column_after_the_text() -> None:
    """A two-column page whose left column ends with entries [1]-[8] and whose right column
    holds the end of the text, then entries [9]-[11]: the numbering goes on, so the right
    column's entries are the same bibliography, kept. Origin: corpus2 110 p4 (revtex prints
    no "References" heading; [17]-[19] after the acknowledgements were sent)."""
    doc = pymupdf.open()
    page = new_page(doc)
    y = 90.0
    for _ in range(3):
        y = lines_at(page, 60, y, SHORT_PROSE, 9, pitch=11) + 6
    short_entries(page, 60, y + 10, 1, 8)
    y = 90.0
    for _ in range(2):
        y = lines_at(page, 320, y, SHORT_PROSE, 9, pitch=11) + 6
    words_at(page, [(320, y + 6, "Acknowledgements", 9, "tibo")])
    y = lines_at(page, 320, y + 20, SHORT_PROSE, 9, pitch=11) + 6
    short_entries(page, 320, y + 10, 9, 11)
    found = read(doc)
    assert sent_references(found) == []
    assert sum("careful method" in p.text for p in found.paragraphs) == 6


def test_an_arxiv_identifier_is_where_an_entry_appeared() -> None:
    """An entry that gives only its arXiv identifier of the old scheme names its venue."""
    assert has_venue("Garcia-Aspeitia M. A., and Matos, T. [gr-qc/0906.327].")
    assert has_venue("Lee J. and Koh I. [hep-ph/9507385]")
    assert not has_venue("The rate fell to 5 km/1000 s and/or less.")


def test_a_revtex_bibliography_of_justified_entries_is_kept_in_both_columns() -> None:
    """Corpus2 110 p4: a revtex reference list, no heading, its justified entries stretched
    wide, [1]-[16] in the left column and [17]-[19] in the right one after the text."""
    path = CORPUS_DIR.parent / "corpus2" / "110_physics_revtex_arxiv_2col_4p.pdf"
    if not path.exists():
        pytest.skip(f"corpus2 paper not found: {path}")
    with pymupdf.open(path) as src:
        doc = pymupdf.open()
        doc.insert_pdf(src, from_page=3, to_page=3)
    found = read(doc)
    texts = [p.text for p in found.paragraphs]
    assert not any(re.search(r"Phys\. Rev\.|Class\.Quant|JCAP|\[astro-$", t) for t in texts)
    assert not any(t.startswith(("Ureña-López", "Seljak")) for t in texts), texts
    assert any("Acknowledgements" in t for t in texts)
    assert any(t.startswith("The most promising") for t in texts)


def test_a_footnote_that_is_a_citation_alone_is_kept_and_a_note_that_cites_is_sent() -> None:
    """Origin: 05 p23 (a datasheet's note "¹ Gebru, Timnit, et al. "Datasheets for datasets."
    Communications of the ACM 64.12 (2021): 86-92." at the foot of the page): sent as a body
    paragraph, a bibliography entry translated. A note that is an entry and nothing more is
    kept as the references are; a note that says something and cites is translated."""
    doc = pymupdf.open()
    page = new_page(doc)
    y = prose(page, 100, 4)
    citation = 'Quillfeather, Ann, et al. "Layered compounds." Journal of Synthetic Physics 12.4'
    thanks = "We thank the reviewers, whose comments (see Vexley, 2020) helped."
    words_at(
        page,
        [
            (72, 700, "1", 6, "tiro"),
            (76, 704, citation + " (2021): 86-92.", 9, "tiro"),
            (72, 716, "2", 6, "tiro"),
            (76, 720, thanks, 9, "tiro"),
        ],
    )
    assert y < 700
    found = extract_document(open_document(bytes(doc.tobytes())))
    sent = [p.text for p in found.paragraphs]
    assert not any("Quillfeather" in text for text in sent), sent
    assert any("We thank the reviewers" in text for text in sent), sent
    assert any(k.reason == "reference" and "Quillfeather" in k.text for k in found.kept)


@pytest.mark.corpus
def test_the_citation_note_of_a_real_datasheet_is_kept(corpus_dir: Path) -> None:
    """05 p23: the note citing the datasheet template is kept, with its reason; the page's
    body is sent."""
    path = corpus_dir / "05_arxiv2206.10883_multilexsum_1col_preprint_37p.pdf"
    found = extract_document(open_document(path.read_bytes()), pages=[22])
    assert not any("Communications of the ACM" in p.text for p in found.paragraphs)
    assert any(k.page == 22 and k.reason == "reference" and "Gebru" in k.text for k in found.kept)
    assert any("Who funded the creation" in p.text for p in found.paragraphs)
