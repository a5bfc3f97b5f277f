"""The job service: what one job does, from its upload to its stored output files.

A job translates its paper when its request needs it (waiting for the GPU through the manager, or
through the patient GPU queue for an async request), derives the requested files from the
translation and the upload, and stores them under names it claims from the registry.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import partial
from typing import Any

from common.errors import ZTError
from common.progress import Progress, ProgressSink, Stage
from common.settings import Settings
from translation import outputs as pdf_tools
from translation.model import glossary as glossaries
from translation.model.glossary import Glossary
from translation.pipeline import Translator
from translation.read.ocr import OcrMode
from translation.render.faces import FontFamily
from translation.render.preview import THUMB_WIDTH, thumbnails_of_file
from translation.request import DualMode, TranslationRequest, TranslationResult
from translation.worker import PdfWorker
from vllm_manager.gate import Gate
from vllm_manager.gpu_wait import GPUWaitQueue
from zotero_server.file_names import OutputKind
from zotero_server.files import OutputStore, UploadStore, fit_stem
from zotero_server.http_errors import NotFoundError
from zotero_server.job import Job
from zotero_server.jobs import Discard, JobRegistry, Work
from zotero_server.previews import PreviewBoard, ThumbnailsAfter
from zotero_server.protocol import PluginRequest


class NoOutputError(ZTError):
    """A job that made no file (HTTP 500: the server's fault, never the paper's)."""

    error_type = "NoOutput"


@dataclass
class JobService:
    """Runs jobs' work with the server's long-lived parts (built once by the lifespan)."""

    settings: Settings
    registry: JobRegistry
    outputs: OutputStore
    uploads: UploadStore
    translator: Translator
    #: The one host's manager, or the pool of several (``vllm_manager.pool``).
    manager: Gate
    #: Where async jobs wait for a busy GPU (issue 16); sync requests use the manager's wait.
    gpu_wait: GPUWaitQueue | None = None
    #: ``ZT_GLOSSARY``; a request's own glossary extends it (its entries win).
    glossary: Glossary | None = None
    #: Each job's pages as they are typeset (``zotero_server.previews``).
    previews: PreviewBoard | None = None

    async def run_job(
        self, job: Job, request: PluginRequest, pages: tuple[int, ...] | None, sink: ProgressSink
    ) -> list[str]:
        """A job's work: translate if needed, derive the requested files, store them.

        ``request.pdf`` is empty here; the upload waits on disk until the job ends (the
        registry's ``discard``), and survives a stop that leaves the job to resume.
        """
        try:
            original = await asyncio.to_thread(self.uploads.load, job.id)
        except FileNotFoundError:
            raise NotFoundError("the uploaded PDF of this job is gone; send it again") from None
        result = None
        # ``disableGlossary``: the server's terms are left out; the request's own still apply.
        glossary = glossaries.combine(
            self.glossary if request.server_glossary else None, request.glossary
        )
        if request.needs_translation:
            patient = None
            if request.wants_async and self.gpu_wait is not None:
                # The plugin polls an accepted task for hours: wait for the GPU that long.
                # While it waits, its job slot serves others (a crop, a cached paper).
                patient = self.gpu_wait.patient(
                    order=job.created_at, aside=partial(self.registry.slot_set_aside, job)
                )
            async with self.manager.work():
                result = await self.translator.translate(
                    _translation_request(
                        request,
                        original,
                        pages,
                        glossary,
                        job.id,
                        self.settings.ocr,
                        fresh_since=job.created_at,
                    ),
                    sink,
                    ensure_ready=patient,
                    on_queued=partial(self.registry.hand_on_slot, job),
                    on_scan=partial(self.registry.hand_on_slot, job),
                    watch=self.previews.watch(job.id) if self.previews is not None else None,
                )
            job.note = result.note
        sink(Progress(Stage.RENDERING, "writing the output files"))
        async with self.translator.pdf_worker() as worker:
            produced = await _derive_outputs(request, original, result, worker, pages)
        if request.save_glossary and request.needs_translation:
            csv = (glossary or Glossary()).to_csv(request.target_lang)
            produced.append((OutputKind.GLOSSARY, csv))
        claim = self.registry.claimer(job)  # past this, a cancel is "already finished"
        names = await asyncio.to_thread(self.outputs.save, request.stem, produced, claim)
        if not names:
            # Plugins after 4.1.7 fail a task reported finished without files: a job that
            # made none fails here, with its reason, instead.
            raise NoOutputError("the job produced no output file")
        wanted = [kind.file_name(fit_stem(request.stem)) for kind, _ in produced]
        if names != wanted:  # an earlier paper's files of that name still wait
            renamed = (
                f"saved as {', '.join(names)}: {wanted[0]} of an earlier translation is"
                " still waiting for download"
            )
            job.note = f"{job.note}; {renamed}" if job.note else renamed
        if self.previews is not None:  # previews go with the files
            thumbnails = self._thumbnails_after(request, pages, produced, names)
            self.previews.outputs(job.id, names, thumbnails)
        return names

    def _thumbnails_after(
        self,
        request: PluginRequest,
        pages: tuple[int, ...] | None,
        produced: list[tuple[OutputKind, bytes]],
        names: list[str],
    ) -> ThumbnailsAfter | None:
        """How an ended job's missing thumbnails are drawn: from its translated (mono) file,
        while it waits for download, in a PDF worker of its own; None without that file."""
        kinds = [kind for kind, _ in produced]
        if OutputKind.MONO not in kinds or len(names) != len(kinds):
            return None
        path = str(self.outputs.directory / names[kinds.index(OutputKind.MONO)])
        # A file cut to the translated pages holds them in order; otherwise every page.
        order = sorted(pages) if request.only_translated_pages and pages is not None else None
        translator = self.translator

        async def draw(numbers: Sequence[int]) -> dict[int, bytes]:
            if order is None:
                index = {n: n for n in numbers}
            else:
                index = {n: order.index(n) for n in numbers if n in order}
            async with translator.pdf_worker() as worker:
                return await worker.call(thumbnails_of_file, path, index, THUMB_WIDTH)

        return draw

    def work_for(
        self, job: Job, request: PluginRequest, pages: tuple[int, ...] | None
    ) -> tuple[Work, Discard]:
        """``job``'s work and the removal of its upload when it ends."""

        async def work(job: Job, sink: ProgressSink) -> list[str]:
            return await self.run_job(job, request, pages, sink)

        async def discard() -> None:
            await asyncio.to_thread(self.uploads.discard, job.id)

        return work, discard

    def resumed_work(self, job: Job) -> tuple[Work, Discard]:
        """The work of a job read back from the store (its ``spec``, see :func:`job_spec`)."""
        request = PluginRequest.from_record(job.spec["request"])
        pages = job.spec.get("pages")
        return self.work_for(job, request, None if pages is None else tuple(pages))


def job_spec(request: PluginRequest, pages: tuple[int, ...] | None) -> dict[str, Any]:
    """What the job store keeps to run a job again (``Job.spec``)."""
    return {"request": request.to_record(), "pages": None if pages is None else list(pages)}


def _translation_request(
    request: PluginRequest,
    original: bytes,
    pages: tuple[int, ...] | None,
    glossary: Glossary | None = None,
    owner: str = "",
    ocr: str = "auto",
    fresh_since: float | None = None,
) -> TranslationRequest:
    """The pipeline's request for a plugin request (``ocr``: the server's ``ZT_OCR``;
    ``glossary``: the job's, the request's own terms included).

    ``fresh_since``: the job's submission; a ``force`` job still reuses the answers it got
    itself before a restart."""
    return TranslationRequest(
        pdf=original,
        source_lang=request.source_lang,
        target_lang=request.target_lang,
        password=request.password,
        pages=pages,
        include_references=request.include_references,
        mono=True,  # every derived output (cut, compare) starts from the mono file
        dual=needs_dual(request.outputs),
        dual_mode=DualMode(request.dual_mode),
        translation_first=request.translation_first,
        force=request.force,
        fresh_since=fresh_since,
        glossary=glossary,
        owner=owner,
        ocr=OcrMode(request.ocr_mode(ocr)),
        font_family=FontFamily(request.font_family),
        translate_tables=request.translate_tables,
    )


class Source(Enum):
    """The file an output is made from."""

    #: The uploaded PDF; it may need the request's password.
    UPLOAD = "upload"
    #: The translation.
    MONO = "mono"
    #: The bilingual file (original and translation pages together).
    DUAL = "dual"


class Step(Enum):
    """What is done to that file (in the job's PDF worker)."""

    #: Nothing: the file itself.
    KEEP = "keep"
    #: Its two-column pages cut into one-column pages.
    CROP = "crop"
    #: The upload's pages next to it.
    COMPARE = "compare"
    #: The upload's columns next to its columns.
    CROP_COMPARE = "crop-compare"


#: How each output is made. A request that translates nothing (``/crop``) has no translation:
#: its cuts are made of the upload, which is then itself a mono or dual file.
RECIPES: dict[OutputKind, tuple[Source, Step]] = {
    OutputKind.MONO: (Source.MONO, Step.KEEP),
    OutputKind.DUAL: (Source.DUAL, Step.KEEP),
    OutputKind.MONO_CUT: (Source.MONO, Step.CROP),
    OutputKind.DUAL_CUT: (Source.DUAL, Step.CROP),
    OutputKind.CUT: (Source.UPLOAD, Step.CROP),
    OutputKind.COMPARE: (Source.MONO, Step.COMPARE),
    OutputKind.SINGLE_COMPARE: (Source.MONO, Step.COMPARE),
    OutputKind.CROP_COMPARE: (Source.MONO, Step.CROP_COMPARE),
}
#: The outputs ``onlyIncludeTranslatedPage`` cuts to the translated pages (the dual and the
#: comparisons keep every page, each beside its original).
TRANSLATED_PAGES_ONLY = frozenset({OutputKind.MONO, OutputKind.MONO_CUT})


def needs_dual(outputs: Iterable[OutputKind]) -> bool:
    """Whether any of ``outputs`` is made from the bilingual file."""
    return any(RECIPES[kind][0] is Source.DUAL for kind in outputs)


async def _derive_outputs(
    request: PluginRequest,
    original: bytes,
    result: TranslationResult | None,
    worker: PdfWorker,
    pages: tuple[int, ...] | None = None,
) -> list[tuple[OutputKind, bytes]]:
    """The requested files, in the plugin's order (the PDF work runs in ``worker``); an output
    whose source was not made is left out. ``pages``: those translated (None: all)."""
    produced: list[tuple[OutputKind, bytes]] = []
    cut = None  # the result with its mono file cut to the translated pages
    if request.only_translated_pages and pages is not None and result and result.mono:
        cut = dataclasses.replace(
            result, mono=await worker.call(pdf_tools.keep_pages, result.mono, pages)
        )
    for kind in request.outputs:
        source = cut if cut is not None and kind in TRANSLATED_PAGES_ONLY else result
        data = await _derive(kind, request, original, source, worker)
        if data is not None:
            produced.append((kind, data))
    return produced


async def _derive(
    kind: OutputKind,
    request: PluginRequest,
    original: bytes,
    result: TranslationResult | None,
    worker: PdfWorker,
) -> bytes | None:
    """One output by its recipe (``RECIPES``); None when its source was not made."""
    source, step = RECIPES[kind]
    if result is None and step is Step.CROP:
        source = Source.UPLOAD
    data: bytes | None
    if source is Source.UPLOAD:
        data, password = original, request.password
    else:
        # Only the upload can carry a password; what we rendered never does.
        data, password = None, None
        if result is not None:
            data = result.mono if source is Source.MONO else result.dual
    if data is None or step is Step.KEEP:
        return data
    if step is Step.CROP:
        return await worker.call(pdf_tools.crop_columns, data, password)
    pair = pdf_tools.compare if step is Step.COMPARE else pdf_tools.crop_compare
    return await worker.call(pair, original, data, request.translation_first, request.password)
