"""The job registry: every translation the server runs, from POST to done or failed.

A job moves through ``Stage``: queued (waiting for one of ``ZT_MAX_JOBS`` slots) -> waiting_gpu ->
starting_llm -> translating n/N -> rendering -> done | failed. A job waiting for a busy GPU lends
its slot to the next job meanwhile (``slot_set_aside``); one whose LLM requests are all queued,
or whose OCR starts, hands it on (``hand_on_slot``; see ``zotero_server.job_slots``). The
producers (the pipeline and the vLLM manager) report through the job's ``ProgressSink``; the
registry keeps the job's state and publishes it as the plugin's task objects
(``zotero_server.job_events``). It owns the terminal stages: a job ends exactly once, with its
files or its error. Finished jobs stay in ``/api/tasks`` for ``LINGER_S`` and in the history
(newest ``HISTORY``).

Durable (with a ``JobStore``): every job is written at submission, start, each stage change and
its end, so a restart finds them all again (:meth:`JobRegistry.load`, :meth:`JobRegistry.resume`).
A stop (:meth:`JobRegistry.aclose`) leaves *resumable* jobs unfinished, queued or running: they
run again, under the same id and in submission order, when the server starts (the translation
cache makes the rerun pay only for paragraphs not answered yet). A job is resumable when a client
will come back for it: an async job (the plugin polls its task for up to 3 h) without a PDF
password (never written to disk). A sync job fails at a stop instead: its client waits on the
open request, which a restart closes, so nobody would ever fetch what a rerun made. Finished jobs
of an earlier run keep answering ``GET /api/tasks/{id}`` and ``/api/history``.

Cancelling a job (:meth:`JobRegistry.cancel`) cancels its asyncio task, which cancels the
pipeline's request tasks: queued LLM requests are dropped at once, requests in flight are
aborted. It ends failed ("cancelled", ``errorType`` ``Cancelled``), the word the plugin knows.
How a started job ends is decided once (``Job.ending``): a cancel wins until the job claims its
output names (:meth:`JobRegistry.claimer`, just before the first output byte is written), and
the job then ends cancelled with no outputs; from the claim on, a cancel answers "already
finished" (409) and the job ends done.

Store failures: a record write that fails (a locked or damaged ``jobs.sqlite3``, a full disk)
fails the job with that error, so its task says why instead of the job vanishing at the next
start. A job's end is written before its upload is removed: an upload goes only once the store
knows its job finished. Output names a job claimed but never finished with (a kill -9 between
writing the files and recording "done") are removed at the next start
(:meth:`JobRegistry.orphan_outputs`) and the job runs again.

All methods run on the event loop's thread; a progress report from another thread is handed
over to the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager

from common.errors import ZTError
from common.progress import Progress, ProgressSink, Stage
from zotero_server import console
from zotero_server.events import EventBus, EventType
from zotero_server.http_errors import (
    BusyError,
    JobCancelledError,
    NotFoundError,
    ShuttingDownError,
    TaskFinishedError,
)
from zotero_server.job import Ending, Job, read_back
from zotero_server.job_events import JobEvents
from zotero_server.job_slots import JobSlots
from zotero_server.job_store import JobStore, Write

log = logging.getLogger(__name__)

#: Finished tasks leave ``/api/tasks`` after this many seconds, as on the plugin's own server
#: (the plugin then looks for its task in ``/api/history``).
LINGER_S = 30.0
#: ``/api/history`` keeps this many finished tasks.
HISTORY = 200

#: What a job does once it has a slot: report progress, return the output file names.
Work = Callable[[Job, ProgressSink], Awaitable[list[str]]]
#: What a job that ends without its work ever starting leaves to clean up (its upload).
Discard = Callable[[], Awaitable[None]]
#: ``Retry-After`` of a full queue: about how long a job slot takes to free.
QUEUE_RETRY_S = 60.0


class JobRegistry:
    """Runs jobs under the ``max_jobs`` limit and keeps their state; see the module docstring."""

    def __init__(
        self,
        bus: EventBus,
        *,
        max_jobs: int,
        output_dir: str,
        max_queued: int | None = None,
        store: JobStore | None = None,
    ) -> None:
        self._events = JobEvents(bus)
        self._max_queued = max_queued
        self._slots = JobSlots(max_jobs)
        self._output_dir = output_dir
        self._store = store
        self._jobs: dict[str, Job] = {}
        self._history: deque[Job] = deque()
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._to_resume: list[Job] = []
        self._orphans: list[str] = []
        self._closing = False
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
        waiting = self.counts()["queued"] + self._slots.aside
        if self._max_queued is not None and waiting >= self._max_queued:
            raise BusyError(
                f"{self._max_queued} jobs are already waiting (ZT_MAX_QUEUED); try again later",
                retry_after_s=QUEUE_RETRY_S,
            )

    def submit(self, job: Job, work: Work, discard: Discard | None = None) -> Job:
        """Register ``job`` and start it; raises as :meth:`check_room` does. ``discard`` runs
        when the job ends (done, failed, cancelled), not when a stop leaves it to resume."""
        self.check_room()
        job.output_dir = self._output_dir
        self._jobs[job.id] = job
        self._persist(job)
        self._start(job, work, discard)
        return job

    def _start(self, job: Job, work: Work, discard: Discard | None) -> None:
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._reposition(publish_others=True)
        self._publish(job, EventType.STAGE)
        self._tasks[job.id] = asyncio.create_task(
            self._run(job, work, discard), name=f"job-{job.id}"
        )

    # --- restart -------------------------------------------------------------------------

    def load(self) -> list[str]:
        """Read the store: finished jobs join the history, unfinished ones wait for
        :meth:`resume`. Returns the ids of the jobs to resume (their uploads must stay)."""
        if self._store is None:
            return []
        jobs, orphans = read_back(self._store)
        self._orphans += orphans
        finished: list[Job] = []
        for job in jobs:
            self._jobs[job.id] = job
            if job.finished:
                finished.append(job)
            else:
                self._to_resume.append(job)
        # The history runs in the order jobs ended, the store in the order they came.
        for job in sorted(finished, key=lambda j: j.finished_at or 0.0):
            self._remember(job)
        return [job.id for job in self._to_resume if job.resumable]

    def orphan_outputs(self) -> list[str]:
        """Output names that jobs :meth:`load` found claimed but never finished with: the
        caller removes those files (their jobs run again, or failed)."""
        orphans, self._orphans = self._orphans, []
        return orphans

    def resume(self, work_for: Callable[[Job], tuple[Work, Discard | None]]) -> list[Job]:
        """Start again, in submission order, the unfinished jobs :meth:`load` found;
        ``work_for`` rebuilds a job's work from its ``spec``. A job that cannot resume (a sync
        job the server lost while it ran, a spec ``work_for`` rejects) ends failed."""
        resumed = []
        waiting, self._to_resume = self._to_resume, []
        for job in waiting:
            job.stage, job.message = Stage.QUEUED, "queued again after a server restart"
            job.started_at = None  # its bar stays where it was: the cache refills it at once
            job.output_dir = job.output_dir or self._output_dir
            error: BaseException = ShuttingDownError(
                "the server restarted while this ran and cannot resume it; send the paper again"
            )
            if job.resumable:
                try:
                    work, discard = work_for(job)
                except Exception as exc:
                    log.warning("job %s cannot be resumed: %s", job.id, exc)
                else:
                    self._persist(job)
                    self._start(job, work, discard)
                    resumed.append(job)
                    continue
            self._finish(job, error=error)
        if resumed:
            log.info("resumed %d unfinished job(s) after a restart", len(resumed))
        return resumed

    # --- queries -------------------------------------------------------------------------

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
        return [job for job in reversed(self._history) if job.id in self._jobs]

    def all_jobs(self) -> list[Job]:
        """Every job still known, oldest first (the progress page's list)."""
        return list(self._jobs.values())

    def unfinished_ids(self) -> set[str]:
        """Jobs not ended yet: after a stop, those a restart resumes (their uploads stay)."""
        return {job.id for job in self._jobs.values() if not job.finished}

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

    # --- cancel and stop -----------------------------------------------------------------

    def cancel(self, job_id: str) -> Job:
        """Ask ``job_id`` to end now, failed with "cancelled"; it ends once its task has
        unwound (await ``job.finished_event``), with no outputs. ``NotFoundError`` for an
        unknown job, ``TaskFinishedError`` for one that ended or whose end is decided (it
        claimed its outputs, or failed): one outcome only."""
        job = self._jobs.get(job_id)
        if job is None:
            raise NotFoundError(f"no such task: {job_id[:40]}")
        if job.finished or job.ending in (Ending.DONE, Ending.FAILED):
            ended = job.stage.value if job.finished else job.ending.value
            raise TaskFinishedError(f"the task already finished ({ended})")
        if job.ending is Ending.CANCELLED:
            return job  # asked before; it is unwinding
        job.ending = Ending.CANCELLED
        task = self._tasks.get(job_id)
        if task is not None:
            task.cancel()
        else:  # not started by resume() yet
            self._finish(job, error=JobCancelledError())
        return job

    async def aclose(self, grace_s: float, drain: Callable[[], None] | None = None) -> None:
        """Stop taking jobs and stop the ones here; never touches vLLM.

        Queued jobs stop now; ``drain`` (the translator's "no new LLM request" switch) is
        called, and running jobs get ``grace_s`` to finish or, mid-translation, to let their
        requests in flight land in the cache; then they are cancelled. Resumable jobs stay
        unfinished (in the store, with their uploads: the next start runs them again); the
        others end failed ("the server is shutting down").
        """
        self._closing = True
        for job_id, task in list(self._tasks.items()):
            if self._jobs[job_id].started_at is None:
                task.cancel()
        if drain is not None:
            drain()
        pending = [t for t in self._tasks.values() if not t.done()]
        if pending and grace_s > 0:
            await asyncio.wait(pending, timeout=grace_s)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    def claimer(self, job: Job) -> Callable[[Sequence[str]], None]:
        """``OutputStore.save``'s ``claim`` for ``job`` (called in the thread that writes the
        outputs, once their names are chosen, before any byte): decide that ``job`` ends done
        and record the names, blocking until the store has them. Raises (and nothing is
        written) when the job's end is already decided otherwise (a cancel won) or the record
        cannot be written. Call it on the event loop."""
        loop = asyncio.get_running_loop()

        def claim(names: Sequence[str]) -> None:
            write = asyncio.run_coroutine_threadsafe(self._claim(job, list(names)), loop).result()
            if write is not None:
                write.wait()

        return claim

    async def _claim(self, job: Job, names: list[str]) -> Write | None:
        if job.ending is Ending.CANCELLED:
            raise JobCancelledError()
        if job.ending is Ending.FAILED:
            raise job.ending_error or ShuttingDownError()
        job.ending, job.claimed = Ending.DONE, [*job.claimed, *names]
        if self._store is None:
            return None
        return self._store.save(job.id, job.to_record())

    def hand_on_slot(self, job: Job) -> bool:
        """Inside ``job``'s work, once its LLM requests are all queued or its OCR starts (a
        scan reads for minutes): give its slot to the next queued job and let ``job`` finish on
        one of ``max_jobs`` further places (its PDF worker stays alive, so the further places
        bound memory and CPU). False, and the job keeps its slot, when every further place is
        taken, it already handed its slot on, or it is not running (a late call)."""
        running = job.id in self._tasks and job.started_at is not None and not job.finished
        return running and self._slots.hand_on(job.id)

    def slot_set_aside(self, job: Job | None = None) -> AbstractAsyncContextManager[None]:
        """Inside a job's work: hand its slot to the next job while it waits for something
        that is not work (a busy GPU, for hours), then take a slot back. Queued crops and
        cached papers go ahead meanwhile. A job that sets its slot aside still counts against
        ``max_queued``. A ``job`` that already handed its slot on has none to set aside."""
        return self._slots.set_aside(None if job is None else job.id)

    # --- running -------------------------------------------------------------------------

    async def _run(self, job: Job, work: Work, discard: Discard | None) -> None:
        files: list[str] = []
        error: BaseException | None = None
        try:
            async with self._slots.place(job.id):
                if self._closing:
                    raise ShuttingDownError()
                job.started_at, job.position = time.time(), None
                job.message = "reading the PDF"
                console.job_started(job)
                self._persist(job)
                self._publish(job, EventType.PROGRESS)
                self._reposition(publish_others=True)
                files = await work(job, self._sink(job))
                if job.ending is Ending.OPEN:
                    job.ending = Ending.DONE  # from here a cancel is "already finished"
        except asyncio.CancelledError:
            error = ShuttingDownError()
        except ZTError as exc:
            error = exc
        except Exception as exc:
            if self._closing:
                error = ShuttingDownError()  # the stop made the work give up (drain)
            else:
                log.exception("job %s (%s) failed", job.id, job.file_name)
                error = exc
        self._tasks.pop(job.id, None)
        # Decided here, before the first await: a cancel from now on meets a decided end.
        if job.ending is Ending.CANCELLED:
            error, files = JobCancelledError(), []  # whatever the unwinding raised
        elif job.ending is Ending.FAILED and job.ending_error is not None:
            error = job.ending_error
        elif error is not None and self._closing and job.resumable:
            # Stopped, not failed: whatever the stop made the work raise, it runs again.
            self._interrupt(job)
            return
        elif error is not None:
            job.ending = Ending.FAILED
        ended_at = time.time()
        # The end is recorded before the upload goes (an upload is removed only for a job
        # the store knows finished), and the upload goes before the job ends: whoever waits
        # for the end finds it gone.
        if await self._record_end(job, files, error, ended_at) and discard is not None:
            try:
                await discard()
            except asyncio.CancelledError:
                pass  # the stop's cancel while cleaning up: the job must still end
            except Exception:
                log.exception("job %s: cleaning up after it ended", job.id)
        self._finish(job, files=files, error=error, at=ended_at, persist=False)

    async def _record_end(
        self, job: Job, files: list[str], error: BaseException | None, at: float
    ) -> bool:
        """Write ``job``'s end as :meth:`_finish` will make it; False (logged) if the store
        does not have it."""
        if self._store is None:
            return True
        ended = copy.copy(job)
        ended.end(files, error, at)
        write = self._store.save(job.id, ended.to_record())
        try:
            await asyncio.to_thread(write.wait)
        except asyncio.CancelledError:
            return False  # the stop's cancel: the job must still end; its upload stays
        except ZTError as exc:
            log.error("job %s: its end was not recorded, its upload stays: %s", job.id, exc)
            return False
        return True

    def _interrupt(self, job: Job) -> None:
        """Leave ``job`` unfinished at a stop: back in the queue, as the next start finds it."""
        job.stage, job.message = Stage.QUEUED, "stopped with the server; resumes when it starts"
        job.started_at, job.rate_origin = None, None
        self._persist(job)
        self._publish(job, EventType.STAGE)

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
        if job.apply(progress):
            self._persist(job)
            self._publish(job, EventType.STAGE)
        else:
            self._events.progress(job)

    def _finish(
        self,
        job: Job,
        *,
        files: list[str] | None = None,
        error: BaseException | None = None,
        at: float | None = None,
        persist: bool = True,
    ) -> None:
        job.end(files, error, time.time() if at is None else at)
        self._publish(job, EventType.DONE if error is None else EventType.FAILED)
        if persist:
            self._persist(job)
        self._events.forget(job)
        self._remember(job)
        self._reposition(publish_others=True)
        job.finished_event.set()

    def dismiss(self, job: Job) -> None:
        """Forget the finished ``job`` (the page's Dismiss); open pages hear ``dismissed``."""
        self._jobs.pop(job.id, None)  # the history skips it; it ages out of there as usual
        if self._store is not None:
            self._store.delete(job.id)
        self._events.dismissed(job)

    def _remember(self, job: Job) -> None:
        """Put a finished job in the history; forget the oldest beyond ``HISTORY``."""
        self._history.append(job)
        while len(self._history) > HISTORY:
            old = self._history.popleft()
            self._jobs.pop(old.id, None)
            if self._store is not None:
                self._store.delete(old.id)

    def _reposition(self, *, publish_others: bool) -> None:
        """Number the jobs not started yet, in submission order; tell the page who moved."""
        place = 0
        for job in self._jobs.values():
            if job.finished or job.started_at is not None:
                position = None
            else:
                place += 1
                position = place
            if position != job.position:
                job.position = position
                if publish_others and job.id in self._tasks and not job.finished:
                    self._publish(job, EventType.PROGRESS)

    def _persist(self, job: Job) -> None:
        """Queue ``job``'s record; a write that fails fails the job (:meth:`_store_failed`)."""
        if self._store is None:
            return
        loop = asyncio.get_running_loop()

        def failed(error: ZTError) -> None:  # on the store's writer thread
            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody to tell
                loop.call_soon_threadsafe(self._store_failed, job, error)

        self._store.save(job.id, job.to_record(), on_failure=failed)

    def _store_failed(self, job: Job, error: ZTError) -> None:
        """A record of ``job`` was not written: it fails with that error, unless its end is
        decided already (that end's own write says whether it was recorded)."""
        if job.finished or job.ending is not Ending.OPEN:
            return
        job.ending, job.ending_error = Ending.FAILED, error
        task = self._tasks.get(job.id)
        if task is not None:
            task.cancel()
        else:
            self._finish(job, error=error)

    def _publish(self, job: Job, kind: EventType) -> None:
        self._events.publish(job, kind)
