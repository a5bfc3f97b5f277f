"""Bold, italic and monospace inside a paragraph, on a constructed page translated with the
pseudo translator (which keeps style tags around the words they mark, as a model does): a
run-in lead stays bold up to where the source's bold ends whatever the answer punctuates,
Word's bold "Table 1." keeps its bold, an italic and a bold word stay so, and code and URLs
stay monospaced.
"""

from __future__ import annotations

import functools

import pymupdf

from tests.fakes.pseudo import pseudo_translate, pseudo_words
from tests.helpers.pdfgen.sheet import words_at
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.flow.passage import translated
from translation.read.paragraph import Paragraph

_FILLER = "and report the mean of five runs on every corpus we tried."


def _put(page: pymupdf.Page, y: float, parts: list[tuple[str, str]]) -> None:
    x = 72.0
    for text, font in parts:
        words_at(page, [(x, y, text, 10.0, font)])
        x += pymupdf.get_text_length(text, fontname=font, fontsize=10.0)


def _page() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    b, r, i, c = "hebo", "helv", "heit", "cour"  # Helvetica bold, roman, oblique; Courier
    lines: list[list[tuple[str, str]]] = [
        [("Training Data.", b), (" We implement our model in AllenNLP (Gardner et al.,", r)],
        [("2018). Then we train it on the quick results of the last section", r)],
        [(_FILLER, r)],
        [],
        [("Table 1.", b), (" Results of the models on the test split of every corpus.", r)],
        [],
        [("Our method is ", r), ("remarkably", i), (" fast and ", r)],
        [("robust", b), (" in every setting we tried so far, with no tuning of options.", r)],
        [(_FILLER, r)],
        [],
        [("The code is at ", r), ("github.com/allenai/specter", c), (" and", r)],
        [("the flag ", r), ("use_idf", c), (" is off in every run of the library.", r)],
    ]
    for number, parts in enumerate(lines):
        _put(page, 100.0 + 13.0 * number, parts)
    data: bytes = doc.tobytes()
    return data


def _without_lead_stop(text: str) -> str:
    """A model's answer with no full stop where the lead ends (the bold spread to the next
    one before: "(Gardner et al., 2018)." in bold, 01 p5)."""
    return pseudo_translate(text, "ko").replace(".", "", 1)


@functools.cache
def _rendered() -> tuple[list[Paragraph], pymupdf.Page]:
    data = _page()
    paragraphs = extract_paragraphs(open_document(data))
    texts = translated(paragraphs, _without_lead_stop)
    out = render_mono(open_document(data), paragraphs, texts, "ko")
    return paragraphs, pymupdf.open(stream=out)[0]


def _glyphs(page: pymupdf.Page) -> list[tuple[str, bool, str]]:
    """(character, stroked: set bold, font name) of every glyph of the page."""
    return [
        (chr(c[0]), t["type"] == 1, t["font"]) for t in page.get_texttrace() for c in t["chars"]
    ]


def _bold_text(page: pymupdf.Page) -> str:
    return "".join(char for char, stroked, _ in _glyphs(page) if stroked)


def _slanted(page: pymupdf.Page, word: str) -> bool:
    """Whether ``word`` is set slanted (italics are sheared upright glyphs)."""
    quads = page.search_for(word, quads=True)
    return bool(quads) and all(q.ul.x - q.ll.x > 1.0 for q in quads)


def test_a_run_in_lead_ends_where_the_source_bold_ends_whatever_the_answer_punctuates() -> None:
    _, page = _rendered()
    bold = _bold_text(page)
    lead = pseudo_words("Training Data", "ko")
    assert all(word in bold for word in lead)
    # Before: the bold ran on to the answer's next full stop, over "(Gardner et al., 2018).".
    body = pseudo_words("We implement our model in AllenNLP Gardner", "ko")
    assert not any(word in bold for word in body)
    assert "2018" not in bold


def test_a_bold_table_label_keeps_its_bold_after_the_digit() -> None:
    _, page = _rendered()
    bold = _bold_text(page)
    (label,) = pseudo_words("Table", "ko")
    assert f"{label}1" in bold.replace(" ", "")
    assert not any(w in bold for w in pseudo_words("Results of the models", "ko"))


def test_bold_and_italic_words_inside_a_paragraph_survive() -> None:
    _, page = _rendered()
    (italic,) = pseudo_words("remarkably", "ko")
    (bold,) = pseudo_words("robust", "ko")
    assert _slanted(page, italic)
    assert bold in _bold_text(page)
    (plain,) = pseudo_words("setting", "ko")
    assert plain not in _bold_text(page) and not _slanted(page, plain)


def test_code_and_urls_stay_monospaced() -> None:
    _, page = _rendered()
    mono = "".join(char for char, _, font in _glyphs(page) if "Courier" in font)
    assert "github.com/allenai/specter" in mono and "use_idf" in mono
    proportional = "".join(char for char, _, font in _glyphs(page) if "Courier" not in font)
    assert "specter" not in proportional


def _two_columns() -> bytes:
    """A left column whose lines end in a URL set in Courier, broken after its first part,
    and a right column of text beside them."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    left: list[list[tuple[str, str]]] = [
        [("The APIs are described at ", "helv"), ("https://sobigdata.", "cour")],
        [("d4science.org/web/tagme/tagme-help", "cour")],
    ]
    for number, parts in enumerate(left):
        _put(page, 100.0 + 13.0 * number, parts)
    for number in range(3):
        words_at(page, [(340, 100.0 + 13.0 * number, _FILLER[:32], 10, "helv")])
    data: bytes = doc.tobytes()
    return data


def test_code_wider_than_its_column_stays_in_its_column() -> None:
    """A URL wider than its column is cut into lines measured in the monospaced font it is
    drawn in (02 p4: the footnote's URL, its pieces measured in the proportional font, was
    set in one line and ran over the next column)."""
    data = _two_columns()
    paragraphs = extract_paragraphs(open_document(data))
    out = render_mono(open_document(data), paragraphs, translated(paragraphs, pseudo), "ko")
    page = pymupdf.open(stream=out)[0]
    code = [
        char
        for trace in page.get_texttrace()
        if "Courier" in trace["font"]
        for char in trace["chars"]
    ]
    assert code
    assert max(char[3][2] for char in code) < 320  # left of the right column at x 340


def pseudo(text: str) -> str:
    return pseudo_translate(text, "ko")
