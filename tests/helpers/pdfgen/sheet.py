"""The page builder every constructed test page uses: a :class:`Sheet` is one A4 page whose
text is set with a ``TextWriter`` at baselines a test names (drawn on the page by
:meth:`Sheet.write`), and whose rules and shapes are drawn on ``sheet.page`` directly. The
fonts ship with PyMuPDF; nothing is downloaded."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pymupdf
from pymupdf import mupdf

from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.paragraph import Paragraph

WIDTH, HEIGHT = 595.0, 842.0  # A4, in points
TIMES = pymupdf.Font("tiro")
TIMES_BOLD = pymupdf.Font("tibo")
TIMES_ITALIC = pymupdf.Font("tiit")
HELV = pymupdf.Font("helv")  # Helvetica: a sans-serif face
SIZE = 10.0  # a paper's body text, in points
LEADING = 12.0  # from baseline to baseline


def math_font() -> pymupdf.Font:
    """Noto Sans Math, which ships inside PyMuPDF."""
    data, size = mupdf.fz_lookup_noto_math_font()
    return pymupdf.Font(fontbuffer=mupdf.raw_to_python_bytes(data, size))


MATH = math_font()


def wrap(text: str, width: float, indent: float = 0.0) -> list[str]:
    """``text`` broken into lines of at most ``width`` points (the first ``indent`` less), set
    in Times at :data:`SIZE`."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        room = width - (indent if not lines else 0.0)
        if line and TIMES.text_length(trial, SIZE) > room:
            lines.append(line)
            line = word
        else:
            line = trial
    return [*lines, line] if line else lines


class Sheet:
    """A new page of ``doc`` (a new document when None) being written, or ``page`` of ``doc``
    written again over what it holds: :meth:`put` sets text, :meth:`write` draws what was set,
    :meth:`done` draws it and returns the document's bytes."""

    def __init__(
        self,
        doc: pymupdf.Document | None = None,
        width: float = WIDTH,
        height: float = HEIGHT,
        page: pymupdf.Page | None = None,
    ) -> None:
        self.doc = pymupdf.open() if doc is None else doc
        self.page = self.doc.new_page(width=width, height=height) if page is None else page
        self.writer = pymupdf.TextWriter(self.page.rect)

    def put(
        self, x: float, y: float, text: str, size: float = 11.0, font: pymupdf.Font = TIMES
    ) -> float:
        """Set ``text`` with its baseline's left end at ``x``, ``y``; return where it ends."""
        self.writer.append((x, y), text, font=font, fontsize=size)
        return x + float(font.text_length(text, size))

    def lines(
        self,
        x: float,
        y: float,
        lines: Iterable[str],
        size: float = 11.0,
        font: pymupdf.Font = TIMES,
        pitch: float = LEADING,
    ) -> float:
        """Set ``lines`` one under the other at ``x`` from baseline ``y``, ``pitch`` apart (the
        :class:`Sheet` form of :func:`lines_at`); return the baseline after the last."""
        for line in lines:
            self.put(x, y, line, size, font)
            y += pitch
        return y

    def words(self, x: float, y: float, text: str, gap: float = 5.6) -> float:
        """Words set one by one a justified space apart, as Word writes them."""
        for word in text.split():
            x = self.put(x, y, word) + gap
        return x

    def paragraph(
        self, text: str, column: tuple[float, float], top: float, indent: bool = True
    ) -> float:
        """Set ``text`` in ``column`` (its left and right x) from baseline ``top``, its first
        line indented when ``indent``; return the baseline after its last line."""
        first = 12.0 if indent else 0.0
        y = top
        for i, row in enumerate(wrap(text, column[1] - column[0], first)):
            self.writer.append((column[0] + (first if i == 0 else 0.0), y), row, TIMES, SIZE)
            y += LEADING
        return y

    def equation(self, column: tuple[float, float], baseline: float) -> None:
        """A display equation centred in ``column``, its number "(1)" at the right edge."""
        math = math_font()
        formula = "ℒ = ∑ α β + γ δ"
        width = math.text_length(formula, SIZE)
        self.writer.append(((column[0] + column[1] - width) / 2, baseline), formula, math, SIZE)
        self.writer.append((column[1] - 14, baseline), "(1)", TIMES, SIZE)

    def figure(self, column: tuple[float, float], top: float, bottom: float) -> None:
        """A filled box across ``column`` from ``top`` to ``bottom``: a figure with no text."""
        shape = self.page.new_shape()
        shape.draw_rect(pymupdf.Rect(column[0] + 40, top, column[1] - 40, bottom))
        shape.finish(color=(0, 0, 0.6), fill=(0.85, 0.9, 1.0), width=0.8)
        shape.commit()

    def write(self) -> None:
        """Draw the text set so far on the page."""
        self.writer.write_text(self.page)

    def done(self) -> bytes:
        """Draw the text and return the whole document as a PDF."""
        self.write()
        data: bytes = self.doc.tobytes()
        return data


#: Text placed at an exact point: its baseline's left end (x, y), the text, its size, and the
#: name of its face as ``insert_text`` takes it (a base-14 name such as ``"tiro"``, ``"tibo"``,
#: ``"cour"``, ``"helv"``, a CJK one such as ``"korea"``, or one put on the page with
#: ``page.insert_font``). The face's name is what the PDF names it: a rule that reads a font
#: by its name (bold, typewriter, a TeX face) sees it.
Placed = tuple[float, float, str, float, str]


def words_at(
    page: pymupdf.Page,
    words: Iterable[Placed],
    color: Sequence[float] | None = None,
    rotate: int = 0,
) -> None:
    """Set each of ``words`` (:data:`Placed`) at its point on ``page`` (``insert_text``,
    drawn at once), in ``color`` (black when None), turned by ``rotate`` degrees: the builder
    of pages whose words sit at exact points (a table's cells, a margin's line numbers, a
    running head)."""
    for x, y, text, size, font in words:
        page.insert_text((x, y), text, fontsize=size, fontname=font, color=color, rotate=rotate)


def lines_at(
    page: pymupdf.Page,
    x: float,
    y: float,
    lines: Iterable[str],
    size: float = SIZE,
    font: str = "tiro",
    pitch: float = LEADING,
) -> float:
    """Set ``lines`` one under the other at ``x`` from baseline ``y``, ``pitch`` apart, in
    ``font`` at ``size`` (:func:`words_at`); return the baseline after the last."""
    for line in lines:
        words_at(page, [(x, y, line, size, font)])
        y += pitch
    return y


def spaced_at(
    page: pymupdf.Page,
    x: float,
    y: float,
    words: Iterable[str],
    gap: float,
    size: float = SIZE,
    font: str = "tiro",
) -> float:
    """Set ``words`` (in a base-14 ``font``) one by one ``gap`` apart from ``x`` on baseline
    ``y`` (a justified line, as Word writes it: each word its own text object); return where
    the last gap ends."""
    for word in words:
        words_at(page, [(x, y, word, size, font)])
        x += pymupdf.get_text_length(word, font, size) + gap
    return x


def put_runs(
    page: pymupdf.Page, x: float, y: float, parts: list[tuple[str, bool]], size: float
) -> float:
    """Set ``parts`` (text, bold) one after the other on a line of ``page`` with the base-14
    Times (``insert_text``, drawn at once); return where the line ends."""
    for text, bold in parts:
        words_at(page, [(x, y, text, size, "tibo" if bold else "tiro")])
        x += (TIMES_BOLD if bold else TIMES).text_length(text, size)
    return x


def box_at(
    page: pymupdf.Page,
    box: tuple[float, float, float, float],
    text: str,
    size: float = 11.0,
    font: str = "helv",
    align: int = pymupdf.TEXT_ALIGN_LEFT,
) -> float:
    """``text`` wrapped in ``box`` (x0, y0, x1, y1) by PyMuPDF (``insert_textbox``), lined up
    by ``align``: a paragraph or a cell whose lines' exact places do not matter. Returns the
    height the box has left under the text (negative: the text did not fit)."""
    left: float = page.insert_textbox(
        pymupdf.Rect(box), text, fontsize=size, fontname=font, align=align
    )
    return left


def face_at(page: pymupdf.Page, name: str, face: pymupdf.Font, weight: int | None = None) -> str:
    """Embed ``face`` on ``page`` as resource ``name`` (for :func:`words_at`), its descriptor
    stating ``/FontWeight`` ``weight`` where given (the PDF's own word on how heavy the face
    is, whatever its name says); returns ``name``."""
    page.insert_font(fontname=name, fontbuffer=face.buffer)
    if weight is None:
        return name
    doc = page.parent
    for xref, _ext, _kind, _base, ref, *_ in page.get_fonts(full=True):
        if ref != name:
            continue
        what, value = doc.xref_get_key(xref, "DescendantFonts")
        font = int(value.strip("[] ").split()[0]) if what == "array" else xref
        _, descriptor = doc.xref_get_key(font, "FontDescriptor")
        doc.xref_set_key(int(descriptor.split()[0]), "FontWeight", str(weight))
    return name


def read(data: bytes) -> list[Paragraph]:
    """The paragraphs the reader finds in the PDF ``data``."""
    doc = open_document(data)
    try:
        return extract_paragraphs(doc)
    finally:
        doc.close()


def read_doc(doc: pymupdf.Document) -> list[Paragraph]:
    """The paragraphs the reader finds in the document a test built."""
    return extract_paragraphs(open_document(bytes(doc.tobytes())))
