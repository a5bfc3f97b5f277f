"""Patient jobs (issue 16): wait in one queue for a busy GPU, for hours, at no cost.

``ensure_ready`` of the manager waits ``ZT_GPU_WAIT_S`` for a busy GPU and then fails: right
for a sync request, whose HTTP call would time out anyway. An async job (and ``translate
--wait-gpu``) is polled by the plugin for hours, so it may wait much longer:
``GPUWaitQueue.ensure_ready`` parks it until the GPU decision lets a bring-up go ahead, then
calls the manager's ``ensure_ready`` (whose lease keeps it to one launch however many jobs are
released together).

Contract:
- ONE poll loop for all waiters, every ``ZT_GPU_POLL_S``, alive only while someone waits. It
  asks ``VLLMManager.start_decision`` (no launch, no wake, no lease) and releases every waiter,
  in submission order (``order``: the job's creation time), when the answer is IDLE or
  VLLM_LOADING; BUSY and UNKNOWN keep them waiting.
- While waiting, each waiter's sink gets ``Stage.WAITING_GPU`` events whose message says who
  holds the GPU, how much, since when (first seen by this loop) and how many papers wait.
- A waiter gives up after its limit (``ZT_JOB_GPU_WAIT_S`` by default) with the error a sync
  request gets (``GPUBusyError`` / ``GPUStatusUnknownError`` naming the holder). Cancelling the
  awaiting task removes the waiter at once. A released job whose bring-up meets BUSY again
  (another tenant was quicker) goes back to waiting until its limit.
- ``WaitingBeacon`` tells the GPU status API how many papers wait (an authenticated heartbeat
  with a TTL) so its dashboard can show the person at the card that someone waits.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import itertools
import logging
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from pydantic import SecretStr

from common.errors import GPUBusyError, GPUStatusUnknownError
from common.progress import Progress, ProgressSink, Stage, ignore_progress
from common.settings import Settings
from vllm_manager.decision import GPUDecision, describe, foreign_processes, gib, short_command
from vllm_manager.gate import Gate
from vllm_manager.gpu_model import GPUStatus
from vllm_manager.report import holders

log = logging.getLogger(__name__)

#: What a job does while it actually waits (the server: give its job slot to the next job).
Aside = Callable[[], contextlib.AbstractAsyncContextManager[None]]

#: Script names that say nothing: ``…/ComfyUI/main.py`` is called after its folder.
_GENERIC_SCRIPTS = frozenset(
    {"main", "app", "server", "serve", "run", "launch", "start", "__main__"}
)


def holder_name(command: str) -> str:
    """A process's name as a person at the GPU knows it: ``python3 …/ComfyUI/main.py --listen``
    -> ``ComfyUI``, ``python -m whisper_server`` -> ``whisper_server``, ``/usr/bin/blender`` ->
    ``blender``. Unreadable command lines (``<unknown: …>``) are shortened, not parsed."""
    args = command.split()
    if not args or args[0].startswith("<"):
        return short_command(command, 40) or "?"
    program = args[0].rsplit("/", 1)[-1]
    if not program.startswith("python"):
        return program
    rest = iter(args[1:])
    for arg in rest:
        if arg == "-m":
            module = next(rest, "")
            return module.split(".")[0] or program
        if arg.startswith("-"):
            continue
        parts = [p for p in arg.split("/") if p]
        if not parts:
            return program
        stem = parts[-1].removesuffix(".py")
        if stem.lower() in _GENERIC_SCRIPTS and len(parts) > 1:
            return parts[-2]
        return stem
    return program


def _clock(epoch: float) -> str:
    return time.strftime("%H:%M", time.localtime(epoch))


def wait_message(
    decision: GPUDecision,
    status: GPUStatus | None,
    reason: str,
    keywords: list[str],
    seen: dict[int, float],
    blocked_since: float,
    papers: int,
) -> str:
    """The line a waiting job shows: ``waiting for the GPU: ComfyUI (pid 41) holds 20.0 GiB
    since 14:02; 2 papers waiting``. ``seen`` maps holder pids to when they were first seen
    holding it (epoch); ``blocked_since`` is when the GPU was first seen unavailable."""
    count = f"{papers} paper{'s' if papers != 1 else ''} waiting"
    if decision is GPUDecision.UNKNOWN or status is None:
        what = f"GPU status unknown ({reason or 'no status'})"
        return f"waiting for the GPU: {what} since {_clock(blocked_since)}; {count}"
    others = foreign_processes(status, keywords)
    if not others:
        what = f"{gib(status.memory_used_mib)} in use by processes nvidia-smi does not list"
        return f"waiting for the GPU: {what} since {_clock(blocked_since)}; {count}"
    top = others[0]
    since = seen.get(top.pid, blocked_since)
    more = f" (+{len(others) - 1} more)" if len(others) > 1 else ""
    return (
        f"waiting for the GPU: {holder_name(top.command)} (pid {top.pid}) holds "
        f"{gib(top.memory_mib)}{more} since {_clock(since)}; {count}"
    )


@dataclass(eq=False)
class _Waiter:
    order: float
    seq: int
    progress: ProgressSink
    started: float  # monotonic: when this job began waiting
    limit_s: float
    released: asyncio.Future[None]
    blocked: asyncio.Future[None]  # done once the GPU was found unavailable for this waiter
    told: str = ""  # the last message sent to ``progress``

    @property
    def key(self) -> tuple[float, int]:
        return self.order, self.seq


@dataclass
class _Blocked:
    """What the last poll saw while the GPU was not available."""

    decision: GPUDecision
    status: GPUStatus | None
    reason: str
    since: float  # epoch: first poll of this blocked spell
    seen: dict[int, float] = field(default_factory=dict)  # holder pid -> first seen (epoch)


class GPUWaitQueue:
    """The shared wait for a free GPU; see the module docstring. Event-loop only."""

    def __init__(
        self, manager: Gate, settings: Settings, *, beacon: WaitingBeacon | None = None
    ) -> None:
        self._manager = manager
        self._settings = settings
        self._beacon = beacon
        self._waiters: list[_Waiter] = []
        self._seq = itertools.count()
        self._poller: asyncio.Task[None] | None = None
        self._blocked: _Blocked | None = None
        #: Decisions asked since the start (status and tests).
        self.polls = 0

    @property
    def waiting(self) -> int:
        """Papers waiting for the GPU now."""
        return len(self._waiters)

    @property
    def held_back(self) -> int:
        """Papers the GPU really holds back now (it was found busy or unknown for them), not
        the ones passing through a free GPU's first look: what a page says is "waiting"."""
        return sum(1 for w in self._waiters if w.blocked.done()) if self._blocked else 0

    @property
    def polling(self) -> bool:
        """Whether the poll loop runs (only while someone waits)."""
        return self._poller is not None and not self._poller.done()

    def patient(
        self,
        *,
        order: float | None = None,
        limit_s: float | None = None,
        aside: Aside | None = None,
    ) -> PatientReady:
        """An ``ensure_ready`` for one job that waits here; ``order`` ranks it (its creation
        time, default now), ``limit_s`` caps the wait (default ``ZT_JOB_GPU_WAIT_S``),
        ``aside`` is entered for as long as the job really waits (not when the GPU is free)."""
        limit = self._settings.job_gpu_wait_s if limit_s is None else limit_s
        return PatientReady(self, time.time() if order is None else order, limit, aside)

    async def would_wait(self) -> bool:
        """Whether a job arriving now would wait: others wait already, or the decision says
        BUSY or UNKNOWN. Launches nothing."""
        if self._waiters:
            return True
        try:
            decision, _ = await self._manager.start_decision()
        except Exception:  # unknown: the wait will say why
            return True
        return decision in (GPUDecision.BUSY, GPUDecision.UNKNOWN)

    async def ensure_ready(
        self,
        progress: ProgressSink = ignore_progress,
        *,
        order: float | None = None,
        limit_s: float | None = None,
        aside: Aside | None = None,
    ) -> None:
        """Return once vLLM is ready, waiting for a busy GPU up to ``limit_s`` (see the module
        docstring). A limit of 0 is the manager's own wait (``ZT_GPU_WAIT_S``)."""
        limit = self._settings.job_gpu_wait_s if limit_s is None else limit_s
        if limit <= 0:
            await self._manager.ensure_ready(progress)
            return
        rank = time.time() if order is None else order
        started = time.monotonic()
        while True:
            await self._wait_turn(progress, rank, started, limit, aside)
            try:
                await self._manager.ensure_ready(progress)
                return
            except (GPUBusyError, GPUStatusUnknownError):
                if time.monotonic() - started >= limit:
                    raise
                log.info("the GPU was taken again before vLLM came up; the job waits again")

    async def _wait_turn(
        self,
        progress: ProgressSink,
        order: float,
        started: float,
        limit: float,
        aside: Aside | None,
    ) -> None:
        loop = asyncio.get_running_loop()
        waiter = _Waiter(
            order,
            next(self._seq),
            progress,
            started,
            limit,
            loop.create_future(),
            loop.create_future(),
        )
        bisect.insort(self._waiters, waiter, key=lambda w: w.key)
        if self._blocked is not None:
            self._tell_all()  # the newcomer hears at once; the others see the new count
        if not self.polling:
            self._poller = asyncio.create_task(self._poll(), name="gpu-wait-poll")
        self._note()
        try:
            async with asyncio.timeout(max(limit - (time.monotonic() - started), 0.0)):
                await asyncio.wait(
                    {waiter.released, waiter.blocked}, return_when=asyncio.FIRST_COMPLETED
                )
                if waiter.released.done() or aside is None:
                    await asyncio.shield(waiter.released)
                else:
                    async with aside():
                        await asyncio.shield(waiter.released)
        except TimeoutError:
            if not waiter.released.done():
                raise self._give_up(waiter) from None
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)
                self._tell_all()
                self._note()

    async def _poll(self) -> None:
        """The one loop: decide, release or tell, sleep; ends when nobody waits."""
        s = self._settings
        while self._waiters:
            try:
                decision, reading = await self._manager.start_decision()
                status, reason = (reading.status, reading.reason) if reading else (None, "")
            except Exception as exc:  # Jupyter down, say: unknown, ask again next round
                decision, status, reason = GPUDecision.UNKNOWN, None, str(exc)
            self.polls += 1
            if decision in (GPUDecision.IDLE, GPUDecision.VLLM_LOADING):
                if self._blocked is not None:
                    log.info("GPU available (%s): %d job(s) go ahead", decision, self.waiting)
                self._blocked = None
                released, self._waiters = self._waiters, []
                for waiter in released:  # submission order: the first takes the lease
                    if not waiter.released.done():
                        waiter.released.set_result(None)
            else:
                self._see(decision, status, reason)
                self._tell_all()
            self._note()
            if not self._waiters:
                break
            await asyncio.sleep(s.gpu_poll_s)
        # No await between the last test and the end: a newcomer starts a new loop and a new
        # view (one from a spell nobody waits in any more would be stale).
        self._blocked = None

    def _see(self, decision: GPUDecision, status: GPUStatus | None, reason: str) -> None:
        now = time.time()
        blocked = self._blocked
        if blocked is None:
            blocked = self._blocked = _Blocked(decision, status, reason, now)
            log.info(
                "%d job(s) wait for the GPU: %s",
                self.waiting,
                describe(decision, status, reason, self._settings.vllm_keywords),
            )
        blocked.decision, blocked.status, blocked.reason = decision, status, reason
        pids = (
            {p.pid for p in foreign_processes(status, self._settings.vllm_keywords)}
            if status is not None
            else set()
        )
        blocked.seen = {pid: blocked.seen.get(pid, now) for pid in pids}

    def _tell_all(self) -> None:
        blocked = self._blocked
        if blocked is None:
            return
        keywords = self._settings.vllm_keywords
        message = wait_message(
            blocked.decision,
            blocked.status,
            blocked.reason,
            keywords,
            blocked.seen,
            blocked.since,
            self.waiting,
        )
        now = time.monotonic()
        for position, waiter in enumerate(self._waiters, start=1):
            if not waiter.blocked.done():
                waiter.blocked.set_result(None)
            if waiter.told == message:
                continue
            waiter.told = message
            data: dict[str, Any] = {
                "decision": blocked.decision.value,
                "reason": describe(blocked.decision, blocked.status, blocked.reason, keywords),
                "holders": holders(blocked.status, keywords),
                "waiting": self.waiting,
                "position": position,
                "blocked_since": blocked.since,
                "waited_s": round(now - waiter.started, 1),
                "wait_limit_s": waiter.limit_s,
            }
            try:
                waiter.progress(Progress(Stage.WAITING_GPU, message, data=data))
            except Exception:  # a broken subscriber must not stop the queue
                log.exception("progress sink failed")

    def _give_up(self, waiter: _Waiter) -> Exception:
        waited = time.monotonic() - waiter.started
        tail = f" (waited {waited:.0f} s, ZT_JOB_GPU_WAIT_S={waiter.limit_s:g})"
        retry = max(self._settings.gpu_poll_s, 30.0)
        blocked = self._blocked
        if blocked is None:
            return GPUStatusUnknownError("GPU status not read yet" + tail, retry_after_s=retry)
        message = describe(
            blocked.decision, blocked.status, blocked.reason, self._settings.vllm_keywords
        )
        error = GPUBusyError if blocked.decision is GPUDecision.BUSY else GPUStatusUnknownError
        return error(message + tail, retry_after_s=retry)

    def _note(self) -> None:
        if self._beacon is not None:
            self._beacon.note(self.waiting)

    async def aclose(self) -> None:
        """Stop the poll loop (waiters are the jobs' to cancel) and the beacon."""
        if self._poller is not None and not self._poller.done():
            self._poller.cancel()
            await asyncio.gather(self._poller, return_exceptions=True)
        if self._beacon is not None:
            await self._beacon.aclose()


@dataclass(frozen=True)
class PatientReady:
    """One job's way to the LLM through the queue (``GPUWaitQueue.patient``): an
    ``EnsureReady`` and a ``translation.pipeline.WaitsOutside``."""

    queue: GPUWaitQueue
    order: float
    limit_s: float
    aside: Aside | None = None

    async def __call__(self, progress: ProgressSink = ignore_progress) -> None:
        await self.queue.ensure_ready(
            progress, order=self.order, limit_s=self.limit_s, aside=self.aside
        )

    async def would_wait(self) -> bool:
        return self.limit_s > 0 and await self.queue.would_wait()


class WaitingBeacon:
    """Tells the GPU status API how many papers wait: ``POST {url}/waiting`` with the Bearer
    token and ``{"client", "papers", "ttl_s"}``. Sent when the count changes, and again every
    ``ttl_s / 3`` while it is not 0, so a server that dies stops counting after ``ttl_s``. One
    request at a time; failures are logged, never raised."""

    def __init__(
        self,
        url: str,
        token: SecretStr | str | None,
        http_client: httpx.AsyncClient,
        *,
        ttl_s: float,
        client_id: str | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self._token = token.get_secret_value() if isinstance(token, SecretStr) else token
        self._http = http_client
        self.ttl_s = ttl_s
        self.client_id = (client_id or f"{socket.gethostname()}:{os.getpid()}")[:64]
        self._wanted = 0
        self._sent: int | None = None
        self._sent_at = 0.0
        self._task: asyncio.Task[None] | None = None
        self._failed = False

    @classmethod
    def from_settings(
        cls, settings: Settings, http_client: httpx.AsyncClient
    ) -> WaitingBeacon | None:
        """A beacon to ``ZT_GPU_API_URL``, or None when the GPU is probed in process."""
        if not settings.gpu_api_url:
            return None
        ttl = max(settings.gpu_poll_s * 3, 30.0)
        return cls(settings.gpu_api_url, settings.gpu_api_token, http_client, ttl_s=ttl)

    def note(self, papers: int) -> None:
        """The count now; sends it soon if it changed or the heartbeat is due."""
        self._wanted = papers
        if self._due() and (self._task is None or self._task.done()):
            self._task = asyncio.create_task(self._send(), name="gpu-wait-beacon")

    def _due(self) -> bool:
        if self._wanted != self._sent:
            return True
        return self._wanted > 0 and time.monotonic() - self._sent_at >= self.ttl_s / 3

    async def _send(self) -> None:
        while self._due():
            papers = self._wanted
            headers = {"Authorization": f"Bearer {self._token}"} if self._token else {}
            body = {"client": self.client_id, "papers": papers, "ttl_s": self.ttl_s}
            try:
                response = await self._http.post(
                    f"{self.url}/waiting", json=body, headers=headers, timeout=5.0
                )
                response.raise_for_status()
            except httpx.HTTPError as exc:
                if not self._failed:
                    log.warning("could not tell the GPU API that %d papers wait: %s", papers, exc)
                self._failed = True
                return  # the next note() tries again
            self._failed = False
            self._sent, self._sent_at = papers, time.monotonic()

    async def aclose(self, grace_s: float = 2.0) -> None:
        """Let a last word in flight (often "0 papers") arrive for up to ``grace_s``."""
        if self._task is not None and not self._task.done():
            _, pending = await asyncio.wait({self._task}, timeout=grace_s)
            for task in pending:
                task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
