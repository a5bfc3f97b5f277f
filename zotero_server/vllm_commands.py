"""What ``zotero-translate vllm start|stop|sleep|wake|status`` and ``zotero-translate status`` do.

Each function builds a manager from the settings (``zotero_server.manager_factory``), does one
thing, closes the manager (which never stops vLLM) and returns data or text; the CLI
(``zotero_server.cli``) owns argparse, printing and exit codes. Errors are the
``common.errors`` tree, as raised by the manager.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import httpx

from common.errors import ConfigError, LLMUnavailableError
from common.hosts import HostPlan, plan_hosts
from common.progress import ProgressSink, ignore_progress
from common.redact import mask_secrets
from common.settings import Settings
from vllm_manager.decision import gib
from vllm_manager.lease import StartLease
from vllm_manager.manager import VLLMManager
from vllm_manager.pool import Host, HostPool, HostState, bring_up_order
from vllm_manager.report import gpu_summary
from vllm_manager.snapshot import ManagerSnapshot
from vllm_manager.state import VLLMState
from zotero_server.down_advice import DownAdvice, down_advice
from zotero_server.manager_factory import create_manager


async def vllm_start(
    settings: Settings,
    progress: ProgressSink = ignore_progress,
    *,
    http_client: httpx.AsyncClient | None = None,
) -> str:
    """Bring vLLM up exactly as a translation would (``ensure_ready``); one line of result.

    Raises what ``ensure_ready`` raises (GPU busy, status unknown, start failed, ...).
    """
    manager = create_manager(settings, http_client=http_client)
    try:
        await manager.ensure_ready(progress)
        snap = await manager.snapshot()
    finally:
        await manager.aclose()
    vllm = snap.vllm
    if vllm.ours:
        owner = f"pid {vllm.pid}, launched by zotero-translate; log {vllm.log}"
    elif not manager.launches:
        owner = f"not managed: {_unmanaged(manager)}"
    else:
        owner = "started by someone else"
    return f"vLLM ready at {vllm.url} serving {vllm.model} ({owner})"


async def vllm_stop(settings: Settings, *, http_client: httpx.AsyncClient | None = None) -> str:
    """Stop the vLLM zotero-translate launched (SIGTERM, grace, SIGKILL); one line of result.

    A vLLM somebody else started is never touched; the text says so.
    """
    manager = create_manager(settings, http_client=http_client)
    try:
        if not manager.launches:
            return f"{_unmanaged(manager)}: zotero-translate never starts or stops vLLM"
        pid = (await manager.snapshot()).vllm.pid
        if await manager.stop_vllm():
            return f"stopped vLLM (pid {pid})"
        health = await manager.health()
    finally:
        await manager.aclose()
    if health.ok:
        return f"the vLLM at {manager.base_url} was not started by zotero-translate; left running"
    return "no vLLM launched by zotero-translate is running"


async def vllm_sleep(settings: Settings, *, http_client: httpx.AsyncClient | None = None) -> str:
    """Put the vLLM zotero-translate launched to sleep now (cooperative hand-back of the GPU).

    Waits for requests other processes have in flight; a vLLM without sleep mode, or one that
    slept ``ZT_VLLM_MAX_SLEEP_CYCLES`` times, is stopped instead. One line of result.
    """
    manager = create_manager(settings, http_client=http_client)
    try:
        if not manager.launches:
            return f"{_unmanaged(manager)}: zotero-translate never sleeps or stops vLLM"
        return await manager.sleep_vllm()
    finally:
        await manager.aclose()


async def vllm_wake(
    settings: Settings,
    progress: ProgressSink = ignore_progress,
    *,
    http_client: httpx.AsyncClient | None = None,
) -> str:
    """Wake a sleeping vLLM as a translation would (only when the GPU has room for it)."""
    manager = create_manager(settings, http_client=http_client)
    try:
        return await manager.wake_vllm(progress)
    finally:
        await manager.aclose()


def _unmanaged(manager: VLLMManager) -> str:
    """Why a manager that never launches is in use: ``ZT_MANAGER=none``, or what ``auto`` saw."""
    choice = manager.choice
    if choice.auto:
        return f"ZT_MANAGER=auto chose none ({choice.reason})"
    return f"ZT_MANAGER={choice.kind.value}"


async def status(
    settings: Settings, *, http_client: httpx.AsyncClient | None = None
) -> ManagerSnapshot:
    """The manager's snapshot: vLLM health and owner, GPU decision and holders, lease.

    With ``ZT_MANAGER=none`` the GPU is read anyway (the manager itself never looks).
    """
    return (await status_with_advice(settings, http_client=http_client))[0]


async def status_with_advice(
    settings: Settings, *, http_client: httpx.AsyncClient | None = None
) -> tuple[ManagerSnapshot, DownAdvice | None]:
    """:func:`status`, and what to do when vLLM is down and nothing here will start it."""
    manager = create_manager(settings, http_client=http_client)
    try:
        snap = await manager.snapshot()
    finally:
        await manager.aclose()
    advice = None
    if not snap.vllm.healthy and snap.state is not VLLMState.ASLEEP:
        advice = down_advice(snap.vllm.url, manager.choice, launches=manager.launches)
    if snap.gpu is None:
        from vllm_manager.gpu import make_status_source

        source = make_status_source(settings, http_client=http_client)
        lease = StartLease(settings.manager_dir, settings.vllm_lease_s).read()
        reading = await source.read()
        gpu = gpu_summary(
            reading.status, reading.reason, settings, lease, vllm_healthy=snap.vllm.healthy
        )
        snap = replace(snap, gpu=gpu, lease=None)
    return snap, advice


def format_status(
    snap: ManagerSnapshot, *, vllm_only: bool = False, advice: DownAdvice | None = None
) -> str:
    """Human text of :func:`status`'s data (``vllm status`` shows the vLLM lines only), with
    ``advice`` under the vLLM line."""
    vllm, sleep = snap.vllm, snap.sleep
    health = "healthy" if vllm.healthy else f"down ({vllm.detail})"
    if snap.state is VLLMState.ASLEEP:
        cycles, most = (sleep.cycles, sleep.max_cycles) if sleep else ("?", "?")
        health = f"asleep (sleep {cycles} of {most})"
    lines = [
        f"manager  {snap.manager_reason or snap.manager}",
        f"vLLM     {vllm.url}  {health}  model {vllm.model}",
    ]
    if vllm.pid:
        lines.append(f"         pid {vllm.pid}, launched by zotero-translate; log {vllm.log}")
    elif vllm.error:
        lines.append(f"         cannot tell whether it is ours: {vllm.error}")
    elif snap.manager != "none":
        lines.append("         no vLLM launched by zotero-translate is running")
    if snap.last_error:
        lines.append(f"         last error: {snap.last_error}")
    if advice is not None:
        lines.append(advice.text(indent="         "))
    if sleep is not None and (sleep.sleeps or sleep.wakes):
        lines.append(
            f"         slept {sleep.sleeps}, woke {sleep.wakes} times here "
            f"({sleep.wake_seconds_total:.1f} s waking)"
        )
    if vllm_only:
        return "\n".join(lines)
    gpu = snap.gpu or {}
    if gpu:
        lines.append(f"GPU      {gpu['message']}  [decision: {gpu['decision']}]")
        if gpu.get("memory_total_mib"):
            used, total = gpu["memory_used_mib"], gpu["memory_total_mib"]
            lines.append(f"         memory {gib(used)} of {gib(total)} in use")
    lease = snap.lease
    if lease:
        age = time.time() - lease["started_at"]
        sent = "launch sent" if lease["launched"] else "launch not sent yet"
        lines.append(
            f"lease    held by pid {lease['owner_pid']} on {lease['host']} for {age:.0f} s "
            f"({sent}; expires in {lease['expires_in_s']:.0f} s)"
        )
    else:
        lines.append("lease    none (no start in progress)")
    return "\n".join(lines)


async def hosts_status(
    settings: Settings, *, http_client: httpx.AsyncClient | None = None
) -> list[dict[str, Any]]:
    """Each host of ``ZT_HOSTS`` as the pool sees it now (one look, nothing brought up)."""
    hosts = [
        Host(plan.name, create_manager(plan.settings, http_client=http_client), plan.weight)
        for plan in plan_hosts(settings)
    ]
    pool = HostPool(
        hosts,
        poll_s=settings.gpu_poll_s,
        wait_s=0.0,
        on_ready=lambda name, ready, why: None,
        demand=lambda: (0, 0.0),
    )
    try:
        await pool.refresh()
        return [host.to_dict() for host in pool.hosts]
    finally:
        for host in hosts:
            await host.manager.aclose()


def format_hosts(rows: list[dict[str, Any]]) -> str:
    """Human text of :func:`hosts_status`: one line per host."""
    lines = [f"hosts    {len(rows)}"]
    for row in rows:
        holder = f"  {row['holder']}" if row["holder"] else ""
        lines.append(
            f"  {row['name']:<12} {row['state']:<11} {row['manager']:<6} "
            f"{mask_secrets(row['url'])}  weight {row['weight']:g}{holder}"
        )
        if row["last_error"]:
            lines.append(f"               last error: {mask_secrets(row['last_error'])}")
    return "\n".join(lines)


# --- several hosts: which one(s) an action addresses --------------------------------------


def chosen_hosts(settings: Settings, name: str | None) -> list[HostPlan]:
    """The hosts ``--gpu-host NAME`` names (None: every configured host, in order).

    Raises ``ConfigError`` naming the configured hosts when ``name`` is not one of them.
    """
    plans = plan_hosts(settings)
    if name is None:
        return plans
    found = [plan for plan in plans if plan.name == name]
    if not found:
        names = ", ".join(plan.name for plan in plans)
        raise ConfigError(f"no GPU host is named {name!r}; the configured hosts are: {names}")
    return found


async def bring_up_one(
    settings: Settings, progress: ProgressSink = ignore_progress, *, asleep_only: bool = False
) -> tuple[HostPlan, str]:
    """Bring up ONE host as a paper would (``vllm start``/``wake`` without ``--gpu-host``): none
    when one is ready already, else the cheapest (asleep, loading, stopped; the heavier first
    among equals), each through its own gatekeeper. ``asleep_only`` (``wake``): only a sleeping
    host is woken. Returns the host and a line of what was done."""
    plans = plan_hosts(settings)
    if len(plans) == 1:
        return plans[0], ""
    hosts = [
        Host(plan.name, create_manager(plan.settings), plan.weight, plan.wake_s, plan.start_s)
        for plan in plans
    ]
    pool = HostPool(
        hosts,
        poll_s=settings.gpu_poll_s,
        wait_s=settings.gpu_wait_s,
        on_ready=lambda name, ready, why: None,
        demand=lambda: (0, 0.0),
    )
    by_name = {plan.name: plan for plan in plans}
    try:
        await pool.refresh()
        ready = [h for h in pool.hosts if h.state is HostState.READY]
        if ready:
            return by_name[ready[0].name], f"host {ready[0].name} is ready already"
        if asleep_only:
            asleep = [h for h in bring_up_order(pool.hosts) if h.state is HostState.ASLEEP]
            if not asleep:
                raise LLMUnavailableError("no GPU host sleeps: " + pool.summary())
            return by_name[asleep[0].name], ""
        await pool.ensure_ready(progress)
        up = next(h for h in pool.hosts if h.state is HostState.READY)
        return by_name[up.name], ""
    finally:
        for host in hosts:
            await host.manager.aclose()
