"""The HTTP endpoints: the plugin's protocol (the POSTs, ``/translatedFile``, task polling), the
task API, SSE and the page.

Access: with ``ZT_API_TOKEN`` set, everything that reads or writes papers (POSTs, downloads,
``/api/*``, the event streams) needs the token: ``Authorization: Bearer <token>``, or
``?token=<token>`` where a browser cannot set headers (``EventSource``, download links), or a
server URL ``http://host:8890/t/<token>`` in the plugin, which cannot send headers at all (see
``plugin_paths.PluginPaths``). ``/health`` and the page's static files stay open: they reveal
nothing about anyone's papers, and the plugin's connection check needs ``/health``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import AsyncIterator
from functools import partial
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from sse_starlette import EventSourceResponse, ServerSentEvent

from common.errors import TooLargeError
from common.hosts import DEFAULT_HOST
from common.paths import static_dir
from common.settings import mib
from translation.read.ocr import OcrMode, OcrOptions
from zotero_server import __version__, preview_routes
from zotero_server.api_token import require_token
from zotero_server.connection_limits import timed_chunks
from zotero_server.events import TERMINAL, EventType
from zotero_server.files import DownloadResponse
from zotero_server.http_errors import NotFoundError, TaskNotFinishedError
from zotero_server.job import Job
from zotero_server.job_service import job_spec
from zotero_server.metrics import CONTENT_TYPE
from zotero_server.protocol import Operation, pages_to_translate, parse_bool, parse_request
from zotero_server.reader_routes import reader_answer
from zotero_server.request_body import parse_body
from zotero_server.services import Services

STATIC_DIR = static_dir()
#: Room for the ~35 string settings next to the base64 PDF (4/3 of its size).
BODY_OVERHEAD = 256 * 1024
#: EventSource reconnects after this many milliseconds.
SSE_RETRY_MS = 2000
#: ``DELETE /api/tasks/{id}`` waits this long for the job to unwind before answering 202.
CANCEL_WAIT_S = 5.0


def _services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


router = APIRouter()
guarded = APIRouter(dependencies=[Depends(require_token)])


# --- the page and health ------------------------------------------------------------------


@router.get("/")
async def index() -> FileResponse:
    """The progress page: every job with a live bar, its stage, vLLM and GPU state, its pages
    as they are typeset, downloads, and an upload form (Zotero is optional)."""
    return FileResponse(STATIC_DIR / "index.html", headers={"cache-control": "no-cache"})


@router.get("/health")
async def health(request: Request) -> dict[str, Any]:
    """Liveness and state, open without a token and never slow: ``status`` ``"ok"`` and
    ``version`` (what the plugin's connection check wants), job counts, the vLLM and GPU state
    (holders without their command lines) and, with several GPU hosts, each host's.

    The plugin's connection check wants ``status == "ok"`` or a ``version``."""
    services = _services(request)
    status = await services.refresh_status()
    return {
        "status": "ok",
        "version": __version__,
        "message": "zotero-translate is running",
        "outputDir": str(services.outputs.directory.resolve()),
        "jobs": services.registry.counts(),
        "maxJobs": services.settings.max_jobs,
        "vllm": {
            "manager": status.manager,
            "managerReason": status.manager_reason,
            "state": status.state.value,
            "lastError": status.last_error,
            "sleep": status.sleep.to_dict() if status.sleep is not None else None,
            **status.vllm_json(),
        },
        **({"hosts": status.hosts} if status.hosts is not None else {}),
        "gpu": _without_commands(status.gpu),
    }


def _without_commands(gpu: dict[str, Any] | None) -> dict[str, Any] | None:
    """The GPU state for the open ``/health``: no command lines (they may hold secrets, and
    say what else runs here); the page's event stream, behind the token, has them masked."""
    if not gpu:
        return gpu
    public = {key: value for key, value in gpu.items() if key != "message"}
    public["holders"] = [
        {key: value for key, value in holder.items() if key != "command"}
        for holder in gpu.get("holders", [])
    ]
    return public


# --- POST /translate, /crop, /compare, /crop-compare -----------------------------------------


async def _read_json(request: Request, max_pdf_bytes: int) -> Any:
    """The JSON body, refusing (413) more than a PDF of ``max_pdf_bytes`` can need, and
    anything but the plugin's flat object (400), and a body that stalls (408,
    ``connection_limits.timed_chunks``). Parsed in a thread: the event loop keeps serving while
    a 100 MB body is decoded."""
    limit = max_pdf_bytes * 4 // 3 + BODY_OVERHEAD
    declared = request.headers.get("content-length", "")
    too_large = (
        f"the upload is larger than this server's {mib(max_pdf_bytes)} limit (ZT_MAX_UPLOAD_MB)"
    )
    if declared.isdigit() and int(declared) > limit:
        raise TooLargeError(too_large)
    settings = _services(request).settings
    body, size = bytearray(), 0  # one buffer: a list of chunks joined would hold it twice
    chunks = timed_chunks(
        request.stream(), settings.request_read_timeout_s, settings.request_body_timeout_s
    )
    async for chunk in chunks:
        size += len(chunk)
        if size > limit:
            raise TooLargeError(too_large)
        body += chunk
    return await asyncio.to_thread(parse_body, body)


async def _submit(
    request: Request, operation: Operation, extra: dict[str, str] | None = None
) -> JSONResponse:
    """Validate, register a job, then answer at once (async) or when it ends (sync)."""
    services = _services(request)
    settings = services.settings
    # A full queue or too many uploads at once: 503 before the body is read.
    services.registry.check_room()
    with services.upload_slot():
        body = await _read_json(request, settings.upload_limit_bytes)
        if extra:
            body.update(extra)
        plugin_request = await asyncio.to_thread(
            parse_request,
            operation,
            body,
            request.headers,
            default_source=settings.source_lang,
            default_target=settings.target_lang,
            max_bytes=settings.upload_limit_bytes,
        )
        del body  # the base64 text: a third more than the PDF itself
        pages = None
        # Bad PDFs get their 400 now, before a job exists, from a worker process (under the
        # PDF limits; the server itself never runs PyMuPDF).
        ocr = OcrOptions(OcrMode(plugin_request.ocr_mode(settings.ocr)), plugin_request.source_lang)
        page_count = await services.translator.inspect(
            plugin_request.pdf, plugin_request.password, ocr
        )
        if plugin_request.needs_translation:
            pages = pages_to_translate(page_count, plugin_request.skip_last_pages)

        job = Job(
            file_name=plugin_request.file_name,
            operation=operation.value,
            config=plugin_request.config_summary(),
            model=settings.llm_model,
            spec=job_spec(plugin_request, pages),
            # Resumed after a restart only when a client polls for it (zotero_server.jobs).
            resumable=plugin_request.wants_async and plugin_request.password is None,
        )
        await asyncio.to_thread(services.uploads.save, job.id, plugin_request.pdf)
    # The job reads the upload back from disk; the bytes need not stay in memory meanwhile
    # (a sync request keeps this frame for the whole translation).
    plugin_request = light = dataclasses.replace(plugin_request, pdf=b"")
    work, discard = services.jobs.work_for(job, light, pages)

    try:
        services.registry.submit(job, work, discard)
    except BaseException:
        await asyncio.to_thread(services.uploads.discard, job.id)
        raise
    if plugin_request.wants_async:
        return JSONResponse({"status": "accepted", "taskId": job.id})
    await services.registry.wait(job)
    return JSONResponse(job.success_payload())


#: Each POST's description in the schema (docs/api.md's reference).
_POST_DOCS = {
    "/translate": "Translate a paper: the plugin's JSON body (``fileName``, ``fileContent`` as a"
    " data URL or base64, flat string settings); the answer lists the output files"
    ' (``{"status":"success","fileList":[...]}``), or at once a ``taskId`` to poll'
    " (async: a truthy ``asyncJob``, or the header ``X-PDF2zh-Protocol: accepted``).",
    "/crop": "Cut two-column pages into one-column pages (pure PDF geometry, no model).",
    "/compare": "Original and translation side by side in one file (pure PDF geometry).",
    "/crop-compare": "Cut into one-column pages, then original and translation side by side.",
    "/cut": "The v2.x plugins' name of ``/crop`` (same outputs).",
    "/singlecompare": "The v2.x plugins' side-by-side compare, fetched as"
    " ``<stem>-single-compare.pdf``.",
}


def _post(path: str, operation: Operation, extra: dict[str, str] | None = None) -> None:
    async def endpoint(request: Request) -> JSONResponse:
        return await _submit(request, operation, extra)

    endpoint.__name__ = f"post_{path.strip('/').replace('-', '_')}"
    endpoint.__doc__ = _POST_DOCS.get(path)
    guarded.add_api_route(path, endpoint, methods=["POST"], response_class=JSONResponse)


async def post_translate(request: Request) -> Response:
    """The zotero-pdf2zh plugin's paper, or a reader plugin's selection (LibreTranslate,
    DeepLX): the same path, told apart by the body's keys (``zotero_server.reader_routes``)."""
    answer = await reader_answer(request)
    return answer if answer is not None else await _submit(request, Operation.TRANSLATE)


guarded.add_api_route("/translate", post_translate, methods=["POST"])
_post("/crop", Operation.CROP)
_post("/compare", Operation.COMPARE)
_post("/crop-compare", Operation.CROP_COMPARE)
# v2.x plugins' names: /cut is /crop (same output names); /singlecompare is the side-by-side
# compare, which they fetch as <stem>-single-compare.pdf.
_post("/cut", Operation.CROP)
_post("/singlecompare", Operation.COMPARE, {"single_compare": "true"})


# --- downloads ------------------------------------------------------------------------------


@guarded.api_route("/translatedFile/{name:path}", methods=["GET", "HEAD"])
async def translated_file(request: Request, name: str) -> Response:
    """The file itself, to exactly one GET, which deletes it once complete; HEAD, ``Range`` and
    ``?preview=true`` (inline) never claim or delete. Unknown names are 404, a file another GET
    is sending is 409, anything that is not a bare name is 400."""
    services = _services(request)
    store = services.outputs
    name, path = store.resolve(name)
    inline = parse_bool(request.query_params.get("preview"), False)
    consuming = request.method == "GET" and not inline and "range" not in request.headers

    def finished(completed: bool) -> None:
        store.download_ended(name)
        if not consuming:
            return
        if completed:
            store.delete_when_idle(name)
        else:
            store.release(name)  # aborted: the plugin retries

    # No await from resolve() to here: the claim is atomic, and the file cannot be deleted
    # before the response opens it.
    if consuming:
        store.claim(name)
    store.download_started(name)
    return DownloadResponse(
        path,
        name,
        inline=inline,
        on_finish=finished,
        on_last_byte=partial(store.last_byte, name) if consuming else None,
    )


# --- the task API and its event streams -----------------------------------------------------


@guarded.post("/api/vllm/sleep")
async def vllm_sleep(request: Request, host: str | None = None) -> dict[str, Any]:
    """Put our vLLM to sleep now: another tenant's launcher asks for the GPU (cooperative
    hand-back). Translations in progress finish first; the answer then says the sleep happens
    when they do. With several GPU hosts ``?host=NAME`` hands back that host's card only (404
    naming the configured hosts when there is none of that name); without it, every host's.
    """
    services = _services(request)
    if services.hosts is None:
        if host is not None and host != DEFAULT_HOST:
            raise NotFoundError(f"no GPU host is named {host!r}; the one host is {DEFAULT_HOST!r}")
        message = await services.manager.sleep_vllm()
    else:
        pool = services.hosts.pool
        chosen = [h for h in pool.hosts if host is None or h.name == host]
        if not chosen:
            names = ", ".join(h.name for h in pool.hosts)
            raise NotFoundError(f"no GPU host is named {host!r}; the configured hosts are: {names}")
        lines = [f"{h.name}: {await h.manager.sleep_vllm()}" for h in chosen]
        message = "; ".join(lines)
    status = await services.refresh_status()
    return {"message": message, "state": status.state.value}


@guarded.get("/metrics")
async def metrics(request: Request) -> Response:
    """Prometheus text: jobs, translation and LLM counters, concurrency, vLLM state
    (``zotero_server.metrics``)."""
    services = _services(request)
    status = await services.refresh_status()
    body = services.metrics.render(
        status,
        jobs=services.registry.all_jobs(),
        settings=services.settings,
        stats=services.translator.stats,
        limiter=services.translator.limiter,
        manager=services.manager,
    )
    return Response(body, media_type=CONTENT_TYPE)


@guarded.get("/api/tasks")
async def tasks(request: Request) -> dict[str, Any]:
    """The task objects the plugin polls: queued and running tasks, and finished ones for 30 s
    after they end."""
    jobs = _services(request).registry.tasks()
    return {"status": "success", "tasks": [job.to_task() for job in jobs]}


@guarded.get("/api/history")
async def history(request: Request) -> dict[str, Any]:
    """The last 200 finished tasks (kept across restarts)."""
    jobs = _services(request).registry.history()
    return {"status": "success", "history": [job.to_task(history=True) for job in jobs]}


@guarded.get("/api/tasks/{task_id}")
async def task(request: Request, task_id: str) -> dict[str, Any]:
    """One task object: a queued one says its ``position`` in line, a translating one its
    ``etaSeconds`` at its own pace; 404 for an unknown id."""
    job = _services(request).registry.get(task_id)
    if job is None:
        raise NotFoundError(f"no such task: {task_id[:40]}")
    return {"status": "success", "task": job.to_task()}


@guarded.post("/api/tasks/{task_id}/dismiss")
async def dismiss_task(request: Request, task_id: str) -> dict[str, Any]:
    """Take a finished task off the list (the page's Dismiss): 200; 404 unknown, 409 still
    queued or running (cancel it first)."""
    registry = _services(request).registry
    job = registry.get(task_id)
    if job is None:
        raise NotFoundError(f"no such task: {task_id[:40]}")
    if not job.finished:
        raise TaskNotFinishedError("the task is still running: cancel it first")
    registry.dismiss(job)
    return {"status": "success"}


@guarded.delete("/api/tasks/{task_id}")
async def cancel_task(request: Request, task_id: str) -> JSONResponse:
    """Cancel a queued or running task: 200 with the task once it ended ("cancelled"), 202
    if it is still unwinding after ``CANCEL_WAIT_S``; 404 unknown, 409 already ended."""
    job = _services(request).registry.cancel(task_id)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(job.finished_event.wait(), CANCEL_WAIT_S)
    return JSONResponse(
        {"status": "success", "task": job.to_task()}, status_code=200 if job.finished else 202
    )


@guarded.get("/events")
async def events(request: Request) -> EventSourceResponse:
    """Server-Sent Events of every job (stage, progress, message, GPU and vLLM state, with
    heartbeats); starts with a ``snapshot`` unless ``Last-Event-ID`` can resume."""
    return _event_stream(request, None)


@guarded.get("/api/tasks/{task_id}/events")
async def task_events(request: Request, task_id: str) -> EventSourceResponse:
    """Server-Sent Events of one job; the stream ends after its ``done`` or ``failed`` event."""
    if _services(request).registry.get(task_id) is None:
        raise NotFoundError(f"no such task: {task_id[:40]}")
    return _event_stream(request, task_id)


def _event_stream(request: Request, job_id: str | None) -> EventSourceResponse:
    services = _services(request)
    bus = services.bus
    last = bus.parse_event_id(
        request.headers.get("last-event-id") or request.query_params.get("lastEventId")
    )
    resume = last is not None and bus.can_replay(last)
    # Subscribe and take the snapshot in one step (no await between): nothing is missed and
    # nothing older than the snapshot follows it.
    subscription = bus.subscribe(job_id, after=last if resume else None)
    snapshot_id = bus.event_id(bus.last_seq)
    snapshot = None if resume else services.snapshot(job_id)
    job = services.registry.get(job_id) if job_id else None
    ended = job is not None and job.finished

    async def stream() -> AsyncIterator[ServerSentEvent]:
        try:
            if snapshot is not None or ended:
                data = snapshot if snapshot is not None else services.snapshot(job_id)
                yield ServerSentEvent(
                    data=json.dumps(data, ensure_ascii=False),
                    event=EventType.SNAPSHOT.value,
                    id=snapshot_id,
                    retry=SSE_RETRY_MS,
                )
                if ended:
                    return
            async for event in subscription:
                yield ServerSentEvent(
                    data=json.dumps(event.data, ensure_ascii=False),
                    event=event.type.value,
                    id=bus.event_id(event.seq),
                )
                if job_id is not None and event.type in TERMINAL:
                    return
        finally:
            subscription.close()

    return EventSourceResponse(stream(), ping=services.sse_ping_s)


guarded.include_router(preview_routes.router)
router.include_router(guarded)
