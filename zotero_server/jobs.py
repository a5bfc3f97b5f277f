"""The job registry: every translation the server runs, from POST to done or failed.

A job moves through ``Stage``: queued (waiting for one of ``ZT_MAX_JOBS`` slots) -> waiting_gpu ->
starting_llm -> translating n/N -> rendering -> done | failed. A job waiting for a busy GPU lends
its slot to the next job meanwhile (``slot_set_aside``). The producers (the pipeline and
the vLLM manager) report through the job's ``ProgressSink``; the registry keeps the job's state,
turns it into the plugin's task objects (``/api/tasks``, ``/api/history``) and publishes typed
events on the bus. It owns the terminal stages: a job ends exactly once, with its files or its
error. Finished jobs stay in ``/api/tasks`` for ``LINGER_S`` and in the history (newest 200).

All methods run on the event loop's thread; a progress report from another thread is handed
over to the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from common.errors import ZTError
from common.progress import Progress, ProgressSink, Stage
from zotero_server.events import EventBus, EventType
from zotero_server.http_errors import (
    BusyError,
    ShuttingDownError,
    error_type_of,
    public_message,
)

log = logging.getLogger(__name__)

#: Finished tasks leave ``/api/tasks`` after this many seconds (the reference server's rule).
LINGER_S = 30.0
#: ``/api/history`` keeps this many finished tasks.
HISTORY = 200
#: A progress event is published at most this often unless the whole percent changes.
PROGRESS_EVENT_S = 0.25

# Status words the plugin matches (reference §1.4).
ACTIVE_TRANSLATE, ACTIVE_PROCESS, DONE_WORD, FAILED_WORD = "开始翻译", "开始处理", "完成", "失败"

STAGE_WORDS = {
    Stage.QUEUED: "queued",
    Stage.WAITING_GPU: "waiting for GPU",
    Stage.STARTING_LLM: "starting the LLM",
    Stage.TRANSLATING: "translating",
    Stage.RENDERING: "rendering",
    Stage.DONE: "done",
    Stage.FAILED: "failed",
}


def percent_for(stage: Stage, done: int, total: int) -> float:
    """The plugin's 0-100 progress: translating fills 5..90, the rest are fixed marks."""
    if stage is Stage.TRANSLATING:
        return 5.0 + 85.0 * (done / total if total > 0 else 0.0)
    return {
        Stage.QUEUED: 0.0,
        Stage.WAITING_GPU: 1.0,
        Stage.STARTING_LLM: 3.0,
        Stage.RENDERING: 92.0,
        Stage.DONE: 100.0,
    }.get(stage, 0.0)


def _iso(ts: float | None) -> str | None:
    return datetime.fromtimestamp(ts).astimezone().isoformat(timespec="seconds") if ts else None


@dataclass(eq=False)
class Job:
    """One job's state. ``config`` is the summary shown to the plugin and the page."""

    file_name: str
    operation: str
    config: dict[str, Any]
    model: str = ""
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    created_at: float = field(default_factory=time.time)
    stage: Stage = Stage.QUEUED
    message: str = "queued"
    done: int = 0
    total: int = 0
    percent: float = 0.0
    started_at: float | None = None
    finished_at: float | None = None
    files: list[str] = field(default_factory=list)
    #: Said with the final message ("references kept as they are: pages 9-11").
    note: str = ""
    output_dir: str = ""
    error: BaseException | None = None
    finished_event: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @property
    def finished(self) -> bool:
        return self.stage in (Stage.DONE, Stage.FAILED)

    @property
    def stage_text(self) -> str:
        if self.stage is Stage.QUEUED and self.started_at is not None:
            return "starting"
        return STAGE_WORDS[self.stage]

    def success_payload(self) -> dict[str, Any]:
        """The sync ``POST`` answer, also the task's ``result``."""
        return {
            "status": "success",
            "fileList": list(self.files),
            "outputDir": self.output_dir,
            "filePaths": [f"{self.output_dir}/{name}" for name in self.files],
        }

    def to_task(self, *, history: bool = False) -> dict[str, Any]:
        """The task object the plugin polls; ``history`` items say success/failed."""
        if self.stage is Stage.DONE:
            status = "success" if history else DONE_WORD
        elif self.stage is Stage.FAILED:
            status = "failed" if history else FAILED_WORD
        else:
            status = ACTIVE_PROCESS if self.operation == "crop" else ACTIVE_TRANSLATE
        task: dict[str, Any] = {
            "taskId": self.id,
            "active": not self.finished,
            "finished": self.finished,
            "fileName": self.file_name,
            "operation": self.operation,
            "engine": "zotero-translate",
            "service": "vllm",
            "modelName": self.model,
            "startTime": _iso(self.created_at),
            "endTime": _iso(self.finished_at),
            "progress": round(self.percent),
            "status": status,
            "stage": self.stage.value,
            "stageText": self.stage_text,
            "message": self.message,
            "done": self.done,
            "total": self.total,
            "config": self.config,
        }
        if self.stage is Stage.DONE:
            payload = self.success_payload()
            task.update(
                fileList=payload["fileList"],
                filePaths=payload["filePaths"],
                outputDir=payload["outputDir"],
                result=payload,
            )
        elif self.error is not None:
            message, kind = public_message(self.error), error_type_of(self.error)
            task["error"] = message
            task["errorType"] = kind
            task["result"] = {"status": "error", "ok": False, "message": message, "errorType": kind}
        return task


#: What a job does once it has a slot: report progress, return the output file names.
Work = Callable[[Job, ProgressSink], Awaitable[list[str]]]
#: What a job that ends without its work ever starting leaves to clean up (its upload).
Discard = Callable[[], Awaitable[None]]
#: ``Retry-After`` of a full queue: about how long a job slot takes to free.
QUEUE_RETRY_S = 60.0


class JobRegistry:
    """Runs jobs under the ``max_jobs`` limit and keeps their state; see the module docstring."""

    def __init__(
        self, bus: EventBus, *, max_jobs: int, output_dir: str, max_queued: int | None = None
    ) -> None:
        self._bus = bus
        self._max_queued = max_queued
        self._slots = asyncio.Semaphore(max_jobs)
        self._output_dir = output_dir
        self._jobs: dict[str, Job] = {}
        self._history: deque[Job] = deque()
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._last_event: dict[str, tuple[float, int]] = {}
        self._held: set[str] = set()  # jobs with a change not published yet
        self._closing = False
        self._aside = 0  # running jobs that gave their slot up while they wait (for the GPU)
        self._debts: set[asyncio.Task[bool]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None

    @property
    def closing(self) -> bool:
        return self._closing

    def check_room(self) -> None:
        """Raise ``ShuttingDownError`` once shutdown began, ``BusyError`` when ``max_queued``
        jobs already wait for a slot."""
        if self._closing:
            raise ShuttingDownError()
        waiting = self.counts()["queued"] + self._aside
        if self._max_queued is not None and waiting >= self._max_queued:
            raise BusyError(
                f"{self._max_queued} jobs are already waiting (ZT_MAX_QUEUED); try again later",
                retry_after_s=QUEUE_RETRY_S,
            )

    def submit(self, job: Job, work: Work, discard: Discard | None = None) -> Job:
        """Register ``job`` and start it; raises as :meth:`check_room` does. ``discard`` runs
        if the job ends before its work started (failed in the queue, or shutdown)."""
        self.check_room()
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        job.output_dir = self._output_dir
        self._jobs[job.id] = job
        self._publish(job, EventType.STAGE)
        self._tasks[job.id] = asyncio.create_task(
            self._run(job, work, discard), name=f"job-{job.id}"
        )
        return job

    def get(self, job_id: str) -> Job | None:
        return self._jobs.get(job_id)

    def tasks(self, now: float | None = None) -> list[Job]:
        """Unfinished jobs and those finished less than ``LINGER_S`` ago, oldest first."""
        now = time.time() if now is None else now
        return [
            job
            for job in self._jobs.values()
            if job.finished_at is None or now - job.finished_at < LINGER_S
        ]

    def history(self) -> list[Job]:
        """Finished jobs, newest first."""
        return list(reversed(self._history))

    def all_jobs(self) -> list[Job]:
        """Every job still known, oldest first (the progress page's list)."""
        return list(self._jobs.values())

    def counts(self) -> dict[str, int]:
        jobs = list(self._jobs.values())
        return {
            "queued": sum(1 for j in jobs if j.started_at is None and not j.finished),
            "running": sum(1 for j in jobs if j.started_at is not None and not j.finished),
            "finished": sum(1 for j in jobs if j.finished),
        }

    async def wait(self, job: Job) -> Job:
        """Wait until ``job`` ends; re-raise its error if it failed."""
        await job.finished_event.wait()
        if job.error is not None:
            raise job.error
        return job

    async def aclose(self, grace_s: float) -> None:
        """Stop taking jobs; fail queued ones now, give running ones ``grace_s``, then cancel.

        Every job ends with a state (failed: "the server is shutting down"); never touches vLLM.
        """
        self._closing = True
        for job_id, task in list(self._tasks.items()):
            if self._jobs[job_id].started_at is None:
                task.cancel()
        pending = [t for t in self._tasks.values() if not t.done()]
        if pending and grace_s > 0:
            await asyncio.wait(pending, timeout=grace_s)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    @contextlib.asynccontextmanager
    async def slot_set_aside(self) -> AsyncIterator[None]:
        """Inside a job's work: hand its slot to the next job while it waits for something
        that is not work (a busy GPU, for hours), then take a slot back. Queued crops and
        cached papers go ahead meanwhile. A job that sets its slot aside still counts against
        ``max_queued``."""
        self._slots.release()
        self._aside += 1
        try:
            yield
        except BaseException:
            # Cancelled or failed while aside: end now, without waiting for a slot to free.
            self._aside -= 1
            self._owe_slot()
            raise
        self._aside -= 1
        try:
            await self._slots.acquire()
        except asyncio.CancelledError:
            self._owe_slot()
            raise

    def _owe_slot(self) -> None:
        """The job's ``async with`` gives a slot back on its way out although it holds none
        now: take one as soon as one frees, so the count of free slots stays right."""
        debt = asyncio.create_task(self._slots.acquire())
        self._debts.add(debt)
        debt.add_done_callback(self._debts.discard)

    # --- running -------------------------------------------------------------------------

    async def _run(self, job: Job, work: Work, discard: Discard | None) -> None:
        try:
            async with self._slots:
                if self._closing:
                    raise ShuttingDownError()
                job.started_at = time.time()
                job.message = "reading the PDF"
                self._publish(job, EventType.PROGRESS)
                files = await work(job, self._sink(job))
        except asyncio.CancelledError:
            self._finish(job, error=ShuttingDownError())
        except ZTError as exc:
            self._finish(job, error=exc)
        except Exception as exc:
            log.exception("job %s (%s) failed", job.id, job.file_name)
            self._finish(job, error=exc)
        else:
            self._finish(job, files=files)
        finally:
            self._tasks.pop(job.id, None)
            if job.started_at is None and discard is not None:
                try:
                    await discard()
                except Exception:
                    log.exception("job %s: cleaning up after it failed", job.id)

    def _sink(self, job: Job) -> ProgressSink:
        def sink(progress: Progress) -> None:
            loop = self._loop
            if loop is not None and threading.get_ident() != self._loop_thread:
                loop.call_soon_threadsafe(self._report, job, progress)
            else:
                self._report(job, progress)

        return sink

    def _report(self, job: Job, progress: Progress) -> None:
        if job.finished or progress.stage in (Stage.DONE, Stage.FAILED):
            return  # the registry alone ends jobs
        changed = progress.stage is not job.stage
        job.stage = progress.stage
        job.message = progress.message or STAGE_WORDS[progress.stage]
        if progress.total > 0:
            job.done, job.total = progress.done, progress.total
        # The bar never runs backwards, even when a lost LLM is brought back mid-paper.
        job.percent = max(job.percent, percent_for(progress.stage, job.done, job.total))
        if changed:
            self._publish(job, EventType.STAGE)
            return
        last_time, last_percent = self._last_event.get(job.id, (0.0, -1))
        now = time.monotonic()
        if int(job.percent) != last_percent or now - last_time >= PROGRESS_EVENT_S:
            self._publish(job, EventType.PROGRESS)
        elif job.id not in self._held:
            # Held back for now; the latest state still reaches the page a moment later.
            self._held.add(job.id)
            asyncio.get_running_loop().call_later(PROGRESS_EVENT_S, self._flush, job)

    def _flush(self, job: Job) -> None:
        if job.id in self._held and not job.finished:
            self._publish(job, EventType.PROGRESS)
        self._held.discard(job.id)

    def _finish(
        self, job: Job, *, files: list[str] | None = None, error: BaseException | None = None
    ) -> None:
        job.finished_at = time.time()
        if error is None:
            job.files = files or []
            job.stage, job.percent = Stage.DONE, 100.0
            job.message = f"done: {len(job.files)} file{'s' if len(job.files) != 1 else ''}"
            if job.note:
                job.message += f"; {job.note}"
            self._publish(job, EventType.DONE)
        else:
            job.error = error
            job.stage = Stage.FAILED
            job.message = public_message(error)
            self._publish(job, EventType.FAILED)
        self._last_event.pop(job.id, None)
        self._history.append(job)
        while len(self._history) > HISTORY:
            old = self._history.popleft()
            self._jobs.pop(old.id, None)
        job.finished_event.set()

    def _publish(self, job: Job, kind: EventType) -> None:
        self._held.discard(job.id)
        self._last_event[job.id] = (time.monotonic(), int(job.percent))
        self._bus.publish(kind, job.to_task(), job_id=job.id)
