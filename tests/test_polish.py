"""Roles and styles that must show in the translated page (issue 10, parts 3-5): labels and
footnote markers printed like the source's, hanging indents, one unit per run-in line,
coloured words, URLs broken across lines, headings on their source baseline.

Corpus pages translated with the pseudo translator; each test says what a reader would see.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pymupdf
import pytest

from tests.fakes.pseudo import pseudo_translate
from tests.helpers.pdfgen.typeset import paper_bytes as _paper
from tests.helpers.pdfgen.typeset import render_page as _render
from tests.helpers.pdfgen.typeset import translation_glyphs
from translation.read.paragraph import Align, ParagraphKind
from translation.read.style.style_marks import without_tags

pytestmark = pytest.mark.corpus


class Glyph(NamedTuple):
    char: str
    bbox: pymupdf.Rect
    origin: tuple[float, float]
    size: float
    color: tuple[float, ...]
    stroked: bool  # drawn with an outline: fake bold


def _glyphs(page: pymupdf.Page, area: pymupdf.Rect | None = None) -> list[Glyph]:
    """The characters of the translation (set in the bundled fonts) inside ``area``."""
    found = [
        Glyph(chr(c[0]), pymupdf.Rect(c[3]), tuple(c[2]), t["size"],
              tuple(round(v, 1) for v in t["color"]), t["type"] == 1)
        for t in page.get_texttrace()
        if "Droid" in t["font"] or "Noto" in t["font"]
        for c in t["chars"]
    ]  # fmt: skip
    if area is None:
        return found
    return [g for g in found if area.contains(g.bbox.tl + (g.bbox.br - g.bbox.tl) * 0.5)]


# --- 1. labels and markers look like the source's --------------------------------------------


def test_footnote_markers_are_small_and_raised(corpus_dir: Path) -> None:
    """02 p4: footnote 4's marker is a superscript in the source; in the output it is set
    smaller than the footnote's text and above its baseline, and still comes first."""
    paragraphs, out = _render(_paper(corpus_dir, "02"), 3)
    note = next(p for p in paragraphs if p.kind == ParagraphKind.FOOTNOTE and p.label == "4")
    assert note.label_scale < 0.85 and note.label_rise > 0.2
    glyphs = _glyphs(out, pymupdf.Rect(note.bbox) + (-2, -2, 2, 2))
    first = min(glyphs, key=lambda g: (round(g.origin[1] / 3), g.origin[0]))
    assert first.char == "4"
    text = [g for g in glyphs if g.char not in " 4"]
    first_line = [g for g in text if abs(g.bbox.y0 - first.bbox.y0) < 6]
    assert first.size < 0.85 * max(g.size for g in text)
    assert first.origin[1] < min(g.origin[1] for g in first_line) - 1.5


def test_bold_list_labels_stay_bold(corpus_dir: Path) -> None:
    """02 p4: 'I. Statistical:' is bold in the source, label included; so is 'I.' (kept as
    printed) and the translated lead after it."""
    paragraphs, out = _render(_paper(corpus_dir, "02"), 3)
    item = next(p for p in paragraphs if p.label == "I. ")
    assert item.kind == ParagraphKind.LIST_ITEM
    drawn = _glyphs(out, pymupdf.Rect(item.bbox) + (-2, -2, 2, 2))
    # Bold is drawn twice, filled and stroked: a glyph is bold where a stroke lies on it.
    strokes = {(g.char, round(g.origin[0]), round(g.origin[1])) for g in drawn if g.stroked}
    glyphs = [g for g in drawn if not g.stroked]
    top = min(g.origin[1] for g in glyphs)
    first_line = sorted((g for g in glyphs if g.origin[1] < top + 2), key=lambda g: g.origin[0])

    def bold(g: Glyph) -> bool:
        return (g.char, round(g.origin[0]), round(g.origin[1])) in strokes

    assert "".join(g.char for g in first_line[:2]) == "I."
    assert all(bold(g) for g in first_line[:2])
    assert not all(bold(g) for g in glyphs)  # the body is not bold


@pytest.mark.parametrize(("number", "page", "count"), [("05", 1, 3), ("02", 0, 3)])
def test_list_items_keep_their_hanging_indent(
    corpus_dir: Path, number: str, page: int, count: int
) -> None:
    """05 p2, 02 p1: the bullets' continuation lines start under the text, not under the
    bullet (02's bullets are TeX's symbol-font glyph 0x0F, which reads as U+FFFD)."""
    paragraphs, out = _render(_paper(corpus_dir, number), page)
    items = [p for p in paragraphs if p.label.strip() == "•" and p.line_count >= 2]
    assert len(items) == count
    for item in items:
        assert item.hang > 5
        glyphs = _glyphs(out, pymupdf.Rect(item.bbox) + (-2, -2, 2, 2))
        bullet = next(g for g in glyphs if g.char == "•")
        lines: dict[int, float] = {}
        for g in glyphs:
            if g.char != "•":
                key = round(g.origin[1])
                lines[key] = min(lines.get(key, 1e9), g.bbox.x0)
        starts = [lines[k] for k in sorted(lines)]
        assert len(starts) >= 2
        for start in starts:
            assert start > bullet.bbox.x1 + 1  # every line right of the bullet
            assert abs(start - (item.bbox[0] + item.hang)) < 1.5


# --- 2. lines that each open with a bold lead are units of their own --------------------------

_FIGURE_LINES = (
    "Gold Answer: 5:02",
    "TAPAS: 5:00",
    "TAPAS after row order perturbation: 5:02",
    "TABLEFORMER: 5:02",
    "Gold Answer: Spain, Ukraine",
    "TAPAS: Spain",
    "TABLEFORMER: Spain, Ukraine",
    "TABLEFORMER w/o a proposed structural bias: Spain",
)


def test_lines_opening_with_bold_leads_are_one_unit_each(corpus_dir: Path) -> None:
    """04 p1 Figure 1: 'Gold Answer: 5:02', 'TAPAS: 5:00', ... are one line each in the
    source, each its own unit with its bold lead, set on its own line at the source's place;
    '(b) TAPAS gives ...' below them is a list item of its own."""
    paragraphs, out = _render(_paper(corpus_dir, "04"), 0)
    texts = [without_tags(p.text) for p in paragraphs]
    for line in _FIGURE_LINES:
        para = paragraphs[texts.index(line)]
        assert para.lead == line.split(": ")[0] + ":" and para.kind == ParagraphKind.BODY
        glyphs = [g for g in _glyphs(out, pymupdf.Rect(para.bbox) + (-1, -1, 1, 1))]
        assert glyphs and abs(min(g.bbox.x0 for g in glyphs) - para.bbox[0]) < 1
        assert len({round(g.origin[1]) for g in glyphs}) == 1  # one line, as in the source
    # Set in small capitals ("T" + "ABLEFORMER" smaller), a line keeps the size of the others.
    assert len({round(paragraphs[texts.index(line)].font_size) for line in _FIGURE_LINES}) == 1
    item = next(p for p in paragraphs if p.label == "(b) ")
    assert item.text.startswith("TAPAS gives") and item.kind == ParagraphKind.LIST_ITEM


# --- 3. coloured words keep their colour when translated -------------------------------------


def test_translated_coloured_answers_stay_coloured(corpus_dir: Path) -> None:
    """04 p1 Figure 1 (b): 'TAPAS: Spain' has a red 'Spain', 'TABLEFORMER: Spain, Ukraine' a
    green answer; their translations are red and green too (and the lead is not)."""
    paragraphs, out = _render(_paper(corpus_dir, "04"), 0)
    texts = [without_tags(p.text) for p in paragraphs]
    for line, color in (
        ("TAPAS: Spain", (1.0, 0.0, 0.0)),
        ("TABLEFORMER w/o a proposed structural bias: Spain", (1.0, 0.0, 0.0)),
        ("TABLEFORMER: Spain, Ukraine", (0.0, 0.5, 0.0)),
    ):
        para = paragraphs[texts.index(line)]
        glyphs = _glyphs(out, pymupdf.Rect(para.bbox) + (-1, -1, 1, 1))
        answer = pseudo_translate(line.split(": ")[1], "ko").replace(" ", "")
        coloured = "".join(g.char for g in glyphs if g.color == color and not g.stroked)
        assert answer.strip(",") in coloured.replace(" ", "")
        assert not any(g.color == color for g in glyphs if g.stroked)


# --- 4. URLs broken across lines -------------------------------------------------------------


def test_a_url_broken_after_its_scheme_stays_whole(corpus_dir: Path) -> None:
    """02 p3 footnote 2: 'http://' ends a line and 'allenai.org/software/.' starts the next;
    the URL is one protected unit with its closing slash, and the output prints it whole."""
    paragraphs, out = _render(_paper(corpus_dir, "02"), 2)
    note = next(p for p in paragraphs if p.text.startswith("The ScienceParse"))
    assert "http://allenai.org/software/" in note.placeholders.values()
    assert "allenai" not in note.text and "software" not in note.text
    printed = out.get_text("text", clip=pymupdf.Rect(note.bbox) + (-2, -2, 2, 30))
    assert "http://allenai.org/software/" in "".join(printed.split())


# --- 5. headings sit on their source baseline ------------------------------------------------


def _source_baselines(data: bytes, page: int, box: pymupdf.Rect) -> list[float]:
    """Baselines of the source's text lines inside ``box``, top to bottom."""
    src = pymupdf.open(stream=data)[page]
    found = set()
    for block in src.get_text("dict", clip=box)["blocks"]:
        for line in block.get("lines", ()):
            spans = [s for s in line["spans"] if s["text"].strip()]
            if spans:
                found.add(round(max(spans, key=lambda s: s["size"])["origin"][1], 1))
    return sorted(found)


@pytest.mark.parametrize(("number", "page"), [("02", 3), ("01", 2), ("09", 1), ("09", 3)])
def test_headings_sit_on_their_source_baseline(corpus_dir: Path, number: str, page: int) -> None:
    """A heading's (a one-line paragraph's) translation starts on the source's baseline
    (within 1 pt), even when it is set smaller than the source (09 p2, p4: the numbered
    headings are set at 10 pt for 12.5 pt)."""
    data = _paper(corpus_dir, number)
    paragraphs, out = _render(data, page)
    headings = [
        p
        for p in paragraphs
        if p.direction == (1.0, 0.0)
        and (
            p.kind == ParagraphKind.HEADING
            or (p.line_count == 1 and p.kind not in (ParagraphKind.CELL, ParagraphKind.FOOTNOTE))
        )
    ]
    assert any(p.kind == ParagraphKind.HEADING for p in headings)
    for heading in headings:
        box = pymupdf.Rect(heading.bbox)
        source = _source_baselines(data, page, box)[0]
        glyphs = [g for g in _glyphs(out, box + (-1, -1, 1, 1)) if not g.stroked]
        assert glyphs, heading.text
        first = min(g.origin[1] for g in glyphs)
        assert abs(first - source) <= 1.0, (heading.text, first, source)


def test_a_boxed_heading_number_keeps_its_colour_and_its_title_its_place(
    corpus_dir: Path,
) -> None:
    """09 p2: '2' is white on a blue box, the title '코로나-19 ...' beside the box; the number
    stays white and the translated title starts where the source title did, off the box."""
    paragraphs, out = _render(_paper(corpus_dir, "09"), 1)
    heading = next(p for p in paragraphs if p.text.startswith("코로나-19 관련"))
    assert heading.kind == ParagraphKind.HEADING and heading.label == "2 "
    glyphs = [g for g in _glyphs(out, pymupdf.Rect(heading.bbox) + (-1, -1, 1, 1))]
    number = [g for g in glyphs if g.char == "2" and g.bbox.x0 < heading.bbox[0] + 2]
    assert number and all(g.color == (1.0, 1.0, 1.0) for g in number)
    title = [g for g in glyphs if g.bbox.x0 > heading.bbox[0] + 10]
    assert title and min(g.bbox.x0 for g in title) >= heading.bbox[0] + heading.hang - 1
    assert heading.hang > 20


# --- a generated page (not from the corpus) --------------------------------------------------

_BODY = (
    "Careful evaluation of language models needs a clear protocol that every",
    "reader can follow, and the protocol we propose has three parts, each of",
    "which we describe in turn below in the order we apply them in practice:",
)
_ITEMS = (
    ("Sampling picks documents at random from every source so that no single",
     "source dominates the pool we annotate later on."),
    ("Annotation asks two trained readers to judge every summary on its own",
     "and to settle each disagreement in a short discussion."),
)  # fmt: skip
_NOTE = (
    "We also tried a protocol with a single reader per summary, which",
    "was cheaper but far less reliable in every respect we measured.",
)


def _generated_page() -> bytes:
    """Body text, a bulleted list with a hanging indent, a footnote with a raised marker."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    writer, font = pymupdf.TextWriter(page.rect), pymupdf.Font("helv")

    def put(x: float, y: float, text: str, size: float = 10.0) -> None:
        writer.append((x, y), text, font=font, fontsize=size)

    y = 100.0
    for line in _BODY:
        put(72, y, line)
        y += 12.5
    for first, second in _ITEMS:
        y += 4
        put(80, y, "•")
        put(92, y, first)
        put(92, y + 12.5, second)
        y += 25
    put(72, 700, "1", 5.6)
    put(76, 703, _NOTE[0], 8)
    put(72, 713, _NOTE[1], 8)
    writer.write_text(page)
    data: bytes = doc.tobytes()
    return data


def test_a_generated_list_and_footnote_keep_their_look() -> None:
    """Not a corpus paper: the bullets hang (continuation lines under the text at x 92), the
    footnote's marker is small and raised above its text's baseline."""
    data = _generated_page()
    paragraphs, out = _render(data, 0)
    items = [p for p in paragraphs if p.kind == ParagraphKind.LIST_ITEM]
    assert [p.label for p in items] == ["• ", "• "]
    for item in items:
        assert abs(item.hang - 12) < 1
        glyphs = _glyphs(out, pymupdf.Rect(item.bbox) + (-2, -2, 2, 2))
        starts: dict[int, float] = {}
        for g in glyphs:
            if g.char != "•":
                starts[round(g.origin[1])] = min(starts.get(round(g.origin[1]), 1e9), g.bbox.x0)
        assert len(starts) >= 2 and all(abs(x - 92) < 1 for x in starts.values())
    (note,) = [p for p in paragraphs if p.kind == ParagraphKind.FOOTNOTE]
    assert note.label == "1" and note.label_scale < 0.85 and note.label_rise > 0.2
    glyphs = _glyphs(out, pymupdf.Rect(note.bbox) + (-2, -2, 2, 2))
    marker = min(glyphs, key=lambda g: g.bbox.x0)
    rest = [g for g in glyphs if g is not marker and abs(g.origin[1] - 703) < 2]
    assert marker.char == "1" and marker.size < 0.85 * rest[0].size
    assert marker.origin[1] < rest[0].origin[1] - 1.5


def test_indented_first_lines_stay_indented(corpus_dir: Path) -> None:
    """02 p2: 'In the next section, ...' and footnote-like paragraphs indent their first line
    by about 1 em; the translation's first line starts as far in, the next ones flush."""
    paragraphs, out = _render(_paper(corpus_dir, "02"), 1)
    para = next(p for p in paragraphs if p.text.startswith("In the next section"))
    assert 0.5 * para.font_size < para.indent < 2 * para.font_size
    starts: dict[int, float] = {}
    for g in _glyphs(out, pymupdf.Rect(para.bbox) + (-2, -2, 2, 2)):
        starts[round(g.origin[1])] = min(starts.get(round(g.origin[1]), 1e9), g.bbox.x0)
    lines = [starts[k] for k in sorted(starts)]
    assert len(lines) >= 3
    assert abs(lines[0] - (para.bbox[0] + para.indent)) < 1
    assert all(abs(x - para.bbox[0]) < 1 for x in lines[1:])


def test_a_long_centred_caption_stays_centred(corpus_dir: Path) -> None:
    """07 p2: Figure 1's caption is seven centred lines; its translation's lines are centred
    on the same axis (not set flush left), and the paragraph after it is not centred."""
    paragraphs, out = _render(_paper(corpus_dir, "07"), 1)
    caption = next(p for p in paragraphs if without_tags(p.text).startswith("Figure 1."))
    assert caption.kind == ParagraphKind.CAPTION and caption.align == Align.CENTER
    after = next(p for p in paragraphs if p.text.startswith("In addition to directly"))
    assert after.align == Align.JUSTIFY
    lines: dict[int, list[float]] = {}
    for g in _glyphs(out, pymupdf.Rect(caption.bbox) + (-2, -2, 2, 2)):
        lines.setdefault(round(g.origin[1]), []).extend([g.bbox.x0, g.bbox.x1])
    axis = (caption.bbox[0] + caption.bbox[2]) / 2
    centres = [(min(xs) + max(xs)) / 2 for _, xs in sorted(lines.items())]
    assert len(centres) >= 4 and all(abs(c - axis) < 4 for c in centres)
    assert max(min(xs) for xs in lines.values()) - min(min(xs) for xs in lines.values()) > 20


# --- a framed block of justified lines (03 p20) ----------------------------------------------

_PROSE = (
    "Careful evaluation of language models needs a clear protocol that every reader can follow "
    "and the protocol we propose has three parts each of which we describe in turn below in "
    "the order we apply them in practice after a short look at the work that came before it "
    "and at the reasons that led us to write down every step of the annotation in full detail "
    "so that others can repeat it on their own data without asking us how it was done"
).split()
_BOXED = (
    "Start by signing up on the annotation site where you will need to give an email address "
    "and a password of your own choosing and please do not use any personal or sensitive "
    "password here but make sure to remember the address and the password for next time"
).split()


def _justified(
    writer: pymupdf.TextWriter, words: list[str], x0: float, x1: float, y: float, rows: int
) -> list[str]:
    """Set ``rows`` lines of ``words`` from x0 to x1 exactly (every line full, the last one
    too), 12.5 apart from baseline ``y``; the words left over."""
    font, size = pymupdf.Font("helv"), 10.0
    for row in range(rows):
        line: list[str] = []
        while words and font.text_length(" ".join([*line, words[0]]), size) < x1 - x0:
            line.append(words.pop(0))
        widths = [font.text_length(w, size) for w in line]
        gap = (x1 - x0 - sum(widths)) / (len(line) - 1)
        x = x0
        for word, width in zip(line, widths, strict=True):
            writer.append((x, y + 12.5 * row), word, font=font, fontsize=size)
            x += width + gap
    return words


def _framed_page() -> bytes:
    """Body text from 72 to 523; between two rules from 90 to 505, a paragraph of three full
    justified lines from 96 to 499 (inset on both sides, so on the column's axis)."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    writer = pymupdf.TextWriter(page.rect)
    rest = _justified(writer, list(_PROSE), 72, 523, 100, 4)
    _justified(writer, list(_BOXED), 96, 499, 180, 3)
    _justified(writer, rest, 72, 523, 260, 3)
    writer.write_text(page)
    for y in (165, 220):
        page.draw_line((90, y), (505, y), width=0.8)
    data: bytes = doc.tobytes()
    return data


def test_a_framed_block_of_full_lines_stays_in_its_frame() -> None:
    """03 p20: three justified lines inside a frame inset on both sides sit on the column's
    axis; they were taken for centred lines, and their translation was widened to the column
    and set centred, spilling left and right of the frame. It is set flush from the block's
    left edge, and no character of it leaves the frame."""
    data = _framed_page()
    paragraphs, out = _render(data, 0)
    (boxed,) = [p for p in paragraphs if p.text.startswith("Start by signing")]
    assert boxed.align != Align.CENTER
    glyphs = [g for g in _glyphs(out, pymupdf.Rect(60, 166, 535, 219)) if g.char.strip()]
    assert len(glyphs) > 50
    assert min(g.bbox.x0 for g in glyphs) >= 90 and max(g.bbox.x1 for g in glyphs) <= 505
    starts: dict[int, float] = {}
    for g in glyphs:
        starts[round(g.origin[1])] = min(starts.get(round(g.origin[1]), 1e9), g.bbox.x0)
    assert len(starts) >= 2 and all(abs(x - boxed.bbox[0]) < 1.5 for x in starts.values())


# --- a lettered list set larger than the body (05 p26) ---------------------------------------

_LETTERED = ("a. Case type", "b. Case name", "c. Filing year", "d. Court and judge")


def _body_page() -> tuple[pymupdf.Document, pymupdf.Page, pymupdf.TextWriter, pymupdf.Font, float]:
    """A new page with a paper's body at 10 pt written (not yet drawn): the document, the
    page, its writer and font, and the baseline below the body."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    writer, font = pymupdf.TextWriter(page.rect), pymupdf.Font("helv")
    y = 100.0
    for line in (*_BODY, *_BODY, *_BODY):
        writer.append((72, y), line, font=font, fontsize=10)
        y += 12.5
    return doc, page, writer, font, y


def _lettered_page() -> bytes:
    """A paper's body at 10 pt, then a list of short lettered items set at 11 pt (larger, not
    bold: a datasheet appended in another face)."""
    doc, page, writer, font, y = _body_page()
    writer.append((72, y + 10), "We record these facts for every case in the set:", font=font,
                  fontsize=11)  # fmt: skip
    for i, item in enumerate(_LETTERED):
        label, text = item.split(" ", 1)
        writer.append((90, y + 24 + 14 * i), label, font=font, fontsize=11)
        writer.append((104, y + 24 + 14 * i), text, font=font, fontsize=11)
    writer.write_text(page)
    data: bytes = doc.tobytes()
    return data


def test_short_lettered_items_set_large_keep_their_labels() -> None:
    """05 p26: "a. Case type" in a face larger than the body is a list item, not a heading: its
    label is not sent (the model cannot garble it) and the output prints "a." to "d." where the
    source has them, each before its translated item."""
    paragraphs, out = _render(_lettered_page(), 0)
    items = [p for p in paragraphs if p.kind == ParagraphKind.LIST_ITEM]
    assert [p.label.strip() for p in items] == ["a.", "b.", "c.", "d."]
    assert all(not p.text.startswith(("a.", "b.", "c.", "d.")) for p in items)
    words = out.get_text("words")
    for item in items:
        row = sorted((w for w in words if abs(w[3] - item.bbox[3]) < 4), key=lambda w: w[0])
        assert row[0][4] == item.label.strip() and abs(row[0][0] - 90) < 1.5
        assert any("\uac00" <= c <= "\ud7a3" for w in row[1:] for c in w[4])


# --- a numbered list set larger than the body, its items of different lengths (05 p33) -------

_NUMBERED = (
    ("1.", ["produce summaries for a legal case from the source documents,"]),
    (
        "2.",
        [
            "perform controlled automatic summarization that can produce summaries of different",
            "granularities.",
        ],
    ),
    ("3.", ["condense a long summary to a short version."]),
)


def _numbered_page() -> bytes:
    """A paper's body at 10 pt, then a datasheet's numbered list at 11 pt (larger, not bold):
    a one-line item ending in a comma, a two-line item, a one-line item; a rule under it."""
    doc, page, writer, font, y = _body_page()
    writer.append((72, y + 10), "We show that the data can be used for training models that can:",
                  font=font, fontsize=11)  # fmt: skip
    y += 24
    for label, lines in _NUMBERED:
        writer.append((90, y), label, font=font, fontsize=11)
        for line in lines:
            writer.append((104, y), line, font=font, fontsize=11)
            y += 13.5
    writer.write_text(page)
    page.draw_line((72, y + 4), (523, y + 4))
    data: bytes = doc.tobytes()
    return data


def test_a_numbered_lists_first_item_set_large_is_an_item_at_the_lists_size() -> None:
    """05 p33: "1. produce summaries ... documents," set larger than the body is a list item,
    not a heading (its label kept, not sent); the three items come out at one size."""
    paragraphs, out = _render(_numbered_page(), 0)
    items = [p for p in paragraphs if p.kind == ParagraphKind.LIST_ITEM]
    assert [p.label.strip() for p in items] == ["1.", "2.", "3."]
    assert not any(p.kind == ParagraphKind.HEADING for p in paragraphs)
    top, bottom = items[0].bbox[1], items[-1].bbox[3]
    glyphs = [
        g for g in translation_glyphs(out) if top - 2 <= g.bbox[1] and g.bbox[3] <= bottom + 6
    ]
    assert len({round(g.bbox[3]) for g in glyphs}) >= 3  # every item's line is there
    assert len({round(g.size, 1) for g in glyphs}) == 1
