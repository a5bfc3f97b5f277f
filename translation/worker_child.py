"""The PDF worker's child process (``translation.worker``): one step per message.

The child holds the job's document from extraction to the last page typeset, under the
address-space limit it sets on itself first; each step's reply is ``("ok", value)`` or
``("error", exception)``, and a step that reads by OCR or reads paragraphs early sends
messages of its own (``OCR_PAGE``, ``PART``) before its reply.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from common.errors import InputError, PDFProcessingError, ZTError
from common.language import Language
from translation import pdf
from translation.outputs import render_dual
from translation.read.document import open_document
from translation.read.extraction import extract_document
from translation.read.ocr import OcrOptions, OcrTurn
from translation.read.ocr.pool import ocr_processes
from translation.read.pages.pdf_limits import PdfLimits
from translation.read.paragraph import Paragraph
from translation.read.segmentation import Segmentation
from translation.reading_cache import ReadingCache
from translation.render import preview
from translation.render.faces import Face, FontFamily, choose_face, describe, paper_is_serif
from translation.render.fallback import FallBack
from translation.render.sanitize import strip_active_content
from translation.worker_protocol import OCR_PAGE, PART


class _State:
    conn: Connection | None = None
    doc: Any = None
    renderer: pdf.MonoRenderer | None = None
    data: bytes = b""
    password: str | None = None
    original: Any = None  # the upload, opened for previews of the original pages
    face: Face | None = None
    target: str = ""
    memory_mb: int = 0


def serve(conn: Connection, memory_mb: int) -> None:
    """The child's loop: one step per message until the pipe closes."""
    _limit_memory(memory_mb)
    state = _State()
    state.conn, state.memory_mb = conn, memory_mb
    while True:
        try:
            name, args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            reply: tuple[str, Any] = ("ok", _STEPS[name](state, *args))
        except (MemoryError, ZTError) as exc:
            # The engine wraps what PyMuPDF raises ("cannot read the PDF's text"); running out
            # of the address space is the real story.
            reply = ("error", _out_of_memory(memory_mb) if _out_of_memory_in(exc) else exc)
        except Exception as exc:  # an engine bug: the job fails, the worker's message says why
            reply = ("error", PDFProcessingError(f"PDF processing failed ({exc!r:.200})"))
        try:
            conn.send(reply)
        except MemoryError:
            conn.send(("error", _out_of_memory(memory_mb)))


def _out_of_memory_in(exc: BaseException) -> bool:
    """Whether ``exc`` or what it was raised from (even ``from None``) ran out of memory."""
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            return False
        if isinstance(seen, MemoryError) or "Memory" in type(seen).__name__:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _out_of_memory(memory_mb: int) -> PDFProcessingError:
    return PDFProcessingError(
        f"this PDF needs more memory than the {memory_mb} MiB a PDF worker may use"
        " (ZT_PDF_WORKER_MEMORY_MB)"
    )


def _limit_memory(memory_mb: int) -> None:
    if memory_mb <= 0:
        return
    try:
        import resource
    except ImportError:  # Windows: no address-space limit, the time limit still holds
        return
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _inspect(
    state: _State, data: bytes, password: str | None, limits: PdfLimits, ocr: OcrOptions
) -> int:
    doc = open_document(data, password, limits, ocr)
    try:
        return int(doc.page_count)
    finally:
        doc.close()


def _open(
    state: _State,
    data: bytes,
    password: str | None,
    pages: Sequence[int] | None,
    include_references: bool,
    target_lang: Language,
    limits: PdfLimits,
    ocr: OcrOptions,
    face: tuple[Path | None, FontFamily] = (None, FontFamily.AUTO),
    early: bool = False,
    kept: Path | None = None,
) -> tuple[int, Segmentation]:
    doc = open_document(data, password, limits, ocr)
    state.doc, state.data, state.password = doc, data, password
    # Scanned pages are read in parallel, as many as the cores and this worker's memory allow.
    ocr = dataclasses.replace(ocr, processes=ocr_processes(state.memory_mb))
    count = int(doc.page_count)
    if pages is not None:
        bad = [p + 1 for p in pages if not 0 <= p < count]
        if bad:
            raise InputError(f"page {bad[0]} does not exist (the PDF has {count} pages)")
    extracted = _read(state, doc, pages, include_references, limits, ocr, early, kept)
    # Typesetting picks its fonts by the model's code of the language it sets.
    folder, family = face
    wanted = list(range(count)) if pages is None else list(pages)
    # The paper's own style is read only where the family leaves it to the paper.
    own = family in (FontFamily.AUTO, FontFamily.SCRIPT) and folder is not None
    serif = paper_is_serif(doc, wanted) if own else True
    state.face = choose_face(folder, target_lang.code, family, serif)
    state.target = target_lang.code
    state.renderer = pdf.MonoRenderer(doc, target_lang.code, ocr, state.face)
    return count, extracted


def _read(
    state: _State,
    doc: Any,
    pages: Sequence[int] | None,
    include_references: bool,
    limits: PdfLimits,
    ocr: OcrOptions,
    early: bool,
    kept: Path | None,
) -> Segmentation:
    """The document's reading: kept from a job before (``translation.reading_cache``, in
    the folder ``kept``), or read now (and kept, unless a page took OCR)."""
    cache = ReadingCache(kept) if kept is not None else None
    key = cache.key(state.data, pages, include_references, limits, ocr) if cache else ""
    found = cache.get(key) if cache is not None else None
    if found is not None:
        return found
    scanned = False

    def tell(turn: OcrTurn, done: bool) -> None:
        nonlocal scanned
        scanned = True
        _tell(state, turn, done)

    extracted = extract_document(
        doc,
        pages,
        include_references,
        limits,
        ocr,
        tell,
        (lambda part: _send(state, PART, part)) if early else None,
    )
    if cache is not None and not scanned:
        cache.put(key, extracted)
    return extracted


def _typeface(state: _State) -> str:
    return describe(state.face, state.target)


def _fallbacks(state: _State) -> list[FallBack]:
    assert state.renderer is not None, "open first"
    return list(state.renderer.fallbacks)


def _tell(state: _State, turn: OcrTurn, done: bool) -> None:
    _send(state, OCR_PAGE, (turn, done))


def _send(state: _State, status: str, value: object) -> None:
    if state.conn is not None:
        state.conn.send((status, value))


def _warm_up(state: _State) -> None:
    assert state.renderer is not None, "open first"
    state.renderer.warm_up()


def _prepare_page(state: _State, number: int, paragraphs: list[Paragraph]) -> None:
    assert state.renderer is not None, "open first"
    state.renderer.prepare_page(number, paragraphs)


def _render_page(
    state: _State,
    number: int,
    paragraphs: list[Paragraph],
    translations: dict[str, str],
    thumbnail_width: int,
) -> bytes | None:
    assert state.renderer is not None, "open first"
    state.renderer.render_page(number, paragraphs, translations)
    if not thumbnail_width:
        return None
    return preview.page_png(state.doc[number], thumbnail_width, colour_managed=False)


def _preview(state: _State, number: int, width: int, original: bool) -> bytes:
    assert state.doc is not None, "open first"
    if not 0 <= number < state.doc.page_count:
        raise InputError(f"page {number + 1} does not exist")
    doc = state.doc
    if original:
        if state.original is None:
            state.original = preview.open_original(state.data, state.password)
        doc = state.original
    return preview.page_png(doc[number], width)


def _partial_pdf(state: _State) -> bytes:
    assert state.doc is not None and state.renderer is not None, "open first"
    renderer = state.renderer

    def clean(copy: Any) -> None:
        strip_active_content(copy)
        renderer.subset_faces(copy)

    return preview.partial_pdf(state.doc, clean)


def _finish(
    state: _State, dual: bool, dual_mode: str, translation_first: bool
) -> tuple[bytes, bytes | None]:
    assert state.renderer is not None, "open first"
    mono = state.renderer.finish()
    both = None
    if dual:
        both = render_dual(state.data, mono, dual_mode, translation_first, state.password)
    return mono, both


def _call(state: _State, function: Callable[..., Any], *args: Any) -> Any:
    return function(*args)


_STEPS: dict[str, Callable[..., Any]] = {
    "inspect": _inspect,
    "open": _open,
    "warm_up": _warm_up,
    "prepare_page": _prepare_page,
    "render_page": _render_page,
    "preview": _preview,
    "partial_pdf": _partial_pdf,
    "finish": _finish,
    "typeface": _typeface,
    "fallbacks": _fallbacks,
    "call": _call,
}
