"""Marks are marks (issue 22 item 5): glyphs of a font without a Unicode map (circled footnote
numbers drawn by a Type3 font whose glyph names mean no character) are kept as glyphs, never
sent to the model as the letters PyMuPDF reads their codes as ("x y z { |")."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from tests.helpers.pdfgen.sheet import words_at
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.math.formulas import PLACEHOLDER_RE
from translation.read.pages.marks import differences, is_mark, unmapped_codes

BODY = "The results hold for every paper that we read in the corpus"
NOTE = "The corpus holds papers of many fields and of many years."


def page_with_marks(glyph_names: list[str]) -> bytes:
    """A page: a body sentence ending in a mark (code 120) and a footnote opening with a mark
    (code 121), the marks set in a Type3 font with ``glyph_names`` for codes 120-124
    and no /ToUnicode."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    words_at(page, [(72, 300, BODY, 10, "helv"), (84, 700, NOTE, 8, "helv")])
    procs = []
    for _ in glyph_names:
        xref = doc.get_new_xref()
        doc.update_object(xref, "<<>>")
        doc.update_stream(xref, b"800 0 0 0 800 800 d1 400 400 m 700 400 l 700 700 l h f")
        procs.append(xref)
    font = doc.get_new_xref()
    names = " ".join("/" + n for n in glyph_names)
    charprocs = " ".join(f"/{n} {x} 0 R" for n, x in zip(glyph_names, procs, strict=True))
    doc.update_object(
        font,
        "<< /Type /Font /Subtype /Type3 /FontBBox [0 0 800 800]"
        " /FontMatrix [0.001 0 0 0.001 0 0] /Resources << >>"
        f" /CharProcs << {charprocs} >> /FirstChar 120 /LastChar 124 /Widths [800 800 800 800 800]"
        f" /Encoding << /Type /Encoding /Differences [120 {names}] >> >>",
    )
    resources = int(doc.xref_get_key(page.xref, "Resources")[1].split()[0])
    doc.xref_set_key(resources, "Font/T3", f"{font} 0 R")
    end = 72 + pymupdf.get_text_length(BODY, fontname="helv", fontsize=10)
    contents = page.get_contents()[0]
    marks = (
        f"\nBT /T3 10 Tf {end + 3:.2f} {842 - 300} Td (x) Tj ET"
        f"\nBT /T3 8 Tf 72 {842 - 700} Td (y) Tj ET"
    )
    doc.update_stream(contents, doc.xref_stream(contents) + marks.encode())
    return bytes(doc.tobytes())


def test_unmapped_marks_reach_the_model_as_placeholders() -> None:
    paragraphs = extract_paragraphs(open_document(page_with_marks(["a1", "a2", "a3", "a4", "a5"])))
    body = next(p for p in paragraphs if p.text.startswith("The results"))
    note = next(p for p in paragraphs if "papers of many fields" in p.text)
    for para in (body, note):
        sent = PLACEHOLDER_RE.sub("", para.label + para.text)
        assert "x" not in sent.split() and "y" not in sent.split(), para.text
    (key,) = [k for k, v in body.placeholders.items() if v == "x"]
    assert key in body.glyph_formulas  # the page gets the original glyph back
    assert body.text.startswith(BODY)


def test_glyph_names_with_a_meaning_stay_text() -> None:
    paragraphs = extract_paragraphs(open_document(page_with_marks(["x", "y", "z", "a", "b"])))
    body = next(p for p in paragraphs if p.text.startswith("The results"))
    note = next(p for p in paragraphs if "papers of many fields" in p.text)
    assert body.text == BODY + " x"
    assert (note.label + note.text).startswith("y ")


def test_the_rule_on_plain_data() -> None:
    names = differences("<< /Type /Encoding /Differences [120 /a1 /a2 /braceleft 40 /uni2460] >>")
    assert names == {120: "a1", 121: "a2", 122: "braceleft", 40: "uni2460"}
    meaning = {"braceleft": 0x7B, "uni2460": 0x2460}
    codes = unmapped_codes(names, lambda name: meaning.get(name, 0xFFFD))
    assert codes == {"x", "y"}
    assert is_mark("x y", codes) and not is_mark("xz", codes) and not is_mark(" ", codes)


@pytest.mark.corpus
def test_korean_words_with_footnote_marks_are_translated(corpus_dir: Path) -> None:
    """09 p1 (ko -> en): "상해1)나 재해2)로" (footnote marks 1) and 2) raised) went to the
    PDF untranslated: one or two Hangul syllables glued to a raised mark were taken for a
    variable name, so the words between the marks became part of one formula.

    Origin: QA, a bug found by using the product end to end."""
    from translation.read.document import open_document
    from translation.read.extraction import extract_paragraphs

    data = (corpus_dir / "09_ko_nars_issue_brief_2020_korean.pdf").read_bytes()
    paragraphs = extract_paragraphs(open_document(data), pages=[0])
    (para,) = [p for p in paragraphs if "코로나-19를 과연" in p.text]
    assert "상해" in para.text and "재해" in para.text
    assert sorted(para.placeholders.values()) == ["1)", "2)"]
