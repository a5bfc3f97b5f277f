"""One sentence, one request (issue 22 item 1): a paragraph cut by a column, a page, a float or a
display equation is read as one request, and its translation flows back through the paragraph's
boxes in reading order. Constructed pages, read and typeset for real; the pseudo translator
stands in for the model (through the fake vLLM in the last test)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pymupdf

from common.language import Language
from common.settings import Settings
from tests.fakes.pseudo import pseudo_translate
from tests.helpers.pdfgen.columns import INTRO, LEFT, OUTRO, RIGHT, TEXT, TOP, WIDE
from tests.helpers.pdfgen.sheet import SIZE, TIMES, Sheet, put_runs, read, wrap
from tests.helpers.translator import translator_for
from tests.helpers.vllm import FakeVLLMFactory
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.flow.passage import Passage, passages, translated
from translation.read.paragraph import Paragraph
from translation.request import TranslationRequest

BEFORE_CUT = (
    "Human evaluation is considered the gold standard for the quality of a summary, but the"
    " protocols used in earlier work differ a lot, and the results of the gold standard for"
    " evaluating model-generated sum-"
)
AFTER_CUT = (
    "maries are not reproducible across studies, since the guidelines and the scales differ"
    " from one paper to the next one."
)


def passage_with(found: list[Passage], words: str) -> Passage:
    (passage,) = [p for p in found if words in p.text]
    return passage


def typeset(data: bytes, paragraphs: list[Paragraph]) -> list[str]:
    """The text of each page of the pseudo-translated output."""
    translations = translated(paragraphs, lambda text: pseudo_translate(text, "ko"))
    out = render_mono(open_document(data), paragraphs, translations, "ko")
    with pymupdf.open(stream=out) as doc:
        return [" ".join(page.get_text().split()) for page in doc]


def assert_spread(passage: Passage, pages: list[str]) -> None:
    """Every word of the passage's translation is set once, in order, and each box holds a
    part of it; no source word is left."""
    answer = pseudo_translate(passage.text, "ko")
    parts = passage.split(answer)
    assert all(part.strip() for part in parts), parts
    keys = {p.break_before for p in passage.pieces}
    whole = " ".join(w for w in answer.split() if w not in keys)
    assert " ".join(" ".join(parts).split()) == whole
    everything = " ".join(pages)
    for part, piece in zip(parts, passage.pieces, strict=True):
        words = re.findall("[\uac00-\ud7a3]{2,}", part)
        assert words and all(w in pages[piece.page] for w in words)
    source = re.sub(r"\{v\d+\}", " ", passage.text)
    left = [w for w in re.findall(r"[A-Za-z]{4,}", source) if re.search(rf"\b{w}\b", everything)]
    assert not left, left


def test_a_paragraph_cut_by_the_column_is_one_request_set_in_both_boxes() -> None:
    data = column_break_paper()

    paragraphs = read(data)
    found = passages(paragraphs)
    passage = passage_with(found, "gold standard for evaluating")
    assert len(passage.pieces) == 2
    assert "model-generated summaries are not reproducible across studies," in passage.text
    assert passage.text.endswith("from one paper to the next one.")
    assert [p.text for p in found if "Automatic" in p.text] == [" ".join(INTRO.split())]
    assert len(found) == 3
    assert_spread(passage, typeset(data, paragraphs))


def test_a_paragraph_cut_by_the_page_is_one_request_and_a_compound_keeps_its_hyphen() -> None:
    data = _cut_by_the_page(
        "Our experiments show that the new metrics substantially outperform the state-",
        "of-the-art metrics on all four datasets (al- though the margin is small on the news"
        " articles), and that they agree with the experts.",
    )

    paragraphs = read(data)
    found = passages(paragraphs)
    passage = passage_with(found, "substantially outperform")
    assert [p.page for p in passage.pieces] == [0, 1]
    assert "outperform the state-of-the-art metrics on all four datasets" in passage.text
    assert "(although the margin" in passage.text  # a line-end hyphen left inside a line
    assert not any(p.text[:1].islower() for p in found)
    assert_spread(passage, typeset(data, paragraphs))


def _cut_by_the_page(last_lines: str, first_lines: str) -> bytes:
    """Two pages: a full page of text ending in ``last_lines``, the next opening, unindented,
    with ``first_lines`` and going on with more text."""
    doc = pymupdf.open()
    first = Sheet(doc)
    y = TOP
    while y < 700:  # a full page of text before the cut paragraph
        y = first.paragraph(INTRO, WIDE, y)
    first.paragraph(last_lines, WIDE, y)
    first.write()
    second = Sheet(doc)
    y = second.paragraph(first_lines, WIDE, TOP, indent=False)
    second.paragraph(OUTRO, WIDE, y)
    second.write()
    data: bytes = doc.tobytes()
    return data


def test_a_citation_list_cut_by_the_page_is_one_request() -> None:
    """The page's first line closes the citation list the page before leaves open
    ("... classification [11," | "37], layout detection ...": 12 p2)."""
    data = _cut_by_the_page(
        "Deep learning approaches are the state of the art for many document image analysis"
        " tasks, including document image classification [11,",
        "37], layout detection [38, 22] and table detection [26], as the experiments of many"
        " groups have shown.",
    )
    found = passages(read(data))
    passage = passage_with(found, "document image classification")
    assert [p.page for p in passage.pieces] == [0, 1]
    assert "classification [11, 37], layout detection [38, 22]" in passage.text
    assert not any(p.text.startswith("37]") for p in found)


def test_a_paragraph_goes_on_after_a_figure_and_its_caption() -> None:
    doc = pymupdf.open()
    sheet = Sheet(doc)
    y = sheet.paragraph(INTRO, WIDE, TOP)
    y = sheet.paragraph(
        "The second stage of the system reads the summaries of all systems and ranks them by"
        " the scores that the judges gave to each of",
        WIDE,
        y,
    )
    sheet.figure(WIDE, y, y + 120)
    y = sheet.paragraph(
        "Figure 1: An overview of the three stages of the system.", WIDE, y + 136, indent=False
    )
    y = sheet.paragraph(
        "them, so that the ranking follows the judgments of the experts.", WIDE, y + 12, False
    )
    sheet.paragraph(OUTRO, WIDE, y)
    sheet.write()
    data = doc.tobytes()

    paragraphs = read(data)
    found = passages(paragraphs)
    passage = passage_with(found, "The second stage")
    assert "gave to each of them, so that the ranking follows" in passage.text
    assert any(p.text.startswith("Figure 1:") for p in found)  # the caption: its own request
    assert_spread(passage, typeset(data, paragraphs))


def test_a_sentence_around_a_display_equation_is_one_request() -> None:
    doc = pymupdf.open()
    sheet = Sheet(doc)
    y = sheet.paragraph(INTRO, LEFT, TOP)
    y = sheet.paragraph(
        "The loss of the model combines the two terms of the objective, and we can write",
        LEFT,
        y,
    )
    sheet.equation(LEFT, y + 8)
    y = sheet.paragraph(
        "where the first term rewards the summaries that the judges prefer and the second one"
        " keeps the model close to its starting point.",
        LEFT,
        y + 28,
        indent=False,
    )
    sheet.paragraph(OUTRO, LEFT, y)
    sheet.write()
    data = doc.tobytes()

    paragraphs = read(data)
    found = passages(paragraphs)
    passage = passage_with(found, "we can write")
    key = passage.pieces[1].break_before
    assert key and f"we can write {key} where the first term rewards" in passage.text
    assert not any("ℒ" in v or "∑" in v for p in paragraphs for v in p.placeholders.values())
    pages = typeset(data, paragraphs)
    assert_spread(passage, pages)
    assert "(1)" in pages[0] and "∑ α β" in pages[0]  # the equation and its number stay


def test_a_chinese_sentence_around_a_displayed_listing_is_one_request() -> None:
    """Origin: 136_zh p6 ("LaTeX 文档的标准结构是" [listing] "在 \\begin{document} 和 ...
    之间的是我们的正文部分。"), 141_ja, 146_ko: the sentence before a listing stops on no mark
    and a CJK character, the text after it opens with one (no case to tell it by); one
    request, the listing a placeholder between its pieces and kept as printed."""
    lead = (
        "每个文档都由导言区和正文两部分组成，导言区用来设置文档的格式和加载所需的宏包。",
        "正文则是读者真正看到的内容。一个最简单的 LaTeX 文档的标准结构是",
    )
    after = (
        "在正文之前的部分称为导言区，通常用于定义一些全局命令和参数，英文是 preamble。",
        "正文的内容写在文档环境之中，编译之后就得到排好版的文档。",
    )
    listing = ("\\documentclass{article}", "\\begin{document}", "Hello, world!")
    data = _listing_sheet(lead, listing, after, pymupdf.Font("china-s"), 10.5, 17.0, 90.0)
    paragraphs = read(data)
    (passage,) = passages(paragraphs)
    key = passage.pieces[1].break_before
    assert key and f"标准结构是 {key} 在正文之前的部分" in passage.text
    assert not any("documentclass" in v for p in paragraphs for v in p.placeholders.values())
    pages = typeset(data, paragraphs)
    assert_spread(passage, pages)
    assert "\\documentclass{article}" in pages[0]  # the listing stays as printed


def _listing_sheet(
    lead: Sequence[str],
    listing: Sequence[str],
    after: Sequence[str],
    font: pymupdf.Font,
    size: float,
    pitch: float,
    indent: float,
) -> bytes:
    """A page: the ``lead`` lines in ``font`` at ``size``, ``pitch`` apart, from 72 pt; under
    them the ``listing`` in Courier at 9.5 pt from ``indent``; under it the ``after`` lines."""
    courier = pymupdf.Font("cour")
    sheet = Sheet()
    y = sheet.lines(72, 200.0, lead, size, font, pitch=pitch)
    for line in listing:
        sheet.put(indent, y + 6, line, 9.5, courier)
        y += 13
    for line in after:
        sheet.put(72, y + 12, line, size, font)
        y += pitch
    return sheet.done()


def _around_a_listing(after: str) -> list[Passage]:
    """A paragraph left open before an R listing ("... can again be inspected via"), the
    listing, and ``after`` under it, in Times at 10 pt."""
    lead = (
        "The likelihood ratio test produces virtually identical results to the Wald test. The",
        "chosen fitted model can again be inspected via",
    )
    listing = ("R> summary(fm_zinb)",)
    return passages(read(_listing_sheet(lead, listing, (after,), TIMES, 10.0, 13.6, 72.0)))


def test_a_new_sentence_after_a_listing_is_a_request_of_its_own() -> None:
    """Origin: corpus2 128 p8 ("The chosen fitted model can again be inspected via" [R>
    summary(fm_zinb)] "See Table 2 for a more concise summary."): the open sentence went on
    past the listing into the next one, a capital after a word no sentence ends with. After
    a listing, a capital opens a sentence of its own; words in lower case still take the
    sentence up."""
    found = _around_a_listing("See Table 2 for a more concise summary.")
    assert len(found) == 2, [p.text for p in found]
    assert found[1].text == "See Table 2 for a more concise summary."
    found = _around_a_listing("and the zero-inflated part of the model is shown in Table 2.")
    assert len(found) == 1, [p.text for p in found]


def test_the_answer_is_split_at_the_equation_or_in_proportion() -> None:
    doc = pymupdf.open()
    sheet = Sheet(doc)
    y = sheet.paragraph(INTRO, LEFT, TOP)
    y = sheet.paragraph("For every pair of systems we can write", LEFT, y)
    sheet.equation(LEFT, y + 8)
    sheet.paragraph("where both scores come from the same judges.", LEFT, y + 28, False)
    sheet.write()
    passage = passage_with(passages(read(doc.tobytes())), "we can write")
    key = passage.pieces[1].break_before
    # The model moved the equation: it is cut there all the same.
    assert passage.split(f"모든 쌍에 대해 {key} 다음과 같이 쓸 수 있다 여기서") == [
        "모든 쌍에 대해",
        "다음과 같이 쓸 수 있다 여기서",
    ]
    # The model dropped it: cut in proportion, at a word boundary, nothing lost.
    answer = "하나 둘 셋 넷 다섯 여섯 일곱 여덟 아홉 열"
    parts = passage.split(answer)
    assert len(parts) == 2 and all(parts) and " ".join(parts) == answer


def column_break_paper() -> bytes:
    doc = pymupdf.open()
    sheet = Sheet(doc)
    y = sheet.paragraph(INTRO, LEFT, TOP)
    sheet.paragraph(BEFORE_CUT, LEFT, y)
    y = sheet.paragraph(AFTER_CUT, RIGHT, TOP, indent=False)
    sheet.paragraph(OUTRO, RIGHT, y)
    sheet.write()
    return bytes(doc.tobytes())


async def test_the_model_reads_the_whole_sentence_through_the_pipeline(
    settings: Settings, fake_vllm_factory: FakeVLLMFactory, tmp_path: Path
) -> None:
    fake = fake_vllm_factory.start()
    translator = translator_for(settings.model_copy(update={"data_dir": tmp_path}), fake.base_url)
    try:
        result = await translator.translate(
            TranslationRequest(
                pdf=column_break_paper(),
                source_lang=Language.parse("en"),
                target_lang=Language.parse("ko"),
            )
        )
    finally:
        await translator.aclose()
    sent = fake.texts()
    whole = " ".join(f"{BEFORE_CUT[:-1]}{AFTER_CUT}".split())
    assert whole in sent and len(sent) == 3 == result.llm_calls
    assert not any(text.startswith("maries") for text in sent)
    assert result.mono is not None
    with pymupdf.open(stream=result.mono) as doc:
        text = " ".join(doc[0].get_text().split())
    assert all(
        word in text for word in re.findall("[\uac00-\ud7a3]{2,}", pseudo_translate(whole, "ko"))
    )


def bulleted_page(lead: str, items: list[str]) -> bytes:
    """A page: the introduction, ``lead``, ``items`` as bullets hanging under it, the outro."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    y = sheet.paragraph(INTRO, WIDE, TOP)
    y = sheet.paragraph(lead, WIDE, y)
    for item in items:
        sheet.writer.append((WIDE[0] + 6, y), "\u2022", TEXT, SIZE)
        y = sheet.paragraph(item, (WIDE[0] + 18, WIDE[1]), y, indent=False)
    sheet.paragraph(OUTRO, WIDE, y + 6)
    sheet.write()
    return bytes(doc.tobytes())


def test_a_list_that_a_sentence_opens_is_one_request_with_its_labels_kept() -> None:
    items = [
        "a survey of the human evaluation practices in the recent literature;",
        "a set of three guidelines for evaluating the faithfulness of long summaries; and",
        "an empirical validation of these guidelines on two datasets.",
    ]
    data = bulleted_page("Overall, our contributions to the study of evaluation are:", items)

    paragraphs = read(data)
    passage = passage_with(passages(paragraphs), "our contributions")
    assert len(passage.pieces) == 4 and all(p.label for p in passage.pieces[1:])
    keys = [p.break_before for p in passage.pieces[1:]]
    assert passage.text == (
        "Overall, our contributions to the study of evaluation are: "
        + " ".join(f"{key} {item}" for key, item in zip(keys, items, strict=True))
    )
    translations = translated(paragraphs, lambda text: pseudo_translate(text, "ko"))
    assert [translations[p.id][:2] for p in passage.pieces[1:]] == ["\u2022 "] * 3
    assert_spread(passage, typeset(data, paragraphs))


def piece(text: str, placeholders: dict[str, str]) -> Paragraph:
    box = (0.0, 0.0, 100.0, 20.0)
    return Paragraph(
        id=text[:8],
        page=0,
        text=text,
        placeholders=placeholders,
        bbox=box,
        rects=(box,),
        font_size=10.0,
        passage="p0-b1",
    )


def test_a_split_keeps_each_piece_s_formulas_on_its_side_and_cuts_chinese_anywhere() -> None:
    first = piece("the score of {v1} is", {"{v1}": "x"})
    second = piece("higher than that of {v2} in every run.", {"{v2}": "y"})
    passage = Passage(
        "the score of {v1} is higher than that of {v2} in every run.", (first, second)
    )
    # In proportion the cut would fall near "D": the placeholders move it after "{v1}".
    assert passage.split("A B C D E F G H I J K {v1} L {v2} M") == [
        "A B C D E F G H I J K {v1}",
        "L {v2} M",
    ]
    chinese = passage.split("分数在每次运行中都更高而且更稳定")
    assert (
        len(chinese) == 2
        and all(chinese)
        and "".join(chinese) == "分数在每次运行中都更高而且更稳定"
    )


def test_an_answer_goes_back_to_its_boxes_by_sentence() -> None:
    """Issue 35: a request of several boxes had its answer cut back by character proportion,
    which moved words of a sentence into the other box ("...있습니다. 세" | "번째 ...")."""
    first = piece("A first sentence stands here. A second one is here too. The third", {})
    second = piece("one ends in the next column, far from where it started.", {})
    passage = Passage(f"{first.text} {second.text}", (first, second))
    # As many sentences as the source: the cut sentence goes whole to the box that held most.
    korean = (
        "첫 번째 문장이 여기에 있습니다. 두 번째 문장도 여기에 있습니다."
        " 세 번째 문장은 시작한 곳에서 멀리 떨어진 다음 단에서 끝납니다."
    )
    assert passage.split(korean) == [
        "첫 번째 문장이 여기에 있습니다. 두 번째 문장도 여기에 있습니다.",
        "세 번째 문장은 시작한 곳에서 멀리 떨어진 다음 단에서 끝납니다.",
    ]
    chinese = "第一句话在这里。第二句话也在这里。第三句话在离开始很远的下一栏结束。"
    assert passage.split(chinese) == [
        "第一句话在这里。第二句话也在这里。",
        "第三句话在离开始很远的下一栏结束。",
    ]
    # The model merged two sentences: the sentence end nearest the boxes' meeting point.
    merged = (
        "Ein erster Satz steht hier, und ein zweiter steht auch hier. Der dritte endet in der"
        " nächsten Spalte, weit weg vom Anfang."
    )
    assert (
        passage.split(merged)[1] == "Der dritte endet in der nächsten Spalte, weit weg vom Anfang."
    )


def test_one_sentence_over_two_boxes_is_cut_at_a_clause_then_at_a_word() -> None:
    first = piece("The scores rose in every run of the test we made, and the", {})
    second = piece("judges agreed on most of the pairs they saw.", {})
    passage = Passage(f"{first.text} {second.text}", (first, second))
    clause = (
        "Die Werte stiegen in jedem Lauf des Tests, den wir machten, und die Richter stimmten"
        " bei fast allen Paaren zu."
    )
    assert passage.split(clause) == [
        "Die Werte stiegen in jedem Lauf des Tests, den wir machten,",
        "und die Richter stimmten bei fast allen Paaren zu.",
    ]
    plain = "하나 둘 셋 넷 다섯 여섯 일곱 여덟 아홉 열 열하나 열둘"
    parts = passage.split(plain)
    assert len(parts) == 2 and all(parts) and " ".join(parts) == plain


def test_a_box_is_never_handed_much_more_than_it_held() -> None:
    """A sentence end far from where the boxes' shares meet is not the cut: the box would be
    set smaller than its neighbours (03's first column was, at 0.62 of its size)."""
    first = piece("Short words here and then the sentence goes on into the", {})
    second = piece("next column. Another one follows it. And a third one ends the paragraph.", {})
    passage = Passage(f"{first.text} {second.text}", (first, second))
    answer = (
        "Kurze Wörter hier, und dann geht der Satz weiter in die nächste Spalte. Ein weiterer"
        " folgt. Und ein dritter beendet den Absatz."
    )
    head, _ = passage.split(answer)
    share = len(first.text) / (len(first.text) + len(second.text) + 1)
    assert len(head) <= 1.2 * share * len(answer), head


def test_each_entry_of_a_definition_list_is_a_request_of_its_own() -> None:
    """Origin: 141_ja p7 (BibTeX's entry types). An entry is a term in bold, then its text,
    its other lines hanging indented under the first. The entry before ends on a colon (its
    list of fields was kept as code) and the next term is in lower case: still a new entry,
    not the rest of that sentence."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    entries = [
        (
            "article",
            " An article from a journal or a magazine. Required fields are author,",
            "title, journal and year. Optional fields:",
        ),
        (
            "book",
            " a book with an explicit publisher. Required fields are author or",
            "editor, title, publisher and year. Optional fields are volume and note.",
        ),
        (
            "booklet",
            " a work that is printed and bound, but without a named publisher or",
            "sponsoring institution. Required field is the title, the others optional.",
        ),
    ]
    y = 100.0
    for term, first, second in entries:
        put_runs(page, 72, y, [(term, True), (first, False)], SIZE)
        put_runs(page, 92, y + 12, [(second, False)], SIZE)
        y += 30
    found = passages(read(doc.tobytes()))
    texts = [p.text for p in found]
    assert [len(p.pieces) for p in found] == [1, 1, 1]
    assert texts[0].endswith("Optional fields:")
    assert texts[1].startswith("<b>book</b> a book") and texts[1].endswith("note.")
    assert texts[2].startswith("<b>booklet</b>")


def test_a_list_of_phrases_after_a_colon_is_sent_item_by_item() -> None:
    """Origin: 134 p3 ("All articles have the following elements:" then one-line bullets).
    Items that stop on no mark are bullets, not the sentence's enumeration: the sentence is
    one request and each item another (its first was read into the sentence)."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    y = sheet.paragraph(INTRO, WIDE, TOP)
    y = sheet.paragraph("All articles that we publish have the following elements:", WIDE, y)
    items = ["titleblock and author information", "headings and subheadings", "bibliography"]
    for item in items:
        sheet.writer.append((WIDE[0] + 6, y), "\u2022", TEXT, SIZE)
        y = sheet.paragraph(item, (WIDE[0] + 18, WIDE[1]), y, indent=False)
    sheet.paragraph(OUTRO, WIDE, y + 6)
    found = passages(read(sheet.done()))
    texts = [p.text for p in found]
    assert "All articles that we publish have the following elements:" in texts
    assert all(item in texts for item in items)


def _one_full_line(words: str, ending: str) -> str:
    """``words`` cut so that, with ``ending`` after them, they fill one indented line of
    the page's column and no more."""
    width = WIDE[1] - WIDE[0]
    chosen = words.split()
    while len(wrap(" ".join([*chosen, ending]), width, 12.0)) > 1:
        chosen.pop()
    return " ".join([*chosen, ending])


def test_a_one_line_piece_run_full_goes_on_past_the_page() -> None:
    """Origin: 129 p3 and p5 (R News: a paragraph's only line at a page's foot, run to the
    column's edge, "... For a more detailed description Genz and Bretz" | "(1999) might be
    referred to."; "... We hope that this is helpful to users" | "/ programmers who ..."):
    a one-line piece is full when it reaches its column's edge, and a piece that opens with
    a mark no sentence opens with goes on the sentence before it."""
    for ending, opening in (
        ("Genz and Bretz", "(1999) might be referred to for the details of the method."),
        ("helpful to users", "/ programmers who deal with multiple testing problems."),
    ):
        line = _one_full_line(INTRO, ending)
        found = passages(read(_cut_by_the_page(line, opening)))
        passage = passage_with(found, ending)
        assert [p.page for p in passage.pieces] == [0, 1], [p.text for p in found]
        assert f"{ending} {opening.split()[0]}" in passage.text


def test_a_list_that_a_sentence_opens_without_a_colon_goes_on_it() -> None:
    """Origin: 122 p8 ("... it has to be assured in addition that" | "• the model only
    depends on a linear predictor (...)," | "• a bread method exists ..."): the sentence
    stops on a word no sentence ends with and the items go on it in lower case, each ending
    with a comma or the sentence's stop: one request, the bullets kept."""
    items = [
        "the model only depends on a linear predictor of the data,",
        "the working residuals can be extracted from the fitted model, and",
        "the hat values are available for the model.",
    ]
    data = bulleted_page("For the estimators it has to be assured in addition that", items)
    passage = passage_with(passages(read(data)), "assured in addition")
    assert len(passage.pieces) == 4 and all(p.label for p in passage.pieces[1:])
    assert passage.text.endswith(items[-1])
