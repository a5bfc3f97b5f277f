"""Live page previews (issue 24): each job's pages as they are typeset, and what is done so far.

Every translating job has a :class:`JobPreviews`, the pipeline's ``PageWatch``: it knows each
page's state (waiting for the model, typesetting, done), keeps the thumbnails, and while the
job's PDF worker is alive renders through it what is asked for (a large view, the original page,
the partial PDF). A page event (``EventType.PAGE``, ``{"task": id, "pages": [entries as in
/pages]}``; not ``taskId``: it is no task object) goes out on ``/events`` as each page changes
(not on the task's own stream, whose readers expect task objects only).

**No work when nobody looks.** A thumbnail is rendered with its page (about a tenth of the page's
typesetting, ``make bench``) only while someone watches the job: an event-stream subscriber
(``/events`` or the job's own) or a ``GET /api/tasks/{id}/pages`` less than ``POLL_WATCH_S``
ago. Pages set while nobody watched get their thumbnail on first request instead, from the
typeset page the worker keeps, as long as the job runs. After the job has ended, the first
thumbnail asked for of a page that has none renders all of them at once, in a PDF worker, from
the job's translated file while it waits for download (a plugin's job: nobody watched it run).

**Unguessable.** Every job has a random key (``secrets``); image URLs carry it, the listing of
that job alone hands it out, and a wrong key is the same 404 as a page that does not exist. The
server's API token applies on top (the routes are guarded like downloads).

**Bounded.** Images are kept in memory: ``MAX_BYTES`` in all (large views go first, then the
thumbnails of ended jobs, oldest first), ``MAX_LARGE`` large views a job, ``MAX_JOBS`` jobs. A
job's previews go when its output files are all gone (downloaded or swept) or when newer jobs
push it out; a failed job's images go at once. After its end nothing more is rendered: what was
kept is served.

All methods run on the event loop's thread.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from common.errors import PDFProcessingError, ZTError
from translation.render.preview import LARGE_WIDTH, THUMB_WIDTH, PageImages, PageState
from zotero_server.events import EventBus, EventType
from zotero_server.http_errors import NotFoundError, NotReadyError, TaskFinishedError

#: A ``/pages`` poll counts as watching the job this long.
POLL_WATCH_S = 30.0
#: Images kept in all, large views kept per job, jobs whose previews are kept.
MAX_BYTES = 64 * 1024 * 1024
MAX_LARGE = 12
MAX_JOBS = 40

#: Renders the thumbnails of the given pages (0-based) from an ended job's translated file;
#: the pages it could not draw are left out.
ThumbnailsAfter = Callable[[Sequence[int]], Awaitable[dict[int, bytes]]]


class View:
    THUMB, LARGE, ORIGINAL = "thumb", "large", "original"
    ALL = (THUMB, LARGE, ORIGINAL)


class JobPreviews:
    """One job's pages (a ``translation.render.preview.PageWatch``); see the module docstring."""

    def __init__(self, board: PreviewBoard, job_id: str) -> None:
        self._board = board
        self.job_id = job_id
        self.key = secrets.token_urlsafe(18)
        self.states: dict[int, PageState] = {}
        self.thumbs: dict[int, bytes] = {}
        self.large: OrderedDict[tuple[int, bool], bytes] = OrderedDict()
        self._images: PageImages | None = None
        self._rendering: dict[tuple[int, str], asyncio.Future[bytes]] = {}
        self._partial: tuple[int, bytes] | None = None
        self._partial_lock = asyncio.Lock()
        #: Set once the job's worker is gone: nothing more is rendered but ``_after`` (once).
        self.ended = False
        #: After the end: renders the missing thumbnails from the translated file, once.
        self._after: ThumbnailsAfter | None = None
        self._filling: asyncio.Future[None] | None = None

    # --- the pipeline's PageWatch --------------------------------------------------------------

    def begin(self, pages: Sequence[int], images: PageImages) -> None:
        self._board.forget_images(self)
        self.states = dict.fromkeys(pages, PageState.WAITING)
        self._images, self.ended, self._partial = images, False, None
        self._publish(list(self.states))

    def thumbnail_width(self) -> int:
        return THUMB_WIDTH if self._board.watching(self.job_id) else 0

    def typesetting(self, number: int) -> None:
        self.states[number] = PageState.TYPESETTING
        self._publish([number])

    def typeset(self, number: int, thumbnail: bytes | None) -> None:
        self.states[number] = PageState.DONE
        if thumbnail is not None:
            self._board.keep(self, number, None, thumbnail)
        self._publish([number])

    def end(self, failed: bool) -> None:
        self._images, self.ended, self._partial = None, True, None
        if failed:  # the images go; the record stays: a wait for the GPU begins it again
            self._board.forget_images(self)

    # --- what the routes ask -------------------------------------------------------------------

    def listing(self) -> list[dict[str, Any]]:
        return [self._entry(number) for number in sorted(self.states)]

    def key_matches(self, key: str) -> bool:
        return secrets.compare_digest(key.encode(), self.key.encode())

    async def image(self, page: int, view: str) -> bytes:
        """Page ``page`` (1-based) as a PNG: ``NotFoundError`` for a page this job does not
        typeset or a preview no longer kept, ``NotReadyError`` for a page not typeset yet."""
        number = page - 1
        state = self.states.get(number)
        if state is None or view not in View.ALL:
            raise NotFoundError(f"no page {page} among the pages this task translates")
        if view != View.ORIGINAL and state is not PageState.DONE:
            raise NotReadyError(f"page {page} is not typeset yet ({state.value})")
        kept = self._kept(number, view)
        if kept is not None:
            return kept
        if self._images is None and view == View.THUMB and self._after is not None:
            return await self._thumbnail_after(number)
        if self._images is None:
            raise NotFoundError(
                f"no preview of page {page} was kept; the task has ended (its PDF has every page)"
            )
        # One render per image however many ask at once: the requests of a page opened late
        # (every thumbnail at once) are bounded by the pages of the paper.
        future = self._rendering.get((number, view))
        if future is None:
            future = asyncio.ensure_future(self._render(self._images, number, view))
            self._rendering[(number, view)] = future
            future.add_done_callback(lambda _: self._rendering.pop((number, view), None))
        return await asyncio.shield(future)

    async def partial_pdf(self) -> bytes:
        """The pages typeset so far, the rest as the original pages, while the job runs."""
        async with self._partial_lock:
            images = self._images
            if images is None:
                if self.ended:
                    raise TaskFinishedError("the task has ended: download its files instead")
                raise NotReadyError("the paper is still being read; try again in a moment")
            done = sum(1 for state in self.states.values() if state is PageState.DONE)
            if self._partial is not None and self._partial[0] == done:
                return self._partial[1]
            try:
                data = await images.partial_pdf()
            except PDFProcessingError:
                raise TaskFinishedError("the task has ended: download its files instead") from None
            if not self.ended:
                self._partial = (done, data)
            return data

    def thumbnails_after(self, render: ThumbnailsAfter) -> None:
        """After the end: how to draw the thumbnails the running job did not (nobody watched)."""
        if self.ended and any(
            state is PageState.DONE and number not in self.thumbs
            for number, state in self.states.items()
        ):
            self._after = render
            self._publish(sorted(self.states))  # their listings now offer a thumbnail

    # --- inside --------------------------------------------------------------------------------

    async def _thumbnail_after(self, number: int) -> bytes:
        """One worker call draws every missing thumbnail (a page opened late asks for all)."""
        if self._filling is None:
            self._filling = asyncio.ensure_future(self._fill_thumbnails())
        await asyncio.shield(self._filling)
        kept = self.thumbs.get(number)
        if kept is None:
            raise NotFoundError(f"no preview of page {number + 1} was kept; the task has ended")
        return kept

    async def _fill_thumbnails(self) -> None:
        render, self._after = self._after, None  # once: a failure is not retried per request
        missing = [
            number
            for number, state in sorted(self.states.items())
            if state is PageState.DONE and number not in self.thumbs
        ]
        if render is None or not missing:
            return
        try:
            drawn = await render(missing)
        except ZTError:  # the file went (downloaded) or could not be drawn
            return
        for number, data in drawn.items():
            self._board.keep(self, number, None, data)

    def _kept(self, number: int, view: str) -> bytes | None:
        if view == View.THUMB:
            return self.thumbs.get(number)
        key = (number, view == View.ORIGINAL)
        if key in self.large:
            self.large.move_to_end(key)
            return self.large[key]
        return None

    async def _render(self, images: PageImages, number: int, view: str) -> bytes:
        width = THUMB_WIDTH if view == View.THUMB else LARGE_WIDTH
        try:
            data = await images.preview(number, width, view == View.ORIGINAL)
        except PDFProcessingError:  # the worker went while this waited for it
            raise NotFoundError(
                f"no preview of page {number + 1} was kept; the task has ended"
            ) from None
        self._board.keep(self, number, None if view == View.THUMB else view, data)
        return data

    def _entry(self, number: int) -> dict[str, Any]:
        state = self.states[number]
        live = self._images is not None
        base = f"/api/tasks/{self.job_id}/pages/{number + 1}.png?key={self.key}"
        done = state is PageState.DONE

        def url(view: str, kept: bool) -> str | None:
            return f"{base}&view={view}" if live or kept else None

        filling = self._filling is not None and not self._filling.done()
        drawable = number in self.thumbs or self._after is not None or filling
        return {
            "page": number + 1,
            "state": state.value,
            "preview": url(View.THUMB, drawable) if done else None,
            "large": url(View.LARGE, (number, False) in self.large) if done else None,
            "original": url(View.ORIGINAL, (number, True) in self.large),
        }

    def _publish(self, numbers: list[int]) -> None:
        entries = [self._entry(number) for number in numbers]
        # On ``/events`` only (no job_id): a task's own stream carries task objects alone.
        self._board.bus.publish(EventType.PAGE, {"task": self.job_id, "pages": entries})


class PreviewBoard:
    """Every job's previews and the memory they hold; see the module docstring."""

    def __init__(self, bus: EventBus, max_bytes: int = MAX_BYTES) -> None:
        self.bus = bus
        self._max_bytes = max_bytes
        self._jobs: OrderedDict[str, JobPreviews] = OrderedDict()
        self._looked: dict[str, float] = {}
        self._files: dict[str, set[str]] = {}
        self.bytes = 0

    def watch(self, job_id: str) -> JobPreviews:
        """The job's previews, made on first use; the oldest jobs beyond ``MAX_JOBS`` go."""
        previews = self._jobs.get(job_id)
        if previews is None:
            previews = self._jobs[job_id] = JobPreviews(self, job_id)
            while len(self._jobs) > MAX_JOBS:
                oldest = next((p for p in self._jobs.values() if p.ended), None)
                self.drop((oldest or next(iter(self._jobs.values()))).job_id)
        return previews

    def get(self, job_id: str) -> JobPreviews | None:
        return self._jobs.get(job_id)

    def holds(self, previews: JobPreviews) -> bool:
        return self._jobs.get(previews.job_id) is previews

    def looked(self, job_id: str) -> None:
        """A client polled the job's pages: it counts as watching for ``POLL_WATCH_S``."""
        now = time.monotonic()
        self._looked = {j: t for j, t in self._looked.items() if t > now}
        self._looked[job_id] = now + POLL_WATCH_S

    def watching(self, job_id: str) -> bool:
        return self.bus.watching(job_id) or self._looked.get(job_id, 0.0) > time.monotonic()

    def outputs(
        self, job_id: str, names: Sequence[str], thumbnails: ThumbnailsAfter | None = None
    ) -> None:
        """The job's output files: its previews go when the last of them is gone.
        ``thumbnails`` draws, from one of them, the thumbnails nobody watched being set."""
        if job_id in self._jobs and names:
            self._files[job_id] = set(names)
            if thumbnails is not None:
                self._jobs[job_id].thumbnails_after(thumbnails)

    def file_removed(self, name: str) -> None:
        for job_id, names in list(self._files.items()):
            names.discard(name)
            if not names:
                self.drop(job_id)

    def drop(self, job_id: str) -> None:
        previews = self._jobs.pop(job_id, None)
        self._files.pop(job_id, None)
        self._looked.pop(job_id, None)
        if previews is not None:
            self.forget_images(previews)

    def forget_images(self, previews: JobPreviews) -> None:
        self.bytes -= sum(map(len, previews.thumbs.values())) + sum(
            map(len, previews.large.values())
        )
        previews.thumbs.clear()
        previews.large.clear()

    def keep(self, previews: JobPreviews, number: int, view: str | None, data: bytes) -> None:
        """Keep an image (``view`` None: the thumbnail) if room can be made for it."""
        if not self.holds(previews) or not self._make_room(len(data), previews):
            return
        if view is None:
            self.bytes -= len(previews.thumbs.get(number, b""))
            previews.thumbs[number] = data
        else:
            key = (number, view == View.ORIGINAL)
            self.bytes -= len(previews.large.pop(key, b""))
            previews.large[key] = data
            while len(previews.large) > MAX_LARGE:
                self.bytes -= len(previews.large.popitem(last=False)[1])
        self.bytes += len(data)

    def _make_room(self, size: int, keeping: JobPreviews) -> bool:
        for previews in list(self._jobs.values()):  # large views first, oldest jobs first
            while previews.large and self.bytes + size > self._max_bytes:
                self.bytes -= len(previews.large.popitem(last=False)[1])
        for previews in list(self._jobs.values()):
            if self.bytes + size <= self._max_bytes:
                break
            if previews.ended and previews is not keeping:
                self.forget_images(previews)
        return self.bytes + size <= self._max_bytes
