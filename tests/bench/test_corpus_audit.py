"""The corpus audit's figures (``bench.corpus``), each on a constructed page that has its defect
(non-zero) and on the same page without it (zero).

The requests side is given a page as the pipeline reads it (``read_layout``) and paragraphs
made by hand, one reading with the defect and one without: the audit is the instrument under
test, so the defect is put in the reading, whatever the pipeline does with such a page today.
The pages side is given a source page and a "translated" page made by hand, one with the defect
drawn in and one set correctly.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pymupdf
import pytest

from bench.corpus import (
    BASELINE,
    DOCS_PAGE,
    changes,
    docs_block,
    docs_table,
    paper_language,
    table,
)
from bench.corpus_pages import audit_pages, page_glyphs
from bench.corpus_requests import Reading, audit_requests, is_math_glyph
from tests.conftest import CORPUS_DIR
from tests.helpers.pdfgen import math_font
from tests.helpers.pdfgen.sheet import Placed, words_at
from tests.helpers.pdfgen.type3 import draw_cmex_glyph
from translation.read.document import open_document
from translation.read.extraction import read_document, read_layout
from translation.read.layout import PageLayout, Rect
from translation.read.pages.page_space import TEXT_FLAGS
from translation.read.paragraph import Paragraph, ParagraphKind
from translation.read.request_audit import caption_words, glued_caption
from translation.render import page_check
from translation.render.glyphs import Areas, remove_glyphs

WIDTH, HEIGHT = 595.0, 842.0
SIZE = 10.0
STEP = 13.0
PROSE = (
    "The committee reviewed every proposal that arrived before the deadline in spring",
    "and asked the authors to describe their methods in more detail than before so",
    "that readers could repeat each experiment without guessing at the settings used.",
)


def _prose(n: int) -> list[str]:
    return [PROSE[i % len(PROSE)] for i in range(n)]


def _page(lines: Sequence[Placed]) -> bytes:
    """A one-page PDF: each line is (x, baseline, text, size, font)."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    for line in lines:
        if line[4] == "china-s":
            page.insert_font(fontname="china-s")
        if line[4] == "math":
            page.insert_font(fontname="math", fontbuffer=math_font().buffer)
        words_at(page, [line])
    data: bytes = doc.tobytes()
    doc.close()
    return data


def _layout(data: bytes) -> list[PageLayout]:
    with pymupdf.open(stream=data) as doc:
        return [read_layout(doc[0])]


def _para(ident: str, text: str, rect: Rect, kind: ParagraphKind = ParagraphKind.BODY) -> Paragraph:
    return Paragraph(
        id=ident, page=0, text=text, placeholders={}, bbox=rect, rects=(rect,), font_size=SIZE,
        kind=kind, column=(rect[0], rect[2]),
    )  # fmt: skip


def _request_figures(
    layouts: Sequence[PageLayout], paragraphs: Sequence[Paragraph], language: str = "en"
) -> Counter[str]:
    records, kept = audit_requests(Reading.of(layouts, paragraphs), language, 400)
    found: Counter[str] = Counter()
    for record in records:
        found.update(record.marks)
    found["unsent"] = sum(not line.reason for line in kept)
    return found


def _body_page(x: float = 72.0, lines: int = 14, top: float = 100.0) -> list[Placed]:
    return [(x, top + i * STEP, text, SIZE, "tiro") for i, text in enumerate(_prose(lines))]


def _band(top: float, lines: int, x0: float = 0.0, x1: float = WIDTH) -> Rect:
    return (x0, top - SIZE - 1, x1, top + (lines - 1) * STEP + 4)


# --- requests ---------------------------------------------------------------------------------


def test_spliced_counts_line_numbers_read_into_a_paragraph() -> None:
    """A line-numbered manuscript: "211 The committee ... 212 and asked ..." (corpus2 130)."""
    numbers: list[Placed] = [(40.0, 100 + i * STEP, str(211 + i), 7.0, "tiro") for i in range(14)]
    layouts = _layout(_page([*numbers, *_body_page()]))
    body = " ".join(_prose(14))
    numbered = " ".join(f"{211 + i} {t}" for i, t in enumerate(_prose(14)))
    spliced = _para("p0-b0", numbered, _band(100, 14))
    clean = _para("p0-b0", body, _band(100, 14, x0=70))
    assert _request_figures(layouts, [spliced])["spliced"] == 1
    assert _request_figures(layouts, [clean])["spliced"] == 0


def test_spliced_counts_a_margin_label_glued_to_its_description() -> None:
    """A command's name set in the left margin beside its description (corpus2 131, 133)."""
    lines: list[Placed] = [
        *_body_page(x=150.0, lines=16),
        (40.0, 100.0, "setlength", SIZE, "cour"),
    ]
    layouts = _layout(_page(lines))
    body = " ".join(_prose(16))
    glued = _para("p0-b0", "setlength " + body, _band(100, 16))
    apart = [
        _para("p0-b0", body, _band(100, 16, x0=148)),
        _para("p0-b1", "setlength", (38, 90, 100, 104), ParagraphKind.CELL),
    ]
    assert _request_figures(layouts, [glued])["spliced"] == 1
    assert _request_figures(layouts, apart)["spliced"] == 0


def test_a_margin_caption_whose_lines_reach_into_the_frame_is_no_splice() -> None:
    """Origin: corpus2 114 p6 (Emerald: "Figure 2." | "Impact of training and" | "family
    involvement on" | "FWC" set in the outer margin column, its longest line's end inside the
    body's frame) and 148 p1 (a cover's heading "Implement roles and separation" | "of
    duties" left of the frame): the lines wholly outside were counted margin material, the
    long line's end body text, so one block was a splice. A line that starts where a line of
    the request reaching into the frame starts is one block with it; a side note beside the
    body, starting elsewhere, read into a body paragraph still is a splice."""
    caption = ("Figure 2.", "Impact of training and family", "family involvement on", "FWC")
    lines: list[Placed] = [
        *_body_page(x=150.0, lines=16),
        *((40.0, 400 + i * STEP, t, SIZE, "tiro") for i, t in enumerate(caption)),
    ]
    layouts = _layout(_page(lines))
    block = _para("p0-b1", " ".join(caption), (38, 390, 200, 450), ParagraphKind.CAPTION)
    body = _para("p0-b0", " ".join(_prose(16)), _band(100, 16, x0=148))
    assert _request_figures(layouts, [body, block])["spliced"] == 0
    note: list[Placed] = [(40.0, 100 + i * STEP, t, SIZE, "tiro") for i, t in enumerate(caption)]
    layouts = _layout(_page([*_body_page(x=150.0, lines=16), *note[::2]]))
    glued = _para("p0-b0", " ".join(_prose(16)), _band(100, 16, x0=38))
    assert _request_figures(layouts, [glued])["spliced"] == 1


def test_a_section_number_at_the_edge_of_lines_that_open_in_latin_is_no_margin() -> None:
    """Origin: 142_ja (LuaTeX-ja sets Japanese at 0.92 of the Latin size): the body size is
    the Han's, and most lines open or end with a Latin word at its own size; the body's frame
    runs from each line's first glyph, so a heading's number at that edge ("1 本文的目的") is
    in the body, not a margin label glued to the title."""
    han = "本文介绍文档类的用法以及各种选项的设置方法和注意事项"
    lines: list[Placed] = []
    for i in range(14):
        y = 130 + i * STEP
        lines.append((72.0, y, "BXJS", SIZE, "tiro"))
        lines.append((72.0 + 26, y, han, 9.2, "china-s"))
        lines.append((72.0 + 26 + 9.2 * len(han) + 3, y, "LaTeX", SIZE, "tiro"))
    lines += [(72.0, 100.0, "1", 12.0, "tibo"), (96.0, 100.0, "本文的目的", 12.0, "china-s")]
    layouts = _layout(_page(lines))
    heading = _para("p0-b0", "1 本文的目的", (70, 88, 200, 104), ParagraphKind.HEADING)
    assert _request_figures(layouts, [heading], "zh")["spliced"] == 0


def test_spliced_counts_a_running_head_glued_to_the_first_paragraph() -> None:
    """A running head read into the page's first paragraph (on three pages it recurs)."""
    doc = pymupdf.open()
    for _ in range(3):
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        words_at(
            page, [(72, 40, "Journal of Careful Reviews 12", 8, "tiro"), *_body_page(top=150.0)]
        )
    layouts = [read_layout(page) for page in doc]
    body = " ".join(_prose(14))
    glued = [
        dataclasses.replace(
            _para(f"p{n}-b0", "Journal of Careful Reviews 12 " + body, (0, 30, WIDTH, 340)),
            page=n,
        )
        for n in range(3)
    ]
    apart = [dataclasses.replace(_para(f"p{n}-b0", body, _band(150, 14)), page=n) for n in range(3)]
    assert _request_figures(layouts, glued)["spliced"] == 3
    assert _request_figures(layouts, apart)["spliced"] == 0


@pytest.mark.parametrize("number", ["{n}", "2.{n}", "Table {n}"])
def test_a_heading_number_beside_its_title_at_the_pages_top_is_no_running_head(
    number: str,
) -> None:
    """Origin: 09_ko p2, p4 and 136_zh p11: a section opens each page, its number set apart
    from its title at the same height ("2" | "코로나-19 관련 보험 현황"); the number recurs like
    a page number, but beside the title it is the heading's. 134 p3-p12: a subsection's number
    ("3.2" | "Additional macros") alike; 137 p5, p9: a caption's label over a table at the
    page's top ("表1" | "fduthesis 的主要组成部分") too. A number alone above the text, read
    into the first paragraph, is still spliced."""
    doc = pymupdf.open()
    for n in range(3):
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        head: list[Placed] = [
            (72, 70, label := number.format(n=n + 1), 12, "tibo"),
            (
                84 + pymupdf.get_text_length(label, "tibo", 12),
                70,
                f"Results of {'ABC'[n]}",
                12,
                "tibo",
            ),
            (300, 40, str(n + 7), 9, "tiro"),
        ]
        words_at(page, [*head, *_body_page(top=150.0)])
    layouts = [read_layout(page) for page in doc]
    body = " ".join(_prose(14))
    headings = [
        dataclasses.replace(_para(f"p{n}-b0", f"Results of {'ABC'[n]}", (60, 55, 400, 75)), page=n)
        for n in range(3)
    ]
    bodies = [
        dataclasses.replace(_para(f"p{n}-b1", body, _band(150, 14)), page=n) for n in range(3)
    ]
    assert _request_figures(layouts, [*headings, *bodies])["spliced"] == 0
    glued = [
        dataclasses.replace(_para(f"p{n}-b1", f"{n + 7} {body}", (0, 30, WIDTH, 340)), page=n)
        for n in range(3)
    ]
    assert _request_figures(layouts, [*headings, *glued])["spliced"] == 3


def test_glued_counts_a_caption_inside_a_body_request() -> None:
    layouts = _layout(_page(_body_page(lines=3)))
    body = " ".join(_prose(3))
    glued = _para(
        "p0-b0", body + " Table 2: Results of every run on the held-out set.", _band(100, 3)
    )
    cited = _para("p0-b0", body + " The results are shown in Table 2. They hold.", _band(100, 3))
    assert _request_figures(layouts, [glued])["glued"] == 1
    assert _request_figures(layouts, [cited])["glued"] == 0


def test_a_figure_named_in_prose_is_no_glued_caption_where_captions_read_otherwise() -> None:
    """119: its captions read "FIG. 1 – ..."; "... sont données Figure 1. Considérons ..." is
    the French prose naming the figure (no "in" before it), not a caption glued to it."""
    french = "dont les dimensions sont données Figure 1. Considérons que les requêtes sont loggées."
    assert glued_caption(french)  # without the document's own captions, it reads as one
    assert not glued_caption(french, caption_words(["FIG. 1 – Les dimensions"]))
    own = caption_words(["Figure 1. The dimensions of our example."])
    assert glued_caption(french, own)  # written as the captions are: a caption glued
    # A table's label inside a text is still compared with nothing but the rule.
    assert glued_caption("We trained every model. Table 2: Results of each run.", own)


def test_code_sent_counts_a_listing_in_a_monospaced_face_known_by_no_name() -> None:
    """Program output set in a monospaced face: told by its glyphs' advances, not its name (the
    face is renamed to one no list of monospaced names holds)."""
    output = [
        "Residuals: Min 1Q Median 3Q Max",
        "-3.2159 -0.5417 0.1093 0.6624 2.9480",
        "Multiple R-squared: 0.7412, Adjusted R-squared: 0.7377",
    ]
    lines: list[Placed] = [(72.0, 100 + i * STEP, t, SIZE, "cour") for i, t in enumerate(output)]
    lines += _body_page(top=200.0)
    (layout,) = _layout(_page(lines))
    renamed = _renamed_face(layout, "Courier", "Xq7Face")
    listing = _para("p0-b0", " ".join(output), _band(100, 3))
    body = _para("p0-b1", " ".join(_prose(14)), _band(200, 14))
    assert _request_figures([renamed], [listing, body])["code_sent"] == 1
    kept = _request_figures([renamed], [body])
    assert kept["code_sent"] == 0 and kept["unsent"] == 0  # kept as code: a stated reason


def test_code_kept_as_a_placeholder_inside_a_sentence_is_no_code_sent() -> None:
    """A Chinese sentence naming commands set in a monospaced face: the commands go as
    placeholders, never translated, so the request sends prose, not code."""
    commands = "\\setCJKmainfont \\setmathfont \\listoffigures"
    lines: list[Placed] = [
        (72.0, 100.0, "用", SIZE, "china-s"),
        (84.0, 100.0, commands, SIZE, "cour"),
        (84.0 + 0.6 * SIZE * len(commands), 100.0, "生成目录。", SIZE, "china-s"),
    ]
    (layout,) = _layout(_page([*lines, *_body_page(top=200.0)]))
    renamed = _renamed_face(layout, "Courier", "Xq7Face")
    raw = _para("p0-b0", f"用{commands}生成目录。", _band(100, 1))
    assert _request_figures([renamed], [raw], "zh")["code_sent"] == 1
    kept = dataclasses.replace(
        raw,
        text="用{v1}生成目录。",
        placeholders={"{v1}": commands},
        code_formulas=frozenset({"{v1}"}),
    )
    assert _request_figures([renamed], [kept], "zh")["code_sent"] == 0


def _renamed_face(layout: PageLayout, old: str, new: str) -> PageLayout:
    blocks = tuple(
        dataclasses.replace(
            block,
            lines=tuple(
                dataclasses.replace(
                    line,
                    spans=tuple(
                        dataclasses.replace(s, font=new) if old in s.font else s for s in line.spans
                    ),
                )
                for line in block.lines
            ),
        )
        for block in layout.blocks
    )
    assert any(new == s.font for b in blocks for ln in b.lines for s in ln.spans)
    return dataclasses.replace(layout, blocks=blocks)


def test_unsent_counts_cjk_prose_with_two_tex_commands_left_out() -> None:
    """Chinese prose that mentions two TeX commands is prose: left out, it is unsent."""
    line = "我们在导言区使用 \\usepackage 和 \\documentclass 命令加载宏包并设置文档的版式。"
    layouts = _layout(_page([(72.0, 100.0, line, SIZE, "china-s")]))
    sent = _para("p0-b0", line, _band(100, 1))
    assert _request_figures(layouts, [], "zh")["unsent"] == 1
    found = _request_figures(layouts, [sent], "zh")
    assert found["unsent"] == 0 and found["code_sent"] == 0


def test_names_and_small_print_at_the_page_edge_are_kept_for_a_stated_reason() -> None:
    """A list of people's names and a venue line in small print at the foot are kept with a
    reason (names, furniture); a body-size line of prose at the foot is still unsent."""
    names = "Waleed Ammar, Dirk Groeneveld, Chandra Bhagavatula, Iz Beltagy, Miles Crawford,"
    venue = "Proceedings of the Annual Meeting of the Association for Computational Linguistics"
    lost = "The last line of the column was left out of every request by mistake here."
    lines: list[Placed] = [
        (72.0, 70.0, names, SIZE, "tiro"),
        *_body_page(top=120.0),
        (72.0, 790.0, lost, SIZE, "tiro"),
        (72.0, 825.0, venue, 7.0, "tiro"),
    ]
    layouts = _layout(_page(lines))
    body = _para("p0-b0", " ".join(_prose(14)), _band(120, 14))
    _, kept = audit_requests(Reading.of(layouts, [body]), "en", 400)
    reasons = {line.text: line.reason for line in kept}
    assert reasons == {names: "names", venue: "furniture", lost: ""}


def test_a_command_line_with_cjk_meta_variables_left_out_is_code() -> None:
    """Origin: 142_ja p8 ("pandoc ⟨入力ファイル名⟩ -o ⟨出力ファイル名⟩.pdf -t latex-smart"): the
    names of a command line's meta-variables, in a CJK face, count for neither code nor prose,
    so the line left out is kept as code, not unsent prose."""
    fonts = {"cour": pymupdf.Font("cour"), "math": math_font(), "china-s": pymupdf.Font("china-s")}
    runs = [
        ("pandoc ", "cour"), ("⟨", "math"), ("输入文件的名称", "china-s"), ("⟩", "math"),
        (" -o ", "cour"), ("⟨", "math"), ("输出文件的名称", "china-s"), ("⟩", "math"),
        (".pdf -t markdown", "cour"),
    ]  # fmt: skip
    lines: list[Placed] = []
    x = 72.0
    for text, font in runs:
        lines.append((x, 100.0, text, SIZE, font))
        x += fonts[font].text_length(text, SIZE)
    (layout,) = _layout(_page([*lines, *_body_page(top=200.0)]))
    renamed = _renamed_face(layout, "Courier", "Xq7Face")
    body = _para("p0-b1", " ".join(_prose(14)), _band(200, 14))
    _, kept = audit_requests(Reading.of([renamed], [body]), "zh", 400)
    assert [(k.reason, k.text[:6]) for k in kept] == [("code", "pandoc")]


def test_a_footnote_mark_after_the_stop_ends_no_sentence_inside() -> None:
    """Origin: 142_ja p3 ("...文書の例を示す。*{v1}": LuaTeX-ja's "*1" mark, its number a
    placeholder): the sentence ends at its stop; without one it is still cut."""
    layouts = _layout(_page(_body_page(lines=2)))
    marked = _para("p0-b0", PROSE[0] + " and all of it was read.*{v1}", _band(100, 2))
    open_ = _para("p0-b0", PROSE[0] + " and all of it was read *{v1}", _band(100, 2))
    assert _request_figures(layouts, [marked])["cut"] == 0
    assert _request_figures(layouts, [open_])["cut"] == 1


def test_a_list_item_sent_alone_as_a_phrase_is_no_fragment() -> None:
    """Origin: 134 p3 ("All articles have the following elements:" then the bullets
    "abstract and resumé", "headings and subheadings", "text"): each item its own request is
    the whole item; an item that stops on "and" or a comma lost its rest."""
    layouts = _layout(_page(_body_page(lines=2)))
    item = ParagraphKind.LIST_ITEM
    whole = _para("p0-b0", "headings and subheadings", _band(100, 1), item)
    cut = _para("p0-b0", "if the mark is a separator and", _band(100, 1), item)
    comma = _para("p0-b0", "abstract and resumé,", _band(100, 1), item)
    assert _request_figures(layouts, [whole])["frag"] == 0
    assert _request_figures(layouts, [cut])["frag"] == 1
    assert _request_figures(layouts, [comma])["frag"] == 1
    body = _para("p0-b0", "headings and subheadings", _band(100, 1))
    assert _request_figures(layouts, [body])["frag"] == 1


def test_a_list_item_whose_last_line_ends_short_ends_though_on_no_stop() -> None:
    """Origin: 144_ko, 142_ja p8: bullets that are phrases of eight words or more ("...40만원
    이상 시 제공", "和文の基底フォントサイズは 11 Q") end where their last line ends short of
    the column's edge; an item whose last line runs to the edge, or that stops on a comma,
    goes on elsewhere (137_zh p4: "...（Linux 或 macOS 系统），所" | "有需要的文件 ...")."""
    layouts = _layout(_page(_body_page(lines=2)))
    item = ParagraphKind.LIST_ITEM
    text = "The committee reviews every proposal that arrives before the spring deadline"
    short = dataclasses.replace(_para("p0-b0", text, (72, 89, 400, 104), item), column=(72, 520))
    full = dataclasses.replace(short, rects=((72, 89, 519, 104),))
    comma = dataclasses.replace(short, text=text + ",")
    assert _request_figures(layouts, [short])["cut"] == 0
    assert _request_figures(layouts, [full])["cut"] == 1
    assert _request_figures(layouts, [comma])["cut"] == 1


def test_a_list_item_the_next_item_follows_ends_though_its_last_line_runs_full() -> None:
    """Origin: 144_ko p1 ("• 빅포인트의 유효기간은 5년으로, 유효기간 만료 시 월 단위로 자동
    소멸", one line run to the column's edge, then "• 보너스클럽 이용 시 ..."): the item
    ends where the list's next item starts on the line under it, at its left edge; with no
    item under it (a body paragraph, an item farther down or set elsewhere) a full last line
    still goes on elsewhere."""
    layouts = _layout(_page(_body_page(lines=2)))
    item = ParagraphKind.LIST_ITEM
    text = "The committee reviews every proposal that arrives before the spring deadline"
    full = dataclasses.replace(_para("p0-b0", text, (72, 89, 519, 104), item), column=(72, 520))
    below = dataclasses.replace(full, id="p0-b1", rects=((72, 104, 300, 117),), text="Done.")
    assert _request_figures(layouts, [full, below])["cut"] == 0
    body = dataclasses.replace(below, kind=ParagraphKind.BODY)
    far = dataclasses.replace(below, rects=((72, 160, 300, 173),))
    aside = dataclasses.replace(below, rects=((300, 104, 519, 117),))
    for after in (body, far, aside):
        assert _request_figures(layouts, [full, after])["cut"] == 1
    high = dataclasses.replace(full, rects=((72.0, 90.0, 500.0, 115.0),), bbox=(72, 90, 500, 115))
    assert _request_figures(_layout(_page(_body_page(lines=2))), [high])["cut"] == 1


def test_a_sentence_a_display_takes_over_ends_with_its_words() -> None:
    """Origin: 108 p4, 122 p2, 122 p5 ("... the error of any solution is at most" [equation];
    "... the R code is" [listing]): the sentence's last words are the display's, which no
    paragraph holds and which stays on the page, so the request ends with all the words it has.
    The same text with prose of another paragraph below it, or nothing, ends inside."""
    prose = _body_page(lines=2)
    text = PROSE[0] + " and the error of any solution is at most"
    para = _para("p0-b0", text, _band(100, 2))
    equation: Placed = (150.0, 100 + 2.6 * STEP, "‖Θ − Θ⋆‖ ≤ λ √(r d) + ε", SIZE, "math")
    assert _request_figures(_layout(_page([*prose, equation])), [para])["cut"] == 0
    listing = [
        (90.0, 100 + (2.6 + i) * STEP, code, SIZE, "cour")
        for i, code in enumerate(("meat <- function(x, ...) {", "  crossprod(estfun(x))", "}"))
    ]
    assert _request_figures(_layout(_page([*prose, *listing])), [para])["cut"] == 0
    # An equation set in the text's own italics, as Word and RevTeX set one (110 p3: "... so
    # we can use" [mBnB = ΩBρc. (8)]), few of its glyphs math by face; a line of words is no
    # display even with a relation in it.
    italic: Placed = (150.0, 100 + 2.6 * STEP, "mB nB = xB yc.", SIZE, "tiit")
    assert _request_figures(_layout(_page([*prose, italic])), [para])["cut"] == 0
    words = "where the total weight = the sum of all"
    wordy: Placed = (72.0, 100 + 2.6 * STEP, words, SIZE, "tiro")
    assert _request_figures(_layout(_page([*prose, wordy])), [para])["cut"] == 1
    assert _request_figures(_layout(_page(prose)), [para])["cut"] == 1
    next_text = "Each proposal was then read by two members of the committee."
    after: Placed = (72.0, 100 + 2.6 * STEP, next_text, SIZE, "tiro")
    held = _para("p0-b1", next_text, _band(100 + 2.6 * STEP, 1))
    found = _request_figures(_layout(_page([*prose, after, equation])), [para, held])
    assert found["cut"] == 1  # a paragraph below: the sentence stops short of the display


def test_a_short_lead_in_a_display_takes_over_is_no_fragment() -> None:
    """Origin: 130 p3, p9 ("Define multiplication for the elements of X by" [equation]; "If
    x then y for some z so that" [equation]): a sentence of a few words whose end is the
    display's is whole, as a longer one is no cut; with no display below it is a fragment,
    and so is a piece that starts inside a sentence."""
    lead = "Define multiplication for the elements by"
    para = _para("p0-b0", lead, _band(100, 1))
    line: Placed = (72.0, 100.0, lead, SIZE, "tiro")
    equation: Placed = (150.0, 100 + 1.6 * STEP, "‖Θ − Θ⋆‖ ≤ λ √(r d) + ε", SIZE, "math")
    assert _request_figures(_layout(_page([line, equation])), [para])["frag"] == 0
    assert _request_figures(_layout(_page([line])), [para])["frag"] == 1
    inside = "and then the elements by"
    piece = _para("p0-b0", inside, _band(100, 1))
    low: Placed = (72.0, 100.0, inside, SIZE, "tiro")
    assert _request_figures(_layout(_page([low, equation])), [piece])["frag"] == 1


def test_a_sentence_a_display_broke_off_goes_on_with_its_words() -> None:
    """Origin: 128 p6, 129 p4, 130 p6 ([listing] "which by default tries to take ..."; [equation]
    "where n is the sample size."): the words after a display take up the sentence the
    display broke off; the source starts them inside it, the pipeline cut nothing. With
    prose above instead, or nothing, they start inside a sentence, and a short piece is a
    fragment, as one that ends inside a sentence is with a display above."""
    tail = "where n is the number of the samples that were drawn."
    para = _para("p0-b0", tail, _band(100 + 1.6 * STEP, 1))
    equation: Placed = (150.0, 100.0, "‖Θ − Θ⋆‖ ≤ λ √(r d) + ε", SIZE, "math")
    line: Placed = (72.0, 100 + 1.6 * STEP, tail, SIZE, "tiro")
    found = _request_figures(_layout(_page([equation, line])), [para])
    assert found["cut"] == 0 and found["frag"] == 0
    assert _request_figures(_layout(_page([line])), [para])["cut"] == 1
    piece = _para("p0-b0", "where n is", _band(100 + 1.6 * STEP, 1))
    short: Placed = (72.0, 100 + 1.6 * STEP, "where n is", SIZE, "tiro")
    assert _request_figures(_layout(_page([short])), [piece])["frag"] == 1
    above = "Each proposal was then read by two members of the committee"
    held = _para("p0-b1", above, _band(100, 1))
    prose: Placed = (72.0, 100.0, above, SIZE, "tiro")
    assert _request_figures(_layout(_page([prose, line])), [held, para])["cut"] >= 1


def _note(ident: str, text: str, label: str, top: float, scale: float = 0.75) -> Paragraph:
    return dataclasses.replace(
        _para(ident, text, _band(top, 1), ParagraphKind.FOOTNOTE),
        label=label, label_scale=scale, label_rise=0.35 if scale < 1 else 0.0,
    )  # fmt: skip


def test_a_footnote_opened_by_its_mark_and_ended_by_the_next_is_whole() -> None:
    """Origin: 126 p2, p6, p7 ("¹ because there's an additional default argument ...";
    "⁵ routines can make use of ... BLAS in certain sparse matrix computations"), 118 p1
    ("† an egocentric imitation, actually"): a note as its author wrote it, starting low and
    ending on no stop, is no cut and no fragment. A note whose words go on in an unmarked
    one, or one opened by a mark at the text's size (a figure's tick "2" read as one), is."""
    layouts = _layout(_page(_body_page(lines=2)))
    first = "because there is an additional default argument to indexing"
    second = "routines can make use of the faster routines in certain computations"
    notes = [_note("p0-b0", first, "1", 700.0), _note("p0-b1", second, "2", 712.0)]
    found = _request_figures(layouts, notes)
    assert found["cut"] == 0 and found["frag"] == 0
    short = _request_figures(layouts, [_note("p0-b0", "an imitation, actually", "†", 700.0)])
    assert short["frag"] == 0
    going_on = [notes[0], _note("p0-b1", second, "", 712.0)]
    assert _request_figures(layouts, going_on)["cut"] == 2
    level = _request_figures(layouts, [_note("p0-b0", first, "2", 700.0, scale=1.0)])
    assert level["cut"] == 1


def _two_pages(second: Sequence[Placed]) -> list[PageLayout]:
    """Two pages: the body's last two lines at the first one's foot, ``second`` on the next."""
    doc = pymupdf.open()
    for lines in (_body_page(lines=2, top=760.0), second):
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        words_at(page, lines)
    with pymupdf.open(stream=doc.tobytes()) as read:
        return [read_layout(page) for page in read]


def test_a_display_at_the_next_pages_head_takes_the_sentence_over_too() -> None:
    """Origin: 122 p5 ("A simplified version of the R code is" ends the page; the listing
    opens the next one), 120 p5 (a listing whose lines read as prose: "> ocus <- efp(...,
    type = ..., data = ...)"): the display that heads the next page, or the next column, is
    the sentence's end as the one just below it is; prose there is not."""
    listing = ("R> fit <- lm(dist ~ speed, data = cars)", "R> coef(summary(fit))")
    code = [(90.0, 100 + i * STEP, line, SIZE, "cour") for i, line in enumerate(listing)]
    text = PROSE[0] + " and a simplified version of the code is"
    para = _para("p0-b0", text, _band(760, 2))
    assert _request_figures(_two_pages(code), [para])["cut"] == 0
    after = "Each proposal was then read by two members of the committee."
    prose = dataclasses.replace(_para("p1-b0", after, _band(100, 1)), page=1)
    found = _request_figures(_two_pages([(72.0, 100.0, after, SIZE, "tiro")]), [para, prose])
    assert found["cut"] == 1


def test_a_float_heading_the_next_page_is_passed_over_to_the_display() -> None:
    """Origin: 120 p2-p3 ("... a suitable subset chosen by" ends the page; the next opens
    with a figure and its caption, then the listing): the caption is a float's, not the
    body's next text; the listing under it takes the sentence over."""
    caption_text = "Figure 1: Personal income and personal consumption in the US"
    listing = ('R> data("USIncExp")', "R> USIncExp2 <- window(USIncExp, start = 1985)")
    second: list[Placed] = [(72.0, 100.0, caption_text, SIZE, "tiro")]
    second += [(90.0, 140 + i * STEP, line, SIZE, "cour") for i, line in enumerate(listing)]
    text = PROSE[0] + " and a suitable subset is chosen by"
    para = _para("p0-b0", text, _band(760, 2))
    caption = dataclasses.replace(
        _para("p1-b0", caption_text, _band(100, 1), ParagraphKind.CAPTION), page=1
    )
    assert _request_figures(_two_pages(second), [para, caption])["cut"] == 0
    body = dataclasses.replace(_para("p1-b0", caption_text, _band(100, 1)), page=1)
    assert _request_figures(_two_pages(second), [para, body])["cut"] == 1


def test_a_sentence_the_file_ends_inside_is_no_cut() -> None:
    """Origin: corpus 12 (pages 1-2 of a paper: "We show LayoutParser can be applied in
    sophisticated and large-scale digitization projects" ends page 2, in a line set full to
    the column's edge): the sentence goes on on a page the file does not hold. The last text
    of the last page, its last line full, ends where the file does; one ending short of the
    edge, one before it, or one that stops high on the page, is still cut."""
    layouts = _layout(_page(_body_page(lines=2, top=740.0)))
    text = PROSE[0] + " and it can be applied in sophisticated digitization projects"
    full = dataclasses.replace(_para("p0-b0", text, (72.0, 730.0, 500.0, 755.0)), column=(72, 500))
    assert _request_figures(layouts, [full])["cut"] == 0
    short = dataclasses.replace(
        full, rects=((72.0, 90.0, 500.0, 102.0), (72.0, 103.0, 300.0, 115.0))
    )
    assert _request_figures(layouts, [short])["cut"] == 1
    after = _para("p0-b1", "Each proposal was read by two members.", (72.0, 770.0, 300.0, 782.0))
    assert _request_figures(layouts, [full, after])["cut"] == 1
    high = dataclasses.replace(full, rects=((72.0, 90.0, 500.0, 115.0),), bbox=(72, 90, 500, 115))
    assert _request_figures(_layout(_page(_body_page(lines=2))), [high])["cut"] == 1


def test_a_sentence_a_list_takes_over_ends_with_its_words() -> None:
    """Origin: corpus2 129 p2 ("The value of pmvnorm is the estimated integral value with
    two attributes" | "• error: ..." | "• msg: ..."): the sentence's end is the list under
    it, no colon before it. A body paragraph under it instead, or a list far below, leaves
    it cut."""
    layouts = _layout(_page(_body_page(lines=2)))
    text = PROSE[0] + " and the value is the estimated integral with two attributes"
    para = _para("p0-b0", text, _band(100, 2))
    item = _para("p0-b1", "error: the estimated absolute error", _band(100 + 2 * STEP, 1))
    item = dataclasses.replace(item, kind=ParagraphKind.LIST_ITEM)
    assert _request_figures(layouts, [para, item])["cut"] == 0
    body = dataclasses.replace(item, kind=ParagraphKind.BODY, text="The error is small.")
    assert _request_figures(layouts, [para, body])["cut"] == 1
    far = dataclasses.replace(item, rects=(_band(100 + 8 * STEP, 1),))
    assert _request_figures(layouts, [para, far])["cut"] == 1


def test_a_contents_entry_is_a_title_not_a_cut_sentence() -> None:
    """Origin: 131 p11 (a change history indexed like a contents list: "\\lettrine: changed
    from 'ABCDEFGHIJKLMNO-" | "QPRSTUVWXYZ' to 'EFTZ' as ... (possible optical
    correction). . . 8", its first line body text, its last an entry): a request that ends
    with an entry's kept leader and page number is a title, not a sentence cut at its end."""
    layouts = _layout(_page(_body_page(lines=2)))
    text = "Capitals like C, G, O, Q or X might be set slightly taller than the others"
    entry = dataclasses.replace(
        _para("p0-b0", text + "{v1}", _band(100, 2)), placeholders={"{v1}": ". . . . 8"}
    )
    assert _request_figures(layouts, [entry])["cut"] == 0
    formula = dataclasses.replace(entry, placeholders={"{v1}": "x + y"})
    assert _request_figures(layouts, [formula])["cut"] == 1


@pytest.mark.parametrize(
    ("figure", "defect", "whole"),
    [
        (
            "cut",
            "the authors to describe their methods in more detail than before so that",
            "The authors described their methods in more detail than before, so readers can.",
        ),
        ("frag", "in more detail than", "They did."),
        ("cutword", "The authors described their meth- ods in more detail.", "The methods."),
        (
            "refs_sent",
            "[12] J. Smith and A. Jones. Careful reviews. In Proceedings of ACL, pp. 1-9, 2019.",
            "Smith and Jones (2019) reviewed every proposal that arrived in spring.",
        ),
    ],
)
def test_text_figures_count_their_defect(figure: str, defect: str, whole: str) -> None:
    layouts = _layout(_page(_body_page(lines=2)))
    assert _request_figures(layouts, [_para("p0-b0", defect, _band(100, 2))])[figure] == 1
    assert _request_figures(layouts, [_para("p0-b0", whole, _band(100, 2))])[figure] == 0


# --- pages ------------------------------------------------------------------------------------

TRANSLATION = "번역된 문장이 여기에 있습니다 그리고 계속됩니다"
A_RECT = (72.0, 90.0, 400.0, 130.0)  # paragraph A's two lines
B_TOP = 160.0  # paragraph B, left as it is


def _source() -> bytes:
    lines: list[Placed] = [
        (72.0, 100.0, PROSE[0][:40], SIZE, "tiro"),
        (72.0, 113.0, PROSE[1][:40], SIZE, "tiro"),
    ]
    lines += [(72.0, B_TOP, PROSE[2][:40], SIZE, "tiro")]
    lines += [(72.0, 200.0, "with weights", SIZE, "tiro"), (140.0, 200.0, "α β", SIZE, "math")]
    return _page(lines)


def _translated(
    at: tuple[float, float] = (72.0, 102.0),
    size: float = SIZE,
    erase: bool = True,
    text: str = TRANSLATION,
    math: bool = True,
) -> bytes:
    """The source with paragraph A's translation set at ``at`` (erased first when ``erase``);
    ``math``: the math line keeps its glyphs (else it is re-set as text)."""
    doc = pymupdf.open(stream=_source())
    page = doc[0]
    if erase:
        page.add_redact_annot(A_RECT)
    if not math:
        page.add_redact_annot((70, 188, 300, 204))
    page.apply_redactions(images=pymupdf.PDF_REDACT_IMAGE_NONE)
    page.insert_font(fontname="korea")
    words_at(page, [(*at, text, size, "korea")])
    if not math:
        words_at(page, [(72, 200, "가중치 a 와 b", SIZE, "korea")])
    data: bytes = doc.tobytes()
    doc.close()
    return data


def _page_figures(translated: bytes, math_para: bool = False) -> Counter[str]:
    paragraphs = [_para("p0-b0", "A", A_RECT)]
    if math_para:
        paragraphs.append(_para("p0-b2", "with weights {v1} and {v2}", (70, 188, 300, 204)))
    translations = {p.id: "번역" for p in paragraphs}
    with pymupdf.open(stream=_source()) as source, pymupdf.open(stream=translated) as out:
        pages = audit_pages(source, out, paragraphs, translations, TEXT_FLAGS)
    found: Counter[str] = Counter()
    for page in pages:
        found.update(page.counts)
    return found


def test_page_figures_are_zero_on_a_page_set_right() -> None:
    found = _page_figures(_translated(), math_para=True)
    assert sum(found.values()) == 0, found


def test_overprint_counts_a_translation_set_over_text_still_on_the_page() -> None:
    assert _page_figures(_translated(at=(72.0, B_TOP)))["overprint"] == 1


def test_left_under_counts_a_translation_over_its_own_source_not_erased() -> None:
    found = _page_figures(_translated(erase=False))
    assert found["left_under"] == 1 and found["overprint"] == 0


def test_tiny_counts_type_below_six_tenths_of_the_source() -> None:
    assert _page_figures(_translated(size=0.5 * SIZE))["tiny"] == 1
    assert _page_figures(_translated(size=0.7 * SIZE))["tiny"] == 0


def test_outside_counts_a_translation_past_its_column_or_page() -> None:
    assert _page_figures(_translated(at=(300.0, 102.0)))["outside"] == 1
    assert _page_figures(_translated(at=(72.0, 102.0), text="번역"))["outside"] == 0


def test_a_line_belongs_to_the_paragraph_the_renderer_set_it_for() -> None:
    """A's translation set apart in free space, nearer a heading twice A's size than A: by
    the boxes alone the line is the heading's, tiny and outside its column; by the renderer's
    record of where it set A's lines (``page_check.owner``, the one attribution the renderer's
    check holds too), it is A's, at A's size, inside the area A was given.
    Origin: 140 p1, a translation put where it fits judged tiny against a neighbour's size."""
    heading = dataclasses.replace(
        _para("p0-b1", "B", (72.0, 200.0, 250.0, 225.0), ParagraphKind.HEADING), font_size=20.0
    )
    paragraphs = [_para("p0-b0", "A", A_RECT), heading]
    translations = {p.id: "번역" for p in paragraphs}
    out = _translated(at=(72.0, 190.0))
    line = (72.0, 182.0, 330.0, 192.0)
    record = {0: {"p0-b0": page_check.Placed((72.0, 178.0, 400.0, 200.0), (line,), apart=True)}}

    def figures(placed: dict[int, dict[str, page_check.Placed]] | None) -> Counter[str]:
        found: Counter[str] = Counter()
        with pymupdf.open(stream=_source()) as source, pymupdf.open(stream=out) as doc:
            for page in audit_pages(source, doc, paragraphs, translations, TEXT_FLAGS, placed):
                found.update(page.counts)
        return found

    assert figures(None)["tiny"] == 1 and figures(None)["outside"] == 1
    assert figures(record)["tiny"] == 0 and figures(record)["outside"] == 0


def test_an_unnamed_type3_glyph_left_in_place_is_the_source_after_renumbering() -> None:
    """A footer's symbol in a Type 3 font without a name stays where it was; the translated
    file, written anew, numbers that font's object differently (PyMuPDF names the face by it).
    The glyph is still the source's: no figure counts it.
    Origin: 136 (ctex FAQ), the footer's copyright sign read as a translation outside its
    column."""
    source = pymupdf.open(stream=_source())
    box = b"1000 0 0 0 700 700 d1 0 0 m 700 0 l 700 700 l 0 700 l f"
    draw_cmex_glyph(
        source[0].parent,
        source[0],
        "C",
        box,
        bbox="0 0 700 700",
        width=1000,
        x=420,
        y=60,
        size=SIZE,
        name=None,
    )
    built = source.tobytes()
    renumbered = pymupdf.open()
    renumbered.new_page()  # objects of its own first: the font's number moves
    renumbered.insert_pdf(pymupdf.open(stream=built))
    renumbered.delete_page(0)
    named = [
        {
            span["font"]
            for b in d[0].get_text("dict")["blocks"]
            for ln in b.get("lines", ())
            for span in ln["spans"]
            if span["font"].startswith("Type3")
        }
        for d in (pymupdf.open(stream=built), renumbered)
    ]
    assert named[0] and named[1] and named[0] != named[1], named
    assert [g.font for g in page_glyphs(renumbered[0], TEXT_FLAGS) if g.char == "C"] == ["Type3"]
    paragraphs = [_para("p0-b0", "A", A_RECT)]
    with pymupdf.open(stream=built) as src:
        pages = audit_pages(src, renumbered, paragraphs, {"p0-b0": "번역"}, TEXT_FLAGS)
    assert sum(sum(p.counts.values()) for p in pages) == 0, [p.notes for p in pages]


def test_a_table_row_read_as_one_line_is_checked_cell_by_cell() -> None:
    """Two cells of a row, each translation inside its own cell, set close on one baseline:
    PyMuPDF reads them as one line. Each cell's glyphs are checked against their own cell, so
    the row counts nothing; the same text run on past the right cell's box still counts.
    Origin: 137 (fduthesis manual), a table's header row counted outside one cell's column."""
    left, right = (72.0, 90.0, 154.0, 104.0), (155.0, 90.0, 243.0, 104.0)
    source = _page(
        [(72.0, 100.0, "first cell", SIZE, "tiro"), (156.0, 100.0, "second", SIZE, "tiro")]
    )
    paragraphs = [
        _para("p0-b0", "first cell", left, ParagraphKind.CELL),
        _para("p0-b1", "second", right, ParagraphKind.CELL),
    ]

    def figures(second: str) -> Counter[str]:
        doc = pymupdf.open(stream=source)
        page = doc[0]
        page.add_redact_annot((70, 88, 254, 106))
        page.apply_redactions(images=pymupdf.PDF_REDACT_IMAGE_NONE)
        page.insert_font(fontname="korea")
        words_at(
            page,
            [
                (72.0, 100.0, "번역된 칸입니다", SIZE, "korea"),
                (156.0, 100.0, second, SIZE, "korea"),
            ],
        )
        lines = {ln["bbox"] for b in page.get_text("dict")["blocks"] for ln in b.get("lines", ())}
        assert len(lines) == 1, lines  # the row is one line to PyMuPDF
        found: Counter[str] = Counter()
        with pymupdf.open(stream=source) as src:
            for p in audit_pages(src, doc, paragraphs, {"p0-b0": "번", "p0-b1": "역"}, TEXT_FLAGS):
                found.update(p.counts)
        return found

    assert sum(figures("두 번째 칸").values()) == 0
    assert figures("두 번째 칸을 넘어 계속되는 번역입니다")["outside"] == 1


def test_math_changed_counts_math_glyphs_re_set_as_text() -> None:
    assert _page_figures(_translated(math=False), math_para=True)["math_changed"] == 2


# --- the table and the baseline -----------------------------------------------------------


def test_changes_name_the_paper_and_figure_that_got_worse() -> None:
    rows: list[dict[str, Any]] = [
        {"paper": "a", "pages": 1, "language": "en", "figures": {"cut": 3, "tiny": 0}},
        {"paper": "b", "error": "not a PDF"},
    ]
    baseline: dict[str, dict[str, Any]] = {"a": {"cut": 1, "tiny": 2}, "b": {"error": "not a PDF"}}
    assert changes(rows, baseline) == ["WORSE a cut: 1 -> 3", "better a tiny: 2 -> 0"]
    assert "not a PDF" in table(rows) and "total (1 papers)" in table(rows)


def test_docs_table_shows_the_total_and_the_worst_papers_first() -> None:
    baseline = {
        "total": {"reqs": 30, "cut": 5},
        "papers": {
            "calm": {"pages": 10, "reqs": 20, "cut": 1},
            "rough": {"pages": 2, "reqs": 10, "cut": 4},
            "broken": {"error": "not a PDF"},
        },
    }
    rows = docs_table(baseline).splitlines()
    assert rows[2].startswith("| **all papers** | 12 | 30 | 5 |")
    assert [row.split(" | ")[0] for row in rows[3:]] == ["| rough", "| calm"]


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("the model of the data and the results for the test", "en"),
        ("le modèle et la méthode des requêtes dans les données est une", "fr"),
        ("한국어 문장입니다 그리고 이것은 보고서입니다", "ko"),
        ("これは日本語の文章です。ひらがなとカタカナ", "ja"),
        ("这是一个中文句子，我们使用宏包", "zh"),
    ],
)
def test_paper_language_is_told_by_script_and_words(text: str, language: str) -> None:
    assert paper_language(text) == language


def test_the_docs_show_the_committed_baselines_table() -> None:
    """docs/reading.md's table is the baseline's (``make docs`` rewrites it)."""
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    page = DOCS_PAGE.read_text(encoding="utf-8")
    assert docs_block(page, baseline) == page, "run `make docs`"


def test_a_short_chinese_sentence_is_no_fragment_and_a_piece_without_its_stop_is() -> None:
    """Origin: 137_zh p10 ("作者姓名。" describes an option: whole). Han has no capitals, so
    a stop at its end makes a short Chinese text a sentence; "另一种是扩展某些指定" (no stop)
    stays a fragment."""
    layouts = _layout(_page([(72.0, 100.0, "作者姓名。", SIZE, "china-s")]))
    whole = _para("p0-b0", "作者姓名。", _band(100, 1))
    piece = _para("p0-b0", "扩展某些指定", _band(100, 1))
    assert _request_figures(layouts, [whole], "zh")["frag"] == 0
    assert _request_figures(layouts, [piece], "zh")["frag"] == 1


@pytest.mark.parametrize("box", ["-24 -2960 1454 772", "-24 -600 1454 40"])
def test_a_big_delimiter_hanging_from_its_origin_is_measured_below_it(box: str) -> None:
    """TeX's math extension font hangs its glyphs from an origin at their top, and its box
    (the font's) runs 0.77 of the size above the origin and 2.96 below (or, in a Type 1 copy
    of the font, 0.04 above and 0.6 below): a big ")" whose origin is just under a translated
    line has its ink below that line (the renderer's measure, ``page_check.ink_rows``), and
    counts only when a line is set over its ink.
    Origin: corpus2 108 p5 (a big ")" of the line below counted under "probability"); 119
    p7 (a text-style "⋃" of a formula set apart counted over the line above it)."""
    rect = (72.0, 90.0, 400.0, 116.0)
    source = pymupdf.open(
        stream=_page(
            [(72.0, 100.0, PROSE[0][:40], SIZE, "tiro"), (72.0, 113.0, PROSE[1][:40], SIZE, "tiro")]
        )
    )
    paren = b"458 0 0 -1200 400 40 d1 0 40 m 400 40 l 400 -1160 l 0 -1160 l f"
    draw_cmex_glyph(
        source, source[0], "R", paren, bbox=box, width=458, x=155,
        y=HEIGHT - 120, size=SIZE,
    )  # fmt: skip
    built = source.tobytes()

    def overprints(baseline: float) -> int:
        doc = pymupdf.open(stream=built)
        remove_glyphs(doc[0], Areas([(70.0, 90.0, 402.0, 115.0)]))  # the paragraph's lines
        doc[0].insert_font(fontname="korea")
        words_at(doc[0], [(72.0, baseline, TRANSLATION, SIZE, "korea")])
        with pymupdf.open(stream=built) as src:
            pages = audit_pages(src, doc, [_para("p0-b0", "A", rect)], {"p0-b0": "번"}, TEXT_FLAGS)
        return sum(p.counts["overprint"] for p in pages)

    (glyph,) = [
        g for g in page_glyphs(pymupdf.open(stream=built)[0], TEXT_FLAGS) if g.font == "CMEX10"
    ]
    assert glyph.box[1] > glyph.origin[1] - 0.8 * SIZE  # the font's box: not its ink
    assert overprints(118.0) == 0  # the line ends just above the delimiter's ink
    assert overprints(125.0) == 1  # set over it


def test_a_copy_set_smaller_is_ours_where_it_lands_on_a_source_glyph() -> None:
    """A formula's copy set with its translation at 0.9 of its size is ours, though one of
    its glyphs lands where the source has the same character (a poor man's bold "W", the
    glyph drawn twice a point apart, its second copy where the source's first was): only a
    glyph of the same size there is the source still standing.
    Origin: corpus2 108 p6 (left_under: "W||op" over its source "|", TeX's "‖" copied at
    0.9 of its size, one bar on a source bar's place)."""
    source = _page([(72.0, 100.0, "norm", SIZE, "tiro"), (200.0, 100.0, "W", SIZE, "tiro")])
    rect = (70.0, 90.0, 260.0, 104.0)

    def figures(size: float) -> Counter[str]:
        doc = pymupdf.open(stream=source)
        doc[0].add_redact_annot(rect)
        doc[0].apply_redactions(images=pymupdf.PDF_REDACT_IMAGE_NONE)
        doc[0].insert_font(fontname="korea")
        words_at(doc[0], [(72.0, 100.0, "번역", size, "korea")])
        for x in (198.8, 200.0):  # the copy's two "W", the second where the source's was
            words_at(doc[0], [(x, 100.0, "W", size, "tiro")])
        found: Counter[str] = Counter()
        with pymupdf.open(stream=source) as src:
            for p in audit_pages(
                src, doc, [_para("p0-b0", "A", rect)], {"p0-b0": "번"}, TEXT_FLAGS
            ):
                found.update(p.counts)
        return found

    assert sum(figures(0.9 * SIZE).values()) == 0
    assert figures(SIZE)["left_under"] == 1  # at its own size, there: the source not erased


def test_an_ff_ligature_read_as_an_arrow_is_no_math() -> None:
    """Some TeX text faces map their "ff" ligature to "↵": between letters it is the
    ligature, as the reader reads it, and its word translated is no math lost; an arrow
    standing alone in that face still is.
    Origin: corpus 12 (math_changed 5: "e↵orts", "o↵-the-shelf" translated)."""
    face = pymupdf.Font("cjk")  # a face with the arrow, its name no math's
    line = "the e\u21b5orts made, o\u21b5-the-shelf: press \u21b5 to go"
    doc = pymupdf.open(stream=_page([(72.0, 100.0, PROSE[0][:40], SIZE, "tiro")]))
    doc[0].insert_font(fontname="face", fontbuffer=face.buffer)
    words_at(doc[0], [(72.0, 200.0, line, SIZE, "face")])
    source = doc.tobytes()
    para = _para("p0-b2", "the efforts made, off-the-shelf: press {v1} to go", (70, 188, 400, 204))

    def gone(keep_arrow: bool) -> int:
        doc = pymupdf.open(stream=source)
        doc[0].add_redact_annot((70, 188, 400, 204))
        doc[0].apply_redactions(images=pymupdf.PDF_REDACT_IMAGE_NONE)
        doc[0].insert_font(fontname="korea")
        words_at(doc[0], [(72, 200, "노력, 기성품: 누르세요", SIZE, "korea")])
        if keep_arrow:  # the arrow copied as it looks
            doc[0].insert_font(fontname="face", fontbuffer=face.buffer)
            words_at(doc[0], [(250, 200, "\u21b5", SIZE, "face")])
        with pymupdf.open(stream=source) as src:
            pages = audit_pages(src, doc, [para], {para.id: "번역"}, TEXT_FLAGS)
        return sum(p.counts["math_changed"] for p in pages)

    assert gone(keep_arrow=True) == 0
    assert gone(keep_arrow=False) == 1


def test_the_symbol_faces_bullet_is_a_mark_not_math() -> None:
    """Word's list bullets are the Symbol face's, read as private-use characters: the
    reader sets them as bullets ("•"), and a list item translated with its bullet lost no
    math; the face's own math still counts.
    Origin: corpus 07 p4 (math_changed 4: the bullets of a list)."""
    assert not is_math_glyph("\uf0b7", "SymbolMT")
    assert not is_math_glyph("\uf0a7", "SymbolMT")  # its square bullet
    assert is_math_glyph("\u2211", "SymbolMT") and is_math_glyph("a", "SymbolMT")


def test_the_bullets_of_a_real_korean_page_end_with_their_items() -> None:
    """Origin: corpus2 144 p1 (card terms: bullets in the noun style under "기타", two of
    them one or two lines run to the column's edge): each item ends where the next bullet
    starts; none is counted cut."""
    path = CORPUS_DIR.parent / "corpus2" / "144_ko_card_terms_text_tables_ilovepdf.pdf"
    if not path.is_file():
        pytest.skip(f"corpus2 paper not found at {path}")
    found, layouts = read_document(open_document(path.read_bytes()))
    records, _ = audit_requests(Reading.of(layouts, found.paragraphs), "ko", 400)
    items = [r for r in records if r.kind is ParagraphKind.LIST_ITEM]
    ends = {r.text.split()[-1]: r for r in items}
    assert "소멸" in ends and "cut" not in ends["소멸"].marks
    assert [r.text for r in items if "cut" in r.marks] == []


def test_the_margin_captions_of_a_real_page_are_no_splice() -> None:
    """Origin: corpus2 114 p6 (Emerald's margin column: "Figure 2." and its title beside the
    figure, "Table I." and its title beside the table): sent as captions of their own, none
    counted spliced."""
    path = CORPUS_DIR.parent / "corpus2" / "114_emerald_er2007_3b2_margin_captions_p12of17.pdf"
    if not path.is_file():
        pytest.skip(f"corpus2 paper not found at {path}")
    found, layouts = read_document(open_document(path.read_bytes()))
    records, _ = audit_requests(Reading.of(layouts, found.paragraphs), "en", 400)
    captions = [r for r in records if r.page == 5 and r.text.startswith("Figure 2.")]
    assert captions and all("spliced" not in r.marks for r in captions)
    assert [r.text for r in records if "spliced" in r.marks] == []
