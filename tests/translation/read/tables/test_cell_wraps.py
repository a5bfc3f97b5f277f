"""A cell's line wrapped onto a line of its own (issue 35, point 2): in a table of two
columns that no table rule finds (a category beside its members), the last cell of a row
runs on below it, alone on its row ("... 11번가, 인터파크," | "쿠팡, 티몬, 위메프"). That line is
the cell's: one request with the cell's first line, never a body fragment."""

from __future__ import annotations

from tests.helpers.corpus2 import corpus2_pages
from tests.helpers.pdfgen.sheet import Sheet, read, words_at
from translation.read.paragraph import Paragraph, ParagraphKind
from translation.read.tables.cell_wraps import WrapLine, wrapped_cells

_SIZE = 8.0
_ROWS = [
    (110.0, "Category", "Members"),
    (127.0, "Discount stores", "Mart One, Mart Two, Mart Three, Home Plus"),
    (144.0, "Fuel", "Every filling station"),
    (161.0, "Online malls", "Shop One, Shop Two, Market Three, Eleven Street,"),
]


def _table_page(wrapped: str, under: str) -> bytes:
    """The rows of ``_ROWS`` (each a label and its members, a row pitch apart), the last
    row's members going on ``wrapped`` one line below at their left edge, and a line under
    the fuel row's members, ``under``; then a sentence under the table."""
    sheet = Sheet()
    for y, label, members in _ROWS:
        words_at(sheet.page, [(72.0, y, label, _SIZE, "helv"), (140.0, y, members, _SIZE, "helv")])
    words_at(sheet.page, [(140.0, 173.0, wrapped, _SIZE, "helv")])
    if under:
        words_at(sheet.page, [(140.0, 154.0, under, _SIZE, "helv")])
    words_at(
        sheet.page, [(72.0, 195.0, "Points are given for spending over the floor.", 8, "helv")]
    )
    return sheet.done()


def _holding(paragraphs: list[Paragraph], words: str) -> Paragraph:
    (found,) = [p for p in paragraphs if words in p.text]
    return found


def test_the_line_a_cell_wraps_onto_is_the_cells_next_line() -> None:
    paragraphs = read(_table_page("Shop Four, Shop Five", ""))
    cell = _holding(paragraphs, "Shop One")
    assert cell.kind is ParagraphKind.CELL
    assert cell.text == "Shop One, Shop Two, Market Three, Eleven Street, Shop Four, Shop Five"
    assert _holding(paragraphs, "Points are given").kind is ParagraphKind.BODY


def test_a_line_under_a_cell_that_does_not_read_on_stays_apart() -> None:
    """Under a cell that ends its words ("Every filling station"), a line opening with a
    capital is no part of it; the cell stays as printed."""
    paragraphs = read(_table_page("Shop Four, Shop Five", "Open all night"))
    assert _holding(paragraphs, "Every filling").text == "Every filling station"
    assert "Open all night" not in _holding(paragraphs, "Every filling").text


def test_the_rule_on_plain_lines() -> None:
    def line(x: float, base: float, text: str, cell: bool, lone: bool) -> WrapLine:
        return WrapLine(
            (x, base - 6, x + 4 * len(text), base + 2), base, 8.0, False, text, cell, lone
        )

    lines = [
        line(20, 100, "Online malls", True, False),
        line(90, 100, "Shop One, Shop Two,", True, False),
        line(90, 110, "Shop Three,", False, True),  # wrapped
        line(90, 120, "Shop Four", False, True),  # wrapped again
        line(90, 140, "Shop Five", False, True),  # a row's step below: apart
    ]
    assert wrapped_cells(lines) == [None, None, 1, 2, None]
    far = [*lines[:2], line(96, 110, "Shop Three", False, True)]  # not at the cell's edge
    assert wrapped_cells(far) == [None, None, None]


def test_a_card_terms_pages_wrapped_members_are_one_cell() -> None:
    """corpus2 144 p1: the online malls' and the coffee shops' members wrap onto lines
    of their own ("... 탐앤탐스," | "커피빈, ..., 파스쿠찌," | "아티제, 폴 바셋"): each list is
    one cell."""
    paragraphs = read(corpus2_pages("144_ko_card_terms_text_tables_ilovepdf.pdf", [0]))
    malls = _holding(paragraphs, "삼성카드 쇼핑")
    assert malls.kind is ParagraphKind.CELL
    assert malls.text == "삼성카드 쇼핑, G마켓, 옥션, 11번가, 인터파크, 쿠팡, 티몬, 위메프"
    coffee = _holding(paragraphs, "스타벅스, 투썸")
    assert coffee.kind is ParagraphKind.CELL
    assert coffee.text.endswith("파스쿠찌, 아티제, 폴 바셋")
    assert not [p for p in paragraphs if p.kind is ParagraphKind.BODY and "폴 바셋" in p.text]
