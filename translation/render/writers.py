"""Writing set text onto a page: PyMuPDF text writers, one per look (colour, bold, italic),
runs of one font, and formula markers drawn as copies of their original glyphs."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import pymupdf
from pymupdf import mupdf

from translation.read.layout import Frame, Rect
from translation.read.math.formulas import mark_key
from translation.read.pages.page_space import user_unit
from translation.read.paragraph import Paragraph
from translation.read.style.style_marks import is_mark
from translation.render.fonts import FontChain, plain_char
from translation.render.formula_copies import Copies


def rgb(color: int) -> tuple[float, float, float]:
    return ((color >> 16 & 255) / 255, (color >> 8 & 255) / 255, (color & 255) / 255)


#: A text writer per look: (colour, bold, italic, baseline of an italic line or 0).
WriterKey = tuple[int, bool, bool, float]
Writers = dict[WriterKey, pymupdf.TextWriter]
_MONO = -3  # the run's font is the chain's monospaced one
_SLANT = 0.2  # italics are slanted upright glyphs (the fonts have no italic faces)


def writer_for(writers: Writers, page: pymupdf.Page, key: WriterKey) -> pymupdf.TextWriter:
    writer = writers.get(key)
    if writer is None:
        writer = writers[key] = pymupdf.TextWriter(page.rect)
    return writer


def write_all(page: pymupdf.Page, writers: Writers, real_bold: bool = False) -> None:
    """Put the text of all ``writers`` on the page: bold as fill and stroke (unless it is set
    in a ``real_bold`` weight), italics slanted about their baseline."""
    for (color, bold, italic, slant), writer in writers.items():
        mode = 2 if bold and not real_bold else 0
        morph = None
        if italic:
            morph = (pymupdf.Point(0, slant), pymupdf.Matrix(1, 0, _SLANT, 1, 0, 0))
        write_onto(page, writer, rgb(color), mode, morph)


Morph = tuple[pymupdf.Point, pymupdf.Matrix]


@dataclass(frozen=True, slots=True)
class TurnedText:
    """A paragraph's text that does not run across the page, laid out level in ``writer``
    and to be written turned by ``morph``: written with the rest of the page's text, after
    its check (a paragraph that falls back is never on the page) and after a scan's words
    are painted over (else the paint would hide it)."""

    writer: pymupdf.TextWriter
    color: tuple[float, float, float]
    mode: int
    morph: Morph

    def write(self, page: pymupdf.Page) -> None:
        write_onto(page, self.writer, self.color, self.mode, self.morph)


def write_onto(
    page: pymupdf.Page,
    writer: pymupdf.TextWriter,
    color: tuple[float, float, float],
    mode: int,
    morph: Morph | None,
) -> None:
    """Write ``writer``'s text (set in ``page``'s page space) onto ``page``, ``morph`` applied.

    A text writer places its text in PDF units, which are page-space points only where the
    page has no ``/UserUnit``; elsewhere its text is scaled back into page space.
    """
    unit = user_unit(page)
    if unit == 1.0:
        writer.write_text(page, color=color, render_mode=mode, morph=morph)
        return
    matrix = pymupdf.Matrix(1 / unit, 1 / unit)
    if morph is not None:
        # The morph about its fixpoint, as write_text builds it, then the scale.
        fix = morph[0] * writer.ictm
        about = pymupdf.Matrix(1, 1).pretranslate(fix.x, fix.y)
        matrix = ~about * morph[1] * about * matrix
    writer.write_text(page, color=color, render_mode=mode, matrix=matrix)


def show(
    writer: pymupdf.TextWriter,
    x: float,
    baseline: float,
    text: str,
    font: pymupdf.Font,
    size: float,
) -> None:
    """``writer.append((x, baseline), text, font=font, fontsize=size)``, left to right, without
    what ``append`` does after each run that nothing here reads: the box of ALL the writer's
    text so far (a MuPDF pass over every glyph it holds, so a page's runs cost their square:
    a fifth of typesetting) and the point after the run. A monospaced font is noted for
    ``write_text`` to fix its widths, as ``append`` notes it."""
    # MuPDF maps the point (in its single precision, as ``Point * Matrix`` has it done),
    # without the Python objects that product builds and converts: a page writes thousands.
    origin = mupdf.ll_fz_transform_point_xy(x, baseline, _matrix(tuple(writer.ictm)))
    trm = mupdf.fz_make_matrix(size, 0, 0, size, origin.x, origin.y)
    mupdf.fz_show_string(writer.this, font.this, trm, text, 0, 0, 0, mupdf.FZ_LANG_UNSET)
    if _monospaced(font):
        writer.used_fonts.add(font)


@functools.lru_cache(maxsize=64)
def _matrix(matrix: tuple[float, ...]) -> mupdf.fz_matrix:
    """MuPDF's struct of a matrix, made once (a page's writers share a few)."""
    return mupdf.ll_fz_make_matrix(*matrix)


@functools.cache
def _monospaced(font: pymupdf.Font) -> bool:
    # A dictionary built in C at every look; a page asks for it thousands of times.
    return bool(font.flags["mono"])


@dataclass(frozen=True, slots=True)
class Turn:
    """Where text written level by a turned writer lands (``typeset``: a line that does not
    run across the page is written horizontally from ``origin``, the page point of its box's
    corner, then turned about it): a level point ``origin`` + (a, b) is the frame point
    ``corner`` + (a, b)."""

    frame: Frame
    origin: tuple[float, float]
    corner: tuple[float, float]

    def extent(self, rect: pymupdf.Rect) -> tuple[float, float]:
        """A page rect's length along the line and across it."""
        x0, y0, x1, y1 = self.frame.to_frame((rect.x0, rect.y0, rect.x1, rect.y1))
        return x1 - x0, y1 - y0

    def page(self, level: Rect) -> pymupdf.Rect:
        """The page rect of a rect of the level writing."""
        (ox, oy), (cx, cy) = self.origin, self.corner
        x0, y0, x1, y1 = level
        return pymupdf.Rect(
            self.frame.to_page((cx + x0 - ox, cy + y0 - oy, cx + x1 - ox, cy + y1 - oy))
        )


def write_run(
    writer: pymupdf.TextWriter,
    page: pymupdf.Page,
    chain: FontChain,
    text: str,
    x: float,
    baseline: float,
    size: float,
    para: Paragraph,
    copies: Copies,
    src: float,
    mono: bool = False,
    turn: Turn | None = None,
) -> float:
    """Append ``text`` at (x, baseline) in runs of one font (``mono``: the monospaced one
    where it has the character); returns the x after it. A formula marker is drawn as a
    vector copy of its original glyphs, its source baseline on ours (the copy keeps the
    glyphs' text, so the formula stays searchable); on a line written level and turned
    (``turn``), where that level place lands on the page. Style marks are not drawn."""
    run, run_font, run_width = "", 0, 0.0
    for char in text + "\0":
        key = mark_key(char) if char != "\0" else None
        if char == "\0" or key is not None or is_mark(char):
            index = -2
        elif mono and chain.in_mono(char):
            index = _MONO
        else:
            index = chain.index(char)
        if run and index != run_font:
            face = chain.mono if run_font == _MONO else chain.fonts[run_font]
            show(writer, x, baseline, run, face, size)
            x += run_width * size
            run, run_width = "", 0.0
        if key is not None:
            scale = size / src
            for copy, rect, descent in copies.get((para.id, key), []):
                along, across = (rect.width, rect.height) if turn is None else turn.extent(rect)
                w, h = along * scale, across * scale
                bottom = baseline + descent * scale
                level = (x, bottom - h, x + w, bottom)
                target = pymupdf.Rect(level) if turn is None else turn.page(level)
                copy.sheet.place(copy.xobject, rect, target)
                x += w
        elif index == _MONO:
            run += char
            run_font = index
            run_width += chain.mono_advance(char)
        elif index >= 0:
            run += plain_char(char)[0]
            run_font = index
            run_width += chain.advance(char)
    return x
