"""Which way a table column is set, from the glyph boxes of its cells' lines (09 p2 Table 1,
2203.00130 p38 Table 3, a "Self-" over "BLEU" header): the geometry as MuPDF reports it."""

from __future__ import annotations

from translation.read.tables.cell_align import centred_lines, right_aligned

SIZE = 9.0
ITEM = ("item", 0)
OTHER = ("item", 1)


def _line(x0: float, x1: float, row: int) -> tuple[tuple[float, float, float, float], float]:
    top = 100.0 + 12.0 * row
    return (x0, top, x1, top + 10.0), SIZE


def test_left_set_items_beside_wrapped_ones_are_not_flush_right() -> None:
    """Two wrapped list items end their first lines at the column's edge (they wrapped
    there); two one-line items happen to fill their lines too. Only the short lines, which
    all start at the column's left, say how it is set."""
    cells = [
        _line(193.6, 291.4, 0),  # "◦ ..." wrapped
        _line(202.9, 224.6, 1),  # its last line, hung under its text
        _line(193.6, 291.7, 2),  # "◦ ..." wrapped
        _line(202.9, 218.3, 3),  # its last line
        _line(198.0, 292.0, 4),  # "① ..." filling its line
        _line(198.4, 292.1, 5),  # "② ..." filling its line
        _line(198.0, 280.9, 6),  # "③ ..."
        _line(193.6, 228.8, 7),
        _line(193.6, 279.6, 8),
    ]
    stacks = [ITEM, ITEM, OTHER, OTHER, None, None, None, None, None]
    flush = right_aligned(cells, stacks)
    assert True not in flush, flush
    # Without the cells' stacks every line ending at the edge witnesses for the others.
    assert right_aligned(cells)[4] is True


def test_a_right_aligned_label_column_stays_flush_right() -> None:
    """Its widest label meets both edges of its room; the others end where it ends."""
    cells = [_line(242.3, 352.0, 0), _line(272.6, 352.0, 1), _line(279.5, 352.1, 2)]
    assert right_aligned(cells) == [True, True, True]


def test_a_wrapped_right_set_cell_is_judged_by_its_last_line() -> None:
    cells = [_line(300.0, 340.0, 0), _line(310.0, 340.0, 1), _line(318.0, 340.0, 2)]
    cells += [_line(322.0, 340.0, 3), _line(290.0, 340.0, 4)]
    assert right_aligned(cells, [None, None, None, ITEM, ITEM]) == [True] * 5


def test_a_header_cut_at_its_hyphen_is_centred() -> None:
    self_, bleu = _line(212.9, 230.4, 0)[0], _line(207.7, 232.2, 1)[0]
    assert centred_lines([self_, bleu], SIZE)
    # A list item's lines: a hanging indent and a ragged end are no common axis.
    item = [_line(92.3, 187.9, 0)[0], _line(101.8, 187.9, 1)[0], _line(101.8, 178.6, 2)[0]]
    assert not centred_lines(item, SIZE)
    # A left-set cell's lines start together.
    assert not centred_lines([_line(92.3, 187.9, 0)[0], _line(92.3, 140.0, 1)[0]], SIZE)
