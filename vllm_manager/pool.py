"""HostPool: several GPU hosts, each with its own gatekeeper, run as one.

Every host keeps its own ``VLLMManager`` (its GPU decision, start lease, idle give-back, sleep
and wake): the pool never starts or wakes a host over a tenant, because it only ever brings a
host up through that host's ``ensure_ready``. What the pool adds is WHICH hosts take work:

- a host is READY when its vLLM answers, is awake and no other tenant sits on its GPU; only
  READY hosts take requests (whoever composes the pool is told through ``on_ready``);
- ``ensure_ready`` (a paper about to send its first request) returns at once when any host is
  ready, else brings up ONE host: a sleeping one (seconds) before a loading one before a
  stopped one (minutes), the heavier first among equals;
- while a translation runs (``work()``), a watcher looks at every host each ``gpu_poll_s``
  (idle, whoever shows the status looks, with :meth:`refresh`): a ready host whose vLLM stops
  answering, falls asleep or gets a tenant beside it is closed at once (its requests in flight
  finish or are sent elsewhere by the caller); a host that answers again opens; and while work
  waits,
  one more host is brought up when the queue would take longer than that host's bring-up
  (``should_bring_up``). A 3-page paper therefore never wakes a second card.

``demand`` is how the pool hears of the queue: ``(requests waiting, seconds the ready hosts
need to drain them)``, from whoever dispatches the requests; this package imports nothing of
that code. A pool of one host is never built: one host is the plain manager.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from common.errors import GPUBusyError, GPUStatusUnknownError, LLMUnavailableError, ZTError
from common.progress import Progress, ProgressSink, Stage, ignore_progress
from vllm_manager.decision import GPUDecision, describe
from vllm_manager.gpu_model import GPUReading
from vllm_manager.manager import VLLMManager

log = logging.getLogger(__name__)

#: (requests waiting, seconds the ready hosts need to drain them).
DemandFn = Callable[[], tuple[int, float]]
#: Told (host name, ready, why not) whenever a host opens or closes.
ReadyFn = Callable[[str, bool, str], None]


class HostState(StrEnum):
    READY = "ready"  # answers, awake, alone on its GPU: takes requests
    DRAINING = "draining"  # answers, but another tenant arrived: no new requests
    BRINGING_UP = "bringing_up"  # the pool is waking or starting it
    ASLEEP = "asleep"  # our vLLM sleeps and its wake fits: seconds away
    LOADING = "loading"  # a vLLM is loading there
    STOPPED = "stopped"  # no vLLM; its GPU is free for a start: minutes away
    BUSY = "busy"  # someone else holds its GPU
    UNKNOWN = "unknown"  # its GPU status cannot be read
    DOWN = "down"  # a vLLM we do not manage that does not answer


#: The states a host can be brought up from, cheapest first.
_BRINGABLE = (HostState.ASLEEP, HostState.LOADING, HostState.STOPPED)


@dataclass
class Host:
    """One GPU host of the pool and what the pool last saw of it."""

    name: str
    manager: VLLMManager
    weight: float = 1.0
    wake_s: float = 20.0
    start_s: float = 180.0
    state: HostState = HostState.UNKNOWN
    #: Who holds its GPU or why it is not ready (one line), for the status display.
    holder: str = ""
    bring_ups: int = 0
    _task: asyncio.Task[None] | None = field(default=None, repr=False)

    def bring_up_s(self) -> float:
        """What bringing it up is expected to take now (a measured wake beats the setting)."""
        if self.state is HostState.ASLEEP:
            return self.manager.last_wake_s or self.wake_s
        return 0.0 if self.state is HostState.LOADING else self.start_s

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "state": self.state.value,
            "holder": self.holder or None,
            "manager": self.manager.kind,
            "url": self.manager.base_url,
            "weight": self.weight,
            "bring_ups": self.bring_ups,
            "last_error": self.manager.last_error,
        }


def should_bring_up(queued: int, drain_s: float, bring_up_s: float) -> bool:
    """Bring one more host up only while work waits and the queue would outlast the bring-up."""
    return queued > 0 and drain_s > bring_up_s


def bring_up_order(hosts: Sequence[Host]) -> list[Host]:
    """Hosts that could be brought up, the cheapest first (asleep, loading, stopped), the
    heavier first among equals."""
    ranked = [h for h in hosts if h.state in _BRINGABLE and h._task is None]
    return sorted(ranked, key=lambda h: (_BRINGABLE.index(h.state), -h.weight))


class HostPool:
    """Several hosts' gatekeepers as one; see the module docstring."""

    def __init__(
        self,
        hosts: Sequence[Host],
        *,
        poll_s: float,
        wait_s: float,
        on_ready: ReadyFn,
        demand: DemandFn,
    ) -> None:
        if len(hosts) < 2:
            raise ValueError("a pool has at least two hosts")
        self.hosts = list(hosts)
        self._poll_s = poll_s
        self._wait_s = wait_s
        self._on_ready = on_ready
        self._demand = demand
        self._watcher: asyncio.Task[None] | None = None
        self._working = 0  # translations inside work(): the watcher looks only meanwhile

    @property
    def primary(self) -> VLLMManager:
        """The first host's manager (``vllm start|stop`` and single-host displays)."""
        return self.hosts[0].manager

    def host(self, name: str) -> Host:
        return next(h for h in self.hosts if h.name == name)

    async def start(self) -> None:
        for host in self.hosts:
            await host.manager.start()
        await self.refresh()
        self._watcher = asyncio.create_task(self._watch(), name="host-pool")

    async def aclose(self) -> None:
        tasks = [self._watcher, *(h._task for h in self.hosts)]
        for task in tasks:
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        for host in self.hosts:
            await host.manager.aclose()

    # --- what a job calls ----------------------------------------------------------------

    async def ensure_ready(self, progress: ProgressSink = ignore_progress) -> None:
        """Return once at least one host is ready, bringing up one if none is (see the module
        docstring); a host whose bring-up fails is passed over for the next (its error is raised
        when it was the last). Waits for busy hosts up to ``gpu_wait_s`` and then raises
        ``GPUBusyError`` (or ``GPUStatusUnknownError``, or ``LLMUnavailableError`` when no host
        can be brought up at all), naming every host."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._wait_s
        failed: set[str] = set()  # hosts whose bring-up failed in this call: not again
        while True:
            await self.refresh()
            if any(h.state is HostState.READY for h in self.hosts):
                return
            order = [h for h in bring_up_order(self.hosts) if h.name not in failed]
            if order:
                host = order[0]
                progress(Progress(Stage.STARTING_LLM, f"bringing up GPU host {host.name}"))
                try:
                    await self._bring_up(host, progress)
                    return
                except ZTError as exc:
                    failed.add(host.name)
                    if len(order) == 1:
                        raise
                    progress(
                        Progress(
                            Stage.STARTING_LLM,
                            f"GPU host {host.name} did not come up ({exc}); trying another",
                        )
                    )
                    continue
            running = [h._task for h in self.hosts if h._task is not None]
            if running:
                await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                continue
            if loop.time() >= deadline:
                raise self._refusal()
            progress(Progress(Stage.WAITING_GPU, "waiting for a GPU host: " + self.summary()))
            await asyncio.sleep(self._poll_s)

    async def start_decision(self) -> tuple[GPUDecision, GPUReading | None]:
        """What ``ensure_ready`` would meet now, doing none of it: the best of the hosts'
        decisions (IDLE if any host is ready or could be brought up at once)."""
        await self.refresh()
        states = {h.state for h in self.hosts}
        if states & {HostState.READY, HostState.ASLEEP, HostState.STOPPED, HostState.BRINGING_UP}:
            return GPUDecision.IDLE, None
        if HostState.LOADING in states:
            return GPUDecision.VLLM_LOADING, None
        if HostState.BUSY in states or HostState.DRAINING in states:
            return GPUDecision.BUSY, None
        return GPUDecision.UNKNOWN, None

    @contextlib.asynccontextmanager
    async def work(self) -> AsyncIterator[None]:
        """A translation runs: no host's idle give-back stops its vLLM meanwhile."""
        self._working += 1
        try:
            async with contextlib.AsyncExitStack() as stack:
                for host in self.hosts:
                    await stack.enter_async_context(host.manager.work())
                yield
        finally:
            self._working -= 1

    def lost(self, name: str, why: str) -> None:
        """A request found ``name``'s vLLM gone: closed until a look sees it ready again."""
        self._set(self.host(name), HostState.DOWN, why)

    def summary(self) -> str:
        """One line: every host and its state (and holder)."""
        return "; ".join(
            f"{h.name} {h.state.value}" + (f" ({h.holder})" if h.holder else "") for h in self.hosts
        )

    def to_list(self) -> list[dict[str, Any]]:
        return [h.to_dict() for h in self.hosts]

    # --- looking and bringing up ---------------------------------------------------------

    async def refresh(self) -> None:
        """Look at every host now and open or close each one accordingly."""
        await asyncio.gather(*(self._refresh_one(h) for h in self.hosts))

    async def _refresh_one(self, host: Host) -> None:
        try:
            state, holder = await self._look(host.manager)
        except Exception as exc:  # a Jupyter that does not answer, say: unknown this round
            state, holder = HostState.UNKNOWN, str(exc)
        if host._task is not None and state is not HostState.READY:
            state = HostState.BRINGING_UP
        self._set(host, state, holder)

    def _set(self, host: Host, state: HostState, holder: str) -> None:
        was_ready = host.state is HostState.READY
        host.state, host.holder = state, holder
        ready = state is HostState.READY
        if ready != was_ready:
            log.info("GPU host %s: %s %s", host.name, state.value, holder)
            self._on_ready(host.name, ready, f"{state.value}: {holder}" if holder else state.value)

    @staticmethod
    async def _look(manager: VLLMManager) -> tuple[HostState, str]:
        health = await manager.health()
        if health.ok and not await manager.asleep():
            tenant = await manager.tenant()
            return (HostState.DRAINING, tenant) if tenant else (HostState.READY, "")
        if not manager.launches:
            return HostState.DOWN, health.detail
        decision, reading = await manager.start_decision()
        line = describe(
            decision,
            reading.status if reading else None,
            reading.reason if reading else "",
            manager.settings.vllm_keywords,
        )
        if decision is GPUDecision.IDLE:
            return (HostState.ASLEEP, "") if health.ok else (HostState.STOPPED, "")
        if decision is GPUDecision.VLLM_LOADING:
            return HostState.LOADING, line
        if decision is GPUDecision.BUSY:
            return HostState.BUSY, line
        return HostState.UNKNOWN, line

    async def _bring_up(self, host: Host, progress: ProgressSink = ignore_progress) -> None:
        if host._task is None:
            host.bring_ups += 1
            self._set(host, HostState.BRINGING_UP, "")
            host._task = asyncio.create_task(
                host.manager.ensure_ready(progress), name=f"bring-up-{host.name}"
            )
            host._task.add_done_callback(lambda _: self._brought_up(host))
        await asyncio.shield(host._task)

    def _brought_up(self, host: Host) -> None:
        task, host._task = host._task, None
        if task is not None and not task.cancelled() and task.exception() is not None:
            log.warning("GPU host %s did not come up: %s", host.name, task.exception())
            self._set(host, HostState.UNKNOWN, str(task.exception()))
            return
        # Until the next look says otherwise: the manager's ensure_ready returned.
        self._set(host, HostState.READY, "")

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self._poll_s)
            if not self._working:
                continue  # idle: the next paper's ensure_ready looks first anyway
            try:
                await self.refresh()
                self._scale()
            except Exception:  # a bug here must never stall the translations
                log.exception("host pool: a look at the hosts failed")

    def _scale(self) -> None:
        """While work waits: bring up one more host if the queue outlasts its bring-up."""
        queued, drain_s = self._demand()
        if queued <= 0 or any(h._task is not None for h in self.hosts):
            return
        for host in bring_up_order(self.hosts):
            if should_bring_up(queued, drain_s, host.bring_up_s()):
                log.info(
                    "GPU host %s joins: %d requests waiting, ~%.0f s to drain",
                    host.name,
                    queued,
                    drain_s if math.isfinite(drain_s) else -1,
                )
                task = asyncio.ensure_future(self._bring_up(host))
                task.add_done_callback(_consume)
            return

    def _refusal(self) -> Exception:
        text = "no GPU host can take the work: " + self.summary()
        states = {h.state for h in self.hosts}
        if HostState.BUSY in states or HostState.DRAINING in states:
            return GPUBusyError(text)
        if HostState.UNKNOWN in states:
            return GPUStatusUnknownError(text)
        return LLMUnavailableError(text)


def _consume(task: asyncio.Future[None]) -> None:
    if not task.cancelled():
        task.exception()
