"""Shaping what the manager knows into messages and status data (pure, no I/O)."""

from __future__ import annotations

import time
from typing import Any

from common.redact import mask_secrets
from common.settings import Settings
from vllm_manager.decision import (
    GPUDecision,
    LeaseInfo,
    decide,
    describe,
    foreign_processes,
    gib,
    short_command,
    vllm_processes,
)
from vllm_manager.gpu_model import GPUStatus


def gpu_summary(
    status: GPUStatus | None,
    reason: str,
    settings: Settings,
    lease: LeaseInfo | None,
    *,
    vllm_healthy: bool = False,
) -> dict[str, Any]:
    """The GPU part of a snapshot: decision, its message, who holds the GPU, memory.

    ``vllm_healthy``: our vLLM answered its health check at this read, so a vLLM on the GPU is
    serving, not loading (the decision alone cannot tell; the page must not say both)."""
    keywords = settings.vllm_keywords
    decision = decide(status, lease, keywords, settings.gpu_idle_mib, time.time())
    message = describe(decision, status, reason, keywords)
    if vllm_healthy and decision is GPUDecision.VLLM_LOADING:
        message = serving_message(status, keywords)
    return {
        "decision": decision.value,
        "message": message,
        "holders": holders(status, keywords),
        "memory_used_mib": status.memory_used_mib if status else None,
        "memory_total_mib": status.memory_total_mib if status else None,
        "memory_free_mib": status.memory_free_mib if status else None,
        "sleeping_vllm": [p.pid for p in status.processes if p.sleeping] if status else [],
        "reason": reason,
    }


def serving_message(status: GPUStatus | None, keywords: list[str]) -> str:
    """The GPU line while our vLLM answers: which process serves, and what it holds."""
    found = vllm_processes(status, keywords) if status is not None else []
    if not found:
        return "vLLM serving"
    top = max(found, key=lambda p: p.memory_mib)
    text = f"vLLM serving: {short_command(top.command)} (pid {top.pid}"
    text += f", {gib(top.memory_mib)})" if top.memory_mib else ")"
    others = foreign_processes(status, keywords) if status is not None else []
    if others:
        text += f"; {len(others)} other process{'es' if len(others) > 1 else ''} on the GPU"
    return text


def holders(status: GPUStatus | None, keywords: list[str]) -> list[dict[str, Any]]:
    """The foreign processes on the GPU, largest first, as plain data (secrets masked)."""
    if status is None:
        return []
    return [
        {"pid": p.pid, "command": mask_secrets(p.command), "memory_mib": p.memory_mib}
        for p in foreign_processes(status, keywords)
    ]


def waiting_message(
    decision: GPUDecision, status: GPUStatus | None, reason: str, keywords: list[str]
) -> str:
    """The progress line while the GPU is busy or its status unknown."""
    if decision is GPUDecision.UNKNOWN or status is None:
        return f"waiting for GPU: status unknown ({reason or 'no status'})"
    others = foreign_processes(status, keywords)
    if others:
        top = others[0]
        more = f" (+{len(others) - 1} more)" if len(others) > 1 else ""
        return (
            f"waiting for GPU: {short_command(top.command, 60)} (pid {top.pid}) holds "
            f"{gib(top.memory_mib)}{more}"
        )
    return f"waiting for GPU: {gib(status.memory_used_mib)} in use"


def lease_dict(lease: LeaseInfo | None) -> dict[str, Any] | None:
    """A lease as status data (``expires_in_s`` counted from now)."""
    if lease is None:
        return None
    return {
        "owner_pid": lease.owner_pid,
        "host": lease.host,
        "started_at": lease.started_at,
        "expires_in_s": round(lease.expires_at - time.time(), 1),
        "launched": lease.launched,
    }
