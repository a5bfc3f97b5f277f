"""Tables: each cell translated in its own box, numbers untouched, header rows never merged.

Literal layouts for the rules that cut table rows into cells (translation.read.tables.detect and
translation.read.rows.row), and the corpus pages whose tables came out wrong, checked with
bench.tables (a cell's translation inside its cell's box, numbers identical, >= 0.6x).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pymupdf
import pytest

from bench.tables import (
    KNOWN_TABLES,
    MIN_SCALE,
    paper_problems,
    table_scores,
    text_runs,
    translate_pages,
)
from tests.helpers.pdfgen.layouts import CELL_SIZE, cell_row, cell_span, lines_block
from tests.helpers.pdfgen.layouts import page as layout_page
from tests.helpers.pdfgen.sheet import words_at
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.layout import Frame, Line, PageLayout, Span
from translation.read.paragraph import Paragraph, ParagraphKind
from translation.read.rows.page_rows import page_rows
from translation.read.rows.visual import visual_rows
from translation.read.segment import segment
from translation.read.style.style_marks import without_tags
from translation.read.tables.cell_stacks import StackLine, stacked, stacks
from translation.read.tables.detect import find_tables
from translation.read.tables.table_rows import Table, crosses, words

#: Data rows of a table: a label and three numbers at fixed columns (x 100, 200, 250, 300).
DATA = [
    [("Baseline", 100.0), ("81.0", 200.0), ("81.4", 250.0), ("92.3", 300.0)],
    [("Ours", 100.0), ("72.8", 200.0), ("72.3", 250.0), ("84.8", 300.0)],
    [("Large", 100.0), ("75.1", 200.0), ("75.0", 250.0), ("88.2", 300.0)],
]


def _table(header: list[tuple[str, float]], *extra: list[tuple[str, float]]) -> PageLayout:
    rows = [header, *extra, *DATA]
    return layout_page(0, *(lines_block(cell_row(r, 100.0 + 12.0 * i)) for i, r in enumerate(rows)))


def _texts(paras: list[Paragraph]) -> list[str]:
    return [p.text for p in paras]


def test_tight_header_row_is_cut_at_the_columns() -> None:
    # Header cells 1.7 font sizes apart (under the old 2.5x gap rule they merged).
    header = [("Model", 100.0), ("dev", 200.0), ("test", 250.0), ("simple", 300.0)]
    paras = segment([_table(header)])
    assert {"Model", "dev", "test", "simple"} <= set(_texts(paras))
    for para in paras:
        if para.text in ("dev", "test", "simple"):
            assert para.kind == ParagraphKind.CELL


def test_label_set_close_to_its_numbers_keeps_them_apart() -> None:
    # The first number 0.6 font sizes after the label, in one MuPDF line with it; the other
    # rows show the column (a gutter between the labels and the numbers).
    label = "First k Sent"
    tight = 100.0 + 0.5 * CELL_SIZE * len(label) + 0.6 * CELL_SIZE
    rows = [
        [("Model", 100.0), ("R-1", tight), ("R-2", 200.0), ("Words", 250.0)],
        [("BART", 100.0), ("40.79", tight), ("20.01", 200.0), ("203.8", 250.0)],
        [("PEGASUS", 100.0), ("48.79", tight), ("23.78", 200.0), ("351.3", 250.0)],
    ]
    blocks = [lines_block(cell_row(r, 100.0 + 12.0 * i)) for i, r in enumerate(rows)]
    first = Line(
        spans=(cell_span(label, 100.0, 136.0), cell_span("30.41", tight, 136.0)),
        bbox=(100.0, 128.0, tight + 22.5, 138.0),
    )
    numbers = [cell_span(t, x, 136.0) for t, x in (("9.67", 200.0), ("813.7", 250.0))]
    rest = [Line(spans=(s,), bbox=s.bbox) for s in numbers]
    paras = segment([layout_page(0, *blocks, lines_block([first, *rest]))])
    assert label in _texts(paras)
    assert not any("30.41" in t for t in _texts(paras))


def test_header_spanning_columns_keeps_its_word_space() -> None:
    # "Before Perturb" runs over the gutter between two number columns.
    spanning = [("Before", 196.0), ("Perturb", 196.0 + 3 * CELL_SIZE + 0.3 * CELL_SIZE)]
    header = [("Model", 100.0), ("dev", 200.0), ("test", 250.0), ("simple", 300.0)]
    line = Line(
        spans=tuple(cell_span(t, x, 88.0) for t, x in spanning),
        bbox=(196.0, 80.0, 196.0 + 7 * CELL_SIZE, 90.0),
    )
    page = _table(header)
    page = layout_page(0, lines_block([line]), *page.blocks)
    assert "Before Perturb" in _texts(segment([page]))


def test_an_arrow_between_two_words_of_a_header_keeps_them_one_cell() -> None:
    # 05 p6: "Source →Target" over columns of numbers; the arrow (a span " →" of a symbol
    # font) stands a word space after "Source", at the gutter after the "test" column.
    arrow = Span(" →", (244.0, 93.0, 256.0, 102.0), "SFRB1000", CELL_SIZE, origin=(244.0, 100.0))
    spans = (cell_span("Source", 217.0, 100.0), arrow, cell_span("Target", 256.0, 100.0))
    model = cell_span("Model", 100.0, 100.0)
    first = [Line(spans=(model,), bbox=model.bbox), Line(spans=spans, bbox=(217, 92.8, 283, 102))]
    second = cell_row([("dev", 200.0), ("test", 250.0), ("simple", 300.0)], 112.0)
    data = [lines_block(cell_row(r, 124.0 + 12.0 * i)) for i, r in enumerate(DATA)]
    paras = segment([layout_page(0, lines_block(first), lines_block(second), *data)])
    headers = [p for p in paras if p.kind == ParagraphKind.CELL and p.bbox[3] < 103.0]
    assert [without_tags(p.text).replace("{v1}", "→") for p in headers] == [
        "Model",
        "Source →Target",
    ]


def test_aligned_word_spaces_of_running_text_are_not_columns() -> None:
    # Three lines whose word spaces happen to line up: a word space is no gutter.
    lines = [
        [
            Line(
                spans=(cell_span("alpha beta gamma delta", 100.0, 100.0 + 12.0 * i),),
                bbox=(100.0, 92.0 + 12.0 * i, 199.0, 102.0 + 12.0 * i),
            )
        ]
        for i in range(3)
    ]
    page = layout_page(0, *(lines_block(ln) for ln in lines))
    rows = [
        (
            sorted(((s.bbox, s) for ln in b.lines for s in ln.spans), key=lambda it: it[0][0]),
            tuple((ln.bbox[0], ln.bbox[2]) for ln in b.lines),
        )
        for b in page.blocks
    ]
    assert find_tables(rows) == []
    assert _texts(segment([page])) == ["alpha beta gamma delta " * 2 + "alpha beta gamma delta"]


def test_a_cell_in_small_caps_with_a_subscript_keeps_its_main_size() -> None:
    # "TAPAS_LARGE": a 9 pt initial, small caps at 7.2 pt, a longer 6 pt subscript (04 p6),
    # and a word after it (the name alone is notation, not sent).
    base = 100.0 + 12.0 * 4
    spans = (
        cell_span("T", 100.0, base),
        cell_span("APAS", 104.5, base, 7.2),
        cell_span("LARGE", 119.0, base + 1.0, 6.0),
        cell_span(" tuned", 134.0, base),
    )
    label = Line(spans=spans, bbox=(100.0, base - 7.2, 160.0, base + 3.2))
    numbers = cell_row([("74.7", 200.0), ("74.5", 250.0), ("86.6", 300.0)], base)
    header = [("Model", 100.0), ("dev", 200.0), ("test", 250.0), ("simple", 300.0)]
    page = _table(header)
    paras = segment([layout_page(0, *page.blocks, lines_block([label, *numbers]))])
    (cell,) = [p for p in paras if p.text.startswith("TAPAS")]
    assert cell.font_size == CELL_SIZE
    assert cell.bbox[3] == pytest.approx(base + 0.25 * CELL_SIZE)  # on the main baseline


def test_two_columns_of_names_and_numbers_are_a_table() -> None:
    # 02 p5: "Description | F1" set 1.4 font sizes apart over names and their scores.
    f1 = 100.0 + 0.5 * CELL_SIZE * len("Description") + 1.4 * CELL_SIZE
    rows = [[("Description", 100.0), ("F1", f1)]] + [
        [(name, 100.0), (score, f1)]
        for name, score in (("Without LM", "49.9"), ("With LM", "54.1"))
    ]
    paras = segment(
        [layout_page(0, *(lines_block(cell_row(r, 100.0 + 12.0 * i)) for i, r in enumerate(rows)))]
    )
    assert _texts(paras) == ["Description", "Without LM", "With LM"]


def test_a_bullet_list_is_no_table() -> None:
    # Bullets set apart as lines of their own, and the items' word spaces lining up after
    # "The": one column gap, and word spaces, make no table.
    items = ["The word vector of each token", "The label vector of each", "The type vector"]
    blocks = [
        lines_block(
            [
                Line(spans=(cell_span("•", 90.0, 100.0 + 12.0 * i),), bbox=(90.0, 0, 94.5, 0)),
                Line(spans=(cell_span(t, 107.0, 100.0 + 12.0 * i),), bbox=(107.0, 0, 300.0, 0)),
            ]
        )
        for i, t in enumerate(items)
    ]
    rows = [r for b in blocks for r in visual_rows(b, Frame())]
    assert find_tables(rows) == []


def test_find_tables_reports_the_gutters_between_columns() -> None:
    page = _table([("Model", 100.0), ("dev", 200.0), ("test", 250.0), ("simple", 300.0)])
    rows = [
        (
            sorted(((s.bbox, s) for ln in b.lines for s in ln.spans), key=lambda it: it[0][0]),
            tuple((ln.bbox[0], ln.bbox[2]) for ln in b.lines),
        )
        for b in page.blocks
    ]
    (table,) = find_tables(rows)
    assert len(table.gutters) == 3
    # label column ends at 100 + 4.5 * 8 ("Baseline"), numbers start at 200
    assert crosses(table.gutters, 140.0, 199.0)
    assert crosses(table.gutters, 219.0, 249.0)
    assert not crosses(table.gutters, 110.0, 112.0)  # inside the label column
    assert isinstance(table, Table)


def test_words_cuts_spans_at_spaces_with_estimated_boxes() -> None:
    span = cell_span("ab cd", 100.0, 100.0)  # 22.5 wide: 4.5 letters, a space counting half
    (a, first), (b, second) = words([(span.bbox, span)])
    assert (first.text, second.text) == ("ab", "cd")
    assert a[0] == 100.0 and a[2] == pytest.approx(110.0)
    assert b[0] == pytest.approx(112.5) and b[2] == pytest.approx(122.5)


def test_cell_may_grow_to_halfway_to_its_neighbours() -> None:
    header = [("Model", 100.0), ("dev", 200.0), ("test", 250.0), ("simple", 300.0)]
    paras = {p.text: p for p in segment([_table(header)])}
    dev = paras["dev"]
    assert dev.max_bbox is not None
    # "dev" ends at 213.5, "test" starts at 250; "Model" ends at 122.5
    assert dev.max_bbox[0] == pytest.approx((122.5 + 200.0) / 2)
    assert dev.max_bbox[2] == pytest.approx((213.5 + 250.0) / 2)
    assert dev.max_bbox[3] >= dev.bbox[3]


def test_header_row_of_separate_lines_outside_a_table_is_cut() -> None:
    # A lone header row (its cells below are blocks of their own): lines 1.7 sizes apart.
    line = cell_row(
        [
            ("Question and answer", 80.0),
            ("Response snippets", 80.0 + 9.5 * CELL_SIZE + 1.7 * CELL_SIZE),
        ],
        80.0,
    )
    assert _texts(segment([layout_page(0, lines_block(line))])) == [
        "Question and answer",
        "Response snippets",
    ]


def _stack_line(text: str, x: float, base: float, lone: bool) -> StackLine:
    return StackLine(
        (x, base - 7.0, x + 4.5 * len(text), base + 2.0), base, CELL_SIZE, False, lone, text
    )


def test_a_cell_running_over_several_lines_is_one_stack() -> None:
    # A description column (gutter at 190-200) whose first and last lines stand alone on
    # their rows; its middle line shares its row with the label and number cells.
    lines = [
        _stack_line("The document that starts a case and", 200.0, 100.0, lone=True),
        _stack_line("Complaint", 100.0, 109.5, lone=False),
        _stack_line("filed. Plaintiffs can also file", 200.0, 109.5, lone=False),
        _stack_line("parties or claims.", 200.0, 119.0, lone=True),
        _stack_line("Settlement", 100.0, 135.0, lone=False),
        _stack_line("An agreement among parties.", 200.0, 135.0, lone=False),
    ]
    keys = stacks(lines, [(190.0, 200.0)])
    assert keys[0] is not None and keys[0] == keys[2] == keys[3]
    assert keys[1] is None and keys[4] is None and keys[5] is None


def test_single_line_cells_one_under_another_do_not_stack() -> None:
    # Row labels of consecutive rows (each beside its numbers) are separate cells, and a
    # group label above a row label is no cell line of it.
    lines = [
        _stack_line("First k Sent", 100.0, 100.0, lone=False),
        _stack_line("random k sent", 100.0, 109.5, lone=False),
        _stack_line("Common Types", 100.0, 125.0, lone=True),
        _stack_line("Complaint", 100.0, 134.5, lone=False),
    ]
    assert stacks(lines, [(190.0, 200.0)]) == [None, None, None, None]


def test_stacked_reads_each_stack_top_to_bottom_where_it_begins() -> None:
    items = [("a", None, 1.0), ("x2", "x", 3.0), ("b", None, 2.0), ("x1", "x", 2.5)]
    order = stacked(items, lambda it: it[1], lambda it: it[2])
    assert [it[0] for it in order] == ["a", "x1", "x2", "b"]


# --- corpus ---------------------------------------------------------------------------------

#: The pages whose tables came out wrong (0-based), by paper; their tables are hand-listed in
#: bench.tables.KNOWN_TABLES.
PAGES = {"01": [6], "03": [2, 7], "04": [5], "05": [6]}


@pytest.mark.slow
@pytest.mark.corpus
def test_every_table_of_the_named_pages_is_right(corpus_dir: Path) -> None:
    assert all(page in KNOWN_TABLES[paper] for paper, pages in PAGES.items() for page in pages)
    for paper, pages in PAGES.items():
        path = next(corpus_dir.glob(f"{paper}_*.pdf"))
        for page, area, problems in paper_problems(path, pages):
            assert problems == [], f"{path.name} p{page + 1} table at {area}"


@pytest.mark.corpus
def test_table_scores_count_every_listed_table(corpus_dir: Path) -> None:
    scores = table_scores(corpus_dir, {"05": [6]})
    assert [(paper[:2], tables, right) for paper, tables, right in scores] == [("05", 1, 1)]


@pytest.mark.corpus
def test_tableformer_header_cells_sit_under_their_columns(corpus_dir: Path) -> None:
    """04 p6, Table 2: the second header row ("dev test test_simple ...") comes out as nine
    translations, each over the numbers of its own column."""
    data = next(corpus_dir.glob("04_*.pdf")).read_bytes()
    out = translate_pages(data, [5])[5]
    src = pymupdf.open(stream=data)[5]
    band = (185.0, 88.0, 515.0, 101.0)
    # Runs of text, not spans: extraction joins neighbouring translations in one font.
    runs = [(text, box, size) for text, box, size in text_runs(out, band) if text.strip()]
    assert all(any("\uac00" <= c <= "\ud7af" for c in text) for text, _, _ in runs)
    assert len(runs) == 9
    numbers = [w for w in src.get_text("words", clip=(185.0, 104.0, 515.0, 116.0))]
    assert len(numbers) == 9  # 81.0 81.0 92.3 75.6 83.9 and four dashes
    for (text, box, size), number in zip(sorted(runs, key=lambda r: r[1][0]), numbers, strict=True):
        centre = (box[0] + box[2]) / 2
        assert number[0] - 12.0 <= centre <= number[2] + 12.0, (text, number[4])
        assert size >= MIN_SCALE * 9.0 - 0.05
    # The numbers under them are untouched.
    assert [w[4] for w in out.get_text("words", clip=(185.0, 104.0, 515.0, 116.0))] == [
        w[4] for w in numbers
    ]


# --- typesetting a cell ---------------------------------------------------------------------


def _table_pdf() -> bytes:
    """A small table: a header row and three rows of numbers, columns 50 points apart."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=300)
    rows = [["Model", "dev", "test", "mean"]] + [
        [name, "81.0", "72.3", "88.2"] for name in ("Alpha", "Bravo", "Charlie")
    ]
    for i, row in enumerate(rows):
        for j, text in enumerate(row):
            words_at(page, [(60 + 60 * j if j else 40, 60 + 14 * i, text, CELL_SIZE, "helv")])
    return bytes(doc.tobytes())


def _render(translations: dict[str, str]) -> tuple[list[Paragraph], pymupdf.Page]:
    from translation.pdf import render_mono
    from translation.read.document import open_document
    from translation.read.extraction import extract_paragraphs

    data = _table_pdf()
    paras = extract_paragraphs(open_document(data))
    by_text = {p.text: p for p in paras}
    wanted = {by_text[text].id: value for text, value in translations.items()}
    out = pymupdf.open(stream=render_mono(open_document(data), paras, wanted, "ko"))
    return paras, out[0]


def _hangul_spans(page: pymupdf.Page) -> list[dict[str, Any]]:
    return [
        s
        for b in page.get_text("dict")["blocks"]
        for ln in b.get("lines", [])
        for s in ln["spans"]
        if any("\uac00" <= c <= "\ud7af" for c in s["text"])
    ]


def test_cell_translation_grows_into_its_column_not_below_the_minimum_size() -> None:
    paras, out = _render({"dev": "개발 세트"})
    dev = next(p for p in paras if p.text == "dev")
    assert dev.kind == ParagraphKind.CELL and dev.max_bbox is not None
    (span,) = _hangul_spans(out)
    x0, _, x1, _ = span["bbox"]
    assert x1 - x0 > dev.bbox[2] - dev.bbox[0]  # wider than the source word...
    assert dev.max_bbox[0] - 0.5 <= x0 and x1 <= dev.max_bbox[2] + 0.5  # ...inside its room
    assert span["size"] >= MIN_SCALE * dev.font_size - 0.01
    # Its neighbours are untouched.
    assert {"Model", "test", "mean", "81.0"} <= {w[4] for w in out.get_text("words")}


def test_cell_translation_too_long_for_its_room_keeps_the_source() -> None:
    _, out = _render({"test": "아주 긴 번역문이 들어갈 자리가 없는 셀 " * 3})
    assert _hangul_spans(out) == []
    assert "test" in {w[4] for w in out.get_text("words")}


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("paper", "page", "words"),
    [
        # Word sets the words of a justified line as MuPDF lines far apart (07 p5).
        ("07", 4, "producing a new contextualized representation vector sequence"),
        # A justified reference entry stretches its spaces after a sentence's end (04 p10).
        ("04", 9, "Bad for Graph Representation? arXiv preprint"),
        # A run-in heading's sentence, then a justified gap of three sizes (02 p2).
        ("02", 1, "Entity–entity relations. While mention–"),
    ],
)
def test_justified_lines_of_running_text_are_not_cut_into_cells(
    corpus_dir: Path, paper: str, page: int, words: str
) -> None:
    data = next(corpus_dir.glob(f"{paper}_*.pdf")).read_bytes()
    paragraphs = extract_paragraphs(open_document(data), [page], include_references=True)
    texts = [" ".join(without_tags(p.text).split()) for p in paragraphs]
    assert any(words in text for text in texts), [t for t in texts if words[:20] in t]
    assert not any(p.kind == ParagraphKind.CELL and words.split()[0] in p.text for p in paragraphs)


#: The last lines of a paragraph in the right page column (x 330), the last set level with the
#: header row of a table in the left column (baselines 100 to 136), a little lower.
RIGHT_COLUMN = [
    "topics in the source document after the first",
    "few of their annotations, which goes to show",
    "that they learn the document and keep making",
    "annotations, speeding up subsequent annotations.",
]


def _table_beside_a_figure(legend_x: float) -> PageLayout:
    """The table of ``_table`` with a figure's legend labels of the right column ("pred_hints",
    "gold_hints") on the baselines of its last two rows, ``legend_x`` points to the right."""
    page = _table([("Model", 100.0), ("dev", 200.0), ("test", 250.0), ("simple", 300.0)])
    body = [
        lines_block(cell_row([(t, 330.0)], 67.0 + 12.0 * i)) for i, t in enumerate(RIGHT_COLUMN)
    ]
    legend = [
        lines_block(cell_row([(label, legend_x)], base))
        for label, base in (("pred_hints", 124.0), ("gold_hints", 136.0))
    ]
    return layout_page(0, *page.blocks, *body, *legend)


def test_a_legend_label_beside_a_table_row_does_not_stretch_the_table() -> None:
    # 03 p16: "pred_hints" of a figure in the right column, level with a row of a table in
    # the left one, made a column past a 195 pt gutter; the table spanned both page columns
    # and the right column's line "annotations, speeding up ..." was read as a cell.
    paras = segment([_table_beside_a_figure(480.0)])
    (body,) = [p for p in paras if "speeding up" in p.text]
    assert body.kind == ParagraphKind.BODY
    assert body.text.startswith(RIGHT_COLUMN[0])
    assert {"Model", "Baseline", "Ours", "Large"} <= {
        p.text for p in paras if p.kind == ParagraphKind.CELL
    }
    assert not any(p.kind == ParagraphKind.CELL and "hints" in p.text for p in paras)


def test_the_line_beside_a_tables_legend_neighbour_is_prose(corpus_dir: Path) -> None:
    # 03 p16: the right column's last line of section E, level with a table of the left
    # column whose rows share baselines with the legend of Figure 5.
    data = next(corpus_dir.glob("03_*.pdf")).read_bytes()
    paragraphs = extract_paragraphs(open_document(data), [15])
    (para,) = [p for p in paragraphs if "speeding up subsequent" in p.text]
    assert para.kind == ParagraphKind.BODY
    assert para.text.startswith("In Section 3.3 we discussed a learning effect")


def _piece(text: str, box: tuple[float, float, float, float], font: str = "Times-Roman") -> Line:
    span = Span(text, box, font, 10.0, origin=(box[0], box[3] - 2.0))
    return Line(spans=(span,), bbox=box)


def test_a_piece_of_the_other_columns_formula_is_no_cell_of_a_text_line() -> None:
    """A line of the left page column (a paragraph's first, in a block of two lines) shares its
    baseline with a fraction's denominator of a display formula in the right column, set as a
    narrow block of its own ("β0 )," under "2 I_D,2", 2021 key-error p9): the formula's main
    line stands between them at that height, so the two are no cells of one table row (with
    the formula rows below they made a table across both columns, and the paragraph was
    sent as cells)."""
    text = lines_block(
        [
            _piece(
                "By Kirchhoff's law and the saturation current relation (by",
                (47.6, 473.4, 288.7, 483.8),
            ),
            _piece("neglecting the Early effect)", (37.6, 485.4, 145.5, 495.8)),
        ]
    )
    formula = lines_block([_piece("= 4(Vov,9)2((Vov,9)2 - 2ID,2", (413.1, 466.9, 519.4, 484.7))])
    # The denominator and the formula's number, in one block of two rows.
    piece = lines_block(
        [
            _piece("β0 ),", (505.7, 473.6, 526.9, 490.5), "rtxmi"),
            _piece("(B.7)", (536.9, 474.0, 557.7, 484.0)),
        ]
    )
    frame = Frame()
    rows = page_rows([visual_rows(block, frame) for block in (text, formula, piece)])
    texts = [" ".join(s.text for _, s in spans) for spans, _ in rows]
    (line,) = [t for t in texts if "Kirchhoff" in t]
    assert "β0" not in line, texts
    # With nothing between them, the same narrow piece is a cell beside the line.
    rows = page_rows([visual_rows(block, frame) for block in (text, piece)])
    texts = [" ".join(s.text for _, s in spans) for spans, _ in rows]
    (line,) = [t for t in texts if "Kirchhoff" in t]
    assert "β0" in line, texts
