"""What stands around and inside a table: its caption, its footnote, a formula cell, cells
spanning rows or columns, coloured cells, and numbers beside a row's label.

Each page is a real PDF written with PyMuPDF, read and set again with the pseudo translator;
what is checked is what a reader of the translation sees: no English left under a translation,
nothing printed over a neighbour, numbers and formulas where they stood, colours kept.
"""

from __future__ import annotations

from collections.abc import Sequence

import pymupdf

from tests.helpers.pdfgen.sheet import TIMES, box_at, math_font, words_at
from tests.helpers.pdfgen.typeset import by_text, hangul, spans, translate
from translation.read.paragraph import ParagraphKind

SIZE = 9.0


def _numbers_table(page: pymupdf.Page, top: float, rows: Sequence[tuple[str, ...]]) -> float:
    """A LaTeX-style table (one line a row, rules above and below, numbers flush right in
    their columns) from ``top``; returns the y of its bottom rule."""
    font = TIMES
    page.draw_line((110, top), (500, top), width=0.5)
    y = top + 12
    for row in rows:
        words_at(page, [(114, y, row[0], SIZE, "Times-Roman")])
        for right, text in zip((260.0, 330.0, 400.0, 490.0), row[1:], strict=False):
            x = right - font.text_length(text, SIZE)
            words_at(page, [(x, y, text, SIZE, "Times-Roman")])
        y += 11
    page.draw_line((110, y - 7), (500, y - 7), width=0.5)
    return y - 7


NUMBER_ROWS = [
    ("Dataset", "Samples", "Words", "Coverage", "Density"),
    ("News articles", "226,677", "454.5", "0.67", "1.10"),
    ("Court filings", "3,229", "5847.7", "0.95", "4.85"),
    ("Scientific papers", "1,212,739", "800.1", "0.83", "9.53"),
    ("Patents", "147,665", "163.1", "0.51", "0.90"),
]


# --- a table footnote ------------------------------------------------------------------------


def test_a_table_footnote_keeps_no_english_line_under_its_translation() -> None:
    # A raised marker, then the note's first line: MuPDF puts a space on the marker's
    # baseline before the line's text (05 p6), which must not move the line's baseline.
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    bottom = _numbers_table(page, 100, NUMBER_ROWS)
    first = bottom + 12
    footnote = (
        "The counts of the court filings might differ slightly from those reported in the "
        "original paper because some",
        "documents were not downloaded by the script that the authors provided.",
    )
    mark = (110.5, first - 3.1, "1", 5.8, "Times-Roman")  # its raised number
    lines = [
        (115.0, first, footnote[0], 8.2, "Times-Roman"),
        (110.1, first + 9, footnote[1], 8.2, "Times-Roman"),
    ]
    words_at(page, [mark, *lines])
    paras, out = translate(bytes(doc.tobytes()), "ko")
    (note,) = [p for p in paras if "counts of the court filings" in p.text]
    assert note.kind != ParagraphKind.CELL  # a table note is no cell
    assert "documents were not downloaded" in note.text  # one paragraph, both lines
    area = (100, bottom + 2, 520, first + 40)
    left = [w[4] for w in out.get_text("words", clip=area) if w[4].isascii() and w[4].isalpha()]
    assert not {"counts", "court", "filings", "original", "documents", "authors"} & set(left)
    assert any(hangul(s["text"]) for s in spans(out, area))
    # The numbers of the table are untouched.
    kept = [w[4] for w in out.get_text("words", clip=(200, 105, 500, bottom))]
    assert "1,212,739" in kept and "5847.7" in kept


# --- a caption between two tables ----------------------------------------------------------


def _justified(page: pymupdf.Page, y: float, text: str, label: float = 0.0) -> None:
    """A caption line set justified from x 110 to 400 (``label``: extra room after the
    first two words, "Table 4:")."""
    font = TIMES
    words = text.split()
    widths = [font.text_length(w, 10.0) for w in words]
    gap = (290 - sum(widths) - label) / (len(words) - 1)
    x = 110.0
    for i, (word, width) in enumerate(zip(words, widths, strict=True)):
        words_at(page, [(x, y, word, 10.0, "Times-Roman")])
        x += width + gap + (label if i == 1 else 0.0)


def _narrow_table(page: pymupdf.Page, top: float, rows: Sequence[tuple[str, ...]]) -> float:
    font = TIMES
    page.draw_line((110, top), (400, top), width=0.5)
    y = top + 12
    for row in rows:
        words_at(page, [(114, y, row[0], SIZE, "Times-Roman")])
        for right, text in zip((300.0, 350.0, 400.0), row[1:], strict=True):
            x = right - font.text_length(text, SIZE)
            words_at(page, [(x, y, text, SIZE, "Times-Roman")])
        y += 10
    page.draw_line((110, y - 6), (400, y - 6), width=0.5)
    return y - 6


def test_caption_words_lining_up_with_columns_stay_in_the_caption() -> None:
    # 03 p7: a justified caption between two tables of one width; its word spaces fall in
    # the columns' gutters.
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    bottom = _narrow_table(
        page,
        100,
        [
            ("Algorithm", "R@3", "R@5", "R@10"),
            ("Word overlap (2004)", "0.31", "0.34", "0.46"),
            ("Dense retrieval (2020)", "0.29", "0.31", "0.41"),
            ("Entailment scores (2022)", "0.22", "0.26", "0.34"),
            ("Fact verification (2022)", "0.47", "0.58", "0.71"),
            ("Weak supervision (2021)", "0.61", "0.68", "0.77"),
        ],
    )
    y = bottom + 20
    _justified(page, y, "Table 4: A comparison of the algorithms that find the source", 3.4)
    _justified(
        page, y + 11, "sentences supporting each unit of a summary; recall at k is the share"
    )
    last = "of times the gold sentence was found among the first k sentences."
    words_at(page, [(110, y + 22, last, 10.0, "Times-Roman")])
    _narrow_table(
        page,
        y + 45,
        [
            ("Hints", "Accuracy", "Agreement", "Time"),
            ("None", "93%", "0.71", "41.4"),
            ("Weak supervision", "92%", "0.64", "48.2"),
            ("Gold", "92%", "0.63", "40.4"),
        ],
    )
    paras, out = translate(bytes(doc.tobytes()), "ko")
    caption = by_text(paras)[
        "Table 4: A comparison of the algorithms that find the source sentences supporting "
        "each unit of a summary; recall at k is the share " + last
    ]
    assert caption.kind == ParagraphKind.CAPTION
    # The caption is set as one text in its own lines: no piece of it overprints another.
    lines = sorted(s["bbox"] for s in spans(out, (105, y - 12, 405, y + 30)))
    assert lines and all(hangul(s["text"]) for s in spans(out, (105, y - 12, 405, y + 30)))
    for a, b in zip(lines, lines[1:], strict=False):
        overlap_y = min(a[3], b[3]) - max(a[1], b[1])
        overlap_x = min(a[2], b[2]) - max(a[0], b[0])
        assert overlap_y < 2.0 or overlap_x < 1.0, (a, b)
    # The tables' cells stay cells.
    cells = by_text(paras)
    assert cells["Weak supervision (2021)"].kind == ParagraphKind.CELL
    assert cells["Agreement"].kind == ParagraphKind.CELL


# --- a formula cell ----------------------------------------------------------------------------


FORMULA_ROWS = [
    ("Precision", "𝑃 = 𝑡𝑝 / (𝑡𝑝 + 𝑓𝑝)", "predicted items"),
    ("Recall", "𝑅 = 𝑡𝑝 / (𝑡𝑝 + 𝑓𝑛)", "true items"),
    ("F-score", "𝐹 = 2𝑃𝑅 / (𝑃 + 𝑅)", "both"),  # more formula than text
    ("Loss", "ℒ = −∑ 𝑦 log 𝑝 + 𝜆𝑤", "classes"),
]


def test_a_formula_cell_stays_in_its_column_and_no_rows_merge() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_font(fontname="math", fontbuffer=math_font().buffer)
    words_at(page, [(76, 90, "The measures are defined in the table below.", 10, "Times-Roman")])
    header = ("Measure", "Definition", "Meaning")
    for x, text in zip((76, 122, 232), header, strict=True):
        words_at(page, [(x, 111, text, SIZE, "Times-Bold")])
    for i, (name, formula, meaning) in enumerate(FORMULA_ROWS):
        y = 122 + 11 * i
        words_at(
            page,
            [
                (76, y, name, SIZE, "Times-Roman"),
                (122, y, formula, SIZE, "math"),
                (232, y, meaning, SIZE, "Times-Roman"),
            ],
        )
    data = bytes(doc.tobytes())
    paras, out = translate(data, "ko")
    cells = by_text(paras)
    for name, _, meaning in FORMULA_ROWS:  # each its own cell: no row merged with the next
        assert cells[name].kind == ParagraphKind.CELL, name
        assert cells[meaning].kind == ParagraphKind.CELL, meaning
    # The formulas stand where they stood; each translation stays in its own column.
    column = (118, 114, 228, 170)  # below the header
    source = pymupdf.open(stream=data)[0]
    assert out.get_text("words", clip=column) == source.get_text("words", clip=column)
    translated = [s for s in spans(out, (70, 114, 400, 170)) if hangul(s["text"])]
    assert len(translated) == 2 * len(FORMULA_ROWS)
    for span in translated:
        x0, _, x1, _ = span["bbox"]
        assert x1 <= 120 or x0 >= 230, span["text"]


# --- a Word table with merged cells ------------------------------------------------------------

# Cells (x0, y0, x1, y1) of a ruled table: the header's second cell spans two columns, the
# first column's second cell spans two rows.
MERGED_CELLS = [
    ((72, 100, 150, 118), "구분"),
    ((150, 100, 520, 118), "내용"),
    ((72, 118, 150, 182), "데이터 수집과 준비"),
    ((150, 118, 230, 150), "수집"),
    ((230, 118, 520, 150), "연구 대상 문서를 웹에서 수집하고 중복을 제거한 뒤 품질을 검사한다."),
    ((150, 150, 230, 182), "정제"),
    ((230, 150, 520, 182), "문장을 분리하고 형태소 분석을 수행하여 토큰 단위로 정리한다."),
    ((72, 182, 150, 214), "평가"),
    ((150, 182, 230, 214), "지표"),
    ((230, 182, 520, 214), "사람 평가자와 자동 지표를 함께 사용하여 결과를 비교한다."),
]


def test_a_word_table_with_merged_cells_keeps_each_translation_inside_its_cell() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    words_at(page, [(72, 85, "다음 표는 연구의 단계를 정리한 것이다.", 10, "korea")])
    for (x0, y0, x1, y1), text in MERGED_CELLS:  # each cell a box of its own, as Word sets it
        for a, b in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1))):  # top and right border
            page.draw_line(a, b, width=0.5)
        for a, b in (((x0, y1), (x1, y1)), ((x0, y0), (x0, y1))):
            page.draw_line(a, b, width=0.5)
        centred = x0 == 72 or y0 == 100
        left = box_at(page, (x0 + 4, y0 + 3, x1 - 4, y1), text, SIZE, "korea", align=centred)
        assert left >= 0
    words_at(page, [(72, 240, "표의 각 단계는 본문에서 자세히 설명한다.", 10, "korea")])
    paras, out = translate(bytes(doc.tobytes()), "en")
    cells = by_text(paras)
    for _, text in MERGED_CELLS:
        assert cells[text].kind == ParagraphKind.CELL, text
    # Every translated line lies inside the cell it starts in: never across a rule.
    found = 0
    for span in spans(out, (60, 96, 530, 220)):
        x0, y0, x1, y1 = span["bbox"]
        cx, cy = x0 + 2, (y0 + y1) / 2
        (cell,) = [c for c, _ in MERGED_CELLS if c[0] <= cx <= c[2] and c[1] <= cy <= c[3]]
        assert cell[0] < x0 and x1 < cell[2] and cell[1] - 1 <= y0 and y1 <= cell[3] + 1, (
            span["text"],
            cell,
        )
        assert span["size"] >= 0.6 * SIZE - 0.05
        found += 1
    assert found >= len(MERGED_CELLS)


# --- numbers set close to a row's label --------------------------------------------------------


def test_a_row_whose_numbers_touch_its_label_is_not_sent_with_them() -> None:
    # 01 p8 Table 3: the longest label runs up to its first number, one word space apart, so
    # MuPDF reads label and numbers as one line; the other rows' numbers stand apart.
    font = TIMES
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    longest = "Encoder fine-tuned on co-citation"
    numbers_x = 72 + font.text_length(longest + " ", SIZE)
    rows = [
        ("Baseline encoder", "84.2 88.4 91.5 36.9 80.0"),
        ("Encoder fine-tuned on co-view", "83.0 84.2 84.1 36.4 76.0"),
        (longest, "82.9 84.3 85.2 36.6 76.4"),
        ("Encoder fine-tuned on all tasks", "83.3 86.1 88.2 36.0 78.0"),
    ]
    words_at(
        page,
        [
            (72, 100, "Training signal", SIZE, "Times-Roman"),
            (numbers_x, 100, "CLS USR CITE REC All", SIZE, "Times-Roman"),
        ],
    )
    for i, (label, numbers) in enumerate(rows):
        y = 114 + 10 * i
        if label == longest:
            words_at(page, [(72, y, label + " " + numbers, SIZE, "Times-Roman")])
        else:
            words_at(
                page,
                [(72, y, label, SIZE, "Times-Roman"), (numbers_x, y, numbers, SIZE, "Times-Roman")],
            )
    data = bytes(doc.tobytes())
    paras, out = translate(data, "ko")
    texts = set(by_text(paras))
    assert {label for label, _ in rows} <= texts  # each label alone, none with its numbers
    assert not any(any(c.isdigit() for c in t) for t in texts)
    area = (numbers_x - 1, 105, 400, 150)
    source = pymupdf.open(stream=data)[0]
    assert out.get_text("words", clip=area) == source.get_text("words", clip=area)


# --- coloured cells ----------------------------------------------------------------------------


def test_the_colours_of_cells_and_their_fills_survive() -> None:
    # 03 Table 6: answers set in blue, red and green; a cell with a light fill behind it.
    colours = {"Yes": 0x0000E6, "No": 0xE60000, "Sometimes": 0x008000}
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.draw_rect((200, 119, 290, 131), color=None, fill=(0.8, 0.95, 0.8))
    rows = [
        ("Question", "Answer", "Comment"),
        ("Were the hints useful", "Yes", "most of the time"),
        ("Did you search", "No", "hardly ever"),
        ("Was it slow", "Sometimes", "for long papers"),
    ]
    for i, row in enumerate(rows):
        for x, text in zip((76, 204, 300), row, strict=True):
            rgb = pymupdf.sRGB_to_pdf(colours.get(text, 0))
            words_at(page, [(x, 114 + 14 * i, text, SIZE, "Helvetica")], color=rgb)
    _, out = translate(bytes(doc.tobytes()), "ko")
    answers = sorted(
        (s for s in spans(out, (200, 117, 290, 160)) if hangul(s["text"])),
        key=lambda s: s["bbox"][1],
    )
    assert [s["color"] for s in answers] == list(colours.values())
    others = [s for s in spans(out, (70, 100, 420, 160)) if s not in answers]
    assert others and all(s["color"] == 0 for s in others)
    assert out.get_pixmap(clip=(200, 119, 290, 131)).pixel(80, 6) == (204, 242, 204)
