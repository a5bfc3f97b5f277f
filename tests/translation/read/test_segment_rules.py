"""translation.read.segment on literal page layouts: each rule of what gets translated, and how."""

from __future__ import annotations

import pymupdf
import pytest

from common.errors import InputError
from tests.helpers.pdfgen.layouts import H, W, block, line, page, span, text_block
from tests.helpers.pdfgen.sheet import Sheet, read
from translation.read.segment import (
    PLACEHOLDER_RE,
    Line,
    Paragraph,
    ParagraphKind,
    Span,
    figure_regions,
    formula_mark,
    mark_key,
    parse_pages,
    protect,
    restore,
    segment,
)


def texts(paragraphs: list[Paragraph]) -> list[str]:
    return [p.text for p in paragraphs]


LEFT = [
    "Left column text begins here and runs on for a",
    "while until the sentence ends at this point.",
]
RIGHT = [
    "Right column text comes after the left one in a",
    "reader's order even though it sits higher.",
]


# --- placeholders ---------------------------------------------------------------------------


def test_math_runs_become_placeholders_and_come_back() -> None:
    chars = "where x+1 is (a, b) big"
    math = {6, 14, 17}  # x, a, b
    classes = "".join(
        "m" if i in math else ("t" if c.isalpha() else "n") for i, c in enumerate(chars)
    )
    text, originals, ranges = protect(chars, classes)
    assert text == "where {v1} is {v2} big"
    assert originals == {"{v1}": "x+1", "{v2}": "(a, b)"}
    assert [chars[a:b] for a, b in ranges] == ["x+1", "(a, b)"]


def test_trailing_punctuation_and_unbalanced_brackets_stay_text() -> None:
    chars = "(see x). Then (y) is"
    classes = "".join("m" if c in "xy" else ("t" if c.isalpha() else "n") for c in chars)
    text, originals, _ = protect(chars, classes)
    assert text == "(see {v1}). Then {v2} is"
    assert originals == {"{v1}": "x", "{v2}": "(y)"}


def test_urls_and_placeholder_lookalikes_are_protected() -> None:
    chars = "code at https://example.org/x and {v1} literally"
    text, originals, _ = protect(chars, "t" * len(chars))
    assert "https" not in text and "{v1}" in text
    assert set(originals.values()) == {"https://example.org/x", "{v1}"}
    para = Paragraph("p0-b1", 0, text, originals, (0, 0, 1, 1), (), 10.0)
    assert restore(text, para) == chars


def para_with(*originals: str) -> Paragraph:
    holders = {f"{{v{i + 1}}}": o for i, o in enumerate(originals)}
    return Paragraph("p0-b1", 0, "x", holders, (0, 0, 1, 1), (), 10.0)


@pytest.mark.parametrize(
    "answer",
    ["A {v1} B {v2}", "A { v1 } B {V2}", "A {{v1}} B {{ v2 }}", "A ｛v1｝ B v2}", "A {v1 B {v2"],
)
def test_restore_understands_mangled_placeholders(answer: str) -> None:
    restored = restore(answer, para_with("α", "β"))
    assert "α" in restored and "β" in restored
    assert not PLACEHOLDER_RE.search(restored)
    assert "{" not in restored and "}" not in restored and "v1" not in restored


def test_restore_policy_for_dropped_unknown_and_repeated_placeholders() -> None:
    para = para_with("α", "β", "γ")
    assert restore("only {v2} here {v9}", para) == "only β here α γ"
    assert restore("{v1}{v1}", para) == "αα β γ"
    assert restore("", para) == "α β γ"


def test_restore_marks_formulas_without_unicode() -> None:
    para = para_with("\ufffd = x", "y")
    restored = restore("see {v1} and {v2}", para)
    assert restored == f"see {formula_mark('{v1}')} and y"
    assert mark_key(restored[4]) == "{v1}"
    assert mark_key("a") is None


# --- page ranges ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "pages"),
    [("1-3,7", [0, 1, 2, 6]), ("2", [1]), (" 3 - 4 ", [2, 3]), ("9-", [8, 9]), ("-2", [0, 1])],
)
def test_parse_pages(spec: str, pages: list[int]) -> None:
    assert parse_pages(spec, 10) == pages


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "empty"),
        ("a-b", "invalid page range"),
        ("0-2", "start at 1"),
        ("5-3", "start is after end"),
        ("11", "out of range: the document has 10 pages"),
        ("1,,2", "invalid page range"),
    ],
)
def test_parse_pages_rejects_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_pages(spec, 10)


# --- layout rules ---------------------------------------------------------------------------


def test_two_columns_read_left_then_right_after_a_spanning_title() -> None:
    layout = page(
        0,
        text_block(RIGHT, 320, 110),
        text_block(LEFT, 60, 130),
        text_block(["A Title That Spans The Whole Page Width Of This Paper Here"], 100, 80, 12),
    )
    got = texts(segment([layout]))
    assert got[0].startswith("A Title")
    assert got[1].startswith("Left column") and got[2].startswith("Right column")


def test_a_spanning_paragraph_indented_keeps_its_last_line_above_two_columns() -> None:
    """Origin: 136_zh p1: a paragraph across the page, its first line indented two characters,
    its last line short and back at the edge, then text in two columns: the last line was read
    as the left column's, the paragraph cut after "这份常见问"."""
    chinese = pymupdf.Font("china-s")
    sheet = Sheet()
    first = (
        "本文的大部分内容都来自于论坛上的讨论。版本号为零点四，一共收录有八十九个问题。这份常见问"
    )
    last = "题集会不断更新，请到网站的主页下载它的最新版本。"
    sheet.put(92, 200, first, 10, chinese)
    sheet.put(72, 215, last, 10, chinese)
    left, right = (
        "左栏的正文在这里继续排版，每行只占半个版面。",
        "右栏的正文也这样排版，与左栏并排。",
    )
    for i in range(8):
        sheet.put(72, 245 + 15 * i, left, 10, chinese)
        sheet.put(320, 245 + 15 * i, right, 10, chinese)
    assert read(sheet.done())[0].text == first + last


def test_hyphenated_line_breaks_are_joined_but_compounds_keep_their_hyphen() -> None:
    layout = page(
        0,
        text_block(
            ["We describe the repre-", "sentation and the BERT-", "based model in detail."], 60, 100
        ),
    )
    (para,) = segment([layout])
    assert para.text == "We describe the representation and the BERT-based model in detail."


def test_running_headers_page_numbers_and_footers_are_not_translated() -> None:
    pages = [
        page(
            i,
            text_block(["Journal of Tests, Volume 3"], 200, 30, 8),
            text_block(LEFT, 60, 200),
            text_block([str(i + 1)], 295, 775, 9),
        )
        for i in range(3)
    ]
    got = segment(pages)
    assert len(got) == 3
    assert all(p.text.startswith("Left column") for p in got)


def test_text_in_figures_numeric_cells_and_display_equations_are_skipped() -> None:
    equation = line(span("L", 200, 300, font="CMMI10"), span(" = ", 205, 300), span("∑α", 220, 300))
    cells = line(span("Accuracy", 60, 400), span("81.2", 200, 400), span("79.9", 260, 400))
    layout = page(
        0,
        text_block(LEFT, 60, 200),
        block(equation),
        block(cells),
        text_block(["Encoder", "Decoder"], 420, 520, 8),
        figures=((400.0, 500.0, 560.0, 600.0),),
    )
    got = segment([layout])
    assert texts(got) == [" ".join(LEFT), "Accuracy"]
    assert got[1].kind == ParagraphKind.CELL


def test_inline_math_fonts_and_scripts_are_protected() -> None:
    row = line(
        span("the value ", 60, 100),
        span("x", 110, 100, font="ABCDEF+CMMI10"),
        span("i", 115, 102.5, size=7),
        span(" grows with ", 119, 100),
        span("θ", 180, 100),
        span(" slowly.", 186, 100),
    )
    (para,) = segment([page(0, block(row))])
    assert para.text == "the value {v1} grows with {v2} slowly."
    assert para.placeholders == {"{v1}": "xi", "{v2}": "θ"}


def test_references_are_skipped_until_the_appendix() -> None:
    layout = page(
        0,
        text_block(LEFT, 60, 100),
        block(line(span("References", 60, 200, 12, "Times-Bold"))),
        text_block(["Author A. 2020. A title of a paper. In Proc."], 60, 225),
        text_block(["Author B. 2021. Another title. In Proc."], 60, 250),
        block(line(span("A Appendix Details", 60, 290, 12, "Times-Bold"))),
        text_block(["The appendix explains the method in more detail."], 60, 315),
    )
    default = segment([layout])
    assert texts(default) == [
        " ".join(LEFT),
        "A Appendix Details",
        "The appendix explains the method in more detail.",
    ]
    everything = segment([layout], include_references=True)
    kinds = {p.text: p.kind for p in everything}
    assert kinds["Author A. 2020. A title of a paper. In Proc."] == ParagraphKind.REFERENCE
    assert kinds["The appendix explains the method in more detail."] != ParagraphKind.REFERENCE


def test_text_across_the_page_direction_is_left_alone() -> None:
    stamp = Line(
        spans=(Span("arXiv:2206.10883v3 [cs.CL]", (10, 200, 30, 560), "Times-Roman", 20.0),),
        bbox=(10, 200, 30, 560),
        direction=(0.0, -1.0),
    )
    got = segment([page(0, text_block(LEFT, 60, 100), block(stamp))])
    assert texts(got) == [" ".join(LEFT)]


def test_a_page_of_vertical_text_is_read_in_its_own_direction() -> None:
    def up(text: str, x: float) -> Line:
        length = 5.0 * len(text)
        return Line(
            spans=(
                Span(text, (x - 8, 600 - length, x + 2, 600), "Times-Roman", 10.0, origin=(x, 600)),
            ),
            bbox=(x - 8, 600 - length, x + 2, 600),
            direction=(0.0, -1.0),
        )

    layout = page(0, block(up(LEFT[0], 100), up(LEFT[1], 112)))
    (para,) = segment([layout])
    assert para.text == " ".join(LEFT)
    assert para.direction == (0.0, -1.0)
    x0, y0, x1, y1 = para.bbox
    assert x1 - x0 < y1 - y0  # a tall, narrow box: the text runs up the page


def test_only_wanted_pages_are_returned_with_stable_ids() -> None:
    pages = [
        page(i, text_block([f"{LEFT[0]} {'xyz'[i]}", LEFT[1]], 60, 100), text_block(RIGHT, 60, 200))
        for i in range(3)
    ]
    got = segment(pages, wanted={1})
    assert [p.id for p in got] == ["p1-b1", "p1-b2"]
    assert segment(pages)[2].id == "p1-b1"


def test_redaction_rects_stay_inside_their_own_line() -> None:
    layout = page(0, text_block(LEFT, 60, 100))
    (para,) = segment([layout])
    for (_, y0, _, y1), baseline in zip(para.rects, (100, 112), strict=True):
        assert baseline - 10 < y0 < y1 < baseline  # within the glyphs, above the baseline


# --- figures --------------------------------------------------------------------------------


def test_figure_regions_cluster_drawings_but_not_table_rules() -> None:
    Box = tuple[float, float, float, float]
    shapes: list[Box] = [(100 + 17 * i, 100, 115 + 17 * i, 115) for i in range(5)]
    rules: list[Box] = [(60, 400, 300, 400.5), (60, 420, 300, 420.5), (60, 480, 300, 480.5)]
    background: list[Box] = [(0, 0, W, H)]
    image: list[Box] = [(300, 600, 400, 700)]
    regions = figure_regions(shapes + rules + background, image, W, H)
    assert (100, 100, 183, 115) in regions
    assert (300, 600, 400, 700) in regions
    assert len(regions) == 2


# --- formulas copied as glyphs, display equations, band sentences, highlights ---------------


def test_math_with_a_garbage_text_layer_is_one_formula_copied_as_glyphs() -> None:
    """MathTime fonts read "x_k = [c_k; w_k]" as "xk D ŒckI wk\\x8d"; the bold vector names
    are set in the text font. The whole formula is one placeholder whose glyphs are copied."""
    row = line(
        span("the token embedding", 60, 100),
        span(" x", 155, 100, font="NimbusRomNo9L-Medi"),
        span("k", 165, 102, size=7, font="MT2MIS"),
        span(" D", 169, 100, font="MT2SYT"),
        span(" Œ", 180, 100, font="MT2MIT"),
        span("c", 190, 100, font="NimbusRomNo9L-Medi"),
        span("k", 195, 102, size=7, font="MT2MIS"),
        span("I", 199, 100, font="MT2SYT"),
        span(" w", 204, 100, font="NimbusRomNo9L-Medi"),
        span("k", 214, 102, size=7, font="MT2MIS"),
        span("\x8d", 218, 100, font="MT2MIT"),
        span(" for each token in the input.", 223, 100),
    )
    (para,) = segment([page(0, block(row))])
    assert para.text == "the token embedding {v1} for each token in the input."
    assert para.placeholders["{v1}"] == "xk D ŒckI wk\x8d"
    assert para.glyph_formulas == {"{v1}"}
    (rect,) = para.formula_boxes["{v1}"]
    assert rect[0] <= 159 and rect[2] >= 222  # from the bold "x" to the closing bracket
    (descent,) = para.formula_descents["{v1}"]
    assert descent > 0.25 * 10  # the subscripts reach below the usual descent
    restored = restore("x {v1} y", para)
    assert restored == f"x {formula_mark('{v1}')} y"
    assert "Œ" not in restored


def test_unicode_math_in_a_text_font_is_copied_as_its_glyphs() -> None:
    """Issue 36: math in the text face (a Greek letter, an arrow) is math all the same; its
    extracted text is not retyped but drawn as a copy of the page's glyph.
    Origin: corpus 110 p1, "the scalar modes (ψ and φ)" retyped in the translation's face."""
    row = line(span("the angle ", 60, 100), span("θ", 110, 100), span(" is small.", 116, 100))
    (para,) = segment([page(0, block(row))])
    assert para.glyph_formulas == {"{v1}"}
    assert restore(para.text, para) == f"the angle {formula_mark('{v1}')} is small."


def _display_row(label: str, x: float, base: float) -> Line:
    x += 5 * len(label) - 45  # the math right after the label
    spans = [span(label, x + 45 - 5 * len(label), base), span(" (", x + 50, base, font="CMR10")]
    spans.append(span("W", x + 58, base, font="CMMI10"))
    spans.append(span(") = {", x + 64, base, font="CMR10"))
    for i, name in enumerate(("w", "w", "w")):
        spans.append(span(name, x + 90 + 20 * i, base, font="CMMI10"))
        spans.append(span("v", x + 96 + 20 * i, base + 1.5, size=7, font="CMMI8"))
        spans.append(span(",", x + 101 + 20 * i, base, font="CMMI10"))
    spans.append(span("}", x + 150, base, font="CMSY10"))
    return line(*spans)


def test_display_equation_rows_with_text_labels_stay_untouched() -> None:
    intro = text_block(
        [
            "The input of the encoder is the sum of the embeddings of the sequence in",
            "the order given by the tokens as follows:",
        ],
        60,
        100,
    )
    eq = block(_display_row("token ids", 80, 130), _display_row("row ids", 95, 145))
    after = text_block(["where the ids come from the table and the text alike."], 60, 170)
    got = texts(segment([page(0, intro, eq, after)]))
    assert len(got) == 2
    assert not any("ids" in t and "{v" in t and "where" not in t for t in got)
    assert got[1].startswith("where the ids")


def test_small_print_sentence_cut_by_the_footer_band_is_dropped_whole() -> None:
    body = text_block(LEFT + RIGHT + LEFT, 60, 100)
    foot = text_block(
        [
            "Content from this work may be used under the terms of the licence. Any further",
            "distribution of this work must keep the attribution to the author(s).",
        ],
        60,
        740,
        size=8.0,
    )
    got = " ".join(texts(segment([page(0, body, foot)])))
    assert "Left column" in got
    assert "Content" not in got and "distribution" not in got


def test_highlighted_lines_are_not_figures() -> None:
    lines = [(60.0, 100.0 + 12 * i, 300.0, 110.0 + 12 * i) for i in range(4)]
    marks = [
        (60.0 + 30 * k, 100.5 + 12 * i, 90.0 + 30 * k, 110.0 + 12 * i)
        for i in (1, 2)
        for k in range(6)
    ]
    assert figure_regions(marks, [], W, H) != []  # without the text: a cluster of fills
    assert figure_regions(marks, [], W, H, lines) == []
    shapes = [(100 + 17 * i, 300, 115 + 17 * i, 330) for i in range(5)]  # taller than a line
    assert figure_regions(shapes, [], W, H, lines) == [(100, 300, 183, 330)]


def test_ragged_right_quotes_are_paragraphs_of_their_own() -> None:
    """Quotes set ragged-right one after another (03 p7): a line ending a sentence, the next
    line's first word short enough to have fitted after it within the measure that next line
    shows (wider than the lines of the quote before), starts a new paragraph."""
    rows = [
        "“Reading the whole source document was very helpful to understand the basic plot",
        "of the story and its people, and all the hints were a good place to start from, at the",
        "beginning, yet for the rest I needed the story itself, every single page of it read.",
        "“Yes, whatever the hints said, I looked up the names with a search in the document"
        " itself, always.",
    ]
    paragraphs = segment([page(0, text_block(rows, 72, 100))])
    assert texts(paragraphs) == [" ".join(rows[:3]), rows[3]], texts(paragraphs)


def test_a_quotations_credit_ends_it() -> None:
    """2302.07302 p13: a participant's quote set as an indented block, its credit after the
    closing mark ("” – P4"), then the authors' next paragraph (its first line indented less
    than the quote): three paragraphs were one request."""
    quote = [
        "“I would have ten tabs opened about faceted search. Seeing these",
        "numbers popping up, I would switch their positions. So triaging,",
        "ranking, which I should look at was really helpful.” – P4",
    ]
    body = [
        "In addition to prioritizing papers to read, participants also pointed to how the tool",
        "can support skimming papers because the highlights were often concentrated in sections.",
    ]
    paragraphs = segment(
        [page(0, text_block(quote, 96, 100), text_block(body[:1], 82, 136),
              text_block(body[1:], 72, 148))]
    )  # fmt: skip
    assert texts(paragraphs) == [" ".join(quote), " ".join(body)], texts(paragraphs)
