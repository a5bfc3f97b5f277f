"""vLLM sleep mode (issue 11): the policy, the record kept on disk, and the HTTP calls.

The transitions themselves (when to sleep, how a wake is confirmed) are
``vllm_manager.sleep_cycle``.

Level 1 only: the weights go to pinned host RAM, the KV cache is dropped, about 1 GiB (CUDA
context and graphs) stays on the card. Level 2 drops the weights and is broken for quantized
checkpoints (vLLM #28606), so we never use it. The routes exist only when vLLM runs with
``--enable-sleep-mode`` and ``VLLM_SERVER_DEV_MODE=1`` (:func:`launch_command` adds both).

The record (``sleep.json`` beside the start lease) says which vLLM (pid) slept how often and
how much GPU memory its sleep freed, so the next wake — in this process or another — knows what
it will take back, and a vLLM that slept ``ZT_VLLM_MAX_SLEEP_CYCLES`` times is restarted fresh
(allocator leaks after several cycles on Blackwell cards: vLLM #34600, #43020).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

from common.settings import IdleAction, Settings
from vllm_manager.decision import vllm_processes
from vllm_manager.detach import pid_alive
from vllm_manager.gpu_model import GPUStatus

SLEEP_FLAG = "--enable-sleep-mode"
DEV_MODE_ENV = "VLLM_SERVER_DEV_MODE"
#: A vLLM asleep whose processes still hold more than this has not let go of the card.
RESIDUE_MAX_MIB = 4096
#: Without per-process rows (WSL2), a sleep must free at least this much of the card.
MIN_FREED_MIB = 2048
#: Timeouts: offloading 17 GB of weights to host RAM takes seconds, never minutes.
SLEEP_TIMEOUT_S = 180.0
WAKE_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class SleepRecord:
    """What the last sleep of our vLLM left behind (``sleep.json``)."""

    pid: int
    cycles: int  # sleeps of this vLLM process so far
    freed_mib: int  # GPU memory the last sleep gave back: what a wake takes again
    slept_at: float  # epoch seconds


class SleepBook:
    """``sleep.json`` in ``directory``: written atomically, a torn file reads as no record."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "sleep.json"

    def read(self, pid: int | None = None) -> SleepRecord | None:
        """The record, or None; with ``pid``, only a record of that process counts."""
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            record = SleepRecord(
                pid=int(raw["pid"]),
                cycles=int(raw["cycles"]),
                freed_mib=int(raw["freed_mib"]),
                slept_at=float(raw["slept_at"]),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return record if pid is None or record.pid == pid else None

    def write(self, record: SleepRecord) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(asdict(record)), encoding="utf-8")
        os.replace(tmp, self.path)

    def clear(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


class Marks:
    """One file per process in ``directory``, named by its pid: "this process is doing X".

    Two uses, both between processes of this host sharing the data dir: ``work/`` (a
    translation is running here: never put vLLM to sleep under it) and ``going/`` (a sleep is
    under way: nothing may be sent to vLLM until it is over, then it must be woken). Each side
    writes its own mark before it looks for the other's, so of two processes racing at least
    one sees the other. Marks of dead processes do not count (and are removed).
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def set(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / str(os.getpid())).touch()

    def clear(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            (self.directory / str(os.getpid())).unlink()

    def others(self) -> list[int]:
        """Live pids other than ours that hold a mark."""
        try:
            names = [p.name for p in self.directory.iterdir()]
        except FileNotFoundError:
            return []
        found = []
        for name in names:
            if not name.isdigit() or int(name) == os.getpid():
                continue
            if pid_alive(int(name)):
                found.append(int(name))
            else:
                with contextlib.suppress(FileNotFoundError):
                    (self.directory / name).unlink()
        return sorted(found)


# --- policy (pure) ------------------------------------------------------------------------------


def may_sleep(settings: Settings) -> bool:
    """Whether the idle action can be ``sleep``: then vLLM is launched with sleep mode."""
    return IdleAction(settings.vllm_idle_action) is not IdleAction.STOP


def launch_command(settings: Settings) -> str:
    """``ZT_VLLM_COMMAND``, with sleep mode switched on when the idle action may be sleep.

    The flag is appended (the command ends with ``vllm serve``'s arguments) unless present;
    the variable is exported first, so it reaches a command that starts with other steps.
    """
    command = settings.vllm_command
    if not may_sleep(settings):
        return command
    if SLEEP_FLAG not in command:
        command = f"{command} {SLEEP_FLAG}"
    return f"export {DEV_MODE_ENV}=1; {command}"


def choose_idle_action(
    settings: Settings, *, sleep_routes: bool, mem_available_mib: int | None, cycles: int
) -> tuple[IdleAction, str]:
    """``SLEEP`` or ``STOP`` for our idle vLLM, with the reason (for the log and status).

    ``sleep_routes``: our vLLM answers ``/is_sleeping`` (it runs with sleep mode).
    ``auto`` also needs the host RAM for level 1: MemAvailable >= ``ZT_VLLM_WEIGHTS_GB``.
    """
    action = IdleAction(settings.vllm_idle_action)
    if action is IdleAction.STOP:
        return IdleAction.STOP, "ZT_VLLM_IDLE_ACTION=stop"
    if not sleep_routes:
        return IdleAction.STOP, "vLLM runs without sleep mode"
    if cycles >= settings.vllm_max_sleep_cycles:
        return IdleAction.STOP, (
            f"slept {cycles} times (ZT_VLLM_MAX_SLEEP_CYCLES): restarting it fresh next time"
        )
    if action is IdleAction.AUTO:
        need = int(settings.vllm_weights_gb * 1024)
        if mem_available_mib is None:
            return IdleAction.STOP, "host RAM unknown"
        if mem_available_mib < need:
            return IdleAction.STOP, (
                f"host RAM too small for sleep: {mem_available_mib} MiB available, "
                f"weights need {need} MiB (ZT_VLLM_WEIGHTS_GB)"
            )
    return IdleAction.SLEEP, "sleep mode"


def parse_meminfo(text: str) -> int | None:
    """MemAvailable of ``/proc/meminfo`` in MiB, or None."""
    match = re.search(r"^MemAvailable:\s+(\d+)\s*kB", text, re.MULTILINE)
    return int(match.group(1)) // 1024 if match else None


def meminfo_script() -> str:
    """The shell line that prints MemAvailable on a remote host (for :func:`parse_meminfo`)."""
    return "grep MemAvailable /proc/meminfo"


def local_mem_available_mib() -> int | None:
    try:
        return parse_meminfo(Path("/proc/meminfo").read_text())
    except OSError:
        return None


def in_flight(metrics_text: str) -> int | None:
    """Requests running plus waiting in vLLM's Prometheus text, or None if not there."""
    total, seen = 0.0, False
    for line in metrics_text.splitlines():
        match = re.match(r"vllm:num_requests_(running|waiting)\{[^}]*\}\s+([0-9.eE+-]+)", line)
        if match:
            seen = True
            total += float(match.group(2))
    return int(total) if seen else None


def confirm_sleep(
    before: GPUStatus | None, after: GPUStatus | None, keywords: Sequence[str]
) -> tuple[int, bool]:
    """(MiB freed, whether the GPU shows vLLM asleep) from the statuses around ``/sleep``.

    With per-process rows the vLLM processes must hold at most :data:`RESIDUE_MAX_MIB`; without
    them (WSL2) the card's use must have dropped by :data:`MIN_FREED_MIB`. No status: not
    confirmed (the caller stops vLLM rather than leave a card it cannot see).
    """
    if before is None or after is None:
        return 0, False
    freed = max(before.memory_used_mib - after.memory_used_mib, 0)
    ours = [p for p in vllm_processes(after, keywords) if p.on_gpu]
    if ours:
        return freed, sum(p.memory_mib for p in ours) <= RESIDUE_MAX_MIB
    return freed, freed >= MIN_FREED_MIB


def wake_need_mib(
    status: GPUStatus | None, record: SleepRecord | None, keywords: Sequence[str]
) -> int:
    """What a wake takes back: what the last sleep freed, else 90% of the card (vLLM's
    default ``--gpu-memory-utilization``) less what the sleeping vLLM still holds."""
    if record is not None and record.freed_mib > 0:
        return record.freed_mib
    if status is None:
        return 0
    residue = sum(p.memory_mib for p in vllm_processes(status, keywords) if p.on_gpu)
    return max(int(status.memory_total_mib * 0.9) - residue, 0)


# --- the HTTP calls ----------------------------------------------------------------------------


class SleepClient:
    """vLLM's sleep routes at ``base_url`` (no ``/v1``), and its ``/metrics`` request count."""

    def __init__(self, http: httpx.AsyncClient, base_url: str) -> None:
        self.http = http
        self.base_url = base_url

    async def is_sleeping(self) -> bool | None:
        """True/False from ``GET /is_sleeping``; None when the route is missing or unreachable."""
        try:
            resp = await self.http.get(f"{self.base_url}/is_sleeping", timeout=5.0)
            if resp.status_code != 200:
                return None
            return bool(resp.json().get("is_sleeping"))
        except (httpx.HTTPError, ValueError, AttributeError):
            return None

    async def requests_in_flight(self) -> int | None:
        """Running + waiting requests from ``/metrics`` (other processes' requests count)."""
        try:
            resp = await self.http.get(f"{self.base_url}/metrics", timeout=5.0)
        except httpx.HTTPError:
            return None
        return in_flight(resp.text) if resp.status_code == 200 else None

    async def sleep(self, level: int = 1) -> str | None:
        """``POST /sleep``; None on success, else what went wrong."""
        return await self._post(f"/sleep?level={level}", SLEEP_TIMEOUT_S)

    async def wake(self) -> str | None:
        return await self._post("/wake_up", WAKE_TIMEOUT_S)

    async def reset_prefix_cache(self) -> str | None:
        return await self._post("/reset_prefix_cache", 30.0)

    async def _post(self, path: str, timeout: float) -> str | None:
        try:
            resp = await self.http.post(f"{self.base_url}{path}", timeout=timeout)
        except httpx.HTTPError as exc:
            return f"POST {path}: {type(exc).__name__}"
        if resp.status_code != 200:
            return f"POST {path} answered {resp.status_code}: {resp.text[:200]}"
        return None
