"""The GPU decision: may we start vLLM now, must we wait for one that is loading, or refuse?

Pure functions over a ``GPUStatus`` snapshot and the start lease; no I/O, no clock (the caller
passes ``now``). Rules, in order (issue 4):

1. no status at all                                                  -> UNKNOWN
2. a process whose command line contains a vLLM keyword
   (``vllm``, ``VLLM::``, ``translategemma``; case-insensitive) and
   names no other ``--port`` than our launch command                 -> VLLM_LOADING
3. any other process on the GPU (or a watched Python service about to
   take it), or memory in use without processes                     -> BUSY
4. otherwise idle; but inside an unexpired start lease               -> VLLM_LOADING
                                                                     else IDLE

Rule 2 looks at watched processes that are not on the GPU yet too: a ``vllm serve`` still
importing is a vLLM even before it holds VRAM. Off the GPU, a keyword match must also look like
a server (``serve`` or an engine title in the command line), so ``tail -f ~/vllm/vllm.log`` or
an editor open on ``start_vllm.sh`` does not make us wait for a vLLM that never comes.
Rule 3 uses our own ``idle_mib`` threshold and not the API's ``is_idle``, because under WSL2
nvidia-smi lists no processes at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from common.redact import mask_secrets
from common.vllm_identity import VLLMKeywords
from vllm_manager.gpu_model import GPUProcess, GPUStatus


class GPUDecision(StrEnum):
    IDLE = "idle"  # nothing on the GPU: a start is allowed
    VLLM_LOADING = "vllm_loading"  # a vLLM exists or was just asked for: wait, never start another
    BUSY = "busy"  # someone else holds the GPU: never start
    UNKNOWN = "unknown"  # no status: never start


@dataclass(frozen=True)
class LeaseInfo:
    """A start lease as read from disk: who asked for a start, when, until when it counts."""

    owner_pid: int
    started_at: float  # epoch seconds
    expires_at: float  # epoch seconds
    launched: bool = False  # the launch command was sent (not just the lease taken)
    host: str = ""

    def active(self, now: float) -> bool:
        return now < self.expires_at


def is_vllm(command: str, keywords: Iterable[str]) -> bool:
    """Whether a command line belongs to our vLLM: a case-insensitive keyword match, and not
    one that names another port than ours (``VLLMKeywords``: someone else's vLLM is another
    tenant of the GPU, never one to wait for)."""
    lowered = command.lower()
    if not any(k.lower() in lowered for k in keywords if k):
        return False
    return not (isinstance(keywords, VLLMKeywords) and keywords.serves_elsewhere(command))


def foreign_processes(status: GPUStatus, keywords: Sequence[str]) -> list[GPUProcess]:
    """Processes that are not vLLM and hold the GPU or are about to, largest first.

    A watched service not on the GPU yet (a ComfyUI still importing torch) counts when it runs
    under a Python interpreter: it will take VRAM in seconds, and a vLLM started now would
    collide with it. A shell or an editor whose arguments merely name it does not count.
    """
    others = [
        p
        for p in status.processes
        if not is_vllm(p.command, keywords) and (p.on_gpu or _runs_python(p.command))
    ]
    return sorted(others, key=lambda p: p.memory_mib, reverse=True)


def _runs_python(command: str) -> bool:
    program = command.split(maxsplit=1)[0].rsplit("/", 1)[-1] if command.strip() else ""
    return program.startswith("python")


def vllm_processes(status: GPUStatus, keywords: Sequence[str]) -> list[GPUProcess]:
    """Processes whose command line marks them as vLLM: on the GPU, or off it and a server."""
    return [
        p
        for p in status.processes
        if is_vllm(p.command, keywords) and (p.on_gpu or _looks_like_server(p.command))
    ]


def _looks_like_server(command: str) -> bool:
    lowered = command.lower()
    return any(mark in lowered for mark in _SERVER_MARKS)


_SERVER_MARKS = ("serve", "vllm::", "enginecore", "vllm.entrypoints")


def decide(
    status: GPUStatus | None,
    lease: LeaseInfo | None,
    keywords: Sequence[str],
    idle_mib: int,
    now: float,
) -> GPUDecision:
    """Apply the rules of the module docstring. ``now`` is epoch seconds (lease times are)."""
    if status is None:
        return GPUDecision.UNKNOWN
    if vllm_processes(status, keywords):
        return GPUDecision.VLLM_LOADING
    if foreign_processes(status, keywords) or status.memory_used_mib >= idle_mib:
        return GPUDecision.BUSY
    if lease is not None and lease.active(now):
        return GPUDecision.VLLM_LOADING
    return GPUDecision.IDLE


def decide_wake(status: GPUStatus | None, need_mib: int) -> GPUDecision:
    """May our sleeping vLLM wake now? IDLE when the free memory covers ``need_mib`` (what the
    wake takes back: weights and KV cache), BUSY when another tenant took it, UNKNOWN without a
    status. A sleeping vLLM is never a reason to launch another one: this is its only gate."""
    if status is None:
        return GPUDecision.UNKNOWN
    free = status.memory_total_mib - status.memory_used_mib
    return GPUDecision.IDLE if free >= need_mib else GPUDecision.BUSY


def gib(mib: int) -> str:
    return f"{mib / 1024:.1f} GiB"


def short_command(command: str, limit: int = 80) -> str:
    """A command line a progress line can show: the program's base name, long paths cut to
    their last two parts (``python3 …/ComfyUI/main.py --listen``), then cut to ``limit``.
    Secret-looking values are masked first (a status from an older GPU API may carry them)."""
    args = mask_secrets(command).split()
    if args and "/" in args[0] and not args[0].startswith("<"):
        args[0] = args[0].rsplit("/", 1)[1] or args[0]
    for i, arg in enumerate(args[1:], start=1):
        parts = arg.split("/")
        if len(parts) > 3 and not arg.startswith("-"):
            args[i] = "…/" + "/".join(parts[-2:])
    text = " ".join(args)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _holders(processes: Sequence[GPUProcess]) -> str:
    """Who holds the memory: the processes using some, largest first; those at 0 MiB (a CUDA
    context opening, a watched process) are only counted, unless no process uses any."""
    holding = sorted((p for p in processes if p.memory_mib > 0), key=lambda p: -p.memory_mib)
    named = holding or list(processes)
    text = ", ".join(
        f"{short_command(p.command)} (pid {p.pid}, {gib(p.memory_mib)})" for p in named
    )
    idle = len(processes) - len(named)
    if idle:
        text += f" (and {idle} more process{'es' if idle > 1 else ''} holding no memory)"
    return text


def describe(
    decision: GPUDecision,
    status: GPUStatus | None,
    reason: str,
    keywords: Sequence[str],
) -> str:
    """One human line for a decision, naming who holds the GPU or why the status is unknown.

    ``reason`` is the status source's explanation (used for UNKNOWN).
    """
    if decision is GPUDecision.UNKNOWN or status is None:
        return f"GPU status unknown: {reason or 'no status'}"
    if decision is GPUDecision.BUSY:
        others = foreign_processes(status, keywords)
        if others:
            return f"GPU busy: {_holders(others)}"
        return (
            f"GPU busy: {gib(status.memory_used_mib)} in use by processes nvidia-smi does not "
            "list (WSL2 or a container?)"
        )
    if decision is GPUDecision.VLLM_LOADING:
        found = vllm_processes(status, keywords)
        if found:
            top = found[0]
            where = f"{gib(top.memory_mib)} on the GPU" if top.on_gpu else "not on the GPU yet"
            text = f"vLLM loading: {short_command(top.command)} (pid {top.pid}, {where})"
        else:
            text = "vLLM starting: a start was asked for, not on the GPU yet"
        others = foreign_processes(status, keywords)
        if others:
            # It will not fit beside them: say who holds the memory, not only who waits.
            text += "; also on the GPU: " + _holders(others)
        return text
    return f"GPU idle ({gib(status.memory_used_mib)} in use)"
