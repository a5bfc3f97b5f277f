"""A heading set on two lines is one request: a numbered section heading wrapped under its
title, past its number ("3 DESIGNING AI SUPPORTS FOR" | "EXPOSITORY WRITING"), and a paper's
title whose short second line is centred under the first on a two-column page. Constructed
pages, read for real; what is checked is what is sent to the model."""

from __future__ import annotations

import pymupdf
import pytest

from tests.conftest import CORPUS_DIR
from tests.helpers.pdfgen.columns import INTRO, LEFT, OUTRO, RIGHT, TEXT, TOP
from tests.helpers.pdfgen.sheet import TIMES_BOLD, Sheet, lines_at, read
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.paragraph import ParagraphKind

HEADING = 10.0


def _texts(data: bytes) -> list[tuple[ParagraphKind, str]]:
    return [(p.kind, " ".join(p.text.split())) for p in read(data)]


@pytest.mark.parametrize(
    ("first", "second", "hanging"),
    [
        ("3 DESIGNING AI SUPPORTS", "FOR EXPOSITORY WRITING", True),  # under the title
        ("3 DESIGNING AI SUPPORTS FOR", "EXPOSITORY WRITING", False),  # after "FOR"
    ],
)
def test_a_numbered_heading_on_two_lines_is_one_heading(
    first: str, second: str, hanging: bool
) -> None:
    doc = pymupdf.open()
    sheet = Sheet(doc)
    y = sheet.paragraph(INTRO, LEFT, TOP)
    y = sheet.paragraph(OUTRO, LEFT, y)
    y = sheet.paragraph(INTRO, RIGHT, TOP)
    y += 14.0
    sheet.writer.append((RIGHT[0], y), first, TIMES_BOLD, HEADING)
    indent = TIMES_BOLD.text_length("3 ", HEADING) if hanging else 0.0
    sheet.writer.append((RIGHT[0] + indent, y + 13.0), second, TIMES_BOLD, HEADING)
    sheet.paragraph(OUTRO, RIGHT, y + 30.0)
    sheet.write()

    texts = _texts(bytes(doc.tobytes()))
    headings = [text for kind, text in texts if kind == ParagraphKind.HEADING]
    assert headings == [f"{first} {second}"], texts


def test_a_bold_heading_a_narrow_column_breaks_over_three_lines_is_one_heading() -> None:
    """Origin: 147 p5 (a Federal Register page, three columns 160 pt wide: "Explanation of
    Certain Provisions for" | "Alternative Methods of Compliance" | "(AMOCs)" in bold): a
    heading was a line or two, so the three lines were sent as a body paragraph, a sentence
    with no end. A bold title of a few words over three lines is one heading; the paragraph
    under it is its own request."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    column = (RIGHT[0], RIGHT[0] + 160.0)
    y = sheet.paragraph(INTRO, LEFT, TOP)
    sheet.paragraph(OUTRO, LEFT, y)
    y = sheet.paragraph(INTRO, column, TOP) + 14.0
    lines = (
        "Explanation of Certain Provisions for",
        "Alternative Methods of Compliance",
        "(AMOCs)",
    )
    for k, line in enumerate(lines):
        sheet.writer.append((column[0], y + 11.0 * k), line, TIMES_BOLD, HEADING)
    sheet.paragraph(OUTRO, column, y + 40.0)
    sheet.write()

    texts = _texts(bytes(doc.tobytes()))
    assert (ParagraphKind.HEADING, " ".join(lines)) in texts, texts
    assert (ParagraphKind.BODY, " ".join(OUTRO.split())) in texts, texts


def test_a_title_s_centred_second_line_is_one_heading_with_its_first() -> None:
    doc = pymupdf.open()
    sheet = Sheet(doc)
    first, second = "Novelty Controlled Paraphrase Generation with Retrieval", "Prompt Tuning"
    middle = (LEFT[0] + RIGHT[1]) / 2
    for text, y in ((first, 70.0), (second, 86.0)):
        width = TEXT.text_length(text, 14.0)
        sheet.writer.append((middle - width / 2, y), text, TEXT, 14.0)
    y = sheet.paragraph(INTRO, LEFT, TOP + 20)
    sheet.paragraph(OUTRO, LEFT, y)
    y = sheet.paragraph(INTRO, RIGHT, TOP + 20)
    sheet.paragraph(OUTRO, RIGHT, y)
    sheet.write()

    texts = _texts(bytes(doc.tobytes()))
    assert texts[0] == (ParagraphKind.HEADING, f"{first} {second}"), texts
    assert not any(text == second for _, text in texts)


def test_a_line_opening_with_a_decimal_in_running_text_is_no_heading() -> None:
    """Origin: 111 p8 (AI Magazine, three columns: "... lifting it from precision" | "0.91
    at recall 0.21. Precision increased" | "with each new iteration ..."): the line, short of
    the column range the reader took for two columns, opens with a decimal and read as a
    numbered heading "0.91", cutting the sentence in two around it. A section's title opens
    with no word in lower case; the sentence is one request."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    columns = ((51.0, 213.0), (230.0, 392.0), (402.0, 564.0))
    for column in columns:
        y = TOP
        while y < 520:
            y = sheet.paragraph(INTRO, column, y)
    lines = (
        "lifting the curve from precision",
        "0.91 at recall 0.21. Precision increased",
        "with each new iteration of learning.",
    )
    for k, line in enumerate(lines):
        sheet.writer.append((columns[0][0], 560 + 12.5 * k), line, TEXT, 10)
    sheet.write()
    texts = _texts(doc.tobytes())
    assert [t for _, t in texts if "0.91" in t] == [" ".join(lines)], texts


ZH_BODY = (
    "公司报告期内不存在证券投资，也不存在衍生品投资。公司报告期内未发生接待调研、沟通、",
    "采访等活动，无违规对外担保情况，控股股东及其关联方不存在对上市公司的非经营性占用",
    "资金。本报告所载财务数据未经审计，公司负责人、主管会计工作负责人保证其真实完整。",
)
ZH_LONG_HEADING = (
    "三、公司实际控制人、股东、关联方、收购人以及公司等承诺相关方在报告期内超期未履行",
    "完毕的承诺事项",
)


@pytest.mark.parametrize(
    ("heading", "size"),
    [
        (ZH_LONG_HEADING, 12.0),
        (("1、普通股股东总数和表决权恢复的优先股股东数量及前 10 名股东持股情况表",), 10.4),
    ],
)
def test_a_chinese_heading_is_measured_in_its_own_script(
    heading: tuple[str, ...], size: float
) -> None:
    """Origin: corpus2 135 p4, p8 (a quarterly report: "三、...超期未履行" | "完毕的承诺事项"
    in 12 pt over 9 pt text; "1、普通股股东总数...情况表" in 10.4 pt): each Han character
    counted as a word, so a heading of 30 or 44 characters had more words than a heading
    may and went out as a body paragraph, a sentence with no end. A CJK character is a third
    of a word (its width in Latin letters); the heading is one heading, the text under it
    a paragraph of its own."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = lines_at(page, 57, 100.0, ZH_BODY, 9.0, "china-s", pitch=16)
    y = lines_at(page, 57, y + 16, heading, size, "china-s", pitch=16)
    lines_at(page, 57, y + 14, ZH_BODY, 9.0, "china-s", pitch=16)
    texts = _texts(bytes(doc.tobytes()))
    assert texts[1] == (ParagraphKind.HEADING, " ".join(heading).replace("履行 完毕", "履行完毕"))
    assert [kind for kind, _ in texts] == [
        ParagraphKind.BODY,
        ParagraphKind.HEADING,
        ParagraphKind.BODY,
    ], texts


def test_a_long_chinese_heading_of_a_real_report_is_one_heading() -> None:
    """Origin: corpus2 135 p8: "三、公司实际控制人...超期未履行" | "完毕的承诺事项" is one
    heading, as its numbered siblings ("四、对 2018 年 1-6 月经营业绩的预计") are."""
    path = CORPUS_DIR.parent / "corpus2" / "135_zh_wps_quarterly_report_tables_p12of22.pdf"
    if not path.is_file():
        pytest.skip(f"corpus2 paper not found at {path}")
    paras = extract_paragraphs(open_document(path.read_bytes()), pages=[7])
    headings = [p.text for p in paras if p.kind is ParagraphKind.HEADING]
    assert any(h.startswith("三、公司实际控制人") and h.endswith("承诺事项") for h in headings)
    assert any(h.startswith("四、对") for h in headings), headings


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # corpus2 137 p5: sentences set large are prose, not a heading.
        ("本模板不支持该引擎，请使用其他引擎编译。推荐使用新的引擎编译本文档的全部内容", None),
        # corpus2 137 p9: a table's label opens a caption, whatever its size.
        ("表 4 西文字体与脚注编号样式默认值的对应关系以及各个选项的推荐取值", "caption"),
    ],
)
def test_a_long_chinese_text_set_large_is_a_heading_only_by_its_look(
    text: str, kind: str | None
) -> None:
    """Origin: corpus2 137 p5, p9 (after a heading's words were counted in the script's own
    terms): a large text of 30 characters holding a sentence's stop, or opening with a
    table's label, was taken for a heading. Only a text with no CJK stop that opens no
    caption is a heading by its width."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = lines_at(page, 57, 100.0, ZH_BODY, 9.0, "china-s", pitch=16)
    y = lines_at(page, 57, y + 16, (text,), 12.0, "china-s", pitch=16)
    lines_at(page, 57, y + 14, ZH_BODY, 9.0, "china-s", pitch=16)
    texts = _texts(bytes(doc.tobytes()))
    assert texts[1][1] == text, texts
    assert texts[1][0] is not ParagraphKind.HEADING
    if kind is not None:
        assert texts[1][0] is ParagraphKind(kind)
