"""A justified line's stretched word spaces, told from the gaps between a table's cells."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from tests.helpers.pdfgen.columns import INTRO, LEFT, OUTRO, RIGHT, TEXT, TOP
from tests.helpers.pdfgen.sheet import LEADING, SIZE, Sheet, math_font, read, wrap
from translation.read.words.stretched_spaces import stretched_gaps


def _line(
    words: list[tuple[str, float]], gap: float, x: float = 0.0
) -> list[tuple[float, float, str]]:
    """Words of the given widths set one after the other, ``gap`` apart."""
    result = []
    for text, width in words:
        result.append((x, x + width, text))
        x += width + gap
    return result


def test_the_spaces_of_a_justified_line_are_stretched_beside_a_year_too() -> None:
    words = [("wraps", 22.0), ("sciSpaCy", 34.5), ("(Neumann", 38.6), ("et", 6.6)]
    words += [("al.,", 11.1), ("2019)", 21.0), ("and", 13.2)]
    assert stretched_gaps(_line(words, 9.4), 9.0) == set(range(6))


def test_a_header_of_one_word_per_evenly_spaced_column_has_no_stretched_spaces() -> None:
    words = [("CLS", 16.0), ("USR", 16.5), ("CITE", 18.0), ("REC", 16.0), ("Avg.", 16.5)]
    assert stretched_gaps(_line(words, 14.0), 9.0) == set()


def test_gaps_of_cells_that_differ_are_no_stretched_spaces() -> None:
    line = [(0.0, 40.0, "Linguistic"), (52.0, 87.0, "Segments"), (90.0, 103.0, "doc")]
    line.append((130.0, 152.0, "wraps"))
    assert stretched_gaps(line, 9.0) == set()


def test_a_row_longer_than_any_line_is_not_searched() -> None:
    """The search is quadratic in a row's words: a crafted row of thousands of words (here
    spaced like a justified line) is left as it is, not searched."""
    x, words = 0.0, []
    for k in range(5000):
        width = 6.0 + 12.0 * (k % 2)
        words.append((x, x + width, "ab"))
        x += width + 9.4
    assert stretched_gaps(words[:40], 9.0)  # a line's worth is searched and found
    assert stretched_gaps(words, 9.0) == set()


def test_citation_years_beside_stretched_spaces_stay_in_the_sentence() -> None:
    """A justified line of running text that the PDF sets in pieces, its spaces stretched
    beside citations' years ("1983;   Kozlowski, McCoy, and Vijay-Shanker   2003;"): the
    years are no table cells, the sentence is one request with its years.

    Origin: a paper outside the corpus (issue 22), the layout that broke a request."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    before = (
        "Paraphrase generation - Traditionally rule-based systems were used for paraphrase"
        " generation in many of the early studies of the field (McKeown"
    )
    after = (
        "Hassan et al. 2007). Quirk, Brockett, and Dolan (2004) used statistical machine"
        " translation methods for paraphrasing, and later work used neural models."
    )
    y = TOP
    for line in wrap(before, LEFT[1] - LEFT[0]):
        sheet.writer.append((LEFT[0], y), line, TEXT, SIZE)
        y += LEADING
    pieces = ["1983;", "Kozlowski, McCoy, and Vijay-Shanker", "2003;"]
    widths = [TEXT.text_length(p, SIZE) for p in pieces]
    gap = (LEFT[1] - LEFT[0] - sum(widths)) / 2
    assert gap > SIZE  # stretched past a word space
    x = LEFT[0]
    for piece, width in zip(pieces, widths, strict=True):
        sheet.writer.append((x, y), piece, TEXT, SIZE)
        x += width + gap
    y += LEADING
    for line in wrap(after, LEFT[1] - LEFT[0]):
        sheet.writer.append((LEFT[0], y), line, TEXT, SIZE)
        y += LEADING
    sheet.write()
    texts = [" ".join(p.text.split()) for p in read(doc.tobytes())]
    whole = " ".join([before, *pieces, after])
    assert whole in texts, texts


def test_a_justified_paragraph_with_stretched_spaces_around_formulas_is_no_table() -> None:
    """A justified paragraph whose lines are set a word at a time, or with the spaces around an
    inline formula's "=" stretched, below a display of three pieces: the gaps line up like a
    table's columns, yet it is running text, one request with every word whole ("denot-" |
    "ing"), not cells sent one by one.

    Origin: a paper outside the corpus (issue 22), the layout that broke a request."""
    math = math_font()
    x0, x1 = 60.0, 300.0
    doc = pymupdf.open()
    sheet = Sheet(doc)
    y = sheet.paragraph(INTRO, (x0, x1), TOP) + 2

    def put(x: float, text: str, font: pymupdf.Font = TEXT) -> float:
        return sheet.put(x, y, text, SIZE, font)

    def spread(line: str) -> None:  # edge to edge, the spaces stretched alike
        widths = [TEXT.text_length(w, SIZE) for w in line.split()]
        gap = (x1 - x0 - sum(widths)) / (len(widths) - 1)
        assert gap > SIZE  # wider than a word space
        x = x0
        for word in line.split():
            x = put(x, word) + gap

    def formula(text: str, name: str, tail: str) -> None:  # "... as p  =  (p, q, r, s)"
        assert put(put(x0, text), name, math) < 204 - 0.5 * SIZE
        put(204, "=")
        put(x1 - math.text_length(tail, SIZE), tail, math)

    for x, piece in ((x0, "“Input:"), (110, "Paraphrase:"), (226, "”.")):
        put(x, piece)
    y += LEADING
    put(x0 + 10, "We can further generalize the input prompt format")
    y += LEADING
    put(x0, "by formalizing a generic sequence of tokens denot-")
    y += LEADING
    formula("ing the prompt prefix of it as ", "𝑝", "(𝑝, 𝑞, 𝑟, 𝑠, 𝑡, 𝑢, 𝑣, 𝑤)")
    y += LEADING
    spread("and a generic sequence of tokens denoting")
    y += LEADING
    formula("the prompt infix of the model as ", "𝑞", "(𝑞, 𝑟, 𝑠, 𝑡, 𝑢, 𝑣, 𝑤, 𝑥)")
    y += LEADING
    spread("Overall the general input prompt will be:")
    sheet.paragraph(OUTRO, RIGHT, TOP)
    sheet.write()
    texts = [" ".join(p.text.split()) for p in read(doc.tobytes())]
    start = "We can further generalize the input prompt format by formalizing a generic sequence"
    found = [t for t in texts if t.startswith(start)]
    assert len(found) == 1, texts
    assert "of tokens denoting the prompt prefix of it as" in found[0], found
    assert "and a generic sequence of tokens denoting the prompt infix of the model as" in found[0]
    assert found[0].endswith("Overall the general input prompt will be:"), found
    assert not [t for t in texts if t.startswith(("ing ", "and a", "Overall", "="))], texts


def test_a_justified_line_of_codes_and_names_is_running_text_not_cells() -> None:
    """A footnote under a contents list whose justified line holds more codes than words
    ("AMS Classification: Primary: 1AB5 (matsc2020), 2FD5 (matsc2020); Sec-"), its spaces
    stretched alike and wider after a comma or a semicolon as TeX sets them: the codes are no
    table cells joining the list's, the footnote is one request and the word broken over its
    lines comes back whole ("Sec-" | "ondary")."""
    size = 9.0
    words = "AMS Classification: Primary: 1AB5 (matsc2020), 2FD5 (matsc2020); Sec-".split()
    widths = [TEXT.text_length(w, size) for w in words]
    # TeX's space factors: a comma's space 1.25 times a word space, a semicolon's 1.5.
    factors = [1.5 if w.endswith(";") else 1.25 if w.endswith(",") else 1.0 for w in words[:-1]]
    x0 = 72.0
    x1 = x0 + 10 + sum(widths) + 1.2 * size * sum(factors)  # spaces past a font size
    space = (x1 - x0 - 10 - sum(widths)) / sum(factors)
    doc = pymupdf.open()
    sheet = Sheet(doc)
    y = sheet.paragraph(INTRO, (x0, x1), TOP) + LEADING
    entries = ["Introduction", "Paths in a graph", "Main theorem", "Application", "Review"]
    for n, entry in enumerate(entries, start=1):  # number, entry, page number at the right
        sheet.put(x0, y, f"{n}.", SIZE, TEXT)
        sheet.put(x0 + 18, y, entry, SIZE, TEXT)
        sheet.put(x1 - TEXT.text_length(str(16 + 2 * n), SIZE), y, str(16 + 2 * n), SIZE, TEXT)
        y += LEADING
    y += LEADING
    sheet.put(x0 + 10, y, "Keywords: Hamiltonian paths, Typesetting", size, TEXT)
    y += 1.2 * size
    x = x0 + 10
    for word, width, factor in zip(words, widths, [*factors, 0.0], strict=True):
        sheet.put(x, y, word, size, TEXT)
        x += width + factor * space
    y += 1.2 * size
    sheet.put(x0, y, "ondary: FFFF (matsc2020), G25 (matsc2020).", size, TEXT)
    sheet.put(x0 + 10, y + 1.2 * size, "The class was commissioned by the editors.", size, TEXT)
    sheet.write()
    texts = [" ".join(p.text.split()) for p in read(doc.tobytes())]
    whole = "Primary: 1AB5 (matsc2020), 2FD5 (matsc2020); Secondary: FFFF (matsc2020), G25"
    assert [t for t in texts if whole in t], texts
    assert not [t for t in texts if t in ("2FD5", "(matsc2020);", "Sec-")], texts


@pytest.mark.corpus
def test_a_real_justified_footnote_of_classification_codes_is_one_paragraph(
    corpus_dir: Path,
) -> None:
    """Corpus2 130 p1 (aomart, line numbers): the footnote's justified line of AMS codes
    was read as a row of cells and its last word cut over the lines. The whole paper is read:
    its line spacing is told from all its pages (one page alone reads its lines apart)."""
    name = "130_tex_aomart_sample_linenumbers_marginnote_p12of30.pdf"
    path = corpus_dir.parent / "corpus2" / name
    if not path.is_file():
        pytest.skip(f"corpus2 paper not found: {path}")
    texts = [" ".join(p.text.split()) for p in read(path.read_bytes()) if p.page == 0]
    assert [t for t in texts if "(matsc2020); Secondary: FFFF" in t], texts
    assert not [t for t in texts if t.startswith(("Sec-", "ondary"))], texts
