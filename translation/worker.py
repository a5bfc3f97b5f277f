"""PDF work in a child process, so one hostile PDF cannot stall or bloat the server.

PyMuPDF is not thread-safe, not even for different documents, and holds the GIL while it works
(a page of 200,000 spans kept the event loop from answering ``/health`` for seconds). So the
server never touches PyMuPDF itself: each job gets a :class:`PdfWorker`, a child process that
holds the job's document from extraction to the last page typeset (the typesetting still
overlaps the translation, page by page), and the POST-time checks and derived outputs run in
short-lived ones. A worker has an address-space limit (``RLIMIT_AS``, ``ZT_PDF_WORKER_MEMORY_MB``)
and every step a time limit (``ZT_PDF_TIMEOUT_S``); a worker over either is killed and its job
fails with a ``PDFProcessingError``, while the server keeps serving. Reading scanned pages by OCR
has bounds of its own (``translation.read.ocr.budget``): pages, seconds in all, seconds a page;
a worker reads several scanned pages at once in processes of its own, which die with it
(``translation.read.ocr.pool``), and hands on the paragraphs of the pages read so far
(``translation.read.early``).

Children are forked from a forkserver that has already imported the engine (a few ms each);
where there is none (Windows) they are spawned.
"""

from __future__ import annotations

import asyncio
import dataclasses
import multiprocessing
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from common.errors import InputError, PDFProcessingError, ZTError
from common.language import Language
from translation import pdf
from translation.outputs import render_dual
from translation.read.document import open_document
from translation.read.extraction import extract_document
from translation.read.ocr import OcrBudget, OcrOptions, OcrTurn
from translation.read.ocr.pool import ocr_processes
from translation.read.paragraph import Paragraph
from translation.read.pdf_limits import PdfLimits
from translation.read.segment import Segmentation
from translation.render import preview
from translation.render.faces import Face, FontFamily, choose_face, describe, paper_is_serif
from translation.render.sanitize import strip_active_content

if TYPE_CHECKING:
    from common.settings import Settings

T = TypeVar("T")

_context_lock = threading.Lock()
_context: BaseContext | None = None


@dataclass(frozen=True)
class WorkerConfig:
    """What bounds one worker: the PDF limits, its memory (MiB, 0 = none), one step's time,
    and a document's OCR (a step that reads scanned pages may run past ``timeout_s`` by the
    time its OCR takes, but no page's OCR longer than ``ocr_page_timeout_s``, the document's
    not longer than ``ocr_max_seconds`` in all, and no more than ``ocr_max_pages`` pages)."""

    limits: PdfLimits = field(default_factory=PdfLimits)
    memory_mb: int = 3072
    timeout_s: float = 300.0
    ocr_page_timeout_s: float = 120.0
    ocr_max_pages: int = 100
    ocr_max_seconds: float = 900.0
    #: Where the CJK faces are (``translation.render.faces``); None: the built-in fonts only.
    font_dir: Path | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> WorkerConfig:
        return cls(
            limits=PdfLimits(
                max_pages=settings.pdf_max_pages,
                max_page_spans=settings.pdf_max_page_spans,
                max_page_chars=settings.pdf_max_page_chars,
                max_text_chars=settings.pdf_max_text_chars,
            ),
            memory_mb=settings.pdf_worker_memory_mb,
            timeout_s=settings.pdf_timeout_s,
            ocr_page_timeout_s=settings.ocr_page_timeout_s,
            ocr_max_pages=settings.ocr_max_pages,
            ocr_max_seconds=settings.ocr_max_seconds,
            font_dir=settings.font_dir,
        )


def _mp_context() -> BaseContext:
    global _context
    with _context_lock:
        if _context is None:
            if "forkserver" in multiprocessing.get_all_start_methods():
                ctx = multiprocessing.get_context("forkserver")
                ctx.set_forkserver_preload([__name__])
                _context = ctx
            else:
                _context = multiprocessing.get_context("spawn")
        return _context


def warm_up() -> None:
    """Start the forkserver now (it imports the engine once, about a second), so the first
    upload does not wait for it. Blocking: run it in a thread."""
    if _mp_context().get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


class PdfWorker:
    """One child process doing one job's PDF work, one step at a time.

    ``open`` reads the document and keeps it (and its ``MonoRenderer``) in the child;
    ``render_page`` and ``finish`` work on it; ``call`` runs a stateless engine function
    (``outputs.crop_columns``...). Use ``async with`` or call ``aclose``: the child is killed.
    """

    def __init__(self, config: WorkerConfig | None = None) -> None:
        self.config = config or WorkerConfig()
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None
        self._lock = asyncio.Lock()
        self._closed = False

    async def __aenter__(self) -> PdfWorker:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Kill the child (its document goes with it); later steps fail, none starts another."""
        self._closed = True
        await asyncio.to_thread(self._kill)

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    # --- the steps ---------------------------------------------------------------------------

    async def inspect(
        self, data: bytes, password: str | None, ocr: OcrOptions | None = None
    ) -> int:
        """Validate a PDF as the pipeline will open it; its page count."""
        args = (data, password, self.config.limits, ocr or OcrOptions())
        count: int = await self._call("inspect", *args)
        return count

    async def open(
        self,
        data: bytes,
        password: str | None,
        pages: Sequence[int] | None,
        include_references: bool,
        target_lang: Language,
        ocr: OcrOptions | None = None,
        on_ocr: Callable[[OcrTurn], object] | None = None,
        font_family: FontFamily = FontFamily.AUTO,
        on_part: Callable[[list[Paragraph]], object] | None = None,
    ) -> tuple[int, Segmentation]:
        """Open and extract the document, keep it for typesetting: (page count, paragraphs).
        Scanned pages are read by OCR as ``ocr`` says, within the config's OCR bounds;
        ``on_ocr(turn)`` is told as each starts, and ``on_part`` paragraphs of the pages read
        so far (``translation.read.early``), both in a thread of their own (not the event
        loop's). The translation is set in the face ``font_family`` picks (:meth:`typeface`
        names it).
        """
        ocr = ocr or OcrOptions()
        args = (data, password, pages, include_references, target_lang, self.config.limits, ocr)
        face = (self.config.font_dir, font_family)
        early = on_part is not None
        result: tuple[int, Segmentation] = await self._call(
            "open", *args, face, early, on_ocr=on_ocr, on_part=on_part
        )
        return result

    async def typeface(self) -> str:
        """The face the open document's translation is set in, as a user is told."""
        name: str = await self._call("typeface")
        return name

    async def render_page(
        self,
        number: int,
        paragraphs: Sequence[Paragraph],
        translations: Mapping[str, str],
        thumbnail_width: int = 0,
    ) -> bytes | None:
        """Typeset page ``number``; with a ``thumbnail_width``, its thumbnail (PNG) after."""
        args = (number, list(paragraphs), dict(translations), thumbnail_width)
        thumbnail: bytes | None = await self._call("render_page", *args)
        return thumbnail

    async def preview(self, number: int, width: int, original: bool) -> bytes:
        """Page ``number`` of the open document as typeset so far (or ``original``), PNG."""
        image: bytes = await self._call("preview", number, width, original)
        return image

    async def partial_pdf(self) -> bytes:
        """The open document as it stands: pages typeset so far, the rest original."""
        data: bytes = await self._call("partial_pdf")
        return data

    async def finish(
        self, dual: bool, dual_mode: str, translation_first: bool
    ) -> tuple[bytes, bytes | None]:
        """The mono PDF and, if ``dual``, the dual one."""
        result: tuple[bytes, bytes | None] = await self._call(
            "finish", dual, dual_mode, translation_first
        )
        return result

    async def call(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in the child; ``function`` must be importable (module level)."""
        result: T = await self._call("call", function, *args)
        return result

    # --- plumbing ----------------------------------------------------------------------------

    async def _call(
        self,
        name: str,
        *args: Any,
        on_ocr: Callable[[OcrTurn], object] | None = None,
        on_part: Callable[[list[Paragraph]], object] | None = None,
    ) -> Any:
        async with self._lock:
            if self._closed:  # a page preview asked after the job's worker went
                raise PDFProcessingError("this PDF worker is closed")
            return await asyncio.to_thread(self._roundtrip, name, args, on_ocr, on_part)

    def _start(self) -> Connection:
        ctx = _mp_context()
        ours, theirs = ctx.Pipe()
        process = ctx.Process(  # type: ignore[attr-defined]
            target=_serve, args=(theirs, self.config.memory_mb), daemon=True, name="zt-pdf"
        )
        process.start()
        theirs.close()
        self._process, self._conn = process, ours
        return ours

    def _roundtrip(
        self,
        name: str,
        args: tuple[Any, ...],
        on_ocr: Callable[[OcrTurn], object] | None,
        on_part: Callable[[list[Paragraph]], object] | None = None,
    ) -> Any:
        conn = self._conn or self._start()
        deadline = time.monotonic() + self.config.timeout_s
        paused, saved = 0.0, deadline
        config = self.config
        budget = OcrBudget(config.ocr_max_pages, config.ocr_max_seconds, config.ocr_page_timeout_s)
        try:
            conn.send((name, args))
            while True:
                if not conn.poll(max(0.0, deadline - time.monotonic())):
                    self._kill()
                    raise budget.overrun() if budget.reading is not None else self._too_slow()
                status, value = conn.recv()
                if status == _PART:
                    if on_part is not None:
                        on_part(value)
                    continue
                if status != _OCR_PAGE:
                    break
                # The OCR of a page has its own time limits and does not count against the
                # step's: the step's deadline moves on by the time the page took.
                now = time.monotonic()
                turn, done = value
                if not done:
                    try:
                        page_deadline = budget.start(turn, now)
                    except ZTError:
                        self._kill()  # before the first page: nothing read is lost
                        raise
                    paused, saved, deadline = now, deadline, page_deadline
                    if on_ocr is not None:
                        on_ocr(turn)
                else:
                    budget.finish(now)
                    deadline = saved + (now - paused)
        except (EOFError, OSError):
            raise self._died() from None
        if status == "error":
            raise value
        return value

    def _too_slow(self) -> PDFProcessingError:
        return PDFProcessingError(
            f"processing this PDF took longer than {self.config.timeout_s:.0f} s"
            " (ZT_PDF_TIMEOUT_S); it was stopped"
        )

    def _died(self) -> PDFProcessingError:
        process = self._process
        if process is not None:
            process.join(5)
        code = process.exitcode if process is not None else None
        self._kill()
        limit = self.config.memory_mb
        return PDFProcessingError(
            f"the PDF worker died on this PDF (exit code {code}); it may need more memory"
            f" than the {limit} MiB it may use (ZT_PDF_WORKER_MEMORY_MB)"
        )

    def _kill(self) -> None:
        process, conn = self._process, self._conn
        self._process = self._conn = None
        # The process first: a step waiting on the pipe in another thread then sees its end.
        if process is not None:
            if process.is_alive():
                process.kill()
            process.join(5)
        if conn is not None:
            conn.close()


# --- the child --------------------------------------------------------------------------------


#: What the child sends before (False) and after (True) it reads a page by OCR: the parent
#: times the page against the OCR bounds instead of the step's limit.
_OCR_PAGE = "ocr-page"


#: What the child sends with paragraphs read early (``translation.read.early``).
_PART = "part"


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


def _serve(conn: Connection, memory_mb: int) -> None:
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
    extracted = extract_document(
        doc,
        pages,
        include_references,
        limits,
        ocr,
        lambda turn, done: _tell(state, turn, done),
        (lambda part: _send(state, _PART, part)) if early else None,
    )
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


def _typeface(state: _State) -> str:
    return describe(state.face, state.target)


def _tell(state: _State, turn: OcrTurn, done: bool) -> None:
    _send(state, _OCR_PAGE, (turn, done))


def _send(state: _State, status: str, value: object) -> None:
    if state.conn is not None:
        state.conn.send((status, value))


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
    "render_page": _render_page,
    "preview": _preview,
    "partial_pdf": _partial_pdf,
    "finish": _finish,
    "typeface": _typeface,
    "call": _call,
}
