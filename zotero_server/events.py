"""Typed progress events and the in-process bus that fans them out to SSE subscribers.

Producers (the job registry, the output store's sweeper, the server-status watcher) publish small
typed events; ``routes`` only forwards them with sse-starlette. Every event gets an id
``<boot>.<n>``: ``n`` grows by one per event and ``boot`` changes with every server start, so a
client resuming with ``Last-Event-ID`` either gets exactly the events it missed (from a bounded
replay buffer) or, if they are gone or came from an earlier run, is told to start over from a
snapshot.

All methods must be called on the event loop's thread.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections import deque
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

#: The longest ``Last-Event-ID`` looked at (ours: a boot id, a dot, a sequence number).
MAX_EVENT_ID = 64
_SEQ = re.compile(r"[0-9]{1,18}")
#: Events kept for ``Last-Event-ID`` resume.
REPLAY_EVENTS = 2000
#: Events one slow subscriber may lag behind before it is dropped (it then resumes by id).
QUEUE_EVENTS = 1000


class EventType(StrEnum):
    SNAPSHOT = "snapshot"  # the whole state; sent by the SSE route, never published
    STAGE = "stage"  # a job entered a new stage (queued, waiting_gpu, ..., rendering)
    PROGRESS = "progress"  # a job's progress or message changed within its stage
    DONE = "done"  # a job finished; its files are ready
    FAILED = "failed"  # a job failed; its error is in the data
    FILE_REMOVED = "file_removed"  # an output was downloaded or swept
    SERVER = "server"  # vLLM / GPU state changed
    PAGE = "page"  # a page of a job was typeset or began to be (``zotero_server.previews``)
    DISMISSED = "dismissed"  # a finished job was taken off the list (``{"task": id}``)


TERMINAL = frozenset({EventType.DONE, EventType.FAILED})


#: The events after which vLLM's or the GPU's state may have changed too.
_JOB_MOVES = frozenset({EventType.STAGE, EventType.DONE, EventType.FAILED})


@dataclass(frozen=True)
class Event:
    seq: int
    type: EventType
    data: Mapping[str, Any]
    job_id: str | None = None


class Subscription:
    """One subscriber's view: replayed events first, then live ones, until closed or dropped."""

    def __init__(self, bus: EventBus, job_id: str | None, replay: list[Event]) -> None:
        self._bus = bus
        self.job_id = job_id
        self._queue: asyncio.Queue[Event | None] = asyncio.Queue()
        self.dropped = False
        for event in replay:
            self._queue.put_nowait(event)

    def _offer(self, event: Event) -> None:
        if self.job_id is not None and event.job_id != self.job_id:
            return
        if self._queue.qsize() >= QUEUE_EVENTS:
            self.dropped = True
            self._bus._unsubscribe(self)
            self._queue.put_nowait(None)
            return
        self._queue.put_nowait(event)

    def _end(self) -> None:
        self._queue.put_nowait(None)

    def close(self) -> None:
        self._bus._unsubscribe(self)

    async def __aiter__(self) -> AsyncIterator[Event]:
        try:
            while True:
                event = await self._queue.get()
                if event is None:
                    return
                yield event
        finally:
            self.close()


class EventBus:
    """Publish/subscribe with ids, a replay buffer and bounded per-subscriber queues."""

    def __init__(self, replay: int = REPLAY_EVENTS) -> None:
        self.boot = secrets.token_hex(3)
        self._seq = 0
        self._replay: deque[Event] = deque(maxlen=replay)
        self._subscribers: set[Subscription] = set()
        self._closed = False
        #: Set when a job changes stage: the server-status watcher looks again at once, so the
        #: page's vLLM and GPU cards move with the job ("starting the LLM" beside "down").
        self.job_moved = asyncio.Event()

    @property
    def last_seq(self) -> int:
        return self._seq

    @property
    def subscriber_count(self) -> int:
        return len(self._subscribers)

    def watching(self, job_id: str) -> bool:
        """Whether a subscriber gets ``job_id``'s events (all jobs', or that job's)."""
        return any(s.job_id in (None, job_id) for s in self._subscribers)

    def event_id(self, seq: int) -> str:
        return f"{self.boot}.{seq}"

    def parse_event_id(self, value: str | None) -> int | None:
        """The sequence number in an id of this run, else None (absent, garbage, older run,
        longer than :data:`MAX_EVENT_ID`, anything but ASCII digits after the dot: ``str.isdigit``
        takes "²" and "①", which ``int`` refuses)."""
        if not value or len(value) > MAX_EVENT_ID:
            return None
        boot, _, seq = value.strip().partition(".")
        if boot != self.boot or not _SEQ.fullmatch(seq):
            return None
        number = int(seq)
        return number if number <= self._seq else None

    def publish(self, kind: EventType, data: Mapping[str, Any], job_id: str | None = None) -> Event:
        self._seq += 1
        event = Event(self._seq, kind, data, job_id)
        self._replay.append(event)
        if kind in _JOB_MOVES:
            self.job_moved.set()
        for subscriber in list(self._subscribers):
            subscriber._offer(event)
        return event

    def subscribe(self, job_id: str | None = None, after: int | None = None) -> Subscription:
        """Subscribe to all events, or one job's. With ``after``, replay what came since.

        Check ``can_replay(after)`` first: events older than the buffer are not replayed.
        """
        replay = []
        if after is not None:
            replay = [
                e for e in self._replay if e.seq > after and (job_id is None or e.job_id == job_id)
            ]
        subscription = Subscription(self, job_id, replay)
        if self._closed:
            subscription._end()
        else:
            self._subscribers.add(subscription)
        return subscription

    def can_replay(self, after: int) -> bool:
        """Whether every event after ``after`` is still in the buffer."""
        oldest = self._replay[0].seq if self._replay else self._seq + 1
        return after >= oldest - 1

    def _unsubscribe(self, subscription: Subscription) -> None:
        self._subscribers.discard(subscription)

    def close(self) -> None:
        """End every subscription (server shutdown); later ones end at once."""
        self._closed = True
        for subscriber in list(self._subscribers):
            subscriber._end()
        self._subscribers.clear()
