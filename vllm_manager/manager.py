"""VLLMManager: bring vLLM up when, and only when, the GPU is free; give the GPU back when idle.

``ensure_ready()`` is a template method; subclasses implement only the hooks that say how vLLM
is launched, how to tell it is still alive, how to signal it and how to read its log
(``local.py``: this host; ``remote.py``: a JupyterLab terminal; ``none.py``: never launches).

Errors raised (all from ``common.errors``): ``GPUBusyError`` and ``GPUStatusUnknownError`` (the
GPU never became free within ``gpu_wait_s``), ``VLLMStartError`` (a vLLM exited while loading,
or never became healthy), ``LLMUnavailableError`` (manager ``none`` and vLLM down),
``JupyterError`` (the terminal API refused).

Usage: ``async with manager.work(): await manager.ensure_ready(progress); ...``. Entering
``work()`` first means the idle give-back cannot stop vLLM between the check and the first
request.

Sleep (issue 11, ``vllm_manager.sleep``): with ``ZT_VLLM_IDLE_ACTION`` sleep (or auto with the
host RAM for it) the idle give-back puts our vLLM to sleep (level 1) instead of stopping it,
only when drained: no ``work()`` open here, none admitted meanwhile (``ensure_ready`` waits on
the same lock and then wakes it), and vLLM's own ``/metrics`` shows no request of another
process. A sleeping vLLM answers ``/health``, so ``ensure_ready`` asks ``/is_sleeping`` too, and
wakes it — never launches another — once the free GPU memory covers what the wake takes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar, Protocol

import httpx

from common.errors import (
    GPUBusyError,
    GPUStatusUnknownError,
    LLMUnavailableError,
    VLLMStartError,
    ZTError,
)
from common.progress import Progress, ProgressSink, Stage, ignore_progress
from common.redact import mask_secrets
from common.settings import IdleAction, Settings
from vllm_manager.decision import (
    GPUDecision,
    LeaseInfo,
    decide,
    decide_wake,
    describe,
    gib,
)
from vllm_manager.gpu_model import GPUStatus
from vllm_manager.health import HEALTH_TIMEOUT_S, Health, check_health
from vllm_manager.lease import StartLease
from vllm_manager.report import gpu_summary, holders, lease_dict, waiting_message
from vllm_manager.sleep import (
    Marks,
    SleepBook,
    SleepClient,
    SleepRecord,
    choose_idle_action,
    confirm_sleep,
    launch_command,
    local_mem_available_mib,
    wake_need_mib,
)

log = logging.getLogger(__name__)

#: Health is polled this often while vLLM loads ("at most every second").
HEALTH_POLL_S = 0.5
#: Lines of a crashed vLLM's log quoted in the error.
LOG_TAIL_LINES = 25


class StatusReading(Protocol):
    @property
    def status(self) -> GPUStatus | None: ...

    @property
    def reason(self) -> str: ...


class StatusSource(Protocol):
    """What the manager needs of ``vllm_manager.gpu``'s sources: ``read()`` never raises."""

    async def read(self) -> StatusReading: ...


class VLLMState(StrEnum):
    UNKNOWN = "unknown"  # not checked yet
    DOWN = "down"  # last check: not answering, nothing being done about it
    WAITING_GPU = "waiting_gpu"  # another process holds the GPU, or its status is unknown
    STARTING = "starting"  # we launched vLLM, or wait for one that is loading
    READY = "ready"
    STOPPING = "stopping"
    SLEEPING = "sleeping"  # going to sleep: nothing is admitted until it is asleep
    ASLEEP = "asleep"  # our vLLM sleeps (level 1): ~1 GiB left on the GPU, wakes in seconds
    WAKING = "waking"
    FAILED = "failed"  # the last bring-up failed; the next ensure_ready() tries again
    CLOSED = "closed"


class VLLMManager(ABC):
    """The GPU's gatekeeper for one vLLM endpoint (``settings.llm_base_url``)."""

    #: Name used in status output ("local", "remote", "none").
    kind: ClassVar[str] = "base"
    #: False for a manager that only checks health and never starts vLLM.
    launches: ClassVar[bool] = True

    def __init__(
        self,
        settings: Settings,
        *,
        http_client: httpx.AsyncClient | None = None,
        status_source: StatusSource | None = None,
        lease_dir: Path | None = None,
    ) -> None:
        """``lease_dir``: where the start lease lives on this host (default
        ``settings.manager_dir``)."""
        self.settings = settings
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=HEALTH_TIMEOUT_S)
        self._gpu = status_source
        self._lease = StartLease(lease_dir or settings.manager_dir, settings.vllm_lease_s)
        self._lifecycle = asyncio.Lock()  # one bring-up or stop at a time, in this process
        self._task: asyncio.Task[None] | None = None
        self._sinks: list[ProgressSink] = []
        self._last_progress: Progress | None = None
        self._active_work = 0
        self._last_activity = time.monotonic()
        self._watcher: asyncio.Task[None] | None = None
        self.state = VLLMState.UNKNOWN
        self.last_error: str | None = None
        self.launches_here = 0  # launches sent by this object (for status and tests)
        self._sleep = SleepClient(self._http, self.base_url, settings)
        self._book = SleepBook(self._lease.directory)
        self._working = Marks(self._lease.directory / "work")
        self._going = Marks(self._lease.directory / "going-to-sleep")
        self._sleep_requested = False
        self._sleep_task: asyncio.Task[str] | None = None
        self.sleeps_here = 0
        self.wakes_here = 0
        self.wake_seconds_total = 0.0
        self.last_wake_s: float | None = None

    # --- the hooks ---------------------------------------------------------------------

    @abstractmethod
    async def _launch(self) -> int:
        """Start ``settings.vllm_command`` detached; return its pid once it wrote its pid file.

        The process must outlive us and the Jupyter terminal: own session, pid written by the
        child itself, output to :attr:`log_location`.
        """

    @abstractmethod
    async def _our_pid(self) -> int | None:
        """The pid of a live vLLM we (or a previous run of ours) launched, else None."""

    @abstractmethod
    async def _is_alive(self, pid: int) -> bool:
        """Whether the launched process ``pid`` still runs (a zombie does not)."""

    @abstractmethod
    async def _signal(self, pid: int, sig: signal.Signals) -> None:
        """Send ``sig`` to the process group of ``pid`` (vLLM's engine core is a child)."""

    @abstractmethod
    async def _log_tail(self, lines: int) -> str:
        """The last lines of the launched vLLM's log ('' if none)."""

    @abstractmethod
    async def _forget(self) -> None:
        """Remove the pid file of a vLLM that is gone, so a recycled pid is never signalled."""

    @property
    @abstractmethod
    def log_location(self) -> str:
        """Where the launched vLLM's log is, for messages ("host:path" for remote)."""

    async def _mem_available_mib(self) -> int | None:
        """MemAvailable of the host vLLM runs on (level-1 sleep puts the weights there)."""
        return local_mem_available_mib()

    @property
    def launch_command(self) -> str:
        """The command the ``_launch`` hook runs: ``vllm_command`` plus sleep mode if wanted."""
        return launch_command(self.settings)

    # --- public API --------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """vLLM's root URL: ``llm_base_url`` without its ``/v1`` suffix."""
        url = self.settings.llm_base_url.rstrip("/")
        return url[: -len("/v1")] if url.endswith("/v1") else url

    async def start(self) -> None:
        """Start background work (the idle give-back watcher)."""
        if (
            self.launches
            and self.settings.vllm_idle_shutdown_s > 0
            and (self._watcher is None or self._watcher.done())
        ):
            self._watcher = asyncio.create_task(self._idle_loop(), name="vllm-idle-watcher")

    async def aclose(self) -> None:
        """Stop background work and abandon an in-flight bring-up. Never stops vLLM."""
        for task in (self._watcher, self._task, self._sleep_task):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._watcher = self._task = self._sleep_task = None
        self.state = VLLMState.CLOSED
        if self._owns_http:
            await self._http.aclose()

    async def ensure_ready(self, progress: ProgressSink = ignore_progress) -> None:
        """Return once vLLM is healthy: ``/health`` 200 and ``llm_model`` in ``/v1/models``.

        Contract by situation:
        - healthy and awake: returns at once, no side effects beyond marking activity.
        - healthy but asleep (or going to sleep): a bring-up that wakes it (single flight, under
          the cross-process start lock) once the free GPU memory covers what the wake takes
          back; else BUSY, waited for and named exactly as for a launch. The wake is confirmed
          (``/is_sleeping`` false, prefix cache reset, a one-token probe) before this returns;
          a wake that fails stops that vLLM and starts a fresh one.
        - manager cannot launch (``none``): raises ``LLMUnavailableError`` (also when vLLM is
          asleep: waking it is the job of whoever manages it).
        - a bring-up is in flight in this process: joins it (one launch, any number of callers);
          the caller's ``progress`` receives the latest event, then every later one.
        - otherwise starts a bring-up: decide (under the cross-process start lock)
          IDLE -> take the lease, launch, wait until healthy (a vLLM that exits while loading
          fails at once with its log tail; ``vllm_ready_timeout_s`` caps the wait);
          VLLM_LOADING -> wait until healthy, re-deciding every ``gpu_poll_s``;
          BUSY / UNKNOWN -> never launch; re-check every ``gpu_poll_s`` up to ``gpu_wait_s``,
          then raise ``GPUBusyError`` naming who holds the GPU, or ``GPUStatusUnknownError``.
        Cancelling one caller does not cancel the shared bring-up.
        """
        self._touch()
        health = await self.health()
        if health.ok and not await self._asleep():
            if not self.launches and await self._sleep.is_sleeping():
                # Not ours to wake; a completion sent to a sleeping engine hangs or kills it.
                raise LLMUnavailableError(
                    f"vLLM at {self.base_url} is asleep (sleep mode); ZT_MANAGER=none: wake it "
                    "yourself (POST /wake_up)"
                )
            self.state = VLLMState.READY
            return
        if not self.launches:
            self.state = VLLMState.DOWN
            raise LLMUnavailableError(
                f"vLLM at {self.base_url} is not answering ({health.detail}); "
                "ZT_MANAGER=none, start it yourself"
            )
        # No await between the check and the create: callers in this loop share one task.
        if self._task is None or self._task.done():
            self._last_progress = None
            self._task = asyncio.create_task(self._bring_up(), name="vllm-bring-up")
            self._task.add_done_callback(_consume_exception)
        task = self._task
        self._sinks.append(progress)
        if self._last_progress is not None:
            progress(self._last_progress)
        try:
            await asyncio.shield(task)
        finally:
            self._sinks.remove(progress)
            self._touch()

    @contextlib.asynccontextmanager
    async def work(self) -> AsyncIterator[None]:
        """Mark a translation as running: the idle give-back never stops vLLM meanwhile."""
        self._active_work += 1
        self._touch()
        if self.launches:
            self._working.set()  # other processes of this host never sleep vLLM under it
        try:
            yield
        finally:
            self._active_work -= 1
            self._touch()
            if self._active_work == 0 and self.launches:
                self._working.clear()
            if self._active_work == 0 and self._sleep_requested:
                self._sleep_requested = False
                self._sleep_task = asyncio.create_task(self.sleep_vllm(), name="vllm-sleep")

    async def stop_vllm(self) -> bool:
        """Stop the vLLM we launched (SIGTERM, grace, SIGKILL). False if none of ours runs.

        A vLLM someone else started is never touched.
        """
        async with self._lifecycle:
            return await self._stop_locked()

    async def sleep_vllm(self) -> str:
        """Cooperative hand-back: put our vLLM to sleep now; one line saying what happened.

        Jobs of this process in progress finish first: the answer then says the sleep will
        happen when they do. Requests of other processes (seen in vLLM's ``/metrics``) are
        waited for, up to ``gpu_poll_s`` x 10. A vLLM without sleep mode, or one that slept
        ``ZT_VLLM_MAX_SLEEP_CYCLES`` times, is stopped instead: the card is freed either way.
        """
        if not self.launches:
            return "ZT_MANAGER=none: zotero-translate never sleeps or stops vLLM"
        if self._active_work:
            self._sleep_requested = True
            return f"vLLM will sleep when the {self._active_work} translation(s) in progress finish"
        async with self._lifecycle:
            pid = await self._our_pid()
            if pid is None:
                return "no vLLM launched by zotero-translate is running"
            if await self._sleep.is_sleeping():
                self.state = VLLMState.ASLEEP
                return f"vLLM (pid {pid}) is already asleep"
            deadline = time.monotonic() + self.settings.gpu_poll_s * 10
            while (await self._sleep.requests_in_flight() or 0) > 0:
                if time.monotonic() >= deadline:
                    return "vLLM is still serving requests of another process; not put to sleep"
                await asyncio.sleep(0.2)
            return await self._give_back_locked(explicit=True)

    async def wake_vllm(self, progress: ProgressSink = ignore_progress) -> str:
        """Wake our sleeping vLLM (as ``ensure_ready`` would); one line saying what happened.

        ``LLMUnavailableError`` when no vLLM answers at all: there is nothing to wake, and a
        script that asked for a wake must not go on as if the model were there."""
        if not await self._sleep.is_sleeping() and self.state is not VLLMState.ASLEEP:
            if not (await self.health()).ok:
                how = (
                    "`zotero-translate vllm start` starts one"
                    if self.launches
                    else f"ZT_MANAGER={self.kind}: start it yourself"
                )
                raise LLMUnavailableError(
                    f"no vLLM answers at {self.base_url}: nothing to wake ({how})"
                )
            return "vLLM is not asleep"
        await self.ensure_ready(progress)
        return f"vLLM awake in {self.last_wake_s or 0.0:.1f} s"

    async def start_decision(self) -> tuple[GPUDecision, StatusReading | None]:
        """What ``ensure_ready`` would meet now, doing none of it: no launch, no wake, no lease.

        IDLE: it would return or go ahead at once (vLLM healthy and awake, manager ``none``, a
        GPU free for a launch, a sleeping vLLM whose wake fits); VLLM_LOADING: it would wait for
        a vLLM that loads; BUSY / UNKNOWN: it would wait for the GPU. The reading is the GPU
        status the answer rests on (None when none was needed). Never raises for a GPU that
        cannot be read (UNKNOWN); a Jupyter failure reading our pid file propagates.
        """
        health = await self.health()
        if not self.launches or self._gpu is None:
            return GPUDecision.IDLE, None
        if health.ok:
            if not await self._asleep():
                return GPUDecision.IDLE, None
            reading = await self._gpu.read()
            pid = await self._our_pid()
            record = self._book.read(pid) if pid is not None else None
            need = wake_need_mib(reading.status, record, self.settings.vllm_keywords)
            return decide_wake(reading.status, need), reading
        if health.wrong_model:
            return GPUDecision.IDLE, None  # ensure_ready fails at once with the reason
        decision, reading, _ = await self._decide()
        return decision, reading

    async def health(self) -> Health:
        """One health check of ``base_url``; never raises."""
        key = self.settings.llm_api_key
        return await check_health(
            self._http,
            self.base_url,
            self.settings.llm_model,
            key.get_secret_value() if key else None,
        )

    async def snapshot(self) -> dict[str, Any]:
        """What `zotero-translate status` and the server's status page show. Never raises."""
        health = await self.health()
        state = self.state
        if state in (VLLMState.UNKNOWN, VLLMState.DOWN, VLLMState.READY):
            # Between bring-ups the health check just made is the fresher word.
            state = VLLMState.READY if health.ok else VLLMState.DOWN
        if health.ok and self.launches and state is VLLMState.READY:
            if await self._sleep.is_sleeping():
                state = VLLMState.ASLEEP
        snap: dict[str, Any] = {
            "manager": self.kind,
            "state": state.value,
            "server_pid": os.getpid(),
            "last_error": self.last_error,
            "active_work": self._active_work,
            "idle_for_s": round(time.monotonic() - self._last_activity, 1),
            "idle_shutdown_s": self.settings.vllm_idle_shutdown_s,
            "vllm": {
                "url": self.base_url,
                "model": self.settings.llm_model,
                "healthy": health.ok,
                "detail": health.detail,
            },
        }
        if not self.launches:
            return snap
        try:
            pid = await self._our_pid()
            snap["vllm"].update(pid=pid, ours=pid is not None, log=self.log_location)
        except ZTError as exc:
            snap["vllm"].update(pid=None, ours=None, error=str(exc))
        lease = self._lease.read()
        snap["lease"] = lease_dict(lease)
        snap["gpu"] = await self._gpu_snapshot(lease)
        record = self._book.read(snap["vllm"].get("pid"))
        snap["sleep"] = {
            "idle_action": IdleAction(self.settings.vllm_idle_action).value,
            "asleep": state is VLLMState.ASLEEP,
            "cycles": record.cycles if record else 0,
            "max_cycles": self.settings.vllm_max_sleep_cycles,
            "freed_mib": record.freed_mib if record else None,
            "sleeps": self.sleeps_here,
            "wakes": self.wakes_here,
            "wake_seconds_total": round(self.wake_seconds_total, 3),
            "last_wake_s": None if self.last_wake_s is None else round(self.last_wake_s, 3),
        }
        return snap

    # --- the template ------------------------------------------------------------------

    async def _bring_up(self) -> None:
        async with self._lifecycle:
            try:
                await self._bring_up_locked()
            except BaseException as exc:
                # A wake refused for lack of GPU memory leaves vLLM asleep, not failed.
                busy = isinstance(exc, (GPUBusyError, GPUStatusUnknownError))
                if not (busy and self.state is VLLMState.ASLEEP):
                    self.state = VLLMState.FAILED
                self.last_error = str(exc) or type(exc).__name__
                raise
            self.state = VLLMState.READY
            self.last_error = None
            self._emit(Stage.STARTING_LLM, "ready", state="ready")

    async def _bring_up_locked(self) -> None:
        s = self.settings
        gpu_since = time.monotonic()
        while True:
            health = await self.health()
            if health.ok:
                if self._going.others():
                    async with self._lease.locked():
                        pass  # another process is putting it to sleep: let it finish, then wake
                if not await self._sleep.is_sleeping() or await self._wake_locked():
                    return
                continue  # the wake failed and that vLLM was stopped: start a fresh one
            if health.wrong_model:
                # Waiting cannot fix this, and launching another would collide on the port.
                raise VLLMStartError(
                    f"vLLM at {self.base_url} is up but {health.detail}: "
                    "fix ZT_LLM_MODEL, or stop that vLLM (`zotero-translate vllm stop`)",
                    retry_after_s=300.0,
                )
            decision, reading, pid = await self._decide_and_maybe_launch()
            if decision is GPUDecision.IDLE:
                assert pid is not None
                await self._await_own_start(pid)
                return
            if decision is GPUDecision.VLLM_LOADING:
                if await self._await_other_start(reading, pid):
                    return
                gpu_since = time.monotonic()
                continue
            message = describe(decision, reading.status, reading.reason, s.vllm_keywords)
            waited = self._give_up_after_wait(decision, message, gpu_since)
            self.state = VLLMState.WAITING_GPU
            self._emit(
                Stage.WAITING_GPU,
                waiting_message(decision, reading.status, reading.reason, s.vllm_keywords),
                decision=decision.value,
                reason=message,
                waited_s=round(waited, 1),
                wait_limit_s=s.gpu_wait_s,
                holders=holders(reading.status, s.vllm_keywords),
            )
            await asyncio.sleep(min(s.gpu_poll_s, max(s.gpu_wait_s - waited, 0.0)))

    async def _decide(self) -> tuple[GPUDecision, StatusReading, int | None]:
        """The GPU decision, with our own live vLLM (pid file) counted as loading."""
        assert self._gpu is not None
        reading = await self._gpu.read()
        lease = self._lease.read()
        s = self.settings
        decision = decide(reading.status, lease, s.vllm_keywords, s.gpu_idle_mib, time.time())
        pid = None
        if decision is not GPUDecision.VLLM_LOADING:
            # Our pid file names a live vLLM: it is ours and loading (or broken), whatever the
            # GPU shows (under WSL2 nvidia-smi lists no processes, only used memory).
            pid = await self._our_pid()
            if pid is not None:
                decision = GPUDecision.VLLM_LOADING
        return decision, reading, pid

    async def _decide_and_maybe_launch(self) -> tuple[GPUDecision, StatusReading, int | None]:
        async with self._lease.locked():
            decision, reading, pid = await self._decide()
            if decision is not GPUDecision.IDLE:
                return decision, reading, pid
            self._lease.take()
            self.state = VLLMState.STARTING
            self._emit(Stage.STARTING_LLM, "starting vLLM", state="starting")
            try:
                pid = await self._launch()
            except BaseException:
                self._lease.release()
                raise
            self.launches_here += 1
            self._lease.mark_launched()
            log.info("launched vLLM (pid %s): %s", pid, mask_secrets(self.settings.vllm_command))
            return decision, reading, pid

    async def _await_own_start(self, pid: int) -> None:
        """Wait for the vLLM we launched; fail at once if it exits while loading."""
        s = self.settings
        started = time.monotonic()
        try:
            while True:
                health = await self.health()
                if health.ok:
                    return
                elapsed = time.monotonic() - started
                if not await self._is_alive(pid):
                    tail = (await self._log_tail(LOG_TAIL_LINES)).rstrip()
                    await self._forget()
                    raise VLLMStartError(
                        f"vLLM exited while loading (pid {pid}, after {elapsed:.0f} s); "
                        f"last lines of {self.log_location}:\n{tail or '(empty log)'}",
                        retry_after_s=60.0,
                    )
                if elapsed >= s.vllm_ready_timeout_s:
                    # A vLLM stuck in loading holds the card from everybody else: stop it.
                    await self._stop_locked()
                    raise VLLMStartError(
                        f"vLLM did not become healthy within {s.vllm_ready_timeout_s:g} s "
                        f"({health.detail}); stopped it. Log: {self.log_location}",
                        retry_after_s=60.0,
                    )
                self._report_loading(f"vLLM loading {elapsed:.0f} s", pid, elapsed)
                await asyncio.sleep(HEALTH_POLL_S)
        finally:
            self._lease.release()

    async def _await_other_start(self, reading: StatusReading, pid: int | None) -> bool:
        """Wait for a vLLM we did not launch in this bring-up. False: it went away; re-decide."""
        s = self.settings
        started = time.monotonic()
        next_decision = started + s.gpu_poll_s
        who = (
            f"our vLLM (pid {pid})"
            if pid is not None
            else describe(GPUDecision.VLLM_LOADING, reading.status, reading.reason, s.vllm_keywords)
        )
        while True:
            health = await self.health()
            if health.ok:
                return True
            now = time.monotonic()
            elapsed = now - started
            if elapsed >= s.vllm_ready_timeout_s:
                raise VLLMStartError(
                    f"waited {elapsed:.0f} s for a vLLM that is loading ({who}) and it never "
                    f"became healthy ({health.detail})",
                    retry_after_s=60.0,
                )
            if now >= next_decision:
                next_decision = now + s.gpu_poll_s
                decision, reading, _ = await self._decide()
                if decision is not GPUDecision.VLLM_LOADING:
                    return False
            self._report_loading(f"vLLM loading {elapsed:.0f} s (waiting for {who})", pid, elapsed)
            await asyncio.sleep(HEALTH_POLL_S)

    async def _stop_locked(self) -> bool:
        pid = await self._our_pid()
        if pid is None:
            return False
        self.state = VLLMState.STOPPING
        log.info("stopping vLLM (pid %s)", pid)
        # 1. SIGTERM the group: vLLM shuts its engine core down cleanly.
        # 2. Wait up to the grace period for the leader to exit.
        # 3. SIGKILL the group regardless: an orphaned engine core keeps its VRAM.
        # 4. Forget the pid file so a recycled pid is never signalled later.
        await self._signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + self.settings.vllm_stop_grace_s
        while await self._is_alive(pid) and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        await self._signal(pid, signal.SIGKILL)
        deadline = time.monotonic() + 5.0
        while await self._is_alive(pid) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        await self._forget()
        self._book.clear()
        self.state = VLLMState.DOWN
        return True

    # --- sleep and wake ----------------------------------------------------------------

    async def _asleep(self) -> bool:
        """Whether vLLM sleeps or is about to: our state, else ``/is_sleeping`` (one GET)."""
        if self.state in (VLLMState.SLEEPING, VLLMState.ASLEEP, VLLMState.WAKING):
            return True
        if not self.launches:
            return False
        # Another process of this host may be putting it to sleep right now.
        return bool(self._going.others()) or bool(await self._sleep.is_sleeping())

    async def _wake_locked(self) -> bool:
        """Wake the sleeping vLLM once the GPU has room. True: awake and confirmed; False: the
        wake failed and that vLLM (if ours) was stopped. Raises as a launch does when the GPU
        stays busy (``GPUBusyError`` naming the holders) or its status unknown."""
        s = self.settings
        since = time.monotonic()
        while True:
            async with self._lease.locked():
                # Another process may have woken it while we waited for the lock.
                if not await self._sleep.is_sleeping():
                    self.state = VLLMState.READY
                    return True
                assert self._gpu is not None
                reading = await self._gpu.read()
                pid = await self._our_pid()
                record = self._book.read(pid) if pid is not None else None
                need = wake_need_mib(reading.status, record, s.vllm_keywords)
                decision = decide_wake(reading.status, need)
                if decision is GPUDecision.IDLE:
                    return await self._wake_now(pid)
            message = describe(decision, reading.status, reading.reason, s.vllm_keywords)
            if reading.status is not None:
                free = reading.status.memory_total_mib - reading.status.memory_used_mib
                message += f"; waking vLLM takes back {gib(need)}, {gib(free)} free"
            waited = self._give_up_after_wait(decision, message, since)
            self.state = VLLMState.ASLEEP
            self._emit(
                Stage.WAITING_GPU,
                waiting_message(decision, reading.status, reading.reason, s.vllm_keywords)
                + " (vLLM asleep)",
                decision=decision.value,
                reason=message,
                waited_s=round(waited, 1),
                wait_limit_s=s.gpu_wait_s,
                holders=holders(reading.status, s.vllm_keywords),
            )
            await asyncio.sleep(min(s.gpu_poll_s, max(s.gpu_wait_s - waited, 0.0)))

    async def _wake_now(self, pid: int | None) -> bool:
        """``/wake_up``, then confirm: ``/is_sleeping`` false, prefix cache reset, a one-token
        probe. Any failure stops our vLLM (False) so a fresh one is started."""
        self.state = VLLMState.WAKING
        self._emit(Stage.STARTING_LLM, "waking vLLM", state="waking", pid=pid)
        started = time.monotonic()
        problem = await self._sleep.wake()
        if problem is None:
            for _ in range(50):  # the route returns when awake; allow a late flag
                if await self._sleep.is_sleeping() is False:
                    break
                await asyncio.sleep(0.1)
            else:
                problem = "/is_sleeping still true after /wake_up"
        if problem is None:
            # Stale prefix-cache entries after a wake were reported: start from an empty one.
            problem = await self._sleep.reset_prefix_cache() or await self._sleep.probe()
        if problem is not None:
            log.warning("waking vLLM failed (%s); stopping it", problem)
            if pid is None:
                raise VLLMStartError(f"waking vLLM failed: {problem}", retry_after_s=60.0)
            await self._stop_locked()
            return False
        took = time.monotonic() - started
        self.wakes_here += 1
        self.wake_seconds_total += took
        self.last_wake_s = took
        log.info("woke vLLM (pid %s) in %.1f s", pid, took)
        self.state = VLLMState.READY
        return True

    async def _give_back_locked(self, *, explicit: bool = False) -> str:
        """Sleep or stop our idle vLLM (under ``_lifecycle``; drained by the caller)."""
        pid = await self._our_pid()
        if pid is None:
            return "no vLLM launched by zotero-translate is running"
        if await self._sleep.is_sleeping():
            self.state = VLLMState.ASLEEP
            return f"vLLM (pid {pid}) is already asleep"
        record = self._book.read(pid)
        settings = self.settings
        if explicit and IdleAction(settings.vllm_idle_action) is IdleAction.STOP:
            settings = settings.model_copy(update={"vllm_idle_action": IdleAction.SLEEP})
        action, why = choose_idle_action(
            settings,
            sleep_routes=await self._sleep.is_sleeping() is not None,
            mem_available_mib=await self._mem_available_mib(),
            cycles=record.cycles if record else 0,
        )
        if action is IdleAction.SLEEP:
            # Under the start lock: a wake in another process waits for this sleep to end.
            async with self._lease.locked():
                # Checked and marked without an await in between: a paper arriving from now on
                # sees SLEEPING, waits for the lock, then wakes it.
                if self._active_work:
                    if explicit:
                        self._sleep_requested = True
                        return (
                            f"vLLM will sleep when the {self._active_work} translation(s) in "
                            "progress finish"
                        )
                    return "vLLM not put to sleep: a translation started meanwhile"
                self.state = VLLMState.SLEEPING
                self._going.set()
                try:
                    busy = self._working.others()
                    if busy:
                        self.state = VLLMState.READY
                        return (
                            "vLLM not put to sleep: translations are running in process "
                            + ", ".join(map(str, busy))
                        )
                    slept = await self._sleep_locked(pid, record)
                finally:
                    self._going.clear()
            if slept is not None:
                return slept
            why = "the sleep did not free the GPU"
        await self._stop_locked()
        return f"stopped vLLM (pid {pid}): {why}"

    async def _sleep_locked(self, pid: int, record: SleepRecord | None) -> str | None:
        """Level-1 sleep of our drained vLLM, confirmed on the GPU. None: it failed (the caller
        stops it)."""
        self.state = VLLMState.SLEEPING
        try:
            before = await self._gpu.read() if self._gpu is not None else None
            problem = await self._sleep.sleep(1)
            after = await self._gpu.read() if self._gpu is not None else None
        except BaseException:
            self.state = VLLMState.READY
            raise
        freed, confirmed = confirm_sleep(
            before.status if before else None,
            after.status if after else None,
            self.settings.vllm_keywords,
        )
        if problem is not None or not confirmed:
            log.warning("vLLM sleep failed (%s); stopping it", problem or f"freed {freed} MiB")
            return None
        cycles = (record.cycles if record else 0) + 1
        self._book.write(SleepRecord(pid, cycles, freed, time.time()))
        self.sleeps_here += 1
        self.state = VLLMState.ASLEEP
        log.info("vLLM (pid %s) asleep: %s freed (sleep %d)", pid, gib(freed), cycles)
        return f"vLLM (pid {pid}) asleep: {gib(freed)} of GPU memory freed (sleep {cycles})"

    # --- idle give-back ----------------------------------------------------------------

    async def _idle_loop(self) -> None:
        idle_s = self.settings.vllm_idle_shutdown_s
        interval = min(max(idle_s / 4, 0.05), 10.0)
        while True:
            await asyncio.sleep(interval)
            if not self._is_idle(idle_s) or self._lifecycle.locked():
                continue
            try:
                async with self._lifecycle:
                    if self.state is VLLMState.ASLEEP and not await self._sleep.is_sleeping():
                        self.state = VLLMState.READY  # another process woke it
                    if (
                        self._is_idle(idle_s)
                        and self.state is not VLLMState.ASLEEP
                        and not self._working.others()
                        and await self._our_pid() is not None
                        and (await self._sleep.requests_in_flight() or 0) == 0
                    ):
                        done = await self._give_back_locked()
                        log.info("after %.0f s without work: %s", idle_s, done)
            except ZTError as exc:  # Jupyter down, say: try again next round
                log.warning("idle give-back failed: %s", exc)
            except Exception:  # never let the watcher die: the GPU would never be given back
                log.exception("idle give-back failed")
            self._touch()

    def _is_idle(self, idle_s: float) -> bool:
        return self._active_work == 0 and time.monotonic() - self._last_activity >= idle_s

    # --- helpers -----------------------------------------------------------------------

    def _touch(self) -> None:
        self._last_activity = time.monotonic()

    def _give_up_after_wait(self, decision: GPUDecision, message: str, since: float) -> float:
        """Seconds waited for the GPU since ``since``; past ``ZT_GPU_WAIT_S`` raise the error of
        ``decision`` (BUSY or UNKNOWN) with ``message``, for a launch and a wake alike."""
        s = self.settings
        waited = time.monotonic() - since
        if waited >= s.gpu_wait_s:
            error = GPUBusyError if decision is GPUDecision.BUSY else GPUStatusUnknownError
            raise error(
                f"{message} (waited {waited:.0f} s, ZT_GPU_WAIT_S={s.gpu_wait_s:g})",
                retry_after_s=max(s.gpu_poll_s, 30.0),
            )
        return waited

    def _emit(self, stage: Stage, message: str, **data: Any) -> None:
        event = Progress(stage=stage, message=message, data=data)
        self._last_progress = event
        for sink in list(self._sinks):
            try:
                sink(event)
            except Exception:  # a broken subscriber must not break the bring-up
                log.exception("progress sink failed")

    def _report_loading(self, message: str, pid: int | None, elapsed: float) -> None:
        """State STARTING, and a "loading" event (once per distinct ``message``)."""
        self.state = VLLMState.STARTING
        self._emit_changed(
            Stage.STARTING_LLM,
            message,
            state="loading",
            pid=pid,
            elapsed_s=round(elapsed, 1),
            timeout_s=self.settings.vllm_ready_timeout_s,
        )

    def _emit_changed(self, stage: Stage, message: str, **data: Any) -> None:
        """Emit unless the last event said the same (health is polled twice a second)."""
        last = self._last_progress
        if last is None or (last.stage, last.message) != (stage, message):
            self._emit(stage, message, **data)

    async def _gpu_snapshot(self, lease: LeaseInfo | None) -> dict[str, Any]:
        if self._gpu is None:
            return {}
        reading = await self._gpu.read()
        return gpu_summary(reading.status, reading.reason, self.settings, lease)


def _consume_exception(task: asyncio.Task[None]) -> None:
    # Callers may all have been cancelled; the failure is reported to the next caller anyway.
    if not task.cancelled():
        task.exception()
