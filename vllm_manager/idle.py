"""IdleWatcher: give the GPU back after ``ZT_VLLM_IDLE_SHUTDOWN_S`` without work.

A background task of the manager. When this process has had no translation for the idle time,
no other process of this host marks one, our vLLM runs and is awake, and vLLM's ``/metrics``
shows no request in flight, it hands the card back through the sleep cycle (sleep, or stop).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from common.errors import ZTError
from vllm_manager.activity import Activity
from vllm_manager.endpoint import Endpoint
from vllm_manager.sleep_cycle import SleepCycle
from vllm_manager.state import VLLMState

log = logging.getLogger(__name__)


class IdleWatcher:
    """The idle give-back loop; runs only for a launching manager with an idle time > 0."""

    def __init__(self, endpoint: Endpoint, activity: Activity, cycle: SleepCycle) -> None:
        self._endpoint = endpoint
        self._activity = activity
        self._cycle = cycle
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        e = self._endpoint
        if (
            e.launcher.launches
            and e.settings.vllm_idle_shutdown_s > 0
            and (self._task is None or self._task.done())
        ):
            self._task = asyncio.create_task(self._loop(), name="vllm-idle-watcher")

    async def aclose(self) -> None:
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _loop(self) -> None:
        e = self._endpoint
        idle_s = e.settings.vllm_idle_shutdown_s
        interval = min(max(idle_s / 4, 0.05), 10.0)
        while True:
            await asyncio.sleep(interval)
            if not self._activity.is_idle(idle_s) or e.lifecycle.locked():
                continue
            try:
                async with e.lifecycle:
                    if e.state is VLLMState.ASLEEP and not await e.routes.is_sleeping():
                        e.state = VLLMState.READY  # another process woke it
                    if (
                        self._activity.is_idle(idle_s)
                        and e.state is not VLLMState.ASLEEP
                        and not e.working.others()
                        and await e.launcher.our_pid() is not None
                        and (await e.routes.requests_in_flight() or 0) == 0
                    ):
                        done = await self._cycle.give_back_locked()
                        log.info("after %.0f s without work: %s", idle_s, done)
            except ZTError as exc:  # Jupyter down, say: try again next round
                log.warning("idle give-back failed: %s", exc)
            except Exception:  # never let the watcher die: the GPU would never be given back
                log.exception("idle give-back failed")
            self._activity.touch()
