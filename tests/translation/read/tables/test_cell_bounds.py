"""A table cell's translation stays inside its cell: constructed pages read and set again with
the pseudo translator, checked where a reader sees them (the text on the translated page)."""

from __future__ import annotations

import pymupdf

from tests.helpers.pdfgen.sheet import words_at
from tests.helpers.pdfgen.typeset import by_text, hangul, spans, translate
from translation.read.math.quantities import is_quantity
from translation.read.paragraph import ParagraphKind

SIZE = 9.0

CELL = "Tilt if it is ill (Li, 2019)"  # its translation is wider than its room

# A LaTeX table as a PDF converter writes it: every rule an image mask one pixel high.
MASK_ROWS = [
    ("Field", "Dataset", "SOTA", "Frozen", "Finetune"),
    ("Bio", "BC5CDR (Li, 2016)", "88.85", "85.08", "86.72"),
    ("", "JNLPBA (Kim, 2004)", "78.58", "74.05", "76.09"),
    ("CS", "SciERC (Luan, 2018)", "64.20", "63.58", "65.24"),
    ("Multi", CELL, "84.0", "84.31", "84.85"),
    ("Avg.", "", "", "73.58", "77.16"),
]
MASK_COLUMNS = (87.0, 118.0, 210.0, 260.0, 310.0)
MASK_RULES = [63.0, 91.0, 153.0, 168.0]  # top, under the header, above "Average", bottom


def _mask_ruled_table() -> tuple[bytes, list[float]]:
    """The table of MASK_ROWS with its rules drawn as 1x1 image masks stretched to a line,
    a caption further below; also the rules' y."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    baselines = [76.0, 102.0, 113.0, 130.0, 147.0, 164.0]
    cells = [
        (x, baseline, text, SIZE, "tiro")
        for baseline, row in zip(baselines, MASK_ROWS, strict=True)
        for x, text in zip(MASK_COLUMNS, row, strict=True)
        if text
    ]
    caption = (87, 210, "Table 1: Test performances of all variants on all tasks.", 10, "helv")
    words_at(page, [*cells, caption])
    mask = doc.get_new_xref()
    doc.update_object(
        mask,
        "<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ImageMask true"
        " /BitsPerComponent 1 >>",
    )
    doc.update_stream(mask, b"\x00")
    res = doc.xref_get_key(page.xref, "Resources")
    resources = int(res[1].split()[0]) if res[0] == "xref" else page.xref
    key = "XObject/ImR" if resources != page.xref else "Resources/XObject/ImR"
    doc.xref_set_key(resources, key, f"{mask} 0 R")
    rules = MASK_RULES
    ops = "".join(f"q 0 g 424 0 0 0.96 87 {842 - y - 0.96:.2f} cm /ImR Do Q\n" for y in rules)
    stream = doc.get_new_xref()
    doc.update_object(stream, "<<>>")
    doc.update_stream(stream, ops.encode())
    contents = doc.xref_get_key(page.xref, "Contents")
    parts = contents[1].strip("[]") if contents[0] == "array" else contents[1]
    doc.xref_set_key(page.xref, "Contents", f"[{parts} {stream} 0 R]")
    return doc.tobytes(), rules


def test_a_cell_stays_above_a_rule_drawn_as_an_image_mask() -> None:
    data, rules = _mask_ruled_table()
    paras, page = translate(data, "ko")
    cell = by_text(paras)[CELL]
    assert cell.kind == ParagraphKind.CELL
    rule = rules[-2]  # under the row of this cell, above "Average"
    x0, y0, x1, y1 = cell.bbox
    shown = spans(page, (x0 - 10, y0 - 2, 205, 200))
    assert any(hangul(s["text"]) for s in shown), "the cell is translated"
    crossing = [s["text"] for s in shown if s["bbox"][1] < rule < s["bbox"][3] - 1]
    assert not crossing, f"a line of the cell's translation lies over the rule under it: {crossing}"
    assert all(s["size"] >= 0.6 * SIZE - 0.01 for s in shown)


# A header over two groups of columns (a model's scores on two datasets), its two-line cells
# cut at their hyphen and set higher than the one-line cells beside them (their top lines
# above the table's first row), a row spanning each
# group below it (where a table was read from a paper, ACL style, Times at 9 pt).
TWO_GROUPS = [
    (133.1, 70.9, "BERT"),
    (174.4, 64.5, "Self-"),
    (173.4, 76.0, "TER"),
    (209.0, 64.5, "Self-"),
    (203.8, 76.0, "BLEU"),
    (238.4, 70.9, "BLEU"),
    (274.8, 70.9, "iBLEU"),
    (313.7, 70.9, "SARI"),
    (347.4, 70.9, "BERT"),
    (388.7, 64.5, "Self-"),
    (387.7, 76.0, "TER"),
    (423.4, 64.5, "Self-"),
    (418.1, 76.0, "BLEU"),
    (452.6, 70.9, "BLEU"),
    (489.1, 70.9, "iBLEU"),
    (527.9, 70.9, "SARI"),
    (62.6, 88.3, "Method"),
    (198.5, 88.3, "Dataset: QQP 50K"),
    (404.4, 88.3, "Dataset: ParaSCI ACL"),
]
TWO_GROUP_NUMBERS = [
    ("RAPT (kNN)", "90.04 44.99 38.39 31.61 10.61 43.91 84.86 41.48 55.37 35.34 8.13 39.00"),
    ("RAPT (random)", "92.48 35.39 48.11 29.50 6.22 41.65 92.45 20.76 75.89 32.82 0.21 31.98"),
]
NUMBER_X = (137.0, 171.6, 206.3, 242.6, 284.0, 314.9, 351.2, 385.9, 420.6, 457.0, 500.3, 529.2)


def _two_group_table(top: float = 64.5) -> bytes:
    """The table of TWO_GROUPS; ``top``: the baseline of the two-line cells' top lines."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    words_at(page, [(x, top if y == 64.5 else y, text, 8.97, "tibo") for x, y, text in TWO_GROUPS])
    for y, (label, numbers) in zip((105.0, 117.0), TWO_GROUP_NUMBERS, strict=True):
        words_at(page, [(62.6, y, label, 8.97, "tiro")])
        words_at(
            page, [(x, y, n, 8.97, "tiro") for x, n in zip(NUMBER_X, numbers.split(), strict=True)]
        )
    caption = "Table 7: Comparison of the two retrieval methods on both sets."
    words_at(page, [(54, 140, caption, 10, "helv")])
    data: bytes = doc.tobytes()
    return data


def test_header_cells_are_neither_cut_at_their_hyphen_nor_merged() -> None:
    paras, _ = translate(_two_group_table(), "ko")
    cells = [" ".join(p.text.split()) for p in paras if p.kind == ParagraphKind.CELL]
    assert cells.count("Self-BLEU") == 2, cells
    assert cells.count("Self-TER") == 2, cells
    assert cells.count("iBLEU") == 2, cells  # "BLEU" beside it is notation, not sent
    sent = [" ".join(p.text.split()) for p in paras]
    assert "Self-" not in sent and not any("BLEU iBLEU" in t for t in sent), sent


# A table of measured values whose last column states each device's size, its lines justified
# in a narrow column ("WxL      =" spread to the column's width).
QUANTITY_ROWS = [
    (316.0, "This work", ("-255", "-283", "486"), [("WxL", 247.0), ("=", 285.0)]),
    (328.0, "", (), [("8.5 µm x", 247.0)]),
    (356.0, "Wacker et al. [34]", ("-470", "-220", "520"), [("WxL = 16 µm", 247.0)]),
    (396.0, "Bradley et al. [35]", ("-250", "-320", "415"), [("L = 15 µm", 247.0)]),
]


def _quantity_table() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    words_at(
        page,
        [(44, 260, "The coefficients measured on the devices are compared below.", 11, "helv")],
    )
    heads = zip((132.0, 165.0, 205.0, 247.0), ("Pn,t", "Pn,l", "Pp,l", "Dimensions"), strict=True)
    words_at(page, [(x, 308, head, 10, "tiro") for x, head in heads])
    for y, label, numbers, sizes in QUANTITY_ROWS:
        words_at(page, [(44, y, label, 10, "tiro")])
        words_at(
            page,
            [(x, y, n, 10, "tiro") for x, n in zip((132.0, 165.0, 205.0), numbers, strict=False)],
        )
        words_at(page, [(x, y, text, 10, "tiro") for text, x in sizes])
    words_at(page, [(38, 430, "Table 2: Piezoresistive coefficients of the devices.", 10, "helv")])
    data: bytes = doc.tobytes()
    return data


def test_cells_of_quantities_are_not_sent_and_stay() -> None:
    paras, page = translate(_quantity_table(), "ko")
    sent = [" ".join(p.text.split()) for p in paras]
    assert not [t for t in sent if "WxL" in t or "µm" in t or t.startswith("L =")], sent
    assert any(t.startswith("This work") for t in sent), sent
    kept = " ".join(s["text"] for s in spans(page, (240, 300, 330, 400)))
    for text in ("WxL", "=", "8.5 µm x", "16 µm", "L = 15 µm"):
        assert text in kept, kept


def test_a_header_spanning_columns_of_numbers_is_one_cell_set_once() -> None:
    # "Dataset: ParaSCI ACL" is set with word spaces, centred over six columns of numbers
    # whose gutters fall between its words: one cell, its translation set once, whole.
    paras, page = translate(_two_group_table(), "ko")
    cells = [" ".join(p.text.split()) for p in paras if p.kind == ParagraphKind.CELL]
    for head in ("Dataset: ParaSCI ACL", "Dataset: QQP 50K"):
        assert cells.count(head) == 1, cells
    assert not {"Dataset:", "ParaSCI", "ParaSCI ACL", "ACL", "QQP 50K"} & set(cells), cells
    row = [s for s in spans(page, (130, 80, 560, 93)) if hangul(s["text"])]
    assert row, row
    for i, a in enumerate(row):
        for b in row[i + 1 :]:
            inside = pymupdf.Rect(a["bbox"]) & pymupdf.Rect(b["bbox"])
            assert inside.is_empty or inside.width < 0.5, (a["text"], b["text"])


def test_a_header_centred_over_its_group_of_columns_stays_centred() -> None:
    # "Dataset: QQP 50K" and "Dataset: ParaSCI ACL" stand on the axis of the six columns of
    # scores each heads: their translations stand on the same axis, not flush left.
    paras, page = translate(_two_group_table(), "ko")
    heads = by_text(paras)
    for head in ("Dataset: QQP 50K", "Dataset: ParaSCI ACL"):
        x0, y0, x1, y1 = heads[head].bbox
        shown = [s for s in spans(page, (x0 - 40, y0 - 1, x1 + 40, y1 + 1)) if hangul(s["text"])]
        assert shown, head
        left = min(s["bbox"][0] for s in shown)
        right = max(s["bbox"][2] for s in shown)
        assert abs((left + right) / 2 - (x0 + x1) / 2) < 1.5, (head, left, right, x0, x1)


def test_wrapped_header_cells_wrap_in_their_columns_apart() -> None:
    # "Self-" over "TER" and "Self-" over "BLEU" head narrow columns of scores, side by side:
    # each translation wraps within its column as the source does, a gap from its neighbour
    # (their lines set 10 pt apart, as in the paper: two lines of the translation at the
    # source size do not fit their height).
    paras, page = translate(_two_group_table(top=66.0), "ko")
    heads = [p for p in paras if " ".join(p.text.split()) in ("Self-TER", "Self-BLEU")]
    assert len(heads) == 4
    for head in heads:
        x0, y0, x1, y1 = head.bbox
        shown = [s for s in spans(page, (x0 - 8, y0 - 2, x1 + 8, y1 + 1)) if hangul(s["text"])]
        mine = [s for s in shown if s["bbox"][2] > x0 - 3 and s["bbox"][0] < x1 + 3]
        assert len({round(s["bbox"][1]) for s in mine}) == 2, [s["text"] for s in shown]
        for s in mine:
            assert s["bbox"][0] > x0 - 3 and s["bbox"][2] < x1 + 3, (head.text, s["text"], x0, x1)
    row = sorted(
        (s for s in spans(page, (130, 55, 560, 80)) if hangul(s["text"])),
        key=lambda s: s["bbox"][0],
    )
    for a in row:
        for b in row:
            same_line = abs(a["bbox"][1] - b["bbox"][1]) < 2
            if a is not b and same_line and a["bbox"][0] < b["bbox"][0]:
                assert b["bbox"][0] - a["bbox"][2] >= 2.0, (a["text"], b["text"])


def test_a_quantity_relates_symbols_and_units_not_words() -> None:
    """Latin or Greek symbols and units around a relation sign are notation; words are not,
    in any script: Korean words are as short as units ("합계 = 10개" is a sentence)."""
    assert is_quantity("WxL = 8.5 µm x 5 µm") and is_quantity("p < 0.05")
    assert is_quantity("Δt ≈ 3 ms")
    assert not is_quantity("accuracy = 0.91") and not is_quantity("8.5 µm x 5 µm")
    assert not is_quantity("합계 = 10개") and not is_quantity("値 = 5")
