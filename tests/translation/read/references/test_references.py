"""Which paragraphs are the bibliography (translation.read.references.entries), on literal page
layouts: a
heading named "References" is not enough, the section must hold entries and close the paper."""

from __future__ import annotations

import re

import pymupdf
import pytest

from tests.fakes.pseudo import pseudo_translate
from tests.helpers.pdfgen.layouts import block, line, span
from tests.helpers.pdfgen.paper import BODY_WORDS, REFERENCE_WORDS, Truth, _Writer
from tests.helpers.pdfgen.sheet import lines_at, words_at, wrap
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_document, extract_paragraphs
from translation.read.math.formulas import restore
from translation.read.paragraph import ParagraphKind
from translation.read.references.entries import is_entry
from translation.read.segment import Block, PageLayout, segment_document

W, H = 600.0, 800.0
SIZE = 10.0


# A page is written as a list of items, top to bottom in one column: a heading ("# " + text,
# bold, body size: typography alone cannot tell the levels apart; "#s " a smaller one, as
# small capitals measure) or a paragraph (its lines).
Item = str | list[str]


def page(index: int, items: list[Item]) -> PageLayout:
    blocks: list[Block] = []
    y = 80.0
    for item in items:
        if isinstance(item, str):
            y += 0.6 * SIZE
            mark, text = item.split(" ", 1)
            size = SIZE - 1.5 if mark == "#s" else SIZE
            blocks.append(block(line(span(text, 60, y, size, font="Times-Bold"))))
            y += 1.8 * SIZE
            continue
        for i, text in enumerate(item):
            x = 60.0 if i == 0 or not item[0].startswith("[") else 72.0
            blocks.append(block(line(span(text, x, y))))
            y += 1.2 * SIZE
        y += 0.8 * SIZE
    assert y < H - 40, "page overflows"
    return PageLayout(index=index, width=W, height=H, blocks=tuple(blocks), figures=())


def prose(n: int, topic: str = "citations") -> list[str]:
    """A body paragraph of ``n`` full lines and a short last one (about 14 words a line)."""
    full = f"This paragraph explains {topic} in the running text of the paper and it goes on"
    return [full.ljust(90, " ")[:90].rstrip() for _ in range(n)] + ["until it ends here."]


WORDS = "spin heat flow wave mass glass light noise field charge gauge order phase".split()


def entries(first: int, count: int) -> list[list[str]]:
    """Numbered physics-style entries, two lines each (no two alike: a line repeated at one
    place on several pages would be a running header)."""
    n = len(WORDS)
    return [
        [
            f"[{k}] A. Author, B. Writer, and C. Scribe, On {WORDS[k % n]} and {WORDS[k // n]},",
            f"Phys. Rev. Lett. {90 + k}, {100 + k} (20{10 + k % 10}).",
        ]
        for k in range(first, first + count)
    ]


def author_year(count: int) -> list[list[str]]:
    return [
        [
            f"Ann Lee, Bo Chen, and Cy Diaz. 20{10 + k}. A method for task {k} of many kinds.",
            f"In Proceedings of the {k}th Conference on Methods, pages {k}1-{k}9.",
        ]
        for k in range(count)
    ]


def flat(groups: list[list[str]]) -> list[Item]:
    return [*groups]


def body_texts(items: list[Item]) -> list[str]:
    """The joined text of each paragraph among ``items``."""
    return [" ".join(i) for i in items if isinstance(i, list)]


def _all(pages: list[list[Item]]) -> tuple[set[str], tuple[int, ...]]:
    seg = segment_document([page(i, items) for i, items in enumerate(pages)])
    # A list label ("[1] ") is printed as it is, outside the text sent (Paragraph.label).
    return {p.label + p.text for p in seg.paragraphs}, seg.reference_pages


# --- the paper: a body subsection "References" ---------------------------------------

HOW_TO_CITE = [
    "References are cited by number in square brackets, like the first entry of the list",
    "in the bibliography at the end of the paper, and the numbers follow the order in which",
    "the works are first cited in the text of the paper.",
]


def test_a_body_subsection_named_references_is_translated_in_full() -> None:
    body: list[list[Item]] = [
        [
            "# I. INTRODUCTION",
            prose(3, "the problem"),
            "# II. CITING THINGS",
            "# A. Citations",
            prose(2),
            "# B. Citations and References",
            "# 1. Citations",
            prose(2),
            "# 3. References",
            HOW_TO_CITE,
            prose(2, "how to list works"),
            "# C. Footnotes",
            prose(3, "footnotes"),
        ],
        [
            "# II. MATH AND EQUATIONS",
            prose(4, "equations"),
            "# A. Numbered equations",
            prose(3, "equation numbers"),
        ],
    ]
    bibliography: list[list[Item]] = [["# References", *flat(entries(1, 6))]]
    translated, kept = _all(body + bibliography)
    expected = [t for items in body for t in body_texts(items)]
    assert expected and all(t in translated for t in expected)
    assert {"3. References", "C. Footnotes", "II. MATH AND EQUATIONS"} <= translated
    assert not any(t.startswith("[1] A. Author") for t in translated)
    assert kept == (2,)


def test_example_entries_in_a_body_subsection_do_not_make_it_the_bibliography() -> None:
    """The section levels come from the numbering: "C." closes "3." although it is set
    smaller; the paper's own sections go on after it, so "3. References" is body."""
    pages: list[list[Item]] = [
        [
            "#s I. INTRODUCTION",
            prose(3, "the problem"),
            "#s A. Citations and References",
            prose(1),
            "# 3. References",
            *flat(entries(1, 3)),
            "#s C. Footnotes",
            prose(2, "footnotes"),
            prose(2, "notes"),
            "#s II. MATH AND EQUATIONS",
            prose(2, "equations"),
        ],
        ["#s A. Numbered equations", prose(4, "equation numbers")],
    ]
    translated, kept = _all(pages)
    assert kept == ()
    assert all(t in translated for items in pages for t in body_texts(items))


def test_a_section_and_its_first_subsection_after_references_are_body() -> None:
    pages: list[list[Item]] = [
        [
            "# I. INTRODUCTION",
            prose(3, "the problem"),
            "# II. CITING",
            "# A. Citations",
            prose(1),
            "# 1. Numbers",
            prose(1, "numbers"),
            "# 2. References",
            *flat(entries(1, 3)),
            "# III. MATH AND EQUATIONS",
            "# A. Numbered equations",
            prose(3, "equations"),
        ],
    ]
    translated, kept = _all(pages)
    assert kept == ()
    assert "2. References" in translated


def test_an_unnumbered_body_heading_references_followed_by_prose_is_translated() -> None:
    section: list[Item] = ["# References", HOW_TO_CITE, prose(3, "more")]
    pages: list[list[Item]] = [["# Introduction", prose(3), *section]]
    translated, kept = _all(pages)
    assert all(t in translated for t in body_texts(pages[0]))
    assert "References" in translated
    assert kept == ()


# --- real bibliographies ---------------------------------------------------------------------


def test_a_numbered_bibliography_ends_at_the_appendix() -> None:
    pages: list[list[Item]] = [
        ["# 1 Introduction", prose(4), "# 2 Method", prose(4)],
        [
            "# References",
            *flat(entries(1, 5)),
            "# A. Proofs of the lemmas",
            prose(3, "a proof"),
        ],
    ]
    translated, kept = _all(pages)
    assert kept == (1,)
    assert "A. Proofs of the lemmas" in translated
    assert all(t in translated for t in body_texts(pages[0]))
    assert " ".join(prose(3, "a proof")) in translated
    assert not any("Phys. Rev. Lett." in t for t in translated)
    assert "References" not in translated


def test_an_author_year_bibliography_ends_at_a_heading_of_its_level() -> None:
    pages: list[list[Item]] = [
        ["# Introduction", prose(4), "# Method", prose(4)],
        ["# References", *flat(author_year(5)), "# Acknowledgements", prose(2, "thanks")],
    ]
    translated, kept = _all(pages)
    assert kept == (1,)
    assert "Acknowledgements" in translated and " ".join(prose(2, "thanks")) in translated
    assert not any("Proceedings" in t for t in translated)


def test_the_bibliography_ends_where_entries_stop() -> None:
    pages: list[list[Item]] = [
        ["# Introduction", prose(4), "# Method", prose(4)],
        ["# References", *flat(author_year(4)), prose(2, "a"), prose(2, "b"), prose(2, "c")],
    ]
    translated, kept = _all(pages)
    assert kept == (1,)
    assert {" ".join(prose(2, t)) for t in "abc"} <= translated


def test_an_unnumbered_smaller_heading_after_the_bibliography_is_not_kept() -> None:
    """Entries stop where running text starts; the heading above that text is the text's."""
    pages: list[list[Item]] = [
        ["# Introduction", prose(4), "# Method", prose(4)],
        ["# References", *flat(entries(1, 4)), "#s Dataset details", prose(2, "a"), prose(2, "b")],
        [prose(2, "c"), prose(2, "d")],
    ]
    translated, kept = _all(pages)
    assert kept == (1,)
    assert "Dataset details" in translated
    assert {" ".join(prose(2, t)) for t in "abcd"} <= translated


def test_the_last_bibliography_like_heading_is_preferred() -> None:
    example: list[Item] = [
        "# Introduction",
        prose(3),
        "# References",
        *flat(entries(1, 2)),
        "# Method",
        prose(3, "the method"),
    ]
    pages: list[list[Item]] = [example, ["# References", *flat(entries(1, 6))]]
    translated, kept = _all(pages)
    assert kept == (1,)
    assert all(t in translated for t in body_texts(example))


@pytest.mark.parametrize("appendix", ["Appendix A. Proofs", "A Proofs of the lemmas"])
def test_an_appendix_with_its_own_bibliography_keeps_both(appendix: str) -> None:
    pages: list[list[Item]] = [
        ["# 1 Introduction", prose(4), "# 2 Method", prose(4)],
        ["# References", *flat(entries(1, 5)), "# " + appendix, prose(3, "a proof")],
        [prose(2, "the end"), "# References", *flat(entries(6, 5))],  # not where page 2's is
    ]
    translated, kept = _all(pages)
    assert kept == (1, 2)
    assert {appendix, " ".join(prose(3, "a proof"))} <= translated
    assert " ".join(prose(2, "the end")) in translated
    assert not any("Phys. Rev. Lett." in t for t in translated)


def test_each_chapters_bibliography_is_kept() -> None:
    pages: list[list[Item]] = [
        ["# 1 Introduction", prose(4, "chapter one"), "# References", *flat(entries(1, 6))],
        ["# 2 Background", prose(4, "chapter two"), "# References", *flat(entries(7, 6))],
        ["# 3 Method", prose(4, "chapter three")],
    ]
    translated, kept = _all(pages)
    assert kept == (0, 1)
    assert all(t in translated for items in pages for t in body_texts(items) if "[" not in t)
    assert not any("Phys. Rev. Lett." in t for t in translated)


def test_include_references_returns_them_as_references() -> None:
    pages: list[list[Item]] = [["# Introduction", prose(4)], ["# References", *flat(entries(1, 4))]]
    seg = segment_document([page(i, items) for i, items in enumerate(pages)], None, True)
    kinds = {p.text: p.kind for p in seg.paragraphs}
    assert kinds["References"] == ParagraphKind.REFERENCE
    assert kinds[" ".join(entries(1, 1)[0])] == ParagraphKind.REFERENCE
    assert kinds[" ".join(prose(4))] != ParagraphKind.REFERENCE
    assert seg.reference_pages == (1,)


def test_reported_pages_are_among_the_wanted_ones() -> None:
    pages: list[list[Item]] = [
        ["# Introduction", prose(20)],
        ["# References", *flat(entries(1, 12))],
        [*flat(entries(13, 12))],
    ]
    layouts = [page(i, items) for i, items in enumerate(pages)]
    assert segment_document(layouts).reference_pages == (1, 2)
    assert segment_document(layouts, wanted={0, 2}).reference_pages == (2,)


# --- plausibility: a section covering much of the paper is checked twice --------------------


@pytest.mark.parametrize("doubtful", [False, True])
def test_a_long_references_section_must_read_like_entries_on_every_page(doubtful: bool) -> None:
    def tail(first: int) -> list[Item]:
        if not doubtful:
            return flat(entries(first, 10))
        items: list[Item] = []
        for k in range(4):  # one entry, then two paragraphs of prose: never three in a row
            topics = WORDS[first % 7 + k], WORDS[(first + k) % 5]
            items += [*flat(entries(first + k, 1)), prose(1, topics[0]), prose(1, topics[1])]
        return items

    bibliography: list[Item] = ["# References", *flat(entries(1, 10))]
    pages: list[list[Item]] = [["# Introduction", prose(8)], bibliography]
    pages += [tail(11), tail(21)]
    translated, kept = _all(pages)
    if doubtful:
        assert kept == ()
        assert any(t.startswith("[1] A. Author") for t in translated)
    else:
        assert kept == (1, 2, 3)
        assert not any(t.startswith("[1] A. Author") for t in translated)


# --- what an entry looks like ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciBERT: A pretrained language model.",
        "Laurens van der Maaten. 2014. Accelerating t-SNE using tree-based algorithms.",
        "[12] A. Vaswani et al., Attention is all you need, in NeurIPS (2017).",
        "12. Smith AB, Jones C. A trial of things. J Med. 2001;3:12-15.",
        "Smith, J. (2019). A title. Journal of Things, 3(2), 45-67.",
        "[2] J. Doe, Phys. Rev. B 12, 345 (1999).",
        "Kingma, D. P., and Ba, J. Adam: a method for stochastic optimization. arXiv.",
        "김창호(2020), 「코로나-19 관련 보험약관의 문제」, 『이슈와 논점』, 제1700호.",
        "张三, 李四. 文档翻译方法研究[J]. 计算机学报, 2019, 42(3): 45-67.",
    ],
)
def test_entries_are_recognised(text: str) -> None:
    assert is_entry(text)


@pytest.mark.parametrize(
    "text",
    [
        "Cohan et al. (2020) proposed a model trained on citations in 2019.",
        "However, in 2019 we found that the model performs well on pages 3-5.",
        "The references section lists every work cited in the text.",
        "Finally, the journal version appeared in 2021.",
        "본 연구에서는 2020년에 발표된 보험약관을 분석하였다.",
        "本文提出了一种新的方法，并在2019年的数据上进行了实验。",
    ],
)
def test_running_text_is_not_an_entry(text: str) -> None:
    assert not is_entry(text)


# --- a generated two-column paper: the layout -----------------------------------------


def make_citing_paper() -> tuple[bytes, Truth]:
    """Six two-column pages: a body subsection "3. References" (inside "B. Citations and
    References") on page 3 explains how to cite; "C. Footnotes" and "III. MATH AND EQUATIONS"
    follow, set smaller than it (small capitals); the bibliography starts on page 6."""
    doc = pymupdf.open()
    truth = Truth(pages=0)
    w = _Writer(doc, truth, seed=11)
    w.new_page()
    w.title("A Guide to Writing a Careful Paper")
    w.heading("I. INTRODUCTION", 9.0)
    w.paragraph()
    w.heading("II. CITATIONS AND FOOTNOTES", 9.0)
    w.heading("A. Citations", 9.5)
    while w.number < 2:
        w.paragraph()
    w.heading("B. Citations and References", 9.5)
    w.heading("3. References", 10.5)
    w.paragraph(math=False)
    w.paragraph(math=False)
    w.heading("C. Footnotes", 9.5)
    while w.number < 3:
        w.paragraph()
    w.heading("III. MATH AND EQUATIONS", 9.0)
    while w.number < 5:
        w.paragraph()
    w.references(14)
    w.flush()
    truth.pages = doc.page_count
    data = doc.tobytes(garbage=3, deflate=True)
    doc.close()
    return data, truth


@pytest.fixture(scope="module")
def citing_paper() -> tuple[bytes, Truth]:
    return make_citing_paper()


def test_a_generated_paper_is_translated_in_full_but_its_bibliography(
    citing_paper: tuple[bytes, Truth],
) -> None:
    data, truth = citing_paper
    seg = extract_document(open_document(data))
    starts = {(p.page, " ".join(p.text.split()[:6])) for p in seg.paragraphs}
    assert {2, 3, 4} <= {b.page for b in truth.body}
    for body in truth.body:  # inline math becomes placeholders: compare the first words
        assert (body.page, " ".join(body.text.split()[:6])) in starts, (body.page, body.text)
    texts = {p.text for p in seg.paragraphs}
    assert {"3. References", "C. Footnotes", "III. MATH AND EQUATIONS"} <= texts
    entry_pages = {page for page, _ in truth.references}
    assert seg.reference_pages == tuple(sorted(entry_pages)) == (5,)
    assert not any(word in text for text in texts for word in REFERENCE_WORDS)


def test_a_page_range_of_the_generated_paper_decides_as_the_whole(
    citing_paper: tuple[bytes, Truth],
) -> None:
    data, _ = citing_paper
    whole = extract_document(open_document(data))
    for page in (2, 5):
        alone = extract_document(open_document(data), [page])
        assert [p.text for p in alone.paragraphs] == [
            p.text for p in whole.paragraphs if p.page == page
        ]
        assert alone.reference_pages == ((5,) if page == 5 else ())


def test_the_generated_papers_pages_are_translated_and_its_bibliography_kept(
    citing_paper: tuple[bytes, Truth],
) -> None:
    data, truth = citing_paper
    paragraphs = extract_paragraphs(open_document(data))
    translations = {p.id: restore(pseudo_translate(p.text, "ko"), p) for p in paragraphs}
    out = pymupdf.open(stream=render_mono(open_document(data), paragraphs, translations, "ko"))
    for number in (2, 3, 4):
        left = {w.lower() for w in re.findall(r"[A-Za-z]+", out[number].get_text())}
        assert not left & set(BODY_WORDS), f"page {number + 1} kept source text"
    for page, entry in truth.references:
        assert normalized(entry) in normalized(out[page].get_text())


def normalized(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


# --- author biographies beside the bibliography (an IEEE/Elsevier journal's last page) ------

BIO = (
    "received the M.S. degree from the University of Louvain, Louvain-la-Neuve, Belgium, in "
    "2015, where he is currently pursuing the Ph.D. degree with the Institute of Information "
    "and Communication Technologies. He was a Visiting Research Student with the University "
    "of British Columbia, Canada, in fall"
)
BIO_TAIL = (
    "2018. His research topic is on highly sensitive and ultra-low-power pressure sensors "
    "based on silicon technology."
)


def make_biographies_page() -> bytes:
    """Left column: the end of a bibliography set small, its last entry ending in a URL (no
    full stop), then a biography; right column: more biographies in the body size, each beside
    a photo, whose text goes on under the photo from "2018. His research" (the line before,
    "... in fall", ends without a full stop)."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    photo = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 24, 30), False)
    photo.clear_with(150)
    y = 70.0
    words_at(page, [(50, y, "References", 10, "Times-Bold")])
    y += 16
    for k in range(1, 13):
        entry = entries(k, 1)[0]
        if k == 12:
            entry = [*entry[:1], "URL http://ieeexplore.ieee.org/document/944190/"]
        for i, text in enumerate(entry):
            words_at(page, [(50 if i == 0 else 60, y, text, 8, "Times-Roman")])
            y += 9.5
        y += 1.5
    names = ["Nicolas Roisin", "Thibault Delhaye", "Nicolas Martin", "Jean-Pierre Dubois"]
    spots = [(50.0, y + 20), (305.0, 70.0), (305.0, 290.0), (305.0, 510.0)]
    for name, (x, top) in zip(names, spots, strict=True):
        page.insert_image(pymupdf.Rect(x, top, x + 60, top + 75), pixmap=photo)
        base = lines_at(page, x + 66, top + 9, wrap(f"{name} {BIO}", 174), 10, "Times-Roman")
        base = max(base, top + 75 + 12)
        lines_at(page, x, base, wrap(BIO_TAIL, 240), 10, "Times-Roman")
    data: bytes = doc.tobytes()
    doc.close()
    return data


def test_biographies_beside_the_bibliography_are_sent_whole_and_the_entries_kept() -> None:
    data = make_biographies_page()
    seg = extract_document(open_document(data))
    sent = normalized(" ".join(p.text for p in seg.paragraphs))
    names = ["Nicolas Roisin", "Thibault Delhaye", "Nicolas Martin", "Jean-Pierre Dubois"]
    for name in names:
        assert normalized(f"{name} {BIO}") in sent
    assert sent.count(BIO_TAIL) == len(names)  # the line after the photo with its biography
    assert "Phys. Rev. Lett." not in sent and "ieeexplore" not in sent
    assert seg.reference_pages == (0,)
    paragraphs = seg.paragraphs
    translations = {p.id: restore(pseudo_translate(p.text, "ko"), p) for p in paragraphs}
    out = pymupdf.open(stream=render_mono(open_document(data), paragraphs, translations, "ko"))
    left = normalized(out[0].get_text())
    assert "Louvain" not in left and "research topic" not in left
    for k in range(1, 12):
        assert normalized(" ".join(entries(k, 1)[0])) in left


def test_the_papers_own_citation_under_its_label_is_not_sent() -> None:
    """ACM's first page: "ACM Reference Format:" over the paper's own citation (its authors,
    year, title, venue). The label is translated; the citation stays as it is, like a
    reference."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    intro = (
        "When reading a scholarly article, inline citations help researchers put the current",
        "paper in context and find relevant prior work; we study how readers can be helped.",
    )
    y = lines_at(page, 54, 80.0, intro, 9, pitch=11.0)
    words_at(page, [(54, y + 14, "ACM Reference Format:", 8, "tibo")])
    citation = (
        "Joseph Chee Chang, Amy X. Zhang, Jonathan Bragg, Andrew Head, Kyle Lo, Doug",
        "Downey, and Daniel S. Weld. 2023. CiteSee: Augmenting Citations in Scientific",
        "Papers. In Proceedings of the 2023 CHI Conference on Human Factors in Computing",
        "Systems (CHI '23), April 23-28, 2023, Hamburg, Germany. ACM, 15 pages.",
    )
    y = lines_at(page, 54, y + 25.0, citation, 8, pitch=10.0)
    opening = "Science builds on the past work of others, and so do we."
    words_at(page, [(54, y + 20, "1 INTRODUCTION", 10, "tibo"), (54, y + 36, opening, 9, "helv")])
    sent = [p.text for p in extract_paragraphs(open_document(doc.tobytes()))]
    assert "ACM Reference Format:" in sent, sent
    assert not [t for t in sent if "CiteSee" in t or "Jonathan Bragg" in t], sent
    assert any(t.startswith("Science builds") for t in sent), sent
