"""VLLMManager: bring vLLM up when, and only when, the GPU is free; give the GPU back when idle.

One class, composed with a :class:`~vllm_manager.launcher.Launcher` (how vLLM is started on its
host: local, JupyterLab, or none) and a readiness probe (how a woken vLLM is confirmed; built by
whoever builds the manager, see ``vllm_manager.factory``). It holds its parts:
``bring_up.BringUp`` (the launch path), ``sleep_cycle.SleepCycle`` (sleep and wake),
``idle.IdleWatcher`` (the idle give-back), all acting on one ``endpoint.Endpoint``.

Errors raised (all from ``common.errors``): ``GPUBusyError`` and ``GPUStatusUnknownError`` (the
GPU never became free within ``gpu_wait_s``), ``VLLMStartError`` (a vLLM exited while loading,
or never became healthy), ``LLMUnavailableError`` (manager ``none`` and vLLM down),
``JupyterError`` (the terminal API refused).

Usage: ``async with manager.work(): await manager.ensure_ready(progress); ...``. Entering
``work()`` first means the idle give-back cannot stop vLLM between the check and the first
request.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import httpx

from common.errors import LLMUnavailableError, ZTError
from common.progress import ProgressSink, ignore_progress
from common.settings import IdleAction, ManagerKind, Settings
from common.vllm_identity import command_batch
from vllm_manager.activity import Activity
from vllm_manager.bring_up import BringUp
from vllm_manager.choice import ManagerChoice
from vllm_manager.decision import GPUDecision, describe, foreign_processes
from vllm_manager.endpoint import Endpoint
from vllm_manager.gpu_model import GPUReading, StatusSource
from vllm_manager.health import Health
from vllm_manager.idle import IdleWatcher
from vllm_manager.launcher import Launcher
from vllm_manager.report import gpu_summary, lease_dict
from vllm_manager.sleep_cycle import ReadinessProbe, SleepCycle
from vllm_manager.snapshot import ManagerSnapshot, SleepInfo, VLLMInfo
from vllm_manager.state import VLLMState


class VLLMManager:
    """The GPU's gatekeeper for one vLLM endpoint (``settings.llm_base_url``)."""

    def __init__(
        self,
        settings: Settings,
        launcher: Launcher,
        *,
        probe: ReadinessProbe,
        http_client: httpx.AsyncClient | None = None,
        status_source: StatusSource | None = None,
        choice: ManagerChoice | None = None,
    ) -> None:
        """``choice`` says why this manager is in use (status output shows it; default: the
        launcher's kind as set explicitly). ``http_client`` is borrowed for health checks and
        vLLM's routes (without one the manager opens its own and closes it in :meth:`aclose`).
        ``status_source`` None: the GPU is never read, which only a launcher that never
        launches can do without."""
        self.settings = settings
        self.launcher = launcher
        self.choice = choice or ManagerChoice.explicit(ManagerKind(launcher.kind))
        self._endpoint = Endpoint(
            settings, launcher, http_client=http_client, status_source=status_source
        )
        self._activity = Activity()
        self._cycle = SleepCycle(self._endpoint, self._activity, probe)
        self._bring_up = BringUp(self._endpoint, self._cycle)
        self._idle = IdleWatcher(self._endpoint, self._activity, self._cycle)
        self._task: asyncio.Task[None] | None = None  # the bring-up in flight, shared
        self._sleep_task: asyncio.Task[str] | None = None  # a hand-back deferred by work()

    # --- what status output and metrics read ---------------------------------------------

    @property
    def kind(self) -> str:
        """ "local", "remote" or "none" (the launcher's)."""
        return self.launcher.kind

    @property
    def launches(self) -> bool:
        """False for a manager that only checks health and never starts vLLM."""
        return self.launcher.launches

    @property
    def launch_batch(self) -> int | None:
        """The batch size (``--max-num-seqs``) of the command this manager starts vLLM with;
        None for one that never starts vLLM, or a command that names none (a launch profile's
        own ``--settings`` then print ``ZT_CONCURRENCY_MAX`` to match). The adaptive limit keeps
        a slot of it free for a reader's selection before it has seen the batch bind."""
        return command_batch(self.settings.vllm_command) if self.launches else None

    @property
    def base_url(self) -> str:
        """vLLM's root URL: ``llm_base_url`` without its ``/v1`` suffix."""
        return self._endpoint.base_url

    @property
    def state(self) -> VLLMState:
        return self._endpoint.state

    @property
    def last_error(self) -> str | None:
        """Why the last bring-up failed (None once one succeeds)."""
        return self._bring_up.last_error

    @property
    def launches_here(self) -> int:
        """Launches sent by this manager."""
        return self._bring_up.launches

    @property
    def sleeps_here(self) -> int:
        return self._cycle.sleeps

    @property
    def wakes_here(self) -> int:
        return self._cycle.wakes

    @property
    def last_wake_s(self) -> float | None:
        return self._cycle.last_wake_s

    # --- lifecycle of the manager itself -------------------------------------------------

    async def start(self) -> None:
        """Start background work (the idle give-back watcher)."""
        self._idle.start()

    async def aclose(self) -> None:
        """Stop background work and abandon an in-flight bring-up. Never stops vLLM."""
        await self._idle.aclose()
        for task in (self._task, self._sleep_task):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._task = self._sleep_task = None
        self._endpoint.state = VLLMState.CLOSED
        await self._endpoint.aclose()

    # --- public API ----------------------------------------------------------------------

    async def ensure_ready(self, progress: ProgressSink = ignore_progress) -> None:
        """Return once vLLM is healthy: ``/health`` 200 and ``llm_model`` in ``/v1/models``.

        Contract by situation:
        - healthy and awake: returns at once, no side effects beyond marking activity.
        - healthy but asleep (or going to sleep): a bring-up that wakes it (single flight, under
          the cross-process start lock) once the free GPU memory covers what the wake takes
          back; else BUSY, waited for and named exactly as for a launch. The wake is confirmed
          (``/is_sleeping`` false, prefix cache reset, the readiness probe) before this
          returns; a wake that fails stops that vLLM and starts a fresh one.
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
        e = self._endpoint
        self._activity.touch()
        health = await e.health()
        if health.ok and not await self._cycle.asleep():
            if not self.launches and await e.routes.is_sleeping():
                # Not ours to wake; a completion sent to a sleeping engine hangs or kills it.
                raise LLMUnavailableError(
                    f"vLLM at {self.base_url} is asleep (sleep mode); ZT_MANAGER=none: wake it "
                    "yourself (POST /wake_up)"
                )
            e.state = VLLMState.READY
            return
        if not self.launches:
            e.state = VLLMState.DOWN
            raise LLMUnavailableError(
                f"vLLM at {self.base_url} is not answering ({health.detail}); "
                "ZT_MANAGER=none, start it yourself"
            )
        # No await between the check and the create: callers in this loop share one task.
        if self._task is None or self._task.done():
            e.feed.restart()
            self._task = asyncio.create_task(self._bring_up.run(), name="vllm-bring-up")
            self._task.add_done_callback(_consume_exception)
        task = self._task
        try:
            with e.feed.subscribed(progress):
                await asyncio.shield(task)
        finally:
            self._activity.touch()

    @contextlib.asynccontextmanager
    async def work(self) -> AsyncIterator[None]:
        """Mark a translation as running: the idle give-back never stops vLLM meanwhile."""
        activity, working = self._activity, self._endpoint.working
        activity.active += 1
        activity.touch()
        if self.launches:
            working.set()  # other processes of this host never sleep vLLM under it
        try:
            yield
        finally:
            activity.active -= 1
            activity.touch()
            if activity.active == 0 and self.launches:
                working.clear()
            if activity.active == 0 and activity.sleep_requested:
                activity.sleep_requested = False
                self._sleep_task = asyncio.create_task(self.sleep_vllm(), name="vllm-sleep")

    async def stop_vllm(self) -> bool:
        """Stop the vLLM we launched (SIGTERM, grace, SIGKILL). False if none of ours runs.

        A vLLM someone else started is never touched.
        """
        async with self._endpoint.lifecycle:
            return await self._endpoint.stop_locked()

    async def sleep_vllm(self) -> str:
        """Cooperative hand-back: put our vLLM to sleep now; one line saying what happened.

        Jobs of this process in progress finish first: the answer then says the sleep will
        happen when they do. Requests of other processes (seen in vLLM's ``/metrics``) are
        waited for, up to ``gpu_poll_s`` x 10. A vLLM without sleep mode, or one that slept
        ``ZT_VLLM_MAX_SLEEP_CYCLES`` times, is stopped instead: the card is freed either way.
        """
        if not self.launches:
            return "ZT_MANAGER=none: zotero-translate never sleeps or stops vLLM"
        return await self._cycle.hand_back()

    async def wake_vllm(self, progress: ProgressSink = ignore_progress) -> str:
        """Wake our sleeping vLLM (as ``ensure_ready`` would); one line saying what happened.

        ``LLMUnavailableError`` when no vLLM answers at all: there is nothing to wake, and a
        script that asked for a wake must not go on as if the model were there."""
        e = self._endpoint
        if not await e.routes.is_sleeping() and e.state is not VLLMState.ASLEEP:
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

    async def start_decision(self) -> tuple[GPUDecision, GPUReading | None]:
        """What ``ensure_ready`` would meet now, doing none of it: no launch, no wake, no lease.

        IDLE: it would return or go ahead at once (vLLM healthy and awake, manager ``none``, a
        GPU free for a launch, a sleeping vLLM whose wake fits); VLLM_LOADING: it would wait for
        a vLLM that loads; BUSY / UNKNOWN: it would wait for the GPU. The reading is the GPU
        status the answer rests on (None when none was needed). Never raises for a GPU that
        cannot be read (UNKNOWN); a Jupyter failure reading our pid file propagates.
        """
        health = await self.health()
        if not self.launches or self._endpoint.gpu is None:
            return GPUDecision.IDLE, None
        if health.ok:
            if not await self._cycle.asleep():
                return GPUDecision.IDLE, None
            decision, reading, _, _ = await self._cycle.wake_decision()
            return decision, reading
        if health.wrong_model:
            return GPUDecision.IDLE, None  # ensure_ready fails at once with the reason
        decision, reading, _ = await self._bring_up.decide()
        return decision, reading

    async def health(self) -> Health:
        """One health check of ``base_url``; never raises."""
        return await self._endpoint.health()

    async def asleep(self) -> bool:
        """Whether our vLLM sleeps or is about to (False for a manager that never launches)."""
        return await self._cycle.asleep()

    async def tenant(self) -> str | None:
        """Who else holds this host's GPU beside our vLLM (one line), or None: nobody, or a
        GPU this manager never reads. For a pool that stops sending work to a host the moment
        another tenant arrives. Never raises."""
        if self._endpoint.gpu is None:
            return None
        reading = await self._endpoint.gpu.read()
        if reading.status is None:
            return None
        others = foreign_processes(reading.status, self.settings.vllm_keywords)
        if not others:
            return None
        keywords = self.settings.vllm_keywords
        return describe(GPUDecision.BUSY, reading.status, reading.reason, keywords)

    async def snapshot(self) -> ManagerSnapshot:
        """What `zotero-translate status` and the server's status page show. Never raises."""
        e = self._endpoint
        health = await self.health()
        state = e.state
        if state in (VLLMState.UNKNOWN, VLLMState.DOWN, VLLMState.READY):
            # Between bring-ups the health check just made is the fresher word.
            state = VLLMState.READY if health.ok else VLLMState.DOWN
        if health.ok and self.launches and state is VLLMState.READY:
            if await e.routes.is_sleeping():
                state = VLLMState.ASLEEP
        snap = ManagerSnapshot(
            manager=self.kind,
            manager_reason=self.choice.describe(),
            state=state,
            server_pid=os.getpid(),
            last_error=self.last_error,
            active_work=self._activity.active,
            idle_for_s=round(self._activity.idle_for(), 1),
            idle_shutdown_s=self.settings.vllm_idle_shutdown_s,
            vllm=VLLMInfo(
                url=self.base_url,
                model=self.settings.llm_model,
                healthy=health.ok,
                detail=health.detail,
            ),
        )
        if not self.launches:
            return snap
        try:
            pid = await self.launcher.our_pid()
            vllm = replace(
                snap.vllm, managed=True, pid=pid, ours=pid is not None, log=e.launcher.log_location
            )
        except ZTError as exc:
            vllm = replace(snap.vllm, managed=True, error=str(exc))
        lease = e.lease.read()
        gpu: dict[str, Any] = {}
        if e.gpu is not None:
            reading = await e.gpu.read()
            gpu = gpu_summary(
                reading.status, reading.reason, self.settings, lease, vllm_healthy=health.ok
            )
        record = e.book.read(vllm.pid)
        cycle = self._cycle
        sleep = SleepInfo(
            idle_action=IdleAction(self.settings.vllm_idle_action).value,
            asleep=state is VLLMState.ASLEEP,
            cycles=record.cycles if record else 0,
            max_cycles=self.settings.vllm_max_sleep_cycles,
            freed_mib=record.freed_mib if record else None,
            sleeps=cycle.sleeps,
            wakes=cycle.wakes,
            wake_seconds_total=round(cycle.wake_seconds_total, 3),
            last_wake_s=None if cycle.last_wake_s is None else round(cycle.last_wake_s, 3),
            known_answer=cycle.known_answer_counts(),
        )
        return replace(snap, vllm=vllm, lease=lease_dict(lease), gpu=gpu, sleep=sleep)


def _consume_exception(task: asyncio.Task[None]) -> None:
    # Callers may all have been cancelled; the failure is reported to the next caller anyway.
    if not task.cancelled():
        task.exception()
