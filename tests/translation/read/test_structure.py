"""Paragraph structure and roles on literal layouts: list items, footnotes, headings, captions,
algorithms, front matter and code; and the regions that must be sent (CJK text, text on a
coloured background, footnotes in the footer band, a paragraph continued from the previous
page), including a Chinese PDF made here with PyMuPDF."""

from __future__ import annotations

from collections.abc import Sequence

import pymupdf
import pytest

from tests.conftest import CORPUS_DIR
from tests.fakes.pseudo import pseudo_translate
from tests.helpers.pdfgen.layouts import H, block, line, page, span, text_block
from tests.helpers.pdfgen.sheet import words_at
from translation.pdf import render_mono
from translation.read.blocks.front_matter import looks_like_names, name_with_affiliation
from translation.read.blocks.list_items import list_label
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.flow.passage import passages, translated
from translation.read.layout import Block
from translation.read.math.formulas import protect, restore
from translation.read.math.notation import only_citation, only_notation
from translation.read.numbering.captions import caption_label
from translation.read.paragraph import Align, Paragraph, ParagraphKind
from translation.read.segment import segment
from translation.read.style.style_marks import without_tags
from translation.read.words.vocabulary import Vocabulary
from translation.read.words.word import WORD_RE


def rows_block(
    rows: Sequence[tuple[str, float]],
    top: float,
    size: float = 10.0,
    font: str = "Times-Roman",
    fixed: bool = False,
) -> Block:
    """One block of rows given as (text, x), 1.2 sizes apart (``fixed``: in a typewriter
    face, see ``tests.helpers.pdfgen.layouts.span``)."""
    return block(
        *(
            line(span(t, x, top + i * 1.2 * size, size, font, fixed))
            for i, (t, x) in enumerate(rows)
        )
    )


def output(para: Paragraph, lang: str = "ko") -> str:
    """What the reader gets: the pseudo translation with placeholders and label restored."""
    return restore(pseudo_translate(para.text, lang), para)


FILLER = [
    "Body text of the usual size runs on in this column for a",
    "while, so that the document has a clear body size to it.",
]

# --- list items -----------------------------------------------------------------------------


def test_list_items_are_paragraphs_of_their_own_with_their_label_first() -> None:
    rows = [
        ("We experiment with three approaches for entity linking here:", 60),
        ("I. Statistical: uses one or more statistical models for", 60),
        ("predicting mention spans and linking them in a KB.", 60),
        ("II. Hybrid: defines a small number of hand-written rules", 60),
        ("for matching the input text to candidate entities.", 60),
        ("III. Off-the-shelf: uses existing libraries with minimal", 60),
        ("post-processing to extract and link entities to the KB.", 60),
    ]
    got = segment([page(0, rows_block(rows, 100))])
    assert [p.kind for p in got] == [ParagraphKind.BODY] + [ParagraphKind.LIST_ITEM] * 3
    assert [p.label for p in got[1:]] == ["I. ", "II. ", "III. "]
    assert got[2].text.startswith("Hybrid: defines")  # the label is not sent
    for para, label in zip(got[1:], ["I. ", "II. ", "III. "], strict=True):
        assert output(para).startswith(label)


def test_numbering_inside_a_sentence_does_not_start_an_item() -> None:
    rows = [
        ("We compare the two settings of the model in this study,", 60),
        ("(1) the first one with frozen weights and also the", 60),
        ("second one with all weights trained from scratch.", 60),
    ]
    (para,) = segment([page(0, rows_block(rows, 100))])
    assert para.kind == ParagraphKind.BODY and para.label == ""
    assert "(1) the first one" in para.text


def test_a_marker_run_into_the_text_is_text_where_a_line_opens_with_the_next() -> None:
    """02 p7: "...: i) improving ... population)." then a line opening "ii) aggregating":
    the enumeration began inside a line, so "ii)" is its next marker, not a list item."""
    rows = [
        ("Three research directions follow from this work and other", 60),
        ("projects, as in earlier work: i) improving the quality and", 60),
        ("enriching the content of the graph (e.g., ontology match).", 60),
        ("ii) aggregating domain-specific extractions across the many", 60),
        ("papers to enable a better understanding of the literature.", 60),
    ]
    (para,) = segment([page(0, rows_block(rows, 100))])
    assert para.kind == ParagraphKind.BODY and para.label == "", para
    assert "ontology match). ii) aggregating domain-specific" in para.text, para.text
    # Markers that each open a line after a colon are a list.
    rows = [
        ("We follow two directions from this work in the future:", 60),
        ("i) improving the quality and enriching the graph.", 60),
        ("ii) aggregating the extractions across many papers.", 60),
    ]
    got = segment([page(0, rows_block(rows, 100))])
    assert [p.label for p in got] == ["", "i) ", "ii) "], got


def test_a_series_of_lines_led_by_a_word_and_a_number_starts_at_its_first_line() -> None:
    """03 p20: "Summary 1 (snippet shown) = ..." after a full line ending a sentence was the
    tail of the paragraph before it, while "Summary 2", "Summary 3" were units of their own."""
    rows = [
        ("Each summary is rated for its correctness against a source,", 60),
        ("for example one that says vitamin C was isolated in 1928.", 60),
        ("Summary 1 (snippet) = chicken contains vitamin C.", 60),
        ("Summary 2 (snippet) = apple contains vitamin C.", 60),
        ("Summary 3 (snippet) = vitamin C was found in 1912.", 60),
    ]
    got = [p.text for p in segment([page(0, rows_block(rows, 100))])]
    assert got[0].endswith("isolated in 1928."), got
    assert [t[:9] for t in got[1:]] == ["Summary 1", "Summary 2", "Summary 3"], got


def test_a_numbered_list_after_a_line_ended_by_a_dash_starts_with_its_first_item() -> None:
    """03 p20: "... the following workflow while annotating documents —", the line ended
    short, then "1. Spend the first 15 minutes ...": item 1 was read into the sentence."""
    rows = [
        ("Every three rows hold summaries of one source document, and", 60),
        ("we suggest this workflow —", 60),
        ("1. Spend the first 15 minutes reading the source document", 60),
        ("and getting a sense of the facts it mentions.", 60),
        ("2. Spend 5 minutes annotating the summaries in each row.", 60),
    ]
    got = segment([page(0, rows_block(rows, 100))])
    assert [p.kind for p in got] == [ParagraphKind.BODY] + [ParagraphKind.LIST_ITEM] * 2, got
    assert [p.label for p in got] == ["", "1. ", "2. "], got
    assert got[0].text.endswith("this workflow —"), got[0].text


def test_list_label_forms() -> None:
    assert list_label("• an item") == "• "
    assert list_label("(a) an item") == "(a) "
    assert list_label("iv) an item") == "iv) "
    assert list_label("① 첫째 항목") == "① "
    assert list_label("3.11. 코로나") == ""
    assert list_label("1.5 times larger") == ""


KO_DASHED = (
    (88.0, "- AI 기술을 활용해 오탐율을 줄이고, 빠른 분석 탐지를 넘어 자동적인 격리까지 제공"),
    (88.0, "- 각종 사이버위협에 대한 하나의 기법 또는 알고리즘이 아닌, 침해 대응의 각 요소별로"),
    (95.0, "최적화된 알고리즘과 기법을 지원하고 이를 통합할 수 있는 기술 필요"),
    (88.0, "- 보안 위협 정보의 공유와 분석을 자동화하는 기술 개발"),
)


def test_hyphen_bullets_start_list_items_and_a_dash_in_a_sentence_does_not() -> None:
    """Origin: corpus2 143 p4 (a Korean report: "- AI 기술을 활용해 ... 방향으로 진화",
    "- 각종 사이버위협에 ... 기술 필요", bullets of a hyphen-minus in the noun style): read as
    body text, each a sentence with no stop. A hyphen-minus, a space and a letter that is no
    lower-case Latin one open an item, its wrapped line going on under it; a line a dash opens
    inside a sentence ("- which ...", "- 3 = 2") goes on its paragraph."""
    doc = pymupdf.open()
    pg = doc.new_page(width=595, height=842)
    words_at(pg, [(x, 100.0 + 16 * i, t, 9.0, "korea") for i, (x, t) in enumerate(KO_DASHED)])
    latin = (
        "The committee reviewed every proposal that arrived before the deadline in the",
        "- which was set early this year - and asked the authors to describe their methods.",
    )
    words_at(pg, [(72.0, 300.0 + 12 * i, t, 10.0, "tiro") for i, t in enumerate(latin)])
    got = extract_paragraphs(open_document(bytes(doc.tobytes())))
    items = [p for p in got if p.kind is ParagraphKind.LIST_ITEM]
    assert [p.label for p in items] == ["- "] * 3, [(p.kind, p.text) for p in got]
    assert items[1].text.endswith("통합할 수 있는 기술 필요")
    assert [" ".join(p.text.split()) for p in got if p.kind is ParagraphKind.BODY] == [
        " ".join(latin)
    ]
    assert list_label("- 3 = 2") == "" and list_label("- which is new") == ""


def test_the_hyphen_bullets_of_a_real_korean_report_are_list_items() -> None:
    """Origin: corpus2 143 p4: its two hyphen bullets are list items, each sent alone."""
    path = CORPUS_DIR.parent / "corpus2" / "143_ko_ict_security_report_indesign.pdf"
    if not path.is_file():
        pytest.skip(f"corpus2 paper not found at {path}")
    got = extract_paragraphs(open_document(path.read_bytes()), pages=[3])
    items = [p for p in got if p.kind is ParagraphKind.LIST_ITEM]
    assert [p.label for p in items] == ["- ", "- "]
    assert items[0].text.endswith("진화") and items[1].text.endswith("기술 필요")


# --- footnotes ------------------------------------------------------------------------------


def test_footnotes_are_separate_with_their_marker_first_and_no_letter_lost() -> None:
    body = text_block(FILLER + ["and the hybrid approach gives the highest yield."], 60, 100)
    notes = block(
        line(
            span("4", 60, 597, 6.0), span("We also tried a pure rules-based method", 63, 600, 8.0)
        ),
        line(span("which disambiguates all mentions deterministically.", 60, 610, 8.0)),
        line(span("5", 60, 617, 6.0), span("The TagMe APIs are at https://sobigdata.", 63, 620, 8)),
        line(span("d4science.org/web/tagme/tagme-help", 60, 630, 8.0, "F31", fixed=True)),
    )
    got = segment([page(0, body, notes)])
    kinds = [p.kind for p in got]
    assert kinds == [ParagraphKind.BODY, ParagraphKind.FOOTNOTE, ParagraphKind.FOOTNOTE]
    four, five = got[1], got[2]
    assert four.label == "4" and four.text.startswith("We also tried")  # no stray "W"
    assert five.label == "5" and five.text.startswith("The TagMe APIs")
    assert output(four).startswith("4We also") is False and output(four).startswith("4")
    assert output(five).startswith("5")
    assert "https://sobigdata.d4science.org/web/tagme/tagme-help" in output(five)


def test_small_print_enumeration_inside_a_sentence_is_no_footnote() -> None:
    small = [
        ("In short, the new model is invariant to the order of rows", 60),
        ("(1) and columns, and it reads tables better than others.", 60),
    ]
    got = segment([page(0, text_block(FILLER * 3, 60, 60), rows_block(small, 200, 8.0))])
    assert got[-1].kind == ParagraphKind.BODY and "(1) and columns" in got[-1].text


def test_footnotes_running_into_the_footer_band_are_sent() -> None:
    body = text_block(FILLER * 4, 60, 100)
    band = H - 0.08 * H  # the bottom 8% is where page footers live
    notes = rows_block(
        [
            ("① 这是第一个脚注，说明了实验中使用的数据集来源。", 60),
            ("② 这是第二个脚注，说明了数据的处理方法和过滤规则，", 60),
            ("并给出了参考链接。", 60),
        ],
        band - 12,
        8.0,
    )
    number = text_block(["7"], 295, H - 20, 9)
    got = segment([page(0, body, notes, number)])
    notes_got = [p for p in got if p.kind == ParagraphKind.FOOTNOTE]
    assert [p.label for p in notes_got] == ["① ", "② "]
    assert notes_got[1].text.endswith("并给出了参考链接。")
    assert all("7" != p.text for p in got)  # the page number is still no paragraph


def test_body_lines_running_into_the_footer_band_stay_with_their_column() -> None:
    """A column whose text runs two lines into the bottom 8 % (where feet live), the last of
    them a new sentence: both lines are read with the column, while a foot repeated on every
    page is still no text. Origin: corpus2 104 (IEEE, 1997), every column's last two lines
    were taken for a foot and never sent."""
    band = H - 0.08 * H
    subjects = ("server", "scheduler", "controller")  # each page's column says its own words

    def column(subject: str) -> list[str]:
        return [
            f"The {subject} reads each block of the stream in one round, and",
            "the rounds follow one another without a gap between them so",
            f"that the disk is never idle while the {subject} waits for data.",
            f"Otherwise the {subject}'s read rate bounds the users it serves.",
        ]

    rows = len(FILLER) * 20 + len(column(""))
    top = band + 3.5 * 12 - rows * 12  # the last two rows stand inside the band
    pages = [
        page(
            index,
            text_block(FILLER * 20 + column(subject), 60, top),
            text_block(["Proceedings of the Workshop on Test Pages"], 60, H - 24, 8),
            text_block([str(index + 1)], 295, H - 12, 8),
        )
        for index, subject in enumerate(subjects)
    ]
    texts = [p.text for p in segment(pages)]
    for subject in subjects:
        ends = [t for t in texts if f"the {subject} waits for data." in t]
        assert len(ends) == 1 and ends[0].endswith(
            f"the {subject}'s read rate bounds the users it serves."
        )
    assert not any("Proceedings" in t for t in texts)


# --- headings, captions, run-in headings ----------------------------------------------------


def test_numbered_heading_is_its_own_paragraph() -> None:
    rows = [
        ("and the representation of each word is obtained here.", 60),
        ("3.1 Encoding module", 60),
        ("The encoding module includes the following two parts, namely", 60),
        ("the embedding layer and the contextual encoder.", 60),
    ]
    got = segment([page(0, text_block(FILLER, 60, 100), rows_block(rows, 130))])
    assert [p.text for p in got][2] == "3.1 Encoding module"
    assert got[2].kind == ParagraphKind.HEADING
    assert got[3].text.startswith("The encoding module")


def test_a_short_line_with_a_cjk_section_number_is_a_heading() -> None:
    """A Chinese report's section numbers ("一、", "（二）") number no list: a short line they
    open is a heading, not the first line of the body text under it (corpus2 135 p6, whose
    "（二）重大资产出售事项进展" ran into the paragraph below)."""
    body = "公司于二〇一七年召开董事会会议，审议通过了公司重大资产出售方案，公司下属两家全资子"
    rows = [("（二）重大资产出售事项进展", 60), (body, 60), ("公司拟将所持有的股权出售。", 60)]
    got = segment([page(0, rows_block(rows, 100))])
    assert [p.kind for p in got] == [ParagraphKind.HEADING, ParagraphKind.BODY]
    assert got[0].text == "（二）重大资产出售事项进展"


def test_a_full_line_starting_with_a_date_is_no_heading() -> None:
    rows = [
        ("이와 관련하여 세계보건기구(WHO)는 지난 2020.", 75),
        ("3.11. 코로나-19가 세계적 유행(Pandemic) 단계에 돌입하였음을", 60),
        ("선언하였다.", 60),
    ]
    (para,) = segment([page(0, rows_block(rows, 100))])
    assert para.kind == ParagraphKind.BODY and "3.11." in para.text


def test_captions_are_recognised_and_prose_about_figures_is_not() -> None:
    rows = [
        ("Fig. 2 shows the overall architecture of the model. It has three modules:", 75),
        ("encoding module, graph module, and classifier module, in this order.", 60),
    ]
    caption = text_block(["Figure 2. Overall architecture of the proposed method."], 60, 300)
    got = segment([page(0, rows_block(rows, 100), caption)])
    assert [p.kind for p in got] == [ParagraphKind.BODY, ParagraphKind.CAPTION]
    assert got[0].text.endswith("in this order.")  # the colon at a full line's end goes on


def test_a_caption_label_parted_by_a_dash_or_in_another_language_is_a_caption() -> None:
    """119 (a French paper): "FIG. 1 – Les dimensions ..." went to the body; where it stood at
    a page's top, the paragraph continued from the page before ran through it."""
    rows = [
        ("The paragraph before the figures ends here with its sentence.", 75),
        ("It goes on for a second line, as paragraphs do in this paper.", 60),
    ]
    captions = [
        text_block([label], 60, 300 + 40 * n)
        for n, label in enumerate(
            [
                "FIG. 1 – Les dimensions de notre exemple jouet",
                "Tableau 2 : Résultats des tests sur les logs",
                "Abbildung 3: Aufbau des Systems",
            ]
        )
    ]
    got = segment([page(0, rows_block(rows, 100), *captions)])
    assert [p.kind for p in got] == [ParagraphKind.BODY, *[ParagraphKind.CAPTION] * 3]
    assert caption_label("Fig. 4 - Efficiency of lookup", 0)
    assert not caption_label("Fig. 4 shows the efficiency of lookup", 0)
    assert not caption_label("Tableau 4 montre les résultats", 0)


def test_run_in_heading_starts_a_paragraph() -> None:
    rows = block(
        line(span("The previous paragraph ends with a full sentence here.", 60, 100)),
        line(
            span("Results.", 60, 112, font="Times-Bold"), span(" We run our final tests", 105, 112)
        ),
        line(span("on a held-out set of papers from the archive.", 60, 124)),
    )
    got = segment([page(0, rows)])
    assert [without_tags(p.text)[:8] for p in got] == ["The prev", "Results."]


def test_first_line_indent_ending_in_a_number_is_one_paragraph() -> None:
    rows = [
        ("The organisation declared the pandemic on the date 2020.", 75),
        ("3.11 and the spread of the disease went on for months.", 60),
    ]
    (para,) = segment([page(0, rows_block(rows, 100))])
    assert para.text.endswith("for months.")


# --- algorithms -----------------------------------------------------------------------------


def test_algorithm_lines_stay_lines_and_keep_their_labels() -> None:
    algo = block(
        line(
            span("Algorithm 1", 60, 100, font="Times-Bold"), span(" Bootstrap interval", 120, 100)
        ),
        line(span("Input: annotations of the summaries", 70, 112, 9.0)),
        line(span("Output: confidence interval of the statistic", 70, 123, 9.0)),
        line(span("1: samples get an empty list", 60, 134, 9.0)),
        line(span("2: for each iteration do", 60, 145, 9.0)),
        line(span("3: compute the statistic and append to samples", 75, 156, 9.0)),
        line(span("4: end for", 60, 167, 9.0)),
    )
    got = segment([page(0, text_block(FILLER * 3, 60, 400), algo)])
    algo_paras = [p for p in got if p.page == 0 and p.bbox[1] < 200]
    assert algo_paras[0].kind == ParagraphKind.CAPTION
    lines = algo_paras[1:]
    assert all(p.kind == ParagraphKind.ALGORITHM for p in lines)
    assert [p.label for p in lines] == ["Input: ", "Output: ", "1: ", "2: ", "3: "]
    assert output(lines[1]).startswith("Output: ")
    assert not any(p.text.startswith("end") for p in got)  # "end for" alone is not sent


# --- front matter ---------------------------------------------------------------------------


def test_front_matter_names_affiliations_and_e_mails() -> None:
    # Centred on the text's axis (x = 300): the body lines run from 60 to 540.
    title = text_block(["A Study of Structure in Papers"], 195, 80, 14.0, font="Times-Bold")
    names = block(line(span("Ann Smith† Bob Jones‡ Carl D. Weld†", 195, 110, 12.0, "Times-Bold")))
    affiliations = rows_block(
        [("†Allen Institute for Artificial Intelligence", 168), ("‡University of Somewhere", 228)],
        130,
        12.0,
    )
    mail = block(line(span("{ann,bob}@allenai.org", 242, 160, 11.0, "F31", fixed=True)))
    abstract = text_block(["Abstract"], 276, 200, 12.0, font="Times-Bold")
    body = text_block([" ".join(FILLER)[:96]] * 3, 60, 220)
    got = segment([page(0, title, names, affiliations, mail, abstract, body)])
    texts = [p.text for p in got]
    assert not any("Ann" in t for t in texts)  # names are printed as they are
    authors = [p for p in got if p.kind == ParagraphKind.AUTHOR]
    assert [p.text for p in authors] == [
        "†Allen Institute for Artificial Intelligence",
        "‡University of Somewhere",
    ]
    assert all(p.align == Align.CENTER for p in authors)
    assert not any("allenai" in t for t in texts)  # the e-mail line is not sent: intact


def test_names_and_not_names() -> None:
    assert looks_like_names("Arman Cohan†∗ Sergey Feldman†∗ Iz Beltagy† Daniel S. Weld†,‡")
    assert looks_like_names("Ann Smith, Bob van der Berg and Carl Jones")
    assert not looks_like_names("†Google Assistant")
    assert not looks_like_names("Allen Institute for Artificial Intelligence")
    assert not looks_like_names("Attention Is All You Need")
    # A name line going on after an envelope icon, and the line it wraps onto (12 p1).
    assert looks_like_names("), Ruochen Zhang2, Melissa Dell3, Benjamin Charles Germain")
    assert looks_like_names("Lee4, Jacob Carlson5, and Weining Li5")
    assert not looks_like_names("Results, Error Analysis, and Future Work")
    assert not looks_like_names("Lee, Jacob Carlson")
    # Raised marks as placeholders' marks, TeX's spacing accent, a surname inside a mark.
    assert looks_like_names("Nicolas Roisin†, Thibault P. Delhaye†, Nicolas Andr´†, Denis Flandre†")
    pairs = zip("ABCDEFGHIJ", "KLMNOPQRST", strict=True)
    many = " ".join(f"{first} {last}†" for first, last in pairs)
    assert not looks_like_names(many)  # single letters are no names
    names = "Kyle † Zejiang Shen† Benjamin Newman† Joseph Chee Chang† Russell Authur† Erin Bransom†"
    assert looks_like_names(names)
    assert not looks_like_names("Kyle † Zejiang Shen†")  # too few names to spare one
    assert name_with_affiliation("MARTI A. HEARST, University of California, Berkeley, USA")
    assert name_with_affiliation("Tal August, University of Washington, USA")
    assert not name_with_affiliation("Results on Seven Tasks, against the University baseline")
    assert not name_with_affiliation("MARTI A. HEARST, Berkeley, USA")


def test_a_urls_file_name_after_a_drawn_underscore_is_the_urls() -> None:
    """TeX draws "\\_" as a rule: "pretrained_models.html" reads "pretrained models.html"
    (value-error p3's footnote sent "models.html" to the model)."""
    chars = "See https://www.sbert.net/docs/pretrained models.html for more."
    text, originals, _ = protect(chars, "t" * len(chars))
    assert list(originals.values()) == ["https://www.sbert.net/docs/pretrained models.html"]
    assert "models" not in text
    chars = "See https://www.example.org/docs models of this kind."
    _, originals, _ = protect(chars, "t" * len(chars))
    assert list(originals.values()) == ["https://www.example.org/docs"]


def test_an_e_mail_address_keeps_its_owners_name() -> None:
    """key-error p1: "Email address: ... (Nicolas Roisin)": the name went out to the model."""
    chars = "Email address: nicolas.roisin@uclouvain.be (Nicolas Roisin)"
    text, originals, _ = protect(chars, "t" * len(chars))
    assert text == "Email address: {v1}"
    assert list(originals.values()) == ["nicolas.roisin@uclouvain.be (Nicolas Roisin)"]
    chars = "Write to ann@x.org (in English) soon."
    text, _, _ = protect(chars, "t" * len(chars))
    assert "(in English)" in text


def test_brace_grouped_e_mails_are_one_placeholder_and_come_back_whole() -> None:
    chars = "Mail {armanc,sergey,danw}@allenai.org now"
    text, originals, _ = protect(chars, "t" * len(chars))
    assert list(originals.values()) == ["{armanc,sergey,danw}@allenai.org"]
    para = Paragraph("p0-b1", 0, text, originals, (0, 0, 1, 1), (), 10.0)
    assert "{armanc,sergey,danw}@allenai.org" in restore(pseudo_translate(text, "ko"), para)


# --- code -----------------------------------------------------------------------------------


def test_code_is_not_sent_and_identifiers_in_prose_are_placeholders() -> None:
    code = rows_block(
        [("{'window': [5, 10, 15],", 60), ("'epochs': [50, 100, 200]},", 66)],
        100,
        10,
        "F31",
        fixed=True,
    )
    prose = block(
        line(
            span("The other parameters were set as follows:", 60, 150),
            span("vector_size=300", 270, 150, font="F32", fixed=True),
            span(", which we kept.", 345, 150),
        )
    )
    got = segment([page(0, code, prose)])
    (para,) = got
    assert "window" not in para.text and "vector_size" not in para.text
    assert "vector_size=300" in output(para)


# --- CJK measured by characters -------------------------------------------------------------


def test_chinese_characters_count_as_words() -> None:
    assert len(WORD_RE.findall("本文研究了基于深度学习的方法")) == 14
    assert WORD_RE.findall("한국어 문장") == ["한국어", "문장"]


def test_korean_body_size_comes_from_short_korean_lines() -> None:
    korean = [f"한국어 본문은 한 줄에 스물다섯 글자 정도가 됩니다 {i}." for i in range(12)]
    notes = [
        "1) 각주는 작은 글씨로 쓰고 한 줄이 본문보다 길어서 마흔 자가 넘는 경우가 많습니다."
    ] * 3
    # Two body lines whose sentence goes on in the next column: no heading.
    tail = ["현재 「약관의 규제에 관한 법률」을 살펴", "보면 약관은 신의성실의 원칙에 따라"]
    got = segment(
        [
            page(
                0,
                text_block(korean, 60, 100, 11.5),
                text_block(tail, 60, 300, 11.5),
                text_block(notes, 60, 600, 8.5),
            )
        ]
    )
    # Each one-sentence line with room for the next word is its own paragraph; all are body.
    body = [p for p in got if p.kind == ParagraphKind.BODY]
    assert [p.text for p in got if p.kind != ParagraphKind.FOOTNOTE] == [p.text for p in body]
    assert body[-1].text.startswith("현재") and body[-1].text.endswith("원칙에 따라")


ZH_TWO_LINES = [
    "在表格中生成固定宽度的列有两种方法，一种是通过扩展列之间的空隙，另一种是扩展某些指定",
    "这个环境的使用方法和前面的环境相同，不同之处在于它增加了一个参数来指定每一列的宽",
]
ZH_TAILS = ["的列。", "度。"]


def test_a_chinese_paragraph_s_short_last_line_below_its_indent_is_its_own() -> None:
    """Origin: 136_zh p11. A Chinese paragraph indents its first line by two full-width
    characters (TeX's 2em, a hair over twice the size); its last line, back at the column's
    edge and a few characters long, ends the paragraph's sentence ("...另一种是扩展某些指定" |
    "的列。"): one paragraph, one request."""
    doc = pymupdf.open()
    pg = doc.new_page(width=595, height=842)
    size, left, y = 10.0, 72.0, 100.0
    for first, tail in zip(ZH_TWO_LINES, ZH_TAILS, strict=True):
        words_at(
            pg,
            [
                (left + 2 * size + 0.05, y, first, size, "china-s"),
                (left, y + 15, tail, size, "china-s"),
            ],
        )
        y += 31
    paras = extract_paragraphs(open_document(doc.tobytes()))
    assert [p.text for p in paras] == [a + b for a, b in zip(ZH_TWO_LINES, ZH_TAILS, strict=True)]


@pytest.mark.corpus
def test_a_chinese_faq_sends_each_paragraph_with_its_short_last_line() -> None:
    """Origin: 136_zh p11 (the CTeX FAQ, question 57): "的列。" and "档。", each the last line
    of a paragraph, were sent as requests of their own."""
    path = CORPUS_DIR.parent / "corpus2" / "136_zh_ctex_faq_dvipdfmx_p12of41.pdf"
    if not path.is_file():
        pytest.skip(f"corpus2 not found at {path.parent}")
    paras = extract_paragraphs(open_document(path.read_bytes()))
    texts = [p.text for p in paras if p.page == 10]
    (first,) = [t for t in texts if "另一种是扩展某些指定" in t]
    (second,) = [t for t in texts if "请仔细阅读它的文" in t]
    assert first.endswith("另一种是扩展某些指定的列。")
    assert second.endswith("请仔细阅读它的文档。")
    assert "的列。" not in texts and "档。" not in texts


# --- text on backgrounds, continued paragraphs ----------------------------------------------


def test_text_on_a_background_image_or_bar_is_sent_and_figure_labels_are_not() -> None:
    bar = text_block(["1 Introduction"], 70, 300, 13.5, font="Times-Bold")
    box_rows = [
        "This summary box holds several full lines of text that run across the",
        "whole box from its left edge to its right edge like a paragraph does.",
    ]
    box = text_block(box_rows, 70, 200, 11.0)
    labels = text_block(["Encoder", "Decoder"], 420, 520, 7)
    figures = (
        (60.0, 180.0, 540.0, 230.0),
        (60.0, 285.0, 300.0, 310.0),
        (400.0, 500.0, 560.0, 600.0),
    )
    layout = page(0, box, bar, labels, text_block(FILLER * 3, 60, 400, 11.0), figures=figures)
    got = " | ".join(p.text for p in segment([layout]))
    assert "summary box" in got and "1 Introduction" in got
    assert "Encoder" not in got


def test_a_paragraph_finished_at_the_top_of_the_next_page_is_sent() -> None:
    first = page(0, text_block(FILLER * 8 + ["and the sentence goes on to the next"], 60, 100))
    second = page(
        1,
        text_block(["page where it ends."], 60, 75),
        text_block(FILLER * 8, 60, 110),
    )
    got = segment([first, second])
    assert any(p.page == 1 and p.text == "page where it ends." for p in got)


# --- a Chinese paper, made with PyMuPDF -----------------------------------------------------

ZH_SENTENCE = (
    "本文研究了基于深度学习的文本翻译方法并提出了一种新的模型结构实验表明该方法优于基线系统。"
)
ZH_OTHER = "第二节讨论了模型在不同数据集上的表现以及参数规模对翻译质量的影响。"


def chinese_pdf() -> bytes:
    """Two pages of Chinese: a running header, a paragraph that ends on the second page's
    first line, circled footnotes ①②③ whose last lines reach the footer band, page numbers."""
    doc = pymupdf.open()
    size, lead, left = 10.5, 16.0, 72.0
    per_line = 42
    text = ZH_SENTENCE * 60
    lines = [text[i : i + per_line] for i in range(0, len(text), per_line)]
    other = [(ZH_OTHER * 20)[i : i + per_line] for i in range(0, 420, per_line)]
    for number in (1, 2):
        pg = doc.new_page(width=595, height=842)
        words_at(
            pg,
            [(left, 50, "中文学报 第十二卷", 9, "china-s"), (290, 820, str(number), 9, "china-s")],
        )
    one, two = doc[0], doc[1]
    y = 100.0
    for k, row in enumerate(lines[:40]):
        words_at(one, [(left + (2 * size if k == 0 else 0), y, row, size, "china-s")])
        y += lead
    notes = [
        "①这是第一个脚注，说明了实验中使用的数据集来源。",
        "②这是第二个脚注，说明了数据的处理方法，",
        "并给出了过滤规则。",
        "③这是第三个脚注。",
    ]
    for i, note in enumerate(notes):
        words_at(one, [(left, 745 + 12 * i, note, 8, "china-s")])
    assert not lines[39].endswith("。")  # the paragraph goes on to the next page
    words_at(two, [(left, 80, "方法优于基线系统。", size, "china-s")])
    y = 110.0
    for k, row in enumerate(other):
        words_at(two, [(left + (2 * size if k == 0 else 0), y, row, size, "china-s")])
        y += lead
    data: bytes = doc.tobytes()
    return data


def test_chinese_footnotes_and_a_continued_paragraph_are_sent() -> None:
    doc = open_document(chinese_pdf())
    paras = extract_paragraphs(doc)
    notes = [p for p in paras if p.kind == ParagraphKind.FOOTNOTE]
    assert [p.label for p in notes] == ["①", "②", "③"]
    assert notes[1].text.endswith("并给出了过滤规则。")
    assert any(p.page == 1 and p.text == "方法优于基线系统。" for p in paras)
    assert not any("中文学报" in p.text for p in paras)  # the running header stays
    body = "".join(p.text for p in paras if p.kind == ParagraphKind.BODY)
    assert len(body) >= 50 * 42  # every line of both pages


def test_a_citation_opening_a_line_is_no_list_item() -> None:
    assert list_label("[18] experiment with citation based approaches") == ""
    assert list_label("[18] Ann Smith. 2020. A title.") == "[18] "


def test_a_code_block_after_prose_is_not_sent_and_the_prose_around_it_is() -> None:
    prose = rows_block([("The configuration of the model we used is as follows:", 60)], 100)
    code = rows_block(
        [("model = Model(dim=300, layers=4)", 60), ("model.fit(train_data, epochs=10)", 60)],
        112,
        10.0,
        "F31",
        fixed=True,
    )
    after = rows_block([("We then evaluate the trained model on the held-out set.", 60)], 136)
    got = segment([page(0, block(*prose.lines, *code.lines, *after.lines))])
    assert [p.text for p in got] == [
        "The configuration of the model we used is as follows:",
        "We then evaluate the trained model on the held-out set.",
    ]


def test_a_line_of_identifiers_inside_a_sentence_goes_on_in_prose() -> None:
    """A sentence whose line breaks before its identifiers ("(e.g.," | "doc.sentences,
    doc.tokens)" | "(Figure 1). Each ...": papermage p3) is one paragraph, not cut where the
    typewriter line ends."""
    rows = [
        ("Layers can be accessed as attributes of a Document (e.g.,", 60),
        ("doc.sentences, doc.figures, doc.tokens)", 60),
        ("(Figure 1). Each Layer is a sequence of content units.", 60),
    ]
    lines = [
        rows_block([row], 100 + 12 * i, 10.0, "F31" if i == 1 else "Times-Roman", i == 1)
        for i, row in enumerate(rows)
    ]
    got = segment([page(0, block(*(ln for b in lines for ln in b.lines)))])
    assert len(got) == 1, [p.text for p in got]
    assert got[0].text.endswith("(Figure 1). Each Layer is a sequence of content units.")


def test_notation_is_names_in_capitals_the_paper_never_prints_in_lower_case() -> None:
    seen = Vocabulary(lowered=frozenset({"all", "we", "seq"}))
    assert only_notation("TAPASBASE 16p", seen)
    assert only_notation("DEP (LAS)", seen)
    assert only_notation("HGEED‡ [17]", seen)
    assert only_notation("{v1} BLEU", seen)
    assert not only_notation("ALL", seen)  # the paper prints "all"
    assert not only_notation("SEQ", seen)
    assert not only_notation("Self-BLEU", seen)
    assert not only_notation("BLEU score", seen)
    assert not only_notation("41.2", seen)  # a quantity, no name


def test_tex_accents_set_before_their_letters_make_one_letter() -> None:
    """TeX sets "\\\\"a" as the accent's glyph and the letter: "F¨arber", "Do˘gan" were sent in
    pieces and came back as two words."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    words_at(
        page,
        [(72, 100, "The corpus of Saier and F¨arber (2019) is used by Universit´e", 10, "helv")],
    )
    words_at(
        page, [(72, 113, "de Lyon and by ´Ecole Normale in their work on citations.", 10, "helv")]
    )
    (para,) = extract_paragraphs(open_document(doc.tobytes()))
    assert "Färber" in para.text and "Université" in para.text and "École" in para.text, para.text


def test_a_cell_of_citations_or_a_named_resource_with_its_citation_is_not_sent() -> None:
    assert only_citation("Li et al. (2016)")
    assert only_citation("Collier and Kim (2004)")
    assert only_citation("BC5CDR (Li et al., 2016)")
    assert only_citation("NCBI-disease (Dogan et al., 2014)")
    assert only_citation("GENIA (Kim et al., 2003) - LAS")
    assert only_citation("Wacker et al. [34]")
    assert only_citation("SciBERT (2019)")
    assert not only_citation("Sentence classification (Smith et al., 2020)")
    assert not only_citation("LED-4096")
    assert not only_citation("Results on the test set")


def test_a_contents_list_sends_each_entry_alone_without_its_leader_and_page() -> None:
    """Origin: 148 p2 (a contents page: "1.1 Security fundamentals. . . . . 2", the entries
    run together into one request per chapter, ending on a page number). Each entry is its
    own request, its text alone; the leader and the page number are kept as printed and
    stand on the translated page after the entry's translation."""
    entries = [
        ("Notices", "vii"),
        ("Preface", "xi"),
        ("Chapter 1. Securing the data", "1"),
        ("1.1 Security fundamentals", "2"),
        ("1.2 Current state of security", "2"),
        ("1.3 Security controls in the database", "3"),
        ("Chapter 2. Roles and separation of duties", "7"),
        ("2.1 Roles", "8"),
    ]
    doc = pymupdf.open()
    pdf_page = doc.new_page(width=595, height=842)
    words_at(pdf_page, [(72, 90, "Contents", 20, "tibo")])
    for k, (title, number) in enumerate(entries):
        y = 130 + 13 * k
        dots = "."
        while pymupdf.get_text_length(f"{title} {dots} .", "tiro", 10) < 440:
            dots += " ."
        words_at(pdf_page, [(72, y, f"{title} {dots} {number}", 10, "tiro")])
    data = bytes(doc.tobytes())
    paragraphs = extract_paragraphs(open_document(data))
    sent = [without_tags(p.text) for p in passages(paragraphs) if p.text != "Contents"]
    assert [s.split("{")[0].strip() for s in sent] == [t for t, _ in entries], sent
    assert not [s for s in sent if ". ." in s], sent
    # An entry names a section, as its heading does: a title, not a fragment of prose.
    assert {p.kind for p in paragraphs} == {ParagraphKind.HEADING}
    texts = translated(paragraphs, lambda text: pseudo_translate(text, "ko"))
    out = pymupdf.open(stream=render_mono(open_document(data), paragraphs, texts, "ko"))[0]
    lines = [" ".join(ln.split()) for ln in out.get_text().splitlines() if ln.strip()]
    ends = [ln.rsplit(" ", 1)[-1] for ln in lines if ". . ." in ln]
    assert ends == [number for _, number in entries], lines
    assert not [ln for ln in lines if "Security fundamentals" in ln], lines  # translated


def test_a_contents_entry_wrapped_into_the_next_column_is_one_request() -> None:
    """Origin: 131 p11 (a two-column change history indexed like a contents list): an entry
    whose first line ends the left column goes on at the right column's head, where its
    leader and page number end it; each entry is one request, and the entry after it is
    a request of its own."""
    doc = pymupdf.open()
    pdf_page = doc.new_page(width=595, height=842)

    def entry(x: float, y: float, text: str, number: str) -> None:
        dots = "."
        while pymupdf.get_text_length(f"{text} {dots} .", "tiro", 9) < 180:
            dots += " ."
        words_at(pdf_page, [(x, y, f"{text} {dots} {number}", 9, "tiro")])

    y = 100.0
    for k in range(20):
        entry(60, y, f"General: option number {k + 1} added", str(k + 2))
        y += 11
    words_at(pdf_page, [(60, y, "General: the heights of capitals changed from", 9, "helv")])
    entry(320, 100, "the old values to the new ones", "8")
    entry(320, 111, "General: new customisable string", "3")
    paragraphs = extract_paragraphs(open_document(bytes(doc.tobytes())))
    sent = [without_tags(p.text).split("{")[0].strip() for p in passages(paragraphs)]
    wrapped = "General: the heights of capitals changed from the old values to the new ones"
    assert wrapped in sent, sent
    assert "General: new customisable string" in sent, sent
    assert len(sent) == 22, sent
