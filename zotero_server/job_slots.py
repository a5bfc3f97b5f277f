"""JobSlots: the ``max_jobs`` slots jobs do their PDF work in, and the further places.

A job works in a slot (:meth:`JobSlots.place`). While it waits for something that is not work (a
busy GPU, for hours) it sets its slot aside (:meth:`JobSlots.set_aside`), so queued jobs go
ahead. A slot bounds PDF work, not waiting for answers: once a job's LLM requests are all
queued it hands its slot on (:meth:`JobSlots.hand_on`) and finishes on one of ``max_jobs``
further places, so a short paper sent behind two long ones starts at once and the fair limiter
(``translation.model.fair_slots``) serves it first. A scan hands its slot on as its OCR starts
(minutes a scan), so a short paper does not wait for it. At most ``2 * max_jobs`` jobs, each
with a PDF worker process, run at a time.

Event-loop only (no locks); jobs are named by their ids.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator


class JobSlots:
    """``max_jobs`` slots and ``max_jobs`` further places; see the module docstring."""

    def __init__(self, max_jobs: int) -> None:
        self._slots = asyncio.Semaphore(max_jobs)
        self._max_jobs = max_jobs
        self._aside = 0  # running jobs that gave their slot up while they wait (for the GPU)
        self._handed_on: set[str] = set()  # jobs finishing on a further place, not a slot
        self._debts: set[asyncio.Task[bool]] = set()

    @property
    def aside(self) -> int:
        """Running jobs whose slot is set aside now (they still count as waiting)."""
        return self._aside

    def hand_on(self, job_id: str) -> bool:
        """Give ``job_id``'s slot to the next job; it finishes on a further place. False, and
        it keeps its slot, when every further place is taken or it already handed it on."""
        if job_id in self._handed_on or len(self._handed_on) >= self._max_jobs:
            return False
        self._handed_on.add(job_id)
        self._slots.release()
        return True

    @contextlib.asynccontextmanager
    async def place(self, job_id: str) -> AsyncIterator[None]:
        """A slot for the job's work; given back when it ends, unless the job handed it on."""
        await self._slots.acquire()
        try:
            yield
        finally:
            if job_id in self._handed_on:
                self._handed_on.discard(job_id)
            else:
                self._slots.release()

    @contextlib.asynccontextmanager
    async def set_aside(self, job_id: str | None = None) -> AsyncIterator[None]:
        """Inside a job's :meth:`place`: free its slot while the block runs, then take a slot
        back. A job that already handed its slot on has none to set aside."""
        if job_id is not None and job_id in self._handed_on:
            yield
            return
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
        """The job's ``place`` gives a slot back on its way out although it holds none now:
        take one as soon as one frees, so the count of free slots stays right."""
        debt = asyncio.create_task(self._slots.acquire())
        self._debts.add(debt)
        debt.add_done_callback(self._debts.discard)
