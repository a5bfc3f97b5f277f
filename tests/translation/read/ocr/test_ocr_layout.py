"""Rules that turn Tesseract's line boxes into our lines (issue 14 follow-up), on literal word
boxes and literal ink: the pieces of a printed line joined, line boxes stretched over their
neighbours cut to their own text, sizes of misread lines kept to the line pitch, and the whole
of a stretched box covered."""

from __future__ import annotations

from collections.abc import Sequence

from translation.read.layout import Rect
from translation.read.ocr.covers import cover_boxes, tall_box_bands
from translation.read.ocr.ink import INK_SCALE, Ink, cut_to_ink
from translation.read.ocr.lines import (
    Word,
    drop_inner_scraps,
    is_rule,
    join_fragments,
    ocr_layout,
    overlapping_scraps,
    word_spaces,
)
from translation.read.ocr.sizes import cap_by_pitch

# A column of body lines 11.5 pt high at a pitch of 13.6 pt, 10 pt type (corpus 10, page 1).
PITCH, HEIGHT = 13.6, 11.5


def _top(i: int) -> float:
    return 300.0 + PITCH * i


def _page_ink(lines: Sequence[tuple[float, float, float, float]]) -> dict[int, list[int]]:
    """Dark pixels per pixel row of a page (``INK_SCALE`` rows a point) with text ink in the
    given (x0, top, x1, bottom) boxes, a pixel row holding one dark pixel a point of width."""
    rows: dict[int, list[int]] = {}
    for x0, top, x1, bottom in lines:
        for y in range(int(top * INK_SCALE), int(bottom * INK_SCALE)):
            row = rows.setdefault(y, [0] * 700)
            for x in range(int(x0), int(x1)):
                row[x] = 1
    return rows


def _ink(rows: dict[int, list[int]]) -> Ink:
    def ink(box: Rect) -> list[int]:
        out = []
        for y in range(int(box[1] * INK_SCALE), int(box[3] * INK_SCALE) + 1):
            row = rows.get(y, [])
            out.append(sum(row[x] if x < len(row) else 0 for x in range(int(box[0]), int(box[2]))))
        return out

    return ink


def test_a_box_stretched_over_the_next_line_is_cut_to_its_own_text() -> None:
    # Page 1's abstract: Tesseract's box of "tasks (e.g., entity extraction and linking)" runs
    # from its top down over "point out research challenges ..." (whose words it gave boxes of
    # their own height), and that line, fuller, drew the cut onto it: "tasks ..." stayed
    # readable under the translation.
    lines = [(89.0, _top(i), 274.0, _top(i) + HEIGHT) for i in range(5)]
    rows = _page_ink(lines[:2] + [(89.0, _top(2), 240.0, _top(2) + HEIGHT)] + lines[3:])
    boxes = [
        lines[0],
        lines[1],
        (89.0, _top(2), 274.0, _top(3) + HEIGHT + 6.0),  # "tasks ...", over "point out" too
        lines[3],  # "point out research challenges due to differ-"
        lines[4],
    ]
    cut = cut_to_ink(boxes, [10.0] * 5, _ink(rows))
    assert abs(cut[2][1] - _top(2)) <= 1.0, cut[2]
    assert cut[2][3] - cut[2][1] == 10.0 * 1.05
    assert cut[3] == boxes[3]


def test_the_spaces_between_a_lines_words_tell_its_text_from_a_neighbours() -> None:
    # Page 7: Tesseract's boxes of the run-in heading "Understanding and predicting citations."
    # and of the line below both ran over the two lines, both were cut to the heading's band,
    # and the line below stayed readable. Of two lines of as much ink, the one whose word
    # spaces are blank is the box's own.
    own = [(89.0, 130.0), (134.0, 200.0), (204.0, 274.0)]
    rows = _page_ink(
        [(x0, _top(0), x1, _top(0) + HEIGHT) for x0, x1 in own]
        + [(89.0, _top(1), 274.0, _top(1) + HEIGHT)]
    )
    words: list[Word] = [
        ("aaa", (89.0, _top(0), 130.0, _top(1) + HEIGHT)),
        ("bbb", (134.0, _top(0), 200.0, _top(1) + HEIGHT)),
        ("ccc", (204.0, _top(0), 274.0, _top(1) + HEIGHT)),
    ]
    spaces = word_spaces(words, 10.0)
    assert len(spaces) == 2
    box = (89.0, _top(0), 274.0, _top(1) + HEIGHT)
    (cut,) = cut_to_ink([box], [10.0], _ink(rows), [spaces])
    assert abs(cut[1] - _top(0)) <= 1.0, cut


def test_the_pieces_of_one_printed_line_are_one_line() -> None:
    # "point out research challenges due to differ-": Tesseract gave each word as a line; and
    # "To oil an then" + "le a" type of errors" (page 4): one line in two pieces.
    y0, y1 = 401.2, 408.6
    pieces = [
        [("point", (88.8, y0, 107.9, y1))],
        [("out", (114.4, y0, 124.5, y1))],
        [("research", (131.0, y0, 161.1, y1))],
        [("challenges", (169.9, y0, 214.9, y1))],
    ]
    other = [("ences", (89.3, 409.9, 120.0, 421.9))]
    far = [("Bio", (480.0, y0, 500.0, y1))]  # the other column, same height
    joined = join_fragments([*pieces, other, far])
    assert [[t for t, _ in line] for line in joined] == [
        ["point", "out", "research", "challenges"],
        ["ences"],
        ["Bio"],
    ]


def test_a_misread_line_at_body_pitch_is_body_size_and_a_heading_keeps_its_size() -> None:
    # "To oil an then le a" type of errors": 28 characters read for the 41 printed, so its
    # advance per character says 16 pt; its neighbours are a line pitch away.
    boxes = [(72.0, _top(i), 288.0, _top(i) + HEIGHT) for i in range(6)]
    sizes = [10.0] * 6
    sizes[3] = 16.0
    chars = [45] * 6
    chars[3] = 28
    capped = cap_by_pitch(boxes, sizes, chars)
    assert capped[3] == 10.0
    # A 14 pt heading with 10 pt of room above and below keeps its size.
    heading = (72.0, _top(6) + 12.0, 200.0, _top(6) + 12.0 + 14.7)
    body = (72.0, heading[3] + 12.0, 288.0, heading[3] + 12.0 + HEIGHT)
    capped = cap_by_pitch([*boxes, heading, body], [*sizes, 14.0, 10.0], [*chars, 30, 45])
    assert capped[6] == 14.0


def test_a_stretched_box_is_covered_whole_where_a_paragraph_holds_it() -> None:
    # The box of "et al., 2013) titled ..." (page 4) ran over a line Tesseract missed; cut to
    # that line's band, its own words stayed readable below the cover.
    tall = (72.9, 165.3, 288.4, 191.0)
    para = (72.0, 152.0, 290.0, 178.0)
    (band,) = tall_box_bands(para, 10.0, [tall])
    (cover,) = cover_boxes([band], skew_deg=0.0)
    assert cover[1] <= tall[1] + 0.01 and cover[3] >= tall[3] - 0.01
    assert cover[0] >= para[0] - 0.01 and cover[2] <= para[2] + 0.01
    # A box the paragraph holds no line of (a neighbour's, or a figure's) is not covered.
    assert tall_box_bands((72.0, 100.0, 290.0, 162.0), 10.0, [tall]) == []
    assert tall_box_bands((300.0, 152.0, 500.0, 178.0), 10.0, [tall]) == []


def test_a_table_rule_read_as_a_word_is_dropped_and_the_cells_stay_apart() -> None:
    # Table 2 (page 4): "Hybrid | 91.5 1990 | 92.1 3126", the "|" being the table's rule.
    y0, y1 = 121.9, 133.7
    texts = [("Hybrid", 342.4, 372.0), ("|", 374.0, 376.0), ("91.5", 380.0, 404.0)]
    texts += [("1990", 420.0, 444.0), ("|", 446.0, 448.0), ("92.1", 452.0, 470.0)]
    raw = {
        "blocks": [
            {
                "type": 0,
                "lines": [
                    {"spans": [{"text": t, "bbox": (x0, y0, x1, y1)} for t, x0, x1 in texts]}
                ],
            }
        ]
    }
    assert is_rule("|") and is_rule("_") and not is_rule("a|b") and not is_rule("—")
    layout = ocr_layout(raw, 0, 612, 792)
    spans = [s.text.strip() for b in layout.blocks for ln in b.lines for s in ln.spans]
    assert spans == ["Hybrid", "91.5", "1990", "92.1"]


def test_a_scrap_read_again_inside_a_stretched_line_is_dropped() -> None:
    # Page 4: "wt", read alone inside the stretched box of "et al., 2013) titled ...", was sent
    # and set as a stray word; "of" beside a body line's box (page 1) is kept.
    body = [[("body", (72.0, _top(i), 288.0, _top(i) + HEIGHT))] for i in range(5)]
    tall: list[Word] = [("eal. OL nat", (72.9, 165.3, 288.4, 191.0))]
    scrap: list[Word] = [("wt", (121.2, 184.5, 136.9, 195.6))]
    beside: list[Word] = [("of", (60.0, _top(1) + 1.0, 70.0, _top(1) + HEIGHT))]
    kept = drop_inner_scraps([*body, tall, scrap, beside])
    assert [w[0][0] for w in kept] == ["body"] * 5 + ["eal. OL nat", "of"]


def test_the_scraps_of_a_line_read_twice_are_dropped_and_covered() -> None:
    # Corpus 10 page 3, its line boxes as read (cut to their ink): "longest continuous sequence
    # of tokens with the" read whole and again in pieces over the lines around it; each piece
    # was set as a line of its own, over its neighbours' translations.
    lines = [
        ("Decoding. At test time, we use Viterbi decod-", (318.2, 630.9, 526.7, 642.8)),
        ("ing to find the most likely elobal sequence. with", (308.1, 641.6, 525.2, 654.6)),
        ("me", (307.4, 649.5, 320.7, 664.9)),
        ("vs", (418.9, 649.5, 432.7, 664.9)),
        ("no further constraints. To get the title, we use the", (307.4, 662.5, 524.9, 674.4)),
        ("longest", (307.4, 668.5, 339.3, 681.9)),
        ("f tok", (447.5, 668.5, 469.0, 681.9)),
        ("gest continuous sequence of tokens wi", (321.8, 676.9, 498.8, 689.3)),
        (
            "\u201ctitle\u201d label. Since there can be multiple authors,",
            (306.2, 685.9, 525.8, 697.8),
        ),
        ("consistently gave better results.", (79.0, 712.0, 188.0, 720.0)),
        ("4", (188.5, 711.0, 192.0, 717.0)),  # a mark beside a line, not over it
    ]
    chars = [len(text.replace(" ", "")) for text, _ in lines]
    scraps = overlapping_scraps(chars, [box for _, box in lines])
    assert {lines[n][0] for n in scraps} == {"me", "vs", "longest", "f tok"}
    words = [[(w, box) for w in text.split()] for text, box in lines]
    raw = {
        "blocks": [
            {"lines": [{"spans": [{"text": w, "bbox": box} for w, box in ws]}]} for ws in words
        ]
    }
    layout = ocr_layout(raw, 2, 595.0, 842.0)
    kept = {"".join(s.text for s in ln.spans) for b in layout.blocks for ln in b.lines}
    assert not kept & {"me", "vs", "longest", "ftok", "f tok"}
    assert (307.4, 668.5, 339.3, 681.9) in layout.tall_boxes  # its pixels are covered


def test_two_stretched_lines_over_each_other_are_cut_to_their_own_lines() -> None:
    # Corpus 10 page 7, footnotes 10 and 11: both line boxes stretched over both printed
    # lines; the shorter URL line was cut to the longer one's band (more ink) and the two were
    # set over each other.
    rows = _page_ink([(317, 685, 380, 694), (317, 697, 500, 706)])
    boxes = [(316.7, 680.2, 440.1, 707.1), (316.7, 690.0, 501.0, 718.1)]
    first, second = cut_to_ink(boxes, [10.0, 10.0], _ink(rows))
    assert 683 <= first[1] and first[3] <= 696  # its own line, above
    assert 695 <= second[1] and second[3] <= 708


def test_speck_underscores_go_and_a_bullet_read_as_e_is_a_bullet() -> None:
    from translation.read.ocr.lines import with_bullet, without_specks

    assert without_specks("—_struct") == "struct"
    assert without_specks("_In") == "In"
    assert without_specks("sta-__") == "sta-"
    assert without_specks("max_len") == "max_len"
    box: Rect = (72.0, 600.0, 80.0, 612.0)
    assert with_bullet([("e", box), ("Which", box)])[0][0] == "•"
    assert with_bullet([("e", box), ("which", box)])[0][0] == "e"


def test_a_footnote_at_a_columns_foot_is_set_at_its_own_pitch() -> None:
    from translation.read.ocr.sizes import foot_print

    body = [(72.0, _top(i), 290.0, _top(i) + HEIGHT) for i in range(10)]
    # Two footnote lines 10.2 pt apart below the column (corpus 10 page 7).
    foot = [(84.0, 744.0, 289.0, 755.3), (72.0, 754.8, 134.0, 764.9)]
    sizes = foot_print(body + foot, [11.3] * 12)
    assert sizes[:10] == [11.3] * 10
    assert all(s < 9.0 for s in sizes[10:])
