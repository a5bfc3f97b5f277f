"""Label tables: two columns, a short label beside a cell of running text that wraps
(``ID | topic``, ``category | title``), under or over a "Table N" caption.

Each page is a real PDF written with PyMuPDF, laid out as LaTeX sets such a table (each line a
MuPDF line of its own, the label apart from its text, booktabs rules above and below). What is
checked is what is sent to the model: one request per cell, the lines of a wrapped cell
together, no two rows in one request, the labels their own; and that a bulleted list, a
numbered list and a hanging-indent reference list set the same way stay what they are.
"""

from __future__ import annotations

from collections.abc import Sequence

import pymupdf

from tests.helpers.pdfgen.sheet import box_at, lines_at, words_at
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.paragraph import Paragraph, ParagraphKind

SIZE = 9.0
LEFT, TEXT_X, RIGHT = 320.0, 352.0, 550.0
INTRO = (
    "The participants were asked which topics they had reviewed in the weeks before the "
    "study, and their answers were grouped by the kind of work that each review supported."
)

#: (label, lines of its cell as wrapped in the column).
ROWS = [
    ("ID", ["Literature review topics"]),
    (
        "P1",
        ["Co-design methods and examples. Interaction techniques", "for accessing video content."],
    ),
    ("P2", ["Tools for collecting textual information. Online", "sensemaking for programmers."]),
    ("P3", ["Interactive systems for automated machine learning."]),
    (
        "P4",
        ["Faceted retrieval interfaces of text documents", "written by many different authors."],
    ),
]
CAPTION = "Table 1: Literature review topics of the participants in the field study."


def _page(
    rows: Sequence[tuple[str, list[str]]], caption: str, above: bool, text_x: float = TEXT_X
) -> bytes:
    """A page: a paragraph of the left column, and in the right one ``rows`` between rules
    with ``caption`` below them (or above them, ``above``)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    box_at(page, (54, 80, 296, 300), INTRO * 3, 10, "tiro")
    y = 90.0
    if above:
        words_at(page, [(LEFT - 6, y, caption, SIZE, "tiro")])
        y += 16.0
    page.draw_line((LEFT - 6, y - 9), (RIGHT, y - 9), width=0.8)
    for label, lines in rows:
        words_at(page, [(LEFT, y, label, SIZE, "tiro")])
        lines_at(page, text_x, y, lines, SIZE, pitch=10.0)
        y += 10.0 * len(lines) + 2.0
    page.draw_line((LEFT - 6, y - 8), (RIGHT, y - 8), width=0.8)
    if not above:
        words_at(page, [(LEFT - 6, y + 8, caption, SIZE, "tiro")])
    data: bytes = doc.tobytes()
    return data


def _right(data: bytes) -> list[Paragraph]:
    """The paragraphs of the page's right column, the caption's left out."""
    paras = extract_paragraphs(open_document(data))
    return [p for p in paras if p.bbox[0] >= LEFT - 10 and p.kind != ParagraphKind.CAPTION]


def _joined(lines: list[str]) -> str:
    return " ".join(lines)


def test_label_table_under_its_caption_sends_one_request_per_cell() -> None:
    paras = _right(_page(ROWS, CAPTION, above=False))
    texts = [" ".join(p.text.split()) for p in paras]
    assert texts == [_joined(lines) for _, lines in ROWS]  # the IDs are left as they are
    assert all(p.kind == ParagraphKind.CELL for p in paras)


def test_label_table_over_its_caption_is_a_table_too() -> None:
    paras = _right(_page(ROWS, CAPTION, above=True))
    assert [" ".join(p.text.split()) for p in paras] == [_joined(lines) for _, lines in ROWS]


def test_words_as_labels_are_cells_of_their_own() -> None:
    rows = [
        ("cs.LG", ["Learning disentangled representations with", "deep generative models"]),
        ("stat.ML", ["Denoising criterion for variational", "auto-encoding framework"]),
        ("cs.CV", ["Variational methods for conditional", "multimodal deep learning"]),
        ("cs.CL", ["Knowledge graph embedding with", "adaptive translations"]),
    ]
    paras = _right(_page(rows, "Table 7: Sampled papers in two regions.", False, 364.0))
    texts = [" ".join(p.text.split()) for p in paras]
    for label, lines in rows:
        assert _joined(lines) in texts
        assert not any(label in t and t != label for t in texts)  # no label merged into text


def _kept_as_prose(
    rows: Sequence[tuple[str, list[str]]], caption: str, text_x: float, together: bool = True
) -> list[Paragraph]:
    """The right column's paragraphs, checked to be none a cell, each row's lines read on in
    one of them (``together``; else each line in one)."""
    paras = _right(_page(rows, caption, False, text_x))
    assert not any(p.kind == ParagraphKind.CELL for p in paras)
    texts = [" ".join(p.text.split()) for p in paras]
    for _, lines in rows:
        for part in [_joined(lines)] if together else lines:
            assert any(part in text for text in texts)
    return paras


def test_a_bulleted_list_over_a_table_caption_stays_a_list() -> None:
    rows = [("\u2022", lines) for _, lines in ROWS[1:]]
    _kept_as_prose(rows, CAPTION, LEFT + 12.0)


def test_a_numbered_list_over_a_table_caption_stays_a_list() -> None:
    rows = [(f"{k}.", lines) for k, (_, lines) in enumerate(ROWS[1:], start=1)]
    _kept_as_prose(rows, CAPTION, LEFT + 16.0)


def test_labels_beside_text_without_a_table_caption_are_no_table() -> None:
    # A hanging-indent reference list under a figure's caption, and short labels beside
    # their text under a paragraph.
    rows = [(f"[{k}]", lines) for k, (_, lines) in enumerate(ROWS[1:], start=1)]
    _kept_as_prose(rows, "Figure 2: The study's timeline.", LEFT + 15.0)
    _kept_as_prose(ROWS[1:], "They reviewed these topics over the weeks of the study.", LEFT + 20.0)


def test_a_reference_list_over_a_table_caption_stays_prose() -> None:
    # Alphabetic reference labels with a hanging indent, and the next float's caption below.
    keys = ["[Ada19]", "[BC20]", "[Che21]", "[Dun22]"]
    rows = [(key, lines) for key, (_, lines) in zip(keys, ROWS[1:], strict=True)]
    # (Wrapped lines of entries with no references heading over them are read apart.)
    _kept_as_prose(rows, CAPTION, LEFT + 40.0, together=False)


#: Table 9 of an ACL paper: (lines of the model cell, lines of its training-data cell). Each
#: model has a word besides its name and citation (a name with its citation alone is not sent).
MODELS = [
    (
        ["ELMo base", "(Peters et al., 2018a)"],
        ["1BW (800M)", "Wikipedia (1.9B)", "News Crawl (3.6B)"],
    ),
    (["BERT base", "(Devlin et al., 2019)"], ["BooksCorpus (800M)", "Wikipedia (2.5B)"]),
    (
        ["RoBERTa base", "(Liu et al., 2019b)"],
        ["BooksCorpus (800M)", "CC-News (3.8B)", "Stories (1.6B)"],
    ),
    (["GPT2 large", "(Radford et al., 2019)"], ["Web Text Corpus (2.8B)"]),
]


def _column_blocks_page(models: Sequence[tuple[list[str], list[str]]] = MODELS) -> bytes:
    """A page whose right column holds a two-column table with cells of several lines, its
    columns written one after the other, so MuPDF makes the second column one block of its
    own beside the first column's blocks (each of its lines on a baseline of the other)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    box_at(page, (54, 80, 296, 400), INTRO * 4, 10, "tiro")
    text_x = LEFT + 100.0
    y = 90.0
    page.draw_line((LEFT - 6, y - 9), (RIGHT, y - 9), width=0.8)
    words_at(
        page,
        [(LEFT, y, "Language model", SIZE, "tiro"), (text_x, y, "Training data", SIZE, "tiro")],
    )
    page.draw_line((LEFT - 6, y + 4), (RIGHT, y + 4), width=0.5)
    tops = []
    y += 14.0
    for model, sources in models:
        tops.append(y)
        y += 10.0 * max(len(model), len(sources)) + 2.0
    for column, x in ((0, LEFT), (1, text_x)):
        for top, cells in zip(tops, models, strict=True):
            lines_at(page, x, top, cells[column], SIZE, pitch=10.0)
    page.draw_line((LEFT - 6, y - 8), (RIGHT, y - 8), width=0.8)
    words_at(page, [(LEFT - 6, y + 8, "Table 9: Training data.", SIZE, "tiro")])
    data: bytes = doc.tobytes()
    return data


def test_table_whose_columns_are_blocks_keeps_its_rows_apart() -> None:
    paras = _right(_column_blocks_page())
    texts = [" ".join(p.text.split()) for p in paras]
    assert all(p.kind == ParagraphKind.CELL for p in paras)
    # No two rows in one request: each model with its own reference, each source alone.
    models = [_joined(model) for model, _ in MODELS]
    sources = [line for _, data in MODELS for line in data]
    assert texts == [
        "Language model",
        "Training data",
        *[t for model, (_, data) in zip(models, MODELS, strict=True) for t in [model, *data]],
    ]
    assert sorted(texts[2:]) == sorted(models + sources)
    # The left page column of running text stays one paragraph.
    left = [p for p in extract_paragraphs(open_document(_column_blocks_page())) if p.bbox[0] < 300]
    assert len(left) == 1 and left[0].kind == ParagraphKind.BODY


#: Table 9 with short last lines of its training-data cells, no ")" ending them: each one
#: stands 12 pt over the next row's first line, the cells' lines 10 pt apart.
SHORT_ENDS = [
    (["ELMo base", "(Peters et al., 2018a)"], ["1BW (800M)", "Wikipedia (1.9B)", "News"]),
    (["BERT base", "(Devlin et al., 2019)"], ["BooksCorpus (800M)", "Wiki"]),
    (["RoBERTa base", "(Liu et al., 2019b)"], ["BooksCorpus (800M)", "CC-News (3.8B)", "Stories"]),
    (["GPT2 large", "(Radford et al., 2019)"], ["Web Text Corpus (2.8B)"]),
]


def test_a_short_last_line_of_a_cell_stays_out_of_the_next_row() -> None:
    """It was read on into the next row's first line ("WMT BooksCorpus (800M)", here "News"):
    both stand alone on their rows and it ends no sentence, and 12 pt is within a fixed line step;
    the table sets its cells' lines 10 pt apart, its rows further."""
    texts = [" ".join(p.text.split()) for p in _right(_column_blocks_page(SHORT_ENDS))]
    models = [_joined(model) for model, _ in SHORT_ENDS]
    assert texts == [
        "Language model",
        "Training data",
        *[t for model, (_, data) in zip(models, SHORT_ENDS, strict=True) for t in [model, *data]],
    ]
