"""GPU status: the in-process probe, the client of the GPU status API, and the idle rule.

Two sources give the same :class:`GPUStatus` (the JSON of the GPU status API, which other
tools read):

* :class:`ProbeSource` runs nvidia-smi and scans ``/proc`` on this host (:func:`probe_gpu`).
* :class:`ApiSource` asks a GPU status API (``zotero-translate gpu-api``) on the GPU host.

Both implement :class:`GPUStatusSource`: ``read()`` never raises and never hangs; when the
status cannot be had it returns ``StatusReading(None, reason)``, and the caller must then treat
the GPU as unknown, never as idle.

What the probe reports (``processes``):

1. every compute process nvidia-smi lists, with the full command line from
   ``/proc/PID/cmdline``. One whose command line cannot be read is still listed, as
   ``<unknown: pid N: why; nvidia-smi name: ...>``. One that nvidia-smi lists but ``/proc``
   does not know is checked again with a second query: gone then means it exited (dropped,
   with a note); still listed means it lives in another PID namespace (a container) and is
   reported as unknown.
2. every other process whose command line contains a watched keyword
   (``ZT_GPU_WATCH_KEYWORDS``), with ``memory_mib=0`` and ``on_gpu=False``: a ``vllm serve``
   still importing holds no VRAM yet, and under WSL2 nvidia-smi lists no process at all. The
   process running the probe and its ancestors are skipped (see
   :func:`vllm_manager.procscan.self_and_ancestors`).

Idle (:func:`is_idle`): no process of either kind AND every GPU's memory use below
``ZT_GPU_IDLE_MIB`` — except a vLLM asleep (issue 11): it is listed with ``sleeping: true`` and
neither it nor the residue it leaves on the card (about 1 GiB) makes the GPU busy. The probe
learns it from vLLM itself: when a process matching ``ZT_VLLM_MATCH_KEYWORDS`` is present it
asks ``GET /is_sleeping`` of ``ZT_LLM_BASE_URL`` (one second at most; no answer: awake).
A GPU whose ``memory.used`` is ``[N/A]`` makes the whole reading fail: without it idleness
cannot be known. Other ``[N/A]`` fields read 0 and are named in
``GPUInfo.unavailable``.

Whole-host summary: memory used and total are summed over GPUs; utilisation and temperature
are the highest of any GPU.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import httpx
from pydantic import SecretStr, ValidationError

from common.errors import GPUReadError
from common.settings import Settings
from vllm_manager import procscan, smi
from vllm_manager.gpu_model import GPUInfo, GPUProcess, GPUStatus
from vllm_manager.procscan import Cmdline, CmdlineState

DEFAULT_API_TIMEOUT_S = 10.0


class StatusReading(NamedTuple):
    """A status, or ``None`` and the reason it could not be read."""

    status: GPUStatus | None
    reason: str


class GPUStatusSource(Protocol):
    async def read(self) -> StatusReading:
        """The current status. Never raises, never hangs: failures are ``(None, reason)``."""
        ...


# --- the rule and the pure assembly ---------------------------------------------------------


def is_idle(processes: Sequence[GPUProcess], memory_used_mib: Iterable[int], idle_mib: int) -> bool:
    """True only when there is no process at all (on a GPU or watched) but sleeping vLLMs, and
    there is at least one GPU and every GPU uses less than ``idle_mib`` once the sleeping
    vLLMs' residue is taken off (with several GPUs, off each of them)."""
    used = list(memory_used_mib)
    if any(not p.sleeping for p in processes):
        return False
    residue = sum(p.memory_mib for p in processes)
    return bool(used) and all(m - residue < idle_mib for m in used)


def mark_sleeping(processes: Sequence[GPUProcess], pids: frozenset[int]) -> list[GPUProcess]:
    """``processes`` with those in ``pids`` marked ``sleeping``."""
    return [p.model_copy(update={"sleeping": True}) if p.pid in pids else p for p in processes]


def unknown_command(pid: int, why: str, smi_name: str | None) -> str:
    """The ``command`` of a GPU process whose command line cannot be read."""
    name = f"; nvidia-smi name: {smi_name}" if smi_name else ""
    return f"<unknown: pid {pid}: {why}{name}>"


def gpu_process(app: smi.SmiApp, cmdline: Cmdline) -> GPUProcess:
    """One nvidia-smi row as a :class:`GPUProcess`, with the command line from ``/proc``."""
    if cmdline.state is CmdlineState.OK:
        command = cmdline.command
    elif cmdline.state is CmdlineState.GONE:
        command = unknown_command(
            app.pid, "not visible in /proc (another PID namespace?)", app.process_name
        )
    else:
        why = cmdline.detail
        if cmdline.command:
            why = f"{cmdline.command} {why}"
        command = unknown_command(app.pid, why, app.process_name)
    return GPUProcess(
        pid=app.pid,
        command=command,
        memory_mib=app.used_memory_mib or 0,
        on_gpu=True,
        gpu_uuid=app.gpu_uuid,
    )


def assemble_status(
    gpus: Sequence[smi.SmiGPU],
    on_gpu: Sequence[GPUProcess],
    watched: Sequence[Cmdline],
    idle_mib: int,
    checked_at: datetime,
    notes: Sequence[str] = (),
    sleeping: frozenset[int] = frozenset(),
) -> GPUStatus:
    """Build the status from parsed nvidia-smi rows, resolved GPU processes and watched ones.

    Raises ``GPUReadError`` when a GPU's memory use is unknown (see the module docstring).
    ``sleeping``: pids of a vLLM asleep (listed with ``sleeping: true``).
    """
    notes = list(notes)
    on_gpu = mark_sleeping(on_gpu, sleeping)
    infos = []
    known_uuids = {g.uuid for g in gpus}
    for gpu in gpus:
        if gpu.memory_used_mib is None:
            raise GPUReadError(
                f"nvidia-smi reports no memory use for GPU {gpu.index} ({gpu.name}); "
                "cannot tell whether it is in use"
            )
        mine = [
            p
            for p in on_gpu
            if p.gpu_uuid == gpu.uuid or (len(gpus) == 1 and p.gpu_uuid not in known_uuids)
        ]
        unavailable = [
            field
            for field, value in (
                ("utilization.gpu", gpu.utilization_pct),
                ("memory.total", gpu.memory_total_mib),
                ("temperature.gpu", gpu.temperature_c),
            )
            if value is None
        ]
        infos.append(
            GPUInfo(
                index=gpu.index,
                uuid=gpu.uuid,
                name=gpu.name,
                memory_used_mib=gpu.memory_used_mib,
                memory_total_mib=gpu.memory_total_mib or 0,
                utilization_pct=gpu.utilization_pct or 0,
                temperature_c=gpu.temperature_c or 0,
                processes=_by_memory(mine),
                is_idle=is_idle(mine, [gpu.memory_used_mib], idle_mib),
                unavailable=unavailable,
            )
        )
        if unavailable:
            notes.append(f"GPU {gpu.index}: nvidia-smi gives no {', '.join(unavailable)}")
    processes = _merge_by_pid(on_gpu)
    if len(gpus) > 1 and any(p.gpu_uuid not in known_uuids for p in on_gpu):
        notes.append("some GPU processes could not be matched to a GPU")
    seen = {p.pid for p in processes}
    processes += [
        GPUProcess(pid=w.pid, command=w.command, memory_mib=0, on_gpu=False)
        for w in watched
        if w.pid not in seen
    ]
    processes = mark_sleeping(processes, sleeping)
    used = sum(i.memory_used_mib for i in infos)
    total = sum(i.memory_total_mib for i in infos)
    return GPUStatus(
        is_idle=is_idle(processes, [i.memory_used_mib for i in infos], idle_mib),
        memory_used_mib=used,
        memory_total_mib=total,
        memory_free_mib=max(total - used, 0),
        utilization_pct=max((i.utilization_pct for i in infos), default=0),
        temperature_c=max((i.temperature_c for i in infos), default=0),
        processes=processes,
        gpus=infos,
        checked_at=checked_at,
        notes=notes,
    )


def _by_memory(processes: Iterable[GPUProcess]) -> list[GPUProcess]:
    return sorted(processes, key=lambda p: (-p.memory_mib, p.pid))


def _merge_by_pid(processes: Sequence[GPUProcess]) -> list[GPUProcess]:
    """One entry per pid; a process on several GPUs gets its memory summed and no gpu_uuid."""
    merged: dict[int, GPUProcess] = {}
    for proc in processes:
        have = merged.get(proc.pid)
        if have is None:
            merged[proc.pid] = proc
        else:
            merged[proc.pid] = have.model_copy(
                update={"memory_mib": have.memory_mib + proc.memory_mib, "gpu_uuid": None}
            )
    return _by_memory(merged.values())


# --- the in-process probe -------------------------------------------------------------------


def probe_gpu(settings: Settings, *, proc_root: Path = procscan.PROC_ROOT) -> GPUStatus:
    """Read the GPU(s) of this host now: nvidia-smi plus a ``/proc`` scan. Blocking.

    Takes at most about three nvidia-smi timeouts (``ZT_SMI_TIMEOUT_S``). Raises
    ``GPUReadError`` with the reason when the GPU cannot be read.
    """
    exe = smi.find_nvidia_smi(settings.nvidia_smi)
    timeout = settings.smi_timeout_s
    gpus = smi.query_gpus(exe, timeout)
    apps = smi.query_apps(exe, timeout)
    checked_at = datetime.now(UTC)
    cmdlines = {app.pid: procscan.read_cmdline(app.pid, proc_root) for app in apps}
    notes = []
    missing = {pid for pid, c in cmdlines.items() if c.state is CmdlineState.GONE}
    if missing:
        # Exited between nvidia-smi's answer and our look, or lives in another PID namespace
        # (nvidia-smi reports host PIDs inside a container). Ask again to tell them apart.
        still_listed = {app.pid for app in smi.query_apps(exe, timeout)}
        for pid in sorted(missing - still_listed):
            notes.append(f"pid {pid} left the GPU during the check")
        apps = [app for app in apps if app.pid not in missing or app.pid in still_listed]
    if any(app.used_memory_mib is None for app in apps):
        notes.append("nvidia-smi gives no per-process memory (Windows WDDM?)")
    on_gpu = [gpu_process(app, cmdlines[app.pid]) for app in apps]
    exclude = procscan.self_and_ancestors(proc_root=proc_root) | {app.pid for app in apps}
    watched = procscan.scan(settings.watch_keywords, exclude, proc_root)
    vllms = frozenset(
        p.pid for p in on_gpu if procscan.matches(p.command, settings.vllm_keywords)
    ) | frozenset(w.pid for w in watched if procscan.matches(w.command, settings.vllm_keywords))
    sleeping = vllms if vllms and vllm_is_sleeping(settings) else frozenset()
    return assemble_status(
        gpus, on_gpu, watched, settings.gpu_idle_mib, checked_at, notes, sleeping
    )


def vllm_is_sleeping(settings: Settings) -> bool:
    """``GET /is_sleeping`` of the configured vLLM (blocking, one second at most)."""
    root = settings.llm_base_url.rstrip("/").removesuffix("/v1")
    try:
        resp = httpx.get(f"{root}/is_sleeping", timeout=1.0)
        return resp.status_code == 200 and bool(resp.json().get("is_sleeping"))
    except (httpx.HTTPError, ValueError, AttributeError):
        return False


class ProbeSource:
    """:func:`probe_gpu` in a worker thread, with an overall deadline.

    Concurrent readers share one probe in flight, so a dashboard open on five phones runs
    nvidia-smi once per refresh rather than five times.
    """

    def __init__(self, settings: Settings, *, proc_root: Path = procscan.PROC_ROOT) -> None:
        self._settings = settings
        self._proc_root = proc_root
        # Up to three nvidia-smi calls (the re-check of vanished pids), plus the /proc scan.
        self.deadline_s = 3 * settings.smi_timeout_s + 2.0
        self._inflight: asyncio.Future[GPUStatus] | None = None

    async def read(self) -> StatusReading:
        loop = asyncio.get_running_loop()
        fut = self._inflight
        if fut is None or fut.done() or fut.get_loop() is not loop:
            fut = asyncio.ensure_future(
                asyncio.to_thread(probe_gpu, self._settings, proc_root=self._proc_root)
            )
            # Every waiter may time out and leave; the result is still consumed.
            fut.add_done_callback(_consume)
            self._inflight = fut
        try:
            status = await asyncio.wait_for(asyncio.shield(fut), self.deadline_s)
        except TimeoutError:
            return StatusReading(None, f"GPU probe did not finish within {self.deadline_s:g} s")
        except GPUReadError as exc:
            return StatusReading(None, str(exc))
        except Exception as exc:  # never raise: the caller treats the GPU as unknown
            return StatusReading(None, f"GPU probe failed: {type(exc).__name__}: {exc}")
        return StatusReading(status, "")


def _consume(fut: asyncio.Future[Any]) -> None:
    if not fut.cancelled():
        fut.exception()


# --- the HTTP client ------------------------------------------------------------------------


class ApiSource:
    """Client of the GPU status API: ``GET {url}/status`` with a Bearer token.

    ``http_client`` is borrowed (not closed); without one, each read uses a fresh client.
    ``timeout_s`` bounds a whole read, connect to last byte.
    """

    def __init__(
        self,
        url: str,
        token: str | SecretStr | None,
        http_client: httpx.AsyncClient | None = None,
        timeout_s: float = DEFAULT_API_TIMEOUT_S,
    ) -> None:
        self.url = url.rstrip("/")
        self._token = token.get_secret_value() if isinstance(token, SecretStr) else token
        self._client = http_client
        self._timeout_s = timeout_s

    async def read(self) -> StatusReading:
        where = f"GPU status API at {self.url}"
        try:
            async with asyncio.timeout(self._timeout_s):
                if self._client is not None:
                    response = await self._get(self._client)
                else:
                    async with httpx.AsyncClient(timeout=self._timeout_s) as client:
                        response = await self._get(client)
            return self._interpret(response, where)
        except TimeoutError:
            return StatusReading(None, f"{where} did not answer within {self._timeout_s:g} s")
        except httpx.HTTPError as exc:
            return StatusReading(None, f"{where} unreachable: {exc or type(exc).__name__}")
        except Exception as exc:  # never raise: the caller treats the GPU as unknown
            return StatusReading(None, f"{where} failed: {type(exc).__name__}: {exc}")

    async def _get(self, client: httpx.AsyncClient) -> httpx.Response:
        headers = {"Accept": "application/json"}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        return await client.get(f"{self.url}/status", headers=headers, timeout=self._timeout_s)

    @staticmethod
    def _interpret(response: httpx.Response, where: str) -> StatusReading:
        code = response.status_code
        if code in (401, 403):
            return StatusReading(None, f"{where} rejected the token (HTTP {code})")
        if code == 503:
            return StatusReading(None, f"{where} cannot read the GPU: {_reason_of(response)}")
        if code != 200:
            return StatusReading(None, f"{where} answered HTTP {code}: {_reason_of(response)}")
        try:
            body = response.json()
            if isinstance(body, dict):
                # The seeds' contract does not promise checked_at; a minimal server may omit it.
                body.setdefault("checked_at", datetime.now(UTC).isoformat())
            return StatusReading(GPUStatus.model_validate(body), "")
        except (ValueError, ValidationError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return StatusReading(None, f"{where} sent an unreadable status: {first}")


def _reason_of(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("reason"), str):
        return str(body["reason"])
    return response.text.strip()[:200] or response.reason_phrase


def make_status_source(
    settings: Settings, http_client: httpx.AsyncClient | None = None
) -> GPUStatusSource:
    """:class:`ApiSource` when ``ZT_GPU_API_URL`` is set (token ``ZT_GPU_API_TOKEN``), else
    :class:`ProbeSource` on this host."""
    if settings.gpu_api_url:
        return ApiSource(settings.gpu_api_url, settings.gpu_api_token, http_client)
    return ProbeSource(settings)
