"""The app's lifespan: it builds the server's long-lived parts, runs them, and closes them.

It builds them once, and the routes reach them through ``app.state.services``: one shared
``httpx.AsyncClient``, the vLLM manager, ONE limiter and ONE ``Translator`` (so every job shares
the global LLM concurrency limit; with several GPU hosts, ``zotero_server.gpu_hosts``: their
pool and ONE dispatcher whose fair queue sits above every host's own limiter), the queue where
async jobs wait for a busy GPU (``vllm_manager.gpu_wait``), the event bus, the job registry,
the job service and the file stores, plus background tasks (output TTL sweeper, vLLM/GPU
status watcher, shutdown watcher, PDF engine warm-up).

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
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from fastapi import FastAPI
from sse_starlette.sse import AppStatus

from common.forkserver import warm_up
from common.progress import Stage
from common.redact import redact_access_log
from common.settings import Settings
from translation.model.glossary import Glossary
from translation.model.llm import import_sdk_in_background
from vllm_manager.gpu_wait import GPUWaitQueue, WaitingBeacon
from zotero_server import console
from zotero_server.data_lock import DataDirLock
from zotero_server.engine import shared_http, start_engine
from zotero_server.events import EventBus, EventType
from zotero_server.files import OutputStore, UploadStore, sweep_forever, sweep_interval
from zotero_server.job_service import JobService
from zotero_server.job_store import FILE_NAME as JOB_STORE_FILE
from zotero_server.job_store import JobStore
from zotero_server.jobs import JobRegistry
from zotero_server.previews import PreviewBoard
from zotero_server.services import Services

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[None]]


#: How often the status is read while a job waits for the GPU or for vLLM to load: the page's
#: vLLM and GPU cards must not lag the job's own line by a whole ``status_poll_s``.
BRING_UP_POLL_S = 1.0
_BRING_UP = frozenset({Stage.WAITING_GPU, Stage.STARTING_LLM})


async def _watch_status(services: Services, interval_s: float) -> None:
    """Publish vLLM/GPU state changes while someone watches the page: every ``interval_s``,
    every :data:`BRING_UP_POLL_S` while a job waits on the GPU or on vLLM, and at once after a
    job changes stage."""
    last: dict[str, Any] | None = None
    moved = services.bus.job_moved
    while True:
        moved.clear()
        if services.bus.subscriber_count > 0:
            status = (await services.refresh_status()).to_dict()
            if status != last:
                services.bus.publish(EventType.SERVER, status)
                last = status
        bringing_up = any(
            job.stage in _BRING_UP for job in services.registry.all_jobs() if not job.finished
        )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(
                moved.wait(), min(interval_s, BRING_UP_POLL_S) if bringing_up else interval_s
            )


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


def make_lifespan(
    settings: Settings,
    glossary: Glossary | None,
    *,
    sse_ping_s: float,
    status_poll_s: float,
    shutdown_grace_s: float,
    data_lock: DataDirLock | None,
) -> Lifespan:
    """The lifespan ``create_app`` gives FastAPI; its arguments are ``create_app``'s."""

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
        async with shared_http(settings) as http:
            engine = await start_engine(settings, http)
            translator, gate, manager, hosts = (
                engine.translator,
                engine.gate,
                engine.manager,
                engine.hosts,
            )
            gpu_wait = GPUWaitQueue(
                gate, settings, beacon=WaitingBeacon.from_settings(settings, http)
            )
            jobs = JobService(
                settings=settings,
                registry=registry,
                outputs=outputs,
                uploads=uploads,
                translator=translator,
                manager=gate,
                gpu_wait=gpu_wait,
                glossary=glossary,
                previews=previews,
            )
            services = Services(
                settings=settings,
                bus=bus,
                registry=registry,
                outputs=outputs,
                uploads=uploads,
                translator=translator,
                manager=manager,
                hosts=hosts,
                sse_ping_s=sse_ping_s,
                jobs=jobs,
                gpu_wait=gpu_wait,
                glossary=glossary,
                previews=previews,
            )
            app.state.services = services
            names = [host.name for host in hosts.pool.hosts] if hosts is not None else None
            console.print_banner(settings, manager.choice.describe(), names)
            registry.resume(jobs.resumed_work)

            # For the first paper, not the start, to wait for: the SDK and each host's client.
            import_sdk_in_background(*translator.llm_clients())
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
                if services.gpu_wait is not None:
                    await services.gpu_wait.aclose()
                await engine.aclose()
                await asyncio.to_thread(store.close)  # its last writes may wait for a lock

    return lifespan
