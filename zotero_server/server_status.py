"""ServerStatus: vLLM and GPU state as the server last read it from its manager.

Read with a time limit (:func:`read_status`), never raising: a status page must not fail because
a probe did. The readers (``/health``, ``/metrics``, the page's event stream) take the
manager's ``ManagerSnapshot`` as typed data; :meth:`ServerStatus.to_dict` is the JSON the event
stream sends (its keys are part of the HTTP API), with secrets masked: a failed launch may quote
its command line, a vLLM URL may carry a key.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from enum import Enum
from typing import Any

from common.redact import mask_secrets
from vllm_manager.gpu_wait import GPUWaitQueue
from vllm_manager.manager import VLLMManager
from vllm_manager.snapshot import ManagerSnapshot, SleepInfo
from vllm_manager.state import VLLMState
from zotero_server.down_advice import DownAdvice, down_advice

log = logging.getLogger(__name__)

#: What a read that ran out of time says in place of vLLM's own detail.
TIMED_OUT_DETAIL = "status check timed out"


class StatusRead(Enum):
    """How the last read of the manager went."""

    #: Nothing read yet.
    PENDING = "pending"
    #: The manager answered: ``snapshot`` holds it.
    READ = "read"
    #: The manager did not answer in time.
    TIMED_OUT = "timed_out"
    #: Reading raised: ``error`` says what.
    FAILED = "failed"


@dataclass(frozen=True)
class ServerStatus:
    """One read of the manager; see the module docstring."""

    read: StatusRead = StatusRead.PENDING
    #: The manager's kind ("local", "remote", "none"); None before the first read.
    manager: str | None = None
    snapshot: ManagerSnapshot | None = None
    error: str | None = None
    #: Async jobs the GPU holds back (busy or unknown); None without a patient GPU queue.
    waiting_gpu: int | None = None
    #: Why this manager ("local (auto: ... found ...)"); None before the first read.
    manager_reason: str | None = None
    #: Several GPU hosts: one row each (``zotero_server.gpu_hosts``); None for one host.
    hosts: list[dict[str, Any]] | None = None
    #: vLLM does not answer and this manager will not start it: what to do (the page's warning).
    advice: DownAdvice | None = None

    @property
    def state(self) -> VLLMState:
        return self.snapshot.state if self.snapshot is not None else VLLMState.UNKNOWN

    @property
    def healthy(self) -> bool:
        """Whether vLLM answered its health check at this read."""
        return self.snapshot is not None and self.snapshot.vllm.healthy

    @property
    def last_error(self) -> str | None:
        """The manager's last error, secrets masked."""
        error = self.snapshot.last_error if self.snapshot is not None else None
        return mask_secrets(str(error)) if error else error

    @property
    def sleep(self) -> SleepInfo | None:
        return self.snapshot.sleep if self.snapshot is not None else None

    @property
    def gpu(self) -> dict[str, Any] | None:
        """The GPU's state; None when the manager did not read the GPU (or read nothing)."""
        gpu = self.snapshot.gpu if self.snapshot is not None else None
        return gpu or None

    def vllm_json(self) -> dict[str, Any]:
        """The vLLM endpoint as JSON (its URL masked); empty when a read failed."""
        if self.read is StatusRead.TIMED_OUT:
            return {"healthy": False, "detail": TIMED_OUT_DETAIL}
        if self.snapshot is None:
            return {}
        vllm = self.snapshot.vllm.to_dict()
        if vllm.get("url"):
            vllm["url"] = mask_secrets(vllm["url"])
        return vllm

    def to_dict(self) -> dict[str, Any]:
        """The JSON the page's event stream sends (``server`` events and the snapshot)."""
        if self.read is StatusRead.PENDING:
            return {"state": VLLMState.UNKNOWN.value}
        status: dict[str, Any] = {
            "manager": self.manager,
            "manager_reason": self.manager_reason,
            "state": self.state.value,
        }
        if self.hosts is not None:
            status["hosts"] = self.hosts
        if self.read is StatusRead.TIMED_OUT:
            status["vllm"] = self.vllm_json()
            return status
        if self.read is StatusRead.FAILED:
            status["error"] = self.error
            return status
        status["last_error"] = self.last_error
        status["vllm"] = self.vllm_json()
        if self.advice is not None:
            status["advice"] = self.advice.to_dict()
        if self.sleep is not None:
            status["sleep"] = self.sleep.to_dict()
        if self.gpu is not None:
            status["gpu"] = self.gpu
        if self.waiting_gpu is not None:
            status["waiting_gpu"] = self.waiting_gpu
        return status


async def read_status(
    manager: VLLMManager, gpu_wait: GPUWaitQueue | None, timeout_s: float
) -> ServerStatus:
    """The manager's status, waiting at most ``timeout_s`` for it; never raises."""
    reason = manager.choice.describe()
    try:
        snapshot = await asyncio.wait_for(manager.snapshot(), timeout_s)
    except TimeoutError:
        return ServerStatus(StatusRead.TIMED_OUT, manager.kind, manager_reason=reason)
    except Exception as exc:  # a status page must not fail because a probe did
        log.warning("status snapshot failed: %s", exc)
        return ServerStatus(StatusRead.FAILED, manager.kind, error=str(exc), manager_reason=reason)
    waiting = gpu_wait.held_back if gpu_wait is not None else None
    advice = None
    if not snapshot.vllm.healthy and snapshot.state is not VLLMState.ASLEEP:
        advice = down_advice(snapshot.vllm.url, manager.choice, launches=manager.launches)
    return ServerStatus(
        StatusRead.READ,
        snapshot.manager,
        snapshot,
        waiting_gpu=waiting,
        manager_reason=reason,
        advice=advice,
    )
