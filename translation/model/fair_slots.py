"""Who gets the next free LLM slot when several jobs wait for one.

Every request waits under an OWNER (the job id; the CLI's single job leaves it empty). Waiters
queue per owner, first come first served inside an owner, so a job's own order (the pipeline
sends its longest paragraphs first) holds. A freed slot goes, in this order:

1. to an owner that waits but holds no slot at all (of those, the one served least recently),
   while the limit is at least ``FLOOR_SHARE`` (4) slots per owner: every job with work keeps
   one request running, so a long job keeps moving while short ones pass it, and these floors
   together never take more than a quarter of the slots (a short job then runs at 3/4 of its
   speed alone or better, 7/8 with the default 8 slots and 2 jobs);
2. otherwise to the owner with the FEWEST requests waiting (least remaining work first; a tie
   goes to the one served least recently).

Why not round-robin (or "fewest slots held", its equivalent under load): an equal share makes a
short job that arrives behind a long one take about twice its time alone, and the long one gains
nothing for it, since it has work for every slot anyway. Least remaining work first is the order
that minimises the mean time to finish (SRPT): the short job runs at nearly its speed alone, the
long one loses exactly the short one's work, no more. The floor of one slot per owner bounds
what the long one can lose to a stream of short jobs; with fewer slots than that (a small fixed
limit) a floor would cost the short job too much, and pure least-remaining-first holds.
Throughput is untouched: a slot is never left free while anyone waits, whoever gets it (but
for the room the dispatcher below holds for a faster host, on purpose).

**Interactive requests** (a selection, an annotation, a title from a reader plugin:
``zotero_server.reader``) wait under the owner :data:`INTERACTIVE`, a class of its own: a freed
slot goes to it before any paper's owner, and it may hold up to :data:`INTERACTIVE_ROOM` slots
above the limit (above what is in flight, when the papers hold more than a limit just lowered),
so a selection sent while a paper keeps every slot busy starts at once (vLLM takes it into its
running batch at the next step) instead of waiting for a paragraph to end.
A person reading waits for that one answer; the paper loses at most that many slots' worth.

**The hold** (where the limiter knows vLLM's engine step, ``step_s``: the adaptive one, from
vLLM's token counters). A selection's first token comes at the end of the engine step that
admits it, and vLLM (priority or not) fills that step with the prompts of whatever paragraphs
wait there, up to ``--max-num-batched-tokens``: each one's prefill lengthens the step (by 7 ms
for a short paragraph on the modelled card, the time of a decode step for a long one). So once
an interactive request has taken its slot, the papers' requests wait
:data:`INTERACTIVE_HOLD_STEPS` engine steps for theirs: the selection reaches vLLM and is
admitted in the next step with its own prompt alone. The paper loses those few steps' worth of
new admissions per selection, nothing more: what it has running goes on.

Inside the owner picked, the head of its queue gets the slot, unless a subclass says otherwise
(``_choose``): the dispatcher over several hosts picks by the request's size (``Waiter.size``)
which of that owner's waiters fits the host with room, or holds the room for a faster host.
Which owner is served is never changed by that choice.

The counts are cheap to read (``waiting(owner)``, ``held(owner)``) for the progress page.
"""

from __future__ import annotations

import asyncio
import math
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: Every owner with work keeps one slot while the limit is at least this many slots per owner.
FLOOR_SHARE = 4
#: The owner of interactive requests: served first, with room above the limit (module doc).
INTERACTIVE = "\x00interactive"
#: Slots interactive requests may hold above the limit.
INTERACTIVE_ROOM = 2
#: After an interactive request takes its slot, papers' requests wait this many engine steps
#: for theirs (module doc, "The hold"): it reaches vLLM, waits out the step running (one at
#: most) and is admitted in the next; a paragraph sent after that is not prefilled beside it.
INTERACTIVE_HOLD_STEPS = 2


@dataclass(eq=False)  # each waiter is itself: compared and hashed by identity
class Waiter:
    """One request waiting for a slot; ``size`` is what its caller said it weighs (0: unknown)."""

    future: asyncio.Future[None]
    size: int = 0


class FairSlots(ABC):
    """Slot accounting and the fair grant order (see the module docstring).

    Subclasses define ``limit``; one that lowers or raises it calls ``_grant()`` after. A waiter
    that is cancelled leaves its queue at once, or hands its slot on if it had just been
    granted one.
    """

    def __init__(self) -> None:
        self._in_flight = 0
        self._peak = 0
        # Only owners with waiters, the one served least recently first.
        self._queues: dict[str, deque[Waiter]] = {}
        self._held: dict[str, int] = {}
        self._queued = 0
        #: Called after every grant round (a freed slot, a changed limit): a dispatcher that
        #: counts this limiter's room as its own (``translation.model.dispatch``) listens.
        self.on_room: Callable[[], None] | None = None
        #: Requests waiting above this limiter for its room (that dispatcher's queue): to a
        #: limit that follows demand they count as waiting here.
        self.waiting_above: Callable[[], int] = _nobody
        # The hold (module doc): when papers' requests may next take a slot (time.monotonic()).
        self._held_until = -math.inf
        self._hold_timer: asyncio.TimerHandle | None = None

    @property
    @abstractmethod
    def limit(self) -> int:
        """The most requests allowed in flight right now (the subclass's policy)."""

    def step_s(self) -> float | None:
        """vLLM's engine step as this limiter knows it (seconds), which times the hold a
        selection puts on the papers' requests (module doc); None, as here: unknown, no hold."""
        return None

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def peak_in_flight(self) -> int:
        return self._peak

    def pending(self) -> int:
        """Requests waiting for this limiter's room: in its own queue or above it."""
        return self._queued + self.waiting_above()

    def waiting(self, owner: str | None = None) -> int:
        """Requests waiting for a slot: ``owner``'s, or everyone's (None)."""
        if owner is None:
            return self._queued
        queue = self._queues.get(owner)
        return len(queue) if queue else 0

    def held(self, owner: str | None = None) -> int:
        """Slots held now: by ``owner``, or by everyone (None)."""
        if owner is None:
            return self._in_flight
        return self._held.get(owner, 0)

    def owners(self) -> list[str]:
        """Owners holding or waiting for a slot now."""
        return list(dict.fromkeys([*self._held, *self._queues]))

    # --- granting ----------------------------------------------------------------------------

    def _on_wait(self) -> None:  # noqa: B027 (an optional hook: most limiters ignore waits)
        """Called when a request has to wait (the adaptive limiter notes demand)."""

    def _choose(self, waiters: Sequence[Waiter]) -> Waiter | None:
        """Which of one owner's ``waiters`` (in arrival order) takes a free slot now; None keeps
        the slot free for now (the subclass must call ``_grant()`` when that may change)."""
        return waiters[0]

    def _granted(self, waiter: Waiter) -> None:  # noqa: B027 (an optional hook)
        """Called as ``waiter`` is given a slot, before anything else is granted."""

    def _revoked(self, waiter: Waiter) -> None:  # noqa: B027 (an optional hook)
        """Called when ``waiter`` was given a slot but cancelled before it could use it."""

    async def _acquire(self, owner: str, size: int = 0) -> Waiter:
        """Wait, under ``owner``, for a slot; the waiter returned is the one ``_granted`` saw."""
        waiter = Waiter(asyncio.get_running_loop().create_future(), size)
        ahead = not self._queued or (owner == INTERACTIVE and INTERACTIVE not in self._queues)
        room = self._in_flight < self._room(owner)
        held = self._held_s(owner) > 0
        if room and ahead and not held and self._choose([waiter]) is waiter:
            self._take(owner)
            self._granted(waiter)
            return waiter
        if not (room and held):  # waiting out a hold is no demand for a higher limit
            self._on_wait()
        self._queues.setdefault(owner, deque()).append(waiter)
        self._queued += 1
        if self._in_flight < self._room(owner):
            self._grant()  # room was held for others' waiters: this one may fit it
        try:
            await waiter.future
        except asyncio.CancelledError:
            if waiter.future.done() and not waiter.future.cancelled():
                # Granted a slot, then cancelled before using it: hand it on.
                self._revoked(waiter)
                self._release(owner)
            else:
                self._drop(owner, waiter)
            raise
        return waiter

    def _release(self, owner: str) -> None:
        self._in_flight -= 1
        left = self._held[owner] - 1
        if left:
            self._held[owner] = left
        else:
            del self._held[owner]
        self._grant()

    def _grant(self) -> None:
        """Give free slots to waiters, in the fair order."""
        while self._queued:
            owner = self._next_owner()
            if self._in_flight >= self._room(owner):
                break
            held = self._held_s(owner)
            if held > 0:
                self._grant_in(held)
                break
            waiter = self._choose(self._queues[owner])
            if waiter is None:
                break  # the room is kept for a waiter that fits it better
            queue = self._queues.pop(owner)
            queue.remove(waiter)
            if queue:
                self._queues[owner] = queue  # to the back: served most recently
            self._queued -= 1
            if not waiter.future.done():
                self._take(owner)
                self._granted(waiter)
                waiter.future.set_result(None)
        if self.on_room is not None:
            self.on_room()

    def _room(self, owner: str) -> int:
        """The most slots in flight that still let ``owner`` take one: for the interactive
        class, while it holds fewer than :data:`INTERACTIVE_ROOM`, one more than are in flight
        (a limit just lowered below what the papers hold never holds a selection back)."""
        if owner == INTERACTIVE and self._held.get(INTERACTIVE, 0) < INTERACTIVE_ROOM:
            return max(self.limit, self._in_flight + 1)
        return self.limit

    def _next_owner(self) -> str:
        if INTERACTIVE in self._queues:
            return INTERACTIVE
        floors = self.limit >= FLOOR_SHARE * len(self._held.keys() | self._queues.keys())
        fewest: str | None = None
        for owner, queue in self._queues.items():
            if floors and owner not in self._held:
                return owner
            if fewest is None or len(queue) < len(self._queues[fewest]):
                fewest = owner
        assert fewest is not None
        return fewest

    def _held_s(self, owner: str) -> float:
        """How long ``owner`` must still wait out a selection's hold before it may take a free
        slot (module doc): 0 for the interactive class, and where no hold runs."""
        if owner == INTERACTIVE:
            return 0.0
        return max(0.0, self._held_until - time.monotonic())

    def _grant_in(self, delay_s: float) -> None:
        """Run a grant round in ``delay_s`` (once: that round arms the next if need be)."""
        if self._hold_timer is None:
            loop = asyncio.get_running_loop()
            self._hold_timer = loop.call_later(delay_s, self._held_grant)

    def _held_grant(self) -> None:
        self._hold_timer = None
        self._grant()

    def _holding(self) -> bool:
        """A hold keeps requests waiting that the limit would let through."""
        return self._hold_timer is not None

    def _cancel_hold(self) -> None:
        timer, self._hold_timer = self._hold_timer, None
        if timer is not None:
            timer.cancel()

    def _take(self, owner: str) -> None:
        step = self.step_s() if owner == INTERACTIVE else None
        if step is not None:
            until = time.monotonic() + INTERACTIVE_HOLD_STEPS * step
            self._held_until = max(self._held_until, until)
        self._in_flight += 1
        self._peak = max(self._peak, self._in_flight)
        self._held[owner] = self._held.get(owner, 0) + 1

    def _drop(self, owner: str, waiter: Waiter) -> None:
        queue = self._queues.get(owner)
        if queue is not None and waiter in queue:  # _grant may have skipped it already
            queue.remove(waiter)
            self._queued -= 1
            self._forget_if_empty(owner)
            self._grant()

    def _forget_if_empty(self, owner: str) -> None:
        if not self._queues[owner]:
            del self._queues[owner]


def _nobody() -> int:
    return 0
