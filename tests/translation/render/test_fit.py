"""Fitting translations: free room used before shrinking, one size per role on a page, and
nothing outside its column or the page."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from tests.fakes.pseudo import pseudo_translate
from tests.helpers.pdfgen.typeset import Glyph
from tests.helpers.pdfgen.typeset import paper_bytes as _paper
from tests.helpers.pdfgen.typeset import render_page as _render
from tests.helpers.pdfgen.typeset import translation_glyphs as _glyphs
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs, read_layout
from translation.read.layout import Rect, column_split
from translation.read.paragraph import Align, Paragraph, ParagraphKind
from translation.read.segment import restore
from translation.render.fitting import FLOOR, plan, room
from translation.render.fonts import FontChain, fit, tokenize


def para(
    pid: str,
    bbox: Rect,
    size: float = 10.0,
    lines: int = 3,
    align: Align = Align.JUSTIFY,
    kind: ParagraphKind = ParagraphKind.BODY,
) -> Paragraph:
    return Paragraph(
        pid, 0, "x", {}, bbox, (bbox,), size,
        align=align, kind=kind, line_count=lines, column=(50.0, 300.0),
    )  # fmt: skip


# --- rules ------------------------------------------------------------------------------------


def test_a_short_line_widens_across_its_column_up_to_the_text_beside_it() -> None:
    heading = para("h", (50, 100, 120, 112), lines=1, align=Align.LEFT)
    assert room(heading, [], [], 112)[2] == 300.0
    beside = (200.0, 101.0, 240.0, 111.0)  # a label on the same line
    assert room(heading, [beside], [], 112)[2] == pytest.approx(200.0 - 3.0)


def test_a_centred_line_widens_evenly() -> None:
    title = para("t", (150, 50, 200, 62), lines=1, align=Align.CENTER)
    x0, _, x1, _ = room(title, [], [], 62)
    assert (x0 + x1) / 2 == pytest.approx(175.0) and x0 == 50.0


def test_a_paragraph_grows_down_to_the_next_thing_in_its_column_only() -> None:
    body = para("b", (50, 100, 300, 200))
    below = (50.0, 260.0, 300.0, 300.0)
    other_column = (320.0, 210.0, 500.0, 220.0)
    assert room(body, [below, other_column], [], 700)[3] == pytest.approx(260.0 - 6.0)
    rule = (40.0, 230.0, 310.0, 230.5)
    assert room(body, [below], [rule], 700)[3] == pytest.approx(230.0 - 3.0)
    frame = (45.0, 90.0, 305.0, 240.0)  # a box drawn around the paragraph
    assert room(body, [below], [frame], 700)[3] == pytest.approx(240.0 - 3.0)
    assert room(body, [], [], 700)[3] == 700.0  # nothing below: down to the page's text end


def test_cells_keep_their_width() -> None:
    cell = para("c", (50, 100, 90, 110), lines=1, align=Align.LEFT, kind=ParagraphKind.CELL)
    assert room(cell, [], [], 110)[0::2] == (50, 90)


def test_one_size_per_role_never_below_the_floor_while_the_others_fit() -> None:
    a, b, c = (
        para("a", (50, 0, 300, 100)),
        para("b", (50, 110, 300, 200)),
        para("c", (50, 210, 300, 250)),
    )
    h = para("h", (50, 260, 300, 272), size=12, lines=1, kind=ParagraphKind.HEADING)
    best = {"a": 10.0, "b": 9.0, "c": 6.0, "h": 12.0}
    sizes = plan([(p, "") for p in (a, b, c, h)], [], [], lambda p, t, r, s: best[p.id])
    assert sizes["a"][1] == sizes["b"][1] == 9.0  # one size for the body
    assert sizes["c"][1] == 6.0  # cannot fit at the floor: its own size
    assert sizes["h"][1] == 12.0  # headings are a role of their own
    best["b"] = 7.0
    sizes = plan([(p, "") for p in (a, b)], [], [], lambda p, t, r, s: best[p.id])
    assert sizes["a"][1] == 10.0 and sizes["b"][1] == 7.0  # b does not pull a down


def test_an_uncuttable_unit_wider_than_the_box_shrinks_the_text() -> None:
    chain = FontChain("ko")
    fitted = fit("짧은 " + "\U000f0001", 100, 200, 10, 1.3, lambda u: 15.0 if "\U000f0001" in u
                 else chain.width(u))  # fmt: skip
    assert fitted.fits and max(line.width for line in fitted.lines) * fitted.size <= 100.01


def test_a_word_a_little_wider_than_the_box_is_set_whole_at_a_smaller_size() -> None:
    """An e-mail address in a narrow author cell, in a face wider than the source's: 10%
    smaller, whole, rather than cut between its letters."""
    mail = "josephc@allenai.org"
    fitted = fit(f"{mail} 앨런 인공지능 연구소", 90.0, 60.0, 10.0, 1.2, lambda u: 0.5 * len(u))
    assert 8.0 <= fitted.size < 10.0
    assert ["".join(line.units) for line in fitted.lines][0] == mail
    # A URL far wider than a line is still cut: the paragraph keeps its size.
    url = "https://example.org/" + "a" * 60
    fitted = fit(f"{url} 참고", 90.0, 60.0, 10.0, 1.2, lambda u: 0.5 * len(u))
    assert fitted.size == 10.0 and len(fitted.lines) >= 3


# --- corpus -----------------------------------------------------------------------------------

PAGES = [("01", 0), ("03", 0), ("04", 0)]


def _sizes(paragraph: Paragraph, glyphs: list[Glyph]) -> set[float]:
    box = pymupdf.Rect(paragraph.bbox)
    return {
        round(g.size, 2)
        for g in glyphs
        if box.contains(pymupdf.Point((g.bbox[0] + g.bbox[2]) / 2, (g.bbox[1] + g.bbox[3]) / 2))
    }


@pytest.mark.corpus
@pytest.mark.corpus
@pytest.mark.parametrize(("number", "page"), PAGES)
def test_body_paragraphs_of_one_source_size_share_one_output_size(
    corpus_dir: Path, number: str, page: int
) -> None:
    """Body paragraphs of the same source size get the same output size (within 5%), at
    least 0.8x their source size; the exception is a paragraph holding a copied formula wider
    than its column (a URL glued to a footnote mark was one), which must shrink to fit."""
    paragraphs, out = _render(_paper(corpus_dir, number), page)
    glyphs = _glyphs(out)
    groups: dict[float, list[float]] = {}
    for p in paragraphs:
        if p.kind != ParagraphKind.BODY:
            continue
        sizes = _sizes(p, glyphs)
        assert len(sizes) == 1, (p.id, sizes)  # one size inside a paragraph
        size = sizes.pop()
        width = p.bbox[2] - p.bbox[0]
        if any(sum(r[2] - r[0] for r in rs) > width for rs in p.formula_boxes.values()):
            continue
        assert size >= FLOOR * p.font_size - 0.01, p.id
        groups.setdefault(round(p.font_size * 2) / 2, []).append(size)
    assert groups
    for group in groups.values():
        assert max(group) <= 1.05 * min(group), group


@pytest.mark.corpus
@pytest.mark.corpus
@pytest.mark.parametrize(("number", "page"), PAGES)
def test_no_translated_text_leaves_its_column_or_the_page(
    corpus_dir: Path, number: str, page: int
) -> None:
    """Only text of rows spanning both columns crosses the gutter, and nothing leaves the page
    (03 p1's footnote URL ran over the gutter into the right column)."""
    data = _paper(corpus_dir, number)
    paragraphs, out = _render(data, page)
    split = column_split(read_layout(pymupdf.open(stream=data)[page]))
    assert split is not None
    spanning = [p.bbox for p in paragraphs if p.bbox[0] < split - 5 < split + 5 < p.bbox[2]]
    glyphs = _glyphs(out)
    assert glyphs
    for glyph in glyphs:
        x0, y0, x1, y1 = glyph.bbox
        assert out.rect.contains(pymupdf.Rect(x0, y0, x1, y1))
        if x0 < split - 0.5 and x1 > split + 0.5 or x0 > split - 0.5 > x1 - 5:
            # On the gutter: only text of a paragraph that spans both columns.
            assert any(b[1] - 1 <= (y0 + y1) / 2 <= b[3] + 20 for b in spanning), glyph


@pytest.mark.corpus
def test_short_lines_widen_instead_of_shrinking(corpus_dir: Path) -> None:
    """One-line paragraphs with room beside them (04 p1's section headings) widen instead of
    shrinking when their translation is longer than the source line."""
    data = _paper(corpus_dir, "04")
    paragraphs = extract_paragraphs(open_document(data), pages=[0])
    headings = [p for p in paragraphs if p.text in ("Abstract", "1 Introduction")]
    assert len(headings) == 2
    translations = {}
    for p in paragraphs:
        text = pseudo_translate(p.text, "ko")
        translations[p.id] = restore(text if p.line_count > 1 else text + " " + text * 2, p)
    out = pymupdf.open(stream=render_mono(open_document(data), paragraphs, translations, "ko"))
    glyphs = _glyphs(out[0])
    for p in headings:
        x0, y0, x1, y1 = p.bbox
        sizes = {
            round(g.size, 2) for g in glyphs if y0 - 1 <= (g.bbox[1] + g.bbox[3]) / 2 <= y1 + 1
        }
        assert sizes and min(sizes) >= FLOOR * p.font_size - 0.01, p.text


def test_a_line_may_break_after_the_hyphen_of_a_compound() -> None:
    assert tokenize("문서-수준 표현 GPT-3") == ["문서-", "수준", " ", "표현", " ", "GPT-3"]


def test_a_paragraph_does_not_grow_into_the_room_a_short_line_beside_it_widens_into() -> None:
    """A one-line label left of a paragraph widens right; the paragraph above it on the right
    must not grow down into that room."""
    label = para("l", (50, 200, 80, 210), lines=1, align=Align.LEFT)
    upper = para("u", (150, 100, 300, 180))
    sizes = plan([(label, ""), (upper, "")], [], [], lambda p, t, r, s: s)
    assert sizes["l"][0][2] == 300.0  # the label widened across the column
    assert sizes["u"][0][3] <= 200.0  # the paragraph stops above the label's widened line


def test_a_lists_items_that_came_out_at_different_sizes_are_set_one_after_another() -> None:
    """A one-line item whose translation needs two lines, over a two-line item whose
    translation needs one: each alone, the first fits only far below the floor size and the
    others keep the source size; set one after another in the list's area, all three keep
    the source size."""
    item = ParagraphKind.LIST_ITEM
    one = para("1", (50, 100, 300, 112), lines=1, align=Align.LEFT, kind=item)
    two = para("2", (50, 113, 300, 137), lines=2, align=Align.LEFT, kind=item)
    three = para("3", (50, 138, 300, 150), lines=1, align=Align.LEFT, kind=item)
    texts = {"1": "a" * 80, "2": "b" * 30, "3": "c" * 20}  # 0.5 em a letter: 2, 1, 1 lines

    def size_in(p: Paragraph, text: str, area: Rect, size: float) -> float:
        width, height = area[2] - area[0], area[3] - area[1]
        return fit(text, width, height, size, 1.3, lambda u: 0.5 * len(u)).size

    items = [(p, texts[p.id]) for p in (one, two, three)]
    planned = plan(items, [], [], size_in)
    assert {size for _, size in planned.values()} == {10.0}
    areas = [planned[p.id][0] for p in (one, two, three)]
    assert areas[0][3] - areas[0][1] >= 10.0 * 2.3 - 0.05  # room for its two lines
    assert areas[0][1] == 100.0 and areas[2][3] <= 150.0
    assert areas[0][3] <= areas[1][1] and areas[1][3] <= areas[2][1]  # one after another
