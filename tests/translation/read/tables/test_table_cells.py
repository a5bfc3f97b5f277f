"""Tables beyond ruled numbers: constructed pages of text tables, code and operator columns,
filled header rows and right-aligned columns, read and set again with the pseudo translator.

Each table is a real PDF written with PyMuPDF (cells as Word and LaTeX set them: wrapped in
boxes of their own, or one line a row); what is checked is what a reader of the translation
sees: each cell's translation inside its column, code and notation untouched, fills and colours
kept, the column's alignment kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pymupdf
import pytest

from tests.fakes.pseudo import pseudo_words
from tests.helpers.glyphs import dark_pixels, source_glyphs
from tests.helpers.pdfgen.sheet import TIMES, box_at, words_at
from tests.helpers.pdfgen.typeset import by_text, glyph_boxes, hangul, spans, translate
from translation.read.layout import Frame, Span
from translation.read.paragraph import ParagraphKind
from translation.read.tables.table_rows import row_item, words

SIZE = 9.0
MIN_SCALE = 0.6


# --- a text table, its cells wrapped in boxes of their own ---------------------------------

ENGLISH_ROWS = [
    ("Stage", "Description", "Owner"),
    ("Collection", "Documents are gathered from the web and duplicates are removed.", "Data team"),
    ("Cleaning", "Sentences are split and normalised so that tokens match labels.", "Tools group"),
    ("Evaluation", "Human raters and automatic scores are used to compare systems.", "Staff"),
]
KOREAN_ROWS = [
    ("구분", "설명"),
    ("데이터 수집", "연구 대상 문서를 웹에서 수집하고 중복을 제거한 뒤 품질을 검사한다."),
    ("전처리", "문장을 분리하고 형태소 분석을 수행하여 토큰 단위로 정리한다."),
    ("평가", "사람 평가자와 자동 지표를 함께 사용하여 결과를 비교한다."),
]


def _boxed_table(
    rows: Sequence[tuple[str, ...]], columns: list[tuple[float, float]], font: str
) -> bytes:
    """Each cell set by ``insert_textbox`` in its column (a block of its own, wrapped inside
    it), rules between the rows, a sentence of body text above and below."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    words_at(page, [(72, 80, rows[0][0] + " is the first column of the table below.", 10, font)])
    y = 110.0
    for row in rows:
        page.draw_line((72, y - 12), (520, y - 12), width=0.5)
        used = 0.0
        for (x0, x1), text in zip(columns, row, strict=True):
            left = box_at(page, (x0, y - 10, x1, y + 40), text, SIZE, font)
            used = max(used, 50 - left)
        y += used + 6
    page.draw_line((72, y - 12), (520, y - 12), width=0.5)
    words_at(page, [(72, y + 20, rows[1][0] + " is named in the table above.", 10, font)])
    return bytes(doc.tobytes())


def _inside_columns(page: pymupdf.Page, columns: list[tuple[float, float]], script: Any) -> int:
    """How many translated spans lie in the table's band; each must sit inside one column
    and keep at least the minimum size."""
    found = 0
    for span in spans(page, (60, 95, 540, 192)):
        if not script(span["text"]):
            continue
        x0, _, x1, _ = span["bbox"]
        assert any(a - 1.5 <= x0 and x1 <= b + 1.5 for a, b in columns), span["text"]
        assert span["size"] >= MIN_SCALE * SIZE - 0.05
        found += 1
    return found


def test_wrapped_text_cells_are_read_whole_and_stay_in_their_columns() -> None:
    columns = [(72.0, 165.0), (170.0, 420.0), (430.0, 520.0)]
    data = _boxed_table(ENGLISH_ROWS, columns, "Times-Roman")
    paras, out = translate(data, "ko")
    cells = by_text(paras)
    for row in ENGLISH_ROWS:
        for text in row:  # a wrapped description is one request, the owner a cell too
            assert cells[text].kind == ParagraphKind.CELL, text
    assert _inside_columns(out, columns, hangul) >= 12


def test_a_formula_in_a_wrapped_cell_is_copied_whole() -> None:
    """A cell's words are cut from their line with estimated boxes (a space half a letter,
    every letter alike), so the box the reader gives a formula in a cell of wide and narrow
    letters stands beside its glyph; its copy is shown on the glyphs that spell it on that
    line, all its ink.
    Origin: corpus 09 p2 (a cell's "→" copied from beside it: nothing shown)."""
    rows = [
        ENGLISH_ROWS[0],
        ("Collection", "Widths WWWWWW ± iiiiii of the whole row are measured.", "Data team"),
        *ENGLISH_ROWS[2:],
    ]
    data = _boxed_table(rows, [(72.0, 165.0), (170.0, 420.0), (430.0, 520.0)], "Times-Roman")
    paras, out = translate(data, "ko")
    assert [p for p in paras if "{v1}" in p.text]  # sent as a formula
    source = pymupdf.open(stream=data)[0]
    (glyph,) = source_glyphs(source, "±")
    (copied,) = glyph_boxes(out, "Times", "±")
    ink = dark_pixels(source, glyph)
    assert ink > 0 and abs(dark_pixels(out, copied) - ink) <= 0.1 * ink


def test_a_korean_two_column_text_table_stays_in_its_columns() -> None:
    columns = [(72.0, 190.0), (200.0, 520.0)]
    data = _boxed_table(KOREAN_ROWS, columns, "korea")
    paras, out = translate(data, "en")
    cells = by_text(paras)
    for row in KOREAN_ROWS:
        for text in row:  # "데이터 수집": a word space is no column
            assert cells[text].kind == ParagraphKind.CELL, text
    latin = _inside_columns(out, columns, lambda t: any("a" <= c <= "z" for c in t))
    assert latin >= 8


# --- code, notation and the look of cells -----------------------------------------------------


def _lined_table(rows: Sequence[tuple[str, ...]], xs: list[float], fonts: list[str]) -> bytes:
    """One line a row (as LaTeX sets a table), the header row in bold."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    for i, row in enumerate(rows):
        for x, font, text in zip(xs, fonts, row, strict=True):
            words_at(page, [(x, 100 + 14 * i, text, SIZE, "Times-Bold" if i == 0 else font)])
    return bytes(doc.tobytes())


CODE_ROWS = [
    ("Function", "Description"),
    ("read_csv(path)", "Read a file of comma separated values into a frame."),
    ("fit_model(x, y)", "Fit the model to the data and return its parameters."),
    ("plot_fit(m)", "Draw the fitted curve over the observed points."),
    ("save_all(dir)", "Write every result to the given directory."),
]


def test_a_code_column_is_untouched_and_no_row_merges() -> None:
    data = _lined_table(CODE_ROWS, [76.0, 200.0], ["Courier", "Times-Roman"])
    paras, out = translate(data, "ko")
    texts = [" ".join(p.text.split()) for p in paras]
    # The header row is two cells; each description is its own request, without its code.
    assert "Function" in texts and "Description" in texts
    for code, description in CODE_ROWS[1:]:
        assert description in texts
        assert not any(code in t or code.split("(")[0] in t for t in texts)
    source = pymupdf.open(stream=data)[0]
    words: list[Any] = [w[:5] for w in source.get_text("words", clip=(70, 105, 190, 170))]
    kept: list[Any] = [w[:5] for w in out.get_text("words", clip=(70, 105, 190, 170))]
    assert kept == words


def test_a_table_of_operator_names_keeps_them() -> None:
    rows = [
        ("Name", "Operator", "Meaning"),
        ("inverse cosine", "arccos", "angle of a cosine"),
        ("upper limit", "lim sup", "largest limit point"),
        ("logarithm", "log", "inverse of the exponential"),
        ("maximum", "max", "largest element"),
    ]
    data = _lined_table(rows, [76.0, 200.0, 300.0], ["Times-Roman"] * 3)
    paras, out = translate(data, "ko")
    texts = {p.text for p in paras}
    assert {"arccos", "lim sup", "log", "max"}.isdisjoint(texts)
    assert {"inverse cosine", "Operator", "largest element"} <= texts
    kept = [w[4] for w in out.get_text("words", clip=(195, 105, 290, 165))]
    assert kept == ["arccos", "lim", "sup", "log", "max"]


def test_a_dark_header_fill_and_coloured_cells_stay_readable() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.draw_rect((72, 89, 420, 104), color=None, fill=(0.1, 0.15, 0.4))
    rows = [("Method", "Accuracy", "Notes"), ("Baseline", "81.2", "simple rules")]
    rows += [("Ours", "88.4", "learned weights"), ("Large", "90.1", "more training data")]
    for i, row in enumerate(rows):
        for x, text in zip((76, 200, 300), row, strict=True):
            red = text in ("88.4", "learned weights")
            colour = (1, 1, 1) if i == 0 else (0.8, 0, 0) if red else (0, 0, 0)
            words_at(page, [(x, 100 + 15 * i, text, SIZE, "Helvetica")], color=colour)
    _, out = translate(bytes(doc.tobytes()), "ko")
    # The fill is still there, under a header translated in white.
    pixel = out.get_pixmap(clip=(160, 90, 190, 92)).pixel(5, 1)
    assert sum(pixel) < 200
    header = [s for s in spans(out, (72, 89, 420, 104)) if hangul(s["text"])]
    assert len(header) == 3 and all(s["color"] == 0xFFFFFF for s in header)
    (noted,) = [s for s in spans(out, (290, 118, 420, 133)) if hangul(s["text"])]
    assert noted["color"] == pymupdf.sRGB_to_pdf(0xCC0000) or noted["color"] == 0xCC0000


def test_a_right_aligned_column_keeps_its_alignment() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    font = TIMES
    rows = [("Model", "Params", "Score"), ("Small model", "12", "71.3")]
    rows += [("Medium sized model", "110", "78.9"), ("Large", "340", "83.0")]
    for i, row in enumerate(rows):
        words_at(page, [(76, 100 + 14 * i, row[0], SIZE, "Times-Roman")])
        for right, text in ((260.0, row[1]), (330.0, row[2])):
            x = right - font.text_length(text, SIZE)
            words_at(page, [(x, 100 + 14 * i, text, SIZE, "Times-Roman")])
    _, out = translate(bytes(doc.tobytes()), "ko")
    header = sorted(
        (s for s in spans(out, (70, 90, 340, 103)) if hangul(s["text"])),
        key=lambda s: s["bbox"][0],
    )
    assert len(header) == 3
    assert abs(header[0]["bbox"][0] - 76.0) < 1.0  # the label column stays flush left
    for span, right in zip(header[1:], (260.0, 330.0), strict=True):
        assert abs(span["bbox"][2] - right) < 1.5, span["text"]


def test_coloured_bold_words_inside_a_cell_keep_their_colours() -> None:
    """03 Table 6: a cell's green "Sometimes" and blue "Yes" are translated words, so their
    text is never found again; they keep their colours through their bold marks."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    green, blue = (0, 0.5, 0), (0, 0, 0.8)
    rows: list[list[tuple[str, str, tuple[float, ...]]]] = [
        [("Question", "Times-Bold", (0, 0, 0))],
        [("Four raters said ", "Times-Roman", (0, 0, 0)), ("Sometimes", "Times-Bold", green)],
        [("and one rater said ", "Times-Roman", (0, 0, 0)), ("Yes", "Times-Bold", blue)],
    ]
    notes = ["Notes", "Hints were useful for long texts.", "Only for short summaries."]
    for i, parts in enumerate(rows):
        x, y = 76.0, 100.0 + 14 * i
        for text, font, colour in parts:
            words_at(page, [(x, y, text, SIZE, font)], color=colour)
            x += pymupdf.get_text_length(text, fontname=font, fontsize=SIZE)
        words_at(page, [(260, y, notes[i], SIZE, "Times-Roman")])
    _, out = translate(bytes(doc.tobytes()), "ko")
    coloured: dict[int, str] = {}
    for span in spans(out, (70, 90, 250, 135)):
        if hangul(span["text"]):
            coloured[span["color"]] = coloured.get(span["color"], "") + span["text"]
    (sometimes,) = pseudo_words("Sometimes", "ko")
    (yes,) = pseudo_words("Yes", "ko")
    assert sometimes in coloured.get(0x008000, "")
    assert yes in coloured.get(0x0000CC, "")
    assert not any(w in coloured.get(0, "") for w in (sometimes, yes))


NUMBER_LABELS = ["Our model", "Fine-tuned on views", "Fine-tuned on reads", "Fine-tuned on cites"]
NUMBER_HEADER = "CLS USR CITE REC"


def _number_table() -> tuple[bytes, list[float]]:
    """01 p8 Table 3 rebuilt: a header span "CLS USR CITE REC" and an "All" over five columns
    of numbers, each word ending where its column ends, the columns a word space apart (the
    last two set as one string). Returns the page and the columns' right edges."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    font = TIMES
    ends, x = [], 200.0
    for word in NUMBER_HEADER.split():
        x += font.text_length(word, SIZE)
        ends.append(x)
        x += font.text_length(" ", SIZE)
    ends.append(ends[-1] + 18.0)
    words_at(
        page,
        [
            (76, 100, "Training signal", SIZE, "Times-Roman"),
            (200, 100, NUMBER_HEADER, SIZE, "Times-Roman"),
        ],
    )
    all_x = ends[-1] - font.text_length("All", SIZE)
    words_at(page, [(all_x, 100, "All", SIZE, "Times-Roman")])
    for i, label in enumerate(NUMBER_LABELS):
        y = 114.0 + 12 * i
        words_at(page, [(76, y, label, SIZE, "Times-Roman")])
        numbers = [f"{80 + i}.{k}" for k in range(5)]
        cells = [*zip(numbers[:3], ends[:3], strict=True), (" ".join(numbers[3:]), ends[4])]
        for number, end in cells:
            start = end - font.text_length(number, SIZE)
            words_at(page, [(start, y, number, SIZE, "Times-Roman")])
    return bytes(doc.tobytes()), ends


def test_a_header_of_one_word_per_column_of_numbers_is_cut_into_cells() -> None:
    """01 p8 Table 3: "CLS USR CITE REC" is one span over four columns of numbers set a word
    space apart (LaTeX's 4 pt gutters); each word is a cell of its own, and no row merges."""
    data, ends = _number_table()
    paras, out = translate(data, "ko")
    texts = [" ".join(p.text.split()) for p in paras]
    assert "All" in texts, texts
    assert set(NUMBER_LABELS) <= set(texts), texts  # each row its own request, no numbers
    # The metric names are notation, printed as they are; merged with "All" they were sent.
    assert not any("CLS" in t or "REC" in t for t in texts), texts
    # Each header word (or its translation) stays over its own column.
    for word, end in zip(NUMBER_HEADER.split(), ends, strict=False):
        (shown,) = pseudo_words(word, "ko") if word == "All" else (word,)
        found = out.search_for(shown, clip=(150, 90, 320, 103))
        assert found and end - 22 <= found[0].x0 and found[0].x1 <= end + 1, word


_COLUMN_TEXT = (
    "The second corpus holds pairs of sentences drawn from news articles and rated by people "
    "for whether they mean the same thing. We use only the true pairs for generation and keep "
    "the official split of the data for training and testing in every run we report."
)


BESIDE_ROWS = [("Model", "Medium", "Large")] + [
    (name, f"{300 + 7 * i},{i}12", f"{700 + 9 * i},{i}40")
    for i, name in enumerate(["Fine Tuning", "Adapter Tuning", "LoRA Tuning", "Prompt", "LPT"])
]


def _table_beside_column() -> bytes:
    """A table in the left page column, its header row on the baseline of a justified line
    of the right page column."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    words_at(page, [(173, 100, "Number of Parameters", SIZE, "Times-Bold")])
    for i, row in enumerate(BESIDE_ROWS):
        for x, text in zip((60, 170, 235), row, strict=True):
            font = "Times-Bold" if i == 0 else "Times-Roman"
            words_at(page, [(x, 116 + 13 * i, text, SIZE, font)])
    # One justified line has a space stretched wide: MuPDF keeps each half a line of its own.
    words = _COLUMN_TEXT.split()
    for i in range(8):
        y = 100.0 + 11 * i
        left, right = " ".join(words[6 * i : 6 * i + 3]), " ".join(words[6 * i + 3 : 6 * i + 6])
        gap = 14 if i == 2 else pymupdf.get_text_length(" ", "Times-Roman", SIZE)
        words_at(page, [(324, y, left, SIZE, "Times-Roman")])
        x = 324 + pymupdf.get_text_length(left, "Times-Roman", SIZE) + gap
        words_at(page, [(x, y, right, SIZE, "Times-Roman")])
    return bytes(doc.tobytes())


def test_a_table_beside_the_next_page_column_keeps_that_column_out() -> None:
    """A table in the left page column whose header row shares its baseline with a line of
    the right column: the right column stays running text (not cells of the table), and its
    translation is set in the right column, not over the table."""
    rows = BESIDE_ROWS
    paras, out = translate(_table_beside_column(), "ko")
    column = [p for p in paras if p.bbox[0] > 300]
    assert column and all(p.kind != ParagraphKind.CELL for p in column), [
        (p.kind, p.text[:30]) for p in column
    ]
    assert by_text(paras)["Fine Tuning"].kind == ParagraphKind.CELL
    # Nothing of the column's translation lies over the table.
    table_words = set(pseudo_words(" ".join(" ".join(r) for r in rows), "ko"))
    column_words = set(pseudo_words(_COLUMN_TEXT, "ko")) - table_words
    over = " ".join(s["text"] for s in spans(out, (55, 105, 300, 200))).split()
    assert column_words.isdisjoint(over), column_words & set(over)


def _sent_of_table(
    rows: Sequence[tuple[str, ...]], xs: list[float], below: str = ""
) -> tuple[set[str], pymupdf.Page]:
    """What is sent of a one-line-a-row table (``below``: a sentence under it), and the
    translated page."""
    doc = pymupdf.open(stream=_lined_table(rows, xs, ["Times-Roman"] * len(xs)))
    if below:
        words_at(doc[0], [(76, 200, below, 10, "helv")])
    paras, out = translate(bytes(doc.tobytes()), "ko")
    return {" ".join(p.text.split()) for p in paras}, out


def test_a_column_of_model_and_metric_names_is_printed_as_it_is() -> None:
    """Names in capitals ("TAPASBASE 2p", "BLEU", "ROUGE-L") are notation: the model has
    nothing to translate there and may spell them out. A header in capitals that the paper
    also prints as a word ("ALL", "all") and the cells of words are still sent."""
    rows = [
        ("Model", "Metric", "ALL"),
        ("TAPASBASE 2p", "BLEU", "41.2"),
        ("GPT2 (2019a)", "ROUGE-L", "38.0"),
        ("Our model", "human rating", "44.9"),
    ]
    texts, out = _sent_of_table(rows, [76.0, 200.0, 300.0], "We compare all systems on it.")
    assert {"Model", "Metric", "ALL", "Our model", "human rating"} <= texts, texts
    assert not {"TAPASBASE 2p", "BLEU", "GPT2 (2019a)", "ROUGE-L"} & texts, texts
    kept = [w[4] for w in out.get_text("words", clip=(70, 105, 290, 131))]
    assert kept == ["TAPASBASE", "2p", "BLEU", "GPT2", "(2019a)", "ROUGE-L"], kept


# --- a ruled table of labels and list items that wrap -----------------------------------------

LIST_ITEMS = [
    [
        "- Documents gathered from the web are",
        "checked by hand and every duplicate",
        "is removed and then each of the ones",
        "left.",
    ],
    ["- Each sentence is split and normalised"],
    ["- Raters compare the outputs side by side"],
    ["- Scores of the raters are averaged over", "all systems."],
    ["- Scored twice"],
]
# First lines a word shorter: their spaces stretched, the dash's too, lined up from row to row.
STRETCHED_ITEMS = [
    ["- Documents gathered from the web", *LIST_ITEMS[0][1:]],
    ["- Each sentence is split and then"],
    ["- Raters compare the outputs side"],
    ["- Scores of the raters are averaged", "all systems."],
    ["- Scored twice"],
]
LIST_LABELS = ["Data origin", "Cleaning", "Review", "Final scores", "Audit"]
_RULED = (72.0, 140.0, 326.0)  # the vertical rules: the table's sides and its column rule


def _justified(page: pymupdf.Page, x: float, y: float, text: str) -> None:
    """A full line of a cell, each word placed on its own, the last ending at x=318."""
    words = text.split()
    widths = [pymupdf.get_text_length(w, "Helvetica", SIZE) for w in words]
    gap = (318 - x - sum(widths)) / (len(words) - 1)
    for word, width in zip(words, widths, strict=True):
        words_at(page, [(x, y, word, SIZE, "Helvetica")])
        x += width + gap


def _list_table(items: list[list[str]], centred: bool, boxed: bool) -> tuple[bytes, list[float]]:
    """A Word table of two ruled columns: a label beside a list item whose lines wrap (full
    lines end at the column's edge; the lines after the first hang under the item's text).
    Each label stands beside the item's first line, or (``centred``) is centred on the
    row's height, a label of two words on two lines. Its sides are ruled (``boxed``) or open
    (as HWP sets a table: only the rule between its columns stands). Returns the page and
    the ys of the rules between its rows, top and bottom included."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y, rules = 100.0, [90.0]
    for item, label in zip(items, LIST_LABELS, strict=True):
        first = y
        for i, text in enumerate(item):
            x = 150.0 if i == 0 else 158.0
            if len(item) > 1 and i == len(item) - 1 or text == "- Scored twice":
                words_at(page, [(x, y, text, SIZE, "Helvetica")])
            else:
                _justified(page, x, y, text)
            y += 11
        parts = label.split() if centred else [label]
        middle = (first + y - 11) / 2
        for k, part in enumerate(parts):
            at = middle + 11 * (k - (len(parts) - 1) / 2) if centred else first + 11 * k
            words_at(page, [(76, at, part, SIZE, "Helvetica")])
        rules.append(y - 3)
        y += 8
    for rule in rules:
        page.draw_line((72, rule), (326, rule), width=0.5)
    for x in _RULED if boxed else _RULED[1:2]:
        page.draw_line((x, rules[0]), (x, rules[-1]), width=0.5)
    return bytes(doc.tobytes()), rules


@pytest.mark.parametrize(
    ("items", "centred", "boxed"),
    [
        (LIST_ITEMS, False, True),
        (LIST_ITEMS, True, True),
        (STRETCHED_ITEMS, False, True),
        (STRETCHED_ITEMS, True, True),
        (LIST_ITEMS, False, False),
        (LIST_ITEMS, True, False),
        (STRETCHED_ITEMS, True, False),
    ],
    ids=[
        "label-first",
        "label-centred",
        "stretched-first",
        "stretched-centred",
        "open-first",
        "open-centred",
        "open-stretched-centred",
    ],
)
def test_wrapped_list_items_of_a_ruled_table_are_one_cell_each(
    items: list[list[str]], centred: bool, boxed: bool
) -> None:
    """A label beside a list item that wraps, its lines hung under the item's text: each item
    is one request with all its lines and its dash (however far a justified line stretches
    the space after it), each label one cell (a label centred on the row's height too), and
    each item's translation is set inside its own ruled cell, whether the table's sides are
    ruled or open."""
    data, rules = _list_table(items, centred, boxed)
    paras, out = translate(data, "ko")
    cells = by_text(paras)
    for item, label in zip(items, LIST_LABELS, strict=True):
        whole = " ".join(item)
        assert whole in cells and cells[whole].kind == ParagraphKind.CELL, [
            (p.kind.value, p.text) for p in paras
        ]
        assert label in cells and cells[label].kind == ParagraphKind.CELL, label
    # Every translated span lies inside the ruled cell its middle is in.
    table = spans(out, (0, rules[0] - 20, 595, rules[-1] + 20))
    assert len([s for s in table if hangul(s["text"])]) >= 10
    for span in table:
        x0, y0, x1, y1 = span["bbox"]
        left = max(x for x in _RULED if x <= (x0 + x1) / 2)
        right = min(x for x in _RULED if x > (x0 + x1) / 2)
        top = max(y for y in rules if y <= (y0 + y1) / 2)
        bottom = min(y for y in rules if y > (y0 + y1) / 2)
        assert left < x0 and x1 < right and top < y0 + 1 and y1 - 1 < bottom, span
    # Each item's words are translated in its own cell.
    for row, item in enumerate(items):
        clip = (141.0, rules[row], 326.0, rules[row + 1])
        inside = "".join(s["text"] for s in spans(out, clip) if hangul(s["text"]))
        for word in pseudo_words(" ".join(item), "ko"):
            assert word in inside.replace(" ", ""), (word, inside)


def test_a_column_of_citations_is_printed_as_it_is() -> None:
    """S2ORC's Table 5: a "Reference" column ("Li et al. (2016)") beside dataset names with
    their citations ("BC5CDR (Li et al., 2016)"): names and references, never sent; the task
    column is."""
    rows = [
        ("Dataset", "Reference", "Task"),
        ("BC5CDR (Li et al., 2016)", "Li et al. (2016)", "named entities"),
        ("SciCite (Cohan et al., 2019)", "Cohan et al. (2019)", "citation intent"),
        ("ChemProt", "Krallinger et al. (2017)", "relation extraction"),
    ]
    texts, out = _sent_of_table(rows, [76.0, 230.0, 350.0])
    assert {"named entities", "citation intent", "relation extraction"} <= texts, texts
    assert not [t for t in texts if "et al." in t], texts
    kept = out.get_text("text", clip=(70, 105, 345, 145))
    assert "Li et al. (2016)" in kept and "Krallinger et al. (2017)" in kept, kept


def _row(words: Sequence[str], gaps: Sequence[float]) -> list[tuple[Any, Any]]:
    """A row of ``words`` in Times at ``SIZE``, each its own MuPDF line, ``gaps`` apart."""
    found, x = [], 60.0
    for k, word in enumerate(words):
        width = TIMES.text_length(word, SIZE)
        box = (x, 100.0, x + width, 100.0 + SIZE)
        found.append((box, Span(word, box, "NimbusRomNo9L-Regu", SIZE)))
        x += width + (gaps[k] if k < len(gaps) else 0.0)
    return found


def test_a_justified_line_with_wider_spaces_after_its_commas_is_no_row_of_cells() -> None:
    """TeX sets the space after a comma or a stop wider than between two bare words; a
    justified line of a reference list stretched that way ("[9] Matos T.,  Vazquez-Gonzalez
    A.,  and  Magana J.  [astro-") is running text, its hyphenated and bracketed words words
    of letters. Origin: corpus2 110 p4, eight entries read as cells, "[astro-" cut from
    "ph/0806.0683]."."""
    words = "[9] Matos T., Vazquez-Gonzalez A., and Magana J. [astro-".split()
    gaps = [4.0, 6.2, 7.2, 6.2, 7.2, 6.2, 6.2, 6.2]
    found = _row(words, gaps)
    item = row_item(found, [(box[0], box[2]) for box, _ in found])
    assert item is not None and item.strong == [], item
    # After a sentence's stop TeX stretches the space about twice as far (116 p2: a whole
    # justified paragraph was cut into cells at such gaps).
    line = "many other types of cosmological observations. Observational data are, in modern"
    found = _row(line.split(), [6.7, 6.5, 6.7, 6.5, 6.6, 13.3, 6.6, 6.5, 7.2, 6.6])
    item = row_item(found, [(box[0], box[2]) for box, _ in found])
    assert item is not None and item.strong == [], item
    # A row of cells keeps its gaps: numbers apart at their columns' places.
    cells = _row(["Baseline", "12.4", "0.81", "Ours", "15.2"], [30.0, 12.0, 40.0, 9.0])
    item = row_item(cells, [(box[0], box[2]) for box, _ in cells])
    assert item is not None and len(item.strong) == 4, item


def test_a_sideways_cell_cut_into_words_keeps_each_word_on_its_baseline() -> None:
    """A cell of a table turned sideways (text running up the page) is cut into its words in
    the table's frame; each word's origin goes along the line from its span's, never across
    it (the cells of a sideways table once got a baseline from a frame coordinate, hundreds
    of points off the page: read as running heads, translated over each other).
    Origin: corpus2 150 read through its /Rotate, a letter's lines taken for table rows."""
    frame = Frame((0.0, -1.0))
    span = Span("alpha beta", (100.0, 300.0, 110.0, 360.0), "Times", 10.0, origin=(108.0, 360.0))
    cut = words([(frame.to_frame(span.bbox), span)], frame)
    assert [s.text for _, s in cut] == ["alpha", "beta"]
    baseline = frame.point(108.0, 360.0)[1]
    for box, part in cut:
        assert part.origin is not None
        assert part.origin[0] == pytest.approx(108.0)  # on the span's baseline
        assert frame.point(*part.origin)[1] == pytest.approx(baseline)
        assert frame.point(*part.origin)[0] == pytest.approx(box[0])  # where the word starts
    ups = [part.origin[1] for _, part in cut if part.origin is not None]
    assert ups[1] < ups[0] <= 360.0  # up the page, as it reads
