"""The fast paths under typesetting write exactly what the slow ones did (issue 38)."""

from __future__ import annotations

import random

import pymupdf
import pytest

from translation.render import cff
from translation.render.writers import show


def _written(write: str) -> tuple[bytes, str, list[str]]:
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=200)
    writer = pymupdf.TextWriter(page.rect)
    runs = [("Hello ", "helv", 11.0), ("wörld", "tiro", 9.5), ("code()", "cour", 10.0)]
    x = 20.0
    for text, name, size in runs:
        font = pymupdf.Font(name)
        if write == "append":
            writer.append((x, 100.0), text, font=font, fontsize=size)
        else:
            show(writer, x, 100.0, text, font, size)
        x += font.text_length(text, size)
    writer.write_text(page)
    saved = pymupdf.open(stream=doc.tobytes())
    fonts = sorted(f[3] for f in saved[0].get_fonts())
    return saved[0].read_contents(), saved[0].get_text(), fonts


def test_show_writes_what_append_writes() -> None:
    # The monospaced Courier is noted for write_text's width repair as append notes it.
    assert _written("show") == _written("append")


@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_cff_index_offsets_read_every_width(size: int) -> None:
    rng = random.Random(size)
    values = [rng.randrange(256**size) for _ in range(1000)]
    raw = b"".join(v.to_bytes(size, "big") for v in values)
    assert cff._offsets(raw, size) == values


def test_a_cff_index_lists_its_items_and_refuses_a_short_one() -> None:
    # count 3, offset size 1, offsets 1, 2, 4, 7: items b"a", b"bc", b"def".
    table = b"\x00\x03\x01\x01\x02\x04\x07abcdef"
    index = cff._index(table, 0)
    assert [table[s:e] for s, e in index] == [b"a", b"bc", b"def"]
    assert (len(index), index[2], index.end) == (3, (10, 13), 13)
    with pytest.raises(IndexError):
        index[3]
    with pytest.raises(cff.FontFormatError):
        cff._index(table[:5], 0)
