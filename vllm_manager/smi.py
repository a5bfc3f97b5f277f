"""nvidia-smi: finding it, running it with a timeout, and parsing its CSV output.

The parsers are pure (text in, dataclasses out) and raise ``GPUReadError`` on anything they do
not understand: a line we cannot read might be a process we would otherwise miss, so garbage is
never skipped silently. Values nvidia-smi cannot supply (``[N/A]``, ``[Not Supported]``,
``[Insufficient Permissions]`` and the like) become ``None``; callers decide what that means.

Formats (``--format=csv,noheader,nounits``; one line per row, fields separated by ", "):

* ``--query-gpu=index,uuid,name,utilization.gpu,memory.used,memory.total,temperature.gpu``
  ``0, GPU-5f3c..., NVIDIA GeForce RTX 5090, 3, 512, 32607, 41``
* ``--query-compute-apps=pid,process_name,used_gpu_memory,gpu_uuid``
  ``4242, VLLM::EngineCore, 28034, GPU-5f3c...`` (no process: empty output)
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from common.errors import GPUReadError

GPU_FIELDS = (
    "index",
    "uuid",
    "name",
    "utilization.gpu",
    "memory.used",
    "memory.total",
    "temperature.gpu",
)
APP_FIELDS = ("pid", "process_name", "used_gpu_memory", "gpu_uuid")
CSV_FORMAT = "--format=csv,noheader,nounits"
GPU_QUERY_ARGS = (f"--query-gpu={','.join(GPU_FIELDS)}", CSV_FORMAT)
APP_QUERY_ARGS = (f"--query-compute-apps={','.join(APP_FIELDS)}", CSV_FORMAT)

# A systemd service does not get WSL's PATH, so these are tried after PATH.
FALLBACK_PATHS = (Path("/usr/lib/wsl/lib/nvidia-smi"), Path("/usr/bin/nvidia-smi"))

# Some nvidia-smi builds print this line instead of empty output (seen under WSL).
_NO_PROCESSES = "no running processes found"
_SEPARATOR = ", "
_MAX_QUOTED = 120


@dataclass(frozen=True)
class SmiGPU:
    """One row of ``--query-gpu``. ``None`` = nvidia-smi printed ``[N/A]`` or similar."""

    index: int
    uuid: str
    name: str
    utilization_pct: int | None
    memory_used_mib: int | None
    memory_total_mib: int | None
    temperature_c: int | None


@dataclass(frozen=True)
class SmiApp:
    """One row of ``--query-compute-apps``: a process holding a compute context."""

    pid: int
    process_name: str | None
    used_memory_mib: int | None  # None under Windows WDDM
    gpu_uuid: str | None


def is_unavailable(value: str) -> bool:
    """Whether a field says "no value": ``[N/A]``, ``[Not Supported]``, ``N/A``, empty."""
    value = value.strip()
    return not value or value.upper() == "N/A" or (value.startswith("[") and value.endswith("]"))


def _quote(line: str) -> str:
    return repr(line if len(line) <= _MAX_QUOTED else line[:_MAX_QUOTED] + "...")


def _number(value: str, field: str, line: str) -> int | None:
    """An integer field (nvidia-smi prints some as decimals, e.g. power or fractional MiB)."""
    if is_unavailable(value):
        return None
    try:
        return round(float(value))
    except ValueError:
        raise GPUReadError(
            f"unexpected nvidia-smi output: {field} is {value.strip()!r} in {_quote(line)}"
        ) from None


def _text(value: str) -> str | None:
    return None if is_unavailable(value) else value.strip()


def _rows(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def parse_gpu_csv(text: str) -> list[SmiGPU]:
    """Parse ``--query-gpu`` output for :data:`GPU_FIELDS`. At least one GPU is required."""
    gpus = []
    for line in _rows(text):
        parts = line.split(_SEPARATOR)
        # A GPU name could contain ", "; every other field cannot, so it absorbs the extra parts.
        extra = len(parts) - len(GPU_FIELDS)
        if extra < 0:
            raise GPUReadError(f"unexpected nvidia-smi output: {_quote(line)}")
        name = _SEPARATOR.join(parts[2 : 3 + extra])
        index, uuid = parts[0], parts[1]
        util, used, total, temp = parts[3 + extra :]
        idx = _number(index, "index", line)
        if idx is None or not uuid.strip():
            raise GPUReadError(f"unexpected nvidia-smi output: {_quote(line)}")
        gpus.append(
            SmiGPU(
                index=idx,
                uuid=uuid.strip(),
                name=_text(name) or "unknown GPU",
                utilization_pct=_number(util, "utilization.gpu", line),
                memory_used_mib=_number(used, "memory.used", line),
                memory_total_mib=_number(total, "memory.total", line),
                temperature_c=_number(temp, "temperature.gpu", line),
            )
        )
    if not gpus:
        raise GPUReadError("nvidia-smi listed no GPU")
    return gpus


def parse_apps_csv(text: str) -> list[SmiApp]:
    """Parse ``--query-compute-apps`` output for :data:`APP_FIELDS`. Empty output = none."""
    apps = []
    for line in _rows(text):
        if line.lower().startswith(_NO_PROCESSES):
            continue
        parts = line.split(_SEPARATOR)
        if len(parts) < len(APP_FIELDS):
            raise GPUReadError(f"unexpected nvidia-smi output: {_quote(line)}")
        # process_name is free text (a command title may contain ", "): it takes the extra parts.
        pid_text, name, memory, uuid = parts[0], _SEPARATOR.join(parts[1:-2]), parts[-2], parts[-1]
        if not pid_text.strip().isdigit() or int(pid_text) <= 0:
            raise GPUReadError(f"unexpected nvidia-smi output: pid in {_quote(line)}")
        apps.append(
            SmiApp(
                pid=int(pid_text),
                process_name=_text(name),
                used_memory_mib=_number(memory, "used_gpu_memory", line),
                gpu_uuid=_text(uuid),
            )
        )
    return apps


def find_nvidia_smi(
    configured: Path | None,
    search_path: str | None = None,
    fallbacks: Sequence[Path] = FALLBACK_PATHS,
) -> Path:
    """The nvidia-smi to run: ``configured`` (``ZT_NVIDIA_SMI``), else PATH, else ``fallbacks``.

    ``search_path`` is the PATH to search (``None``: this process's PATH). Raises
    ``GPUReadError`` naming every place looked at.
    """
    if configured is not None:
        if configured.is_file() and os.access(configured, os.X_OK):
            return configured
        raise GPUReadError(f"ZT_NVIDIA_SMI={configured} is not an executable file")
    found = shutil.which("nvidia-smi", path=search_path)
    if found:
        return Path(found).absolute()
    for candidate in fallbacks:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    looked = ", ".join(["PATH", *(str(p) for p in fallbacks)])
    raise GPUReadError(f"nvidia-smi not found (looked in {looked}; set ZT_NVIDIA_SMI)")


def run_smi(executable: Path, args: Sequence[str], timeout_s: float) -> str:
    """Run nvidia-smi and return its stdout; raise ``GPUReadError`` on failure or timeout.

    It runs in its own process group, and the whole group is killed on timeout: a wrapper
    script's children must not outlive the call (a hung driver call would pile them up).
    """
    try:
        proc = subprocess.Popen(
            [str(executable), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise GPUReadError(f"cannot run {executable}: {exc.strerror or exc}") from exc
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        raise GPUReadError(f"nvidia-smi did not answer within {timeout_s:g} s") from None
    stdout = out.decode("utf-8", errors="replace")
    if proc.returncode != 0:
        said = _first_line(err.decode("utf-8", errors="replace")) or _first_line(stdout)
        raise GPUReadError(f"nvidia-smi failed (exit code {proc.returncode}): {said or '-'}")
    return stdout


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    # Reap; pipes held open by a grandchild that escaped the group must not block us.
    try:
        proc.communicate(timeout=1.0)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:200]
    return ""


def query_gpus(executable: Path, timeout_s: float) -> list[SmiGPU]:
    return parse_gpu_csv(run_smi(executable, GPU_QUERY_ARGS, timeout_s))


def query_apps(executable: Path, timeout_s: float) -> list[SmiApp]:
    return parse_apps_csv(run_smi(executable, APP_QUERY_ARGS, timeout_s))
