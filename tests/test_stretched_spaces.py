"""A justified line's stretched word spaces, told from the gaps between a table's cells."""

from __future__ import annotations

from translation.read.words.stretched_spaces import stretched_gaps


def _line(
    words: list[tuple[str, float]], gap: float, x: float = 0.0
) -> list[tuple[float, float, str]]:
    """Words of the given widths set one after the other, ``gap`` apart."""
    result = []
    for text, width in words:
        result.append((x, x + width, text))
        x += width + gap
    return result


def test_the_spaces_of_a_justified_line_are_stretched_beside_a_year_too() -> None:
    words = [("wraps", 22.0), ("sciSpaCy", 34.5), ("(Neumann", 38.6), ("et", 6.6)]
    words += [("al.,", 11.1), ("2019)", 21.0), ("and", 13.2)]
    assert stretched_gaps(_line(words, 9.4), 9.0) == set(range(6))


def test_a_header_of_one_word_per_evenly_spaced_column_has_no_stretched_spaces() -> None:
    words = [("CLS", 16.0), ("USR", 16.5), ("CITE", 18.0), ("REC", 16.0), ("Avg.", 16.5)]
    assert stretched_gaps(_line(words, 14.0), 9.0) == set()


def test_gaps_of_cells_that_differ_are_no_stretched_spaces() -> None:
    line = [(0.0, 40.0, "Linguistic"), (52.0, 87.0, "Segments"), (90.0, 103.0, "doc")]
    line.append((130.0, 152.0, "wraps"))
    assert stretched_gaps(line, 9.0) == set()


def test_a_row_longer_than_any_line_is_not_searched() -> None:
    """The search is quadratic in a row's words: a crafted row of thousands of words (here
    spaced like a justified line) is left as it is, not searched."""
    x, words = 0.0, []
    for k in range(5000):
        width = 6.0 + 12.0 * (k % 2)
        words.append((x, x + width, "ab"))
        x += width + 9.4
    assert stretched_gaps(words[:40], 9.0)  # a line's worth is searched and found
    assert stretched_gaps(words, 9.0) == set()
