"""Where the next LLM request goes when several GPU hosts serve the model.

Each host is a LANE: its LLM client (its own base URL) and its own limiter (fixed, or adaptive
from that host's vLLM ``/metrics``), which bounds what that host takes. Above them, ONE fair
queue (``translation.model.fair_slots``): a request waits there, under its job, until some
ready lane has room; the queue's limit is the sum of the ready lanes' limits, so the fair share
between jobs holds across the pool, and a job's own order (longest paragraphs first) holds too.
A granted request goes to the heaviest ready lane with room (``weight``: the host's relative
speed), of equals the one with the shortest queue (fewest in flight for its limit). When only
slower lanes have room, the request's size (``route(owner, size)``, its text's length) decides:
of the waiters of the job the fair queue serves, the room goes to the longest that lane is
expected to finish (``size / weight``) no later than the fastest lane finishes the longest
request running there or waiting; a longer one waits for a faster lane. The paper's longest
paragraphs go out first, and one of them on a slow card would outlast the rest. Requests
waiting at the top count, in every lane's adaptive limiter, as waiting there
(``FairSlots.waiting_above``): only a full pool makes one wait.

Which lanes are ready is not decided here: whoever composes the pool (``zotero_server``) says so
with :meth:`Dispatcher.set_ready` as hosts come and go. A request that fails on a lane because
its host went away is reported with :meth:`Dispatcher.lost`: the lane takes no new request until
it is set ready again, and the caller sends the request elsewhere (the cache means nothing
answered is paid twice).
"""

from __future__ import annotations

import math
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from common.errors import LLMUnavailableError
from translation.model.adaptive_limiter import AdaptiveLimiter
from translation.model.fair_slots import FairSlots, Waiter
from translation.model.limiter import FixedLimiter
from translation.model.llm import LLMClient

LaneLimiter = FixedLimiter | AdaptiveLimiter

#: Weight of the newest request in a lane's latency average.
_EWMA = 0.2


@dataclass
class Lane:
    """One host as the dispatcher sees it. ``answered``/``failed`` count requests since start."""

    name: str
    llm: LLMClient
    limiter: LaneLimiter
    weight: float = 1.0
    ready: bool = False
    #: Why the lane is not ready (the last word of whoever set it), for the status display.
    why: str = ""
    in_flight: int = 0
    answered: int = 0
    failed: int = 0
    request_s: float | None = None
    #: The sizes of the requests given this lane and not yet finished.
    sizes: list[int] = field(default_factory=list)

    def load(self) -> float:
        return self.in_flight / max(1, self.limiter.limit)


@dataclass(frozen=True)
class Demand:
    """The work waiting at the top: requests queued and how long the ready lanes would take to
    drain them at the most each may run at once (an adaptive limit's maximum: at the start of a
    paper its limit is still climbing) and their measured request times (``inf`` with no lane
    ready; 0 before any answer). Optimistic on purpose: a needless wake takes a card someone
    else may want; a missed one costs some seconds."""

    queued: int
    drain_s: float


class Dispatcher(FairSlots):
    """The pool's fair queue above the lanes; see the module docstring."""

    def __init__(self, lanes: Sequence[Lane]) -> None:
        super().__init__()
        if not lanes:
            raise ValueError("a dispatcher needs at least one lane")
        self.lanes = list(lanes)
        self._by_name = {lane.name: lane for lane in self.lanes}
        # Where each granted waiter goes, from its grant until its ``route`` takes it.
        self._placed: dict[Waiter, Lane] = {}
        #: Told ``(lane name, why)`` when a request found its lane gone (:meth:`lost`).
        self.on_lost: Callable[[str, str], None] | None = None
        for lane in self.lanes:
            lane.limiter.on_room = self._grant
            # Only a full pool makes a request wait here: every ready lane is at its limit.
            lane.limiter.waiting_above = self._waiting_for_room

    @property
    def limit(self) -> int:
        return sum(lane.limiter.limit for lane in self.lanes if lane.ready)

    def lane(self, name: str) -> Lane:
        return self._by_name[name]

    def any_ready(self) -> bool:
        return any(lane.ready for lane in self.lanes)

    def set_ready(self, name: str, ready: bool, why: str = "") -> None:
        """Open or close a lane for new requests (its requests in flight are not touched)."""
        lane = self._by_name[name]
        lane.ready, lane.why = ready, "" if ready else why
        self._grant()

    def lost(self, lane: Lane, why: str) -> None:
        """A request failed because ``lane``'s host is gone: close the lane, tell ``on_lost``."""
        lane.failed += 1
        if lane.ready:
            self.set_ready(lane.name, False, why)
            if self.on_lost is not None:
                self.on_lost(lane.name, why)

    def demand(self) -> Demand:
        ready = [lane for lane in self.lanes if lane.ready]
        if not self._queued:
            return Demand(0, 0.0)
        capacity = sum(_reach(lane.limiter) for lane in ready)
        if not capacity:
            return Demand(self._queued, math.inf)
        seen = [lane.request_s for lane in ready if lane.request_s is not None]
        if not seen:
            return Demand(self._queued, 0.0)  # no answer yet: no evidence the queue is long
        request_s = sum(seen) / len(seen)
        return Demand(self._queued, self._queued * request_s / capacity)

    @asynccontextmanager
    async def route(self, owner: str = "", size: int = 0) -> AsyncIterator[Lane]:
        """Wait (fairly, under ``owner``) for room on a ready lane; hold it for the body.

        ``size`` (the text's length; 0 when unknown) keeps a long request off a slow lane
        (see the module docstring). Raises ``LLMUnavailableError`` when the lanes closed
        between the grant and the pick (every host gone at once): the caller brings one back
        and asks again.
        """
        waiter = await self._acquire(owner, size)
        try:
            lane = self._placed.pop(waiter)
            if not lane.ready:  # closed since the grant: any ready lane will do
                _unplace(lane, size)
                lane = self._pick()
                _place(lane, size)
            try:
                async with lane.limiter.slot(owner):
                    started = time.monotonic()
                    yield lane
                    took = time.monotonic() - started
                    lane.answered += 1
                    last = took if lane.request_s is None else lane.request_s
                    lane.request_s = (1 - _EWMA) * last + _EWMA * took
            finally:
                _unplace(lane, size)
        finally:
            self._release(owner)

    @asynccontextmanager
    async def slot(self, owner: str = "") -> AsyncIterator[None]:
        """The ``Limiter`` form of :meth:`route`: room on some host, not saying which."""
        async with self.route(owner):
            yield

    async def aclose(self) -> None:
        for lane in self.lanes:
            await lane.limiter.aclose()
            await lane.llm.aclose()

    def _waiting_for_room(self) -> int:
        return self._queued

    def _pick(self) -> Lane:
        ready = [lane for lane in self.lanes if lane.ready]
        if not ready:
            raise LLMUnavailableError("no GPU host is ready")
        roomy = [lane for lane in ready if lane.in_flight < lane.limiter.limit]
        if not roomy:
            return min(ready, key=lambda lane: (lane.load(), -lane.weight))
        # The fastest card with room first: the paper's longest paragraphs go out first, and
        # one of them on a slow card can outlast all the rest of the paper.
        return min(roomy, key=lambda lane: (-lane.weight, lane.load()))

    def _choose(self, waiters: Sequence[Waiter]) -> Waiter | None:
        ready = [lane for lane in self.lanes if lane.ready]
        if not ready:
            return waiters[0]  # route reports it
        lane = self._pick()
        top = max(other.weight for other in ready)
        running = [size for other in ready if other.weight == top for size in other.sizes]
        if lane.weight >= top or lane.in_flight >= lane.limiter.limit or not running:
            # The fastest has room, or none has (no lane to fit), or the fastest holds nothing
            # that would free it: no faster room is coming.
            return waiters[0]
        queued = [waiter.size for waiter in (*self._waiters(), *waiters)]
        longest = max(running + queued)
        reach = longest * lane.weight / top
        fits = [waiter for waiter in waiters if waiter.size <= reach]
        return max(fits, key=lambda waiter: waiter.size, default=None)

    def _granted(self, waiter: Waiter) -> None:
        lane = self._pick() if self.any_ready() else self.lanes[0]
        _place(lane, waiter.size)
        self._placed[waiter] = lane

    def _revoked(self, waiter: Waiter) -> None:
        _unplace(self._placed.pop(waiter), waiter.size)

    def _waiters(self) -> list[Waiter]:
        return [waiter for queue in self._queues.values() for waiter in queue]


def _place(lane: Lane, size: int) -> None:
    lane.in_flight += 1
    lane.sizes.append(size)


def _unplace(lane: Lane, size: int) -> None:
    lane.in_flight -= 1
    lane.sizes.remove(size)


def _reach(limiter: LaneLimiter) -> int:
    """The most requests ``limiter`` may let run at once."""
    if isinstance(limiter, AdaptiveLimiter):
        return max(limiter.limit, limiter.config.maximum)
    return limiter.limit
