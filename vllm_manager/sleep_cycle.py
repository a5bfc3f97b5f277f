"""SleepCycle: putting our idle vLLM to sleep (or stopping it) and waking it again.

Sleep (issue 11): with ``ZT_VLLM_IDLE_ACTION`` sleep (or auto with the host RAM for it) the
give-back puts our vLLM to sleep (level 1) instead of stopping it, only when drained: no
``work()`` open in this process, none admitted meanwhile (a bring-up waits on the same lock and
then wakes it), no translation marked by another process of this host, and vLLM's own
``/metrics`` shows no request of another process. A sleep is confirmed on the GPU (its memory
freed) or the vLLM is stopped instead: the card is freed either way.

A wake is a single-flight transition like a launch (under the cross-process start lock), allowed
only when the free GPU memory covers what the wake takes back, and confirmed before any
completion is sent: ``/is_sleeping`` false, prefix cache reset, and the readiness probe (one
one-token request, passed in by whoever builds the manager). A failed wake stops that vLLM so a
fresh one is launched.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol, runtime_checkable

from common.errors import VLLMStartError
from common.progress import Stage
from common.settings import IdleAction
from vllm_manager.activity import Activity
from vllm_manager.decision import GPUDecision, decide_wake, gib
from vllm_manager.endpoint import Endpoint
from vllm_manager.gpu_model import GPUReading
from vllm_manager.sleep import SleepRecord, choose_idle_action, confirm_sleep, wake_need_mib
from vllm_manager.state import VLLMState

log = logging.getLogger(__name__)

#: The readiness check after a wake: one one-token request to the served model. None when the
#: answer was sensible, else what went wrong (a line for the log). Must not raise for a failure
#: of the server; the manager stops a vLLM that fails it.
ReadinessProbe = Callable[[], Awaitable[str | None]]


@runtime_checkable
class RemembersAnswer(Protocol):
    """A readiness probe that also checks a known answer (the server's): ``remember`` records
    it from a healthy engine just before a sleep, the probe compares after the wake, and
    ``counts`` says how often each outcome happened (``/metrics``)."""

    async def __call__(self) -> str | None: ...

    async def remember(self) -> None: ...

    @property
    def counts(self) -> Mapping[str, int]: ...


class SleepCycle:
    """The sleep and wake transitions of one endpoint, and their counts in this process."""

    def __init__(self, endpoint: Endpoint, activity: Activity, probe: ReadinessProbe) -> None:
        self._endpoint = endpoint
        self._activity = activity
        self._probe = probe
        self.sleeps = 0
        self.wakes = 0
        self.wake_seconds_total = 0.0
        self.last_wake_s: float | None = None

    def known_answer_counts(self) -> dict[str, int]:
        """The known-answer probe's outcomes so far (empty for a plain probe)."""
        return dict(self._probe.counts) if isinstance(self._probe, RemembersAnswer) else {}

    async def asleep(self) -> bool:
        """Whether vLLM sleeps or is about to: our state, else ``/is_sleeping`` (one GET)."""
        e = self._endpoint
        if e.state in (VLLMState.SLEEPING, VLLMState.ASLEEP, VLLMState.WAKING):
            return True
        if not e.launcher.launches:
            return False
        # Another process of this host may be putting it to sleep right now.
        return bool(e.going.others()) or bool(await e.routes.is_sleeping())

    async def wake_decision(self) -> tuple[GPUDecision, GPUReading, int, int | None]:
        """Whether a wake fits on the GPU now: (decision, reading, MiB it takes back, our pid)."""
        e = self._endpoint
        assert e.gpu is not None
        reading = await e.gpu.read()
        pid = await e.launcher.our_pid()
        record = e.book.read(pid) if pid is not None else None
        need = wake_need_mib(reading.status, record, e.settings.vllm_keywords)
        return decide_wake(reading.status, need), reading, need, pid

    async def wake_locked(self) -> bool:
        """Wake the sleeping vLLM once the GPU has room (under ``lifecycle``). True: awake and
        confirmed; False: the wake failed and that vLLM (if ours) was stopped. Raises as a launch
        does when the GPU stays busy (``GPUBusyError`` naming the holders) or its status
        unknown."""
        e = self._endpoint
        since = time.monotonic()
        while True:
            async with e.lease.locked():
                # Another process may have woken it while we waited for the lock.
                if not await e.routes.is_sleeping():
                    e.state = VLLMState.READY
                    return True
                decision, reading, need, pid = await self.wake_decision()
                if decision is GPUDecision.IDLE:
                    return await self._wake_now(pid)
            await e.wait_for_gpu(
                decision, reading, since, state=VLLMState.ASLEEP, wake_need_mib=need
            )

    async def _wake_now(self, pid: int | None) -> bool:
        """``/wake_up``, then confirm: ``/is_sleeping`` false, prefix cache reset, the readiness
        probe. Any failure stops our vLLM (False) so a fresh one is started."""
        e = self._endpoint
        e.state = VLLMState.WAKING
        e.feed.emit(Stage.STARTING_LLM, "waking vLLM", state="waking", pid=pid)
        started = time.monotonic()
        problem = await e.routes.wake()
        if problem is None:
            for _ in range(50):  # the route returns when awake; allow a late flag
                if await e.routes.is_sleeping() is False:
                    break
                await asyncio.sleep(0.1)
            else:
                problem = "/is_sleeping still true after /wake_up"
        if problem is None:
            # Stale prefix-cache entries after a wake were reported: start from an empty one.
            problem = await e.routes.reset_prefix_cache() or await self._probe()
        if problem is not None:
            log.warning("waking vLLM failed (%s); stopping it", problem)
            if pid is None:
                raise VLLMStartError(f"waking vLLM failed: {problem}", retry_after_s=60.0)
            await e.stop_locked()
            return False
        took = time.monotonic() - started
        self.wakes += 1
        self.wake_seconds_total += took
        self.last_wake_s = took
        log.info("woke vLLM (pid %s) in %.1f s", pid, took)
        e.state = VLLMState.READY
        return True

    async def hand_back(self) -> str:
        """Put our vLLM to sleep now (or stop it); one line saying what happened.

        With translations in progress here the sleep is deferred until they end (the answer
        says so). Requests of other processes (seen in vLLM's ``/metrics``) are waited for, up
        to ``gpu_poll_s`` x 10.
        """
        e = self._endpoint
        if self._activity.active:
            self._activity.sleep_requested = True
            return (
                f"vLLM will sleep when the {self._activity.active} translation(s) in progress "
                "finish"
            )
        async with e.lifecycle:
            pid = await e.launcher.our_pid()
            if pid is None:
                return "no vLLM launched by zotero-translate is running"
            if await e.routes.is_sleeping():
                e.state = VLLMState.ASLEEP
                return f"vLLM (pid {pid}) is already asleep"
            deadline = time.monotonic() + e.settings.gpu_poll_s * 10
            while (await e.routes.requests_in_flight() or 0) > 0:
                if time.monotonic() >= deadline:
                    return "vLLM is still serving requests of another process; not put to sleep"
                await asyncio.sleep(0.2)
            return await self.give_back_locked(explicit=True)

    async def give_back_locked(self, *, explicit: bool = False) -> str:
        """Sleep or stop our idle vLLM (under ``lifecycle``; drained by the caller)."""
        e = self._endpoint
        pid = await e.launcher.our_pid()
        if pid is None:
            return "no vLLM launched by zotero-translate is running"
        if await e.routes.is_sleeping():
            e.state = VLLMState.ASLEEP
            return f"vLLM (pid {pid}) is already asleep"
        record = e.book.read(pid)
        settings = e.settings
        if explicit and IdleAction(settings.vllm_idle_action) is IdleAction.STOP:
            settings = settings.model_copy(update={"vllm_idle_action": IdleAction.SLEEP})
        action, why = choose_idle_action(
            settings,
            sleep_routes=await e.routes.is_sleeping() is not None,
            mem_available_mib=await e.launcher.mem_available_mib(),
            cycles=record.cycles if record else 0,
        )
        if action is IdleAction.SLEEP:
            # Under the start lock: a wake in another process waits for this sleep to end.
            async with e.lease.locked():
                # Checked and marked without an await in between: a paper arriving from now on
                # sees SLEEPING, waits for the lock, then wakes it.
                active = self._activity.active
                if active:
                    if explicit:
                        self._activity.sleep_requested = True
                        return (
                            f"vLLM will sleep when the {active} translation(s) in progress finish"
                        )
                    return "vLLM not put to sleep: a translation started meanwhile"
                e.state = VLLMState.SLEEPING
                e.going.set()
                try:
                    busy = e.working.others()
                    if busy:
                        e.state = VLLMState.READY
                        return (
                            "vLLM not put to sleep: translations are running in process "
                            + ", ".join(map(str, busy))
                        )
                    slept = await self._sleep_locked(pid, record)
                finally:
                    e.going.clear()
            if slept is not None:
                return slept
            why = "the sleep did not free the GPU"
        await e.stop_locked()
        return f"stopped vLLM (pid {pid}): {why}"

    async def _sleep_locked(self, pid: int, record: SleepRecord | None) -> str | None:
        """Level-1 sleep of our drained vLLM, confirmed on the GPU. None: it failed (the caller
        stops it)."""
        e = self._endpoint
        e.state = VLLMState.SLEEPING
        try:
            if isinstance(self._probe, RemembersAnswer):
                await self._probe.remember()  # drained and healthy: what a wake must match
            before = await e.gpu.read() if e.gpu is not None else None
            problem = await e.routes.sleep(1)
            after = await e.gpu.read() if e.gpu is not None else None
        except BaseException:
            e.state = VLLMState.READY
            raise
        freed, confirmed = confirm_sleep(
            before.status if before else None,
            after.status if after else None,
            e.settings.vllm_keywords,
        )
        if problem is not None or not confirmed:
            log.warning("vLLM sleep failed (%s); stopping it", problem or f"freed {freed} MiB")
            return None
        cycles = (record.cycles if record else 0) + 1
        e.book.write(SleepRecord(pid, cycles, freed, time.time()))
        self.sleeps += 1
        e.state = VLLMState.ASLEEP
        log.info("vLLM (pid %s) asleep: %s freed (sleep %d)", pid, gib(freed), cycles)
        return f"vLLM (pid {pid}) asleep: {gib(freed)} of GPU memory freed (sleep {cycles})"
