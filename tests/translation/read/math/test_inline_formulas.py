"""Lines with inline formulas reflow as lines (issue 23, remnants and overprinting): constructed
pages translated with the pseudo translator.

- A Word paper's justified line whose inline formula ends a MuPDF line, the next words set
  apart (corpus 07 p6), below a running head of cells: it was read as a table row, its words
  cut into cells set in slots, and the formula line under it stayed in English.
- A tall inline matrix (a 2x2 array between big brackets, drawn as glyphs or as paths) inside
  a line of running text: its stacked entries read as rows of their own, the line cut in two
  and the entries copied over one another.
- A LaTeX paper's justified paragraph whose stretched lines MuPDF keeps word by word, two of
  them ending in an inline formula whose relation sign stands a stretched space apart: three
  of its lines were read as a table's rows, the paragraph set in slots.
- A big delimiter of TeX's math extension font hangs from its origin, a line above the
  baseline it stands on: it was read into the line above, and neither erased nor copied.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

import pymupdf

from tests.helpers.ocr import needs_ocr
from tests.helpers.paths import REPO_ROOT
from tests.helpers.pdfgen.sheet import MATH, TIMES, Sheet
from tests.helpers.pdfgen.type3 import draw_cmex_glyph
from tests.helpers.pdfgen.typeset import render_page, times_words
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.paragraph import Paragraph, ParagraphKind


class _Page(Sheet):
    def pair(self, x: float, y: float, name: str) -> float:
        """``name′(w_i, w_j)`` in the math font, its subscripts lowered."""
        x = self.put(x, y, f"{name}′(w", 11, MATH)
        x = self.put(x, y + 2, "i", 8, MATH)
        x = self.put(x, y, ",w", 11, MATH)
        x = self.put(x, y + 2, "j", 8, MATH)
        return self.put(x, y, ")", 11, MATH)


def _word_line() -> bytes:
    """07 p6 as Word wrote it: running heads (rows of cells) and a paragraph whose first line
    ends its first MuPDF line at an inline formula, the last words a wide gap after it."""
    p = _Page()
    p.put(70, 65, "JCRAI-2021", 10)
    p.put(463, 65, "IOP Publishing", 10)
    p.put(70, 79, "Journal of Physics: Conference Series", 10)
    p.put(274, 79, "2188 (2022) 012011", 10)
    p.put(367, 79, "doi:10.1088/1742-6596/2188", 10)
    x = p.words(71, 124, "dependency edge information into an edge matrix")
    x = p.put(x, 124, "A", 11, MATH)
    x = p.put(x, 126, "e", 8, MATH)
    x = p.words(x + 3, 124, ", where")
    x = p.put(x, 124, "A", 11, MATH)
    x = p.put(x, 126, "e", 8, MATH)
    p.put(x, 127.5, "ij", 6.5, MATH)
    p.words(393, 124, "represents the corresponding")
    x = p.words(p.pair(71, 140, "L") + 8, 140, "(if")
    p.words(p.pair(x, 140, "E") + 8, 140, "exists).")
    for i, line in enumerate(
        (
            "Graph Encoder. The graph encoder component based on this applies an extra multi-head",
            "attention for integrating the rich information on edges, so our model can perform",
            "aggregation in an edge-aware way. We introduce the attention layer first.",
        )
    ):
        p.put(85 if i == 0 else 71, 159 + 12.7 * i, line)
    return p.done()


def _matrix_line(paths: bool) -> bytes:
    """A paragraph with a rotation matrix set inline: its entries stacked half a line above
    and below the baseline, between brackets as tall as both rows (big glyphs or paths)."""
    p = _Page()
    for i, line in enumerate(
        (
            "Documents set in this system keep their layout when they are translated into another",
            "language, and formulas they hold are copied as they look on the page, so that nothing",
        )
    ):
        p.put(72, 140 + 14 * i, line, 10)
    y = 174.0  # the matrix's line stands lower: it is taller than a line of text
    x = p.put(72, y, "of the source is lost. The rotation we apply is ", 10)
    shape = p.page.new_shape()
    if paths:
        shape.draw_polyline([(x + 3, y - 15), (x, y - 15), (x, y + 7), (x + 3, y + 7)])
        shape.finish(width=0.6, color=(0, 0, 0), closePath=False)  # a path of its own
        x += 5
    else:
        x = p.put(x, y + 4, "[", 24, MATH)
    left = x
    x = p.put(left, y - 5, "cos", 9, MATH)
    p.put(left, y + 6, "sin", 9, MATH)
    right = x + 3
    x = p.put(right, y - 5, "−sin", 9, MATH)
    p.put(right, y + 6, "cos", 9, MATH)
    x += 1
    if paths:
        shape.draw_polyline([(x, y - 15), (x + 3, y - 15), (x + 3, y + 7), (x, y + 7)])
        x += 5
    else:
        x = p.put(x, y + 4, "]", 24, MATH)
    shape.finish(width=0.6, color=(0, 0, 0), closePath=False)
    shape.commit()
    p.put(x + 3, y, "and it turns every point", 10)
    for i, line in enumerate(
        (
            "of the plane about the origin by the same angle, which the next section uses to show",
            "that the layout survives the translation of the text around the formulas it holds.",
        )
    ):
        p.put(72, y + 20 + 14 * i, line, 10)
    return p.done()


def _tex_formula(p: _Page, x: float, y: float, name: str, sub: str, space: float) -> None:
    """``name_sub  =  (name_1, name_2, name_3, name_t)``, its "=" in the text font ``space``
    apart (a relation's stretched space), the rest in the math font."""
    x = p.put(x, y, name, 10, MATH)
    x = p.put(x, y + 2, sub, 7, MATH) + space
    x = p.put(x, y, "=", 10) + space
    x = p.put(x, y, "(", 10, MATH)
    for k in ("1", "2", "3", sub[-1]):
        x = p.put(x, y, name, 10, MATH)
        x = p.put(x, y + 2, k, 7, MATH)
        x = p.put(x, y, ",", 10, MATH) + 1.5
    p.put(x, y, ")", 10, MATH)


def _tex_paragraph() -> bytes:
    """An AAAI column as LaTeX justified it (value-error p2 outside the corpus): a template
    line with blanks, then a paragraph of lines of normal spaces, then four whose spaces are
    stretched, MuPDF keeping their words as lines of their own; a formula, its "=" set
    apart, ends two of them."""
    p = _Page()
    # The line before: a prompt template with blanks (drawn rules) set a wide gap apart.
    p.put(54, 189, "\u201cInput:", 10)
    p.put(113, 189, "\\n Paraphrase:", 10)
    p.put(203, 189, "\u201d.", 10)
    for x0, x1 in ((84, 111), (174, 201)):
        p.page.draw_line((x0, 190), (x1, 190), width=0.5)
    at = 200.0
    for x, words, gap in (
        (64.0, "We can further generalize the input prompt format", 6.4),
        (54.0, "by formalizing a generic sequence of tokens denot-", 7.3),
        (54.0, "ing the prompt prefix as", 6.5),
        (54.0, "and a generic sequence of tokens denoting", 14.0),
        (54.0, "the prompt infix as", 9.9),
        (54.0, "Overall the generalized input prompt will be:", 12.1),
    ):
        for word in words.split():
            x = p.put(x, at, word, 10) + gap
        if words.endswith(" as"):  # the relation's spaces stretched about as much again
            prefix = "prefix" in words
            _tex_formula(p, x, at, *(("p", "1:s", 10.6) if prefix else ("q", "1:t", 16.8)))
        at += 11
    p.put(54, at + 8, "The next paragraph starts here and says what the prompt holds.", 10)
    return p.done()


def _denominator() -> bytes:
    """Three lines of a paragraph; the second ends in a fraction whose denominator stands
    within three quarters of a size of the third line's baseline."""
    p = _Page()
    p.put(72, 100, "Some words of the line above the formula, set long enough to be prose,")
    x = p.put(72, 113, "and the total hidden size is")
    p.put(x + 8, 108.6, "d", 7, MATH)
    p.put(x + 8, 118.8, "2", 7, MATH)
    p.put(x + 24, 113, "wide, as the model of the next section says. The")
    p.put(72, 126, "line below ends the paragraph after the formula.")
    return p.done()


def _hanging_delimiter() -> bytes:
    """Two lines of a paragraph; in the second a bracket glyph of a font named like TeX's
    math extension font, hanging from its origin (a Type 3 glyph drawn from 0.04 em above
    it to 1.16 em below), its origin nearer the line above than its own baseline."""
    p = _Page()
    p.put(72, 100, "Some words of the line above the formula, set long enough to be prose,")
    x = p.put(72, 113, "and the total hidden size is 2")
    p.put(x + 12, 113, "wide, as the model of the next section says.")
    data = p.done()
    doc = pymupdf.open(stream=data)
    page = doc[0]
    bar = b"470 0 0 -1160 470 40 d1 0 -1160 470 40 re f"  # a tall delimiter's stem
    draw_cmex_glyph(
        doc, page, "g", bar, bbox="0 -1160 470 40", width=470, x=x + 4, y=842 - 104.5, size=11
    )
    out: bytes = doc.tobytes()
    return out


def _fraction_bar() -> bytes:
    """The paragraph of ``_denominator`` with its fraction bar drawn as TeX drivers draw it:
    an image mask of one pixel stretched over the bar."""
    data = _denominator()
    doc = pymupdf.open(stream=data)
    page = doc[0]
    x = 72 + float(TIMES.text_length("and the total hidden size is", 11)) + 7.5
    stream = doc.get_new_xref()
    doc.update_object(stream, "<<>>")
    doc.update_stream(
        stream,
        f"q 4.8 0 0 -0.5 {x:g} {842 - 110.6:g} cm BI /IM true /W 1 /H 1 /BPC 1 ID ".encode()
        + b"\x00\nEI Q",
    )
    kind, contents = doc.xref_get_key(page.xref, "Contents")
    listed = contents[1:-1] if kind == "array" else contents
    doc.xref_set_key(page.xref, "Contents", f"[{listed} {stream} 0 R]")
    out: bytes = doc.tobytes()
    return out


def _bars(page: pymupdf.Page) -> list[pymupdf.Rect]:
    return [pymupdf.Rect(r) for kind, r in page.get_bboxlog() if kind == "fill-imgmask"]


@functools.cache
def _read(which: str) -> tuple[list[Paragraph], pymupdf.Page]:
    data = {
        "word": _word_line,
        "tex": _tex_paragraph,
        "hanging": _hanging_delimiter,
        "denominator": _denominator,
        "bar": _fraction_bar,
        "glyphs": lambda: _matrix_line(False),
        "paths": lambda: _matrix_line(True),
    }[which]()
    return render_page(data, 0)


def _holding(paragraphs: list[Paragraph], word: str) -> Paragraph:
    (found,) = [p for p in paragraphs if word in p.text]
    return found


def test_a_word_line_with_inline_formulas_is_one_paragraph_not_cells() -> None:
    paragraphs, _ = _read("word")
    para = _holding(paragraphs, "dependency")
    assert para.kind != ParagraphKind.CELL, para
    # The line's words and formulas, and the formula line under it, in one request.
    assert "an edge matrix" in para.text and "represents the corresponding" in para.text
    assert "exists)." in para.text
    assert _holding(paragraphs, "represents") is para


def test_no_word_of_the_formula_line_stays_in_english() -> None:
    _, page = _read("word")
    assert not [w for w in times_words(page, pymupdf.Rect(60, 100, 540, 150)) if w]


def _math_chars(page: pymupdf.Page, clip: pymupdf.Rect) -> str:
    return "".join(
        chr(c[0])
        for t in page.get_texttrace()
        if "Math" in t["font"]
        for c in t["chars"]
        if pymupdf.Rect(c[3]).intersects(clip) and chr(c[0]).strip()
    )


def _check_matrix(which: str) -> None:
    paragraphs, page = _read(which)
    # The whole sentence around the matrix is one paragraph, the matrix one formula in it.
    para = _holding(paragraphs, "rotation")
    assert "and it turns every point" in para.text, [p.text for p in paragraphs]
    passages = {p.passage or p.id for p in paragraphs if p.text.strip()}
    assert len(passages) == 1, [(p.id, p.passage, p.text[:30]) for p in paragraphs]
    (formula,) = [v for v in para.placeholders.values() if "sin" in v]
    assert formula.count("cos") == 2 and formula.count("sin") == 2, formula
    # Each entry is drawn once, all four of them, none over another.
    chars = _math_chars(page, page.rect)
    assert sorted(chars.replace("−", "")) == sorted(
        "cossincossin" + ("" if which == "paths" else "[]")
    )
    boxes = [
        pymupdf.Rect(c[3])
        for t in page.get_texttrace()
        if "Math" in t["font"] and t["size"] < 10
        for c in t["chars"]
        if chr(c[0]).isalpha()
    ]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            overlap = a & b
            assert overlap.is_empty or overlap.width < 0.5, (a, b)


def test_a_tall_inline_matrix_of_bracket_glyphs_survives() -> None:
    _check_matrix("glyphs")


def test_a_tall_inline_matrix_between_drawn_brackets_survives() -> None:
    _check_matrix("paths")
    _, page = _read("paths")
    # Both brackets are drawn, about as tall as the matrix (they are part of its copy).
    tall = [d["rect"] for d in page.get_drawings() if d["rect"].height > 15]
    assert len(tall) == 2, tall


def test_a_justified_paragraph_set_word_by_word_is_one_paragraph_not_a_table() -> None:
    paragraphs, page = _read("tex")
    para = _holding(paragraphs, "further generalize")
    assert para.kind != ParagraphKind.CELL, para
    text = " ".join(para.text.split())
    for words in ("tokens denoting the prompt prefix as", "and a generic sequence", "will be:"):
        assert words in text, text
    assert not [p.text for p in paragraphs if p.kind == ParagraphKind.CELL and "prompt" in p.text]
    # Every line of the paragraph is translated: no word of it stays in English.
    assert not [w for w in times_words(page, pymupdf.Rect(40, 194, 300, 258)) if w.isalpha()]


def test_a_hanging_delimiter_stays_in_its_line_and_is_moved_with_it() -> None:
    paragraphs, page = _read("hanging")
    (para,) = paragraphs
    (key,) = para.placeholders
    # The formula stays in its line: it was read into the line above.
    assert "hidden size is 2 " + key + " wide, as the model" in para.text, para.text
    # The bracket is erased from its place and drawn once, in the formula's copy.
    brackets = [
        pymupdf.Rect(c[3]) for t in page.get_texttrace() if "CMEX" in t["font"] for c in t["chars"]
    ]
    source = pymupdf.open(stream=_hanging_delimiter())[0]
    (before,) = [
        pymupdf.Rect(c[3])
        for t in source.get_texttrace()
        if "CMEX" in t["font"]
        for c in t["chars"]
    ]
    assert len(brackets) == 1 and abs(brackets[0].x0 - before.x0) > 2, (brackets, before)
    assert not [w for w in times_words(page, page.rect) if w]


def test_the_line_below_a_fraction_keeps_its_words() -> None:
    """It joined the formula's row through the denominator, its words mixed into it."""
    (para,) = _read("denominator")[0]
    (key,) = para.placeholders
    assert para.text.endswith(
        f"hidden size is {key} wide, as the model of the next section says. "
        "The line below ends the paragraph after the formula."
    ), para.text


def test_a_fraction_bar_drawn_as_an_image_mask_moves_with_its_formula() -> None:
    """The bar is erased from its place and drawn once, in the formula's copy (it stayed as
    a dash over the translation, the copy without it)."""
    paragraphs, page = _read("bar")
    (para,) = paragraphs
    assert len(para.placeholders) == 1, para.text
    (before,) = _bars(pymupdf.open(stream=_fraction_bar())[0])
    after = _bars(page)
    assert len(after) == 1 and abs(after[0].x0 - before.x0) > 2, (after, before)
    assert 0.5 * before.width < after[0].width < before.width + 0.1  # the copy is scaled


_AFTER_A_KEPT_MASK = """
import pymupdf
from {module} import _read
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
_read("denominator")
_read("bar")
out = pymupdf.open()
with pymupdf.open({scan!r}) as src:
    out.insert_pdf(src, from_page=5, to_page=5)
extract_paragraphs(open_document(bytes(out.tobytes())))  # OCR: images made from pixmaps
print("sound")
"""


@needs_ocr()
def test_the_engine_stays_sound_after_a_mask_is_kept_in_a_formula_copy(corpus_dir: Path) -> None:
    """The image a formula copy keeps is handed back to MuPDF with a reference of its own: MuPDF
    drops what the filter returns, and without one the image was freed under the document and
    the next image made from a pixmap (the OCR's) aborted the process (in a child here)."""
    scan = corpus_dir / "10_scanned_imageonly_naacl2018_s2_literature_graph.pdf"
    done = subprocess.run(
        [sys.executable, "-c", _AFTER_A_KEPT_MASK.format(module=__name__, scan=str(scan))],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO_ROOT,
    )
    assert done.returncode == 0 and "sound" in done.stdout, done.stderr[-2000:]


def test_an_equation_between_named_quantities_is_not_sent() -> None:
    """value-error p5 eq. (4): "iBLEU = α·BLEU − (1−α)·self-BLEU", centred on its own line,
    went out as text; a sentence around a formula ("where α weighs ...") still does."""
    p = _Page()
    y = 100.0
    for line in (
        "The iBLEU score combines the two scores into one number that rewards outputs which",
        "stay close to the reference while they move away from the source sentence, so that",
        "copying the input is not rewarded; it is defined in the usual way as follows:",
    ):
        p.put(72, y, line, 10)
        y += 12.0
    x = p.put(220, y + 10, "iBLEU", 10)
    x = p.put(x + 3, y + 10, "= α·", 10, MATH)
    x = p.put(x, y + 10, "BLEU", 10)
    x = p.put(x + 3, y + 10, "− (1−α)·", 10, MATH)
    p.put(x, y + 10, "self-BLEU", 10)
    x = p.put(72, y + 34, "where", 10)
    x = p.put(x + 3, y + 34, "α", 10, MATH)
    p.put(x + 3, y + 34, "weighs the two scores against each other in every run.", 10)
    paras = extract_paragraphs(open_document(p.done()))
    sent = [para.text for para in paras]
    assert not [t for t in sent if "iBLEU" in t and "score" not in t], sent
    assert any(t.startswith("where") and "weighs" in t for t in sent), sent


def test_the_e_of_a_number_in_scientific_notation_stays_in_its_formula() -> None:
    """2302.07302 p10-11: "𝑝 = 5.8e−3", the "e" set in the text face between math, went out
    as a word of its own ("{v2}e {v3}") and came back translated."""
    p = _Page()
    x = p.put(72, 100, "The effect was significant for the first baseline (", 10)
    # As LaTeX with the Libertine fonts sets it: digits in the text face, the point and the
    # relation in math fonts, the "e" in the text face, a space before the minus.
    x = p.put(x, 100, "𝑝 =", 10, MATH)
    x = p.put(x + 2.5, 100, "5", 10)
    x = p.put(x, 100, ".", 10, MATH)
    x = p.put(x, 100, "8e", 10)
    x = p.put(x + 2.5, 100, "−", 10, MATH)
    x = p.put(x, 100, "3", 10)
    p.put(x, 100, ") while the others were not.", 10)
    (para,) = extract_paragraphs(open_document(p.done()))
    assert "}e" not in para.text, para.text
    assert any("5.8e" in value.replace(" ", "") for value in para.placeholders.values())


def test_an_accent_over_a_math_letter_stays_in_its_formula() -> None:
    """2203.00130 p23: the median x̃, set as "𝑥" in the math face and "˜" in the text face,
    sent the tilde as text ("{v1} ˜ {v2}") and printed it twice."""
    p = _Page()
    x = p.put(72, 100, "Participants agreed that they found what they needed (", 10)
    x = p.put(x, 100, "𝑥", 10, MATH)
    x = p.put(x - 4.0, 97, "˜", 10)
    x = p.put(x + 2.5, 100, "= 4.00", 10, MATH)
    p.put(x, 100, ") in the papers they read.", 10)
    (para,) = extract_paragraphs(open_document(p.done()))
    assert "˜" not in para.text, para.text
    assert any("˜" in value for value in para.placeholders.values()), para.placeholders


def test_a_sentences_last_line_of_mostly_math_goes_with_it() -> None:
    """value-error p7: "... we search the adapter bottleneck hidden state dimension" |
    "within {128, 256, 512}." – the last line, mostly math, was read apart as an equation:
    not sent, left in English, and the request ended mid-sentence."""
    p = _Page()
    lines = (
        "For all the approaches, we search the learning rate of the model in a wide range and",
        "for adapter tuning, we search the adapter bottleneck hidden state dimension",
    )
    for k, line in enumerate(lines):
        p.put(72, 100 + 12 * k, line, 10)
    x = p.put(72, 124, "within", 10)
    x = p.put(x + 2.5, 124, "{128, 256, 512}", 10, MATH)
    p.put(x, 124, ".", 10)
    p.put(72, 150, "The rest of the settings are the ones the original papers report.", 10)
    paras = extract_paragraphs(open_document(p.done()))
    (first,) = [para for para in paras if para.text.startswith("For all")]
    assert first.text.rstrip().endswith("."), first.text
    assert "within" in first.text, first.text
