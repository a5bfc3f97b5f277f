"""Endpoint: one vLLM endpoint and what the manager's parts share about it.

The bring-up (``vllm_manager.bring_up``), the sleep cycle (``vllm_manager.sleep_cycle``), the idle
give-back (``vllm_manager.idle``) and the manager itself all act on the same vLLM through this
object: its launcher, health check, GPU status source, start lease, sleep routes and marks,
progress feed, the lifecycle lock and the current :class:`VLLMState`. It also holds the two
steps they have in common: stopping our vLLM, and one round of waiting for the GPU.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time

import httpx

from common.errors import GPUBusyError, GPUStatusUnknownError
from common.progress import Stage
from common.settings import Settings
from vllm_manager.decision import GPUDecision, describe, gib
from vllm_manager.feed import ProgressFeed
from vllm_manager.gpu_model import GPUReading, StatusSource
from vllm_manager.health import HEALTH_TIMEOUT_S, Health, check_health
from vllm_manager.launcher import Launcher
from vllm_manager.lease import StartLease
from vllm_manager.report import holders, waiting_message
from vllm_manager.sleep import Marks, SleepBook, SleepClient
from vllm_manager.state import VLLMState

log = logging.getLogger(__name__)


class Endpoint:
    """The vLLM at ``settings.llm_base_url`` and the means to act on it (see the module doc)."""

    def __init__(
        self,
        settings: Settings,
        launcher: Launcher,
        *,
        http_client: httpx.AsyncClient | None = None,
        status_source: StatusSource | None = None,
    ) -> None:
        """``http_client`` is borrowed; without one the endpoint opens its own and closes it in
        :meth:`aclose`. ``status_source`` None: the GPU is never read (``ZT_MANAGER=none``)."""
        self.settings = settings
        self.launcher = launcher
        self._owns_http = http_client is None
        self.http = http_client or httpx.AsyncClient(timeout=HEALTH_TIMEOUT_S)
        self.gpu = status_source
        self.lease = StartLease(launcher.lease_dir, settings.vllm_lease_s)
        #: One bring-up, stop or sleep at a time, in this process.
        self.lifecycle = asyncio.Lock()
        self.feed = ProgressFeed()
        self.state = VLLMState.UNKNOWN
        self.routes = SleepClient(self.http, self.base_url)
        self.book = SleepBook(self.lease.directory)
        #: "A translation runs in this process" / "this process is putting vLLM to sleep".
        self.working = Marks(self.lease.directory / "work")
        self.going = Marks(self.lease.directory / "going-to-sleep")

    @property
    def base_url(self) -> str:
        """vLLM's root URL: ``llm_base_url`` without its ``/v1`` suffix."""
        url = self.settings.llm_base_url.rstrip("/")
        return url[: -len("/v1")] if url.endswith("/v1") else url

    async def health(self) -> Health:
        """One health check of ``base_url``; never raises."""
        key = self.settings.llm_api_key
        return await check_health(
            self.http,
            self.base_url,
            self.settings.llm_model,
            key.get_secret_value() if key else None,
        )

    async def stop_locked(self) -> bool:
        """Stop the vLLM we launched (under :attr:`lifecycle`). False if none of ours runs."""
        pid = await self.launcher.our_pid()
        if pid is None:
            return False
        self.state = VLLMState.STOPPING
        log.info("stopping vLLM (pid %s)", pid)
        # 1. SIGTERM the group: vLLM shuts its engine core down cleanly.
        # 2. Wait up to the grace period for the leader to exit.
        # 3. SIGKILL the group regardless: an orphaned engine core keeps its VRAM.
        # 4. Forget the pid file so a recycled pid is never signalled later.
        await self.launcher.signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + self.settings.vllm_stop_grace_s
        while await self.launcher.is_alive(pid) and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        await self.launcher.signal(pid, signal.SIGKILL)
        deadline = time.monotonic() + 5.0
        while await self.launcher.is_alive(pid) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        await self.launcher.forget()
        self.book.clear()
        self.state = VLLMState.DOWN
        return True

    async def wait_for_gpu(
        self,
        decision: GPUDecision,
        reading: GPUReading,
        since: float,
        *,
        state: VLLMState,
        wake_need_mib: int | None = None,
    ) -> None:
        """One round of waiting for a BUSY or UNKNOWN GPU, for a launch or (``wake_need_mib``
        given) for a wake that takes that much back.

        Past ``ZT_GPU_WAIT_S`` since ``since`` (monotonic) it raises ``GPUBusyError`` naming who
        holds the GPU, or ``GPUStatusUnknownError``. Otherwise it sets ``state``, sends a
        WAITING_GPU event and sleeps until the next poll (``ZT_GPU_POLL_S``).
        """
        s = self.settings
        message = describe(decision, reading.status, reading.reason, s.vllm_keywords)
        line = waiting_message(decision, reading.status, reading.reason, s.vllm_keywords)
        if wake_need_mib is not None:
            if reading.status is not None:
                free = reading.status.memory_total_mib - reading.status.memory_used_mib
                message += f"; waking vLLM takes back {gib(wake_need_mib)}, {gib(free)} free"
            line += " (vLLM asleep)"
        waited = time.monotonic() - since
        if waited >= s.gpu_wait_s:
            error = GPUBusyError if decision is GPUDecision.BUSY else GPUStatusUnknownError
            raise error(
                f"{message} (waited {waited:.0f} s, ZT_GPU_WAIT_S={s.gpu_wait_s:g})",
                retry_after_s=max(s.gpu_poll_s, 30.0),
            )
        self.state = state
        self.feed.emit(
            Stage.WAITING_GPU,
            line,
            decision=decision.value,
            reason=message,
            waited_s=round(waited, 1),
            wait_limit_s=s.gpu_wait_s,
            holders=holders(reading.status, s.vllm_keywords),
        )
        await asyncio.sleep(min(s.gpu_poll_s, max(s.gpu_wait_s - waited, 0.0)))

    def report_loading(self, message: str, pid: int | None, elapsed: float) -> None:
        """State STARTING, and a "loading" event (once per distinct ``message``)."""
        self.state = VLLMState.STARTING
        self.feed.emit_changed(
            Stage.STARTING_LLM,
            message,
            state="loading",
            pid=pid,
            elapsed_s=round(elapsed, 1),
            timeout_s=self.settings.vllm_ready_timeout_s,
        )

    async def aclose(self) -> None:
        """Close the launcher and, if ours, the HTTP client. Never stops vLLM."""
        await self.launcher.aclose()
        if self._owns_http:
            await self.http.aclose()
