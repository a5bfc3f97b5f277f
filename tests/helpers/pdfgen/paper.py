"""Generate self-contained test papers with PyMuPDF, with the ground truth to check against.

:func:`make_paper` writes a two-column paper: running header, page numbers, a title, body
paragraphs with inline math (Noto Sans Math, Greek, subscripts) and hyphenated line breaks, a
display equation, a numeric table, a vector figure with text labels inside, a references section
and optionally an appendix after it and a page turned with ``/Rotate``. Every word class comes
from its own vocabulary, so a test can tell body text from references, labels or headers just
by looking for words. All fonts ship with PyMuPDF; nothing is downloaded.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

from tests.helpers.pdfgen.sheet import math_font

WIDTH, HEIGHT = 595.0, 842.0
MARGIN_X, TOP, BOTTOM = 60.0, 80.0, 770.0
GUTTER = 20.0
COLUMN = (WIDTH - 2 * MARGIN_X - GUTTER) / 2
BODY_SIZE = 10.0
LEADING = 12.5

# Distinct vocabularies: body words never occur in references, labels, headers or tables.
BODY_WORDS = (
    "analysis approach baseline careful classifier coherent collection combine compare "
    "computation consider corpus dataset deliberate demonstrate describe detailed effective "
    "efficient embedding estimate evaluate evidence examine experiment explain feature "
    "framework general gradient hypothesis important improve increase indicate introduce "
    "language learning measure method modeling network observe optimize outcome parameter "
    "performance practical predict previous principle propose quality random reasonable "
    "reduce relation represent research sample scalable semantic sentence signal simple "
    "similar structure substantial summarize support technique training transfer typical "
    "understand variable various vector weight"
).split()
LONG_WORDS = ("representation", "transformation", "generalization", "interpretation")
REFERENCE_WORDS = "Quillfeather Bramblewood Ostrander Vexley Marrowgate Thistlecombe".split()
LABEL_WORDS = ("Encoder", "Decoder", "Memory")
HEADER_TEXT = "Journal of Synthetic Testing Papers 2024"
TABLE_HEADER = ("Setting", "Accuracy", "Recall")
TABLE_ROWS = (
    ("Alpha", "81.25", "79.40"),
    ("Bravo", "85.60", "83.05"),
    ("Charlie", "87.10", "84.90"),
)


@dataclass
class BodyParagraph:
    page: int
    rect: tuple[float, float, float, float]
    text: str  # what a reader sees, line breaks undone (math as it is printed)
    math: list[str] = field(default_factory=list)  # inline formulas, as extracted


@dataclass
class Truth:
    """What a reader knows about the generated paper (rects in unrotated page space)."""

    pages: int
    body: list[BodyParagraph] = field(default_factory=list)
    headings: list[tuple[int, str]] = field(default_factory=list)
    kept: list[tuple[int, str, tuple[float, float, float, float]]] = field(default_factory=list)
    references: list[tuple[int, str]] = field(default_factory=list)
    appendix: list[BodyParagraph] = field(default_factory=list)
    equation: str = ""
    rotated_page: int | None = None

    def kept_texts(self, kind: str) -> list[tuple[int, str, tuple[float, float, float, float]]]:
        """Untranslated elements of one kind: header, footer, label, number, equation."""
        return [k for k in self.kept if k[1].startswith(kind + ":")]


class _Writer:
    def __init__(self, doc: pymupdf.Document, truth: Truth, seed: int) -> None:
        self.doc = doc
        self.truth = truth
        self.rng = random.Random(seed)
        self.text = pymupdf.Font("tiro")
        self.bold = pymupdf.Font("tibo")
        self.math = math_font()
        self.page: pymupdf.Page | None = None
        self.writer: pymupdf.TextWriter | None = None
        self.number = -1
        self.column = 0
        self.y = TOP

    # --- pages ----------------------------------------------------------------------------

    def new_page(self) -> None:
        self.flush()
        self.page = self.doc.new_page(width=WIDTH, height=HEIGHT)
        self.writer = pymupdf.TextWriter(self.page.rect)
        self.number += 1
        self.column = 0
        self.y = TOP
        header_w = self.text.text_length(HEADER_TEXT, 8)
        self.put((WIDTH - header_w) / 2, 40, HEADER_TEXT, 8)
        self.truth.kept.append((self.number, "header:" + HEADER_TEXT, (0, 30, WIDTH, 45)))
        label = str(self.number + 1)
        self.put((WIDTH - self.text.text_length(label, 9)) / 2, 805, label, 9)
        self.truth.kept.append((self.number, "footer:" + label, (0, 795, WIDTH, 810)))

    def flush(self) -> None:
        if self.page is not None and self.writer is not None:
            self.writer.write_text(self.page)

    def put(
        self, x: float, y: float, text: str, size: float, font: pymupdf.Font | None = None
    ) -> float:
        assert self.writer is not None
        font = font or self.text
        self.writer.append((x, y), text, font=font, fontsize=size)
        return float(font.text_length(text, size))

    @property
    def x0(self) -> float:
        return MARGIN_X + self.column * (COLUMN + GUTTER)

    def need(self, height: float) -> None:
        """Move to the next column or page unless ``height`` fits below the cursor."""
        if self.y + height <= BOTTOM:
            return
        if self.column == 0:
            self.column, self.y = 1, TOP
        else:
            self.new_page()

    # --- content --------------------------------------------------------------------------

    def title(self, text: str) -> None:
        width = self.bold.text_length(text, 16)
        self.put((WIDTH - width) / 2, TOP + 10, text, 16, self.bold)
        self.truth.headings.append((self.number, text))
        self.y = TOP + 40

    def heading(self, text: str, size: float = 11.0) -> None:
        self.need(3 * LEADING)
        self.y += 6
        self.put(self.x0, self.y + size, text, size, self.bold)
        self.truth.headings.append((self.number, text))
        self.y += size + 8

    def sentence(self, words: int, math: bool) -> list[tuple[str, str]]:
        tokens: list[tuple[str, str]] = []
        for i in range(words):
            word = self.rng.choice(BODY_WORDS)
            if i == 0:
                word = word.capitalize()
            tokens.append(("w", word))
            if math and i == words // 2:
                tokens.append(("w", "where"))
                tokens.append(("m", self.rng.choice(("α", "x", "θ", "y"))))
                tokens.append(("sub", self.rng.choice(("i", "t", "k"))))
                tokens.append(("w", "is"))
                tokens.append(("w", "small"))
        tokens[-1] = ("w", tokens[-1][1] + ".")
        return tokens

    def paragraph(self, sentences: int = 3, math: bool = True, long_word: bool = True) -> None:
        tokens: list[tuple[str, str]] = []
        for s in range(sentences):
            tokens.extend(self.sentence(self.rng.randint(9, 14), math and s == 1))
        if long_word:
            tokens.insert(5, ("w", self.rng.choice(LONG_WORDS)))
        self.flow(tokens, target=self.truth.body)

    def flow(self, tokens: list[tuple[str, str]], target: list[BodyParagraph]) -> None:
        """Set tokens as a paragraph (first line indented) in the current column."""
        total = sum(
            (self.math if kind == "m" else self.text).text_length(value + " ", BODY_SIZE)
            for kind, value in tokens
        )
        self.need((total / COLUMN + 2) * LEADING)
        x = self.x0 + 12
        line_top = self.y
        baseline = self.y + BODY_SIZE
        start = (self.number, self.column, line_top)
        boxes = [(x, line_top)]
        text_parts: list[str] = []
        math_parts: list[str] = []
        right = self.x0 + COLUMN
        for kind, value in tokens:
            if kind == "sub":
                x -= self.text.text_length(" ", BODY_SIZE)  # glued to its symbol
                w = self.put(x, baseline + 2.0, value, BODY_SIZE * 0.7, self.math)
                x += w + self.text.text_length(" ", BODY_SIZE)
                text_parts[-1] += value
                math_parts[-1] += value
                continue
            font = self.math if kind == "m" else self.text
            space = self.text.text_length(" ", BODY_SIZE)
            width = font.text_length(value, BODY_SIZE)
            if x + width > right:
                if kind == "w" and len(value) >= 12 and x + width / 2 < right - 10:
                    # Break a long word with a hyphen, as TeX would.
                    head, tail = value[: len(value) // 2], value[len(value) // 2 :]
                    self.put(x, baseline, head + "-", BODY_SIZE)
                    text_parts.append(value)
                    baseline, x = self.newline(start, boxes)
                    x += self.put(x, baseline, tail, BODY_SIZE) + space
                    continue
                baseline, x = self.newline(start, boxes)
            self.put(x, baseline, value, BODY_SIZE, font)
            x += width + space
            text_parts.append(value)
            if kind == "m":
                math_parts.append(value)
        boxes.append((right, baseline + 3))
        page, _, _ = start
        rect = (self.x0, line_top, right, baseline + 3)
        target.append(
            BodyParagraph(page=page, rect=rect, text=" ".join(text_parts), math=math_parts)
        )
        self.y = baseline + LEADING - BODY_SIZE + 4

    def newline(
        self, start: tuple[int, int, float], boxes: list[tuple[float, float]]
    ) -> tuple[float, float]:
        baseline = self.y + LEADING + BODY_SIZE
        self.y += LEADING
        if baseline > BOTTOM:
            raise ValueError("paragraph too long for the column")
        return baseline, self.x0

    def equation(self) -> None:
        self.need(3 * LEADING)
        text = "ℒ = ∑ α x + β"
        width = self.math.text_length(text, BODY_SIZE)
        x = self.x0 + (COLUMN - width) / 2
        baseline = self.y + BODY_SIZE + 6
        self.put(x, baseline, text, BODY_SIZE, self.math)
        self.put(self.x0 + COLUMN - 15, baseline, "(1)", BODY_SIZE)
        rect = (x - 1, baseline - BODY_SIZE, x + width + 1, baseline + 3)
        self.truth.kept.append((self.number, "equation:" + text, rect))
        self.truth.equation = text
        self.y = baseline + 12

    def table(self) -> None:
        self.need(6 * LEADING)
        xs = (self.x0 + 10, self.x0 + 90, self.x0 + 160)
        assert self.page is not None
        top = self.y + 4
        self.page.draw_line((self.x0, top), (self.x0 + COLUMN, top), width=0.6)
        y = top + 12
        for x, cell in zip(xs, TABLE_HEADER, strict=True):
            self.put(x, y, cell, 9, self.bold)
        self.page.draw_line((self.x0, y + 4), (self.x0 + COLUMN, y + 4), width=0.4)
        for row in TABLE_ROWS:
            y += 12
            for x, cell in zip(xs, row, strict=True):
                self.put(x, y, cell, 9)
                if cell[0].isdigit():
                    w = self.text.text_length(cell, 9)
                    self.truth.kept.append(
                        (self.number, "number:" + cell, (x, y - 8, x + w, y + 2))
                    )
        self.page.draw_line((self.x0, y + 5), (self.x0 + COLUMN, y + 5), width=0.6)
        self.y = y + 10
        self.caption("Table 1: Results of the three settings on the test corpus.")

    def figure(self) -> None:
        self.need(150)
        assert self.page is not None
        top = self.y + 5
        x0 = self.x0 + 10
        shape = self.page.new_shape()
        for i, label in enumerate(LABEL_WORDS):
            box = pymupdf.Rect(x0 + i * 70, top + 20, x0 + i * 70 + 55, top + 60)
            shape.draw_rect(box)
            shape.draw_circle(box.tl + (8, 8), 3)
            shape.draw_line(box.br, box.br + (12, 12))
            shape.finish(color=(0, 0, 0.6), fill=(0.85, 0.9, 1.0), width=0.8)
            w = self.text.text_length(label, 8)
            self.put(box.x0 + (55 - w) / 2, box.y0 + 24, label, 8)
            self.truth.kept.append(
                (self.number, "label:" + label, (box.x0, box.y0 + 16, box.x1, box.y0 + 27))
            )
        curve = self.page.new_shape()
        curve.draw_bezier(
            (x0, top + 100), (x0 + 60, top + 70), (x0 + 120, top + 130), (x0 + 200, top + 95)
        )
        curve.finish(color=(0.6, 0, 0), width=1.0)
        curve.commit()
        shape.commit()
        self.y = top + 145
        self.caption("Figure 1: An overview of the three stages of the system.")

    def caption(self, text: str) -> None:
        words = text.split()
        tokens = [("w", w) for w in words]
        self.flow(tokens, target=self.truth.body)

    def references(self, count: int) -> None:
        self.heading("References")
        rng = self.rng
        for i in range(count):
            names = rng.sample(REFERENCE_WORDS, 2)
            entry = (
                f"{names[0]} A. and {names[1]} B. {2000 + i}. On {names[0].lower()} "
                f"{names[1].lower()} structures. In Proceedings of Vexley."
            )
            self.reference(entry)

    def reference(self, entry: str) -> None:
        self.need(3 * 11)
        size = 9.0
        words = entry.split()
        x = self.x0
        baseline = self.y + size
        right = self.x0 + COLUMN
        for word in words:
            w = self.text.text_length(word, size)
            if x + w > right:
                baseline += 11
                x = self.x0 + 10  # hanging indent
            self.put(x, baseline, word, size)
            x += w + self.text.text_length(" ", size)
        self.truth.references.append((self.number, entry))
        self.y = baseline + 6


def make_paper(
    pages: int = 3, appendix: bool = True, rotated_page: int | None = None, seed: int = 7
) -> tuple[bytes, Truth]:
    """A two-column paper of ``pages`` pages (at least 2) and its ground truth.

    Page 1 holds the title, paragraphs, the display equation, the table and the figure; body
    paragraphs fill the pages up to the references, which start on the last page; an appendix
    section follows them when ``appendix``. ``rotated_page`` (0-based) gets ``/Rotate 90``.
    """
    if pages < 2:
        raise ValueError("at least two pages")
    doc = pymupdf.open()
    truth = Truth(pages=pages)
    w = _Writer(doc, truth, seed)
    w.new_page()
    w.title("A Synthetic Study of Careful Evaluation")
    w.heading("1 Introduction")
    w.paragraph()
    w.paragraph(math=False)
    w.equation()
    w.paragraph()
    w.table()
    w.column, w.y = 1, TOP + 40
    w.figure()
    w.paragraph()
    w.heading("2 Method")
    while w.number < pages - 1:
        w.paragraph(sentences=3)
    w.paragraph(sentences=2)
    w.references(4)
    if appendix:
        w.heading("A Additional Details")
        words = "Appendix text explains the careful sampling procedure in detail.".split()
        w.flow([("w", word) for word in words], target=truth.appendix)
    w.flush()
    if rotated_page is not None:
        doc[rotated_page].set_rotation(90)
        truth.rotated_page = rotated_page
    data = doc.tobytes(garbage=3, deflate=True)
    doc.close()
    return data, truth


def join_pages(folder: Path, parts: list[tuple[str, list[int] | None]]) -> bytes:
    """One PDF of the pages ``parts`` names: (file in ``folder``, its 0-based pages or None
    for all), in that order (the benches' and tests' long papers made of corpus papers)."""
    out = pymupdf.open()
    for name, pages in parts:
        with pymupdf.open(folder / name) as src:
            for page in range(src.page_count) if pages is None else pages:
                out.insert_pdf(src, from_page=page, to_page=page)
    data: bytes = out.tobytes()
    out.close()
    return data


#: A line of a constructed page: (x, baseline, text, size).
Line = tuple[float, float, str, float]


def text_page(lines: list[Line], font: str = "tiro", centred: bool = False) -> bytes:
    """One page of ``lines`` in the base-14 ``font``; ``centred``: each x is the line's centre."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    for x, baseline, text, size in lines:
        left = x - pymupdf.get_text_length(text, font, size) / 2 if centred else x
        page.insert_text((left, baseline), text, fontsize=size, fontname=font)
    data: bytes = doc.tobytes()
    doc.close()
    return data
