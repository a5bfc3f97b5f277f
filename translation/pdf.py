"""PyMuPDF I/O: open and validate, read page layouts, redact, typeset, build mono/dual outputs.

Everything here is synchronous and CPU-bound (the pipeline runs it in a worker thread).
PyMuPDF exceptions never leave this module: they become ``common.errors`` types.
Coordinates are the unrotated page space PyMuPDF's text extraction, redaction and text insertion
share, which is why pages with ``/Rotate`` need no special handling.
"""

from __future__ import annotations

import bisect
import math
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import pymupdf
from pymupdf import mupdf

from common.errors import (
    EmptyPDFError,
    InputError,
    NotAPDFError,
    NoTextLayerError,
    PasswordRequiredError,
    ZTError,
)
from translation.fonts import FontChain, fit, is_cjk_language, plain_char
from translation.formulas import mark_key
from translation.layout import (
    Block,
    Frame,
    Line,
    PageLayout,
    Rect,
    Span,
    column_split,
    figure_regions,
)
from translation.paragraph import Align, Paragraph
from translation.segment import segment

# PyMuPDF is not thread-safe; the server may run two jobs' PDF work in two worker threads.
_LOCK = threading.RLock()


class RenderError(ZTError):
    """Writing the translated PDF failed."""

    error_type = "RenderError"


# Ligatures expanded, whitespace kept, text outside the media box ignored, no image blocks.
_TEXT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP


def open_document(data: bytes, password: str | None = None) -> pymupdf.Document:
    """Open ``data`` as a PDF and check that it can be translated.

    Raises NotAPDFError (garbage, unparsable), EmptyPDFError (no pages: a truncated upload
    "repairs" to zero pages without an error), PasswordRequiredError (no or wrong password) and
    NoTextLayerError (scanned pages). A PDF restricted only by an owner password opens.
    """
    if b"%PDF" not in data[:1024]:
        raise NotAPDFError("not a PDF file")
    with _LOCK:
        return _open_checked(data, password)


def _parse(data: bytes) -> pymupdf.Document:
    try:
        return pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # PyMuPDF raises FileDataError, RuntimeError, ValueError...
        raise NotAPDFError(f"not a readable PDF file ({_reason(exc)})") from None


def _open_checked(data: bytes, password: str | None) -> pymupdf.Document:
    doc = _parse(data)
    try:
        if doc.needs_pass:
            if not password:
                raise PasswordRequiredError("the PDF is password-protected: give the password")
            if not doc.authenticate(password):
                raise PasswordRequiredError("wrong password for this PDF")
        if doc.page_count == 0:
            raise EmptyPDFError("the PDF has no pages (truncated or damaged file)")
        if not _has_text(doc):
            if doc.is_repaired:  # what is left of a truncated file: pages without content
                raise EmptyPDFError("the PDF is truncated or damaged: nothing readable in it")
            raise NoTextLayerError("the PDF has no text layer: it is scanned and needs OCR first")
    except InputError:
        doc.close()
        raise
    except Exception as exc:
        doc.close()
        raise NotAPDFError(f"damaged PDF file ({_reason(exc)})") from None
    return doc


def _reason(exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:120]


@contextmanager
def _writing(what: str, *docs: pymupdf.Document) -> Iterator[None]:
    """Turn an unexpected error of the block into ``RenderError("cannot {what} (...)")`` (our
    own errors pass unchanged); close ``docs`` when the block ends, however it ends."""
    try:
        yield
    except ZTError:
        raise
    except Exception as exc:
        raise RenderError(f"cannot {what} ({_reason(exc)})") from exc
    finally:
        for doc in docs:
            doc.close()


def _has_text(doc: pymupdf.Document) -> bool:
    for page in doc:
        if page.get_text("text", flags=_TEXT_FLAGS).strip():
            return True
    return False


def read_layout(page: pymupdf.Page) -> PageLayout:
    """The text, image and vector-figure layout of one page as plain data."""
    raw = page.get_text("dict", flags=_TEXT_FLAGS)
    blocks: list[Block] = []
    for block in raw["blocks"]:
        if block.get("type", 0) != 0:
            continue
        lines: list[Line] = []
        for line in block["lines"]:
            spans = tuple(
                Span(
                    text=span["text"],
                    bbox=tuple(span["bbox"]),
                    font=span["font"],
                    size=float(span["size"]),
                    flags=int(span["flags"]),
                    color=int(span["color"]),
                    origin=tuple(span["origin"]),
                )
                for span in line["spans"]
            )
            if spans:
                lines.append(Line(spans=spans, bbox=tuple(line["bbox"]), direction=line["dir"]))
        if lines:
            blocks.append(Block(lines=tuple(lines), bbox=tuple(block["bbox"])))
    paths: list[tuple[float, float, float, float]] = []
    images: list[tuple[float, float, float, float]] = []
    for kind, rect in page.get_bboxlog():
        if kind in ("fill-path", "stroke-path"):
            paths.append(tuple(rect))
        elif kind.endswith("image"):
            images.append(tuple(rect))
    box = page.cropbox
    text_lines = [line.bbox for block in blocks for line in block.lines]
    figures = figure_regions(paths, images, box.width, box.height, text_lines)
    return PageLayout(
        index=page.number,
        width=box.width,
        height=box.height,
        blocks=tuple(blocks),
        figures=tuple(figures),
    )


def extract_paragraphs(
    doc: pymupdf.Document,
    pages: Sequence[int] | None = None,
    include_references: bool = False,
) -> list[Paragraph]:
    """The paragraphs to translate, in reading order (see ``translation.segment``).

    ``pages``: 0-based page indices to translate (None = all). Pages before the last wanted page
    are read too, since the references section is found by reading from the start.
    """
    last = doc.page_count - 1 if pages is None else max(pages, default=-1)
    try:
        with _LOCK:
            layouts = [read_layout(doc[i]) for i in range(last + 1)]
    except Exception as exc:
        raise InputError(f"cannot read the PDF's text ({_reason(exc)})") from None
    wanted = None if pages is None else set(pages)
    return segment(layouts, wanted=wanted, include_references=include_references)


def render_mono(
    doc: pymupdf.Document,
    paragraphs: Sequence[Paragraph],
    translations: Mapping[str, str],
    target_lang: str,
) -> bytes:
    """Replace each translated paragraph of ``doc`` by its translation; return the PDF bytes.

    ``translations`` maps paragraph ids to final text (placeholders already restored);
    paragraphs without one stay as they are. The source text of a translated paragraph is
    redacted (images and vector graphics untouched), and the translation is set inside the
    paragraph's box, shrinking the font until it fits. Fonts are embedded once per document and
    subset on save. ``doc`` is modified; all pages are kept. The output is not encrypted.
    """
    renderer = MonoRenderer(doc, target_lang)
    by_page: dict[int, list[Paragraph]] = {}
    for para in paragraphs:
        by_page.setdefault(para.page, []).append(para)
    for number, page_paragraphs in sorted(by_page.items()):
        renderer.render_page(number, page_paragraphs, translations)
    return renderer.finish()


class MonoRenderer:
    """:func:`render_mono` page by page, so pages can be typeset while others still translate.

    Call ``render_page`` once per page (any order, from one thread at a time), then ``finish``.
    """

    def __init__(self, doc: pymupdf.Document, target_lang: str) -> None:
        self._doc = doc
        self._target_lang = target_lang
        with _LOCK:
            self._chain = FontChain(target_lang)

    def render_page(
        self, number: int, paragraphs: Sequence[Paragraph], translations: Mapping[str, str]
    ) -> None:
        items = [
            (para, text)
            for para in paragraphs
            if (text := translations.get(para.id)) is not None and text.strip()
        ]
        if not items:
            return
        with _LOCK, _writing("write the translated PDF"):
            _render_page(self._doc[number], items, self._chain, self._target_lang)

    def finish(self) -> bytes:
        """Subset the embedded fonts and return the PDF bytes (not encrypted)."""
        with _LOCK, _writing("write the translated PDF"):
            self._doc.subset_fonts()
            return bytes(
                self._doc.tobytes(garbage=3, deflate=True, encryption=pymupdf.PDF_ENCRYPT_NONE)
            )


def _render_page(
    page: pymupdf.Page,
    items: Sequence[tuple[Paragraph, str]],
    chain: FontChain,
    target_lang: str,
) -> None:
    # Work in the unrotated space everything else uses; /Rotate is put back at the end.
    rotation = page.rotation
    if rotation:
        page.set_rotation(0)
    paragraphs = [p for p, _ in items]
    rects, patches = _redaction_plan(page, paragraphs)
    listing: pymupdf.DisplayList | None = None
    wanted = _copied_formulas(items)
    if patches or wanted:
        listing = page.get_displaylist()
    copies = _formula_copies(listing, page.rect, wanted) if listing else {}
    _redact(page, rects)
    if patches:
        # Only glyphs the redaction did take are put back (glyph boxes are estimates), in
        # one picture per stretch of touching glyphs so no pixel is drawn twice.
        left = {_span_key(item) for item in _all_spans(page)}
        for clip in _merge([clip for key, clip in patches if key not in left]):
            page.insert_image(clip, pixmap=_picture(listing, clip), keep_proportion=False)
    writers: dict[tuple[int, bool], pymupdf.TextWriter] = {}
    for para, text in items:
        _typeset(page, para, text, chain, target_lang, writers, copies)
    for (color, bold), writer in writers.items():
        # Colour -1: the invisible text layer of copied formulas (render mode 3).
        mode = 3 if color < 0 else 2 if bold else 0
        writer.write_text(page, color=_rgb(max(color, 0)), render_mode=mode)
    if rotation:
        page.set_rotation(rotation)


def _redact(page: pymupdf.Page, rects: Sequence[Rect]) -> None:
    """Remove the text under ``rects``, nothing else (images and vector graphics stay).

    All rects go into one redaction annotation as QuadPoints: PyMuPDF's add_redact_annot costs
    O(annotations) per call, which made pages with hundreds of rects slow.
    """
    if not rects:
        return
    annot = mupdf.pdf_create_annot(page._pdf_page(), mupdf.PDF_ANNOT_REDACT)
    for x0, y0, x1, y1 in rects:
        mupdf.pdf_add_annot_quad_point(annot, mupdf.FzQuad(mupdf.FzRect(x0, y0, x1, y1)))
    page.apply_redactions(
        images=pymupdf.PDF_REDACT_IMAGE_NONE,
        graphics=pymupdf.PDF_REDACT_LINE_ART_NONE,
        text=pymupdf.PDF_REDACT_TEXT_REMOVE,
    )


def _redaction_plan(
    page: pymupdf.Page, paragraphs: Sequence[Paragraph]
) -> tuple[list[Rect], list[tuple[tuple[str, int, int], pymupdf.Rect]]]:
    """The rects to redact, and the areas of other glyphs to copy back afterwards.

    Redaction removes every glyph whose box it touches, and glyph boxes can be far taller than
    the glyphs (big delimiters; Word's math font is three lines high). A paragraph's rects are
    thin bands inside its own glyphs; each one slides within its glyphs' height to miss the
    boxes of text that stays (display formulas, labels, untranslated neighbours). Where that is
    impossible the band stays, and the other glyphs it would take along are pictured before
    the redaction and put back after it.
    """
    ours = [(r, Frame(p.direction)) for p in paragraphs for r in p.rects]
    ours_sorted = sorted((r for r, _ in ours), key=lambda r: r[1])
    tops = [r[1] for r in ours_sorted]
    tallest = max((r[3] - r[1] for r in ours_sorted), default=0.0)
    foreign = []
    for span, frame in _all_spans(page):
        bbox = tuple(span["bbox"])
        size = float(span["size"])
        x0, _, x1, _ = frame.to_frame(bbox)
        base = frame.point(*span["origin"])[1]
        # A span is ours when the band segment._make_row gives it meets one of our rects.
        tight = frame.to_page((x0 + 0.1, base - 0.6 * size, x1 - 0.1, base - 0.1))
        i = bisect.bisect_left(tops, tight[1] - tallest)
        if not any(_intersects(tight, r) for r in ours_sorted[i:] if r[1] <= tight[3]):
            glyphs = frame.to_page((x0, base - 0.85 * size, x1, base + 0.3 * size))
            foreign.append((bbox, glyphs, _span_key((span, frame))))
    if not foreign:
        return [r for r, _ in ours], []
    foreign.sort(key=lambda item: item[0][1])
    foreign_tops = [item[0][1] for item in foreign]
    rects: list[Rect] = []
    patches: dict[tuple[str, int, int], pymupdf.Rect] = {}
    for rect, frame in ours:
        reach = 3.0 * (rect[3] - rect[1] + rect[2] - rect[0])  # bound for the search below
        lo = bisect.bisect_left(foreign_tops, rect[1] - reach)
        near = [f for f in foreign[lo:] if f[0][1] <= rect[3] + reach]
        moved, hit = _dodge(rect, frame, [bbox for bbox, _, _ in near])
        rects.append(moved)
        for bbox, glyphs, key in near:
            if hit and _intersects(bbox, moved):
                patches[key] = pymupdf.Rect(glyphs)
    return rects, list(patches.items())


def _all_spans(page: pymupdf.Page) -> list[tuple[dict[str, Any], Frame]]:
    """Every non-blank text span of the page, with the frame of its line."""
    spans: list[tuple[dict[str, Any], Frame]] = []
    for block in page.get_text("dict", flags=_TEXT_FLAGS)["blocks"]:
        for line in block.get("lines", ()):
            frame = Frame((float(line["dir"][0]), float(line["dir"][1])))
            spans.extend((span, frame) for span in line["spans"] if span["text"].strip())
    return spans


def _span_key(item: tuple[dict[str, Any], Frame]) -> tuple[str, int, int]:
    span = item[0]
    return span["text"], round(span["origin"][0] * 4), round(span["origin"][1] * 4)


def _intersects(a: Sequence[float], b: Sequence[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _dodge(rect: Rect, frame: Frame, foreign: Sequence[Rect]) -> tuple[Rect, bool]:
    """Slide the band ``rect`` off the ``foreign`` boxes; returns (band, still touching)."""
    x0, y0, x1, y1 = frame.to_frame(rect)
    size = (y1 - y0) / 0.5  # the band is half a font size high
    lo, hi = y0 - 0.1 * size, y1 + 0.25 * size  # still inside the text's own glyph boxes
    hits = []
    for box in foreign:
        fx0, fy0, fx1, fy1 = frame.to_frame(box)
        if fx0 < x1 and fx1 > x0 and fy0 < hi and fy1 > lo:
            hits.append((max(lo, fy0), min(hi, fy1)))
    if not hits:
        return rect, False
    best, cursor = (0.0, 0.0), lo
    for start, end in sorted(hits):
        if start - cursor > best[1] - best[0]:
            best = (cursor, start)
        cursor = max(cursor, end)
    if hi - cursor > best[1] - best[0]:
        best = (cursor, hi)
    if best[1] - best[0] >= 0.08 * size:
        pad = min(0.02 * size, (best[1] - best[0]) / 4)
        return frame.to_page((x0, best[0] + pad, x1, best[1] - pad)), False
    return rect, True


def _merge(rects: Sequence[pymupdf.Rect]) -> list[pymupdf.Rect]:
    """Union of overlapping rects."""
    merged: list[pymupdf.Rect] = []
    for rect in sorted(rects, key=lambda r: (r.y0, r.x0)):
        for i, other in enumerate(merged):
            if rect.intersects(other) or (
                abs(rect.y0 - other.y0) < 1 and abs(rect.y1 - other.y1) < 1 and rect.x0 <= other.x1
            ):
                merged[i] = other | rect
                break
        else:
            merged.append(pymupdf.Rect(rect))
    return merged


def _picture(listing: pymupdf.DisplayList, clip: pymupdf.Rect) -> pymupdf.Pixmap:
    zoom = pymupdf.Matrix(_COPY_ZOOM, _COPY_ZOOM)
    return listing.get_pixmap(matrix=zoom, clip=clip, alpha=True)


_COPY_ZOOM = 4.0  # pictures of glyphs at 288 dpi


def _rgb(color: int) -> tuple[float, float, float]:
    return ((color >> 16 & 255) / 255, (color >> 8 & 255) / 255, (color & 255) / 255)


#: (paragraph id, placeholder) -> [(picture, source rect, source descent)], one per piece.
Copies = Mapping[tuple[str, str], list[tuple[pymupdf.Pixmap, pymupdf.Rect, float]]]


def _copied_formulas(items: Sequence[tuple[Paragraph, str]]) -> list[tuple[Paragraph, str]]:
    """(paragraph, placeholder) of the formulas the translations mark for copying."""
    wanted: list[tuple[Paragraph, str]] = []
    for para, text in items:
        keys = {key for key in map(mark_key, text) if key is not None}
        wanted.extend((para, key) for key in sorted(keys) if para.formula_boxes.get(key))
    return wanted


def _formula_copies(
    listing: pymupdf.DisplayList,
    page_rect: pymupdf.Rect,
    wanted: Sequence[tuple[Paragraph, str]],
) -> dict[tuple[str, str], list[tuple[pymupdf.Pixmap, pymupdf.Rect, float]]]:
    """Pictures of formulas to copy as they look (see segment.restore), taken before the page
    is redacted, with how far each piece reaches below its baseline (see ``Copies``)."""
    copies: dict[tuple[str, str], list[tuple[pymupdf.Pixmap, pymupdf.Rect, float]]] = {}
    for para, key in wanted:
        pieces = []
        boxes = para.formula_boxes[key]
        descents = para.formula_descents.get(key) or ()
        for i, box in enumerate(boxes):
            rect = pymupdf.Rect(box) & page_rect
            descent = descents[i] if i < len(descents) else 0.25 * para.font_size
            if not rect.is_empty:
                pieces.append((_picture(listing, rect), rect, descent))
        copies[(para.id, key)] = pieces
    return copies


def _typeset(
    page: pymupdf.Page,
    para: Paragraph,
    text: str,
    chain: FontChain,
    target_lang: str,
    writers: dict[tuple[int, bool], pymupdf.TextWriter],
    copies: Copies,
) -> None:
    """Lay out ``text`` in ``para``'s box and add it to the page's text writers."""
    frame = Frame(para.direction)
    x0, y0, x1, y1 = frame.to_frame(para.bbox)
    width, height = x1 - x0, y1 - y0
    src = para.font_size or 10.0
    leading = max(para.line_pitch if para.line_count > 1 else 0.0, _leading(target_lang))
    leading = min(leading, 1.6)
    text = " ".join(text.split())

    def measure(unit: str) -> float:
        total = 0.0
        for char in unit:
            key = mark_key(char)
            if key is not None:
                total += sum(r.width for _, r, _ in copies.get((para.id, key), [])) / src
            else:
                total += chain.advance(char)
        return total

    fitted = fit(text, width, height, src, leading, measure)
    if not fitted.lines:
        return
    size = fitted.size
    horizontal = frame.u == (1.0, 0.0)
    if horizontal:
        writer = writers.get((para.color, para.bold))
        if writer is None:
            writer = writers[(para.color, para.bold)] = pymupdf.TextWriter(page.rect)
    else:
        writer = pymupdf.TextWriter(page.rect)
    hidden = None  # invisible text of copied formulas, so they stay searchable
    if horizontal and para.glyph_formulas:
        hidden = writers.get((-1, False))
        if hidden is None:
            hidden = writers[(-1, False)] = pymupdf.TextWriter(page.rect)
    # Horizontal text is written where it goes; other directions are written horizontally
    # from the box's first corner, then turned about it (TextWriter morph).
    origin = frame.page_point(x0, y0)
    ox, oy = (x0, y0) if horizontal else origin
    baseline = oy + 0.8 * size
    space = chain.advance(" ") * size
    last = len(fitted.lines) - 1
    for number, line in enumerate(fitted.lines):
        slack = width - line.width * size
        x = ox + (max(0.0, slack / 2) if para.align == Align.CENTER else 0.0)
        spaced = " " in line.units
        gap = 0.0
        if para.align == Align.JUSTIFY and number < last and 0 < slack < 0.25 * width:
            # Extra space goes to the spaces of the line, or else between its units (CJK).
            points = line.units.count(" ") if spaced else len(line.units) - 1
            gap = slack / points if points else 0.0
            if gap > 0.8 * size:  # too loose: leave the line ragged
                gap = 0.0
        pending = ""  # units written together while no extra space separates them
        for unit in line.units:
            if unit == " " and not gap:
                pending += " "
                continue
            if unit == " ":
                x = _write(
                    writer, page, chain, pending, x, baseline, size, para, copies, src, hidden
                )
                x += space + gap
                pending = ""
                continue
            pending += unit
            if gap and not spaced:
                x = _write(
                    writer, page, chain, pending, x, baseline, size, para, copies, src, hidden
                )
                x += gap
                pending = ""
        _write(writer, page, chain, pending, x, baseline, size, para, copies, src, hidden)
        baseline += size * fitted.leading
    if not horizontal:
        angle = -math.degrees(math.atan2(frame.u[1], frame.u[0]))
        writer.write_text(
            page,
            color=_rgb(para.color),
            render_mode=2 if para.bold else 0,
            morph=(pymupdf.Point(origin), pymupdf.Matrix(angle)),
        )


def _leading(target_lang: str) -> float:
    return 1.3 if is_cjk_language(target_lang) else 1.2


def _write(
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
    hidden: pymupdf.TextWriter | None = None,
) -> float:
    """Append ``text`` at (x, baseline) in runs of one font; returns the x after it. A
    formula marker is drawn as the pictures of its glyphs, its source baseline on ours, with
    its source text invisible on top (into ``hidden``)."""
    run, run_font, run_width = "", 0, 0.0
    for char in text + "\0":
        key = mark_key(char) if char != "\0" else None
        index = chain.index(char) if char != "\0" and key is None else -2
        if run and index != run_font:
            writer.append((x, baseline), run, font=chain.fonts[run_font], fontsize=size)
            x += run_width * size
            run, run_width = "", 0.0
        if key is not None:
            scale = size / src
            start = x
            for pixmap, rect, descent in copies.get((para.id, key), []):
                w, h = rect.width * scale, rect.height * scale
                bottom = baseline + descent * scale
                target = pymupdf.Rect(x, bottom - h, x + w, bottom)
                page.insert_image(target, pixmap=pixmap, keep_proportion=False)
                x += w
            source = "".join(c for c in para.placeholders.get(key, "") if c.isprintable())
            if hidden is not None and source.strip() and x > start:
                _write(hidden, page, chain, source, start, baseline, size, para, {}, src)
        elif index >= 0:
            run += plain_char(char)[0]
            run_font = index
            run_width += chain.advance(char)
    return x


def render_dual(
    original: bytes,
    mono: bytes,
    mode: str = "LR",
    translation_first: bool = False,
    password: str | None = None,
) -> bytes:
    """Original and translation together: ``LR`` puts both on one wide page, side by side;
    ``TB`` alternates their pages. ``translation_first`` puts the translation left (first).
    Both inputs must have the same pages (``mono`` is ``render_mono``'s output)."""
    mode = mode.upper()
    if mode not in ("LR", "TB"):
        raise InputError(f"unknown dual mode {mode!r}: use LR or TB")
    with _LOCK:
        source, translated = _open_pair(original, mono, password)
        with _writing("write the dual PDF", source, translated):
            first, second = (translated, source) if translation_first else (source, translated)
            out = pymupdf.open()
            if mode == "LR":
                for number in range(source.page_count):
                    left, right = first[number].rect, second[number].rect
                    page = out.new_page(
                        width=left.width + right.width, height=max(left.height, right.height)
                    )
                    page.show_pdf_page(pymupdf.Rect(0, 0, left.width, left.height), first, number)
                    page.show_pdf_page(
                        pymupdf.Rect(left.width, 0, left.width + right.width, right.height),
                        second,
                        number,
                    )
            else:
                count = source.page_count
                out.insert_pdf(first)
                out.insert_pdf(second)
                out.select([i + half for i in range(count) for half in (0, count)])
            return _save(out)


def _open_plain(data: bytes, password: str | None) -> pymupdf.Document:
    """Open PDF bytes without the translatability checks of :func:`open_document`."""
    doc = _parse(data)
    if doc.needs_pass and not doc.authenticate(password or ""):
        doc.close()
        raise PasswordRequiredError("the PDF is password-protected: give the password")
    if doc.page_count == 0:
        doc.close()
        raise EmptyPDFError("the PDF has no pages (truncated or damaged file)")
    return doc


def _open_pair(
    original: bytes, translated: bytes, password: str | None
) -> tuple[pymupdf.Document, pymupdf.Document]:
    """Open an original and its translation (``password`` is the original's); both must have
    the same pages."""
    source = _open_plain(original, password)
    target = _open_plain(translated, None)
    if source.page_count != target.page_count:
        source.close()
        target.close()
        raise InputError("the translation does not have the pages of the original")
    return source, target


def _save(doc: pymupdf.Document) -> bytes:
    # garbage=4 also merges identical objects: fonts and images the original and the
    # translation share are stored once.
    return bytes(doc.tobytes(garbage=4, deflate=True, encryption=pymupdf.PDF_ENCRYPT_NONE))


# --- /crop, /compare, /crop-compare (issue 5) -----------------------------------------------


def crop_columns(pdf: bytes, password: str | None = None) -> bytes:
    """Cut every two-column page into two one-column pages (left column first); other pages
    are kept whole. Pages turned by ``/Rotate`` are kept whole."""
    with _LOCK:
        source = _open_plain(pdf, password)
        with _writing("cut the PDF into columns", source):
            out = pymupdf.open()
            for number in range(source.page_count):
                for clip in _columns(source[number]):
                    _show(out, [(source, number, clip)])
            return _save(out)


def compare(
    original: bytes,
    translated: bytes,
    translation_first: bool = False,
    password: str | None = None,
) -> bytes:
    """Each page of the original and of its translation side by side on one wide page."""
    return render_dual(original, translated, "LR", translation_first, password)


def crop_compare(
    original: bytes,
    translated: bytes,
    translation_first: bool = False,
    password: str | None = None,
) -> bytes:
    """Columns side by side: each column of the original next to the same column of the
    translation (the columns are found on the original)."""
    with _LOCK:
        source, target = _open_pair(original, translated, password)
        with _writing("build the comparison", source, target):
            out = pymupdf.open()
            for number in range(source.page_count):
                for clip in _columns(source[number]):
                    pair = [(source, number, clip), (target, number, clip)]
                    _show(out, pair[::-1] if translation_first else pair)
            return _save(out)


def _columns(page: pymupdf.Page) -> list[pymupdf.Rect]:
    """The areas of a page's columns (the whole page when it is not a two-column page)."""
    whole = pymupdf.Rect(page.rect)
    if page.rotation:
        return [whole]
    split = column_split(read_layout(page))
    if split is None or not whole.x0 < split < whole.x1:
        return [whole]
    return [
        pymupdf.Rect(whole.x0, whole.y0, split, whole.y1),
        pymupdf.Rect(split, whole.y0, whole.x1, whole.y1),
    ]


def _show(
    out: pymupdf.Document, parts: Sequence[tuple[pymupdf.Document, int, pymupdf.Rect]]
) -> None:
    """One new page showing ``parts`` (document, page, area) next to each other."""
    width = sum(clip.width for _, _, clip in parts)
    height = max(clip.height for _, _, clip in parts)
    page = out.new_page(width=width, height=height)
    x = 0.0
    for doc, number, clip in parts:
        target = pymupdf.Rect(x, 0, x + clip.width, clip.height)
        page.show_pdf_page(target, doc, number, clip=clip)
        x += clip.width
