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

Children are forked from a forkserver (``common.forkserver``) that has already imported the
engine and loaded the word list every job reads (``translation.worker_preload``), a few ms each;
where there is none (Windows) they are spawned.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from common.errors import PDFProcessingError, ZTError
from common.forkserver import context
from common.language import Language
from translation.read.ocr import OCR_DPI, OcrBudget, OcrOptions, OcrTurn
from translation.read.pages.pdf_limits import PdfLimits
from translation.read.paragraph import Paragraph
from translation.read.segmentation import Segmentation
from translation.render.faces import FontFamily
from translation.render.fallback import FallBack
from translation.worker_protocol import OCR_PAGE, PART

if TYPE_CHECKING:
    from common.settings import Settings

T = TypeVar("T")


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
    #: The resolution scanned pages are read at: every document this worker opens is read so.
    ocr_dpi: int = OCR_DPI
    #: Where the CJK faces are (``translation.render.faces``); None: the built-in fonts only.
    font_dir: Path | None = None
    #: Where readings are kept across jobs (``translation.reading_cache``); None: none are.
    reading_cache: Path | None = None

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
            ocr_dpi=settings.ocr_dpi,
            font_dir=settings.font_dir,
            reading_cache=settings.reading_cache_dir,
        )


def _child(conn: Connection, memory_mb: int) -> None:
    """The child's entry. The engine it runs (``translation.worker_child``: the reading's
    stages, the typesetter) is imported here, in the child, where the forkserver has it
    already; the parent, which only sends steps and reads replies, never imports it."""
    from translation.worker_child import serve

    serve(conn, memory_mb)


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
        Scanned pages are read by OCR as ``ocr`` says, at the config's resolution (its
        ``ocr_dpi``, whatever ``ocr`` names) and within the config's OCR bounds;
        ``on_ocr(turn)`` is told as each starts, and ``on_part`` paragraphs of the pages read
        so far (``translation.read.early``), both in a thread of their own (not the event
        loop's). The translation is set in the face ``font_family`` picks (:meth:`typeface`
        names it). A paper read before is not read again where the config keeps readings
        (``translation.reading_cache``): then no part is told.
        """
        ocr = dataclasses.replace(ocr or OcrOptions(), dpi=self.config.ocr_dpi)
        args = (data, password, pages, include_references, target_lang, self.config.limits, ocr)
        face = (self.config.font_dir, font_family)
        early = on_part is not None
        kept = self.config.reading_cache
        result: tuple[int, Segmentation] = await self._call(
            "open", *args, face, early, kept, on_ocr=on_ocr, on_part=on_part
        )
        return result

    async def typeface(self) -> str:
        """The face the open document's translation is set in, as a user is told."""
        name: str = await self._call("typeface")
        return name

    async def fallbacks(self) -> list[FallBack]:
        """The blocks of the open document kept as printed so far, because their translation
        broke its page (``translation.render.page_check``)."""
        found: list[FallBack] = await self._call("fallbacks")
        return found

    async def warm_up(self) -> None:
        """Have the open document's typesetter pay its first-page costs now (its faces read,
        their first glyphs): for a pipeline that waits for answers anyway."""
        await self._call("warm_up")

    async def prepare_page(self, number: int, paragraphs: Sequence[Paragraph]) -> None:
        """Make what page ``number``'s typesetting needs that no translation changes (its
        formula copies), ahead of its translations."""
        await self._call("prepare_page", number, list(paragraphs))

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
        ctx = context()
        ours, theirs = ctx.Pipe()
        process = ctx.Process(  # type: ignore[attr-defined]
            target=_child, args=(theirs, self.config.memory_mb), daemon=True, name="zt-pdf"
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
                if status == PART:
                    if on_part is not None:
                        on_part(value)
                    continue
                if status != OCR_PAGE:
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
