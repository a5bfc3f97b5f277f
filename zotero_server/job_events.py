"""JobEvents: a job's changes published on the event bus as task objects, progress throttled.

A stage change or a job's end is published at once. A progress report is published when the
whole percent changes or ``PROGRESS_EVENT_S`` passed since the job's last event; otherwise it is
held back, and the job's latest state follows ``PROGRESS_EVENT_S`` later (the page never misses
the last report of a burst). Event-loop only.
"""

from __future__ import annotations

import asyncio
import time

from zotero_server import console
from zotero_server.events import TERMINAL, EventBus, EventType
from zotero_server.job import Job

#: A progress event is published at most this often unless the whole percent changes.
PROGRESS_EVENT_S = 0.25


class JobEvents:
    """Publishes jobs' events on one bus; see the module docstring."""

    def __init__(self, bus: EventBus) -> None:
        self._bus = bus
        self._last_event: dict[str, tuple[float, int]] = {}
        self._held: set[str] = set()  # jobs with a change not published yet

    def publish(self, job: Job, kind: EventType) -> None:
        """``job``'s task object now, as a ``kind`` event (an end is told the terminal too)."""
        if kind in TERMINAL:
            console.job_ended(job)
        self._held.discard(job.id)
        self._last_event[job.id] = (time.monotonic(), int(job.percent))
        self._bus.publish(kind, job.to_task(), job_id=job.id)

    def progress(self, job: Job) -> None:
        """``job``'s progress, now or a moment later (see the module docstring)."""
        last_time, last_percent = self._last_event.get(job.id, (0.0, -1))
        now = time.monotonic()
        if int(job.percent) != last_percent or now - last_time >= PROGRESS_EVENT_S:
            self.publish(job, EventType.PROGRESS)
        elif job.id not in self._held:
            # Held back for now; the latest state still reaches the page a moment later.
            self._held.add(job.id)
            asyncio.get_running_loop().call_later(PROGRESS_EVENT_S, self._flush, job)

    def dismissed(self, job: Job) -> None:
        """``job`` was taken off the list: ``{"task": id}`` (pages drop it)."""
        self._bus.publish(EventType.DISMISSED, {"task": job.id})

    def forget(self, job: Job) -> None:
        """``job`` ended: its throttling state goes."""
        self._last_event.pop(job.id, None)

    def _flush(self, job: Job) -> None:
        if job.id in self._held and not job.finished:
            self.publish(job, EventType.PROGRESS)
        self._held.discard(job.id)
