"""Whole words (issue 22 item 2): a word broken at a line's end is joined, a compound keeps its
hyphen; decided with the word list, on a real PDF page set line by line."""

from __future__ import annotations

import pymupdf

from tests.helpers.pdfgen.columns import INTRO, OUTRO, TOP, WIDE
from tests.helpers.pdfgen.sheet import LEADING, Sheet, read, words_at
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.flow.passage import passages
from translation.read.words.lexicon import _lexicon, is_word, joins_at_break
from translation.read.words.word import hangul_cut


def page_of_lines(lines: list[str], size: float = 10.0) -> bytes:
    """A one-page PDF with ``lines`` set one under the other at body leading, left-aligned."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    words_at(page, [(72, 120 + i * 1.2 * size, text, size, "tiro") for i, text in enumerate(lines)])
    return bytes(doc.tobytes())


def paragraph_texts(data: bytes) -> list[str]:
    return [p.text for p in extract_paragraphs(open_document(data))]


def test_broken_words_are_joined_and_compounds_keep_their_hyphen() -> None:
    lines = [
        "We compare the new approach to the state-",
        "of-the-art methods of summarization, whose sum-",
        "maries come from a model-",
        "based system that reads with self-",
        "attention and from the BERT-",
        "based encoders of earlier work, which reads tok-",
        "enization rules from the data of the repre-",
        "sentation learning community at the end.",
    ]
    (text,) = paragraph_texts(page_of_lines(lines))
    assert text == (
        "We compare the new approach to the state-of-the-art methods of summarization, whose"
        " summaries come from a model-based system that reads with self-attention and from the"
        " BERT-based encoders of earlier work, which reads tokenization rules from the data of"
        " the representation learning community at the end."
    )


def test_the_decision_follows_the_word_list() -> None:
    assert is_word("summaries") and not is_word("stateof")
    assert joins_at_break("sum", "maries") and joins_at_break("How", "ever")
    assert not joins_at_break("state", "of") and not joins_at_break("self", "attention")
    assert not joins_at_break("Hugging", "Face") and not joins_at_break("GPT2", "style")
    assert joins_at_break("tok", "enization")  # neither piece a word: one word broken in two
    # An ending the word list holds as a word ("ing", "cess") never follows a compound's hyphen.
    assert joins_at_break("reencounter", "ing") and joins_at_break("postpro", "cess")
    assert not joins_at_break("re", "ing")  # too short a stem to tell


def test_the_word_list_is_the_one_the_spellchecker_package_ships() -> None:
    """The list is read from the package's own file, not through a checker (faster): the
    same words, lower-cased, as a checker holds; a language without a list gets English's."""
    from spellchecker import SpellChecker

    for language in ("en", "de"):
        checker = SpellChecker(language=language, distance=1)
        assert _lexicon(language) == frozenset(checker.word_frequency.dictionary)
    assert _lexicon("ko") == _lexicon("en")
    assert is_word("Summaries") and is_word("und", "de") and not is_word("und")


def test_a_korean_word_wrapped_inside_is_one_word_again() -> None:
    """Korean wraps lines inside words, with no hyphen: "작" | "성되고" is "작성되고"; a line that
    ends on a word of one syllable ("및") or a next line that opens with one ("큰") broke at a
    space."""
    assert hangul_cut("일방적으로 유리하게 작", "성되고 고객에게는")
    assert hangul_cut("법정감염", "병 1급에 해당하는")  # a word's last syllable alone
    assert hangul_cut("치명률", "이 높거나")  # a particle never stands alone
    assert not hangul_cut("보험사 및", "정부는")
    assert not hangul_cut("집단 발생의 우려가", "큰 감염병")
    assert not hangul_cut("제1712호", "발행일")
    assert not hangul_cut("감염병", "그러나 이번에")
    assert not hangul_cut("a word", "다음")


def test_a_line_end_hyphen_is_decided_by_the_words_the_document_prints_whole() -> None:
    """A name cut at a line's end ("Kryscin-" + "ski": "ski" is a word) is joined because the
    references print it whole; a compound the word list would join ("multi-" + "task") and one
    it would keep ("Transformer-" + "based") keep their hyphens because the document prints
    them hyphenated inside a line.

    Origin: a paper outside the corpus (issue 22), the layout that broke a request."""
    doc = pymupdf.open()
    first = [
        "Faithfulness of summaries was studied at length by Kryscin-",
        "ski and others, who trained a Transformer-",
        "based checker with multi-",
        "task objectives on a large set of weakly labelled pairs.",
    ]
    second = [
        "We also train the Transformer-based checker with multi-task objectives of our own.",
        "",
        "Wojciech Kryscinski, Bryan McCann, Caiming Xiong, and Richard Socher. 2020.",
        "Evaluating the factual consistency of abstractive text summarization.",
    ]
    for lines in (first, second):
        page = doc.new_page(width=595, height=842)
        words_at(page, [(72, 120 + i * 12.0, t, 10.0, "tiro") for i, t in enumerate(lines) if t])
    texts = [" ".join(p.text.split()) for p in read(doc.tobytes())]
    (cut,) = [t for t in texts if t.startswith("Faithfulness")]
    assert "by Kryscinski and others" in cut, cut
    assert "a Transformer-based checker with multi-task objectives" in cut, cut


def test_a_name_cut_by_the_page_is_joined_where_the_references_print_it_whole() -> None:
    """A passage cut by the page at "Kryscin-" + "ski" (the word list would keep the hyphen:
    "ski" is a word) is one request with the name whole, since the references print it so.

    Origin: a paper outside the corpus (issue 22), the layout that broke a request."""
    doc = pymupdf.open()
    first = Sheet(doc)
    y = TOP
    while y < 700:  # a full page of text before the cut paragraph
        y = first.paragraph(INTRO, WIDE, y)
    first.paragraph("Our checks of factual consistency follow the protocol of Kryscin-", WIDE, y)
    first.write()
    second = Sheet(doc)
    y = second.paragraph(
        "ski and others, who label each summary sentence against its source.",
        WIDE,
        TOP,
        indent=False,
    )
    y = second.paragraph(OUTRO, WIDE, y)
    second.paragraph(
        "Wojciech Kryscinski, Bryan McCann, Caiming Xiong, and Richard Socher. 2020.",
        WIDE,
        y + LEADING,
        indent=False,
    )
    second.write()
    texts = [passage.text for passage in passages(read(doc.tobytes()))]
    (cut,) = [t for t in texts if "factual consistency" in t]
    assert "the protocol of Kryscinski and others, who label" in cut, cut
