"""ManagerSnapshot: what `zotero-translate status` and the server's status page show.

Plain data, built by ``VLLMManager.snapshot()``. ``to_dict()`` is the JSON the server's
``/health`` and event stream are made from; its keys are part of the HTTP API.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from vllm_manager.state import VLLMState


@dataclass(frozen=True)
class VLLMInfo:
    """The vLLM endpoint: where, what, whether it answers, and (``managed``) whose it is."""

    url: str
    model: str
    healthy: bool
    detail: str  # "healthy", "connection refused", ...
    #: A manager that launches looked for its own vLLM; the fields below say what it found.
    managed: bool = False
    pid: int | None = None  # our live vLLM's pid
    ours: bool | None = None  # None: it could not tell (``error`` says why)
    log: str | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "url": self.url,
            "model": self.model,
            "healthy": self.healthy,
            "detail": self.detail,
        }
        if not self.managed:
            return data
        if self.error is not None:
            data.update(pid=None, ours=None, error=self.error)
        else:
            data.update(pid=self.pid, ours=self.ours, log=self.log)
        return data


@dataclass(frozen=True)
class SleepInfo:
    """The sleep cycle: the policy, the running vLLM's record, and this process's counts."""

    idle_action: str
    asleep: bool
    cycles: int  # sleeps of the running vLLM process
    max_cycles: int
    freed_mib: int | None  # what its last sleep freed
    sleeps: int
    wakes: int
    wake_seconds_total: float
    last_wake_s: float | None
    #: The known-answer probe's outcomes (``translation.model.known_answer.OUTCOMES``).
    known_answer: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ManagerSnapshot:
    """The manager's view of vLLM, the GPU and the start lease at one moment."""

    manager: str  # "local", "remote" or "none"
    state: VLLMState
    server_pid: int
    last_error: str | None
    active_work: int
    idle_for_s: float
    idle_shutdown_s: float
    vllm: VLLMInfo
    #: ``gpu_summary`` of ``vllm_manager.report`` and the lease as status data; None when the
    #: GPU was not read (a manager that never launches).
    gpu: dict[str, Any] | None = None
    lease: dict[str, Any] | None = None
    #: None for a manager that never launches.
    sleep: SleepInfo | None = None
    #: Why this manager: "local (auto: ... found ...)", "none (ZT_MANAGER=none)".
    manager_reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``gpu``/``lease`` and ``sleep`` appear only when known."""
        data: dict[str, Any] = {
            "manager": self.manager,
            "manager_reason": self.manager_reason,
            "state": self.state.value,
            "server_pid": self.server_pid,
            "last_error": self.last_error,
            "active_work": self.active_work,
            "idle_for_s": self.idle_for_s,
            "idle_shutdown_s": self.idle_shutdown_s,
            "vllm": self.vllm.to_dict(),
        }
        if self.gpu is not None:
            data["lease"] = self.lease
            data["gpu"] = self.gpu
        if self.sleep is not None:
            data["sleep"] = self.sleep.to_dict()
        return data
