"""The grid of rules around a table's rows: its frame and the columns its rules part."""

from __future__ import annotations

from translation.read.tables.table_rules import framed, ruled_share

ROWS = (76.0, 93.0, 318.0, 222.0)  # the glyph box of a table's rows
SIZE = 9.0


def _h(y: float, x0: float = 72.0, x1: float = 326.0) -> tuple[float, float, float, float]:
    return (x0, y - 0.25, x1, y + 0.25)


def _v(x: float, y0: float = 90.0, y1: float = 228.0) -> tuple[float, float, float, float]:
    return (x - 0.25, y0, x + 0.25, y1)


def test_a_boxed_grid_frames_its_rows_to_its_ends() -> None:
    rules = [_h(90), _h(141), _h(228), _v(72), _v(140), _v(326)]
    assert framed(ROWS, SIZE, rules) == (72.0, 90.0, 326.0, 228.0)


def test_a_border_drawn_cell_by_cell_is_one_rule() -> None:
    rules = [_h(90), _h(228), _v(72, 90, 141), _v(72, 141, 228), _v(326, 90, 141)]
    rules += [_v(326, 141.5, 228), _v(140)]
    assert framed(ROWS, SIZE, rules) == (72.0, 90.0, 326.0, 228.0)


def test_a_grid_open_at_its_sides_ends_where_its_rules_across_end() -> None:
    rules = [_h(90), _h(141), _h(228), _v(140)]
    assert framed(ROWS, SIZE, rules) == (72.0, 90.0, 326.0, 228.0)


def test_rules_only_above_and_below_or_across_the_page_are_no_frame() -> None:
    assert framed(ROWS, SIZE, [_h(90), _h(141), _h(228)]) is None  # booktabs
    across = [_h(90, 20, 575), _h(228, 20, 575), _v(140)]
    assert framed(ROWS, SIZE, across) is None
    # A box around a page's text, a table in it: the box is no frame of the table's rows.
    boxed = [_h(40), _h(400), _v(72, 40, 400), _v(326, 40, 400), _v(140, 90, 228)]
    assert framed(ROWS, SIZE, boxed) is None


def test_the_share_of_a_frame_a_rule_down_a_gap_runs_along() -> None:
    frame = (72.0, 90.0, 326.0, 228.0)
    assert ruled_share((120.0, 150.0), frame, [_v(140)]) == 1.0
    # A cell spanning both columns breaks the rule; a gap no rule runs down has none.
    assert ruled_share((120.0, 150.0), frame, [_v(140, 159, 228)]) == 0.5
    assert ruled_share((153.0, 157.5), frame, [_v(140)]) == 0.0
