"""Code told by what it is (issue 35, item 3), and two structure rules beside it (item 2): a
listing in a monospaced face no list of names knows is not sent; prose in Chinese, Japanese or
Korean that names TeX commands is sent, the commands kept as placeholders; a reference list
set hanging, author-year, without a heading is kept as it is; a justified line whose spaces
are stretched wide is one line. Each test sets a real PDF page with PyMuPDF and reads what the
pipeline sends; the last ones read real pages of ``corpus2/``."""

from __future__ import annotations

import functools

import pymupdf
import pytest

from tests.fakes.pseudo import pseudo_translate
from tests.helpers.corpus2 import corpus2_pages
from tests.helpers.pdfgen.sheet import MATH, Sheet, lines_at, spaced_at, words_at
from translation.read.blocks.code_text import looks_like_code
from translation.read.document import open_document
from translation.read.extraction import extract_document
from translation.read.math.formulas import restore
from translation.read.pages.monospace import measure
from translation.read.paragraph import Paragraph

PROSE = (
    "We describe a careful method for the evaluation of the models that we study in this",
    "paper, and we compare it with the previous approaches on several of the datasets that",
    "are common in the field, with results that support the main hypothesis of the work.",
)
LISTING = (
    "> fit <- coxph(Surv(time, status) ~ age + sex, data = lung)",
    "> summary(fit) # the hazard ratios with their intervals",
    "> plot(survfit(fit), xlab = 'Days', ylab = 'Survival')",
    "> wilcox.test(time ~ sex, data = lung, exact = FALSE)",
)


def read(data: bytes, include_references: bool = False) -> list[Paragraph]:
    return extract_document(open_document(data), include_references=include_references).paragraphs


def _unnamed_typewriter() -> bytes:
    """A typewriter face that neither its name nor its flags call one: PyMuPDF's Courier
    clone with its CFF ``isFixedPitch`` cleared, embedded under the name ``F25``."""
    buffer = pymupdf.Font("cour").buffer
    at = buffer.find(b"\x8c\x0c\x01")  # isFixedPitch 1 (operand 1, operator 12 1)
    assert at > 0
    return bytes(buffer[:at] + b"\x8b" + buffer[at + 1 :])  # operand 0: not fixed


def _renamed(doc: pymupdf.Document, name: str) -> bytes:
    """``doc`` with its embedded Courier clone named ``name`` and flagged no fixed pitch."""
    out = pymupdf.open(stream=doc.tobytes())
    for xref in range(1, out.xref_length()):
        for key in ("BaseFont", "FontName"):
            kind, value = out.xref_get_key(xref, key)
            if kind == "name" and "Nimbus" in value:
                out.xref_set_key(xref, key, f"/{name}")
                if out.xref_get_key(xref, "Flags")[0] == "int":
                    out.xref_set_key(xref, "Flags", "32")
    return bytes(out.tobytes())


def test_a_listing_in_a_monospaced_face_of_no_known_name_is_not_sent() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_font(fontname="F25", fontbuffer=_unnamed_typewriter())
    intro = (*PROSE, "The model is fitted and plotted with the following lines:")
    y = lines_at(page, 72, 90.0, intro, 10, pitch=12.5)
    lines_at(page, 90, y + 8, LISTING, 9, "F25", pitch=11)
    data = _renamed(doc, "F25")
    spans = [
        s
        for b in pymupdf.open(stream=data)[0].get_text("dict")["blocks"]
        for ln in b.get("lines", ())
        for s in ln["spans"]
        if "coxph" in s["text"]
    ]
    assert spans and all(s["font"] == "F25" and not s["flags"] & 8 for s in spans)
    sent = " ".join(p.text for p in read(data))
    assert "the following lines:" in sent and "main hypothesis" in sent
    for word in ("coxph", "summary", "survfit", "wilcox", "hazard ratios"):
        assert word not in sent


def test_a_face_is_monospaced_by_its_advances_not_its_name() -> None:
    def samples(face: str, widths: dict[str, float]) -> list[tuple[str, str, float, float]]:
        return [(face, c, w, 1.0) for c, w in widths.items() for _ in range(3)]

    typewriter = dict.fromkeys("imwlneorst", 0.6)
    proportional = {"i": 0.28, "m": 0.83, "w": 0.72, "l": 0.28, "n": 0.55, "e": 0.5, "o": 0.55}
    few = dict.fromkeys("ab", 0.6)
    pitches = measure(
        samples("F25", typewriter) + samples("CourierNew", proportional) + samples("F9", few)
    )
    assert pitches.mono == {"F25"}
    assert pitches.is_mono("F25", flagged=False)
    assert not pitches.is_mono("CourierNew", flagged=True)  # measured: its name and flag lose
    assert pitches.is_mono("F9", flagged=True) and not pitches.is_mono("F9", flagged=False)


CJK_PROSE = (
    "需要自行使用\\setmainfont、\\setCJKmainfont 和",
    "\\setmathfont 等命令来配置字体，然后用\\listoffigures",
    "和\\listoftables 生成单独的插图目录和表格目录。模板的",
    "其他选项可以在导言区中设置，也可以在文档的任何位置修改。",
)


def test_chinese_prose_with_commands_is_sent_and_its_commands_kept() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    lines_at(page, 72, 100.0, CJK_PROSE, 10.5, "china-s", pitch=16)
    (para,) = read(bytes(doc.tobytes()))
    assert "配置字体" in para.text and "表格目录" in para.text
    assert "\\" not in para.text  # every command a placeholder, never translated
    commands = [v for v in para.placeholders.values() if v.startswith("\\")]
    assert len(commands) == 5 and "\\listoffigures" in commands
    back = restore(pseudo_translate(para.text, "en"), para)
    assert all(command in back for command in commands)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("需要自行使用\\setmainfont、\\setCJKmainfont、\\setmathfont 等命令来配置字体。", False),
        ("複数個の漢字に仮名を振れば、\\furiokuri の代わりに\\multifuriokuri を使う。", False),
        ("이 옵션은 \\normalem 명령이 선언돼 있으므로 \\emph 명령이 밑줄을 긋는다.", False),
        ("\\kanbun{子}{}{}{} \\kanbun{曰}{}{ク}{，}{}{}", True),
        ("\\begin{figure}[t] \\centering \\includegraphics{a.pdf} \\end{figure}", True),
    ],
)
def test_markup_is_measured_against_the_words_of_its_own_script(text: str, code: bool) -> None:
    assert looks_like_code(text) is code


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("pandoc ⟨入力ファイル名⟩ -o ⟨出力ファイル名⟩.pdf", True),
        ("\\documentclass[pandoc,⟨ドライバ⟩,jafont=⟨フォント指定⟩]{⟨クラス名⟩}", True),
        ("\\caption[\u2329短标题\u232a]{\u2329长标题\u232a}", True),
        ("\\kanbunparen{⟨右の振仮名⟩}の引数には、漢字の右に付ける振仮名を書き込む。", False),
        ("이 책은 〈논어〉와 〈맹자〉를 -o 옵션과 -t 옵션으로 조판한 예를 보인다.", False),
    ],
)
def test_a_meta_variable_is_one_token_of_syntax_whatever_its_script(text: str, code: bool) -> None:
    """Origin: 142_ja p8 ("pandoc ⟨入力ファイル名⟩ -o ⟨出力ファイル名⟩.pdf ..."): a name between
    TeX's angle brackets stands for what the user types, one token of markup; CJK angle
    brackets marking titles in prose are no meta-variables."""
    assert looks_like_code(text) is code


JA = pymupdf.Font("japan")
COURIER = pymupdf.Font("cour")


def _command_line_page(syntax: list[list[tuple[str, pymupdf.Font]]]) -> bytes:
    """Japanese prose that leads into displayed command syntax (``syntax``: its lines, each a
    list of runs), set in Courier with its meta-variables' names in a Japanese face between
    Noto Sans Math's angle brackets, and a sentence after it."""
    sheet = Sheet()
    lead = (
        "この文書クラスは文書変換ツールと組み合わせて使うこともできる。その場合には、",
        "変換の後に生成される文書のクラスを指定する。この場合のコマンド行は次のようになる：",
    )
    y = sheet.lines(72, 100.0, lead, 10, JA, pitch=16)
    for runs in syntax:
        y += 12
        x = 90.0
        for text, font in runs:
            x = sheet.put(x, y, text, 9, font)
    after = "変換の結果は通常の文書と同じように組版されるので、設定は要らない。"
    sheet.put(72, y + 24, after, 10, JA)
    return sheet.done()


def test_command_syntax_with_japanese_meta_variables_is_code_not_sent() -> None:
    """Origin: 142_ja p8-p9: a pandoc command line whose meta-variables are named in Japanese
    (set in the Japanese face, so the line was only half monospaced) was sent joined to the
    sentence before it, its code as placeholders: a cut request of code."""
    page = _command_line_page(
        [
            [
                ("pandoc ", COURIER), ("⟨", MATH), ("入力ファイル名", JA), ("⟩", MATH),
                (" -o ", COURIER), ("⟨", MATH), ("出力ファイル名", JA), ("⟩", MATH),
                (".pdf -t latex -V documentclass=bxjsarticle", COURIER),
            ],
            [("--pdf-engine=xelatex -V papersize=a4 -V classoption=jafont=ipaex", COURIER)],
        ]
    )  # fmt: skip
    paras = read(page)
    assert [p.text for p in paras] == [
        "この文書クラスは文書変換ツールと組み合わせて使うこともできる。その場合には、変換の後に"
        "生成される文書のクラスを指定する。この場合のコマンド行は次のようになる：",
        "変換の結果は通常の文書と同じように組版されるので、設定は要らない。",
    ]
    assert not any(p.placeholders for p in paras)


def test_an_option_line_of_one_meta_variable_is_code_not_sent() -> None:
    """Origin: 140_ja p3 ("fontcmd=⟨書体のコマンド⟩" heading a described option): set
    monospaced but for its meta-variable's name, it is syntax, not a sentence to send."""
    page = _command_line_page(
        [[("fontcmd=", COURIER), ("⟨", MATH), ("書体のコマンド", JA), ("⟩", MATH)]]
    )
    sent = " ".join(p.text for p in read(page))
    assert "書体のコマンド" not in sent and "設定は要らない" in sent


@pytest.mark.parametrize("brackets", ["\u2329\u232a", "\u3008\u3009"])
def test_options_with_chinese_meta_variables_in_angle_brackets_are_code(brackets: str) -> None:
    """Origin: 137_zh p10-p12 ("author = {〈姓名〉}", "\\caption[〈短标题〉]{〈长标题〉}"):
    option syntax set monospaced, its meta-variables' names in a Chinese face between the
    technical angle brackets (U+2329) or, after code, the CJK ones (U+3008)."""
    syntax = [
        [("author = {", COURIER), (brackets[0], JA), ("作者姓名", JA), (brackets[1], JA)]
        + [("}", COURIER)],
        [("author* = {", COURIER), (brackets[0], JA), ("英文姓名", JA), (brackets[1], JA)]
        + [("}", COURIER)],
    ]
    sent = " ".join(p.text for p in read(_command_line_page(syntax)))
    assert "作者姓名" not in sent and "英文姓名" not in sent, sent
    assert "次のようになる：" in sent and "設定は要らない" in sent


def test_a_japanese_lead_in_on_no_stop_ends_before_its_listing() -> None:
    """Origin: 140_ja p4: "例えば、... 下記のコードを使えば" runs on no stop into a listing set in
    a monospaced face, whose first line is a comment naming a link ("% example text from
    https://..."): the listing is code, the sentence before it is sent on its own."""
    sheet = Sheet()
    y = 100.0
    for line in (
        "漢文アノテーションの機能を使わない場合、任意の CJK 支援のあるエンジンで漢文を組",
        "版できる。オプションを初期化した後でも、設定のコマンドを使って変更できる。例えば、",
        "縦書きの漢文でアキ組を使う場合には、ルビ文字の大きさを調整し、下記のコードを使えば",
    ):
        sheet.put(72, y, line, 10.4, JA)
        y += 17
    for line in (
        "% example text from https://example.com/kanbun-html/",
        "\\kanbunfont",
        "\\kanjiunit{}{}{zi}{}{}{} \\kanjiunit{\\furiokuri{}{ku}}{}{yue}{}{}{}",
    ):
        sheet.put(72, y, line, 9.7, COURIER)
        y += 14
    sheet.put(72, y + 6, "こう出力する：漢文の各要素が正しい位置に組まれ、返り点が付く。", 10.4, JA)
    texts = [p.text for p in read(sheet.done())]
    assert texts[0].endswith("下記のコードを使えば"), texts
    assert texts[1:] == ["こう出力する：漢文の各要素が正しい位置に組まれ、返り点が付く。"], texts


def test_a_chinese_line_of_commands_set_smaller_goes_on_its_paragraph() -> None:
    """Origin: 137_zh p12 ("...也可以使" | "用 \\listoffigures 和 \\listoftables 生成..."):
    the commands, in a typewriter face a point smaller, outnumber the line's Chinese characters;
    the line is still set in the text's size, and goes on the paragraph."""
    chinese = pymupdf.Font("china-s")
    sheet = Sheet()
    first = "生成目录。为了生成完整、正确的目录，您至少需要编译两次。对于图表较多的论文，也可以使"
    sheet.put(72, 200, first, 10.5, chinese)
    x = 72.0
    for text, font, size in (
        ("用 ", chinese, 10.5), ("\\listoffigures", COURIER, 9.5), (" 和 ", chinese, 10.5),
        ("\\listoftables", COURIER, 9.5), (" 生成单独的插图、表格目录。", chinese, 10.5),
    ):  # fmt: skip
        x = sheet.put(x, 216, text, size, font)
    (para,) = read(sheet.done())
    assert para.text == f"{first}用 {{v1}} 和 {{v2}} 生成单独的插图、表格目录。"
    assert set(para.placeholders.values()) == {"\\listoffigures", "\\listoftables"}


def test_a_listing_after_a_footnote_mark_is_code_its_japanese_argument_too() -> None:
    """Origin: 142_ja p7: "...使うことができる。*10" (a footnote's mark after the stop), then a
    listing whose last line is "\\hypersetup{pdftitle={日本語タイトル}}": the listing, its
    Japanese argument one word of it, is code; the sentence is sent alone."""
    sheet = Sheet()
    lead = "文書情報に和文文字を含めたい場合は、設定の命令を通常通り使うことができる。"
    sheet.put(72, 200, lead, 9.2, JA)
    sheet.put(72 + JA.text_length(lead, 9.2), 197, "*10", 6, pymupdf.Font("tiro"))
    listing = (
        "\\documentclass[pdflatex,a4paper,ja=standard]{bxjsarticle}",
        "\\usepackage{hyperref}",
    )
    y = sheet.lines(90, 216.0, listing, 9, COURIER, pitch=13)
    x = sheet.put(90, y, "\\hypersetup{pdftitle={", 9, COURIER)
    x = sheet.put(x, y, "日本語タイトル", 9.2, JA)
    sheet.put(x, y, "}}", 9, COURIER)
    after = "※ハイパーリンクのパッケージオプションで和文文字を含む文書情報は指定できない。"
    sheet.put(72, y + 20, after, 9.2, JA)
    paras = read(sheet.done())
    # The raised mark goes as it is, the whole of it or its number a placeholder.
    spelled = [
        functools.reduce(lambda t, kv: t.replace(*kv), p.placeholders.items(), p.text)
        for p in paras
    ]
    assert spelled == [f"{lead}*10", after]
    assert looks_like_code(["\\usepackage{hyperref}", "\\hypersetup{pdftitle={日本語タイトル}}"])


def test_a_listing_with_comments_in_chinese_is_code_line_by_line() -> None:
    listing = [
        "\\newtheorem{thm}{Theorem}[section] %如果不采用章节号做前缀，则不用[section]",
        "\\newtheorem{defn}[thm]{Definition} %这句定义使得defn环境和thm共享编号",
    ]
    assert looks_like_code(listing)
    prose = ["模板的选项可以用\\fdusetup 设置，", "也可以用\\documentclass 的可选参数设置。"]
    assert not looks_like_code(prose)


BODY = (
    "Shift work changes the time a family spends together, and the studies of it agree",
    "that its effects reach beyond the worker to the partner and the children at home.",
)
ENTRIES = (
    ("Bostic, B. (1988), “Family adjustment to rotating shift work: problems, process and",
     "relationships”, unpublished thesis, The University of Alabama, Tuscaloosa, AL."),
    ("Burke, R.J. (1988), “Some antecedents and consequences of work-family conflict”,",
     "Journal of Social Behavior and Personality, Vol. 3, pp. 287-302."),
    ("Finn, P. (1981), “The effects of shift work on the lives of employees”, Monthly",
     "Labour Review, Vol. 104 No. 10, pp. 31-6."),
    ("Folkard, S., Waterhouse, J.M. and Minors, D.S. (1985), “Chronobiology and shift",
     "work: current issues and trends”, Chronobiologica, Vol. 12, pp. 31-54."),
    ("Greenhaus, J. and Beutell, N. (1985), “Sources of conflict between work and family",
     "roles”, Academy of Management Review, Vol. 10, pp. 76-88."),
    ("Lazarus, R.S. and Folkman, S. (1984), Stress, Appraisal and Coping, Springer, New",
     "York, NY."),
)  # fmt: skip


def test_a_hanging_author_year_list_without_a_heading_is_not_sent() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = lines_at(page, 72, 90.0, BODY, 10, pitch=12.5) + 14
    for first, rest in ENTRIES:
        words_at(page, [(72, y, first, 9, "tiro"), (84, y + 11, rest, 9, "tiro")])  # rest hung
        y += 26
    data = bytes(doc.tobytes())
    sent = " ".join(p.text for p in read(data))
    assert "the partner and the children" in sent
    for name in ("Bostic", "Burke", "Finn", "Folkard", "Greenhaus", "Lazarus", "Vol."):
        assert name not in sent
    included = " ".join(p.text for p in read(data, include_references=True))
    assert "Greenhaus" in included and "Lazarus" in included


def _justified(page: pymupdf.Page, words: list[str], y: float) -> float:
    """``words`` set one by one from x 72 to 523, their spaces stretched alike; the gap."""
    widths = [float(pymupdf.get_text_length(w, fontname="tiro", fontsize=10)) for w in words]
    gap = (523 - 72 - sum(widths)) / (len(words) - 1)
    spaced_at(page, 72.0, y, words, gap, 10, "tiro")
    return gap


@pytest.mark.parametrize("tail", [["comes", "back", "whole"], ["the", "internationalised", "text"]])
def test_a_justified_line_with_stretched_spaces_is_one_line_whatever_the_gap(
    tail: list[str],
) -> None:
    """A line of three words stretched to the column's edge (spaces of 10 font sizes and
    more) before a word too long for it: no gap of it parts cells."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 100.0
    for line in (
        "The method we describe reads every page of the paper as a sequence of lines,",
        "and groups the lines into paragraphs by their spacing and their indentation, so",
        "that each paragraph of the source is sent to the model as one whole request and",
    ):
        _justified(page, line.split(), y)
        y += 12.5
    assert _justified(page, tail, y) > 10 * 10  # far wider than any cell gap
    words_at(page, [(72, y + 12.5, "internationalisation.", 10, "tiro")])
    paras = read(bytes(doc.tobytes()))
    assert len(paras) == 1, [p.text for p in paras]
    assert " ".join(tail) in paras[0].text


# --- real pages of corpus2 ------------------------------------------------------------------


@pytest.mark.corpus
def test_a_chinese_manual_sends_its_prose_about_commands() -> None:
    """fduthesis's manual, p12: "用\\listoffigures 和\\listoftables 生成单独的插图、表格目录。"
    (set in Source Han with the commands in Iosevka) was taken for code and never sent."""
    paras = read(corpus2_pages("137_zh_fduthesis_manual_xetex_p12of18.pdf", [11]))
    (para,) = [p for p in paras if "生成单独的插图" in p.text]
    assert "\\listoffigures" in para.placeholders.values()
    assert "\\listoftables" in para.placeholders.values()


@pytest.mark.corpus
def test_an_r_vignette_sends_no_line_of_its_listings() -> None:
    """survival's vignette, p2: its R listings are set in a typewriter face the PDF calls
    ``F48``/``F46`` and flags as nothing; none of it is sent, its prose is."""
    sent = " ".join(
        p.text for p in read(corpus2_pages("127_r_survival_timedep_vignette_p12of30.pdf", [1]))
    )
    assert "nvisit" not in sent and "rbinom" not in sent and "survfit(" not in sent
    assert len(sent.split()) > 100


@pytest.mark.corpus
def test_a_page_of_author_year_references_without_its_heading_is_not_sent() -> None:
    """An Emerald article's last pages: an author-year list whose heading is on an earlier
    page; its entries are not sent, the authors' biographies after it are."""
    paras = read(corpus2_pages("114_emerald_er2007_3b2_margin_captions_p12of17.pdf", [10, 11]))
    sent = " ".join(p.text for p in paras)
    for name in ("Bostic, B.", "Greenhaus, J.H.", "Pleck, J.", "Zedeck, S."):
        assert name not in sent
    assert "Professor of Management" in sent


@pytest.mark.corpus
def test_a_korean_manual_sends_its_english_line_set_in_computer_modern() -> None:
    """A Korean manual whose Latin text is in Computer Modern (its listings in CMTT): that is
    the text face, so an English sentence of it is prose, not an equation."""
    sent = " ".join(p.text for p in read(corpus2_pages("145_ko_cjk_ko_manual_dvipdfmx.pdf", [0])))
    assert "For introduction in English, please see" in sent
