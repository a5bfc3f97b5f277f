"""Paragraph roles and what is sent, on the real papers of the corpus (pages 1-based in the
names, 0-based in the code): list items and footnotes (02 p4), a numbered heading (07 p4), an
algorithm (03 p14), code (01 p12-13), front matter (01 p1), and the Korean brief 09, whose
summary box and section bars lie on images."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pymupdf
import pytest

from tests.fakes.pseudo import pseudo_translate, pseudo_words
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.math.formulas import restore
from translation.read.paragraph import Align, Paragraph, ParagraphKind
from translation.read.style.style_marks import without_tags

pytestmark = pytest.mark.corpus

PAPERS = {
    "01": "01_acl2020_specter_2col_math.pdf",
    "02": "02_naacl2018_s2_literature_graph_2col_short.pdf",
    "03": "03_eacl2023_longeval_2col_many_tables.pdf",
    "04": "04_arxiv2203.00274_tableformer_2col_math_tables.pdf",
    "05": "05_arxiv2206.10883_multilexsum_1col_preprint_37p.pdf",
    "07": "07_iop_jpcs2022_semeagat_1col_word_math.pdf",
    "09": "09_ko_nars_issue_brief_2020_korean.pdf",
    "12": "12_permissions_restricted_layoutparser_p1-2.pdf",
}


@cache
def _translated(path: Path, pages: tuple[int, ...]) -> tuple[list[Paragraph], bytes, bytes]:
    data = path.read_bytes()
    paras = extract_paragraphs(open_document(data), pages=list(pages))
    out = {p.id: restore(pseudo_translate(p.text, "ko"), p) for p in paras}
    return paras, render_mono(open_document(data), paras, out, "ko"), data


def translate(corpus_dir: Path, paper: str, *pages: int) -> tuple[list[Paragraph], bytes, bytes]:
    """Paragraphs of ``pages``, the mono output of their pseudo translation, the source."""
    return _translated(corpus_dir / PAPERS[paper], pages)


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_02_p4_list_items_and_footnotes(corpus_dir: Path) -> None:
    paras, mono, _ = translate(corpus_dir, "02", 3)
    items = [p for p in paras if p.kind == ParagraphKind.LIST_ITEM]
    assert [p.label for p in items] == ["I. ", "II. ", "III. "]
    assert [without_tags(p.text).split(":")[0] for p in items] == [
        "Statistical",
        "Hybrid",
        "Off-the-shelf",
    ]
    notes = [p for p in paras if p.kind == ParagraphKind.FOOTNOTE]
    assert [p.label for p in notes] == ["4", "5", "6"]
    assert notes[0].text.startswith("We also experimented")  # no stray "W", no "{v1}"
    assert notes[1].text.startswith("The TagMe APIs") and notes[2].text.startswith("We use v3.4")
    for para in items + notes:
        assert restore(pseudo_translate(para.text, "ko"), para).startswith(para.label)
    page = pymupdf.open(stream=mono)[3]
    words = page.get_text("words")
    for para in items + notes:  # the label is the first word of the paragraph's box
        x0, y0, _, _ = para.bbox
        x0 += para.indent  # a footnote's first line is indented, as in the source
        first = [
            w for w in words if abs(w[0] - x0) < 3 and y0 - 4 < w[1] < y0 + 0.5 * para.font_size
        ]
        assert first and first[0][4].startswith(para.label.strip()), para.label
    text = squeeze(page.get_text())
    assert "https://sobigdata.d4science.org/web/tagme/tagme-help" in text
    assert "https://metamap.nlm.nih.gov/MetaMapLite.shtml" in text


def test_07_p4_numbered_heading_is_separate(corpus_dir: Path) -> None:
    paras, _, _ = translate(corpus_dir, "07", 3)
    (heading,) = [p for p in paras if p.text.startswith("3.1")]
    assert heading.text == "3.1 Encoding module" and heading.kind == ParagraphKind.HEADING
    assert any(p.text.startswith("The encoding module includes") for p in paras)
    assert any(
        p.kind == ParagraphKind.CAPTION and without_tags(p.text).startswith("Figure 2.")
        for p in paras
    )
    # "... three modules:" at a full line's end goes on into the next line.
    assert any("three modules: encoding module" in p.text for p in paras)


def test_07_p5_text_under_a_two_piece_running_head_is_no_table(corpus_dir: Path) -> None:
    """07's running head ("JCRAI-2021 ... IOP Publishing" over "Journal of Physics ... doi")
    is set in pieces far apart, like a row of cells; over p5's first lines, a line set word by
    word with inline formulas, it made a table of them, sent cell by cell, and the sentence
    from p4 ("before feeding into the" | "next graph information module") was cut."""
    paras, _, _ = translate(corpus_dir, "07", 3, 4)
    (feeding,) = [p for p in paras if p.text.endswith("before feeding into the")]
    (going_on,) = [p for p in paras if p.text.startswith("next graph information module")]
    assert going_on.kind == ParagraphKind.BODY and going_on.passage == feeding.passage != ""
    (specific,) = [p for p in paras if p.text.startswith("To be specific")]
    assert specific.kind == ParagraphKind.BODY and "forward hidden vector" in specific.text


def test_04_p6_a_table_header_repeated_over_several_tables_is_sent(corpus_dir: Path) -> None:
    """The header "After Perturb" heads Tables 1, 2 and 4, near the top of their pages: a cell that
    recurs there is no running head, and is translated as "Before Perturb" beside it is."""
    paras, mono, _ = translate(corpus_dir, "04", 5)
    sent = {p.text for p in paras}
    assert {"Before Perturb", "After Perturb"} <= sent
    text = pymupdf.open(stream=mono)[5].get_text()
    assert "Before Perturb" not in text and "After Perturb" not in text


def test_02_p7_a_line_ending_in_a_footnote_mark_ends_its_paragraph(corpus_dir: Path) -> None:
    """ "... ontologies." with its footnote mark 9 raised after the full stop ends the
    paragraph: the indented "Limited KB coverage." below it starts the next one."""
    paras, mono, _ = translate(corpus_dir, "02", 6)
    (ending,) = [p for p in paras if "ontologies." in p.text]
    assert "Limited KB" not in ending.text
    (lead,) = [p for p in paras if "Limited KB coverage." in p.text]
    assert without_tags(lead.text).startswith("Limited KB coverage.")
    (label,) = pseudo_words("Limited", "ko")
    page = pymupdf.open(stream=mono)[6]
    line_starts = {round(w[0]) for w in page.get_text("words") if w[4].startswith(label)}
    assert line_starts and min(line_starts) < 100  # first on its line in the left column


def test_03_p6_a_last_line_of_small_capitals_stays_in_its_paragraph(corpus_dir: Path) -> None:
    """ "for COARSE and FINE." is set mostly in small capitals (words of their own, no full
    capital before them): the line is still of the body's size and ends its paragraph."""
    paras, _, _ = translate(corpus_dir, "03", 5)
    assert not any(p.text == "for COARSE and FINE." for p in paras)
    assert any(
        "two downstream statistics for COARSE and FINE." in " ".join(p.text.split()) for p in paras
    )


def test_04_p5_a_last_line_of_a_name_with_its_index_ends_the_paragraph(corpus_dir: Path) -> None:
    """The paragraph's last line "BERT_LARGE." (an index set as a subscript) is no display
    formula: the sentence is sent whole, with the name in it."""
    paras, _, _ = translate(corpus_dir, "04", 4)
    (para,) = [p for p in paras if p.text.startswith("We use TAPAS")]
    assert para.text.endswith("initialized from BERT{v9} and BERT{v10}.")


def test_05_p20_circled_digits_of_a_dingbat_font_stay_in_the_text(corpus_dir: Path) -> None:
    """The circled digits that point into Figure 2 ("a group name (1)") come from a dingbat
    font as control codes: they are sent as placeholders and drawn again, never dropped."""
    paras, mono, data = translate(corpus_dir, "05", 19)
    assert any("group name {v1} and drag" in p.text for p in paras)

    def circled(pdf: bytes) -> int:  # dingbat glyphs in the text under the figure
        page = pymupdf.open(stream=pdf)[19]
        return sum(
            1
            for trace in page.get_texttrace()
            if "Dingbats" in trace["font"]
            for char in trace["chars"]
            if char[3][1] > 470
        )

    assert circled(data) >= 5 and circled(mono) == circled(data)


def test_05_p18_a_cell_is_never_set_over_a_number_beside_it(corpus_dir: Path) -> None:
    """Table 7's "Internal Memorandum" row: the number "0.01 (0.12)" stands centred between
    the two lines of the description beside it, on no baseline of theirs; the description's
    translation stays right of it instead of printing over it."""
    _, mono, _ = translate(corpus_dir, "05", 17)
    words = pymupdf.open(stream=mono)[17].get_text("words")
    (number,) = [pymupdf.Rect(w[:4]) for w in words if w[4] == "0.01"]
    (spread,) = [pymupdf.Rect(w[:4]) for w in words if w[4] == "(0.12)"]
    over = [
        w[4]
        for w in words
        if w[4] not in ("0.01", "(0.12)") and pymupdf.Rect(w[:4]).intersects(number | spread)
    ]
    assert not over


def test_12_p2_an_ff_ligature_mapped_to_an_arrow_is_read_as_ff(corpus_dir: Path) -> None:
    """The PDF maps the "ff" ligature of "off-the-shelf" to the arrow U+21B5: between
    letters it is read as "ff", never sent as a formula and drawn as an arrow."""
    paras, mono, _ = translate(corpus_dir, "12", 1)
    shelf = [p.text for p in paras if "-the-shelf" in p.text]
    assert len(shelf) == 2 and all("off-the-shelf" in text for text in shelf)
    assert "\u21b5" not in pymupdf.open(stream=mono)[1].get_text()


def test_03_p14_algorithm_lines_are_not_merged(corpus_dir: Path) -> None:
    paras, mono, _ = translate(corpus_dir, "03", 13)
    algo = [p for p in paras if p.kind == ParagraphKind.ALGORITHM]
    assert [p.label for p in algo][:2] == ["1: ", "2: "]
    assert all(not re.search(r"\b\d{1,2}:\s", p.text) for p in algo)  # one line number each
    assert any(
        p.kind == ParagraphKind.CAPTION and without_tags(p.text).startswith("Algorithm 1")
        for p in paras
    )
    text = pymupdf.open(stream=mono)[13].get_text()
    assert "Input:" in text and "Output:" in text
    assert "end for" in text and "return" in text  # pseudo-code keywords stay as printed


def _words_at(
    page: pymupdf.Page, clip: tuple[float, float, float, float]
) -> list[tuple[str, int, int]]:
    return [(w[4], round(w[0]), round(w[1])) for w in page.get_text("words", clip=clip)]


def test_01_p12_13_code_is_untouched(corpus_dir: Path) -> None:
    paras, mono, source = translate(corpus_dir, "01", 11, 12)
    src, out = pymupdf.open(stream=source), pymupdf.open(stream=mono)
    # The code block and the parameter lines of p12 (left column): same words, same places.
    for clip in ((60, 228, 305, 275), (60, 309, 300, 350)):
        before = _words_at(src[11], clip)
        assert before and _words_at(out[11], clip) == before
    identifiers = ["vector_size=300", "sublinear_tf", "smooth_idf", "strip_accents"]
    restored = " ".join(restore(pseudo_translate(p.text, "ko"), p) for p in paras)
    assert all(name in restored for name in identifiers)
    assert not any(name in p.text for p in paras for name in identifiers)  # never sent


def test_01_p1_front_matter(corpus_dir: Path) -> None:
    paras, mono, _ = translate(corpus_dir, "01", 0)
    assert not any("Cohan" in p.text for p in paras)  # author names are printed as they are
    authors = [p for p in paras if p.kind == ParagraphKind.AUTHOR]
    assert [p.text[:13] for p in authors] == ["†Allen Instit", "‡Paul G. Alle"]
    assert all(p.align == Align.CENTER for p in authors)
    text = squeeze(pymupdf.open(stream=mono)[0].get_text())
    assert "{armanc,sergey,beltagy,dougd,danw}@allenai.org" in text
    assert "ArmanCohan" in text


BARS = {
    0: ["1 들어가며"],
    1: ["2 코로나-19 관련 보험 현황"],
    2: ["3 문제점"],
    3: ["4 개선과제", "5 맺으며"],
}


def test_09_summary_box_and_section_bars_are_sent(corpus_dir: Path) -> None:
    paras, _, data = translate(corpus_dir, "09", 0, 1, 2, 3)
    sent = {i: " ".join(p.text for p in paras if p.page == i) for i in range(4)}
    assert "2020.1.1. 「감염병예방법」 관련 규정이 변경되어" in sent[0]  # the summary box
    for page, bars in BARS.items():
        for bar in bars:
            assert any(
                p.page == page and p.label + p.text == bar and p.kind == ParagraphKind.HEADING
                for p in paras
            ), bar
    doc = pymupdf.open(stream=data)
    for index, page in enumerate(doc):
        height = page.rect.height
        body = 0
        for block in page.get_text("dict")["blocks"]:
            for ln in block.get("lines", []):
                if ln["bbox"][3] < 0.08 * height or ln["bbox"][1] > 0.92 * height:
                    continue  # running header, footer, publisher's address
                body += sum(len(squeeze(s["text"])) for s in ln["spans"])
        got = sum(len(squeeze(restore(p.text, p))) for p in paras if p.page == index)
        assert got >= 0.9 * body, (index, got, body)


def test_09_p2_a_list_items_wrapped_line_in_a_cell_is_that_cells(corpus_dir: Path) -> None:
    """Table 1's cells hold list items whose second line hangs under the item's text, not its
    mark ("◦ 대상질병에 U코드 일부(3종)" over "포함"); the line above ends in ")", which reads
    as a finished sentence, so each cell was sent as two requests."""
    paras, _, _ = translate(corpus_dir, "09", 1)
    cells = [p.text for p in paras if p.kind is ParagraphKind.CELL]
    assert "◦ 대상질병에 U코드 일부(3종) 포함" in cells, cells
    assert "* 좌측 6종(2급 감염병 분류)은 미포함" in cells, cells
    assert not {"포함", "미포함"} & set(cells)


def test_09_p2_list_items_in_cells_are_set_from_the_left(corpus_dir: Path) -> None:
    """Table 1's list items are set flush left; their wrapped lines end at the column's edge
    because they wrapped there, which read as a column set flush right: every item's
    translation was pushed against the right rule."""
    paras, mono, _ = translate(corpus_dir, "09", 1)
    items = [
        p for p in paras if p.kind is ParagraphKind.CELL and p.text[:1] in ("◦", "*", "①", "②", "③")
    ]
    assert len(items) >= 7, [p.text for p in items]
    page = pymupdf.open(stream=mono)[1]
    for item in items:
        assert item.align in (Align.LEFT, Align.JUSTIFY), item.text
        x0, y0, x1, y1 = item.bbox
        lines = [
            ln["bbox"]
            for block in page.get_text("dict", clip=(x0 - 2, y0 - 1, x1 + 2, y1 + 1))["blocks"]
            for ln in block.get("lines", [])
            if any(re.search("[\uac00-\ud7a3]", s["text"]) for s in ln["spans"])
        ]
        assert lines, item.text
        # Set from the left: no line starts right of where the source's did (its mark).
        assert min(b[0] for b in lines) < x0 + 3.0, (item.text, x0, lines)


def test_12_p1_author_names_around_an_icon_are_not_sent(corpus_dir: Path) -> None:
    """The first author's envelope icon cuts the name line in two; its second piece starts
    with ")" and the names wrap onto a line starting with a surname ("Lee⁴, Jacob Carlson⁵").
    Names are printed as they are: neither piece nor the wrapped line is sent."""
    paras, mono, _ = translate(corpus_dir, "12", 0)
    sent = " ".join(p.text for p in paras)
    assert "Ruochen" not in sent and "Carlson" not in sent, sent[:300]
    text = pymupdf.open(stream=mono)[0].get_text()
    for name in ("Zejiang Shen", "Ruochen Zhang", "Benjamin Charles Germain", "Jacob Carlson"):
        assert name in text, name


def test_05_the_dataset_sheets_centred_headings_stay_centred(corpus_dir: Path) -> None:
    """The dataset sheet's headings are centred on the page's text, a few points off the axis
    of the column the sheet's rules make; they were set flush left."""
    paras, mono, _ = translate(corpus_dir, "05", 22, 31)
    out = pymupdf.open(stream=mono)
    for text in ("Multi-LexSum Dataset Sheet", "MOTIVATION", "PREPROCESSING/CLEANING/LABELING"):
        (heading,) = [p for p in paras if p.text == text]
        assert heading.align is Align.CENTER, text
        x0, y0, x1, y1 = heading.bbox
        page = out[heading.page]
        lines = [
            ln["bbox"]
            for block in page.get_text("dict", clip=(60, y0 - 1, 550, y1 + 1))["blocks"]
            for ln in block.get("lines", [])
            if any(re.search("[\uac00-\ud7a3]", s["text"]) for s in ln["spans"])
        ]
        assert lines, text
        middle = (min(b[0] for b in lines) + max(b[2] for b in lines)) / 2
        assert abs(middle - (x0 + x1) / 2) < 4.0, (text, middle, (x0 + x1) / 2)


def test_03_a_heading_on_two_lines_is_set_flush_left_not_justified(corpus_dir: Path) -> None:
    """A numbered heading whose first line reaches the column's edge: its translation's words
    were spread to the edge like a justified paragraph's."""
    paras, _, _ = translate(corpus_dir, "03", 3)
    (heading,) = [p for p in paras if p.text.startswith("3.1 RQ1")]
    assert heading.kind is ParagraphKind.HEADING and heading.align is Align.LEFT


def test_09_korean_words_wrapped_inside_go_out_whole(corpus_dir: Path) -> None:
    """Justified Korean wraps lines inside words; joined with a space, "작성되고" went out as
    "작 성되고" and "법정감염병" as "법정감염 병"."""
    paras, _, _ = translate(corpus_dir, "09", 0, 1, 2)
    sent = " ".join(p.text for p in paras)
    for word in ("작성되고", "법정감염병", "확진자는", "질병으로", "보험금의"):
        assert word in sent, word
    assert "작 성되고" not in sent and "우려가큰" not in sent
