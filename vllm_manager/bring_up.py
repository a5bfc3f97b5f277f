"""BringUp: make vLLM healthy when, and only when, the GPU is free.

One bring-up runs at a time in this process (under ``lifecycle``; the manager shares its task
among callers) and one launch at a time on this host (under the start lease's lock). Each round
it checks health, then decides from the GPU status and the lease:

- healthy: done, unless asleep: then the sleep cycle wakes it (a failed wake stopped it: the
  next round launches a fresh one);
- IDLE: take the lease, launch, and wait until healthy (a vLLM that exits while loading fails
  at once with its log tail; ``ZT_VLLM_READY_TIMEOUT_S`` caps the wait and stops it);
- VLLM_LOADING: wait for that vLLM, re-deciding every ``ZT_GPU_POLL_S``;
- BUSY / UNKNOWN: never launch; wait for the GPU up to ``ZT_GPU_WAIT_S``, then raise.
"""

from __future__ import annotations

import asyncio
import logging
import time

from common.errors import GPUBusyError, GPUStatusUnknownError, VLLMStartError
from common.progress import Stage
from common.redact import mask_secrets
from vllm_manager.decision import GPUDecision, decide, describe
from vllm_manager.endpoint import Endpoint
from vllm_manager.gpu_model import GPUReading
from vllm_manager.sleep import launch_command
from vllm_manager.sleep_cycle import SleepCycle
from vllm_manager.state import VLLMState

log = logging.getLogger(__name__)

#: Health is polled this often while vLLM loads ("at most every second").
HEALTH_POLL_S = 0.5
#: Lines of a crashed vLLM's log quoted in the error.
LOG_TAIL_LINES = 25


class BringUp:
    """The launch path of one endpoint, and what it did in this process."""

    def __init__(self, endpoint: Endpoint, cycle: SleepCycle) -> None:
        self._endpoint = endpoint
        self._cycle = cycle
        self.launches = 0  # launches sent by this process (for status and tests)
        self.last_error: str | None = None

    async def run(self) -> None:
        """One bring-up, start to READY; on failure the state says FAILED and ``last_error``
        why (a wake refused for lack of GPU memory leaves vLLM asleep instead)."""
        e = self._endpoint
        async with e.lifecycle:
            try:
                await self._run_locked()
            except BaseException as exc:
                busy = isinstance(exc, (GPUBusyError, GPUStatusUnknownError))
                if not (busy and e.state is VLLMState.ASLEEP):
                    e.state = VLLMState.FAILED
                self.last_error = str(exc) or type(exc).__name__
                raise
            e.state = VLLMState.READY
            self.last_error = None
            e.feed.emit(Stage.STARTING_LLM, "ready", state="ready")

    async def decide(self) -> tuple[GPUDecision, GPUReading, int | None]:
        """The GPU decision, with our own live vLLM (pid file) counted as loading."""
        e = self._endpoint
        assert e.gpu is not None
        reading = await e.gpu.read()
        lease = e.lease.read()
        s = e.settings
        decision = decide(reading.status, lease, s.vllm_keywords, s.gpu_idle_mib, time.time())
        pid = None
        if decision is not GPUDecision.VLLM_LOADING:
            # Our pid file names a live vLLM: it is ours and loading (or broken), whatever the
            # GPU shows (under WSL2 nvidia-smi lists no processes, only used memory).
            pid = await e.launcher.our_pid()
            if pid is not None:
                decision = GPUDecision.VLLM_LOADING
        return decision, reading, pid

    async def _run_locked(self) -> None:
        e = self._endpoint
        gpu_since = time.monotonic()
        while True:
            health = await e.health()
            if health.ok:
                if e.going.others():
                    async with e.lease.locked():
                        pass  # another process is putting it to sleep: let it finish, then wake
                if not await e.routes.is_sleeping() or await self._cycle.wake_locked():
                    return
                continue  # the wake failed and that vLLM was stopped: start a fresh one
            if health.wrong_model:
                # Waiting cannot fix this, and launching another would collide on the port.
                raise VLLMStartError(
                    f"vLLM at {e.base_url} is up but {health.detail}: "
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
            await e.wait_for_gpu(decision, reading, gpu_since, state=VLLMState.WAITING_GPU)

    async def _decide_and_maybe_launch(self) -> tuple[GPUDecision, GPUReading, int | None]:
        e = self._endpoint
        async with e.lease.locked():
            decision, reading, pid = await self.decide()
            if decision is not GPUDecision.IDLE:
                return decision, reading, pid
            e.lease.take()
            e.state = VLLMState.STARTING
            e.feed.emit(Stage.STARTING_LLM, "starting vLLM", state="starting")
            try:
                pid = await e.launcher.launch(launch_command(e.settings))
            except BaseException:
                e.lease.release()
                raise
            self.launches += 1
            e.lease.mark_launched()
            log.info("launched vLLM (pid %s): %s", pid, mask_secrets(e.settings.vllm_command))
            return decision, reading, pid

    async def _await_own_start(self, pid: int) -> None:
        """Wait for the vLLM we launched; fail at once if it exits while loading."""
        e = self._endpoint
        s = e.settings
        started = time.monotonic()
        try:
            while True:
                health = await e.health()
                if health.ok:
                    return
                elapsed = time.monotonic() - started
                if not await e.launcher.is_alive(pid):
                    tail = (await e.launcher.log_tail(LOG_TAIL_LINES)).rstrip()
                    await e.launcher.forget()
                    raise VLLMStartError(
                        f"vLLM exited while loading (pid {pid}, after {elapsed:.0f} s); "
                        f"last lines of {e.launcher.log_location}:\n{tail or '(empty log)'}",
                        retry_after_s=60.0,
                    )
                if elapsed >= s.vllm_ready_timeout_s:
                    # A vLLM stuck in loading holds the card from everybody else: stop it.
                    await e.stop_locked()
                    raise VLLMStartError(
                        f"vLLM did not become healthy within {s.vllm_ready_timeout_s:g} s "
                        f"({health.detail}); stopped it. Log: {e.launcher.log_location}",
                        retry_after_s=60.0,
                    )
                e.report_loading(f"vLLM loading {elapsed:.0f} s", pid, elapsed)
                await asyncio.sleep(HEALTH_POLL_S)
        finally:
            e.lease.release()

    async def _await_other_start(self, reading: GPUReading, pid: int | None) -> bool:
        """Wait for a vLLM we did not launch in this bring-up. False: it went away; re-decide."""
        e = self._endpoint
        s = e.settings
        started = time.monotonic()
        next_decision = started + s.gpu_poll_s
        who = (
            f"our vLLM (pid {pid})"
            if pid is not None
            else describe(GPUDecision.VLLM_LOADING, reading.status, reading.reason, s.vllm_keywords)
        )
        while True:
            health = await e.health()
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
                decision, reading, _ = await self.decide()
                if decision is not GPUDecision.VLLM_LOADING:
                    return False
            e.report_loading(f"vLLM loading {elapsed:.0f} s (waiting for {who})", pid, elapsed)
            await asyncio.sleep(HEALTH_POLL_S)
