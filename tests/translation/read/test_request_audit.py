"""The request audit (issue 22 items 7-8): what a reader of the requests would flag."""

from __future__ import annotations

import pytest

from bench.requests import requests_listing
from tests.conftest import CORPUS_DIR
from tests.helpers.pdfgen.sheet import read
from translation.read.flow.passage import passages
from translation.read.request_audit import audit, flags

CORPUS2 = CORPUS_DIR.parent / "corpus2"

WHOLE = "We present a model for learning representations of scientific papers."
TAIL = "pretrained on citation graphs, and we achieve substantial improvements over baselines."


def test_a_whole_sentence_is_not_flagged() -> None:
    found = flags(WHOLE)
    assert found.prose and not found.broken and not found.ends_inside and not found.cut_words


def test_a_request_starting_in_lower_case_starts_inside_a_sentence() -> None:
    assert flags(TAIL).starts_inside and flags(TAIL).broken
    assert flags("where {v1} is the embedding of the paper and {v2} its citation set.").broken


def test_names_in_lower_case_and_placeholders_do_not_start_inside() -> None:
    assert not flags("arXiv preprints are cited here by many of the papers we read.").broken
    assert not flags("{v1} denotes the embedding of the paper in the space we learn.").broken


def test_a_word_cut_at_the_end_and_its_other_half_are_counted() -> None:
    first = "We present a model that is pretrained on a large corpus of cita-"
    second = "tions and we achieve substantial improvements over the baselines."
    assert flags(first).ends_cut and flags(first).cut_words == 1
    assert flags(second, previous=first).cut_words == 1
    result = audit([first, second])
    assert (result.prose, result.broken, result.cut_words) == (2, 2, 2)
    assert result.broken_share == 1.0


def test_a_compound_at_the_end_is_cut_but_no_fragment() -> None:
    text = "We compare our approach against the strongest of the state-"
    found = flags(text)
    assert found.ends_cut and found.cut_words == 0


def test_a_break_left_inside_a_text_is_a_word_cut_in_two() -> None:
    assert flags("avoided by using the deep se- mantic information of the graph.").cut_words == 1
    assert flags("both pre- and post-processing steps of the pipeline are shown.").cut_words == 0


def test_short_requests_are_not_prose() -> None:
    result = audit(["results and discussion", "table cell text", WHOLE])
    assert (result.requests, result.prose, result.broken) == (3, 1, 0)


def test_long_hangul_runs_are_words_run_together() -> None:
    result = audit(
        ["패키지를이용하여문서를빠르게검토 할 수 있다", "패키지를 이용하여 문서를 빠르게 검토"]
    )
    assert (result.hangul_runs, result.long_hangul_runs) == (9, 1)
    assert result.long_hangul_share == 1 / 9


def test_the_listing_has_one_request_a_line_with_its_flags() -> None:
    listing = requests_listing(
        [("p0-b1", WHOLE), ("p0-b2", "a short\nheading"), ("p1-b1", TAIL)], "en"
    )
    lines = listing.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("p0-b1") and "<" not in lines[0][:16]
    assert lines[1].endswith("a short heading")
    assert lines[2][11:15] == "<   "


def test_style_tags_are_markup_not_words() -> None:
    tagged = flags("<b>Finding</b>: annotating clauses improves agreement between the raters.")
    assert not tagged.starts_inside
    assert flags(
        "<i>while</i> the others wait for the model to answer every request."
    ).starts_inside


def test_a_full_width_colon_or_semicolon_ends_a_sentence_as_its_ascii_form_does() -> None:
    """Origin: 142_ja p4 ("例えば次の設定は：" before a listing), 137_zh p3 (list items that
    end "；"): whole sentences, flagged as ending inside one."""
    assert not flags("例えば次の設定は以下のファイルと同じ結果になる：", language="ja").ends_inside
    assert not flags("名字后面带有星号的，表示只能在中文模板中使用；", language="zh").ends_inside
    assert flags("例えば次の設定は以下のファイルと同じ結果になるが", language="ja").ends_inside
    # A stop inside full-width closing brackets ends the sentence as inside ASCII ones.
    assert not flags("一部のオプションは使用不可能なものがある。（4.3 節参照。）").ends_inside
    assert not flags("「この設定で十分に動作することを確かめた。」").ends_inside


def test_a_term_in_its_own_style_opens_an_entry() -> None:
    """Origin: 141_ja p7-p9 ("<b>article</b> 論文誌中の論文，..."), 02 p4 ("<b>Hybrid:</b>
    defines a small number of ..."), 105 p5 ("<i>Scalabilty:</i> the effect of ..."): a term
    in bold, or in italic with a label's colon, opens an entry, whatever the case of the term
    or of the words after it; the same words unstyled, or a long styled run, are a sentence's
    middle (and an italic word alone is emphasis: test_style_tags_are_markup_not_words)."""
    entry = "<b>booklet</b> a work that is printed and bound, but without a named publisher."
    assert flags(entry).prose and not flags(entry).starts_inside
    assert not flags("<b>Hybrid:</b> defines a small number of hand-written rules.").broken
    assert not flags("<i>Scalability:</i> the effect of node density on the overhead.").broken
    assert flags("booklet a work that is printed and bound, but without a publisher.").starts_inside
    assert flags("<b>a work that is printed and bound and</b> without a named publisher.").broken


def test_a_latin_name_opens_a_chinese_or_japanese_sentence() -> None:
    """Origin: 137_zh p4 ("fduthesis 也提供了 Overleaf 的版本，..."), 142_ja ("hyperref
    パッケージの ..."): a package's name in lower case opens the sentence; in English text
    the same word is a sentence's middle."""
    chinese = "fduthesis 也提供了 Overleaf 的版本，打开链接并登录后即可直接编辑。"
    assert not flags(chinese, language="zh").starts_inside
    japanese = "hyperref {v1} パッケージの設定はエンジンごとに異なる。"
    assert not flags(japanese, language="ja").starts_inside
    assert flags("maries are not reproducible across studies at all here.", language="zh").broken


def test_a_latin_name_opens_a_korean_sentence_its_particle_glued_to_it() -> None:
    """Origin: 146_ko p2 ("pmhanguljamo.sty는 “Poorman’s Hangul Jamo Input Method”에서 ..."),
    p12 ("ko.TEX 패키지와 함께 쓸 때와 ..."): a name in lower case, a Korean particle glued
    to it, opens the sentence."""
    text = "pmhanguljamo.sty는 “Poorman’s Hangul Jamo Input Method”에서 따온 이름이다."
    assert not flags(text, language="ko").starts_inside
    assert not flags(
        "ko.TEX 패키지와 함께 쓸 때와 그렇지 않을 때를 나누어서 보이겠다.", "", "ko"
    ).broken
    assert flags("maries are not reproducible across studies at all here.", language="ko").broken


def test_a_korean_nominal_ending_ends_a_sentence() -> None:
    """Origin: 09_ko p1-p4, footnotes in the noun style of a report ("...신체에 입은 상해를
    상해로 정의함", "...통계청에서 작성함"): whole sentences on no stop; a line cut in the
    middle of a word or after a particle still ends inside one."""
    assert not flags(
        "보험기간 중에 발생한 급격하고도 우연한 외래의 사고를 상해로 정의함"
    ).ends_inside
    assert not flags("다수의 피보험자가 같은 보험종류를 동시에 계약했을 때를 의미함").ends_inside
    assert not flags("손실규모를 측정하기 어려운 자연재해 리스크를 보상하는 보험임").ends_inside
    assert flags(
        "각종 사이버위협에 대한 하나의 기법 또는 알고리즘이 아닌, 최적화된 알고리즘과 기"
    ).ends_inside
    assert flags("인간이 폭정과 억압에 대항하는 마지막 수단으로서 반란을 일으키도록 강").ends_inside


@pytest.mark.corpus
def test_a_japanese_definition_list_is_sent_entry_by_entry_each_whole() -> None:
    """Origin: 141_ja p7 (BibTeX's entry types): each entry, its bold term first, is one
    request of its own that ends its last sentence; the audit flags none of them. (Read
    whole: the paper's measures come from all its pages.)"""
    path = CORPUS2 / "141_ja_bibtexing_translation_dvipdfmx_p12of14.pdf"
    if not path.is_file():
        pytest.skip(f"corpus2 not found at {CORPUS2}")
    texts = [p.text for p in passages(read(path.read_bytes())) if p.pieces[0].page == 6]
    entries = [t for t in texts if t.startswith("<b>")]
    terms = [t[3 : t.index("</b>")] for t in entries]
    assert terms[:5] == ["article", "book", "booklet", "conference", "inbook"]
    assert all(t.rstrip().endswith((".", "．", "：")) for t in entries)
    assert not any(flags(t, language="ja").broken for t in entries)


def test_a_labelled_list_ends_with_its_last_item() -> None:
    """Origin: corpus2 112's keywords line, sent once the reader no longer took it for names."""
    keywords = "<b>Keywords:</b> Answer Validation, Recognizing Textual Entailment, Synthesis"
    assert not flags(keywords).ends_inside
    run_in = "<b>Method:</b> we validate each answer against the passage it was drawn from and"
    assert flags(run_in).ends_inside
