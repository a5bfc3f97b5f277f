"""Definition lists (issue 35, point 2): a column of terms beside their descriptions. Each
entry is a request of its own, never joined to the next entry's description, and a
description's lines are one request, never table cells."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from tests.helpers.pdfgen.columns import INTRO, LEFT, OUTRO, TEXT, TOP, WIDE
from tests.helpers.pdfgen.sheet import LEADING, SIZE, Sheet, read
from translation.read.flow.passage import passages
from translation.read.paragraph import ParagraphKind

COURIER = pymupdf.Font("cour")

_ENTRIES = [
    ("dgeMatrix", "Real matrices in general storage mode"),
    ("dsyMatrix", "Symmetric real matrices in non-packed storage"),
    ("dspMatrix", "Symmetric real matrices in packed storage (one triangle only)"),
    ("dtrMatrix", "Triangular real matrices in non-packed storage"),
]


def _text_above(sheet: Sheet) -> float:
    """Three paragraphs of body text at the top (the page's usual leading); the baseline of
    the line after them, a line skipped."""
    y = sheet.paragraph(INTRO, WIDE, TOP)
    y = sheet.paragraph(OUTRO, WIDE, y)
    return sheet.paragraph(INTRO, WIDE, y) + LEADING


def test_a_list_of_one_line_entries_set_apart_is_one_request_an_entry() -> None:
    """Terms and descriptions that fit on a line, each line set apart from the next by more
    than the text's leading and ending on no stop, the terms in the text's own face (the
    list's look is its lines, not a bold face the reader may not tell): each entry is a list
    item of its own, not one sentence running over all of them ("... storage mode dsyMatrix
    Symmetric ...")."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    y = _text_above(sheet)
    for term, text in _ENTRIES:
        end = sheet.put(WIDE[0], y, term, SIZE, TEXT)
        sheet.put(end + 6.0, y, text, SIZE, TEXT)
        y += 2 * LEADING
    sheet.paragraph(OUTRO, WIDE, y)
    sheet.write()
    paragraphs = read(doc.tobytes())
    found = passages(paragraphs)
    for term, text in _ENTRIES:
        (passage,) = [p for p in found if term in p.text]
        assert " ".join(passage.text.split()) == f"{term} {text}", passage.text
    items = [p for p in paragraphs if p.kind == ParagraphKind.LIST_ITEM]
    assert len(items) == len(_ENTRIES), [p.text for p in paragraphs]
    assert [p for p in found if p.text.startswith("We therefore collect")]


def test_lines_set_apart_that_end_sentences_are_no_list_of_entries() -> None:
    """One-line paragraphs set apart that end their sentences are paragraphs as they were:
    the list of lines is told by lines ended on purpose inside a sentence."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    y = _text_above(sheet)
    for term, text in _ENTRIES:
        sheet.put(WIDE[0], y, f"{term} holds {text.lower()}.", SIZE, TEXT)
        y += 2 * LEADING
    sheet.write()
    paragraphs = read(doc.tobytes())
    assert not [p for p in paragraphs if p.kind == ParagraphKind.LIST_ITEM]


def _macro_entry(sheet: Sheet, y: float, macro: str, lines: list[str]) -> float:
    """A macro's entry: its name in a typewriter face at the column's left edge, a note at the
    right edge, then its description's lines indented under it, justified; the baseline after
    its last line."""
    x0, x1 = LEFT
    sheet.put(x0, y, macro, SIZE, COURIER)
    note = "[a class macro]"
    sheet.put(x1 - TEXT.text_length(note, SIZE), y, note, SIZE, TEXT)
    y += 1.5 * LEADING
    for k, line in enumerate(lines):
        _justified(sheet, (x0 + 25.0, x1), y, line, last=k == len(lines) - 1)
        y += LEADING
    return y + 0.5 * LEADING


def _justified(
    sheet: Sheet, column: tuple[float, float], y: float, line: str, last: bool = False
) -> None:
    """``line`` set word by word, its spaces stretched to fill ``column`` (unless ``last``)."""
    words = line.split()
    widths = [TEXT.text_length(w, SIZE) for w in words]
    room = column[1] - column[0] - sum(widths)
    space = 2.5 if last else room / (len(words) - 1)
    x = column[0]
    for word, width in zip(words, widths, strict=True):
        sheet.put(x, y, word, SIZE, TEXT)
        x += width + space


_ARGUMENT = "ever text is input inside the argument."
_FRENCH = "whatever text is input inside the argument."
_CODES = "codes that are input inside the argument."


def test_descriptions_between_rows_of_cells_are_running_text_not_cells() -> None:
    """Two rows of code pieces with a note at the right (a little table), then a paragraph
    and macro entries whose justified descriptions run across the gaps that part those rows'
    pieces: the descriptions are no cells of a table made of the code rows and the entries'
    rows, each is one request and the word broken over its lines comes back whole."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    x0, x1 = LEFT
    y = TOP
    for begin, end, note in (
        ("\\begin{abstract}", "\\end{abstract}", "English"),
        ("\\begin{resume}", "\\end{resume}", "French"),
    ):
        x = sheet.put(x0, y, begin, SIZE, COURIER) + 6.0
        x = sheet.put(x, y, "...", SIZE, COURIER) + 12.0
        sheet.put(x, y, end, SIZE, COURIER)
        sheet.put(x1 - TEXT.text_length(note, SIZE), y, note, SIZE, TEXT)
        y += 1.25 * LEADING
    y += 0.25 * LEADING
    _justified(sheet, LEFT, y, "Some journals may need these, which should ap-")
    y += LEADING
    _justified(sheet, LEFT, y, "pear inside the abstract environments:", last=True)
    y += 1.5 * LEADING
    described = [
        ("\\keywords{...}", ["Automatically prints its label, followed by what-", _ARGUMENT]),
        ("\\motscles{...}", ["Automatically prints the French label, followed by", _FRENCH]),
        ("\\PACS{...}", ["Automatically prints a heading, followed by the", _CODES]),
    ]
    for macro, lines in described:
        y = _macro_entry(sheet, y, macro, lines)
    sheet.write()
    found = [" ".join(p.text.split()) for p in passages(read(doc.tobytes()))]
    assert [t for t in found if "need these, which should appear inside the abstract" in t]
    assert [t for t in found if "followed by whatever text is input inside the argument" in t]
    assert [t for t in found if "French label, followed by whatever text is input" in t]
    assert not [t for t in found if t.endswith(("ap-", "what-"))], found


def _corpus2(corpus_dir: Path, name: str) -> Path:
    path = corpus_dir.parent / "corpus2" / name
    if not path.is_file():
        pytest.skip(f"corpus2 paper not found: {path}")
    return path


@pytest.mark.corpus
def test_a_real_definition_list_of_classes_is_one_request_an_entry(corpus_dir: Path) -> None:
    """Corpus2 126 p5-p6 (an R vignette): the dense matrix classes, a bold class name beside
    its description on each line, the list going on at the next page's head. Each class is
    its own request, none joined to the next class's description."""
    path = _corpus2(corpus_dir, "126_r_matrix_intro2matrix_vignette.pdf")
    found = [" ".join(p.text.split()) for p in passages(read(path.read_bytes()))]
    for term in ("dgeMatrix", "dsyMatrix", "dspMatrix", "dtrMatrix", "dpoMatrix", "dppMatrix"):
        (text,) = [t for t in found if t.startswith(term)]
        assert text.count("Matrix ") == 1, text
    assert "dppMatrix ditto in packed storage" in found


@pytest.mark.corpus
def test_a_real_macro_list_reads_its_descriptions_whole(corpus_dir: Path) -> None:
    """Corpus2 134 p5 (a LaTeX class guide): macro names with "[an NRC macro]" at the right,
    their descriptions indented below, after two rows of environment code. The paragraph and
    the descriptions between were cut into cells at the code rows' gaps ("which should ap-"
    a cell of its own); now each is one request, its broken word whole."""
    path = _corpus2(corpus_dir, "134_tex_nrc_userguide_2col_journal_p12of18.pdf")
    found = [
        " ".join(p.text.split()) for p in passages(read(path.read_bytes())) if p.pieces[0].page == 4
    ]
    assert [t for t in found if "the following, which should appear" in t], found
    assert [t for t in found if "followed by whatever text is input inside the argument" in t]
    assert not [t for t in found if t.endswith(("ap-", "what-"))], found
