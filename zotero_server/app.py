"""create_app(settings): the ASGI application, its lifespan and the services a job uses.

The lifespan builds the long-lived things once and reaches them through ``app.state.services``:
one shared ``httpx.AsyncClient``, the vLLM manager, ONE limiter and ONE ``Translator`` (so every
job shares the global LLM concurrency limit), the queue where async jobs wait for a busy GPU
(``vllm_manager.gpu_wait``), the event bus, the job registry and the file stores, plus three
background tasks (output TTL sweeper, vLLM/GPU status watcher, shutdown watcher).

Jobs live in the job store (``ZT_DATA_DIR/jobs.sqlite3``): at start, finished jobs of the last
run answer their polls again and unfinished ones run again under their ids (their uploads are
kept; uploads of no unfinished job are removed).

Shutdown, in order: 1. stop taking jobs and sending LLM requests (the translator drains), give
running jobs a grace period to finish or to land their requests in flight in the cache, then
cancel them; async jobs stay unfinished for the next start, sync ones fail (see
``zotero_server.jobs``); 2. end the SSE streams; 3. stop the background tasks; 4. close the
translator, the limiter, the manager (which never stops vLLM), the job store and the HTTP client.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import httpx
from fastapi import FastAPI
from sse_starlette.sse import AppStatus
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from common.paths import static_dir
from common.progress import Progress, ProgressSink, Stage
from common.redact import mask_secrets, redact_access_log
from common.settings import Settings
from translation import outputs as pdf_tools
from translation.model import glossary as glossaries
from translation.model.glossary import Glossary
from translation.model.limiter import make_limiter
from translation.pipeline import Translator
from translation.read.ocr import OcrMode
from translation.request import DualMode, TranslationRequest, TranslationResult
from translation.worker import PdfWorker, warm_up
from vllm_manager.gpu_wait import GPUWaitQueue, WaitingBeacon
from vllm_manager.manager import VLLMManager
from zotero_server import __version__, http_errors
from zotero_server.data_lock import DataDirLock
from zotero_server.events import EventBus, EventType
from zotero_server.files import OutputStore, UploadStore, sweep_forever, sweep_interval
from zotero_server.http_errors import BusyError, NotFoundError
from zotero_server.job_store import FILE_NAME as JOB_STORE_FILE
from zotero_server.job_store import JobStore
from zotero_server.jobs import Discard, Job, JobRegistry, Work
from zotero_server.manager_factory import create_manager
from zotero_server.metrics import ServerMetrics
from zotero_server.previews import PreviewBoard
from zotero_server.protocol import OutputKind, PluginRequest
from zotero_server.web_guard import HostPolicy, WebGuard

log = logging.getLogger(__name__)

STATIC_DIR = static_dir()
#: /health and the page never wait longer than this for the vLLM/GPU status.
STATUS_TIMEOUT_S = 2.0
#: ``Retry-After`` when ``ZT_MAX_UPLOADS`` uploads are being read: one upload takes seconds.
UPLOAD_RETRY_S = 5.0


@dataclass
class Services:
    """What the routes and the jobs reach through ``app.state.services``."""

    settings: Settings
    bus: EventBus
    registry: JobRegistry
    outputs: OutputStore
    uploads: UploadStore
    translator: Translator
    manager: VLLMManager
    sse_ping_s: float
    #: Where async jobs wait for a busy GPU (issue 16); sync requests use the manager's wait.
    gpu_wait: GPUWaitQueue | None = None
    status: dict[str, Any] = field(default_factory=lambda: {"state": "unknown"})
    uploading: int = 0
    metrics: ServerMetrics = field(default_factory=ServerMetrics)
    #: ``ZT_GLOSSARY``; a request's own glossary extends it (its entries win).
    glossary: Glossary | None = None
    #: Each job's pages as they are typeset (``zotero_server.previews``).
    previews: PreviewBoard | None = None

    @contextmanager
    def upload_slot(self) -> Iterator[None]:
        """One of ``ZT_MAX_UPLOADS`` places for reading and checking an upload; ``BusyError``
        (503) at once when none is free. Event-loop only, so a counter is enough."""
        if self.uploading >= self.settings.max_uploads:
            raise BusyError(
                f"{self.uploading} uploads are being read already (ZT_MAX_UPLOADS);"
                " try again in a few seconds",
                retry_after_s=UPLOAD_RETRY_S,
            )
        self.uploading += 1
        try:
            yield
        finally:
            self.uploading -= 1

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
                        self.glossary,
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
            job.note = result.references_note
        sink(Progress(Stage.RENDERING, "writing the output files"))
        async with self.translator.pdf_worker() as worker:
            produced = await _derive_outputs(request, original, result, worker)
        claim = self.registry.claimer(job)  # past this, a cancel is "already finished"
        names = await asyncio.to_thread(self.outputs.save, request.stem, produced, claim)
        if self.previews is not None:
            self.previews.outputs(job.id, names)  # previews go with the files
        return names

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

    async def refresh_status(self) -> dict[str, Any]:
        """vLLM and GPU state from the manager, bounded by ``STATUS_TIMEOUT_S``; never raises."""
        try:
            snap = (await asyncio.wait_for(self.manager.snapshot(), STATUS_TIMEOUT_S)).to_dict()
        except TimeoutError:
            status: dict[str, Any] = {
                "manager": self.manager.kind,
                "state": "unknown",
                "vllm": {"healthy": False, "detail": "status check timed out"},
            }
        except Exception as exc:  # a status page must not fail because a probe did
            log.warning("status snapshot failed: %s", exc)
            status = {"manager": self.manager.kind, "state": "unknown", "error": str(exc)}
        else:
            status = {
                key: snap[key]
                for key in ("manager", "state", "last_error", "vllm", "sleep")
                if key in snap
            }
            if snap.get("gpu"):
                status["gpu"] = snap["gpu"]
            if self.gpu_wait is not None:
                status["waiting_gpu"] = self.gpu_wait.waiting
            if status.get("last_error"):  # a failed launch may quote its command line
                status["last_error"] = mask_secrets(str(status["last_error"]))
            if isinstance(status.get("vllm"), dict) and status["vllm"].get("url"):
                status["vllm"] = {**status["vllm"], "url": mask_secrets(status["vllm"]["url"])}
        self.status = status
        return status

    def snapshot(self, job_id: str | None = None) -> dict[str, Any]:
        """The SSE ``snapshot`` event: everything a page needs to draw itself from nothing."""
        if job_id is not None:
            job = self.registry.get(job_id)
            return {"job": job.to_task() if job else None}
        return {
            "version": __version__,
            "jobs": [job.to_task() for job in self.registry.all_jobs()],
            "files": self.outputs.names(),
            "server": self.status,
            "maxJobs": self.settings.max_jobs,
            "defaults": {
                "sourceLang": self.settings.source_lang.code,
                "targetLang": self.settings.target_lang.code,
                "glossaryTerms": len(self.glossary) if self.glossary else 0,
            },
        }


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
    """The pipeline's request for a plugin request (``ocr``: the server's ``ZT_OCR``).

    ``fresh_since``: the job's submission; a ``force`` job still reuses the answers it got
    itself before a restart."""
    dual_needed = bool({OutputKind.DUAL, OutputKind.DUAL_CUT} & set(request.outputs))
    return TranslationRequest(
        pdf=original,
        source_lang=request.source_lang,
        target_lang=request.target_lang,
        password=request.password,
        pages=pages,
        include_references=request.include_references,
        mono=True,  # every derived output (cut, compare) starts from the mono file
        dual=dual_needed,
        dual_mode=DualMode(request.dual_mode),
        translation_first=request.translation_first,
        force=request.force,
        fresh_since=fresh_since,
        glossary=glossaries.combine(glossary, request.glossary),
        owner=owner,
        ocr=OcrMode(request.ocr_mode(ocr)),
    )


async def _derive_outputs(
    request: PluginRequest, original: bytes, result: TranslationResult | None, worker: PdfWorker
) -> list[tuple[OutputKind, bytes]]:
    """The requested files, in the plugin's order (the PDF work runs in ``worker``)."""
    translated = result.mono if result is not None else None
    # Only the upload can carry a password; what we rendered never does.
    password = request.password
    produced: list[tuple[OutputKind, bytes]] = []
    for kind in request.outputs:
        data: bytes | None
        if kind is OutputKind.MONO:
            data = translated
        elif kind is OutputKind.DUAL:
            data = result.dual if result is not None else None
        elif kind is OutputKind.MONO_CUT and translated is not None:
            data = await worker.call(pdf_tools.crop_columns, translated)
        elif kind is OutputKind.DUAL_CUT and result is not None:
            dual = result.dual
            data = None if dual is None else await worker.call(pdf_tools.crop_columns, dual)
        elif kind in (OutputKind.CUT, OutputKind.MONO_CUT, OutputKind.DUAL_CUT):
            # /crop of the uploaded file
            data = await worker.call(pdf_tools.crop_columns, original, password)
        elif translated is None:
            data = None  # compare and crop-compare always come with a translation
        elif kind in (OutputKind.COMPARE, OutputKind.SINGLE_COMPARE):
            data = await worker.call(
                pdf_tools.compare, original, translated, request.translation_first, password
            )
        else:  # CROP_COMPARE
            data = await worker.call(
                pdf_tools.crop_compare, original, translated, request.translation_first, password
            )
        if data is not None:
            produced.append((kind, data))
    return produced


class _PluginPaths:
    """Path fix-ups for what the plugin sends, before routing.

    1. ``//translate`` is ``/translate``: the plugin joins ``serverUrl + "/" + endpoint`` as is,
       and users type server URLs with a trailing slash.
    2. ``/t/<token>/translate`` is ``/translate`` with ``Authorization: Bearer <token>``: the
       plugin cannot send headers, but a server URL ``http://host:8890/t/<token>`` puts the
       ``ZT_API_TOKEN`` into every request it makes. A redirect the app answers (``/api/tasks/``
       -> ``/api/tasks``) keeps the ``/t/<token>`` prefix in its ``Location``.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path: str = scope["path"]
            if "//" in path:
                path = re.sub(r"/{2,}", "/", path)
            headers = scope["headers"]
            match = re.match(r"/t/([^/]+)(/.*)?$", path)
            if match:
                path = match.group(2) or "/"
                bearer = b"Bearer " + match.group(1).encode("latin-1", "replace")
                headers = [(k, v) for k, v in headers if k != b"authorization"]
                headers.append((b"authorization", bearer))
                send = _keep_prefix_in_redirects(send, "/t/" + quote(match.group(1), safe=""))
            if path != scope["path"]:
                raw = quote(path).encode()
                scope = dict(scope, path=path, raw_path=raw, headers=headers)
        await self.app(scope, receive, send)


def _keep_prefix_in_redirects(send: Send, prefix: str) -> Send:
    """``send`` with ``prefix`` put back in front of the path of any redirect's ``Location``."""

    def prefixed(location: bytes) -> bytes:
        parts = urlsplit(location.decode("latin-1"))
        if not parts.path.startswith("/") or parts.path.startswith(prefix + "/"):
            return location
        return urlunsplit(parts._replace(path=prefix + parts.path)).encode("latin-1")

    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start" and 300 <= message["status"] < 400:
            headers = [
                (k, prefixed(v) if k.lower() == b"location" else v) for k, v in message["headers"]
            ]
            message = {**message, "headers": headers}
        await send(message)

    return wrapped


async def _watch_status(services: Services, interval_s: float) -> None:
    """Publish vLLM/GPU state changes while someone watches the page."""
    last: dict[str, Any] | None = None
    while True:
        if services.bus.subscriber_count > 0:
            status = await services.refresh_status()
            if status != last:
                services.bus.publish(EventType.SERVER, status)
                last = status
        await asyncio.sleep(interval_s)


async def _stop_jobs(services: Services, grace_s: float) -> None:
    """Step 1 of the shutdown (module docstring); safe to run twice."""
    await services.registry.aclose(grace_s, drain=services.translator.drain)


async def _watch_exit(services: Services, grace_s: float) -> None:
    """Begin the job shutdown as soon as uvicorn is told to exit.

    uvicorn waits for open requests before it runs the lifespan shutdown, and a sync
    ``/translate`` can take an hour; failing the jobs first lets those requests answer
    (503, "shutting down") instead. sse-starlette sets ``AppStatus.should_exit`` from
    uvicorn's signal handler.
    """
    while not AppStatus.should_exit:
        await asyncio.sleep(0.25)
    await _stop_jobs(services, grace_s)


def create_app(
    settings: Settings,
    *,
    sse_ping_s: float = 15.0,
    status_poll_s: float = 5.0,
    shutdown_grace_s: float = 10.0,
    data_lock: DataDirLock | None = None,
) -> FastAPI:
    """The Zotero-facing application. Keyword knobs exist for tests; ``serve`` uses defaults.

    ``data_lock``: the data folder, already taken by the caller (``serve`` takes it before
    uvicorn starts); without one, the lifespan takes it and the start fails with
    ``DataDirInUseError`` when another server holds it.
    Raises ``ConfigError`` when ``ZT_GLOSSARY`` cannot be used (before anything starts).
    """
    glossary = glossaries.from_settings(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # The data folder is this server's alone before any job is read from it.
        own_lock = None
        if data_lock is None:
            address = f"http://{settings.host}:{settings.port}"
            own_lock = await asyncio.to_thread(DataDirLock.acquire, settings.data_dir, address)
        try:
            async with serving(app):
                yield
        finally:
            if own_lock is not None:
                own_lock.release()

    @asynccontextmanager
    async def serving(app: FastAPI) -> AsyncIterator[None]:
        # Here, not before uvicorn.run: uvicorn configures its loggers when it starts.
        token = settings.api_token
        redact_access_log(secrets=[token.get_secret_value()] if token is not None else [])
        bus = EventBus()
        previews = PreviewBoard(bus)

        def file_removed(name: str) -> None:
            previews.file_removed(name)
            bus.publish(EventType.FILE_REMOVED, {"name": name})

        outputs = OutputStore(settings.outputs_dir, settings.output_ttl_s, file_removed)
        uploads = UploadStore(settings.data_dir / "uploads")
        await asyncio.to_thread(outputs.prepare)
        store = await asyncio.to_thread(JobStore, settings.data_dir / JOB_STORE_FILE)
        registry = JobRegistry(
            bus,
            max_jobs=settings.max_jobs,
            output_dir=str(outputs.directory.resolve()),
            max_queued=settings.max_queued,
            store=store,
        )
        to_resume = await asyncio.to_thread(registry.load)
        for name in registry.orphan_outputs():  # written by a job that never finished
            outputs.delete_when_idle(name)
        await asyncio.to_thread(uploads.prepare, to_resume)
        async with httpx.AsyncClient(timeout=httpx.Timeout(settings.llm_timeout_s)) as http:
            manager = create_manager(settings, http_client=http)
            await manager.start()
            # ONE limiter for the process (ZT_CONCURRENCY_MODE): every job shares it.
            limiter = make_limiter(settings, http_client=http)
            translator = Translator.from_settings(
                settings, manager.ensure_ready, http_client=http, limiter=limiter
            )
            services = Services(
                settings=settings,
                bus=bus,
                registry=registry,
                outputs=outputs,
                uploads=uploads,
                translator=translator,
                manager=manager,
                sse_ping_s=sse_ping_s,
                gpu_wait=GPUWaitQueue(
                    manager, settings, beacon=WaitingBeacon.from_settings(settings, http)
                ),
                glossary=glossary,
                previews=previews,
            )
            app.state.services = services
            registry.resume(services.resumed_work)

            background = [
                asyncio.create_task(
                    sweep_forever(outputs, sweep_interval(settings.output_ttl_s)),
                    name="output-sweeper",
                ),
                asyncio.create_task(_watch_status(services, status_poll_s), name="status"),
                asyncio.create_task(_watch_exit(services, shutdown_grace_s), name="exit"),
                asyncio.create_task(asyncio.to_thread(warm_up), name="pdf-warm-up"),
            ]
            try:
                yield
            finally:
                await _stop_jobs(services, shutdown_grace_s)
                # No job runs any more: an upload of no unfinished job would never be read.
                await asyncio.to_thread(uploads.prepare, registry.unfinished_ids())
                bus.close()
                for task in background:
                    task.cancel()
                for task in background:
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await task
                await translator.aclose()
                await limiter.aclose()
                if services.gpu_wait is not None:
                    await services.gpu_wait.aclose()
                await manager.aclose()
                await asyncio.to_thread(store.close)  # its last writes may wait for a lock

    from zotero_server.routes import router  # routes import this module's Services

    app = FastAPI(
        title="zotero-translate",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.settings = settings
    http_errors.install(app)
    app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR, check_dir=False), name="static")
    # Added first, so it runs second: after _PluginPaths has normalised the path.
    app.add_middleware(WebGuard, policy=HostPolicy(settings.host, settings.allowed_host_names))
    app.add_middleware(_PluginPaths)
    return app
